/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <string.h>

#include "hp-units.h"
#include "hpd-boot.h"

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
