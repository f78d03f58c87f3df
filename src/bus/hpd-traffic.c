/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hpd-traffic.h"
#include "hpd-wakeup.h"

/* What the filter shares with the main thread. Counted apart from
 * HpdTraffic because GDBus may still run the filter after it was removed,
 * until it calls the filter's destroy notify. */
typedef struct {
  gatomicrefcount ref;
  GMutex lock;
  GHashTable *unanswered;   /* "sender serial" of each call awaiting its reply */
  guint64 received;
  gint64 last_activity;
  char *own_name;           /* our unique name: never a caller */
  gboolean track_callers;
  GHashTable *callers;      /* names reported and not forgotten */
  GPtrArray *arrived;       /* names the main thread has not been told of */
  gboolean quiet_wanted;    /* hpd_traffic_want_quiet() since the last "quiet" */
  gboolean quiet;           /* all answered since the main thread last looked */
  GSource *wakeup;          /* tells the main thread, in its context */
} Shared;

struct _HpdTraffic
{
  GObject parent_instance;

  GDBusConnection *connection;
  guint filter_id;
  Shared *shared;
};

enum { SIGNAL_QUIET, SIGNAL_CALLER, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_TYPE (HpdTraffic, hpd_traffic, G_TYPE_OBJECT)

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
  g_hash_table_unref (shared->callers);
  g_hash_table_unref (shared->unanswered);
  g_free (shared->own_name);
  g_mutex_clear (&shared->lock);
  g_free (shared);
}

static char *
call_key (const char *peer, guint32 serial)
{
  return g_strdup_printf ("%s %u", peer, serial);
}

/* Under the lock. TRUE when the main thread must be told. */
static gboolean
note_caller (Shared *shared, GDBusMessage *call)
{
  const char *sender = g_dbus_message_get_sender (call);

  /* no sender: a peer-to-peer connection, which has no bus to leave */
  if (!shared->track_callers || sender == NULL || sender[0] != ':' ||
      g_strcmp0 (sender, shared->own_name) == 0 ||
      g_strcmp0 (g_dbus_message_get_interface (call), "org.freedesktop.DBus.Peer") == 0 ||
      g_hash_table_contains (shared->callers, sender))
    return FALSE;
  g_hash_table_add (shared->callers, g_strdup (sender));
  g_ptr_array_add (shared->arrived, g_strdup (sender));
  return TRUE;
}

static GDBusMessage *
filter (GDBusConnection *connection, GDBusMessage *message, gboolean incoming,
        gpointer user_data)
{
  Shared *shared = user_data;
  GDBusMessageType type = g_dbus_message_get_message_type (message);
  gboolean tell = FALSE;

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
      tell = note_caller (shared, message);
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
          if (g_hash_table_size (shared->unanswered) == 0 && shared->quiet_wanted)
            {
              shared->quiet_wanted = FALSE;
              tell = shared->quiet = TRUE;
            }
        }
    }

  /* for a call: before it is dispatched, so its handler runs with the
   * caller already known */
  if (tell)
    hpd_wakeup_ring (shared->wakeup);
  return message;
}

static gboolean
tell_main_thread (gpointer user_data)
{
  HpdTraffic *self = user_data;
  g_autoptr(GPtrArray) arrived = NULL;
  gboolean quiet;

  g_mutex_lock (&self->shared->lock);
  arrived = g_steal_pointer (&self->shared->arrived);
  self->shared->arrived = g_ptr_array_new_with_free_func (g_free);
  quiet = self->shared->quiet;
  self->shared->quiet = FALSE;
  g_mutex_unlock (&self->shared->lock);

  for (guint i = 0; i < arrived->len; i++)
    g_signal_emit (self, signals[SIGNAL_CALLER], 0, g_ptr_array_index (arrived, i));
  if (quiet)
    g_signal_emit (self, signals[SIGNAL_QUIET], 0);
  return G_SOURCE_CONTINUE;
}

static void
hpd_traffic_dispose (GObject *object)
{
  HpdTraffic *self = HPD_TRAFFIC (object);

  if (self->shared != NULL)
    {
      g_dbus_connection_remove_filter (self->connection, self->filter_id);
      /* A filter still running can only make the destroyed source ready,
       * which dispatches nothing. */
      g_source_destroy (self->shared->wakeup);
      g_clear_pointer (&self->shared, shared_unref);
    }
  g_clear_object (&self->connection);
  G_OBJECT_CLASS (hpd_traffic_parent_class)->dispose (object);
}

static void
hpd_traffic_class_init (HpdTrafficClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = hpd_traffic_dispose;

  signals[SIGNAL_QUIET] = g_signal_new ("quiet", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                        0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_CALLER] = g_signal_new ("caller", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                         0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
hpd_traffic_init (HpdTraffic *self)
{
}

HpdTraffic *
hpd_traffic_watch (GDBusConnection *connection)
{
  HpdTraffic *self = g_object_new (HPD_TYPE_TRAFFIC, NULL);
  Shared *shared = g_new0 (Shared, 1);

  g_atomic_ref_count_init (&shared->ref);
  g_mutex_init (&shared->lock);
  shared->unanswered = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  shared->last_activity = g_get_monotonic_time ();
  shared->quiet_wanted = TRUE;
  shared->own_name = g_strdup (g_dbus_connection_get_unique_name (connection));
  shared->callers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  shared->arrived = g_ptr_array_new_with_free_func (g_free);
  shared->wakeup = hpd_wakeup_new ("[hugepagesd] calls", G_PRIORITY_DEFAULT, tell_main_thread, self);

  self->connection = g_object_ref (connection);
  self->shared = shared;
  self->filter_id = g_dbus_connection_add_filter (connection, filter, shared_ref (shared),
                                                  (GDestroyNotify) shared_unref);
  return self;
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
hpd_traffic_want_quiet (HpdTraffic *self)
{
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->shared->lock);

  self->shared->quiet_wanted = TRUE;
}

void
hpd_traffic_touch (HpdTraffic *self)
{
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->shared->lock);

  self->shared->last_activity = g_get_monotonic_time ();
}

void
hpd_traffic_track_callers (HpdTraffic *self)
{
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->shared->lock);

  self->shared->track_callers = TRUE;
}

void
hpd_traffic_forget_caller (HpdTraffic *self, const char *name)
{
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->shared->lock);

  g_hash_table_remove (self->shared->callers, name);
}
