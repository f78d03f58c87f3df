/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpd-test-util.h"

char *
hpd_test_fixture (const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "fixtures", name, NULL);
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

void
hpd_test_put (const char *root, const char *relative, const char *contents)
{
  g_autofree char *path = g_build_filename (root, relative, NULL);
  g_autofree char *dir = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
}

char *
hpd_test_get (const char *root, const char *relative)
{
  g_autofree char *path = g_build_filename (root, relative, NULL);
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

void
hpd_test_remove (const char *path)
{
  g_autofree char *quoted = g_shell_quote (path);
  g_autofree char *cmd = g_strdup_printf ("rm -rf %s", quoted);

  g_assert_cmpint (system (cmd), ==, 0);
}

void
hpd_test_put_in_place (const char *root, const char *relative, const char *contents)
{
  g_autofree char *path = g_build_filename (root, relative, NULL);
  int fd = open (path, O_WRONLY | O_TRUNC | O_CLOEXEC);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, contents, strlen (contents)), ==, (gssize) strlen (contents));
  g_assert_cmpint (close (fd), ==, 0);
}

void
hpd_test_root_setup (HpdTestRoot *fixture, gconstpointer data)
{
  fixture->root = g_dir_make_tmp ("hpd-test-XXXXXX", NULL);
  g_assert_nonnull (fixture->root);
}

void
hpd_test_root_teardown (HpdTestRoot *fixture, gconstpointer data)
{
  hpd_test_remove (fixture->root);
  g_free (fixture->root);
}
