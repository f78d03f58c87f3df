/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <string.h>

#include "hp-error.h"
#include "hp-units.h"
#include "hpd-parse.h"

gboolean
hpd_parse_counter (const char *text, guint64 *value, GError **error)
{
  char digits[21];
  gsize len;

  if (text == NULL)
    {
      g_set_error_literal (error, HP_ERROR, HP_ERROR_FAILED, "no counter value");
      return FALSE;
    }

  len = strlen (text);
  if (len > 0 && text[len - 1] == '\n')
    len--;
  if (len == 0 || len >= sizeof digits)
    {
      g_set_error_literal (error, HP_ERROR, HP_ERROR_FAILED,
                           "malformed counter value from the kernel");
      return FALSE;
    }

  memcpy (digits, text, len);
  digits[len] = '\0';
  return hp_parse_u64 (digits, value, error);
}

gboolean
hpd_parse_meminfo (const char *text, const char *key, guint64 *value)
{
  gsize key_len = strlen (key);
  const char *line = text;

  while (line != NULL && *line != '\0')
    {
      const char *eol = strchr (line, '\n');

      if (strncmp (line, key, key_len) == 0 && line[key_len] == ':')
        {
          const char *p = line + key_len + 1;
          g_autofree char *digits = NULL;
          gsize len;

          while (*p == ' ' || *p == '\t')
            p++;
          len = strspn (p, "0123456789");
          if (len == 0)
            return FALSE;
          /* leading zeros are a number too: the range check is GLib's */
          digits = g_strndup (p, len);
          p += len;
          /* Only " kB" or nothing may follow. */
          if (*p != '\n' && *p != '\0' && strncmp (p, " kB", 3) != 0)
            return FALSE;
          return g_ascii_string_to_unsigned (digits, 10, 0, G_MAXUINT64, value, NULL);
        }

      line = eol ? eol + 1 : NULL;
    }

  return FALSE;
}

/* Node numbers above this make the list malformed. */
#define MAX_NODE 65535

GArray *
hpd_parse_node_list (const char *text, GError **error)
{
  g_autoptr(GArray) nodes = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree char *trimmed = g_strstrip (g_strdup (text ? text : ""));
  g_auto(GStrv) ranges = NULL;
  /* one bit per node: overlapping or repeated ranges cost no more than
   * the nodes they name, and the list comes out sorted and unique */
  g_autofree guint8 *listed = NULL;
  guint64 highest = 0;

  if (*trimmed == '\0')
    return g_steal_pointer (&nodes);

  listed = g_malloc0 (MAX_NODE / 8 + 1);
  ranges = g_strsplit (trimmed, ",", -1);
  for (guint i = 0; ranges[i] != NULL; i++)
    {
      g_auto(GStrv) ends = g_strsplit (ranges[i], "-", 3);
      guint64 first, last;

      if (g_strv_length (ends) > 2 ||
          !hp_parse_u64 (ends[0], &first, NULL) ||
          !hp_parse_u64 (ends[1] ? ends[1] : ends[0], &last, NULL) ||
          first > last || last > MAX_NODE)
        {
          g_set_error (error, HP_ERROR, HP_ERROR_FAILED,
                       "malformed node list '%s'", trimmed);
          return NULL;
        }

      for (guint64 n = first; n <= last; n++)
        listed[n / 8] |= (guint8) (1u << (n % 8));
      highest = MAX (highest, last);
    }

  for (guint node = 0; node <= highest; node++)
    if (listed[node / 8] & (1u << (node % 8)))
      g_array_append_val (nodes, node);

  return g_steal_pointer (&nodes);
}

gboolean
hpd_parse_hugepages_dir (const char *name, guint64 *size_kb)
{
  g_autofree char *digits = NULL;
  gsize len;

  if (!g_str_has_prefix (name, "hugepages-") || !g_str_has_suffix (name, "kB"))
    return FALSE;

  len = strlen (name) - strlen ("hugepages-") - strlen ("kB");
  if (len == 0)
    return FALSE;
  digits = g_strndup (name + strlen ("hugepages-"), len);
  if (!hp_parse_u64 (digits, size_kb, NULL) || *size_kb == 0 ||
      *size_kb > G_MAXUINT64 / 1024)
    return FALSE;
  return TRUE;
}

gboolean
hpd_parse_demote_size (const char *text, guint64 *bytes)
{
  g_autofree char *trimmed = g_strstrip (g_strdup (text ? text : ""));
  guint64 kb;

  if (!g_str_has_suffix (trimmed, "kB"))
    return FALSE;
  trimmed[strlen (trimmed) - 2] = '\0';
  if (!hp_parse_u64 (trimmed, &kb, NULL) || kb == 0 || kb > G_MAXUINT64 / 1024)
    return FALSE;
  *bytes = kb * 1024;
  return TRUE;
}

int
hpd_parse_buddyinfo_max_order (const char *text)
{
  g_auto(GStrv) lines = g_strsplit (text ? text : "", "\n", -1);

  /* "Node 0, zone   Normal   c0 c1 ... cN": the counts follow the zone name. */
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = NULL;
      guint n, counts = 0;

      if (!g_str_has_prefix (lines[i], "Node "))
        continue;
      fields = g_strsplit_set (lines[i], " \t", -1);
      n = g_strv_length (fields);
      for (guint j = 0; j < n; j++)
        {
          if (g_strcmp0 (fields[j], "zone") != 0)
            continue;
          /* skip empty fields and the zone name */
          j++;
          while (j < n && fields[j][0] == '\0')
            j++;
          for (j++; j < n; j++)
            if (fields[j][0] != '\0')
              counts++;
          break;
        }
      if (counts > 0 && counts < 64)
        return (int) counts - 1;
    }

  return -1;
}

/* Every Manager refresh parses ~20 of these: one pass, and no copies
 * beyond the words it returns. */
gboolean
hpd_parse_thp_choice (const char *text, char **current, GStrv *choices)
{
  g_autoptr(GPtrArray) words = g_ptr_array_new_with_free_func (g_free);
  const char *start = text ? text : "";
  const char *end = start + strlen (start);
  gint selected = -1;

  /* blanks at either end do not count (g_strstrip's), inside only spaces
   * part the words */
  while (start < end && g_ascii_isspace (*start))
    start++;
  while (end > start && g_ascii_isspace (end[-1]))
    end--;
  for (const char *p = start; p < end;)
    {
      const char *word = p;
      const char *word_end;

      while (p < end && *p != ' ')
        p++;
      word_end = p;
      if (p < end)
        p++;
      if (word == word_end)
        continue;
      if (word[0] == '[' && word_end - word > 2 && word_end[-1] == ']')
        {
          if (selected >= 0)
            return FALSE;
          word++;
          word_end--;
          selected = (gint) words->len;
        }
      for (const char *c = word; c < word_end; c++)
        if (!g_ascii_isalnum (*c) && *c != '_' && *c != '-' && *c != '+')
          return FALSE;
      g_ptr_array_add (words, g_strndup (word, word_end - word));
    }

  if (selected < 0 || words->len < 2)
    return FALSE;
  *current = g_strdup (g_ptr_array_index (words, selected));
  g_ptr_array_add (words, NULL);
  *choices = (GStrv) g_ptr_array_free (g_steal_pointer (&words), FALSE);
  return TRUE;
}

guint
hpd_parse_zoneinfo_populated (const char *text)
{
  g_auto(GStrv) lines = g_strsplit (text ? text : "", "\n", -1);
  gboolean counted_zone = FALSE;
  guint zones = 0;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];
      guint64 managed;

      if (g_str_has_prefix (line, "Node "))
        {
          const char *zone = strstr (line, "zone");
          g_autofree char *name = zone ? g_strstrip (g_strdup (zone + 4)) : NULL;

          counted_zone = name != NULL &&
                         (g_str_equal (name, "DMA") || g_str_equal (name, "DMA32") || g_str_equal (name, "Normal"));
          continue;
        }
      if (!counted_zone)
        continue;

      while (*line == ' ' || *line == '\t')
        line++;
      if (g_str_has_prefix (line, "managed"))
        {
          g_autofree char *value = g_strstrip (g_strdup (line + strlen ("managed")));

          if (hp_parse_u64 (value, &managed, NULL) && managed > 0)
            zones++;
          counted_zone = FALSE;
        }
    }
  return zones;
}

guint64
hpd_parse_pagetypeinfo_block_pages (const char *text)
{
  const char *p = text ? strstr (text, "Pages per block:") : NULL;
  g_autofree char *line = NULL;
  guint64 pages;

  if (p == NULL)
    return 0;
  p += strlen ("Pages per block:");
  line = g_strndup (p, strcspn (p, "\n"));
  g_strstrip (line);
  return hp_parse_u64 (line, &pages, NULL) ? pages : 0;
}

char *
hpd_parse_meminfo_sizes (const char *text)
{
  guint64 total = 0, page = 0;
  gboolean has_total = hpd_parse_meminfo (text, "MemTotal", &total);
  gboolean has_page = hpd_parse_meminfo (text, "Hugepagesize", &page);

  return g_strdup_printf ("%d %" G_GUINT64_FORMAT " %d %" G_GUINT64_FORMAT,
                          has_total, total, has_page, page);
}

char *
hpd_parse_buddyinfo_zones (const char *text)
{
  GString *zones = g_string_new (NULL);
  const char *line = text ? text : "";

  while (*line != '\0')
    {
      const char *end = strchr (line, '\n');
      const char *next = end ? end + 1 : line + strlen (line);
      const char *zone = g_str_has_prefix (line, "Node ") ? strstr (line, "zone") : NULL;

      if (zone != NULL && (end == NULL || zone < end))
        {
          const char *name_end = zone + strlen ("zone");

          /* the node, the word "zone", the blanks and the name */
          while (*name_end == ' ' || *name_end == '\t')
            name_end++;
          while (*name_end != '\0' && *name_end != ' ' && *name_end != '\t' && *name_end != '\n')
            name_end++;
          g_string_append_len (zones, line, name_end - line);
          g_string_append_c (zones, '\n');
        }
      line = next;
    }
  return g_string_free (zones, FALSE);
}

guint64
hpd_parse_buddyinfo_blocks (const char *text, guint order)
{
  g_auto(GStrv) lines = g_strsplit (text ? text : "", "\n", -1);
  guint64 total = 0;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = NULL;
      guint n, j, k = 0;

      if (!g_str_has_prefix (lines[i], "Node "))
        continue;
      fields = g_strsplit_set (lines[i], " \t", -1);
      n = g_strv_length (fields);
      for (j = 0; j < n && g_strcmp0 (fields[j], "zone") != 0; j++)
        ;
      /* skip to the zone name, then count orders */
      for (j++; j < n && fields[j][0] == '\0'; j++)
        ;
      for (j++; j < n; j++)
        {
          guint64 count;

          if (fields[j][0] == '\0')
            continue;
          if (!hp_parse_u64 (fields[j], &count, NULL))
            break;
          /* an empty order adds nothing, however large its blocks */
          if (k >= order && count > 0)
            {
              guint shift = k - order;
              guint64 pieces = shift < 64 && count <= (G_MAXUINT64 >> shift)
                ? count << shift : G_MAXUINT64;
              total = hp_add_saturating (total, pieces);
            }
          k++;
        }
    }
  return total;
}

char *
hpd_parse_printable (const char *text)
{
  GString *out = g_string_sized_new (strlen (text));

  for (const char *p = text; *p != '\0';)
    {
      gunichar c = g_utf8_get_char_validated (p, -1);

      if (c == (gunichar) -1 || c == (gunichar) -2 || g_unichar_iscntrl (c))
        {
          g_string_append_printf (out, "\\x%02x", (guint) (guchar) *p);
          p++;
        }
      else
        {
          const char *next = g_utf8_next_char (p);

          g_string_append_len (out, p, next - p);
          p = next;
        }
    }
  return g_string_free (out, FALSE);
}
