/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Pool arithmetic (hugeadm's min/max semantics, what a shrink could not
 * free) and the write sequence against a small tree in a temp dir. */
#include "config.h"

#include <glib/gstdio.h>

#include "hpd-pool.h"
#include "hpd-test-util.h"

static HpdPoolCounters
counters (guint64 total, guint64 surplus, guint64 overcommit)
{
  HpdPoolCounters c = { 0, };

  c.total = total;
  c.surplus = surplus;
  c.overcommit = overcommit;
  return c;
}

static void
test_derived (void)
{
  HpdPoolCounters c = counters (6, 2, 3);

  g_assert_cmpuint (hpd_pool_counters_minimum (&c), ==, 4);
  g_assert_cmpuint (hpd_pool_counters_maximum (&c), ==, 7);

  /* a racing read may see more surplus than total: never negative */
  c = counters (1, 3, 0);
  g_assert_cmpuint (hpd_pool_counters_minimum (&c), ==, 0);

  c = counters (1, 0, G_MAXUINT64);
  g_assert_cmpuint (hpd_pool_counters_maximum (&c), ==, G_MAXUINT64);
}

static void
test_kept (void)
{
  HpdPoolCounters before = counters (10, 0, 2), after;

  /* grown as asked */
  after = counters (16, 0, 0);
  g_assert_cmpuint (hpd_pool_counters_kept (&before, &after), ==, 16);

  /* shrunk to 0 while 5 pages are mapped: the kernel keeps them as new
   * surplus, within the overcommit limit or not, and they are reported */
  after = counters (5, 5, 12);
  g_assert_cmpuint (hpd_pool_counters_kept (&before, &after), ==, 5);
  after = counters (5, 5, 0);
  g_assert_cmpuint (hpd_pool_counters_kept (&before, &after), ==, 5);

  /* surplus that was there before (overcommitted pages in use) is not ours */
  before = counters (7, 3, 5);
  after = counters (5, 3, 5);
  g_assert_cmpuint (hpd_pool_counters_kept (&before, &after), ==, 2);
}

/* The sequence observed with hugeadm (reference/hugeadm.md 4.4), starting
 * from nr=0, OC=5. */
static void
test_hugeadm_sequence (void)
{
  HpdPoolCounters c = counters (0, 0, 5);
  HpdPoolTarget t;

  t = hpd_pool_target_for_minimum (&c, TRUE, 2);        /* min 2M:2 */
  g_assert_cmpuint (t.minimum, ==, 2);
  g_assert_cmpuint (t.maximum - t.minimum, ==, 3);
  c = counters (t.minimum, 0, t.maximum - t.minimum);

  t = hpd_pool_target_for_minimum (&c, TRUE, 6);        /* min 2M:+4 */
  g_assert_cmpuint (t.minimum, ==, 6);
  g_assert_cmpuint (t.maximum - t.minimum, ==, 0);
  c = counters (t.minimum, 0, t.maximum - t.minimum);

  t = hpd_pool_target_for_maximum (&c, 9);              /* max 2M:+3 */
  g_assert_cmpuint (t.minimum, ==, 6);
  g_assert_cmpuint (t.maximum - t.minimum, ==, 3);
  c = counters (t.minimum, 0, t.maximum - t.minimum);

  t = hpd_pool_target_for_minimum (&c, TRUE, 0);        /* min 2M:-6 */
  g_assert_cmpuint (t.minimum, ==, 0);
  g_assert_cmpuint (t.maximum - t.minimum, ==, 9);

  c = counters (2, 0, 0);
  t = hpd_pool_target_for_maximum (&c, 1);              /* max 2M:1 with nr=2 */
  g_assert_cmpuint (t.minimum, ==, 1);
  g_assert_cmpuint (t.maximum - t.minimum, ==, 0);

  /* without overcommit the maximum follows the minimum */
  c = counters (4, 0, 0);
  t = hpd_pool_target_for_minimum (&c, FALSE, 2);
  g_assert_cmpuint (t.minimum, ==, 2);
  g_assert_cmpuint (t.maximum, ==, 2);
}

/* A minimal tree: one 2 MiB pool on one node and a gigantic 1 GiB pool
 * without an overcommit file. */
typedef struct {
  char *root;
  HpdKernel *kernel;
  GPtrArray *pools;
  GArray *nodes;
} Tree;

#define H2 "sys/kernel/mm/hugepages/hugepages-2048kB/"
#define H1G "sys/kernel/mm/hugepages/hugepages-1048576kB/"
#define N0 "sys/devices/system/node/node0/hugepages/hugepages-2048kB/"
#define N1 "sys/devices/system/node/node1/hugepages/hugepages-2048kB/"

static void
tree_setup (Tree *tree, gconstpointer data)
{
  const char *pool_files[] = { "nr_hugepages", "free_hugepages", "resv_hugepages",
                               "surplus_hugepages" };

  tree->root = g_dir_make_tmp ("hpd-pool-XXXXXX", NULL);
  g_assert_nonnull (tree->root);
  hpd_test_put (tree->root, "proc/meminfo", "MemTotal:       8388608 kB\nHugepagesize:       2048 kB\n");
  hpd_test_put (tree->root, "proc/buddyinfo", "Node 0, zone   Normal 1 1 1 1 1 1 1 1 1 1 1\n");
  hpd_test_put (tree->root, "proc/sys/vm/compact_memory", "");
  hpd_test_put (tree->root, "sys/devices/system/node/online", "0\n");
  hpd_test_put (tree->root, "sys/devices/system/node/node0/compact", "");
  for (gsize i = 0; i < G_N_ELEMENTS (pool_files); i++)
    {
      g_autofree char *a = g_strconcat (H2, pool_files[i], NULL);
      g_autofree char *b = g_strconcat (H1G, pool_files[i], NULL);
      hpd_test_put (tree->root, a, "0\n");
      hpd_test_put (tree->root, b, "0\n");
    }
  hpd_test_put (tree->root, H2 "nr_overcommit_hugepages", "0\n");
  hpd_test_put (tree->root, H1G "demote", "");
  hpd_test_put (tree->root, H1G "demote_size", "2048kB\n");
  hpd_test_put (tree->root, N0 "nr_hugepages", "0\n");
  hpd_test_put (tree->root, N0 "free_hugepages", "0\n");
  hpd_test_put (tree->root, N0 "surplus_hugepages", "0\n");

  tree->kernel = hpd_kernel_new (tree->root);
  tree->nodes = hpd_nodes_probe (tree->kernel);
  tree->pools = hpd_pools_probe (tree->kernel, tree->nodes, NULL);
  g_assert_nonnull (tree->pools);
}

static void
tree_teardown (Tree *tree, gconstpointer data)
{
  hpd_test_remove (tree->root);
  g_ptr_array_unref (tree->pools);
  g_array_unref (tree->nodes);
  g_object_unref (tree->kernel);
  g_free (tree->root);
}

static void
test_probe (Tree *tree, gconstpointer data)
{
  const HpdPool *small, *giant;

  g_assert_cmpuint (tree->nodes->len, ==, 1);
  g_assert_cmpuint (tree->pools->len, ==, 2);
  small = g_ptr_array_index (tree->pools, 0);
  giant = g_ptr_array_index (tree->pools, 1);

  g_assert_cmpuint (small->size, ==, 2 * 1024 * 1024);
  g_assert_cmpstr (small->name, ==, "2MB");
  g_assert_true (small->is_default);
  g_assert_false (small->gigantic);
  g_assert_true (small->can_overcommit);
  g_assert_cmpuint (small->demote_size, ==, 0);
  g_assert_true (hpd_pool_has_node (small, 0));

  g_assert_cmpuint (giant->size, ==, 1024 * 1024 * 1024);
  g_assert_false (giant->is_default);
  g_assert_true (giant->gigantic);
  g_assert_false (giant->can_overcommit);
  g_assert_cmpuint (giant->demote_size, ==, 2 * 1024 * 1024);
  g_assert_false (hpd_pool_has_node (giant, 0));
}

static void
test_apply (Tree *tree, gconstpointer data)
{
  const HpdPool *small = g_ptr_array_index (tree->pools, 0);
  HpdAllocOptions options = { .hard = FALSE, .timeout_ms = 1000 };
  HpdPoolTarget target = { 4, 10 };
  g_auto(HpdPoolCounters) before = { 0, };
  g_auto(HpdPoolCounters) after = { 0, };
  g_autoptr(GError) error = NULL;
  g_autofree char *nr = NULL;
  g_autofree char *oc = NULL;

  g_assert_true (hpd_pool_read (tree->kernel, small, &before, NULL));
  g_assert_true (hpd_pool_apply (tree->kernel, small, &before, &target, &options, NULL, &after,
                                 &error));
  g_assert_no_error (error);
  nr = hpd_test_get (tree->root, H2 "nr_hugepages");
  oc = hpd_test_get (tree->root, H2 "nr_overcommit_hugepages");
  g_assert_cmpstr (nr, ==, "4\n");
  g_assert_cmpstr (oc, ==, "6\n");
  g_assert_cmpuint (hpd_pool_counters_minimum (&after), ==, 4);
  g_assert_cmpuint (hpd_pool_counters_maximum (&after), ==, 10);
  g_assert_cmpuint (after.nodes->len, ==, 1);
}

/* A pool file the kernel refuses to take: an error, not a success. */
static void
test_apply_error (Tree *tree, gconstpointer data)
{
  const HpdPool *small = g_ptr_array_index (tree->pools, 0);
  HpdAllocOptions options = { .hard = FALSE, .timeout_ms = 1000 };
  HpdPoolTarget target = { 8, 8 };
  g_auto(HpdPoolCounters) before = { 0, };
  g_auto(HpdPoolCounters) after = { 0, };
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (tree->root, H2 "nr_hugepages", NULL);

  g_assert_true (hpd_pool_read (tree->kernel, small, &before, NULL));
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_cmpint (g_mkdir (path, 0755), ==, 0);
  g_assert_false (hpd_pool_apply (tree->kernel, small, &before, &target, &options, NULL, &after,
                                  &error));
  g_assert_nonnull (error);
}

/* The pool already holds what is asked: only the overcommit is written so
 * that the requested maximum holds. */
static void
test_apply_keeps_maximum (Tree *tree, gconstpointer data)
{
  const HpdPool *small = g_ptr_array_index (tree->pools, 0);
  HpdAllocOptions options = { .hard = FALSE, .timeout_ms = 1000 };
  HpdPoolTarget target = { 3, 8 };
  g_auto(HpdPoolCounters) before = { 0, };
  g_auto(HpdPoolCounters) after = { 0, };
  g_autofree char *oc = NULL;

  hpd_test_put (tree->root, H2 "nr_hugepages", "3\n");
  g_assert_true (hpd_pool_read (tree->kernel, small, &before, NULL));
  g_assert_true (hpd_pool_apply (tree->kernel, small, &before, &target, &options, NULL, &after,
                                 NULL));
  oc = hpd_test_get (tree->root, H2 "nr_overcommit_hugepages");
  g_assert_cmpstr (oc, ==, "5\n");
  g_assert_cmpuint (hpd_pool_counters_minimum (&after), ==, 3);
  g_assert_cmpuint (hpd_pool_counters_maximum (&after), ==, 8);
}

static void
test_apply_node (Tree *tree, gconstpointer data)
{
  const HpdPool *small = g_ptr_array_index (tree->pools, 0);
  HpdAllocOptions options = { .hard = TRUE, .timeout_ms = 300 };
  g_autoptr(GError) error = NULL;
  g_autofree char *nr = NULL;
  g_autofree char *global = NULL;
  guint64 achieved = 0;

  g_assert_true (hpd_pool_apply_node (tree->kernel, small, 0, 7, &options, NULL, &achieved, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (achieved, ==, 7);
  nr = hpd_test_get (tree->root, N0 "nr_hugepages");
  global = hpd_test_get (tree->root, H2 "nr_hugepages");
  g_assert_cmpstr (nr, ==, "7\n");
  g_assert_cmpstr (global, ==, "0\n");
}

static void
test_demote (Tree *tree, gconstpointer data)
{
  const HpdPool *giant = g_ptr_array_index (tree->pools, 1);
  g_autofree char *written = NULL;
  guint64 demoted = 99;

  hpd_test_put (tree->root, H1G "nr_hugepages", "2\n");
  g_assert_true (hpd_pool_demote (tree->kernel, giant, 1, &demoted, NULL));
  written = hpd_test_get (tree->root, H1G "demote");
  g_assert_cmpstr (written, ==, "1\n");
  /* the fake kernel did not demote anything, and we must not claim it did */
  g_assert_cmpuint (demoted, ==, 0);
}

/* The three counters of a pool's directory or of a node's. */
static void
put_counters (Tree *tree, const char *dir, const char *total, const char *free,
              const char *surplus)
{
  g_autofree char *t = g_strconcat (dir, "nr_hugepages", NULL);
  g_autofree char *f = g_strconcat (dir, "free_hugepages", NULL);
  g_autofree char *s = g_strconcat (dir, "surplus_hugepages", NULL);

  hpd_test_put (tree->root, t, total);
  hpd_test_put (tree->root, f, free);
  hpd_test_put (tree->root, s, surplus);
}

static void
assert_node (const HpdPoolCounters *c, guint i, guint node, guint64 total, guint64 free,
             guint64 surplus)
{
  const HpdNodeCounters *n = &g_array_index (c->nodes, HpdNodeCounters, i);

  g_assert_cmpuint (n->node, ==, node);
  g_assert_cmpuint (n->total, ==, total);
  g_assert_cmpuint (n->free, ==, free);
  g_assert_cmpuint (n->surplus, ==, surplus);
}

/* With one node, its counters are the pool's (the kernel sums the nodes
 * into the pool's counters under one lock), so its files are not read;
 * with two, each node's files are. */
static void
test_read_nodes (Tree *tree, gconstpointer data)
{
  const HpdPool *small = g_ptr_array_index (tree->pools, 0);
  g_auto(HpdPoolCounters) one = { 0, };
  g_auto(HpdPoolCounters) two = { 0, };
  g_autoptr(GPtrArray) pools = NULL;
  g_autoptr(GArray) nodes = NULL;

  put_counters (tree, H2, "6\n", "4\n", "1\n");
  /* not counters: a read of them would fail */
  put_counters (tree, N0, "x\n", "x\n", "x\n");
  g_assert_true (hpd_pool_read (tree->kernel, small, &one, NULL));
  g_assert_cmpuint (one.nodes->len, ==, 1);
  assert_node (&one, 0, 0, 6, 4, 1);

  hpd_test_put (tree->root, "sys/devices/system/node/online", "0-1\n");
  put_counters (tree, N1, "2\n", "1\n", "0\n");
  nodes = hpd_nodes_probe (tree->kernel);
  pools = hpd_pools_probe (tree->kernel, nodes, NULL);
  small = g_ptr_array_index (pools, 0);
  g_assert_cmpuint (small->nodes->len, ==, 2);
  g_assert_false (hpd_pool_read (tree->kernel, small, &two, NULL));
  put_counters (tree, N0, "4\n", "3\n", "1\n");
  g_assert_true (hpd_pool_read (tree->kernel, small, &two, NULL));
  g_assert_cmpuint (two.nodes->len, ==, 2);
  assert_node (&two, 0, 0, 4, 3, 1);
  assert_node (&two, 1, 1, 2, 1, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pool/derived", test_derived);
  g_test_add_func ("/pool/kept", test_kept);
  g_test_add_func ("/pool/hugeadm-sequence", test_hugeadm_sequence);
  g_test_add ("/pool/probe", Tree, NULL, tree_setup, test_probe, tree_teardown);
  g_test_add ("/pool/apply", Tree, NULL, tree_setup, test_apply, tree_teardown);
  g_test_add ("/pool/apply-error", Tree, NULL, tree_setup, test_apply_error, tree_teardown);
  g_test_add ("/pool/apply-keeps-maximum", Tree, NULL, tree_setup, test_apply_keeps_maximum, tree_teardown);
  g_test_add ("/pool/apply-node", Tree, NULL, tree_setup, test_apply_node, tree_teardown);
  g_test_add ("/pool/demote", Tree, NULL, tree_setup, test_demote, tree_teardown);
  g_test_add ("/pool/read-nodes", Tree, NULL, tree_setup, test_read_nodes, tree_teardown);
  return g_test_run ();
}
