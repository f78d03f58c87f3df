/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* GetUsage's SysV shared memory segments. */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "hp-error.h"
#include "hp-units.h"
#include "hpd-mounts.h"
#include "hpd-parse.h"
#include "hpd-usage-parse.h"
#include "hpd-usage.h"
#include "hpd-usage-private.h"

static const char *
segment_backing (const HpdShmSegment *seg, const SeenSegment *seen)
{
  if (seen != NULL && seen->page_size != 0)
    return "hugetlb";
  if (seen != NULL)
    return NULL;   /* attached with base pages: not ours to list */
  /* Nothing marks an unattached segment as hugetlb (reference/kernel.md
   * 7). Since about 6.7 the kernel multiplies a hugetlb segment's rss by
   * the pages per huge page, so only a hugetlb segment shows more rss
   * than its size; short of attaching it, that is all there is. */
  if (seg->nattch == 0 && seg->has_rss && seg->rss > seg->size)
    return "probably-hugetlb";
  return "unknown";
}

GVariant *
hpd_usage_pids_variant (GArray *pids, GHashTable *visible)
{
  GVariantBuilder b;

  g_variant_builder_init (&b, G_VARIANT_TYPE ("au"));
  for (guint i = 0; pids != NULL && i < pids->len; i++)
    {
      guint32 pid = g_array_index (pids, guint32, i);
      if (visible == NULL || g_hash_table_contains (visible, GUINT_TO_POINTER (pid)))
        g_variant_builder_add (&b, "u", pid);
    }
  return g_variant_builder_end (&b);
}

GVariant *
hpd_usage_sysv_variant (Scan *s, GHashTable *segments, GHashTable *visible_pids)
{
  const HpdUsageScan *scan = s->scan;
  g_autofree char *text = NULL;
  g_autoptr(GArray) rows = NULL;
  g_autoptr(GError) error = NULL;
  GVariantBuilder b;

  g_variant_builder_init (&b, G_VARIANT_TYPE ("aa{sv}"));
  if (!hpd_kernel_read_text (scan->kernel, "proc/sysvipc/shm", &text, &error) ||
      (rows = hpd_usage_parse_sysvipc_shm (text, &error)) == NULL)
    {
      /* a kernel without SysV IPC has no such file: nothing to list */
      if (!g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        g_ptr_array_add (s->warnings, g_strdup_printf ("/proc/sysvipc/shm: %s", error->message));
      return g_variant_builder_end (&b);
    }

  for (guint i = 0; i < rows->len; i++)
    {
      const HpdShmSegment *seg = &g_array_index (rows, HpdShmSegment, i);
      const SeenSegment *seen = g_hash_table_lookup (segments, &(guint64) { seg->shmid });
      const char *backing = segment_backing (seg, seen);
      g_autofree char *user = NULL;
      GVariantBuilder e;

      if (backing == NULL)
        continue;
      if (scan->restricted && seg->uid != scan->caller_uid && seg->cuid != scan->caller_uid)
        continue;
      user = hpd_usage_user_name (seg->uid);
      g_variant_builder_init (&e, G_VARIANT_TYPE_VARDICT);
      g_variant_builder_add (&e, "{sv}", "key", g_variant_new_int32 (seg->key));
      g_variant_builder_add (&e, "{sv}", "id", g_variant_new_uint32 (seg->shmid));
      g_variant_builder_add (&e, "{sv}", "uid", g_variant_new_uint32 (seg->uid));
      g_variant_builder_add (&e, "{sv}", "user", g_variant_new_string (user));
      g_variant_builder_add (&e, "{sv}", "gid", g_variant_new_uint32 (seg->gid));
      g_variant_builder_add (&e, "{sv}", "creator-uid", g_variant_new_uint32 (seg->cuid));
      g_variant_builder_add (&e, "{sv}", "mode", g_variant_new_uint32 (seg->perms & 0777));
      g_variant_builder_add (&e, "{sv}", "size", g_variant_new_uint64 (seg->size));
      g_variant_builder_add (&e, "{sv}", "nattch", g_variant_new_uint64 (seg->nattch));
      g_variant_builder_add (&e, "{sv}", "creator-pid", g_variant_new_uint32 (seg->cpid));
      g_variant_builder_add (&e, "{sv}", "last-pid", g_variant_new_uint32 (seg->lpid));
      g_variant_builder_add (&e, "{sv}", "backing", g_variant_new_string (backing));
      g_variant_builder_add (&e, "{sv}", "page-size",
                             g_variant_new_uint64 (seen != NULL ? seen->page_size : 0));
      if (seen != NULL && seen->page_size != 0)
        g_variant_builder_add (&e, "{sv}", "pages",
                               g_variant_new_uint64 (seen->bytes / seen->page_size));
      g_variant_builder_add (&e, "{sv}", "pids",
                             hpd_usage_pids_variant (seen != NULL ? seen->pids : NULL, visible_pids));
      g_variant_builder_add (&b, "a{sv}", &e);
    }
  return g_variant_builder_end (&b);
}
