/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "hpd-kernel.h"
#include "hpd-parse.h"
#include "hpd-stat-state.h"

/* Longest counter file read in one go: 20 digits, a newline, and room to
 * tell a longer file (which is no counter) from one that fits. */
#define COUNTER_READ_MAX 64

/* Kernel files one reader (KeptFiles) keeps open at most: every pool and
 * node counter of a machine with 16 nodes and 5 page sizes, and the
 * Manager's files; beyond it files are opened for each read. The checkers
 * of the two read snapshots keep only files the main thread read too (the
 * Manager's some 50), so the three stay below the 1024 descriptors of the
 * default soft limit; where the main thread keeps a file the checkers'
 * descriptors share its open file, so the kernel memory kept files hold
 * while reads come (a page each) is bounded by this once, not three
 * times. */
#define MAX_KEPT_OPEN 384

/* The first read of a text file: sysfs makes at most a page */
#define TEXT_READ_FIRST 4096

/* A source that runs first in every main loop iteration and only counts
 * them (it never fires, so it wakes nobody). */
typedef struct {
  GSource source;
  HpdKernel *kernel;
} TurnSource;

typedef struct {
  gpointer data;
  GDestroyNotify destroy;
} Memo;

/* The kernel files one reader keeps open between reads, and the text of
 * the mount table read last on its kept mountinfo. HpdKernel has one,
 * which its reads on the main thread and the queue's worker share; each
 * checker of recorded reads (HpdKernelInputs, run in GDBus's worker
 * thread) has descriptors of its own: the main thread closes a descriptor
 * whose file is gone, and the next open() anywhere in the process may get
 * its number, so a checker reading through it could read another file.
 *
 * A checker's descriptor is a duplicate of HpdKernel's where HpdKernel
 * keeps the file (taken under its lock, so the number cannot be reused
 * meanwhile): both read through one open file. An open sysfs file holds a
 * page of kernel memory for its reads from the first read to the close,
 * charged to the service; three readers (HpdKernel and the two read
 * snapshots' checkers) opening each file of their own would hold it three
 * times. Never mountinfo: poll() on it reports a change once, to the
 * first poll() after it, so the text cached beside a descriptor is known
 * current only while no other reader polls that open file. */
typedef struct _KeptFiles KeptFiles;
struct _KeptFiles {
  GMutex lock;
  GHashTable *open;      /* relative path -> fd + 1, sysfs and procfs files kept open */
  char *mount_table;     /* the kept mountinfo's text, while poll() says it is current */
  gboolean keeps_open;   /* the root's sys/ is sysfs: there are such files */
  KeptFiles *shares;     /* a checker's: HpdKernel's, whose open files it duplicates */
};

struct _HpdKernel
{
  GObject parent_instance;
  char *root;
  GMutex fixed_lock;
  GHashTable *fixed;     /* relative path -> contents, of the kernel's own files */
  GHashTable *fixed_dirs; /* relative path -> GPtrArray of names, of the kernel's own */
  GHashTable *fixed_exists; /* relative path -> whether it exists, of the kernel's own */

  KeptFiles kept;

  /* main thread only, see hpd_kernel_turn_lookup() */
  GSource *turn_source;
  guint64 turn;
  guint64 memo_turn;
  gint memo_writes;
  GHashTable *memo;      /* relative path or ":key" -> Memo */
  gint writes;           /* atomic: counts writes to kernel files */
  gint writing;          /* atomic: writes under way, on any thread */

  /* between hpd_kernel_record_begin() and _end(), on that thread only */
  GPtrArray *record;     /* Input */
  GHashTable *record_by_key; /* input_key() -> the first such Input */
  GArray *record_paths;  /* HpdStatPath */
  gint64 record_begun_at;
  GThread *record_thread;
  gint record_writes;
  gboolean record_tainted;
};

typedef enum {
  INPUT_TEXT,
  INPUT_COUNTER,
  INPUT_EXISTS,
  INPUT_DIR,
  INPUT_LINK,
} InputKind;

typedef struct {
  InputKind kind;
  char *relative;
  HpdKernelPart part;    /* NULL: the whole text */
  char *expected;        /* what the read gave (its part) */
} Input;

struct _HpdKernelInputs
{
  char *root;
  GPtrArray *inputs;     /* Input */
  GArray *paths;         /* HpdStatPath: hpd_kernel_record_path() */
  gint64 taken_at;       /* real time, before the first of them */
  HpdKernel *kernel;     /* whose kept files the checker duplicates */
  KeptFiles kept;        /* the checker's own */
};

static void
input_free (gpointer data)
{
  Input *input = data;

  g_free (input->relative);
  g_free (input->expected);
  g_free (input);
}

static void
kept_files_init (KeptFiles *kept, gboolean keeps_open)
{
  g_mutex_init (&kept->lock);
  kept->open = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  kept->keeps_open = keeps_open;
}

/* Under @kept's lock, or where no other thread can reach it. */
static void
kept_files_close (KeptFiles *kept)
{
  GHashTableIter iter;
  gpointer fd;

  g_hash_table_iter_init (&iter, kept->open);
  while (g_hash_table_iter_next (&iter, NULL, &fd))
    {
      close (GPOINTER_TO_INT (fd) - 1);
      g_hash_table_iter_remove (&iter);
    }
  g_clear_pointer (&kept->mount_table, g_free);
}

static void
kept_files_clear (KeptFiles *kept)
{
  kept_files_close (kept);
  g_hash_table_unref (kept->open);
  g_mutex_clear (&kept->lock);
}

/* What a read that failed with GFileError @code is recorded as: no text
 * holds a byte 1. */
static char *
failure (int code)
{
  return g_strdup_printf ("\001%d", code);
}

static gboolean
recording (HpdKernel *self)
{
  return self->record != NULL && self->record_thread == g_thread_self ();
}

/* Of a text read: what the reader's values depend on; a failure as is. */
static char *
part_of (HpdKernelPart part, const char *text)
{
  return part != NULL && text[0] != '\001' ? part (text) : g_strdup (text);
}

/* What makes two inputs the same check: the file, how it is read and
 * which part of it counts. */
static char *
input_key (const Input *input)
{
  return g_strdup_printf ("%d %p %s", input->kind, (gpointer) input->part, input->relative);
}

/* @expected NULL: the read failed, which the record does not follow. A
 * file read again with the same result is checked once (one refresh reads
 * proc/meminfo for several properties); a different result is kept as
 * well, and then no check can pass, as it should not. */
static void
record_part (HpdKernel *self, InputKind kind, const char *relative, HpdKernelPart part,
             const char *expected)
{
  g_autofree char *key = NULL;
  Input *input, *first;

  if (!recording (self))
    return;
  if (expected == NULL)
    {
      self->record_tainted = TRUE;
      return;
    }
  input = g_new0 (Input, 1);
  input->kind = kind;
  input->relative = g_strdup (relative);
  input->part = part;
  input->expected = part_of (part, expected);
  key = input_key (input);
  first = g_hash_table_lookup (self->record_by_key, key);
  if (first != NULL && g_str_equal (first->expected, input->expected))
    {
      input_free (input);
      return;
    }
  if (first == NULL)
    g_hash_table_insert (self->record_by_key, g_steal_pointer (&key), input);
  g_ptr_array_add (self->record, input);
}

static void
record (HpdKernel *self, InputKind kind, const char *relative, const char *expected)
{
  record_part (self, kind, relative, NULL, expected);
}

G_DEFINE_TYPE (HpdKernel, hpd_kernel, G_TYPE_OBJECT)

static void
hpd_kernel_finalize (GObject *object)
{
  HpdKernel *self = HPD_KERNEL (object);

  g_clear_pointer (&self->record, g_ptr_array_unref);
  g_clear_pointer (&self->record_by_key, g_hash_table_unref);
  g_clear_pointer (&self->record_paths, g_array_unref);
  if (self->turn_source != NULL)
    {
      g_source_destroy (self->turn_source);
      g_source_unref (self->turn_source);
    }
  g_hash_table_unref (self->memo);
  kept_files_clear (&self->kept);
  g_free (self->root);
  g_hash_table_unref (self->fixed);
  g_hash_table_unref (self->fixed_dirs);
  g_hash_table_unref (self->fixed_exists);
  g_mutex_clear (&self->fixed_lock);
  G_OBJECT_CLASS (hpd_kernel_parent_class)->finalize (object);
}

static void
hpd_kernel_class_init (HpdKernelClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = hpd_kernel_finalize;
}

static void
memo_free (gpointer data)
{
  Memo *memo = data;

  if (memo->destroy != NULL)
    memo->destroy (memo->data);
  g_free (memo);
}

static void
hpd_kernel_init (HpdKernel *self)
{
  g_mutex_init (&self->fixed_lock);
  self->fixed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->fixed_exists = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->fixed_dirs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                            (GDestroyNotify) g_ptr_array_unref);
  self->memo = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, memo_free);
}

static gboolean
turn_prepare (GSource *source, gint *timeout)
{
  HpdKernel *self = ((TurnSource *) source)->kernel;

  self->turn++;
  /* The last turn's values can no longer answer: freed now, before the
   * loop sleeps, not at the next turn's first read, which may come much
   * later. A call on a tree of many nodes keeps a thousand small strings
   * there, spread over the heap: kept, they hold its pages after a burst
   * of calls, where malloc_trim() cannot give them back. */
  if (g_hash_table_size (self->memo) != 0)
    g_hash_table_remove_all (self->memo);
  *timeout = -1;
  return FALSE;
}

static gboolean
turn_dispatch (GSource *source, GSourceFunc callback, gpointer user_data)
{
  return G_SOURCE_CONTINUE;
}

static gboolean is_kernel_file_system (const char *path);

static GSourceFuncs turn_funcs = {
  .prepare = turn_prepare,
  .dispatch = turn_dispatch,
};

HpdKernel *
hpd_kernel_new (const char *root)
{
  HpdKernel *self = g_object_new (HPD_TYPE_KERNEL, NULL);
  g_autofree char *sys = NULL;

  self->root = g_strdup (root != NULL && *root != '\0' ? root : "/");
  /* a fake tree of plain files has none: no file is kept open and none
   * asked for its file system */
  sys = hpd_kernel_path (self, "sys");
  kept_files_init (&self->kept, is_kernel_file_system (sys));
  self->turn_source = g_source_new (&turn_funcs, sizeof (TurnSource));
  ((TurnSource *) self->turn_source)->kernel = self;
  /* prepared before any other source, whose readiness can stop the
   * preparing of those of lower priority */
  g_source_set_priority (self->turn_source, G_MININT);
  g_source_set_name (self->turn_source, "hpd-kernel turn");
  g_source_attach (self->turn_source, NULL);
  return self;
}

void
hpd_kernel_close_kept_files (HpdKernel *self)
{
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->kept.lock);

  /* under the lock every reader takes for a lookup and its read, and a
   * checker's duplicate: none can read through a number closed here */
  kept_files_close (&self->kept);
}

const char *
hpd_kernel_get_root (HpdKernel *self)
{
  return self->root;
}

char *
hpd_kernel_path (HpdKernel *self, const char *relative)
{
  g_return_val_if_fail (relative != NULL && relative[0] != '/', NULL);
  return g_build_filename (self->root, relative, NULL);
}

/* hpd_kernel_path() is NULL for a path that is not relative (a bug, which
 * was a critical): an error, not open (NULL) */
static gboolean
path_is_below_root (const char *path, const char *relative, GError **error)
{
  if (path != NULL)
    return TRUE;
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
               "Not a path below the kernel root: %s", relative ? relative : "(null)");
  return FALSE;
}

gboolean
hpd_kernel_exists (HpdKernel *self, const char *relative)
{
  g_autofree char *path = hpd_kernel_path (self, relative);
  gboolean exists;

  if (path == NULL)
    {
      record (self, INPUT_EXISTS, relative, NULL);
      return FALSE;
    }
  exists = g_file_test (path, G_FILE_TEST_EXISTS);
  record (self, INPUT_EXISTS, relative, exists ? "1" : "0");
  return exists;
}

gboolean
hpd_kernel_exists_fixed_at_boot (HpdKernel *self, const char *relative)
{
  g_autofree char *path = hpd_kernel_path (self, relative);
  g_autofree char *dir = NULL;
  gpointer known;
  gboolean exists;

  if (path == NULL)
    return hpd_kernel_exists (self, relative);
  {
    G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->fixed_lock);

    if (g_hash_table_lookup_extended (self->fixed_exists, relative, NULL, &known))
      return GPOINTER_TO_INT (known);
  }
  /* a fake tree's file stands for another boot whenever a test adds or
   * removes it: looked up at every call; the directory tells, as a
   * missing file has no file system */
  dir = g_path_get_dirname (path);
  if (!is_kernel_file_system (dir))
    return hpd_kernel_exists (self, relative);
  exists = g_file_test (path, G_FILE_TEST_EXISTS);
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->fixed_lock);
  g_hash_table_replace (self->fixed_exists, g_strdup (relative), GINT_TO_POINTER (exists));
  return exists;
}

/* Whether the memo of this turn can answer: on the thread that runs the
 * main loop while it runs, in the turn it was made, and no kernel file
 * written since. */
static gboolean
memo_usable (HpdKernel *self)
{
  if (!g_main_context_is_owner (g_main_context_default ()))
    return FALSE;
  if (self->memo_turn != self->turn || self->memo_writes != g_atomic_int_get (&self->writes))
    {
      g_hash_table_remove_all (self->memo);
      self->memo_turn = self->turn;
      self->memo_writes = g_atomic_int_get (&self->writes);
    }
  return TRUE;
}

gconstpointer
hpd_kernel_turn_lookup (HpdKernel *self, const char *key)
{
  const Memo *memo;

  if (!memo_usable (self))
    return NULL;
  /* what a caller made from files is made again from recorded reads (a
   * file's own text of the turn is recorded as it is used) */
  if (key[0] == ':' && recording (self))
    return NULL;
  memo = g_hash_table_lookup (self->memo, key);
  return memo != NULL ? memo->data : NULL;
}

gboolean
hpd_kernel_turn_store (HpdKernel *self, const char *key, gint writes, gpointer data,
                       GDestroyNotify destroy)
{
  Memo *memo;

  /* a write since the value was read: it may hold the state before it */
  if (!memo_usable (self) || writes != self->memo_writes)
    {
      if (destroy != NULL)
        destroy (data);
      return FALSE;
    }
  memo = g_new (Memo, 1);
  memo->data = data;
  memo->destroy = destroy;
  g_hash_table_replace (self->memo, g_strdup (key), memo);
  return TRUE;
}

gint
hpd_kernel_get_writes (HpdKernel *self)
{
  return g_atomic_int_get (&self->writes);
}

static gboolean
set_file_error (GError **error, int saved_errno, const char *what, const char *path)
{
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
               "Failed to %s file “%s”: %s", what, path, g_strerror (saved_errno));
  return FALSE;
}

/* The whole file from offset 0, which makes sysfs and procfs produce the
 * value anew. A counter is one pread() with room for it (a full buffer is
 * no counter: the parser refuses what it holds); a text is read until
 * pread() gives nothing more, or, with @short_is_whole (a sysfs
 * attribute, made whole by one show() of at most a page), until it gives
 * less than it had room for. NULL with *@err set to the errno when a read
 * fails. */
static char *
pread_whole (int fd, gboolean counter, gboolean short_is_whole, int *err)
{
  /* Most files fit a page: read on the stack, and the caller gets a copy
   * of the text's own size. A page-sized buffer for a text of a few bytes
   * would be what a value kept from the read (the THP files' texts behind
   * ThpSettings) holds, spread over the heap among a burst of calls'
   * transient memory, where it keeps pages from being trimmed. */
  char first[TEXT_READ_FIRST + 1];
  g_autofree char *grown = NULL;
  gsize size = counter ? COUNTER_READ_MAX : TEXT_READ_FIRST;
  gsize length = 0;

  for (;;)
    {
      char *buffer = grown != NULL ? grown : first;
      ssize_t n = pread (fd, buffer + length, size - length, (off_t) length);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          *err = errno != 0 ? errno : EIO;
          return NULL;
        }
      length += (gsize) n;
      if (n == 0 || counter || (short_is_whole && length < size))
        break;
      if (length == size)
        {
          size *= 2;
          if (grown == NULL)
            grown = memcpy (g_malloc (size + 1), first, length);
          else
            grown = g_realloc (grown, size + 1);
        }
    }
  if (grown == NULL)
    {
      first[length] = '\0';
      return g_memdup2 (first, length + 1);
    }
  grown[length] = '\0';
  return g_steal_pointer (&grown);
}

/* The files read again and again, by the refresh of every property read:
 * never those of other processes (Explain reads proc/PID/limits). */
static gboolean
worth_keeping_open (const char *relative)
{
  return g_str_has_prefix (relative, "sys/") || g_str_has_prefix (relative, "proc/sys/") ||
         g_str_equal (relative, "proc/meminfo") || g_str_equal (relative, "proc/self/mountinfo") ||
         g_str_equal (relative, "proc/buddyinfo");
}

/* A file of sysfs or procfs is the same file as long as it exists, so it
 * stays open and each read is a pread(); a fake tree's files can be
 * replaced (renamed over), so they are opened for each read. */
static gboolean
on_kernel_file_system (int fd)
{
  struct statfs fs;

  return fstatfs (fd, &fs) == 0 &&
         ((unsigned long) fs.f_type == SYSFS_MAGIC || (unsigned long) fs.f_type == PROC_SUPER_MAGIC);
}

#define MOUNT_TABLE "proc/self/mountinfo"

/* The kernel counts every change of a mount namespace's table (a mount, an
 * unmount, a move, a remount, mount_setattr(), a mount propagated in) as
 * it makes it, under the namespace's lock, and poll() on an open
 * mountinfo reports POLLPRI | POLLERR once for every file on which the
 * count moved since its last poll. So a poll() with no wait right before a
 * use tells exactly whether @kept, the text read last on @fd, is still the
 * table; making the text again costs the kernel a walk of every mount.
 * @kept is replaced by what is read (NULL when the read fails). */
static char *
read_mount_table (int fd, char **kept, int *err)
{
  struct pollfd p = { .fd = fd, .events = POLLPRI };
  char *text;

  if (*kept != NULL && poll (&p, 1, 0) == 0)
    return g_strdup (*kept);
  /* changed (or poll failed): made anew */
  g_clear_pointer (kept, g_free);
  text = pread_whole (fd, FALSE, FALSE, err);
  *kept = g_strdup (text);
  return text;
}

/* A new descriptor of the open file @kept's HpdKernel keeps for
 * @relative (KeptFiles says why), or -1. */
static int
dup_shared (KeptFiles *kept, const char *relative)
{
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = NULL;
  int fd;

  if (kept->shares == NULL || g_str_equal (relative, MOUNT_TABLE))
    return -1;
  locker = g_mutex_locker_new (&kept->shares->lock);
  fd = GPOINTER_TO_INT (g_hash_table_lookup (kept->shares->open, relative)) - 1;
  return fd >= 0 ? fcntl (fd, F_DUPFD_CLOEXEC, 0) : -1;
}

/* @relative below @root, read whole for a reader that keeps its files in
 * @kept: through the descriptor kept open for it, else opened, read and
 * kept open when worth it (or closed). NULL with *@err the errno and
 * *@what the step that failed ("open", "read from"). */
static char *
read_kernel_file (KeptFiles *kept, const char *root, const char *relative, gboolean counter,
                  int *err, const char **what)
{
  gboolean is_mount_table = g_str_equal (relative, MOUNT_TABLE);
  gboolean keep = kept->keeps_open && worth_keeping_open (relative);
  g_autofree char *path = NULL;
  char *text;
  int fd;

  if (keep)
    {
      G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&kept->lock);

      fd = GPOINTER_TO_INT (g_hash_table_lookup (kept->open, relative)) - 1;
      if (fd >= 0)
        {
          /* kept open: sysfs or procfs, and below sys/ it is sysfs */
          text = is_mount_table ? read_mount_table (fd, &kept->mount_table, err)
                 : pread_whole (fd, counter, g_str_has_prefix (relative, "sys/"), err);
          if (text != NULL)
            return text;
          /* gone (a node taken offline) or failing: open it anew */
          g_hash_table_remove (kept->open, relative);
          close (fd);
        }
    }

  fd = keep ? dup_shared (kept, relative) : -1;
  if (fd < 0)
    {
      /* the path only for an open: most reads are of a file kept open */
      path = g_build_filename (root, relative, NULL);
      fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    }
  if (fd < 0)
    {
      *err = errno;
      *what = "open";
      return NULL;
    }
  text = pread_whole (fd, counter, FALSE, err);
  if (text == NULL)
    {
      close (fd);
      *what = "read from";
      return NULL;
    }
  if (keep && on_kernel_file_system (fd))
    {
      G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&kept->lock);

      if (g_hash_table_size (kept->open) < MAX_KEPT_OPEN &&
          !g_hash_table_contains (kept->open, relative))
        {
          g_hash_table_insert (kept->open, g_strdup (relative), GINT_TO_POINTER (fd + 1));
          /* read after the open, which starts the descriptor's count at
           * the table's: a change since is reported by the next poll() */
          if (is_mount_table)
            {
              g_free (kept->mount_table);
              kept->mount_table = g_strdup (text);
            }
          return text;
        }
    }
  close (fd);
  return text;
}

static gboolean
read_uncached (HpdKernel *self, const char *relative, gboolean counter, char **contents,
               GError **error)
{
  const char *what = NULL;
  int err = 0;

  *contents = read_kernel_file (&self->kept, self->root, relative, counter, &err, &what);
  if (*contents == NULL)
    {
      g_autofree char *path = hpd_kernel_path (self, relative);

      return set_file_error (error, err, what, path);
    }
  return TRUE;
}

/* Every read reads the file (no kernel file says when it changed,
 * hpd-fresh.h), except that reads on the main thread within one main loop
 * turn share one read of each file. */
static gboolean
read_file (HpdKernel *self, const char *relative, gboolean counter, HpdKernelPart part,
           char **contents, GError **error)
{
  const char *memo;
  gint writes;
  g_autoptr(GError) local = NULL;

  /* refused as hpd_kernel_path() refuses it (its critical, then the
   * error), without making the path of every read */
  if (relative == NULL || relative[0] == '/')
    {
      g_free (hpd_kernel_path (self, relative));
      return path_is_below_root (NULL, relative, error);
    }
  memo = hpd_kernel_turn_lookup (self, relative);
  if (memo != NULL)
    {
      *contents = g_strdup (memo);
      record_part (self, counter ? INPUT_COUNTER : INPUT_TEXT, relative, part, memo);
      return TRUE;
    }
  writes = hpd_kernel_get_writes (self);
  if (!read_uncached (self, relative, counter, contents, &local))
    {
      /* a file that is not there (an optional one) is an input too */
      if (local->domain == G_FILE_ERROR)
        {
          g_autofree char *failed = failure (local->code);

          record_part (self, counter ? INPUT_COUNTER : INPUT_TEXT, relative, part, failed);
        }
      else
        record (self, INPUT_TEXT, relative, NULL);
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  record_part (self, counter ? INPUT_COUNTER : INPUT_TEXT, relative, part, *contents);
  /* a counter's read that filled its buffer may not be the whole file, an
   * empty one is a plain file caught amid a write, read again
   * (hpd_kernel_read_counter) */
  if (!counter || (**contents != '\0' && strlen (*contents) < COUNTER_READ_MAX))
    hpd_kernel_turn_store (self, relative, writes, g_strdup (*contents), g_free);
  return TRUE;
}

/* sysfs and procfs: the running kernel's own files. */
static gboolean
is_kernel_file_system (const char *path)
{
  struct statfs fs;

  return statfs (path, &fs) == 0 &&
         ((unsigned long) fs.f_type == SYSFS_MAGIC || (unsigned long) fs.f_type == PROC_SUPER_MAGIC);
}

gboolean
hpd_kernel_read_text (HpdKernel *self, const char *relative, char **contents,
                      GError **error)
{
  return read_file (self, relative, FALSE, NULL, contents, error);
}

gboolean
hpd_kernel_read_text_part (HpdKernel *self, const char *relative, HpdKernelPart part,
                           char **contents, GError **error)
{
  return read_file (self, relative, FALSE, part, contents, error);
}

gboolean
hpd_kernel_read_fixed_at_boot (HpdKernel *self, const char *relative, char **contents,
                               GError **error)
{
  g_autofree char *path = hpd_kernel_path (self, relative);
  const char *kept;

  if (!path_is_below_root (path, relative, error))
    return FALSE;
  {
    G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->fixed_lock);

    kept = g_hash_table_lookup (self->fixed, relative);
    if (kept != NULL)
      {
        *contents = g_strdup (kept);
        return TRUE;
      }
  }
  /* a fake tree's file stands for another boot whenever a test writes it:
   * read it as any other (its changes are seen) */
  if (!is_kernel_file_system (path))
    return read_file (self, relative, FALSE, NULL, contents, error);
  if (!g_file_get_contents (path, contents, NULL, error))
    return FALSE;
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->fixed_lock);
  g_hash_table_replace (self->fixed, g_strdup (relative), g_strdup (*contents));
  return TRUE;
}

gboolean
hpd_kernel_read_link (HpdKernel *self, const char *relative, char **target,
                      GError **error)
{
  g_autofree char *path = hpd_kernel_path (self, relative);

  *target = g_file_read_link (path, error);
  record (self, INPUT_LINK, relative, *target);
  return *target != NULL;
}

gboolean
hpd_kernel_read_counter (HpdKernel *self, const char *relative, guint64 *value,
                         GError **error)
{
  g_autofree char *text = NULL;
  g_autoptr(GError) local_error = NULL;

  /* sysfs never reads back empty, but under --kernel-root a plain file is
   * empty between a writer's O_TRUNC and its write: look again, as long as
   * a write of ours is under way (our worker thread, which the scheduler
   * may hold back for a while between the two under load), and a few
   * times for another writer's */
  for (guint attempt = 0;; attempt++)
    {
      g_clear_pointer (&text, g_free);
      if (!read_file (self, relative, TRUE, NULL, &text, error))
        return FALSE;
      if (*text != '\0' || (attempt >= 2 && g_atomic_int_get (&self->writing) == 0))
        break;
      g_usleep (1000);
    }
  if (!hpd_parse_counter (text, value, &local_error))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "%s: %s", relative, local_error->message);
      return FALSE;
    }
  return TRUE;
}

static gboolean
write_once (HpdKernel *self, const char *relative, const char *buf, const char *shown,
            GError **error)
{
  g_autofree char *path = hpd_kernel_path (self, relative);
  size_t len = strlen (buf);
  ssize_t written;
  int fd, saved_errno;

  /* NULL for a path that is not relative (a bug, which was critical): an
   * error, not open (NULL) */
  if (path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "Not a path below the kernel root: %s", relative ? relative : "(null)");
      return FALSE;
    }

  /* O_TRUNC changes nothing on sysfs and procfs (a shell's `echo N >` uses
   * it too), but under --kernel-root the files are plain files, where a
   * shorter value must not leave the tail of a longer one behind. */
  g_atomic_int_inc (&self->writing);
  fd = open (path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    {
      saved_errno = errno;
      (void) g_atomic_int_add (&self->writing, -1);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   "Could not open %s: %s", path, g_strerror (saved_errno));
      return FALSE;
    }

  written = write (fd, buf, len);
  saved_errno = errno;
  close (fd);
  /* whatever was read before may be the state before this write; counted
   * before the write ends, so that a read that waited for the end finds
   * the turn's values dropped */
  g_atomic_int_inc (&self->writes);
  (void) g_atomic_int_add (&self->writing, -1);

  if (written < 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   "The kernel refused %s for %s: %s", shown, path, g_strerror (saved_errno));
      return FALSE;
    }
  if ((size_t) written != len)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   "The kernel took only %zd of %zu bytes written to %s", written, len, path);
      return FALSE;
    }
  return TRUE;
}

gboolean
hpd_kernel_write_counter (HpdKernel *self, const char *relative, guint64 value,
                          GError **error)
{
  char buf[32];
  char shown[32];

  g_snprintf (buf, sizeof buf, "%" G_GUINT64_FORMAT "\n", value);
  g_snprintf (shown, sizeof shown, "%" G_GUINT64_FORMAT, value);
  return write_once (self, relative, buf, shown, error);
}

gboolean
hpd_kernel_write_text (HpdKernel *self, const char *relative, const char *text,
                       GError **error)
{
  g_autofree char *buf = g_strconcat (text, "\n", NULL);
  g_autofree char *shown = g_strdup_printf ("'%s'", text);

  return write_once (self, relative, buf, shown, error);
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

static GPtrArray *
list_names (const char *path, GError **error)
{
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GPtrArray) names = NULL;
  const char *name;

  if (path == NULL)
    return NULL;
  dir = g_dir_open (path, 0, error);
  if (dir == NULL)
    return NULL;
  names = g_ptr_array_new_with_free_func (g_free);
  while ((name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  return g_steal_pointer (&names);
}

/* '/' is the one byte no name holds */
static char *
join_names (GPtrArray *names)
{
  GString *joined = g_string_new (NULL);

  for (guint i = 0; i < names->len; i++)
    g_string_append_printf (joined, "%s/", (const char *) g_ptr_array_index (names, i));
  return g_string_free (joined, FALSE);
}

GPtrArray *
hpd_kernel_list_dir (HpdKernel *self, const char *relative, GError **error)
{
  g_autofree char *path = hpd_kernel_path (self, relative);
  g_autoptr(GPtrArray) names = NULL;

  names = list_names (path, error);
  if (recording (self))
    {
      g_autofree char *joined = names != NULL ? join_names (names) : NULL;

      record (self, INPUT_DIR, relative, joined);
    }
  return g_steal_pointer (&names);
}

static gpointer
copy_name (gconstpointer name, gpointer user_data)
{
  return g_strdup (name);
}

GPtrArray *
hpd_kernel_list_dir_fixed_at_boot (HpdKernel *self, const char *relative, GError **error)
{
  g_autofree char *path = NULL;
  g_autoptr(GPtrArray) names = NULL;

  {
    G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->fixed_lock);
    GPtrArray *kept = g_hash_table_lookup (self->fixed_dirs, relative);

    if (kept != NULL)
      return g_ptr_array_copy (kept, copy_name, NULL);
  }
  names = hpd_kernel_list_dir (self, relative, error);
  if (names == NULL)
    return NULL;
  path = hpd_kernel_path (self, relative);
  /* a fake tree's directory stands for another boot whenever a test
   * changes it: listed at every call */
  if (path == NULL || !is_kernel_file_system (path))
    return g_steal_pointer (&names);
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->fixed_lock);
  g_hash_table_replace (self->fixed_dirs, g_strdup (relative), g_ptr_array_copy (names, copy_name, NULL));
  return g_steal_pointer (&names);
}

void
hpd_kernel_record_begin (HpdKernel *self)
{
  g_return_if_fail (self->record == NULL);
  self->record = g_ptr_array_new_with_free_func (input_free);
  self->record_by_key = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->record_paths = hpd_stat_paths_new ();
  self->record_begun_at = g_get_real_time ();
  self->record_thread = g_thread_self ();
  self->record_writes = hpd_kernel_get_writes (self);
  self->record_tainted = FALSE;
}

HpdKernelInputs *
hpd_kernel_record_end (HpdKernel *self)
{
  g_autoptr(GPtrArray) inputs = g_steal_pointer (&self->record);
  g_autoptr(GArray) paths = g_steal_pointer (&self->record_paths);
  HpdKernelInputs *result;

  g_return_val_if_fail (inputs != NULL, NULL);
  g_clear_pointer (&self->record_by_key, g_hash_table_unref);
  self->record_thread = NULL;
  /* a write through the service in between: what was read before it may
   * no longer be what a read gives, though a file read after it agrees */
  if (self->record_tainted || self->record_writes != hpd_kernel_get_writes (self))
    return NULL;
  result = g_new0 (HpdKernelInputs, 1);
  result->root = g_strdup (self->root);
  result->inputs = g_steal_pointer (&inputs);
  result->paths = g_steal_pointer (&paths);
  result->taken_at = self->record_begun_at;
  result->kernel = g_object_ref (self);
  kept_files_init (&result->kept, self->kept.keeps_open);
  result->kept.shares = &self->kept;
  return result;
}

void
hpd_kernel_inputs_free (HpdKernelInputs *inputs)
{
  if (inputs == NULL)
    return;
  g_ptr_array_unref (inputs->inputs);
  g_array_unref (inputs->paths);
  kept_files_clear (&inputs->kept);
  g_object_unref (inputs->kernel);
  g_free (inputs->root);
  g_free (inputs);
}

/* Read as HpdKernel reads (read_kernel_file), on the checker's own
 * descriptors (KeptFiles says why); a failure as read_file() records it. */
static char *
read_input (HpdKernelInputs *inputs, Input *input)
{
  const char *what = NULL;
  int err = 0;
  g_autofree char *text = read_kernel_file (&inputs->kept, inputs->root, input->relative,
                                            input->kind == INPUT_COUNTER, &err, &what);

  if (text == NULL)
    return failure (g_file_error_from_errno (err));
  return part_of (input->part, text);
}

static char *
take_input (HpdKernelInputs *inputs, Input *input)
{
  g_autofree char *path = NULL;

  switch (input->kind)
    {
    case INPUT_TEXT:
    case INPUT_COUNTER:
      return read_input (inputs, input);
    case INPUT_EXISTS:
      path = g_build_filename (inputs->root, input->relative, NULL);
      return g_strdup (g_file_test (path, G_FILE_TEST_EXISTS) ? "1" : "0");
    case INPUT_DIR:
      {
        g_autoptr(GPtrArray) names = NULL;

        path = g_build_filename (inputs->root, input->relative, NULL);
        names = list_names (path, NULL);
        return names != NULL ? join_names (names) : NULL;
      }
    case INPUT_LINK:
      path = g_build_filename (inputs->root, input->relative, NULL);
      return g_file_read_link (path, NULL);
    default:
      g_assert_not_reached ();
    }
}

void
hpd_kernel_record_path (HpdKernel *self, const char *path, gboolean link)
{
  if (self != NULL && recording (self))
    hpd_stat_paths_take (self->record_paths, path, link);
}

void
hpd_kernel_record_unchecked (HpdKernel *self)
{
  if (recording (self))
    self->record_tainted = TRUE;
}

gboolean
hpd_kernel_inputs_settled (HpdKernelInputs *inputs, gint64 settle_us)
{
  return hpd_stat_paths_settled (inputs->paths, inputs->taken_at, settle_us);
}

void
hpd_kernel_inputs_watch_paths (HpdKernelInputs *inputs, HpdPathWatch *watch, guint *watched,
                               guint *left)
{
  guint before = inputs->paths->len;

  for (guint i = inputs->paths->len; i-- > 0;)
    {
      const HpdStatPath *p = &g_array_index (inputs->paths, HpdStatPath, i);
      g_autoptr(GError) error = NULL;

      if (!hpd_path_watch_add (watch, p->path, HPD_PATH_WATCH_ROOT_WAY, &error))
        {
          g_debug ("%s is left to stat at each check: %s", p->path, error->message);
          continue;
        }
      /* watched from now on and unchanged since it was read: a change
       * made in between cannot be missed */
      if (hpd_stat_path_unchanged (p))
        g_array_remove_index_fast (inputs->paths, i);
    }
  *left = inputs->paths->len;
  *watched = before - *left;
}

gboolean
hpd_kernel_inputs_unchanged (HpdKernelInputs *inputs)
{
  if (!hpd_stat_paths_unchanged (inputs->paths))
    return FALSE;
  for (guint i = 0; i < inputs->inputs->len; i++)
    {
      Input *input = g_ptr_array_index (inputs->inputs, i);
      g_autofree char *now = take_input (inputs, input);

      if (now == NULL || !g_str_equal (now, input->expected))
        return FALSE;
    }
  return TRUE;
}

guint
hpd_kernel_inputs_count (HpdKernelInputs *inputs)
{
  return inputs->inputs->len + inputs->paths->len;
}
