/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Parsers for the per-process and SysV text GetUsage reads: maps, smaps
 * (and smaps_rollup, which has the same shape), status, /proc/sysvipc/shm
 * and the hugetlb cgroup's events files. Pure functions: no I/O, so unit
 * tests can feed them anything. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* One mapping: a maps line, with the smaps fields that follow it (zero
 * when the text is maps, which has none). */
typedef struct {
  guint64 start;
  guint64 end;
  guint32 dev_major;
  guint32 dev_minor;
  guint64 inode;
  char *path;              /* as the kernel printed it, " (deleted)" kept; NULL if none */
  guint64 kernel_page_size; /* bytes, 0 when smaps did not say */
  guint64 shared_hugetlb;   /* bytes */
  guint64 private_hugetlb;  /* bytes */
  gboolean hugetlb_flag;    /* "ht" in VmFlags */
} HpdMapping;

/* Walks @text (up to @end) line by line without splitting it: each call
 * copies the next line, without its '\n', into @line and moves @cursor
 * past it; FALSE at the end. Lines are found with memchr, so a walk costs
 * the text's length once, also under AddressSanitizer, whose strstr
 * measures the whole rest of the text at every line of a g_strsplit (a
 * scan of processes with tens of thousands of mappings was quadratic
 * there). */
gboolean hpd_usage_next_line (const char **cursor, const char *end, GString *line);

/* Every mapping of maps or smaps text (smaps_rollup is one "[rollup]"
 * mapping with the sums), in order, as a GArray of HpdMapping that frees
 * the paths. NULL with an error on a line that is neither a mapping nor a
 * "Name: value" field; a field line before any mapping is an error too. */
GArray *hpd_usage_parse_smaps (const char *text, GError **error);

/* The real and effective uid of a /proc/PID/status text ("Uid:" line). */
gboolean hpd_usage_parse_status_uids (const char *text, guint32 *real_uid,
                                      guint32 *effective_uid);

/* The SysV segment a mapping name stands for: "/SYSV0000abcd (deleted)"
 * gives the key 0xabcd (the kernel prints the key as %08x). */
gboolean hpd_usage_parse_sysv_name (const char *path, gint32 *key);

typedef struct {
  gint32 key;
  guint32 shmid;
  guint32 perms;
  guint64 size;       /* bytes */
  guint32 cpid;
  guint32 lpid;
  guint64 nattch;
  guint32 uid;
  guint32 gid;
  guint32 cuid;
  guint32 cgid;
  gboolean has_rss;
  guint64 rss;        /* bytes, see hpd-usage.c on hugetlb segments */
} HpdShmSegment;

/* The rows of /proc/sysvipc/shm, by the column names of its header line
 * (columns the kernel adds later are ignored). GArray of HpdShmSegment;
 * NULL with an error when the header lacks a needed column or a row is
 * malformed. */
GArray *hpd_usage_parse_sysvipc_shm (const char *text, GError **error);

/* The "max N" count of a hugetlb.<size>.events file. */
gboolean hpd_usage_parse_hugetlb_events (const char *text, guint64 *max_events);

/* A hugetlb cgroup limit: bytes, or "max" (G_MAXUINT64). Values at or
 * above PAGE_COUNTER_MAX x 4096, which 6.18 shows for a new cgroup, are
 * unlimited too. */
gboolean hpd_usage_parse_cgroup_limit (const char *text, guint64 *bytes);

/* "hugetlb.2MB.current" -> 2 MiB, "hugetlb.64KB.current" -> 64 KiB: the
 * size part of the cgroup file names; FALSE for other names. */
gboolean hpd_usage_parse_cgroup_file (const char *name, guint64 *page_size);

G_END_DECLS
