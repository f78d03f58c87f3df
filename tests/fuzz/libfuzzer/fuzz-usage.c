/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The text GetUsage reads (src/usage/hpd-usage-parse.c): maps, smaps and
 * smaps_rollup, the Uid line of status, SysV mapping names,
 * /proc/sysvipc/shm and the hugetlb cgroup files. The first byte picks the
 * parser. Every mapping parsed is printed back in the kernel's maps format
 * and must parse to the same values; sizes are whole kB; shm rows keep
 * their numbers through a round trip too. */
#include "config.h"

#include <string.h>

#include "fuzz-common.h"
#include "hpd-usage-parse.h"

static void
check_smaps (const char *text)
{
  g_autoptr(GArray) mappings = hpd_usage_parse_smaps (text, NULL);

  if (mappings == NULL)
    return;
  for (guint i = 0; i < mappings->len; i++)
    {
      const HpdMapping *m = &g_array_index (mappings, HpdMapping, i);
      g_autofree char *line = NULL;
      g_autoptr(GArray) again = NULL;
      const HpdMapping *a;

      FUZZ_CHECK (m->start <= m->end, "'%s'", text);
      FUZZ_CHECK (m->kernel_page_size % 1024 == 0 && m->shared_hugetlb % 1024 == 0 &&
                  m->private_hugetlb % 1024 == 0, "'%s'", text);
      /* a name never holds a line break, and never starts with a space */
      FUZZ_CHECK (m->path == NULL || (strchr (m->path, '\n') == NULL && m->path[0] != ' ' &&
                                      m->path[0] != '\0'), "'%s'", text);

      line = g_strdup_printf ("%08" G_GINT64_MODIFIER "x-%08" G_GINT64_MODIFIER "x rw-s 00000000 "
                              "%02x:%02x %" G_GUINT64_FORMAT "%s%s\n",
                              m->start, m->end, m->dev_major, m->dev_minor, m->inode,
                              m->path ? "                    " : "", m->path ? m->path : "");
      again = hpd_usage_parse_smaps (line, NULL);
      FUZZ_CHECK (again != NULL && again->len == 1, "'%s'", line);
      a = &g_array_index (again, HpdMapping, 0);
      FUZZ_CHECK (a->start == m->start && a->end == m->end && a->dev_major == m->dev_major &&
                  a->dev_minor == m->dev_minor && a->inode == m->inode &&
                  g_strcmp0 (a->path, m->path) == 0, "'%s'", line);
    }
}

static void
check_shm (const char *text)
{
  g_autoptr(GArray) rows = hpd_usage_parse_sysvipc_shm (text, NULL);
  g_autoptr(GString) back = NULL;
  g_autoptr(GArray) again = NULL;

  if (rows == NULL)
    return;
  back = g_string_new ("key shmid perms size cpid lpid nattch uid gid cuid cgid rss\n");
  for (guint i = 0; i < rows->len; i++)
    {
      const HpdShmSegment *s = &g_array_index (rows, HpdShmSegment, i);

      FUZZ_CHECK (s->perms <= 07777777, "'%s'", text);
      g_string_append_printf (back, "%d %u %o %" G_GUINT64_FORMAT " %u %u %" G_GUINT64_FORMAT
                              " %u %u %u %u %" G_GUINT64_FORMAT "\n",
                              s->key, s->shmid, s->perms, s->size, s->cpid, s->lpid, s->nattch,
                              s->uid, s->gid, s->cuid, s->cgid, s->rss);
    }
  again = hpd_usage_parse_sysvipc_shm (back->str, NULL);
  FUZZ_CHECK (again != NULL && again->len == rows->len, "'%s'", back->str);
  for (guint i = 0; i < rows->len; i++)
    {
      const HpdShmSegment *x = &g_array_index (rows, HpdShmSegment, i);
      const HpdShmSegment *y = &g_array_index (again, HpdShmSegment, i);

      FUZZ_CHECK (x->key == y->key && x->shmid == y->shmid && x->perms == y->perms &&
                  x->size == y->size && x->cpid == y->cpid && x->lpid == y->lpid &&
                  x->nattch == y->nattch && x->uid == y->uid && x->gid == y->gid &&
                  x->cuid == y->cuid && x->cgid == y->cgid &&
                  (x->has_rss ? x->rss : 0) == y->rss && y->has_rss,
                  "row %u of '%s'", i, back->str);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = NULL;
  guint8 which;
  guint32 ruid, euid;
  gint32 key;
  guint64 value;

  if (size == 0)
    return 0;
  which = data[0] % 6;
  text = fuzz_cstring (data + 1, size - 1);

  switch (which)
    {
    case 0:
      check_smaps (text);
      break;
    case 1:
      check_shm (text);
      break;
    case 2:
      hpd_usage_parse_status_uids (text, &ruid, &euid);
      break;
    case 3:
      if (hpd_usage_parse_sysv_name (text, &key))
        {
          g_autofree char *back = g_strdup_printf ("/SYSV%08x (deleted)", (guint32) key);
          FUZZ_CHECK (g_ascii_strcasecmp (back, text) == 0, "'%s'", text);
        }
      break;
    case 4:
      if (hpd_usage_parse_cgroup_file (text, &value))
        FUZZ_CHECK (value >= 1024 && value % 1024 == 0, "'%s'", text);
      break;
    default:
      if (hpd_usage_parse_cgroup_limit (text, &value))
        FUZZ_CHECK (value < G_GUINT64_CONSTANT (9223372036854771712) || value == G_MAXUINT64, "'%s'", text);
      hpd_usage_parse_hugetlb_events (text, &value);
      break;
    }
  return 0;
}
