/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Shared by the files of hugeadm's compatibility (hpctl-hugeadm*.c)
 * only: a parsed hugeadm command line and the steps that run it. */

#pragma once

#include <glib.h>

#include "hpctl.h"

G_BEGIN_DECLS

typedef int (*CommandFunc) (HpctlContext *ctx, GStrv args);

/* a SIZE:AMOUNT of --pool-pages-min or --pool-pages-max */
typedef struct {
  char *size;
  char *amount;
} PoolSpec;

typedef struct {
  int verbosity;
  gboolean dry_run, hard;
  gboolean list_mounts, pool_list, page_sizes, page_sizes_all, explain;
  gboolean create_mounts, create_global_mounts;
  char *user_mounts, *group_mounts;
  char *max_size, *max_inodes;
  const char *zone_movable;  /* "on", "off" or NULL: the last one given */
  gboolean thp_always, thp_madvise, thp_never;
  char *khugepaged_pages, *khugepaged_scan_sleep, *khugepaged_alloc_sleep;
  gboolean min_free_kbytes, shmmax;
  char *shm_group;
  GPtrArray *pool_min, *pool_max;  /* PoolSpec, in command-line order */
  guint operations;
} Request;

void request_clear (Request *r);

char *usage_name (GStrv args);

int parse_request (HpctlContext *ctx, GStrv args, Request *r);

void disconnect (HpctlContext *ctx);

int run_command (HpctlContext *ctx, const Request *r, CommandFunc func, GPtrArray *argv);

GPtrArray *command_line (const char *first, ...);

gboolean connect_for_listing (HpctlContext *ctx);

int list_all_mounts (HpctlContext *ctx);

int list_page_sizes (HpctlContext *ctx, gboolean all);

int explain (HpctlContext *ctx, const Request *r);

/* hugeadm's verbosity levels: 2 (warnings) unless -v or --verbose */
#define VERBOSITY_DEFAULT 2
#define VERBOSITY_INFO 3
#define VERBOSITY_MAX 99

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Request, request_clear)

/* parse_request ()'s answer when the request is to be run; exit statuses
 * are 0 and above */
#define RUN_REQUEST (-1)

G_END_DECLS
