/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* What stat() said about a path, for caches that trust a file's contents
 * while it stays the same: the configuration's (hpd-config-cache.h) and the
 * claims' (hpd-claims.h). Why these fields and why a state must settle
 * first: hpd-config-cache.h. And the one rule of which directories the
 * service trusts: those only root may change. */
#pragma once

#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  int error;              /* errno of stat(), 0 if it succeeded */
  dev_t dev;
  ino_t ino;
  mode_t mode;
  off_t size;
  struct timespec mtime;
  struct timespec ctime;
} HpdStatState;

void hpd_stat_state_take (const char *path, HpdStatState *state);
gboolean hpd_stat_state_equal (const HpdStatState *a, const HpdStatState *b);
/* Every time in @state is older than @settle_us before @taken_at (the
 * real time it was taken), or the path was not there. */
gboolean hpd_stat_state_settled (const HpdStatState *state, gint64 taken_at,
                                 gint64 settle_us);

/* A path and what stat() said of it: for a reader in another thread that
 * wants to know whether a cache would still trust its contents. */
typedef struct {
  char *path;
  gboolean link;          /* taken with lstat() */
  HpdStatState state;
} HpdStatPath;

/* An array of HpdStatPath that frees the paths. */
GArray *hpd_stat_paths_new (void);
void hpd_stat_paths_add (GArray *paths, const char *path, const HpdStatState *state);
/* Takes @path's state now (with lstat() if @link) and adds it. */
void hpd_stat_paths_take (GArray *paths, const char *path, gboolean link);
/* hpd_stat_state_settled() for every path. */
gboolean hpd_stat_paths_settled (GArray *paths, gint64 taken_at, gint64 settle_us);
/* A stat() (lstat() for a link) now gives what @path holds. */
gboolean hpd_stat_path_unchanged (const HpdStatPath *path);
/* stat() of every path gives what it gave. */
gboolean hpd_stat_paths_unchanged (GArray *paths);

/* Only root may change what @st describes: root owns it and neither its
 * group nor others may write to it. The service trusts a directory on the
 * way to what it builds, watches or explains only then: a directory
 * another account may write to lets that account swap an entry (a
 * component of the path, for a link) at any time. */
gboolean hpd_stat_only_root_writes (const struct stat *st);

G_END_DECLS
