#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "hpd-kernel.h"
#include "hpd-parse.h"

struct _HpdKernel
{
  GObject parent_instance;
  char *root;
};

G_DEFINE_TYPE (HpdKernel, hpd_kernel, G_TYPE_OBJECT)

static void
hpd_kernel_finalize (GObject *object)
{
  HpdKernel *self = HPD_KERNEL (object);

  g_free (self->root);
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

gboolean
hpd_kernel_exists (HpdKernel *self, const char *relative)
{
  g_autofree char *path = hpd_kernel_path (self, relative);

  return g_file_test (path, G_FILE_TEST_EXISTS);
}

gboolean
hpd_kernel_read_text (HpdKernel *self, const char *relative, char **contents,
                      GError **error)
{
  g_autofree char *path = hpd_kernel_path (self, relative);

  return g_file_get_contents (path, contents, NULL, error);
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
      if (!hpd_kernel_read_text (self, relative, &text, error))
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
  return g_strcmp0 (*(char * const *) a, *(char * const *) b);
}

GPtrArray *
hpd_kernel_list_dir (HpdKernel *self, const char *relative, GError **error)
{
  g_autofree char *path = hpd_kernel_path (self, relative);
  g_autoptr(GDir) dir = g_dir_open (path, 0, error);
  g_autoptr(GPtrArray) names = NULL;
  const char *name;

  if (dir == NULL)
    return NULL;

  names = g_ptr_array_new_with_free_func (g_free);
  while ((name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  return g_steal_pointer (&names);
}
