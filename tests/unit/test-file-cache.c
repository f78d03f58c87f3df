/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Kernel files kept between reads: a fake tree's files are read again
 * after any change (in place, same size, old timestamps, renamed over, a
 * directory on the way replaced), sysfs and procfs files every time, and a
 * stamp says whether a set of reads could give anything new. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "hpd-file-cache.h"
#include "hpd-kernel.h"
#include "hpd-test-util.h"

#define COUNTER "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
#define NODE_COUNTER "sys/devices/system/node/node1/hugepages/hugepages-2048kB/free_hugepages"

typedef struct {
  char *root;
  HpdKernel *kernel;
} Fixture;

static void
setup (Fixture *f, gconstpointer data)
{
  f->root = g_dir_make_tmp ("hpd-file-cache-XXXXXX", NULL);
  g_assert_nonnull (f->root);
  hpd_test_put (f->root, COUNTER, "5\n");
  hpd_test_put (f->root, NODE_COUNTER, "3\n");
  hpd_test_put (f->root, "proc/meminfo", "MemTotal:       16384 kB\n");
  f->kernel = hpd_kernel_new (f->root);
}

static void
teardown (Fixture *f, gconstpointer data)
{
  g_clear_object (&f->kernel);
  hpd_test_remove (f->root);
  g_free (f->root);
}

static guint64
counter (Fixture *f, const char *relative)
{
  g_autoptr(GError) error = NULL;
  guint64 value = G_MAXUINT64;

  g_assert_true (hpd_kernel_read_counter (f->kernel, relative, &value, &error));
  g_assert_no_error (error);
  return value;
}

static void
test_in_place_same_size (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->root, COUNTER, NULL);
  struct stat before;

  g_assert_cmpuint (counter (f, COUNTER), ==, 5);
  g_assert_cmpuint (counter (f, COUNTER), ==, 5);
  g_assert_cmpint (stat (path, &before), ==, 0);
  for (guint value = 6; value <= 9; value++)
    {
      g_autofree char *text = g_strdup_printf ("%u\n", value);
      struct timespec times[2] = { before.st_atim, before.st_mtim };

      /* same size, and the old modification time put back: only the
       * write itself tells */
      hpd_test_put_in_place (f->root, COUNTER, text);
      g_assert_cmpint (utimensat (AT_FDCWD, path, times, 0), ==, 0);
      g_assert_cmpuint (counter (f, COUNTER), ==, value);
      g_assert_cmpuint (counter (f, COUNTER), ==, value);
    }
}

static void
test_kept_while_unchanged (Fixture *f, gconstpointer data)
{
  HpdKernelStamp stamp = { 0, };

  hpd_kernel_observe_begin (f->kernel);
  g_assert_cmpuint (counter (f, COUNTER), ==, 5);
  g_assert_cmpuint (counter (f, NODE_COUNTER), ==, 3);
  hpd_kernel_observe_end (f->kernel, &stamp);
  g_assert_true (stamp.valid);
  g_assert_true (hpd_kernel_stamp_is_current (f->kernel, &stamp));
  g_assert_true (hpd_kernel_stamp_is_current (f->kernel, &stamp));

  /* a write anywhere below a watched directory ends it */
  hpd_test_put_in_place (f->root, NODE_COUNTER, "4\n");
  g_assert_false (hpd_kernel_stamp_is_current (f->kernel, &stamp));
  g_assert_cmpuint (counter (f, NODE_COUNTER), ==, 4);
}

static void
test_renamed_over (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->root, COUNTER, NULL);
  g_autofree char *temporary = g_strconcat (path, ".new", NULL);

  g_assert_cmpuint (counter (f, COUNTER), ==, 5);
  g_assert_true (g_file_set_contents (temporary, "7\n", -1, NULL));
  g_assert_cmpint (g_rename (temporary, path), ==, 0);
  g_assert_cmpuint (counter (f, COUNTER), ==, 7);
}

static void
test_directory_on_the_way_replaced (Fixture *f, gconstpointer data)
{
  g_autofree char *node = g_build_filename (f->root, "sys/devices/system/node/node1", NULL);
  g_autofree char *old = g_build_filename (f->root, "sys/devices/system/node/old-node1", NULL);

  g_assert_cmpuint (counter (f, NODE_COUNTER), ==, 3);
  g_assert_cmpint (g_rename (node, old), ==, 0);
  hpd_test_put (f->root, NODE_COUNTER, "8\n");
  g_assert_cmpuint (counter (f, NODE_COUNTER), ==, 8);
  /* and the new directory is watched in turn */
  hpd_test_put_in_place (f->root, NODE_COUNTER, "9\n");
  g_assert_cmpuint (counter (f, NODE_COUNTER), ==, 9);
  /* the old one is no longer what the path means */
  hpd_test_put_in_place (f->root, "sys/devices/system/node/old-node1/hugepages/hugepages-2048kB/free_hugepages",
                         "1\n");
  g_assert_cmpuint (counter (f, NODE_COUNTER), ==, 9);
}

static void
test_removed (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->root, COUNTER, NULL);
  g_autoptr(GError) error = NULL;
  guint64 value;

  g_assert_cmpuint (counter (f, COUNTER), ==, 5);
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_false (hpd_kernel_read_counter (f->kernel, COUNTER, &value, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
}

/* A file made unreadable must fail to read, as it would without the cache. */
static void
test_permissions_changed (Fixture *f, gconstpointer data)
{
  g_autoptr(HpdFileCache) cache = hpd_file_cache_new (f->root);
  g_autofree char *path = g_build_filename (f->root, "proc/meminfo", NULL);
  g_autofree char *contents = NULL;
  guint64 generation;

  g_assert_cmpint (hpd_file_cache_prepare (cache, path, &generation), ==,
                   HPD_FILE_KIND_CACHEABLE);
  hpd_file_cache_store (cache, path, generation, "x", 1);
  g_assert_true (hpd_file_cache_lookup (cache, path, &contents, NULL));
  g_clear_pointer (&contents, g_free);
  g_assert_cmpint (g_chmod (path, 0), ==, 0);
  g_assert_false (hpd_file_cache_lookup (cache, path, &contents, NULL));
}

/* Another thread emptied the cache while this one read: what it read may
 * be from before the change, so it is not kept. */
static void
test_not_kept_after_a_flush_during_the_read (Fixture *f, gconstpointer data)
{
  g_autoptr(HpdFileCache) cache = hpd_file_cache_new (f->root);
  g_autofree char *path = g_build_filename (f->root, COUNTER, NULL);
  g_autofree char *contents = NULL;
  guint64 generation, hits, flushes;

  g_assert_cmpint (hpd_file_cache_prepare (cache, path, &generation), ==,
                   HPD_FILE_KIND_CACHEABLE);
  hpd_test_put_in_place (f->root, COUNTER, "6\n");
  g_assert_false (hpd_file_cache_lookup (cache, path, &contents, NULL));
  hpd_file_cache_store (cache, path, generation, "5\n", 2);
  g_assert_false (hpd_file_cache_lookup (cache, path, &contents, NULL));

  g_assert_cmpint (hpd_file_cache_prepare (cache, path, &generation), ==,
                   HPD_FILE_KIND_CACHEABLE);
  hpd_file_cache_store (cache, path, generation, "6\n", 2);
  g_assert_true (hpd_file_cache_lookup (cache, path, &contents, NULL));
  g_assert_cmpstr (contents, ==, "6\n");
  hpd_file_cache_get_stats (cache, &hits, &flushes);
  g_assert_cmpuint (hits, ==, 1);
  g_assert_cmpuint (flushes, >=, 1);
}

static void
test_outside_the_root (Fixture *f, gconstpointer data)
{
  g_autoptr(HpdFileCache) cache = hpd_file_cache_new (f->root);
  g_autofree char *sibling = g_strconcat (f->root, "-other/file", NULL);
  guint64 generation;

  g_assert_cmpint (hpd_file_cache_prepare (cache, sibling, &generation), ==,
                   HPD_FILE_KIND_UNKNOWN);
  g_assert_cmpint (hpd_file_cache_prepare (cache, "/etc/hostname", &generation), ==,
                   HPD_FILE_KIND_UNKNOWN);
}

/* On the real kernel's files nothing is kept: values change without any
 * event. */
static void
test_procfs_is_read_every_time (void)
{
  g_autoptr(HpdKernel) kernel = hpd_kernel_new ("/");
  g_autoptr(HpdFileCache) cache = hpd_file_cache_new ("/");
  HpdKernelStamp stamp = { 0, };
  guint64 generation, value;
  g_autofree char *text = NULL;

  g_assert_cmpint (hpd_file_cache_prepare (cache, "/proc/meminfo", &generation), ==,
                   HPD_FILE_KIND_PSEUDO);
  if (g_file_test ("/sys/kernel/mm", G_FILE_TEST_IS_DIR))
    g_assert_cmpint (hpd_file_cache_prepare (cache, "/sys/kernel/mm/x", &generation), ==,
                     HPD_FILE_KIND_PSEUDO);

  hpd_kernel_observe_begin (kernel);
  g_assert_true (hpd_kernel_read_counter (kernel, "proc/sys/vm/min_free_kbytes", &value, NULL));
  g_assert_true (hpd_kernel_read_text (kernel, "proc/meminfo", &text, NULL));
  hpd_kernel_observe_end (kernel, &stamp);
  g_assert_cmpuint (value, >, 0);
  g_assert_true (g_str_has_prefix (text, "MemTotal:"));
  g_assert_false (stamp.valid);
  g_assert_false (hpd_kernel_stamp_is_current (kernel, &stamp));
}

static void
test_unwatched_input (Fixture *f, gconstpointer data)
{
  HpdKernelStamp stamp = { 0, };

  hpd_kernel_observe_begin (f->kernel);
  g_assert_cmpuint (counter (f, COUNTER), ==, 5);
  hpd_kernel_note_unwatched_input (f->kernel);
  hpd_kernel_observe_end (f->kernel, &stamp);
  g_assert_false (stamp.valid);
  g_assert_false (hpd_kernel_stamp_is_current (f->kernel, &stamp));
}

static void
test_listing_and_existence (Fixture *f, gconstpointer data)
{
  HpdKernelStamp stamp = { 0, };
  g_autoptr(GPtrArray) names = NULL;

  hpd_kernel_observe_begin (f->kernel);
  names = hpd_kernel_list_dir (f->kernel, "sys/kernel/mm/hugepages", NULL);
  g_assert_false (hpd_kernel_exists (f->kernel, "sys/kernel/mm/hugepages/hugepages-1048576kB"));
  hpd_kernel_observe_end (f->kernel, &stamp);
  g_assert_cmpuint (names->len, ==, 1);
  g_assert_true (stamp.valid);
  g_assert_true (hpd_kernel_stamp_is_current (f->kernel, &stamp));

  hpd_test_put (f->root, "sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages", "0\n");
  g_assert_false (hpd_kernel_stamp_is_current (f->kernel, &stamp));
  g_assert_true (hpd_kernel_exists (f->kernel, "sys/kernel/mm/hugepages/hugepages-1048576kB"));
}

/* Fixed at boot on the real kernel; a fake tree's file is any file. */
static void
test_fixed_at_boot (Fixture *f, gconstpointer data)
{
  g_autoptr(HpdKernel) real = hpd_kernel_new ("/");
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *fake = NULL;

  hpd_test_put (f->root, "proc/pagetypeinfo", "Page block order: 9\n");
  g_assert_true (hpd_kernel_read_fixed_at_boot (f->kernel, "proc/pagetypeinfo", &fake, NULL));
  g_assert_cmpstr (fake, ==, "Page block order: 9\n");
  g_clear_pointer (&fake, g_free);
  hpd_test_put_in_place (f->root, "proc/pagetypeinfo", "Page block order: 10\n");
  g_assert_true (hpd_kernel_read_fixed_at_boot (f->kernel, "proc/pagetypeinfo", &fake, NULL));
  g_assert_cmpstr (fake, ==, "Page block order: 10\n");

  /* /proc/cmdline stands in for pagetypeinfo, which only root may read */
  g_assert_true (hpd_kernel_read_fixed_at_boot (real, "proc/cmdline", &first, NULL));
  g_assert_true (hpd_kernel_read_fixed_at_boot (real, "proc/cmdline", &second, NULL));
  g_assert_cmpstr (first, ==, second);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(name, func) \
  g_test_add ("/file-cache/" name, Fixture, NULL, setup, func, teardown)
  ADD ("in-place-same-size", test_in_place_same_size);
  ADD ("kept-while-unchanged", test_kept_while_unchanged);
  ADD ("renamed-over", test_renamed_over);
  ADD ("directory-on-the-way-replaced", test_directory_on_the_way_replaced);
  ADD ("removed", test_removed);
  ADD ("permissions-changed", test_permissions_changed);
  ADD ("not-kept-after-a-flush-during-the-read", test_not_kept_after_a_flush_during_the_read);
  ADD ("outside-the-root", test_outside_the_root);
  ADD ("unwatched-input", test_unwatched_input);
  ADD ("listing-and-existence", test_listing_and_existence);
  ADD ("fixed-at-boot", test_fixed_at_boot);
#undef ADD
  g_test_add_func ("/file-cache/procfs-is-read-every-time", test_procfs_is_read_every_time);

  return g_test_run ();
}
