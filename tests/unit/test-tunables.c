/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The tunables: THP choice files, zoneinfo, pagetypeinfo and buddyinfo
 * parsers fed with files from a real 6.18 kernel and hand-made odd ones,
 * the min_free_kbytes and shmall formulas, and hpd_tunables_read on a
 * temporary tree with and without each optional file. */
#include "config.h"

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hp-names.h"
#include "hpd-methods.h"
#include "hpd-kernel.h"
#include "hpd-parse.h"
#include "hpd-test-util.h"
#include "hpd-tunables.h"

static guint64
base_page (void)
{
  return (guint64) sysconf (_SC_PAGESIZE);
}

/* --- hpd_parse_thp_choice ------------------------------------------------ */

static void
assert_choice (const char *text, const char *current, const char *const *choices)
{
  g_autofree char *got = NULL;
  g_auto(GStrv) list = NULL;

  g_assert_true (hpd_parse_thp_choice (text, &got, &list));
  g_assert_cmpstr (got, ==, current);
  g_assert_cmpstrv (list, choices);
}

static void
test_thp_choice_real (void)
{
  const char *const enabled[] = { "always", "madvise", "never", NULL };
  const char *const defrag[] = { "always", "defer", "defer+madvise", "madvise", "never", NULL };
  const char *const shmem[] = { "always", "within_size", "advise", "never", "deny", "force", NULL };
  const char *const mthp[] = { "always", "inherit", "madvise", "never", NULL };
  const char *const mthp_shmem[] = { "always", "inherit", "within_size", "advise", "never", NULL };
  g_autofree char *e = hpd_test_fixture ("thp-enabled-6.18");
  g_autofree char *d = hpd_test_fixture ("thp-defrag-6.18");
  g_autofree char *s = hpd_test_fixture ("thp-shmem_enabled-6.18");
  g_autofree char *m64 = hpd_test_fixture ("thp-64kB-enabled-6.18");
  g_autofree char *m64s = hpd_test_fixture ("thp-64kB-shmem_enabled-6.18");
  g_autofree char *m2048 = hpd_test_fixture ("thp-2048kB-enabled-6.18");

  /* as this machine had them: THP madvise, the PMD size inheriting it */
  g_assert_cmpstr (e, ==, "always [madvise] never\n");
  assert_choice (e, "madvise", enabled);
  assert_choice (d, "madvise", defrag);
  assert_choice (s, "never", shmem);
  assert_choice (m64, "never", mthp);
  assert_choice (m64s, "never", mthp_shmem);
  assert_choice (m2048, "inherit", mthp);
}

static void
test_thp_choice_edges (void)
{
  const char *const three[] = { "always", "madvise", "never", NULL };
  const char *const two[] = { "a", "b", NULL };

  /* the current value may be anywhere; spaces around and between are fine */
  assert_choice ("[always] madvise never\n", "always", three);
  assert_choice ("always madvise [never]", "never", three);
  assert_choice ("  always   [madvise]  never  \n", "madvise", three);
  assert_choice ("[a] b", "a", two);
  assert_choice ("a [b]\n\n", "b", two);
}

static void
test_thp_choice_bad (void)
{
  const char *bad[] = {
    "",
    "\n",
    "always madvise never\n",        /* brackets missing */
    "[always] [madvise] never\n",    /* doubled */
    "[always] madvise [never]\n",
    "[[always]] madvise never\n",    /* nested */
    "[] always never\n",             /* empty */
    "[always madvise never\n",       /* unbalanced */
    "always madvise] never\n",
    "always [mad vise] never\n",     /* a space inside */
    "[madvise]\n",                   /* a single value is no choice */
    "always\t[madvise]\tnever\n",    /* the kernel separates with spaces */
    "always [madvise] n\xc3\xa9ver\n",
    "always [madvise] never\n\x01",
    "always [madvise] never; rm -rf /\n",
    "1 [2] 3=4\n",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      char *current = (char *) 0x1;
      GStrv choices = (GStrv) 0x1;

      g_test_message ("THP choice text %" G_GSIZE_FORMAT, i);
      g_assert_false (hpd_parse_thp_choice (bad[i], &current, &choices));
      /* nothing is handed out on failure */
      g_assert_true (current == (char *) 0x1);
      g_assert_true (choices == (GStrv) 0x1);
    }
  {
    char *current = NULL;
    GStrv choices = NULL;
    g_assert_false (hpd_parse_thp_choice (NULL, &current, &choices));
  }
}

/* --- hpd_parse_zoneinfo_populated ---------------------------------------- */

static void
test_zoneinfo (void)
{
  g_autofree char *real = hpd_test_fixture ("zoneinfo-6.18");
  g_autofree char *two = hpd_test_fixture ("zoneinfo-2node");
  g_autofree char *odd = hpd_test_fixture ("zoneinfo-odd");

  /* DMA, DMA32, Normal; Movable and Device are listed but empty */
  g_assert_cmpuint (hpd_parse_zoneinfo_populated (real), ==, 3);
  /* node 0: DMA DMA32 Normal; node 1: Normal (its DMA and DMA32 are empty,
   * its populated Movable zone is not one the kernel counts) */
  g_assert_cmpuint (hpd_parse_zoneinfo_populated (two), ==, 4);
  /* DMA with managed 0, Normal without a managed line, HighMem, an unknown
   * zone name, a garbage count and a nameless zone do not count; DMA32 of
   * node 0 and Normal of node 2 do */
  g_assert_cmpuint (hpd_parse_zoneinfo_populated (odd), ==, 2);

  g_assert_cmpuint (hpd_parse_zoneinfo_populated (NULL), ==, 0);
  g_assert_cmpuint (hpd_parse_zoneinfo_populated (""), ==, 0);
  g_assert_cmpuint (hpd_parse_zoneinfo_populated ("garbage\nmanaged 5\n"), ==, 0);
  g_assert_cmpuint (hpd_parse_zoneinfo_populated ("Node 0, zone   Normal\n  managed  1\n"), ==, 1);
  g_assert_cmpuint (hpd_parse_zoneinfo_populated ("Node 0, zone   Normal\n  managed  0\n"), ==, 0);
  /* one managed line per zone: a second one does not count the zone twice */
  g_assert_cmpuint (hpd_parse_zoneinfo_populated ("Node 0, zone   Normal\n  managed  1\n  managed  2\n"), ==, 1);
  g_assert_cmpuint (hpd_parse_zoneinfo_populated ("Node 0, zone   Normal\n  managed  -1\n"), ==, 0);
  g_assert_cmpuint (hpd_parse_zoneinfo_populated ("Node 0, zone   Normal\n  managed  99999999999999999999999\n"), ==, 0);
  g_assert_cmpuint (hpd_parse_zoneinfo_populated ("Node 0, zone   normal\n  managed  1\n"), ==, 0);
  g_assert_cmpuint (hpd_parse_zoneinfo_populated ("Node 0, zone   Movable\n  managed  1\n"), ==, 0);
  g_assert_cmpuint (hpd_parse_zoneinfo_populated ("Node 0, zone   Device\n  managed  1\n"), ==, 0);
}

/* --- hpd_parse_pagetypeinfo_block_pages ---------------------------------- */

static void
test_pagetypeinfo (void)
{
  g_autofree char *real = hpd_test_fixture ("pagetypeinfo-6.18");

  g_assert_cmpuint (hpd_parse_pagetypeinfo_block_pages (real), ==, 512);
  g_assert_cmpuint (hpd_parse_pagetypeinfo_block_pages ("Page block order: 13\nPages per block:  8192\n"), ==, 8192);
  g_assert_cmpuint (hpd_parse_pagetypeinfo_block_pages ("Pages per block: 1024"), ==, 1024);
  g_assert_cmpuint (hpd_parse_pagetypeinfo_block_pages ("Page block order: 9\n"), ==, 0);
  g_assert_cmpuint (hpd_parse_pagetypeinfo_block_pages ("Pages per block:\n512\n"), ==, 0);
  g_assert_cmpuint (hpd_parse_pagetypeinfo_block_pages ("Pages per block:  abc\n"), ==, 0);
  g_assert_cmpuint (hpd_parse_pagetypeinfo_block_pages ("Pages per block:  -512\n"), ==, 0);
  g_assert_cmpuint (hpd_parse_pagetypeinfo_block_pages ("Pages per block:  5 12\n"), ==, 0);
  g_assert_cmpuint (hpd_parse_pagetypeinfo_block_pages ("Pages per block:  99999999999999999999999\n"), ==, 0);
  g_assert_cmpuint (hpd_parse_pagetypeinfo_block_pages (""), ==, 0);
  g_assert_cmpuint (hpd_parse_pagetypeinfo_block_pages (NULL), ==, 0);
}

/* --- hpd_parse_buddyinfo_blocks ------------------------------------------ */

static void
test_buddyinfo_blocks (void)
{
  g_autofree char *real = hpd_test_fixture ("buddyinfo-6.18");
  g_autofree char *two = hpd_test_fixture ("buddyinfo-2node");

  /* order 0: every free base page; order 9: 2 MiB blocks; 10: 4 MiB */
  g_assert_cmpuint (hpd_parse_buddyinfo_blocks (real, 0), ==, 1025667);
  g_assert_cmpuint (hpd_parse_buddyinfo_blocks (real, 9), ==, 1888);
  g_assert_cmpuint (hpd_parse_buddyinfo_blocks (real, 10), ==, 934);
  g_assert_cmpuint (hpd_parse_buddyinfo_blocks (real, 11), ==, 0);
  g_assert_cmpuint (hpd_parse_buddyinfo_blocks (real, 18), ==, 0);
  /* both nodes add up */
  g_assert_cmpuint (hpd_parse_buddyinfo_blocks (two, 0), ==, 810989);
  g_assert_cmpuint (hpd_parse_buddyinfo_blocks (two, 9), ==, 1499);
  g_assert_cmpuint (hpd_parse_buddyinfo_blocks (two, 10), ==, 746);

  g_assert_cmpuint (hpd_parse_buddyinfo_blocks (NULL, 0), ==, 0);
  g_assert_cmpuint (hpd_parse_buddyinfo_blocks ("", 0), ==, 0);
  g_assert_cmpuint (hpd_parse_buddyinfo_blocks ("garbage 1 2 3\n", 0), ==, 0);
  g_assert_cmpuint (hpd_parse_buddyinfo_blocks ("Node 0, zone Normal\n", 0), ==, 0);
  /* arm64 with 64K pages: 14 orders, the 512 MiB pageblock is order 13 */
  g_assert_cmpuint (hpd_parse_buddyinfo_blocks ("Node 0, zone   Normal  1 0 0 0 0 0 0 0 0 0 0 0 0 2\n", 13), ==, 2);
  g_assert_cmpuint (hpd_parse_buddyinfo_blocks ("Node 0, zone   Normal  1 0 0 0 0 0 0 0 0 0 0 0 0 2\n", 12), ==, 4);
  g_assert_cmpuint (hpd_parse_buddyinfo_blocks ("Node 0, zone   Normal  1 0 0 0 0 0 0 0 0 0 0 0 0 2\n", 0),
                    ==, 1 + (2 << 13));
  /* a garbage count ends that line, not the others */
  g_assert_cmpuint (hpd_parse_buddyinfo_blocks ("Node 0, zone Normal 1 x 4\nNode 1, zone Normal 2 2\n", 0), ==, 1 + 2 + 4);
  /* tabs and runs of spaces */
  g_assert_cmpuint (hpd_parse_buddyinfo_blocks ("Node 0, zone\tNormal\t\t3   1\n", 1), ==, 1);
}

/* --- hpd_parse_buddyinfo_zones ------------------------------------------- */

static void
test_buddyinfo_zones (void)
{
  g_autofree char *two = hpd_test_fixture ("buddyinfo-2node");
  g_autofree char *zones = hpd_parse_buddyinfo_zones (two);
  g_autofree char *none = hpd_parse_buddyinfo_zones (NULL);
  g_autofree char *garbage = hpd_parse_buddyinfo_zones ("garbage 1 2\nNode 0 without\n");
  g_autofree char *tabs = hpd_parse_buddyinfo_zones ("Node 0, zone\tNormal\t\t3   1");
  g_autofree char *free_a = hpd_parse_buddyinfo_zones ("Node 0, zone   Normal   1 2 3\n");
  g_autofree char *free_b = hpd_parse_buddyinfo_zones ("Node 0, zone   Normal   7 0 9\n");

  /* the zones, not the free counts, which change all the time */
  g_assert_cmpstr (zones, ==,
                   "Node 0, zone      DMA\n"
                   "Node 0, zone    DMA32\n"
                   "Node 0, zone   Normal\n"
                   "Node 1, zone   Normal\n");
  g_assert_cmpstr (none, ==, "");
  g_assert_cmpstr (garbage, ==, "");
  g_assert_cmpstr (tabs, ==, "Node 0, zone\tNormal\n");
  g_assert_cmpstr (free_a, ==, free_b);
}

static void
test_buddyinfo_overflow (void)
{
  g_autoptr(GString) wide = g_string_new ("Node 0, zone   Normal");
  g_autoptr(GString) zeros = g_string_new ("Node 0, zone   Normal");
  g_autofree char *huge = NULL;
  g_autofree char *sum = NULL;

  /* 70 orders: order 69 split into order 0 would be 2^69 pages */
  for (guint i = 0; i < 70; i++)
    g_string_append (wide, i == 69 ? " 1" : " 0");
  g_string_append_c (wide, '\n');
  g_assert_cmpuint (hpd_parse_buddyinfo_blocks (wide->str, 0), ==, G_MAXUINT64);
  g_assert_cmpuint (hpd_parse_buddyinfo_blocks (wide->str, 69), ==, 1);
  g_assert_cmpuint (hpd_parse_buddyinfo_blocks (wide->str, 6), ==, G_GUINT64_CONSTANT (1) << 63);
  g_assert_cmpuint (hpd_parse_buddyinfo_blocks (wide->str, 5), ==, G_MAXUINT64);

  /* empty high orders add nothing, however high they are */
  for (guint i = 0; i < 70; i++)
    g_string_append (zeros, i == 0 ? " 3" : " 0");
  g_string_append_c (zeros, '\n');
  g_assert_cmpuint (hpd_parse_buddyinfo_blocks (zeros->str, 0), ==, 3);

  /* the largest count, shifted, saturates instead of wrapping */
  huge = g_strdup_printf ("Node 0, zone Normal %" G_GUINT64_FORMAT " 1\n", G_MAXUINT64);
  g_assert_cmpuint (hpd_parse_buddyinfo_blocks (huge, 0), ==, G_MAXUINT64);
  g_assert_cmpuint (hpd_parse_buddyinfo_blocks (huge, 1), ==, 1);
  /* and so does a sum over lines */
  sum = g_strdup_printf ("Node 0, zone Normal %" G_GUINT64_FORMAT "\nNode 1, zone Normal 5\n",
                         G_MAXUINT64 - 2);
  g_assert_cmpuint (hpd_parse_buddyinfo_blocks (sum, 0), ==, G_MAXUINT64);
  /* a count past 64 bits is garbage */
  g_assert_cmpuint (hpd_parse_buddyinfo_blocks ("Node 0, zone Normal 18446744073709551616 1\n", 0), ==, 0);
}

/* --- formulas ------------------------------------------------------------- */

static void
test_recommend_min_free_kbytes (void)
{
  g_autofree char *zoneinfo = hpd_test_fixture ("zoneinfo-6.18");
  g_autofree char *pagetypeinfo = hpd_test_fixture ("pagetypeinfo-6.18");
  g_autofree char *two = hpd_test_fixture ("zoneinfo-2node");
  guint zones = hpd_parse_zoneinfo_populated (zoneinfo);
  guint64 block_kb = hpd_parse_pagetypeinfo_block_pages (pagetypeinfo) * 4;

  /* this machine: 3 populated zones, 512-page (2048 kB) pageblocks, 24 GB:
   * what the kernel itself had set; hugeadm's 11 x 2048 x 5 zone lines
   * would be 112640 */
  g_assert_cmpuint (zones, ==, 3);
  g_assert_cmpuint (block_kb, ==, 2048);
  g_assert_cmpuint (hpd_recommend_min_free_kbytes (zones, block_kb, 24683568), ==, 67584);
  g_assert_cmpuint (hpd_recommend_min_free_kbytes (zones, block_kb, 24683568), !=, 112640);
  g_assert_cmpuint (hpd_recommend_min_free_kbytes (hpd_parse_zoneinfo_populated (two), 2048,
                                                   32 * 1024 * 1024), ==, 11 * 2048 * 4);

  /* the 5% cap, at and around the point where it starts to bite */
  g_assert_cmpuint (hpd_recommend_min_free_kbytes (3, 2048, 1000000), ==, 50000);
  g_assert_cmpuint (hpd_recommend_min_free_kbytes (3, 2048, 67584 * 20), ==, 67584);
  g_assert_cmpuint (hpd_recommend_min_free_kbytes (3, 2048, 67584 * 20 - 1), ==, 67583);
  g_assert_cmpuint (hpd_recommend_min_free_kbytes (3, 2048, 19), ==, 0);
  /* 64K pages on arm64: 512 MiB pageblocks */
  g_assert_cmpuint (hpd_recommend_min_free_kbytes (2, 524288, G_GUINT64_CONSTANT (1) << 40), ==, 11 * 524288 * 2);
  g_assert_cmpuint (hpd_recommend_min_free_kbytes (0, 2048, 24683568), ==, 0);
  g_assert_cmpuint (hpd_recommend_min_free_kbytes (1, 2048, 0), ==, 0);
}

static void
test_recommend_shmall (void)
{
  g_assert_cmpuint (hpd_recommend_shmall (0, 4096), ==, 0);
  g_assert_cmpuint (hpd_recommend_shmall (1, 4096), ==, 1);
  g_assert_cmpuint (hpd_recommend_shmall (4095, 4096), ==, 1);
  g_assert_cmpuint (hpd_recommend_shmall (4096, 4096), ==, 1);
  g_assert_cmpuint (hpd_recommend_shmall (4097, 4096), ==, 2);
  g_assert_cmpuint (hpd_recommend_shmall (2 << 20, 4096), ==, 512);
  g_assert_cmpuint (hpd_recommend_shmall ((2 << 20) + 1, 4096), ==, 513);
  g_assert_cmpuint (hpd_recommend_shmall (65536, 65536), ==, 1);
  g_assert_cmpuint (hpd_recommend_shmall (65537, 65536), ==, 2);
  /* the kernel's default shmmax (ULONG_MAX - 2^24) and the largest value */
  g_assert_cmpuint (hpd_recommend_shmall (G_MAXUINT64 - (1 << 24), 4096), ==,
                    (G_GUINT64_CONSTANT (1) << 52) - 4096);
  g_assert_cmpuint (hpd_recommend_shmall (G_MAXUINT64, 4096), ==, G_GUINT64_CONSTANT (1) << 52);
  g_assert_cmpuint (hpd_recommend_shmall (G_MAXUINT64, 1), ==, G_MAXUINT64);
}

/* --- hpd_tunables_read on a tree ----------------------------------------- */

#define THP HPD_THP_DIR "/"

typedef struct {
  char *root;
  HpdKernel *kernel;
} Tree;

static void
drop (Tree *tree, const char *relative)
{
  g_autofree char *path = g_build_filename (tree->root, relative, NULL);

  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
  hpd_test_remove (path);
}

/* A 6.18 kernel as on the test machine, with values that differ from one
 * another so that a swapped file shows. */
static void
tree_setup (Tree *tree, gconstpointer data)
{
  g_autofree char *zoneinfo = hpd_test_fixture ("zoneinfo-6.18");
  g_autofree char *pagetypeinfo = hpd_test_fixture ("pagetypeinfo-6.18");

  tree->root = g_dir_make_tmp ("hpd-tunables-XXXXXX", NULL);
  g_assert_nonnull (tree->root);
  hpd_test_put (tree->root, HPD_SHMMAX, "18446744073692774399\n");
  hpd_test_put (tree->root, HPD_SHMALL, "18446744073692774398\n");
  hpd_test_put (tree->root, HPD_SHM_GROUP, "100\n");
  hpd_test_put (tree->root, HPD_MIN_FREE_KBYTES, "67584\n");
  hpd_test_put (tree->root, "proc/zoneinfo", zoneinfo);
  hpd_test_put (tree->root, "proc/pagetypeinfo", pagetypeinfo);
  hpd_test_put (tree->root, "proc/meminfo", "MemTotal:       24683568 kB\nHugepagesize:       2048 kB\n");
  hpd_test_put (tree->root, THP "enabled", "always [madvise] never\n");
  hpd_test_put (tree->root, THP "defrag", "always defer defer+madvise [madvise] never\n");
  hpd_test_put (tree->root, THP "shmem_enabled", "always within_size advise [never] deny force\n");
  hpd_test_put (tree->root, THP "hpage_pmd_size", "2097152\n");
  hpd_test_put (tree->root, THP "use_zero_page", "1\n");
  hpd_test_put (tree->root, THP "anon_beside_full", "0\n");
  hpd_test_put (tree->root, THP "khugepaged/pages_to_scan", "4096\n");
  hpd_test_put (tree->root, THP "khugepaged/scan_sleep_millisecs", "10000\n");
  hpd_test_put (tree->root, THP "khugepaged/alloc_sleep_millisecs", "60000\n");
  hpd_test_put (tree->root, THP "khugepaged/defrag", "1\n");
  hpd_test_put (tree->root, THP "khugepaged/max_ptes_none", "511\n");
  hpd_test_put (tree->root, THP "hugepages-8kB/shmem_enabled", "always inherit within_size advise [never]\n");
  hpd_test_put (tree->root, THP "hugepages-64kB/enabled", "always inherit [madvise] never\n");
  hpd_test_put (tree->root, THP "hugepages-64kB/shmem_enabled", "always inherit [within_size] advise never\n");
  hpd_test_put (tree->root, THP "hugepages-64kB/stats/split", "0\n");
  hpd_test_put (tree->root, THP "hugepages-2048kB/enabled", "always [inherit] madvise never\n");
  hpd_test_put (tree->root, THP "hugepages-2048kB/shmem_enabled", "always [inherit] within_size advise never\n");
  tree->kernel = hpd_kernel_new (tree->root);
}

static void
tree_teardown (Tree *tree, gconstpointer data)
{
  hpd_test_remove (tree->root);
  g_object_unref (tree->kernel);
  g_free (tree->root);
}

/* The populated zones are counted again exactly when MemTotal or
 * buddyinfo's zones change; zoneinfo alone changing is what no kernel
 * does, and shows that it was not read again. */
static void
test_populated_zones_kept (Tree *tree, gconstpointer data)
{
  g_autofree char *two = hpd_test_fixture ("zoneinfo-2node");
  g_autofree char *buddy = hpd_test_fixture ("buddyinfo-6.18");
  g_autofree char *buddy_two = hpd_test_fixture ("buddyinfo-2node");
  HpdZoneCount cache;
  guint zones = 0;

  hpd_zone_count_init (&cache);
  hpd_test_put (tree->root, "proc/buddyinfo", buddy);
  g_assert_true (hpd_tunables_populated_zones (&cache, tree->kernel, 1000, &zones));
  g_assert_cmpuint (zones, ==, 3);
  /* kept: zoneinfo is not read again while the key is the same, even
   * when the free counts in buddyinfo move */
  hpd_test_put (tree->root, "proc/zoneinfo", two);
  hpd_test_put (tree->root, "proc/buddyinfo", "Node 0, zone      DMA 9\nNode 0, zone    DMA32 9\n"
                "Node 0, zone   Normal 9\n");
  g_assert_true (hpd_tunables_populated_zones (&cache, tree->kernel, 1000, &zones));
  g_assert_cmpuint (zones, ==, 3);
  /* MemTotal moved: counted again */
  g_assert_true (hpd_tunables_populated_zones (&cache, tree->kernel, 2000, &zones));
  g_assert_cmpuint (zones, ==, 4);
  /* as much memory offlined in one zone as onlined in another: MemTotal
   * as it was, buddyinfo's zones not */
  hpd_test_put (tree->root, "proc/zoneinfo", "Node 0, zone   Normal\n  managed 5\n");
  g_assert_true (hpd_tunables_populated_zones (&cache, tree->kernel, 2000, &zones));
  g_assert_cmpuint (zones, ==, 4);
  hpd_test_put (tree->root, "proc/buddyinfo", buddy_two);
  g_assert_true (hpd_tunables_populated_zones (&cache, tree->kernel, 2000, &zones));
  g_assert_cmpuint (zones, ==, 1);
  /* zoneinfo gone: nothing to count, and nothing kept */
  drop (tree, "proc/zoneinfo");
  g_assert_false (hpd_tunables_populated_zones (&cache, tree->kernel, 3000, &zones));
  hpd_test_put (tree->root, "proc/zoneinfo", two);
  g_assert_true (hpd_tunables_populated_zones (&cache, tree->kernel, 3000, &zones));
  g_assert_cmpuint (zones, ==, 4);
  hpd_zone_count_clear (&cache);
}

static void
assert_thp (const HpdTunables *t, const char *name, const char *current, const char *first_choice)
{
  const HpdThpChoice *choice = g_hash_table_lookup (t->thp, name);

  g_assert_nonnull (choice);
  g_assert_cmpstr (choice->current, ==, current);
  g_assert_cmpstr (choice->choices[0], ==, first_choice);
  g_assert_true (g_strv_contains ((const char *const *) choice->choices, current));
}

static void
test_read_full (Tree *tree, gconstpointer data)
{
  g_auto(HpdTunables) t = { 0, };

  hpd_tunables_read (tree->kernel, &t);
  g_assert_cmpuint (t.shmmax, ==, G_GUINT64_CONSTANT (18446744073692774399));
  g_assert_cmpuint (t.shmall, ==, G_GUINT64_CONSTANT (18446744073692774398));
  g_assert_cmpuint (t.shm_group, ==, 100);
  g_assert_cmpuint (t.min_free_kbytes, ==, 67584);
  g_assert_null (t.zone_movable_file);
  g_assert_false (t.zone_movable);
  g_assert_cmpuint (t.khugepaged_pages_to_scan, ==, 4096);
  g_assert_cmpuint (t.khugepaged_scan_sleep_ms, ==, 10000);
  g_assert_cmpuint (t.khugepaged_alloc_sleep_ms, ==, 60000);

  /* every choice file, and nothing else: not the numeric or unknown files,
   * not hugepages-8kB/enabled that 6.18 does not have */
  g_assert_cmpuint (g_hash_table_size (t.thp), ==, 8);
  assert_thp (&t, "enabled", "madvise", "always");
  assert_thp (&t, "defrag", "madvise", "always");
  assert_thp (&t, "shmem_enabled", "never", "always");
  assert_thp (&t, "hugepages-8kB/shmem_enabled", "never", "always");
  assert_thp (&t, "hugepages-64kB/enabled", "madvise", "always");
  assert_thp (&t, "hugepages-64kB/shmem_enabled", "within_size", "always");
  assert_thp (&t, "hugepages-2048kB/enabled", "inherit", "always");
  assert_thp (&t, "hugepages-2048kB/shmem_enabled", "inherit", "always");
  g_assert_false (g_hash_table_contains (t.thp, "hugepages-8kB/enabled"));
  g_assert_false (g_hash_table_contains (t.thp, "use_zero_page"));
  g_assert_false (g_hash_table_contains (t.thp, "khugepaged/pages_to_scan"));

  /* reading again replaces everything */
  hpd_test_put (tree->root, HPD_MIN_FREE_KBYTES, "90112\n");
  hpd_test_put (tree->root, THP "enabled", "[always] madvise never\n");
  hpd_tunables_read (tree->kernel, &t);
  g_assert_cmpuint (t.min_free_kbytes, ==, 90112);
  assert_thp (&t, "enabled", "always", "always");
}

/* Each file that a kernel may lack (or an unprivileged tree may hide): its
 * value is zero or absent, and every other value is still read. */
static const struct {
  const char *file;
} optional_files[] = {
  { HPD_SHMMAX }, { HPD_SHMALL }, { HPD_SHM_GROUP }, { HPD_MIN_FREE_KBYTES },
  { THP "enabled" }, { THP "defrag" }, { THP "shmem_enabled" },
  { THP "khugepaged/pages_to_scan" }, { THP "khugepaged/scan_sleep_millisecs" },
  { THP "khugepaged/alloc_sleep_millisecs" }, { THP "khugepaged" },
  { THP "hugepages-64kB/enabled" }, { THP "hugepages-64kB" }, { THP "hugepages-2048kB" },
  { HPD_THP_DIR },
};

static void
test_read_without_each_file (Tree *tree, gconstpointer data)
{
  for (gsize i = 0; i < G_N_ELEMENTS (optional_files); i++)
    {
      Tree one = { 0, };
      g_auto(HpdTunables) t = { 0, };
      const char *gone = optional_files[i].file;
      gboolean thp_gone = g_str_equal (gone, HPD_THP_DIR);
      gboolean khugepaged_gone = thp_gone || g_str_equal (gone, THP "khugepaged");
      guint thp_names = 8;

      g_test_message ("without %s", gone);
      tree_setup (&one, NULL);
      drop (&one, gone);
      hpd_tunables_read (one.kernel, &t);

      g_assert_cmpuint (t.shmmax, ==, g_str_equal (gone, HPD_SHMMAX) ? 0 : G_GUINT64_CONSTANT (18446744073692774399));
      g_assert_cmpuint (t.shmall, ==, g_str_equal (gone, HPD_SHMALL) ? 0 : G_GUINT64_CONSTANT (18446744073692774398));
      g_assert_cmpuint (t.shm_group, ==, g_str_equal (gone, HPD_SHM_GROUP) ? 0 : 100);
      g_assert_cmpuint (t.min_free_kbytes, ==, g_str_equal (gone, HPD_MIN_FREE_KBYTES) ? 0 : 67584);
      g_assert_cmpuint (t.khugepaged_pages_to_scan, ==,
                        khugepaged_gone || g_str_equal (gone, THP "khugepaged/pages_to_scan") ? 0 : 4096);
      g_assert_cmpuint (t.khugepaged_scan_sleep_ms, ==,
                        khugepaged_gone || g_str_equal (gone, THP "khugepaged/scan_sleep_millisecs") ? 0 : 10000);
      g_assert_cmpuint (t.khugepaged_alloc_sleep_ms, ==,
                        khugepaged_gone || g_str_equal (gone, THP "khugepaged/alloc_sleep_millisecs") ? 0 : 60000);

      g_assert_nonnull (t.thp);
      if (thp_gone)
        thp_names = 0;
      else if (g_str_has_prefix (gone, THP "enabled") || g_str_has_prefix (gone, THP "defrag") ||
               g_str_has_prefix (gone, THP "shmem_enabled") || g_str_equal (gone, THP "hugepages-64kB/enabled"))
        thp_names = 7;
      else if (g_str_equal (gone, THP "hugepages-64kB") || g_str_equal (gone, THP "hugepages-2048kB"))
        thp_names = 6;
      g_assert_cmpuint (g_hash_table_size (t.thp), ==, thp_names);
      if (g_str_has_prefix (gone, THP))
        {
          g_autofree char *name = g_strdup (gone + strlen (THP));
          g_assert_false (g_hash_table_contains (t.thp, name));
        }
      tree_teardown (&one, NULL);
    }
}

/* What ThpSettings is made from, kept in one block: the same files give
 * the same bytes, a change of any text gives others, and the texts'
 * boundaries count. */
static void
test_thp_texts_joined (Tree *tree, gconstpointer data)
{
  g_autoptr(GPtrArray) first = hpd_tunables_read_thp_texts (tree->kernel);
  g_autoptr(GPtrArray) again = hpd_tunables_read_thp_texts (tree->kernel);
  g_autoptr(GPtrArray) changed = NULL;
  g_autoptr(GPtrArray) ab_c = g_ptr_array_new ();
  g_autoptr(GPtrArray) a_bc = g_ptr_array_new ();
  g_autoptr(GBytes) joined = hpd_tunables_join_thp_texts (first);
  g_autoptr(GBytes) joined_again = hpd_tunables_join_thp_texts (again);
  g_autoptr(GBytes) joined_changed = NULL;
  g_autoptr(GBytes) joined_ab_c = NULL;
  g_autoptr(GBytes) joined_a_bc = NULL;

  g_assert_cmpuint (first->len, >, 2);
  g_assert_true (g_bytes_equal (joined, joined_again));

  hpd_test_put (tree->root, THP "hugepages-64kB/enabled", "always [inherit] madvise never\n");
  changed = hpd_tunables_read_thp_texts (tree->kernel);
  joined_changed = hpd_tunables_join_thp_texts (changed);
  g_assert_false (g_bytes_equal (joined, joined_changed));

  g_ptr_array_add (ab_c, "ab");
  g_ptr_array_add (ab_c, "c");
  g_ptr_array_add (a_bc, "a");
  g_ptr_array_add (a_bc, "bc");
  joined_ab_c = hpd_tunables_join_thp_texts (ab_c);
  joined_a_bc = hpd_tunables_join_thp_texts (a_bc);
  g_assert_false (g_bytes_equal (joined_ab_c, joined_a_bc));
}

static void
test_read_empty_tree (Tree *tree, gconstpointer data)
{
  g_autofree char *root = g_dir_make_tmp ("hpd-tunables-empty-XXXXXX", NULL);
  g_autoptr(HpdKernel) kernel = hpd_kernel_new (root);
  g_auto(HpdTunables) t = { 0, };

  hpd_tunables_read (kernel, &t);
  g_assert_cmpuint (t.shmmax, ==, 0);
  g_assert_cmpuint (t.shmall, ==, 0);
  g_assert_cmpuint (t.shm_group, ==, 0);
  g_assert_cmpuint (t.min_free_kbytes, ==, 0);
  g_assert_null (t.zone_movable_file);
  g_assert_nonnull (t.thp);
  g_assert_cmpuint (g_hash_table_size (t.thp), ==, 0);
  g_assert_cmpuint (hpd_tunables_pageblock_kb (kernel), ==, 2048);
  g_assert_cmpint (g_rmdir (root), ==, 0);
}

static void
test_read_zone_movable (Tree *tree, gconstpointer data)
{
  g_auto(HpdTunables) t = { 0, };

  hpd_test_put (tree->root, "proc/sys/vm/movable_gigantic_pages", "1\n");
  hpd_tunables_read (tree->kernel, &t);
  g_assert_cmpstr (t.zone_movable_file, ==, "proc/sys/vm/movable_gigantic_pages");
  g_assert_true (t.zone_movable);

  /* the old sysctl comes first where both exist */
  hpd_test_put (tree->root, "proc/sys/vm/hugepages_treat_as_movable", "0\n");
  hpd_tunables_read (tree->kernel, &t);
  g_assert_cmpstr (t.zone_movable_file, ==, "proc/sys/vm/hugepages_treat_as_movable");
  g_assert_false (t.zone_movable);
  hpd_test_put (tree->root, "proc/sys/vm/hugepages_treat_as_movable", "2\n");
  hpd_tunables_read (tree->kernel, &t);
  g_assert_true (t.zone_movable);

  /* unreadable: supported (the file is there) but shown as off */
  hpd_test_put (tree->root, "proc/sys/vm/hugepages_treat_as_movable", "yes\n");
  hpd_tunables_read (tree->kernel, &t);
  g_assert_cmpstr (t.zone_movable_file, ==, "proc/sys/vm/hugepages_treat_as_movable");
  g_assert_false (t.zone_movable);
}

static void
test_read_odd_values (Tree *tree, gconstpointer data)
{
  g_auto(HpdTunables) t = { 0, };
  const char *bad_groups[] = { "-1\n", "2147483648\n", "4294967295\n", "abc\n", "\n" };

  /* the kernel stores any int in hugetlb_shm_group: what is no gid reads 0 */
  for (gsize i = 0; i < G_N_ELEMENTS (bad_groups); i++)
    {
      hpd_test_put (tree->root, HPD_SHM_GROUP, bad_groups[i]);
      hpd_tunables_read (tree->kernel, &t);
      g_assert_cmpuint (t.shm_group, ==, 0);
    }
  hpd_test_put (tree->root, HPD_SHM_GROUP, "2147483647\n");
  hpd_tunables_read (tree->kernel, &t);
  g_assert_cmpuint (t.shm_group, ==, G_MAXINT32);

  /* THP files the parser refuses are left out, the others stay */
  hpd_test_put (tree->root, THP "enabled", "always madvise never\n");
  hpd_test_put (tree->root, THP "defrag", "[always] [defer] never\n");
  hpd_test_put (tree->root, THP "hugepages-64kB/enabled", "garbage\n");
  hpd_test_put (tree->root, THP "khugepaged/pages_to_scan", "4294967296\n");
  hpd_test_put (tree->root, THP "khugepaged/scan_sleep_millisecs", "-1\n");
  hpd_tunables_read (tree->kernel, &t);
  g_assert_false (g_hash_table_contains (t.thp, "enabled"));
  g_assert_false (g_hash_table_contains (t.thp, "defrag"));
  g_assert_false (g_hash_table_contains (t.thp, "hugepages-64kB/enabled"));
  g_assert_true (g_hash_table_contains (t.thp, "shmem_enabled"));
  g_assert_true (g_hash_table_contains (t.thp, "hugepages-64kB/shmem_enabled"));
  g_assert_cmpuint (t.khugepaged_pages_to_scan, ==, 0);
  g_assert_cmpuint (t.khugepaged_scan_sleep_ms, ==, 0);
  g_assert_cmpuint (t.khugepaged_alloc_sleep_ms, ==, 60000);

  /* names that are not mTHP sizes, and a size that is a file */
  hpd_test_put (tree->root, THP "hugepages-abckB/enabled", "[always] never\n");
  hpd_test_put (tree->root, THP "hugepages-0kB/enabled", "[always] never\n");
  hpd_test_put (tree->root, THP "hugepages-16kB", "[always] never\n");
  hpd_test_put (tree->root, THP "hugepages-32kB/enabled/x", "[always] never\n");
  hpd_test_put (tree->root, THP "not-hugepages-16kB/enabled", "[always] never\n");
  hpd_tunables_read (tree->kernel, &t);
  g_assert_false (g_hash_table_contains (t.thp, "hugepages-abckB/enabled"));
  g_assert_false (g_hash_table_contains (t.thp, "hugepages-0kB/enabled"));
  g_assert_false (g_hash_table_contains (t.thp, "hugepages-16kB/enabled"));
  g_assert_false (g_hash_table_contains (t.thp, "hugepages-32kB/enabled"));
  g_assert_false (g_hash_table_contains (t.thp, "not-hugepages-16kB/enabled"));
}

static void
test_thp_number (Tree *tree, gconstpointer data)
{
  guint32 v = 7;

  g_assert_true (hpd_tunables_thp_number (tree->kernel, "khugepaged/pages_to_scan", &v));
  g_assert_cmpuint (v, ==, 4096);
  g_assert_true (hpd_tunables_thp_number (tree->kernel, "khugepaged/max_ptes_none", &v));
  g_assert_cmpuint (v, ==, 511);
  hpd_test_put (tree->root, THP "khugepaged/pages_to_scan", "4294967295\n");
  g_assert_true (hpd_tunables_thp_number (tree->kernel, "khugepaged/pages_to_scan", &v));
  g_assert_cmpuint (v, ==, G_MAXUINT32);

  v = 7;
  hpd_test_put (tree->root, THP "khugepaged/pages_to_scan", "4294967296\n");
  g_assert_false (hpd_tunables_thp_number (tree->kernel, "khugepaged/pages_to_scan", &v));
  hpd_test_put (tree->root, THP "khugepaged/pages_to_scan", "x\n");
  g_assert_false (hpd_tunables_thp_number (tree->kernel, "khugepaged/pages_to_scan", &v));
  g_assert_false (hpd_tunables_thp_number (tree->kernel, "khugepaged/nothing", &v));
  g_assert_cmpuint (v, ==, 7);

  g_assert_cmpstrv (hpd_thp_numeric_settings,
                    ((const char *const[]) { "khugepaged/pages_to_scan", "khugepaged/scan_sleep_millisecs",
                                             "khugepaged/alloc_sleep_millisecs", NULL }));
}

static void
test_pageblock (Tree *tree, gconstpointer data)
{
  /* pagetypeinfo's 512 pages of the base page size */
  g_assert_cmpuint (hpd_tunables_pageblock_kb (tree->kernel), ==, 512 * base_page () / 1024);

  hpd_test_put (tree->root, "proc/pagetypeinfo", "Page block order: 10\nPages per block:  1024\n");
  g_assert_cmpuint (hpd_tunables_pageblock_kb (tree->kernel), ==, 1024 * base_page () / 1024);

  /* unreadable or garbage pagetypeinfo: THP's PMD size */
  hpd_test_put (tree->root, THP "hpage_pmd_size", "4194304\n");
  hpd_test_put (tree->root, "proc/pagetypeinfo", "Pages per block:  0\n");
  g_assert_cmpuint (hpd_tunables_pageblock_kb (tree->kernel), ==, 4096);
  hpd_test_put (tree->root, "proc/pagetypeinfo", "Pages per block:  x\n");
  g_assert_cmpuint (hpd_tunables_pageblock_kb (tree->kernel), ==, 4096);
  hpd_test_put (tree->root, "proc/pagetypeinfo", "Pages per block:  1099511627776\n");
  g_assert_cmpuint (hpd_tunables_pageblock_kb (tree->kernel), ==, 4096);
  drop (tree, "proc/pagetypeinfo");
  g_assert_cmpuint (hpd_tunables_pageblock_kb (tree->kernel), ==, 4096);

  /* neither: 2 MiB */
  hpd_test_put (tree->root, THP "hpage_pmd_size", "512\n");
  g_assert_cmpuint (hpd_tunables_pageblock_kb (tree->kernel), ==, 2048);
  drop (tree, THP "hpage_pmd_size");
  g_assert_cmpuint (hpd_tunables_pageblock_kb (tree->kernel), ==, 2048);
}

/* The whole min_free_kbytes recommendation from this machine's files, as
 * hpd_tunables_recommended_min_free_kbytes() puts it together. */
static void
test_recommendation_from_tree (Tree *tree, gconstpointer data)
{
  g_autofree char *zoneinfo = NULL;
  g_autofree char *meminfo = NULL;
  guint64 mem_total = 0;

  g_assert_true (hpd_kernel_read_text (tree->kernel, "proc/zoneinfo", &zoneinfo, NULL));
  g_assert_true (hpd_kernel_read_text (tree->kernel, "proc/meminfo", &meminfo, NULL));
  g_assert_true (hpd_parse_meminfo (meminfo, "MemTotal", &mem_total));
  if (base_page () != 4096)
    {
      g_test_skip ("67584 is for 4 KiB base pages");
      return;
    }
  g_assert_cmpuint (hpd_recommend_min_free_kbytes (hpd_parse_zoneinfo_populated (zoneinfo),
                                                   hpd_tunables_pageblock_kb (tree->kernel),
                                                   mem_total), ==, 67584);
}

/* Every tunable method asks for configure-tunables; Explain asks for
 * nothing (the XML-wide check in test-methods only sees "some action"). */
static void
test_auth_actions (void)
{
  const char *methods[] = { "SetShmMax", "SetRecommendedShmMax", "SetShmGroup", "SetMinFreeKbytes",
                            "SetRecommendedMinFreeKbytes", "SetZoneMovable", "SetThp" };

  for (gsize i = 0; i < G_N_ELEMENTS (methods); i++)
    {
      const HpdMethod *row = hpd_method_lookup (HP_MANAGER_INTERFACE, methods[i]);

      g_test_message ("%s", methods[i]);
      g_assert_nonnull (row);
      g_assert_cmpint (row->auth, ==, HPD_AUTH_REQUIRED);
      g_assert_cmpstr (row->action, ==, HP_ACTION_CONFIGURE_TUNABLES);
      g_assert_null (hpd_method_lookup (HP_PAGE_SIZE_INTERFACE, methods[i]));
    }
  g_assert_null (hpd_method_lookup (HP_MANAGER_INTERFACE, "Explain")->action);
  g_assert_cmpstr (HP_ACTION_CONFIGURE_TUNABLES, ==, "org.hugepages.manager.configure-tunables");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/tunables/thp-choice/real", test_thp_choice_real);
  g_test_add_func ("/tunables/thp-choice/edges", test_thp_choice_edges);
  g_test_add_func ("/tunables/thp-choice/bad", test_thp_choice_bad);
  g_test_add_func ("/tunables/zoneinfo", test_zoneinfo);
  g_test_add_func ("/tunables/pagetypeinfo", test_pagetypeinfo);
  g_test_add_func ("/tunables/buddyinfo-blocks", test_buddyinfo_blocks);
  g_test_add_func ("/tunables/buddyinfo-overflow", test_buddyinfo_overflow);
  g_test_add_func ("/tunables/buddyinfo-zones", test_buddyinfo_zones);
  g_test_add_func ("/tunables/recommend-min-free-kbytes", test_recommend_min_free_kbytes);
  g_test_add_func ("/tunables/recommend-shmall", test_recommend_shmall);
  g_test_add_func ("/tunables/auth-actions", test_auth_actions);
  g_test_add ("/tunables/read/full", Tree, NULL, tree_setup, test_read_full, tree_teardown);
  g_test_add ("/tunables/populated-zones-kept", Tree, NULL, tree_setup, test_populated_zones_kept,
              tree_teardown);
  g_test_add ("/tunables/read/without-each-file", Tree, NULL, NULL, test_read_without_each_file, NULL);
  g_test_add ("/tunables/read/empty-tree", Tree, NULL, NULL, test_read_empty_tree, NULL);
  g_test_add ("/tunables/read/thp-texts-joined", Tree, NULL, tree_setup, test_thp_texts_joined,
              tree_teardown);
  g_test_add ("/tunables/read/zone-movable", Tree, NULL, tree_setup, test_read_zone_movable, tree_teardown);
  g_test_add ("/tunables/read/odd-values", Tree, NULL, tree_setup, test_read_odd_values, tree_teardown);
  g_test_add ("/tunables/thp-number", Tree, NULL, tree_setup, test_thp_number, tree_teardown);
  g_test_add ("/tunables/pageblock", Tree, NULL, tree_setup, test_pageblock, tree_teardown);
  g_test_add ("/tunables/recommendation-from-tree", Tree, NULL, tree_setup,
              test_recommendation_from_tree, tree_teardown);
  return g_test_run ();
}
