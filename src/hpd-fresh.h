/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Property values that are fresh whenever they are read. The kernel gives no
 * notification for pool counters and other programs change them, so a
 * skeleton class installs a refresh function that runs before the bus reads
 * its properties (Get, GetAll, GetManagedObjects). Reads within one main
 * loop iteration share one refresh, so GetAll costs one pass over sysfs.
 *
 * A class whose values come only from kernel files (and facts fixed at
 * start-up) also gives @kernel_of: its refresh is then skipped while the
 * files it read last time are all watched and unchanged (hpd-kernel.h,
 * hpd-file-cache.h). Where any input can change unseen, as every sysfs and
 * procfs file can, it runs on every read. */
#pragma once

#include <gio/gio.h>

#include "hpd-kernel.h"

G_BEGIN_DECLS

typedef void (*HpdRefreshFunc) (GDBusInterfaceSkeleton *skeleton);
typedef HpdKernel *(*HpdKernelOfFunc) (GDBusInterfaceSkeleton *skeleton);

/* @kernel_of may be NULL: the refresh then always runs. */
void hpd_fresh_install (GDBusInterfaceSkeletonClass *klass, HpdRefreshFunc refresh,
                        HpdKernelOfFunc kernel_of);

/* Refreshes @skeleton's properties now, as a read would (and not again in
 * this main loop iteration); the skeleton then emits PropertiesChanged for
 * every value that changed. For the periodic refresh while somebody watches
 * (hpd-watchers.h). */
void hpd_fresh_refresh (GDBusInterfaceSkeleton *skeleton);

G_END_DECLS
