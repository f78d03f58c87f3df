/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "hp-error.h"
#include "hp-files.h"
#include "hpd-boot-hook.h"
#include "hpd-persist.h"

static const char header[] =
  "# Written by hugepagesd for changes made with the `persist` option.\n"
  "# The service rewrites this file whole; edit other drop-ins instead.\n"
  "# Drop-ins sorted after " HPD_PERSIST_FILE_NAME " override it.\n\n";

char *
hpd_persist_path (const char *root)
{
  return g_build_filename (root, HPD_CONFIG_ADMIN_DIR, HPD_PERSIST_FILE_NAME, NULL);
}

static gboolean
write_atomically (const char *path, const char *text, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr(GError) local_error = NULL;

  if (hp_mkdir_with_parents (dir, 0755) < 0)
    {
      int e = errno;
      g_set_error (error, HP_ERROR, HP_ERROR_FAILED,
                   "Applied, but not saved for the next boot: cannot create %s: %s",
                   dir, g_strerror (e));
      return FALSE;
    }
  if (!hp_file_set_contents (path, text, -1,
                             G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                             0644, &local_error))
    {
      g_set_error (error, HP_ERROR, HP_ERROR_FAILED,
                   "Applied, but not saved for the next boot: %s", local_error->message);
      return FALSE;
    }
  return TRUE;
}

/* Saved, but nothing may read it at boot: the log says so, as a notice
 * (the machine's state, not the service's fault; clients warn from
 * ApplyAtBoot). */
static void
warn_unless_applied_at_boot (const char *root, const char *path)
{
  g_auto(HpdBootHook) hook = { 0, };

  hpd_boot_hook_read_root (root, &hook);
  if (!hook.enabled)
    g_message ("Saved in %s, but %s (fix: %s)", path, hook.message, hook.fix);
}

gboolean
hpd_persist (const char *root, HpdPersistEdit edit, gpointer data, GError **error)
{
  g_autofree char *path = hpd_persist_path (root);
  g_autoptr(HpdConfig) own = hpd_config_new ();
  g_autoptr(HpdConfig) expected = hpd_config_load_root (root);
  g_autoptr(HpdConfig) after = NULL;
  g_autoptr(GError) read_error = NULL;
  g_autofree char *old_text = NULL;
  g_autofree char *body = NULL;
  g_autofree char *text = NULL;
  gsize old_length = 0;

  /* A file that exists but cannot be read must not be replaced by one
   * without its settings. */
  if (g_file_get_contents (path, &old_text, &old_length, &read_error))
    hpd_config_parse_text (path, old_text, old_length, own);
  else if (!g_error_matches (read_error, G_FILE_ERROR, G_FILE_ERROR_NOENT) &&
           !g_error_matches (read_error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR))
    {
      g_set_error (error, HP_ERROR, HP_ERROR_FAILED,
                   "Applied, but not saved for the next boot: %s", read_error->message);
      return FALSE;
    }

  /* A line someone added by hand that does not parse is dropped by the
   * rewrite; say so in the log rather than keep it. */
  for (guint i = 0; i < own->errors->len; i++)
    g_warning ("Dropping from %s: %s", path, (const char *) g_ptr_array_index (own->errors, i));

  if (!edit (own, data, error) || !edit (expected, data, error))
    return FALSE;

  body = hpd_config_to_text (own);
  text = g_strconcat (header, body, NULL);
  if (!write_atomically (path, text, error))
    return FALSE;

  after = hpd_config_load_root (root);
  if (!hpd_config_equal (after, expected))
    {
      g_set_error (error, HP_ERROR, HP_ERROR_FAILED,
                   "Applied and saved in %s, but another configuration file overrides it "
                   "(a later drop-in, or node counts that decide the pool): ConfiguredState "
                   "shows which setting wins at boot", path);
      return FALSE;
    }
  warn_unless_applied_at_boot (root, path);
  return TRUE;
}

gboolean
hpd_persist_merge (HpdConfig *config, const char *snippet, GError **error)
{
  guint errors = config->errors->len;

  hpd_config_parse_text ("(change)", snippet, -1, config);
  /* the callers build the text from checked values: an error is a bug */
  if (config->errors->len != errors)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_FAILED, "Cannot save the change: %s",
                   (const char *) g_ptr_array_index (config->errors, errors));
      return FALSE;
    }
  return TRUE;
}

static gboolean
merge_text (HpdConfig *config, gpointer data, GError **error)
{
  return hpd_persist_merge (config, data, error);
}

gboolean
hpd_persist_text (const char *root, const char *snippet, GError **error)
{
  return hpd_persist (root, merge_text, (gpointer) snippet, error);
}

/* g_file_set_contents_full's temporary files are NAME.XXXXXX */
static gboolean
is_stale_temporary (const char *name)
{
  gsize prefix = strlen (HPD_PERSIST_FILE_NAME);

  return strncmp (name, HPD_PERSIST_FILE_NAME ".", prefix + 1) == 0 &&
         strlen (name) == prefix + 7;
}

void
hpd_persist_remove_stale (const char *root)
{
  g_autofree char *dir_path = g_build_filename (root, HPD_CONFIG_ADMIN_DIR, NULL);
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, NULL);
  const char *name;

  if (dir == NULL)
    return;
  while ((name = g_dir_read_name (dir)) != NULL)
    if (is_stale_temporary (name))
      {
        g_autofree char *path = g_build_filename (dir_path, name, NULL);
        if (unlink (path) == 0)
          g_message ("Removed %s, left by an interrupted write", path);
      }
}
