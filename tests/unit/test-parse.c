/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Parsers of kernel text, fed with files from a real 6.18 kernel and with
 * what a broken or hostile tree could hold. */
#include "config.h"

#include "hpd-parse.h"
#include "hpd-test-util.h"

static void
test_counter (void)
{
  const char *bad[] = { "", "\n", "-1\n", " 4\n", "4 \n", "4\n\n", "0x4\n", "4abc",
                        "18446744073709551616\n", "1.5\n" };
  guint64 v;

  g_assert_true (hpd_parse_counter ("0\n", &v, NULL));
  g_assert_cmpuint (v, ==, 0);
  g_assert_true (hpd_parse_counter ("4096", &v, NULL));
  g_assert_cmpuint (v, ==, 4096);
  g_assert_true (hpd_parse_counter ("18446744073709551615\n", &v, NULL));
  g_assert_cmpuint (v, ==, G_MAXUINT64);
  g_assert_false (hpd_parse_counter (NULL, &v, NULL));
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    g_assert_false (hpd_parse_counter (bad[i], &v, NULL));
}

static void
test_meminfo (void)
{
  g_autofree char *text = hpd_test_fixture ("meminfo-6.18");
  guint64 v;

  g_assert_true (hpd_parse_meminfo (text, "MemTotal", &v));
  g_assert_cmpuint (v, >, 1024 * 1024);
  g_assert_true (hpd_parse_meminfo (text, "Hugepagesize", &v));
  g_assert_cmpuint (v, ==, 2048);
  g_assert_true (hpd_parse_meminfo (text, "HugePages_Total", &v));
  /* a key that is a prefix of another must not match it */
  g_assert_false (hpd_parse_meminfo (text, "HugePages", &v));
  g_assert_false (hpd_parse_meminfo (text, "Mem", &v));
  g_assert_false (hpd_parse_meminfo (text, "NoSuchKey", &v));

  g_assert_false (hpd_parse_meminfo ("MemTotal:\n", "MemTotal", &v));
  g_assert_false (hpd_parse_meminfo ("MemTotal: 12 MB\n", "MemTotal", &v));
  g_assert_false (hpd_parse_meminfo ("MemTotal: 99999999999999999999999 kB\n", "MemTotal", &v));
  /* the largest value is a value: a kernel whose reserve count underflowed
   * shows it (found by tests/fuzz/libfuzzer/fuzz-meminfo) */
  g_assert_true (hpd_parse_meminfo ("HugePages_Rsvd:    18446744073709551615\n", "HugePages_Rsvd", &v));
  g_assert_cmpuint (v, ==, G_MAXUINT64);
  g_assert_true (hpd_parse_meminfo ("HugePages_Rsvd: 18446744073709551610\n", "HugePages_Rsvd", &v));
  g_assert_cmpuint (v, ==, G_MAXUINT64 - 5);
  g_assert_false (hpd_parse_meminfo ("HugePages_Rsvd: 18446744073709551616\n", "HugePages_Rsvd", &v));
  g_assert_true (hpd_parse_meminfo ("A: 1 kB\nMemTotal:    77 kB", "MemTotal", &v));
  g_assert_cmpuint (v, ==, 77);
  g_assert_false (hpd_parse_meminfo ("", "MemTotal", &v));
}

static void
assert_nodes (const char *text, const guint *expected, guint n)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) nodes = hpd_parse_node_list (text, &error);

  g_assert_no_error (error);
  g_assert_nonnull (nodes);
  g_assert_cmpuint (nodes->len, ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpuint (g_array_index (nodes, guint, i), ==, expected[i]);
}

static void
test_node_list (void)
{
  const guint one[] = { 0 };
  const guint many[] = { 0, 1, 2, 3, 8, 10, 11 };
  const char *bad[] = { "a", "1-", "-1", "3-1", "0,,1", "1-2-3", "70000", "0-70000", "0x1" };

  assert_nodes ("0\n", one, 1);
  assert_nodes ("8,0-3,10-11\n", many, G_N_ELEMENTS (many));
  assert_nodes ("0-3,2-3,8,10-11,11", many, G_N_ELEMENTS (many));
  assert_nodes ("\n", NULL, 0);

  /* ranges repeated over and over cost no more than the nodes they name:
   * removing duplicates one at a time would take hours on this 800-byte list
   * (fuzz-meminfo ran for over ten minutes on a 4 kB one; here meson
   * test's timeout fails it) */
  {
    g_autoptr(GPtrArray) parts = g_ptr_array_new ();
    g_autofree char *text = NULL;
    g_autoptr(GArray) nodes = NULL;

    for (guint i = 0; i < 100; i++)
      g_ptr_array_add (parts, (gpointer) "0-65535");
    g_ptr_array_add (parts, NULL);
    text = g_strjoinv (",", (char **) parts->pdata);
    nodes = hpd_parse_node_list (text, NULL);
    g_assert_nonnull (nodes);
    g_assert_cmpuint (nodes->len, ==, 65536);
    g_assert_cmpuint (g_array_index (nodes, guint, 65535), ==, 65535);
  }

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GArray) nodes = hpd_parse_node_list (bad[i], &error);
      g_assert_null (nodes);
      g_assert_nonnull (error);
    }
}

static void
test_hugepages_dir (void)
{
  const char *bad[] = { "hugepages-kB", "hugepages-0kB", "hugepages-2048", "hugepages-2048KB",
                        "hugepages--1kB", "pages-2048kB", "hugepages-2048kBx",
                        "hugepages-99999999999999999999kB", "hugepages-18014398509481984kB" };
  guint64 kb;

  g_assert_true (hpd_parse_hugepages_dir ("hugepages-2048kB", &kb));
  g_assert_cmpuint (kb, ==, 2048);
  g_assert_true (hpd_parse_hugepages_dir ("hugepages-1048576kB", &kb));
  g_assert_cmpuint (kb, ==, 1048576);
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    g_assert_false (hpd_parse_hugepages_dir (bad[i], &kb));
}

static void
test_demote_size (void)
{
  guint64 b;

  g_assert_true (hpd_parse_demote_size ("2048kB\n", &b));
  g_assert_cmpuint (b, ==, 2 * 1024 * 1024);
  g_assert_false (hpd_parse_demote_size ("2048\n", &b));
  g_assert_false (hpd_parse_demote_size ("0kB\n", &b));
  g_assert_false (hpd_parse_demote_size ("kB", &b));
  g_assert_false (hpd_parse_demote_size ("", &b));
}

static void
test_buddyinfo (void)
{
  g_autofree char *real = hpd_test_fixture ("buddyinfo-6.18");
  g_autofree char *two = hpd_test_fixture ("buddyinfo-2node");

  g_assert_cmpint (hpd_parse_buddyinfo_max_order (real), ==, 10);
  g_assert_cmpint (hpd_parse_buddyinfo_max_order (two), ==, 10);
  /* arm64 with 64K pages has fewer orders */
  g_assert_cmpint (hpd_parse_buddyinfo_max_order ("Node 0, zone   Normal 1 2 3 4 5 6 7 8 9 10 11 12 13 14\n"), ==, 13);
  g_assert_cmpint (hpd_parse_buddyinfo_max_order (""), ==, -1);
  g_assert_cmpint (hpd_parse_buddyinfo_max_order ("Node 0, zone Normal\n"), ==, -1);
  g_assert_cmpint (hpd_parse_buddyinfo_max_order ("garbage\n"), ==, -1);
}

static void
test_printable (void)
{
  const struct { const char *text, *shown; } cases[] = {
    { "", "" },
    { "hugepages=0:2,1:2", "hugepages=0:2,1:2" },
    { "caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac" },  /* UTF-8 stays */
    { "caf\xe9", "caf\\xe9" },                                     /* Latin-1 */
    { "a\tb\nc\x7f", "a\\x09b\\x0ac\\x7f" },                      /* control characters */
    { "\xc2\x85", "\\xc2\\x85" },                                  /* NEL, a C1 control */
    { "\xed\xa0\x80", "\\xed\\xa0\\x80" },                        /* a surrogate */
    { "\xe2\x82", "\\xe2\\x82" },                                  /* cut short */
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *shown = hpd_parse_printable (cases[i].text);

      g_assert_cmpstr (shown, ==, cases[i].shown);
      g_assert_true (g_utf8_validate (shown, -1, NULL));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/parse/counter", test_counter);
  g_test_add_func ("/parse/meminfo", test_meminfo);
  g_test_add_func ("/parse/printable", test_printable);
  g_test_add_func ("/parse/node-list", test_node_list);
  g_test_add_func ("/parse/hugepages-dir", test_hugepages_dir);
  g_test_add_func ("/parse/demote-size", test_demote_size);
  g_test_add_func ("/parse/buddyinfo", test_buddyinfo);
  return g_test_run ();
}
