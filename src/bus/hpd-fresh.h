/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The freshness model: when the service reads each source of truth again.
 * One rule per source, nothing else keeps a value (HACKING.md, "Freshness").
 *
 * - Kernel files: pool counters and node counters (sysfs), meminfo,
 *   mountinfo, the sysctls and the THP files (procfs, sysfs). The kernel
 *   announces no change of them and anybody may write them, so they are
 *   read whenever a value made from them is asked for: a bus read (Get,
 *   GetAll, GetManagedObjects) runs the object's refresh function first
 *   (installed here), a method reads what it needs when it runs, and a
 *   change reads back what the kernel kept. Nothing is kept between calls.
 *   Reads within one main loop turn share one refresh, and the main
 *   thread's reads one read of each file and one parse of mountinfo
 *   (hpd_kernel_turn_lookup): every call that turn dispatches arrived
 *   before the first read began, so whatever its caller changed before
 *   calling is seen; a write through the service ends the turn's values.
 *   sysfs and procfs files stay open and are read with pread() from
 *   offset 0, which makes the kernel produce the value anew; the real
 *   mountinfo only when poll() with no wait on it says the mount table
 *   changed, which the kernel counts as it changes it (hpd-kernel.c). While somebody watches, the
 *   same refresh runs on a timer (hpd-watchers.h) and the skeletons send
 *   PropertiesChanged; mount changes also come at once from the main
 *   loop's poll() of mountinfo (hpd_daemon_refresh_mounts).
 * - Facts the kernel fixes at boot (the page sizes it offers, the pageblock
 *   order in proc/pagetypeinfo, proc/cmdline, the mTHP sizes): read once
 *   (hpd_kernel_read_fixed_at_boot, hpd_kernel_list_dir_fixed_at_boot).
 * - The populated zones of proc/zoneinfo: counted again when MemTotal or
 *   the zones proc/buddyinfo lists changed, as every change of them does
 *   (hpd_tunables_populated_zones).
 * - The configuration files and the claims: kept parsed while stat() of
 *   every file and directory they come from is unchanged and settled
 *   (hpd-config-cache.h, hpd-claims.h): an edit is seen at the next use.
 * - The user and group databases and the unit links of --apply: looked up
 *   at each use.
 * - Processes, SysV segments and files for GetUsage and Explain: scanned
 *   in full by each call, nothing kept (hpd-usage.h).
 *
 * GetManagedObjects and the Manager's GetAll are answered from a kept body
 * in GDBus's worker thread only while every source it was made from is
 * checked unchanged (hpd-read-snapshot.h).
 *
 * This file implements the first rule for the skeletons: their refresh
 * function runs before the bus reads their properties, once per main loop
 * turn unless a kernel file was written since. */
#pragma once

#include <gio/gio.h>

#include "hpd-kernel.h"

G_BEGIN_DECLS

typedef void (*HpdRefreshFunc) (GDBusInterfaceSkeleton *skeleton);
/* The kernel whose turn and writes decide whether @skeleton's values are
 * still this turn's. */
typedef HpdKernel *(*HpdFreshKernelFunc) (GDBusInterfaceSkeleton *skeleton);

void hpd_fresh_install (GDBusInterfaceSkeletonClass *klass, HpdRefreshFunc refresh,
                        HpdFreshKernelFunc kernel);

/* Refreshes @skeleton's properties now, as a read would (and not again in
 * this main loop iteration); the skeleton then emits PropertiesChanged for
 * every value that changed. For the periodic refresh while somebody watches
 * (hpd-watchers.h). */
void hpd_fresh_refresh (GDBusInterfaceSkeleton *skeleton);

G_END_DECLS
