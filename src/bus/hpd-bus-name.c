/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hpd-bus-name.h"

/* Replies of org.freedesktop.DBus.RequestName */
enum {
  REQUEST_NAME_REPLY_PRIMARY_OWNER = 1,
  REQUEST_NAME_REPLY_ALREADY_OWNER = 4,
};

typedef enum {
  STATE_REQUESTING,
  STATE_OWNED,
  STATE_GONE,       /* refused, lost or released: nothing more to report */
} State;

struct _HpdBusName
{
  GObject parent_instance;

  GDBusConnection *connection;
  char *name;
  guint name_lost_id;
  State state;
  gboolean releasing;
};

enum { SIGNAL_ACQUIRED, SIGNAL_LOST, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_TYPE (HpdBusName, hpd_bus_name, G_TYPE_OBJECT)

static void
hpd_bus_name_dispose (GObject *object)
{
  HpdBusName *self = HPD_BUS_NAME (object);

  /* GDBus does not run a signal callback whose subscription is gone, so
   * the callback needs no reference to us. The bus drops the name itself
   * when we disconnect. */
  if (self->connection != NULL && self->name_lost_id != 0)
    g_dbus_connection_signal_unsubscribe (self->connection, self->name_lost_id);
  self->name_lost_id = 0;
  g_clear_object (&self->connection);
  G_OBJECT_CLASS (hpd_bus_name_parent_class)->dispose (object);
}

static void
hpd_bus_name_finalize (GObject *object)
{
  HpdBusName *self = HPD_BUS_NAME (object);

  g_free (self->name);
  G_OBJECT_CLASS (hpd_bus_name_parent_class)->finalize (object);
}

static void
hpd_bus_name_class_init (HpdBusNameClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = hpd_bus_name_dispose;
  object_class->finalize = hpd_bus_name_finalize;

  signals[SIGNAL_ACQUIRED] = g_signal_new ("acquired", G_TYPE_FROM_CLASS (klass),
                                           G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                           G_TYPE_NONE, 0);
  signals[SIGNAL_LOST] = g_signal_new ("lost", G_TYPE_FROM_CLASS (klass),
                                       G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                       G_TYPE_NONE, 2, G_TYPE_BOOLEAN, G_TYPE_STRING);
}

static void
hpd_bus_name_init (HpdBusName *self)
{
}

/* With DO_NOT_QUEUE a NameLost can only follow ownership, and GDBus hands
 * us the RequestName reply and the later NameLost in the order the bus sent
 * them; so a NameLost matters only while we own the name and have not
 * given it back ourselves. */
static void
name_lost (GDBusConnection *connection, const char *sender, const char *path,
           const char *interface_name, const char *signal_name,
           GVariant *parameters, gpointer user_data)
{
  HpdBusName *self = user_data;

  if (self->state != STATE_OWNED || self->releasing)
    return;
  self->state = STATE_GONE;
  g_signal_emit (self, signals[SIGNAL_LOST], 0, TRUE, "another instance took it over");
}

static void
requested (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(HpdBusName) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  guint32 code;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  if (self->state != STATE_REQUESTING)
    return;
  if (reply == NULL)
    {
      self->state = STATE_GONE;
      /* No answer about the name: the connection closed, and its owner
       * connects again (hpd-daemon.c); GDBus may fail this call before it
       * emits "closed". */
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CLOSED))
        g_signal_emit (self, signals[SIGNAL_LOST], 0, FALSE, error->message);
      return;
    }

  g_variant_get (reply, "(u)", &code);
  if (code != REQUEST_NAME_REPLY_PRIMARY_OWNER && code != REQUEST_NAME_REPLY_ALREADY_OWNER)
    {
      self->state = STATE_GONE;
      g_signal_emit (self, signals[SIGNAL_LOST], 0, FALSE,
                     "another instance runs; see --replace");
      return;
    }
  self->state = STATE_OWNED;
  g_signal_emit (self, signals[SIGNAL_ACQUIRED], 0);
}

HpdBusName *
hpd_bus_name_own (GDBusConnection *connection, const char *name, gboolean replace)
{
  HpdBusName *self = g_object_new (HPD_TYPE_BUS_NAME, NULL);
  /* Never wait in the bus's queue: an instance that does not get the name
   * has nothing to do, and a replaced one must leave, not queue up to take
   * the name back. */
  GBusNameOwnerFlags flags = G_BUS_NAME_OWNER_FLAGS_ALLOW_REPLACEMENT |
                             G_BUS_NAME_OWNER_FLAGS_DO_NOT_QUEUE;

  if (replace)
    flags |= G_BUS_NAME_OWNER_FLAGS_REPLACE;
  self->connection = g_object_ref (connection);
  self->name = g_strdup (name);

  /* Subscribed before asking, so a takeover right after the reply is not
   * missed. The bus sends NameLost to the owner alone, with or without a
   * match rule, and a rule GDBus would add fails with a critical on a
   * connection closed meanwhile (tests/SECURITY.md, section 8): no rule. */
  self->name_lost_id = g_dbus_connection_signal_subscribe (connection, "org.freedesktop.DBus",
                                                           "org.freedesktop.DBus", "NameLost",
                                                           "/org/freedesktop/DBus", name,
                                                           G_DBUS_SIGNAL_FLAGS_NO_MATCH_RULE,
                                                           name_lost, self, NULL);
  g_dbus_connection_call (connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "RequestName",
                          g_variant_new ("(su)", name, flags), G_VARIANT_TYPE ("(u)"),
                          G_DBUS_CALL_FLAGS_NONE, -1, NULL, requested, g_object_ref (self));
  return self;
}

static void
released (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  HpdBusName *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  if (reply == NULL)
    {
      /* The name may still be ours: a takeover is news again. */
      self->releasing = FALSE;
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  /* Released, or it was not ours any more (NON_EXISTENT, NOT_OWNER):
   * either way the bus routes nothing more to us by that name. */
  self->state = STATE_GONE;
  g_task_return_boolean (task, TRUE);
}

void
hpd_bus_name_release_async (HpdBusName *self, GAsyncReadyCallback callback,
                            gpointer user_data)
{
  GTask *task = g_task_new (self, NULL, callback, user_data);

  g_task_set_source_tag (task, hpd_bus_name_release_async);
  /* The NameLost the bus sends for this is not a loss to report. */
  self->releasing = TRUE;
  g_dbus_connection_call (self->connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "ReleaseName",
                          g_variant_new ("(s)", self->name), G_VARIANT_TYPE ("(u)"),
                          G_DBUS_CALL_FLAGS_NONE, -1, NULL, released, task);
}

gboolean
hpd_bus_name_release_finish (HpdBusName *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
