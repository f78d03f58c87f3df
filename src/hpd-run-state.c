/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <errno.h>

#include "hpd-run-state.h"

GKeyFile *
hpd_run_state_load (const char *root, const char *relative)
{
  g_autofree char *path = g_build_filename (root, relative, NULL);
  GKeyFile *file = g_key_file_new ();
  g_autoptr(GError) error = NULL;

  if (!g_key_file_load_from_file (file, path, G_KEY_FILE_NONE, &error) &&
      !g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    g_debug ("Ignoring %s: %s", path, error->message);
  return file;
}

void
hpd_run_state_save (const char *root, const char *relative, GKeyFile *file, const char *what)
{
  g_autofree char *path = g_build_filename (root, relative, NULL);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  gsize length;

  if (g_mkdir_with_parents (dir, 0755) < 0)
    {
      int e = errno;
      g_warning ("Cannot create %s: %s", dir, g_strerror (e));
      return;
    }
  text = g_key_file_to_data (file, &length, NULL);
  if (!g_file_set_contents_full (path, text, (gssize) length, G_FILE_SET_CONTENTS_CONSISTENT,
                                 0644, &error))
    g_warning ("Cannot remember %s: %s", what, error->message);
}
