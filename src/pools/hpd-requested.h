/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The pool sizes callers last asked for: the administrator's base of the
 * pool model (hpd-pool-model.h), and what lets Explain tell a pool that
 * fell short. Held in memory by the daemon object, which reads them on
 * every property refresh, in a run-state store (hpd-run-state.h) so that
 * an idle exit or a restart does not forget them (a reboot should); a
 * file changed behind the running service's back (another
 * `hugepagesd --apply`) counts from its next start. The file holds one
 * group, [minimum], with a key per pool name and its pages as value. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define HPD_REQUESTED_FILE "run/hugepagesd/requested"

typedef struct _HpdRequested HpdRequested;

/* The values recorded below @root (none when the file is missing or
 * unreadable). */
HpdRequested *hpd_requested_new (const char *root);
void hpd_requested_free (HpdRequested *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HpdRequested, hpd_requested_free)

/* Records @pages for @pool_name and saves the file; failures to save are
 * logged, not returned: the value is kept in memory all the same. Any
 * thread. */
void hpd_requested_note (HpdRequested *self, const char *pool_name, guint64 pages);

/* FALSE (and 0) when nothing was asked for since boot. Any thread, no
 * file read. */
gboolean hpd_requested_lookup (HpdRequested *self, const char *pool_name, guint64 *pages);

G_END_DECLS
