/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The one no-follow open: openat2() and the component walk used where it is
 * missing open the same paths and refuse the same links, anywhere on the
 * way, with the same error. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hpd-open.h"
#include "hpd-test-util.h"

typedef int (*OpenFunc) (const char *path, int flags);

typedef struct {
  char *root;
} Fixture;

static void
setup (Fixture *f, gconstpointer data)
{
  g_autofree char *dir = NULL;
  g_autofree char *link = NULL;
  g_autofree char *file_link = NULL;

  g_autofree char *made = g_dir_make_tmp ("hpd-open-XXXXXX", NULL);

  /* the temporary directory's own path may lead through a link */
  g_assert_nonnull (made);
  f->root = realpath (made, NULL);
  g_assert_nonnull (f->root);
  hpd_test_put (f->root, "real/sub/file", "x\n");
  dir = g_build_filename (f->root, "real", NULL);
  link = g_build_filename (f->root, "link", NULL);
  file_link = g_build_filename (f->root, "real/sub/file-link", NULL);
  g_assert_cmpint (symlink (dir, link), ==, 0);
  g_assert_cmpint (symlink ("file", file_link), ==, 0);
}

static void
teardown (Fixture *f, gconstpointer data)
{
  hpd_test_remove (f->root);
  g_free (f->root);
}

static void
assert_opens (OpenFunc open_func, const char *path, int flags, mode_t type)
{
  struct stat st;
  int fd = open_func (path, flags);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (fstat (fd, &st), ==, 0);
  g_assert_cmpint (st.st_mode & S_IFMT, ==, type);
  g_assert_cmpint (fcntl (fd, F_GETFD) & FD_CLOEXEC, ==, FD_CLOEXEC);
  close (fd);
}

static void
assert_refused (OpenFunc open_func, const char *path, int flags, int expected)
{
  errno = 0;
  g_assert_cmpint (open_func (path, flags), ==, -1);
  g_assert_cmpint (errno, ==, expected);
}

static void
check (Fixture *f, OpenFunc open_func)
{
  g_autofree char *dir = g_build_filename (f->root, "real/sub", NULL);
  g_autofree char *file = g_build_filename (f->root, "real/sub/file", NULL);
  g_autofree char *last_link = g_build_filename (f->root, "link", NULL);
  g_autofree char *middle_link = g_build_filename (f->root, "link/sub", NULL);
  g_autofree char *file_link = g_build_filename (f->root, "real/sub/file-link", NULL);
  g_autofree char *missing = g_build_filename (f->root, "real/none", NULL);

  assert_opens (open_func, dir, O_PATH | O_DIRECTORY, S_IFDIR);
  assert_opens (open_func, dir, O_RDONLY | O_DIRECTORY, S_IFDIR);
  assert_opens (open_func, file, O_RDONLY, S_IFREG);
  assert_opens (open_func, "/", O_PATH | O_DIRECTORY, S_IFDIR);

  assert_refused (open_func, last_link, O_PATH | O_DIRECTORY, ELOOP);
  assert_refused (open_func, last_link, O_RDONLY | O_DIRECTORY, ELOOP);
  assert_refused (open_func, middle_link, O_PATH | O_DIRECTORY, ELOOP);
  assert_refused (open_func, file_link, O_RDONLY, ELOOP);
  /* O_PATH alone would open the link itself */
  assert_refused (open_func, file_link, O_PATH, ELOOP);
  /* /proc/self is a link */
  assert_refused (open_func, "/proc/self/ns", O_PATH | O_DIRECTORY, ELOOP);
  assert_refused (open_func, missing, O_PATH | O_DIRECTORY, ENOENT);
  assert_refused (open_func, file, O_PATH | O_DIRECTORY, ENOTDIR);
  assert_refused (open_func, "relative/path", O_PATH | O_DIRECTORY, EINVAL);
}

static void
test_openat2 (Fixture *f, gconstpointer data)
{
  check (f, hpd_open_no_links);
}

static void
test_walk (Fixture *f, gconstpointer data)
{
  check (f, hpd_open_no_links_walk);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/open/no-links", Fixture, NULL, setup, test_openat2, teardown);
  g_test_add ("/open/no-links-walk", Fixture, NULL, setup, test_walk, teardown);
  return g_test_run ();
}
