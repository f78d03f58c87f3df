/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include "hpd-file-cache.h"

/* Everything that can change what reading a file below a watched
 * directory gives: its data (IN_MODIFY, and IN_CLOSE_WRITE for writers
 * through a mapping), its permissions (IN_ATTRIB), and which file or
 * directory a name leads to. */
#define WATCH_MASK (IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | \
                    IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

/* After these a path may lead to another directory than the one watched
 * (or the kernel dropped events), so the watches are set up again. */
#define STRUCTURE_EVENTS (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | \
                          IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED | IN_UNMOUNT | \
                          IN_Q_OVERFLOW)

/* More entries than any kernel tree has files the service reads: beyond
 * it, a table is emptied and filled again as needed. Bounds the memory
 * where names keep coming (proc/PID/limits of every caller of Explain). */
#define MAX_ENTRIES 16384

typedef struct {
  gsize length;
  char data[];
} Kept;

struct _HpdFileCache
{
  GMutex lock;
  char *root;           /* no trailing slash, except "/" itself */
  int inotify_fd;       /* -1 until a directory is worth watching */
  gboolean broken;      /* inotify failed us once: keep nothing from then on */
  GHashTable *dirs;     /* directory -> HpdFileKind */
  GHashTable *files;    /* path -> Kept */
  guint64 generation;   /* counts the times the files were forgotten */
  guint64 hits;
};

HpdFileCache *
hpd_file_cache_new (const char *root)
{
  HpdFileCache *self = g_new0 (HpdFileCache, 1);
  gsize len = strlen (root);

  while (len > 1 && root[len - 1] == '/')
    len--;
  g_mutex_init (&self->lock);
  self->root = g_strndup (root, len);
  self->inotify_fd = -1;
  self->dirs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->files = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return self;
}

void
hpd_file_cache_free (HpdFileCache *self)
{
  if (self == NULL)
    return;
  if (self->inotify_fd >= 0)
    close (self->inotify_fd);
  g_hash_table_unref (self->files);
  g_hash_table_unref (self->dirs);
  g_free (self->root);
  g_mutex_clear (&self->lock);
  g_free (self);
}

static void
forget_files (HpdFileCache *self)
{
  g_hash_table_remove_all (self->files);
  self->generation++;
}

static void
give_up (HpdFileCache *self, const char *why, int error)
{
  g_debug ("Not keeping kernel files any more: %s: %s", why, g_strerror (error));
  self->broken = TRUE;
  forget_files (self);
  g_hash_table_remove_all (self->dirs);
}

/* Reads every event queued so far; any event at all means something below
 * the root changed, so everything kept is dropped. Cheap when nothing
 * happened: one read() that fails with EAGAIN. */
static void
drain (HpdFileCache *self)
{
  /* aligned for struct inotify_event, and large enough for one with a name */
  union {
    struct inotify_event event;
    char bytes[4096];
  } buffer;

  if (self->inotify_fd < 0 || self->broken)
    return;

  for (;;)
    {
      ssize_t n = read (self->inotify_fd, buffer.bytes, sizeof buffer.bytes);
      guint32 seen = 0;

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && errno == EAGAIN)
        return;
      if (n <= 0)
        {
          give_up (self, "reading inotify events", n < 0 ? errno : EIO);
          return;
        }
      for (ssize_t at = 0; at + (ssize_t) sizeof (struct inotify_event) <= n;)
        {
          const struct inotify_event *event = (const void *) (buffer.bytes + at);

          seen |= event->mask;
          at += (ssize_t) sizeof (struct inotify_event) + event->len;
        }
      forget_files (self);
      if (seen & STRUCTURE_EVENTS)
        g_hash_table_remove_all (self->dirs);
    }
}

static HpdFileKind
file_system_kind (const char *dir)
{
  struct statfs fs;

  if (statfs (dir, &fs) < 0)
    return HPD_FILE_KIND_OTHER;
  switch ((unsigned long) fs.f_type)
    {
    /* local file systems that report every change of a file to inotify */
    case EXT4_SUPER_MAGIC:    /* ext2 and ext3 too */
    case TMPFS_MAGIC:
    case XFS_SUPER_MAGIC:
    case BTRFS_SUPER_MAGIC:
      return HPD_FILE_KIND_CACHEABLE;
    case SYSFS_MAGIC:
    case PROC_SUPER_MAGIC:
      return HPD_FILE_KIND_PSEUDO;
    default:
      /* network and FUSE file systems change without telling, overlayfs
       * when a layer is written directly */
      return HPD_FILE_KIND_OTHER;
    }
}

static gboolean
is_below_root (HpdFileCache *self, const char *path)
{
  gsize len = strlen (self->root);

  if (g_str_equal (self->root, "/"))
    return path[0] == '/';
  return strncmp (path, self->root, len) == 0 && (path[len] == '/' || path[len] == '\0');
}

/* A directory is cacheable when its own file system is, a watch is on it,
 * and (below the root) its parent is cacheable too: a rename anywhere on
 * the way from the root shows up as an event in the parent. */
static HpdFileKind
dir_kind (HpdFileCache *self, const char *dir)
{
  gpointer known;
  HpdFileKind kind;

  if (g_hash_table_lookup_extended (self->dirs, dir, NULL, &known))
    return GPOINTER_TO_INT (known);

  kind = file_system_kind (dir);
  if (kind == HPD_FILE_KIND_CACHEABLE && !g_str_equal (dir, self->root))
    {
      g_autofree char *parent = g_path_get_dirname (dir);

      if (!is_below_root (self, parent) || dir_kind (self, parent) != HPD_FILE_KIND_CACHEABLE)
        kind = HPD_FILE_KIND_OTHER;
    }
  if (kind == HPD_FILE_KIND_CACHEABLE && self->inotify_fd < 0)
    {
      self->inotify_fd = inotify_init1 (IN_NONBLOCK | IN_CLOEXEC);
      if (self->inotify_fd < 0)
        {
          give_up (self, "inotify_init1", errno);
          return HPD_FILE_KIND_OTHER;
        }
    }
  if (kind == HPD_FILE_KIND_CACHEABLE && inotify_add_watch (self->inotify_fd, dir, WATCH_MASK) < 0)
    {
      /* out of watches, or the directory went away: read it each time */
      g_debug ("Not keeping the files of %s: %s", dir, g_strerror (errno));
      kind = HPD_FILE_KIND_OTHER;
    }
  /* forgetting kinds is safe: they are worked out again, and a watch
   * added twice is one watch */
  if (g_hash_table_size (self->dirs) >= MAX_ENTRIES)
    g_hash_table_remove_all (self->dirs);
  g_hash_table_insert (self->dirs, g_strdup (dir), GINT_TO_POINTER (kind));
  return kind;
}

gboolean
hpd_file_cache_lookup (HpdFileCache *self, const char *path, char **contents, gsize *length)
{
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->lock);
  const Kept *kept;

  drain (self);
  kept = g_hash_table_lookup (self->files, path);
  if (kept == NULL)
    return FALSE;
  self->hits++;
  *contents = g_malloc (kept->length + 1);
  memcpy (*contents, kept->data, kept->length);
  (*contents)[kept->length] = '\0';
  if (length != NULL)
    *length = kept->length;
  return TRUE;
}

HpdFileKind
hpd_file_cache_prepare (HpdFileCache *self, const char *path, guint64 *generation)
{
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->lock);
  g_autofree char *dir = NULL;
  HpdFileKind kind;

  /* No drain here (the lookup before did one): an event still queued
   * empties the cache at the next lookup, whatever is stored meanwhile.
   * Only an event another thread drains between now and the store could
   * be missed, and the generation catches that. */
  *generation = self->generation;
  if (!is_below_root (self, path) || g_str_equal (path, self->root))
    return HPD_FILE_KIND_UNKNOWN;
  dir = g_path_get_dirname (path);
  kind = dir_kind (self, dir);
  if (kind == HPD_FILE_KIND_CACHEABLE && self->broken)
    kind = HPD_FILE_KIND_OTHER;
  return kind;
}

HpdFileKind
hpd_file_cache_prepare_dir (HpdFileCache *self, const char *dir)
{
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->lock);
  g_autofree char *trimmed = g_strdup (dir);
  gsize len = strlen (trimmed);
  HpdFileKind kind;

  while (len > 1 && trimmed[len - 1] == '/')
    trimmed[--len] = '\0';
  if (!is_below_root (self, trimmed))
    return HPD_FILE_KIND_UNKNOWN;
  kind = dir_kind (self, trimmed);
  if (kind == HPD_FILE_KIND_CACHEABLE && self->broken)
    kind = HPD_FILE_KIND_OTHER;
  return kind;
}

guint64
hpd_file_cache_get_generation (HpdFileCache *self)
{
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->lock);

  drain (self);
  return self->generation;
}

void
hpd_file_cache_store (HpdFileCache *self, const char *path, guint64 generation,
                      const char *contents, gsize length)
{
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->lock);
  Kept *kept;

  /* Another thread drained an event since @path was prepared: it may be a
   * change that the caller's read missed, and it is gone from the queue. */
  if (self->broken || generation != self->generation)
    return;
  if (g_hash_table_size (self->files) >= MAX_ENTRIES)
    forget_files (self);
  kept = g_malloc (sizeof (Kept) + length);
  kept->length = length;
  memcpy (kept->data, contents, length);
  g_hash_table_replace (self->files, g_strdup (path), kept);
}

void
hpd_file_cache_get_stats (HpdFileCache *self, guint64 *hits, guint64 *flushes)
{
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->lock);

  *hits = self->hits;
  *flushes = self->generation;
}
