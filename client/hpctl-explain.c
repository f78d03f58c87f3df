/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* explain: what hugepagesd finds worth knowing about the machine's huge
 * page setup, and how to fix what it warns about. Text for people, --json
 * for programs. */
#include "config.h"

#include <json-glib/json-glib.h>

#include "hpctl.h"

#define EXPLAIN_HELP \
  "Each finding has a severity (info, warning or error), a stable id (for\n" \
  "example min-free-kbytes-low or pool-short-2MB), a message and, where\n" \
  "there is one, a fix: a command or a step that fixes it. As text, one\n" \
  "block per finding:\n" \
  "  [warning] pool-short-2MB: The 2MB pool has 6 of the 8 pages asked for: ...\n" \
  "      fix: hugepagesctl set-min 2MB 8 --hard\n" \
  "With --json, one pretty-printed JSON object with these fields:\n" \
  "  {\"format_version\": 1,\n" \
  "   \"entries\": [{\"severity\": \"warning\", \"id\": \"pool-short-2MB\",\n" \
  "                \"message\": \"...\", \"fix\": \"...\"}, ...]}\n" \
  "\"entries\" is in the service's order; \"severity\", \"id\", \"message\" and\n" \
  "\"fix\" are always strings, \"fix\" is \"\" where there is none.\n" \
  "Warnings do not change the exit status.\n" \
  "\nExit status: 0 done, 1 error, 2 usage error."

static void
print_text (GVariant *entries)
{
  if (g_variant_n_children (entries) == 0)
    {
      g_print ("Nothing to report.\n");
      return;
    }

  for (gsize i = 0; i < g_variant_n_children (entries); i++)
    {
      g_autoptr(GVariant) entry = g_variant_get_child_value (entries, i);
      const char *fix = hpctl_record_string (entry, "fix");

      g_print ("[%s] %s: %s\n", hpctl_record_string (entry, "severity"),
               hpctl_record_string (entry, "id"), hpctl_record_string (entry, "message"));
      if (fix[0] != '\0')
        g_print ("    fix: %s\n", fix);
    }
}

static void
print_json (GVariant *entries)
{
  g_autoptr(JsonBuilder) builder = hpctl_json_begin ();

  hpctl_json_add_records (builder, "entries", entries,
                          (const char *[]) { "severity", "id", "message", "fix", NULL });
  hpctl_json_print (builder);
}

int
hpctl_explain (HpctlContext *ctx, GStrv args)
{
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    HPCTL_JSON_ENTRY (json),
    { NULL }
  };
  g_autoptr(GOptionContext) options = g_option_context_new ("explain");
  g_autoptr(GVariant) findings = NULL;
  g_autoptr(GError) error = NULL;
  GVariantBuilder no_options;

  g_option_context_set_summary (options,
                                "Explain the huge page setup: pools short of what was asked,\n"
                                "pools without mounts, SysV shared memory limits and group,\n"
                                "min_free_kbytes, your memlock limit, THP modes, and how many\n"
                                "pages of each size could be allocated now.");
  g_option_context_set_description (options, EXPLAIN_HELP);
  g_option_context_add_main_entries (options, entries, NULL);
  if (!hpctl_parse_command (ctx, options, &args))
    return HPCTL_EXIT_USAGE;
  if (args[1] != NULL)
    return hpctl_usage_error ("%s takes no arguments, but got '%s'", args[0], args[1]);
  if (!hpctl_connect (ctx))
    return HPCTL_EXIT_ERROR;

  /* needs no authorization: no interactive flag, no agent */
  g_variant_builder_init (&no_options, G_VARIANT_TYPE_VARDICT);
  if (!hp_dbus_manager_call_explain_sync (ctx->manager, g_variant_builder_end (&no_options),
                                          G_DBUS_CALL_FLAGS_NONE, -1, &findings, NULL, &error))
    return hpctl_fail (error);

  if (json)
    print_json (findings);
  else
    print_text (findings);
  return HPCTL_EXIT_OK;
}
