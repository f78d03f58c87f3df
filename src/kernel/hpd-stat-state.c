/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "hpd-stat-state.h"

void
hpd_stat_state_take (const char *path, HpdStatState *state)
{
  struct stat st;

  memset (state, 0, sizeof *state);
  if (stat (path, &st) < 0)
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
