/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* GetUsage's reading below the root: the hugetlbfs mounts and the files
 * in them. */

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
#include "hpd-open.h"
#include "hpd-parse.h"
#include "hpd-usage-parse.h"
#include "hpd-usage.h"
#include "hpd-usage-private.h"

/* Reads a whole file through an open fd; errno on failure. */
static int
read_fd (int fd, gsize max, char **text)
{
  g_autoptr(GByteArray) buf = g_byte_array_new ();
  guint8 chunk[16384];

  for (;;)
    {
      ssize_t n = read (fd, chunk, sizeof chunk);

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return errno;
        }
      if (n == 0)
        break;
      if (buf->len + (gsize) n > max)
        return EFBIG;
      g_byte_array_append (buf, chunk, (guint) n);
    }
  g_byte_array_append (buf, (const guint8 *) "", 1);
  *text = (char *) g_byte_array_free (g_steal_pointer (&buf), FALSE);
  return 0;
}

int
hpd_usage_read_at (int dir_fd, const char *name, gsize max, char **text)
{
  int fd = openat (dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
  int result;

  if (fd < 0)
    return errno;
  result = read_fd (fd, max, text);
  close (fd);
  return result;
}

/* A process is gone (between readdir and now) when its files say so. */
gboolean
hpd_usage_vanished (int error_number)
{
  return error_number == ENOENT || error_number == ESRCH;
}

char *
hpd_usage_user_name (guint32 uid)
{
  struct passwd pw, *result = NULL;
  char buf[4096];

  if (getpwuid_r (uid, &pw, buf, sizeof buf, &result) == 0 && result != NULL &&
      g_utf8_validate (result->pw_name, -1, NULL))
    return g_strdup (result->pw_name);
  return g_strdup_printf ("%u", uid);
}

char *
hpd_usage_bus_text (const char *text)
{
  return hpd_parse_printable (text);
}

void
hpd_usage_mount_free (UsageMount *m)
{
  g_free (m->path);
  g_free (m);
}

void
hpd_usage_file_free (UsageFile *f)
{
  g_free (f->path);
  g_array_unref (f->pids);
  g_free (f);
}

guint64
hpd_usage_dev_key (guint32 major_number, guint32 minor_number)
{
  return ((guint64) major_number << 32) | minor_number;
}

guint64
hpd_usage_dev_key_of (dev_t dev)
{
  return hpd_usage_dev_key (major (dev), minor (dev));
}

guint64 *
hpd_usage_inode_key_new (guint64 dev, guint64 ino)
{
  guint64 *key = g_new (guint64, 2);

  key[0] = dev;
  key[1] = ino;
  return key;
}

guint
hpd_usage_inode_key_hash (gconstpointer p)
{
  const guint64 *k = p;

  return g_int64_hash (&k[0]) * 31 + g_int64_hash (&k[1]);
}

gboolean
hpd_usage_inode_key_equal (gconstpointer a, gconstpointer b)
{
  const guint64 *x = a, *y = b;

  return x[0] == y[0] && x[1] == y[1];
}

/* Opens @path (absolute) without following a link (hpd-open.h). */
int
hpd_usage_open_no_links (const char *path, int last_flags, GError **error)
{
  int fd = hpd_open_no_links (path, last_flags);
  int saved_errno = errno;

  if (fd < 0)
    g_set_error (error, HP_ERROR, HP_ERROR_NOT_MOUNTED,
                 "Cannot open %s without following links: %s", path, g_strerror (saved_errno));
  return fd;
}

/* On the real kernel a mount must be hugetlbfs; under a fake root (tests,
 * simulations) its directory is a plain one, which must then lie inside
 * the fake tree, so that a made-up mount table can never point the walk
 * (or RemoveOrphan) at the host's files. */
gboolean
hpd_usage_mount_is_usable (HpdKernel *kernel, const char *path, int fd)
{
  const char *root = hpd_kernel_get_root (kernel);
  struct statfs sfs;

  if (g_str_equal (root, "/"))
    return fstatfs (fd, &sfs) == 0 && sfs.f_type == HUGETLBFS_MAGIC;
  return g_str_has_prefix (path, root) && path[strlen (root)] == '/';
}

gboolean
hpd_usage_path_is_below_root (HpdKernel *kernel, const char *path)
{
  const char *root = hpd_kernel_get_root (kernel);

  return g_str_equal (root, "/") || (g_str_has_prefix (path, root) && path[strlen (root)] == '/');
}

gboolean
hpd_usage_out_of_time (Scan *s)
{
  if (s->timed_out || g_cancellable_is_cancelled (s->cancellable) ||
      g_get_monotonic_time () > s->scan->deadline)
    {
      s->timed_out = TRUE;
      return TRUE;
    }
  return FALSE;
}

static void
walk_dir (Scan *s, UsageMount *mount, int dir_fd, const char *path, guint depth)
{
  DIR *dir = fdopendir (dir_fd);
  struct dirent *entry;

  if (dir == NULL)
    {
      close (dir_fd);
      return;
    }
  while ((entry = readdir (dir)) != NULL)
    {
      struct stat st;
      g_autofree char *child = NULL;

      if (g_str_equal (entry->d_name, ".") || g_str_equal (entry->d_name, ".."))
        continue;
      if (s->files->len >= MAX_FILES || hpd_usage_out_of_time (s))
        {
          s->files_truncated = TRUE;
          break;
        }
      if (fstatat (dirfd (dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        continue;   /* removed meanwhile */
      /* another file system mounted inside this one is not its content */
      if (st.st_dev != mount->dev)
        continue;
      child = g_build_filename (path, entry->d_name, NULL);

      if (S_ISDIR (st.st_mode))
        {
          int child_fd;

          if (depth + 1 > MAX_FILE_DEPTH)
            {
              s->files_truncated = TRUE;
              continue;
            }
          child_fd = openat (dirfd (dir), entry->d_name,
                             O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
          if (child_fd >= 0)
            walk_dir (s, mount, child_fd, child, depth + 1);
        }
      else if (S_ISREG (st.st_mode))
        {
          UsageFile *f = g_new0 (UsageFile, 1);

          f->path = g_steal_pointer (&child);
          f->mount = mount;
          f->size = (guint64) st.st_size;
          /* hugetlbfs counts the pages in the file's page cache in
           * i_blocks (512-byte units), whatever the size says */
          f->bytes = (guint64) st.st_blocks * 512;
          f->dev = hpd_usage_dev_key_of (st.st_dev);
          f->ino = st.st_ino;
          f->uid = st.st_uid;
          f->gid = st.st_gid;
          f->pids = g_array_new (FALSE, FALSE, sizeof (guint32));
          g_ptr_array_add (s->files, f);
          g_hash_table_insert (s->file_inodes, hpd_usage_inode_key_new (f->dev, f->ino), f);
        }
    }
  closedir (dir);
}

void
hpd_usage_read_mounts (Scan *s, gboolean walk_files)
{
  HpdKernel *kernel = s->scan->kernel;
  g_autoptr(GPtrArray) infos = hpd_mounts_read (kernel, s->scan->default_page_size);

  for (guint i = 0; i < infos->len; i++)
    {
      const HpdMountInfo *info = g_ptr_array_index (infos, i);
      g_autoptr(GError) error = NULL;
      UsageMount *mount;
      struct stat st;
      int fd;

      if (!hpd_mount_path_is_valid (info->path) || !hpd_usage_path_is_below_root (kernel, info->path))
        continue;
      fd = hpd_usage_open_no_links (info->path, O_RDONLY | O_DIRECTORY, &error);
      if (fd < 0)
        {
          g_ptr_array_add (s->warnings, g_strdup (error->message));
          continue;
        }
      if (!hpd_usage_mount_is_usable (kernel, info->path, fd) || fstat (fd, &st) < 0)
        {
          close (fd);
          continue;
        }

      /* One superblock can be mounted at several places: walk it once.
       * Under a fake root every "mount" is a directory of the same file
       * system, told apart by its inode. */
      {
        gboolean real = g_str_equal (hpd_kernel_get_root (kernel), "/");
        guint64 walked_key[2] = { hpd_usage_dev_key_of (st.st_dev), real ? 0 : st.st_ino };

        if (g_hash_table_contains (s->walked, walked_key))
          {
            close (fd);
            continue;
          }
        g_hash_table_add (s->walked, hpd_usage_inode_key_new (walked_key[0], walked_key[1]));
      }

      mount = g_new0 (UsageMount, 1);
      mount->path = g_strdup (info->path);
      mount->page_size = info->page_size;
      mount->min_size = info->has_min_size ? info->min_size : 0;
      mount->dev = st.st_dev;
      g_ptr_array_add (s->mounts, mount);
      if (!g_hash_table_contains (s->mount_devs, &(guint64) { hpd_usage_dev_key_of (st.st_dev) }))
        g_hash_table_insert (s->mount_devs, g_memdup2 (&(guint64) { hpd_usage_dev_key_of (st.st_dev) },
                                                       sizeof (guint64)), mount);
      if (!walk_files)
        {
          close (fd);
          continue;
        }
      walk_dir (s, mount, fd, info->path, 0);
    }
}
