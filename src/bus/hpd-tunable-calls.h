/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The bus methods that change tunables: SetShmMax, SetRecommendedShmMax,
 * SetShmGroup, SetMinFreeKbytes, SetRecommendedMinFreeKbytes,
 * SetZoneMovable, SetThp. Each validates against what the kernel offers,
 * answers dry runs and no-ops at once, and otherwise authorizes, writes in
 * the worker, reads back and logs. */
#pragma once

#include <gio/gio.h>

#include "hpd-methods.h"

G_BEGIN_DECLS

typedef struct _HpdDaemon HpdDaemon;

/* Handlers of the tunables' methods (hpd-methods.c). */
void hpd_tunable_calls_set_shm_max (const HpdCall *call);
void hpd_tunable_calls_set_recommended_shm_max (const HpdCall *call);
void hpd_tunable_calls_set_shm_group (const HpdCall *call);
void hpd_tunable_calls_set_min_free_kbytes (const HpdCall *call);
void hpd_tunable_calls_set_recommended_min_free_kbytes (const HpdCall *call);
void hpd_tunable_calls_set_zone_movable (const HpdCall *call);
void hpd_tunable_calls_set_thp (const HpdCall *call);

G_END_DECLS
