/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The running service as the layers below the bus see it: the state that
 * the pool model, applying the configuration (--apply, Claim) and
 * computing its drift read, and the checks they share with the methods.
 * The bus layer's HpdDaemon implements it (bus/hpd-daemon.c,
 * bus/hpd-tunable-calls.c); a lower layer names the daemon only through
 * this header, never through bus/hpd-daemon.h (scripts/check-layers). It
 * lives in pools/, the lowest domain that needs it, so config/ reaches it
 * the way it reaches the pool model: downwards. */

#pragma once

#include <gio/gio.h>

#include "hpd-kernel.h"
#include "hpd-pool.h"

G_BEGIN_DECLS

typedef struct _HpdDaemon HpdDaemon;

HpdKernel *hpd_daemon_get_kernel (HpdDaemon *self);
GPtrArray *hpd_daemon_get_pools (HpdDaemon *self);

/* The claims in force (hpd_claims_cache_get ()): a reference to an array
 * nobody changes. Any thread. */
GPtrArray *hpd_daemon_get_claims (HpdDaemon *self);

/* The default huge page size in bytes, 0 without huge pages. */
guint64 hpd_daemon_get_default_page_size (HpdDaemon *self);

/* NotSupported with the reason and what was compared, when mounts are
 * refused. */
gboolean hpd_daemon_check_mounts_visible (HpdDaemon *self, GError **error);

/* LimitExceeded if @pool holding @pages pages, next to what the other pools
 * hold now, would pass the limit; InvalidArgs if the bytes overflow. */
gboolean hpd_daemon_check_pool_memory (HpdDaemon *self, const HpdPool *pool,
                                       guint64 pages, GError **error);

/* 90% of MemTotal: the most memory all persistent pools together, and any
 * pool's maximum, may be set to. */
guint64 hpd_daemon_get_pool_memory_limit (HpdDaemon *self);

/* The persistent pool a caller last asked for since boot: the
 * administrator's base of the pool model, and what Explain compares a pool
 * with. Held in memory, kept under /run across restarts (hpd-requested.h).
 * Any thread. */
void hpd_daemon_note_requested (HpdDaemon *self, const HpdPool *pool, guint64 pages);
/* FALSE (and 0) when nothing was asked for since boot. */
gboolean hpd_daemon_lookup_requested (HpdDaemon *self, const HpdPool *pool, guint64 *pages);

/* The recommended kernel.shmmax and vm.min_free_kbytes for the pools. */
guint64 hpd_tunables_recommended_shmmax (HpdDaemon *daemon);
guint64 hpd_tunables_recommended_min_free_kbytes (HpdDaemon *daemon);

G_END_DECLS
