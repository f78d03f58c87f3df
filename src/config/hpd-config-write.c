/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The configuration as text: the canonical form that parses back to an
 * equal configuration. */

#include "config.h"

#include <string.h>

#include "hp-error.h"
#include "hp-units.h"
#include "hpd-config.h"
#include "hpd-parse.h"
#include "hpd-config-private.h"

char *
hpd_config_value_to_string (const HpdConfigValue *v)
{
  switch (v->kind)
    {
    case HPD_CONFIG_UNSET:
      return NULL;
    case HPD_CONFIG_NUMBER:
      return g_strdup_printf ("%" G_GUINT64_FORMAT, v->value);
    case HPD_CONFIG_BYTES:
      return hp_size_name (v->value);
    case HPD_CONFIG_PERCENT:
      return g_strdup_printf ("%" G_GUINT64_FORMAT "%%", v->value);
    case HPD_CONFIG_RECOMMENDED:
      return g_strdup ("recommended");
    default:
      g_assert_not_reached ();
    }
}

static void
append_amount (GString *out, const char *key, const HpdConfigValue *v)
{
  g_autofree char *text = hpd_config_value_to_string (v);

  if (text != NULL)
    g_string_append_printf (out, "%s = %s\n", key, text);
}

static gboolean
append_node (gpointer key, gpointer value, gpointer data)
{
  g_autofree char *name = g_strdup_printf ("node%u", GPOINTER_TO_UINT (key));

  append_amount (data, name, value);
  return FALSE;
}

static gboolean
append_pool (gpointer key, gpointer value, gpointer data)
{
  const HpdConfigPool *pool = value;
  GString *out = data;
  g_autofree char *size = pool->page_size ? hp_size_name (pool->page_size) : g_strdup ("DEFAULT");

  g_string_append_printf (out, "[pool %s]\n", size);
  append_amount (out, "minimum", &pool->minimum);
  append_amount (out, "maximum", &pool->maximum);
  g_tree_foreach (pool->nodes, append_node, out);
  g_string_append_c (out, '\n');
  return FALSE;
}

static gboolean
append_mount (gpointer key, gpointer value, gpointer data)
{
  const HpdConfigMount *m = value;
  GString *out = data;

  g_string_append_printf (out, "[mount %s]\n", (const char *) key);
  append_amount (out, "page-size", &m->page_size);
  append_amount (out, "max-size", &m->max_size);
  append_amount (out, "min-size", &m->min_size);
  append_amount (out, "max-inodes", &m->max_inodes);
  if (m->mode.kind != HPD_CONFIG_UNSET)
    g_string_append_printf (out, "mode = %04o\n", (guint) m->mode.value);
  g_string_append_c (out, '\n');
  return FALSE;
}

static gboolean
append_thp (gpointer key, gpointer value, gpointer data)
{
  g_string_append_printf (data, "%s = %s\n", (const char *) key,
                          ((const HpdConfigString *) value)->value);
  return FALSE;
}

char *
hpd_config_to_text (const HpdConfig *c)
{
  GString *out = g_string_new (NULL);

  g_tree_foreach (c->pools, append_pool, out);
  g_tree_foreach (c->mounts, append_mount, out);

  if (c->shmmax.kind || c->shm_group.value || c->min_free_kbytes.kind || c->zone_movable.kind)
    {
      g_string_append (out, "[tunables]\n");
      append_amount (out, "shmmax", &c->shmmax);
      if (c->shm_group.value != NULL)
        g_string_append_printf (out, "shm-group = %s\n", c->shm_group.value);
      append_amount (out, "min-free-kbytes", &c->min_free_kbytes);
      if (c->zone_movable.kind != HPD_CONFIG_UNSET)
        g_string_append_printf (out, "zone-movable = %s\n", c->zone_movable.value ? "yes" : "no");
      g_string_append_c (out, '\n');
    }

  if (g_tree_nnodes (c->thp) > 0)
    {
      g_string_append (out, "[thp]\n");
      g_tree_foreach (c->thp, append_thp, out);
      g_string_append_c (out, '\n');
    }

  if (c->boot_default_page_size.kind != HPD_CONFIG_UNSET)
    {
      g_string_append (out, "[boot]\n");
      append_amount (out, "default-page-size", &c->boot_default_page_size);
      g_string_append_c (out, '\n');
    }

  /* no blank line at the end */
  if (out->len > 0)
    g_string_truncate (out, out->len - 1);
  return g_string_free (out, FALSE);
}
