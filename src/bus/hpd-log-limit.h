/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The bound on log lines a caller can cause (refusals): a token bucket
 * per uid and one for all uids together. The journal drops a unit's lines
 * past its own per-unit budget (journald's RateLimitBurst, 10,000 lines
 * per 30 s by default), whoever caused them, so without a bound of its
 * own one user without rights could use up that budget with refusals and
 * hide the records of administrators' changes, which are never passed
 * through here. A line held back is counted for its uid; the counts are
 * taken with hpd_log_limit_flush() and logged as one line per uid, so
 * every refusal is still accounted for.
 *
 * Times are given by the caller (g_get_monotonic_time()), so that the
 * unit test needs no clock. Main thread only. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The key of callers whose uid is unknown (they left the bus before it
 * answered) and of uids past the table's bound: (uid_t) -1 is no uid. */
#define HPD_LOG_LIMIT_OTHERS G_MAXUINT32

typedef struct _HpdLogLimit HpdLogLimit;

typedef struct {
  guint32 uid;       /* or HPD_LOG_LIMIT_OTHERS */
  guint64 held;      /* lines held back since the last flush */
} HpdLogHeld;

/* Each uid may log @burst lines at once and @per_second after that; all
 * uids together @total_burst and @total_per_second. At most @max_uids
 * uids are counted apart, the rest under HPD_LOG_LIMIT_OTHERS. */
HpdLogLimit *hpd_log_limit_new (double per_second, guint burst, double total_per_second,
                                guint total_burst, guint max_uids);
void hpd_log_limit_free (HpdLogLimit *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HpdLogLimit, hpd_log_limit_free)

/* TRUE: log the line for @uid now. FALSE: it is counted as held back. */
gboolean hpd_log_limit_allow (HpdLogLimit *self, guint32 uid, gint64 now_us);

/* Whether any line is held back and not yet flushed. */
gboolean hpd_log_limit_has_held (HpdLogLimit *self);

/* The lines held back per uid since the last flush (an array of
 * HpdLogHeld, uids in ascending order, HPD_LOG_LIMIT_OTHERS last), and
 * forgets uids whose bucket is full again, so that the table holds only
 * uids that logged recently. */
GArray *hpd_log_limit_flush (HpdLogLimit *self, gint64 now_us);

guint hpd_log_limit_uids (HpdLogLimit *self);

G_END_DECLS
