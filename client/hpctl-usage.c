/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* usage: who holds the huge pages (GetUsage), as tables for people or
 * JSON for programs; remove-orphan: delete a file nobody maps. */
#include "config.h"

#include <json-glib/json-glib.h>

#include "hp-names.h"
#include "hp-units.h"
#include "hpctl.h"

/* A scan reads every process's mappings: give it the service's own bound
 * (20 s) and some. */
#define USAGE_TIMEOUT_MS 60000
/* RemoveOrphan: its scan, authorization and the removal; bounded, unlike
 * HPCTL_CHANGE_TIMEOUT_MS, as the service bounds the scan */
#define REMOVE_ORPHAN_TIMEOUT_MS (10 * 60 * 1000)

#define USAGE_HELP \
  "Lists the processes that map huge pages (pages faulted in, per page size,\n" \
  "shared with other processes or private), every file in the hugetlbfs\n" \
  "mounts (an unmapped one is an orphan, see remove-orphan), SysV shared\n" \
  "memory segments, cgroups with hugetlb usage or limits, and the pages and\n" \
  "reservations of each pool that none of them accounts for.\n" \
  "\n" \
  "Without the polkit authorization org.hugepages.manager.inspect-usage the\n" \
  "service shows only your own processes, files and segments, and says so.\n" \
  "\n" \
  "SysV BACKING: hugetlb (an attached process maps it with huge pages),\n" \
  "probably-hugetlb (unattached; its rss exceeds its size, which only hugetlb\n" \
  "segments show on kernels since about 6.7) or unknown (unattached: nothing\n" \
  "in /proc tells, and the service never attaches a segment).\n" \
  "\n" \
  "--json prints the service's reply as one JSON object with format_version;\n" \
  "its keys are those of GetUsage in the interface XML\n" \
  "(org.hugepages.Manager.xml) with '_' for '-' (page_size, in_use).\n" \
  "\nExit status: 0 done, 1 error, 2 usage error."

static guint64
lookup_t (GVariant *dict, const char *key)
{
  guint64 v = 0;

  g_variant_lookup (dict, key, "t", &v);
  return v;
}

static guint32
lookup_u (GVariant *dict, const char *key)
{
  guint32 v = 0;

  g_variant_lookup (dict, key, "u", &v);
  return v;
}

static const char *
lookup_s (GVariant *dict, const char *key)
{
  const char *v = "";

  g_variant_lookup (dict, key, "&s", &v);
  return v;
}

static GVariant *
lookup_list (GVariant *dict, const char *key)
{
  GVariant *v = g_variant_lookup_value (dict, key, G_VARIANT_TYPE ("aa{sv}"));

  return v != NULL ? v : g_variant_ref_sink (g_variant_new_array (G_VARIANT_TYPE_VARDICT, NULL, 0));
}

static char *
pids_text (GVariant *dict)
{
  g_autoptr(GVariant) pids = g_variant_lookup_value (dict, "pids", G_VARIANT_TYPE ("au"));
  GString *text = g_string_new (NULL);

  for (gsize i = 0; pids != NULL && i < g_variant_n_children (pids); i++)
    {
      guint32 pid;
      g_variant_get_child (pids, i, "u", &pid);
      g_string_append_printf (text, "%s%u", i ? "," : "", pid);
    }
  if (text->len == 0)
    g_string_append (text, "-");
  return g_string_free (text, FALSE);
}

static char *
size_name (guint64 bytes)
{
  return bytes == 0 ? g_strdup ("?") : hp_size_name (bytes);
}

static void
print_processes (GVariant *usage)
{
  g_autoptr(GVariant) list = lookup_list (usage, "processes");
  GVariantIter iter;
  GVariant *p;

  g_print ("Processes\n");
  if (g_variant_n_children (list) == 0)
    {
      g_print ("  none\n");
      return;
    }
  g_print ("  %-8s %-12s %-16s %-6s %8s %8s  %s\n", "PID", "USER", "COMMAND", "SIZE", "SHARED",
           "PRIVATE", "CMDLINE");
  g_variant_iter_init (&iter, list);
  while (g_variant_iter_next (&iter, "@a{sv}", &p))
    {
      g_autoptr(GVariant) process = p;
      g_autoptr(GVariant) sizes = lookup_list (process, "hugetlb");
      gsize n = g_variant_n_children (sizes);

      for (gsize i = 0; i < MAX (n, 1); i++)
        {
          g_autoptr(GVariant) size = n ? g_variant_get_child_value (sizes, i) : NULL;
          g_autofree char *name = size ? size_name (lookup_t (size, "page-size")) : g_strdup ("-");

          g_print ("  %-8u %-12s %-16s %-6s %8" G_GUINT64_FORMAT " %8" G_GUINT64_FORMAT "  %s\n",
                   lookup_u (process, "pid"), lookup_s (process, "user"), lookup_s (process, "command"),
                   name, size ? lookup_t (size, "shared") : 0, size ? lookup_t (size, "private") : 0,
                   i == 0 ? lookup_s (process, "cmdline") : "");
        }
    }
}

static void
print_files (GVariant *usage)
{
  g_autoptr(GVariant) list = lookup_list (usage, "files");
  GVariantIter iter;
  GVariant *f;

  g_print ("\nFiles in hugetlbfs mounts\n");
  if (g_variant_n_children (list) == 0)
    {
      g_print ("  none\n");
      return;
    }
  g_print ("  %-40s %-6s %12s %6s %-12s %s\n", "PATH", "SIZE", "BYTES", "PAGES", "OWNER", "MAPPED BY");
  g_variant_iter_init (&iter, list);
  while (g_variant_iter_next (&iter, "@a{sv}", &f))
    {
      g_autoptr(GVariant) file = f;
      g_autofree char *name = size_name (lookup_t (file, "page-size"));
      g_autofree char *pids = pids_text (file);
      gboolean mapped = FALSE;

      g_variant_lookup (file, "mapped", "b", &mapped);
      g_print ("  %-40s %-6s %12" G_GUINT64_FORMAT " %6" G_GUINT64_FORMAT " %-12s %s\n",
               lookup_s (file, "path"), name, lookup_t (file, "size"), lookup_t (file, "pages"),
               lookup_s (file, "user"),
               mapped ? (g_str_equal (pids, "-") ? "(others' processes)" : pids) : "nobody: orphan");
    }
}

static void
print_sysv (GVariant *usage)
{
  g_autoptr(GVariant) list = lookup_list (usage, "sysv");
  GVariantIter iter;
  GVariant *s;

  g_print ("\nSysV shared memory segments\n");
  if (g_variant_n_children (list) == 0)
    {
      g_print ("  none\n");
      return;
    }
  g_print ("  %-10s %-10s %-12s %12s %6s %-16s %-6s %6s  %s\n", "KEY", "ID", "OWNER", "BYTES",
           "NATTCH", "BACKING", "SIZE", "PAGES", "ATTACHED");
  g_variant_iter_init (&iter, list);
  while (g_variant_iter_next (&iter, "@a{sv}", &s))
    {
      g_autoptr(GVariant) seg = s;
      g_autofree char *key = NULL;
      g_autofree char *pids = pids_text (seg);
      g_autofree char *name = NULL;
      g_autofree char *pages = NULL;
      gint32 k = 0;
      guint64 page_size = lookup_t (seg, "page-size");
      guint64 n;

      g_variant_lookup (seg, "key", "i", &k);
      pages = g_variant_lookup (seg, "pages", "t", &n) ? g_strdup_printf ("%" G_GUINT64_FORMAT, n)
                                                      : g_strdup ("-");
      key = g_strdup_printf ("0x%08x", (guint32) k);
      name = page_size ? size_name (page_size) : g_strdup ("-");
      g_print ("  %-10s %-10u %-12s %12" G_GUINT64_FORMAT " %6" G_GUINT64_FORMAT " %-16s %-6s %6s  %s\n",
               key, lookup_u (seg, "id"), lookup_s (seg, "user"), lookup_t (seg, "size"),
               lookup_t (seg, "nattch"), lookup_s (seg, "backing"), name, pages, pids);
    }
}

static void
print_cgroups (GVariant *usage)
{
  g_autoptr(GVariant) list = lookup_list (usage, "cgroups");
  GVariantIter iter;
  GVariant *c;

  g_print ("\nCgroups (hugetlb controller)\n");
  if (g_variant_n_children (list) == 0)
    {
      g_print ("  none with hugetlb usage or limits\n");
      return;
    }
  g_print ("  %-40s %-6s %14s %14s %8s\n", "PATH", "SIZE", "CURRENT", "MAX", "MAX-HITS");
  g_variant_iter_init (&iter, list);
  while (g_variant_iter_next (&iter, "@a{sv}", &c))
    {
      g_autoptr(GVariant) cgroup = c;
      g_autoptr(GVariant) sizes = lookup_list (cgroup, "hugetlb");

      for (gsize i = 0; i < g_variant_n_children (sizes); i++)
        {
          g_autoptr(GVariant) size = g_variant_get_child_value (sizes, i);
          g_autofree char *name = size_name (lookup_t (size, "page-size"));
          g_autofree char *max = NULL;
          guint64 v;

          max = g_variant_lookup (size, "max", "t", &v) ? g_strdup_printf ("%" G_GUINT64_FORMAT, v)
                                                        : g_strdup ("max");
          g_print ("  %-40s %-6s %14" G_GUINT64_FORMAT " %14s %8" G_GUINT64_FORMAT "\n",
                   i == 0 ? lookup_s (cgroup, "path") : "", name, lookup_t (size, "current"), max,
                   lookup_t (size, "max-events"));
        }
    }
}

static void
print_unattributed (GVariant *usage)
{
  g_autoptr(GVariant) list = g_variant_lookup_value (usage, "unattributed", G_VARIANT_TYPE ("aa{sv}"));
  GVariantIter iter;
  GVariant *u;

  if (list == NULL)
    return;
  g_print ("\nPools: pages nobody above accounts for\n");
  g_print ("  %-6s %8s %8s %8s %12s %8s %12s\n", "SIZE", "TOTAL", "IN-USE", "ACCOUNTED",
           "UNACCOUNTED", "RESERVED", "RESV-NOBODY");
  g_variant_iter_init (&iter, list);
  while (g_variant_iter_next (&iter, "@a{sv}", &u))
    {
      g_autoptr(GVariant) pool = u;
      g_autofree char *name = size_name (lookup_t (pool, "page-size"));

      g_print ("  %-6s %8" G_GUINT64_FORMAT " %8" G_GUINT64_FORMAT " %8" G_GUINT64_FORMAT
               " %12" G_GUINT64_FORMAT " %8" G_GUINT64_FORMAT " %12" G_GUINT64_FORMAT "\n",
               name, lookup_t (pool, "total"), lookup_t (pool, "in-use"),
               lookup_t (pool, "in-use-attributed"), lookup_t (pool, "in-use-unattributed"),
               lookup_t (pool, "reserved"), lookup_t (pool, "reserved-unattributed"));
    }
}

static void
print_text (GVariant *usage)
{
  gboolean restricted = FALSE;
  g_autofree const char **truncated = NULL;
  g_autofree const char **warnings = NULL;

  g_variant_lookup (usage, "restricted", "b", &restricted);
  if (restricted)
    g_print ("Only what uid %u owns is shown: not authorized to see other users' huge page "
             "usage (org.hugepages.manager.inspect-usage).\n\n", lookup_u (usage, "uid"));
  print_processes (usage);
  print_files (usage);
  print_sysv (usage);
  print_cgroups (usage);
  print_unattributed (usage);

  g_print ("\n%u processes scanned", lookup_u (usage, "scanned-processes"));
  if (lookup_u (usage, "unreadable-processes") > 0)
    g_print (", %u could not be read", lookup_u (usage, "unreadable-processes"));
  g_print (".\n");
  if (g_variant_lookup (usage, "truncated", "^a&s", &truncated) && truncated[0] != NULL)
    {
      g_autofree char *joined = g_strjoinv (", ", (char **) truncated);
      g_print ("Incomplete: the scan stopped at its bound for %s.\n", joined);
    }
  if (g_variant_lookup (usage, "warnings", "^a&s", &warnings))
    for (gsize i = 0; warnings[i] != NULL; i++)
      g_print ("warning: %s\n", warnings[i]);
}

static void
print_json (GVariant *usage)
{
  g_autoptr(JsonNode) reply = hpctl_json_from_variant (usage);
  g_autoptr(JsonBuilder) builder = hpctl_json_begin ();
  g_autoptr(JsonNode) root = NULL;
  JsonObject *object = json_node_get_object (reply);
  g_autoptr(GList) members = json_object_get_members (object);

  /* the reply's members next to format_version, in one object */
  for (GList *l = members; l != NULL; l = l->next)
    {
      json_builder_set_member_name (builder, l->data);
      json_builder_add_value (builder, json_node_copy (json_object_get_member (object, l->data)));
    }
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);

  hpctl_print_json (root);
}

int
hpctl_usage (HpctlContext *ctx, GStrv args)
{
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    HPCTL_JSON_ENTRY (json),
    { NULL }
  };
  g_autoptr(GOptionContext) options = g_option_context_new ("usage");
  g_autoptr(GVariant) usage = NULL;
  g_autoptr(GError) error = NULL;
  GVariantBuilder no_options;

  g_option_context_set_summary (options, "Show who holds huge pages: processes, files, SysV "
                                "segments, cgroups.");
  g_option_context_set_description (options, USAGE_HELP);
  g_option_context_add_main_entries (options, entries, NULL);
  if (!hpctl_parse_command (ctx, options, &args))
    return HPCTL_EXIT_USAGE;
  if (args[1] != NULL)
    return hpctl_usage_error ("%s takes no arguments, but got '%s'", args[0], args[1]);
  if (!hpctl_connect (ctx))
    return HPCTL_EXIT_ERROR;

  /* Authorization widens the view; without it (--no-ask-password, or a
   * password not given) the reply is the caller's own part. */
  g_variant_builder_init (&no_options, G_VARIANT_TYPE_VARDICT);
  if (!hp_dbus_manager_call_get_usage_sync (ctx->manager, g_variant_builder_end (&no_options),
                                            hpctl_prepare_interactive (ctx), USAGE_TIMEOUT_MS,
                                            &usage, NULL, &error))
    return hpctl_fail (error);

  if (json)
    print_json (usage);
  else
    print_text (usage);
  return HPCTL_EXIT_OK;
}

int
hpctl_remove_orphan (HpctlContext *ctx, GStrv args)
{
  gboolean dry_run = FALSE, ignore_unreadable = FALSE;
  const GOptionEntry entries[] = {
    { "dry-run", 0, 0, G_OPTION_ARG_NONE, &dry_run, "Check everything, remove nothing", NULL },
    { "ignore-unreadable", 0, 0, G_OPTION_ARG_NONE, &ignore_unreadable,
      "Remove it even if the mappings of some processes cannot be read", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) options = g_option_context_new ("remove-orphan PATH");
  g_autoptr(GError) error = NULL;
  g_autofree char *bytes = NULL;
  guint64 freed = 0;
  GVariantBuilder call_options;

  g_option_context_set_summary (options,
                                "Remove PATH, a file in a hugetlbfs mount that no process maps\n"
                                "(as 'usage' lists it), giving its huge pages back to the pool.");
  g_option_context_set_description (options,
                                    "A file some process maps is refused, naming the processes.\n"
                                    "\nExit status: 0 done, 1 error, 2 usage error.");
  g_option_context_add_main_entries (options, entries, NULL);
  if (!hpctl_parse_command (ctx, options, &args))
    return HPCTL_EXIT_USAGE;
  if (g_strv_length (args) != 2)
    return hpctl_usage_error ("usage: hugepagesctl remove-orphan PATH");
  if (!hpctl_path_argument (args[1]))
    return HPCTL_EXIT_USAGE;
  if (!hpctl_connect (ctx))
    return HPCTL_EXIT_ERROR;

  g_variant_builder_init (&call_options, G_VARIANT_TYPE_VARDICT);
  hpctl_add_flag (&call_options, HP_OPTION_DRY_RUN, dry_run);
  hpctl_add_flag (&call_options, HP_OPTION_IGNORE_UNREADABLE, ignore_unreadable);
  if (!hp_dbus_manager_call_remove_orphan_sync (ctx->manager, args[1],
                                                g_variant_builder_end (&call_options),
                                                hpctl_change_call_flags (ctx, dry_run),
                                                REMOVE_ORPHAN_TIMEOUT_MS, &freed, NULL, &error))
    return hpctl_fail (error);
  bytes = hp_format_bytes (freed);
  if (dry_run)
    g_print ("%s is an orphan; it would be removed, freeing %s.\n", args[1], bytes);
  else
    g_print ("removed %s, freeing %s\n", args[1], bytes);
  return HPCTL_EXIT_OK;
}
