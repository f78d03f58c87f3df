/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Who is watching the service's properties. The kernel gives no
 * notification for pool counters, and other programs change them, so the
 * service re-reads its properties periodically, but only while somebody
 * can be interested: a client that called any method of ours (a property
 * read, GetManagedObjects, Introspect, a change; not Peer.Ping, which only
 * asks whether we are alive) is a watcher until it leaves the bus. The
 * bus itself and the service's own connection never are.
 *
 * The callers come from the connection's traffic (hpd-traffic.h), which
 * reports each name once until it is forgotten here. Each watcher's
 * departure is followed through the bus's NameOwnerChanged (one match
 * rule with arg0 = its name, sent by hpd_departures_match() of
 * hpd-auth.h, and one NameHasOwner for a caller that left before the rule
 * was in place).
 *
 * Each watcher costs a match rule on the bus, which limits them per
 * connection, so at most HPD_WATCHERS_MAX callers are tracked at a time,
 * HPD_WATCHERS_PER_UID of them per uid and the last
 * HPD_WATCHERS_ROOT_RESERVE for root only (hpd-slots.h): one user, however
 * many connections it opens, cannot take every place and then, by leaving,
 * stop the refresh that other users' clients wait on. The uid comes from
 * the bus (hpd-auth.h, asked once per caller and cached). A caller
 * beyond its share is not tracked, and is at its next call if there is
 * room by then. Its reads are fresh all the same; only the periodic
 * refresh does not run on its account. */
#pragma once

#include <gio/gio.h>

#include "hpd-traffic.h"

G_BEGIN_DECLS

#define HPD_WATCHERS_MAX 128
#define HPD_WATCHERS_PER_UID 16
#define HPD_WATCHERS_ROOT_RESERVE 8

typedef struct _HpdWatchers HpdWatchers;

/* @changed runs in the main context of @traffic whenever the number of
 * watchers goes from 0 to 1 (@watched TRUE) or from 1 to 0 (FALSE). */
typedef void (*HpdWatchersChanged) (gboolean watched, gpointer user_data);

HpdWatchers *hpd_watchers_new (GDBusConnection *connection, HpdTraffic *traffic,
                               HpdWatchersChanged changed, gpointer user_data);
/* Stops tracking; @changed is not called any more. */
void hpd_watchers_free (HpdWatchers *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HpdWatchers, hpd_watchers_free)

/* While the connection is replaced (the old one closed): suspend stops
 * watching on the old one without reporting anybody gone (a closed
 * connection would report them all), resume goes on tracking the same
 * callers on the new connection, with its traffic. */
void hpd_watchers_suspend (HpdWatchers *self);
void hpd_watchers_resume (HpdWatchers *self, GDBusConnection *connection,
                          HpdTraffic *traffic);

guint hpd_watchers_count (HpdWatchers *self);

G_END_DECLS
