/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Strict parsing and formatting of page sizes and page amounts, shared by
 * the daemon and hugepagesctl. Unlike hugeadm there is no octal, no trailing
 * garbage, no silent truncation and no wrap-around: anything doubtful is an
 * error. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  HP_AMOUNT_SET,
  HP_AMOUNT_ADD,
  HP_AMOUNT_REMOVE,
} HpAmountKind;

typedef struct {
  HpAmountKind kind;
  guint64 pages;
} HpAmount;

/* Decimal digits only, no sign, no spaces, no overflow. */
gboolean hp_parse_u64 (const char *text, guint64 *value, GError **error);
/* The same, at most G_MAXUINT32 (uids, gids, ids, mount ids). */
gboolean hp_parse_u32 (const char *text, guint32 *value, GError **error);

/* A size in bytes: "2097152", "2M", "2MB", "2MiB", "2048kB", "1G", ...
 * Units are binary (K = 1024): K, M, G or T, alone or with B or iB, or B
 * alone, each in any case ("2mb", "2Mb", "1g"). */
gboolean hp_parse_size (const char *text, guint64 *bytes, GError **error);

/* A number of pages ("512") or an amount of memory ("1G", "512M"), with an
 * optional leading '+' or '-' for a relative change. Memory must be a whole
 * number of pages of @page_size. */
gboolean hp_parse_amount (const char *text, guint64 page_size, HpAmount *amount,
                          GError **error);

/* Applies @amount to @current; removing more than there is, or adding past
 * 2^64-1, is an error. */
gboolean hp_amount_resolve (const HpAmount *amount, guint64 current,
                            guint64 *result, GError **error);

/* "2MB", "1GB", "64KB": the names hugeadm uses for mount directories. */
char *hp_size_name (guint64 bytes);

/* "23.5 GiB", "512 bytes": ASCII only (g_format_size puts a no-break space
 * in, which shows as '?' outside UTF-8 locales). */
char *hp_format_bytes (guint64 bytes);

/* Checked pages × size. */
gboolean hp_pages_to_bytes (guint64 pages, guint64 page_size, guint64 *bytes);

/* Counts that saturate instead of wrapping: a sum past 2^64-1 is 2^64-1
 * (then refused by the memory limit, never taken for a small number), a
 * difference below 0 is 0 (a racing read of the kernel's counters may see
 * more surplus than total). Every sum and difference of pages uses these. */
guint64 hp_add_saturating (guint64 a, guint64 b);
guint64 hp_sub_saturating (guint64 a, guint64 b);

G_END_DECLS
