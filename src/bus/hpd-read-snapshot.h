/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* GetManagedObjects, and GetAll of the Manager or of a page size (whose
 * a{sv} the GetManagedObjects body holds), answered in GDBus's worker
 * thread. GDBus dispatches every call but Peer's to the main thread and
 * its reply goes back to the worker: two wakeups across threads, which
 * cost more than the whole refresh. So the main thread keeps the last
 * reply's body of each with everything it was made from, and a connection
 * filter, added after the traffic's (hpd-traffic.h), answers such a call
 * itself when none of it changed; otherwise the call goes its normal way,
 * and the main thread makes the snapshot anew right before it answers it,
 * in the same main loop turn, with the call's own refresh.
 *
 * Exactly as fresh as the normal path (hpd-fresh.h): a body is valid
 * while
 * - every kernel file, existence, directory and link the refresh read
 *   gives the same again (hpd_kernel_record_begin(), read with the
 *   checker's own descriptors, its own poll() of mountinfo), and every
 *   other file of the root it looked at (the boot hook's units and links,
 *   the GRUB drop-in, the mounts' roots) is as stat() saw it: such a state
 *   was settled when it was taken (HPD_CONFIG_SETTLE_US), as a change in
 *   the same clock tick keeps the times, and the watch below takes the
 *   file over when its way is root's alone (else each check stat()s it);
 * - nothing happened to any file of the configuration and of the claims,
 *   nor on the way to it, nor to the mount table, since stat() of each
 *   gave what their caches trust (they are not used while a cache trusts
 *   nothing): one poll() of an inotify watch (hpd-path-watch.h);
 * - nothing came from the user and group databases (a configured mount
 *   owner or shm group), which no stat() can follow;
 * - the daemon's memory (requested pools, LastAllocation, the objects) is
 *   unchanged: any call but a read (Peer, Introspectable, Properties.Get
 *   and GetAll, GetManagedObjects) drops the snapshots in the filter before
 *   it is dispatched and again when the method table dispatches it, and
 *   from a job's start to its end (after its reply) no snapshot is used or
 *   made (hpd_read_snapshot_hold()); a change made without a call drops
 *   them with hpd_read_snapshot_drop().
 * A fake tree (--kernel-root) is checked by opening each file again, as
 * its files may be renamed over.
 *
 * Kept only while calls come: the daemon drops both once the calls have
 * stopped (hpd-memory.h), and the next read makes its snapshot anew. */
#pragma once

#include <gio/gio.h>

#include "hpd-kernel.h"
#include "hpd-service.h"

G_BEGIN_DECLS

#define HPD_TYPE_READ_SNAPSHOT (hpd_read_snapshot_get_type ())
G_DECLARE_FINAL_TYPE (HpdReadSnapshot, hpd_read_snapshot, HPD, READ_SNAPSHOT, GObject)

/* For GetManagedObjects of @objects' path, and GetAll of the Manager
 * interface @manager exports at that same path; made once, it outlives
 * the connections (the jobs it counts do too). */
HpdReadSnapshot *hpd_read_snapshot_new (GDBusObjectManagerServer *objects,
                                        GDBusInterfaceSkeleton *manager, HpdDaemon *daemon);
/* Answers on @connection: after hpd_traffic_watch(), whose filter must see
 * every call and reply first (a filter that drops a call ends the chain). */
void hpd_read_snapshot_attach (HpdReadSnapshot *self, GDBusConnection *connection);
void hpd_read_snapshot_detach (HpdReadSnapshot *self);

/* Drops the snapshot. @self may be NULL. */
void hpd_read_snapshot_drop (HpdReadSnapshot *self);
/* Work that may change the daemon's memory starts / ended: none is used
 * or made in between. @self may be NULL. */
void hpd_read_snapshot_hold (HpdReadSnapshot *self);
void hpd_read_snapshot_release (HpdReadSnapshot *self);

G_END_DECLS
