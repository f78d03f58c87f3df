/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hp-error.h"
#include "hp-units.h"
#include "hpd-claims.h"
#include "hpd-pool-model.h"
#include "hpd-service.h"

void
hpd_pool_model_reload (HpdPoolModel *model, HpdDaemon *daemon)
{
  g_clear_pointer (&model->claims, g_ptr_array_unref);
  model->claims = hpd_daemon_get_claims (daemon);
  model->has_requested = hpd_daemon_lookup_requested (daemon, model->pool, &model->requested);
}

void
hpd_pool_model_init (HpdPoolModel *model, HpdDaemon *daemon, const HpdPool *pool,
                     gboolean has_configured, guint64 configured)
{
  *model = (HpdPoolModel) {
    .pool = pool, .has_configured = has_configured,
    .configured = has_configured ? configured : 0,
  };
  hpd_pool_model_reload (model, daemon);
}

void
hpd_pool_model_init_claims (HpdPoolModel *model, const HpdPool *pool, GPtrArray *claims)
{
  *model = (HpdPoolModel) { .pool = pool, .claims = g_ptr_array_ref (claims) };
}

void
hpd_pool_model_clear (HpdPoolModel *model)
{
  g_clear_pointer (&model->claims, g_ptr_array_unref);
}

gboolean
hpd_pool_base_choose (gboolean has_requested, guint64 requested,
                      gboolean has_configured, guint64 configured, guint64 *base)
{
  *base = has_requested ? requested : has_configured ? configured : 0;
  return has_requested || has_configured;
}

gboolean
hpd_pool_model_base (const HpdPoolModel *model, guint64 *base)
{
  return hpd_pool_base_choose (model->has_requested, model->requested,
                               model->has_configured, model->configured, base);
}

guint64
hpd_pool_model_claimed (const HpdPoolModel *model, guint32 node)
{
  return model->claims != NULL ? hpd_claims_sum (model->claims, model->pool->size, node) : 0;
}

guint64
hpd_pool_target_of (guint64 base, guint64 claimed)
{
  return hp_add_saturating (base, claimed);
}

guint64
hpd_pool_model_target_for_base (const HpdPoolModel *model, guint64 base)
{
  return hpd_pool_target_of (base, hpd_pool_model_claimed (model, HPD_CLAIM_ALL_NODES));
}

guint64
hpd_pool_model_target (const HpdPoolModel *model)
{
  guint64 base;

  hpd_pool_model_base (model, &base);
  return hpd_pool_model_target_for_base (model, base);
}

guint64
hpd_pool_model_node_target (const HpdPoolModel *model, guint32 node, guint64 node_base)
{
  return hpd_pool_model_node_target_with_claim (model, node, node_base, 0, 0);
}

guint64
hpd_pool_model_node_target_with_claim (const HpdPoolModel *model, guint32 node,
                                       guint64 node_base, guint64 old, guint64 new)
{
  guint64 others = hp_sub_saturating (hpd_pool_model_claimed (model, node), old);

  return hpd_pool_target_of (node_base, hp_add_saturating (others, new));
}

guint64
hpd_pool_model_claim_base (const HpdPoolModel *model, const HpdPoolCounters *now)
{
  guint64 claimed = hpd_pool_model_claimed (model, HPD_CLAIM_ALL_NODES);
  guint64 base;

  if (claimed > 0 && hpd_pool_model_base (model, &base))
    return base;
  return hp_sub_saturating (hpd_pool_counters_minimum (now), claimed);
}

guint64
hpd_pool_model_target_with_claim (const HpdPoolModel *model, guint64 base, guint64 old,
                                  guint64 new)
{
  guint64 others = hp_sub_saturating (hpd_pool_model_claimed (model, HPD_CLAIM_ALL_NODES), old);

  return hpd_pool_target_of (base, hp_add_saturating (others, new));
}

guint64
hpd_pool_plan_claim (guint64 current, guint64 target, guint64 old, guint64 new)
{
  if (new >= old)
    return MAX (target, hp_add_saturating (current, new - old));
  if (current <= target)
    return current;
  return MAX (target, hp_sub_saturating (current, old - new));
}

guint64
hpd_pool_plan_node_claim (guint64 node_current, guint64 node_target, guint64 pool_current,
                          guint64 pool_target, guint64 old, guint64 new)
{
  guint64 wanted = hpd_pool_plan_claim (node_current, node_target, old, new);

  if (new >= old)
    return MAX (wanted, hp_add_saturating (node_current,
                                           hp_sub_saturating (pool_target, pool_current)));
  if (wanted < node_current)
    wanted = MAX (wanted, hp_sub_saturating (node_current,
                                             hp_sub_saturating (pool_current, pool_target)));
  return wanted;
}

static void
set_no_node_error (const HpdPool *pool, guint node, GError **error)
{
  g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS, "NUMA node %u has no %s pool", node,
               pool->name);
}

gboolean
hpd_pool_model_check_node (const HpdPool *pool, guint node, GError **error)
{
  if (hpd_pool_has_node (pool, node))
    return TRUE;
  set_no_node_error (pool, node, error);
  return FALSE;
}

const HpdNodeCounters *
hpd_pool_model_node_counters (const HpdPool *pool, const HpdPoolCounters *now, guint node,
                              GError **error)
{
  const HpdNodeCounters *n = hpd_pool_counters_node (now, node);

  if (n == NULL)
    set_no_node_error (pool, node, error);
  return n;
}

gboolean
hpd_pool_memory_check (const char *pool_name, guint64 page_size, guint64 pages,
                       guint64 others, guint64 limit, GError **error)
{
  g_autofree char *wanted = NULL;
  g_autofree char *others_text = NULL;
  g_autofree char *limit_text = NULL;
  guint64 bytes;

  if (!hp_pages_to_bytes (pages, page_size, &bytes))
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "%" G_GUINT64_FORMAT " pages of %s do not fit in 64 bits of bytes",
                   pages, pool_name);
      return FALSE;
    }
  if (bytes <= limit && others <= limit - bytes)
    return TRUE;

  wanted = hp_format_bytes (bytes);
  others_text = hp_format_bytes (others);
  limit_text = hp_format_bytes (limit);
  g_set_error (error, HP_ERROR, HP_ERROR_LIMIT_EXCEEDED,
               "%" G_GUINT64_FORMAT " pages of %s (%s) plus the other pools (%s) "
               "would exceed the limit of %s (90%% of MemTotal)",
               pages, pool_name, wanted, others_text, limit_text);
  return FALSE;
}

gboolean
hpd_pool_model_check_memory (HpdDaemon *daemon, const HpdPool *pool, guint64 pages,
                             GError **error)
{
  GPtrArray *pools = hpd_daemon_get_pools (daemon);
  HpdKernel *kernel = hpd_daemon_get_kernel (daemon);
  guint64 others = 0;

  for (guint i = 0; i < pools->len; i++)
    {
      const HpdPool *other = g_ptr_array_index (pools, i);
      guint64 total, held;

      /* what the other pool holds right now, surplus included */
      if (other == pool || !hpd_pool_read_total (kernel, other, &total, NULL))
        continue;
      if (!hp_pages_to_bytes (total, other->size, &held))
        held = G_MAXUINT64;
      others = hp_add_saturating (others, held);
    }
  return hpd_pool_memory_check (pool->name, pool->size, pages, others,
                                hpd_daemon_get_pool_memory_limit (daemon), error);
}

gboolean
hpd_pool_model_check_node_memory (HpdDaemon *daemon, const HpdPool *pool,
                                  const HpdPoolCounters *now, guint node, guint64 pages,
                                  GError **error)
{
  const HpdNodeCounters *n = hpd_pool_model_node_counters (pool, now, node, error);
  guint64 elsewhere;

  if (n == NULL)
    return FALSE;
  elsewhere = hp_sub_saturating (hpd_pool_counters_minimum (now), hpd_node_counters_minimum (n));
  if (pages > G_MAXUINT64 - elsewhere)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "%" G_GUINT64_FORMAT " pages is too many", pages);
      return FALSE;
    }
  return hpd_pool_model_check_memory (daemon, pool, pages + elsewhere, error);
}

gboolean
hpd_pool_model_apply (HpdDaemon *daemon, const HpdPool *pool, const HpdPoolCounters *now,
                      const HpdPoolTarget *target, guint64 checked, const HpdAllocOptions *options,
                      GCancellable *cancellable, HpdPoolCounters *after, GError **error)
{
  if (checked > 0 && !hpd_pool_model_check_memory (daemon, pool, checked, error))
    return FALSE;
  return hpd_pool_apply (hpd_daemon_get_kernel (daemon), pool, now, target, options,
                         cancellable, after, error);
}

gboolean
hpd_pool_model_apply_node (HpdDaemon *daemon, const HpdPool *pool, const HpdPoolCounters *now,
                           guint node, guint64 pages, gboolean check,
                           const HpdAllocOptions *options, GCancellable *cancellable,
                           guint64 *achieved, GError **error)
{
  if (check && !hpd_pool_model_check_node_memory (daemon, pool, now, node, pages, error))
    return FALSE;
  return hpd_pool_apply_node (hpd_daemon_get_kernel (daemon), pool, node, pages, options,
                              cancellable, achieved, error);
}
