/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Log text escaping: nothing a caller sends can start or reorder a line. */
#include "config.h"

#include "hp-escape.h"

static void
check (const char *text, gssize length, const char *expected)
{
  g_autofree char *escaped = hp_escape_log_text (text, length);

  g_assert_cmpstr (escaped, ==, expected);
  g_assert_true (g_utf8_validate (escaped, -1, NULL));
}

static void
test_plain (void)
{
  check ("", -1, "");
  check ("db-1 /dev/hugepages mode=0755", -1, "db-1 /dev/hugepages mode=0755");
  /* printable non-ASCII stays as it is */
  check ("Größe 大页", -1, "Größe 大页");
}

static void
test_lines (void)
{
  check ("a\nb", -1, "a\\u000ab");
  check ("a\rb\tc", -1, "a\\u000db\\u0009c");
  check ("a\xc2\x85" "b", -1, "a\\u0085b");            /* NEL */
  check ("a\xe2\x80\xa8" "b", -1, "a\\u2028b");        /* line separator */
  check ("a\xe2\x80\xa9" "b", -1, "a\\u2029b");        /* paragraph separator */
  check ("\x1b[2J", -1, "\\u001b[2J");
  check ("\x7f", -1, "\\u007f");
}

static void
test_bidi (void)
{
  const struct { const char *in; const char *out; } cases[] = {
    { "\xe2\x80\xae", "\\u202e" },   /* RIGHT-TO-LEFT OVERRIDE */
    { "\xe2\x80\xaa", "\\u202a" },
    { "\xe2\x80\xab", "\\u202b" },
    { "\xe2\x80\xac", "\\u202c" },
    { "\xe2\x80\xad", "\\u202d" },
    { "\xe2\x81\xa6", "\\u2066" },   /* isolates */
    { "\xe2\x81\xa7", "\\u2067" },
    { "\xe2\x81\xa8", "\\u2068" },
    { "\xe2\x81\xa9", "\\u2069" },
    { "\xe2\x80\x8e", "\\u200e" },   /* LRM, RLM */
    { "\xe2\x80\x8f", "\\u200f" },
    { "\xd8\x9c", "\\u061c" },       /* ARABIC LETTER MARK */
    { "\xe2\x80\x8b", "\\u200b" },   /* zero width space */
    { "\xef\xbb\xbf", "\\ufeff" },
    { "\xc2\xad", "\\u00ad" },       /* soft hyphen */
    { "\xf3\xa0\x80\x81", "\\U000e0001" },  /* LANGUAGE TAG */
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    check (cases[i].in, -1, cases[i].out);
}

static void
test_invalid_utf8 (void)
{
  check ("a\xff" "b", -1, "a\\xffb");
  check ("\xc3", -1, "\\xc3");                        /* cut short */
  check ("\xe2\x80", -1, "\\xe2\\x80");
  check ("\xed\xa0\x80", -1, "\\xed\\xa0\\x80");      /* a surrogate */
  check ("\xc0\xaf", -1, "\\xc0\\xaf");              /* overlong */
  /* an embedded NUL when the length is given */
  check ("a\0b", 3, "a\\x00b");
}

static void
test_backslash (void)
{
  /* an escape in the input cannot pass for one the function made */
  check ("\\u2028", -1, "\\\\u2028");
  check ("\\", -1, "\\\\");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/escape/plain", test_plain);
  g_test_add_func ("/escape/lines", test_lines);
  g_test_add_func ("/escape/bidi", test_bidi);
  g_test_add_func ("/escape/invalid-utf8", test_invalid_utf8);
  g_test_add_func ("/escape/backslash", test_backslash);
  return g_test_run ();
}
