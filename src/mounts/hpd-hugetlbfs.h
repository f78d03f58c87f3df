/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Making and removing hugetlbfs mounts without trusting any path: every
 * directory is opened component by component without following links and
 * checked to be root's and not writable by others, the mount is built with
 * the new mount API from values the service formats itself, and attached to
 * the opened directory, never to a path. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Where hugeadm puts its mounts, below the service's root. */
#define HPD_MOUNT_BASE "var/lib/hugetlbfs"

typedef enum {
  HPD_MOUNT_SCOPE_SYSTEM,
  HPD_MOUNT_SCOPE_USER,
  HPD_MOUNT_SCOPE_GROUP,
  HPD_MOUNT_SCOPE_GLOBAL,
} HpdMountScope;

gboolean hpd_mount_scope_parse (const char *text, HpdMountScope *scope, GError **error);

typedef struct {
  HpdMountScope scope;
  char *owner_name;     /* user or group name in the path; NULL for system/global */
  guint64 page_size;    /* bytes */
  guint32 uid;
  guint32 gid;
  guint32 mode;         /* permission bits and sticky bit only */
  char *size;           /* kernel value ("4194304" or "50%"), NULL: no limit */
  char *min_size;       /* same */
  guint64 nr_inodes;    /* 0: no limit */
} HpdMountSpec;

void hpd_mount_spec_free (HpdMountSpec *spec);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HpdMountSpec, hpd_mount_spec_free)

/* "pagesize-2MB", "user/alice/pagesize-2MB", ... below HPD_MOUNT_BASE. */
char *hpd_mount_spec_relative_path (const HpdMountSpec *spec);

/* A user or group name that may stand in a path and a log line. */
gboolean hpd_mount_name_is_valid (const char *name);

/* Creates the directories (root's, 0755) and mounts; on failure removes
 * what it created. @root is the service's root ("/" in production).
 * @secure: directories from the base on that are not root's or are
 * writable by others (hugeadm's user/NAME) are made root's with mode 0755
 * instead of refused. */
gboolean hpd_hugetlbfs_mount (const char *root, const HpdMountSpec *spec,
                              gboolean secure, GError **error);

/* Takes over the existing mount @spec names (hugeadm's, for one): checks
 * the directories above it as hpd_hugetlbfs_mount would (securing them
 * with @secure) and gives its root the owner, group and mode of @spec
 * where they differ. The page size and limits are the caller's to check:
 * the kernel cannot change them on a live mount. */
gboolean hpd_hugetlbfs_adopt (const char *root, const HpdMountSpec *spec,
                              gboolean secure, GError **error);

/* Whether @path is one of the mount points the service makes below the
 * base: <root>/<base>/[global/|user/NAME/|group/NAME/]pagesize-S. */
gboolean hpd_hugetlbfs_is_service_mount_point (const char *root, const char *path);

/* Unmounts the hugetlbfs mount at @path (an absolute path as mountinfo
 * shows it) and, when it is one of the service's mount points below the
 * base, removes the directory and the empty ones between it and the base. */
gboolean hpd_hugetlbfs_unmount (const char *root, const char *path,
                                GError **error);

G_END_DECLS
