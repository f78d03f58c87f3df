/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Contents of kernel files kept between reads where that is safe, so that a
 * read of many files (64 nodes × 5 page sizes are nearly a thousand counter
 * files) costs no syscall per file when nothing changed.
 *
 * Safe means: every change of the file, its directory or a directory above
 * it (up to the kernel root) is reported by inotify before the syscall that
 * made it returns. That holds for ordinary local file systems (ext4, tmpfs,
 * xfs, btrfs: a fake tree under --kernel-root) and not for sysfs and procfs,
 * whose values change without any event: their files are never kept, and
 * are read each time as before. Each lookup first drains the inotify queue
 * (one read() that usually returns EAGAIN), and any event empties the
 * cache, so a write behind the service's back that finished before a read
 * began is always seen, whatever its size and timestamps.
 *
 * Not seen: a file system mounted over a watched directory (mounts make no
 * inotify event) and writes through a shared mapping (they make none until
 * the writer closes the file). Neither happens to a kernel tree.
 *
 * Thread-safe: jobs read and write kernel files from the worker thread. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _HpdFileCache HpdFileCache;

typedef enum {
  HPD_FILE_KIND_UNKNOWN,    /* not below the root, or not looked at yet */
  HPD_FILE_KIND_CACHEABLE,  /* watched: contents may be kept */
  HPD_FILE_KIND_PSEUDO,     /* sysfs or procfs: a read of offset 0 gets the
                             * whole value, which is never kept */
  HPD_FILE_KIND_OTHER,      /* anything else: read each time */
} HpdFileKind;

/* Files below @root (absolute) only. */
HpdFileCache *hpd_file_cache_new (const char *root);
void hpd_file_cache_free (HpdFileCache *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HpdFileCache, hpd_file_cache_free)

/* The kept contents of @path (absolute, as built from the root), a copy with
 * a terminating NUL beyond @length; FALSE when there are none. */
gboolean hpd_file_cache_lookup (HpdFileCache *self, const char *path,
                                char **contents, gsize *length);

/* Call before reading @path (after a lookup that found nothing): sets up
 * the watches that make it cacheable and says what kind of file it is.
 * Watches come first, so that a change made while the caller reads is
 * reported afterwards. @generation is for hpd_file_cache_store(). */
HpdFileKind hpd_file_cache_prepare (HpdFileCache *self, const char *path,
                                    guint64 *generation);

/* Keeps what was read from a file that hpd_file_cache_prepare() called
 * cacheable (unless the cache was emptied since). */
void hpd_file_cache_store (HpdFileCache *self, const char *path, guint64 generation,
                           const char *contents, gsize length);

/* The same for a directory that is listed, or whose entries are looked up. */
HpdFileKind hpd_file_cache_prepare_dir (HpdFileCache *self, const char *dir);

/* Changes every time the kept files are forgotten, that is, whenever
 * something below a watched directory changed (events are read first). */
guint64 hpd_file_cache_get_generation (HpdFileCache *self);

/* For tests: how many lookups found kept contents, and how many times an
 * event emptied the cache. */
void hpd_file_cache_get_stats (HpdFileCache *self, guint64 *hits, guint64 *flushes);

G_END_DECLS
