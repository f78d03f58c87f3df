/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <poll.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <gio/gio.h>

#include "hpd-path-watch.h"
#include "hpd-stat-state.h"

/* As many symbolic links as the kernel follows in one lookup (ELOOP). */
#define MAX_LINKS 40

/* On the way: what changes the way. Not the attributes: the mode of a
 * directory on the way does not change what the service, with
 * CAP_DAC_OVERRIDE, finds through it, and the event would come for every
 * entry, so anybody who touches /tmp would count as a change of /. The
 * path itself: its attributes and its writes (of a directory's files
 * too); but a device's writes are no change of the file (a drop-in masked
 * by a link to /dev/null must not make everybody's writes there count). */
#define ON_THE_WAY (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | \
                    IN_MOVE_SELF)
#define AT_THE_END (ON_THE_WAY | IN_ATTRIB)
#define FILE_AT_THE_END (AT_THE_END | IN_MODIFY)

struct _HpdPathWatch
{
  int inotify;
  int mounts;             /* /proc/self/mountinfo, for poll() */
  gboolean changed;
};

/* File systems whose every change is made by this kernel, so inotify has
 * it: written by hand, as neither GLib nor the kernel offers the list
 * (GIO's "filesystem::remote" names some remote ones; FUSE is missing). */
static gboolean
is_local (__fsword_t type)
{
  switch ((unsigned long) type)
    {
    case EXT4_SUPER_MAGIC:      /* ext2 and ext3 too */
    case XFS_SUPER_MAGIC:
    case BTRFS_SUPER_MAGIC:
    case F2FS_SUPER_MAGIC:
    case TMPFS_MAGIC:
    case RAMFS_MAGIC:
    case OVERLAYFS_SUPER_MAGIC:
    case SQUASHFS_MAGIC:
    case EROFS_SUPER_MAGIC_V1:
    case MSDOS_SUPER_MAGIC:
    case HUGETLBFS_MAGIC:       /* a mount's root */
      return TRUE;
    default:
      return FALSE;
    }
}

/* @what failed with errno: FALSE, and @error says so. */
static gboolean
failed (const char *what, GError **error)
{
  int err = errno;

  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (err), "%s: %s", what, g_strerror (err));
  return FALSE;
}

HpdPathWatch *
hpd_path_watch_new (GError **error)
{
  g_autoptr(HpdPathWatch) self = g_new0 (HpdPathWatch, 1);

  self->inotify = inotify_init1 (IN_NONBLOCK | IN_CLOEXEC);
  self->mounts = -1;
  if (self->inotify < 0)
    {
      failed ("inotify", error);
      return NULL;
    }
  self->mounts = open ("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
  if (self->mounts < 0)
    {
      failed ("/proc/self/mountinfo", error);
      return NULL;
    }
  return g_steal_pointer (&self);
}

void
hpd_path_watch_free (HpdPathWatch *self)
{
  if (self == NULL)
    return;
  if (self->inotify >= 0)
    close (self->inotify);
  if (self->mounts >= 0)
    close (self->mounts);
  g_free (self);
}

/* @physical: a path without symbolic links that exists. A directory may
 * be on several ways, and at the end of one. */
static gboolean
watch_one (HpdPathWatch *self, const char *physical, guint32 events, GError **error)
{
  struct statfs fs;

  /* one event per watch at most: the first tells all, and no later one
   * piles up in the kernel while no call comes to look */
  if (statfs (physical, &fs) < 0 ||
      inotify_add_watch (self->inotify, physical,
                         events | IN_DONT_FOLLOW | IN_MASK_ADD | IN_ONESHOT) < 0)
    return failed (physical, error);
  if (!is_local (fs.f_type))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "%s: on a file system (0x%lx) whose changes inotify may not see",
                   physical, (unsigned long) fs.f_type);
      return FALSE;
    }
  return TRUE;
}

/* A directory on the way whose entries an account other than root may
 * create, remove or rename (/tmp, a shared directory): FALSE with @error
 * under HPD_PATH_WATCH_ROOT_WAY. */
static gboolean
way_allowed (const char *physical, const struct stat *st, HpdPathWatchFlags flags,
             GError **error)
{
  if (!(flags & HPD_PATH_WATCH_ROOT_WAY) || !S_ISDIR (st->st_mode) ||
      hpd_stat_only_root_writes (st))
    return TRUE;
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
               "%s: another account than root may change its entries", physical);
  return FALSE;
}

static guint32
end_events (gboolean end, mode_t mode)
{
  if (!end)
    return ON_THE_WAY;
  return S_ISREG (mode) || S_ISDIR (mode) ? FILE_AT_THE_END : AT_THE_END;
}

typedef enum {
  WALK_FAILED,
  WALK_MISSING,           /* a part of the way is not there */
  WALK_DONE,
} Walk;

/* The way along @parts, as stat() takes it, from @physical: a path
 * without links, watched already, which becomes the path reached. @ends:
 * the last of @parts is the watched path's end. */
static Walk
walk (HpdPathWatch *self, GString *physical, char **parts, gboolean ends, HpdPathWatchFlags flags,
      guint *links, GError **error)
{
  for (guint i = 0; parts[i] != NULL; i++)
    {
      const char *part = parts[i];
      gsize before = physical->len;
      gboolean end = ends && parts[i + 1] == NULL;
      struct stat st;

      if (part[0] == '\0' || g_str_equal (part, "."))
        continue;
      if (g_str_equal (part, ".."))
        {
          /* up from a physical path is its parent, watched on the way */
          char *slash = strrchr (physical->str, '/');

          g_string_truncate (physical, slash == physical->str ? 1 : (gsize) (slash - physical->str));
          continue;
        }
      if (physical->len > 1)
        g_string_append_c (physical, '/');
      g_string_append (physical, part);
      if (lstat (physical->str, &st) < 0)
        {
          /* missing, or not a directory to go through: its directory's
           * watch sees whatever makes the way longer */
          if (errno == ENOENT || errno == ENOTDIR)
            return WALK_MISSING;
          failed (physical->str, error);
          return WALK_FAILED;
        }
      if (S_ISLNK (st.st_mode))
        {
          g_autofree char *target = NULL;
          g_auto(GStrv) target_parts = NULL;
          Walk reached;

          if (++*links > MAX_LINKS)
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_LINKS,
                           "%s: too many levels of symbolic links", physical->str);
              return WALK_FAILED;
            }
          target = g_file_read_link (physical->str, error);
          if (target == NULL)
            return WALK_FAILED;
          /* the link's directory is watched; its target is taken from /
           * or from that directory, and the way goes on from there */
          g_string_truncate (physical, before);
          if (g_path_is_absolute (target))
            g_string_assign (physical, "/");
          target_parts = g_strsplit (target, "/", -1);
          reached = walk (self, physical, target_parts, end, flags, links, error);
          if (reached != WALK_DONE)
            return reached;
          continue;
        }
      if ((!end && !way_allowed (physical->str, &st, flags, error)) ||
          !watch_one (self, physical->str, end_events (end, st.st_mode), error))
        return WALK_FAILED;
    }
  return WALK_DONE;
}

gboolean
hpd_path_watch_add (HpdPathWatch *self, const char *path, HpdPathWatchFlags flags,
                    GError **error)
{
  g_autoptr(GString) physical = g_string_new ("/");
  g_auto(GStrv) parts = NULL;
  guint links = 0;
  struct stat st;

  g_return_val_if_fail (g_path_is_absolute (path), FALSE);

  if (lstat ("/", &st) < 0)
    return failed ("/", error);
  if (!way_allowed ("/", &st, flags, error) || !watch_one (self, "/", ON_THE_WAY, error))
    return FALSE;
  parts = g_strsplit (path, "/", -1);
  return walk (self, physical, parts, TRUE, flags, &links, error) != WALK_FAILED;
}

gboolean
hpd_path_watch_unchanged (HpdPathWatch *self)
{
  struct pollfd p[] = {
    { .fd = self->inotify, .events = POLLIN },
    { .fd = self->mounts, .events = POLLPRI },
  };

  /* the events are never read: the first one stays */
  if (!self->changed && poll (p, G_N_ELEMENTS (p), 0) != 0)
    self->changed = TRUE;
  return !self->changed;
}
