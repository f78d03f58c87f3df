/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* GetUsage's processes: their hugetlb mappings, shared objects and SysV
 * attachments. */

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

void
hpd_usage_process_free (UsageProcess *p)
{
  g_free (p->command);
  g_free (p->cmdline);
  g_array_unref (p->sizes);
  g_free (p);
}

void
hpd_usage_seen_segment_free (SeenSegment *seg)
{
  g_array_unref (seg->pids);
  g_free (seg);
}

static void
add_size_use (GArray *sizes, guint64 page_size, guint64 shared, guint64 private_)
{
  for (guint i = 0; i < sizes->len; i++)
    {
      SizeUse *u = &g_array_index (sizes, SizeUse, i);
      if (u->page_size == page_size)
        {
          u->shared += shared;
          u->private_ += private_;
          return;
        }
    }
  g_array_append_val (sizes, ((SizeUse) { page_size, shared, private_ }));
}

static guint64 *
counter_for (GHashTable *table, guint64 page_size)
{
  guint64 *value = g_hash_table_lookup (table, &page_size);

  if (value == NULL)
    {
      value = g_new0 (guint64, 1);
      g_hash_table_insert (table, g_memdup2 (&page_size, sizeof page_size), value);
    }
  return value;
}

static gboolean
on_hugetlbfs_mount (Scan *s, const HpdMapping *m)
{
  return s->mount_devs_are_hugetlbfs &&
         g_hash_table_contains (s->mount_devs, &(guint64) { hpd_usage_dev_key (m->dev_major, m->dev_minor) });
}

static gboolean
is_deleted_name (const char *path)
{
  return path != NULL && g_str_has_suffix (path, " (deleted)");
}

/* The pages of one hugetlb mapping: whose they are for the unattributed
 * figures (a file's, a segment's, a shared object's, or the process's
 * own private copies). */
static void
account_mapping (ProcScan *ps, const HpdMapping *m, guint32 pid, gboolean noreserve)
{
  guint64 bytes = m->shared_hugetlb + m->private_hugetlb;
  guint64 extent = m->end - m->start;
  gint32 key;

  (void) pid;
  if (g_hash_table_contains (ps->scan->file_inodes,
                             &(guint64[2]) { hpd_usage_dev_key (m->dev_major, m->dev_minor), m->inode }))
    return;   /* counted through the file's blocks */

  if (m->inode != 0 && (hpd_usage_parse_sysv_name (m->path, &key) || is_deleted_name (m->path) ||
                        on_hugetlbfs_mount (ps->scan, m)))
    {
      guint64 k[2] = { hpd_usage_dev_key (m->dev_major, m->dev_minor), m->inode };
      SharedObject *obj = g_hash_table_lookup (ps->objects, k);

      if (obj == NULL)
        {
          obj = g_new0 (SharedObject, 1);
          obj->page_size = m->kernel_page_size;
          g_hash_table_insert (ps->objects, hpd_usage_inode_key_new (k[0], k[1]), obj);
        }
      obj->bytes = MAX (obj->bytes, bytes);
      if (!noreserve && extent > bytes)
        obj->reserved_bytes = MAX (obj->reserved_bytes, extent - bytes);
      return;
    }

  /* private mappings: each process's copies are its own */
  *counter_for (ps->private_bytes, m->kernel_page_size) += bytes;
  if (!noreserve && extent > bytes)
    *counter_for (ps->reserved_bytes, m->kernel_page_size) += extent - bytes;
}

static void
note_segment (ProcScan *ps, const HpdMapping *m, gint32 key, guint32 pid, guint64 base_page_size)
{
  SeenSegment *seg = g_hash_table_lookup (ps->segments, &(guint64) { m->inode });

  if (seg == NULL)
    {
      seg = g_new0 (SeenSegment, 1);
      seg->key = key;
      seg->ino = m->inode;
      seg->pids = g_array_new (FALSE, FALSE, sizeof (guint32));
      g_hash_table_insert (ps->segments, g_memdup2 (&m->inode, sizeof m->inode), seg);
    }
  if (m->kernel_page_size > base_page_size)
    seg->page_size = m->kernel_page_size;
  seg->bytes = MAX (seg->bytes, m->shared_hugetlb + m->private_hugetlb);
  for (guint i = 0; i < seg->pids->len; i++)
    if (g_array_index (seg->pids, guint32, i) == pid)
      return;
  g_array_append_val (seg->pids, pid);
}

static gboolean
is_hugetlb_mapping (const HpdMapping *m, guint64 base_page_size)
{
  return m->hugetlb_flag || m->kernel_page_size > base_page_size ||
         m->shared_hugetlb + m->private_hugetlb > 0;
}

/* The VmFlags "nr" (VM_NORESERVE) is not kept by the parser; a mapping
 * without reservation shows it. Read it from the text when needed. */
static GHashTable *
noreserve_starts (const char *smaps)
{
  GHashTable *starts = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(GString) line = g_string_new (NULL);
  const char *cursor = smaps;
  const char *end = smaps + strlen (smaps);
  guint64 start = 0;

  while (hpd_usage_next_line (&cursor, end, line))
    {
      if (g_ascii_isxdigit (line->str[0]) && strchr (line->str, '-') != NULL)
        start = g_ascii_strtoull (line->str, NULL, 16);
      else if (g_str_has_prefix (line->str, "VmFlags:"))
        {
          g_auto(GStrv) flags = g_strsplit (line->str + 8, " ", -1);
          if (g_strv_contains ((const char *const *) flags, "nr"))
            g_hash_table_add (starts, g_memdup2 (&start, sizeof start));
        }
    }
  return starts;
}

static void
scan_process (ProcScan *ps, int proc_fd, const char *name, guint32 pid)
{
  Scan *s = ps->scan;
  const HpdUsageScan *scan = s->scan;
  guint64 base_page_size = (guint64) sysconf (_SC_PAGESIZE);
  g_autofree char *status = NULL, *maps = NULL, *rollup_text = NULL, *smaps = NULL;
  g_autoptr(GArray) mappings = NULL;
  g_autoptr(GError) error = NULL;
  guint32 ruid = 0, euid = 0;
  gboolean owned, reported, needs_smaps = FALSE, any_hugetlb = FALSE;
  int pid_fd, err;

  pid_fd = openat (proc_fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (pid_fd < 0)
    {
      if (!hpd_usage_vanished (errno))
        s->unreadable_processes++;
      return;
    }

  err = hpd_usage_read_at (pid_fd, "status", MAX_SMALL_FILE_BYTES, &status);
  if (err == 0 && !hpd_usage_parse_status_uids (status, &ruid, &euid))
    err = EINVAL;
  if (err == 0)
    err = hpd_usage_read_at (pid_fd, "maps", MAX_PROC_FILE_BYTES, &maps);
  if (err == 0 && (mappings = hpd_usage_parse_smaps (maps, &error)) == NULL)
    err = EINVAL;
  if (err != 0)
    {
      if (!hpd_usage_vanished (err))
        s->unreadable_processes++;
      close (pid_fd);
      return;
    }
  s->scanned_processes++;

  owned = ruid == scan->caller_uid && euid == scan->caller_uid;
  reported = !scan->restricted || owned;

  /* Which files and segments it maps, from maps (cheap): a mapping of a
   * file without faulted pages does not show in the rollup. */
  for (guint i = 0; i < mappings->len; i++)
    {
      const HpdMapping *m = &g_array_index (mappings, HpdMapping, i);
      guint64 k[2] = { hpd_usage_dev_key (m->dev_major, m->dev_minor), m->inode };
      UsageFile *f = g_hash_table_lookup (s->file_inodes, k);
      gint32 key;

      if (f != NULL)
        {
          any_hugetlb = TRUE;
          if (f->pids->len == 0 || g_array_index (f->pids, guint32, f->pids->len - 1) != pid)
            g_array_append_val (f->pids, pid);
        }
      if (hpd_usage_parse_sysv_name (m->path, &key))
        needs_smaps = TRUE;   /* hugetlb or not: only smaps says */
      if (g_strcmp0 (m->path, "/anon_hugepage (deleted)") == 0 || on_hugetlbfs_mount (s, m))
        any_hugetlb = TRUE;
    }

  /* others' processes in a restricted view: only their SysV mappings
   * matter (whether a caller's segment is hugetlb) */
  if (reported)
    {
      g_autoptr(GArray) rollup = NULL;

      err = hpd_usage_read_at (pid_fd, "smaps_rollup", MAX_SMALL_FILE_BYTES, &rollup_text);
      if (err == 0 && (rollup = hpd_usage_parse_smaps (rollup_text, NULL)) != NULL)
        {
          for (guint i = 0; i < rollup->len; i++)
            if (g_array_index (rollup, HpdMapping, i).shared_hugetlb +
                g_array_index (rollup, HpdMapping, i).private_hugetlb > 0)
              needs_smaps = any_hugetlb = TRUE;
        }
      /* without a rollup (before 4.14) only smaps can tell */
      else if (err == ENOENT)
        needs_smaps = TRUE;
      if (any_hugetlb)
        needs_smaps = TRUE;
    }

  if (needs_smaps)
    {
      g_autoptr(GArray) vmas = NULL;
      g_autoptr(GHashTable) noreserve = NULL;
      g_autoptr(GArray) sizes = g_array_new (FALSE, FALSE, sizeof (SizeUse));

      err = hpd_usage_read_at (pid_fd, "smaps", MAX_PROC_FILE_BYTES, &smaps);
      if (err == 0)
        vmas = hpd_usage_parse_smaps (smaps, NULL);
      if (vmas == NULL)
        {
          if (!hpd_usage_vanished (err))
            s->unreadable_processes++;
          close (pid_fd);
          return;
        }
      noreserve = noreserve_starts (smaps);

      for (guint i = 0; i < vmas->len; i++)
        {
          const HpdMapping *m = &g_array_index (vmas, HpdMapping, i);
          gint32 key;

          if (hpd_usage_parse_sysv_name (m->path, &key))
            note_segment (ps, m, key, pid, base_page_size);
          if (!is_hugetlb_mapping (m, base_page_size))
            continue;
          any_hugetlb = TRUE;
          add_size_use (sizes, m->kernel_page_size, m->shared_hugetlb, m->private_hugetlb);
          account_mapping (ps, m, pid, g_hash_table_contains (noreserve, &m->start));
        }

      if (reported && any_hugetlb)
        {
          UsageProcess *p = g_new0 (UsageProcess, 1);
          g_autofree char *comm = NULL;

          p->pid = pid;
          p->uid = ruid;
          p->sizes = g_steal_pointer (&sizes);
          if (hpd_usage_read_at (pid_fd, "comm", MAX_SMALL_FILE_BYTES, &comm) == 0)
            p->command = hpd_usage_bus_text (g_strchomp (comm));
          else
            p->command = g_strdup ("");
          g_ptr_array_add (ps->processes, p);
        }
    }
  close (pid_fd);
}

static char *
read_cmdline (int proc_fd, guint32 pid)
{
  g_autofree char *rel = g_strdup_printf ("%u/cmdline", pid);
  int fd = openat (proc_fd, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  char buf[4096];
  ssize_t n;
  g_autofree char *text = NULL;

  if (fd < 0)
    return g_strdup ("");
  n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n <= 0)
    return g_strdup ("");
  /* arguments are NUL-separated: show them separated by spaces */
  for (ssize_t i = 0; i < n; i++)
    if (buf[i] == '\0')
      buf[i] = ' ';
  buf[n] = '\0';
  g_strchomp (buf);
  text = hpd_parse_printable (buf);
  if (g_utf8_strlen (text, -1) > MAX_CMDLINE_CHARS)
    {
      char *cut = g_utf8_offset_to_pointer (text, MAX_CMDLINE_CHARS);
      *cut = '\0';
      return g_strconcat (text, "…", NULL);
    }
  return g_steal_pointer (&text);
}

int
hpd_usage_compare_pids (gconstpointer a, gconstpointer b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;

  return x < y ? -1 : x > y;
}

void
hpd_usage_scan_processes (ProcScan *ps)
{
  Scan *s = ps->scan;
  g_autofree char *proc = hpd_kernel_path (s->scan->kernel, "proc");
  g_autoptr(GArray) pids = g_array_new (FALSE, FALSE, sizeof (guint32));
  int proc_fd = open (proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *dir;
  struct dirent *entry;

  if (proc_fd < 0)
    {
      g_ptr_array_add (s->warnings, g_strdup_printf ("Cannot open %s: %s", proc, g_strerror (errno)));
      return;
    }
  dir = fdopendir (dup (proc_fd));
  if (dir == NULL)
    {
      close (proc_fd);
      return;
    }
  while ((entry = readdir (dir)) != NULL)
    {
      guint64 pid;

      if (!g_ascii_isdigit (entry->d_name[0]) || !hp_parse_u64 (entry->d_name, &pid, NULL) ||
          pid == 0 || pid > G_MAXINT32)
        continue;
      if (pids->len >= MAX_PROCESSES)
        {
          s->processes_truncated = TRUE;
          break;
        }
      g_array_append_val (pids, (guint32) { (guint32) pid });
    }
  closedir (dir);
  g_array_sort (pids, hpd_usage_compare_pids);

  for (guint i = 0; i < pids->len; i++)
    {
      guint32 pid = g_array_index (pids, guint32, i);
      char name[16];

      if (hpd_usage_out_of_time (s))
        {
          s->processes_truncated = TRUE;
          break;
        }
      g_snprintf (name, sizeof name, "%u", pid);
      scan_process (ps, proc_fd, name, pid);
    }

  for (guint i = 0; i < ps->processes->len; i++)
    {
      UsageProcess *p = g_ptr_array_index (ps->processes, i);
      g_free (p->cmdline);
      p->cmdline = read_cmdline (proc_fd, p->pid);
    }
  close (proc_fd);
}
