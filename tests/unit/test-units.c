/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Strict parsing of sizes and amounts: what hugeadm got wrong must fail here. */
#include "config.h"

#include <string.h>

#include <json-glib/json-glib.h>

#include "hp-error.h"
#include "hp-units.h"

#define MiB (G_GUINT64_CONSTANT (1) << 20)
#define GiB (G_GUINT64_CONSTANT (1) << 30)

static void
test_u64 (void)
{
  const char *bad[] = { "", "-1", "+1", " 1", "\v1", "\t1", "1 ", "0x10", "1.5", "18446744073709551616",
                        "99999999999999999999", "1e3", "abc" };
  guint64 v;

  g_assert_true (hp_parse_u64 ("0", &v, NULL));
  g_assert_cmpuint (v, ==, 0);
  /* no octal: a leading zero is still decimal */
  g_assert_true (hp_parse_u64 ("010", &v, NULL));
  g_assert_cmpuint (v, ==, 10);
  g_assert_true (hp_parse_u64 ("18446744073709551615", &v, NULL));
  g_assert_cmpuint (v, ==, G_MAXUINT64);

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_assert_false (hp_parse_u64 (bad[i], &v, &error));
      g_assert_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS);
    }

  /* the messages tell a number too large from no number */
  {
    g_autoptr(GError) large = NULL;
    g_autoptr(GError) sign = NULL;

    g_assert_false (hp_parse_u64 ("18446744073709551616", &v, &large));
    g_assert_cmpstr (large->message, ==, "'18446744073709551616' is too large");
    g_assert_false (hp_parse_u64 ("+1", &v, &sign));
    g_assert_cmpstr (sign->message, ==, "'+1' is not a decimal number");
  }
}

static void
test_u32 (void)
{
  const char *bad[] = { "", "-1", "4294967296", "18446744073709551616", "1 " };
  guint32 v = 7;

  g_assert_true (hp_parse_u32 ("4294967295", &v, NULL));
  g_assert_cmpuint (v, ==, G_MAXUINT32);
  g_assert_true (hp_parse_u32 ("0", &v, NULL));
  g_assert_cmpuint (v, ==, 0);

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_assert_false (hp_parse_u32 (bad[i], &v, &error));
      g_assert_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS);
      /* nothing written on failure */
      g_assert_cmpuint (v, ==, 0);
    }
}

static void
test_size (void)
{
  const struct { const char *text; guint64 bytes; } good[] = {
    { "2097152", 2 * MiB }, { "2M", 2 * MiB }, { "2MB", 2 * MiB }, { "2MiB", 2 * MiB },
    { "2048kB", 2 * MiB }, { "2048K", 2 * MiB }, { "1G", GiB }, { "1GB", GiB },
    { "1GiB", GiB }, { "64K", 64 * 1024 }, { "16G", 16 * GiB }, { "1T", 1024 * GiB },
    /* units in any case, as hugeadm reads them */
    { "2mb", 2 * MiB }, { "2Mb", 2 * MiB }, { "2mB", 2 * MiB }, { "2048kb", 2 * MiB },
    { "1g", GiB }, { "1gb", GiB }, { "2mib", 2 * MiB }, { "2MIB", 2 * MiB }, { "1tb", 1024 * GiB },
    { "512b", 512 }, { "512B", 512 },
  };
  /* only the words of a unit follow the digits: no space, no second unit,
   * no "ib" without its letter, no unit beyond T; hugeadm takes "2Mxyz" */
  const char *bad[] = { "", "0", "0M", "M", "mb", "2 M", "2 mb", "2mb ", "2MBX", "2Mxyz", "2mbb",
                        "2bb", "2ib", "2i", "2mi", "2kbit", "-2M", "+2M", "0x200000", "2.5M",
                        "17179869184G", "17179869184g", "2m2", "2P", "2pb", "0mb" };
  guint64 v;

  for (gsize i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr(GError) error = NULL;
      g_assert_true (hp_parse_size (good[i].text, &v, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (v, ==, good[i].bytes);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_assert_false (hp_parse_size (bad[i], &v, &error));
      g_assert_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS);
    }
}

static void
test_amount (void)
{
  const struct { const char *text; HpAmountKind kind; guint64 pages; } good[] = {
    { "5", HP_AMOUNT_SET, 5 }, { "010", HP_AMOUNT_SET, 10 }, { "+4", HP_AMOUNT_ADD, 4 },
    { "-6", HP_AMOUNT_REMOVE, 6 }, { "512M", HP_AMOUNT_SET, 256 }, { "1G", HP_AMOUNT_SET, 512 },
    { "+2M", HP_AMOUNT_ADD, 1 }, { "-4MB", HP_AMOUNT_REMOVE, 2 }, { "0", HP_AMOUNT_SET, 0 },
    { "14mb", HP_AMOUNT_SET, 7 }, { "+2048kb", HP_AMOUNT_ADD, 1 }, { "-1gb", HP_AMOUNT_REMOVE, 512 },
  };
  /* hugeadm: 1M -> 0 pages (emptied the pool), 3M -> 1 page, 10T of
   * pages, trailing junk, wrapped overflow. All of them are errors here. */
  const char *bad[] = { "", "+", "-", "1M", "1mb", "3M", "10.5", "5x", "2M:5", "++1", "+-1",
                        " 5", "0x10", "5ib", "5mbb", "99999999999999999999",
                        "9999999999999999999G" };
  HpAmount a;

  for (gsize i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr(GError) error = NULL;
      g_assert_true (hp_parse_amount (good[i].text, 2 * MiB, &a, &error));
      g_assert_no_error (error);
      g_assert_cmpint (a.kind, ==, good[i].kind);
      g_assert_cmpuint (a.pages, ==, good[i].pages);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_assert_false (hp_parse_amount (bad[i], 2 * MiB, &a, &error));
      g_assert_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS);
    }

  /* a gigantic page: memory must be whole pages of it */
  g_assert_true (hp_parse_amount ("2G", GiB, &a, NULL));
  g_assert_cmpuint (a.pages, ==, 2);
  g_assert_false (hp_parse_amount ("512M", GiB, &a, NULL));
}

/* tests/units.json: the vectors the Cockpit page's and the Ansible
 * collection's parsers are checked against as well, so that none of the
 * three takes what another refuses. */
static JsonArray *
shared_vectors (JsonParser *parser, const char *list)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "units.json", NULL);
  g_autoptr(GError) error = NULL;
  JsonArray *vectors;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  vectors = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), list);
  g_assert_nonnull (vectors);
  g_assert_cmpuint (json_array_get_length (vectors), >, 0);
  return vectors;
}

static guint64
decimal_member (JsonObject *vector, const char *member)
{
  const char *text = json_object_get_string_member (vector, member);
  guint64 value;

  g_assert_true (g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64, &value, NULL));
  return value;
}

/* Each vector's input in the test log, escaped: the log goes into JUnit
 * XML, where control characters are not allowed. */
static void
announce_vector (const char *kind, const char *text)
{
  g_autofree char *shown = g_strescape (text, NULL);

  g_test_message ("%s \"%s\"", kind, shown);
}

/* A vector the parser must refuse, with its message naming the reason. */
static void
assert_refused (JsonObject *vector, gboolean ok, const GError *error)
{
  g_assert_false (ok);
  g_assert_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS);
  g_assert_nonnull (strstr (error->message, json_object_get_string_member (vector, "error")));
}

static void
test_shared_sizes (void)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonArray *vectors = shared_vectors (parser, "size");

  for (guint i = 0; i < json_array_get_length (vectors); i++)
    {
      JsonObject *vector = json_array_get_object_element (vectors, i);
      const char *text = json_object_get_string_member (vector, "text");
      g_autoptr(GError) error = NULL;
      guint64 bytes = 0;
      gboolean ok = hp_parse_size (text, &bytes, &error);

      announce_vector ("size", text);
      if (json_object_has_member (vector, "bytes"))
        {
          g_assert_no_error (error);
          g_assert_true (ok);
          g_assert_cmpuint (bytes, ==, decimal_member (vector, "bytes"));
        }
      else
        assert_refused (vector, ok, error);
    }
}

static void
test_shared_amounts (void)
{
  static const struct { const char *name; HpAmountKind kind; } kinds[] = {
    { "set", HP_AMOUNT_SET }, { "add", HP_AMOUNT_ADD }, { "remove", HP_AMOUNT_REMOVE },
  };
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonArray *vectors = shared_vectors (parser, "amount");

  for (guint i = 0; i < json_array_get_length (vectors); i++)
    {
      JsonObject *vector = json_array_get_object_element (vectors, i);
      const char *text = json_object_get_string_member (vector, "text");
      g_autoptr(GError) error = NULL;
      HpAmount amount = { 0 };
      gboolean ok = hp_parse_amount (text, decimal_member (vector, "page-size"), &amount, &error);

      announce_vector ("amount", text);
      if (json_object_has_member (vector, "pages"))
        {
          const char *kind = json_object_get_string_member (vector, "kind");
          gsize k = 0;

          g_assert_no_error (error);
          g_assert_true (ok);
          while (k < G_N_ELEMENTS (kinds) && g_strcmp0 (kinds[k].name, kind) != 0)
            k++;
          g_assert_cmpuint (k, <, G_N_ELEMENTS (kinds));
          g_assert_cmpint (amount.kind, ==, kinds[k].kind);
          g_assert_cmpuint (amount.pages, ==, decimal_member (vector, "pages"));
        }
      else
        assert_refused (vector, ok, error);
    }
}

static void
test_resolve (void)
{
  HpAmount set = { HP_AMOUNT_SET, 7 }, add = { HP_AMOUNT_ADD, 3 }, rm = { HP_AMOUNT_REMOVE, 3 };
  HpAmount huge = { HP_AMOUNT_ADD, G_MAXUINT64 };
  guint64 v;
  g_autoptr(GError) error = NULL;

  g_assert_true (hp_amount_resolve (&set, 100, &v, NULL));
  g_assert_cmpuint (v, ==, 7);
  g_assert_true (hp_amount_resolve (&add, 100, &v, NULL));
  g_assert_cmpuint (v, ==, 103);
  g_assert_true (hp_amount_resolve (&rm, 3, &v, NULL));
  g_assert_cmpuint (v, ==, 0);
  g_assert_false (hp_amount_resolve (&rm, 2, &v, &error));
  g_assert_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS);
  g_clear_error (&error);
  g_assert_false (hp_amount_resolve (&huge, 1, &v, &error));
  g_assert_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS);
}

static void
test_names (void)
{
  const struct { guint64 bytes; const char *name; } cases[] = {
    { 2 * MiB, "2MB" }, { GiB, "1GB" }, { 64 * 1024, "64KB" }, { 32 * MiB, "32MB" },
    { 16 * GiB, "16GB" }, { 512 * MiB, "512MB" }, { 1536 * MiB, "1536MB" }, { 100, "100B" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = hp_size_name (cases[i].bytes);
      g_assert_cmpstr (name, ==, cases[i].name);
    }
}

static void
test_pages_to_bytes (void)
{
  guint64 b;

  g_assert_true (hp_pages_to_bytes (512, 2 * MiB, &b));
  g_assert_cmpuint (b, ==, GiB);
  g_assert_false (hp_pages_to_bytes (G_MAXUINT64, 2 * MiB, &b));
  g_assert_false (hp_pages_to_bytes (G_GUINT64_CONSTANT (1) << 34, GiB, &b));
}

static void
test_format_bytes (void)
{
  const struct { guint64 bytes; const char *text; } cases[] = {
    { 0, "0 bytes" }, { 1023, "1023 bytes" }, { 1024, "1.0 KiB" }, { 2 * MiB, "2.0 MiB" },
    { 3 * GiB / 2, "1.5 GiB" }, { G_MAXUINT64, "16.0 EiB" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = hp_format_bytes (cases[i].bytes);
      g_assert_cmpstr (text, ==, cases[i].text);
      /* plain ASCII whatever the locale */
      for (const char *p = text; *p; p++)
        g_assert_cmpint ((guchar) *p, <, 0x80);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/units/u64", test_u64);
  g_test_add_func ("/units/u32", test_u32);
  g_test_add_func ("/units/size", test_size);
  g_test_add_func ("/units/amount", test_amount);
  g_test_add_func ("/units/shared-sizes", test_shared_sizes);
  g_test_add_func ("/units/shared-amounts", test_shared_amounts);
  g_test_add_func ("/units/resolve", test_resolve);
  g_test_add_func ("/units/names", test_names);
  g_test_add_func ("/units/pages-to-bytes", test_pages_to_bytes);
  g_test_add_func ("/units/format-bytes", test_format_bytes);
  return g_test_run ();
}
