/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Parsers for the text the kernel hands us. Pure functions: no I/O, so the
 * unit tests and fuzzers can feed them anything. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A sysfs/procfs counter: decimal digits, optionally followed by one
 * newline. Anything else is an error. */
gboolean hpd_parse_counter (const char *text, guint64 *value, GError **error);

/* The value of @key in /proc/meminfo-style text ("Key:   123 kB"), in the
 * file's unit (kB, or pages for HugePages_*). */
gboolean hpd_parse_meminfo (const char *text, const char *key, guint64 *value);
/* MemTotal and Hugepagesize as hpd_parse_meminfo() gives them, in one
 * text: the part of proc/meminfo that does not change by itself, for a
 * reader that uses no more (hpd_kernel_read_text_part()). */
char *hpd_parse_meminfo_sizes (const char *text);

/* A kernel list such as "0-3,8,10-11\n" (sysfs node/online). Returns a
 * sorted array of guint without duplicates, or NULL on malformed input. */
GArray *hpd_parse_node_list (const char *text, GError **error);

/* "hugepages-2048kB" -> 2048. */
gboolean hpd_parse_hugepages_dir (const char *name, guint64 *size_kb);

/* demote_size contents such as "2048kB\n" -> bytes. */
gboolean hpd_parse_demote_size (const char *text, guint64 *bytes);

/* Largest buddy allocator order in /proc/buddyinfo (columns minus one), or
 * -1 when the text has no zone line. */
int hpd_parse_buddyinfo_max_order (const char *text);

/* A THP choice file such as "always [madvise] never\n": the bracketed
 * current value and every allowed value, in order. */
gboolean hpd_parse_thp_choice (const char *text, char **current, GStrv *choices);

/* Populated DMA, DMA32 and Normal zones in /proc/zoneinfo (managed > 0),
 * over all nodes: the zones the kernel's min_free_kbytes advice counts. */
guint hpd_parse_zoneinfo_populated (const char *text);

/* "Pages per block:  512" in /proc/pagetypeinfo, 0 if absent. */
guint64 hpd_parse_pagetypeinfo_block_pages (const char *text);

/* Pages of 2^@order base pages that the free lists of /proc/buddyinfo could
 * give right now: every free block of that order or larger, split. */
guint64 hpd_parse_buddyinfo_blocks (const char *text, guint order);

/* The zones /proc/buddyinfo lists (the populated ones, present pages > 0),
 * one "Node N, zone NAME" a line with the free counts left out: what
 * changes only when memory is onlined or offlined. */
char *hpd_parse_buddyinfo_zones (const char *text);

/* @text as a bus string (UTF-8 only) or a log line may carry it: bytes
 * that are not UTF-8 text, and control characters, become \xNN. For
 * text the kernel or the file system hands over as bytes: values of the
 * kernel command line, file names. */
char *hpd_parse_printable (const char *text);

G_END_DECLS
