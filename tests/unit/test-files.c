/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Files and directories others must read get their mode whatever the
 * umask (the units run with UMask=0077). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "hp-files.h"
#include "hpd-test-util.h"

static mode_t
mode_of (const char *path)
{
  struct stat st;

  g_assert_no_errno (lstat (path, &st));
  return st.st_mode & 07777;
}

static void
test_directories (HpdTestRoot *fixture, gconstpointer data)
{
  g_autofree char *deep = g_build_filename (fixture->root, "a", "b", "c", NULL);
  g_autofree char *a = g_build_filename (fixture->root, "a", NULL);
  g_autofree char *b = g_build_filename (fixture->root, "a", "b", NULL);
  g_autofree char *slashes = g_strconcat (fixture->root, "//x//y/", NULL);
  g_autofree char *y = g_build_filename (fixture->root, "x", "y", NULL);
  mode_t old = umask (077);

  g_assert_cmpint (hp_mkdir_with_parents (deep, 0755), ==, 0);
  g_assert_cmpint (mode_of (a), ==, 0755);
  g_assert_cmpint (mode_of (b), ==, 0755);
  g_assert_cmpint (mode_of (deep), ==, 0755);
  /* again: nothing to make, nothing changed */
  g_assert_no_errno (chmod (b, 0700));
  g_assert_cmpint (hp_mkdir_with_parents (deep, 0755), ==, 0);
  g_assert_cmpint (mode_of (b), ==, 0700);

  g_assert_cmpint (hp_mkdir_with_parents (slashes, 0750), ==, 0);
  g_assert_cmpint (mode_of (y), ==, 0750);
  umask (old);
}

static void
test_directory_in_the_way (HpdTestRoot *fixture, gconstpointer data)
{
  g_autofree char *file = g_build_filename (fixture->root, "file", NULL);
  g_autofree char *below = g_build_filename (fixture->root, "file", "dir", NULL);

  hpd_test_put (fixture->root, "file", "x");
  errno = 0;
  g_assert_cmpint (hp_mkdir_with_parents (below, 0755), ==, -1);
  g_assert_cmpint (errno, ==, ENOTDIR);
  errno = 0;
  g_assert_cmpint (hp_mkdir_with_parents (file, 0755), ==, -1);
  g_assert_cmpint (errno, ==, ENOTDIR);
  errno = 0;
  g_assert_cmpint (hp_mkdir_with_parents ("", 0755), ==, -1);
  g_assert_cmpint (errno, ==, EINVAL);
}

static void
test_contents (HpdTestRoot *fixture, gconstpointer data)
{
  g_autofree char *path = g_build_filename (fixture->root, "f.conf", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  mode_t old = umask (077);

  g_assert_true (hp_file_set_contents (path, "one\n", -1, G_FILE_SET_CONTENTS_CONSISTENT,
                                       0644, &error));
  g_assert_no_error (error);
  g_assert_cmpint (mode_of (path), ==, 0644);
  /* replaced: the new file has the mode too */
  g_assert_true (hp_file_set_contents (path, "two\n", -1, G_FILE_SET_CONTENTS_CONSISTENT,
                                       0640, &error));
  g_assert_cmpint (mode_of (path), ==, 0640);
  text = hpd_test_get (fixture->root, "f.conf");
  g_assert_cmpstr (text, ==, "two\n");
  umask (old);
}

static void
test_o_path (HpdTestRoot *fixture, gconstpointer data)
{
  g_autofree char *dir = g_build_filename (fixture->root, "d", NULL);
  int fd;

  g_assert_no_errno (mkdir (dir, 0700));
  fd = open (dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (hp_chmod_fd (fd, 0755), ==, 0);
  g_assert_cmpint (mode_of (dir), ==, 0755);
  close (fd);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/files/directories", HpdTestRoot, NULL,
              hpd_test_root_setup, test_directories, hpd_test_root_teardown);
  g_test_add ("/files/directory-in-the-way", HpdTestRoot, NULL,
              hpd_test_root_setup, test_directory_in_the_way, hpd_test_root_teardown);
  g_test_add ("/files/contents", HpdTestRoot, NULL,
              hpd_test_root_setup, test_contents, hpd_test_root_teardown);
  g_test_add ("/files/o-path", HpdTestRoot, NULL,
              hpd_test_root_setup, test_o_path, hpd_test_root_teardown);
  return g_test_run ();
}
