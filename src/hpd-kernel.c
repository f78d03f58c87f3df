/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "hpd-kernel.h"
#include "hpd-parse.h"

/* Longest counter file read in one go: 20 digits, a newline, and room to
 * tell a longer file (which is no counter) from one that fits. */
#define COUNTER_READ_MAX 64

struct _HpdKernel
{
  GObject parent_instance;
  char *root;
  GMutex fixed_lock;
  GHashTable *fixed;     /* relative path -> contents, of the kernel's own files */
};

G_DEFINE_TYPE (HpdKernel, hpd_kernel, G_TYPE_OBJECT)

static void
hpd_kernel_finalize (GObject *object)
{
  HpdKernel *self = HPD_KERNEL (object);

  g_free (self->root);
  g_hash_table_unref (self->fixed);
  g_mutex_clear (&self->fixed_lock);
  G_OBJECT_CLASS (hpd_kernel_parent_class)->finalize (object);
}

static void
hpd_kernel_class_init (HpdKernelClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = hpd_kernel_finalize;
}

static void
hpd_kernel_init (HpdKernel *self)
{
  g_mutex_init (&self->fixed_lock);
  self->fixed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

HpdKernel *
hpd_kernel_new (const char *root)
{
  HpdKernel *self = g_object_new (HPD_TYPE_KERNEL, NULL);

  self->root = g_strdup (root != NULL && *root != '\0' ? root : "/");
  return self;
}

const char *
hpd_kernel_get_root (HpdKernel *self)
{
  return self->root;
}

char *
hpd_kernel_path (HpdKernel *self, const char *relative)
{
  g_return_val_if_fail (relative != NULL && relative[0] != '/', NULL);
  return g_build_filename (self->root, relative, NULL);
}

/* hpd_kernel_path() is NULL for a path that is not relative (a bug, which
 * was a critical): an error, not open (NULL) */
static gboolean
path_is_below_root (const char *path, const char *relative, GError **error)
{
  if (path != NULL)
    return TRUE;
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
               "Not a path below the kernel root: %s", relative ? relative : "(null)");
  return FALSE;
}

gboolean
hpd_kernel_exists (HpdKernel *self, const char *relative)
{
  g_autofree char *path = hpd_kernel_path (self, relative);

  if (path == NULL)
    return FALSE;
  return g_file_test (path, G_FILE_TEST_EXISTS);
}

/* sysfs and procfs make a value when the file is read from offset 0, all
 * of it in one read() that has room for it: no fstat() and no second read()
 * to see the end, as g_file_get_contents() needs for a regular file. A
 * plain file of a fake tree that holds a counter fits as well, and a longer
 * one is no counter. */
static gboolean
read_counter_text (const char *path, char **contents, GError **error)
{
  char buffer[COUNTER_READ_MAX];
  ssize_t n;
  int fd, saved_errno;

  fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    {
      saved_errno = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   "Failed to open file “%s”: %s", path, g_strerror (saved_errno));
      return FALSE;
    }
  do
    n = read (fd, buffer, sizeof buffer);
  while (n < 0 && errno == EINTR);
  saved_errno = errno;
  close (fd);
  if (n < 0)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   "Failed to read from file “%s”: %s", path, g_strerror (saved_errno));
      return FALSE;
    }
  /* a full buffer is no counter: the parser refuses what it holds */
  *contents = g_strndup (buffer, (gsize) n);
  return TRUE;
}

/* Every read reads the file: no kernel file says when it changed
 * (hpd-fresh.h). */
static gboolean
read_file (HpdKernel *self, const char *relative, gboolean counter, char **contents,
           GError **error)
{
  g_autofree char *path = hpd_kernel_path (self, relative);

  if (!path_is_below_root (path, relative, error))
    return FALSE;
  if (counter)
    return read_counter_text (path, contents, error);
  return g_file_get_contents (path, contents, NULL, error);
}

/* sysfs and procfs: the running kernel's own files. */
static gboolean
is_kernel_file_system (const char *path)
{
  struct statfs fs;

  return statfs (path, &fs) == 0 &&
         ((unsigned long) fs.f_type == SYSFS_MAGIC || (unsigned long) fs.f_type == PROC_SUPER_MAGIC);
}

gboolean
hpd_kernel_read_text (HpdKernel *self, const char *relative, char **contents,
                      GError **error)
{
  return read_file (self, relative, FALSE, contents, error);
}

gboolean
hpd_kernel_read_fixed_at_boot (HpdKernel *self, const char *relative, char **contents,
                               GError **error)
{
  g_autofree char *path = hpd_kernel_path (self, relative);
  const char *kept;

  if (!path_is_below_root (path, relative, error))
    return FALSE;
  {
    G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->fixed_lock);

    kept = g_hash_table_lookup (self->fixed, relative);
    if (kept != NULL)
      {
        *contents = g_strdup (kept);
        return TRUE;
      }
  }
  /* a fake tree's file stands for another boot whenever a test writes it:
   * read it as any other (its changes are seen) */
  if (!is_kernel_file_system (path))
    return read_file (self, relative, FALSE, contents, error);
  if (!g_file_get_contents (path, contents, NULL, error))
    return FALSE;
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->fixed_lock);
  g_hash_table_replace (self->fixed, g_strdup (relative), g_strdup (*contents));
  return TRUE;
}

gboolean
hpd_kernel_read_link (HpdKernel *self, const char *relative, char **target,
                      GError **error)
{
  g_autofree char *path = hpd_kernel_path (self, relative);

  *target = g_file_read_link (path, error);
  return *target != NULL;
}

gboolean
hpd_kernel_read_counter (HpdKernel *self, const char *relative, guint64 *value,
                         GError **error)
{
  g_autofree char *text = NULL;
  g_autoptr(GError) local_error = NULL;

  /* sysfs never reads back empty, but under --kernel-root a plain file is
   * empty between another writer's O_TRUNC and its write: look again */
  for (guint attempt = 0; attempt < 3; attempt++)
    {
      g_clear_pointer (&text, g_free);
      if (!read_file (self, relative, TRUE, &text, error))
        return FALSE;
      if (*text != '\0')
        break;
      g_usleep (1000);
    }
  if (!hpd_parse_counter (text, value, &local_error))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "%s: %s", relative, local_error->message);
      return FALSE;
    }
  return TRUE;
}

static gboolean
write_once (HpdKernel *self, const char *relative, const char *buf, const char *shown,
            GError **error)
{
  g_autofree char *path = hpd_kernel_path (self, relative);
  size_t len = strlen (buf);
  ssize_t written;
  int fd, saved_errno;

  /* NULL for a path that is not relative (a bug, which was critical): an
   * error, not open (NULL) */
  if (path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "Not a path below the kernel root: %s", relative ? relative : "(null)");
      return FALSE;
    }

  /* O_TRUNC changes nothing on sysfs and procfs (a shell's `echo N >` uses
   * it too), but under --kernel-root the files are plain files, where a
   * shorter value must not leave the tail of a longer one behind. */
  fd = open (path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    {
      saved_errno = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   "Could not open %s: %s", path, g_strerror (saved_errno));
      return FALSE;
    }

  written = write (fd, buf, len);
  saved_errno = errno;
  close (fd);

  if (written < 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   "The kernel refused %s for %s: %s", shown, path, g_strerror (saved_errno));
      return FALSE;
    }
  if ((size_t) written != len)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   "The kernel took only %zd of %zu bytes written to %s", written, len, path);
      return FALSE;
    }
  return TRUE;
}

gboolean
hpd_kernel_write_counter (HpdKernel *self, const char *relative, guint64 value,
                          GError **error)
{
  char buf[32];
  char shown[32];

  g_snprintf (buf, sizeof buf, "%" G_GUINT64_FORMAT "\n", value);
  g_snprintf (shown, sizeof shown, "%" G_GUINT64_FORMAT, value);
  return write_once (self, relative, buf, shown, error);
}

gboolean
hpd_kernel_write_text (HpdKernel *self, const char *relative, const char *text,
                       GError **error)
{
  g_autofree char *buf = g_strconcat (text, "\n", NULL);
  g_autofree char *shown = g_strdup_printf ("'%s'", text);

  return write_once (self, relative, buf, shown, error);
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

GPtrArray *
hpd_kernel_list_dir (HpdKernel *self, const char *relative, GError **error)
{
  g_autofree char *path = hpd_kernel_path (self, relative);
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GPtrArray) names = NULL;
  const char *name;

  dir = g_dir_open (path, 0, error);
  if (dir == NULL)
    return NULL;

  names = g_ptr_array_new_with_free_func (g_free);
  while ((name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  return g_steal_pointer (&names);
}
