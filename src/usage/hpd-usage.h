/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Who holds the huge pages: processes, files in hugetlbfs mounts, SysV
 * segments and hugetlb cgroups, and what none of them accounts for. Also
 * the checks and the removal of an orphan file (RemoveOrphan).
 *
 * Everything here runs in a worker thread and reads only through the
 * kernel root; it never attaches a segment or follows a link. */
#pragma once

#include <gio/gio.h>

#include "hpd-kernel.h"

G_BEGIN_DECLS

typedef struct {
  HpdKernel *kernel;        /* owned */
  guint64 default_page_size;
  GArray *page_sizes;       /* guint64 bytes, the pools' sizes */
  gboolean restricted;      /* only what @caller_uid owns */
  guint32 caller_uid;
  gint64 deadline;          /* g_get_monotonic_time () limit */
} HpdUsageScan;

void hpd_usage_scan_free (HpdUsageScan *scan);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HpdUsageScan, hpd_usage_scan_free)

/* The GetUsage reply body: a{sv} (see the interface XML). */
GVariant *hpd_usage_scan_run (const HpdUsageScan *scan, GCancellable *cancellable);

/* An orphan file resolved: the directory that holds it, open, and what
 * the file was when checked. */
typedef struct {
  int parent_fd;
  char *leaf;
  guint64 dev;
  guint64 ino;
  guint64 bytes;   /* huge page memory it holds: st_blocks, as GetUsage's "size" */
} HpdOrphan;

void hpd_orphan_free (HpdOrphan *orphan);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HpdOrphan, hpd_orphan_free)

/* Resolves @path to a regular file in a hugetlbfs mount (InvalidArgs,
 * NotMounted) that no process maps (Busy). Every component is opened
 * without following links from the mount's root, on the mount's
 * superblock. A process whose maps cannot be read (a process of a
 * sandbox's init) might map it: Failed, unless @ignore_unreadable. The
 * errors count the processes; they name none (callers may not see other
 * users' processes). Reads every process's maps: never on the main loop. */
HpdOrphan *hpd_orphan_resolve (HpdKernel *kernel, guint64 default_page_size,
                               const char *path, gboolean ignore_unreadable,
                               GError **error);

/* Unlinks the file @orphan resolved (just now: the mappings were read
 * right before) through its directory. What remains is a process mapping
 * it between the check and unlinkat; unlinking does not take the pages
 * from such a mapping, only the name. @bytes: the memory the file held,
 * read again right before the unlink. */
gboolean hpd_orphan_remove (const HpdOrphan *orphan, const char *path, guint64 *bytes,
                            GError **error);

G_END_DECLS
