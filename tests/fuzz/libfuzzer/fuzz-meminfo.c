/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Numbers the kernel hands us (src/kernel/hpd-parse.c): /proc/meminfo, sysfs
 * counters, node lists (node/online), hugepages-NkB directory names and
 * demote_size. Checked against a restatement of each format and through
 * the kernel's own formatting back. */
#include "config.h"

#include <string.h>

#include "fuzz-common.h"
#include "hp-units.h"
#include "hpd-parse.h"

/* Every key the service looks up, and a few it does not. */
static const char *const meminfo_keys[] = {
  "MemTotal", "MemFree", "Hugepagesize", "HugePages_Total", "HugePages_Free",
  "HugePages_Rsvd", "HugePages_Surp", "Hugetlb", "Mem",
};

/* The first line "KEY:", then blanks, digits, and nothing or " kB". */
static gboolean
spec_meminfo (const char *text, const char *key, guint64 *value)
{
  gsize key_len = strlen (key);

  for (const char *line = text; line != NULL && *line != '\0';
       line = strchr (line, '\n') ? strchr (line, '\n') + 1 : NULL)
    {
      const char *p;
      gsize digits;
      g_autofree char *number = NULL;

      if (strncmp (line, key, key_len) != 0 || line[key_len] != ':')
        continue;
      p = line + key_len + 1;
      p += strspn (p, " \t");
      digits = strspn (p, "0123456789");
      number = g_strndup (p, digits);
      p += digits;
      if (*p != '\0' && *p != '\n' && strncmp (p, " kB", 3) != 0)
        return FALSE;
      return hp_parse_u64 (number, value, NULL);
    }
  return FALSE;
}

static void
check_meminfo (const char *text)
{
  for (gsize i = 0; i < G_N_ELEMENTS (meminfo_keys); i++)
    {
      guint64 value = 0, spec = 0;
      gboolean ok = hpd_parse_meminfo (text, meminfo_keys[i], &value);
      gboolean spec_ok = spec_meminfo (text, meminfo_keys[i], &spec);

      FUZZ_CHECK (ok == spec_ok, "%s: %d", meminfo_keys[i], ok);
      FUZZ_CHECK (!ok || value == spec, "%s: %" G_GUINT64_FORMAT " for %" G_GUINT64_FORMAT,
                  meminfo_keys[i], value, spec);
    }
}

static void
check_counter (const char *text)
{
  gsize len = strlen (text);
  g_autofree char *digits = g_strndup (text, len > 0 && text[len - 1] == '\n' ? len - 1 : len);
  guint64 value = 0, spec = 0;
  gboolean ok = hpd_parse_counter (text, &value, NULL);
  /* the kernel prints at most 20 digits; leading zeros it never prints */
  gboolean spec_ok = strlen (digits) <= 20 && hp_parse_u64 (digits, &spec, NULL);

  FUZZ_CHECK (ok == spec_ok, "'%s': %d", text, ok);
  if (ok)
    {
      g_autofree char *back = g_strdup_printf ("%" G_GUINT64_FORMAT "\n", value);
      guint64 again = 0;

      FUZZ_CHECK (value == spec, "'%s'", text);
      FUZZ_CHECK (hpd_parse_counter (back, &again, NULL) && again == value, "'%s'", back);
    }
}

/* "0-3,5" as the kernel's bitmap_print_to_pagebuf() writes it. */
static char *
format_node_list (const GArray *nodes)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < nodes->len;)
    {
      guint first = g_array_index (nodes, guint, i), last = first;

      while (i + 1 < nodes->len && g_array_index (nodes, guint, i + 1) == last + 1)
        last = g_array_index (nodes, guint, ++i);
      i++;
      if (out->len > 0)
        g_string_append_c (out, ',');
      if (first == last)
        g_string_append_printf (out, "%u", first);
      else
        g_string_append_printf (out, "%u-%u", first, last);
    }
  g_string_append_c (out, '\n');
  return g_string_free (out, FALSE);
}

static void
check_node_list (const char *text)
{
  g_autoptr(GArray) nodes = hpd_parse_node_list (text, NULL);
  g_autoptr(GArray) again = NULL;
  g_autofree char *back = NULL;

  if (nodes == NULL)
    return;
  for (guint i = 0; i < nodes->len; i++)
    {
      guint node = g_array_index (nodes, guint, i);

      FUZZ_CHECK (node <= 65535, "node %u", node);
      FUZZ_CHECK (i == 0 || node > g_array_index (nodes, guint, i - 1), "not ascending at %u", i);
    }
  back = format_node_list (nodes);
  again = hpd_parse_node_list (back, NULL);
  FUZZ_CHECK (again != NULL && again->len == nodes->len &&
              (nodes->len == 0 || memcmp (again->data, nodes->data, nodes->len * sizeof (guint)) == 0),
              "'%s' -> '%s'", text, back);
}

static void
check_hugepages_dir (const char *text)
{
  guint64 kb = 0, again = 0;
  g_autofree char *name = NULL;

  if (!hpd_parse_hugepages_dir (text, &kb))
    return;
  FUZZ_CHECK (g_str_has_prefix (text, "hugepages-") && g_str_has_suffix (text, "kB"), "'%s'", text);
  FUZZ_CHECK (kb > 0 && kb <= G_MAXUINT64 / 1024, "'%s'", text);
  name = g_strdup_printf ("hugepages-%" G_GUINT64_FORMAT "kB", kb);
  FUZZ_CHECK (hpd_parse_hugepages_dir (name, &again) && again == kb, "'%s'", name);
}

static void
check_demote_size (const char *text)
{
  guint64 bytes = 0, again = 0;
  g_autofree char *back = NULL;

  if (!hpd_parse_demote_size (text, &bytes))
    return;
  FUZZ_CHECK (bytes >= 1024 && bytes % 1024 == 0, "'%s'", text);
  back = g_strdup_printf ("%" G_GUINT64_FORMAT "kB\n", bytes / 1024);
  FUZZ_CHECK (hpd_parse_demote_size (back, &again) && again == bytes, "'%s'", back);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = fuzz_cstring (data, size);

  check_meminfo (text);
  check_counter (text);
  check_node_list (text);
  check_hugepages_dir (text);
  check_demote_size (text);
  return 0;
}
