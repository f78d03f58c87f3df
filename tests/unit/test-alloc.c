/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The allocation engine: its decisions (retry, drop caches, next node,
 * stop), the order of the node fallback, the progress rate limit, and
 * which files it writes on a small static tree where every pool falls
 * short because surplus pages never turn persistent. */
#include "config.h"

#include <glib/gstdio.h>

#include "hpd-alloc.h"
#include "hpd-test-util.h"

static HpdAllocOptions
options (gboolean hard, gboolean drop_caches)
{
  return (HpdAllocOptions) { .hard = hard, .timeout_ms = 5000, .drop_caches = drop_caches };
}

static void
test_state_soft (void)
{
  HpdAllocOptions o = options (FALSE, FALSE);
  HpdAllocState s;

  /* without hard the first write is all there is, short or not */
  hpd_alloc_state_init (&s, 10, 4, &o, 2);
  g_assert_cmpint (hpd_alloc_state_next (&s, TRUE), ==, HPD_ALLOC_STEP_DONE);
}

static void
test_state_progress_and_stall (void)
{
  HpdAllocOptions o = options (TRUE, FALSE);
  HpdAllocState s;

  hpd_alloc_state_init (&s, 10, 4, &o, 0);
  g_assert_cmpint (hpd_alloc_state_next (&s, TRUE), ==, HPD_ALLOC_STEP_RETRY);
  hpd_alloc_state_record (&s, 6);                  /* progress */
  g_assert_cmpuint (s.best, ==, 6);
  g_assert_cmpint (hpd_alloc_state_next (&s, TRUE), ==, HPD_ALLOC_STEP_RETRY);
  hpd_alloc_state_record (&s, 6);                  /* nothing gained */
  g_assert_cmpint (hpd_alloc_state_next (&s, TRUE), ==, HPD_ALLOC_STEP_RETRY);
  hpd_alloc_state_record (&s, 5);                  /* less is nothing gained too */
  g_assert_cmpuint (s.best, ==, 6);
  g_assert_cmpuint (s.fruitless, ==, HPD_ALLOC_MAX_FRUITLESS_TRIES);
  g_assert_cmpint (hpd_alloc_state_next (&s, TRUE), ==, HPD_ALLOC_STEP_DONE);
}

static void
test_state_reached_or_out_of_time (void)
{
  HpdAllocOptions o = options (TRUE, TRUE);
  HpdAllocState s;

  hpd_alloc_state_init (&s, 10, 4, &o, 2);
  g_assert_cmpint (hpd_alloc_state_next (&s, FALSE), ==, HPD_ALLOC_STEP_DONE);
  hpd_alloc_state_record (&s, 10);
  g_assert_cmpint (hpd_alloc_state_next (&s, TRUE), ==, HPD_ALLOC_STEP_DONE);

  /* a shrink: the first write already has it */
  hpd_alloc_state_init (&s, 2, 2, &o, 2);
  g_assert_cmpint (hpd_alloc_state_next (&s, TRUE), ==, HPD_ALLOC_STEP_DONE);
}

/* Stalled: caches once (only when allowed), then each fallback node with
 * a fresh series of tries, then the end. */
static void
test_state_drop_then_nodes (void)
{
  HpdAllocOptions o = options (TRUE, TRUE);
  HpdAllocState s;

  hpd_alloc_state_init (&s, 10, 4, &o, 2);
  for (guint i = 0; i < HPD_ALLOC_MAX_FRUITLESS_TRIES; i++)
    hpd_alloc_state_record (&s, 4);
  g_assert_cmpint (hpd_alloc_state_next (&s, TRUE), ==, HPD_ALLOC_STEP_DROP_CACHES);
  hpd_alloc_state_took (&s, HPD_ALLOC_STEP_DROP_CACHES);
  g_assert_cmpint (hpd_alloc_state_next (&s, TRUE), ==, HPD_ALLOC_STEP_RETRY);

  for (guint i = 0; i < HPD_ALLOC_MAX_FRUITLESS_TRIES; i++)
    hpd_alloc_state_record (&s, 4);
  /* never a second drop */
  g_assert_cmpint (hpd_alloc_state_next (&s, TRUE), ==, HPD_ALLOC_STEP_NEXT_NODE);
  hpd_alloc_state_took (&s, HPD_ALLOC_STEP_NEXT_NODE);
  g_assert_cmpint (hpd_alloc_state_next (&s, TRUE), ==, HPD_ALLOC_STEP_RETRY);
  hpd_alloc_state_record (&s, 7);
  hpd_alloc_state_record (&s, 7);
  hpd_alloc_state_record (&s, 7);
  g_assert_cmpint (hpd_alloc_state_next (&s, TRUE), ==, HPD_ALLOC_STEP_NEXT_NODE);
  hpd_alloc_state_took (&s, HPD_ALLOC_STEP_NEXT_NODE);
  for (guint i = 0; i < HPD_ALLOC_MAX_FRUITLESS_TRIES; i++)
    hpd_alloc_state_record (&s, 7);
  g_assert_cmpint (hpd_alloc_state_next (&s, TRUE), ==, HPD_ALLOC_STEP_DONE);

  /* without the option a stall goes straight to the nodes */
  o = options (TRUE, FALSE);
  hpd_alloc_state_init (&s, 10, 4, &o, 1);
  for (guint i = 0; i < HPD_ALLOC_MAX_FRUITLESS_TRIES; i++)
    hpd_alloc_state_record (&s, 4);
  g_assert_cmpint (hpd_alloc_state_next (&s, TRUE), ==, HPD_ALLOC_STEP_NEXT_NODE);

  /* drop-caches without hard asks for nothing */
  o = options (FALSE, TRUE);
  hpd_alloc_state_init (&s, 10, 4, &o, 1);
  g_assert_false (s.may_drop_caches);
}

static void
assert_order (GArray *order, const guint *expected, guint n)
{
  g_assert_cmpuint (order->len, ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpuint (g_array_index (order, guint, i), ==, expected[i]);
}

static void
test_fallback_order (void)
{
  const guint nodes[] = { 0, 1, 2, 3 };
  const guint64 page = 2 * 1024 * 1024;
  g_autoptr(GArray) order = NULL;

  {
    /* most free first; node 2 lacks room for one page; ties by number */
    const guint64 free_kb[] = { 4096, 1 << 20, 2047, 1 << 20 };
    const guint expected[] = { 1, 3, 0 };

    order = hpd_alloc_fallback_order (nodes, free_kb, 4, page);
    assert_order (order, expected, G_N_ELEMENTS (expected));
    g_clear_pointer (&order, g_array_unref);
  }
  {
    /* one node without MemFree: no ranking, nobody left out */
    const guint64 free_kb[] = { 0, 1 << 20, G_MAXUINT64, 8192 };

    order = hpd_alloc_fallback_order (nodes, free_kb, 4, page);
    assert_order (order, nodes, 4);
    g_clear_pointer (&order, g_array_unref);
  }
  order = hpd_alloc_fallback_order (nodes, NULL, 0, page);
  g_assert_cmpuint (order->len, ==, 0);
}

static void
test_throttle (void)
{
  HpdAllocThrottle t = { .interval_us = 100 * 1000 };

  g_assert_true (hpd_alloc_throttle_pass (&t, 5000000));     /* the first */
  g_assert_false (hpd_alloc_throttle_pass (&t, 5000001));
  g_assert_false (hpd_alloc_throttle_pass (&t, 5099999));
  g_assert_true (hpd_alloc_throttle_pass (&t, 5100000));
  g_assert_false (hpd_alloc_throttle_pass (&t, 5150000));
  g_assert_true (hpd_alloc_throttle_pass (&t, 6000000));

  /* a burst of a thousand reports within a second gives at most ten */
  {
    HpdAllocThrottle b = { .interval_us = HPD_ALLOC_PROGRESS_INTERVAL_US };
    guint passed = 0;

    for (gint64 us = 0; us < 1000000; us += 1000)
      passed += hpd_alloc_throttle_pass (&b, us);
    g_assert_cmpuint (passed, ==, 10);
  }
}

/* Two nodes, a 2 MiB pool whose global and per-node surplus never turn
 * persistent: every write falls short by the surplus. */
typedef struct {
  char *root;
  HpdKernel *kernel;
  GPtrArray *pools;
  GArray *nodes;
  GPtrArray *phases;
} Tree;

#define H2 "sys/kernel/mm/hugepages/hugepages-2048kB/"
#define NODE "sys/devices/system/node/"
#define N2(n) NODE "node" #n "/hugepages/hugepages-2048kB/"

static void
tree_setup (Tree *tree, gconstpointer data)
{
  tree->root = g_dir_make_tmp ("hpd-alloc-XXXXXX", NULL);
  g_assert_nonnull (tree->root);
  hpd_test_put (tree->root, "proc/meminfo", "MemTotal:       8388608 kB\nHugepagesize:       2048 kB\n");
  hpd_test_put (tree->root, "proc/sys/vm/compact_memory", "");
  hpd_test_put (tree->root, "proc/sys/vm/drop_caches", "");
  hpd_test_put (tree->root, NODE "online", "0-1\n");
  hpd_test_put (tree->root, NODE "node0/compact", "");
  hpd_test_put (tree->root, NODE "node1/compact", "");
  hpd_test_put (tree->root, H2 "nr_hugepages", "4\n");
  hpd_test_put (tree->root, H2 "free_hugepages", "0\n");
  hpd_test_put (tree->root, H2 "resv_hugepages", "0\n");
  hpd_test_put (tree->root, H2 "surplus_hugepages", "2\n");
  hpd_test_put (tree->root, H2 "nr_overcommit_hugepages", "2\n");
  hpd_test_put (tree->root, N2 (0) "nr_hugepages", "2\n");
  hpd_test_put (tree->root, N2 (0) "free_hugepages", "0\n");
  hpd_test_put (tree->root, N2 (0) "surplus_hugepages", "1\n");
  hpd_test_put (tree->root, N2 (1) "nr_hugepages", "2\n");
  hpd_test_put (tree->root, N2 (1) "free_hugepages", "0\n");
  hpd_test_put (tree->root, N2 (1) "surplus_hugepages", "1\n");

  tree->kernel = hpd_kernel_new (tree->root);
  tree->nodes = hpd_nodes_probe (tree->kernel);
  tree->pools = hpd_pools_probe (tree->kernel, tree->nodes, NULL);
  g_assert_nonnull (tree->pools);
  g_assert_cmpuint (tree->pools->len, ==, 1);
  tree->phases = g_ptr_array_new_with_free_func (g_free);
}

static void
tree_teardown (Tree *tree, gconstpointer data)
{
  hpd_test_remove (tree->root);
  g_ptr_array_unref (tree->pools);
  g_array_unref (tree->nodes);
  g_object_unref (tree->kernel);
  g_ptr_array_unref (tree->phases);
  g_free (tree->root);
}

static void
record_phase (guint64 achieved, guint64 target, const char *phase, gpointer data)
{
  Tree *tree = data;

  g_ptr_array_add (tree->phases, g_strdup (phase));
}

static guint
count_phase (Tree *tree, const char *phase)
{
  guint n = 0;

  for (guint i = 0; i < tree->phases->len; i++)
    n += g_strcmp0 (g_ptr_array_index (tree->phases, i), phase) == 0;
  return n;
}

static char *
get (Tree *tree, const char *relative)
{
  return hpd_test_get (tree->root, relative);
}

static void
assert_file (Tree *tree, const char *relative, const char *expected)
{
  g_autofree char *text = get (tree, relative);

  g_assert_cmpstr (text, ==, expected);
}

static void
test_soft_writes_target_only (Tree *tree, gconstpointer data)
{
  const HpdPool *pool = g_ptr_array_index (tree->pools, 0);
  HpdAllocOptions o = options (FALSE, FALSE);

  o.progress = record_phase;
  o.progress_data = tree;
  g_assert_true (hpd_alloc_pool (tree->kernel, pool, 10, &o, NULL, NULL));
  assert_file (tree, H2 "nr_hugepages", "10\n");
  assert_file (tree, NODE "node0/compact", "");
  assert_file (tree, "proc/sys/vm/compact_memory", "");
  assert_file (tree, N2 (0) "nr_hugepages", "2\n");
  g_assert_cmpuint (tree->phases->len, ==, 2);
  g_assert_cmpuint (count_phase (tree, "allocating"), ==, 2);
}

/* Global target, hard, with drop-caches: per-node compaction, one drop,
 * then both nodes raised by what the pool lacks, most free memory first. */
static void
test_hard_global (Tree *tree, gconstpointer data)
{
  const HpdPool *pool = g_ptr_array_index (tree->pools, 0);
  HpdAllocOptions o = options (TRUE, TRUE);
  gint64 start = g_get_monotonic_time ();

  hpd_test_put (tree->root, NODE "node0/meminfo", "Node 0 MemTotal:  4194304 kB\nNode 0 MemFree:   10240 kB\n");
  hpd_test_put (tree->root, NODE "node1/meminfo", "Node 1 MemTotal:  4194304 kB\nNode 1 MemFree:   99999 kB\n");
  o.progress = record_phase;
  o.progress_data = tree;
  g_assert_true (hpd_alloc_pool (tree->kernel, pool, 10, &o, NULL, NULL));
  g_assert_cmpint (g_get_monotonic_time () - start, <, 4 * G_USEC_PER_SEC);

  assert_file (tree, H2 "nr_hugepages", "10\n");
  assert_file (tree, NODE "node0/compact", "1\n");
  assert_file (tree, NODE "node1/compact", "1\n");
  assert_file (tree, "proc/sys/vm/compact_memory", "");
  assert_file (tree, "proc/sys/vm/drop_caches", "1\n");
  /* Each try on a node asks for its persistent pages plus the two the
   * pool lacks. This tree keeps what was written without the pool
   * growing: 1 + 2, then (3 - 1 surplus) + 2. */
  assert_file (tree, N2 (0) "nr_hugepages", "4\n");
  assert_file (tree, N2 (1) "nr_hugepages", "4\n");

  g_assert_cmpuint (count_phase (tree, "dropping-caches"), ==, 1);
  g_assert_cmpuint (count_phase (tree, "compacting"), >=, 2);
  g_assert_cmpstr (g_ptr_array_index (tree->phases, 0), ==, "allocating");
  /* node 1 has more free memory: it comes first */
  for (guint i = 0; i < tree->phases->len; i++)
    {
      const char *phase = g_ptr_array_index (tree->phases, i);

      if (g_str_has_prefix (phase, "node "))
        {
          g_assert_cmpstr (phase, ==, "node 1");
          break;
        }
    }
  g_assert_cmpstr (g_ptr_array_index (tree->phases, tree->phases->len - 1), ==, "node 0");
}

/* Without per-node compact files the whole machine is compacted; without
 * drop-caches the cache file is never touched. */
static void
test_hard_global_compact_memory (Tree *tree, gconstpointer data)
{
  const HpdPool *pool = g_ptr_array_index (tree->pools, 0);
  HpdAllocOptions o = options (TRUE, FALSE);
  g_autofree char *c0 = g_build_filename (tree->root, NODE "node0/compact", NULL);
  g_autofree char *c1 = g_build_filename (tree->root, NODE "node1/compact", NULL);

  g_assert_cmpint (g_unlink (c0), ==, 0);
  g_assert_cmpint (g_unlink (c1), ==, 0);
  g_assert_true (hpd_alloc_pool (tree->kernel, pool, 10, &o, NULL, NULL));
  assert_file (tree, "proc/sys/vm/compact_memory", "1\n");
  assert_file (tree, "proc/sys/vm/drop_caches", "");
}

/* A node target never touches another node or the global pool. */
static void
test_hard_node (Tree *tree, gconstpointer data)
{
  const HpdPool *pool = g_ptr_array_index (tree->pools, 0);
  HpdAllocOptions o = options (TRUE, FALSE);
  g_autoptr(GError) error = NULL;
  guint64 achieved = 0;

  o.progress = record_phase;
  o.progress_data = tree;
  g_assert_true (hpd_alloc_node (tree->kernel, pool, 1, 6, &o, NULL, &achieved, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (achieved, ==, 5);
  assert_file (tree, N2 (1) "nr_hugepages", "6\n");
  assert_file (tree, NODE "node1/compact", "1\n");
  assert_file (tree, N2 (0) "nr_hugepages", "2\n");
  assert_file (tree, NODE "node0/compact", "");
  assert_file (tree, H2 "nr_hugepages", "4\n");
  assert_file (tree, "proc/sys/vm/compact_memory", "");
  g_assert_cmpuint (count_phase (tree, "node 0"), ==, 0);
  g_assert_cmpuint (count_phase (tree, "node 1"), ==, 0);
}

/* The time limit holds even though every try would be retried. */
static void
test_timeout (Tree *tree, gconstpointer data)
{
  const HpdPool *pool = g_ptr_array_index (tree->pools, 0);
  HpdAllocOptions o = options (TRUE, TRUE);
  gint64 start = g_get_monotonic_time ();

  o.timeout_ms = 0;
  g_assert_true (hpd_alloc_pool (tree->kernel, pool, 10, &o, NULL, NULL));
  g_assert_cmpint (g_get_monotonic_time () - start, <, G_USEC_PER_SEC / 2);
  assert_file (tree, H2 "nr_hugepages", "10\n");
  assert_file (tree, NODE "node0/compact", "");
  assert_file (tree, "proc/sys/vm/drop_caches", "");
}

/* A cancelled job stops between tries. */
static void
test_cancelled (Tree *tree, gconstpointer data)
{
  const HpdPool *pool = g_ptr_array_index (tree->pools, 0);
  HpdAllocOptions o = options (TRUE, TRUE);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();

  g_cancellable_cancel (cancellable);
  g_assert_true (hpd_alloc_pool (tree->kernel, pool, 10, &o, cancellable, NULL));
  assert_file (tree, NODE "node0/compact", "");
  assert_file (tree, "proc/sys/vm/drop_caches", "");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/alloc/state/soft", test_state_soft);
  g_test_add_func ("/alloc/state/progress-and-stall", test_state_progress_and_stall);
  g_test_add_func ("/alloc/state/reached-or-out-of-time", test_state_reached_or_out_of_time);
  g_test_add_func ("/alloc/state/drop-then-nodes", test_state_drop_then_nodes);
  g_test_add_func ("/alloc/fallback-order", test_fallback_order);
  g_test_add_func ("/alloc/throttle", test_throttle);
  g_test_add ("/alloc/soft", Tree, NULL, tree_setup, test_soft_writes_target_only, tree_teardown);
  g_test_add ("/alloc/hard-global", Tree, NULL, tree_setup, test_hard_global, tree_teardown);
  g_test_add ("/alloc/hard-global-compact-memory", Tree, NULL, tree_setup,
              test_hard_global_compact_memory, tree_teardown);
  g_test_add ("/alloc/hard-node", Tree, NULL, tree_setup, test_hard_node, tree_teardown);
  g_test_add ("/alloc/timeout", Tree, NULL, tree_setup, test_timeout, tree_teardown);
  g_test_add ("/alloc/cancelled", Tree, NULL, tree_setup, test_cancelled, tree_teardown);
  return g_test_run ();
}
