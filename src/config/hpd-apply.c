/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <string.h>
#include <unistd.h>

#include "hp-units.h"
#include "hpd-apply.h"
#include "hpd-claims.h"
#include "hpd-config.h"
#include "hpd-hugetlbfs.h"
#include "hpd-mounts.h"
#include "hpd-parse.h"
#include "hpd-pool-model.h"
#include "hpd-service.h"
#include "hpd-tunables.h"

/* How long a pool may keep trying at boot (compaction between tries). */
#define APPLY_HARD_TIMEOUT_MS 30000

typedef struct {
  HpdDaemon *daemon;
  HpdKernel *kernel;
  GString *report;
  gboolean ok;
  const HpdConfig *config;
  GPtrArray *claims;   /* HpdClaim: the consumers' claims, added to the pools */
} Apply;

static void
say (Apply *a, gboolean good, const char *format, ...) G_GNUC_PRINTF (3, 4);

static void
say (Apply *a, gboolean good, const char *format, ...)
{
  va_list args;

  g_string_append (a->report, good ? "ok      " : "FAILED  ");
  va_start (args, format);
  g_string_append_vprintf (a->report, format, args);
  va_end (args);
  g_string_append_c (a->report, '\n');
  a->ok = a->ok && good;
}

static const char *
where (const HpdConfigOrigin *origin, char *buf, gsize size)
{
  if (origin->file == NULL)
    return "";
  g_snprintf (buf, size, " (%s:%u)", origin->file, origin->line);
  return buf;
}

const HpdPool *
hpd_apply_find_pool (HpdDaemon *daemon, guint64 size)
{
  GPtrArray *pools = hpd_daemon_get_pools (daemon);

  for (guint i = 0; i < pools->len; i++)
    {
      const HpdPool *pool = g_ptr_array_index (pools, i);
      if (size == 0 ? pool->is_default : pool->size == size)
        return pool;
    }
  return NULL;
}

/* Pages from a config amount: a plain number is pages, memory must be a
 * whole number of pages. */
gboolean
hpd_apply_to_pages (const HpdConfigValue *v, const HpdPool *pool, guint64 *pages)
{
  if (v->kind == HPD_CONFIG_NUMBER)
    {
      *pages = v->value;
      return TRUE;
    }
  if (v->kind == HPD_CONFIG_BYTES && v->value % pool->size == 0)
    {
      *pages = v->value / pool->size;
      return TRUE;
    }
  return FALSE;
}

gboolean
hpd_apply_configured_minimum (const HpdConfig *config, const HpdPool *pool, guint64 *pages)
{
  guint64 default_key = 0;
  const HpdConfigPool *cp;

  *pages = 0;
  if (config == NULL)
    return FALSE;
  cp = g_tree_lookup (config->pools, &pool->size);
  /* [pool DEFAULT] counts where the section of the size sets no minimum:
   * that one is applied after it */
  if ((cp == NULL || cp->minimum.kind == HPD_CONFIG_UNSET) && pool->is_default)
    cp = g_tree_lookup (config->pools, &default_key);
  if (cp == NULL || cp->minimum.kind == HPD_CONFIG_UNSET ||
      !hpd_apply_to_pages (&cp->minimum, pool, pages))
    {
      *pages = 0;
      return FALSE;
    }
  return TRUE;
}

static void
apply_pool_target (Apply *a, const HpdPool *pool, const HpdConfigPool *cp)
{
  HpdAllocOptions alloc = { .hard = TRUE, .timeout_ms = APPLY_HARD_TIMEOUT_MS };
  g_auto(HpdPoolCounters) now = { 0, };
  g_auto(HpdPoolCounters) after = { 0, };
  g_autoptr(GError) error = NULL;
  guint64 minimum = 0, maximum = 0;
  gboolean has_min = cp->minimum.kind != HPD_CONFIG_UNSET;
  gboolean has_max = cp->maximum.kind != HPD_CONFIG_UNSET;
  HpdPoolTarget target;
  g_auto(HpdPoolModel) model = { 0, };
  guint64 claimed, base = 0;
  char at[512];

  if (!has_min && !has_max)
    return;
  if ((has_min && !hpd_apply_to_pages (&cp->minimum, pool, &base)) ||
      (has_max && !hpd_apply_to_pages (&cp->maximum, pool, &maximum)))
    {
      say (a, FALSE, "pool %s: the amount is not a whole number of pages%s", pool->name,
           where (&cp->origin, at, sizeof at));
      return;
    }
  /* the configured minimum sets the administrator's base; the consumers'
   * claims come on top of it */
  hpd_pool_model_init (&model, a->daemon, pool, has_min, base);
  claimed = hpd_pool_model_claimed (&model, HPD_CLAIM_ALL_NODES);
  if (has_min)
    minimum = hpd_pool_model_target_for_base (&model, base);
  if (!hpd_pool_read (a->kernel, pool, &now, &error))
    {
      say (a, FALSE, "pool %s: %s", pool->name, error->message);
      return;
    }

  if (has_min)
    {
      target = hpd_pool_target_for_minimum (&now, pool->can_overcommit, minimum);
      if (has_max)
        target.maximum = MAX (maximum, minimum);
    }
  else
    target = hpd_pool_target_for_maximum (&now, maximum);

  if (!pool->can_overcommit && target.maximum != target.minimum)
    {
      say (a, FALSE, "pool %s: this kernel cannot overcommit %s pages, so maximum %"
           G_GUINT64_FORMAT " cannot differ from the minimum%s", pool->name, pool->name,
           target.maximum, where (&cp->maximum.origin, at, sizeof at));
      return;
    }

  if (!hpd_pool_model_apply (a->daemon, pool, &now, &target, MAX (minimum, maximum), &alloc, NULL,
                             &after, &error))
    {
      say (a, FALSE, "pool %s: %s", pool->name, error->message);
      return;
    }
  if (has_min)
    {
      guint64 got = hpd_pool_counters_kept (&now, &after);

      if (claimed > 0)
        say (a, got == minimum, "pool %s minimum: requested %" G_GUINT64_FORMAT
             " plus %" G_GUINT64_FORMAT " claimed, achieved %" G_GUINT64_FORMAT,
             pool->name, base, claimed, got);
      else
        say (a, got == minimum, "pool %s minimum: requested %" G_GUINT64_FORMAT
             ", achieved %" G_GUINT64_FORMAT, pool->name, minimum, got);
      hpd_daemon_note_requested (a->daemon, pool, base);
    }
  if (has_max)
    say (a, hpd_pool_counters_maximum (&after) == target.maximum,
         "pool %s maximum: requested %" G_GUINT64_FORMAT ", achieved %" G_GUINT64_FORMAT,
         pool->name, target.maximum, hpd_pool_counters_maximum (&after));
}

typedef struct {
  Apply *a;
  const HpdPool *pool;
} NodeWalk;

static gboolean
apply_node (gpointer key, gpointer value, gpointer data)
{
  NodeWalk *w = data;
  guint node = GPOINTER_TO_UINT (key);
  const HpdConfigValue *v = value;
  HpdAllocOptions alloc = { .hard = TRUE, .timeout_ms = APPLY_HARD_TIMEOUT_MS };
  g_auto(HpdPoolCounters) now = { 0, };
  g_autoptr(GError) error = NULL;
  guint64 pages, got = 0;
  char at[512];

  if (!hpd_pool_has_node (w->pool, node))
    say (w->a, FALSE, "pool %s node %u: no such NUMA node%s", w->pool->name, node,
         where (&v->origin, at, sizeof at));
  else if (!hpd_apply_to_pages (v, w->pool, &pages))
    say (w->a, FALSE, "pool %s node %u: not a whole number of pages%s", w->pool->name, node,
         where (&v->origin, at, sizeof at));
  else if (!hpd_pool_read (w->a->kernel, w->pool, &now, &error) ||
           !hpd_pool_model_apply_node (w->a->daemon, w->pool, &now, node, pages, TRUE, &alloc,
                                       NULL, &got, &error))
    say (w->a, FALSE, "pool %s node %u: %s", w->pool->name, node, error->message);
  else
    say (w->a, got == pages, "pool %s node %u: requested %" G_GUINT64_FORMAT
         ", achieved %" G_GUINT64_FORMAT, w->pool->name, node, pages, got);
  return FALSE;
}

static gboolean
apply_pool (gpointer key, gpointer value, gpointer data)
{
  Apply *a = data;
  const HpdConfigPool *cp = value;
  const HpdPool *pool = hpd_apply_find_pool (a->daemon, cp->page_size);
  NodeWalk w = { a, pool };
  char at[512];

  if (pool == NULL)
    {
      g_autofree char *name = hp_size_name (cp->page_size);
      say (a, FALSE, "pool %s: this kernel has no such page size%s",
           cp->page_size ? name : "DEFAULT", where (&cp->origin, at, sizeof at));
      return FALSE;
    }
  apply_pool_target (a, pool, cp);
  if (cp->nodes != NULL)
    g_tree_foreach (cp->nodes, apply_node, &w);
  return FALSE;
}

/* Grows @pool (or one node of it) to @target if it holds less; never
 * shrinks: at boot nothing is known of the pages others asked for. The
 * memory limit holds as for every growth: a claim was checked when it was
 * made, but on a machine that has less memory now (a resized VM) the same
 * claim could take what the system needs to boot. */
static void
apply_claim_target (Apply *a, const HpdPool *pool, guint32 node, guint64 target)
{
  HpdAllocOptions alloc = { .hard = TRUE, .timeout_ms = APPLY_HARD_TIMEOUT_MS };
  g_auto(HpdPoolCounters) now = { 0, };
  g_auto(HpdPoolCounters) after = { 0, };
  g_autoptr(GError) error = NULL;
  g_autofree char *place = node == HPD_CLAIM_ALL_NODES
    ? g_strdup_printf ("claims on the %s pool", pool->name)
    : g_strdup_printf ("claims on the %s pool on node %u", pool->name, node);
  const HpdNodeCounters *n;
  guint64 current, got;

  if (!hpd_pool_read (a->kernel, pool, &now, &error))
    {
      say (a, FALSE, "%s: %s", place, error->message);
      return;
    }
  if (node == HPD_CLAIM_ALL_NODES)
    current = hpd_pool_counters_minimum (&now);
  else if ((n = hpd_pool_counters_node (&now, node)) != NULL)
    current = hpd_node_counters_minimum (n);
  else
    {
      say (a, FALSE, "%s: no such NUMA node", place);
      return;
    }

  if (current >= target)
    got = current;
  else if (node == HPD_CLAIM_ALL_NODES)
    {
      HpdPoolTarget t = hpd_pool_target_for_minimum (&now, pool->can_overcommit, target);

      if (!hpd_pool_model_apply (a->daemon, pool, &now, &t, target, &alloc, NULL, &after, &error))
        {
          say (a, FALSE, "%s: %s", place, error->message);
          return;
        }
      got = hpd_pool_counters_kept (&now, &after);
    }
  else if (!hpd_pool_model_apply_node (a->daemon, pool, &now, node, target, TRUE, &alloc, NULL,
                                       &got, &error))
    {
      say (a, FALSE, "%s: %s", place, error->message);
      return;
    }
  say (a, got >= target, "%s: requested at least %" G_GUINT64_FORMAT ", achieved %"
       G_GUINT64_FORMAT, place, target, got);
}

guint64
hpd_apply_configured_node_pages (const HpdConfig *config, const HpdPool *pool, guint node)
{
  guint64 default_key = 0, pages = 0;
  const HpdConfigPool *cp;

  if (config == NULL)
    return 0;
  cp = g_tree_lookup (config->pools, &pool->size);
  const HpdConfigValue *v = cp != NULL ? g_tree_lookup (cp->nodes, GUINT_TO_POINTER (node)) : NULL;

  if (v == NULL && pool->is_default &&
      (cp = g_tree_lookup (config->pools, &default_key)) != NULL)
    v = g_tree_lookup (cp->nodes, GUINT_TO_POINTER (node));
  if (v != NULL)
    hpd_apply_to_pages (v, pool, &pages);
  return pages;
}

guint64
hpd_apply_node_target (const HpdConfig *config, const HpdPoolModel *model, guint node)
{
  return hpd_pool_model_node_target (model, node,
                                     hpd_apply_configured_node_pages (config, model->pool, node));
}

/* The claims of the pools the configuration gives no minimum (those that
 * have one got the claims added to it), then the node claims, on top of
 * the node's configured count. */
static void
apply_claims (Apply *a, const HpdConfig *config)
{
  GPtrArray *pools = hpd_daemon_get_pools (a->daemon);

  for (guint i = 0; i < pools->len; i++)
    {
      const HpdPool *pool = g_ptr_array_index (pools, i);
      g_auto(HpdPoolModel) model = { 0, };
      guint64 configured;
      gboolean has_configured = hpd_apply_configured_minimum (config, pool, &configured);

      hpd_pool_model_init (&model, a->daemon, pool, has_configured, configured);
      if (hpd_pool_model_claimed (&model, HPD_CLAIM_ALL_NODES) == 0)
        continue;
      /* a configured minimum was applied with the claims on top: run
       * again after boot, the base is the model's (a SetMinimum since) */
      if (!has_configured)
        apply_claim_target (a, pool, HPD_CLAIM_ALL_NODES, hpd_pool_model_target (&model));
      for (guint j = 0; j < pool->nodes->len; j++)
        {
          guint node = g_array_index (pool->nodes, guint, j);

          if (hpd_pool_model_claimed (&model, node) > 0)
            apply_claim_target (a, pool, node, hpd_apply_node_target (config, &model, node));
        }
    }
  /* claims on nodes this machine does not have */
  for (guint i = 0; i < a->claims->len; i++)
    {
      const HpdClaim *c = g_ptr_array_index (a->claims, i);
      const HpdPool *pool = hpd_apply_find_pool (a->daemon, c->page_size);

      if (pool == NULL)
        say (a, FALSE, "claim of %s: this kernel has no %" G_GUINT64_FORMAT "-byte pages",
             c->consumer, c->page_size);
      else if (c->node != HPD_CLAIM_ALL_NODES && !hpd_pool_has_node (pool, c->node))
        say (a, FALSE, "claim of %s: the %s pool has no NUMA node %u", c->consumer,
             pool->name, c->node);
    }
}

static void
write_checked (Apply *a, const char *what, const char *file, guint64 value)
{
  g_autoptr(GError) error = NULL;
  guint64 now = 0;

  if (!hpd_kernel_write_counter (a->kernel, file, value, &error) ||
      !hpd_kernel_read_counter (a->kernel, file, &now, &error))
    say (a, FALSE, "%s: %s", what, error->message);
  else
    say (a, now == value, "%s: requested %" G_GUINT64_FORMAT ", achieved %" G_GUINT64_FORMAT,
         what, value, now);
}

static void
apply_tunables (Apply *a, const HpdConfig *c)
{
  g_auto(HpdTunables) t = { 0, };
  guint64 base = (guint64) sysconf (_SC_PAGESIZE);
  char at[512];

  hpd_tunables_read (a->kernel, &t);

  if (c->shmmax.kind != HPD_CONFIG_UNSET)
    {
      guint64 value = c->shmmax.kind == HPD_CONFIG_RECOMMENDED
        ? MAX (hpd_tunables_recommended_shmmax (a->daemon), t.shmmax) : c->shmmax.value;

      write_checked (a, "kernel.shmmax", HPD_SHMMAX, value);
      if (hpd_recommend_shmall (value, base) > t.shmall)
        write_checked (a, "kernel.shmall", HPD_SHMALL, hpd_recommend_shmall (value, base));
    }

  if (c->shm_group.value != NULL)
    {
      g_autoptr(GError) error = NULL;
      guint32 gid;

      if (!hpd_tunables_resolve_shm_group (c->shm_group.value, &gid, &error))
        say (a, FALSE, "vm.hugetlb_shm_group: %s%s", error->message,
             where (&c->shm_group.origin, at, sizeof at));
      else
        write_checked (a, "vm.hugetlb_shm_group", HPD_SHM_GROUP, gid);
    }

  if (c->min_free_kbytes.kind != HPD_CONFIG_UNSET)
    {
      g_autoptr(GError) error = NULL;
      /* "recommended" never lowers what is there */
      guint64 value = c->min_free_kbytes.kind == HPD_CONFIG_RECOMMENDED
        ? MAX (hpd_tunables_recommended_min_free_kbytes (a->daemon), t.min_free_kbytes)
        : c->min_free_kbytes.value;

      if (!hpd_tunables_check_min_free_kbytes (a->kernel, value, &error))
        say (a, FALSE, "vm.min_free_kbytes: %s%s", error->message,
             where (&c->min_free_kbytes.origin, at, sizeof at));
      else
        write_checked (a, "vm.min_free_kbytes", HPD_MIN_FREE_KBYTES, value);
    }

  if (c->zone_movable.kind != HPD_CONFIG_UNSET)
    {
      if (t.zone_movable_file == NULL)
        say (a, FALSE, "zone movable: this kernel has no such setting%s",
             where (&c->zone_movable.origin, at, sizeof at));
      else
        write_checked (a, "zone movable", t.zone_movable_file, c->zone_movable.value);
    }
}

typedef struct {
  Apply *a;
  HpdTunables *t;
} ThpWalk;

static gboolean
apply_thp_setting (gpointer key, gpointer value, gpointer data)
{
  ThpWalk *w = data;
  const char *name = key;
  const HpdConfigString *s = value;
  g_autofree char *file = g_build_filename (HPD_THP_DIR, name, NULL);
  HpdThpChoice *choice = g_hash_table_lookup (w->t->thp, name);
  g_autoptr(GError) error = NULL;
  char at[512];

  if (choice != NULL)
    {
      g_autofree char *text = NULL;
      g_autofree char *current = NULL;
      g_auto(GStrv) choices = NULL;

      if (!g_strv_contains ((const char *const *) choice->choices, s->value))
        say (w->a, FALSE, "THP %s: '%s' is not one of the kernel's choices%s", name, s->value,
             where (&s->origin, at, sizeof at));
      else if (!hpd_kernel_write_text (w->a->kernel, file, s->value, &error) ||
               !hpd_kernel_read_text (w->a->kernel, file, &text, &error) ||
               !hpd_parse_thp_choice (text, &current, &choices))
        say (w->a, FALSE, "THP %s: %s", name, error ? error->message : "unreadable after writing");
      else
        say (w->a, g_str_equal (current, s->value), "THP %s: requested %s, achieved %s",
             name, s->value, current);
    }
  else if (g_strv_contains (hpd_thp_numeric_settings, name))
    {
      guint32 v;

      if (!hp_parse_u32 (s->value, &v, NULL))
        say (w->a, FALSE, "THP %s: '%s' is not a number%s", name, s->value,
             where (&s->origin, at, sizeof at));
      else
        write_checked (w->a, name, file, v);
    }
  else
    say (w->a, FALSE, "THP %s: this kernel has no such setting%s", name,
         where (&s->origin, at, sizeof at));
  return FALSE;
}

/* A size limit as CreateMount takes it: bytes (t) or "N%" (s). */
static void
add_limit (GVariantBuilder *b, const char *key, const HpdConfigValue *v)
{
  if (v->kind == HPD_CONFIG_BYTES)
    g_variant_builder_add (b, "{sv}", key, g_variant_new_uint64 (v->value));
  else if (v->kind == HPD_CONFIG_PERCENT)
    g_variant_builder_add (b, "{sv}", key,
                           g_variant_new_take_string (g_strdup_printf ("%" G_GUINT64_FORMAT "%%",
                                                                       v->value)));
}

GVariant *
hpd_apply_mount_options (const HpdConfigMount *m)
{
  GVariantBuilder b;

  g_variant_builder_init (&b, G_VARIANT_TYPE_VARDICT);
  add_limit (&b, "max-size", &m->max_size);
  add_limit (&b, "min-size", &m->min_size);
  if (m->max_inodes.kind != HPD_CONFIG_UNSET)
    g_variant_builder_add (&b, "{sv}", "max-inodes", g_variant_new_uint64 (m->max_inodes.value));
  if (m->mode.kind != HPD_CONFIG_UNSET)
    g_variant_builder_add (&b, "{sv}", "mode", g_variant_new_uint32 ((guint32) m->mode.value));
  return g_variant_ref_sink (g_variant_builder_end (&b));
}

static gboolean
apply_mount (gpointer key, gpointer value, gpointer data)
{
  static const char *const scopes[] = { "system", "user", "group", "global" };
  Apply *a = data;
  const HpdConfigMount *m = value;
  GPtrArray *pools = hpd_daemon_get_pools (a->daemon);
  const char *root = hpd_kernel_get_root (a->kernel);
  g_autoptr(GVariant) options = hpd_apply_mount_options (m);
  g_autoptr(HpdMountRequest) request = NULL;
  g_autoptr(GPtrArray) mounts = NULL;
  g_autoptr(GError) error = NULL;
  char at[512];

  /* at boot as at a call: a mount only this process would see is a failure */
  if (!hpd_daemon_check_mounts_visible (a->daemon, &error))
    {
      say (a, FALSE, "mount %s: %s%s", (const char *) key, error->message,
           where (&m->origin, at, sizeof at));
      return FALSE;
    }

  request = hpd_mount_request_new (scopes[m->scope], m->owner ? m->owner : "", options, &error);
  if (request == NULL)
    {
      say (a, FALSE, "mount %s: %s%s", (const char *) key, error->message,
           where (&m->origin, at, sizeof at));
      return FALSE;
    }

  mounts = hpd_mounts_read (a->kernel, hpd_daemon_get_default_page_size (a->daemon));
  for (guint i = 0; i < pools->len; i++)
    {
      const HpdPool *pool = g_ptr_array_index (pools, i);
      g_autoptr(HpdMountSpec) spec = NULL;
      g_autoptr(GError) local_error = NULL;
      g_autofree char *path = NULL;
      const HpdMountInfo *existing;

      if (m->page_size.kind != HPD_CONFIG_UNSET && m->page_size.value != pool->size)
        continue;
      spec = hpd_mount_request_spec_now (request, a->kernel, pool, &local_error);
      if (spec == NULL)
        {
          say (a, FALSE, "mount %s %s: %s", (const char *) key, pool->name, local_error->message);
          continue;
        }
      path = hpd_mount_spec_path (spec, root);
      existing = hpd_mounts_find (mounts, path);
      if (existing != NULL && hpd_mount_spec_matches (spec, existing))
        say (a, TRUE, "mount %s: already mounted", path);
      else if (existing != NULL)
        say (a, FALSE, "mount %s: mounted with other options", path);
      else if (!hpd_hugetlbfs_mount (root, spec, FALSE, &local_error))
        say (a, FALSE, "mount %s: %s", path, local_error->message);
      else
        say (a, TRUE, "mount %s: mounted", path);
    }
  return FALSE;
}

gboolean
hpd_apply_configuration (HpdDaemon *daemon, GString *report)
{
  HpdKernel *kernel = hpd_daemon_get_kernel (daemon);
  g_autoptr(HpdConfig) config = hpd_config_load_root (hpd_kernel_get_root (kernel));
  g_auto(HpdTunables) t = { 0, };
  g_autoptr(GPtrArray) claims = hpd_daemon_get_claims (daemon);
  Apply a = { daemon, kernel, report, TRUE, config, claims };
  ThpWalk w = { &a, &t };

  /* a bad line is a failure, but the rest still applies */
  for (guint i = 0; i < config->errors->len; i++)
    say (&a, FALSE, "%s", (const char *) g_ptr_array_index (config->errors, i));

  /* tunables first: pools read shmmax-independent state, but min_free_kbytes
   * and THP shape how easily the pools allocate */
  apply_tunables (&a, config);
  hpd_tunables_read (kernel, &t);
  if (config->thp != NULL)
    g_tree_foreach (config->thp, apply_thp_setting, &w);
  if (config->pools != NULL)
    g_tree_foreach (config->pools, apply_pool, &a);
  apply_claims (&a, config);
  if (config->mounts != NULL)
    g_tree_foreach (config->mounts, apply_mount, &a);

  if (report->len == 0)
    g_string_append (report, "Nothing to apply: no configuration found\n");
  return a.ok;
}
