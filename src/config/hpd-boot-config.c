/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The boot parameters the configuration asks for
 * (hpd_boot_params_from_config ()). */
#include "config.h"

#include "hp-units.h"
#include "hpd-boot.h"

/* What the sections of one size ask for, merged. */
typedef struct {
  gboolean has_minimum;
  guint64 minimum;
  HpdBootPool *by_node; /* the node keys; NULL without any */
} Wanted;

static void
add_problem (GPtrArray *problems, const HpdConfigOrigin *origin, const char *format, ...)
G_GNUC_PRINTF (3, 4);

static void
add_problem (GPtrArray *problems, const HpdConfigOrigin *origin, const char *format, ...)
{
  g_autofree char *text = NULL;
  va_list args;

  if (problems == NULL)
    return;
  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  if (origin->file != NULL)
    g_ptr_array_add (problems, g_strdup_printf ("%s:%u: %s", origin->file, origin->line, text));
  else
    g_ptr_array_add (problems, g_steal_pointer (&text));
}

static gint
machine_pool_index (GPtrArray *pools, guint64 size)
{
  for (guint i = 0; i < pools->len; i++)
    if (((const HpdPool *) g_ptr_array_index (pools, i))->size == size)
      return (gint) i;
  return -1;
}

/* A plain number is pages; memory must be whole pages (as --apply). */
static gboolean
config_pages (const HpdConfigValue *v, guint64 size, guint64 *pages)
{
  if (v->kind == HPD_CONFIG_NUMBER)
    *pages = v->value;
  else if (v->kind == HPD_CONFIG_BYTES && v->value % size == 0)
    *pages = v->value / size;
  else
    return FALSE;
  return TRUE;
}

static void
want_pool (Wanted *w, const HpdConfigPool *cp, const HpdPool *pool, GPtrArray *problems)
{
  g_autofree char *name = hp_size_name (pool->size);
  guint64 pages;

  if (cp->minimum.kind != HPD_CONFIG_UNSET)
    {
      if (config_pages (&cp->minimum, pool->size, &pages))
        {
          w->has_minimum = TRUE;
          w->minimum = pages;
        }
      else
        add_problem (problems, &cp->minimum.origin,
                     "pool %s minimum: not a whole number of pages", name);
    }

  for (GTreeNode *n = g_tree_node_first (cp->nodes); n != NULL; n = g_tree_node_next (n))
    {
      guint node = GPOINTER_TO_UINT (g_tree_node_key (n));
      const HpdConfigValue *v = g_tree_node_value (n);

      /* the kernel ignores all of hugepages= for one node it lacks */
      if (!hpd_pool_has_node (pool, node))
        add_problem (problems, &v->origin, "pool %s node %u: no such NUMA node", name, node);
      else if (!config_pages (v, pool->size, &pages))
        add_problem (problems, &v->origin, "pool %s node %u: not a whole number of pages",
                     name, node);
      else
        {
          if (w->by_node == NULL)
            w->by_node = hpd_boot_pool_new (pool->size);
          hpd_boot_pool_set_node (w->by_node, node, pages);
        }
    }
}

/* The boot pool of what @w wants, NULL if it wants nothing for boot. */
static HpdBootPool *
wanted_boot_pool (Wanted *w, const HpdPool *pool, GPtrArray *problems)
{
  g_autoptr(HpdBootPool) by_node = g_steal_pointer (&w->by_node);
  HpdBootPool *boot;

  if (by_node == NULL && !w->has_minimum)
    return NULL;
  boot = hpd_boot_pool_new (pool->size);
  if (by_node == NULL)
    {
      boot->pages = w->minimum;
      return boot;
    }

  /* the node form lists nodes with pages only */
  boot->nodes = g_array_new (FALSE, FALSE, sizeof (HpdBootNode));
  for (guint i = 0; i < by_node->nodes->len; i++)
    {
      const HpdBootNode *n = &g_array_index (by_node->nodes, HpdBootNode, i);

      if (n->pages == 0)
        continue;
      if (!g_uint64_checked_add (&boot->pages, boot->pages, n->pages))
        {
          g_autofree char *name = hp_size_name (pool->size);
          HpdConfigOrigin none = { NULL, 0 };

          add_problem (problems, &none, "pool %s: the nodes' pages add up to too many", name);
          hpd_boot_pool_free (boot);
          return NULL;
        }
      g_array_append_val (boot->nodes, *n);
    }
  return boot;
}

HpdBootParams *
hpd_boot_params_from_config (const HpdConfig *config, GPtrArray *pools,
                             guint64 default_size, GPtrArray *problems)
{
  g_autoptr(HpdBootParams) params = hpd_boot_params_new ();
  g_autofree Wanted *wanted = g_new0 (Wanted, pools->len + 1);
  const HpdConfigValue *chosen = &config->boot_default_page_size;
  /* the default size after the next boot, for [pool DEFAULT] */
  guint64 boot_default = default_size;

  if (chosen->kind != HPD_CONFIG_UNSET)
    {
      if (machine_pool_index (pools, chosen->value) >= 0)
        params->default_size = boot_default = chosen->value;
      else
        {
          g_autofree char *name = hp_size_name (chosen->value);
          add_problem (problems, &chosen->origin,
                       "default-page-size %s is not a huge page size of this kernel", name);
        }
    }

  /* DEFAULT sorts first, so a section naming the size overrides it key by key */
  for (GTreeNode *n = g_tree_node_first (config->pools); n != NULL; n = g_tree_node_next (n))
    {
      const HpdConfigPool *cp = g_tree_node_value (n);
      gint i = machine_pool_index (pools, cp->page_size != 0 ? cp->page_size : boot_default);
      const HpdPool *pool;

      if (i < 0)
        continue;
      pool = g_ptr_array_index (pools, i);
      /* smaller pages are allocated at runtime by --apply, which works */
      if (pool->gigantic)
        want_pool (&wanted[i], cp, pool, problems);
    }

  for (guint i = 0; i < pools->len; i++)
    {
      HpdBootPool *boot = wanted_boot_pool (&wanted[i], g_ptr_array_index (pools, i), problems);

      if (boot != NULL)
        g_ptr_array_add (params->pools, boot);
    }
  return g_steal_pointer (&params);
}
