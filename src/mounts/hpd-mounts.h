/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* What CreateMount(s), Unmount and the Mounts properties share: reading the
 * hugetlbfs mounts, turning them into bus values, and turning bus arguments
 * into a checked mount specification. */
#pragma once

#include <gio/gio.h>

#include "hpd-hugetlbfs.h"
#include "hpd-kernel.h"
#include "hpd-mountinfo.h"
#include "hpd-pool.h"

G_BEGIN_DECLS

/* The hugetlbfs mounts in <root>/proc/self/mountinfo; a mount that does not
 * name its page size has the default one. Shared by the main thread's reads
 * of one main loop turn: the caller must not change the array. */
GPtrArray *hpd_mounts_read (HpdKernel *kernel, guint64 default_page_size);

/* The owner, group and mode of the mount's root as they are, or as the
 * mount options say where the root could not be read. */
guint32 hpd_mount_info_uid (const HpdMountInfo *info);
guint32 hpd_mount_info_gid (const HpdMountInfo *info);
guint32 hpd_mount_info_mode (const HpdMountInfo *info);

/* a(sa{sv}) for Manager.Mounts */
GVariant *hpd_mounts_to_variant (GPtrArray *mounts, const char *root);
/* as for PageSize.Mounts */
GStrv hpd_mounts_paths_of_size (GPtrArray *mounts, guint64 page_size);
/* The mount on top at @path, or NULL. */
const HpdMountInfo *hpd_mounts_find (GPtrArray *mounts, const char *path);

/* The arguments of CreateMount(s), checked, with the owner resolved. */
typedef struct {
  HpdMountScope scope;
  char *owner_name;     /* resolved name, for the path */
  guint32 uid;
  guint32 gid;
  guint32 mode;
  GVariant *max_size;   /* t or s, NULL if not given */
  GVariant *min_size;
  guint64 max_inodes;
  gboolean persist;     /* option "persist": save in the configuration */
  gboolean secure;      /* option "secure-directories": hpd_hugetlbfs_mount's @secure */
  gboolean dry_run;     /* option "dry-run": check only */
} HpdMountRequest;

void hpd_mount_request_free (HpdMountRequest *request);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HpdMountRequest, hpd_mount_request_free)

HpdMountRequest *hpd_mount_request_new (const char *scope, const char *owner,
                                        GVariant *options, GError **error);

/* The mount for one page size; @persistent_pages is the pool's Minimum, which
 * percentages are taken of. Refuses limits that round to zero pages. */
HpdMountSpec *hpd_mount_request_spec (const HpdMountRequest *request,
                                      guint64 page_size, guint64 persistent_pages,
                                      GError **error);

/* hpd_mount_request_spec with the pool's Minimum as the kernel has it now. */
HpdMountSpec *hpd_mount_request_spec_now (const HpdMountRequest *request, HpdKernel *kernel,
                                          const HpdPool *pool, GError **error);

char *hpd_mount_spec_path (const HpdMountSpec *spec, const char *root);

/* The configuration section a request is saved as: its name ("system",
 * "user alice") and its text, from checked values only. @page_size 0: one
 * mount per page size. */
char *hpd_mount_request_config_key (const HpdMountRequest *request);
char *hpd_mount_request_to_config (const HpdMountRequest *request, guint64 page_size);

/* The section name of the configuration that makes a managed mount at
 * @path (under <root>/var/lib/hugetlbfs), or NULL for any other path. */
char *hpd_mount_path_config_key (const char *root, const char *path);

/* What differs between an existing mount and what @spec would make, as
 * "size 4194304 asked, none mounted, mode 0700 asked, 0755 now", or NULL
 * when nothing does. The owner and mode are those of the mount's root.
 * @limits_differ: whether the page size or a limit does, which the kernel
 * cannot change on a live mount (a remount ignores them). A percentage
 * limit matches any size limit: its value depends on the pool at mount
 * time. */
char *hpd_mount_spec_differences (const HpdMountSpec *spec, const HpdMountInfo *info,
                                  gboolean *limits_differ);

/* Whether an existing mount is what @spec would make. */
gboolean hpd_mount_spec_matches (const HpdMountSpec *spec, const HpdMountInfo *info);

/* A path as a caller may name it: absolute, normalized, printable. */
gboolean hpd_mount_path_is_valid (const char *path);

G_END_DECLS
