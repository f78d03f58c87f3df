/* Property values that are fresh whenever they are read. The kernel gives no
 * notification for pool counters and other programs change them, so a
 * skeleton class installs a refresh function that runs before the bus reads
 * its properties (Get, GetAll, GetManagedObjects). Reads within one main
 * loop iteration share one refresh, so GetAll costs one pass over sysfs. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef void (*HpdRefreshFunc) (GDBusInterfaceSkeleton *skeleton);

void hpd_fresh_install (GDBusInterfaceSkeletonClass *klass, HpdRefreshFunc refresh);

G_END_DECLS
