/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* /proc/self/mountinfo (src/kernel/hpd-mountinfo.c). Every hugetlbfs mount found
 * is written back as the kernel would print it and must parse to the same
 * mount; unescaping must undo the kernel's escaping. */
#include "config.h"

#include <string.h>

#include "fuzz-common.h"
#include "hpd-mountinfo.h"
#include "hpd-mounts.h"

/* The kernel's mangle(): octal escapes for blanks and the backslash (we
 * escape every control character, which the parser must take as well). */
static char *
escape (const char *text)
{
  GString *out = g_string_new (NULL);

  for (const guchar *p = (const guchar *) text; *p != '\0'; p++)
    if (*p == ' ' || *p == '\\' || *p < 0x20 || *p == 0x7f)
      g_string_append_printf (out, "\\%03o", *p);
    else
      g_string_append_c (out, (char) *p);
  return g_string_free (out, FALSE);
}

static char *
format_line (const HpdMountInfo *m)
{
  g_autofree char *path = escape (m->path);
  g_autofree char *source = escape (m->source);
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "%u %u 0:42 / %s %s shared:1 - hugetlbfs %s rw",
                          m->mount_id, m->parent_id, path, m->flags, source);
  g_string_append_printf (out, ",uid=%u,gid=%u,mode=%o", m->uid, m->gid, m->mode);
  if (m->page_size != 0)
    g_string_append_printf (out, ",pagesize=%" G_GUINT64_FORMAT, m->page_size);
  if (m->has_size)
    g_string_append_printf (out, ",size=%" G_GUINT64_FORMAT, m->size);
  if (m->has_min_size)
    g_string_append_printf (out, ",min_size=%" G_GUINT64_FORMAT, m->min_size);
  if (m->has_nr_inodes)
    g_string_append_printf (out, ",nr_inodes=%" G_GUINT64_FORMAT, m->nr_inodes);
  return g_string_free (out, FALSE);
}

static void
check_mount (const HpdMountInfo *m)
{
  g_autofree char *line = NULL;
  g_autoptr(HpdMountInfo) again = NULL;

  FUZZ_CHECK (m->path != NULL && m->path[0] == '/', "path");
  FUZZ_CHECK (m->source != NULL && m->flags != NULL, "fields");
  FUZZ_CHECK (strchr (m->flags, ' ') == NULL, "'%s'", m->flags);
  FUZZ_CHECK (m->mode <= 0777777, "mode %o", m->mode);
  /* what the service does with a path it found */
  hpd_mount_path_is_valid (m->path);

  line = format_line (m);
  again = hpd_mountinfo_parse_line (line);
  FUZZ_CHECK (again != NULL, "'%s' does not parse back", line);
  FUZZ_CHECK (again->mount_id == m->mount_id && again->parent_id == m->parent_id, "'%s'", line);
  FUZZ_CHECK (strcmp (again->path, m->path) == 0, "'%s'", line);
  FUZZ_CHECK (strcmp (again->source, m->source) == 0, "'%s'", line);
  FUZZ_CHECK (strcmp (again->flags, m->flags) == 0, "'%s'", line);
  FUZZ_CHECK (again->page_size == m->page_size, "'%s'", line);
  FUZZ_CHECK (again->uid == m->uid && again->gid == m->gid && again->mode == m->mode, "'%s'", line);
  FUZZ_CHECK (again->has_size == m->has_size && (!m->has_size || again->size == m->size),
              "'%s'", line);
  FUZZ_CHECK (again->has_min_size == m->has_min_size &&
              (!m->has_min_size || again->min_size == m->min_size), "'%s'", line);
  FUZZ_CHECK (again->has_nr_inodes == m->has_nr_inodes &&
              (!m->has_nr_inodes || again->nr_inodes == m->nr_inodes), "'%s'", line);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = fuzz_cstring (data, size);
  g_autofree char *unescaped = hpd_mountinfo_unescape (text);
  g_autoptr(GPtrArray) mounts = hpd_mountinfo_parse_hugetlbfs (text);
  g_autoptr(HpdMountInfo) single = hpd_mountinfo_parse_line (text);
  guint lines = 1;

  if (unescaped != NULL)
    {
      g_autofree char *escaped = escape (unescaped);
      g_autofree char *back = hpd_mountinfo_unescape (escaped);

      FUZZ_CHECK (strlen (unescaped) <= strlen (text), "unescaping made it longer");
      FUZZ_CHECK (back != NULL && strcmp (back, unescaped) == 0, "'%s'", escaped);
    }

  for (const char *p = text; *p != '\0'; p++)
    lines += *p == '\n';
  FUZZ_CHECK (mounts->len <= lines, "%u mounts in %u lines", mounts->len, lines);
  for (guint i = 0; i < mounts->len; i++)
    check_mount (g_ptr_array_index (mounts, i));
  if (single != NULL)
    check_mount (single);
  return 0;
}
