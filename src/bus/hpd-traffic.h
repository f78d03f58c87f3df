/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The calls to the service as they cross the connection: how many came in,
 * which still wait for their reply, when the last one came or was
 * answered, and who made them. A GDBusConnection filter sees them in
 * GDBus's worker thread, as soon as a call is read off the socket and just
 * before its reply is written, for every object and interface alike (our
 * skeletons, the ObjectManager, Properties, Introspectable, Peer, and
 * GDBus's own errors for unknown objects), and whatever the handler does in
 * between (polkit, the queue, the worker thread). Hooking the skeletons
 * instead would miss the calls GDBus answers itself, and would see the
 * others only when the main loop gets to them, after a decision to exit may
 * have been taken.
 *
 * It is the first filter on the connection, so it sees every call before
 * another filter may answer one itself and drop it (the read snapshot,
 * hpd-read-snapshot.h), and every reply, whoever sent it: the idle exit,
 * the memory trim and the watchers of the properties all listen to its
 * signals, which it emits in the main context of the thread that created
 * it. The filter makes one GSource ready only when there is something to
 * say (a caller not seen before, or the last call answered while a
 * listener waits for that), so a stream of calls costs a hash lookup each
 * and no wakeup, even when each call ends before the next comes. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define HPD_TYPE_TRAFFIC (hpd_traffic_get_type ())
G_DECLARE_FINAL_TYPE (HpdTraffic, hpd_traffic, HPD, TRAFFIC, GObject)

typedef struct {
  guint64 received;      /* calls so far */
  guint unanswered;      /* calls whose reply has not been sent */
  gint64 last_activity;  /* monotonic µs: the last call in or reply out */
} HpdTrafficState;

/* Starts watching @connection. Signals:
 *   "quiet" ()                 the last unanswered call has been answered,
 *                              and a listener asked for it (below)
 *   "caller" (const char *)    with hpd_traffic_track_callers(): a peer on
 *                              the bus called for the first time (or since
 *                              it was forgotten); not the bus, not our own
 *                              connection, not for org.freedesktop.DBus.Peer
 *                              (a liveness check says nothing about
 *                              interest). Emitted before the call itself
 *                              reaches its handler. */
HpdTraffic *hpd_traffic_watch (GDBusConnection *connection);

void hpd_traffic_get_state (HpdTraffic *self, HpdTrafficState *state);

/* "quiet" is emitted when the calls under way have been answered, or if
 * none is, when the next calls have: once, for every listener. A listener
 * asks before it looks at the state (hpd_traffic_get_state()) whenever it
 * may go on to wait for the calls to end without a timer of its own that
 * will look again; a listener whose timer runs does not ask, so calls in a
 * row wake nobody. Asked for once at the start. */
void hpd_traffic_want_quiet (HpdTraffic *self);

/* Counts as activity now (for work that ended without a reply). */
void hpd_traffic_touch (HpdTraffic *self);

/* Callers are remembered until forgotten: only a listener that forgets
 * them again (when they leave the bus) should turn this on. */
void hpd_traffic_track_callers (HpdTraffic *self);
/* The next call from @name is reported as "caller" again. */
void hpd_traffic_forget_caller (HpdTraffic *self, const char *name);

G_END_DECLS
