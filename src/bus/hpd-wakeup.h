/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* How GDBus's worker thread asks the main thread to do something: a
 * source attached to the calling thread's main context, which any thread
 * may make ready (g_source_set_ready_time() is thread-safe). It runs
 * @func once however often it was rung before the main loop got to it,
 * and stays attached until destroyed. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* @name is a static string (g_source_set_static_name). The caller owns
 * the returned source and destroys it. */
GSource *hpd_wakeup_new (const char *name, int priority, GSourceFunc func, gpointer data);

/* From any thread. */
void hpd_wakeup_ring (GSource *wakeup);

G_END_DECLS
