/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hpd-watchers.h"

struct _HpdWatchers
{
  GDBusConnection *connection;
  HpdTraffic *traffic;
  gulong caller_id;
  GHashTable *watches;      /* name -> g_bus_watch_name id */
  HpdWatchersChanged changed;
  gpointer user_data;
};

static void
vanished (GDBusConnection *connection, const char *name, gpointer user_data)
{
  HpdWatchers *self = user_data;
  guint id = GPOINTER_TO_UINT (g_hash_table_lookup (self->watches, name));

  hpd_traffic_forget_caller (self->traffic, name);
  g_debug ("%s left the bus; %u watcher(s) left", name, g_hash_table_size (self->watches) - 1);
  /* @name belongs to the table: removed last */
  g_bus_unwatch_name (id);
  g_hash_table_remove (self->watches, name);
  if (g_hash_table_size (self->watches) == 0)
    self->changed (FALSE, self->user_data);
}

static void
caller_arrived (HpdTraffic *traffic, const char *name, gpointer user_data)
{
  HpdWatchers *self = user_data;
  guint id;

  /* watched already, from before a reconnect */
  if (g_hash_table_contains (self->watches, name))
    return;
  if (g_hash_table_size (self->watches) >= HPD_WATCHERS_MAX)
    {
      /* reported again at its next call, when there may be room */
      hpd_traffic_forget_caller (traffic, name);
      g_debug ("Not watching %s: already watching %u callers", name, (guint) HPD_WATCHERS_MAX);
      return;
    }
  /* calls vanished() (later, in this context) if it has left already */
  id = g_bus_watch_name_on_connection (self->connection, name, G_BUS_NAME_WATCHER_FLAGS_NONE,
                                       NULL, vanished, self, NULL);
  g_hash_table_insert (self->watches, g_strdup (name), GUINT_TO_POINTER (id));
  g_debug ("Watching %s until it leaves the bus; %u watcher(s)", name,
           g_hash_table_size (self->watches));
  if (g_hash_table_size (self->watches) == 1)
    self->changed (TRUE, self->user_data);
}

HpdWatchers *
hpd_watchers_new (GDBusConnection *connection, HpdTraffic *traffic, HpdWatchersChanged changed,
                  gpointer user_data)
{
  HpdWatchers *self = g_new0 (HpdWatchers, 1);

  self->connection = g_object_ref (connection);
  self->traffic = g_object_ref (traffic);
  self->watches = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->changed = changed;
  self->user_data = user_data;
  self->caller_id = g_signal_connect (traffic, "caller", G_CALLBACK (caller_arrived), self);
  hpd_traffic_track_callers (traffic);
  return self;
}

void
hpd_watchers_free (HpdWatchers *self)
{
  if (self == NULL)
    return;
  hpd_watchers_suspend (self);
  g_hash_table_unref (self->watches);
  g_free (self);
}

void
hpd_watchers_suspend (HpdWatchers *self)
{
  GHashTableIter iter;
  gpointer id;

  g_clear_signal_handler (&self->caller_id, self->traffic);
  g_clear_object (&self->traffic);
  g_clear_object (&self->connection);
  g_hash_table_iter_init (&iter, self->watches);
  while (g_hash_table_iter_next (&iter, NULL, &id))
    if (id != NULL)
      {
        g_bus_unwatch_name (GPOINTER_TO_UINT (id));
        g_hash_table_iter_replace (&iter, NULL);
      }
}

void
hpd_watchers_resume (HpdWatchers *self, GDBusConnection *connection, HpdTraffic *traffic)
{
  GHashTableIter iter;
  gpointer name;

  g_return_if_fail (self->connection == NULL);
  self->connection = g_object_ref (connection);
  self->traffic = g_object_ref (traffic);
  self->caller_id = g_signal_connect (traffic, "caller", G_CALLBACK (caller_arrived), self);
  hpd_traffic_track_callers (traffic);
  /* vanished() runs later, in this context, for those gone meanwhile */
  g_hash_table_iter_init (&iter, self->watches);
  while (g_hash_table_iter_next (&iter, &name, NULL))
    g_hash_table_iter_replace (&iter, GUINT_TO_POINTER (
                                 g_bus_watch_name_on_connection (connection, name, G_BUS_NAME_WATCHER_FLAGS_NONE,
                                                                 NULL, vanished, self, NULL)));
}

guint
hpd_watchers_count (HpdWatchers *self)
{
  return g_hash_table_size (self->watches);
}
