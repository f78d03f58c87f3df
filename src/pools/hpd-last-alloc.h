/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Each pool's last allocation (the LastAllocation property), held by the
 * daemon object in a run-state store (hpd-run-state.h) as the requested
 * pools are (hpd-requested.h): the service exits when idle, and the
 * metrics timer that reads it comes by later; a reboot forgets it. The
 * file holds a group per pool name. */
#pragma once

#include <glib.h>

#include "hpd-pool.h"

G_BEGIN_DECLS

#define HPD_LAST_ALLOC_FILE "run/hugepagesd/last-allocation"

/* The records below @root (none when the file is missing or unreadable;
 * a damaged record is left out). */
HpdLastAlloc *hpd_last_alloc_new (const char *root);
void hpd_last_alloc_free (HpdLastAlloc *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HpdLastAlloc, hpd_last_alloc_free)

/* Records @report for @pool_name, replacing its record whole, and saves
 * the file; failures to save are logged, not returned: the allocation
 * itself is done. Any thread. */
void hpd_last_alloc_note (HpdLastAlloc *self, const char *pool_name,
                          const HpdAllocReport *report);

/* FALSE (and @report cleared) when nothing was recorded since boot. Any
 * thread, no file read. */
gboolean hpd_last_alloc_lookup (HpdLastAlloc *self, const char *pool_name,
                                HpdAllocReport *report);

G_END_DECLS
