/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hpd-auth.h"
#include "hpd-slots.h"
#include "hpd-watchers.h"

typedef struct {
  guint32 uid;       /* whose slot it holds */
} Watch;

struct _HpdWatchers
{
  GDBusConnection *connection;
  HpdTraffic *traffic;
  gulong caller_id;
  guint departures_id;      /* NameOwnerChanged on connection; 0 while suspended */
  HpdSlots *slots;
  GHashTable *watches;      /* name -> Watch, each holding a slot */
  GHashTable *asking;       /* names whose uid the bus is being asked */
  GCancellable *cancellable;  /* of those questions; replaced at suspend */
  HpdWatchersChanged changed;
  gpointer user_data;
};

/* One question to the bus about a caller: its uid, or whether it is still
 * there. Once @cancellable is cancelled, @self may be gone. */
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

static Asking *
asking_new (HpdWatchers *self, const char *name)
{
  Asking *asking = g_new0 (Asking, 1);

  asking->self = self;
  asking->name = g_strdup (name);
  asking->cancellable = g_object_ref (self->cancellable);
  return asking;
}

static void
departed (HpdWatchers *self, const char *name)
{
  Watch *watch = g_hash_table_lookup (self->watches, name);

  /* told twice when it left while we asked whether it was there */
  if (watch == NULL)
    return;
  hpd_traffic_forget_caller (self->traffic, name);
  hpd_caller_forget (self->connection, name);
  hpd_departures_match (self->connection, name, FALSE);
  g_debug ("%s left the bus; %u watcher(s) left", name, g_hash_table_size (self->watches) - 1);
  hpd_slots_give (self->slots, watch->uid);
  g_hash_table_remove (self->watches, name);
  if (g_hash_table_size (self->watches) == 0)
    self->changed (FALSE, self->user_data);
}

static void
name_owner_changed (GDBusConnection *connection, const char *sender_name,
                    const char *object_path, const char *interface_name,
                    const char *signal_name, GVariant *parameters, gpointer user_data)
{
  const char *name, *old_owner, *new_owner;

  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(sss)")))
    return;
  g_variant_get (parameters, "(&s&s&s)", &name, &old_owner, &new_owner);
  if (new_owner[0] == '\0')
    departed (user_data, name);
}

static void
answered_whether_there (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(Asking) asking = user_data;
  g_autoptr(GVariant) reply = NULL;
  gboolean there;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, NULL);
  /* No departure when the question failed: GDBus has closed the
   * connection (suspended at the next turn of the loop, and followed again
   * on the next one), or the watchers were suspended or freed. */
  if (reply == NULL || g_cancellable_is_cancelled (asking->cancellable))
    return;
  g_variant_get (reply, "(b)", &there);
  if (!there)
    departed (asking->self, asking->name);
}

/* The rule first, then the question, which the bus answers in order: a
 * caller that leaves after the answer is told by NameOwnerChanged. Both
 * fail quietly on a connection GDBus has closed meanwhile. */
static void
follow (HpdWatchers *self, const char *name)
{
  hpd_departures_match (self->connection, name, TRUE);
  g_dbus_connection_call (self->connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "NameHasOwner", g_variant_new ("(s)", name),
                          G_VARIANT_TYPE ("(b)"), G_DBUS_CALL_FLAGS_NONE, -1, self->cancellable,
                          answered_whether_there, asking_new (self, name));
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
  g_hash_table_insert (self->watches, g_strdup (asking->name), watch);
  follow (self, asking->name);
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
  asking = asking_new (self, name);
  hpd_caller_lookup_name (self->connection, name, asking->cancellable, got_uid, asking);
}

static void
attach_traffic (HpdWatchers *self, GDBusConnection *connection, HpdTraffic *traffic)
{
  self->connection = g_object_ref (connection);
  self->traffic = g_object_ref (traffic);
  self->cancellable = g_cancellable_new ();
  self->caller_id = g_signal_connect (traffic, "caller", G_CALLBACK (caller_arrived), self);
  self->departures_id = hpd_departures_subscribe (connection, name_owner_changed, self);
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
  const char *name;

  if (self->connection == NULL)
    return;
  /* the callers being asked about are reported again by the next
   * connection's traffic, at their next call */
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_hash_table_remove_all (self->asking);
  g_clear_signal_handler (&self->caller_id, self->traffic);
  g_clear_object (&self->traffic);
  /* the watchers keep their slots until they are seen gone */
  g_dbus_connection_signal_unsubscribe (self->connection, self->departures_id);
  self->departures_id = 0;
  g_hash_table_iter_init (&iter, self->watches);
  while (g_hash_table_iter_next (&iter, (gpointer *) &name, NULL))
    hpd_departures_match (self->connection, name, FALSE);
  g_clear_object (&self->connection);
}

void
hpd_watchers_resume (HpdWatchers *self, GDBusConnection *connection, HpdTraffic *traffic)
{
  GHashTableIter iter;
  const char *name;

  g_return_if_fail (self->connection == NULL);
  attach_traffic (self, connection, traffic);
  /* those gone meanwhile are told later, in this context */
  g_hash_table_iter_init (&iter, self->watches);
  while (g_hash_table_iter_next (&iter, (gpointer *) &name, NULL))
    follow (self, name);
}

guint
hpd_watchers_count (HpdWatchers *self)
{
  return g_hash_table_size (self->watches);
}
