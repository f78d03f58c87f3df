/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Drift of the [pool] sections: the configured minimum is the
 * administrator's base, the claims come on top (the pool model). */
#include "config.h"

#include "hp-units.h"
#include "hpd-apply.h"
#include "hpd-drift-private.h"
#include "hpd-pool-model.h"
#include "hpd-service.h"

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

  hpd_drift_list (w, key, value, &v->origin);
  /* a size this kernel lacks is an error of the section's line */
  if (!check || p->pool == NULL)
    return;
  if (!hpd_apply_to_pages (v, p->pool, &pages))
    hpd_drift_note (w, key, value, "", "%s is not a whole number of %s pages", value, p->pool->name);
  else if (p->have_counters)
    hpd_drift_compare_number (w, key, value, MAX (pages, floor), actual, what);
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

      hpd_drift_list (p->w, k, v, &((const HpdConfigValue *) value)->origin);
      hpd_drift_note (p->w, k, v, "", "There is no NUMA node %u", node);
      return FALSE;
    }
  pool_setting (p, name, value, !shadowed, 0,
                hp_sub_saturating (node_minimum, claimed), what);
  return FALSE;
}

gboolean
hpd_drift_pool_section (gpointer key, gpointer value, gpointer data)
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

  /* a page size this kernel lacks: the section is an error of its
   * header's line (its settings are still listed), not drift */
  if (p.pool == NULL)
    {
      g_autofree char *sizes = hpd_drift_kernel_sizes (w);

      hpd_drift_config_error (w, &cp->origin, "[pool %s]: this kernel has no %s huge pages "
                              "(it has %s)", name, name, sizes);
    }

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
