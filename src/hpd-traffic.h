/* The calls to the service as they cross the connection: how many came in,
 * which still wait for their reply, and when the last one came or was
 * answered. A GDBusConnection filter sees them in GDBus's worker thread,
 * as soon as a call is read off the socket and just before its reply is
 * written, for every object and interface alike (our skeletons, the
 * ObjectManager, Properties, Introspectable, Peer, and GDBus's own errors
 * for unknown objects), and whatever the handler does in between (polkit,
 * the queue, the worker thread). Hooking the skeletons instead would miss
 * the calls GDBus answers itself, and would see the others only when the
 * main loop gets to them, after a decision to exit may have been taken. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _HpdTraffic HpdTraffic;

typedef struct {
  guint64 received;      /* calls so far */
  guint unanswered;      /* calls whose reply has not been sent */
  gint64 last_activity;  /* monotonic µs: the last call in or reply out */
} HpdTrafficState;

/* Starts watching @connection. @quiet runs in the calling thread's main
 * context whenever the last unanswered call has been answered. */
HpdTraffic *hpd_traffic_watch (GDBusConnection *connection, GSourceFunc quiet,
                               gpointer user_data);
/* Stops watching; @quiet is not called any more. */
void hpd_traffic_free (HpdTraffic *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HpdTraffic, hpd_traffic_free)

void hpd_traffic_get_state (HpdTraffic *self, HpdTrafficState *state);

/* Counts as activity now (for work that ended without a reply). */
void hpd_traffic_touch (HpdTraffic *self);

G_END_DECLS
