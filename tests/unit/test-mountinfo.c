/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* mountinfo parsing for hugetlbfs: kernel formats old and new, escapes,
 * and lines that must not be believed. */
#include "config.h"

#include "hpd-mountinfo.h"
#include "hpd-test-util.h"

#define MiB (G_GUINT64_CONSTANT (1) << 20)

static void
test_fixture (void)
{
  g_autofree char *text = hpd_test_fixture ("mountinfo-hugetlbfs");
  g_autoptr(GPtrArray) mounts = NULL;
  HpdMountInfo *m;

  mounts = hpd_mountinfo_parse_hugetlbfs (text);
  g_assert_cmpuint (mounts->len, ==, 5);

  m = g_ptr_array_index (mounts, 0);
  g_assert_cmpstr (m->path, ==, "/mnt/h");
  g_assert_cmpuint (m->mount_id, ==, 53);
  g_assert_cmpstr (m->flags, ==, "rw,nosuid,nodev,relatime");
  g_assert_cmpuint (m->uid, ==, 1000);
  g_assert_cmpuint (m->gid, ==, 0);
  g_assert_cmpuint (m->mode, ==, 01770);
  g_assert_cmpuint (m->page_size, ==, 2 * MiB);
  g_assert_true (m->has_size);
  g_assert_cmpuint (m->size, ==, 4 * MiB);
  g_assert_true (m->has_min_size);
  g_assert_cmpuint (m->min_size, ==, 2 * MiB);
  g_assert_false (m->has_nr_inodes);

  m = g_ptr_array_index (mounts, 1);
  g_assert_cmpstr (m->path, ==, "/var/lib/hugetlbfs/pagesize-1GB");
  g_assert_cmpuint (m->gid, ==, 27);
  g_assert_cmpuint (m->mode, ==, 070);
  g_assert_true (m->has_nr_inodes);
  g_assert_cmpuint (m->nr_inodes, ==, 5);
  /* 1G is printed as 1024M */
  g_assert_cmpuint (m->page_size, ==, 1024 * MiB);
  g_assert_true (m->has_size);
  g_assert_cmpuint (m->size, ==, 0);
  g_assert_false (m->has_min_size);

  m = g_ptr_array_index (mounts, 2);
  g_assert_cmpstr (m->path, ==, "/mnt/with space\nand\\slash");
  g_assert_cmpuint (m->mode, ==, 0755);
  g_assert_false (m->has_size);

  /* before 4.13 the options came back as typed; a percentage is no size */
  m = g_ptr_array_index (mounts, 3);
  g_assert_cmpstr (m->path, ==, "/old");
  g_assert_cmpuint (m->page_size, ==, 1024 * MiB);
  g_assert_false (m->has_size);

  m = g_ptr_array_index (mounts, 4);
  g_assert_cmpstr (m->path, ==, "/dev/hugepages");
}

static void
test_unescape (void)
{
  g_autofree char *a = hpd_mountinfo_unescape ("a\\040b");
  g_autofree char *b = hpd_mountinfo_unescape ("\\011\\134");

  g_assert_cmpstr (a, ==, "a b");
  g_assert_cmpstr (b, ==, "\t\\");
  g_assert_null (hpd_mountinfo_unescape ("a\\"));
  g_assert_null (hpd_mountinfo_unescape ("a\\04"));
  g_assert_null (hpd_mountinfo_unescape ("a\\400"));
  g_assert_null (hpd_mountinfo_unescape ("a\\000"));
}

static void
test_bad_lines (void)
{
  const char *bad[] = {
    "",
    "53 27 0:48 / /mnt/h rw - hugetlbfs none",
    "53 27 0:48 / /mnt/h rw hugetlbfs none rw",
    "x 27 0:48 / /mnt/h rw - hugetlbfs none rw",
    "53 27 0:48 / relative rw - hugetlbfs none rw",
    "53 27 0:48 / /mnt/h rw - hugetlbfs none rw extra",
    "53 27 0:48 / /mnt/h rw - tmpfs none rw",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    g_assert_null (hpd_mountinfo_parse_line (bad[i]));
}

static void
test_long_line (void)
{
  g_autoptr(GString) line = g_string_new ("70 27 0:60 / /");
  g_autoptr(HpdMountInfo) m = NULL;

  for (guint i = 0; i < 100000; i++)
    g_string_append (line, "a");
  g_string_append (line, " rw - hugetlbfs none rw,pagesize=2M,uid=4294967296");
  m = hpd_mountinfo_parse_line (line->str);
  g_assert_nonnull (m);
  g_assert_cmpuint (strlen (m->path), ==, 100001);
  /* an out-of-range uid is not taken */
  g_assert_cmpuint (m->uid, ==, 0);
}

/* The mount on top of "/", which tells one mount namespace from another
 * when PID 1's namespace link cannot be read. */
static void
test_root_mount_id (void)
{
  guint32 id = 0;

  g_assert_true (hpd_mountinfo_root_mount_id ("22 27 0:21 / /proc rw - proc proc rw\n"
                                              "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
                                              "28 27 0:5 / /dev rw - devtmpfs udev rw\n", &id));
  g_assert_cmpuint (id, ==, 27);
  /* something mounted over / later: that one is on top */
  g_assert_true (hpd_mountinfo_root_mount_id ("27 1 254:0 / / rw - ext4 /dev/vda rw\n"
                                              "90 27 0:90 / / rw - tmpfs none rw\n", &id));
  g_assert_cmpuint (id, ==, 90);
  /* a bind mount of / elsewhere, or a path that only starts with / */
  g_assert_false (hpd_mountinfo_root_mount_id ("40 27 254:0 / /mnt rw - ext4 /dev/vda rw\n"
                                               "41 27 254:0 /x /x rw - ext4 /dev/vda rw\n", &id));
  g_assert_false (hpd_mountinfo_root_mount_id ("x 1 254:0 / / rw - ext4 /dev/vda rw\n", &id));
  g_assert_false (hpd_mountinfo_root_mount_id ("27 1 254:0 / /", &id));
  g_assert_false (hpd_mountinfo_root_mount_id ("", &id));
  g_assert_false (hpd_mountinfo_root_mount_id (NULL, &id));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/mountinfo/root-mount-id", test_root_mount_id);
  g_test_add_func ("/mountinfo/fixture", test_fixture);
  g_test_add_func ("/mountinfo/unescape", test_unescape);
  g_test_add_func ("/mountinfo/bad-lines", test_bad_lines);
  g_test_add_func ("/mountinfo/long-line", test_long_line);
  return g_test_run ();
}
