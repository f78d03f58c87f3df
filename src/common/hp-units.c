/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hp-error.h"
#include "hp-units.h"

/* g_ascii_string_to_unsigned() refuses what the header says (signs,
 * spaces, anything after the digits) except a leading vertical tab, which
 * its space check misses and strtoull() skips: a decimal number starts
 * with a digit. The messages are ours, as users and the kernel's text see
 * them. */
static gboolean
parse_decimal (const char *text, guint64 max, guint64 *value, GError **error)
{
  g_autoptr(GError) local_error = NULL;

  if (text == NULL || *text == '\0')
    {
      g_set_error_literal (error, HP_ERROR, HP_ERROR_INVALID_ARGS, "empty number");
      return FALSE;
    }
  if (g_ascii_isdigit (text[0]) &&
      g_ascii_string_to_unsigned (text, 10, 0, max, value, &local_error))
    return TRUE;
  if (g_error_matches (local_error, G_NUMBER_PARSER_ERROR, G_NUMBER_PARSER_ERROR_OUT_OF_BOUNDS))
    g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS, "'%s' is too large", text);
  else
    g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS, "'%s' is not a decimal number", text);
  return FALSE;
}

gboolean
hp_parse_u64 (const char *text, guint64 *value, GError **error)
{
  return parse_decimal (text, G_MAXUINT64, value, error);
}

gboolean
hp_parse_u32 (const char *text, guint32 *value, GError **error)
{
  guint64 v;

  if (!parse_decimal (text, G_MAXUINT32, &v, error))
    return FALSE;
  *value = (guint32) v;
  return TRUE;
}

/* Splits "123M" into 123 and a multiplier; @has_unit says whether a unit was
 * given at all, so callers can tell pages from memory. Messages quote
 * @shown, the text as the user wrote it.
 *
 * A unit is read in any case, as hugeadm reads it ("2mb", "2Mb" and
 * "2048kb" are 2 MiB), so that hugeadm's spellings are taken by every
 * command and file; "b" is bytes, never bits. Only these words are units:
 * anything else after the digits is an error (hugeadm ignores it). */
static gboolean
parse_number_with_unit (const char *text, const char *shown, guint64 *bytes,
                        gboolean *has_unit, GError **error)
{
  static const struct { const char *suffix; guint shift; } units[] = {
    { "", 0 }, { "b", 0 },
    { "k", 10 }, { "kb", 10 }, { "kib", 10 },
    { "m", 20 }, { "mb", 20 }, { "mib", 20 },
    { "g", 30 }, { "gb", 30 }, { "gib", 30 },
    { "t", 40 }, { "tb", 40 }, { "tib", 40 },
  };
  g_autofree char *digits = NULL;
  const char *suffix = text;
  guint64 number;

  while (g_ascii_isdigit (*suffix))
    suffix++;
  if (suffix == text)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "'%s' does not start with a decimal number", shown);
      return FALSE;
    }

  digits = g_strndup (text, (gsize) (suffix - text));
  if (!hp_parse_u64 (digits, &number, NULL))
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS, "'%s' is too large", shown);
      return FALSE;
    }

  for (gsize i = 0; i < G_N_ELEMENTS (units); i++)
    {
      if (g_ascii_strcasecmp (suffix, units[i].suffix) != 0)
        continue;
      if (units[i].shift > 0 && number > (G_MAXUINT64 >> units[i].shift))
        {
          g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                       "'%s' is too large", shown);
          return FALSE;
        }
      *bytes = number << units[i].shift;
      *has_unit = *suffix != '\0';
      return TRUE;
    }

  g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
               "'%s' has an unknown unit '%s' (use K, M, G or T)", shown, suffix);
  return FALSE;
}

gboolean
hp_parse_size (const char *text, guint64 *bytes, GError **error)
{
  gboolean has_unit;
  guint64 value;

  if (text == NULL || *text == '\0')
    {
      g_set_error_literal (error, HP_ERROR, HP_ERROR_INVALID_ARGS, "empty size");
      return FALSE;
    }
  if (!parse_number_with_unit (text, text, &value, &has_unit, error))
    return FALSE;
  if (value == 0)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS, "size '%s' is zero", text);
      return FALSE;
    }

  *bytes = value;
  return TRUE;
}

gboolean
hp_parse_amount (const char *text, guint64 page_size, HpAmount *amount,
                 GError **error)
{
  HpAmountKind kind = HP_AMOUNT_SET;
  const char *original = text;
  gboolean has_unit;
  guint64 value;

  g_return_val_if_fail (page_size > 0, FALSE);

  if (text == NULL || *text == '\0')
    {
      g_set_error_literal (error, HP_ERROR, HP_ERROR_INVALID_ARGS, "empty amount");
      return FALSE;
    }

  if (*text == '+' || *text == '-')
    {
      kind = *text == '+' ? HP_AMOUNT_ADD : HP_AMOUNT_REMOVE;
      text++;
    }

  /* messages quote the amount as written, sign included */
  if (!parse_number_with_unit (text, original, &value, &has_unit, error))
    return FALSE;

  if (has_unit)
    {
      if (value % page_size != 0)
        {
          g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                       "%s is not a whole number of %" G_GUINT64_FORMAT "-byte pages",
                       original, page_size);
          return FALSE;
        }
      value /= page_size;
    }

  amount->kind = kind;
  amount->pages = value;
  return TRUE;
}

gboolean
hp_amount_resolve (const HpAmount *amount, guint64 current, guint64 *result,
                   GError **error)
{
  switch (amount->kind)
    {
    case HP_AMOUNT_SET:
      *result = amount->pages;
      return TRUE;

    case HP_AMOUNT_ADD:
      if (amount->pages > G_MAXUINT64 - current)
        {
          g_set_error_literal (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                               "adding that many pages overflows");
          return FALSE;
        }
      *result = current + amount->pages;
      return TRUE;

    case HP_AMOUNT_REMOVE:
      if (amount->pages > current)
        {
          g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                       "cannot remove %" G_GUINT64_FORMAT " pages from %" G_GUINT64_FORMAT,
                       amount->pages, current);
          return FALSE;
        }
      *result = current - amount->pages;
      return TRUE;

    default:
      g_assert_not_reached ();
    }
}

char *
hp_size_name (guint64 bytes)
{
  if (bytes >= (G_GUINT64_CONSTANT (1) << 30) && bytes % (G_GUINT64_CONSTANT (1) << 30) == 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT "GB", bytes >> 30);
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT "MB", bytes >> 20);
  if (bytes >= (1u << 10) && bytes % (1u << 10) == 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT "KB", bytes >> 10);
  return g_strdup_printf ("%" G_GUINT64_FORMAT "B", bytes);
}

gboolean
hp_pages_to_bytes (guint64 pages, guint64 page_size, guint64 *bytes)
{
  return !__builtin_mul_overflow (pages, page_size, bytes);
}

guint64
hp_add_saturating (guint64 a, guint64 b)
{
  guint64 sum;

  return g_uint64_checked_add (&sum, a, b) ? sum : G_MAXUINT64;
}

guint64
hp_sub_saturating (guint64 a, guint64 b)
{
  return a > b ? a - b : 0;
}

char *
hp_format_bytes (guint64 bytes)
{
  static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
  double value = (double) bytes;
  gsize unit = 0;

  if (bytes < 1024)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " bytes", bytes);

  value /= 1024;
  while (value >= 1024 && unit + 1 < G_N_ELEMENTS (units))
    {
      value /= 1024;
      unit++;
    }
  return g_strdup_printf ("%.1f %s", value, units[unit]);
}
