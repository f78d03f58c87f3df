/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The pool sizes callers last asked for, so Explain can tell a pool that
 * fell short. Kept in a small key file under /run rather than in memory:
 * an idle exit or a restart must not forget them, a reboot should. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define HPD_REQUESTED_FILE "run/hugepagesd/requested"

/* Failures are logged, not returned: this is a hint for Explain. */
void hpd_requested_note (const char *root, const char *pool_name, guint64 pages);

/* FALSE when nothing was asked for since boot. */
gboolean hpd_requested_lookup (const char *root, const char *pool_name, guint64 *pages);

/* 0 when nothing was asked for since boot. */
guint64 hpd_requested_get (const char *root, const char *pool_name);

G_END_DECLS
