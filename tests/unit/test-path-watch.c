/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The path watch of the read snapshot: every change that stat() of a
 * watched path would show is seen, whether it is to the path, to a
 * directory or link on the way, to a part of the way that was missing, or
 * a mount; a change elsewhere is not. */
#include "config.h"

#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "hpd-path-watch.h"
#include "hpd-stat-state.h"
#include "hpd-test-util.h"

/* a tree below a temporary directory */
typedef HpdTestRoot Fixture;

static void
setup (Fixture *f, gconstpointer data)
{
  hpd_test_root_setup (f, data);
  hpd_test_put (f->root, "etc/hp/main.conf", "a = 1\n");
  hpd_test_put (f->root, "other/deep/file", "x\n");
  hpd_test_put (f->root, "etc/neighbour", "n\n");
}

static char *
at (Fixture *f, const char *relative)
{
  return g_build_filename (f->root, relative, NULL);
}

/* A watch of @relative below the root, unchanged when made. */
static HpdPathWatch *
watch (Fixture *f, const char *relative)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = at (f, relative);
  HpdPathWatch *w = hpd_path_watch_new (&error);

  g_assert_no_error (error);
  g_assert_true (hpd_path_watch_add (w, path, HPD_PATH_WATCH_NONE, &error));
  g_assert_no_error (error);
  g_assert_true (hpd_path_watch_unchanged (w));
  return w;
}

static void
make_link (Fixture *f, const char *relative, const char *target)
{
  g_autofree char *path = at (f, relative);

  g_assert_no_errno (symlink (target, path));
}

static void
make_dir (Fixture *f, const char *relative)
{
  g_autofree char *path = at (f, relative);

  g_assert_no_errno (g_mkdir_with_parents (path, 0755));
}

static void
test_nothing_done (Fixture *f, gconstpointer data)
{
  g_autoptr(HpdPathWatch) w = watch (f, "etc/hp/main.conf");
  g_autofree char *neighbour = at (f, "etc/neighbour");

  /* a change below a directory that is not on the way */
  hpd_test_put_in_place (f->root, "other/deep/file", "y\n");
  hpd_test_put (f->root, "other/deep/new", "z\n");
  /* a write to another file of a directory on the way, and its times
   * (anybody may touch /tmp, which is in /) */
  hpd_test_put_in_place (f->root, "etc/neighbour", "m\n");
  g_assert_no_errno (utimes (neighbour, NULL));
  g_assert_true (hpd_path_watch_unchanged (w));
}

/* One change of a watched path, seen. */
typedef struct {
  const char *name;
  const char *watched;
  void (*change)(Fixture *f);
} Change;

static void
write_in_place (Fixture *f)
{
  /* the same size: only the write tells */
  hpd_test_put_in_place (f->root, "etc/hp/main.conf", "a = 2\n");
}

static void
change_mode (Fixture *f)
{
  g_autofree char *path = at (f, "etc/hp/main.conf");

  g_assert_no_errno (g_chmod (path, 0600));
}

static void
rename_over (Fixture *f)
{
  hpd_test_put (f->root, "etc/hp/main.conf", "a = 1\n");
}

static const Change changes[] = {
  { "edit-in-place", "etc/hp/main.conf", write_in_place },
  { "mode", "etc/hp/main.conf", change_mode },
  { "renamed-over", "etc/hp/main.conf", rename_over },
  /* a directory's file written in place: its own times stay */
  { "directory-at-the-end", "etc/hp", write_in_place },
};

static void
test_change (Fixture *f, gconstpointer data)
{
  const Change *change = data;
  g_autoptr(HpdPathWatch) w = watch (f, change->watched);

  change->change (f);
  g_assert_false (hpd_path_watch_unchanged (w));
  /* for good */
  g_assert_false (hpd_path_watch_unchanged (w));
}

static void
test_missing_parts_appear (Fixture *f, gconstpointer data)
{
  g_autoptr(HpdPathWatch) two_missing = watch (f, "etc/none/conf.d/50.conf");
  g_autoptr(HpdPathWatch) one_missing = watch (f, "etc/hp/conf.d/50.conf");
  g_autoptr(HpdPathWatch) file_missing = NULL;

  make_dir (f, "etc/hp/conf.d");
  g_assert_false (hpd_path_watch_unchanged (one_missing));
  /* etc/hp is not on that way */
  g_assert_true (hpd_path_watch_unchanged (two_missing));
  make_dir (f, "etc/none");
  g_assert_false (hpd_path_watch_unchanged (two_missing));
  file_missing = watch (f, "etc/hp/conf.d/50.conf");
  hpd_test_put (f->root, "etc/hp/conf.d/50.conf", "c = 1\n");
  g_assert_false (hpd_path_watch_unchanged (file_missing));
}

static void
test_directory_on_the_way_renamed (Fixture *f, gconstpointer data)
{
  g_autoptr(HpdPathWatch) w = watch (f, "etc/hp/main.conf");
  g_autofree char *from = at (f, "etc/hp");
  g_autofree char *to = at (f, "etc/hp.old");

  g_assert_no_errno (g_rename (from, to));
  g_assert_false (hpd_path_watch_unchanged (w));
}

static void
test_link_on_the_way (Fixture *f, gconstpointer data)
{
  g_autoptr(HpdPathWatch) through = NULL;
  g_autoptr(HpdPathWatch) retargeted = NULL;
  g_autofree char *link = at (f, "etc/hp.link");
  g_autofree char *tmp = at (f, "etc/hp.link.new");

  make_dir (f, "srv/hp");
  make_link (f, "etc/hp.link", "../srv/hp");
  /* a file appears in the target */
  through = watch (f, "etc/hp.link/main.conf");
  hpd_test_put (f->root, "srv/hp/main.conf", "b = 1\n");
  g_assert_false (hpd_path_watch_unchanged (through));

  /* the link replaced by one to elsewhere, as ln -sfn does */
  retargeted = watch (f, "etc/hp.link/main.conf");
  g_assert_no_errno (symlink ("hp", tmp));
  g_assert_no_errno (g_rename (tmp, link));
  g_assert_false (hpd_path_watch_unchanged (retargeted));
}

static void
test_dangling_link_target_appears (Fixture *f, gconstpointer data)
{
  g_autoptr(HpdPathWatch) w = NULL;

  make_link (f, "etc/dangling", "../srv/later");
  w = watch (f, "etc/dangling/main.conf");
  make_dir (f, "srv");
  g_assert_false (hpd_path_watch_unchanged (w));
}

static void
test_masked_by_dev_null (Fixture *f, gconstpointer data)
{
  g_autoptr(HpdPathWatch) w = NULL;
  FILE *null;

  make_link (f, "etc/hp/masked.conf", "/dev/null");
  w = watch (f, "etc/hp/masked.conf");
  /* anybody's writes to the device are no change of the mask */
  null = fopen ("/dev/null", "w");
  g_assert_nonnull (null);
  fputs ("x", null);
  g_assert_cmpint (fclose (null), ==, 0);
  g_assert_true (hpd_path_watch_unchanged (w));
}

static void
test_link_loop_is_refused (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HpdPathWatch) w = hpd_path_watch_new (&error);
  g_autofree char *path = at (f, "etc/loop/main.conf");

  make_link (f, "etc/loop", "loop");
  g_assert_no_error (error);
  g_assert_false (hpd_path_watch_add (w, path, HPD_PATH_WATCH_NONE, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_LINKS);
}

/* HPD_PATH_WATCH_ROOT_WAY: a way through a directory whose entries
 * another account may change is refused, and the paths added before stay
 * watched. */
static void
test_way_others_may_change_is_refused (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HpdPathWatch) w = NULL;
  g_autofree char *shared = at (f, "shared");
  g_autofree char *inside = at (f, "shared/inside/file");
  struct stat st;

  make_dir (f, "shared/inside");
  g_assert_no_errno (chmod (shared, 01777));
  w = watch (f, "etc/hp/main.conf");
  g_assert_false (hpd_path_watch_add (w, inside, HPD_PATH_WATCH_ROOT_WAY, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
  g_clear_error (&error);
  g_assert_true (hpd_path_watch_unchanged (w));
  /* anybody's entry in the shared directory is no change of what is
   * watched; the earlier path still is watched */
  hpd_test_put (f->root, "shared/anybody", "x\n");
  g_assert_true (hpd_path_watch_unchanged (w));
  hpd_test_put (f->root, "etc/hp/main.conf", "a = 2\n");
  g_assert_false (hpd_path_watch_unchanged (w));

  /* a way only root may change is taken */
  if (stat ("/etc", &st) != 0 || !hpd_stat_only_root_writes (&st))
    {
      g_test_skip ("/etc is not a directory only root may change");
      return;
    }
  g_clear_pointer (&w, hpd_path_watch_free);
  w = hpd_path_watch_new (&error);
  g_assert_no_error (error);
  g_assert_true (hpd_path_watch_add (w, "/etc/hugepagesd-test-missing/file",
                                     HPD_PATH_WATCH_ROOT_WAY, &error));
  g_assert_no_error (error);
  g_assert_true (hpd_path_watch_unchanged (w));
}

/* A mount over a directory on the way gives no inotify event: the mount
 * table tells. Needs a mount namespace of its own (root). */
static void
test_mount_on_the_way (Fixture *f, gconstpointer data)
{
  if (geteuid () != 0)
    {
      g_test_skip ("mounting needs root");
      return;
    }
  if (g_test_subprocess ())
    {
      g_autoptr(HpdPathWatch) w = NULL;
      g_autofree char *dir = at (f, "etc/hp");

      g_assert_no_errno (unshare (CLONE_NEWNS));
      g_assert_no_errno (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
      w = watch (f, "etc/hp/main.conf");
      g_assert_no_errno (mount ("none", dir, "tmpfs", 0, NULL));
      g_assert_false (hpd_path_watch_unchanged (w));
      g_assert_no_errno (umount (dir));
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

/* The trees are made in the temporary directory, which is on their way,
 * and the watch cannot tell whose entry a new one there is: any process's
 * file in /tmp is a change, and a test that expects none would fail now
 * and then. So the trees get a tmpfs of their own, in a mount namespace of
 * this process (as another user than root, in a user namespace that maps
 * only the user's own ids). */
static void
own_tmp_dir (void)
{
  uid_t uid = geteuid ();
  gid_t gid = getegid ();

  if (uid == 0)
    g_assert_no_errno (unshare (CLONE_NEWNS));
  else
    {
      char map[64];

      g_assert_no_errno (unshare (CLONE_NEWUSER | CLONE_NEWNS));
      hpd_test_put_in_place ("/proc/self", "setgroups", "deny");
      g_snprintf (map, sizeof map, "%u %u 1\n", (guint) uid, (guint) uid);
      hpd_test_put_in_place ("/proc/self", "uid_map", map);
      g_snprintf (map, sizeof map, "%u %u 1\n", (guint) gid, (guint) gid);
      hpd_test_put_in_place ("/proc/self", "gid_map", map);
    }
  g_assert_no_errno (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
  g_assert_no_errno (mount ("none", g_get_tmp_dir (), "tmpfs", 0, "mode=1777"));
}

int
main (int argc, char **argv)
{
  own_tmp_dir ();
  /* the program and the directory it was started in may be below the
   * temporary directory (a package built in /tmp), now hidden: a
   * subprocess test runs the program again through the kernel's link to
   * it, which a mount over its path does not hide, and starts in / */
  argv[0] = (char *) "/proc/self/exe";
  g_assert_no_errno (chdir ("/"));
  g_test_init (&argc, &argv, NULL);
#define ADD(name, fn) g_test_add ("/path-watch/" name, Fixture, NULL, setup, fn, hpd_test_root_teardown)
  ADD ("nothing-done", test_nothing_done);
  for (guint i = 0; i < G_N_ELEMENTS (changes); i++)
    {
      g_autofree char *name = g_strconcat ("/path-watch/", changes[i].name, NULL);

      g_test_add (name, Fixture, &changes[i], setup, test_change, hpd_test_root_teardown);
    }
  ADD ("missing-parts-appear", test_missing_parts_appear);
  ADD ("directory-on-the-way-renamed", test_directory_on_the_way_renamed);
  ADD ("link-on-the-way", test_link_on_the_way);
  ADD ("dangling-link-target-appears", test_dangling_link_target_appears);
  ADD ("masked-by-dev-null", test_masked_by_dev_null);
  ADD ("link-loop-is-refused", test_link_loop_is_refused);
  ADD ("way-others-may-change-is-refused", test_way_others_may_change_is_refused);
  ADD ("mount-on-the-way", test_mount_on_the_way);
#undef ADD
  return g_test_run ();
}
