/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <string.h>

#include "hp-escape.h"

static gboolean
needs_escape (gunichar c)
{
  switch (g_unichar_type (c))
    {
    case G_UNICODE_CONTROL:              /* C0, DEL, C1 (NEL) */
    case G_UNICODE_FORMAT:               /* bidi controls, zero-width, soft hyphen */
    case G_UNICODE_LINE_SEPARATOR:       /* U+2028 */
    case G_UNICODE_PARAGRAPH_SEPARATOR:  /* U+2029 */
    case G_UNICODE_SURROGATE:
    case G_UNICODE_PRIVATE_USE:
    case G_UNICODE_UNASSIGNED:
      return TRUE;
    default:
      return c == '\\';
    }
}

char *
hp_escape_log_text (const char *text, gssize length)
{
  const char *p = text;
  const char *end;
  GString *out;

  if (length < 0)
    length = strlen (text);
  end = text + length;
  out = g_string_sized_new (length);
  while (p < end)
    {
      gunichar c = g_utf8_get_char_validated (p, end - p);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          g_string_append_printf (out, "\\x%02x", (guchar) *p);
          p++;
          continue;
        }
      if (c == '\\')
        g_string_append (out, "\\\\");
      else if (needs_escape (c))
        g_string_append_printf (out, c > 0xFFFF ? "\\U%08x" : "\\u%04x", c);
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
      p = g_utf8_next_char (p);
    }
  return g_string_free (out, FALSE);
}
