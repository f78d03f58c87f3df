/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <string.h>
#include <unistd.h>

#include "hp-error.h"
#include "hp-units.h"
#include "hpd-alloc.h"
#include "hpd-parse.h"
#include "hpd-pool.h"

#define HUGEPAGES_DIR "sys/kernel/mm/hugepages"
#define NODE_DIR "sys/devices/system/node"
/* x86-64's MAX_PAGE_ORDER, used only when /proc/buddyinfo cannot be read. */
#define FALLBACK_MAX_ORDER 10

void
hpd_pool_free (HpdPool *pool)
{
  if (pool == NULL)
    return;
  g_free (pool->name);
  g_free (pool->dir);
  g_free (pool->kb_name);
  g_clear_pointer (&pool->nodes, g_array_unref);
  g_free (pool);
}

void
hpd_pool_counters_clear (HpdPoolCounters *counters)
{
  g_clear_pointer (&counters->nodes, g_array_unref);
  memset (counters, 0, sizeof *counters);
}

guint64
hpd_pool_counters_minimum (const HpdPoolCounters *c)
{
  /* The counters are separate files, read one after the other: never let a
   * racing change make the difference negative. */
  return hp_sub_saturating (c->total, c->surplus);
}

guint64
hpd_node_counters_minimum (const HpdNodeCounters *n)
{
  return n != NULL ? hp_sub_saturating (n->total, n->surplus) : 0;
}

guint64
hpd_pool_counters_maximum (const HpdPoolCounters *c)
{
  guint64 min = hpd_pool_counters_minimum (c);

  return hp_add_saturating (min, c->overcommit);
}

guint64
hpd_pool_counters_kept (const HpdPoolCounters *before, const HpdPoolCounters *after)
{
  guint64 stuck = hp_sub_saturating (after->surplus, before->surplus);

  return MIN (after->total, hpd_pool_counters_minimum (after) + stuck);
}

const HpdNodeCounters *
hpd_pool_counters_node (const HpdPoolCounters *c, guint node)
{
  for (guint i = 0; c->nodes != NULL && i < c->nodes->len; i++)
    {
      const HpdNodeCounters *n = &g_array_index (c->nodes, HpdNodeCounters, i);
      if (n->node == node)
        return n;
    }
  return NULL;
}

gboolean
hpd_pool_has_node (const HpdPool *pool, guint node)
{
  for (guint i = 0; i < pool->nodes->len; i++)
    if (g_array_index (pool->nodes, guint, i) == node)
      return TRUE;
  return FALSE;
}

char *
hpd_pool_node_file (const HpdPool *pool, guint node, const char *file)
{
  return g_strdup_printf (NODE_DIR "/node%u/hugepages/%s/%s", node, pool->kb_name, file);
}

char *
hpd_pool_file (const HpdPool *pool, const char *file)
{
  return g_build_filename (pool->dir, file, NULL);
}

GArray *
hpd_nodes_probe (HpdKernel *kernel)
{
  g_autofree char *text = NULL;
  g_autoptr(GArray) online = NULL;
  g_autoptr(GError) error = NULL;
  GArray *nodes = g_array_new (FALSE, FALSE, sizeof (guint));

  if (!hpd_kernel_read_text (kernel, NODE_DIR "/online", &text, NULL))
    return nodes;

  online = hpd_parse_node_list (text, &error);
  if (online == NULL)
    {
      g_warning ("Ignoring NUMA nodes: %s", error->message);
      return nodes;
    }

  for (guint i = 0; i < online->len; i++)
    {
      guint node = g_array_index (online, guint, i);
      g_autofree char *dir = g_strdup_printf (NODE_DIR "/node%u/hugepages", node);

      if (hpd_kernel_exists (kernel, dir))
        g_array_append_val (nodes, node);
    }

  return nodes;
}

static int
probe_max_order (HpdKernel *kernel)
{
  g_autofree char *text = NULL;
  int order = -1;

  if (hpd_kernel_read_text (kernel, "proc/buddyinfo", &text, NULL))
    order = hpd_parse_buddyinfo_max_order (text);
  return order >= 0 ? order : FALLBACK_MAX_ORDER;
}

/* Kernels up to 6.18 refuse any overcommit value for gigantic pages, and no
 * file says so: writing back the current value is the only harmless probe. */
static gboolean
probe_can_overcommit (HpdKernel *kernel, const HpdPool *pool)
{
  g_autofree char *path = hpd_pool_file (pool, "nr_overcommit_hugepages");
  g_autoptr(GError) error = NULL;
  guint64 current;

  if (!hpd_kernel_read_counter (kernel, path, &current, NULL))
    return FALSE;
  if (!pool->gigantic)
    return TRUE;
  if (!hpd_kernel_write_counter (kernel, path, current, &error))
    {
      g_debug ("%s pages cannot overcommit: %s", pool->name, error->message);
      return FALSE;
    }
  return TRUE;
}

static int
compare_pools (gconstpointer a, gconstpointer b)
{
  const HpdPool *x = *(HpdPool *const *) a, *y = *(HpdPool *const *) b;

  return x->size < y->size ? -1 : x->size > y->size;
}

GPtrArray *
hpd_pools_probe (HpdKernel *kernel, GArray *nodes, GError **error)
{
  g_autoptr(GPtrArray) pools = g_ptr_array_new_with_free_func ((GDestroyNotify) hpd_pool_free);
  g_autoptr(GPtrArray) names = NULL;
  g_autofree char *meminfo = NULL;
  guint64 default_kb = 0;
  guint64 base = (guint64) sysconf (_SC_PAGESIZE);
  int max_order = probe_max_order (kernel);

  names = hpd_kernel_list_dir (kernel, HUGEPAGES_DIR, NULL);
  if (names == NULL)
    return g_steal_pointer (&pools); /* no huge page support */

  if (hpd_kernel_read_text (kernel, "proc/meminfo", &meminfo, error))
    hpd_parse_meminfo (meminfo, "Hugepagesize", &default_kb);
  else
    return NULL;

  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      g_autoptr(HpdPool) pool = NULL;
      g_autofree char *demote = NULL;
      g_autofree char *demote_path = NULL;
      guint64 kb;

      if (!hpd_parse_hugepages_dir (name, &kb))
        continue;

      pool = g_new0 (HpdPool, 1);
      pool->size = kb * 1024;
      pool->name = hp_size_name (pool->size);
      pool->kb_name = g_strdup (name);
      pool->dir = g_build_filename (HUGEPAGES_DIR, name, NULL);
      pool->is_default = kb == default_kb;
      pool->gigantic = pool->size > (base << max_order);
      pool->can_overcommit = probe_can_overcommit (kernel, pool);

      demote_path = hpd_pool_file (pool, "demote_size");
      if (hpd_kernel_read_text (kernel, demote_path, &demote, NULL))
        hpd_parse_demote_size (demote, &pool->demote_size);
      /* demote_size is only meaningful where the demote file exists */
      g_free (demote_path);
      demote_path = hpd_pool_file (pool, "demote");
      if (!hpd_kernel_exists (kernel, demote_path))
        pool->demote_size = 0;

      pool->nodes = g_array_new (FALSE, FALSE, sizeof (guint));
      for (guint j = 0; nodes != NULL && j < nodes->len; j++)
        {
          guint node = g_array_index (nodes, guint, j);
          g_autofree char *nr = hpd_pool_node_file (pool, node, "nr_hugepages");

          if (hpd_kernel_exists (kernel, nr))
            g_array_append_val (pool->nodes, node);
        }

      g_ptr_array_add (pools, g_steal_pointer (&pool));
    }

  g_ptr_array_sort (pools, compare_pools);
  return g_steal_pointer (&pools);
}

static gboolean
read_pool_counter (HpdKernel *kernel, const HpdPool *pool, const char *file,
                   guint64 *value, GError **error)
{
  g_autofree char *path = hpd_pool_file (pool, file);

  return hpd_kernel_read_counter (kernel, path, value, error);
}

static gboolean
read_node_counters (HpdKernel *kernel, const HpdPool *pool, guint node,
                    HpdNodeCounters *n, GError **error)
{
  g_autofree char *total = hpd_pool_node_file (pool, node, "nr_hugepages");
  g_autofree char *free = hpd_pool_node_file (pool, node, "free_hugepages");
  g_autofree char *surplus = hpd_pool_node_file (pool, node, "surplus_hugepages");

  n->node = node;
  return hpd_kernel_read_counter (kernel, total, &n->total, error) &&
         hpd_kernel_read_counter (kernel, free, &n->free, error) &&
         hpd_kernel_read_counter (kernel, surplus, &n->surplus, error);
}

gboolean
hpd_pool_read_total (HpdKernel *kernel, const HpdPool *pool, guint64 *total, GError **error)
{
  return read_pool_counter (kernel, pool, "nr_hugepages", total, error);
}

gboolean
hpd_pool_read (HpdKernel *kernel, const HpdPool *pool, HpdPoolCounters *c,
               GError **error)
{
  hpd_pool_counters_clear (c);

  if (!read_pool_counter (kernel, pool, "nr_hugepages", &c->total, error) ||
      !read_pool_counter (kernel, pool, "free_hugepages", &c->free, error) ||
      !read_pool_counter (kernel, pool, "resv_hugepages", &c->reserved, error) ||
      !read_pool_counter (kernel, pool, "surplus_hugepages", &c->surplus, error))
    return FALSE;

  /* hugeadm treats a missing overcommit file as 0; so do we. */
  if (!read_pool_counter (kernel, pool, "nr_overcommit_hugepages", &c->overcommit, NULL))
    c->overcommit = 0;

  c->nodes = g_array_sized_new (FALSE, TRUE, sizeof (HpdNodeCounters), pool->nodes->len);
  /* With one node holding huge pages, its counters are the pool's: the
   * kernel keeps each global count as the sum over the nodes, under the
   * same lock. Three reads fewer on every read of the pool. */
  if (pool->nodes->len == 1)
    {
      HpdNodeCounters n = {
        .node = g_array_index (pool->nodes, guint, 0),
        .total = c->total, .free = c->free, .surplus = c->surplus,
      };

      g_array_append_val (c->nodes, n);
      return TRUE;
    }
  for (guint i = 0; i < pool->nodes->len; i++)
    {
      HpdNodeCounters n = { 0, };

      if (!read_node_counters (kernel, pool, g_array_index (pool->nodes, guint, i), &n, error))
        return FALSE;
      g_array_append_val (c->nodes, n);
    }

  return TRUE;
}

HpdPoolTarget
hpd_pool_target_for_minimum (const HpdPoolCounters *now, gboolean can_overcommit,
                             guint64 pages)
{
  HpdPoolTarget t = { pages, pages };

  if (can_overcommit)
    t.maximum = MAX (hpd_pool_counters_maximum (now), pages);
  return t;
}

HpdPoolTarget
hpd_pool_target_for_maximum (const HpdPoolCounters *now, guint64 pages)
{
  HpdPoolTarget t;

  t.maximum = pages;
  t.minimum = MIN (hpd_pool_counters_minimum (now), pages);
  return t;
}

gboolean
hpd_pool_apply (HpdKernel *kernel, const HpdPool *pool, const HpdPoolCounters *before,
                const HpdPoolTarget *target, const HpdAllocOptions *options,
                GCancellable *cancellable, HpdPoolCounters *after, GError **error)
{
  g_autofree char *oc_file = hpd_pool_file (pool, "nr_overcommit_hugepages");
  guint64 gap = target->maximum - target->minimum;
  guint64 achieved;

  g_return_val_if_fail (target->maximum >= target->minimum, FALSE);

  /* Raise the overcommit limit before touching the pool, as hugeadm does, so
   * a shrink turns in-use pages into surplus that is still allowed. */
  if (pool->can_overcommit && gap > before->overcommit &&
      !hpd_kernel_write_counter (kernel, oc_file, gap, error))
    return FALSE;

  if (target->minimum != hpd_pool_counters_minimum (before) &&
      !hpd_alloc_pool (kernel, pool, target->minimum, options, cancellable, error))
    return FALSE;

  if (!hpd_pool_read (kernel, pool, after, error))
    return FALSE;

  /* Keep the requested Maximum even when the pool fell short: the missing
   * pages may still come later as surplus. */
  achieved = hpd_pool_counters_minimum (after);
  if (pool->can_overcommit)
    {
      guint64 overcommit = target->maximum > achieved ? target->maximum - achieved : 0;

      if (overcommit != after->overcommit)
        {
          if (!hpd_kernel_write_counter (kernel, oc_file, overcommit, error) ||
              !hpd_pool_read (kernel, pool, after, error))
            return FALSE;
        }
    }

  return TRUE;
}

gboolean
hpd_pool_apply_node (HpdKernel *kernel, const HpdPool *pool, guint node,
                     guint64 pages, const HpdAllocOptions *options,
                     GCancellable *cancellable, guint64 *achieved, GError **error)
{
  g_return_val_if_fail (hpd_pool_has_node (pool, node), FALSE);

  return hpd_alloc_node (kernel, pool, node, pages, options, cancellable, achieved, error);
}

gboolean
hpd_pool_demote (HpdKernel *kernel, const HpdPool *pool, guint64 pages,
                 guint64 *demoted, GError **error)
{
  g_autofree char *demote_file = hpd_pool_file (pool, "demote");
  guint64 before, after;

  if (!read_pool_counter (kernel, pool, "nr_hugepages", &before, error) ||
      !hpd_kernel_write_counter (kernel, demote_file, pages, error) ||
      !read_pool_counter (kernel, pool, "nr_hugepages", &after, error))
    return FALSE;

  *demoted = before > after ? before - after : 0;
  return TRUE;
}
