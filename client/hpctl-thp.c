/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* thp: the transparent huge page settings, shown or changed (SetThp). */
#include "config.h"

#include <string.h>

#include "hp-error.h"
#include "hp-names.h"
#include "hp-units.h"
#include "hpctl-tunables.h"

static const char *const thp_numeric[] = { HP_THP_NUMERIC_SETTINGS, NULL };

/* The khugepaged numbers, in the order of thp_numeric. */
static guint32
thp_number (HpDBusManager *m, gsize i)
{
  switch (i)
    {
    case 0:
      return hp_dbus_manager_get_khugepaged_pages_to_scan (m);
    case 1:
      return hp_dbus_manager_get_khugepaged_scan_sleep_millisecs (m);
    case 2:
      return hp_dbus_manager_get_khugepaged_alloc_sleep_millisecs (m);
    default:
      g_assert_not_reached ();
    }
}

/* mTHP settings ("hugepages-64kB/enabled") sort by size; the others, which
 * apply to all sizes, come first. */
static guint64
thp_setting_size (const char *name)
{
  g_autofree char *size = NULL;
  const char *slash = strchr (name, '/');
  guint64 bytes;

  if (slash == NULL || !g_str_has_prefix (name, "hugepages-"))
    return 0;
  size = g_strndup (name + strlen ("hugepages-"), (gsize) (slash - name) - strlen ("hugepages-"));
  return hp_parse_size (size, &bytes, NULL) ? bytes : G_MAXUINT64;
}

static gint
compare_thp_settings (gconstpointer a, gconstpointer b)
{
  GVariant *x = *(GVariant *const *) a, *y = *(GVariant *const *) b;
  const char *x_name, *y_name;
  guint64 x_size, y_size;

  g_variant_get_child (x, 0, "&s", &x_name);
  g_variant_get_child (y, 0, "&s", &y_name);
  x_size = thp_setting_size (x_name);
  y_size = thp_setting_size (y_name);
  if (x_size != y_size)
    return x_size < y_size ? -1 : 1;
  return strcmp (x_name, y_name);
}

/* The same settings in the same order as the text; none at all (both
 * arrays empty) where the text says the kernel has none. */
static void
print_thp_json (HpctlContext *ctx, GPtrArray *entries, gboolean none)
{
  g_autoptr(JsonBuilder) builder = hpctl_json_begin ();

  json_builder_set_member_name (builder, "settings");
  json_builder_begin_array (builder);
  for (guint i = 0; i < entries->len; i++)
    {
      const char *name, *current;
      g_autofree const char **choices = NULL;

      g_variant_get (g_ptr_array_index (entries, i), "{&s(&s^a&s)}", &name, &current, &choices);
      json_builder_begin_object (builder);
      hpctl_json_add_string (builder, "name", name);
      hpctl_json_add_string (builder, "value", current);
      json_builder_set_member_name (builder, "choices");
      json_builder_begin_array (builder);
      for (gsize c = 0; choices[c] != NULL; c++)
        json_builder_add_string_value (builder, choices[c]);
      json_builder_end_array (builder);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "numeric_settings");
  json_builder_begin_array (builder);
  for (gsize i = 0; !none && thp_numeric[i] != NULL; i++)
    {
      json_builder_begin_object (builder);
      hpctl_json_add_string (builder, "name", thp_numeric[i]);
      hpctl_json_add_uint (builder, "value", thp_number (ctx->manager, i));
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  hpctl_json_print (builder);
}

static int
show_thp (HpctlContext *ctx, const TunableOptions *o)
{
  GVariant *settings = hp_dbus_manager_get_thp_settings (ctx->manager);
  g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);
  gsize width = 0;
  guint32 any_number = 0;

  for (gsize i = 0; thp_numeric[i] != NULL; i++)
    {
      width = MAX (width, strlen (thp_numeric[i]));
      any_number |= thp_number (ctx->manager, i);
    }
  for (gsize i = 0; settings != NULL && i < g_variant_n_children (settings); i++)
    {
      GVariant *entry = g_variant_get_child_value (settings, i);
      const char *name;

      g_variant_get_child (entry, 0, "&s", &name);
      width = MAX (width, strlen (name));
      g_ptr_array_add (entries, entry);
    }
  g_ptr_array_sort (entries, compare_thp_settings);

  if (o->json)
    {
      print_thp_json (ctx, entries, entries->len == 0 && any_number == 0);
      return HPCTL_EXIT_OK;
    }
  if (entries->len == 0 && any_number == 0)
    {
      g_print ("This kernel has no transparent huge page settings.\n");
      return HPCTL_EXIT_OK;
    }

  for (guint i = 0; i < entries->len; i++)
    {
      const char *name, *current;
      g_autofree const char **choices = NULL;
      g_autofree char *list = NULL;

      g_variant_get (g_ptr_array_index (entries, i), "{&s(&s^a&s)}", &name, &current, &choices);
      list = g_strjoinv (", ", (char **) choices);
      g_print ("%-*s %s (%s)\n", (int) width, name, current, list);
    }
  for (gsize i = 0; thp_numeric[i] != NULL; i++)
    g_print ("%-*s %u\n", (int) width, thp_numeric[i], thp_number (ctx->manager, i));
  return HPCTL_EXIT_OK;
}

/* One NAME=VALUE argument, checked against what the kernel offers: the
 * choices ThpSettings lists, or a number for the khugepaged settings. */
static gboolean
add_thp_setting (HpctlContext *ctx, const char *argument, GVariantBuilder *builder,
                 GHashTable *seen, GError **error)
{
  GVariant *settings = hp_dbus_manager_get_thp_settings (ctx->manager);
  const char *equals = strchr (argument, '=');
  g_autofree char *name = NULL;
  g_autofree const char **choices = NULL;
  const char *value, *current;
  guint64 number;

  if (equals == NULL || equals == argument)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "'%s' is not NAME=VALUE (for example enabled=madvise)", argument);
      return FALSE;
    }
  name = g_strndup (argument, (gsize) (equals - argument));
  value = equals + 1;
  if (!g_hash_table_add (seen, g_strdup (name)))
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS, "THP setting '%s' given twice", name);
      return FALSE;
    }

  if (g_strv_contains (thp_numeric, name))
    {
      g_autoptr(GError) reason = NULL;

      if (!hp_parse_u64 (value, &number, &reason))
        {
          g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                       "THP setting '%s' takes a decimal number: %s", name, reason->message);
          return FALSE;
        }
      if (number > G_MAXUINT32)
        {
          g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                       "THP setting '%s': %s is out of range (at most %u)", name, value,
                       G_MAXUINT32);
          return FALSE;
        }
      g_variant_builder_add (builder, "{sv}", name, g_variant_new_uint32 ((guint32) number));
      return TRUE;
    }

  if (settings == NULL || !g_variant_lookup (settings, name, "(&s^a&s)", &current, &choices))
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "this kernel has no THP setting '%s'; 'hugepagesctl thp' lists them", name);
      return FALSE;
    }
  if (!g_strv_contains (choices, value))
    {
      g_autofree char *list = g_strjoinv (", ", (char **) choices);
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "THP setting '%s' takes one of: %s; not '%s'", name, list, value);
      return FALSE;
    }
  g_variant_builder_add (builder, "{sv}", name, g_variant_new_string (value));
  return TRUE;
}

int
hpctl_thp (HpctlContext *ctx, GStrv args)
{
  TunableOptions o = { FALSE, };
  g_autoptr(GOptionContext) options =
    hpctl_tunable_options ("thp [NAME=VALUE…]",
                           "Show or set the transparent huge page settings.",
                           "Without an argument: every setting the kernel offers, one a line, as\n"
                           "NAME CURRENT (CHOICES), then the khugepaged numbers as NAME VALUE.\n"
                           "NAME is a path below /sys/kernel/mm/transparent_hugepage: enabled,\n"
                           "defrag, shmem_enabled, hugepages-64kB/enabled (mTHP),\n"
                           "khugepaged/pages_to_scan, khugepaged/scan_sleep_millisecs,\n"
                           "khugepaged/alloc_sleep_millisecs. VALUE is one of the setting's\n"
                           "choices, or a decimal number for the khugepaged settings.\n"
                           "All settings given are applied together, or none is:\n"
                           "  hugepagesctl thp enabled=madvise defrag=defer\n"
                           EXIT_HELP,
                           &o, FALSE);
  g_autoptr(GError) error = NULL;
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GVariantBuilder builder;
  g_autoptr(GVariant) settings = NULL;
  g_autoptr(GVariant) achieved = NULL;

  if (!hpctl_parse_command (ctx, options, &args))
    return HPCTL_EXIT_USAGE;
  if (!hpctl_tunable_check_use (&o, args[1], FALSE))
    return HPCTL_EXIT_USAGE;
  /* the syntax before connecting, so that typos are usage errors without
   * the service */
  for (gsize i = 1; args[i] != NULL; i++)
    {
      const char *equals = strchr (args[i], '=');

      if (equals == NULL || equals == args[i])
        return hpctl_usage_error ("'%s' is not NAME=VALUE (for example enabled=madvise)",
                                  args[i]);
    }

  if (!hpctl_connect (ctx))
    return HPCTL_EXIT_ERROR;
  if (args[1] == NULL)
    return show_thp (ctx, &o);

  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  for (gsize i = 1; args[i] != NULL; i++)
    if (!add_thp_setting (ctx, args[i], &builder, seen, &error))
      {
        g_variant_builder_clear (&builder);
        return hpctl_usage_error ("%s", error->message);
      }
  settings = g_variant_ref_sink (g_variant_builder_end (&builder));

  if (!hp_dbus_manager_call_set_thp_sync (ctx->manager, settings, hpctl_tunable_build_options (&o),
                                          hpctl_tunable_call_flags (ctx, &o), hpctl_tunable_call_timeout (&o),
                                          &achieved, NULL, &error))
    return hpctl_fail (error);

  /* in the order given, each as the kernel holds it now */
  for (gsize i = 0; i < g_variant_n_children (settings); i++)
    {
      const char *name;
      g_autoptr(GVariant) value = NULL;
      g_autofree char *text = NULL;

      g_autoptr(GVariant) now = NULL;

      g_variant_get_child (settings, i, "{&sv}", &name, &value);
      now = g_variant_lookup_value (achieved, name, NULL);
      if (now != NULL)
        {
          g_variant_unref (value);
          value = g_steal_pointer (&now);
        }
      text = g_variant_is_of_type (value, G_VARIANT_TYPE_UINT32)
        ? g_strdup_printf ("%u", g_variant_get_uint32 (value))
        : g_variant_dup_string (value, NULL);
      hpctl_tunable_report (&o, name, text, NULL);
    }
  return HPCTL_EXIT_OK;
}
