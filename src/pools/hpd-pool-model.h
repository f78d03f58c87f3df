/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* One pool as the service manages it: the administrator's base, the
 * consumers' claims, the target they imply (the base plus every claim),
 * the memory limit a change must keep and the step that applies a change.
 * SetMinimum, SetMaximum, SetNodePages, Claim, Release, --apply, Drift,
 * Explain and the PageSize properties all ask this module; none of them
 * adds claims, chooses a base or checks the limit by itself.
 *
 * The counters and the write sequence are hpd-pool's, the claim files
 * hpd-claims', the recorded base hpd-requested's. The configuration is
 * config/'s, above this layer: a caller passes the configured minimum
 * (hpd_apply_configured_minimum ()) as a number. */
#pragma once

#include <gio/gio.h>

#include "hpd-alloc.h"
#include "hpd-pool.h"

G_BEGIN_DECLS

typedef struct _HpdDaemon HpdDaemon;

/* What a pool's target is made of. */
typedef struct {
  const HpdPool *pool;
  GPtrArray *claims;          /* HpdClaim: the claims in force (a reference) */
  gboolean has_requested;
  guint64 requested;          /* the base SetMinimum set since boot (/run) */
  gboolean has_configured;
  guint64 configured;         /* the configured minimum ([pool SIZE]) */
} HpdPoolModel;

/* The model of @pool now: the claims in force, the recorded base and the
 * configured minimum, @configured pages when @has_configured (the
 * configuration cache is the main thread's, so a worker passes what the
 * call read on arrival through hpd_pool_model_reload ()). */
void hpd_pool_model_init (HpdPoolModel *model, HpdDaemon *daemon, const HpdPool *pool,
                          gboolean has_configured, guint64 configured);
/* Only @claims (a reference is taken), no base: for callers that set or
 * compare a base of their own (SetMinimum, Drift). Any thread. */
void hpd_pool_model_init_claims (HpdPoolModel *model, const HpdPool *pool, GPtrArray *claims);
/* Any thread: the claims and the recorded base read again, the configured
 * minimum kept. */
void hpd_pool_model_reload (HpdPoolModel *model, HpdDaemon *daemon);
void hpd_pool_model_clear (HpdPoolModel *model);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (HpdPoolModel, hpd_pool_model_clear)

/* The rule for the base, the one place it is chosen: what the
 * administrator asked for last. A SetMinimum since boot (@requested,
 * recorded under /run) is newer than the configuration, and a SetMinimum
 * without persist must hold until reboot, so it comes first; else the
 * configured minimum. --apply applies the configured minimum and records
 * it as requested, so at boot the two agree. FALSE when neither exists. */
gboolean hpd_pool_base_choose (gboolean has_requested, guint64 requested,
                               gboolean has_configured, guint64 configured, guint64 *base);

/* The base of @model by that rule; FALSE (and 0) when unknown. */
gboolean hpd_pool_model_base (const HpdPoolModel *model, guint64 *base);

/* The pages claimed of the pool: HPD_CLAIM_ALL_NODES for every claim of
 * its size (node claims included), else those on @node. */
guint64 hpd_pool_model_claimed (const HpdPoolModel *model, guint32 node);

/* The target rule: @base plus every claim, saturating. */
guint64 hpd_pool_target_of (guint64 base, guint64 claimed);
/* The pool's target with @base (what SetMinimum or --apply sets). */
guint64 hpd_pool_model_target_for_base (const HpdPoolModel *model, guint64 base);
/* The pool's target: the base by the rule (0 when unknown) plus the claims.
 * What the Target property, Explain and Drift show. */
guint64 hpd_pool_model_target (const HpdPoolModel *model);
/* A node's target: @node_base (its configured count, 0 if none) plus the
 * claims on it. */
guint64 hpd_pool_model_node_target (const HpdPoolModel *model, guint32 node, guint64 node_base);
/* The same once one claim on @node changes from @old to @new pages (a
 * release: to 0): the target a Claim or Release on a node works towards. */
guint64 hpd_pool_model_node_target_with_claim (const HpdPoolModel *model, guint32 node,
                                               guint64 node_base, guint64 old, guint64 new);

/* The base a Claim works with, the pool at @now: the first claim on a size
 * takes the pool as it is (whoever made it: the administrator, a program
 * that writes sysfs), so pages somebody set before stay; later claims the
 * base by the rule, or the pool less the claims when none is known. The
 * caller records it (hpd_requested_note ()) so that pages another program
 * writes later are not mistaken for it. */
guint64 hpd_pool_model_claim_base (const HpdPoolModel *model, const HpdPoolCounters *now);
/* The pool's target with @base once one claim changes from @old to @new
 * pages (a release: to 0). */
guint64 hpd_pool_model_target_with_claim (const HpdPoolModel *model, guint64 base, guint64 old,
                                          guint64 new);

/* Where a pool (or node) at @current goes when a claim changes from @old
 * to @new pages and the target is @target: a growing claim adds what it
 * adds, to at least the target (pages someone else added stay theirs); a
 * shrinking one takes back what it gave up, never below the target, and
 * nothing when the pool is already at or below it. */
guint64 hpd_pool_plan_claim (guint64 current, guint64 target, guint64 old, guint64 new);
/* The same for a claim on a node at @node_current, whose target is
 * @node_target (its configured pages and its claims with this one
 * changed), of a pool at @pool_current whose target is @pool_target. A
 * claim that does not shrink brings the pool to its
 * target as a claim on the whole pool does (the pages come from this
 * node), not only the node; a shrinking one gives back only what the pool
 * as a whole can spare. */
guint64 hpd_pool_plan_node_claim (guint64 node_current, guint64 node_target, guint64 pool_current,
                                  guint64 pool_target, guint64 old, guint64 new);

/* InvalidArgs, "NUMA node N has no SIZE pool", unless @pool has @node:
 * the check of every call that names a node (SetNodePages, Claim and
 * Release on a node). */
gboolean hpd_pool_model_check_node (const HpdPool *pool, guint node, GError **error);
/* @node's counters in @now, or NULL with that error. */
const HpdNodeCounters *hpd_pool_model_node_counters (const HpdPool *pool,
                                                     const HpdPoolCounters *now, guint node,
                                                     GError **error);

/* The memory limit, pure: @pages of @page_size next to @others bytes the
 * other pools hold must stay within @limit bytes. InvalidArgs if the bytes
 * do not fit in 64 bits, LimitExceeded past the limit. */
gboolean hpd_pool_memory_check (const char *pool_name, guint64 page_size, guint64 pages,
                                guint64 others, guint64 limit, GError **error);
/* The same against the machine: PoolMemoryLimit and what the other pools
 * hold now, surplus included. */
gboolean hpd_pool_model_check_memory (HpdDaemon *daemon, const HpdPool *pool, guint64 pages,
                                      GError **error);
/* Whether @node of the pool at @now may hold @pages: the pool afterwards,
 * this node's new pages plus the others', within the limit. */
gboolean hpd_pool_model_check_node_memory (HpdDaemon *daemon, const HpdPool *pool,
                                           const HpdPoolCounters *now, guint node,
                                           guint64 pages, GError **error);

/* The apply step of every pool change: checks the memory limit for
 * @checked pages (0: the change only shrinks, nothing to check), then
 * writes @target (hpd_pool_apply ()) over the pool the caller read as @now
 * and re-reads the pool into @after. */
gboolean hpd_pool_model_apply (HpdDaemon *daemon, const HpdPool *pool,
                               const HpdPoolCounters *now, const HpdPoolTarget *target, guint64 checked,
                               const HpdAllocOptions *options, GCancellable *cancellable,
                               HpdPoolCounters *after, GError **error);
/* The same for one node: with @check, the node's limit against @now
 * (hpd_pool_model_check_node_memory ()); @achieved is the node's
 * persistent pages read back. */
gboolean hpd_pool_model_apply_node (HpdDaemon *daemon, const HpdPool *pool,
                                    const HpdPoolCounters *now, guint node, guint64 pages,
                                    gboolean check, const HpdAllocOptions *options,
                                    GCancellable *cancellable, guint64 *achieved,
                                    GError **error);

G_END_DECLS
