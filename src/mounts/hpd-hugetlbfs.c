/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "hp-error.h"
#include "hp-files.h"
#include "hp-units.h"
#include "hpd-hugetlbfs.h"
#include "hpd-open.h"
#include "hpd-stat-state.h"

gboolean
hpd_mount_scope_parse (const char *text, HpdMountScope *scope, GError **error)
{
  static const char *const names[] = { "system", "user", "group", "global" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_strcmp0 (text, names[i]) == 0)
      {
        *scope = (HpdMountScope) i;
        return TRUE;
      }
  g_set_error_literal (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                       "The scope must be system, user, group or global");
  return FALSE;
}

void
hpd_mount_spec_free (HpdMountSpec *spec)
{
  if (spec == NULL)
    return;
  g_free (spec->owner_name);
  g_free (spec->size);
  g_free (spec->min_size);
  g_free (spec);
}

gboolean
hpd_mount_name_is_valid (const char *name)
{
  gsize len = name ? strlen (name) : 0;

  /* The POSIX portable name set, as useradd accepts it: no ',' '/' '..',
   * spaces, newlines or control characters can reach a path or a log. */
  if (len == 0 || len > 32 || name[0] == '-' || name[0] == '.')
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isalnum (name[i]) && name[i] != '_' && name[i] != '-' && name[i] != '.')
      return FALSE;
  return TRUE;
}

char *
hpd_mount_spec_relative_path (const HpdMountSpec *spec)
{
  g_autofree char *size = hp_size_name (spec->page_size);

  switch (spec->scope)
    {
    case HPD_MOUNT_SCOPE_SYSTEM:
      return g_strdup_printf ("pagesize-%s", size);
    case HPD_MOUNT_SCOPE_USER:
      return g_strdup_printf ("user/%s/pagesize-%s", spec->owner_name, size);
    case HPD_MOUNT_SCOPE_GROUP:
      return g_strdup_printf ("group/%s/pagesize-%s", spec->owner_name, size);
    case HPD_MOUNT_SCOPE_GLOBAL:
      return g_strdup_printf ("global/pagesize-%s", size);
    default:
      g_assert_not_reached ();
    }
}

/* "<doing> <what>: <strerror>" */
static gboolean
set_errno_error (GError **error, int saved_errno, const char *doing, const char *what)
{
  g_set_error (error, HP_ERROR, HP_ERROR_FAILED, "%s %s: %s", doing, what,
               g_strerror (saved_errno));
  return FALSE;
}

static guint64
mount_id_of (int fd)
{
  struct statx stx;

  if (statx (fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) < 0 ||
      !(stx.stx_mask & STATX_MNT_ID))
    return 0;
  return stx.stx_mnt_id;
}

/* A directory we may build on: root's, and nobody else can write to it
 * (a writable directory lets its owner swap a component for a link). */
static gboolean
check_trusted (int fd, const char *what, GError **error)
{
  struct stat st;

  if (fstat (fd, &st) < 0)
    return set_errno_error (error, errno, "Cannot examine", what);
  if (!S_ISDIR (st.st_mode))
    {
      g_set_error (error, HP_ERROR, HP_ERROR_FAILED, "%s is not a directory", what);
      return FALSE;
    }
  if (!hpd_stat_only_root_writes (&st))
    {
      g_set_error (error, HP_ERROR, HP_ERROR_FAILED,
                   "Refusing to use %s: it must belong to root and not be writable "
                   "by group or others (owner %u, mode %04o). If hugeadm made it, "
                   "mount-create --secure-directories (option \"secure-directories\") "
                   "makes it root's with mode 0755",
                   what, (guint) st.st_uid, (guint) (st.st_mode & 07777));
      return FALSE;
    }
  return TRUE;
}

/* Makes @name below @dirfd, opened as @fd, root's with mode 0755: hugeadm
 * leaves user/NAME and group/NAME owned by the user or group. The
 * directory is opened again without following links and must be the one
 * already opened; a mount's root is never touched. */
static gboolean
make_trusted (int dirfd, const char *name, int fd, const char *what, GError **error)
{
  struct stat opened, now;
  int rw;

  if (mount_id_of (fd) != mount_id_of (dirfd))
    {
      g_set_error (error, HP_ERROR, HP_ERROR_FAILED,
                   "Refusing to secure %s: it is the root of another mount", what);
      return FALSE;
    }
  rw = openat (dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (rw < 0)
    return set_errno_error (error, errno, "Cannot open", what);
  if (fstat (fd, &opened) < 0 || fstat (rw, &now) < 0 ||
      opened.st_dev != now.st_dev || opened.st_ino != now.st_ino)
    {
      close (rw);
      g_set_error (error, HP_ERROR, HP_ERROR_FAILED, "%s changed while it was being secured", what);
      return FALSE;
    }
  if (fchown (rw, 0, 0) < 0 || fchmod (rw, 0755) < 0)
    {
      int saved_errno = errno;
      close (rw);
      return set_errno_error (error, saved_errno, "Cannot secure", what);
    }
  close (rw);
  g_message ("Made %s root's with mode 0755 (was owner %u, group %u, mode %04o)", what,
             (guint) opened.st_uid, (guint) opened.st_gid, (guint) (opened.st_mode & 07777));
  return TRUE;
}

/* Opens @name below @dirfd, never through a link. A mount point to be is
 * refused when something is mounted there already: that is said first, as
 * the mounted root's owner and mode are not the directory's. */
static int
open_component (int dirfd, const char *name, const char *what,
                gboolean refuse_mount_point, gboolean secure, GError **error)
{
  int fd = openat (dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

  if (fd < 0)
    {
      int saved_errno = errno;

      if (saved_errno == ELOOP || saved_errno == ENOTDIR)
        g_set_error (error, HP_ERROR, HP_ERROR_FAILED,
                     "Refusing to use %s: it is a symbolic link or not a directory", what);
      else
        set_errno_error (error, saved_errno, "Cannot open", what);
      return -1;
    }
  if (refuse_mount_point && mount_id_of (fd) != mount_id_of (dirfd))
    {
      g_set_error (error, HP_ERROR, HP_ERROR_FAILED, "%s is already a mount point", what);
      close (fd);
      return -1;
    }
  if (!check_trusted (fd, what, secure ? NULL : error) &&
      (!secure || !make_trusted (dirfd, name, fd, what, error) ||
       !check_trusted (fd, what, error)))
    {
      close (fd);
      return -1;
    }
  return fd;
}


/* The directories below the root that we opened or made, innermost last,
 * so that a failed mount can take back exactly what it created. */
typedef struct {
  GArray *fds;        /* int */
  GPtrArray *names;   /* component names */
  GArray *created;    /* gboolean */
  gboolean secure;    /* make untrusted directories from the base on root's */
} Walk;

static void
walk_clear (Walk *walk)
{
  for (guint i = 0; walk->fds && i < walk->fds->len; i++)
    close (g_array_index (walk->fds, int, i));
  g_clear_pointer (&walk->fds, g_array_unref);
  g_clear_pointer (&walk->names, g_ptr_array_unref);
  g_clear_pointer (&walk->created, g_array_unref);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Walk, walk_clear)

static int
walk_last (Walk *walk)
{
  return g_array_index (walk->fds, int, walk->fds->len - 1);
}

static gboolean
walk_step (Walk *walk, const char *name, const char *what, gboolean create,
           gboolean mount_point, gboolean secure, GError **error)
{
  gboolean created = FALSE;
  int fd;

  if (create)
    {
      if (mkdirat (walk_last (walk), name, 0755) == 0)
        created = TRUE;
      else if (errno != EEXIST)
        return set_errno_error (error, errno, "Cannot create", what);
    }

  fd = open_component (walk_last (walk), name, what, mount_point, secure, error);
  /* mkdirat took the umask: users must be able to walk to their mounts */
  if (fd >= 0 && created && hp_chmod_fd (fd, 0755) < 0)
    {
      set_errno_error (error, errno, "Cannot set the mode of", what);
      close (fd);
      fd = -1;
    }
  if (fd < 0)
    {
      if (created)
        unlinkat (walk_last (walk), name, AT_REMOVEDIR);
      return FALSE;
    }

  g_array_append_val (walk->fds, fd);
  g_ptr_array_add (walk->names, g_strdup (name));
  g_array_append_val (walk->created, created);
  return TRUE;
}

/* Removes the directories this walk created, innermost first. */
static void
walk_undo (Walk *walk)
{
  for (guint i = walk->fds->len - 1; i > 0; i--)
    if (g_array_index (walk->created, gboolean, i))
      unlinkat (g_array_index (walk->fds, int, i - 1),
                g_ptr_array_index (walk->names, i), AT_REMOVEDIR);
}

/* Opens root, then var/lib (which must exist), then the base and @relative,
 * creating what is missing from the base on. */
static gboolean
walk_to (Walk *walk, const char *root, const char *relative, gboolean create,
         GError **error)
{
  g_auto(GStrv) base = g_strsplit (HPD_MOUNT_BASE, "/", -1);
  g_auto(GStrv) rest = g_strsplit (relative, "/", -1);
  g_autofree char *so_far = g_strdup (root);
  gboolean f = FALSE;
  int fd;

  walk->fds = g_array_new (FALSE, FALSE, sizeof (int));
  walk->names = g_ptr_array_new_with_free_func (g_free);
  walk->created = g_array_new (FALSE, FALSE, sizeof (gboolean));

  fd = open (root, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return set_errno_error (error, errno, "Cannot open", root);
  g_array_append_val (walk->fds, fd);
  g_ptr_array_add (walk->names, g_strdup (root));
  g_array_append_val (walk->created, f);

  for (guint i = 0; base[i] != NULL; i++)
    {
      g_autofree char *next = g_build_filename (so_far, base[i], NULL);
      /* only the base itself may be made: /var and /var/lib must exist */
      gboolean make = create && base[i + 1] == NULL;

      if (!walk_step (walk, base[i], next, make, FALSE, walk->secure && base[i + 1] == NULL, error))
        return FALSE;
      g_free (so_far);
      so_far = g_steal_pointer (&next);
    }

  for (guint i = 0; rest[i] != NULL; i++)
    {
      g_autofree char *next = g_build_filename (so_far, rest[i], NULL);

      /* creating means mounting on the last one */
      if (!walk_step (walk, rest[i], next, create, create && rest[i + 1] == NULL,
                      walk->secure, error))
        return FALSE;
      g_free (so_far);
      so_far = g_steal_pointer (&next);
    }

  return TRUE;
}

static char *
fs_context_messages (int fsfd)
{
  GString *messages = g_string_new (NULL);
  char buf[512];
  ssize_t n;

  while ((n = read (fsfd, buf, sizeof buf - 1)) > 0)
    {
      buf[n] = '\0';
      g_strchomp (buf);
      if (messages->len > 0)
        g_string_append (messages, "; ");
      g_string_append (messages, buf);
    }
  return g_string_free (messages, messages->len == 0);
}

static gboolean
fs_set (int fsfd, const char *key, const char *value, GError **error)
{
  if (fsconfig (fsfd, FSCONFIG_SET_STRING, key, value, 0) < 0)
    {
      int saved_errno = errno;
      g_autofree char *why = fs_context_messages (fsfd);

      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "The kernel refused hugetlbfs option %s=%s: %s", key, value,
                   why ? why : g_strerror (saved_errno));
      return FALSE;
    }
  return TRUE;
}

static gboolean
mount_on (int target_fd, const char *path, const HpdMountSpec *spec, GError **error)
{
  g_autofree char *page_size = g_strdup_printf ("%" G_GUINT64_FORMAT, spec->page_size);
  g_autofree char *uid = g_strdup_printf ("%u", spec->uid);
  g_autofree char *gid = g_strdup_printf ("%u", spec->gid);
  g_autofree char *mode = g_strdup_printf ("%o", spec->mode);
  g_autofree char *inodes = g_strdup_printf ("%" G_GUINT64_FORMAT, spec->nr_inodes);
  int fsfd, mfd, saved_errno;
  gboolean ok = FALSE;

  fsfd = fsopen ("hugetlbfs", FSOPEN_CLOEXEC);
  if (fsfd < 0)
    {
      saved_errno = errno;
      g_set_error (error, HP_ERROR, saved_errno == ENOSYS ? HP_ERROR_NOT_SUPPORTED : HP_ERROR_FAILED,
                   "Cannot open a hugetlbfs context: %s", g_strerror (saved_errno));
      return FALSE;
    }

  if (!fs_set (fsfd, "pagesize", page_size, error) ||
      !fs_set (fsfd, "uid", uid, error) ||
      !fs_set (fsfd, "gid", gid, error) ||
      !fs_set (fsfd, "mode", mode, error) ||
      (spec->size != NULL && !fs_set (fsfd, "size", spec->size, error)) ||
      (spec->min_size != NULL && !fs_set (fsfd, "min_size", spec->min_size, error)) ||
      (spec->nr_inodes > 0 && !fs_set (fsfd, "nr_inodes", inodes, error)))
    goto out;

  if (fsconfig (fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
    {
      g_autofree char *why = NULL;

      saved_errno = errno;
      why = fs_context_messages (fsfd);
      g_set_error (error, HP_ERROR, saved_errno == ENOMEM ? HP_ERROR_LIMIT_EXCEEDED : HP_ERROR_FAILED,
                   "The kernel could not create the hugetlbfs mount for %s: %s%s", path,
                   why ? why : g_strerror (saved_errno),
                   saved_errno == ENOMEM ? " (not enough free huge pages for min-size)" : "");
      goto out;
    }

  mfd = fsmount (fsfd, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
  if (mfd < 0)
    {
      set_errno_error (error, errno, "Cannot make the mount for", path);
      goto out;
    }

  if (move_mount (mfd, "", target_fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
    set_errno_error (error, errno, "Cannot attach the mount at", path);
  else
    ok = TRUE;
  close (mfd);

out:
  close (fsfd);
  return ok;
}

gboolean
hpd_hugetlbfs_mount (const char *root, const HpdMountSpec *spec, gboolean secure,
                     GError **error)
{
  g_autofree char *relative = hpd_mount_spec_relative_path (spec);
  g_autofree char *path = g_build_filename (root, HPD_MOUNT_BASE, relative, NULL);
  g_auto(Walk) walk = { .secure = secure, };

  /* the walk refuses a mount point that is already one: never stack */
  if (!walk_to (&walk, root, relative, TRUE, error))
    {
      if (walk.fds != NULL)
        walk_undo (&walk);
      return FALSE;
    }

  if (!mount_on (walk_last (&walk), path, spec, error))
    {
      walk_undo (&walk);
      return FALSE;
    }
  return TRUE;
}

gboolean
hpd_hugetlbfs_adopt (const char *root, const HpdMountSpec *spec, gboolean secure,
                     GError **error)
{
  g_autofree char *relative = hpd_mount_spec_relative_path (spec);
  g_autofree char *dir = g_path_get_dirname (relative);
  g_autofree char *leaf = g_path_get_basename (relative);
  g_autofree char *path = g_build_filename (root, HPD_MOUNT_BASE, relative, NULL);
  g_auto(Walk) walk = { .secure = secure, };
  struct statfs sfs;
  struct stat st;
  gboolean ok = FALSE;
  int fd;

  if (!walk_to (&walk, root, g_str_equal (dir, ".") ? "" : dir, FALSE, error))
    return FALSE;

  /* the mount's root is the one place that is not root's to check: its
   * owner is what was asked, and it cannot be swapped while mounted */
  fd = openat (walk_last (&walk), leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return set_errno_error (error, errno, "Cannot open", path);
  if (fstatfs (fd, &sfs) < 0 || sfs.f_type != HUGETLBFS_MAGIC ||
      mount_id_of (fd) == mount_id_of (walk_last (&walk)) || fstat (fd, &st) < 0)
    g_set_error (error, HP_ERROR, HP_ERROR_NOT_MOUNTED, "%s is not a hugetlbfs mount", path);
  else if ((st.st_uid != spec->uid || st.st_gid != spec->gid) &&
           fchown (fd, spec->uid, spec->gid) < 0)
    set_errno_error (error, errno, "Cannot change the owner of", path);
  else if ((st.st_mode & 07777) != spec->mode && fchmod (fd, spec->mode) < 0)
    set_errno_error (error, errno, "Cannot change the mode of", path);
  else
    ok = TRUE;
  close (fd);
  return ok;
}

static int
open_beneath_no_links (const char *path, GError **error)
{
  int fd = hpd_open_no_links (path, O_PATH | O_DIRECTORY);

  if (fd < 0)
    {
      int saved_errno = errno;

      g_set_error (error, HP_ERROR, HP_ERROR_NOT_MOUNTED,
                   "Cannot open %s without following links: %s", path, g_strerror (saved_errno));
      return -1;
    }
  return fd;
}

/* True when @path is one of our mount points: <base>/[global/|user/N/|group/N/]pagesize-S */
static gboolean
is_service_mount_point (const char *root, const char *path, char **relative_out)
{
  g_autofree char *base = g_build_filename (root, HPD_MOUNT_BASE, NULL);
  g_auto(GStrv) parts = NULL;
  const char *relative;
  guint n;

  if (!g_str_has_prefix (path, base) || path[strlen (base)] != '/')
    return FALSE;
  relative = path + strlen (base) + 1;
  parts = g_strsplit (relative, "/", -1);
  n = g_strv_length (parts);
  if (n == 0 || !g_str_has_prefix (parts[n - 1], "pagesize-"))
    return FALSE;
  if (!(n == 1 ||
        (n == 2 && g_str_equal (parts[0], "global")) ||
        (n == 3 && (g_str_equal (parts[0], "user") || g_str_equal (parts[0], "group")) &&
         hpd_mount_name_is_valid (parts[1]))))
    return FALSE;
  if (relative_out != NULL)
    *relative_out = g_strdup (relative);
  return TRUE;
}

gboolean
hpd_hugetlbfs_is_service_mount_point (const char *root, const char *path)
{
  return is_service_mount_point (root, path, NULL);
}

gboolean
hpd_hugetlbfs_unmount (const char *root, const char *path, GError **error)
{
  g_autofree char *relative = NULL;
  g_autofree char *target = NULL;
  g_autofree char *parent = g_path_get_dirname (path);
  g_autofree char *leaf = g_path_get_basename (path);
  struct statfs sfs;
  int fd, parent_fd, saved_errno;
  gboolean mount_root, hugetlbfs;

  parent_fd = open_beneath_no_links (parent, error);
  if (parent_fd < 0)
    return FALSE;
  fd = openat (parent_fd, leaf, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    {
      saved_errno = errno;
      close (parent_fd);
      g_set_error (error, HP_ERROR, HP_ERROR_NOT_MOUNTED, "Cannot open %s without following links: %s",
                   path, g_strerror (saved_errno));
      return FALSE;
    }

  mount_root = mount_id_of (fd) != mount_id_of (parent_fd);
  hugetlbfs = fstatfs (fd, &sfs) == 0 && sfs.f_type == HUGETLBFS_MAGIC;
  /* an fd on the mount would keep it busy */
  close (fd);
  if (!hugetlbfs || !mount_root)
    {
      close (parent_fd);
      g_set_error (error, HP_ERROR, HP_ERROR_NOT_MOUNTED, "%s is not a hugetlbfs mount", path);
      return FALSE;
    }

  /* Reach the mount point through the directory we opened, not through the
   * path, which could have changed by now; a mount point cannot be renamed. */
  target = g_strdup_printf ("/proc/self/fd/%d/%s", parent_fd, leaf);
  if (umount2 (target, UMOUNT_NOFOLLOW) < 0)
    {
      saved_errno = errno;
      close (parent_fd);
      g_set_error (error, HP_ERROR, saved_errno == EBUSY ? HP_ERROR_BUSY : HP_ERROR_FAILED,
                   "Cannot unmount %s: %s", path, g_strerror (saved_errno));
      return FALSE;
    }
  close (parent_fd);

  if (is_service_mount_point (root, path, &relative))
    {
      g_auto(Walk) walk = { NULL, };
      g_autofree char *dir = g_path_get_dirname (relative);
      g_autoptr(GError) local_error = NULL;

      g_auto(GStrv) parents = g_strsplit (dir, "/", -1);
      guint n = g_str_equal (dir, ".") ? 0 : g_strv_length (parents);

      if (!walk_to (&walk, root, n == 0 ? "" : dir, FALSE, &local_error) ||
          unlinkat (walk_last (&walk), leaf, AT_REMOVEDIR) < 0)
        {
          g_warning ("Unmounted %s but could not remove the directory: %s", path,
                     local_error ? local_error->message : g_strerror (errno));
          return TRUE;
        }

      /* user/NAME, user, group/NAME, group and global go with their last
       * mount, as mount-create makes them; the base stays. A directory
       * that still holds something ends it. */
      for (guint i = walk.fds->len - 1; n > 0; i--, n--)
        if (unlinkat (g_array_index (walk.fds, int, i - 1),
                      g_ptr_array_index (walk.names, i), AT_REMOVEDIR) < 0)
          break;
    }

  return TRUE;
}
