#include "config.h"

#include "hpd-traffic.h"

/* What the filter shares with the main thread. Counted apart from
 * HpdTraffic because GDBus may still run the filter after it was removed,
 * until it calls the filter's destroy notify. */
typedef struct {
  gatomicrefcount ref;
  GMutex lock;
  GHashTable *unanswered;   /* "sender serial" of each call awaiting its reply */
  guint64 received;
  gint64 last_activity;
  GSource *wakeup;          /* runs @quiet in the watcher's main context */
} Shared;

struct _HpdTraffic
{
  GDBusConnection *connection;
  guint filter_id;
  Shared *shared;
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
  g_hash_table_unref (shared->unanswered);
  g_mutex_clear (&shared->lock);
  g_free (shared);
}

/* The filter makes the wakeup source ready from the worker thread, which
 * g_source_set_ready_time() allows; it dispatches once however many
 * replies went out meanwhile. */
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

static char *
call_key (const char *peer, guint32 serial)
{
  return g_strdup_printf ("%s %u", peer, serial);
}

static GDBusMessage *
filter (GDBusConnection *connection, GDBusMessage *message, gboolean incoming,
        gpointer user_data)
{
  Shared *shared = user_data;
  GDBusMessageType type = g_dbus_message_get_message_type (message);
  gboolean quiet = FALSE;

  /* On a message bus every method call we receive is addressed to us: the
   * bus routes calls by our unique name or by a name we own. */
  if (incoming && type == G_DBUS_MESSAGE_TYPE_METHOD_CALL)
    {
      gboolean wants_reply = (g_dbus_message_get_flags (message) &
                              G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED) == 0;
      G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&shared->lock);

      shared->received++;
      shared->last_activity = g_get_monotonic_time ();
      /* a call that wants no reply never gets one to wait for */
      if (wants_reply)
        g_hash_table_add (shared->unanswered,
                          call_key (g_dbus_message_get_sender (message),
                                    g_dbus_message_get_serial (message)));
    }
  else if (!incoming && (type == G_DBUS_MESSAGE_TYPE_METHOD_RETURN ||
                         type == G_DBUS_MESSAGE_TYPE_ERROR))
    {
      g_autofree char *key = call_key (g_dbus_message_get_destination (message),
                                       g_dbus_message_get_reply_serial (message));
      G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&shared->lock);

      /* GDBus also answers calls that asked for no reply (an unknown
       * object, say): those were never waited for */
      if (g_hash_table_remove (shared->unanswered, key))
        {
          shared->last_activity = g_get_monotonic_time ();
          quiet = g_hash_table_size (shared->unanswered) == 0;
        }
    }

  if (quiet)
    g_source_set_ready_time (shared->wakeup, 0);
  return message;
}

HpdTraffic *
hpd_traffic_watch (GDBusConnection *connection, GSourceFunc quiet, gpointer user_data)
{
  HpdTraffic *self = g_new0 (HpdTraffic, 1);
  Shared *shared = g_new0 (Shared, 1);

  g_atomic_ref_count_init (&shared->ref);
  g_mutex_init (&shared->lock);
  shared->unanswered = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  shared->last_activity = g_get_monotonic_time ();
  shared->wakeup = g_source_new (&wakeup_funcs, sizeof (GSource));
  g_source_set_static_name (shared->wakeup, "[hugepagesd] calls answered");
  g_source_set_callback (shared->wakeup, quiet, user_data, NULL);
  g_source_attach (shared->wakeup, g_main_context_get_thread_default ());

  self->connection = g_object_ref (connection);
  self->shared = shared;
  self->filter_id = g_dbus_connection_add_filter (connection, filter, shared_ref (shared),
                                                  (GDestroyNotify) shared_unref);
  return self;
}

void
hpd_traffic_free (HpdTraffic *self)
{
  if (self == NULL)
    return;
  g_dbus_connection_remove_filter (self->connection, self->filter_id);
  /* A filter still running can only make the destroyed source ready,
   * which dispatches nothing. */
  g_source_destroy (self->shared->wakeup);
  shared_unref (self->shared);
  g_object_unref (self->connection);
  g_free (self);
}

void
hpd_traffic_get_state (HpdTraffic *self, HpdTrafficState *state)
{
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->shared->lock);

  state->received = self->shared->received;
  state->unanswered = g_hash_table_size (self->shared->unanswered);
  state->last_activity = self->shared->last_activity;
}

void
hpd_traffic_touch (HpdTraffic *self)
{
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->shared->lock);

  self->shared->last_activity = g_get_monotonic_time ();
}
