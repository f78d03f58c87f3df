/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hpd-idle.h"
#include "hpd-traffic.h"

/* Exit, step by step. Nothing is lost on the way: the bus routes calls
 * for the name to us until it has handled our ReleaseName, and its reply
 * comes behind every call it routed before, so by then the filter has
 * counted them all; from then on the bus starts a new instance for the
 * name. We answer what we hold, then one more round trip to the bus goes
 * out behind our last reply, so its answer proves the replies have left. */
typedef enum {
  STATE_OFF,        /* no timeout, or the name is not ours yet */
  STATE_WAITING,    /* the timer runs, or waits for calls and work to end */
  STATE_RELEASING,  /* ReleaseName sent */
  STATE_DRAINING,   /* the name is released: answering the calls we have */
  STATE_FLUSHING,   /* GetId sent behind our replies */
  STATE_DONE,
} State;

struct _HpdIdle
{
  GObject parent_instance;

  GDBusConnection *connection;
  HpdBusName *name;
  HpdTraffic *traffic;
  gint64 timeout_us;
  guint timer_id;
  guint holds;
  gboolean watched;
  guint64 received_at_release;
  guint64 received_at_flush;
  State state;
};

enum { SIGNAL_EXIT, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_TYPE (HpdIdle, hpd_idle, G_TYPE_OBJECT)

static void check (HpdIdle *self);

static void
hpd_idle_dispose (GObject *object)
{
  HpdIdle *self = HPD_IDLE (object);

  g_clear_handle_id (&self->timer_id, g_source_remove);
  if (self->traffic != NULL)
    g_signal_handlers_disconnect_by_data (self->traffic, self);
  g_clear_object (&self->traffic);
  g_clear_object (&self->name);
  g_clear_object (&self->connection);
  G_OBJECT_CLASS (hpd_idle_parent_class)->dispose (object);
}

static void
hpd_idle_class_init (HpdIdleClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = hpd_idle_dispose;

  /* the name is released and every call received is answered: quit */
  signals[SIGNAL_EXIT] = g_signal_new ("exit", G_TYPE_FROM_CLASS (klass),
                                       G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                       G_TYPE_NONE, 0);
}

static void
hpd_idle_init (HpdIdle *self)
{
}

HpdIdle *
hpd_idle_new (void)
{
  return g_object_new (HPD_TYPE_IDLE, NULL);
}

static void
quiet (HpdTraffic *traffic, gpointer user_data)
{
  check (user_data);
}

static gboolean
timer_expired (gpointer user_data)
{
  HpdIdle *self = user_data;

  self->timer_id = 0;
  check (self);
  return G_SOURCE_REMOVE;
}

static void
flushed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(HpdIdle) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  HpdTrafficState now;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  if (self->state != STATE_FLUSHING)
    return;
  /* Only a closed connection fails here, and the daemon reports that. */
  if (reply == NULL)
    g_debug ("The round trip behind the last replies failed: %s", error->message);

  /* A call to our unique name may have come in meanwhile: answer it, and
   * go round again. */
  hpd_traffic_get_state (self->traffic, &now);
  if (reply != NULL && (now.received != self->received_at_flush ||
                        now.unanswered > 0 || self->holds > 0))
    {
      self->state = STATE_DRAINING;
      check (self);
      return;
    }

  g_debug ("Answered %" G_GUINT64_FORMAT " call(s) that came in while giving the name back",
           now.received - self->received_at_release);
  self->state = STATE_DONE;
  g_signal_emit (self, signals[SIGNAL_EXIT], 0);
}

static void
flush (HpdIdle *self, const HpdTrafficState *now)
{
  self->state = STATE_FLUSHING;
  self->received_at_flush = now->received;
  /* GetId rather than Peer.Ping: the stock system bus policy lets
   * everyone call the org.freedesktop.DBus interface and nothing else. */
  g_dbus_connection_call (self->connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "GetId", NULL, G_VARIANT_TYPE ("(s)"),
                          G_DBUS_CALL_FLAGS_NONE, -1, NULL, flushed, g_object_ref (self));
}

static void
released (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(HpdIdle) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!hpd_bus_name_release_finish (HPD_BUS_NAME (source), result, &error))
    {
      /* the name may still be ours: keep serving, try again when idle */
      g_warning ("Could not release the bus name to exit when idle: %s", error->message);
      self->state = STATE_WAITING;
      hpd_traffic_touch (self->traffic);
      check (self);
      return;
    }
  g_debug ("Released the bus name; answering the calls already received");
  self->state = STATE_DRAINING;
  check (self);
}

/* The one place that decides; called whenever something that matters
 * changes: the timer, the last reply leaving, the last hold released, the
 * bus answering. */
static void
check (HpdIdle *self)
{
  HpdTrafficState now;
  gboolean busy;
  gint64 deadline, remaining_us;

  if (self->traffic == NULL)
    return;
  /* without a timer, the end of the calls seen busy below is what calls
   * us again */
  if (self->timer_id == 0)
    hpd_traffic_want_quiet (self->traffic);
  hpd_traffic_get_state (self->traffic, &now);
  busy = now.unanswered > 0 || self->holds > 0;

  switch (self->state)
    {
    case STATE_WAITING:
      busy = busy || self->watched;
      /* Busy: the end of the work calls us again. A timer already running
       * fires at its time and sees whether the deadline moved. */
      if (busy || self->timer_id != 0)
        return;
      deadline = now.last_activity + self->timeout_us;
      remaining_us = deadline - g_get_monotonic_time ();
      if (remaining_us > 0)
        {
          self->timer_id = g_timeout_add_full (G_PRIORITY_DEFAULT,
                                               (guint) ((remaining_us + 999) / 1000),
                                               timer_expired, self, NULL);
          return;
        }
      self->state = STATE_RELEASING;
      self->received_at_release = now.received;
      hpd_bus_name_release_async (self->name, released, g_object_ref (self));
      return;

    case STATE_DRAINING:
      if (!busy)
        flush (self, &now);
      return;

    case STATE_OFF:
    case STATE_RELEASING:
    case STATE_FLUSHING:
    case STATE_DONE:
    default:
      return;
    }
}

void
hpd_idle_watch (HpdIdle *self, HpdTraffic *traffic, GDBusConnection *connection,
                double timeout_s)
{
  g_return_if_fail (self->connection == NULL);

  if (!(timeout_s > 0))
    return;
  self->connection = g_object_ref (connection);
  self->timeout_us = (gint64) (timeout_s * G_USEC_PER_SEC);
  self->traffic = g_object_ref (traffic);
  g_signal_connect (traffic, "quiet", G_CALLBACK (quiet), self);
}

void
hpd_idle_unwatch (HpdIdle *self)
{
  g_clear_handle_id (&self->timer_id, g_source_remove);
  if (self->traffic != NULL)
    g_signal_handlers_disconnect_by_data (self->traffic, self);
  g_clear_object (&self->traffic);
  g_clear_object (&self->name);
  g_clear_object (&self->connection);
  self->state = STATE_OFF;
}

void
hpd_idle_start (HpdIdle *self, HpdBusName *name)
{
  if (self->traffic == NULL || self->state != STATE_OFF)
    return;
  self->name = g_object_ref (name);
  self->state = STATE_WAITING;
  hpd_traffic_touch (self->traffic);
  check (self);
}

void
hpd_idle_hold (HpdIdle *self)
{
  self->holds++;
}

void
hpd_idle_release (HpdIdle *self)
{
  g_return_if_fail (self->holds > 0);

  if (--self->holds > 0 || self->traffic == NULL)
    return;
  /* the idle time counts from the end of the work */
  hpd_traffic_touch (self->traffic);
  check (self);
}

void
hpd_idle_set_watched (HpdIdle *self, gboolean watched)
{
  if (self->watched == watched)
    return;
  self->watched = watched;
  if (watched || self->traffic == NULL)
    return;
  /* the idle time counts from the last watcher's departure */
  hpd_traffic_touch (self->traffic);
  check (self);
}

gboolean
hpd_idle_is_exiting (HpdIdle *self)
{
  return self->state >= STATE_RELEASING;
}
