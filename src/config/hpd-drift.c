/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hp-units.h"
#include "hpd-apply.h"
#include "hpd-claims.h"
#include "hpd-drift.h"
#include "hpd-mounts.h"
#include "hpd-options.h"
#include "hpd-parse.h"
#include "hpd-pool-model.h"
#include "hpd-service.h"
#include "hpd-tunables.h"

/* One walk over the settings serves both properties: every setting is
 * listed; with @drift, those the kernel does not match are also added
 * there. */
typedef struct {
  HpdDaemon *daemon;
  HpdKernel *kernel;
  GVariantBuilder state;   /* aa{sv} */
  GVariantBuilder drift;   /* aa{sv} */
  gboolean want_drift;
  const HpdConfig *config;
  HpdTunables tunables;
  GPtrArray *claims;       /* HpdClaim: on top of the configured minimum */
  GPtrArray *errors;       /* lines this kernel cannot follow; NULL: not wanted */
} Walk;

static void
config_error (Walk *w, const HpdConfigOrigin *origin, const char *format, ...) G_GNUC_PRINTF (3, 4);

static void
config_error (Walk *w, const HpdConfigOrigin *origin, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  if (w->errors == NULL)
    return;
  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_ptr_array_add (w->errors, g_strdup_printf ("%s:%u: %s", origin->file, origin->line, message));
}

/* "2MB, 1GB": the sizes this kernel has, for messages */
static char *
kernel_sizes (Walk *w)
{
  GPtrArray *pools = hpd_daemon_get_pools (w->daemon);
  g_autoptr(GString) out = g_string_new (NULL);

  for (guint i = 0; i < pools->len; i++)
    {
      const HpdPool *pool = g_ptr_array_index (pools, i);
      g_string_append_printf (out, "%s%s", i ? ", " : "", pool->name);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* A page size in [boot] or a mount section that this kernel lacks is
 * refused where it is used: an error of the line, not drift. */
static gboolean
check_page_size (Walk *w, const char *key, const HpdConfigValue *v)
{
  g_autofree char *name = NULL;
  g_autofree char *sizes = NULL;

  if (v->kind == HPD_CONFIG_UNSET || hpd_apply_find_pool (w->daemon, v->value) != NULL)
    return TRUE;
  name = hp_size_name (v->value);
  sizes = kernel_sizes (w);
  config_error (w, &v->origin, "%s = %s: this kernel has no %s huge pages (it has %s)",
                key, name, name, sizes);
  return FALSE;
}

static void
list (Walk *w, const char *key, const char *value, const HpdConfigOrigin *origin)
{
  g_autofree char *where = origin->file
    ? g_strdup_printf ("%s:%u", origin->file, origin->line) : g_strdup ("");

  hpd_record_add_strings (&w->state, "key", key, "value", value, "origin", where, NULL);
}

static void
drifted (Walk *w, const char *key, const char *configured, const char *actual,
         const char *format, ...) G_GNUC_PRINTF (5, 6);

static void
drifted (Walk *w, const char *key, const char *configured, const char *actual,
         const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  if (!w->want_drift)
    return;
  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  hpd_record_add_strings (&w->drift, "key", key, "configured", configured, "actual", actual,
                          "message", message, NULL);
}

static void
compare_number (Walk *w, const char *key, const char *configured, guint64 wanted,
                guint64 actual, const char *what)
{
  g_autofree char *text = g_strdup_printf ("%" G_GUINT64_FORMAT, actual);

  if (actual != wanted)
    drifted (w, key, configured, text, "%s: %s, the configuration asks for %" G_GUINT64_FORMAT,
             what, text, wanted);
}

/* ---- pools ---- */

typedef struct {
  Walk *w;
  const HpdPool *pool;        /* NULL: no such size here */
  const char *name;           /* "2MB", "DEFAULT" */
  const HpdConfigPool *shadow;/* for DEFAULT: the section of the real size */
  HpdPoolCounters counters;
  gboolean have_counters;
  HpdPoolModel model;      /* the claims on top of the configured minimum */
} PoolWalk;

/* @floor: the kernel ends up with at least this (a maximum below the
 * minimum is raised to it) */
static void
pool_setting (PoolWalk *p, const char *key_name, const HpdConfigValue *v, gboolean check,
              guint64 floor, guint64 actual, const char *what)
{
  Walk *w = p->w;
  g_autofree char *key = g_strdup_printf ("pool %s %s", p->name, key_name);
  g_autofree char *value = hpd_config_value_to_string (v);
  guint64 pages;

  list (w, key, value, &v->origin);
  if (!check)
    return;
  if (p->pool == NULL)
    drifted (w, key, value, "", "This kernel has no %s huge pages", p->name);
  else if (!hpd_apply_to_pages (v, p->pool, &pages))
    drifted (w, key, value, "", "%s is not a whole number of %s pages", value, p->pool->name);
  else if (p->have_counters)
    compare_number (w, key, value, MAX (pages, floor), actual, what);
}

static gboolean
node_setting (gpointer key, gpointer value, gpointer data)
{
  PoolWalk *p = data;
  guint node = GPOINTER_TO_UINT (key);
  g_autofree char *name = g_strdup_printf ("node%u", node);
  g_autofree char *what = g_strdup_printf ("Pages in the %s pool on node %u", p->name, node);
  const HpdNodeCounters *n = p->have_counters ? hpd_pool_counters_node (&p->counters, node) : NULL;
  gboolean shadowed = p->shadow != NULL && g_tree_lookup (p->shadow->nodes, key) != NULL;
  guint64 node_minimum = hpd_node_counters_minimum (n);
  /* the claims on the node come on top of its configured count */
  guint64 claimed = p->pool != NULL ? hpd_pool_model_claimed (&p->model, node) : 0;

  if (p->have_counters && n == NULL)
    {
      g_autofree char *k = g_strdup_printf ("pool %s %s", p->name, name);
      g_autofree char *v = hpd_config_value_to_string (value);

      list (p->w, k, v, &((const HpdConfigValue *) value)->origin);
      drifted (p->w, k, v, "", "There is no NUMA node %u", node);
      return FALSE;
    }
  pool_setting (p, name, value, !shadowed, 0,
                hp_sub_saturating (node_minimum, claimed), what);
  return FALSE;
}

static gboolean
pool_section (gpointer key, gpointer value, gpointer data)
{
  Walk *w = data;
  const HpdConfigPool *cp = value;
  g_autofree char *name = cp->page_size ? hp_size_name (cp->page_size) : g_strdup ("DEFAULT");
  g_autofree char *what_min = NULL;
  g_autofree char *what_max = g_strdup_printf ("The most pages the %s pool may grow to", name);
  g_auto(HpdPoolCounters) counters = { 0, };
  PoolWalk p = { w, hpd_apply_find_pool (w->daemon, cp->page_size), name, NULL, { 0, }, FALSE };
  gboolean has_nodes = g_tree_nnodes (cp->nodes) > 0;
  guint64 minimum = 0, claimed = 0, kernel_minimum;

  /* the configured minimum is the administrator's base: consumers' claims
   * come on top of it, and are no drift */
  if (p.pool != NULL)
    {
      hpd_pool_model_init_claims (&p.model, p.pool, w->claims);
      claimed = hpd_pool_model_claimed (&p.model, HPD_CLAIM_ALL_NODES);
    }
  what_min = claimed > 0
    ? g_strdup_printf ("Pages in the %s pool besides the %" G_GUINT64_FORMAT " claimed",
                       name, claimed)
    : g_strdup_printf ("Pages in the %s pool", name);

  /* [pool DEFAULT] yields where the section of the default size sets the
   * same key: that one is applied after it */
  if (cp->page_size == 0 && p.pool != NULL)
    p.shadow = g_tree_lookup (w->config->pools, &p.pool->size);
  p.have_counters = p.pool != NULL && hpd_pool_read (w->kernel, p.pool, &counters, NULL);
  p.counters = counters;

  if (p.pool != NULL && cp->minimum.kind != HPD_CONFIG_UNSET)
    hpd_apply_to_pages (&cp->minimum, p.pool, &minimum);
  kernel_minimum = hpd_pool_counters_minimum (&counters);

  if (cp->minimum.kind != HPD_CONFIG_UNSET)
    /* node counts, applied after the minimum, decide the pool's size */
    pool_setting (&p, "minimum", &cp->minimum,
                  !has_nodes && !(p.shadow && p.shadow->minimum.kind != HPD_CONFIG_UNSET), 0,
                  hp_sub_saturating (kernel_minimum, claimed), what_min);
  if (cp->maximum.kind != HPD_CONFIG_UNSET)
    pool_setting (&p, "maximum", &cp->maximum,
                  !has_nodes && !(p.shadow && p.shadow->maximum.kind != HPD_CONFIG_UNSET),
                  hpd_pool_model_target_for_base (&p.model, minimum),
                  hpd_pool_counters_maximum (&counters), what_max);
  g_tree_foreach (cp->nodes, node_setting, &p);
  hpd_pool_model_clear (&p.model);
  return FALSE;
}

/* ---- tunables and THP ---- */

static void
tunable_number (Walk *w, const char *name, const HpdConfigValue *v, guint64 recommended,
                guint64 actual, const char *what)
{
  g_autofree char *key = g_strdup_printf ("tunables %s", name);
  g_autofree char *value = hpd_config_value_to_string (v);

  if (v->kind == HPD_CONFIG_UNSET)
    return;
  list (w, key, value, &v->origin);
  if (v->kind != HPD_CONFIG_RECOMMENDED)
    compare_number (w, key, value, v->value, actual, what);
  else if (actual < recommended)
    {
      /* "recommended" never lowers, so only less than it is drift */
      g_autofree char *text = g_strdup_printf ("%" G_GUINT64_FORMAT, actual);
      drifted (w, key, value, text, "%s: %s, below the recommended %" G_GUINT64_FORMAT,
               what, text, recommended);
    }
}

static void
tunables (Walk *w, const HpdConfig *c)
{
  const HpdTunables *t = &w->tunables;

  /* the recommendations read several files: only when asked for */
  gboolean shmmax_rec = w->want_drift && c->shmmax.kind == HPD_CONFIG_RECOMMENDED;
  gboolean min_free_rec = w->want_drift && c->min_free_kbytes.kind == HPD_CONFIG_RECOMMENDED;

  tunable_number (w, "shmmax", &c->shmmax,
                  shmmax_rec ? hpd_tunables_recommended_shmmax (w->daemon) : 0,
                  t->shmmax, "kernel.shmmax");
  tunable_number (w, "min-free-kbytes", &c->min_free_kbytes,
                  min_free_rec ? MAX (hpd_tunables_recommended_min_free_kbytes (w->daemon),
                                      HPD_MIN_FREE_KBYTES_FLOOR) : 0,
                  t->min_free_kbytes, "vm.min_free_kbytes");

  if (c->shm_group.value != NULL)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *actual = g_strdup_printf ("%u", t->shm_group);
      guint32 gid;

      list (w, "tunables shm-group", c->shm_group.value, &c->shm_group.origin);
      if (!hpd_tunables_resolve_shm_group (c->shm_group.value, &gid, &error))
        drifted (w, "tunables shm-group", c->shm_group.value, actual, "%s", error->message);
      else if (gid != t->shm_group)
        drifted (w, "tunables shm-group", c->shm_group.value, actual,
                 "vm.hugetlb_shm_group is %u, the configuration asks for %s (gid %u)",
                 t->shm_group, c->shm_group.value, gid);
    }

  if (c->zone_movable.kind != HPD_CONFIG_UNSET)
    {
      const char *value = c->zone_movable.value ? "yes" : "no";

      list (w, "tunables zone-movable", value, &c->zone_movable.origin);
      if (t->zone_movable_file == NULL)
        drifted (w, "tunables zone-movable", value, "", "This kernel has no such setting");
      else if (t->zone_movable != (c->zone_movable.value != 0))
        drifted (w, "tunables zone-movable", value, t->zone_movable ? "yes" : "no",
                 "Huge pages in ZONE_MOVABLE are %s, the configuration asks for %s",
                 t->zone_movable ? "on" : "off", value);
    }
}

static gboolean
thp_setting (gpointer key, gpointer value, gpointer data)
{
  Walk *w = data;
  const char *name = key;
  const HpdConfigString *s = value;
  g_autofree char *k = g_strdup_printf ("thp %s", name);
  const HpdThpChoice *choice = g_hash_table_lookup (w->tunables.thp, name);
  guint32 number;

  list (w, k, s->value, &s->origin);
  if (choice != NULL && !g_strv_contains ((const char *const *) choice->choices, s->value))
    {
      g_autofree char *known = g_strjoinv (", ", choice->choices);

      config_error (w, &s->origin, "'%s' is not a value of THP %s (it takes %s)",
                    s->value, name, known);
    }
  else if (choice != NULL)
    {
      if (g_strcmp0 (choice->current, s->value) != 0)
        drifted (w, k, s->value, choice->current ? choice->current : "",
                 "THP %s is %s, the configuration asks for %s", name,
                 choice->current ? choice->current : "unreadable", s->value);
    }
  else if (g_strv_contains (hpd_thp_numeric_settings, name) &&
           hpd_tunables_thp_number (w->kernel, name, &number))
    {
      g_autofree char *actual = g_strdup_printf ("%u", number);

      if (!g_str_equal (actual, s->value))
        drifted (w, k, s->value, actual, "THP %s is %s, the configuration asks for %s",
                 name, actual, s->value);
    }
  else
    drifted (w, k, s->value, "", "This kernel has no THP setting %s", name);
  return FALSE;
}

/* ---- mounts ---- */

static char *
mount_value (const HpdConfigMount *m)
{
  g_autoptr(GString) out = g_string_new (NULL);
  const struct { const char *key; const HpdConfigValue *v; } values[] = {
    { "page-size", &m->page_size }, { "max-size", &m->max_size },
    { "min-size", &m->min_size }, { "max-inodes", &m->max_inodes },
  };

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autofree char *text = hpd_config_value_to_string (values[i].v);
      if (text != NULL)
        g_string_append_printf (out, "%s%s=%s", out->len ? " " : "", values[i].key, text);
    }
  if (m->mode.kind != HPD_CONFIG_UNSET)
    g_string_append_printf (out, "%smode=%04o", out->len ? " " : "", (guint) m->mode.value);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static gboolean
mount_section (gpointer key, gpointer value, gpointer data)
{
  static const char *const scopes[] = { "system", "user", "group", "global" };
  Walk *w = data;
  const HpdConfigMount *m = value;
  g_autofree char *k = g_strdup_printf ("mount %s", (const char *) key);
  g_autofree char *v = mount_value (m);
  g_autoptr(GVariant) options = NULL;
  g_autoptr(HpdMountRequest) request = NULL;
  g_autoptr(GPtrArray) mounts = NULL;
  g_autoptr(GError) error = NULL;
  GPtrArray *pools = hpd_daemon_get_pools (w->daemon);
  const char *root = hpd_kernel_get_root (w->kernel);

  list (w, k, v, &m->origin);
  if (!check_page_size (w, "page-size", &m->page_size) || !w->want_drift)
    return FALSE;

  options = hpd_apply_mount_options (m);
  request = hpd_mount_request_new (scopes[m->scope], m->owner ? m->owner : "", options, &error);
  if (request == NULL)
    {
      drifted (w, k, v, "", "%s", error->message);
      return FALSE;
    }
  mounts = hpd_mounts_read (w->kernel, hpd_daemon_get_default_page_size (w->daemon));
  for (guint i = 0; i < pools->len; i++)
    {
      const HpdPool *pool = g_ptr_array_index (pools, i);
      g_autoptr(HpdMountSpec) spec = NULL;
      g_autofree char *path = NULL;
      const HpdMountInfo *existing;

      if (m->page_size.kind != HPD_CONFIG_UNSET && m->page_size.value != pool->size)
        continue;
      g_clear_error (&error);
      spec = hpd_mount_request_spec_now (request, w->kernel, pool, &error);
      if (spec == NULL)
        {
          /* a percentage of an empty pool is no size at all */
          drifted (w, k, v, "", "No %s mount: %s", pool->name, error->message);
          continue;
        }
      path = hpd_mount_spec_path (spec, root);
      existing = hpd_mounts_find (mounts, path);
      if (existing == NULL)
        drifted (w, k, v, "", "%s is not mounted", path);
      else if (!hpd_mount_spec_matches (spec, existing))
        drifted (w, k, v, path, "%s is mounted with other options", path);
    }
  return FALSE;
}

/* ---- both ---- */

static void
walk (Walk *w, const HpdConfig *config)
{
  w->config = config;
  w->claims = hpd_daemon_get_claims (w->daemon);
  g_tree_foreach (config->pools, pool_section, w);
  g_clear_pointer (&w->claims, g_ptr_array_unref);
  g_tree_foreach (config->mounts, mount_section, w);
  check_page_size (w, "default-page-size", &config->boot_default_page_size);
  /* reading the tunables is a dozen files: not for every property read
   * of a configuration without them */
  if (config->shmmax.kind || config->shm_group.value || config->min_free_kbytes.kind ||
      config->zone_movable.kind || g_tree_nnodes (config->thp) > 0)
    {
      hpd_tunables_read (w->kernel, &w->tunables);
      tunables (w, config);
      g_tree_foreach (config->thp, thp_setting, w);
      hpd_tunables_clear (&w->tunables);
    }
}

void
hpd_drift_describe (HpdDaemon *daemon, const HpdConfig *config, GVariant **state, GVariant **drift,
                    GPtrArray **errors)
{
  Walk w = { daemon, hpd_daemon_get_kernel (daemon), };

  if (errors != NULL)
    {
      /* the file format's errors first, then this kernel's, NULL-terminated */
      w.errors = g_ptr_array_new_null_terminated (config->errors->len, g_free, TRUE);
      for (guint i = 0; i < config->errors->len; i++)
        g_ptr_array_add (w.errors, g_strdup (g_ptr_array_index (config->errors, i)));
    }

  w.want_drift = drift != NULL;
  g_variant_builder_init (&w.state, G_VARIANT_TYPE ("aa{sv}"));
  g_variant_builder_init (&w.drift, G_VARIANT_TYPE ("aa{sv}"));
  walk (&w, config);
  *state = g_variant_builder_end (&w.state);
  if (drift != NULL)
    *drift = g_variant_builder_end (&w.drift);
  else
    g_variant_builder_clear (&w.drift);
  if (errors != NULL)
    *errors = w.errors;
}
