/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hpd-wakeup.h"

static gboolean
wakeup_dispatch (GSource *source, GSourceFunc callback, gpointer user_data)
{
  g_source_set_ready_time (source, -1);
  if (callback != NULL)
    callback (user_data);
  return G_SOURCE_CONTINUE;
}

/* GLib takes a non-const table; it is never written. */
static GSourceFuncs wakeup_funcs = { .dispatch = wakeup_dispatch };

GSource *
hpd_wakeup_new (const char *name, int priority, GSourceFunc func, gpointer data)
{
  GSource *source = g_source_new (&wakeup_funcs, sizeof (GSource));

  g_source_set_priority (source, priority);
  g_source_set_static_name (source, name);
  g_source_set_callback (source, func, data, NULL);
  g_source_attach (source, g_main_context_get_thread_default ());
  return source;
}

void
hpd_wakeup_ring (GSource *wakeup)
{
  g_source_set_ready_time (wakeup, 0);
}
