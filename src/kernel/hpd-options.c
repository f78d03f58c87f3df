/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <string.h>

#include "hp-error.h"
#include "hpd-options.h"

/* More keys than any method knows is an error before we look at them. */
#define MAX_OPTIONS 32

gboolean
hpd_options_check (GVariant *options, const HpdOptionSpec *allowed, GError **error)
{
  gsize n = g_variant_n_children (options);
  gsize n_allowed = 0;
  guint64 seen = 0;

  G_STATIC_ASSERT (MAX_OPTIONS <= 64);
  while (allowed[n_allowed].key != NULL)
    n_allowed++;
  g_return_val_if_fail (n_allowed <= 64, FALSE);

  if (n > MAX_OPTIONS)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "Too many options (%zu)", n);
      return FALSE;
    }

  for (gsize i = 0; i < n; i++)
    {
      g_autofree char *key = NULL;
      g_autoptr(GVariant) value = NULL;
      gsize k;

      g_variant_get_child (options, i, "{sv}", &key, &value);
      for (k = 0; k < n_allowed; k++)
        if (strcmp (allowed[k].key, key) == 0)
          break;

      if (k == n_allowed)
        {
          g_autofree char *shown = g_strescape (key, NULL);
          if (strlen (shown) > 64)
            strcpy (shown + 61, "...");
          g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                       "Unknown option '%s'", shown);
          return FALSE;
        }
      if (seen & (G_GUINT64_CONSTANT (1) << k))
        {
          g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                       "Option '%s' given twice", key);
          return FALSE;
        }
      if (strcmp (allowed[k].type, "v") != 0 &&
          !g_variant_is_of_type (value, G_VARIANT_TYPE (allowed[k].type)))
        {
          g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                       "Option '%s' must be of type '%s', not '%s'",
                       key, allowed[k].type, g_variant_get_type_string (value));
          return FALSE;
        }
      seen |= G_GUINT64_CONSTANT (1) << k;
    }

  return TRUE;
}

gboolean
hpd_options_parse (GVariant *options, const HpdOption *known, gsize n_known,
                   GError **error)
{
  g_autofree HpdOptionSpec *allowed = g_new0 (HpdOptionSpec, n_known + 1);

  for (gsize k = 0; k < n_known; k++)
    allowed[k] = (HpdOptionSpec) { known[k].key, known[k].type }
  ;
  if (!hpd_options_check (options, allowed, error))
    return FALSE;

  for (gsize k = 0; k < n_known; k++)
    {
      g_autoptr(GVariant) value = g_variant_lookup_value (options, known[k].key, NULL);

      if (value == NULL)
        continue;
      if (strcmp (known[k].type, "b") == 0)
        *(gboolean *) known[k].value = g_variant_get_boolean (value);
      else if (strcmp (known[k].type, "u") == 0)
        *(guint32 *) known[k].value = g_variant_get_uint32 (value);
      else if (strcmp (known[k].type, "t") == 0)
        *(guint64 *) known[k].value = g_variant_get_uint64 (value);
      else if (strcmp (known[k].type, "v") == 0)
        *(GVariant **) known[k].value = g_steal_pointer (&value);
      else
        g_assert_not_reached ();
    }

  return TRUE;
}

void
hpd_record_add_strings (GVariantBuilder *builder, const char *first_key, ...)
{
  va_list args;

  g_variant_builder_open (builder, G_VARIANT_TYPE_VARDICT);
  va_start (args, first_key);
  for (const char *key = first_key; key != NULL; key = va_arg (args, const char *))
    g_variant_builder_add (builder, "{sv}", key, g_variant_new_string (va_arg (args, const char *)));
  va_end (args);
  g_variant_builder_close (builder);
}
