/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "hpd-stat-state.h"

static void
take (const char *path, gboolean link, HpdStatState *state)
{
  struct stat st;

  memset (state, 0, sizeof *state);
  if ((link ? lstat (path, &st) : stat (path, &st)) < 0)
    {
      state->error = errno;
      return;
    }
  state->dev = st.st_dev;
  state->ino = st.st_ino;
  state->mode = st.st_mode;
  state->size = st.st_size;
  state->mtime = st.st_mtim;
  state->ctime = st.st_ctim;
}

void
hpd_stat_state_take (const char *path, HpdStatState *state)
{
  take (path, FALSE, state);
}

gboolean
hpd_stat_state_equal (const HpdStatState *a, const HpdStatState *b)
{
  return a->error == b->error && a->dev == b->dev && a->ino == b->ino &&
         a->mode == b->mode && a->size == b->size &&
         a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec &&
         a->ctime.tv_sec == b->ctime.tv_sec && a->ctime.tv_nsec == b->ctime.tv_nsec;
}

static gint64
usec (const struct timespec *t)
{
  return (gint64) t->tv_sec * G_USEC_PER_SEC + t->tv_nsec / 1000;
}

gboolean
hpd_stat_state_settled (const HpdStatState *state, gint64 taken_at, gint64 settle_us)
{
  return state->error != 0 ||
         (usec (&state->mtime) < taken_at - settle_us &&
          usec (&state->ctime) < taken_at - settle_us);
}

static void
stat_path_clear (gpointer data)
{
  g_free (((HpdStatPath *) data)->path);
}

GArray *
hpd_stat_paths_new (void)
{
  GArray *paths = g_array_new (FALSE, FALSE, sizeof (HpdStatPath));

  g_array_set_clear_func (paths, stat_path_clear);
  return paths;
}

void
hpd_stat_paths_add (GArray *paths, const char *path, const HpdStatState *state)
{
  HpdStatPath p = { .path = g_strdup (path), .state = *state };

  g_array_append_val (paths, p);
}

void
hpd_stat_paths_take (GArray *paths, const char *path, gboolean link)
{
  HpdStatPath p = { .path = g_strdup (path), .link = link };

  take (path, link, &p.state);
  g_array_append_val (paths, p);
}

gboolean
hpd_stat_paths_settled (GArray *paths, gint64 taken_at, gint64 settle_us)
{
  for (guint i = 0; i < paths->len; i++)
    if (!hpd_stat_state_settled (&g_array_index (paths, HpdStatPath, i).state, taken_at, settle_us))
      return FALSE;
  return TRUE;
}

gboolean
hpd_stat_path_unchanged (const HpdStatPath *path)
{
  HpdStatState now;

  take (path->path, path->link, &now);
  return hpd_stat_state_equal (&path->state, &now);
}

gboolean
hpd_stat_paths_unchanged (GArray *paths)
{
  for (guint i = 0; i < paths->len; i++)
    if (!hpd_stat_path_unchanged (&g_array_index (paths, HpdStatPath, i)))
      return FALSE;
  return TRUE;
}

gboolean
hpd_stat_only_root_writes (const struct stat *st)
{
  return st->st_uid == 0 && (st->st_mode & (S_IWGRP | S_IWOTH)) == 0;
}
