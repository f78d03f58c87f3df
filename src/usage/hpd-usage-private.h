/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Shared by the files of GetUsage's scan and RemoveOrphan
 * (hpd-usage*.c) only: the scan's bounds and state, what it found, and
 * the readers below the root. */

#pragma once

#include <gio/gio.h>
#include <sys/types.h>

#include "hpd-kernel.h"
#include "hpd-mounts.h"
#include "hpd-usage-parse.h"
#include "hpd-usage.h"

G_BEGIN_DECLS

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

typedef struct {
  char *path;
  guint64 page_size;
  guint64 min_size;    /* bytes the mount reserved (min_size=) */
  dev_t dev;
} UsageMount;

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

/* What one SysV segment's attachers showed. */
typedef struct {
  gint32 key;
  guint64 ino;          /* == shmid */
  guint64 page_size;    /* 0: seen only with base pages */
  guint64 bytes;        /* largest faulted huge page memory one attacher showed */
  GArray *pids;         /* guint32 */
} SeenSegment;

/* A shared object other than a hugetlbfs file in a walked mount (an
 * anonymous shared mapping's inode, a memfd, a segment): its pages are
 * counted once, with the most any process showed. */
typedef struct {
  guint64 page_size;
  guint64 bytes;
  guint64 reserved_bytes;
} SharedObject;

typedef struct {
  Scan *scan;
  GPtrArray *processes;       /* UsageProcess, reported ones */
  GHashTable *segments;       /* shmid -> SeenSegment */
  GHashTable *objects;        /* inode key -> SharedObject */
  GHashTable *private_bytes;  /* page size -> guint64 *: private pages, summed */
  GHashTable *reserved_bytes; /* page size -> guint64 *: reservations of private VMAs */
} ProcScan;

int hpd_usage_read_at (int dir_fd, const char *name, gsize max, char **text);

gboolean hpd_usage_vanished (int error_number);

char *hpd_usage_user_name (guint32 uid);

char *hpd_usage_bus_text (const char *text);

void hpd_usage_mount_free (UsageMount *m);

void hpd_usage_file_free (UsageFile *f);

guint64 hpd_usage_dev_key (guint32 major_number, guint32 minor_number);

guint64 hpd_usage_dev_key_of (dev_t dev);

guint64 *hpd_usage_inode_key_new (guint64 dev, guint64 ino);

guint hpd_usage_inode_key_hash (gconstpointer p);

gboolean hpd_usage_inode_key_equal (gconstpointer a, gconstpointer b);

int hpd_usage_open_no_links (const char *path, int last_flags, GError **error);

gboolean hpd_usage_mount_is_usable (HpdKernel *kernel, const char *path, int fd);

gboolean hpd_usage_path_is_below_root (HpdKernel *kernel, const char *path);

gboolean hpd_usage_out_of_time (Scan *s);

void hpd_usage_read_mounts (Scan *s, gboolean walk_files);

void hpd_usage_process_free (UsageProcess *p);

void hpd_usage_seen_segment_free (SeenSegment *seg);

int hpd_usage_compare_pids (gconstpointer a, gconstpointer b);

void hpd_usage_scan_processes (ProcScan *ps);

GVariant *hpd_usage_pids_variant (GArray *pids, GHashTable *visible);

GVariant *hpd_usage_sysv_variant (Scan *s, GHashTable *segments, GHashTable *visible_pids);

GVariant *hpd_usage_cgroups_variant (Scan *s);

GVariant *hpd_usage_unattributed_variant (Scan *s, ProcScan *ps);

G_END_DECLS
