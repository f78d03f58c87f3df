/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Reading the configuration files: the main file, then the drop-ins of
 * every directory ordered by name, as sysctl.d does. Only the file system
 * part; the text goes to hpd_config_parse_text. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "hpd-config.h"
#include "hpd-parse.h"

typedef enum {
  READ_OK,
  READ_MISSING,
  READ_MASKED,
  READ_FAILED,
} ReadResult;

static gboolean
is_dev_null (const struct stat *st)
{
  return S_ISCHR (st->st_mode) && st->st_rdev == makedev (1, 3);
}

/* Regular files only (never block on a FIFO or read a device forever), at
 * most HPD_CONFIG_MAX_FILE bytes. */
static ReadResult
read_file (const char *path, GByteArray **contents, GError **error)
{
  g_autoptr(GByteArray) bytes = NULL;
  struct stat st;
  int fd;

  fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    {
      int e = errno;
      if (e == ENOENT)
        return READ_MISSING;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "%s", g_strerror (e));
      return READ_FAILED;
    }
  if (fstat (fd, &st) < 0)
    {
      int e = errno;
      close (fd);
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "%s", g_strerror (e));
      return READ_FAILED;
    }
  if (!S_ISREG (st.st_mode))
    {
      gboolean masked = is_dev_null (&st);
      close (fd);
      if (masked)
        return READ_MASKED;
      g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "not a regular file");
      return READ_FAILED;
    }

  bytes = g_byte_array_new ();
  for (;;)
    {
      guint8 buffer[65536];
      gssize n = read (fd, buffer, sizeof buffer);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int e = errno;
          close (fd);
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "%s", g_strerror (e));
          return READ_FAILED;
        }
      if (n == 0)
        break;
      if (bytes->len + (gsize) n > HPD_CONFIG_MAX_FILE)
        {
          close (fd);
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                       "larger than %u bytes", HPD_CONFIG_MAX_FILE);
          return READ_FAILED;
        }
      g_byte_array_append (bytes, buffer, (guint) n);
    }
  close (fd);
  *contents = g_steal_pointer (&bytes);
  return READ_OK;
}

static void
load_file (HpdConfig *config, const char *path, gboolean missing_is_error)
{
  g_autoptr(GByteArray) contents = NULL;
  g_autoptr(GError) error = NULL;
  /* messages go onto the bus, which takes UTF-8 only */
  g_autofree char *shown = hpd_parse_printable (path);

  switch (read_file (path, &contents, &error))
    {
    case READ_OK:
      hpd_config_parse_text (path, (const char *) contents->data, contents->len, config);
      break;
    case READ_MISSING:
      /* a drop-in that went away since the directory was listed */
      if (missing_is_error)
        g_ptr_array_add (config->errors, g_strdup_printf ("%s: no such file", shown));
      break;
    case READ_MASKED:
      break;
    case READ_FAILED:
      g_ptr_array_add (config->errors, g_strdup_printf ("%s: cannot read: %s", shown, error->message));
      break;
    default:
      g_assert_not_reached ();
    }
}

static int
compare_names (const void *a, const void *b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static gboolean
is_dropin_name (const char *name)
{
  return name[0] != '.' && g_str_has_suffix (name, ".conf") && strlen (name) > strlen (".conf");
}

HpdConfig *
hpd_config_load (const char *main_file, const char *const *dropin_dirs)
{
  HpdConfig *config = hpd_config_new ();
  /* file name -> path in the last directory that has it */
  g_autoptr(GHashTable) dropins = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autofree gpointer *names = NULL;
  guint n_names;

  if (main_file != NULL)
    load_file (config, main_file, FALSE);

  for (guint i = 0; dropin_dirs != NULL && dropin_dirs[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GDir) dir = g_dir_open (dropin_dirs[i], 0, &error);
      const char *name;

      if (dir == NULL)
        {
          if (!g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
            {
              g_autofree char *shown = hpd_parse_printable (dropin_dirs[i]);

              g_ptr_array_add (config->errors, g_strdup_printf ("%s: cannot read: %s",
                                                                shown, error->message));
            }
          continue;
        }
      while ((name = g_dir_read_name (dir)) != NULL)
        if (is_dropin_name (name))
          g_hash_table_replace (dropins, g_strdup (name),
                                g_build_filename (dropin_dirs[i], name, NULL));
    }

  names = g_hash_table_get_keys_as_array (dropins, &n_names);
  qsort (names, n_names, sizeof *names, compare_names);
  for (guint i = 0; i < n_names; i++)
    load_file (config, g_hash_table_lookup (dropins, names[i]), TRUE);

  return config;
}


HpdConfig *
hpd_config_load_root (const char *root)
{
  g_autofree char *main_file = g_build_filename (root, HPD_CONFIG_FILE, NULL);
  g_autofree char *vendor = g_build_filename (root, HPD_CONFIG_VENDOR_DIR, NULL);
  g_autofree char *admin = g_build_filename (root, HPD_CONFIG_ADMIN_DIR, NULL);
  const char *const dirs[] = { vendor, admin, NULL };

  return hpd_config_load (main_file, dirs);
}
