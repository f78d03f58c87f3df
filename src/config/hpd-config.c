/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The configuration object: its trees, editing and comparing. */

#include "config.h"

#include <string.h>

#include "hp-error.h"
#include "hp-units.h"
#include "hpd-config.h"
#include "hpd-parse.h"
#include "hpd-config-private.h"

static int
compare_u64 (gconstpointer a, gconstpointer b, gpointer user_data)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

int
hpd_config_compare_uint (gconstpointer a, gconstpointer b, gpointer user_data)
{
  guint x = GPOINTER_TO_UINT (a), y = GPOINTER_TO_UINT (b);
  return x < y ? -1 : x > y;
}

static int
compare_str (gconstpointer a, gconstpointer b, gpointer user_data)
{
  return strcmp (a, b);
}

static void
pool_free (HpdConfigPool *pool)
{
  g_tree_unref (pool->nodes);
  g_free (pool);
}

static void
mount_free (HpdConfigMount *mount)
{
  g_free (mount->owner);
  g_free (mount);
}

static void
string_free (HpdConfigString *s)
{
  g_free (s->value);
  g_free (s);
}

static void
override_free (HpdConfigOverride *o)
{
  g_free (o->key);
  g_free (o->value);
  g_free (o->overridden);
  g_free (o);
}

HpdConfig *
hpd_config_new (void)
{
  HpdConfig *config = g_new0 (HpdConfig, 1);

  /* pool keys point into the pool */
  config->pools = g_tree_new_full (compare_u64, NULL, NULL, (GDestroyNotify) pool_free);
  config->mounts = g_tree_new_full (compare_str, NULL, g_free, (GDestroyNotify) mount_free);
  config->thp = g_tree_new_full (compare_str, NULL, g_free, (GDestroyNotify) string_free);
  /* NULL-terminated: the bus property takes it as it is */
  config->errors = g_ptr_array_new_null_terminated (0, g_free, TRUE);
  config->files = g_ptr_array_new_with_free_func (g_free);
  config->overrides = g_ptr_array_new_with_free_func ((GDestroyNotify) override_free);
  config->assigned = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                            (GDestroyNotify) override_free);
  return config;
}

void
hpd_config_free (HpdConfig *config)
{
  if (config == NULL)
    return;
  g_tree_unref (config->pools);
  g_tree_unref (config->mounts);
  g_tree_unref (config->thp);
  g_free (config->shm_group.value);
  g_ptr_array_unref (config->errors);
  g_ptr_array_unref (config->files);
  g_ptr_array_unref (config->overrides);
  g_hash_table_unref (config->assigned);
  g_free (config);
}

void
hpd_config_unset_pool_minimum (HpdConfig *config, guint64 page_size)
{
  HpdConfigPool *pool = g_tree_lookup (config->pools, &page_size);

  if (pool != NULL)
    memset (&pool->minimum, 0, sizeof pool->minimum);
}

void
hpd_config_unset_pool_nodes (HpdConfig *config, guint64 page_size)
{
  HpdConfigPool *pool = g_tree_lookup (config->pools, &page_size);

  if (pool != NULL)
    g_tree_remove_all (pool->nodes);
}

void
hpd_config_remove_mount (HpdConfig *config, const char *key)
{
  g_tree_remove (config->mounts, key);
}

static gboolean
value_equal (const HpdConfigValue *a, const HpdConfigValue *b)
{
  return a->kind == b->kind && a->value == b->value;
}

typedef gboolean (*EqualFunc) (gconstpointer a, gconstpointer b);

/* Same keys in the same order, values equal by @equal. */
static gboolean
tree_equal (GTree *a, GTree *b, GCompareDataFunc compare_keys, EqualFunc equal)
{
  GTreeNode *x, *y;

  if (g_tree_nnodes (a) != g_tree_nnodes (b))
    return FALSE;
  for (x = g_tree_node_first (a), y = g_tree_node_first (b); x != NULL && y != NULL;
       x = g_tree_node_next (x), y = g_tree_node_next (y))
    if (compare_keys (g_tree_node_key (x), g_tree_node_key (y), NULL) != 0 ||
        !equal (g_tree_node_value (x), g_tree_node_value (y)))
      return FALSE;
  return TRUE;
}

static gboolean
node_equal (gconstpointer a, gconstpointer b)
{
  return value_equal (a, b);
}

static gboolean
pool_equal (gconstpointer a, gconstpointer b)
{
  const HpdConfigPool *x = a, *y = b;

  return x->page_size == y->page_size &&
         value_equal (&x->minimum, &y->minimum) && value_equal (&x->maximum, &y->maximum) &&
         tree_equal (x->nodes, y->nodes, hpd_config_compare_uint, node_equal);
}

static gboolean
mount_equal (gconstpointer a, gconstpointer b)
{
  const HpdConfigMount *x = a, *y = b;

  return x->scope == y->scope && g_strcmp0 (x->owner, y->owner) == 0 &&
         value_equal (&x->page_size, &y->page_size) &&
         value_equal (&x->max_size, &y->max_size) &&
         value_equal (&x->min_size, &y->min_size) &&
         value_equal (&x->max_inodes, &y->max_inodes) &&
         value_equal (&x->mode, &y->mode);
}

static gboolean
string_equal (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (((const HpdConfigString *) a)->value,
                    ((const HpdConfigString *) b)->value) == 0;
}

gboolean
hpd_config_equal (const HpdConfig *a, const HpdConfig *b)
{
  return tree_equal (a->pools, b->pools, compare_u64, pool_equal) &&
         tree_equal (a->mounts, b->mounts, compare_str, mount_equal) &&
         value_equal (&a->shmmax, &b->shmmax) &&
         g_strcmp0 (a->shm_group.value, b->shm_group.value) == 0 &&
         value_equal (&a->min_free_kbytes, &b->min_free_kbytes) &&
         value_equal (&a->zone_movable, &b->zone_movable) &&
         tree_equal (a->thp, b->thp, compare_str, string_equal) &&
         value_equal (&a->boot_default_page_size, &b->boot_default_page_size);
}
