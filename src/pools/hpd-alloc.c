/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hp-error.h"
#include "hp-units.h"
#include "hpd-alloc.h"
#include "hpd-last-alloc.h"
#include "hpd-parse.h"

#define NODE_DIR "sys/devices/system/node"
#define COMPACT_MEMORY "proc/sys/vm/compact_memory"
/* 1 frees clean page cache only: never dentries and inodes (2), which
 * would cost every program on the machine its metadata caches. */
#define DROP_CACHES "proc/sys/vm/drop_caches"
#define DROP_CLEAN_PAGE_CACHE 1
/* Between fruitless tries: lets kcompactd and reclaim catch up. */
#define BACKOFF_US (100 * 1000)

void
hpd_alloc_state_init (HpdAllocState *state, guint64 target, guint64 first_try,
                      const HpdAllocOptions *options, guint fallback_nodes)
{
  state->target = target;
  state->best = first_try;
  state->fruitless = 0;
  state->hard = options->hard;
  state->may_drop_caches = options->hard && options->drop_caches;
  state->caches_dropped = FALSE;
  state->fallback_nodes_left = fallback_nodes;
}

void
hpd_alloc_state_record (HpdAllocState *state, guint64 achieved)
{
  if (achieved > state->best)
    {
      state->best = achieved;
      state->fruitless = 0;
    }
  else
    state->fruitless++;
}

HpdAllocStep
hpd_alloc_state_next (const HpdAllocState *state, gboolean time_left)
{
  if (!state->hard || state->best >= state->target || !time_left)
    return HPD_ALLOC_STEP_DONE;
  if (state->fruitless < HPD_ALLOC_MAX_FRUITLESS_TRIES)
    return HPD_ALLOC_STEP_RETRY;
  /* stalled: first the cheap help for the whole machine, then other nodes */
  if (state->may_drop_caches && !state->caches_dropped)
    return HPD_ALLOC_STEP_DROP_CACHES;
  if (state->fallback_nodes_left > 0)
    return HPD_ALLOC_STEP_NEXT_NODE;
  return HPD_ALLOC_STEP_DONE;
}

void
hpd_alloc_state_took (HpdAllocState *state, HpdAllocStep step)
{
  switch (step)
    {
    case HPD_ALLOC_STEP_DROP_CACHES:
      state->caches_dropped = TRUE;
      state->fruitless = 0;
      break;
    case HPD_ALLOC_STEP_NEXT_NODE:
      g_return_if_fail (state->fallback_nodes_left > 0);
      state->fallback_nodes_left--;
      state->fruitless = 0;
      break;
    case HPD_ALLOC_STEP_RETRY:
    case HPD_ALLOC_STEP_DONE:
    default:
      break;
    }
}

typedef struct {
  guint node;
  guint64 free_kb;
} NodeFree;

static int
compare_most_free (gconstpointer a, gconstpointer b)
{
  const NodeFree *x = a, *y = b;

  if (x->free_kb != y->free_kb)
    return x->free_kb > y->free_kb ? -1 : 1;
  return x->node < y->node ? -1 : x->node > y->node;
}

GArray *
hpd_alloc_fallback_order (const guint *nodes, const guint64 *free_kb, guint n_nodes,
                          guint64 page_size)
{
  g_autoptr(GArray) known = g_array_sized_new (FALSE, FALSE, sizeof (NodeFree), n_nodes);
  GArray *order = g_array_sized_new (FALSE, FALSE, sizeof (guint), n_nodes);
  gboolean all_known = TRUE;

  for (guint i = 0; i < n_nodes; i++)
    {
      NodeFree nf = { nodes[i], free_kb[i] };

      all_known = all_known && free_kb[i] != G_MAXUINT64;
      g_array_append_val (known, nf);
    }

  if (all_known)
    {
      g_array_sort (known, compare_most_free);
      for (guint i = 0; i < known->len; i++)
        {
          const NodeFree *nf = &g_array_index (known, NodeFree, i);

          if (nf->free_kb >= page_size / 1024)
            g_array_append_val (order, nf->node);
        }
    }
  else
    {
      /* without MemFree of every node there is nothing to rank them by */
      g_array_append_vals (order, nodes, n_nodes);
    }
  return order;
}

gboolean
hpd_alloc_throttle_pass (HpdAllocThrottle *throttle, gint64 now_us)
{
  if (throttle->started && now_us - throttle->last_us < throttle->interval_us)
    return FALSE;
  throttle->started = TRUE;
  throttle->last_us = now_us;
  return TRUE;
}

/* One allocation on its way. */
typedef struct {
  HpdKernel *kernel;
  const HpdPool *pool;
  const HpdAllocOptions *options;
  GCancellable *cancellable;
  gboolean is_node;          /* the caller asked for @node's pool */
  guint node;
  GArray *fallback;          /* global target: nodes to take the rest from */
  guint fallback_used;       /* fallback[fallback_used - 1] is being raised */
  HpdAllocState state;
  gint64 started_us;         /* monotonic */
  guint writes;              /* of nr_hugepages */
  guint64 last;              /* what the last read after a write found */
} Engine;

static void
engine_clear (Engine *e)
{
  g_clear_pointer (&e->fallback, g_array_unref);
}

static const guint *
engine_fallback_node (const Engine *e)
{
  if (e->fallback == NULL || e->fallback_used == 0)
    return NULL;
  return &g_array_index (e->fallback, guint, e->fallback_used - 1);
}

/* Persistent pages from the two files they derive from, @total_file
 * (nr_hugepages) and @surplus_file, which it frees. */
static gboolean
read_minimum (const Engine *e, char *total_file, char *surplus_file, guint64 *minimum,
              GError **error)
{
  g_autofree char *total_path = total_file;
  g_autofree char *surplus_path = surplus_file;
  HpdNodeCounters n = { 0, };

  if (!hpd_kernel_read_counter (e->kernel, total_path, &n.total, error) ||
      !hpd_kernel_read_counter (e->kernel, surplus_path, &n.surplus, error))
    return FALSE;
  *minimum = hpd_node_counters_minimum (&n);
  return TRUE;
}

static gboolean
read_node_minimum (const Engine *e, guint node, guint64 *minimum, GError **error)
{
  return read_minimum (e, hpd_pool_node_file (e->pool, node, "nr_hugepages"),
                       hpd_pool_node_file (e->pool, node, "surplus_hugepages"), minimum, error);
}

/* What counts as progress: the node's persistent pages for a node target,
 * the pool's for a global one (node fallback included). Only the two
 * files that say it: the caller reads the whole pool once it is done. */
static gboolean
engine_read (const Engine *e, guint64 *minimum, GError **error)
{
  const guint *fallback = engine_fallback_node (e);

  if (e->is_node)
    return read_node_minimum (e, e->node, minimum, error);
  /* the node written to, read back first: what it holds now */
  if (fallback != NULL)
    {
      guint64 node_minimum;

      if (!read_node_minimum (e, *fallback, &node_minimum, error))
        return FALSE;
      g_debug ("%s: node %u holds %" G_GUINT64_FORMAT " pages", e->pool->name, *fallback,
               node_minimum);
    }
  return read_minimum (e, hpd_pool_file (e->pool, "nr_hugepages"),
                       hpd_pool_file (e->pool, "surplus_hugepages"), minimum, error);
}

static void
engine_report (const Engine *e, const char *phase)
{
  if (e->options->progress != NULL)
    e->options->progress (e->state.best, e->state.target, phase, e->options->progress_data);
}

static void
engine_report_node (const Engine *e, guint node)
{
  g_autofree char *phase = g_strdup_printf ("node %u", node);

  engine_report (e, phase);
}

/* A failed compaction or cache drop only makes the next try less likely
 * to help; the tries themselves say what was achieved. */
static gboolean
poke (const Engine *e, const char *file, guint64 value)
{
  g_autoptr(GError) error = NULL;

  if (hpd_kernel_write_counter (e->kernel, file, value, &error))
    return TRUE;
  g_message ("%s: %s", e->pool->name, error->message);
  return FALSE;
}

static void
compact_node_or_all (const Engine *e, guint node)
{
  g_autofree char *file = g_strdup_printf (NODE_DIR "/node%u/compact", node);

  poke (e, hpd_kernel_exists (e->kernel, file) ? file : COMPACT_MEMORY, 1);
}

/* A global write that falls short means every node refused a page: the
 * kernel hands pages out round-robin and stops only when no allowed node
 * gives one. So every node of the pool fell short and is compacted. */
static void
engine_compact (const Engine *e)
{
  const guint *fallback = engine_fallback_node (e);
  guint compacted = 0;

  if (e->is_node || fallback != NULL)
    {
      compact_node_or_all (e, e->is_node ? e->node : *fallback);
      return;
    }

  for (guint i = 0; i < e->pool->nodes->len; i++)
    {
      g_autofree char *file = g_strdup_printf (NODE_DIR "/node%u/compact",
                                               g_array_index (e->pool->nodes, guint, i));

      if (hpd_kernel_exists (e->kernel, file) && poke (e, file, 1))
        compacted++;
    }
  if (compacted == 0)
    poke (e, COMPACT_MEMORY, 1);
}

/* Writes the target: into the file the caller named, or during the node
 * fallback that node's pages plus what the pool still lacks. */
static gboolean
engine_write (Engine *e, GError **error)
{
  const guint *fallback = engine_fallback_node (e);
  g_autofree char *file = NULL;
  guint64 value = e->state.target;

  if (fallback != NULL)
    {
      guint64 node_minimum, missing = e->state.target - e->state.best;

      if (!read_node_minimum (e, *fallback, &node_minimum, error))
        return FALSE;
      value = hp_add_saturating (node_minimum, missing);
      file = hpd_pool_node_file (e->pool, *fallback, "nr_hugepages");
    }
  else if (e->is_node)
    file = hpd_pool_node_file (e->pool, e->node, "nr_hugepages");
  else
    file = hpd_pool_file (e->pool, "nr_hugepages");

  e->writes++;
  return hpd_kernel_write_counter (e->kernel, file, value, error);
}

/* MemFree of each of the pool's nodes, then the order to fall back in. */
static GArray *
engine_fallback_order (const Engine *e)
{
  guint n = e->pool->nodes->len;
  g_autofree guint64 *free_kb = g_new (guint64, n);

  for (guint i = 0; i < n; i++)
    {
      guint node = g_array_index (e->pool->nodes, guint, i);
      g_autofree char *file = g_strdup_printf (NODE_DIR "/node%u/meminfo", node);
      g_autofree char *key = g_strdup_printf ("Node %u MemFree", node);
      g_autofree char *text = NULL;

      if (!hpd_kernel_read_text (e->kernel, file, &text, NULL) ||
          !hpd_parse_meminfo (text, key, &free_kb[i]))
        free_kb[i] = G_MAXUINT64;
    }
  return hpd_alloc_fallback_order ((const guint *) (gpointer) e->pool->nodes->data, free_kb, n,
                                   e->pool->size);
}

static gboolean
wait_cancellable (gint64 until, GCancellable *cancellable)
{
  while (g_get_monotonic_time () < until)
    {
      if (g_cancellable_is_cancelled (cancellable))
        return FALSE;
      g_usleep (MIN (20 * 1000, MAX (until - g_get_monotonic_time (), 0)));
    }
  return !g_cancellable_is_cancelled (cancellable);
}

static gboolean
engine_run (Engine *e, guint64 target, GError **error)
{
  gint64 deadline;
  guint64 now;

  e->started_us = g_get_monotonic_time ();
  deadline = e->started_us + (gint64) e->options->timeout_ms * 1000;

  /* the first report shows where the pool starts from */
  if (!engine_read (e, &now, error))
    return FALSE;
  e->state.best = now;
  e->state.target = target;
  engine_report (e, "allocating");

  if (!engine_write (e, error) || !engine_read (e, &now, error))
    return FALSE;
  e->last = now;
  hpd_alloc_state_init (&e->state, target, now, e->options,
                        e->is_node ? 0 : e->pool->nodes->len);
  engine_report (e, "allocating");

  for (;;)
    {
      gboolean time_left = g_get_monotonic_time () < deadline &&
                           !g_cancellable_is_cancelled (e->cancellable);
      HpdAllocStep step = hpd_alloc_state_next (&e->state, time_left);
      const guint *fallback;

      if (step == HPD_ALLOC_STEP_DONE)
        break;

      if (step == HPD_ALLOC_STEP_NEXT_NODE && e->fallback == NULL)
        {
          e->fallback = engine_fallback_order (e);
          e->state.fallback_nodes_left = e->fallback->len;
          continue;
        }

      hpd_alloc_state_took (&e->state, step);
      switch (step)
        {
        case HPD_ALLOC_STEP_DROP_CACHES:
          engine_report (e, "dropping-caches");
          g_message ("%s: allocation stalled at %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                     " pages; dropping the clean page cache", e->pool->name,
                     e->state.best, e->state.target);
          poke (e, DROP_CACHES, DROP_CLEAN_PAGE_CACHE);
          break;

        case HPD_ALLOC_STEP_NEXT_NODE:
          e->fallback_used++;
          g_debug ("%s: taking the rest from node %u", e->pool->name,
                   g_array_index (e->fallback, guint, e->fallback_used - 1));
          break;

        case HPD_ALLOC_STEP_RETRY:
          if (e->state.fruitless > 0 &&
              !wait_cancellable (MIN (deadline, g_get_monotonic_time () +
                                      (gint64) BACKOFF_US * e->state.fruitless),
                                 e->cancellable))
            return TRUE;

          fallback = engine_fallback_node (e);
          if (fallback != NULL)
            engine_report_node (e, *fallback);
          else
            engine_report (e, "compacting");
          engine_compact (e);

          if (fallback == NULL)
            engine_report (e, "allocating");
          if (!engine_write (e, error) || !engine_read (e, &now, error))
            return FALSE;
          e->last = now;
          /* no report here: the next step's own report, right after,
           * carries what this try achieved */
          hpd_alloc_state_record (&e->state, now);
          g_debug ("%s: a retry reached %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " pages",
                   e->pool->name, now, target);
          break;

        case HPD_ALLOC_STEP_DONE:
        default:
          g_assert_not_reached ();
        }
    }
  return TRUE;
}

/* The engine ran to its end: what it did, for LastAllocation. */
static void
engine_report_end (const Engine *e)
{
  HpdAllocReport *r = e->options->report;

  if (r == NULL)
    return;
  *r = (HpdAllocReport) {
    .done = TRUE,
    .ended_usec = g_get_real_time (),
    .duration_usec = g_get_monotonic_time () - e->started_us,
    .requested = e->state.target,
    .achieved = e->last,
    .on_node = e->is_node,
    .node = e->node,
    .hard = e->options->hard,
    .writes = e->writes,
  };
  /* here, in the worker: the file outlives an idle exit */
  if (e->options->last_alloc != NULL)
    hpd_last_alloc_note (e->options->last_alloc, e->pool->name, r);
}

GVariant *
hpd_alloc_report_to_variant (const HpdAllocReport *report)
{
  GVariantBuilder b;

  g_variant_builder_init (&b, G_VARIANT_TYPE_VARDICT);
  if (report != NULL && report->done)
    {
      g_variant_builder_add (&b, "{sv}", "ended-usec",
                             g_variant_new_uint64 ((guint64) MAX (report->ended_usec, 0)));
      g_variant_builder_add (&b, "{sv}", "duration-usec",
                             g_variant_new_uint64 ((guint64) MAX (report->duration_usec, 0)));
      g_variant_builder_add (&b, "{sv}", "requested", g_variant_new_uint64 (report->requested));
      g_variant_builder_add (&b, "{sv}", "achieved", g_variant_new_uint64 (report->achieved));
      g_variant_builder_add (&b, "{sv}", "shortfall",
                             g_variant_new_uint64 (report->requested > report->achieved
                                                   ? report->requested - report->achieved : 0));
      if (report->on_node)
        g_variant_builder_add (&b, "{sv}", "node", g_variant_new_uint32 (report->node));
      g_variant_builder_add (&b, "{sv}", "mode",
                             g_variant_new_string (report->hard ? "hard" : "plain"));
      g_variant_builder_add (&b, "{sv}", "writes", g_variant_new_uint32 (report->writes));
    }
  return g_variant_builder_end (&b);
}

gboolean
hpd_alloc_pool (HpdKernel *kernel, const HpdPool *pool, guint64 target,
                const HpdAllocOptions *options, GCancellable *cancellable, GError **error)
{
  Engine e = { kernel, pool, options, cancellable, FALSE, 0, NULL, 0, { 0, }, 0, 0, 0 };
  gboolean ok = engine_run (&e, target, error);

  if (ok)
    engine_report_end (&e);
  engine_clear (&e);
  return ok;
}

gboolean
hpd_alloc_node (HpdKernel *kernel, const HpdPool *pool, guint node, guint64 target,
                const HpdAllocOptions *options, GCancellable *cancellable,
                guint64 *achieved, GError **error)
{
  Engine e = { kernel, pool, options, cancellable, TRUE, node, NULL, 0, { 0, }, 0, 0, 0 };
  gboolean ok;

  g_return_val_if_fail (hpd_pool_has_node (pool, node), FALSE);

  ok = engine_run (&e, target, error);
  if (ok)
    engine_report_end (&e);
  ok = ok && read_node_minimum (&e, node, achieved, error);
  engine_clear (&e);
  return ok;
}

gboolean
hpd_alloc_check_options (gboolean hard, guint timeout_ms, gboolean drop_caches, GError **error)
{
  if (timeout_ms > HPD_ALLOC_MAX_TIMEOUT_MS)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "timeout-ms must be at most %u (10 minutes)", HPD_ALLOC_MAX_TIMEOUT_MS);
      return FALSE;
    }
  /* dropping caches costs every other program its page cache: only as
   * the last resort of an allocation that tries hard */
  if (drop_caches && !hard)
    {
      g_set_error_literal (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                           "drop-caches only applies together with hard");
      return FALSE;
    }
  return TRUE;
}
