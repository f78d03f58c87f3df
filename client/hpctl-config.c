/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* hugepagesctl config: the configuration the service reads (ConfiguredState),
 * where the kernel differs from it (Drift), and its bad lines. */
#include "config.h"

#include <string.h>

#include "hpctl.h"

static GHashTable *
drift_by_key (GVariant *drift)
{
  GHashTable *table = g_hash_table_new (g_str_hash, g_str_equal);

  for (gsize i = 0; i < g_variant_n_children (drift); i++)
    {
      g_autoptr(GVariant) record = g_variant_get_child_value (drift, i);

      g_hash_table_insert (table, (gpointer) hpctl_record_string (record, "key"),
                           (gpointer) hpctl_record_string (record, "message"));
    }
  return table;
}

gboolean
hpctl_warn_apply_at_boot (HpctlContext *ctx)
{
  GVariant *hook = ctx->manager ? hp_dbus_manager_get_apply_at_boot (ctx->manager) : NULL;
  gboolean enabled = TRUE;
  const char *message = NULL, *fix = NULL;

  /* an older service without the property: nothing to say */
  if (hook == NULL || !g_variant_lookup (hook, "enabled", "b", &enabled) || enabled)
    return FALSE;
  g_variant_lookup (hook, "message", "&s", &message);
  g_variant_lookup (hook, "fix", "&s", &fix);
  g_printerr ("%s: warning: %s\n", g_get_prgname (), message ? message : "");
  if (fix != NULL && *fix != '\0')
    g_printerr ("%s: to fix it: %s\n", g_get_prgname (), fix);
  return TRUE;
}

/* The properties as they are: settings in the service's order, drift
 * by key, errors as lines, overrides, and whether they apply at boot. */
static void
print_json (GVariant *state, GVariant *drift, const char *const *errors, GVariant *overrides,
            GVariant *hook)
{
  g_autoptr(JsonBuilder) builder = hpctl_json_begin ();

  hpctl_json_add_records (builder, "settings", state,
                          (const char *[]) { "key", "value", "origin", NULL });
  hpctl_json_add_records (builder, "drift", drift,
                          (const char *[]) { "key", "configured", "actual", "message", NULL });
  json_builder_set_member_name (builder, "errors");
  json_builder_begin_array (builder);
  for (gsize i = 0; errors[i] != NULL; i++)
    json_builder_add_string_value (builder, errors[i]);
  json_builder_end_array (builder);
  if (overrides != NULL)
    hpctl_json_add_records (builder, "overrides", overrides,
                            (const char *[]) { "key", "value", "origin", "overridden",
                                               "overridden-origin", NULL });
  if (hook != NULL)
    {
      json_builder_set_member_name (builder, "apply_at_boot");
      json_builder_add_value (builder, json_gvariant_serialize (hook));
    }
  hpctl_json_print (builder);
}

/* Under a setting: each value it replaced. A mount's keys are its own
 * ("mount system max-size"), shown under "mount system". */
static void
print_overridden (GVariant *overrides, const char *key)
{
  gsize len = strlen (key);

  for (gsize i = 0; overrides != NULL && i < g_variant_n_children (overrides); i++)
    {
      g_autoptr(GVariant) record = g_variant_get_child_value (overrides, i);
      const char *k = hpctl_record_string (record, "key");

      if (strncmp (k, key, len) == 0 && (k[len] == '\0' ||
                                         (g_str_has_prefix (key, "mount ") && k[len] == ' ')))
        g_print ("  overrides %s%s%s at %s (%s here)\n", k[len] ? k + len + 1 : "",
                 k[len] ? " = " : "", hpctl_record_string (record, "overridden"),
                 hpctl_record_string (record, "overridden-origin"),
                 hpctl_record_string (record, "origin"));
    }
}

static void
warn_overrides (GVariant *overrides)
{
  for (gsize i = 0; overrides != NULL && i < g_variant_n_children (overrides); i++)
    {
      g_autoptr(GVariant) record = g_variant_get_child_value (overrides, i);

      g_printerr ("%s: warning: %s: %s = %s overrides %s from %s\n", g_get_prgname (),
                  hpctl_record_string (record, "origin"), hpctl_record_string (record, "key"),
                  hpctl_record_string (record, "value"),
                  hpctl_record_string (record, "overridden"),
                  hpctl_record_string (record, "overridden-origin"));
    }
}

int
hpctl_config (HpctlContext *ctx, GStrv args)
{
  gboolean check = FALSE, json = FALSE;
  const GOptionEntry entries[] = {
    { "check", 0, 0, G_OPTION_ARG_NONE, &check,
      "Exit with 3 if the kernel differs from the configuration, 1 on a bad line", NULL },
    HPCTL_JSON_ENTRY (json),
    { NULL }
  };
  g_autoptr(GOptionContext) options = g_option_context_new ("config");
  GVariant *state, *drift, *overrides;
  g_autoptr(GHashTable) drifted = NULL;
  const char *const *errors;
  int width = 0;

  g_option_context_set_summary (options,
                                "Show the configuration hugepagesd --apply makes at boot "
                                "(hugepagesd.conf(5)),\nwith where each setting comes from "
                                "and where the kernel differs from it now.");
  g_option_context_add_main_entries (options, entries, NULL);
  if (!hpctl_parse_command (ctx, options, &args))
    return HPCTL_EXIT_USAGE;
  if (args[1] != NULL)
    return hpctl_usage_error ("usage: hugepagesctl config [--check] [--json]");
  if (!hpctl_connect (ctx))
    return HPCTL_EXIT_ERROR;

  state = hp_dbus_manager_get_configured_state (ctx->manager);
  drift = hp_dbus_manager_get_drift (ctx->manager);
  errors = hp_dbus_manager_get_configuration_errors (ctx->manager);
  /* NULL from a service older than the property */
  overrides = hp_dbus_manager_get_configuration_overrides (ctx->manager);
  if (state == NULL || drift == NULL || errors == NULL)
    {
      g_printerr ("%s: the service does not report its configuration\n", g_get_prgname ());
      return HPCTL_EXIT_ERROR;
    }
  drifted = drift_by_key (drift);

  if (json)
    print_json (state, drift, errors, overrides,
                hp_dbus_manager_get_apply_at_boot (ctx->manager));

  for (gsize i = 0; !json && i < g_variant_n_children (state); i++)
    {
      g_autoptr(GVariant) record = g_variant_get_child_value (state, i);

      width = MAX (width, (int) (strlen (hpctl_record_string (record, "key")) + 1 +
                                 strlen (hpctl_record_string (record, "value"))));
    }

  if (!json && g_variant_n_children (state) == 0)
    g_print ("Nothing is configured.\n");
  for (gsize i = 0; !json && i < g_variant_n_children (state); i++)
    {
      g_autoptr(GVariant) record = g_variant_get_child_value (state, i);
      const char *key = hpctl_record_string (record, "key");
      g_autofree char *setting = g_strdup_printf ("%s %s", key,
                                                  hpctl_record_string (record, "value"));
      const char *message = g_hash_table_lookup (drifted, key);

      g_print ("%-*s  %s\n", width, setting, hpctl_record_string (record, "origin"));
      print_overridden (overrides, key);
      if (message != NULL)
        g_print ("  ! %s\n", message);
    }
  for (gsize i = 0; !json && errors[i] != NULL; i++)
    g_print ("error: %s\n", errors[i]);
  if (check)
    warn_overrides (overrides);
  if (g_variant_n_children (state) > 0)
    hpctl_warn_apply_at_boot (ctx);

  if (check && errors[0] != NULL)
    return HPCTL_EXIT_ERROR;
  if (check && g_hash_table_size (drifted) > 0)
    return HPCTL_EXIT_SHORTFALL;
  return HPCTL_EXIT_OK;
}
