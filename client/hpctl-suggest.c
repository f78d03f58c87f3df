/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* suggest: how many pages a consumer (PostgreSQL, a JVM, ...) needs, as a
 * claim command to run. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hp-error.h"
#include "hp-units.h"
#include "hpctl.h"

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
  if (!hpctl_resolve_size_arg (ctx, page_size_text != NULL ? page_size_text : "DEFAULT", &size, &status))
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
