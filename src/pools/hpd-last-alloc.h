/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Each pool's last allocation (the LastAllocation property), kept in a
 * small key file under /run as the requested pools are (hpd-requested.h):
 * the service exits when idle, and the metrics timer that reads it comes
 * by later; a reboot forgets it. */
#pragma once

#include <glib.h>

#include "hpd-pool.h"

G_BEGIN_DECLS

#define HPD_LAST_ALLOC_FILE "run/hugepagesd/last-allocation"

/* Failures are logged, not returned: the allocation itself is done. */
void hpd_last_alloc_save (const char *root, const char *pool_name, const HpdAllocReport *report);

/* FALSE (and @report cleared) when nothing was recorded since boot. */
gboolean hpd_last_alloc_load (const char *root, const char *pool_name, HpdAllocReport *report);

G_END_DECLS
