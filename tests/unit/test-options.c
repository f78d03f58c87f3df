/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The a{sv} options check: known keys with their types, nothing else. */
#include "config.h"

#include "hp-error.h"
#include "hp-names.h"
#include "hpd-methods.h"
#include "hpd-options.h"

static void
test_options (void)
{
  gboolean hard = FALSE;
  guint32 timeout = 0;
  const HpdOption known[] = { { "hard", "b", &hard }, { "timeout-ms", "u", &timeout } };
  const char *bad[] = {
    "{'nope': <true>}",
    "{'hard': <1>}",
    "{'hard': <true>, 'hard': <false>}",
    "{'timeout-ms': <uint64 5>}",
    "{'timeout-ms': <'5'>}",
  };
  g_autoptr(GVariant) good = g_variant_ref_sink (g_variant_new_parsed ("{'hard': <true>, 'timeout-ms': <uint32 77>}"));
  g_autoptr(GVariant) empty = g_variant_ref_sink (g_variant_new_parsed ("@a{sv} {}"));
  g_autoptr(GVariantBuilder) many = g_variant_builder_new (G_VARIANT_TYPE_VARDICT);
  g_autoptr(GVariant) too_many = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (hpd_options_parse (empty, known, G_N_ELEMENTS (known), NULL));
  g_assert_false (hard);
  g_assert_true (hpd_options_parse (good, known, G_N_ELEMENTS (known), NULL));
  g_assert_true (hard);
  g_assert_cmpuint (timeout, ==, 77);

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GVariant) v = g_variant_ref_sink (g_variant_new_parsed (bad[i]));
      g_autoptr(GError) e = NULL;

      g_assert_false (hpd_options_parse (v, known, G_N_ELEMENTS (known), &e));
      g_assert_error (e, HP_ERROR, HP_ERROR_INVALID_ARGS);
    }

  for (guint i = 0; i < 100000; i++)
    {
      g_autofree char *key = g_strdup_printf ("k%u", i);
      g_variant_builder_add (many, "{sv}", key, g_variant_new_boolean (TRUE));
    }
  too_many = g_variant_ref_sink (g_variant_builder_end (many));
  g_assert_false (hpd_options_parse (too_many, known, G_N_ELEMENTS (known), &error));
  g_assert_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS);
}

/* A method accepts the keys of its row and no other: SetMaximum does not
 * take "hard", SetMinimum does. */
static void
test_row (void)
{
  const HpdMethod *maximum = hpd_method_lookup (HP_PAGE_SIZE_INTERFACE, "SetMaximum");
  const HpdMethod *minimum = hpd_method_lookup (HP_PAGE_SIZE_INTERFACE, "SetMinimum");
  g_autoptr(GVariant) v = g_variant_ref_sink (g_variant_new_parsed ("{'hard': <true>}"));
  g_autoptr(GVariant) wrong = g_variant_ref_sink (g_variant_new_parsed ("{'hard': <'yes'>}"));
  g_autoptr(GError) error = NULL;

  g_assert_false (hpd_options_check (v, maximum->options, &error));
  g_assert_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS);
  g_clear_error (&error);
  g_assert_true (hpd_options_check (v, minimum->options, NULL));
  g_assert_false (hpd_options_check (wrong, minimum->options, &error));
  g_assert_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/options/parse", test_options);
  g_test_add_func ("/options/row", test_row);
  return g_test_run ();
}
