/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <string.h>

#include "hp-units.h"
#include "hpd-boot.h"

/* ---- the parameters ---- */

HpdBootPool *
hpd_boot_pool_new (guint64 size)
{
  HpdBootPool *pool = g_new0 (HpdBootPool, 1);

  pool->size = size;
  return pool;
}

void
hpd_boot_pool_free (HpdBootPool *pool)
{
  g_clear_pointer (&pool->nodes, g_array_unref);
  g_free (pool);
}

HpdBootParams *
hpd_boot_params_new (void)
{
  HpdBootParams *params = g_new0 (HpdBootParams, 1);

  params->pools = g_ptr_array_new_with_free_func ((GDestroyNotify) hpd_boot_pool_free);
  return params;
}

void
hpd_boot_params_free (HpdBootParams *params)
{
  if (params == NULL)
    return;
  g_ptr_array_unref (params->pools);
  g_free (params);
}

static HpdBootPool *
find_boot_pool (const HpdBootParams *params, guint64 size)
{
  for (guint i = 0; i < params->pools->len; i++)
    {
      HpdBootPool *pool = g_ptr_array_index (params->pools, i);
      if (pool->size == size)
        return pool;
    }
  return NULL;
}

void
hpd_boot_pool_set_node (HpdBootPool *pool, guint node, guint64 pages)
{
  HpdBootNode entry = { node, pages };
  guint i;

  if (pool->nodes == NULL)
    pool->nodes = g_array_new (FALSE, FALSE, sizeof (HpdBootNode));
  for (i = 0; i < pool->nodes->len; i++)
    {
      HpdBootNode *n = &g_array_index (pool->nodes, HpdBootNode, i);
      if (n->node == node)
        {
          n->pages = pages;
          return;
        }
      if (n->node > node)
        break;
    }
  g_array_insert_val (pool->nodes, i, entry);
}

char *
hpd_boot_size_text (guint64 bytes)
{
  /* memparse() takes K, M, G (and T, P, E), never "GB" or "kB" */
  if (bytes >= (G_GUINT64_CONSTANT (1) << 30) && bytes % (G_GUINT64_CONSTANT (1) << 30) == 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT "G", bytes >> 30);
  if (bytes >= (G_GUINT64_CONSTANT (1) << 20) && bytes % (G_GUINT64_CONSTANT (1) << 20) == 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT "M", bytes >> 20);
  if (bytes >= 1024 && bytes % 1024 == 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT "K", bytes >> 10);
  return g_strdup_printf ("%" G_GUINT64_FORMAT, bytes);
}

char *
hpd_boot_params_to_string (const HpdBootParams *params)
{
  g_autoptr(GString) out = g_string_new (NULL);

  if (params->default_size != 0)
    {
      g_autofree char *size = hpd_boot_size_text (params->default_size);
      g_string_append_printf (out, " default_hugepagesz=%s", size);
    }
  for (guint i = 0; i < params->pools->len; i++)
    {
      const HpdBootPool *pool = g_ptr_array_index (params->pools, i);
      g_autofree char *size = NULL;
      gboolean first = TRUE;

      /* asking for no pages is what not asking does */
      if (pool->pages == 0)
        continue;
      size = hpd_boot_size_text (pool->size);
      g_string_append_printf (out, " hugepagesz=%s hugepages=", size);
      if (pool->nodes == NULL)
        {
          g_string_append_printf (out, "%" G_GUINT64_FORMAT, pool->pages);
          continue;
        }
      for (guint j = 0; j < pool->nodes->len; j++)
        {
          const HpdBootNode *n = &g_array_index (pool->nodes, HpdBootNode, j);

          if (n->pages == 0)
            continue;
          g_string_append_printf (out, "%s%u:%" G_GUINT64_FORMAT, first ? "" : ",",
                                  n->node, n->pages);
          first = FALSE;
        }
    }
  return g_strdup (out->len > 0 ? out->str + 1 : "");
}

/* ---- from the configuration ---- */

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

/* ---- comparing ---- */

/* The next node with pages from @i on, NULL at the end. */
static const HpdBootNode *
next_node_with_pages (const GArray *nodes, guint *i)
{
  for (; *i < nodes->len; (*i)++)
    {
      const HpdBootNode *n = &g_array_index (nodes, HpdBootNode, *i);
      if (n->pages != 0)
        {
          (*i)++;
          return n;
        }
    }
  return NULL;
}

static gboolean
same_nodes (const GArray *a, const GArray *b)
{
  guint i = 0, j = 0;

  for (;;)
    {
      const HpdBootNode *x = next_node_with_pages (a, &i);
      const HpdBootNode *y = next_node_with_pages (b, &j);

      if (x == NULL || y == NULL)
        return x == y;
      if (x->node != y->node || x->pages != y->pages)
        return FALSE;
    }
}

static gboolean
same_pool (const HpdBootPool *wanted, const HpdBootPool *running)
{
  guint64 pages = running != NULL ? running->pages : 0;
  const GArray *nodes = running != NULL ? running->nodes : NULL;

  if (wanted->pages != pages)
    return FALSE;
  /* no pages: where they would go does not matter */
  if (pages == 0 || (wanted->nodes == NULL && nodes == NULL))
    return TRUE;
  /* the plain form spreads the pages as the kernel likes */
  if (wanted->nodes == NULL || nodes == NULL)
    return FALSE;
  return same_nodes (wanted->nodes, nodes);
}

gboolean
hpd_boot_params_differ (const HpdBootParams *wanted, const HpdBootParams *running)
{
  if (wanted->default_size != 0 && wanted->default_size != running->default_size)
    return TRUE;
  for (guint i = 0; i < wanted->pools->len; i++)
    {
      const HpdBootPool *pool = g_ptr_array_index (wanted->pools, i);

      if (!same_pool (pool, find_boot_pool (running, pool->size)))
        return TRUE;
    }
  return FALSE;
}
