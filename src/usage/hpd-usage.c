/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* GetUsage's scan: its steps in order, what nobody accounts for, and
 * the reply. */

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

GVariant *
hpd_usage_unattributed_variant (Scan *s, ProcScan *ps)
{
  const HpdUsageScan *scan = s->scan;
  GVariantBuilder b;

  g_variant_builder_init (&b, G_VARIANT_TYPE ("aa{sv}"));
  for (guint i = 0; i < scan->page_sizes->len; i++)
    {
      guint64 size = g_array_index (scan->page_sizes, guint64, i);
      g_autofree char *dir = g_strdup_printf ("sys/kernel/mm/hugepages/hugepages-%" G_GUINT64_FORMAT "kB",
                                              size / 1024);
      g_autofree char *nr_file = g_build_filename (dir, "nr_hugepages", NULL);
      g_autofree char *free_file = g_build_filename (dir, "free_hugepages", NULL);
      g_autofree char *resv_file = g_build_filename (dir, "resv_hugepages", NULL);
      g_autofree char *surplus_file = g_build_filename (dir, "surplus_hugepages", NULL);
      guint64 total, free_pages, resv, surplus, in_use;
      guint64 bytes = 0, reserved_bytes = 0, attributed, reserved_attributed;
      guint64 *counter;
      GHashTableIter iter;
      gpointer value;
      GVariantBuilder e;

      if (!hpd_kernel_read_counter (scan->kernel, nr_file, &total, NULL) ||
          !hpd_kernel_read_counter (scan->kernel, free_file, &free_pages, NULL) ||
          !hpd_kernel_read_counter (scan->kernel, resv_file, &resv, NULL) ||
          !hpd_kernel_read_counter (scan->kernel, surplus_file, &surplus, NULL))
        continue;
      in_use = total > free_pages ? total - free_pages : 0;

      for (guint f = 0; f < s->files->len; f++)
        {
          const UsageFile *file = g_ptr_array_index (s->files, f);
          if (file->mount->page_size == size)
            bytes += file->bytes;
        }
      g_hash_table_iter_init (&iter, ps->objects);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        {
          const SharedObject *obj = value;
          if (obj->page_size == size)
            {
              bytes += obj->bytes;
              reserved_bytes += obj->reserved_bytes;
            }
        }
      if ((counter = g_hash_table_lookup (ps->private_bytes, &size)) != NULL)
        bytes += *counter;
      if ((counter = g_hash_table_lookup (ps->reserved_bytes, &size)) != NULL)
        reserved_bytes += *counter;
      for (guint m = 0; m < s->mounts->len; m++)
        {
          const UsageMount *mount = g_ptr_array_index (s->mounts, m);
          if (mount->page_size == size)
            reserved_bytes += mount->min_size;
        }

      attributed = bytes / size;
      reserved_attributed = MIN (resv, reserved_bytes / size);
      g_variant_builder_init (&e, G_VARIANT_TYPE_VARDICT);
      g_variant_builder_add (&e, "{sv}", "page-size", g_variant_new_uint64 (size));
      g_variant_builder_add (&e, "{sv}", "total", g_variant_new_uint64 (total));
      g_variant_builder_add (&e, "{sv}", "free", g_variant_new_uint64 (free_pages));
      g_variant_builder_add (&e, "{sv}", "surplus", g_variant_new_uint64 (surplus));
      g_variant_builder_add (&e, "{sv}", "in-use", g_variant_new_uint64 (in_use));
      g_variant_builder_add (&e, "{sv}", "in-use-attributed", g_variant_new_uint64 (MIN (attributed, in_use)));
      g_variant_builder_add (&e, "{sv}", "in-use-unattributed",
                             g_variant_new_uint64 (in_use > attributed ? in_use - attributed : 0));
      g_variant_builder_add (&e, "{sv}", "reserved", g_variant_new_uint64 (resv));
      g_variant_builder_add (&e, "{sv}", "reserved-attributed", g_variant_new_uint64 (reserved_attributed));
      g_variant_builder_add (&e, "{sv}", "reserved-unattributed",
                             g_variant_new_uint64 (resv - reserved_attributed));
      g_variant_builder_add (&b, "a{sv}", &e);
    }
  return g_variant_builder_end (&b);
}

static GVariant *
processes_variant (ProcScan *ps)
{
  GVariantBuilder b;

  g_variant_builder_init (&b, G_VARIANT_TYPE ("aa{sv}"));
  for (guint i = 0; i < ps->processes->len; i++)
    {
      const UsageProcess *p = g_ptr_array_index (ps->processes, i);
      g_autofree char *user = hpd_usage_user_name (p->uid);
      GVariantBuilder e, sizes;

      g_variant_builder_init (&sizes, G_VARIANT_TYPE ("aa{sv}"));
      for (guint j = 0; j < p->sizes->len; j++)
        {
          const SizeUse *u = &g_array_index (p->sizes, SizeUse, j);
          GVariantBuilder s;

          if (u->page_size == 0)
            continue;
          g_variant_builder_init (&s, G_VARIANT_TYPE_VARDICT);
          g_variant_builder_add (&s, "{sv}", "page-size", g_variant_new_uint64 (u->page_size));
          g_variant_builder_add (&s, "{sv}", "shared", g_variant_new_uint64 (u->shared / u->page_size));
          g_variant_builder_add (&s, "{sv}", "private", g_variant_new_uint64 (u->private_ / u->page_size));
          g_variant_builder_add (&sizes, "a{sv}", &s);
        }
      g_variant_builder_init (&e, G_VARIANT_TYPE_VARDICT);
      g_variant_builder_add (&e, "{sv}", "pid", g_variant_new_uint32 (p->pid));
      g_variant_builder_add (&e, "{sv}", "command", g_variant_new_string (p->command));
      g_variant_builder_add (&e, "{sv}", "cmdline", g_variant_new_string (p->cmdline ? p->cmdline : ""));
      g_variant_builder_add (&e, "{sv}", "uid", g_variant_new_uint32 (p->uid));
      g_variant_builder_add (&e, "{sv}", "user", g_variant_new_string (user));
      g_variant_builder_add (&e, "{sv}", "hugetlb", g_variant_builder_end (&sizes));
      g_variant_builder_add (&b, "a{sv}", &e);
    }
  return g_variant_builder_end (&b);
}

static GVariant *
files_variant (Scan *s, GHashTable *visible_pids)
{
  const HpdUsageScan *scan = s->scan;
  GVariantBuilder b;

  g_variant_builder_init (&b, G_VARIANT_TYPE ("aa{sv}"));
  for (guint i = 0; i < s->files->len; i++)
    {
      const UsageFile *f = g_ptr_array_index (s->files, i);
      g_autofree char *path = NULL, *user = NULL;
      GVariantBuilder e;

      if (scan->restricted && f->uid != scan->caller_uid)
        continue;
      path = hpd_usage_bus_text (f->path);
      user = hpd_usage_user_name (f->uid);
      g_variant_builder_init (&e, G_VARIANT_TYPE_VARDICT);
      g_variant_builder_add (&e, "{sv}", "path", g_variant_new_string (path));
      g_variant_builder_add (&e, "{sv}", "mount", g_variant_new_string (f->mount->path));
      g_variant_builder_add (&e, "{sv}", "size", g_variant_new_uint64 (f->size));
      g_variant_builder_add (&e, "{sv}", "page-size", g_variant_new_uint64 (f->mount->page_size));
      g_variant_builder_add (&e, "{sv}", "pages",
                             g_variant_new_uint64 (f->mount->page_size ? f->bytes / f->mount->page_size : 0));
      g_variant_builder_add (&e, "{sv}", "uid", g_variant_new_uint32 (f->uid));
      g_variant_builder_add (&e, "{sv}", "user", g_variant_new_string (user));
      g_variant_builder_add (&e, "{sv}", "gid", g_variant_new_uint32 (f->gid));
      g_variant_builder_add (&e, "{sv}", "mapped", g_variant_new_boolean (f->pids->len > 0));
      g_variant_builder_add (&e, "{sv}", "pids", hpd_usage_pids_variant (f->pids, visible_pids));
      g_variant_builder_add (&b, "a{sv}", &e);
    }
  return g_variant_builder_end (&b);
}

void
hpd_usage_scan_free (HpdUsageScan *scan)
{
  if (scan == NULL)
    return;
  g_clear_object (&scan->kernel);
  g_clear_pointer (&scan->page_sizes, g_array_unref);
  g_free (scan);
}

static void
scan_init (Scan *s, const HpdUsageScan *scan, GCancellable *cancellable)
{
  s->scan = scan;
  s->cancellable = cancellable;
  s->mounts = g_ptr_array_new_with_free_func ((GDestroyNotify) hpd_usage_mount_free);
  s->mount_devs = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  s->walked = g_hash_table_new_full (hpd_usage_inode_key_hash, hpd_usage_inode_key_equal, g_free, NULL);
  s->mount_devs_are_hugetlbfs = g_str_equal (hpd_kernel_get_root (scan->kernel), "/");
  s->files = g_ptr_array_new_with_free_func ((GDestroyNotify) hpd_usage_file_free);
  s->file_inodes = g_hash_table_new_full (hpd_usage_inode_key_hash, hpd_usage_inode_key_equal, g_free, NULL);
  s->warnings = g_ptr_array_new_null_terminated (0, g_free, TRUE);
}

static void
scan_clear (Scan *s)
{
  g_clear_pointer (&s->file_inodes, g_hash_table_unref);
  g_clear_pointer (&s->files, g_ptr_array_unref);
  g_clear_pointer (&s->mount_devs, g_hash_table_unref);
  g_clear_pointer (&s->walked, g_hash_table_unref);
  g_clear_pointer (&s->mounts, g_ptr_array_unref);
  g_clear_pointer (&s->warnings, g_ptr_array_unref);
}

GVariant *
hpd_usage_scan_run (const HpdUsageScan *scan, GCancellable *cancellable)
{
  Scan s = { 0, };
  ProcScan ps = { 0, };
  GVariantBuilder reply, truncated;
  g_autoptr(GHashTable) visible_pids = NULL;

  scan_init (&s, scan, cancellable);
  ps.scan = &s;
  ps.processes = g_ptr_array_new_with_free_func ((GDestroyNotify) hpd_usage_process_free);
  ps.segments = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                       (GDestroyNotify) hpd_usage_seen_segment_free);
  ps.objects = g_hash_table_new_full (hpd_usage_inode_key_hash, hpd_usage_inode_key_equal, g_free, g_free);
  ps.private_bytes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  ps.reserved_bytes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);

  hpd_usage_read_mounts (&s, TRUE);
  hpd_usage_scan_processes (&ps);

  /* a restricted caller sees its own processes among the pids, no others */
  if (scan->restricted)
    {
      visible_pids = g_hash_table_new (g_direct_hash, g_direct_equal);
      for (guint i = 0; i < ps.processes->len; i++)
        g_hash_table_add (visible_pids,
                          GUINT_TO_POINTER (((UsageProcess *) g_ptr_array_index (ps.processes, i))->pid));
    }

  g_variant_builder_init (&reply, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&reply, "{sv}", "restricted", g_variant_new_boolean (scan->restricted));
  if (scan->restricted)
    g_variant_builder_add (&reply, "{sv}", "uid", g_variant_new_uint32 (scan->caller_uid));
  g_variant_builder_add (&reply, "{sv}", "processes", processes_variant (&ps));
  g_variant_builder_add (&reply, "{sv}", "files", files_variant (&s, visible_pids));
  g_variant_builder_add (&reply, "{sv}", "sysv", hpd_usage_sysv_variant (&s, ps.segments, visible_pids));
  g_variant_builder_add (&reply, "{sv}", "cgroups", hpd_usage_cgroups_variant (&s));
  /* the rest of the pool is everybody else's business: full view only */
  if (!scan->restricted)
    g_variant_builder_add (&reply, "{sv}", "unattributed", hpd_usage_unattributed_variant (&s, &ps));
  g_variant_builder_add (&reply, "{sv}", "scanned-processes", g_variant_new_uint32 (s.scanned_processes));
  g_variant_builder_add (&reply, "{sv}", "unreadable-processes",
                         g_variant_new_uint32 (s.unreadable_processes));
  g_variant_builder_init (&truncated, G_VARIANT_TYPE ("as"));
  if (s.processes_truncated)
    g_variant_builder_add (&truncated, "s", "processes");
  if (s.files_truncated)
    g_variant_builder_add (&truncated, "s", "files");
  if (s.cgroups_truncated)
    g_variant_builder_add (&truncated, "s", "cgroups");
  if (s.timed_out)
    g_variant_builder_add (&truncated, "s", "time");
  g_variant_builder_add (&reply, "{sv}", "truncated", g_variant_builder_end (&truncated));
  {
    g_auto(GStrv) warnings = (GStrv) g_ptr_array_free (g_steal_pointer (&s.warnings), FALSE);
    g_autoptr(GPtrArray) shown = g_ptr_array_new_null_terminated (0, g_free, TRUE);

    for (guint i = 0; warnings[i] != NULL; i++)
      g_ptr_array_add (shown, hpd_usage_bus_text (warnings[i]));
    g_variant_builder_add (&reply, "{sv}", "warnings",
                           g_variant_new_strv ((const char *const *) shown->pdata, shown->len));
  }

  g_ptr_array_unref (ps.processes);
  g_hash_table_unref (ps.segments);
  g_hash_table_unref (ps.objects);
  g_hash_table_unref (ps.private_bytes);
  g_hash_table_unref (ps.reserved_bytes);
  scan_clear (&s);
  return g_variant_new_tuple ((GVariant *[]) { g_variant_builder_end (&reply) }, 1);
}
