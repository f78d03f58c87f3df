/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* hp_error_to_bus: what type of error each failure reaches the bus as. */
#include "config.h"

#include <gio/gio.h>

#include "hp-error.h"

typedef struct {
  const char *name;
  GQuark (*domain)(void);
  gint code;
  gint expected; /* an HpError */
} Case;

static const Case cases[] = {
  { "io-invalid-argument", g_io_error_quark, G_IO_ERROR_INVALID_ARGUMENT, HP_ERROR_INVALID_ARGS },
  { "io-invalid-data", g_io_error_quark, G_IO_ERROR_INVALID_DATA, HP_ERROR_FAILED },
  { "io-filename-too-long", g_io_error_quark, G_IO_ERROR_FILENAME_TOO_LONG, HP_ERROR_INVALID_ARGS },
  { "io-is-directory", g_io_error_quark, G_IO_ERROR_IS_DIRECTORY, HP_ERROR_FAILED },
  { "io-too-many-links", g_io_error_quark, G_IO_ERROR_TOO_MANY_LINKS, HP_ERROR_FAILED },
  { "io-not-found", g_io_error_quark, G_IO_ERROR_NOT_FOUND, HP_ERROR_NOT_SUPPORTED },
  { "io-permission-denied", g_io_error_quark, G_IO_ERROR_PERMISSION_DENIED, HP_ERROR_NOT_SUPPORTED },
  { "io-read-only", g_io_error_quark, G_IO_ERROR_READ_ONLY, HP_ERROR_NOT_SUPPORTED },
  { "io-busy", g_io_error_quark, G_IO_ERROR_BUSY, HP_ERROR_BUSY },
  { "io-timed-out", g_io_error_quark, G_IO_ERROR_TIMED_OUT, HP_ERROR_BUSY },
  { "io-no-space", g_io_error_quark, G_IO_ERROR_NO_SPACE, HP_ERROR_LIMIT_EXCEEDED },
  { "io-not-mounted", g_io_error_quark, G_IO_ERROR_NOT_MOUNTED, HP_ERROR_NOT_MOUNTED },
  { "io-cancelled", g_io_error_quark, G_IO_ERROR_CANCELLED, HP_ERROR_FAILED },
  { "file-noent", g_file_error_quark, G_FILE_ERROR_NOENT, HP_ERROR_NOT_SUPPORTED },
  { "file-acces", g_file_error_quark, G_FILE_ERROR_ACCES, HP_ERROR_NOT_SUPPORTED },
  { "file-rofs", g_file_error_quark, G_FILE_ERROR_ROFS, HP_ERROR_NOT_SUPPORTED },
  { "file-inval", g_file_error_quark, G_FILE_ERROR_INVAL, HP_ERROR_INVALID_ARGS },
  { "file-loop", g_file_error_quark, G_FILE_ERROR_LOOP, HP_ERROR_FAILED },
  { "file-again", g_file_error_quark, G_FILE_ERROR_AGAIN, HP_ERROR_BUSY },
  { "file-mfile", g_file_error_quark, G_FILE_ERROR_MFILE, HP_ERROR_BUSY },
  { "file-nospc", g_file_error_quark, G_FILE_ERROR_NOSPC, HP_ERROR_LIMIT_EXCEEDED },
  { "file-io", g_file_error_quark, G_FILE_ERROR_IO, HP_ERROR_FAILED },
  { "key-file-parse", g_key_file_error_quark, G_KEY_FILE_ERROR_PARSE, HP_ERROR_INVALID_ARGS },
  { "key-file-invalid-value", g_key_file_error_quark, G_KEY_FILE_ERROR_INVALID_VALUE, HP_ERROR_INVALID_ARGS },
  { "markup-parse", g_markup_error_quark, G_MARKUP_ERROR_PARSE, HP_ERROR_INVALID_ARGS },
  { "variant-parse", g_variant_parse_error_quark, G_VARIANT_PARSE_ERROR_FAILED, HP_ERROR_INVALID_ARGS },
  { "number-parser", g_number_parser_error_quark, G_NUMBER_PARSER_ERROR_OUT_OF_BOUNDS, HP_ERROR_INVALID_ARGS },
  { "convert-illegal", g_convert_error_quark, G_CONVERT_ERROR_ILLEGAL_SEQUENCE, HP_ERROR_INVALID_ARGS },
  { "option-bad-value", g_option_error_quark, G_OPTION_ERROR_BAD_VALUE, HP_ERROR_INVALID_ARGS },
  { "dbus-access-denied", g_dbus_error_quark, G_DBUS_ERROR_ACCESS_DENIED, HP_ERROR_NOT_AUTHORIZED },
  { "dbus-invalid-args", g_dbus_error_quark, G_DBUS_ERROR_INVALID_ARGS, HP_ERROR_INVALID_ARGS },
  { "dbus-limits-exceeded", g_dbus_error_quark, G_DBUS_ERROR_LIMITS_EXCEEDED, HP_ERROR_BUSY },
  { "dbus-no-memory", g_dbus_error_quark, G_DBUS_ERROR_NO_MEMORY, HP_ERROR_LIMIT_EXCEEDED },
  { "dbus-unknown-method", g_dbus_error_quark, G_DBUS_ERROR_UNKNOWN_METHOD, HP_ERROR_NOT_SUPPORTED },
  { "dbus-failed", g_dbus_error_quark, G_DBUS_ERROR_FAILED, HP_ERROR_FAILED },
  { "spawn-noent", g_spawn_error_quark, G_SPAWN_ERROR_NOENT, HP_ERROR_NOT_SUPPORTED },
  { "spawn-failed", g_spawn_error_quark, G_SPAWN_ERROR_FAILED, HP_ERROR_FAILED },
};

static void
test_mapping (gconstpointer data)
{
  const Case *c = data;
  g_autoptr(GError) error = g_error_new (c->domain (), c->code, "%s happened", c->name);
  g_autoptr(GError) bus = hp_error_to_bus (error);
  g_autofree char *expected_message = g_strdup_printf ("%s happened", c->name);

  g_assert_error (bus, HP_ERROR, c->expected);
  /* the message goes with it unchanged */
  g_assert_cmpstr (bus->message, ==, expected_message);
}

static void
test_own_domain_kept (void)
{
  for (gint code = HP_ERROR_FAILED; code <= HP_ERROR_NOT_MOUNTED; code++)
    {
      g_autoptr(GError) error = g_error_new (HP_ERROR, code, "code %d", code);
      g_autoptr(GError) bus = hp_error_to_bus (error);

      g_assert_error (bus, HP_ERROR, code);
      g_assert_cmpstr (bus->message, ==, error->message);
    }
}

static void
test_unknown_domain_is_failed (void)
{
  g_autoptr(GError) error = g_error_new_literal (g_quark_from_static_string ("test-other"), 3, "odd");
  g_autoptr(GError) bus = hp_error_to_bus (error);

  g_assert_error (bus, HP_ERROR, HP_ERROR_FAILED);
}

static void
test_bus_names_round_trip (void)
{
  /* a registered domain: the bus name of each code comes back as that code */
  for (gint code = HP_ERROR_FAILED; code <= HP_ERROR_NOT_MOUNTED; code++)
    {
      g_autoptr(GError) error = g_error_new_literal (HP_ERROR, code, "x");
      g_autofree char *name = g_dbus_error_encode_gerror (error);
      g_autoptr(GError) back = g_dbus_error_new_for_dbus_error (name, "x");

      g_assert_true (g_str_has_prefix (name, "org.hugepages.Manager.Error."));
      g_assert_error (back, HP_ERROR, code);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/error/to-bus/%s", cases[i].name);

      g_test_add_data_func (path, &cases[i], test_mapping);
    }
  g_test_add_func ("/error/own-domain-kept", test_own_domain_kept);
  g_test_add_func ("/error/unknown-domain-is-failed", test_unknown_domain_is_failed);
  g_test_add_func ("/error/bus-names-round-trip", test_bus_names_round_trip);

  return g_test_run ();
}
