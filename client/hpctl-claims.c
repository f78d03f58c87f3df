/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* claim, release, claims: named claims that let several programs share
 * the pools (a PageSize's Claim and Release, the Manager's GetClaims);
 * suggest: how many pages the usual consumers need, printed as the claim
 * command to run. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hp-error.h"
#include "hp-names.h"
#include "hp-units.h"
#include "hpctl.h"

#define CLAIM_HELP \
  "CONSUMER names who needs the pages: 1 to 64 characters of a-z, 0-9, '.',\n" \
  "'_' and '-' (postgresql, libvirt-vm42). SIZE is 2M, 1G, a number of bytes\n" \
  "or DEFAULT. AMOUNT is a number of pages or an amount of memory that is a\n" \
  "whole number of pages. A second claim of the same consumer, size and node\n" \
  "replaces the first. The pool's target is the administrator's base (set-min)\n" \
  "plus every claim; claiming grows the pool by what the claim adds.\n" \
  "\nExit status: 0 done, 1 error, 2 usage error, 3 the kernel did not give\n" \
  "all the claimed pages (the claim is recorded; explain shows the shortfall)."

#define RELEASE_HELP \
  "Removes the claim of CONSUMER on SIZE (with --node, on that node), saved or\n" \
  "not, and shrinks the pool by its pages, never below the administrator's\n" \
  "base plus the other claims: other consumers' pages stay.\n" \
  "\nExit status: 0 done, 1 error, 2 usage error."

static gboolean
parse_node (const char *text, guint32 *node, GError **error)
{
  if (!hp_parse_u32 (text, node, NULL) || *node == HP_CLAIM_ALL_NODES)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS, "'%s' is not a NUMA node", text);
      return FALSE;
    }
  return TRUE;
}

/* SIZE, resolved against the service's sizes. */
static gboolean
resolve_size (HpctlContext *ctx, const char *text, guint64 *size, int *status)
{
  g_autoptr(GError) error = NULL;

  if (!hpctl_check_size_syntax (text, &error))
    {
      *status = hpctl_usage_error ("%s", error->message);
      return FALSE;
    }
  if (!hpctl_connect (ctx))
    {
      *status = HPCTL_EXIT_ERROR;
      return FALSE;
    }
  if (!hpctl_resolve_size (ctx, text, size, &error))
    {
      *status = hpctl_usage_error ("%s", error->message);
      return FALSE;
    }
  return TRUE;
}

int
hpctl_claim (HpctlContext *ctx, GStrv args)
{
  g_autofree char *node_text = NULL;
  g_autofree char *timeout = NULL;
  gboolean persist = FALSE, hard = FALSE, drop_caches = FALSE, dry_run = FALSE;
  const GOptionEntry entries[] = {
    { "node", 0, 0, G_OPTION_ARG_STRING, &node_text, "Claim pages on this NUMA node only", "N" },
    { "persist", 0, 0, G_OPTION_ARG_NONE, &persist,
      "Keep the claim across reboots (hugepagesd --apply allocates it at boot)", NULL },
    { "hard", 0, 0, G_OPTION_ARG_NONE, &hard,
      "Keep trying, compacting memory in between, while the pool grows", NULL },
    { "timeout", 0, 0, G_OPTION_ARG_STRING, &timeout,
      "Give up trying hard after SECONDS (default 30, at most 600)", "SECONDS" },
    { "drop-caches", 0, 0, G_OPTION_ARG_NONE, &drop_caches,
      "With --hard: when tries stall, drop the clean page cache once and go on", NULL },
    { "dry-run", 0, 0, G_OPTION_ARG_NONE, &dry_run, "Only check the claim; change nothing", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) options = g_option_context_new ("CONSUMER SIZE AMOUNT");
  g_autoptr(GError) error = NULL;
  GVariantBuilder opts;
  guint32 node = HP_CLAIM_ALL_NODES;
  guint64 size, achieved, seconds = 0;
  HpAmount amount;
  g_autoptr(HpDBusManagerPageSize) pool = NULL;
  g_autofree char *size_name = NULL;
  g_autofree char *where = NULL;
  int status;

  g_option_context_set_summary (options, "Claim huge pages for a consumer of them.");
  g_option_context_set_description (options, CLAIM_HELP);
  g_option_context_add_main_entries (options, entries, NULL);
  if (!hpctl_parse_command (ctx, options, &args))
    return HPCTL_EXIT_USAGE;
  if (g_strv_length (args) != 4)
    return hpctl_usage_error ("usage: hugepagesctl claim CONSUMER SIZE AMOUNT");
  if (node_text != NULL && !parse_node (node_text, &node, &error))
    return hpctl_usage_error ("%s", error->message);
  if (timeout != NULL && (!hard || !hp_parse_u64 (timeout, &seconds, NULL) || seconds > 600))
    return hpctl_usage_error (hard ? "--timeout takes a number of seconds up to 600"
                                   : "--timeout only applies to --hard");
  if (drop_caches && !hard)
    return hpctl_usage_error ("--drop-caches only applies to --hard");
  if (!resolve_size (ctx, args[2], &size, &status))
    return status;
  /* relative amounts make no sense for a claim, which replaces the last */
  if (!hp_parse_amount (args[3], size, &amount, &error))
    return hpctl_usage_error ("%s", error->message);
  if (amount.kind != HP_AMOUNT_SET)
    return hpctl_usage_error ("a claim is an amount, not a change: '%s'", args[3]);
  /* a pool is addressed by its object */
  if ((pool = hpctl_get_page_size (ctx, size, &error)) == NULL)
    return hpctl_fail (error);

  g_variant_builder_init (&opts, G_VARIANT_TYPE_VARDICT);
  if (node != HP_CLAIM_ALL_NODES)
    g_variant_builder_add (&opts, "{sv}", "node", g_variant_new_uint32 (node));
  if (persist)
    g_variant_builder_add (&opts, "{sv}", "persist", g_variant_new_boolean (TRUE));
  if (hard)
    g_variant_builder_add (&opts, "{sv}", "hard", g_variant_new_boolean (TRUE));
  if (timeout != NULL)
    g_variant_builder_add (&opts, "{sv}", "timeout-ms", g_variant_new_uint32 ((guint32) seconds * 1000));
  if (drop_caches)
    g_variant_builder_add (&opts, "{sv}", "drop-caches", g_variant_new_boolean (TRUE));
  if (dry_run)
    g_variant_builder_add (&opts, "{sv}", "dry-run", g_variant_new_boolean (TRUE));

  if (!hp_dbus_manager_page_size_call_claim_sync (pool, args[1], amount.pages,
                                                  g_variant_builder_end (&opts),
                                                  dry_run ? G_DBUS_CALL_FLAGS_NONE
                                                          : hpctl_prepare_interactive (ctx),
                                                  dry_run ? -1 : G_MAXINT, &achieved, NULL,
                                                  &error))
    return hpctl_fail (error);

  size_name = hp_size_name (size);
  where = node != HP_CLAIM_ALL_NODES ? g_strdup_printf (" on node %u", node) : g_strdup ("");
  if (dry_run)
    {
      g_print ("%s would claim %" G_GUINT64_FORMAT " pages of %s%s (nothing changed)\n",
               args[1], amount.pages, size_name, where);
      return HPCTL_EXIT_OK;
    }
  g_print ("%s: %" G_GUINT64_FORMAT " pages of %s%s (requested %" G_GUINT64_FORMAT ")%s\n",
           args[1], achieved, size_name, where, amount.pages, persist ? ", saved for boot" : "");
  if (achieved == amount.pages)
    return HPCTL_EXIT_OK;
  g_printerr ("%s: the kernel holds only %" G_GUINT64_FORMAT " of the %" G_GUINT64_FORMAT
              " pages claimed (memory is short or fragmented; the claim is recorded, "
              "see hugepagesctl explain)\n", g_get_prgname (), achieved, amount.pages);
  return HPCTL_EXIT_SHORTFALL;
}

int
hpctl_release (HpctlContext *ctx, GStrv args)
{
  g_autofree char *node_text = NULL;
  const GOptionEntry entries[] = {
    { "node", 0, 0, G_OPTION_ARG_STRING, &node_text, "Release the claim on this NUMA node", "N" },
    { NULL }
  };
  g_autoptr(GOptionContext) options = g_option_context_new ("CONSUMER SIZE");
  g_autoptr(GError) error = NULL;
  GVariantBuilder opts;
  guint32 node = HP_CLAIM_ALL_NODES;
  guint64 size;
  g_autoptr(HpDBusManagerPageSize) pool = NULL;
  g_autofree char *size_name = NULL;
  guint64 held = 0;
  int status;

  g_option_context_set_summary (options, "Release a consumer's claim.");
  g_option_context_set_description (options, RELEASE_HELP);
  g_option_context_add_main_entries (options, entries, NULL);
  if (!hpctl_parse_command (ctx, options, &args))
    return HPCTL_EXIT_USAGE;
  if (g_strv_length (args) != 3)
    return hpctl_usage_error ("usage: hugepagesctl release CONSUMER SIZE");
  if (node_text != NULL && !parse_node (node_text, &node, &error))
    return hpctl_usage_error ("%s", error->message);
  if (!resolve_size (ctx, args[2], &size, &status))
    return status;
  if ((pool = hpctl_get_page_size (ctx, size, &error)) == NULL)
    return hpctl_fail (error);

  g_variant_builder_init (&opts, G_VARIANT_TYPE_VARDICT);
  if (node != HP_CLAIM_ALL_NODES)
    g_variant_builder_add (&opts, "{sv}", "node", g_variant_new_uint32 (node));
  if (!hp_dbus_manager_page_size_call_release_sync (pool, args[1], g_variant_builder_end (&opts),
                                                    hpctl_prepare_interactive (ctx), G_MAXINT,
                                                    &held, NULL, &error))
    return hpctl_fail (error);

  size_name = hp_size_name (size);
  if (node != HP_CLAIM_ALL_NODES)
    g_print ("%s: released its claim on %s pages on node %u; the node holds %" G_GUINT64_FORMAT
             " persistent pages\n", args[1], size_name, node, held);
  else
    g_print ("%s: released its claim on %s pages; the pool holds %" G_GUINT64_FORMAT
             " persistent pages\n", args[1], size_name, held);
  return HPCTL_EXIT_OK;
}

static const char *
user_text (guint32 uid, char *buf, gsize size)
{
  const char *name = g_get_user_name ();

  /* the service sends numbers; names are the client's to look up */
  if (uid == getuid () && name != NULL)
    g_snprintf (buf, size, "%s", name);
  else
    g_snprintf (buf, size, "%u", uid);
  return buf;
}

int
hpctl_claims (HpctlContext *ctx, GStrv args)
{
  gboolean json = FALSE;
  const GOptionEntry entries[] = { HPCTL_JSON_ENTRY (json), { NULL } };
  g_autoptr(GOptionContext) options = g_option_context_new (NULL);
  g_autoptr(GVariant) claims = NULL;
  g_autoptr(GError) error = NULL;
  GVariantIter iter;
  GVariant *claim;

  g_option_context_set_summary (options,
                                "List the claims: consumer, page size, pages, node, the uid\n"
                                "that made each, and whether it is saved for boot.");
  g_option_context_add_main_entries (options, entries, NULL);
  if (!hpctl_parse_command (ctx, options, &args))
    return HPCTL_EXIT_USAGE;
  if (g_strv_length (args) != 1)
    return hpctl_usage_error ("usage: hugepagesctl claims");
  if (!hpctl_connect (ctx))
    return HPCTL_EXIT_ERROR;
  if (!hp_dbus_manager_call_get_claims_sync (ctx->manager,
                                             g_variant_new_array (G_VARIANT_TYPE ("{sv}"), NULL, 0),
                                             G_DBUS_CALL_FLAGS_NONE, -1, &claims, NULL, &error))
    return hpctl_fail (error);

  if (json)
    {
      g_autoptr(JsonBuilder) builder = hpctl_json_begin ();

      json_builder_set_member_name (builder, "claims");
      json_builder_begin_array (builder);
      g_variant_iter_init (&iter, claims);
      while ((claim = g_variant_iter_next_value (&iter)) != NULL)
        {
          G_GNUC_UNUSED g_autoptr(GVariant) owned = claim;
          g_autoptr(JsonNode) fields = hpctl_json_from_variant (claim);
          JsonObject *object = json_node_get_object (fields);

          /* a claim on the whole pool has no node: null, not absent */
          if (!json_object_has_member (object, "node"))
            json_object_set_null_member (object, "node");
          json_builder_add_value (builder, g_steal_pointer (&fields));
        }
      json_builder_end_array (builder);
      hpctl_json_print (builder);
      return HPCTL_EXIT_OK;
    }
  if (g_variant_n_children (claims) == 0)
    {
      g_print ("No claims.\n");
      return HPCTL_EXIT_OK;
    }
  g_print ("%-24s %6s %10s %6s %10s %s\n", "CONSUMER", "SIZE", "PAGES", "NODE", "UID", "KIND");
  g_variant_iter_init (&iter, claims);
  while ((claim = g_variant_iter_next_value (&iter)) != NULL)
    {
      const char *consumer = "";
      guint64 size = 0, pages = 0;
      guint32 node = HP_CLAIM_ALL_NODES, uid = 0;
      gboolean persisted = FALSE;
      g_autofree char *size_name = NULL;
      char node_buf[16], user_buf[64];

      g_variant_lookup (claim, "consumer", "&s", &consumer);
      g_variant_lookup (claim, "page-size", "t", &size);
      g_variant_lookup (claim, "pages", "t", &pages);
      g_variant_lookup (claim, "node", "u", &node);
      g_variant_lookup (claim, "uid", "u", &uid);
      g_variant_lookup (claim, "persisted", "b", &persisted);
      size_name = hp_size_name (size);
      if (node == HP_CLAIM_ALL_NODES)
        g_strlcpy (node_buf, "all", sizeof node_buf);
      else
        g_snprintf (node_buf, sizeof node_buf, "%u", node);
      g_print ("%-24s %6s %10" G_GUINT64_FORMAT " %6s %10s %s\n", consumer, size_name, pages,
               node_buf, user_text (uid, user_buf, sizeof user_buf),
               persisted ? "persisted" : "runtime");
      g_variant_unref (claim);
    }
  return HPCTL_EXIT_OK;
}

/* ---- suggest ---- */

#define SUGGEST_HELP \
  "CONSUMER is one of:\n" \
  "  postgresql   asks the server: postgres -C shared_memory_size_in_huge_pages\n" \
  "               (PostgreSQL 15 and later) with --pgdata DIR (or $PGDATA); as\n" \
  "               root it runs as the owner of DIR. --memory SIZE instead sizes\n" \
  "               from the shared memory you give (shared_buffers and some).\n" \
  "  jvm          --heap SIZE: a JVM with -XX:+UseLargePages and -Xms = -Xmx.\n" \
  "  qemu         --memory SIZE: a guest whose RAM is backed by huge pages.\n" \
  "Prints the claim command to run (the consumer named --name, or CONSUMER);\n" \
  "SIZE for the pages is --page-size (default: the default huge page size).\n" \
  "\nExit status: 0 done, 1 error, 2 usage error."

static gboolean
pages_for (guint64 bytes, guint64 page_size, guint64 *pages)
{
  *pages = bytes / page_size + (bytes % page_size != 0);
  return *pages > 0;
}

static char *
find_postgres (const char *given)
{
  g_autoptr(GDir) dir = NULL;
  g_autofree char *best = NULL;
  const char *name;
  char *found;

  if (given != NULL)
    return g_strdup (given);
  if ((found = g_find_program_in_path ("postgres")) != NULL)
    return found;
  /* Debian keeps the server out of PATH, one directory per major version */
  dir = g_dir_open ("/usr/lib/postgresql", 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/usr/lib/postgresql", name, "bin", "postgres", NULL);

      if (g_file_test (path, G_FILE_TEST_IS_EXECUTABLE) &&
          (best == NULL || strverscmp (path, best) > 0))
        {
          g_free (best);
          best = g_steal_pointer (&path);
        }
    }
  return g_steal_pointer (&best);
}

/* postgres -C refuses to run as root: run it as the data directory's owner. */
static gboolean
ask_postgres (const char *postgres, const char *pgdata, guint64 *pages, GError **error)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int wait_status;
  struct stat st;

  if (stat (pgdata, &st) < 0)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS, "%s: %s", pgdata, g_strerror (errno));
      return FALSE;
    }
  if (getuid () == 0)
    {
      g_ptr_array_add (argv, g_strdup ("setpriv"));
      g_ptr_array_add (argv, g_strdup_printf ("--reuid=%u", (guint) st.st_uid));
      g_ptr_array_add (argv, g_strdup_printf ("--regid=%u", (guint) st.st_gid));
      g_ptr_array_add (argv, g_strdup ("--clear-groups"));
      g_ptr_array_add (argv, g_strdup ("--"));
    }
  g_ptr_array_add (argv, g_strdup (postgres));
  g_ptr_array_add (argv, g_strdup ("-D"));
  g_ptr_array_add (argv, g_strdup (pgdata));
  g_ptr_array_add (argv, g_strdup ("-C"));
  g_ptr_array_add (argv, g_strdup ("shared_memory_size_in_huge_pages"));
  g_ptr_array_add (argv, NULL);

  if (!g_spawn_sync ("/", (char **) argv->pdata, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                     &out, &err, &wait_status, error))
    return FALSE;
  if (!g_spawn_check_wait_status (wait_status, NULL))
    {
      g_set_error (error, HP_ERROR, HP_ERROR_FAILED, "%s -C shared_memory_size_in_huge_pages "
                   "failed: %s", postgres, g_strstrip (err));
      return FALSE;
    }
  /* -1 where huge pages are not supported: PostgreSQL before 15 does not
   * know the parameter at all, which fails above */
  if (!hp_parse_u64 (g_strstrip (out), pages, NULL) || *pages == 0)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_FAILED,
                   "%s says the server needs '%s' huge pages: huge pages unsupported there",
                   postgres, out);
      return FALSE;
    }
  return TRUE;
}

int
hpctl_suggest (HpctlContext *ctx, GStrv args)
{
  g_autofree char *heap = NULL;
  g_autofree char *memory = NULL;
  g_autofree char *pgdata = NULL;
  g_autofree char *postgres = NULL;
  g_autofree char *page_size_text = NULL;
  g_autofree char *name = NULL;
  g_autofree char *command = NULL;
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    HPCTL_JSON_ENTRY (json),
    { "heap", 0, 0, G_OPTION_ARG_STRING, &heap, "jvm: the heap (-Xmx)", "SIZE" },
    { "memory", 0, 0, G_OPTION_ARG_STRING, &memory,
      "qemu: the guest's memory; postgresql: the shared memory", "SIZE" },
    { "pgdata", 0, 0, G_OPTION_ARG_FILENAME, &pgdata, "postgresql: the data directory", "DIR" },
    { "postgres", 0, 0, G_OPTION_ARG_FILENAME, &postgres, "postgresql: the server binary", "PATH" },
    { "page-size", 0, 0, G_OPTION_ARG_STRING, &page_size_text, "The huge page size", "SIZE" },
    { "name", 0, 0, G_OPTION_ARG_STRING, &name, "The consumer name to claim for", "CONSUMER" },
    { NULL }
  };
  g_autoptr(GOptionContext) options = g_option_context_new ("postgresql|jvm|qemu");
  g_autoptr(GError) error = NULL;
  g_autofree char *size_name = NULL;
  const char *kind, *hint = NULL;
  guint64 size, bytes = 0, pages = 0;
  int status;

  g_option_context_set_summary (options, "Suggest a claim for a usual consumer of huge pages.");
  g_option_context_set_description (options, SUGGEST_HELP);
  g_option_context_add_main_entries (options, entries, NULL);
  if (!hpctl_parse_command (ctx, options, &args))
    return HPCTL_EXIT_USAGE;
  if (g_strv_length (args) != 2)
    return hpctl_usage_error ("usage: hugepagesctl suggest postgresql|jvm|qemu");
  kind = args[1];
  if (!g_str_equal (kind, "postgresql") && !g_str_equal (kind, "jvm") && !g_str_equal (kind, "qemu"))
    return hpctl_usage_error ("no sizing for '%s': postgresql, jvm or qemu", kind);
  if (g_str_equal (kind, "jvm") ? heap == NULL : heap != NULL)
    return hpctl_usage_error ("--heap SIZE goes with jvm, and jvm needs it");
  if (g_str_equal (kind, "qemu") && memory == NULL)
    return hpctl_usage_error ("qemu needs --memory SIZE");
  if (g_str_equal (kind, "jvm") && memory != NULL)
    return hpctl_usage_error ("jvm takes --heap, not --memory");
  if (!g_str_equal (kind, "postgresql") && (pgdata != NULL || postgres != NULL))
    return hpctl_usage_error ("--pgdata and --postgres go with postgresql");
  if (name != NULL && !g_regex_match_simple ("^[a-z0-9][a-z0-9._-]{0,63}$", name, 0, 0))
    return hpctl_usage_error ("'%s' is not a consumer name", name);
  if (heap != NULL && (!hp_parse_size (heap, &bytes, &error) || bytes == 0))
    return hpctl_usage_error ("--heap: %s", error ? error->message : "must not be 0");
  if (memory != NULL && (!hp_parse_size (memory, &bytes, &error) || bytes == 0))
    return hpctl_usage_error ("--memory: %s", error ? error->message : "must not be 0");
  if (!resolve_size (ctx, page_size_text != NULL ? page_size_text : "DEFAULT", &size, &status))
    return status;
  size_name = hp_size_name (size);

  if (g_str_equal (kind, "postgresql") && memory == NULL)
    {
      g_autofree char *binary = find_postgres (postgres);
      const char *dir = pgdata != NULL ? pgdata : g_getenv ("PGDATA");

      if (binary == NULL)
        return hpctl_usage_error ("no postgres binary found: give --postgres PATH, or size "
                                  "by hand with --memory SIZE");
      if (dir == NULL)
        return hpctl_usage_error ("postgresql needs --pgdata DIR (or $PGDATA), or --memory SIZE");
      if (size != hp_dbus_manager_get_default_page_size (ctx->manager))
        return hpctl_usage_error ("postgres counts pages of the default huge page size; "
                                  "use --memory SIZE for %s pages", size_name);
      if (!ask_postgres (binary, dir, &pages, &error))
        return hpctl_fail (error);
      hint = "in postgresql.conf: huge_pages = on";
    }
  else
    {
      pages_for (bytes, size, &pages);
      if (g_str_equal (kind, "jvm"))
        hint = "java -XX:+UseLargePages -Xms (= -Xmx): the heap is allocated whole at start";
      else if (g_str_equal (kind, "qemu"))
        hint = "qemu -mem-path on a hugetlbfs mount of that size, or <memoryBacking><hugepages/> "
               "in libvirt";
      else
        hint = "in postgresql.conf: huge_pages = on";
    }

  command = g_strdup_printf ("hugepagesctl claim %s %s %" G_GUINT64_FORMAT " --persist",
                             name != NULL ? name : kind, size_name, pages);
  if (json)
    {
      g_autoptr(JsonBuilder) builder = hpctl_json_begin ();

      hpctl_json_add_string (builder, "consumer", name != NULL ? name : kind);
      hpctl_json_add_uint (builder, "page_size", size);
      hpctl_json_add_uint (builder, "pages", pages);
      hpctl_json_add_string (builder, "hint", hint);
      hpctl_json_add_string (builder, "command", command);
      hpctl_json_print (builder);
      return HPCTL_EXIT_OK;
    }
  g_print ("# %s\n", hint);
  g_print ("%s\n", command);
  return HPCTL_EXIT_OK;
}
