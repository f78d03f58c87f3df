/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The daemon object: the only long-lived state. It probes the kernel, owns
 * the bus name, exports the Manager and one PageSize object per size, and
 * holds what the handlers share: kernel access, authorization, the queue of
 * kernel changes. */
#pragma once

#include <gio/gio.h>

#include "hpd-auth.h"
#include "hpd-config.h"
#include "hpd-idle.h"
#include "hpd-kernel.h"
#include "hpd-namespace.h"
#include "hpd-pool.h"
#include "hpd-queue.h"
#include "hpd-read-snapshot.h"
#include "hpd-service.h"
#include "hpd-slots.h"
#include "hpd-tunables.h"

G_BEGIN_DECLS

#define HPD_TYPE_DAEMON (hpd_daemon_get_type ())
G_DECLARE_FINAL_TYPE (HpdDaemon, hpd_daemon, HPD, DAEMON, GObject)

HpdDaemon *hpd_daemon_new (const char *kernel_root, GError **error);

/* While somebody watches (hpd-watchers.h) the properties of every object
 * are refreshed this often, so changes the kernel makes or others make
 * behind our back are announced with PropertiesChanged. */
#define HPD_DEFAULT_REFRESH_INTERVAL_MS 1000
#define HPD_MAX_REFRESH_INTERVAL_MS 3600000
/* Before hpd_daemon_start(); 0 refreshes only on reads, tracks no
 * watchers, and lets watchers no longer hold off the idle exit. */
void hpd_daemon_set_refresh_interval (HpdDaemon *self, guint milliseconds);

/* Exit when idle for @seconds (0, the default: never); before
 * hpd_daemon_start(). See hpd-idle.h. */
void hpd_daemon_set_idle_timeout (HpdDaemon *self, double seconds);

/* How the service connects to the bus, at start-up and on reconnect: a
 * message bus connection of its own, not g_bus_get()'s shared one. */
#define HPD_BUS_CONNECTION_FLAGS (G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | \
                                  G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION)

/* Exports the objects on @connection (a message bus connection to
 * @bus_address) and asks for the bus name. When the connection closes
 * but a new one to @bus_address succeeds (GDBus closes it on a message it
 * cannot decode), everything is exported on the new one and the name
 * asked for again. The "lost" signal fires when the name or the bus goes
 * away; "idle-exit" when the idle timeout passed, the name is released
 * and every call that reached us is answered. */
void hpd_daemon_start (HpdDaemon *self, const char *bus_address,
                       GDBusConnection *connection, gboolean replace);
/* Stops taking changes and cancels the one running (at SIGTERM). */
void hpd_daemon_stop (HpdDaemon *self);
/* After the main loop: cancels the changes and waits until the one
 * running has returned, so that exiting never cuts it short. */
void hpd_daemon_finish (HpdDaemon *self);

/* TRUE once an idle exit has released the name and is answering the last
 * calls. */
gboolean hpd_daemon_is_exiting_idle (HpdDaemon *self);

/* Mounts are refused when the service's mount namespace is not PID 1's,
 * or cannot be compared with it (see hpd-namespace.h), unless @allowed:
 * then they are made, and seen only in this namespace (for tests run in a
 * namespace of their own). */
void hpd_daemon_allow_private_mount_namespace (HpdDaemon *self, gboolean allowed);
/* What the check at startup found; @detail (may be NULL) says why. */
HpdMountNs hpd_daemon_get_mount_namespace (HpdDaemon *self, const char **detail);
/* Why mounts are refused, NULL when they are not. */
const char *hpd_daemon_get_mount_refusal (HpdDaemon *self);

/* The configuration as it is in the files now, kept between calls while
 * they do not change (hpd-config-cache.h); valid until the next call.
 * @generation (may be NULL) changes when the files were read anew. Main
 * thread only. */
const HpdConfig *hpd_daemon_get_config (HpdDaemon *self, guint64 *generation);
/* The caches behind hpd_daemon_get_config() and hpd_daemon_get_claims(),
 * for the read snapshot (hpd-read-snapshot.h). */
typedef struct _HpdConfigCache HpdConfigCache;
typedef struct _HpdClaimsCache HpdClaimsCache;
HpdConfigCache *hpd_daemon_get_config_cache (HpdDaemon *self);
HpdClaimsCache *hpd_daemon_get_claims_cache (HpdDaemon *self);
/* NULL before start-up. */
HpdReadSnapshot *hpd_daemon_get_read_snapshot (HpdDaemon *self);
/* The populated zones kept between reads of proc/zoneinfo (hpd-tunables.h). */
HpdZoneCount *hpd_daemon_get_zone_count (HpdDaemon *self);
HpdAuth *hpd_daemon_get_auth (HpdDaemon *self);
HpdQueue *hpd_daemon_get_queue (HpdDaemon *self);
/* Each pool's last allocation, for the engine to record its reports in
 * (HpdAllocOptions.last_alloc) and for the LastAllocation property to
 * start from. */
HpdLastAlloc *hpd_daemon_get_last_alloc (HpdDaemon *self);
/* Scans of every process's maps running, per uid. */
HpdSlots *hpd_daemon_get_scans (HpdDaemon *self);
HpdIdle *hpd_daemon_get_idle (HpdDaemon *self);
GArray *hpd_daemon_get_nodes (HpdDaemon *self);

/* Re-reads the mounts into the Mounts properties (PropertiesChanged). */
void hpd_daemon_refresh_mounts (HpdDaemon *self);

/* Re-reads every pool's counters and the claims (after a Claim or
 * Release), with PropertiesChanged. */
void hpd_daemon_refresh_pools (HpdDaemon *self);

/* Publishes @report in @pool's LastAllocation, when the engine ran (a
 * change made outside the pool's own methods, such as a claim). Main
 * thread. */
void hpd_daemon_note_allocation (HpdDaemon *self, const HpdPool *pool,
                                 const HpdAllocReport *report);

/* Re-reads the tunables into the Manager's properties. */
void hpd_daemon_refresh_tunables (HpdDaemon *self);

G_END_DECLS
