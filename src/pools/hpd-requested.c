/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <errno.h>

#include "hpd-requested.h"

#define GROUP "minimum"

static GKeyFile *
load (const char *path)
{
  GKeyFile *file = g_key_file_new ();
  g_autoptr(GError) error = NULL;

  if (!g_key_file_load_from_file (file, path, G_KEY_FILE_NONE, &error) &&
      !g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    g_debug ("Ignoring %s: %s", path, error->message);
  return file;
}

void
hpd_requested_note (const char *root, const char *pool_name, guint64 pages)
{
  g_autofree char *path = g_build_filename (root, HPD_REQUESTED_FILE, NULL);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr(GKeyFile) file = load (path);
  g_autoptr(GError) error = NULL;

  g_key_file_set_uint64 (file, GROUP, pool_name, pages);
  if (g_mkdir_with_parents (dir, 0755) < 0)
    {
      int e = errno;
      g_warning ("Cannot create %s: %s", dir, g_strerror (e));
    }
  else if (!g_key_file_save_to_file (file, path, &error))
    g_warning ("Cannot remember the requested %s pool: %s", pool_name, error->message);
}

guint64
hpd_requested_get (const char *root, const char *pool_name)
{
  g_autofree char *path = g_build_filename (root, HPD_REQUESTED_FILE, NULL);
  g_autoptr(GKeyFile) file = load (path);

  return g_key_file_get_uint64 (file, GROUP, pool_name, NULL);
}

gboolean
hpd_requested_lookup (const char *root, const char *pool_name, guint64 *pages)
{
  g_autofree char *path = g_build_filename (root, HPD_REQUESTED_FILE, NULL);
  g_autoptr(GKeyFile) file = load (path);
  g_autoptr(GError) error = NULL;

  *pages = g_key_file_get_uint64 (file, GROUP, pool_name, &error);
  return error == NULL;
}
