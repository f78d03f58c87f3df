/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* One huge page pool: what the kernel offers for a page size, its counters,
 * the arithmetic of hugeadm's pool-pages-min/max, and the write sequence
 * that applies a target and reports what the kernel really did. */
#pragma once

#include <gio/gio.h>

#include "hpd-kernel.h"

G_BEGIN_DECLS

typedef struct {
  guint node;
  guint64 total;    /* includes surplus */
  guint64 free;
  guint64 surplus;
} HpdNodeCounters;

typedef struct {
  guint64 total;    /* nr_hugepages: includes surplus */
  guint64 free;
  guint64 reserved;
  guint64 surplus;
  guint64 overcommit;
  GArray *nodes;    /* HpdNodeCounters, ascending node */
} HpdPoolCounters;

/* Static facts about a page size, probed once at start-up. */
typedef struct {
  guint64 size;           /* bytes */
  char *name;             /* "2MB" */
  char *dir;              /* "sys/kernel/mm/hugepages/hugepages-2048kB" */
  char *kb_name;          /* "hugepages-2048kB" */
  gboolean is_default;
  gboolean gigantic;
  gboolean can_overcommit;
  guint64 demote_size;    /* bytes, 0 if none */
  GArray *nodes;          /* guint: nodes with a per-node directory */
} HpdPool;

void hpd_pool_free (HpdPool *pool);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HpdPool, hpd_pool_free)

void hpd_pool_counters_clear (HpdPoolCounters *counters);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (HpdPoolCounters, hpd_pool_counters_clear)

/* Derived values as hugeadm --pool-list shows them. */
guint64 hpd_pool_counters_minimum (const HpdPoolCounters *c);
guint64 hpd_pool_counters_maximum (const HpdPoolCounters *c);
/* A node's persistent pages (total − surplus, never below 0); 0 for NULL,
 * a node the pool does not have. */
guint64 hpd_node_counters_minimum (const HpdNodeCounters *n);
/* What a change of the minimum achieved: the Minimum read back, plus the
 * pages a shrink could not free because they are in use (the kernel keeps
 * them as new surplus pages and frees them when they are released). */
guint64 hpd_pool_counters_kept (const HpdPoolCounters *before,
                                const HpdPoolCounters *after);
const HpdNodeCounters *hpd_pool_counters_node (const HpdPoolCounters *c, guint node);

/* All pools the kernel offers, ascending by size. */
GPtrArray *hpd_pools_probe (HpdKernel *kernel, GArray *nodes, GError **error);

/* NUMA nodes with memory that the kernel lists as online; empty without NUMA. */
GArray *hpd_nodes_probe (HpdKernel *kernel);

gboolean hpd_pool_read (HpdKernel *kernel, const HpdPool *pool,
                        HpdPoolCounters *counters, GError **error);
/* Only the pages the pool holds, surplus included (nr_hugepages): one
 * read instead of every counter of the pool and of its nodes. */
gboolean hpd_pool_read_total (HpdKernel *kernel, const HpdPool *pool, guint64 *total,
                              GError **error);
gboolean hpd_pool_has_node (const HpdPool *pool, guint node);

/* Paths below the kernel root of one of the pool's files, globally and on
 * one node ("nr_hugepages", ...). */
char *hpd_pool_file (const HpdPool *pool, const char *file);
char *hpd_pool_node_file (const HpdPool *pool, guint node, const char *file);

/* The targets of a change: the persistent pool and the overall ceiling. */
typedef struct {
  guint64 minimum;
  guint64 maximum;
} HpdPoolTarget;

/* hugeadm --pool-pages-min: Maximum is kept, raised to @pages if lower. */
HpdPoolTarget hpd_pool_target_for_minimum (const HpdPoolCounters *now,
                                           gboolean can_overcommit,
                                           guint64 pages);
/* hugeadm --pool-pages-max: a Maximum below Minimum shrinks the pool. */
HpdPoolTarget hpd_pool_target_for_maximum (const HpdPoolCounters *now,
                                           guint64 pages);

/* Worker thread: how far an allocation got. @phase is "allocating",
 * "compacting", "dropping-caches" or "node N". Called often; the receiver
 * rate-limits what it passes on. */
typedef void (*HpdAllocProgress) (guint64 achieved, guint64 target,
                                  const char *phase, gpointer user_data);

/* What one run of the allocation engine did (the LastAllocation property):
 * filled in by the engine when it ran to its end. */
typedef struct {
  gboolean done;
  gint64 ended_usec;      /* CLOCK_REALTIME */
  gint64 duration_usec;
  guint64 requested;      /* persistent pages asked of the pool, or of the node */
  guint64 achieved;       /* persistent pages read back after the last write */
  gboolean on_node;       /* SetNodePages and node claims: @node only */
  guint node;
  gboolean hard;
  guint writes;           /* writes of nr_hugepages it took */
} HpdAllocReport;

/* Where reports are kept: hpd-last-alloc.h. */
typedef struct _HpdLastAlloc HpdLastAlloc;

/* How hard an allocation tries; the engine is in hpd-alloc.c. */
typedef struct {
  gboolean hard;          /* compact and retry while tries make progress */
  guint timeout_ms;       /* bound on all the retrying together */
  gboolean drop_caches;   /* with hard: once, when retries stall */
  HpdAllocProgress progress;   /* may be NULL */
  gpointer progress_data;
  HpdAllocReport *report;      /* may be NULL */
  HpdLastAlloc *last_alloc;    /* where @report is recorded, may be NULL */
} HpdAllocOptions;

/* Writes @target (overcommit first when it grows, then the persistent pool,
 * retrying with compaction if @options->hard, then the overcommit that keeps
 * the requested Maximum) and returns the pool as re-read afterwards.
 * @before is the pool as the caller just read it, in the thread that
 * makes every change (read once: a second read a moment later would see
 * the same, as nobody else in the service writes in between). */
gboolean hpd_pool_apply (HpdKernel *kernel, const HpdPool *pool,
                         const HpdPoolCounters *before, const HpdPoolTarget *target,
                         const HpdAllocOptions *options,
                         GCancellable *cancellable,
                         HpdPoolCounters *after, GError **error);

/* Sets the persistent pool on one node only; returns the node's minimum. */
gboolean hpd_pool_apply_node (HpdKernel *kernel, const HpdPool *pool,
                              guint node, guint64 pages,
                              const HpdAllocOptions *options,
                              GCancellable *cancellable,
                              guint64 *achieved, GError **error);

/* Splits up to @pages free pages into pages of pool->demote_size. */
gboolean hpd_pool_demote (HpdKernel *kernel, const HpdPool *pool,
                          guint64 pages, guint64 *demoted, GError **error);

G_END_DECLS
