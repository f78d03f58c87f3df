/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The parsers behind GetUsage: maps and smaps (and smaps_rollup), the
 * status uids, SysV mapping names, /proc/sysvipc/shm and the hugetlb
 * cgroup files; real 6.18 layouts and input that must be refused. */
#include "config.h"

#include <gio/gio.h>

#include "hpd-test-util.h"
#include "hpd-usage-parse.h"

#define KiB G_GUINT64_CONSTANT (1024)
#define MiB (KiB * 1024)
#define GiB (MiB * 1024)

static const HpdMapping *
mapping (GArray *mappings, guint i)
{
  return &g_array_index (mappings, HpdMapping, i);
}

static void
test_smaps_fixture (void)
{
  g_autofree char *text = hpd_test_fixture ("smaps-hugetlb-6.18");
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) m = hpd_usage_parse_smaps (text, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (m->len, ==, 7);

  g_assert_cmpuint (mapping (m, 0)->start, ==, 0x560fc987e000);
  g_assert_cmpuint (mapping (m, 0)->end, ==, 0x560fc9880000);
  g_assert_cmpuint (mapping (m, 0)->dev_major, ==, 0xfe);
  g_assert_cmpuint (mapping (m, 0)->inode, ==, 247498);
  g_assert_cmpstr (mapping (m, 0)->path, ==, "/usr/bin/head");
  g_assert_cmpuint (mapping (m, 0)->kernel_page_size, ==, 4 * KiB);
  g_assert_false (mapping (m, 0)->hugetlb_flag);

  /* a file in a hugetlbfs mount: the path keeps its spaces */
  g_assert_cmpstr (mapping (m, 1)->path, ==, "/mnt/huge 2M/data file");
  g_assert_cmpuint (mapping (m, 1)->dev_major, ==, 0);
  g_assert_cmpuint (mapping (m, 1)->dev_minor, ==, 0x34);
  g_assert_cmpuint (mapping (m, 1)->inode, ==, 1053);
  g_assert_cmpuint (mapping (m, 1)->kernel_page_size, ==, 2 * MiB);
  g_assert_cmpuint (mapping (m, 1)->shared_hugetlb, ==, 4 * MiB);
  g_assert_cmpuint (mapping (m, 1)->private_hugetlb, ==, 0);
  g_assert_true (mapping (m, 1)->hugetlb_flag);

  g_assert_cmpstr (mapping (m, 2)->path, ==, "/anon_hugepage (deleted)");
  g_assert_cmpuint (mapping (m, 2)->private_hugetlb, ==, 2 * MiB);

  g_assert_cmpstr (mapping (m, 3)->path, ==, "/SYSV0000abcd (deleted)");
  g_assert_cmpuint (mapping (m, 3)->inode, ==, 98307);
  g_assert_cmpuint (mapping (m, 3)->kernel_page_size, ==, 1 * GiB);
  g_assert_cmpuint (mapping (m, 3)->private_hugetlb, ==, 1 * GiB);

  /* a SysV segment of base pages */
  g_assert_cmpuint (mapping (m, 4)->kernel_page_size, ==, 4 * KiB);
  g_assert_false (mapping (m, 4)->hugetlb_flag);

  g_assert_cmpstr (mapping (m, 5)->path, ==, "[stack]");
}

static void
test_maps_and_rollup (void)
{
  const char *maps =
    "00400000-00452000 r-xp 00000000 08:02 173521      /usr/bin/dbus-daemon\n"
    "7f2a40000000-7f2a40800000 rw-s 00000000 00:34 1053 /dev/hugepages/x\n"
    "7ffd6f4ab000-7ffd6f4ad000 r-xp 00000000 00:00 0                  [vdso]\n"
    "7ffd6f4ad000-7ffd6f4af000 rw-p 00000000 00:00 0\n";
  const char *rollup =
    "559fa0d96000-7ffce010e000 ---p 00000000 00:00 0                          [rollup]\n"
    "Rss:                1684 kB\n"
    "Shared_Hugetlb:     2048 kB\n"
    "Private_Hugetlb:   10240 kB\n"
    "Swap:                  0 kB\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) m = hpd_usage_parse_smaps (maps, &error);
  g_autoptr(GArray) r = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (m->len, ==, 4);
  g_assert_cmpuint (mapping (m, 0)->dev_major, ==, 8);
  g_assert_cmpuint (mapping (m, 0)->dev_minor, ==, 2);
  g_assert_cmpuint (mapping (m, 1)->inode, ==, 1053);
  g_assert_cmpuint (mapping (m, 1)->kernel_page_size, ==, 0);
  g_assert_null (mapping (m, 3)->path);

  r = hpd_usage_parse_smaps (rollup, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (r->len, ==, 1);
  g_assert_cmpuint (mapping (r, 0)->shared_hugetlb, ==, 2 * MiB);
  g_assert_cmpuint (mapping (r, 0)->private_hugetlb, ==, 10 * MiB);

  /* an empty maps file (a kernel thread) has no mappings, no error */
  g_clear_pointer (&m, g_array_unref);
  m = hpd_usage_parse_smaps ("", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (m->len, ==, 0);
}

static void
test_smaps_malformed (void)
{
  const char *const bad[] = {
    "Shared_Hugetlb:     2048 kB\n",                               /* field first */
    "00400000 r-xp 00000000 08:02 1 /x\n",                         /* no range */
    "00400000-00300000 r-xp 00000000 08:02 1 /x\n",                /* end before start */
    "0040000g-00452000 r-xp 00000000 08:02 1 /x\n",                /* not hex */
    "00400000-00452000 r-xp 00000000 0802 1 /x\n",                 /* no colon */
    "00400000-00452000 r-xp 00000000 08:02 -1 /x\n",               /* signed inode */
    "00400000-00452000 r-xp 00000000 08:02\n",                     /* no inode */
    "00400000-00452000 rxp 00000000 08:02 1\n",                    /* perms */
    "00400000-00452000 r-xp 00000000 08:02 1\nShared_Hugetlb: 12 MB\n",
    "00400000-00452000 r-xp 00000000 08:02 1\nShared_Hugetlb: kB\n",
    "00400000-00452000 r-xp 00000000 08:02 1\nKernelPageSize: 99999999999999999999 kB\n",
    "00400000-00452000 r-xp 00000000 08:02 1\nPrivate_Hugetlb: 18014398509481984 kB\n", /* bytes overflow */
    "00400000-00452000 r-xp 00000000 08:02 1\ngarbage line\n",
    "10000000000000000-20000000000000000 r-xp 00000000 08:02 1\n", /* 17 hex digits */
    "00400000-00452000 r-xp 00000000 123456789:02 1\n",            /* major > 32 bits */
  };

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GArray) m = hpd_usage_parse_smaps (bad[i], &error);

      g_test_message ("case %zu: %s", i, bad[i]);
      g_assert_null (m);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
    }
}

static void
test_status_uids (void)
{
  guint32 ruid = 1, euid = 1;

  g_assert_true (hpd_usage_parse_status_uids ("Name:\tx\nUid:\t1000\t0\t0\t0\nGid:\t1\t1\t1\t1\n",
                                              &ruid, &euid));
  g_assert_cmpuint (ruid, ==, 1000);
  g_assert_cmpuint (euid, ==, 0);
  g_assert_false (hpd_usage_parse_status_uids ("Name:\tx\n", &ruid, &euid));
  g_assert_false (hpd_usage_parse_status_uids ("Uid:\t1000\t0\n", &ruid, &euid));
  g_assert_false (hpd_usage_parse_status_uids ("Uid:\t-1\t0\t0\t0\n", &ruid, &euid));
  g_assert_false (hpd_usage_parse_status_uids ("Uid:\t4294967296\t0\t0\t0\n", &ruid, &euid));
}

static void
test_sysv_name (void)
{
  gint32 key = 0;

  g_assert_true (hpd_usage_parse_sysv_name ("/SYSV0000abcd (deleted)", &key));
  g_assert_cmpint (key, ==, 0xabcd);
  g_assert_true (hpd_usage_parse_sysv_name ("/SYSVffffffff (deleted)", &key));
  g_assert_cmpint (key, ==, -1);
  g_assert_false (hpd_usage_parse_sysv_name ("/SYSV0000abcd", &key));
  g_assert_false (hpd_usage_parse_sysv_name ("/SYSV000abcd (deleted)", &key));
  g_assert_false (hpd_usage_parse_sysv_name ("/SYSV0000abcg (deleted)", &key));
  g_assert_false (hpd_usage_parse_sysv_name ("/mnt/SYSV0000abcd (deleted)", &key));
  g_assert_false (hpd_usage_parse_sysv_name (NULL, &key));
}

static void
test_sysvipc_shm (void)
{
  g_autofree char *text = hpd_test_fixture ("sysvipc-shm-6.18");
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) s = hpd_usage_parse_sysvipc_shm (text, &error);
  const HpdShmSegment *seg;

  g_assert_no_error (error);
  g_assert_cmpuint (s->len, ==, 3);
  seg = &g_array_index (s, HpdShmSegment, 0);
  g_assert_cmpint (seg->key, ==, 43981);
  g_assert_cmpuint (seg->shmid, ==, 98307);
  g_assert_cmpuint (seg->perms, ==, 0600);
  g_assert_cmpuint (seg->size, ==, 4 * MiB);
  g_assert_cmpuint (seg->cpid, ==, 4242);
  g_assert_cmpuint (seg->nattch, ==, 1);
  g_assert_cmpuint (seg->uid, ==, 65534);
  g_assert_true (seg->has_rss);
  g_assert_cmpuint (seg->rss, ==, 2147483648);
  seg = &g_array_index (s, HpdShmSegment, 1);
  g_assert_cmpint (seg->key, ==, -1);
  g_assert_cmpuint (seg->perms, ==, 01666);

  /* an older kernel without rss and swap */
  g_clear_pointer (&s, g_array_unref);
  s = hpd_usage_parse_sysvipc_shm ("key shmid perms size cpid lpid nattch uid gid cuid cgid atime dtime ctime\n"
                                   "1 2 600 4096 3 4 0 5 6 7 8 0 0 0\n", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (s->len, ==, 1);
  g_assert_false (g_array_index (s, HpdShmSegment, 0).has_rss);

  /* no segments */
  g_clear_pointer (&s, g_array_unref);
  s = hpd_usage_parse_sysvipc_shm ("       key      shmid perms size cpid lpid nattch uid gid cuid cgid\n",
                                   &error);
  g_assert_no_error (error);
  g_assert_cmpuint (s->len, ==, 0);
}

static void
test_sysvipc_shm_malformed (void)
{
  const char *header = "key shmid perms size cpid lpid nattch uid gid cuid cgid rss\n";
  const char *const rows[] = {
    "1 2 600 4096 3 4 0 5 6 7 8\n",                 /* a column short */
    "1 2 600 4096 3 4 0 5 6 7 8 0 9\n",             /* one too many */
    "x 2 600 4096 3 4 0 5 6 7 8 0\n",
    "2147483648 2 600 4096 3 4 0 5 6 7 8 0\n",      /* key beyond int */
    "1 2 689 4096 3 4 0 5 6 7 8 0\n",               /* perms not octal */
    "1 2 600 -4096 3 4 0 5 6 7 8 0\n",
    "1 4294967296 600 4096 3 4 0 5 6 7 8 0\n",
    "1 2 600 4096 3 4 0 5 6 7 8 99999999999999999999\n",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = g_strconcat (header, rows[i], NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(GArray) s = hpd_usage_parse_sysvipc_shm (text, &error);

      g_test_message ("case %zu: %s", i, rows[i]);
      g_assert_null (s);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
    }

  {
    g_autoptr(GError) error = NULL;
    g_assert_null (hpd_usage_parse_sysvipc_shm ("", &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  }
  {
    g_autoptr(GError) error = NULL;
    /* no nattch column */
    g_assert_null (hpd_usage_parse_sysvipc_shm ("key shmid perms size cpid lpid uid gid cuid cgid\n",
                                                &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  }
}

static void
test_cgroup_files (void)
{
  guint64 v = 0;

  g_assert_true (hpd_usage_parse_hugetlb_events ("max 3\n", &v));
  g_assert_cmpuint (v, ==, 3);
  g_assert_false (hpd_usage_parse_hugetlb_events ("", &v));
  g_assert_false (hpd_usage_parse_hugetlb_events ("max -1\n", &v));
  g_assert_false (hpd_usage_parse_hugetlb_events ("max\n", &v));

  g_assert_true (hpd_usage_parse_cgroup_limit ("max\n", &v));
  g_assert_cmpuint (v, ==, G_MAXUINT64);
  /* 6.18's new cgroup (reference/kernel.md, quirk 10) */
  g_assert_true (hpd_usage_parse_cgroup_limit ("9223372036854771712\n", &v));
  g_assert_cmpuint (v, ==, G_MAXUINT64);
  g_assert_true (hpd_usage_parse_cgroup_limit ("4194304\n", &v));
  g_assert_cmpuint (v, ==, 4 * MiB);
  g_assert_false (hpd_usage_parse_cgroup_limit ("4M\n", &v));
  g_assert_false (hpd_usage_parse_cgroup_limit ("\n", &v));

  g_assert_true (hpd_usage_parse_cgroup_file ("hugetlb.2MB.current", &v));
  g_assert_cmpuint (v, ==, 2 * MiB);
  g_assert_true (hpd_usage_parse_cgroup_file ("hugetlb.1GB.current", &v));
  g_assert_cmpuint (v, ==, 1 * GiB);
  g_assert_true (hpd_usage_parse_cgroup_file ("hugetlb.64KB.current", &v));
  g_assert_cmpuint (v, ==, 64 * KiB);
  g_assert_false (hpd_usage_parse_cgroup_file ("hugetlb.2MB.rsvd.current", &v));
  g_assert_false (hpd_usage_parse_cgroup_file ("hugetlb.2MB.max", &v));
  g_assert_false (hpd_usage_parse_cgroup_file ("hugetlb.MB.current", &v));
  g_assert_false (hpd_usage_parse_cgroup_file ("hugetlb.0MB.current", &v));
  g_assert_false (hpd_usage_parse_cgroup_file ("hugetlb.2TB.current", &v));
  g_assert_false (hpd_usage_parse_cgroup_file ("memory.current", &v));
  /* prefix and suffix overlap (found by fuzz-usage) */
  g_assert_false (hpd_usage_parse_cgroup_file ("hugetlb.current", &v));
  g_assert_false (hpd_usage_parse_cgroup_file ("hugetlb..current", &v));
  g_assert_false (hpd_usage_parse_cgroup_file ("hugetlb.B.current", &v));
  g_assert_false (hpd_usage_parse_cgroup_file ("hugetlb.99999999999999999GB.current", &v));
}

/* Lines come out whole, without their newline, the last one also without
 * a final newline, and empty lines as empty strings; the text is not
 * changed. */
static void
test_next_line (void)
{
  const char *text = "first\n\nthird line\nlast";
  const char *cursor = text;
  const char *end = text + strlen (text);
  g_autoptr(GString) line = g_string_new ("left over");
  const char *expected[] = { "first", "", "third line", "last" };

  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_assert_true (hpd_usage_next_line (&cursor, end, line));
      g_assert_cmpstr (line->str, ==, expected[i]);
    }
  g_assert_false (hpd_usage_next_line (&cursor, end, line));
  g_assert_true (cursor == end);

  /* a final newline ends the last line; nothing follows it */
  text = "one\n";
  cursor = text;
  end = text + strlen (text);
  g_assert_true (hpd_usage_next_line (&cursor, end, line));
  g_assert_cmpstr (line->str, ==, "one");
  g_assert_false (hpd_usage_next_line (&cursor, end, line));

  /* nothing at all */
  cursor = end = "";
  g_assert_false (hpd_usage_next_line (&cursor, end, line));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/usage-parse/next-line", test_next_line);
  g_test_add_func ("/usage-parse/smaps-fixture", test_smaps_fixture);
  g_test_add_func ("/usage-parse/maps-and-rollup", test_maps_and_rollup);
  g_test_add_func ("/usage-parse/smaps-malformed", test_smaps_malformed);
  g_test_add_func ("/usage-parse/status-uids", test_status_uids);
  g_test_add_func ("/usage-parse/sysv-name", test_sysv_name);
  g_test_add_func ("/usage-parse/sysvipc-shm", test_sysvipc_shm);
  g_test_add_func ("/usage-parse/sysvipc-shm-malformed", test_sysvipc_shm_malformed);
  g_test_add_func ("/usage-parse/cgroup-files", test_cgroup_files);
  return g_test_run ();
}
