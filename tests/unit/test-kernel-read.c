/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Every read of a kernel file sees the file as it is now, however it was
 * changed: in place to the same size with the old timestamps, renamed
 * over, a directory on the way replaced, through a shared mapping that is
 * still open (which makes no inotify event), or removed. Only what the
 * kernel fixes at boot is read once, and only on sysfs and procfs. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

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
  f->root = g_dir_make_tmp ("hpd-kernel-read-XXXXXX", NULL);
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

/* A writer through a shared mapping changes the file without any inotify
 * event until it closes it: the next read still sees the new value. */
static void
test_shared_mapping_write (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->root, NODE_COUNTER, NULL);
  int fd;
  char *map;

  g_assert_cmpuint (counter (f, NODE_COUNTER), ==, 3);
  g_assert_cmpuint (counter (f, NODE_COUNTER), ==, 3);
  fd = open (path, O_RDWR | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  map = mmap (NULL, 2, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  g_assert_true (map != MAP_FAILED);
  map[0] = '7';
  g_assert_cmpuint (counter (f, NODE_COUNTER), ==, 7);
  map[0] = '8';
  g_assert_cmpuint (counter (f, NODE_COUNTER), ==, 8);
  g_assert_cmpint (munmap (map, 2), ==, 0);
  g_assert_cmpint (close (fd), ==, 0);
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
  /* and the new directory is the one read from then on */
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

typedef struct {
  Fixture *f;
  guint step;
  guint64 seen[4];
  GMainLoop *loop;
} Turns;

/* Each idle callback below runs in a main loop iteration of its own. */
static gboolean
turn_step (gpointer data)
{
  Turns *t = data;
  Fixture *f = t->f;

  switch (t->step++)
    {
    case 0:
      /* one turn shares one read of each file... */
      t->seen[0] = counter (f, COUNTER);
      hpd_test_put_in_place (f->root, COUNTER, "6\n");
      t->seen[1] = counter (f, COUNTER);
      return G_SOURCE_CONTINUE;
    case 1:
      /* ...and the next turn reads it again */
      t->seen[2] = counter (f, COUNTER);
      /* a write through the service ends the turn's values at once */
      g_assert_true (hpd_kernel_write_counter (f->kernel, COUNTER, 7, NULL));
      t->seen[3] = counter (f, COUNTER);
      return G_SOURCE_CONTINUE;
    default:
      g_main_loop_quit (t->loop);
      return G_SOURCE_REMOVE;
    }
}

static void
test_one_read_per_turn (Fixture *f, gconstpointer data)
{
  Turns t = { f, 0, { 0, }, g_main_loop_new (NULL, FALSE) };

  g_idle_add (turn_step, &t);
  g_main_loop_run (t.loop);
  g_main_loop_unref (t.loop);
  g_assert_cmpuint (t.seen[0], ==, 5);
  g_assert_cmpuint (t.seen[1], ==, 5);
  g_assert_cmpuint (t.seen[2], ==, 6);
  g_assert_cmpuint (t.seen[3], ==, 7);
  /* outside the main loop nothing is shared */
  hpd_test_put_in_place (f->root, COUNTER, "8\n");
  g_assert_cmpuint (counter (f, COUNTER), ==, 8);
}

static guint
open_descriptors (void)
{
  g_autoptr(GDir) dir = g_dir_open ("/proc/self/fd", 0, NULL);
  guint n = 0;

  g_assert_nonnull (dir);
  while (g_dir_read_name (dir) != NULL)
    n++;
  return n;
}

/* The real kernel's files read as they are; those read again and again
 * stay open (one descriptor each, however often they are read), those of
 * other processes do not. */
static void
test_procfs_reads (void)
{
  g_autoptr(HpdKernel) kernel = hpd_kernel_new ("/");
  g_autofree char *text = NULL;
  guint64 value;

  g_autofree char *limits = NULL;
  guint before = open_descriptors ();

  g_assert_true (hpd_kernel_read_counter (kernel, "proc/sys/vm/min_free_kbytes", &value, NULL));
  g_assert_true (hpd_kernel_read_text (kernel, "proc/meminfo", &text, NULL));
  g_assert_cmpuint (value, >, 0);
  g_assert_true (g_str_has_prefix (text, "MemTotal:"));
  /* a kept file's pread() fills no page-sized block for a short text */
  g_assert_cmpuint (malloc_usable_size (text), <, strlen (text) + 64);
  g_assert_cmpuint (open_descriptors (), ==, before + 2);
  for (guint i = 0; i < 3; i++)
    {
      g_clear_pointer (&text, g_free);
      g_assert_true (hpd_kernel_read_counter (kernel, "proc/sys/vm/min_free_kbytes", &value, NULL));
      g_assert_true (hpd_kernel_read_text (kernel, "proc/meminfo", &text, NULL));
      g_assert_true (g_str_has_prefix (text, "MemTotal:"));
    }
  g_assert_true (hpd_kernel_read_text (kernel, "proc/1/limits", &limits, NULL));
  g_assert_cmpuint (open_descriptors (), ==, before + 2);
  g_clear_object (&kernel);
  g_assert_cmpuint (open_descriptors (), ==, before);
}

static void
test_listing_and_existence (Fixture *f, gconstpointer data)
{
  g_autoptr(GPtrArray) names = NULL;
  g_autoptr(GPtrArray) again = NULL;

  names = hpd_kernel_list_dir (f->kernel, "sys/kernel/mm/hugepages", NULL);
  g_assert_false (hpd_kernel_exists (f->kernel, "sys/kernel/mm/hugepages/hugepages-1048576kB"));
  g_assert_cmpuint (names->len, ==, 1);

  hpd_test_put (f->root, "sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages", "0\n");
  g_assert_true (hpd_kernel_exists (f->kernel, "sys/kernel/mm/hugepages/hugepages-1048576kB"));
  again = hpd_kernel_list_dir (f->kernel, "sys/kernel/mm/hugepages", NULL);
  g_assert_cmpuint (again->len, ==, 2);
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

/* A directory the kernel fixes at boot is listed once on the real kernel;
 * a fake tree's is listed at every call, its changes seen. */
static void
test_list_dir_fixed_at_boot (Fixture *f, gconstpointer data)
{
  g_autoptr(HpdKernel) real = hpd_kernel_new ("/");
  g_autoptr(GPtrArray) fake = NULL;
  g_autoptr(GPtrArray) first = NULL;
  g_autoptr(GPtrArray) second = NULL;
  g_autoptr(GPtrArray) direct = NULL;

  hpd_test_put (f->root, "sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled", "never\n");
  fake = hpd_kernel_list_dir_fixed_at_boot (f->kernel, "sys/kernel/mm/transparent_hugepage", NULL);
  g_assert_nonnull (fake);
  g_assert_cmpuint (fake->len, ==, 1);
  g_clear_pointer (&fake, g_ptr_array_unref);
  hpd_test_put (f->root, "sys/kernel/mm/transparent_hugepage/hugepages-16kB/enabled", "never\n");
  fake = hpd_kernel_list_dir_fixed_at_boot (f->kernel, "sys/kernel/mm/transparent_hugepage", NULL);
  g_assert_cmpuint (fake->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (fake, 0), ==, "hugepages-16kB");
  g_assert_null (hpd_kernel_list_dir_fixed_at_boot (f->kernel, "sys/none", NULL));

  /* sys/kernel/mm is there on every kernel this runs on */
  first = hpd_kernel_list_dir_fixed_at_boot (real, "sys/kernel/mm", NULL);
  second = hpd_kernel_list_dir_fixed_at_boot (real, "sys/kernel/mm", NULL);
  direct = hpd_kernel_list_dir (real, "sys/kernel/mm", NULL);
  g_assert_nonnull (first);
  g_assert_nonnull (second);
  g_assert_true (first != second);
  g_assert_cmpuint (first->len, ==, direct->len);
  g_assert_cmpuint (second->len, ==, direct->len);
  for (guint i = 0; i < direct->len; i++)
    {
      g_assert_cmpstr (g_ptr_array_index (first, i), ==, g_ptr_array_index (direct, i));
      g_assert_cmpstr (g_ptr_array_index (second, i), ==, g_ptr_array_index (direct, i));
    }
}

/* Whether a file the kernel makes at boot or never exists: on the real
 * kernel looked up once and no input a read snapshot checks again; a fake
 * tree's file at every call, recorded, its coming and going seen. */
static void
test_exists_fixed_at_boot (Fixture *f, gconstpointer data)
{
  g_autoptr(HpdKernel) real = hpd_kernel_new ("/");
  const char *thp = "sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled";
  HpdKernelInputs *inputs;

  g_assert_false (hpd_kernel_exists_fixed_at_boot (f->kernel, thp));
  hpd_test_put (f->root, thp, "never\n");
  g_assert_true (hpd_kernel_exists_fixed_at_boot (f->kernel, thp));
  hpd_kernel_record_begin (f->kernel);
  g_assert_true (hpd_kernel_exists_fixed_at_boot (f->kernel, thp));
  inputs = hpd_kernel_record_end (f->kernel);
  g_assert_cmpuint (hpd_kernel_inputs_count (inputs), ==, 1);
  hpd_kernel_inputs_free (inputs);

  /* overcommit_memory is there on every kernel this runs on */
  for (guint i = 0; i < 2; i++)
    {
      hpd_kernel_record_begin (real);
      g_assert_true (hpd_kernel_exists_fixed_at_boot (real, "proc/sys/vm/overcommit_memory"));
      g_assert_false (hpd_kernel_exists_fixed_at_boot (real, "proc/sys/vm/hpd-no-such-sysctl"));
      g_assert_false (hpd_kernel_exists_fixed_at_boot (real, "sys/kernel/mm/hpd-no-such-file"));
      inputs = hpd_kernel_record_end (real);
      g_assert_cmpuint (hpd_kernel_inputs_count (inputs), ==, 0);
      hpd_kernel_inputs_free (inputs);
    }
}

/* A path that is not below the root is a bug of the caller: a critical
 * and an error, nothing read, from the memo of the turn neither. */
static void
test_not_below_root (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  guint64 value = 0;

  hpd_test_put (f->root, "proc/meminfo", "MemTotal: 1 kB\n");
  g_test_expect_message (G_LOG_DOMAIN, G_LOG_LEVEL_CRITICAL, "*relative*failed*");
  g_assert_false (hpd_kernel_read_text (f->kernel, "/proc/meminfo", &text, &error));
  g_test_assert_expected_messages ();
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_assert_null (text);
  g_clear_error (&error);
  g_test_expect_message (G_LOG_DOMAIN, G_LOG_LEVEL_CRITICAL, "*relative*failed*");
  g_assert_false (hpd_kernel_read_counter (f->kernel, NULL, &value, &error));
  g_test_assert_expected_messages ();
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
}

static gboolean
table_has (HpdKernel *kernel, const char *what)
{
  g_autofree char *text = NULL;

  g_assert_true (hpd_kernel_read_text (kernel, "proc/self/mountinfo", &text, NULL));
  return strstr (text, what) != NULL;
}

static gboolean
enter_own_mount_namespace (void)
{
  return unshare (CLONE_NEWNS) == 0 || unshare (CLONE_NEWUSER | CLONE_NEWNS) == 0;
}

static gboolean
own_mount_namespace_allowed (void)
{
  int status;
  pid_t pid = fork ();

  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    _exit (enter_own_mount_namespace () ? 0 : 1);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  return WIFEXITED (status) && WEXITSTATUS (status) == 0;
}

/* The mount table is made again only when poll() on the kept mountinfo
 * says it changed: every mount, remount and unmount made by anybody is
 * seen by the next read. In a mount namespace of its own (root, or an
 * unprivileged user namespace; skipped where neither is allowed). */
static void
test_mount_table_changes (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *line = NULL;
  g_autoptr(HpdKernel) kernel = NULL;
  g_autoptr(HpdKernelInputs) inputs = NULL;

  if (!g_test_subprocess ())
    {
      if (!own_mount_namespace_allowed ())
        {
          g_test_skip ("no mount namespace of our own");
          return;
        }
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
      g_test_trap_assert_passed ();
      return;
    }
  g_assert_true (enter_own_mount_namespace ());
  g_assert_cmpint (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), ==, 0);
  dir = g_dir_make_tmp ("hpd-mount-table-XXXXXX", NULL);
  g_assert_nonnull (dir);
  line = g_strconcat (" ", dir, " ", NULL);
  kernel = hpd_kernel_new ("/");

  for (guint i = 0; i < 3; i++)
    g_assert_false (table_has (kernel, line));
  /* a checker of what was read polls a mountinfo of its own: the change
   * it sees is still there for the kernel's next read */
  hpd_kernel_record_begin (kernel);
  g_assert_false (table_has (kernel, line));
  inputs = hpd_kernel_record_end (kernel);
  g_assert_nonnull (inputs);
  for (guint i = 0; i < 3; i++)
    g_assert_true (hpd_kernel_inputs_unchanged (inputs));
  g_assert_cmpint (mount ("hpd-test", dir, "tmpfs", 0, "mode=0700"), ==, 0);
  g_assert_false (hpd_kernel_inputs_unchanged (inputs));
  g_assert_true (table_has (kernel, line));
  g_assert_true (table_has (kernel, "mode=700"));
  g_assert_false (table_has (kernel, "size=10240k"));
  g_assert_cmpint (mount (NULL, dir, NULL, MS_REMOUNT, "size=10m"), ==, 0);
  g_assert_true (table_has (kernel, "size=10240k"));
  g_assert_cmpint (mount (NULL, dir, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL), ==, 0);
  g_assert_true (table_has (kernel, " ro,"));
  g_assert_cmpint (umount (dir), ==, 0);
  g_assert_false (table_has (kernel, line));
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* A text comes back whole at any length, the page-sized reads' boundary
 * included, in a block of its own size: a text a value keeps (ThpSettings'
 * texts) must not hold a page of the heap for a few bytes. */
static void
test_text_sizes (Fixture *f, gconstpointer data)
{
  const gsize lengths[] = { 23, 4095, 4096, 4097, 10000 };

  for (guint i = 0; i < G_N_ELEMENTS (lengths); i++)
    {
      g_autofree char *expected = g_malloc (lengths[i] + 1);
      g_autofree char *text = NULL;

      for (gsize j = 0; j < lengths[i]; j++)
        expected[j] = (j % 64 == 63) ? '\n' : (char) ('a' + j % 26);
      expected[lengths[i]] = '\0';
      hpd_test_put (f->root, "proc/zoneinfo", expected);
      g_assert_true (hpd_kernel_read_text (f->kernel, "proc/zoneinfo", &text, NULL));
      g_assert_cmpstr (text, ==, expected);
      if (lengths[i] < 4096)
        g_assert_cmpuint (malloc_usable_size (text), <, lengths[i] + 64);
    }
}

/* What a recording saw is checked again by another thread's reads: every
 * kind of input, a failed read as one, and a write through the service
 * spoils the record. */
static void
test_recorded_inputs (Fixture *f, gconstpointer data)
{
  g_autoptr(HpdKernelInputs) inputs = NULL;
  g_autoptr(GPtrArray) names = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *overcommit = g_build_filename (f->root, "proc/sys/vm/nr_overcommit_hugepages",
                                                  NULL);
  g_autofree char *node = g_build_filename (f->root, NODE_COUNTER, NULL);
  guint64 value;

  hpd_kernel_record_begin (f->kernel);
  g_assert_true (hpd_kernel_read_counter (f->kernel, COUNTER, &value, NULL));
  g_assert_true (hpd_kernel_read_text (f->kernel, "proc/meminfo", &text, NULL));
  g_assert_true (hpd_kernel_exists (f->kernel, NODE_COUNTER));
  g_assert_false (hpd_kernel_exists (f->kernel, "sys/kernel/mm/hugepages/hugepages-1048576kB"));
  names = hpd_kernel_list_dir (f->kernel, "sys/kernel/mm/hugepages", NULL);
  g_assert_nonnull (names);
  /* a failed read sets @text to NULL: the meminfo text goes first */
  g_clear_pointer (&text, g_free);
  g_assert_false (hpd_kernel_read_text (f->kernel, "proc/sys/vm/nr_overcommit_hugepages", &text,
                                        &error));
  inputs = hpd_kernel_record_end (f->kernel);
  g_assert_nonnull (inputs);
  g_assert_cmpuint (hpd_kernel_inputs_count (inputs), ==, 6);

  for (guint i = 0; i < 2; i++)
    g_assert_true (hpd_kernel_inputs_unchanged (inputs));
  hpd_test_put_in_place (f->root, COUNTER, "6\n");
  g_assert_false (hpd_kernel_inputs_unchanged (inputs));
  hpd_test_put_in_place (f->root, COUNTER, "5\n");
  g_assert_true (hpd_kernel_inputs_unchanged (inputs));
  hpd_test_put (f->root, "proc/meminfo", "MemTotal:       16385 kB\n");
  g_assert_false (hpd_kernel_inputs_unchanged (inputs));
  hpd_test_put (f->root, "proc/meminfo", "MemTotal:       16384 kB\n");
  g_assert_true (hpd_kernel_inputs_unchanged (inputs));
  /* a file that appears, one that goes, a directory that grows */
  hpd_test_put (f->root, "proc/sys/vm/nr_overcommit_hugepages", "0\n");
  g_assert_false (hpd_kernel_inputs_unchanged (inputs));
  g_assert_cmpint (g_remove (overcommit), ==, 0);
  g_assert_true (hpd_kernel_inputs_unchanged (inputs));
  g_assert_cmpint (g_remove (node), ==, 0);
  g_assert_false (hpd_kernel_inputs_unchanged (inputs));
  hpd_test_put (f->root, NODE_COUNTER, "3\n");
  g_assert_true (hpd_kernel_inputs_unchanged (inputs));
  hpd_test_put (f->root, "sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages", "0\n");
  g_assert_false (hpd_kernel_inputs_unchanged (inputs));

  /* a write in between: what was read before it may be stale */
  hpd_kernel_record_begin (f->kernel);
  g_assert_true (hpd_kernel_read_counter (f->kernel, COUNTER, &value, NULL));
  g_assert_true (hpd_kernel_write_counter (f->kernel, COUNTER, 7, NULL));
  g_assert_null (hpd_kernel_record_end (f->kernel));
}

/* A file read twice with the same result is one check; read twice with
 * different results (changed between the reads), the record can never be
 * found unchanged. */
static void
test_recorded_inputs_once (Fixture *f, gconstpointer data)
{
  g_autoptr(HpdKernelInputs) once = NULL;
  g_autoptr(HpdKernelInputs) twice = NULL;
  guint64 value;

  hpd_kernel_record_begin (f->kernel);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *text = NULL;

      g_assert_true (hpd_kernel_read_counter (f->kernel, COUNTER, &value, NULL));
      g_assert_true (hpd_kernel_read_text (f->kernel, "proc/meminfo", &text, NULL));
    }
  once = hpd_kernel_record_end (f->kernel);
  g_assert_nonnull (once);
  g_assert_cmpuint (hpd_kernel_inputs_count (once), ==, 2);
  g_assert_true (hpd_kernel_inputs_unchanged (once));
  hpd_test_put_in_place (f->root, COUNTER, "6\n");
  g_assert_false (hpd_kernel_inputs_unchanged (once));

  hpd_kernel_record_begin (f->kernel);
  g_assert_true (hpd_kernel_read_counter (f->kernel, COUNTER, &value, NULL));
  g_assert_cmpuint (value, ==, 6);
  hpd_test_put_in_place (f->root, COUNTER, "7\n");
  g_assert_true (hpd_kernel_read_counter (f->kernel, COUNTER, &value, NULL));
  g_assert_cmpuint (value, ==, 7);
  twice = hpd_kernel_record_end (f->kernel);
  g_assert_nonnull (twice);
  g_assert_cmpuint (hpd_kernel_inputs_count (twice), ==, 2);
  for (const char *now = "6\n"; now != NULL; now = g_str_equal (now, "6\n") ? "7\n" : NULL)
    {
      hpd_test_put_in_place (f->root, COUNTER, now);
      g_assert_false (hpd_kernel_inputs_unchanged (twice));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(name, func) \
  g_test_add ("/kernel-read/" name, Fixture, NULL, setup, func, teardown)
  ADD ("in-place-same-size", test_in_place_same_size);
  ADD ("shared-mapping-write", test_shared_mapping_write);
  ADD ("renamed-over", test_renamed_over);
  ADD ("directory-on-the-way-replaced", test_directory_on_the_way_replaced);
  ADD ("removed", test_removed);
  ADD ("listing-and-existence", test_listing_and_existence);
  ADD ("fixed-at-boot", test_fixed_at_boot);
  ADD ("list-dir-fixed-at-boot", test_list_dir_fixed_at_boot);
  ADD ("exists-fixed-at-boot", test_exists_fixed_at_boot);
  ADD ("not-below-root", test_not_below_root);
  ADD ("one-read-per-turn", test_one_read_per_turn);
  ADD ("text-sizes", test_text_sizes);
  ADD ("recorded-inputs", test_recorded_inputs);
  ADD ("recorded-inputs-once", test_recorded_inputs_once);
#undef ADD
  g_test_add_func ("/kernel-read/procfs", test_procfs_reads);
  g_test_add_func ("/kernel-read/mount-table-changes", test_mount_table_changes);

  return g_test_run ();
}
