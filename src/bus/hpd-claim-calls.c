/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hp-error.h"
#include "hp-names.h"
#include "hp-units.h"
#include "hpd-alloc.h"
#include "hpd-apply.h"
#include "hpd-claim-calls.h"
#include "hpd-daemon.h"
#include "hpd-job.h"
#include "hpd-page-size.h"
#include "hpd-pool-model.h"

GVariant *
hpd_claims_to_variant (GPtrArray *claims)
{
  GVariantBuilder b;

  g_variant_builder_init (&b, G_VARIANT_TYPE ("aa{sv}"));
  for (guint i = 0; i < claims->len; i++)
    {
      const HpdClaim *c = g_ptr_array_index (claims, i);

      g_variant_builder_open (&b, G_VARIANT_TYPE ("a{sv}"));
      g_variant_builder_add (&b, "{sv}", "consumer", g_variant_new_string (c->consumer));
      g_variant_builder_add (&b, "{sv}", "page-size", g_variant_new_uint64 (c->page_size));
      g_variant_builder_add (&b, "{sv}", "pages", g_variant_new_uint64 (c->pages));
      /* a claim on the whole pool has no node, as Claim's options */
      if (c->node != HPD_CLAIM_ALL_NODES)
        g_variant_builder_add (&b, "{sv}", "node", g_variant_new_uint32 (c->node));
      g_variant_builder_add (&b, "{sv}", "uid", g_variant_new_uint32 (c->uid));
      g_variant_builder_add (&b, "{sv}", "persisted", g_variant_new_boolean (c->persisted));
      g_variant_builder_close (&b);
    }
  return g_variant_builder_end (&b);
}

/* One Claim or Release on its way to the kernel. */
typedef struct {
  HpdDaemon *daemon;
  const HpdPool *pool;       /* owned by the daemon */
  char *consumer;
  guint32 node;              /* HPD_CLAIM_ALL_NODES: the pool */
  gboolean release;
  guint64 pages;             /* the claim; 0 for a release */
  gboolean persist;
  HpdAllocOptions alloc;
  HpdPoolModel model;        /* the configured base as read on arrival */
  guint64 node_configured;   /* the node's configured pages (nodeN), as read on arrival */
  guint32 uid;               /* the caller, once authorized */
  /* worker results, for the log */
  guint64 old_pages;
  guint64 target;
  guint64 kernel_after;
  HpdAllocReport report;
} ClaimOp;

static void
claim_op_free (ClaimOp *op)
{
  g_clear_object (&op->daemon);
  hpd_pool_model_clear (&op->model);
  g_free (op->consumer);
  g_free (op);
}

static char *
place_text (const ClaimOp *op)
{
  return op->node == HPD_CLAIM_ALL_NODES ? g_strdup_printf ("the %s pool", op->pool->name)
                                         : g_strdup_printf ("the %s pool on node %u",
                                                            op->pool->name, op->node);
}

static GVariant *
apply_claim (gpointer data, GCancellable *cancellable, GError **error)
{
  ClaimOp *op = data;
  HpdKernel *kernel = hpd_daemon_get_kernel (op->daemon);
  const char *root = hpd_kernel_get_root (kernel);
  const HpdPool *pool = op->pool;
  HpdPoolModel *model = &op->model;
  const HpdClaim *existing;
  g_auto(HpdPoolCounters) now = { 0, };
  g_auto(HpdPoolCounters) after = { 0, };
  guint64 base, pool_target, current, wanted, held, shortfall;
  gboolean grows;

  /* the claims and the recorded base as they are now, not as the call
   * found them: another change may have run in between */
  hpd_pool_model_reload (model, op->daemon);
  existing = hpd_claims_find (model->claims, op->consumer, pool->size, op->node);
  if (op->release && existing == NULL)
    {
      g_autofree char *place = place_text (op);
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "%s holds no claim on %s", op->consumer, place);
      return NULL;
    }
  /* the limits again, against the claims and pools as they are now:
   * calls validated together on arrival must not all get through */
  if (!op->release &&
      !hpd_claims_check_room (model->claims, op->consumer, pool->size, op->node, error))
    return NULL;
  op->old_pages = existing != NULL ? existing->pages : 0;
  if (!hpd_pool_read (kernel, pool, &now, error))
    return NULL;

  /* recorded, so that pages another program writes later are not
   * mistaken for the base */
  base = hpd_pool_model_claim_base (model, &now);
  if (!model->has_requested || model->requested != base)
    hpd_daemon_note_requested (op->daemon, pool, base);
  pool_target = hpd_pool_model_target_with_claim (model, base, op->old_pages, op->pages);
  grows = !op->release && op->pages > op->old_pages;
  current = hpd_pool_counters_minimum (&now);

  if (op->node == HPD_CLAIM_ALL_NODES)
    {
      op->target = pool_target;
      wanted = hpd_pool_plan_claim (current, pool_target, op->old_pages, op->pages);
      if (wanted != current)
        {
          HpdPoolTarget target = hpd_pool_target_for_minimum (&now, pool->can_overcommit, wanted);

          if (!hpd_pool_model_apply (op->daemon, pool, &now, &target, grows ? pool_target : 0,
                                     &op->alloc, cancellable, &after, error))
            return NULL;
          held = hpd_pool_counters_kept (&now, &after);
        }
      else if (grows && !hpd_pool_model_check_memory (op->daemon, pool, pool_target, error))
        return NULL;
      else
        held = current;
    }
  else
    {
      const HpdNodeCounters *n = hpd_pool_model_node_counters (pool, &now, op->node, error);
      guint64 node_current;

      if (n == NULL)
        return NULL;
      if (grows && !hpd_pool_model_check_memory (op->daemon, pool, pool_target, error))
        return NULL;
      node_current = hpd_node_counters_minimum (n);
      /* the node's target as Nodes, Explain and --apply have it (its
       * configured pages plus its claims), so that a claim does not leave
       * the node short of it nor a release take it below */
      op->target = hpd_pool_model_node_target_with_claim (model, op->node, op->node_configured,
                                                          op->old_pages, op->pages);
      wanted = hpd_pool_plan_node_claim (node_current, op->target, current, pool_target,
                                         op->old_pages, op->pages);
      if (wanted != node_current)
        {
          /* a node that grows is checked for itself: the configured pages
           * it lacked are not in the pool's target checked above */
          if (!hpd_pool_model_apply_node (op->daemon, pool, &now, op->node, wanted,
                                          wanted > node_current, &op->alloc, cancellable, &held,
                                          error))
            return NULL;
        }
      else
        held = node_current;
    }
  op->kernel_after = held;
  shortfall = hp_sub_saturating (op->target, held);

  if (op->release)
    {
      if (!hpd_claims_remove (root, op->consumer, pool->size, op->node, error))
        return NULL;
      return g_variant_new ("(t)", held);
    }
  else
    {
      HpdClaim claim = {
        .consumer = op->consumer,
        .page_size = pool->size,
        .node = op->node,
        .pages = op->pages,
        .uid = op->uid,
      };

      if (!hpd_claims_store (root, &claim, op->persist, error))
        return NULL;
      return g_variant_new ("(t)", hp_sub_saturating (op->pages, shortfall));
    }
}

static void
claim_authorized (gpointer data, const HpdCaller *caller)
{
  ClaimOp *op = data;

  op->uid = caller->uid;
}

static void
claim_done (gpointer data, const HpdCaller *caller, GVariant *reply, const GError *error)
{
  ClaimOp *op = data;
  g_autofree char *place = place_text (op);

  hpd_daemon_note_allocation (op->daemon, op->pool, &op->report);
  hpd_daemon_refresh_pools (op->daemon);
  if (reply == NULL)
    {
      g_warning ("uid %u (pid %u): %s of %s on %s failed: %s", caller->uid, caller->pid,
                 op->release ? "releasing the claim" : "the claim", op->consumer, place,
                 error->message);
      return;
    }
  if (op->release)
    g_message ("uid %u (pid %u) released the claim of %s on %s (%" G_GUINT64_FORMAT
               " pages); the target is now %" G_GUINT64_FORMAT ", the kernel holds %"
               G_GUINT64_FORMAT, caller->uid, caller->pid, op->consumer, place,
               op->old_pages, op->target, op->kernel_after);
  else
    g_message ("uid %u (pid %u) claimed %" G_GUINT64_FORMAT " pages of %s for %s%s; "
               "the target is %" G_GUINT64_FORMAT ", the kernel holds %" G_GUINT64_FORMAT "%s",
               caller->uid, caller->pid, op->pages, place, op->consumer,
               op->persist ? " (persisted)" : "", op->target, op->kernel_after,
               op->kernel_after < op->target ? " (short)" : "");
}

typedef struct {
  guint32 node;
  gboolean persist;
  gboolean dry_run;
  gboolean hard;
  guint32 timeout_ms;
  gboolean drop_caches;
} ClaimOptions;

/* The keys a method accepts are its row's (hpd-methods.c), checked. */
static gboolean
read_claim_options (const HpdCall *call, ClaimOptions *out, GError **error)
{
  *out = (ClaimOptions) { .node = HPD_CLAIM_ALL_NODES, .timeout_ms = HPD_ALLOC_DEFAULT_TIMEOUT_MS };
  g_variant_lookup (call->options, HP_OPTION_NODE, "u", &out->node);
  g_variant_lookup (call->options, HP_OPTION_PERSIST, "b", &out->persist);
  g_variant_lookup (call->options, HP_OPTION_DRY_RUN, "b", &out->dry_run);
  g_variant_lookup (call->options, HP_OPTION_HARD, "b", &out->hard);
  g_variant_lookup (call->options, HP_OPTION_TIMEOUT_MS, "u", &out->timeout_ms);
  g_variant_lookup (call->options, HP_OPTION_DROP_CACHES, "b", &out->drop_caches);
  return hpd_alloc_check_options (out->hard, out->timeout_ms, out->drop_caches, error);
}

/* Everything that can be refused before authorization: the name, the
 * node, and for a claim the count, the number of consumers and the memory
 * the pool would then need. The pool is the object called. */
static ClaimOp *
validate (HpdDaemon *daemon, const HpdPool *pool, const char *consumer, gboolean release,
          guint64 pages, const ClaimOptions *opts, GError **error)
{
  g_auto(HpdPoolModel) model = { 0, };
  const HpdConfig *config = hpd_daemon_get_config (daemon, NULL);
  const HpdClaim *existing;
  guint64 configured, node_configured = 0;
  gboolean has_configured;
  ClaimOp *op;

  if (!hpd_claim_consumer_valid (consumer, error))
    return NULL;
  if (opts->node != HPD_CLAIM_ALL_NODES &&
      !hpd_pool_model_check_node (pool, opts->node, error))
    return NULL;

  has_configured = hpd_apply_configured_minimum (config, pool, &configured);
  if (opts->node != HPD_CLAIM_ALL_NODES)
    node_configured = hpd_apply_configured_node_pages (config, pool, opts->node);
  hpd_pool_model_init (&model, daemon, pool, has_configured, configured);
  existing = hpd_claims_find (model.claims, consumer, pool->size, opts->node);
  if (release && existing == NULL)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS, "%s holds no claim on %s pages%s",
                   consumer, pool->name, opts->node == HPD_CLAIM_ALL_NODES ? "" : " on that node");
      return NULL;
    }
  if (!release)
    {
      if (pages == 0)
        {
          g_set_error_literal (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                               "A claim is at least one page; Release removes a claim");
          return NULL;
        }
      g_auto(HpdPoolCounters) now = { 0, };
      guint64 base, old = existing != NULL ? existing->pages : 0;

      if (!hpd_claims_check_room (model.claims, consumer, pool->size, opts->node, error) ||
          !hpd_pool_read (hpd_daemon_get_kernel (daemon), pool, &now, error))
        return NULL;
      base = hpd_pool_model_claim_base (&model, &now);
      if (!hpd_pool_model_check_memory (daemon, pool,
                                        hpd_pool_model_target_with_claim (&model, base, old, pages),
                                        error))
        return NULL;
      /* a node below its configured pages is brought to them as well */
      if (opts->node != HPD_CLAIM_ALL_NODES)
        {
          guint64 node_target = hpd_pool_model_node_target_with_claim (&model, opts->node,
                                                                       node_configured, old, pages);
          const HpdNodeCounters *n = hpd_pool_model_node_counters (pool, &now, opts->node, error);

          if (n == NULL ||
              (node_target > hpd_node_counters_minimum (n) &&
               !hpd_pool_model_check_node_memory (daemon, pool, &now, opts->node, node_target,
                                                  error)))
            return NULL;
        }
    }

  op = g_new0 (ClaimOp, 1);
  op->daemon = g_object_ref (daemon);
  op->pool = pool;
  op->consumer = g_strdup (consumer);
  op->node = opts->node;
  op->release = release;
  op->pages = release ? 0 : pages;
  op->persist = opts->persist;
  op->alloc = (HpdAllocOptions) {
    .hard = opts->hard,
    .timeout_ms = opts->timeout_ms,
    .drop_caches = opts->drop_caches,
    .report = &op->report,
    .last_alloc = hpd_daemon_get_last_alloc (daemon),
  };
  op->model = model;
  model = (HpdPoolModel) { 0, };
  op->node_configured = node_configured;
  return op;
}

static void
run (HpdDaemon *daemon, GDBusMethodInvocation *invocation, ClaimOp *op)
{
  g_autoptr(GHashTable) details = hpd_auth_details_new ();
  g_autofree char *size = g_strdup_printf ("%" G_GUINT64_FORMAT, op->pool->size);
  g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, op->pages);

  hpd_auth_details_set (details, "consumer", op->consumer);
  hpd_auth_details_set (details, "page-size", size);
  if (!op->release)
    hpd_auth_details_set (details, "pages", count);
  if (op->node != HPD_CLAIM_ALL_NODES)
    {
      g_autofree char *node = g_strdup_printf ("%u", op->node);
      hpd_auth_details_set (details, "node", node);
    }
  if (op->persist)
    hpd_auth_details_set (details, "persist", "true");

  hpd_job_run_full (daemon, invocation, details, claim_authorized, apply_claim, claim_done, NULL,
                    op, (GDestroyNotify) claim_op_free);
}

void
hpd_claim_calls_claim (const HpdCall *call)
{
  HpdDaemon *daemon = call->daemon;
  GDBusMethodInvocation *invocation = call->invocation;
  g_autoptr(GError) error = NULL;
  const HpdPool *pool = hpd_page_size_get_pool (HPD_PAGE_SIZE (call->object));
  const char *consumer;
  guint64 pages;
  ClaimOptions opts;
  ClaimOp *op;

  g_variant_get (call->parameters, "(&st@a{sv})", &consumer, &pages, NULL);
  if (!read_claim_options (call, &opts, &error) ||
      (op = validate (daemon, pool, consumer, FALSE, pages, &opts, &error)) == NULL)
    {
      hpd_job_return_error (invocation, error);
      return;
    }
  if (opts.dry_run)
    {
      g_dbus_method_invocation_return_value (invocation, g_variant_new ("(t)", pages));
      claim_op_free (op);
      return;
    }
  run (daemon, invocation, op);
}

void
hpd_claim_calls_release (const HpdCall *call)
{
  HpdDaemon *daemon = call->daemon;
  GDBusMethodInvocation *invocation = call->invocation;
  g_autoptr(GError) error = NULL;
  const HpdPool *pool = hpd_page_size_get_pool (HPD_PAGE_SIZE (call->object));
  const char *consumer;
  ClaimOptions opts;
  ClaimOp *op;

  g_variant_get (call->parameters, "(&s@a{sv})", &consumer, NULL);
  if (!read_claim_options (call, &opts, &error) ||
      (op = validate (daemon, pool, consumer, TRUE, 0, &opts, &error)) == NULL)
    {
      hpd_job_return_error (invocation, error);
      return;
    }
  run (daemon, invocation, op);
}

void
hpd_claim_calls_get (const HpdCall *call)
{
  g_autoptr(GPtrArray) claims = hpd_daemon_get_claims (call->daemon);

  g_dbus_method_invocation_return_value (call->invocation,
                                         g_variant_new ("(@aa{sv})", hpd_claims_to_variant (claims)));
}
