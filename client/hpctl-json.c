/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The pieces every --json output shares: the top-level object with its
 * format version, typed members, GVariants with snake_case keys, a pool. */
#include "config.h"

#include <stdio.h>

#include "hpctl.h"

JsonBuilder *
hpctl_json_begin (void)
{
  JsonBuilder *builder = json_builder_new ();

  json_builder_begin_object (builder);
  hpctl_json_add_uint (builder, "format_version", HPCTL_JSON_FORMAT_VERSION);
  return builder;
}

void
hpctl_json_print (JsonBuilder *builder)
{
  g_autoptr(JsonNode) root = NULL;

  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  hpctl_print_json (root);
}

void
hpctl_print_json_line (JsonNode *root)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *text = NULL;

  json_generator_set_root (generator, root);
  text = json_generator_to_data (generator, NULL);
  /* UTF-8 whatever the locale, as hpctl_print_json (); flushed so that a
   * reader of a pipe sees each event when it happens */
  fputs (text, stdout);
  fputc ('\n', stdout);
  fflush (stdout);
}

void
hpctl_json_add_uint (JsonBuilder *builder, const char *name, guint64 value)
{
  json_builder_set_member_name (builder, name);
  /* JSON numbers are int64 in json-glib; no counter or size of a real
   * machine comes near 2^63 */
  json_builder_add_int_value (builder, (gint64) MIN (value, (guint64) G_MAXINT64));
}

void
hpctl_json_add_bool (JsonBuilder *builder, const char *name, gboolean value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_boolean_value (builder, value);
}

void
hpctl_json_add_string (JsonBuilder *builder, const char *name, const char *value)
{
  json_builder_set_member_name (builder, name);
  if (value != NULL)
    json_builder_add_string_value (builder, value);
  else
    json_builder_add_null_value (builder);
}

static char *
snake_case (const char *name)
{
  return g_strdelimit (g_strdup (name), "-", '_');
}

static JsonNode *
with_snake_keys (JsonNode *node)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      g_autoptr(JsonObject) converted = json_object_new ();
      g_autoptr(GList) members = json_object_get_members (object);

      for (GList *l = members; l != NULL; l = l->next)
        {
          g_autofree char *name = snake_case (l->data);

          json_object_set_member (converted, name,
                                  with_snake_keys (json_object_get_member (object, l->data)));
        }
      return json_node_init_object (json_node_alloc (), converted);
    }
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      g_autoptr(JsonArray) converted = json_array_sized_new (json_array_get_length (array));

      for (guint i = 0; i < json_array_get_length (array); i++)
        json_array_add_element (converted, with_snake_keys (json_array_get_element (array, i)));
      return json_node_init_array (json_node_alloc (), converted);
    }
  return json_node_copy (node);
}

JsonNode *
hpctl_json_from_variant (GVariant *value)
{
  g_autoptr(JsonNode) serialized = json_gvariant_serialize (value);

  return with_snake_keys (serialized);
}

void
hpctl_json_add_variant (JsonBuilder *builder, const char *name, GVariant *value)
{
  json_builder_set_member_name (builder, name);
  if (value != NULL)
    json_builder_add_value (builder, hpctl_json_from_variant (value));
  else
    json_builder_add_null_value (builder);
}

void
hpctl_json_add_records (JsonBuilder *builder, const char *name, GVariant *records,
                        const char *const *fields)
{
  g_return_if_fail (records == NULL ||
                    g_variant_type_n_items (g_variant_type_element (g_variant_get_type (records))) ==
                    g_strv_length ((char **) fields));

  json_builder_set_member_name (builder, name);
  json_builder_begin_array (builder);
  for (gsize i = 0; records != NULL && i < g_variant_n_children (records); i++)
    {
      g_autoptr(GVariant) record = g_variant_get_child_value (records, i);

      json_builder_begin_object (builder);
      for (gsize f = 0; fields[f] != NULL; f++)
        {
          g_autoptr(GVariant) value = g_variant_get_child_value (record, f);

          json_builder_set_member_name (builder, fields[f]);
          json_builder_add_value (builder, json_gvariant_serialize (value));
        }
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
}

void
hpctl_json_add_pool (JsonBuilder *builder, HpDBusManagerPageSize *p)
{
  GVariant *nodes = hp_dbus_manager_page_size_get_nodes (p);
  const char *const *mounts = hp_dbus_manager_page_size_get_mounts (p);

  json_builder_begin_object (builder);
  hpctl_json_add_string (builder, "name", hp_dbus_manager_page_size_get_name (p));
  hpctl_json_add_uint (builder, "page_size", hp_dbus_manager_page_size_get_size (p));
  hpctl_json_add_bool (builder, "default", hp_dbus_manager_page_size_get_is_default (p));
  hpctl_json_add_bool (builder, "gigantic", hp_dbus_manager_page_size_get_gigantic (p));
  hpctl_json_add_uint (builder, "minimum", hp_dbus_manager_page_size_get_minimum (p));
  hpctl_json_add_uint (builder, "total", hp_dbus_manager_page_size_get_total (p));
  hpctl_json_add_uint (builder, "maximum", hp_dbus_manager_page_size_get_maximum (p));
  hpctl_json_add_uint (builder, "free", hp_dbus_manager_page_size_get_free (p));
  hpctl_json_add_uint (builder, "reserved", hp_dbus_manager_page_size_get_reserved (p));
  hpctl_json_add_uint (builder, "surplus", hp_dbus_manager_page_size_get_surplus (p));
  hpctl_json_add_uint (builder, "overcommit", hp_dbus_manager_page_size_get_overcommit (p));
  hpctl_json_add_bool (builder, "can_overcommit", hp_dbus_manager_page_size_get_can_overcommit (p));
  hpctl_json_add_uint (builder, "demote_size", hp_dbus_manager_page_size_get_demote_size (p));

  hpctl_json_add_records (builder, "nodes", nodes,
                          (const char *[]) { "node", "total", "free", "surplus", "minimum", NULL });

  json_builder_set_member_name (builder, "mounts");
  json_builder_begin_array (builder);
  for (gsize i = 0; mounts != NULL && mounts[i] != NULL; i++)
    json_builder_add_string_value (builder, mounts[i]);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
}
