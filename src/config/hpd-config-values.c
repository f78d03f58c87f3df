/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The configuration's values: page sizes, amounts, limits, modes, owners
 * and THP words, each parsed from the text of one value. */

#include "config.h"

#include <string.h>

#include "hp-error.h"
#include "hp-units.h"
#include "hpd-config.h"
#include "hpd-parse.h"
#include "hpd-config-private.h"

static gboolean
is_power_of_two (guint64 v)
{
  return v != 0 && (v & (v - 1)) == 0;
}

gboolean
hpd_config_parse_page_size (const char *text, guint64 *bytes, GError **error)
{
  if (!hp_parse_size (text, bytes, error))
    return FALSE;
  if (!is_power_of_two (*bytes))
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "page size '%s' is not a power of two", text);
      return FALSE;
    }
  return TRUE;
}

/* Pages ("512") or memory ("1G"), as hp_parse_amount takes them but without
 * a sign. For [pool DEFAULT] the page size is not known yet: memory is kept
 * in bytes and checked to be whole pages when applied. */
gboolean
hpd_config_parse_pool_amount (const char *text, guint64 page_size, HpdConfigKind *kind,
                              guint64 *value, GError **error)
{
  HpAmount amount;
  guint64 bytes;

  if (text[0] == '+' || text[0] == '-')
    {
      g_set_error_literal (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                           "relative amounts have no place in a configuration");
      return FALSE;
    }
  if (hp_parse_u64 (text, value, NULL))
    {
      if (page_size != 0 && !hp_pages_to_bytes (*value, page_size, &bytes))
        {
          g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS, "'%s' pages is too much memory", text);
          return FALSE;
        }
      *kind = HPD_CONFIG_NUMBER;
      return TRUE;
    }
  if (!hp_parse_amount (text, page_size != 0 ? page_size : 1, &amount, error))
    return FALSE;
  *kind = HPD_CONFIG_BYTES;
  *value = page_size != 0 ? amount.pages * page_size : amount.pages;
  return TRUE;
}

/* Bytes with a unit ("4G", "4194304") or a percentage of the pool from 1%
 * to 100%; whole pages are checked when the page size is known. */
gboolean
hpd_config_parse_limit (const char *text, HpdConfigKind *kind, guint64 *value, GError **error)
{
  gsize len = strlen (text);

  if (len > 0 && text[len - 1] == '%')
    {
      g_autofree char *digits = g_strndup (text, len - 1);

      if (digits[0] == '0' || !hp_parse_u64 (digits, value, NULL) || *value == 0 || *value > 100)
        {
          g_set_error_literal (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                               "a percentage must be from 1% to 100%");
          return FALSE;
        }
      *kind = HPD_CONFIG_PERCENT;
      return TRUE;
    }
  if (!hp_parse_size (text, value, error))
    return FALSE;
  *kind = HPD_CONFIG_BYTES;
  return TRUE;
}

gboolean
hpd_config_parse_mode (const char *text, guint64 *mode, GError **error)
{
  guint64 v = 0;

  if (*text == '\0')
    goto bad;
  for (const char *c = text; *c; c++)
    {
      if (*c < '0' || *c > '7')
        goto bad;
      v = v * 8 + (guint64) (*c - '0');
      if (v > 07777)
        goto bad;
    }
  if ((v & ~(guint64) 01777) != 0)
    {
      g_set_error_literal (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                           "only permission bits and the sticky bit may be set "
                           "(setuid and setgid are not allowed)");
      return FALSE;
    }
  *mode = v;
  return TRUE;

bad:
  g_set_error_literal (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                       "a mode is an octal number such as 0770 or 1777");
  return FALSE;
}

static gboolean
is_all_digits (const char *text)
{
  return g_ascii_isdigit (text[0]) && strspn (text, "0123456789") == strlen (text);
}

/* A user or group: a name that may stand in a path, or a decimal id below
 * @max_id. Returns the canonical text (ids without leading zeros). */
char *
hpd_config_parse_owner (const char *text, guint64 max_id, GError **error)
{
  guint64 id;

  if (is_all_digits (text))
    {
      if (!hp_parse_u64 (text, &id, NULL) || id > max_id)
        {
          g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                       "id is out of range (at most %" G_GUINT64_FORMAT ")", max_id);
          return NULL;
        }
      return g_strdup_printf ("%" G_GUINT64_FORMAT, id);
    }
  if (!hpd_mount_name_is_valid (text))
    {
      g_set_error_literal (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                           "a name has 1 to 32 letters, digits, '_', '-' or '.' "
                           "and does not start with '-' or '.'");
      return NULL;
    }
  return g_strdup (text);
}

gboolean
hpd_config_is_thp_word (const char *text, gsize len, const char *also)
{
  if (len == 0)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isalnum (text[i]) && strchr (also, text[i]) == NULL)
      return FALSE;
  return TRUE;
}

/* "enabled", "hugepages-64kB/enabled", "khugepaged/pages_to_scan": a name
 * below the THP directory that cannot leave it. */
gboolean
hpd_config_is_thp_name (const char *name)
{
  const char *slash = strchr (name, '/');
  gsize len = strlen (name);

  if (len > 128)
    return FALSE;
  if (slash == NULL)
    return hpd_config_is_thp_word (name, len, "_-");
  return hpd_config_is_thp_word (name, (gsize) (slash - name), "_-") &&
         hpd_config_is_thp_word (slash + 1, strlen (slash + 1), "_-");
}
