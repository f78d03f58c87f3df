/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The bus methods that change tunables: SetShmMax, SetRecommendedShmMax,
 * SetShmGroup, SetMinFreeKbytes, SetRecommendedMinFreeKbytes,
 * SetZoneMovable, SetThp. Each validates against what the kernel offers,
 * answers dry runs and no-ops at once, and otherwise authorizes, writes in
 * the worker, reads back and logs. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _HpdDaemon HpdDaemon;

void hpd_tunable_calls_set_shm_max (HpdDaemon *daemon, GDBusMethodInvocation *invocation,
                                    guint64 value, GVariant *options);
void hpd_tunable_calls_set_recommended_shm_max (HpdDaemon *daemon,
                                                GDBusMethodInvocation *invocation,
                                                GVariant *options);
void hpd_tunable_calls_set_shm_group (HpdDaemon *daemon, GDBusMethodInvocation *invocation,
                                      const char *group, GVariant *options);
void hpd_tunable_calls_set_min_free_kbytes (HpdDaemon *daemon, GDBusMethodInvocation *invocation,
                                            guint64 value, GVariant *options);
void hpd_tunable_calls_set_recommended_min_free_kbytes (HpdDaemon *daemon,
                                                        GDBusMethodInvocation *invocation,
                                                        GVariant *options);
void hpd_tunable_calls_set_zone_movable (HpdDaemon *daemon, GDBusMethodInvocation *invocation,
                                         gboolean enabled, GVariant *options);
void hpd_tunable_calls_set_thp (HpdDaemon *daemon, GDBusMethodInvocation *invocation,
                                GVariant *settings, GVariant *options);

/* What the recommendations are now (also shown as properties). */
guint64 hpd_tunables_recommended_shmmax (HpdDaemon *daemon);
guint64 hpd_tunables_recommended_min_free_kbytes (HpdDaemon *daemon);

G_END_DECLS
