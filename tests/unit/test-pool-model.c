/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The pool model's rules without a kernel: the base, the target of a pool
 * and of a node with claims, the base a claim takes, the plan of a claim,
 * the node minimum, saturation and the memory limit. */
#include "config.h"

#include "hp-error.h"
#include "hp-units.h"
#include "hpd-claims.h"
#include "hpd-pool-model.h"

#define SIZE_2M (2 * 1024 * 1024)
#define SIZE_1G (1024 * 1024 * 1024)

static void
add_claim (GPtrArray *claims, const char *consumer, guint64 size, guint32 node, guint64 pages)
{
  HpdClaim *c = g_new0 (HpdClaim, 1);

  c->consumer = g_strdup (consumer);
  c->page_size = size;
  c->node = node;
  c->pages = pages;
  g_ptr_array_add (claims, c);
}

static HpdPool *
pool_2m (void)
{
  HpdPool *pool = g_new0 (HpdPool, 1);

  pool->size = SIZE_2M;
  pool->name = g_strdup ("2MB");
  pool->nodes = g_array_new (FALSE, FALSE, sizeof (guint));
  return pool;
}

static GPtrArray *
some_claims (void)
{
  GPtrArray *claims = g_ptr_array_new_with_free_func ((GDestroyNotify) hpd_claim_free);

  add_claim (claims, "db", SIZE_2M, HPD_CLAIM_ALL_NODES, 10);
  add_claim (claims, "vm", SIZE_2M, 1, 6);
  add_claim (claims, "vm", SIZE_1G, HPD_CLAIM_ALL_NODES, 2);   /* another size */
  return claims;
}

static void
test_saturating (void)
{
  g_assert_cmpuint (hp_add_saturating (2, 3), ==, 5);
  g_assert_cmpuint (hp_add_saturating (G_MAXUINT64 - 1, 1), ==, G_MAXUINT64);
  g_assert_cmpuint (hp_add_saturating (G_MAXUINT64, G_MAXUINT64), ==, G_MAXUINT64);
  g_assert_cmpuint (hp_add_saturating (1, G_MAXUINT64), ==, G_MAXUINT64);
  g_assert_cmpuint (hp_sub_saturating (5, 3), ==, 2);
  g_assert_cmpuint (hp_sub_saturating (3, 5), ==, 0);
  g_assert_cmpuint (hpd_pool_target_of (G_MAXUINT64 - 4, 10), ==, G_MAXUINT64);
}

static void
test_node_minimum (void)
{
  HpdNodeCounters n = { .node = 1, .total = 7, .surplus = 2 };

  g_assert_cmpuint (hpd_node_counters_minimum (&n), ==, 5);
  /* a racing read may see more surplus than total: 0, never a wrap */
  n.surplus = 9;
  g_assert_cmpuint (hpd_node_counters_minimum (&n), ==, 0);
  /* a node the pool does not have */
  g_assert_cmpuint (hpd_node_counters_minimum (NULL), ==, 0);
}

static void
test_base_rule (void)
{
  guint64 base = 99;

  /* a SetMinimum since boot comes before the configuration */
  g_assert_true (hpd_pool_base_choose (TRUE, 2, TRUE, 4, &base));
  g_assert_cmpuint (base, ==, 2);
  g_assert_true (hpd_pool_base_choose (TRUE, 0, TRUE, 4, &base));
  g_assert_cmpuint (base, ==, 0);
  g_assert_true (hpd_pool_base_choose (FALSE, 0, TRUE, 4, &base));
  g_assert_cmpuint (base, ==, 4);
  g_assert_false (hpd_pool_base_choose (FALSE, 7, FALSE, 4, &base));
  g_assert_cmpuint (base, ==, 0);
}

static void
test_target_with_claims (void)
{
  g_autoptr(HpdPool) pool = pool_2m ();
  g_autoptr(GPtrArray) claims = some_claims ();
  g_auto(HpdPoolModel) model = { 0, };

  hpd_pool_model_init_claims (&model, pool, claims);
  /* node claims count in the pool's, other sizes do not */
  g_assert_cmpuint (hpd_pool_model_claimed (&model, HPD_CLAIM_ALL_NODES), ==, 16);
  g_assert_cmpuint (hpd_pool_model_claimed (&model, 1), ==, 6);
  g_assert_cmpuint (hpd_pool_model_claimed (&model, 0), ==, 0);
  g_assert_cmpuint (hpd_pool_model_target_for_base (&model, 4), ==, 20);
  /* no base known: the claims alone */
  g_assert_cmpuint (hpd_pool_model_target (&model), ==, 16);
  model.has_configured = TRUE;
  model.configured = 4;
  g_assert_cmpuint (hpd_pool_model_target (&model), ==, 20);
  model.has_requested = TRUE;
  model.requested = 1;
  g_assert_cmpuint (hpd_pool_model_target (&model), ==, 17);
  /* a node: its configured count plus the claims on it */
  g_assert_cmpuint (hpd_pool_model_node_target (&model, 1, 3), ==, 9);
  g_assert_cmpuint (hpd_pool_model_node_target (&model, 0, 3), ==, 3);
  /* with one claim on it changed: a new claim of 2 on node 0, the claim
   * of 6 on node 1 grown to 8, then released to its configured count */
  g_assert_cmpuint (hpd_pool_model_node_target_with_claim (&model, 0, 3, 0, 2), ==, 5);
  g_assert_cmpuint (hpd_pool_model_node_target_with_claim (&model, 1, 3, 6, 8), ==, 11);
  g_assert_cmpuint (hpd_pool_model_node_target_with_claim (&model, 1, 3, 6, 0), ==, 3);
  g_assert_cmpuint (hpd_pool_model_node_target_with_claim (&model, 1, G_MAXUINT64, 0, 1), ==,
                    G_MAXUINT64);
  /* db's claim of 10 becomes 12, then is released */
  g_assert_cmpuint (hpd_pool_model_target_with_claim (&model, 4, 10, 12), ==, 22);
  g_assert_cmpuint (hpd_pool_model_target_with_claim (&model, 4, 10, 0), ==, 10);
  g_assert_cmpuint (hpd_pool_model_target_with_claim (&model, G_MAXUINT64, 0, 1), ==,
                    G_MAXUINT64);
}

static void
test_claim_base (void)
{
  g_autoptr(HpdPool) pool = pool_2m ();
  g_autoptr(GPtrArray) none = g_ptr_array_new_with_free_func ((GDestroyNotify) hpd_claim_free);
  g_autoptr(GPtrArray) claims = some_claims ();
  HpdPoolCounters now = { .total = 30, .surplus = 2 };
  g_auto(HpdPoolModel) first = { 0, };
  g_auto(HpdPoolModel) later = { 0, };

  /* the first claim takes the pool as it is, whatever was recorded */
  hpd_pool_model_init_claims (&first, pool, none);
  first.has_requested = TRUE;
  first.requested = 3;
  g_assert_cmpuint (hpd_pool_model_claim_base (&first, &now), ==, 28);
  /* later ones the base by the rule, or the pool less the claims */
  hpd_pool_model_init_claims (&later, pool, claims);
  g_assert_cmpuint (hpd_pool_model_claim_base (&later, &now), ==, 12);
  later.has_configured = TRUE;
  later.configured = 4;
  g_assert_cmpuint (hpd_pool_model_claim_base (&later, &now), ==, 4);
  now.total = 5;
  later.has_configured = FALSE;
  g_assert_cmpuint (hpd_pool_model_claim_base (&later, &now), ==, 0);
}

static void
test_plan_claim (void)
{
  /* a growing claim adds what it adds, to at least the target */
  g_assert_cmpuint (hpd_pool_plan_claim (4, 14, 0, 10), ==, 14);
  g_assert_cmpuint (hpd_pool_plan_claim (20, 14, 0, 10), ==, 30);
  g_assert_cmpuint (hpd_pool_plan_claim (0, 14, 0, 10), ==, 14);
  g_assert_cmpuint (hpd_pool_plan_claim (G_MAXUINT64 - 1, 4, 0, 10), ==, G_MAXUINT64);
  /* a shrinking one gives back what it gave up, never below the target */
  g_assert_cmpuint (hpd_pool_plan_claim (20, 10, 10, 0), ==, 10);
  g_assert_cmpuint (hpd_pool_plan_claim (20, 4, 10, 0), ==, 10);
  /* and nothing when the pool is already at or below it */
  g_assert_cmpuint (hpd_pool_plan_claim (8, 14, 10, 0), ==, 8);
}

static void
test_plan_node_claim (void)
{
  /* node 1 holds 2 pages of a pool of 4 at its target: a claim of 3 adds 3 */
  g_assert_cmpuint (hpd_pool_plan_node_claim (2, 3, 4, 7, 0, 3), ==, 5);
  /* the pool is 5 below its target (base 4 + 2 claimed + 3 now, holding
   * 4): the node brings it there, as a claim on the whole pool would */
  g_assert_cmpuint (hpd_pool_plan_node_claim (2, 3, 4, 9, 0, 3), ==, 7);
  g_assert_cmpuint (hpd_pool_plan_claim (4, 9, 0, 3), ==, 9);
  /* pages somebody added on top stay */
  g_assert_cmpuint (hpd_pool_plan_node_claim (6, 3, 12, 7, 0, 3), ==, 9);
  /* a release gives back only what the pool as a whole can spare */
  g_assert_cmpuint (hpd_pool_plan_node_claim (5, 0, 7, 4, 3, 0), ==, 2);
  g_assert_cmpuint (hpd_pool_plan_node_claim (5, 0, 6, 4, 3, 0), ==, 3);
  g_assert_cmpuint (hpd_pool_plan_node_claim (5, 0, 4, 4, 3, 0), ==, 5);
  g_assert_cmpuint (hpd_pool_plan_node_claim (G_MAXUINT64 - 1, 3, 0, G_MAXUINT64, 0, 3), ==,
                    G_MAXUINT64);
}

static void
test_memory_limit (void)
{
  g_autoptr(GError) error = NULL;
  guint64 limit = 100 * (guint64) SIZE_2M;

  g_assert_true (hpd_pool_memory_check ("2MB", SIZE_2M, 60, 40 * (guint64) SIZE_2M, limit,
                                        &error));
  g_assert_no_error (error);
  g_assert_false (hpd_pool_memory_check ("2MB", SIZE_2M, 61, 40 * (guint64) SIZE_2M, limit,
                                         &error));
  g_assert_error (error, HP_ERROR, HP_ERROR_LIMIT_EXCEEDED);
  g_clear_error (&error);
  /* alone above the limit, with nothing elsewhere */
  g_assert_false (hpd_pool_memory_check ("2MB", SIZE_2M, 101, 0, limit, &error));
  g_assert_error (error, HP_ERROR, HP_ERROR_LIMIT_EXCEEDED);
  g_clear_error (&error);
  /* other pools that saturated count as full, never as wrapped */
  g_assert_false (hpd_pool_memory_check ("2MB", SIZE_2M, 1, G_MAXUINT64, limit, &error));
  g_assert_error (error, HP_ERROR, HP_ERROR_LIMIT_EXCEEDED);
  g_clear_error (&error);
  /* a saturated target is too many bytes, not a small number */
  g_assert_false (hpd_pool_memory_check ("2MB", SIZE_2M, hpd_pool_target_of (G_MAXUINT64, 1),
                                         0, limit, &error));
  g_assert_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS);
}

/* One check and one error for a node the pool lacks, from the pool's
 * nodes or from counters read. */
static void
test_no_such_node (void)
{
  g_autoptr(HpdPool) pool = pool_2m ();
  g_auto(HpdPoolCounters) now = { 0, };
  HpdNodeCounters n1 = { .node = 1, .total = 4 };
  g_autoptr(GError) error = NULL;
  guint node = 1;

  g_array_append_val (pool->nodes, node);
  now.nodes = g_array_new (FALSE, TRUE, sizeof (HpdNodeCounters));
  g_array_append_val (now.nodes, n1);

  g_assert_true (hpd_pool_model_check_node (pool, 1, &error));
  g_assert_no_error (error);
  g_assert_true (hpd_pool_model_node_counters (pool, &now, 1, &error) ==
                 &g_array_index (now.nodes, HpdNodeCounters, 0));
  g_assert_no_error (error);

  g_assert_false (hpd_pool_model_check_node (pool, 3, &error));
  g_assert_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS);
  g_assert_cmpstr (error->message, ==, "NUMA node 3 has no 2MB pool");
  g_clear_error (&error);
  g_assert_null (hpd_pool_model_node_counters (pool, &now, 0, &error));
  g_assert_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS);
  g_assert_cmpstr (error->message, ==, "NUMA node 0 has no 2MB pool");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pool-model/saturating", test_saturating);
  g_test_add_func ("/pool-model/node-minimum", test_node_minimum);
  g_test_add_func ("/pool-model/base-rule", test_base_rule);
  g_test_add_func ("/pool-model/target-with-claims", test_target_with_claims);
  g_test_add_func ("/pool-model/claim-base", test_claim_base);
  g_test_add_func ("/pool-model/plan-claim", test_plan_claim);
  g_test_add_func ("/pool-model/plan-node-claim", test_plan_node_claim);
  g_test_add_func ("/pool-model/memory-limit", test_memory_limit);
  g_test_add_func ("/pool-model/no-such-node", test_no_such_node);
  return g_test_run ();
}
