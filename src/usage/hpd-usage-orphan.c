/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* RemoveOrphan: a hugetlbfs file nobody maps, resolved without following
 * links and removed through its parent directory. */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "hp-error.h"
#include "hp-units.h"
#include "hpd-mounts.h"
#include "hpd-parse.h"
#include "hpd-usage-parse.h"
#include "hpd-usage.h"
#include "hpd-usage-private.h"

void
hpd_orphan_free (HpdOrphan *orphan)
{
  if (orphan == NULL)
    return;
  if (orphan->parent_fd >= 0)
    close (orphan->parent_fd);
  g_free (orphan->leaf);
  g_free (orphan);
}

/* The pids whose maps show (@dev, @ino) into @pids, and those whose maps
 * could not be read (not gone, unreadable) into @unreadable. */
static gboolean
mapping_pids (HpdKernel *kernel, guint64 dev, guint64 ino, GArray *pids, GArray *unreadable,
              GError **error)
{
  g_autofree char *proc = hpd_kernel_path (kernel, "proc");
  int proc_fd = open (proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *dir;
  struct dirent *entry;

  if (proc_fd < 0 || (dir = fdopendir (proc_fd)) == NULL)
    {
      if (proc_fd >= 0)
        close (proc_fd);
      g_set_error (error, HP_ERROR, HP_ERROR_FAILED,
                   "Cannot read %s, so cannot tell whether the file is mapped", proc);
      return FALSE;
    }
  while ((entry = readdir (dir)) != NULL)
    {
      g_autofree char *rel = NULL, *maps = NULL;
      g_autoptr(GArray) mappings = NULL;
      guint64 pid;
      int err;

      if (!g_ascii_isdigit (entry->d_name[0]) || !hp_parse_u64 (entry->d_name, &pid, NULL) ||
          pid == 0 || pid > G_MAXINT32)
        continue;
      rel = g_strdup_printf ("%s/maps", entry->d_name);
      err = hpd_usage_read_at (dirfd (dir), rel, MAX_PROC_FILE_BYTES, &maps);
      if (err == 0 && (mappings = hpd_usage_parse_smaps (maps, NULL)) == NULL)
        err = EINVAL;
      if (err != 0)
        {
          if (!hpd_usage_vanished (err))
            g_array_append_val (unreadable, (guint32) { (guint32) pid });
          continue;
        }
      for (guint i = 0; i < mappings->len; i++)
        {
          const HpdMapping *m = &g_array_index (mappings, HpdMapping, i);
          if (hpd_usage_dev_key (m->dev_major, m->dev_minor) == dev && m->inode == ino)
            {
              g_array_append_val (pids, (guint32) { (guint32) pid });
              break;
            }
        }
    }
  closedir (dir);
  g_array_sort (pids, hpd_usage_compare_pids);
  g_array_sort (unreadable, hpd_usage_compare_pids);
  return TRUE;
}

/* The deepest hugetlbfs mount that holds @path. */
static const HpdMountInfo *
mount_holding (HpdKernel *kernel, GPtrArray *mounts, const char *path)
{
  const HpdMountInfo *best = NULL;

  for (guint i = 0; i < mounts->len; i++)
    {
      const HpdMountInfo *m = g_ptr_array_index (mounts, i);
      gsize len = strlen (m->path);

      if (!hpd_usage_path_is_below_root (kernel, m->path))
        continue;
      if ((g_str_equal (m->path, "/") || (g_str_has_prefix (path, m->path) && path[len] == '/')) &&
          (best == NULL || len >= strlen (best->path)))
        best = m;
    }
  return best;
}

HpdOrphan *
hpd_orphan_resolve (HpdKernel *kernel, guint64 default_page_size, const char *path,
                    gboolean ignore_unreadable, GError **error)
{
  g_autoptr(GPtrArray) mounts = hpd_mounts_read (kernel, default_page_size);
  g_autoptr(HpdOrphan) orphan = g_new0 (HpdOrphan, 1);
  g_autoptr(GArray) pids = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) unreadable = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_auto(GStrv) parts = NULL;
  const HpdMountInfo *mount;
  struct stat st, file;
  int fd;
  guint n;

  orphan->parent_fd = -1;
  if (!hpd_mount_path_is_valid (path))
    {
      g_set_error_literal (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                           "The path must be absolute and normalized, without control characters");
      return NULL;
    }
  mount = mount_holding (kernel, mounts, path);
  if (mount == NULL)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_NOT_MOUNTED, "%s is not in a hugetlbfs mount", path);
      return NULL;
    }

  fd = hpd_usage_open_no_links (mount->path, O_PATH | O_DIRECTORY, error);
  if (fd < 0)
    return NULL;
  if (!hpd_usage_mount_is_usable (kernel, mount->path, fd) || fstat (fd, &st) < 0)
    {
      close (fd);
      g_set_error (error, HP_ERROR, HP_ERROR_NOT_MOUNTED, "%s is not a hugetlbfs mount", mount->path);
      return NULL;
    }

  /* from the mount's root, every directory on the mount's superblock */
  parts = g_strsplit (path + (g_str_equal (mount->path, "/") ? 1 : strlen (mount->path) + 1), "/", -1);
  n = g_strv_length (parts);
  for (guint i = 0; i + 1 < n; i++)
    {
      struct stat dir_st;
      int next = openat (fd, parts[i], O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

      if (next < 0 || fstat (next, &dir_st) < 0 || dir_st.st_dev != st.st_dev)
        {
          int saved_errno = errno;

          if (next >= 0)
            close (next);
          close (fd);
          g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                       "%s: %s is not a directory of the mount (%s)", path, parts[i],
                       next >= 0 ? "another file system" : g_strerror (saved_errno));
          return NULL;
        }
      close (fd);
      fd = next;
    }
  orphan->parent_fd = fd;
  orphan->leaf = g_strdup (parts[n - 1]);

  if (fstatat (fd, orphan->leaf, &file, AT_SYMLINK_NOFOLLOW) < 0)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS, "%s: %s", path, g_strerror (errno));
      return NULL;
    }
  if (!S_ISREG (file.st_mode) || file.st_dev != st.st_dev)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "%s is not a regular file of the hugetlbfs mount %s", path, mount->path);
      return NULL;
    }
  orphan->dev = hpd_usage_dev_key_of (file.st_dev);
  orphan->ino = file.st_ino;
  orphan->bytes = (guint64) file.st_blocks * 512;

  if (!mapping_pids (kernel, orphan->dev, orphan->ino, pids, unreadable, error))
    return NULL;
  if (pids->len > 0)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_BUSY,
                   "%s is mapped by %u process%s; not an orphan (GetUsage shows which)",
                   path, pids->len, pids->len > 1 ? "es" : "");
      return NULL;
    }
  if (unreadable->len > 0 && !ignore_unreadable)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_FAILED,
                   "Cannot tell whether %s is mapped: the mappings of %u process%s cannot be "
                   "read (option ignore-unreadable removes it anyway)",
                   path, unreadable->len, unreadable->len > 1 ? "es" : "");
      return NULL;
    }
  return g_steal_pointer (&orphan);
}

gboolean
hpd_orphan_remove (const HpdOrphan *orphan, const char *path, guint64 *bytes, GError **error)
{
  struct stat file;

  /* the pages it holds now: it may have grown since it was resolved */
  *bytes = orphan->bytes;
  if (fstatat (orphan->parent_fd, orphan->leaf, &file, AT_SYMLINK_NOFOLLOW) == 0 &&
      hpd_usage_dev_key_of (file.st_dev) == orphan->dev && file.st_ino == orphan->ino)
    *bytes = (guint64) file.st_blocks * 512;
  if (unlinkat (orphan->parent_fd, orphan->leaf, 0) < 0)
    {
      int saved_errno = errno;

      g_set_error (error, HP_ERROR, saved_errno == EBUSY ? HP_ERROR_BUSY : HP_ERROR_FAILED,
                   "Cannot remove %s: %s", path, g_strerror (saved_errno));
      return FALSE;
    }
  return TRUE;
}
