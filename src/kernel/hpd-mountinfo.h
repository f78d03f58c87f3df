/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* hugetlbfs mounts as /proc/self/mountinfo lists them. Written by hand
 * rather than with libmount or g_unix_mounts_get() because the service
 * reads mountinfo under --kernel-root and needs the superblock options
 * (size, min_size, nr_inodes, pagesize) apart from the per-mount flags. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  guint mount_id;
  guint parent_id;
  char *path;             /* unescaped */
  char *flags;            /* per-mount options: "rw,nosuid,nodev,relatime" */
  char *source;
  guint64 page_size;      /* bytes; 0 if the line does not say */
  gboolean has_size;
  guint64 size;           /* bytes */
  gboolean has_min_size;
  guint64 min_size;       /* bytes */
  gboolean has_nr_inodes;
  guint64 nr_inodes;
  guint32 uid;            /* from the mount options */
  guint32 gid;
  guint32 mode;
  /* The mount's root directory as it is now: chown and chmod after
   * mounting (hugeadm does that) are not in the options. Filled in by
   * hpd_mounts_read, not by the parser. */
  gboolean has_root;
  guint32 root_uid;
  guint32 root_gid;
  guint32 root_mode;
} HpdMountInfo;

void hpd_mount_info_free (HpdMountInfo *info);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HpdMountInfo, hpd_mount_info_free)

/* Every hugetlbfs mount in @text, in file order. Lines that are not
 * hugetlbfs or cannot be parsed are skipped. */
GPtrArray *hpd_mountinfo_parse_hugetlbfs (const char *text);

/* One mountinfo line; NULL if it is malformed or not hugetlbfs. */
HpdMountInfo *hpd_mountinfo_parse_line (const char *line);

/* The mount ID of the mount on top of "/" in @text (the last line whose
 * mount point is "/"); FALSE when no line says. */
gboolean hpd_mountinfo_root_mount_id (const char *text, guint32 *mount_id);

/* Undoes the kernel's octal escapes (\040 and friends); NULL on a broken
 * escape. */
char *hpd_mountinfo_unescape (const char *field);

G_END_DECLS
