/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The allocation engine behind SetMinimum and SetNodePages: write the
 * target, and with "hard" compact memory and try again while tries make
 * progress, drop clean caches once when they stall (only if asked), and
 * for a global target take the rest node by node. It never hides a
 * shortfall: the caller re-reads what the kernel gave. */
#pragma once

#include <gio/gio.h>

#include "hpd-kernel.h"
#include "hpd-pool.h"

G_BEGIN_DECLS

/* The "timeout-ms" option of every call that allocates: its default and
 * its bound. */
#define HPD_ALLOC_DEFAULT_TIMEOUT_MS 30000
#define HPD_ALLOC_MAX_TIMEOUT_MS 600000

/* The checks of "hard", "timeout-ms" and "drop-caches" as a caller gave
 * them, shared by every method that allocates: InvalidArgs if they do not
 * go together. */
gboolean hpd_alloc_check_options (gboolean hard, guint timeout_ms, gboolean drop_caches,
                                  GError **error);

/* Tries in a row that gained nothing after which retrying has stalled. */
#define HPD_ALLOC_MAX_FRUITLESS_TRIES 2

/* What the engine does next. The decisions are pure so they can be tested
 * without a kernel. */
typedef enum {
  HPD_ALLOC_STEP_DONE,
  HPD_ALLOC_STEP_RETRY,         /* compact, then write the target again */
  HPD_ALLOC_STEP_DROP_CACHES,   /* once, then retry */
  HPD_ALLOC_STEP_NEXT_NODE,     /* global target: take the rest from the next node */
} HpdAllocStep;

typedef struct {
  guint64 target;
  guint64 best;              /* most pages any try achieved */
  guint fruitless;           /* tries in a row that gained nothing */
  gboolean hard;
  gboolean may_drop_caches;
  gboolean caches_dropped;
  guint fallback_nodes_left; /* nodes a global target may still turn to */
} HpdAllocState;

void hpd_alloc_state_init (HpdAllocState *state, guint64 target, guint64 first_try,
                           const HpdAllocOptions *options, guint fallback_nodes);
/* Records what a retry achieved. */
void hpd_alloc_state_record (HpdAllocState *state, guint64 achieved);
HpdAllocStep hpd_alloc_state_next (const HpdAllocState *state, gboolean time_left);
/* The engine took @step: account for it (a dropped cache or a new node
 * starts a fresh series of tries). */
void hpd_alloc_state_took (HpdAllocState *state, HpdAllocStep step);

/* The order in which a global target falls back to nodes: most free
 * memory first, leaving out nodes without room for one page of
 * @page_size. @free_kb[i] is node @nodes[i]'s MemFree; G_MAXUINT64 where
 * unknown, and then the nodes keep their ascending order and none is left
 * out. Returns guint node numbers. */
GArray *hpd_alloc_fallback_order (const guint *nodes, const guint64 *free_kb, guint n_nodes,
                                  guint64 page_size);

/* Rate limit of progress reports: the first passes, then at most one per
 * @interval_us. The final report is the caller's and always sent. */
typedef struct {
  gint64 interval_us;
  gint64 last_us;
  gboolean started;
} HpdAllocThrottle;

#define HPD_ALLOC_PROGRESS_INTERVAL_US (100 * 1000)
/* A change that ends within this time sends no progress at all: its reply
 * comes about as soon, and the signals' way through the main thread and
 * the bus, while the kernel allocates on this machine's few CPUs, made a
 * quick allocation half as slow again. */
#define HPD_ALLOC_PROGRESS_GRACE_MS 100

gboolean hpd_alloc_throttle_pass (HpdAllocThrottle *throttle, gint64 now_us);

/* @report as the LastAllocation property shows it (a{sv}, empty before the
 * first allocation). */
GVariant *hpd_alloc_report_to_variant (const HpdAllocReport *report);

/* Raises the pool's persistent pages to @target (global nr_hugepages).
 * The caller reads back what it got. */
gboolean hpd_alloc_pool (HpdKernel *kernel, const HpdPool *pool, guint64 target,
                         const HpdAllocOptions *options, GCancellable *cancellable,
                         GError **error);

/* The same on @node only, never touching another node; @achieved is the
 * node's persistent pages read back. */
gboolean hpd_alloc_node (HpdKernel *kernel, const HpdPool *pool, guint node,
                         guint64 target, const HpdAllocOptions *options,
                         GCancellable *cancellable, guint64 *achieved, GError **error);

G_END_DECLS
