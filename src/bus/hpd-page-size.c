/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <string.h>

#include "hp-error.h"
#include "hp-names.h"
#include "hpd-alloc.h"
#include "hpd-apply.h"
#include "hpd-claims.h"
#include "hpd-daemon.h"
#include "hpd-fresh.h"
#include "hpd-job.h"
#include "hpd-last-alloc.h"
#include "hpd-mounts.h"
#include "hpd-page-size.h"
#include "hpd-persist.h"
#include "hpd-pool-model.h"
#include "hpd-queue.h"
#include "hp-units.h"

/* How long "hard" may keep trying unless the caller says otherwise. */

struct _HpdPageSize
{
  HpDBusManagerPageSizeSkeleton parent_instance;
  HpdDaemon *daemon;       /* owns us */
  const HpdPool *pool;     /* owned by the daemon */
  HpdPoolCounters shown;   /* the counters publish_counters() last set */
  GArray *shown_targets;   /* guint64, the nodes' targets it set with them */
};

/* The methods are dispatched from the method table (hpd-methods.c), not
 * through the generated handle-* signals. */
G_DEFINE_TYPE (HpdPageSize, hpd_page_size, HP_DBUS_TYPE_MANAGER_PAGE_SIZE_SKELETON)

static gboolean
counters_equal (const HpdPoolCounters *a, const HpdPoolCounters *b)
{
  if (a->nodes == NULL || b->nodes == NULL || a->nodes->len != b->nodes->len ||
      a->total != b->total || a->free != b->free || a->reserved != b->reserved ||
      a->surplus != b->surplus || a->overcommit != b->overcommit)
    return FALSE;
  for (guint i = 0; i < a->nodes->len; i++)
    {
      const HpdNodeCounters *m = &g_array_index (a->nodes, HpdNodeCounters, i);
      const HpdNodeCounters *n = &g_array_index (b->nodes, HpdNodeCounters, i);

      if (m->node != n->node || m->total != n->total || m->free != n->free ||
          m->surplus != n->surplus)
        return FALSE;
    }
  return TRUE;
}

static gboolean
targets_equal (GArray *a, GArray *b)
{
  /* no memcmp () of an empty array, whose data may be NULL */
  return a != NULL && b != NULL && a->len == b->len &&
         (a->len == 0 || memcmp (a->data, b->data, a->len * sizeof (guint64)) == 0);
}

/* Sets the counters' properties and Nodes, unless the counters just read
 * and the nodes' targets are those already shown: then nothing changed
 * (and a Nodes array of every node is not built again to find that out).
 * @targets holds the target of each node of @c, in its order. Keeps @c and
 * @targets as the values shown. */
static void
publish_counters (HpdPageSize *self, HpdPoolCounters *c, GArray **targets)
{
  HpDBusManagerPageSize *iface = HP_DBUS_MANAGER_PAGE_SIZE (self);
  g_autoptr(GVariantBuilder) nodes = NULL;
  g_autoptr(GVariant) value = NULL;

  if (counters_equal (c, &self->shown) && targets_equal (*targets, self->shown_targets))
    return;
  nodes = g_variant_builder_new (G_VARIANT_TYPE ("aa{sv}"));
  for (guint i = 0; i < c->nodes->len; i++)
    {
      const HpdNodeCounters *n = &g_array_index (c->nodes, HpdNodeCounters, i);

      g_variant_builder_open (nodes, G_VARIANT_TYPE_VARDICT);
      g_variant_builder_add (nodes, "{sv}", "node", g_variant_new_uint32 (n->node));
      g_variant_builder_add (nodes, "{sv}", "total", g_variant_new_uint64 (n->total));
      g_variant_builder_add (nodes, "{sv}", "free", g_variant_new_uint64 (n->free));
      g_variant_builder_add (nodes, "{sv}", "surplus", g_variant_new_uint64 (n->surplus));
      g_variant_builder_add (nodes, "{sv}", "minimum",
                             g_variant_new_uint64 (hpd_node_counters_minimum (n)));
      g_variant_builder_add (nodes, "{sv}", "target",
                             g_variant_new_uint64 (g_array_index (*targets, guint64, i)));
      g_variant_builder_close (nodes);
    }

  hp_dbus_manager_page_size_set_total (iface, c->total);
  hp_dbus_manager_page_size_set_free (iface, c->free);
  hp_dbus_manager_page_size_set_reserved (iface, c->reserved);
  hp_dbus_manager_page_size_set_surplus (iface, c->surplus);
  hp_dbus_manager_page_size_set_overcommit (iface, c->overcommit);
  hp_dbus_manager_page_size_set_minimum (iface, hpd_pool_counters_minimum (c));
  hp_dbus_manager_page_size_set_maximum (iface, hpd_pool_counters_maximum (c));
  /* The builder makes a tree of about 19 GVariants per node, some 2.5 kB,
   * which the property would keep until the counters change (64 nodes × 5
   * sizes: 800 kB of the idle service's heap). Serialised it is one block
   * of about 150 bytes per node. The skeleton's comparison of a changed
   * value with the one it holds serialises both anyway; a value set once
   * and never changed was kept as the tree. */
  value = g_variant_ref_sink (g_variant_builder_end (nodes));
  (void) g_variant_get_data (value);
  hp_dbus_manager_page_size_set_nodes (iface, value);
  hpd_pool_counters_clear (&self->shown);
  self->shown = *c;
  c->nodes = NULL;
  g_clear_pointer (&self->shown_targets, g_array_unref);
  self->shown_targets = g_steal_pointer (targets);
}

/* Base and Target as the pool model has them, and the target of each node
 * of @c for Nodes: the configuration and the claims come from the daemon's
 * caches, cheap on the main loop. A change of either changes the targets
 * with no change of the kernel's counters, so they are made at every
 * refresh as the counters are read. */
static GArray *
publish_target (HpdPageSize *self, const HpdPoolCounters *c)
{
  HpDBusManagerPageSize *iface = HP_DBUS_MANAGER_PAGE_SIZE (self);
  g_auto(HpdPoolModel) model = { 0, };
  const HpdConfig *config = hpd_daemon_get_config (self->daemon, NULL);
  GArray *targets = g_array_sized_new (FALSE, FALSE, sizeof (guint64), c->nodes->len);
  guint64 base, configured;
  gboolean has_configured = hpd_apply_configured_minimum (config, self->pool, &configured);

  hpd_pool_model_init (&model, self->daemon, self->pool, has_configured, configured);
  hpd_pool_model_base (&model, &base);
  hp_dbus_manager_page_size_set_base (iface, base);
  hp_dbus_manager_page_size_set_target (iface, hpd_pool_model_target (&model));

  for (guint i = 0; i < c->nodes->len; i++)
    {
      guint64 target = hpd_apply_node_target (config, &model,
                                              g_array_index (c->nodes, HpdNodeCounters, i).node);

      g_array_append_val (targets, target);
    }
  return targets;
}

static gboolean
read_counters (HpdPageSize *self, HpdPoolCounters *c, GError **error)
{
  return hpd_pool_read (hpd_daemon_get_kernel (self->daemon), self->pool, c, error);
}

void
hpd_page_size_refresh_mounts (HpdPageSize *self)
{
  g_autoptr(GPtrArray) mounts = hpd_mounts_read (hpd_daemon_get_kernel (self->daemon),
                                                 hpd_daemon_get_default_page_size (self->daemon));
  g_auto(GStrv) paths = hpd_mounts_paths_of_size (mounts, self->pool->size);

  hp_dbus_manager_page_size_set_mounts (HP_DBUS_MANAGER_PAGE_SIZE (self),
                                        (const char *const *) paths);
}

/* The pool's properties, from @c when the caller has just read the pool
 * (its nodes are taken), else from a read now. */
static gboolean
refresh_pool (HpdPageSize *self, HpdPoolCounters *c)
{
  g_auto(HpdPoolCounters) read = { 0, };
  g_autoptr(GArray) targets = NULL;
  g_autoptr(GError) error = NULL;

  if (c == NULL || c->nodes == NULL)
    {
      if (!read_counters (self, &read, &error))
        {
          g_warning ("Could not read the %s pool: %s", self->pool->name, error->message);
          return FALSE;
        }
      c = &read;
    }
  targets = publish_target (self, c);
  publish_counters (self, c, &targets);
  return TRUE;
}

static void
hpd_page_size_refresh (GDBusInterfaceSkeleton *skeleton)
{
  HpdPageSize *self = HPD_PAGE_SIZE (skeleton);

  if (refresh_pool (self, NULL))
    hpd_page_size_refresh_mounts (self);
}

void
hpd_page_size_refresh_now (HpdPageSize *self)
{
  hpd_page_size_refresh (G_DBUS_INTERFACE_SKELETON (self));
  g_dbus_interface_skeleton_flush (G_DBUS_INTERFACE_SKELETON (self));
}

/* One pool change on its way from the bus to the kernel and back. */
typedef enum {
  CHANGE_MINIMUM,
  CHANGE_MAXIMUM,
  CHANGE_NODE,
  CHANGE_DEMOTE,
} ChangeKind;

typedef struct {
  ChangeKind kind;
  HpdPageSize *self;
  guint node;
  guint64 pages;
  HpdAllocOptions alloc;
  gboolean persist;
  char *saved;        /* the configuration text persisting writes */
  GMainContext *context;       /* the daemon's, where signals are emitted */
  HpdAllocThrottle throttle;   /* worker thread only */
  /* Progress is held back for HPD_ALLOC_PROGRESS_GRACE_MS from the start:
   * the first and the latest report wait for the grace timer (main
   * thread); once it fired, reports go out as they come. */
  GMutex lock;                 /* shown, held, progress_started */
  gboolean shown;
  struct _Progress *held_first, *held_latest;
  guint grace_id;              /* main thread */
  gboolean progress_started;   /* a signal was sent; read after the work ended */
  HpdAllocReport report;       /* set in the worker, read after it ended */
  HpdPoolCounters after;       /* the pool the worker read back, if it did */
} Change;

static void progress_free (struct _Progress *p);

static void
change_free (Change *change)
{
  g_clear_handle_id (&change->grace_id, g_source_remove);
  g_clear_pointer (&change->held_first, progress_free);
  g_clear_pointer (&change->held_latest, progress_free);
  g_mutex_clear (&change->lock);
  hpd_pool_counters_clear (&change->after);
  g_clear_object (&change->self);
  g_clear_pointer (&change->context, g_main_context_unref);
  g_free (change->saved);
  g_free (change);
}

static const char *
change_description (ChangeKind kind)
{
  switch (kind)
    {
    case CHANGE_MINIMUM: return "minimum";
    case CHANGE_MAXIMUM: return "maximum";
    case CHANGE_NODE:    return "node pool";
    case CHANGE_DEMOTE:  return "demotion";
    default:             g_assert_not_reached ();
    }
}

static void
return_pages (GDBusMethodInvocation *invocation, guint64 pages)
{
  g_dbus_method_invocation_return_value (invocation, g_variant_new ("(t)", pages));
}

/* SetMinimum sets the administrator's base; the kernel's pool is the
 * model's target for it, the base plus every claim (hpd-pool-model.h). */
static guint64
target_for_base (HpdPageSize *self, guint64 base, guint64 *claimed)
{
  g_autoptr(GPtrArray) claims = hpd_daemon_get_claims (self->daemon);
  g_auto(HpdPoolModel) model = { 0, };

  hpd_pool_model_init_claims (&model, self->pool, claims);
  *claimed = hpd_pool_model_claimed (&model, HPD_CLAIM_ALL_NODES);
  return hpd_pool_model_target_for_base (&model, base);
}

static const HpdPool *
find_pool (HpdDaemon *daemon, guint64 size)
{
  GPtrArray *pools = hpd_daemon_get_pools (daemon);

  for (guint i = 0; i < pools->len; i++)
    if (((const HpdPool *) g_ptr_array_index (pools, i))->size == size)
      return g_ptr_array_index (pools, i);
  return NULL;
}

static void
append_section (GString *text, const HpdPool *pool, const char *key, guint64 pages)
{
  g_autofree char *size = hp_size_name (pool->size);

  g_string_append_printf (text, "[pool %s]\n%s = %" G_GUINT64_FORMAT "\n", size, key, pages);
}

/* The saved pool is what was asked for, not what the kernel gave: a pool
 * that fell short shows as drift, and boot, before memory fragments, is
 * the best moment to get the rest. Node counts and a minimum contradict
 * each other, so setting one drops the other from the service's file. */
static gboolean
edit_pool (HpdConfig *config, gpointer data, GError **error)
{
  Change *change = data;
  const HpdPool *pool = change->self->pool;

  if (change->kind == CHANGE_MINIMUM || change->kind == CHANGE_DEMOTE)
    hpd_config_unset_pool_nodes (config, pool->size);
  if (change->kind == CHANGE_NODE)
    hpd_config_unset_pool_minimum (config, pool->size);
  if (change->kind == CHANGE_DEMOTE)
    hpd_config_unset_pool_nodes (config, pool->demote_size);
  return hpd_persist_merge (config, change->saved, error);
}

static gboolean
persist_change (Change *change, GError **error)
{
  HpdDaemon *daemon = change->self->daemon;
  HpdKernel *kernel = hpd_daemon_get_kernel (daemon);
  const HpdPool *pool = change->self->pool;
  g_autoptr(GString) text = g_string_new (NULL);

  switch (change->kind)
    {
    case CHANGE_MINIMUM:
      append_section (text, pool, "minimum", change->pages);
      break;
    case CHANGE_MAXIMUM:
      append_section (text, pool, "maximum", change->pages);
      break;
    case CHANGE_NODE:
      {
        g_autofree char *key = g_strdup_printf ("node%u", change->node);
        append_section (text, pool, key, change->pages);
      }
      break;
    case CHANGE_DEMOTE:
      {
        /* both pools as the demotion left them */
        const HpdPool *pools[] = { pool, find_pool (daemon, pool->demote_size) };

        for (guint i = 0; i < G_N_ELEMENTS (pools); i++)
          {
            g_auto(HpdPoolCounters) c = { 0, };

            if (pools[i] == NULL || !hpd_pool_read (kernel, pools[i], &c, error))
              {
                if (pools[i] == NULL)
                  g_set_error_literal (error, HP_ERROR, HP_ERROR_FAILED,
                                       "The demote size has no pool");
                return FALSE;
              }
            append_section (text, pools[i], "minimum", hpd_pool_counters_minimum (&c));
          }
      }
      break;
    default:
      g_assert_not_reached ();
    }

  change->saved = g_string_free (g_steal_pointer (&text), FALSE);
  return hpd_persist (hpd_kernel_get_root (kernel), edit_pool, change, error);
}

/* One AllocationProgress signal on its way from the worker thread to the
 * main context, which owns the skeleton and its connections. */
typedef struct _Progress {
  HpdPageSize *self;
  guint64 achieved;
  guint64 target;
  char *phase;
} Progress;

static void
progress_free (Progress *p)
{
  g_clear_object (&p->self);
  g_free (p->phase);
  g_free (p);
}

static void
emit_progress (HpdPageSize *self, guint64 achieved, guint64 target, const char *phase)
{
  hp_dbus_manager_page_size_emit_allocation_progress (HP_DBUS_MANAGER_PAGE_SIZE (self),
                                                      achieved, target, phase);
}

static gboolean
emit_progress_now (gpointer data)
{
  Progress *p = data;

  emit_progress (p->self, p->achieved, p->target, p->phase);
  return G_SOURCE_REMOVE;
}

/* Worker thread, from the allocation engine. Signals queued here are
 * dispatched in order and before the job's completion, which is queued
 * on the same context after the work returns. */
static void
progress_from_worker (guint64 achieved, guint64 target, const char *phase, gpointer data)
{
  Change *change = data;
  Progress *p = g_new0 (Progress, 1);

  p->self = g_object_ref (change->self);
  p->achieved = achieved;
  p->target = target;
  p->phase = g_strdup (phase);

  g_mutex_lock (&change->lock);
  if (!change->shown)
    {
      if (change->held_first == NULL)
        change->held_first = p;
      else
        {
          g_clear_pointer (&change->held_latest, progress_free);
          change->held_latest = p;
        }
      g_mutex_unlock (&change->lock);
      return;
    }
  g_mutex_unlock (&change->lock);

  if (!hpd_alloc_throttle_pass (&change->throttle, g_get_monotonic_time ()))
    {
      progress_free (p);
      return;
    }
  g_mutex_lock (&change->lock);
  change->progress_started = TRUE;
  g_mutex_unlock (&change->lock);
  g_main_context_invoke_full (change->context, G_PRIORITY_DEFAULT, emit_progress_now, p,
                              (GDestroyNotify) progress_free);
}

/* Main thread: the change still runs after the grace time, so its
 * progress is shown from here on, starting with what was held back. */
static gboolean
grace_over (gpointer data)
{
  Change *change = data;
  g_autoptr(GPtrArray) held = g_ptr_array_new_with_free_func ((GDestroyNotify) progress_free);

  change->grace_id = 0;
  g_mutex_lock (&change->lock);
  change->shown = TRUE;
  if (change->held_first != NULL)
    {
      g_ptr_array_add (held, g_steal_pointer (&change->held_first));
      change->progress_started = TRUE;
    }
  if (change->held_latest != NULL)
    g_ptr_array_add (held, g_steal_pointer (&change->held_latest));
  g_mutex_unlock (&change->lock);

  for (guint i = 0; i < held->len; i++)
    emit_progress_now (g_ptr_array_index (held, i));
  return G_SOURCE_REMOVE;
}

/* Main thread, when the change is authorized and goes to the queue. */
static void
start_grace (gpointer data, const HpdCaller *caller)
{
  Change *change = data;

  change->grace_id = g_timeout_add (HPD_ALLOC_PROGRESS_GRACE_MS, grace_over, change);
}

/* Runs in the queue's worker thread: the only place pools are written. */
static GVariant *
change_kernel (Change *change, GCancellable *cancellable, GError **error)
{
  HpdPageSize *self = change->self;
  HpdKernel *kernel = hpd_daemon_get_kernel (self->daemon);
  const HpdPool *pool = self->pool;
  g_auto(HpdPoolCounters) now = { 0, };
  HpdPoolCounters *after = &change->after;
  HpdPoolTarget target;
  guint64 result = 0, claimed = 0, wanted = change->pages;

  switch (change->kind)
    {
    case CHANGE_MINIMUM:
    case CHANGE_MAXIMUM:
      if (change->kind == CHANGE_MINIMUM)
        {
          change->alloc.progress = progress_from_worker;
          change->alloc.progress_data = change;
          wanted = target_for_base (self, change->pages, &claimed);
        }
      /* Plan against the pool as it is now, not as it was when the call
       * arrived: another change may have run in between. The limit too
       * (checked by the apply step): calls checked together on arrival
       * must not all get through. */
      if (!hpd_pool_read (kernel, pool, &now, error))
        return NULL;
      target = change->kind == CHANGE_MINIMUM
        ? hpd_pool_target_for_minimum (&now, pool->can_overcommit, wanted)
        : hpd_pool_target_for_maximum (&now, change->pages);
      if (!hpd_pool_model_apply (self->daemon, pool, &now, &target, wanted, &change->alloc,
                                 cancellable, after, error))
        return NULL;
      /* here, not once the reply is on its way: a Claim queued behind
       * this change reads it as the administrator's base */
      if (change->kind == CHANGE_MINIMUM)
        hpd_daemon_note_requested (self->daemon, pool, change->pages);
      /* In-use pages a shrink could not free stay allocated as surplus:
       * report them, a shrink to 0 that left 2 pages is not 0. With
       * claims, the answer is the base: what the pool holds beyond them. */
      result = change->kind == CHANGE_MINIMUM
        ? hpd_pool_counters_kept (&now, after)
        : MAX (hpd_pool_counters_maximum (after), after->total);
      if (change->kind == CHANGE_MINIMUM)
        result = hp_sub_saturating (result, claimed);
      break;

    case CHANGE_NODE:
      change->alloc.progress = progress_from_worker;
      change->alloc.progress_data = change;
      if (!hpd_pool_read (kernel, pool, &now, error) ||
          !hpd_pool_model_apply_node (self->daemon, pool, &now, change->node, change->pages,
                                      TRUE, &change->alloc, cancellable, &result, error))
        return NULL;
      break;

    case CHANGE_DEMOTE:
      if (!hpd_pool_demote (kernel, pool, change->pages, &result, error))
        return NULL;
      break;

    default:
      g_assert_not_reached ();
    }

  if (change->persist && !persist_change (change, error))
    return NULL;
  return g_variant_new ("(t)", result);
}

/* What the engine did, for /run/hugepagesd (after an idle exit): the
 * property itself is set from the report on the main thread. */
typedef struct {
  HpdLastAlloc *last_alloc;  /* the daemon's, which outlives the queue */
  const HpdPool *pool;       /* likewise */
  HpdAllocReport report;
} AllocRecord;

static void
record_allocation (gpointer data)
{
  AllocRecord *record = data;

  hpd_last_alloc_note (record->last_alloc, record->pool->name, &record->report);
}

static GVariant *
apply_change (gpointer data, GCancellable *cancellable, GError **error)
{
  Change *change = data;
  HpdDaemon *daemon = change->self->daemon;
  GVariant *reply = change_kernel (change, cancellable, error);

  /* Saved in the worker once the reply is on its way, before the next
   * change or an exit: the caller does not wait for a file write. An
   * engine that ran to its end is recorded even when a step after it
   * failed. */
  if (change->report.done)
    {
      AllocRecord *record = g_new (AllocRecord, 1);

      record->last_alloc = hpd_daemon_get_last_alloc (daemon);
      record->pool = change->self->pool;
      record->report = change->report;
      hpd_queue_after_reply (hpd_daemon_get_queue (daemon), record_allocation, record, g_free);
    }
  return reply;
}

/* What a failed allocation left: the pool's or the node's persistent pages. */
static guint64
allocation_left (Change *change)
{
  g_auto(HpdPoolCounters) c = { 0, };

  if (!read_counters (change->self, &c, NULL))
    return 0;
  if (change->kind != CHANGE_NODE)
    return hpd_pool_counters_minimum (&c);
  return hpd_node_counters_minimum (hpd_pool_counters_node (&c, change->node));
}

/* The last AllocationProgress, just before the reply: what the reply says. */
static void
emit_final_progress (Change *change, GVariant *reply)
{
  guint64 achieved;

  if (!change->progress_started)
    return;
  if (reply != NULL)
    g_variant_get (reply, "(t)", &achieved);
  else
    achieved = allocation_left (change);
  emit_progress (change->self, achieved, change->pages, "done");
}

/* Whatever happened, show the kernel's state as it is now, and what the
 * engine did (a failed reply may follow a change the kernel made): the
 * pool as the worker read it back at the end of a change that succeeded,
 * else as read now. A pool change leaves the mounts as they were; a read
 * of Mounts still refreshes them (hpd-fresh.c). */
static void
show_change (Change *change, GVariant *reply)
{
  HpdPageSize *self = change->self;

  hpd_page_size_set_last_allocation (self, &change->report);
  refresh_pool (self, reply != NULL ? &change->after : NULL);
  g_dbus_interface_skeleton_flush (G_DBUS_INTERFACE_SKELETON (self));
}

/* The change's log line, with the caller: before the reply, so that
 * whoever hears of a change finds it logged. */
static void
log_change (Change *change, const HpdCaller *caller, GVariant *reply, const GError *error)
{
  HpdPageSize *self = change->self;
  const char *what = change_description (change->kind);
  g_autofree char *where = change->kind == CHANGE_NODE
    ? g_strdup_printf (" on node %u", change->node) : g_strdup ("");
  guint64 result;

  if (reply == NULL)
    {
      g_warning ("uid %u (pid %u): changing the %s %s%s to %" G_GUINT64_FORMAT " failed: %s",
                 caller->uid, caller->pid, self->pool->name, what, where,
                 change->pages, error->message);
      return;
    }

  g_variant_get (reply, "(t)", &result);
  g_message ("uid %u (pid %u) set the %s %s%s to %" G_GUINT64_FORMAT
             " pages; the kernel gave %" G_GUINT64_FORMAT "%s%s",
             caller->uid, caller->pid, self->pool->name, what, where,
             change->pages, result, result != change->pages ? " (short)" : "",
             change->persist ? "; saved for boot" : "");
}

/* Before the reply. A change whose progress was shown ends as it was
 * followed: its properties, then the "done" that carries the reply's
 * value. One that ended within the grace time showed no progress and
 * none is due; its properties follow the reply (change_replied): its
 * caller waits for the kernel, not for signals that nobody may watch. */
static void
change_done (gpointer data, const HpdCaller *caller, GVariant *reply, const GError *error)
{
  Change *change = data;

  g_clear_handle_id (&change->grace_id, g_source_remove);
  if (change->progress_started)
    {
      show_change (change, reply);
      emit_final_progress (change, reply);
    }
  log_change (change, caller, reply, error);
}

/* Right after the reply, in the same main loop callback: a read the
 * caller sends after the reply is dispatched later and sees all of it. */
static void
change_replied (gpointer data, const HpdCaller *caller, GVariant *reply, const GError *error)
{
  Change *change = data;

  if (!change->progress_started)
    show_change (change, reply);
}

static void
authorize_and_apply (HpdPageSize *self, GDBusMethodInvocation *invocation,
                     ChangeKind kind, guint node, guint64 pages,
                     const HpdAllocOptions *alloc, gboolean persist)
{
  Change *change = g_new0 (Change, 1);
  g_autoptr(GHashTable) details = hpd_auth_details_new ();
  g_autofree char *size = g_strdup_printf ("%" G_GUINT64_FORMAT, self->pool->size);
  g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, pages);

  change->kind = kind;
  change->self = g_object_ref (self);
  change->node = node;
  change->pages = pages;
  change->alloc = *alloc;
  change->alloc.report = &change->report;
  /* change->alloc.last_alloc stays NULL: apply_change records the report */
  change->persist = persist;
  change->context = g_main_context_ref_thread_default ();
  change->throttle.interval_us = HPD_ALLOC_PROGRESS_INTERVAL_US;
  g_mutex_init (&change->lock);

  hpd_auth_details_set (details, "page-size", size);
  hpd_auth_details_set (details, "pages", count);
  if (kind == CHANGE_NODE)
    {
      g_autofree char *node_text = g_strdup_printf ("%u", node);
      hpd_auth_details_set (details, "node", node_text);
    }
  if (persist)
    hpd_auth_details_set (details, "persist", "true");

  hpd_job_run_full (self->daemon, invocation, details, start_grace, apply_change, change_done,
                    change_replied, change, (GDestroyNotify) change_free);
}

/* Options of the pool methods. Which ones a method accepts is its own. */
typedef struct {
  gboolean persist;
  gboolean dry_run;
  gboolean hard;
  guint32 timeout_ms;
  gboolean drop_caches;
} PoolOptions;

/* The keys a method accepts are its row's (hpd-methods.c), checked. */
static gboolean
read_pool_options (const HpdCall *call, PoolOptions *out, HpdAllocOptions *alloc, GError **error)
{
  out->persist = FALSE;
  out->drop_caches = FALSE;
  out->hard = FALSE;
  out->dry_run = FALSE;
  out->timeout_ms = HPD_ALLOC_DEFAULT_TIMEOUT_MS;
  g_variant_lookup (call->options, HP_OPTION_PERSIST, "b", &out->persist);
  g_variant_lookup (call->options, HP_OPTION_DRY_RUN, "b", &out->dry_run);
  g_variant_lookup (call->options, HP_OPTION_HARD, "b", &out->hard);
  g_variant_lookup (call->options, HP_OPTION_TIMEOUT_MS, "u", &out->timeout_ms);
  g_variant_lookup (call->options, HP_OPTION_DROP_CACHES, "b", &out->drop_caches);

  if (!hpd_alloc_check_options (out->hard, out->timeout_ms, out->drop_caches, error))
    return FALSE;

  *alloc = (HpdAllocOptions) {
    .hard = out->hard,
    .timeout_ms = out->timeout_ms,
    .drop_caches = out->drop_caches,
  };
  return TRUE;
}

/* SetMinimum and SetMaximum: validate, answer a dry run or a request that
 * changes nothing at once, authorize and apply the rest. */
static void
handle_pool_target (const HpdCall *call, ChangeKind kind)
{
  HpdPageSize *self = HPD_PAGE_SIZE (call->object);
  GDBusMethodInvocation *invocation = call->invocation;
  g_auto(HpdPoolCounters) now = { 0, };
  g_autoptr(GError) error = NULL;
  HpdAllocOptions alloc;
  HpdPoolTarget target;
  PoolOptions opts;
  guint64 pages, claimed = 0, wanted;

  g_variant_get (call->parameters, "(t@a{sv})", &pages, NULL);
  wanted = kind == CHANGE_MINIMUM ? target_for_base (self, pages, &claimed) : pages;
  if (!read_pool_options (call, &opts, &alloc, &error) ||
      !hpd_pool_model_check_memory (self->daemon, self->pool, wanted, &error) ||
      !read_counters (self, &now, &error))
    {
      hpd_job_return_error (invocation, error);
      return;
    }

  target = kind == CHANGE_MINIMUM
    ? hpd_pool_target_for_minimum (&now, self->pool->can_overcommit, wanted)
    : hpd_pool_target_for_maximum (&now, pages);

  if (!self->pool->can_overcommit && target.maximum != target.minimum)
    {
      g_dbus_method_invocation_return_error (invocation, HP_ERROR, HP_ERROR_NOT_SUPPORTED,
                                             "The kernel does not allow overcommitting %s pages, "
                                             "so their maximum is their minimum (%" G_GUINT64_FORMAT
                                             "); change the minimum instead", self->pool->name,
                                             hpd_pool_counters_minimum (&now));
      return;
    }

  /* with persist, a pool that already has it still needs saving; with
   * claims the base needs recording */
  if (opts.dry_run ||
      (!opts.persist && claimed == 0 &&
       target.minimum == hpd_pool_counters_minimum (&now) &&
       target.maximum == hpd_pool_counters_maximum (&now)))
    return_pages (invocation, kind == CHANGE_MINIMUM ? target.minimum - claimed : target.maximum);
  else
    authorize_and_apply (self, invocation, kind, 0, pages, &alloc, opts.persist);
}

void
hpd_page_size_set_minimum (const HpdCall *call)
{
  handle_pool_target (call, CHANGE_MINIMUM);
}

void
hpd_page_size_set_maximum (const HpdCall *call)
{
  handle_pool_target (call, CHANGE_MAXIMUM);
}

void
hpd_page_size_set_node_pages (const HpdCall *call)
{
  HpdPageSize *self = HPD_PAGE_SIZE (call->object);
  GDBusMethodInvocation *invocation = call->invocation;
  g_auto(HpdPoolCounters) now = { 0, };
  g_autoptr(GError) error = NULL;
  HpdAllocOptions alloc;
  PoolOptions opts;
  guint32 node;
  guint64 pages;

  g_variant_get (call->parameters, "(ut@a{sv})", &node, &pages, NULL);
  if (!read_pool_options (call, &opts, &alloc, &error) ||
      !hpd_pool_model_check_node (self->pool, node, &error) ||
      !read_counters (self, &now, &error) ||
      !hpd_pool_model_check_node_memory (self->daemon, self->pool, &now, node, pages, &error))
    {
      hpd_job_return_error (invocation, error);
      return;
    }

  if (opts.dry_run ||
      (pages == hpd_node_counters_minimum (hpd_pool_counters_node (&now, node)) && !opts.persist))
    return_pages (invocation, pages);
  else
    authorize_and_apply (self, invocation, CHANGE_NODE, node, pages, &alloc, opts.persist);
}

void
hpd_page_size_demote (const HpdCall *call)
{
  HpdPageSize *self = HPD_PAGE_SIZE (call->object);
  GDBusMethodInvocation *invocation = call->invocation;
  g_auto(HpdPoolCounters) now = { 0, };
  g_autoptr(GError) error = NULL;
  HpdAllocOptions alloc;
  PoolOptions opts;
  guint64 available;
  guint64 pages;

  g_variant_get (call->parameters, "(t@a{sv})", &pages, NULL);
  if (!read_pool_options (call, &opts, &alloc, &error) ||
      !read_counters (self, &now, &error))
    {
      hpd_job_return_error (invocation, error);
      return;
    }
  if (self->pool->demote_size == 0)
    {
      g_dbus_method_invocation_return_error (invocation, HP_ERROR, HP_ERROR_NOT_SUPPORTED,
                                             "The kernel cannot demote %s pages",
                                             self->pool->name);
      return;
    }

  /* the kernel only demotes free pages nobody has reserved */
  available = now.free > now.reserved ? now.free - now.reserved : 0;
  if (opts.dry_run)
    return_pages (invocation, MIN (pages, available));
  else if (pages == 0 && !opts.persist)
    return_pages (invocation, 0);
  else
    authorize_and_apply (self, invocation, CHANGE_DEMOTE, 0, pages, &alloc, opts.persist);
}

const HpdPool *
hpd_page_size_get_pool (HpdPageSize *self)
{
  return self->pool;
}

void
hpd_page_size_set_last_allocation (HpdPageSize *self, const HpdAllocReport *report)
{
  hpd_read_snapshot_drop (hpd_daemon_get_read_snapshot (self->daemon));
  if (report->done)
    hp_dbus_manager_page_size_set_last_allocation (HP_DBUS_MANAGER_PAGE_SIZE (self),
                                                   hpd_alloc_report_to_variant (report));
}

static HpdKernel *
hpd_page_size_kernel (GDBusInterfaceSkeleton *skeleton)
{
  return hpd_daemon_get_kernel (HPD_PAGE_SIZE (skeleton)->daemon);
}

static void
hpd_page_size_finalize (GObject *object)
{
  hpd_pool_counters_clear (&HPD_PAGE_SIZE (object)->shown);
  g_clear_pointer (&HPD_PAGE_SIZE (object)->shown_targets, g_array_unref);
  G_OBJECT_CLASS (hpd_page_size_parent_class)->finalize (object);
}

static void
hpd_page_size_class_init (HpdPageSizeClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = hpd_page_size_finalize;
  hpd_fresh_install (G_DBUS_INTERFACE_SKELETON_CLASS (klass), hpd_page_size_refresh,
                     hpd_page_size_kernel);
}

static void
hpd_page_size_init (HpdPageSize *self)
{
}

HpdPageSize *
hpd_page_size_new (HpdDaemon *daemon, const HpdPool *pool)
{
  HpdPageSize *self = g_object_new (HPD_TYPE_PAGE_SIZE, NULL);
  HpDBusManagerPageSize *iface = HP_DBUS_MANAGER_PAGE_SIZE (self);
  HpdAllocReport last;

  self->daemon = daemon;
  self->pool = pool;

  hp_dbus_manager_page_size_set_size (iface, pool->size);
  hp_dbus_manager_page_size_set_name (iface, pool->name);
  hp_dbus_manager_page_size_set_is_default (iface, pool->is_default);
  hp_dbus_manager_page_size_set_gigantic (iface, pool->gigantic);
  hp_dbus_manager_page_size_set_can_overcommit (iface, pool->can_overcommit);
  hp_dbus_manager_page_size_set_demote_size (iface, pool->demote_size);
  /* what the service did before an idle exit, or an empty a{sv} */
  hpd_last_alloc_lookup (hpd_daemon_get_last_alloc (daemon), pool->name, &last);
  hp_dbus_manager_page_size_set_last_allocation (iface, hpd_alloc_report_to_variant (&last));
  hpd_page_size_refresh (G_DBUS_INTERFACE_SKELETON (self));
  return self;
}
