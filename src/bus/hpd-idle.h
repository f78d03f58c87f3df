/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Idle exit of a bus-activated service. After a while with no call, no
 * call unanswered and no work held, the service gives its bus name back,
 * answers every call the bus had routed to it before, makes sure those
 * replies have left, and only then asks to quit ("exit"). The next call
 * makes the bus start a new instance, so no call is lost. */
#pragma once

#include <gio/gio.h>

#include "hpd-bus-name.h"
#include "hpd-traffic.h"

G_BEGIN_DECLS

#define HPD_TYPE_IDLE (hpd_idle_get_type ())
G_DECLARE_FINAL_TYPE (HpdIdle, hpd_idle, HPD, IDLE, GObject)

HpdIdle *hpd_idle_new (void);

/* Follows the calls @traffic sees on @connection, when @timeout_s
 * (seconds) is above 0; 0 never exits (no timer). To be called before
 * asking for the name: the calls the bus queued while activating us
 * arrive right behind the RequestName reply. */
void hpd_idle_watch (HpdIdle *self, HpdTraffic *traffic, GDBusConnection *connection,
                     double timeout_s);

/* Stops following the connection (it closed); the holds stay, and
 * hpd_idle_watch() may follow a new one. Not while exiting. */
void hpd_idle_unwatch (HpdIdle *self);

/* @name is ours: the idle timer runs from now on, and expiry releases
 * @name. */
void hpd_idle_start (HpdIdle *self, HpdBusName *name);

/* Work that no unanswered call stands for (a change whose caller asked for
 * no reply): exit waits until every hold is released. Main thread. */
void hpd_idle_hold (HpdIdle *self);
void hpd_idle_release (HpdIdle *self);

/* Somebody watches the properties (hpd-watchers.h): no exit while that
 * lasts, and the idle time counts again from when the last watcher left.
 * Ignored once the exit has begun: a caller that reaches the instance
 * while it gives the name back does not keep it. Main thread. */
void hpd_idle_set_watched (HpdIdle *self, gboolean watched);

/* TRUE once the name is being released: the instance is on its way out
 * and only answers what it has already received. */
gboolean hpd_idle_is_exiting (HpdIdle *self);

G_END_DECLS
