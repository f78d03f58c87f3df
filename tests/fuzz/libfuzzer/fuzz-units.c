/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Sizes, amounts and plain numbers (src/common/hp-units.c): what
 * hugepagesctl, the bus methods and the configuration file take from
 * users. Checked against a restatement of the format, and through the
 * service's own formatting back. */
#include "config.h"

#include <string.h>

#include "fuzz-common.h"
#include "hp-units.h"
#include "hpd-hugetlbfs.h"

static const guint64 page_sizes[] = {
  1, 4096, G_GUINT64_CONSTANT (1) << 21, G_GUINT64_CONSTANT (1) << 30, 3 * 4096,
    G_GUINT64_CONSTANT (1) << 63,
};

/* The format, restated: decimal digits, then one of these units, in any
 * case. */
static gboolean
spec_size (const char *text, guint64 *bytes, gboolean *has_unit)
{
  static const struct { const char *suffix; guint shift; } units[] = {
    { "", 0 }, { "B", 0 },
    { "K", 10 }, { "KB", 10 }, { "KIB", 10 },
    { "M", 20 }, { "MB", 20 }, { "MIB", 20 },
    { "G", 30 }, { "GB", 30 }, { "GIB", 30 },
    { "T", 40 }, { "TB", 40 }, { "TIB", 40 },
  };
  g_autofree char *upper = NULL;
  unsigned __int128 number = 0;
  const char *p = text;

  if (!g_ascii_isdigit (*p))
    return FALSE;
  for (; g_ascii_isdigit (*p); p++)
    {
      number = number * 10 + (unsigned) (*p - '0');
      if (number > G_MAXUINT64)
        return FALSE;
    }
  upper = g_ascii_strup (p, -1);
  for (gsize i = 0; i < G_N_ELEMENTS (units); i++)
    if (strcmp (upper, units[i].suffix) == 0)
      {
        number <<= units[i].shift;
        if (number > G_MAXUINT64)
          return FALSE;
        *bytes = (guint64) number;
        *has_unit = *p != '\0';
        return TRUE;
      }
  return FALSE;
}

static void
check_u64 (const char *text)
{
  guint64 value = 0;
  gboolean ok = hp_parse_u64 (text, &value, NULL);
  guint64 spec = 0;
  gboolean has_unit = FALSE;
  gboolean spec_ok = spec_size (text, &spec, &has_unit) && !has_unit;

  FUZZ_CHECK (ok == spec_ok, "hp_parse_u64 ('%s') = %d", text, ok);
  if (ok)
    {
      g_autofree char *back = g_strdup_printf ("%" G_GUINT64_FORMAT, value);
      const char *digits = text + strspn (text, "0");

      FUZZ_CHECK (value == spec, "'%s'", text);
      /* the number without leading zeros */
      FUZZ_CHECK (strcmp (back, *digits ? digits : "0") == 0, "'%s' -> '%s'", text, back);
    }
}

static void
check_size (const char *text)
{
  guint64 bytes = 0, spec = 0;
  gboolean has_unit = FALSE;
  gboolean ok = hp_parse_size (text, &bytes, NULL);
  gboolean spec_ok = spec_size (text, &spec, &has_unit) && spec != 0;

  FUZZ_CHECK (ok == spec_ok, "hp_parse_size ('%s') = %d", text, ok);
  if (ok)
    {
      g_autofree char *name = hp_size_name (bytes);
      g_autofree char *shown = hp_format_bytes (bytes);
      guint64 again = 0;

      FUZZ_CHECK (bytes == spec, "'%s': %" G_GUINT64_FORMAT, text, bytes);
      FUZZ_CHECK (hp_parse_size (name, &again, NULL) && again == bytes,
                  "'%s' -> '%s'", text, name);
      FUZZ_CHECK (fuzz_is_clean_text (shown) && g_str_is_ascii (shown), "'%s'", shown);
    }
}

static void
check_amount (const char *text, guint64 page_size)
{
  const char *number = text[0] == '+' || text[0] == '-' ? text + 1 : text;
  HpAmountKind kind = text[0] == '+' ? HP_AMOUNT_ADD : text[0] == '-' ? HP_AMOUNT_REMOVE
                                                                     : HP_AMOUNT_SET;
  HpAmount amount = { 0, };
  guint64 spec = 0;
  gboolean has_unit = FALSE;
  gboolean spec_ok = spec_size (number, &spec, &has_unit) && (!has_unit || spec % page_size == 0);
  gboolean ok = hp_parse_amount (text, page_size, &amount, NULL);
  guint64 currents[] = { 0, 1, 0, 0, G_MAXUINT64 };

  FUZZ_CHECK (ok == spec_ok, "hp_parse_amount ('%s', %" G_GUINT64_FORMAT ") = %d",
              text, page_size, ok);
  if (!ok)
    return;
  FUZZ_CHECK (amount.kind == kind, "'%s'", text);
  FUZZ_CHECK (amount.pages == (has_unit ? spec / page_size : spec), "'%s'", text);

  /* around the amount, where adding and removing turn to errors */
  currents[2] = amount.pages;
  currents[3] = amount.pages - 1;
  for (gsize i = 0; i < G_N_ELEMENTS (currents); i++)
    {
      guint64 current = currents[i], result = 0;
      gboolean resolved = hp_amount_resolve (&amount, current, &result, NULL);

      switch (amount.kind)
        {
        case HP_AMOUNT_SET:
          FUZZ_CHECK (resolved && result == amount.pages, "'%s'", text);
          break;
        case HP_AMOUNT_ADD:
          FUZZ_CHECK (resolved == (amount.pages <= G_MAXUINT64 - current), "'%s'", text);
          FUZZ_CHECK (!resolved || (result == current + amount.pages && result >= current),
                      "'%s'", text);
          break;
        case HP_AMOUNT_REMOVE:
          FUZZ_CHECK (resolved == (amount.pages <= current), "'%s'", text);
          FUZZ_CHECK (!resolved || result == current - amount.pages, "'%s'", text);
          break;
        default:
          FUZZ_CHECK (FALSE, "kind %d", amount.kind);
        }
    }
}

/* Formatting of numbers from anywhere. */
static void
check_number (guint64 a, guint64 b)
{
  g_autofree char *name = hp_size_name (a);
  g_autofree char *shown = hp_format_bytes (a);
  unsigned __int128 product = (unsigned __int128) a * b;
  guint64 bytes = 0, again = 0;

  FUZZ_CHECK (hp_pages_to_bytes (a, b, &bytes) == (product <= G_MAXUINT64),
              "%" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT, a, b);
  FUZZ_CHECK (product > G_MAXUINT64 || bytes == (guint64) product, "product");
  FUZZ_CHECK (fuzz_is_clean_text (shown) && g_str_is_ascii (shown), "'%s'", shown);
  if (a != 0)
    FUZZ_CHECK (hp_parse_size (name, &again, NULL) && again == a,
                "%" G_GUINT64_FORMAT " -> '%s'", a, name);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = fuzz_cstring (data, size);
  HpdMountScope scope;
  guint64 a, b;

  check_u64 (text);
  check_size (text);
  for (gsize i = 0; i < G_N_ELEMENTS (page_sizes); i++)
    check_amount (text, page_sizes[i]);

  /* mount owners and scopes come from callers too: a valid name is one
   * path component that is not ".", ".." or an option */
  if (hpd_mount_name_is_valid (text))
    FUZZ_CHECK (*text != '\0' && strlen (text) <= 32 && strchr (text, '/') == NULL &&
                text[0] != '.' && text[0] != '-', "'%s'", text);
  if (hpd_mount_scope_parse (text, &scope, NULL))
    FUZZ_CHECK (scope <= HPD_MOUNT_SCOPE_GLOBAL, "'%s'", text);

  a = fuzz_take_u64 (&data, &size);
  b = fuzz_take_u64 (&data, &size);
  check_number (a, b);
  return 0;
}
