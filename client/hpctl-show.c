/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The read-only commands: status, page-sizes, pools; as text or --json. */
#include "config.h"

#include "hp-units.h"
#include "hpctl.h"

static int
no_arguments_expected (GStrv args)
{
  return hpctl_usage_error ("%s takes no arguments, but got '%s'", args[0], args[1]);
}

/* Not g_format_size (): its non-breaking space turns into '?' in a
 * non-UTF-8 locale, and scripts grep this. */
char *
hpctl_describe_bytes (guint64 bytes)
{
  g_autofree char *human = hp_format_bytes (bytes);

  if (bytes < 1024)
    return g_steal_pointer (&human);
  return g_strdup_printf ("%s (%" G_GUINT64_FORMAT " bytes)", human, bytes);
}

static char *
describe_nodes (GVariant *nodes)
{
  g_autoptr(GString) text = g_string_new (NULL);

  for (gsize i = 0; nodes != NULL && i < g_variant_n_children (nodes); i++)
    {
      guint32 node;

      g_variant_get_child (nodes, i, "u", &node);
      g_string_append_printf (text, "%s%u", i > 0 ? ", " : "", node);
    }
  return g_strdup (text->len > 0 ? text->str : "none");
}

static void
print_pool_status (HpDBusManagerPageSize *p)
{
  guint64 demote = hp_dbus_manager_page_size_get_demote_size (p);
  g_autofree char *demote_name = demote > 0 ? hp_size_name (demote) : g_strdup ("none");

  g_print ("  %s%s: minimum %" G_GUINT64_FORMAT ", total %" G_GUINT64_FORMAT
           ", maximum %" G_GUINT64_FORMAT "; free %" G_GUINT64_FORMAT
           ", reserved %" G_GUINT64_FORMAT ", surplus %" G_GUINT64_FORMAT
           "; overcommit %" G_GUINT64_FORMAT " (%s); gigantic: %s; demotes to: %s\n",
           hp_dbus_manager_page_size_get_name (p),
           hp_dbus_manager_page_size_get_is_default (p) ? " (default)" : "",
           hp_dbus_manager_page_size_get_minimum (p),
           hp_dbus_manager_page_size_get_total (p),
           hp_dbus_manager_page_size_get_maximum (p),
           hp_dbus_manager_page_size_get_free (p),
           hp_dbus_manager_page_size_get_reserved (p),
           hp_dbus_manager_page_size_get_surplus (p),
           hp_dbus_manager_page_size_get_overcommit (p),
           hp_dbus_manager_page_size_get_can_overcommit (p) ? "allowed" : "not allowed",
           hp_dbus_manager_page_size_get_gigantic (p) ? "yes" : "no",
           demote_name);
}

static void
print_status_json (HpctlContext *ctx, GPtrArray *page_sizes)
{
  g_autoptr(JsonBuilder) builder = hpctl_json_begin ();
  HpDBusManager *m = ctx->manager;

  hpctl_json_add_string (builder, "service_version", hp_dbus_manager_get_version (m));
  hpctl_json_add_uint (builder, "base_page_size", hp_dbus_manager_get_base_page_size (m));
  hpctl_json_add_uint (builder, "default_page_size", hp_dbus_manager_get_default_page_size (m));
  hpctl_json_add_variant (builder, "numa_nodes", hp_dbus_manager_get_numa_nodes (m));
  hpctl_json_add_uint (builder, "mem_total", hp_dbus_manager_get_mem_total (m));
  hpctl_json_add_uint (builder, "pool_memory_limit", hp_dbus_manager_get_pool_memory_limit (m));
  json_builder_set_member_name (builder, "pools");
  json_builder_begin_array (builder);
  for (guint i = 0; i < page_sizes->len; i++)
    hpctl_json_add_pool (builder, g_ptr_array_index (page_sizes, i));
  json_builder_end_array (builder);
  hpctl_json_print (builder);
}

int
hpctl_status (HpctlContext *ctx, GStrv args)
{
  gboolean json = FALSE;
  const GOptionEntry entries[] = { HPCTL_JSON_ENTRY (json), { NULL } };
  g_autoptr(GOptionContext) options = hpctl_command_options ("status", "Show the service, the machine and every pool.", NULL);
  g_autoptr(GPtrArray) page_sizes = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *base = NULL, *default_size = NULL, *nodes = NULL;
  g_autofree char *mem_total = NULL, *limit = NULL;
  guint64 default_bytes;

  g_option_context_add_main_entries (options, entries, NULL);
  if (!hpctl_parse_command (ctx, options, &args))
    return HPCTL_EXIT_USAGE;
  if (args[1] != NULL)
    return no_arguments_expected (args);
  if (!hpctl_connect (ctx))
    return HPCTL_EXIT_ERROR;

  page_sizes = hpctl_get_page_sizes (ctx, &error);
  if (page_sizes == NULL)
    return hpctl_fail (error);
  if (json)
    {
      print_status_json (ctx, page_sizes);
      return HPCTL_EXIT_OK;
    }

  default_bytes = hp_dbus_manager_get_default_page_size (ctx->manager);
  base = hp_size_name (hp_dbus_manager_get_base_page_size (ctx->manager));
  default_size = default_bytes > 0 ? hp_size_name (default_bytes) : g_strdup ("none");
  nodes = describe_nodes (hp_dbus_manager_get_numa_nodes (ctx->manager));
  mem_total = hpctl_describe_bytes (hp_dbus_manager_get_mem_total (ctx->manager));
  limit = hpctl_describe_bytes (hp_dbus_manager_get_pool_memory_limit (ctx->manager));

  g_print ("hugepagesd version:  %s\n", hp_dbus_manager_get_version (ctx->manager));
  g_print ("Base page size:      %s\n", base);
  g_print ("Default huge page:   %s\n", default_size);
  g_print ("NUMA nodes:          %s\n", nodes);
  g_print ("MemTotal:            %s\n", mem_total);
  g_print ("Pool memory limit:   %s\n", limit);
  g_print ("Pools:%s\n", page_sizes->len == 0 ? "               none" : "");
  for (guint i = 0; i < page_sizes->len; i++)
    print_pool_status (g_ptr_array_index (page_sizes, i));
  return HPCTL_EXIT_OK;
}

int
hpctl_page_sizes (HpctlContext *ctx, GStrv args)
{
  gboolean all = FALSE, json = FALSE;
  const GOptionEntry entries[] = {
    { "all", 'a', 0, G_OPTION_ARG_NONE, &all,
      "Also list the base page size, first (like pagesize -a)", NULL },
    HPCTL_JSON_ENTRY (json),
    { NULL }
  };
  g_autoptr(GOptionContext) options =
    hpctl_command_options ("page-sizes",
                           "List the huge page sizes in bytes, one a line, ascending (like pagesize -H).",
                           NULL);
  g_autoptr(GPtrArray) page_sizes = NULL;
  g_autoptr(GError) error = NULL;

  g_option_context_add_main_entries (options, entries, NULL);
  if (!hpctl_parse_command (ctx, options, &args))
    return HPCTL_EXIT_USAGE;
  if (args[1] != NULL)
    return no_arguments_expected (args);
  if (!hpctl_connect (ctx))
    return HPCTL_EXIT_ERROR;

  page_sizes = hpctl_get_page_sizes (ctx, &error);
  if (page_sizes == NULL)
    return hpctl_fail (error);

  if (json)
    {
      g_autoptr(JsonBuilder) builder = hpctl_json_begin ();

      if (all)
        hpctl_json_add_uint (builder, "base_page_size",
                             hp_dbus_manager_get_base_page_size (ctx->manager));
      json_builder_set_member_name (builder, "page_sizes");
      json_builder_begin_array (builder);
      for (guint i = 0; i < page_sizes->len; i++)
        json_builder_add_value (builder, hpctl_json_uint_node (hp_dbus_manager_page_size_get_size (
                                                                 g_ptr_array_index (page_sizes, i))));
      json_builder_end_array (builder);
      hpctl_json_print (builder);
      return HPCTL_EXIT_OK;
    }

  if (all)
    g_print ("%" G_GUINT64_FORMAT "\n", hp_dbus_manager_get_base_page_size (ctx->manager));
  for (guint i = 0; i < page_sizes->len; i++)
    g_print ("%" G_GUINT64_FORMAT "\n",
             hp_dbus_manager_page_size_get_size (g_ptr_array_index (page_sizes, i)));
  return HPCTL_EXIT_OK;
}

/* hugeadm --pool-list, byte for byte, so that scripts can switch. */
static void
print_pools (GPtrArray *page_sizes, gboolean long_format)
{
  g_print ("%10s %8s %8s %8s %8s", "Size", "Minimum", "Current", "Maximum", "Default");
  if (long_format)
    g_print (" %8s %8s %8s", "Free", "Reserved", "Surplus");
  g_print ("\n");

  for (guint i = 0; i < page_sizes->len; i++)
    {
      HpDBusManagerPageSize *p = g_ptr_array_index (page_sizes, i);

      g_print ("%10" G_GUINT64_FORMAT " %8" G_GUINT64_FORMAT " %8" G_GUINT64_FORMAT
               " %8" G_GUINT64_FORMAT " %8s",
               hp_dbus_manager_page_size_get_size (p),
               hp_dbus_manager_page_size_get_minimum (p),
               hp_dbus_manager_page_size_get_total (p),
               hp_dbus_manager_page_size_get_maximum (p),
               hp_dbus_manager_page_size_get_is_default (p) ? "*" : "");
      if (long_format)
        g_print (" %8" G_GUINT64_FORMAT " %8" G_GUINT64_FORMAT " %8" G_GUINT64_FORMAT,
                 hp_dbus_manager_page_size_get_free (p),
                 hp_dbus_manager_page_size_get_reserved (p),
                 hp_dbus_manager_page_size_get_surplus (p));
      g_print ("\n");
    }
}

typedef struct {
  guint32 node;
  guint64 size, total, free, surplus, minimum, target;
} NodeRow;

static gint
compare_node_rows (gconstpointer a, gconstpointer b)
{
  const NodeRow *x = a, *y = b;

  if (x->node != y->node)
    return x->node < y->node ? -1 : 1;
  return x->size < y->size ? -1 : x->size > y->size;
}

/* One row per node and size, by node, then size. */
static GArray *
node_rows (GPtrArray *page_sizes)
{
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (NodeRow));

  for (guint i = 0; i < page_sizes->len; i++)
    {
      HpDBusManagerPageSize *p = g_ptr_array_index (page_sizes, i);
      GVariant *nodes = hp_dbus_manager_page_size_get_nodes (p);

      for (gsize j = 0; nodes != NULL && j < g_variant_n_children (nodes); j++)
        {
          g_autoptr(GVariant) record = g_variant_get_child_value (nodes, j);
          NodeRow row = {
            .size = hp_dbus_manager_page_size_get_size (p),
            .total = hpctl_record_uint64 (record, "total"),
            .free = hpctl_record_uint64 (record, "free"),
            .surplus = hpctl_record_uint64 (record, "surplus"),
            .minimum = hpctl_record_uint64 (record, "minimum"),
            .target = hpctl_record_uint64 (record, "target"),
          };

          g_variant_lookup (record, "node", "u", &row.node);
          g_array_append_val (rows, row);
        }
    }
  g_array_sort (rows, compare_node_rows);
  return rows;
}

static void
print_node_pools (GPtrArray *page_sizes)
{
  g_autoptr(GArray) rows = node_rows (page_sizes);

  g_print ("%4s %10s %8s %8s %8s %8s %8s\n", "Node", "Size", "Total", "Free", "Surplus", "Minimum",
           "Target");
  for (guint i = 0; i < rows->len; i++)
    {
      const NodeRow *row = &g_array_index (rows, NodeRow, i);
      /* "-": the service keeps no pages there (nothing configured or
       * claimed on the node), as the other tables mark what is not set */
      g_autofree char *target = row->target > 0
        ? g_strdup_printf ("%" G_GUINT64_FORMAT, row->target) : g_strdup ("-");

      g_print ("%4u %10" G_GUINT64_FORMAT " %8" G_GUINT64_FORMAT " %8" G_GUINT64_FORMAT
               " %8" G_GUINT64_FORMAT " %8" G_GUINT64_FORMAT " %8s\n",
               row->node, row->size, row->total, row->free, row->surplus, row->minimum, target);
    }
}

/* The columns of the table as members: the same rows, the same numbers. */
static void
print_pools_json (GPtrArray *page_sizes, gboolean long_format, gboolean nodes)
{
  g_autoptr(JsonBuilder) builder = hpctl_json_begin ();

  if (nodes)
    {
      g_autoptr(GArray) rows = node_rows (page_sizes);

      json_builder_set_member_name (builder, "nodes");
      json_builder_begin_array (builder);
      for (guint i = 0; i < rows->len; i++)
        {
          const NodeRow *row = &g_array_index (rows, NodeRow, i);

          json_builder_begin_object (builder);
          hpctl_json_add_uint (builder, "node", row->node);
          hpctl_json_add_uint (builder, "page_size", row->size);
          hpctl_json_add_uint (builder, "total", row->total);
          hpctl_json_add_uint (builder, "free", row->free);
          hpctl_json_add_uint (builder, "surplus", row->surplus);
          hpctl_json_add_uint (builder, "minimum", row->minimum);
          hpctl_json_add_uint (builder, "target", row->target);
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);
      hpctl_json_print (builder);
      return;
    }

  json_builder_set_member_name (builder, "pools");
  json_builder_begin_array (builder);
  for (guint i = 0; i < page_sizes->len; i++)
    {
      HpDBusManagerPageSize *p = g_ptr_array_index (page_sizes, i);

      json_builder_begin_object (builder);
      hpctl_json_add_uint (builder, "page_size", hp_dbus_manager_page_size_get_size (p));
      hpctl_json_add_uint (builder, "minimum", hp_dbus_manager_page_size_get_minimum (p));
      hpctl_json_add_uint (builder, "total", hp_dbus_manager_page_size_get_total (p));
      hpctl_json_add_uint (builder, "maximum", hp_dbus_manager_page_size_get_maximum (p));
      hpctl_json_add_bool (builder, "default", hp_dbus_manager_page_size_get_is_default (p));
      if (long_format)
        {
          hpctl_json_add_uint (builder, "free", hp_dbus_manager_page_size_get_free (p));
          hpctl_json_add_uint (builder, "reserved", hp_dbus_manager_page_size_get_reserved (p));
          hpctl_json_add_uint (builder, "surplus", hp_dbus_manager_page_size_get_surplus (p));
        }
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  hpctl_json_print (builder);
}

int
hpctl_pools (HpctlContext *ctx, GStrv args)
{
  gboolean long_format = FALSE, nodes = FALSE, json = FALSE;
  const GOptionEntry entries[] = {
    { "long", 'l', 0, G_OPTION_ARG_NONE, &long_format,
      "Add the Free, Reserved and Surplus columns", NULL },
    { "nodes", 'n', 0, G_OPTION_ARG_NONE, &nodes,
      "One row per NUMA node and size: Node, Size, Total, Free, Surplus, Minimum, Target",
      NULL },
    HPCTL_JSON_ENTRY (json),
    { NULL }
  };
  g_autoptr(GOptionContext) options =
    hpctl_command_options ("pools",
                           "List the pools in the format of hugeadm --pool-list: Size in bytes,\n"
                           "Minimum (persistent pages), Current (all pages, surplus included),\n"
                           "Maximum (how far the pool may grow) and * for the default size.",
                           NULL);
  g_autoptr(GPtrArray) page_sizes = NULL;
  g_autoptr(GError) error = NULL;

  g_option_context_add_main_entries (options, entries, NULL);
  if (!hpctl_parse_command (ctx, options, &args))
    return HPCTL_EXIT_USAGE;
  if (args[1] != NULL)
    return no_arguments_expected (args);
  if (long_format && nodes)
    return hpctl_usage_error ("--long and --nodes cannot be used together");
  if (!hpctl_connect_page_sizes (ctx))
    return HPCTL_EXIT_ERROR;

  page_sizes = hpctl_get_page_sizes (ctx, &error);
  if (page_sizes == NULL)
    return hpctl_fail (error);

  if (json)
    print_pools_json (page_sizes, long_format, nodes);
  else if (nodes)
    print_node_pools (page_sizes);
  else
    print_pools (page_sizes, long_format);
  return HPCTL_EXIT_OK;
}
