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
  /* flushed so that a reader of a pipe sees each event when it happens */
  hpctl_print_json_text (root, FALSE);
}

/* json-glib keeps every integer as a gint64, so an unsigned 64-bit value
 * above G_MAXINT64 (kernel.shmmax is 2^64 - 2^24 - 1 by default) cannot be
 * an integer node. It becomes a string node holding its digits behind a
 * byte that is never part of UTF-8, so no string from the service (D-Bus
 * strings are valid UTF-8) or from this program can look like one, and
 * write_node () prints its digits as a number. */
#define UINT64_MARK '\xff'

JsonNode *
hpctl_json_uint_node (guint64 value)
{
  g_autofree char *text = NULL;

  if (value <= (guint64) G_MAXINT64)
    return json_node_init_int (json_node_alloc (), (gint64) value);
  text = g_strdup_printf ("%c%" G_GUINT64_FORMAT, UINT64_MARK, value);
  return json_node_init_string (json_node_alloc (), text);
}

void
hpctl_json_add_uint (JsonBuilder *builder, const char *name, guint64 value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_value (builder, hpctl_json_uint_node (value));
}

static void
write_string (GString *out, const char *text)
{
  g_string_append_c (out, '"');
  for (const char *p = text; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;

      if (c == '"' || c == '\\')
        {
          g_string_append_c (out, '\\');
          g_string_append_c (out, (char) c);
        }
      else if (c == '\n')
        g_string_append (out, "\\n");
      else if (c == '\t')
        g_string_append (out, "\\t");
      else if (c < 0x20 || c == 0x7f)
        g_string_append_printf (out, "\\u%04x", c);
      else
        g_string_append_c (out, (char) c);
    }
  g_string_append_c (out, '"');
}

static void
write_newline (GString *out, gboolean pretty, guint depth)
{
  if (!pretty)
    return;
  g_string_append_c (out, '\n');
  for (guint i = 0; i < depth; i++)
    g_string_append (out, "  ");
}

static void
write_node (GString *out, JsonNode *node, gboolean pretty, guint depth)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObject *object = json_node_get_object (node);
        g_autoptr(GList) members = json_object_get_members (object);

        g_string_append_c (out, '{');
        for (GList *l = members; l != NULL; l = l->next)
          {
            write_newline (out, pretty, depth + 1);
            write_string (out, l->data);
            g_string_append (out, pretty ? " : " : ":");
            write_node (out, json_object_get_member (object, l->data), pretty, depth + 1);
            if (l->next != NULL)
              g_string_append_c (out, ',');
          }
        if (members != NULL)
          write_newline (out, pretty, depth);
        g_string_append_c (out, '}');
      }
      break;
    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        guint length = json_array_get_length (array);

        g_string_append_c (out, '[');
        for (guint i = 0; i < length; i++)
          {
            write_newline (out, pretty, depth + 1);
            write_node (out, json_array_get_element (array, i), pretty, depth + 1);
            if (i + 1 < length)
              g_string_append_c (out, ',');
          }
        if (length > 0)
          write_newline (out, pretty, depth);
        g_string_append_c (out, ']');
      }
      break;
    case JSON_NODE_NULL:
      g_string_append (out, "null");
      break;
    case JSON_NODE_VALUE:
      switch (json_node_get_value_type (node) == G_TYPE_INT64 ? 'i' :
              json_node_get_value_type (node) == G_TYPE_DOUBLE ? 'd' :
              json_node_get_value_type (node) == G_TYPE_BOOLEAN ? 'b' : 's')
        {
        case 'i':
          g_string_append_printf (out, "%" G_GINT64_FORMAT, json_node_get_int (node));
          break;
        case 'd':
          {
            char buffer[G_ASCII_DTOSTR_BUF_SIZE];

            g_string_append (out, g_ascii_dtostr (buffer, sizeof buffer,
                                                  json_node_get_double (node)));
          }
          break;
        case 'b':
          g_string_append (out, json_node_get_boolean (node) ? "true" : "false");
          break;
        default:
          {
            const char *text = json_node_get_string (node);

            if (text[0] == UINT64_MARK)
              g_string_append (out, text + 1);
            else
              write_string (out, text);
          }
          break;
        }
      break;
    default:
      g_assert_not_reached ();
    }
}

void
hpctl_print_json_text (JsonNode *root, gboolean pretty)
{
  g_autoptr(GString) out = g_string_new (NULL);

  write_node (out, root, pretty, 0);
  g_string_append_c (out, '\n');
  /* JSON is UTF-8 whatever the locale: not g_print (), which converts to
   * the locale's charset and writes '?' for what it cannot */
  fputs (out->str, stdout);
  fflush (stdout);
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

static JsonNode *
node_from_variant (GVariant *value, gboolean snake_keys)
{
  switch (g_variant_classify (value))
    {
    case G_VARIANT_CLASS_BOOLEAN:
      return json_node_init_boolean (json_node_alloc (), g_variant_get_boolean (value));
    case G_VARIANT_CLASS_BYTE:
      return hpctl_json_uint_node (g_variant_get_byte (value));
    case G_VARIANT_CLASS_UINT16:
      return hpctl_json_uint_node (g_variant_get_uint16 (value));
    case G_VARIANT_CLASS_UINT32:
      return hpctl_json_uint_node (g_variant_get_uint32 (value));
    case G_VARIANT_CLASS_UINT64:
      return hpctl_json_uint_node (g_variant_get_uint64 (value));
    case G_VARIANT_CLASS_INT16:
      return json_node_init_int (json_node_alloc (), g_variant_get_int16 (value));
    case G_VARIANT_CLASS_INT32:
      return json_node_init_int (json_node_alloc (), g_variant_get_int32 (value));
    case G_VARIANT_CLASS_INT64:
      return json_node_init_int (json_node_alloc (), g_variant_get_int64 (value));
    case G_VARIANT_CLASS_HANDLE:
      return json_node_init_int (json_node_alloc (), g_variant_get_handle (value));
    case G_VARIANT_CLASS_DOUBLE:
      return json_node_init_double (json_node_alloc (), g_variant_get_double (value));
    case G_VARIANT_CLASS_STRING:
    case G_VARIANT_CLASS_OBJECT_PATH:
    case G_VARIANT_CLASS_SIGNATURE:
      return json_node_init_string (json_node_alloc (), g_variant_get_string (value, NULL));
    case G_VARIANT_CLASS_VARIANT:
      {
        g_autoptr(GVariant) inner = g_variant_get_variant (value);

        return node_from_variant (inner, snake_keys);
      }
    case G_VARIANT_CLASS_MAYBE:
      {
        g_autoptr(GVariant) inner = g_variant_get_maybe (value);

        return inner != NULL ? node_from_variant (inner, snake_keys)
                             : json_node_init_null (json_node_alloc ());
      }
    case G_VARIANT_CLASS_ARRAY:
      if (g_variant_type_is_dict_entry (g_variant_type_element (g_variant_get_type (value))))
        {
          g_autoptr(JsonObject) object = json_object_new ();

          for (gsize i = 0; i < g_variant_n_children (value); i++)
            {
              g_autoptr(GVariant) entry = g_variant_get_child_value (value, i);
              g_autoptr(GVariant) key = g_variant_get_child_value (entry, 0);
              g_autoptr(GVariant) member = g_variant_get_child_value (entry, 1);
              g_autofree char *name = NULL;

              /* keys are strings on this bus; anything else as GVariant text */
              if (g_variant_is_of_type (key, G_VARIANT_TYPE_STRING))
                name = g_variant_dup_string (key, NULL);
              else
                name = g_variant_print (key, FALSE);
              if (snake_keys)
                g_strdelimit (name, "-", '_');
              json_object_set_member (object, name, node_from_variant (member, snake_keys));
            }
          return json_node_init_object (json_node_alloc (), object);
        }
      G_GNUC_FALLTHROUGH;
    case G_VARIANT_CLASS_TUPLE:
      {
        g_autoptr(JsonArray) array = json_array_sized_new (g_variant_n_children (value));

        for (gsize i = 0; i < g_variant_n_children (value); i++)
          {
            g_autoptr(GVariant) child = g_variant_get_child_value (value, i);

            json_array_add_element (array, node_from_variant (child, snake_keys));
          }
        return json_node_init_array (json_node_alloc (), array);
      }
    case G_VARIANT_CLASS_DICT_ENTRY:
    default:
      g_assert_not_reached ();
    }
}

JsonNode *
hpctl_json_from_variant (GVariant *value)
{
  return node_from_variant (value, TRUE);
}

JsonNode *
hpctl_json_from_variant_raw (GVariant *value)
{
  return node_from_variant (value, FALSE);
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
  g_return_if_fail (records == NULL || g_variant_is_of_type (records, G_VARIANT_TYPE ("aa{sv}")));

  json_builder_set_member_name (builder, name);
  json_builder_begin_array (builder);
  for (gsize i = 0; records != NULL && i < g_variant_n_children (records); i++)
    {
      g_autoptr(GVariant) record = g_variant_get_child_value (records, i);

      json_builder_begin_object (builder);
      for (gsize f = 0; fields[f] != NULL; f++)
        {
          g_autoptr(GVariant) value = g_variant_lookup_value (record, fields[f], NULL);
          g_autofree char *member = g_strdelimit (g_strdup (fields[f]), "-", '_');

          if (value == NULL)
            continue;
          json_builder_set_member_name (builder, member);
          json_builder_add_value (builder, hpctl_json_from_variant_raw (value));
        }
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
}

const char *
hpctl_record_string (GVariant *record, const char *key)
{
  const char *value;

  return g_variant_lookup (record, key, "&s", &value) ? value : "";
}

guint64
hpctl_record_uint64 (GVariant *record, const char *key)
{
  guint64 value;

  return g_variant_lookup (record, key, "t", &value) ? value : 0;
}

void
hpctl_json_add_pool (JsonBuilder *builder, HpDBusManagerPageSize *p)
{
  GVariant *nodes = hp_dbus_manager_page_size_get_nodes (p);
  const char *const *mounts = hp_dbus_manager_page_size_get_mounts (p);
  GVariant *last = hp_dbus_manager_page_size_get_last_allocation (p);

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
  hpctl_json_add_uint (builder, "base", hp_dbus_manager_page_size_get_base (p));
  hpctl_json_add_uint (builder, "target", hp_dbus_manager_page_size_get_target (p));
  hpctl_json_add_bool (builder, "can_overcommit", hp_dbus_manager_page_size_get_can_overcommit (p));
  hpctl_json_add_uint (builder, "demote_size", hp_dbus_manager_page_size_get_demote_size (p));
  /* the service's last change of the pool; null before the first */
  if (last != NULL && g_variant_n_children (last) > 0)
    hpctl_json_add_variant (builder, "last_allocation", last);
  else
    hpctl_json_add_variant (builder, "last_allocation", NULL);

  hpctl_json_add_records (builder, "nodes", nodes,
                          (const char *[]) { "node", "total", "free", "surplus", "minimum", "target",
                                             NULL });

  json_builder_set_member_name (builder, "mounts");
  json_builder_begin_array (builder);
  for (gsize i = 0; mounts != NULL && mounts[i] != NULL; i++)
    json_builder_add_string_value (builder, mounts[i]);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
}
