/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

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
#include "hpd-open.h"
#include "hpd-parse.h"
#include "hpd-usage-parse.h"
#include "hpd-usage.h"

/* Bounds of one scan: a machine with a million processes or files must
 * not keep a worker thread (and the caller) waiting for minutes, nor the
 * reply grow without end. What was cut short is named in "truncated". */
#define MAX_PROCESSES        100000
#define MAX_FILES            10000
#define MAX_FILE_DEPTH       16
#define MAX_CGROUPS          10000
#define MAX_CGROUP_DEPTH     32
#define MAX_PROC_FILE_BYTES  (64 * 1024 * 1024)
#define MAX_SMALL_FILE_BYTES (64 * 1024)
#define MAX_CMDLINE_CHARS    256

/* --- reading below the root --------------------------------------------- */

/* Reads a whole file through an open fd; errno on failure. */
static int
read_fd (int fd, gsize max, char **text)
{
  g_autoptr(GByteArray) buf = g_byte_array_new ();
  guint8 chunk[16384];

  for (;;)
    {
      ssize_t n = read (fd, chunk, sizeof chunk);

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return errno;
        }
      if (n == 0)
        break;
      if (buf->len + (gsize) n > max)
        return EFBIG;
      g_byte_array_append (buf, chunk, (guint) n);
    }
  g_byte_array_append (buf, (const guint8 *) "", 1);
  *text = (char *) g_byte_array_free (g_steal_pointer (&buf), FALSE);
  return 0;
}

static int
read_at (int dir_fd, const char *name, gsize max, char **text)
{
  int fd = openat (dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
  int result;

  if (fd < 0)
    return errno;
  result = read_fd (fd, max, text);
  close (fd);
  return result;
}

/* A process is gone (between readdir and now) when its files say so. */
static gboolean
vanished (int error_number)
{
  return error_number == ENOENT || error_number == ESRCH;
}

static char *
user_name (guint32 uid)
{
  struct passwd pw, *result = NULL;
  char buf[4096];

  if (getpwuid_r (uid, &pw, buf, sizeof buf, &result) == 0 && result != NULL &&
      g_utf8_validate (result->pw_name, -1, NULL))
    return g_strdup (result->pw_name);
  return g_strdup_printf ("%u", uid);
}

static char *
bus_text (const char *text)
{
  return hpd_parse_printable (text);
}

/* --- the hugetlbfs mounts and their files -------------------------------- */

typedef struct {
  char *path;
  guint64 page_size;
  guint64 min_size;    /* bytes the mount reserved (min_size=) */
  dev_t dev;
} UsageMount;

static void
usage_mount_free (UsageMount *m)
{
  g_free (m->path);
  g_free (m);
}

typedef struct {
  char *path;
  UsageMount *mount;   /* not owned */
  guint64 size;
  guint64 bytes;       /* huge pages the file holds (st_blocks) */
  guint64 dev;
  guint64 ino;
  guint32 uid;
  guint32 gid;
  GArray *pids;        /* guint32: processes that map it */
} UsageFile;

static void
usage_file_free (UsageFile *f)
{
  g_free (f->path);
  g_array_unref (f->pids);
  g_free (f);
}

static guint64
dev_key (guint32 major_number, guint32 minor_number)
{
  return ((guint64) major_number << 32) | minor_number;
}

static guint64
dev_key_of (dev_t dev)
{
  return dev_key (major (dev), minor (dev));
}

static guint64 *
inode_key_new (guint64 dev, guint64 ino)
{
  guint64 *key = g_new (guint64, 2);

  key[0] = dev;
  key[1] = ino;
  return key;
}

static guint
inode_key_hash (gconstpointer p)
{
  const guint64 *k = p;

  return g_int64_hash (&k[0]) * 31 + g_int64_hash (&k[1]);
}

static gboolean
inode_key_equal (gconstpointer a, gconstpointer b)
{
  const guint64 *x = a, *y = b;

  return x[0] == y[0] && x[1] == y[1];
}

/* Opens @path (absolute) without following a link (hpd-open.h). */
static int
open_no_links (const char *path, int flags, GError **error)
{
  int fd = hpd_open_no_links (path, flags);
  int saved_errno = errno;

  if (fd < 0)
    g_set_error (error, HP_ERROR, HP_ERROR_NOT_MOUNTED,
                 "Cannot open %s without following links: %s", path, g_strerror (saved_errno));
  return fd;
}

/* On the real kernel a mount must be hugetlbfs; under a fake root (tests,
 * simulations) its directory is a plain one, which must then lie inside
 * the fake tree, so that a made-up mount table can never point the walk
 * (or RemoveOrphan) at the host's files. */
static gboolean
mount_is_usable (HpdKernel *kernel, const char *path, int fd)
{
  const char *root = hpd_kernel_get_root (kernel);
  struct statfs sfs;

  if (g_str_equal (root, "/"))
    return fstatfs (fd, &sfs) == 0 && sfs.f_type == HUGETLBFS_MAGIC;
  return g_str_has_prefix (path, root) && path[strlen (root)] == '/';
}

static gboolean
path_is_below_root (HpdKernel *kernel, const char *path)
{
  const char *root = hpd_kernel_get_root (kernel);

  return g_str_equal (root, "/") || (g_str_has_prefix (path, root) && path[strlen (root)] == '/');
}

typedef struct {
  const HpdUsageScan *scan;
  GCancellable *cancellable;
  GPtrArray *mounts;        /* UsageMount */
  GHashTable *mount_devs;   /* dev key -> UsageMount */
  GHashTable *walked;       /* inode keys of the mount roots walked */
  /* Whether a mapping on a mount's device is a hugetlbfs file: under a
   * fake root the "mounts" share their device with everything else. */
  gboolean mount_devs_are_hugetlbfs;
  GPtrArray *files;         /* UsageFile */
  GHashTable *file_inodes;  /* inode key -> UsageFile */
  gboolean files_truncated;
  gboolean processes_truncated;
  gboolean cgroups_truncated;
  gboolean timed_out;
  GPtrArray *warnings;      /* char *: what could not be read */
  guint scanned_processes;
  guint unreadable_processes;
} Scan;

static gboolean
out_of_time (Scan *s)
{
  if (s->timed_out || g_cancellable_is_cancelled (s->cancellable) ||
      g_get_monotonic_time () > s->scan->deadline)
    {
      s->timed_out = TRUE;
      return TRUE;
    }
  return FALSE;
}

static void
walk_dir (Scan *s, UsageMount *mount, int dir_fd, const char *path, guint depth)
{
  DIR *dir = fdopendir (dir_fd);
  struct dirent *entry;

  if (dir == NULL)
    {
      close (dir_fd);
      return;
    }
  while ((entry = readdir (dir)) != NULL)
    {
      struct stat st;
      g_autofree char *child = NULL;

      if (g_str_equal (entry->d_name, ".") || g_str_equal (entry->d_name, ".."))
        continue;
      if (s->files->len >= MAX_FILES || out_of_time (s))
        {
          s->files_truncated = TRUE;
          break;
        }
      if (fstatat (dirfd (dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        continue;   /* removed meanwhile */
      /* another file system mounted inside this one is not its content */
      if (st.st_dev != mount->dev)
        continue;
      child = g_build_filename (path, entry->d_name, NULL);

      if (S_ISDIR (st.st_mode))
        {
          int child_fd;

          if (depth + 1 > MAX_FILE_DEPTH)
            {
              s->files_truncated = TRUE;
              continue;
            }
          child_fd = openat (dirfd (dir), entry->d_name,
                             O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
          if (child_fd >= 0)
            walk_dir (s, mount, child_fd, child, depth + 1);
        }
      else if (S_ISREG (st.st_mode))
        {
          UsageFile *f = g_new0 (UsageFile, 1);

          f->path = g_steal_pointer (&child);
          f->mount = mount;
          f->size = (guint64) st.st_size;
          /* hugetlbfs counts the pages in the file's page cache in
           * i_blocks (512-byte units), whatever the size says */
          f->bytes = (guint64) st.st_blocks * 512;
          f->dev = dev_key_of (st.st_dev);
          f->ino = st.st_ino;
          f->uid = st.st_uid;
          f->gid = st.st_gid;
          f->pids = g_array_new (FALSE, FALSE, sizeof (guint32));
          g_ptr_array_add (s->files, f);
          g_hash_table_insert (s->file_inodes, inode_key_new (f->dev, f->ino), f);
        }
    }
  closedir (dir);
}

static void
read_mounts (Scan *s, gboolean walk_files)
{
  HpdKernel *kernel = s->scan->kernel;
  g_autoptr(GPtrArray) infos = hpd_mounts_read (kernel, s->scan->default_page_size);

  for (guint i = 0; i < infos->len; i++)
    {
      const HpdMountInfo *info = g_ptr_array_index (infos, i);
      g_autoptr(GError) error = NULL;
      UsageMount *mount;
      struct stat st;
      int fd;

      if (!hpd_mount_path_is_valid (info->path) || !path_is_below_root (kernel, info->path))
        continue;
      fd = open_no_links (info->path, O_RDONLY | O_DIRECTORY, &error);
      if (fd < 0)
        {
          g_ptr_array_add (s->warnings, g_strdup (error->message));
          continue;
        }
      if (!mount_is_usable (kernel, info->path, fd) || fstat (fd, &st) < 0)
        {
          close (fd);
          continue;
        }

      /* One superblock can be mounted at several places: walk it once.
       * Under a fake root every "mount" is a directory of the same file
       * system, told apart by its inode. */
      {
        gboolean real = g_str_equal (hpd_kernel_get_root (kernel), "/");
        guint64 walked_key[2] = { dev_key_of (st.st_dev), real ? 0 : st.st_ino };

        if (g_hash_table_contains (s->walked, walked_key))
          {
            close (fd);
            continue;
          }
        g_hash_table_add (s->walked, inode_key_new (walked_key[0], walked_key[1]));
      }

      mount = g_new0 (UsageMount, 1);
      mount->path = g_strdup (info->path);
      mount->page_size = info->page_size;
      mount->min_size = info->has_min_size ? info->min_size : 0;
      mount->dev = st.st_dev;
      g_ptr_array_add (s->mounts, mount);
      if (!g_hash_table_contains (s->mount_devs, &(guint64) { dev_key_of (st.st_dev) }))
        g_hash_table_insert (s->mount_devs, g_memdup2 (&(guint64) { dev_key_of (st.st_dev) },
                                                       sizeof (guint64)), mount);
      if (!walk_files)
        {
          close (fd);
          continue;
        }
      walk_dir (s, mount, fd, info->path, 0);
    }
}

/* --- processes ------------------------------------------------------------ */

typedef struct {
  guint64 page_size;
  guint64 shared;    /* bytes */
  guint64 private_;  /* bytes */
} SizeUse;

typedef struct {
  guint32 pid;
  guint32 uid;
  char *command;
  char *cmdline;
  GArray *sizes;     /* SizeUse */
} UsageProcess;

static void
usage_process_free (UsageProcess *p)
{
  g_free (p->command);
  g_free (p->cmdline);
  g_array_unref (p->sizes);
  g_free (p);
}

/* What one SysV segment's attachers showed. */
typedef struct {
  gint32 key;
  guint64 ino;          /* == shmid */
  guint64 page_size;    /* 0: seen only with base pages */
  guint64 bytes;        /* largest faulted huge page memory one attacher showed */
  GArray *pids;         /* guint32 */
} SeenSegment;

static void
seen_segment_free (SeenSegment *seg)
{
  g_array_unref (seg->pids);
  g_free (seg);
}

/* A shared object other than a hugetlbfs file in a walked mount (an
 * anonymous shared mapping's inode, a memfd, a segment): its pages are
 * counted once, with the most any process showed. */
typedef struct {
  guint64 page_size;
  guint64 bytes;
  guint64 reserved_bytes;
} SharedObject;

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

typedef struct {
  Scan *scan;
  GPtrArray *processes;       /* UsageProcess, reported ones */
  GHashTable *segments;       /* shmid -> SeenSegment */
  GHashTable *objects;        /* inode key -> SharedObject */
  GHashTable *private_bytes;  /* page size -> guint64 *: private pages, summed */
  GHashTable *reserved_bytes; /* page size -> guint64 *: reservations of private VMAs */
} ProcScan;

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
         g_hash_table_contains (s->mount_devs, &(guint64) { dev_key (m->dev_major, m->dev_minor) });
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
                             &(guint64[2]) { dev_key (m->dev_major, m->dev_minor), m->inode }))
    return;   /* counted through the file's blocks */

  if (m->inode != 0 && (hpd_usage_parse_sysv_name (m->path, &key) || is_deleted_name (m->path) ||
                        on_hugetlbfs_mount (ps->scan, m)))
    {
      guint64 k[2] = { dev_key (m->dev_major, m->dev_minor), m->inode };
      SharedObject *obj = g_hash_table_lookup (ps->objects, k);

      if (obj == NULL)
        {
          obj = g_new0 (SharedObject, 1);
          obj->page_size = m->kernel_page_size;
          g_hash_table_insert (ps->objects, inode_key_new (k[0], k[1]), obj);
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
  g_auto(GStrv) lines = g_strsplit (smaps, "\n", -1);
  guint64 start = 0;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (g_ascii_isxdigit (lines[i][0]) && strchr (lines[i], '-') != NULL)
        start = g_ascii_strtoull (lines[i], NULL, 16);
      else if (g_str_has_prefix (lines[i], "VmFlags:"))
        {
          g_auto(GStrv) flags = g_strsplit (lines[i] + 8, " ", -1);
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
      if (!vanished (errno))
        s->unreadable_processes++;
      return;
    }

  err = read_at (pid_fd, "status", MAX_SMALL_FILE_BYTES, &status);
  if (err == 0 && !hpd_usage_parse_status_uids (status, &ruid, &euid))
    err = EINVAL;
  if (err == 0)
    err = read_at (pid_fd, "maps", MAX_PROC_FILE_BYTES, &maps);
  if (err == 0 && (mappings = hpd_usage_parse_smaps (maps, &error)) == NULL)
    err = EINVAL;
  if (err != 0)
    {
      if (!vanished (err))
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
      guint64 k[2] = { dev_key (m->dev_major, m->dev_minor), m->inode };
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

      err = read_at (pid_fd, "smaps_rollup", MAX_SMALL_FILE_BYTES, &rollup_text);
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

      err = read_at (pid_fd, "smaps", MAX_PROC_FILE_BYTES, &smaps);
      if (err == 0)
        vmas = hpd_usage_parse_smaps (smaps, NULL);
      if (vmas == NULL)
        {
          if (!vanished (err))
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
          if (read_at (pid_fd, "comm", MAX_SMALL_FILE_BYTES, &comm) == 0)
            p->command = bus_text (g_strchomp (comm));
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

static int
compare_pids (gconstpointer a, gconstpointer b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;

  return x < y ? -1 : x > y;
}

static void
scan_processes (ProcScan *ps)
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
  g_array_sort (pids, compare_pids);

  for (guint i = 0; i < pids->len; i++)
    {
      guint32 pid = g_array_index (pids, guint32, i);
      char name[16];

      if (out_of_time (s))
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

/* --- SysV segments ---------------------------------------------------------- */

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

static GVariant *
pids_variant (GArray *pids, GHashTable *visible)
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

static GVariant *
sysv_variant (Scan *s, GHashTable *segments, GHashTable *visible_pids)
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
      user = user_name (seg->uid);
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
                             pids_variant (seen != NULL ? seen->pids : NULL, visible_pids));
      g_variant_builder_add (&b, "a{sv}", &e);
    }
  return g_variant_builder_end (&b);
}

/* --- hugetlb cgroups -------------------------------------------------------- */

typedef struct {
  GVariantBuilder *builder;
  guint visited;
} CgroupWalk;

static gboolean
read_number_at (int dir_fd, const char *name, guint64 *value)
{
  g_autofree char *text = NULL;

  return read_at (dir_fd, name, MAX_SMALL_FILE_BYTES, &text) == 0 &&
         hpd_parse_counter (text, value, NULL);
}

static int
compare_cgroup_files (gconstpointer a, gconstpointer b)
{
  guint64 x = 0, y = 0;

  hpd_usage_parse_cgroup_file (*(const char *const *) a, &x);
  hpd_usage_parse_cgroup_file (*(const char *const *) b, &y);
  return x < y ? -1 : x > y;
}

static void
describe_cgroup (int dir_fd, const char *path, GVariantBuilder *out)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  GVariantBuilder sizes;
  gboolean interesting = FALSE;
  int list_fd = dup (dir_fd);
  DIR *dir = list_fd >= 0 ? fdopendir (list_fd) : NULL;
  struct dirent *entry;

  if (dir == NULL)
    {
      if (list_fd >= 0)
        close (list_fd);
      return;
    }
  while ((entry = readdir (dir)) != NULL)
    {
      guint64 page_size;
      if (hpd_usage_parse_cgroup_file (entry->d_name, &page_size))
        g_ptr_array_add (names, g_strdup (entry->d_name));
    }
  closedir (dir);
  if (names->len == 0)
    return;
  g_ptr_array_sort (names, compare_cgroup_files);

  g_variant_builder_init (&sizes, G_VARIANT_TYPE ("aa{sv}"));
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      g_autofree char *prefix = g_strndup (name, strlen (name) - strlen ("current"));
      g_autofree char *max_name = g_strconcat (prefix, "max", NULL);
      g_autofree char *events_name = g_strconcat (prefix, "events", NULL);
      g_autofree char *rsvd_name = g_strconcat (prefix, "rsvd.current", NULL);
      g_autofree char *max_text = NULL, *events_text = NULL;
      guint64 page_size = 0, current = 0, max = G_MAXUINT64, events = 0, rsvd = 0;
      gboolean has_rsvd;
      GVariantBuilder e;

      hpd_usage_parse_cgroup_file (name, &page_size);
      if (!read_number_at (dir_fd, name, &current))
        continue;
      if (read_at (dir_fd, max_name, MAX_SMALL_FILE_BYTES, &max_text) == 0)
        hpd_usage_parse_cgroup_limit (max_text, &max);
      if (read_at (dir_fd, events_name, MAX_SMALL_FILE_BYTES, &events_text) == 0)
        hpd_usage_parse_hugetlb_events (events_text, &events);
      has_rsvd = read_number_at (dir_fd, rsvd_name, &rsvd);

      interesting = interesting || current > 0 || rsvd > 0 || events > 0 || max != G_MAXUINT64;
      g_variant_builder_init (&e, G_VARIANT_TYPE_VARDICT);
      g_variant_builder_add (&e, "{sv}", "page-size", g_variant_new_uint64 (page_size));
      g_variant_builder_add (&e, "{sv}", "current", g_variant_new_uint64 (current));
      /* unlimited: no key (JSON readers take numbers as signed 64 bits) */
      if (max != G_MAXUINT64)
        g_variant_builder_add (&e, "{sv}", "max", g_variant_new_uint64 (max));
      g_variant_builder_add (&e, "{sv}", "max-events", g_variant_new_uint64 (events));
      if (has_rsvd)
        g_variant_builder_add (&e, "{sv}", "reserved", g_variant_new_uint64 (rsvd));
      g_variant_builder_add (&sizes, "a{sv}", &e);
    }

  if (!interesting)
    {
      g_variant_builder_clear (&sizes);
      return;
    }
  {
    g_autofree char *shown = bus_text (path);
    GVariantBuilder cg;

    g_variant_builder_init (&cg, G_VARIANT_TYPE_VARDICT);
    g_variant_builder_add (&cg, "{sv}", "path", g_variant_new_string (shown));
    g_variant_builder_add (&cg, "{sv}", "hugetlb", g_variant_builder_end (&sizes));
    g_variant_builder_add (out, "a{sv}", &cg);
  }
}

static void
walk_cgroups (Scan *s, int dir_fd, const char *path, guint depth, CgroupWalk *walk)
{
  g_autoptr(GPtrArray) children = g_ptr_array_new_with_free_func (g_free);
  int list_fd;
  DIR *dir;
  struct dirent *entry;

  walk->visited++;
  /* the root cgroup has no hugetlb files (CFTYPE_NOT_ON_ROOT) */
  if (depth > 0)
    describe_cgroup (dir_fd, path, walk->builder);

  list_fd = dup (dir_fd);
  dir = list_fd >= 0 ? fdopendir (list_fd) : NULL;
  if (dir == NULL)
    {
      if (list_fd >= 0)
        close (list_fd);
      return;
    }
  while ((entry = readdir (dir)) != NULL)
    if (entry->d_type == DT_DIR && !g_str_equal (entry->d_name, ".") &&
        !g_str_equal (entry->d_name, ".."))
      g_ptr_array_add (children, g_strdup (entry->d_name));
  closedir (dir);
  g_ptr_array_sort (children, (GCompareFunc) g_strcmp0);

  for (guint i = 0; i < children->len; i++)
    {
      const char *name = g_ptr_array_index (children, i);
      g_autofree char *child_path = g_str_equal (path, "/") ? g_strconcat ("/", name, NULL)
                                                            : g_strconcat (path, "/", name, NULL);
      int child_fd;

      if (walk->visited >= MAX_CGROUPS || depth + 1 > MAX_CGROUP_DEPTH || out_of_time (s))
        {
          s->cgroups_truncated = TRUE;
          return;
        }
      child_fd = openat (dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (child_fd < 0)
        continue;
      walk_cgroups (s, child_fd, child_path, depth + 1, walk);
      close (child_fd);
    }
}

static GVariant *
cgroups_variant (Scan *s)
{
  HpdKernel *kernel = s->scan->kernel;
  /* cgroup v2 alone at /sys/fs/cgroup, or next to v1 at .../unified */
  const char *rel = hpd_kernel_exists (kernel, "sys/fs/cgroup/unified/cgroup.controllers")
                    ? "sys/fs/cgroup/unified" : "sys/fs/cgroup";
  g_autofree char *top = hpd_kernel_path (kernel, rel);
  GVariantBuilder b;
  CgroupWalk walk = { &b, 0 };
  int fd;

  g_variant_builder_init (&b, G_VARIANT_TYPE ("aa{sv}"));
  fd = open (top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0)
    {
      walk_cgroups (s, fd, "/", 0, &walk);
      close (fd);
    }
  return g_variant_builder_end (&b);
}

/* --- what nobody accounts for ---------------------------------------------- */

static GVariant *
unattributed_variant (Scan *s, ProcScan *ps)
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

/* --- the reply ---------------------------------------------------------------- */

static GVariant *
processes_variant (ProcScan *ps)
{
  GVariantBuilder b;

  g_variant_builder_init (&b, G_VARIANT_TYPE ("aa{sv}"));
  for (guint i = 0; i < ps->processes->len; i++)
    {
      const UsageProcess *p = g_ptr_array_index (ps->processes, i);
      g_autofree char *user = user_name (p->uid);
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
      path = bus_text (f->path);
      user = user_name (f->uid);
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
      g_variant_builder_add (&e, "{sv}", "pids", pids_variant (f->pids, visible_pids));
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
  s->mounts = g_ptr_array_new_with_free_func ((GDestroyNotify) usage_mount_free);
  s->mount_devs = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  s->walked = g_hash_table_new_full (inode_key_hash, inode_key_equal, g_free, NULL);
  s->mount_devs_are_hugetlbfs = g_str_equal (hpd_kernel_get_root (scan->kernel), "/");
  s->files = g_ptr_array_new_with_free_func ((GDestroyNotify) usage_file_free);
  s->file_inodes = g_hash_table_new_full (inode_key_hash, inode_key_equal, g_free, NULL);
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
  ps.processes = g_ptr_array_new_with_free_func ((GDestroyNotify) usage_process_free);
  ps.segments = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                       (GDestroyNotify) seen_segment_free);
  ps.objects = g_hash_table_new_full (inode_key_hash, inode_key_equal, g_free, g_free);
  ps.private_bytes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  ps.reserved_bytes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);

  read_mounts (&s, TRUE);
  scan_processes (&ps);

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
  g_variant_builder_add (&reply, "{sv}", "sysv", sysv_variant (&s, ps.segments, visible_pids));
  g_variant_builder_add (&reply, "{sv}", "cgroups", cgroups_variant (&s));
  /* the rest of the pool is everybody else's business: full view only */
  if (!scan->restricted)
    g_variant_builder_add (&reply, "{sv}", "unattributed", unattributed_variant (&s, &ps));
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
      g_ptr_array_add (shown, bus_text (warnings[i]));
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

/* --- RemoveOrphan --------------------------------------------------------- */

void
hpd_orphan_free (HpdOrphan *orphan)
{
  if (orphan == NULL)
    return;
  if (orphan->parent_fd >= 0)
    close (orphan->parent_fd);
  g_free (orphan->leaf);
  g_free (orphan);
}

/* The pids whose maps show (@dev, @ino) into @pids, and those whose maps
 * could not be read (not gone, unreadable) into @unreadable. */
static gboolean
mapping_pids (HpdKernel *kernel, guint64 dev, guint64 ino, GArray *pids, GArray *unreadable,
              GError **error)
{
  g_autofree char *proc = hpd_kernel_path (kernel, "proc");
  int proc_fd = open (proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *dir;
  struct dirent *entry;

  if (proc_fd < 0 || (dir = fdopendir (proc_fd)) == NULL)
    {
      if (proc_fd >= 0)
        close (proc_fd);
      g_set_error (error, HP_ERROR, HP_ERROR_FAILED,
                   "Cannot read %s, so cannot tell whether the file is mapped", proc);
      return FALSE;
    }
  while ((entry = readdir (dir)) != NULL)
    {
      g_autofree char *rel = NULL, *maps = NULL;
      g_autoptr(GArray) mappings = NULL;
      guint64 pid;
      int err;

      if (!g_ascii_isdigit (entry->d_name[0]) || !hp_parse_u64 (entry->d_name, &pid, NULL) ||
          pid == 0 || pid > G_MAXINT32)
        continue;
      rel = g_strdup_printf ("%s/maps", entry->d_name);
      err = read_at (dirfd (dir), rel, MAX_PROC_FILE_BYTES, &maps);
      if (err == 0 && (mappings = hpd_usage_parse_smaps (maps, NULL)) == NULL)
        err = EINVAL;
      if (err != 0)
        {
          if (!vanished (err))
            g_array_append_val (unreadable, (guint32) { (guint32) pid });
          continue;
        }
      for (guint i = 0; i < mappings->len; i++)
        {
          const HpdMapping *m = &g_array_index (mappings, HpdMapping, i);
          if (dev_key (m->dev_major, m->dev_minor) == dev && m->inode == ino)
            {
              g_array_append_val (pids, (guint32) { (guint32) pid });
              break;
            }
        }
    }
  closedir (dir);
  g_array_sort (pids, compare_pids);
  g_array_sort (unreadable, compare_pids);
  return TRUE;
}

/* The deepest hugetlbfs mount that holds @path. */
static const HpdMountInfo *
mount_holding (HpdKernel *kernel, GPtrArray *mounts, const char *path)
{
  const HpdMountInfo *best = NULL;

  for (guint i = 0; i < mounts->len; i++)
    {
      const HpdMountInfo *m = g_ptr_array_index (mounts, i);
      gsize len = strlen (m->path);

      if (!path_is_below_root (kernel, m->path))
        continue;
      if ((g_str_equal (m->path, "/") || (g_str_has_prefix (path, m->path) && path[len] == '/')) &&
          (best == NULL || len >= strlen (best->path)))
        best = m;
    }
  return best;
}

HpdOrphan *
hpd_orphan_resolve (HpdKernel *kernel, guint64 default_page_size, const char *path,
                    gboolean ignore_unreadable, GError **error)
{
  g_autoptr(GPtrArray) mounts = hpd_mounts_read (kernel, default_page_size);
  g_autoptr(HpdOrphan) orphan = g_new0 (HpdOrphan, 1);
  g_autoptr(GArray) pids = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) unreadable = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_auto(GStrv) parts = NULL;
  const HpdMountInfo *mount;
  struct stat st, file;
  int fd;
  guint n;

  orphan->parent_fd = -1;
  if (!hpd_mount_path_is_valid (path))
    {
      g_set_error_literal (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                           "The path must be absolute and normalized, without control characters");
      return NULL;
    }
  mount = mount_holding (kernel, mounts, path);
  if (mount == NULL)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_NOT_MOUNTED, "%s is not in a hugetlbfs mount", path);
      return NULL;
    }

  fd = open_no_links (mount->path, O_PATH | O_DIRECTORY, error);
  if (fd < 0)
    return NULL;
  if (!mount_is_usable (kernel, mount->path, fd) || fstat (fd, &st) < 0)
    {
      close (fd);
      g_set_error (error, HP_ERROR, HP_ERROR_NOT_MOUNTED, "%s is not a hugetlbfs mount", mount->path);
      return NULL;
    }

  /* from the mount's root, every directory on the mount's superblock */
  parts = g_strsplit (path + (g_str_equal (mount->path, "/") ? 1 : strlen (mount->path) + 1), "/", -1);
  n = g_strv_length (parts);
  for (guint i = 0; i + 1 < n; i++)
    {
      struct stat dir_st;
      int next = openat (fd, parts[i], O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

      if (next < 0 || fstat (next, &dir_st) < 0 || dir_st.st_dev != st.st_dev)
        {
          int saved_errno = errno;

          if (next >= 0)
            close (next);
          close (fd);
          g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                       "%s: %s is not a directory of the mount (%s)", path, parts[i],
                       next >= 0 ? "another file system" : g_strerror (saved_errno));
          return NULL;
        }
      close (fd);
      fd = next;
    }
  orphan->parent_fd = fd;
  orphan->leaf = g_strdup (parts[n - 1]);

  if (fstatat (fd, orphan->leaf, &file, AT_SYMLINK_NOFOLLOW) < 0)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS, "%s: %s", path, g_strerror (errno));
      return NULL;
    }
  if (!S_ISREG (file.st_mode) || file.st_dev != st.st_dev)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "%s is not a regular file of the hugetlbfs mount %s", path, mount->path);
      return NULL;
    }
  orphan->dev = dev_key_of (file.st_dev);
  orphan->ino = file.st_ino;

  if (!mapping_pids (kernel, orphan->dev, orphan->ino, pids, unreadable, error))
    return NULL;
  if (pids->len > 0)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_BUSY,
                   "%s is mapped by %u process%s; not an orphan (GetUsage shows which)",
                   path, pids->len, pids->len > 1 ? "es" : "");
      return NULL;
    }
  if (unreadable->len > 0 && !ignore_unreadable)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_FAILED,
                   "Cannot tell whether %s is mapped: the mappings of %u process%s cannot be "
                   "read (option ignore-unreadable removes it anyway)",
                   path, unreadable->len, unreadable->len > 1 ? "es" : "");
      return NULL;
    }
  return g_steal_pointer (&orphan);
}

gboolean
hpd_orphan_remove (const HpdOrphan *orphan, const char *path, GError **error)
{
  if (unlinkat (orphan->parent_fd, orphan->leaf, 0) < 0)
    {
      int saved_errno = errno;

      g_set_error (error, HP_ERROR, saved_errno == EBUSY ? HP_ERROR_BUSY : HP_ERROR_FAILED,
                   "Cannot remove %s: %s", path, g_strerror (saved_errno));
      return FALSE;
    }
  return TRUE;
}
