#include "config.h"

#include <string.h>

#include "hpd-watchers.h"

/* What the filter shares with the main thread, counted apart from
 * HpdWatchers because GDBus may still run the filter after it was removed,
 * until it calls the filter's destroy notify (as in hpd-traffic.c). */
typedef struct {
  gatomicrefcount ref;
  GMutex lock;
  char *own_name;           /* our unique name: never a watcher */
  GHashTable *known;        /* names tracked or on their way to it */
  GPtrArray *arrived;       /* names the main thread has not taken yet */
  GSource *wakeup;          /* takes them, in the main context */
} Shared;

struct _HpdWatchers
{
  GDBusConnection *connection;
  guint filter_id;
  Shared *shared;
  GHashTable *watches;      /* name -> g_bus_watch_name id, main thread */
  HpdWatchersChanged changed;
  gpointer user_data;
};

static Shared *
shared_ref (Shared *shared)
{
  g_atomic_ref_count_inc (&shared->ref);
  return shared;
}

static void
shared_unref (Shared *shared)
{
  if (!g_atomic_ref_count_dec (&shared->ref))
    return;
  g_source_unref (shared->wakeup);
  g_ptr_array_unref (shared->arrived);
  g_hash_table_unref (shared->known);
  g_free (shared->own_name);
  g_mutex_clear (&shared->lock);
  g_free (shared);
}

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

static gboolean
could_watch (const Shared *shared, const char *sender, const char *interface)
{
  /* no sender: a peer-to-peer connection, which has no bus to leave */
  if (sender == NULL || sender[0] != ':')
    return FALSE;
  if (g_strcmp0 (sender, shared->own_name) == 0)
    return FALSE;
  /* a liveness check says nothing about interest in the values */
  return g_strcmp0 (interface, "org.freedesktop.DBus.Peer") != 0;
}

static GDBusMessage *
filter (GDBusConnection *connection, GDBusMessage *message, gboolean incoming,
        gpointer user_data)
{
  Shared *shared = user_data;
  const char *sender;
  gboolean arrived = FALSE;

  if (!incoming || g_dbus_message_get_message_type (message) != G_DBUS_MESSAGE_TYPE_METHOD_CALL)
    return message;
  sender = g_dbus_message_get_sender (message);
  if (!could_watch (shared, sender, g_dbus_message_get_interface (message)))
    return message;

  g_mutex_lock (&shared->lock);
  if (!g_hash_table_contains (shared->known, sender) &&
      g_hash_table_size (shared->known) < HPD_WATCHERS_MAX)
    {
      g_hash_table_add (shared->known, g_strdup (sender));
      g_ptr_array_add (shared->arrived, g_strdup (sender));
      arrived = TRUE;
    }
  else if (!g_hash_table_contains (shared->known, sender))
    {
      /* said in the main thread, once per name that was turned away */
      g_ptr_array_add (shared->arrived, g_strconcat ("!", sender, NULL));
      arrived = TRUE;
    }
  g_mutex_unlock (&shared->lock);

  /* before the call is dispatched: its handler runs with the watcher
   * already known, and the idle exit never sees a moment without it */
  if (arrived)
    g_source_set_ready_time (shared->wakeup, 0);
  return message;
}

static void
vanished (GDBusConnection *connection, const char *name, gpointer user_data)
{
  HpdWatchers *self = user_data;
  guint id = GPOINTER_TO_UINT (g_hash_table_lookup (self->watches, name));

  g_mutex_lock (&self->shared->lock);
  g_hash_table_remove (self->shared->known, name);
  g_mutex_unlock (&self->shared->lock);

  g_debug ("%s left the bus; %u watcher(s) left", name, g_hash_table_size (self->watches) - 1);
  /* @name belongs to the table: removed last */
  g_bus_unwatch_name (id);
  g_hash_table_remove (self->watches, name);
  if (g_hash_table_size (self->watches) == 0)
    self->changed (FALSE, self->user_data);
}

static gboolean
take_arrived (gpointer user_data)
{
  HpdWatchers *self = user_data;
  g_autoptr(GPtrArray) arrived = NULL;
  guint before = g_hash_table_size (self->watches);

  g_mutex_lock (&self->shared->lock);
  arrived = self->shared->arrived;
  self->shared->arrived = g_ptr_array_new_with_free_func (g_free);
  g_mutex_unlock (&self->shared->lock);

  for (guint i = 0; i < arrived->len; i++)
    {
      const char *name = g_ptr_array_index (arrived, i);
      guint id;

      if (name[0] == '!')
        {
          g_debug ("Not watching %s: already watching %u callers", name + 1,
                   (guint) HPD_WATCHERS_MAX);
          continue;
        }
      if (g_hash_table_contains (self->watches, name))
        continue;
      /* calls vanished() (later, in this context) if it has left already */
      id = g_bus_watch_name_on_connection (self->connection, name, G_BUS_NAME_WATCHER_FLAGS_NONE,
                                           NULL, vanished, self, NULL);
      g_hash_table_insert (self->watches, g_strdup (name), GUINT_TO_POINTER (id));
      g_debug ("Watching %s until it leaves the bus; %u watcher(s)", name,
               g_hash_table_size (self->watches));
    }
  if (before == 0 && g_hash_table_size (self->watches) > 0)
    self->changed (TRUE, self->user_data);
  return G_SOURCE_CONTINUE;
}

HpdWatchers *
hpd_watchers_new (GDBusConnection *connection, HpdWatchersChanged changed, gpointer user_data)
{
  HpdWatchers *self = g_new0 (HpdWatchers, 1);
  Shared *shared = g_new0 (Shared, 1);

  g_atomic_ref_count_init (&shared->ref);
  g_mutex_init (&shared->lock);
  shared->own_name = g_strdup (g_dbus_connection_get_unique_name (connection));
  shared->known = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  shared->arrived = g_ptr_array_new_with_free_func (g_free);
  shared->wakeup = g_source_new (&wakeup_funcs, sizeof (GSource));
  g_source_set_static_name (shared->wakeup, "[hugepagesd] new watchers");
  g_source_set_callback (shared->wakeup, take_arrived, self, NULL);
  g_source_attach (shared->wakeup, g_main_context_get_thread_default ());

  self->connection = g_object_ref (connection);
  self->shared = shared;
  self->watches = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->changed = changed;
  self->user_data = user_data;
  self->filter_id = g_dbus_connection_add_filter (connection, filter, shared_ref (shared),
                                                  (GDestroyNotify) shared_unref);
  return self;
}

void
hpd_watchers_free (HpdWatchers *self)
{
  GHashTableIter iter;
  gpointer id;

  if (self == NULL)
    return;
  g_dbus_connection_remove_filter (self->connection, self->filter_id);
  /* a filter still running can only make the destroyed source ready */
  g_source_destroy (self->shared->wakeup);
  shared_unref (self->shared);
  g_hash_table_iter_init (&iter, self->watches);
  while (g_hash_table_iter_next (&iter, NULL, &id))
    g_bus_unwatch_name (GPOINTER_TO_UINT (id));
  g_hash_table_unref (self->watches);
  g_object_unref (self->connection);
  g_free (self);
}

guint
hpd_watchers_count (HpdWatchers *self)
{
  return g_hash_table_size (self->watches);
}
