/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hpd-auth.h"
#include "hpd-slots.h"
#include "hpd-watchers.h"

typedef struct {
  guint32 uid;       /* whose slot it holds */
  guint watch_id;    /* g_bus_watch_name id; 0 while suspended */
} Watch;

struct _HpdWatchers
{
  GDBusConnection *connection;
  HpdTraffic *traffic;
  gulong caller_id;
  HpdSlots *slots;
  GHashTable *watches;      /* name -> Watch, each holding a slot */
  GHashTable *asking;       /* names whose uid the bus is being asked */
  GCancellable *cancellable;  /* of those questions; replaced at suspend */
  HpdWatchersChanged changed;
  gpointer user_data;
};

/* One question to the bus about a caller. Once @cancellable is cancelled,
 * @self may be gone. */
typedef struct {
  HpdWatchers *self;
  char *name;
  GCancellable *cancellable;
} Asking;

static void
asking_free (Asking *asking)
{
  g_free (asking->name);
  g_object_unref (asking->cancellable);
  g_free (asking);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Asking, asking_free)

static void
vanished (GDBusConnection *connection, const char *name, gpointer user_data)
{
  HpdWatchers *self = user_data;
  Watch *watch = g_hash_table_lookup (self->watches, name);

  /* No departure: GDBus says "vanished" too when its question about the
   * name fails because the connection closed. The watch is suspended at
   * the next turn of the loop and starts again on the next connection. */
  if (g_dbus_connection_is_closed (connection))
    return;
  hpd_traffic_forget_caller (self->traffic, name);
  hpd_caller_forget (connection, name);
  g_debug ("%s left the bus; %u watcher(s) left", name, g_hash_table_size (self->watches) - 1);
  g_bus_unwatch_name (watch->watch_id);
  hpd_slots_give (self->slots, watch->uid);
  /* @name belongs to the table: removed last */
  g_hash_table_remove (self->watches, name);
  if (g_hash_table_size (self->watches) == 0)
    self->changed (FALSE, self->user_data);
}

static void
got_uid (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(Asking) asking = user_data;
  g_autoptr(HpdCaller) caller = NULL;
  g_autoptr(GError) error = NULL;
  HpdWatchers *self;
  Watch *watch;

  caller = hpd_caller_lookup_finish (result, &error);
  /* suspended or freed meanwhile, even if the answer came first */
  if (g_cancellable_is_cancelled (asking->cancellable))
    return;
  self = asking->self;
  g_hash_table_remove (self->asking, asking->name);
  if (caller == NULL || !hpd_slots_take (self->slots, caller->uid, &error))
    {
      /* reported again at its next call, when there may be room */
      hpd_traffic_forget_caller (self->traffic, asking->name);
      g_debug ("Not watching %s: %s", asking->name, error->message);
      return;
    }
  watch = g_new0 (Watch, 1);
  watch->uid = caller->uid;
  /* calls vanished() (later, in this context) if it has left already. A
   * connection closed meanwhile (GDBus closes it in its worker thread, on a
   * message it cannot decode) is suspended at the next turn of the loop,
   * and the watch starts at the resume: GLib 2.74 logs a critical for a
   * subscription on a closed connection, whose AddMatch cannot be sent. */
  if (!g_dbus_connection_is_closed (self->connection))
    watch->watch_id = g_bus_watch_name_on_connection (self->connection, asking->name,
                                                      G_BUS_NAME_WATCHER_FLAGS_NONE,
                                                      NULL, vanished, self, NULL);
  g_hash_table_insert (self->watches, g_strdup (asking->name), watch);
  g_debug ("Watching %s (uid %u) until it leaves the bus; %u watcher(s)", asking->name,
           caller->uid, g_hash_table_size (self->watches));
  if (g_hash_table_size (self->watches) == 1)
    self->changed (TRUE, self->user_data);
}

static void
caller_arrived (HpdTraffic *traffic, const char *name, gpointer user_data)
{
  HpdWatchers *self = user_data;
  Asking *asking;

  /* watched already, from before a reconnect, or its uid is being asked */
  if (g_hash_table_contains (self->watches, name) || g_hash_table_contains (self->asking, name))
    return;
  /* the slots are counted per uid: the uid first */
  g_hash_table_add (self->asking, g_strdup (name));
  asking = g_new0 (Asking, 1);
  asking->self = self;
  asking->name = g_strdup (name);
  asking->cancellable = g_object_ref (self->cancellable);
  hpd_caller_lookup_name (self->connection, name, asking->cancellable, got_uid, asking);
}

static void
attach_traffic (HpdWatchers *self, GDBusConnection *connection, HpdTraffic *traffic)
{
  self->connection = g_object_ref (connection);
  self->traffic = g_object_ref (traffic);
  self->cancellable = g_cancellable_new ();
  self->caller_id = g_signal_connect (traffic, "caller", G_CALLBACK (caller_arrived), self);
  hpd_traffic_track_callers (traffic);
}

HpdWatchers *
hpd_watchers_new (GDBusConnection *connection, HpdTraffic *traffic, HpdWatchersChanged changed,
                  gpointer user_data)
{
  HpdWatchers *self = g_new0 (HpdWatchers, 1);

  self->slots = hpd_slots_new ("watchers", HPD_WATCHERS_MAX, HPD_WATCHERS_PER_UID,
                               HPD_WATCHERS_ROOT_RESERVE);
  self->watches = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->asking = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->changed = changed;
  self->user_data = user_data;
  attach_traffic (self, connection, traffic);
  return self;
}

void
hpd_watchers_free (HpdWatchers *self)
{
  if (self == NULL)
    return;
  hpd_watchers_suspend (self);
  g_hash_table_unref (self->asking);
  g_hash_table_unref (self->watches);
  hpd_slots_free (self->slots);
  g_free (self);
}

void
hpd_watchers_suspend (HpdWatchers *self)
{
  GHashTableIter iter;
  Watch *watch;

  if (self->connection == NULL)
    return;
  /* the callers being asked about are reported again by the next
   * connection's traffic, at their next call */
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_hash_table_remove_all (self->asking);
  g_clear_signal_handler (&self->caller_id, self->traffic);
  g_clear_object (&self->traffic);
  g_clear_object (&self->connection);
  /* the watchers keep their slots until they are seen gone */
  g_hash_table_iter_init (&iter, self->watches);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &watch))
    g_clear_handle_id (&watch->watch_id, g_bus_unwatch_name);
}

void
hpd_watchers_resume (HpdWatchers *self, GDBusConnection *connection, HpdTraffic *traffic)
{
  GHashTableIter iter;
  const char *name;
  Watch *watch;

  g_return_if_fail (self->connection == NULL);
  attach_traffic (self, connection, traffic);
  /* vanished() runs later, in this context, for those gone meanwhile */
  g_hash_table_iter_init (&iter, self->watches);
  while (g_hash_table_iter_next (&iter, (gpointer *) &name, (gpointer *) &watch))
    watch->watch_id = g_bus_watch_name_on_connection (connection, name,
                                                      G_BUS_NAME_WATCHER_FLAGS_NONE,
                                                      NULL, vanished, self, NULL);
}

guint
hpd_watchers_count (HpdWatchers *self)
{
  return g_hash_table_size (self->watches);
}
