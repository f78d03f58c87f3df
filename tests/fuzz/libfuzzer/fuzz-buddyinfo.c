/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* /proc/buddyinfo, /proc/zoneinfo and /proc/pagetypeinfo
 * (src/kernel/hpd-parse.c): the free memory Explain reports and the zones and
 * pageblock min_free_kbytes' advice counts. */
#include "config.h"

#include <string.h>

#include "fuzz-common.h"
#include "hpd-parse.h"

static guint
count_prefixed_lines (const char *text, const char *prefix)
{
  guint n = 0;

  for (const char *line = text; line != NULL; line = strchr (line, '\n'), line = line ? line + 1 : NULL)
    n += g_str_has_prefix (line, prefix);
  return n;
}

/* @order comes from the input: each parse splits every line into fields,
 * so checking all orders every time would slow the fuzzing down tenfold. */
static void
check_buddyinfo (const char *text, guint order)
{
  int max_order = hpd_parse_buddyinfo_max_order (text);
  guint64 all = hpd_parse_buddyinfo_blocks (text, 0);
  guint64 blocks = hpd_parse_buddyinfo_blocks (text, order);
  guint64 next = hpd_parse_buddyinfo_blocks (text, order + 1);

  FUZZ_CHECK (max_order >= -1 && max_order <= 62, "max order %d", max_order);
  FUZZ_CHECK (max_order == -1 || count_prefixed_lines (text, "Node ") > 0, "order without a zone");

  /* the zones, the key of the populated-zone count: one line for each
   * line of the text that names one, each a prefix of it */
  {
    g_autofree char *zones = hpd_parse_buddyinfo_zones (text);
    guint listed = count_prefixed_lines (zones, "Node ");
    guint lines = 0;

    FUZZ_CHECK (listed <= count_prefixed_lines (text, "Node "), "%u zones listed", listed);
    FUZZ_CHECK (*zones == '\0' || g_str_has_suffix (zones, "\n"), "'%s'", zones);
    for (const char *p = zones; *p != '\0'; p++)
      lines += *p == '\n';
    FUZZ_CHECK (lines == listed, "'%s'", zones);
    FUZZ_CHECK (strlen (zones) <= strlen (text) + listed, "'%s'", zones);
  }

  /* a block of order k is two of order k - 1: each order can give at most
   * half the pages of the order below, and the sums saturate, not wrap */
  FUZZ_CHECK (blocks <= all, "order %u: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT,
              order, blocks, all);
  FUZZ_CHECK (blocks == G_MAXUINT64 ? next <= blocks : next <= blocks / 2,
              "order %u: %" G_GUINT64_FORMAT ", order %u: %" G_GUINT64_FORMAT,
              order, blocks, order + 1, next);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = fuzz_cstring (data, size);
  guint zones = hpd_parse_zoneinfo_populated (text);
  guint64 block_pages = hpd_parse_pagetypeinfo_block_pages (text);

  /* orders 0 to 69: past the largest the kernel has, and past 64 */
  check_buddyinfo (text, size > 0 ? data[size - 1] % 70 : 0);
  FUZZ_CHECK (zones <= count_prefixed_lines (text, "Node "), "%u zones", zones);
  FUZZ_CHECK (block_pages == 0 || strstr (text, "Pages per block:") != NULL, "block pages");
  return 0;
}
