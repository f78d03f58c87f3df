/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gio/gio.h>

#include "hp-units.h"
#include "hpd-usage-parse.h"

/* PAGE_COUNTER_MAX x 4096 on 64-bit: what a new cgroup's hugetlb.<S>.max
 * reads on 6.18 instead of "max" (reference/kernel.md, quirk 10). */
#define CGROUP_UNLIMITED_QUIRK G_GUINT64_CONSTANT (9223372036854771712)

static gboolean
invalid (GError **error, const char *what, const char *line)
{
  g_autofree char *shown = g_strndup (line, 80);

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: '%s'", what, shown);
  return FALSE;
}

/* @len hex digits: no sign, spaces or "0x" (g_ascii_string_to_unsigned
 * refuses them). */
static gboolean
parse_hex (const char *text, gsize len, guint64 *value)
{
  char digits[17];

  if (len == 0 || len >= sizeof digits)
    return FALSE;
  memcpy (digits, text, len);
  digits[len] = '\0';
  return g_ascii_string_to_unsigned (digits, 16, 0, G_MAXUINT64, value, NULL);
}

static gboolean
parse_dec_n (const char *text, gsize len, guint64 *value)
{
  g_autofree char *copy = g_strndup (text, len);

  return hp_parse_u64 (copy, value, NULL);
}

/* The next field separated by spaces, or NULL at the end. */
static const char *
next_field (const char **cursor, gsize *len)
{
  const char *p = *cursor;
  const char *start;

  while (*p == ' ')
    p++;
  if (*p == '\0')
    return NULL;
  start = p;
  while (*p != ' ' && *p != '\0')
    p++;
  *len = (gsize) (p - start);
  *cursor = p;
  return start;
}

/* "start-end perms offset major:minor inode [path]" (show_map_vma). */
static gboolean
parse_mapping_line (const char *line, HpdMapping *m)
{
  const char *cursor = line;
  const char *f, *dash, *colon;
  gsize len;
  guint64 major, minor;

  memset (m, 0, sizeof *m);

  f = next_field (&cursor, &len);
  if (f == NULL || (dash = memchr (f, '-', len)) == NULL ||
      !parse_hex (f, (gsize) (dash - f), &m->start) ||
      !parse_hex (dash + 1, len - (gsize) (dash - f) - 1, &m->end) || m->end < m->start)
    return FALSE;

  f = next_field (&cursor, &len);   /* perms: rwxp */
  if (f == NULL || len != 4)
    return FALSE;

  f = next_field (&cursor, &len);   /* offset */
  if (f == NULL || !parse_hex (f, len, &major))
    return FALSE;

  f = next_field (&cursor, &len);   /* device, hex */
  if (f == NULL || (colon = memchr (f, ':', len)) == NULL ||
      !parse_hex (f, (gsize) (colon - f), &major) ||
      !parse_hex (colon + 1, len - (gsize) (colon - f) - 1, &minor) ||
      major > G_MAXUINT32 || minor > G_MAXUINT32)
    return FALSE;
  m->dev_major = (guint32) major;
  m->dev_minor = (guint32) minor;

  f = next_field (&cursor, &len);   /* inode, decimal */
  if (f == NULL || !parse_dec_n (f, len, &m->inode))
    return FALSE;

  /* the rest, after the padding, is the name (it may hold spaces) */
  while (*cursor == ' ')
    cursor++;
  if (*cursor != '\0')
    m->path = g_strdup (cursor);
  return TRUE;
}

/* "Name:   123 kB" -> bytes; FALSE if the line is not such a field. */
static gboolean
parse_kb_field (const char *value, guint64 *bytes)
{
  g_auto(GStrv) words = g_strsplit_set (value, " \t", -1);
  guint64 kb = 0;
  guint n = 0;
  const char *number = NULL, *unit = NULL;

  for (guint i = 0; words[i] != NULL; i++)
    {
      if (words[i][0] == '\0')
        continue;
      if (n == 0)
        number = words[i];
      else if (n == 1)
        unit = words[i];
      n++;
    }
  if (n != 2 || g_strcmp0 (unit, "kB") != 0 || !hp_parse_u64 (number, &kb, NULL) ||
      kb > G_MAXUINT64 / 1024)
    return FALSE;
  *bytes = kb * 1024;
  return TRUE;
}

static gboolean
is_field_name (const char *line, gsize len)
{
  if (len == 0)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isalnum (line[i]) && line[i] != '_')
      return FALSE;
  return TRUE;
}

static void
clear_mapping (gpointer data)
{
  g_free (((HpdMapping *) data)->path);
}

gboolean
hpd_usage_next_line (const char **cursor, const char *end, GString *line)
{
  const char *newline;
  gsize len;

  if (*cursor >= end)
    return FALSE;
  newline = memchr (*cursor, '\n', (gsize) (end - *cursor));
  len = newline != NULL ? (gsize) (newline - *cursor) : (gsize) (end - *cursor);
  g_string_truncate (line, 0);
  g_string_append_len (line, *cursor, (gssize) len);
  *cursor = newline != NULL ? newline + 1 : end;
  return TRUE;
}

GArray *
hpd_usage_parse_smaps (const char *text, GError **error)
{
  g_autoptr(GArray) mappings = g_array_new (FALSE, TRUE, sizeof (HpdMapping));
  g_autoptr(GString) buffer = g_string_new (NULL);
  const char *cursor = text;
  const char *end = text + strlen (text);

  g_array_set_clear_func (mappings, clear_mapping);

  while (hpd_usage_next_line (&cursor, end, buffer))
    {
      const char *line = buffer->str;
      const char *colon = strchr (line, ':');
      HpdMapping m;

      if (line[0] == '\0')
        continue;

      /* a field line: "Name:" then its value; a mapping line has a ':'
       * only in the device, after a '-' and spaces */
      if (colon != NULL && is_field_name (line, (gsize) (colon - line)))
        {
          HpdMapping *last;
          gsize name_len = (gsize) (colon - line);

          if (mappings->len == 0)
            {
              invalid (error, "smaps field before any mapping", line);
              return NULL;
            }
          last = &g_array_index (mappings, HpdMapping, mappings->len - 1);

#define FIELD(name) (name_len == strlen (name) && strncmp (line, name, name_len) == 0)
          if (FIELD ("KernelPageSize") || FIELD ("Shared_Hugetlb") || FIELD ("Private_Hugetlb"))
            {
              guint64 bytes;

              if (!parse_kb_field (colon + 1, &bytes))
                {
                  invalid (error, "Malformed smaps field", line);
                  return NULL;
                }
              if (FIELD ("KernelPageSize"))
                last->kernel_page_size = bytes;
              else if (FIELD ("Shared_Hugetlb"))
                last->shared_hugetlb = bytes;
              else
                last->private_hugetlb = bytes;
            }
          else if (FIELD ("VmFlags"))
            {
              g_auto(GStrv) flags = g_strsplit (colon + 1, " ", -1);

              last->hugetlb_flag = g_strv_contains ((const char *const *) flags, "ht");
            }
#undef FIELD
          continue;
        }

      if (!parse_mapping_line (line, &m))
        {
          invalid (error, "Malformed mapping line", line);
          return NULL;
        }
      g_array_append_val (mappings, m);
    }

  return g_steal_pointer (&mappings);
}

gboolean
hpd_usage_parse_status_uids (const char *text, guint32 *real_uid, guint32 *effective_uid)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) words = NULL;

      if (!g_str_has_prefix (lines[i], "Uid:\t"))
        continue;
      /* "Uid:\treal\teffective\tsaved\tfs" */
      words = g_strsplit (lines[i] + 5, "\t", -1);
      return g_strv_length (words) == 4 &&
             hp_parse_u32 (words[0], real_uid, NULL) && hp_parse_u32 (words[1], effective_uid, NULL);
    }
  return FALSE;
}

gboolean
hpd_usage_parse_sysv_name (const char *path, gint32 *key)
{
  guint64 v;

  /* "/SYSV" + exactly 8 hex digits + " (deleted)" (the segment's file
   * always reads as unlinked) */
  if (path == NULL || !g_str_has_prefix (path, "/SYSV") || strlen (path) != 5 + 8 + 10 ||
      !g_str_equal (path + 13, " (deleted)") || !parse_hex (path + 5, 8, &v))
    return FALSE;
  *key = (gint32) (guint32) v;
  return TRUE;
}

/* Where each needed column of /proc/sysvipc/shm is. */
enum { COL_KEY, COL_SHMID, COL_PERMS, COL_SIZE, COL_CPID, COL_LPID, COL_NATTCH,
       COL_UID, COL_GID, COL_CUID, COL_CGID, COL_RSS, N_COLUMNS };
static const char *const column_names[N_COLUMNS] = {
  "key", "shmid", "perms", "size", "cpid", "lpid", "nattch",
  "uid", "gid", "cuid", "cgid", "rss",
};

static GStrv
split_words (const char *line)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  const char *cursor = line;
  const char *f;
  gsize len;

  while ((f = next_field (&cursor, &len)) != NULL)
    {
      g_autofree char *word = g_strndup (f, len);
      g_strv_builder_add (builder, word);
    }
  return g_strv_builder_end (builder);
}

GArray *
hpd_usage_parse_sysvipc_shm (const char *text, GError **error)
{
  g_autoptr(GArray) segments = g_array_new (FALSE, TRUE, sizeof (HpdShmSegment));
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  g_auto(GStrv) header = NULL;
  int columns[N_COLUMNS];
  guint n_header;

  if (lines[0] == NULL || lines[0][0] == '\0')
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           "/proc/sysvipc/shm has no header line");
      return NULL;
    }
  header = split_words (lines[0]);
  n_header = g_strv_length (header);
  for (int c = 0; c < N_COLUMNS; c++)
    {
      columns[c] = -1;
      for (guint h = 0; h < n_header; h++)
        if (g_str_equal (header[h], column_names[c]))
          columns[c] = (int) h;
      /* rss came in 3.x; everything else is needed */
      if (columns[c] < 0 && c != COL_RSS)
        {
          invalid (error, "/proc/sysvipc/shm header lacks a column", column_names[c]);
          return NULL;
        }
    }

  for (guint i = 1; lines[i] != NULL; i++)
    {
      g_auto(GStrv) words = NULL;
      HpdShmSegment s = { 0, };
      gint64 key;
      char *end;
      guint64 v;

      if (lines[i][0] == '\0')
        continue;
      words = split_words (lines[i]);
      if (g_strv_length (words) != n_header)
        {
          invalid (error, "/proc/sysvipc/shm row has the wrong number of columns", lines[i]);
          return NULL;
        }

      /* the key is printed with %10d: signed */
      errno = 0;
      key = g_ascii_strtoll (words[columns[COL_KEY]], &end, 10);
      if (*end != '\0' || end == words[columns[COL_KEY]] || errno != 0 ||
          key < G_MININT32 || key > G_MAXINT32)
        {
          invalid (error, "Bad key in /proc/sysvipc/shm", lines[i]);
          return NULL;
        }
      s.key = (gint32) key;

      /* perms is octal (%4o) */
      v = g_ascii_strtoull (words[columns[COL_PERMS]], &end, 8);
      if (*end != '\0' || !g_ascii_isdigit (words[columns[COL_PERMS]][0]) || v > 07777777)
        {
          invalid (error, "Bad perms in /proc/sysvipc/shm", lines[i]);
          return NULL;
        }
      s.perms = (guint32) v;

      if (!hp_parse_u32 (words[columns[COL_SHMID]], &s.shmid, NULL) ||
          !hp_parse_u64 (words[columns[COL_SIZE]], &s.size, NULL) ||
          !hp_parse_u32 (words[columns[COL_CPID]], &s.cpid, NULL) ||
          !hp_parse_u32 (words[columns[COL_LPID]], &s.lpid, NULL) ||
          !hp_parse_u64 (words[columns[COL_NATTCH]], &s.nattch, NULL) ||
          !hp_parse_u32 (words[columns[COL_UID]], &s.uid, NULL) ||
          !hp_parse_u32 (words[columns[COL_GID]], &s.gid, NULL) ||
          !hp_parse_u32 (words[columns[COL_CUID]], &s.cuid, NULL) ||
          !hp_parse_u32 (words[columns[COL_CGID]], &s.cgid, NULL) ||
          (columns[COL_RSS] >= 0 && !hp_parse_u64 (words[columns[COL_RSS]], &s.rss, NULL)))
        {
          invalid (error, "Bad number in /proc/sysvipc/shm", lines[i]);
          return NULL;
        }
      s.has_rss = columns[COL_RSS] >= 0;
      g_array_append_val (segments, s);
    }
  return g_steal_pointer (&segments);
}

gboolean
hpd_usage_parse_hugetlb_events (const char *text, guint64 *max_events)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "max "))
      return hp_parse_u64 (lines[i] + 4, max_events, NULL);
  return FALSE;
}

gboolean
hpd_usage_parse_cgroup_limit (const char *text, guint64 *bytes)
{
  g_autofree char *copy = g_strdup (text);

  g_strchomp (copy);
  if (g_str_equal (copy, "max"))
    {
      *bytes = G_MAXUINT64;
      return TRUE;
    }
  if (!hp_parse_u64 (copy, bytes, NULL))
    return FALSE;
  if (*bytes >= CGROUP_UNLIMITED_QUIRK)
    *bytes = G_MAXUINT64;
  return TRUE;
}

gboolean
hpd_usage_parse_cgroup_file (const char *name, guint64 *page_size)
{
  g_autofree char *size = NULL;
  const char *rest;
  gsize len;
  guint64 number, unit;

  /* hugetlb.<N><KB|MB|GB>.current: the kernel's mem_fmt() names */
  if (!g_str_has_prefix (name, "hugetlb.") || !g_str_has_suffix (name, ".current"))
    return FALSE;
  rest = name + strlen ("hugetlb.");
  /* "hugetlb.current": the prefix and the suffix share the dot */
  if (strlen (rest) < strlen (".current") + 3)
    return FALSE;
  len = strlen (rest) - strlen (".current");
  if (strncmp (rest + len - 2, "KB", 2) == 0)
    unit = 1024;
  else if (strncmp (rest + len - 2, "MB", 2) == 0)
    unit = 1024 * 1024;
  else if (strncmp (rest + len - 2, "GB", 2) == 0)
    unit = 1024 * 1024 * 1024;
  else
    return FALSE;
  size = g_strndup (rest, len - 2);
  if (!hp_parse_u64 (size, &number, NULL) || number == 0 || number > G_MAXUINT64 / unit)
    return FALSE;
  *page_size = number * unit;
  return TRUE;
}
