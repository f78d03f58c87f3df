/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hpd-config-cache.h"

/* What stat() said about one path. */
typedef struct {
  char *path;
  HpdStatState state;
} Seen;

struct _HpdConfigCache
{
  char *main_file;
  char *dirs[3];          /* vendor, admin, NULL: hpd_config_load's order */
  HpdConfig *config;      /* NULL until the first call */
  GArray *seen;           /* Seen: the main file, the directories, the drop-ins */
  gint64 settle_us;
  gboolean trusted;       /* every time in @seen had settled when it was taken */
  guint64 generation;
};

static void
seen_clear (gpointer data)
{
  g_free (((Seen *) data)->path);
}

HpdConfigCache *
hpd_config_cache_new (const char *root, gint64 settle_us)
{
  HpdConfigCache *self = g_new0 (HpdConfigCache, 1);

  self->settle_us = settle_us;
  self->main_file = g_build_filename (root, HPD_CONFIG_FILE, NULL);
  self->dirs[0] = g_build_filename (root, HPD_CONFIG_VENDOR_DIR, NULL);
  self->dirs[1] = g_build_filename (root, HPD_CONFIG_ADMIN_DIR, NULL);
  self->seen = g_array_new (FALSE, TRUE, sizeof (Seen));
  g_array_set_clear_func (self->seen, seen_clear);
  return self;
}

void
hpd_config_cache_free (HpdConfigCache *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->config, hpd_config_free);
  g_array_unref (self->seen);
  g_free (self->dirs[0]);
  g_free (self->dirs[1]);
  g_free (self->main_file);
  g_free (self);
}

static void
add (HpdConfigCache *self, const char *path, gint64 taken_at)
{
  Seen seen;

  hpd_stat_state_take (path, &seen.state);
  seen.path = g_strdup (path);
  if (!hpd_stat_state_settled (&seen.state, taken_at, self->settle_us))
    self->trusted = FALSE;
  g_array_append_val (self->seen, seen);
}

/* Everything the files' contents depend on, taken before they are read: a
 * change after this point shows as a difference next time. The drop-ins
 * are every name hpd_config_load would take (masked or not, whatever the
 * type: a directory named x.conf is an error line). */
static void
take_state (HpdConfigCache *self)
{
  gint64 now = g_get_real_time ();

  g_array_set_size (self->seen, 0);
  self->trusted = TRUE;
  add (self, self->main_file, now);
  for (guint i = 0; self->dirs[i] != NULL; i++)
    {
      g_autoptr(GDir) dir = NULL;
      const char *name;

      add (self, self->dirs[i], now);
      dir = g_dir_open (self->dirs[i], 0, NULL);
      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *path = NULL;

          if (name[0] == '.' || !g_str_has_suffix (name, ".conf"))
            continue;
          path = g_build_filename (self->dirs[i], name, NULL);
          add (self, path, now);
        }
    }
}

static gboolean
unchanged (HpdConfigCache *self)
{
  if (self->config == NULL || !self->trusted)
    return FALSE;
  for (guint i = 0; i < self->seen->len; i++)
    {
      const Seen *before = &g_array_index (self->seen, Seen, i);
      HpdStatState now;

      hpd_stat_state_take (before->path, &now);
      if (!hpd_stat_state_equal (&before->state, &now))
        return FALSE;
    }
  return TRUE;
}

const HpdConfig *
hpd_config_cache_get (HpdConfigCache *self, guint64 *generation)
{
  if (!unchanged (self))
    {
      const char *const dirs[] = { self->dirs[0], self->dirs[1], NULL };

      take_state (self);
      g_clear_pointer (&self->config, hpd_config_free);
      self->config = hpd_config_load (self->main_file, dirs);
      self->generation++;
      g_debug ("Read the configuration (%u file(s) and directories looked at, %s)",
               self->seen->len, self->trusted ? "kept until they change"
                                              : "changed too recently to be kept");
    }
  if (generation != NULL)
    *generation = self->generation;
  return self->config;
}

guint64
hpd_config_cache_get_loads (HpdConfigCache *self)
{
  return self->generation;
}

GArray *
hpd_config_cache_dup_paths (HpdConfigCache *self)
{
  GArray *paths;

  if (self->config == NULL || !self->trusted)
    return NULL;
  paths = hpd_stat_paths_new ();
  for (guint i = 0; i < self->seen->len; i++)
    {
      const Seen *seen = &g_array_index (self->seen, Seen, i);

      hpd_stat_paths_add (paths, seen->path, &seen->state);
    }
  return paths;
}
