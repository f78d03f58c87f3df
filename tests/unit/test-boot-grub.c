/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The Debian GRUB backend on temporary trees: what counts as Debian's GRUB,
 * the drop-in's exact text, writing only that file (atomically, not twice,
 * not through links), removing it, and running update-grub with a time
 * limit that also stops what it started. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "hp-error.h"
#include "hpd-boot-grub.h"
#include "hpd-test-util.h"

#define GB (G_GUINT64_CONSTANT (1) << 30)

static char *
make_root (void)
{
  g_autoptr(GError) error = NULL;
  char *root = g_dir_make_tmp ("hpd-boot-XXXXXX", &error);

  g_assert_no_error (error);
  return root;
}

static void
make_debian (const char *root)
{
  hpd_test_put (root, HPD_BOOT_DEBIAN_VERSION, "12.11\n");
  hpd_test_put (root, HPD_BOOT_GRUB_DEFAULT, "GRUB_CMDLINE_LINUX=\"\"\n");
  hpd_test_put (root, "usr/sbin/update-grub", "#!/bin/sh\nexit 0\n");
}

static HpdBootParams *
params_for (const char *text)
{
  g_autoptr(HpdConfig) config = hpd_config_new ();
  g_autoptr(GPtrArray) pools = g_ptr_array_new_with_free_func ((GDestroyNotify) hpd_pool_free);
  HpdPool *pool = g_new0 (HpdPool, 1);
  guint node = 0;

  pool->size = GB;
  pool->gigantic = TRUE;
  pool->nodes = g_array_new (FALSE, FALSE, sizeof (guint));
  g_array_append_val (pool->nodes, node);
  g_ptr_array_add (pools, pool);
  hpd_config_parse_text ("t.conf", text, -1, config);
  g_assert_cmpuint (config->errors->len, ==, 0);
  return hpd_boot_params_from_config (config, pools, GB, NULL);
}

static void
test_check (void)
{
  g_autofree char *root = make_root ();
  g_autofree char *update_grub = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_false (hpd_boot_grub_check (root, &update_grub, &error));
  g_assert_error (error, HP_ERROR, HP_ERROR_NOT_SUPPORTED);
  g_assert_nonnull (strstr (error->message, "Debian"));
  g_clear_error (&error);

  hpd_test_put (root, HPD_BOOT_DEBIAN_VERSION, "12.11\n");
  g_assert_false (hpd_boot_grub_check (root, &update_grub, &error));
  g_assert_error (error, HP_ERROR, HP_ERROR_NOT_SUPPORTED);
  g_assert_nonnull (strstr (error->message, "/etc/default/grub"));
  g_clear_error (&error);

  /* GRUB removed, its configuration left behind */
  hpd_test_put (root, HPD_BOOT_GRUB_DEFAULT, "GRUB_TIMEOUT=5\n");
  g_assert_false (hpd_boot_grub_check (root, &update_grub, &error));
  g_assert_error (error, HP_ERROR, HP_ERROR_NOT_SUPPORTED);
  g_assert_nonnull (strstr (error->message, "update-grub"));
  g_assert_null (update_grub);
  g_clear_error (&error);

  hpd_test_put (root, "sbin/update-grub", "#!/bin/sh\n");
  g_assert_true (hpd_boot_grub_check (root, &update_grub, &error));
  g_assert_no_error (error);
  g_assert_true (g_str_has_suffix (update_grub, "/sbin/update-grub"));
  g_assert_true (g_str_has_prefix (update_grub, root));
  g_clear_pointer (&update_grub, g_free);

  hpd_test_put (root, "usr/sbin/update-grub", "#!/bin/sh\n");
  g_assert_true (hpd_boot_grub_check (root, &update_grub, &error));
  g_assert_true (g_str_has_suffix (update_grub, "/usr/sbin/update-grub"));

  hpd_test_remove (root);
}

static void
test_dropin_text (void)
{
  g_autoptr(HpdBootParams) four = params_for ("[pool 1G]\nminimum = 4\n[boot]\ndefault-page-size = 1G\n");
  g_autoptr(HpdBootParams) none = params_for ("[pool 1G]\nminimum = 0\n");
  g_autofree char *text = hpd_boot_grub_dropin_text (four);

  g_assert_cmpstr (text, ==,
                   "# Huge pages at boot: written by hugepagesd (ConfigureBoot, as in\n"
                   "# \"hugepagesctl boot --write\") from /etc/hugepagesd/hugepagesd.conf and its\n"
                   "# drop-ins. Changes made here are lost: change the configuration and write\n"
                   "# it again. update-grub puts it into grub.cfg.\n"
                   "GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX default_hugepagesz=1G hugepagesz=1G hugepages=4\"\n");
  g_assert_null (hpd_boot_grub_dropin_text (none));
}

static struct stat
stat_of (const char *root, const char *relative)
{
  g_autofree char *path = g_build_filename (root, relative, NULL);
  struct stat st;

  g_assert_cmpint (lstat (path, &st), ==, 0);
  return st;
}

static gboolean
exists (const char *root, const char *relative)
{
  g_autofree char *path = g_build_filename (root, relative, NULL);
  struct stat st;

  return lstat (path, &st) == 0;
}

static void
test_write (void)
{
  g_autofree char *root = make_root ();
  g_autoptr(GError) error = NULL;
  g_autofree char *got = NULL;
  g_autofree char *grub = NULL;
  struct stat before, after;
  gboolean changed;

  umask (022);
  make_debian (root);

  /* grub.d is made */
  g_assert_true (hpd_boot_grub_write (root, "one\n", &changed, &error));
  g_assert_no_error (error);
  g_assert_true (changed);
  got = hpd_test_get (root, HPD_BOOT_GRUB_DROPIN);
  g_assert_cmpstr (got, ==, "one\n");
  g_assert_cmpint (stat_of (root, HPD_BOOT_GRUB_DROPIN).st_mode & 07777, ==, 0644);
  g_assert_cmpint (stat_of (root, HPD_BOOT_GRUB_DIR).st_mode & 07777, ==, 0755);
  g_clear_pointer (&got, g_free);

  /* the same again: the file is left alone */
  before = stat_of (root, HPD_BOOT_GRUB_DROPIN);
  g_assert_true (hpd_boot_grub_write (root, "one\n", &changed, &error));
  g_assert_false (changed);
  after = stat_of (root, HPD_BOOT_GRUB_DROPIN);
  g_assert_cmpuint (before.st_ino, ==, after.st_ino);

  /* different: replaced (a new inode: written aside, renamed over) */
  g_assert_true (hpd_boot_grub_write (root, "two\n", &changed, &error));
  g_assert_true (changed);
  got = hpd_test_get (root, HPD_BOOT_GRUB_DROPIN);
  g_assert_cmpstr (got, ==, "two\n");
  g_assert_cmpuint (stat_of (root, HPD_BOOT_GRUB_DROPIN).st_ino, !=, after.st_ino);
  g_clear_pointer (&got, g_free);

  /* removed, then nothing to remove */
  g_assert_true (hpd_boot_grub_write (root, NULL, &changed, &error));
  g_assert_true (changed);
  g_assert_false (exists (root, HPD_BOOT_GRUB_DROPIN));
  g_assert_true (hpd_boot_grub_write (root, NULL, &changed, &error));
  g_assert_false (changed);
  g_assert_no_error (error);

  /* nothing else was touched */
  grub = hpd_test_get (root, HPD_BOOT_GRUB_DEFAULT);
  g_assert_cmpstr (grub, ==, "GRUB_CMDLINE_LINUX=\"\"\n");

  hpd_test_remove (root);
}

/* What BootDropIn's one read of the drop-in gives: shown, and compared. */
static gboolean
holds (const char *root, const char *text)
{
  g_auto(HpdBootGrubDropIn) now = { 0, };

  hpd_boot_grub_dropin_read (root, NULL, &now);
  return hpd_boot_grub_holds (&now, text);
}

static char *
read_shown (const char *root)
{
  g_auto(HpdBootGrubDropIn) now = { 0, };

  hpd_boot_grub_dropin_read (root, NULL, &now);
  return hpd_boot_grub_shown (root, NULL, &now);
}

/* hpd_boot_grub_holds () says TRUE exactly when hpd_boot_grub_write ()
 * would report no change: BootDropIn's "up-to-date" is ConfigureBoot's
 * own comparison. */
static void
assert_holds_as_write_finds (const char *root, const char *text, gboolean expected)
{
  g_autoptr(GError) error = NULL;
  gboolean changed;

  g_assert_cmpint (holds (root, text), ==, expected);
  g_assert_true (hpd_boot_grub_write (root, text, &changed, &error));
  g_assert_no_error (error);
  g_assert_cmpint (changed, ==, !expected);
  g_assert_true (holds (root, text));
}

static void
test_holds (void)
{
  g_autofree char *root = make_root ();
  g_autofree char *elsewhere = NULL;
  g_autofree char *link = NULL;
  g_autofree char *long_text = NULL;

  umask (022);
  make_debian (root);
  assert_holds_as_write_finds (root, NULL, TRUE);
  assert_holds_as_write_finds (root, "one\n", FALSE);
  assert_holds_as_write_finds (root, "one\n", TRUE);
  /* a prefix or a longer text is not the same file */
  assert_holds_as_write_finds (root, "one\nmore\n", FALSE);
  assert_holds_as_write_finds (root, "one\n", FALSE);
  assert_holds_as_write_finds (root, NULL, FALSE);
  /* compared whole, however long (shown or not) */
  long_text = g_strnfill (3 * HPD_BOOT_GRUB_SHOWN_MAX + 5, '#');
  assert_holds_as_write_finds (root, long_text, FALSE);
  assert_holds_as_write_finds (root, long_text, TRUE);
  long_text[2 * HPD_BOOT_GRUB_SHOWN_MAX] = '!';
  assert_holds_as_write_finds (root, long_text, FALSE);
  assert_holds_as_write_finds (root, NULL, FALSE);

  /* a link to the right text is replaced, and removed */
  hpd_test_put (root, "elsewhere", "one\n");
  elsewhere = g_build_filename (root, "elsewhere", NULL);
  link = g_build_filename (root, HPD_BOOT_GRUB_DROPIN, NULL);
  g_assert_cmpint (symlink (elsewhere, link), ==, 0);
  assert_holds_as_write_finds (root, "one\n", FALSE);
  g_assert_false (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  g_assert_cmpint (g_unlink (link), ==, 0);
  g_assert_cmpint (symlink (elsewhere, link), ==, 0);
  assert_holds_as_write_finds (root, NULL, FALSE);

  hpd_test_remove (root);
}

static void
test_read_shown (void)
{
  g_autofree char *root = make_root ();
  g_autofree char *path = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *big = NULL;
  g_autofree char *shown = NULL;

  umask (022);
  make_debian (root);
  path = g_build_filename (root, HPD_BOOT_GRUB_DROPIN, NULL);
  dir = g_build_filename (root, HPD_BOOT_GRUB_DIR, NULL);
  /* no grub.d, then an empty one: no drop-in, as anybody sees */
  shown = read_shown (root);
  g_assert_cmpstr (shown, ==, "");
  g_clear_pointer (&shown, g_free);
  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  shown = read_shown (root);
  g_assert_cmpstr (shown, ==, "");
  g_clear_pointer (&shown, g_free);

  hpd_test_put (root, HPD_BOOT_GRUB_DROPIN, "one\n");
  shown = read_shown (root);
  g_assert_cmpstr (shown, ==, "one\n");
  g_clear_pointer (&shown, g_free);

  /* what not every account may read is not shown */
  g_assert_cmpint (chmod (path, 0640), ==, 0);
  g_assert_null (read_shown (root));
  g_assert_cmpint (chmod (path, 0644), ==, 0);
  g_assert_cmpint (chmod (dir, 0750), ==, 0);
  g_assert_null (read_shown (root));
  g_assert_cmpint (chmod (dir, 0755), ==, 0);

  /* a bus string: UTF-8, up to the first NUL */
  g_assert_true (g_file_set_contents (path, "caf\xe9\n\0rest", 10, NULL));
  shown = read_shown (root);
  g_assert_cmpstr (shown, ==, "caf\xef\xbf\xbd\n");
  g_clear_pointer (&shown, g_free);

  /* bounded */
  big = g_strnfill (HPD_BOOT_GRUB_SHOWN_MAX, '#');
  g_assert_true (g_file_set_contents (path, big, -1, NULL));
  shown = read_shown (root);
  g_assert_cmpuint (strlen (shown), ==, HPD_BOOT_GRUB_SHOWN_MAX);
  g_clear_pointer (&shown, g_free);
  g_clear_pointer (&big, g_free);
  big = g_strnfill (HPD_BOOT_GRUB_SHOWN_MAX + 1, '#');
  g_assert_true (g_file_set_contents (path, big, -1, NULL));
  g_assert_null (read_shown (root));

  hpd_test_remove (root);
}

static void
test_write_links_and_leftovers (void)
{
  g_autofree char *root = make_root ();
  g_autofree char *elsewhere = make_root ();
  g_autofree char *dir = g_build_filename (root, HPD_BOOT_GRUB_DIR, NULL);
  g_autofree char *dropin = g_build_filename (root, HPD_BOOT_GRUB_DROPIN, NULL);
  g_autofree char *target = g_build_filename (elsewhere, "target", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *got = NULL;
  const char *stale[] = { "hugepagesd.cfg.AbC123", "hugepagesd.cfg.000000", NULL };
  const char *kept[] = { "hugepagesd.cfg.bak", "hugepagesd.cfg.AbC12", "hugepagesd.cfg.AbC1234",
                         "hugepagesd.cfg.AbC-12", "other.cfg", "xhugepagesd.cfg.AbC123", NULL };
  gboolean changed;

  make_debian (root);
  hpd_test_put (root, "etc/default/placeholder", "");

  /* grub.d as a link is not written through */
  g_assert_cmpint (symlink (elsewhere, dir), ==, 0);
  g_assert_false (hpd_boot_grub_write (root, "one\n", &changed, &error));
  g_assert_error (error, HP_ERROR, HP_ERROR_FAILED);
  g_assert_false (changed);
  g_assert_false (exists (elsewhere, "hugepagesd.cfg"));
  g_clear_error (&error);
  g_assert_cmpint (g_unlink (dir), ==, 0);

  /* a drop-in that is a link is replaced, its target left alone */
  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  hpd_test_put (elsewhere, "target", "theirs\n");
  g_assert_cmpint (symlink (target, dropin), ==, 0);
  g_assert_true (hpd_boot_grub_write (root, "one\n", &changed, &error));
  g_assert_no_error (error);
  g_assert_true (S_ISREG (stat_of (root, HPD_BOOT_GRUB_DROPIN).st_mode));
  got = hpd_test_get (elsewhere, "target");
  g_assert_cmpstr (got, ==, "theirs\n");
  g_clear_pointer (&got, g_free);
  /* and removing a link removes the link */
  g_assert_cmpint (g_unlink (dropin), ==, 0);
  g_assert_cmpint (symlink (target, dropin), ==, 0);
  g_assert_true (hpd_boot_grub_write (root, NULL, &changed, &error));
  g_assert_true (changed);
  g_assert_false (exists (root, HPD_BOOT_GRUB_DROPIN));
  got = hpd_test_get (elsewhere, "target");
  g_assert_cmpstr (got, ==, "theirs\n");

  /* what an interrupted write left is removed, nothing else */
  for (guint i = 0; stale[i] != NULL; i++)
    hpd_test_put (dir, stale[i], "x");
  for (guint i = 0; kept[i] != NULL; i++)
    hpd_test_put (dir, kept[i], "x");
  g_assert_true (hpd_boot_grub_write (root, "two\n", &changed, &error));
  for (guint i = 0; stale[i] != NULL; i++)
    g_assert_false (exists (dir, stale[i]));
  for (guint i = 0; kept[i] != NULL; i++)
    g_assert_true (exists (dir, kept[i]));

  hpd_test_remove (root);
  hpd_test_remove (elsewhere);
}

static void
test_real_root (void)
{
  g_autofree char *root = make_root ();

  g_assert_true (hpd_boot_is_real_root ("/"));
  g_assert_true (hpd_boot_is_real_root ("//"));
  g_assert_true (hpd_boot_is_real_root ("/usr/.."));
  g_assert_false (hpd_boot_is_real_root (root));
  g_assert_false (hpd_boot_is_real_root ("/nonexistent"));
  hpd_test_remove (root);
}

static gboolean
run_shell (const char *script, guint timeout_s, GCancellable *cancellable, GError **error)
{
  const char *argv[] = { "/bin/sh", "-c", script, NULL };

  return hpd_boot_run (argv, timeout_s, cancellable, error);
}

static void
test_run (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GCancellable) cancelled = g_cancellable_new ();
  const char *missing[] = { "/nonexistent/update-grub", NULL };
  gint64 start;

  g_assert_true (run_shell ("exit 0", 5, NULL, &error));
  g_assert_no_error (error);

  /* the exit status and the last line of the output */
  g_assert_false (run_shell ("echo Generating grub configuration file ...; "
                             "echo 'error: cannot find a device' >&2; echo; exit 3", 5, NULL, &error));
  g_assert_error (error, HP_ERROR, HP_ERROR_FAILED);
  g_assert_cmpstr (error->message, ==,
                   "/bin/sh failed with exit status 3: error: cannot find a device");
  g_clear_error (&error);

  /* a clean environment */
  g_setenv ("HPD_TEST_SECRET", "x", TRUE);
  g_assert_true (run_shell ("test \"$LC_ALL\" = C && test -z \"$HPD_TEST_SECRET\" && "
                            "test \"$PATH\" = /usr/sbin:/usr/bin:/sbin:/bin && test \"$PWD\" = /",
                            5, NULL, &error));
  g_assert_no_error (error);

  /* stopped in time, with what it started, which keeps the output open */
  start = g_get_monotonic_time ();
  g_assert_false (run_shell ("sleep 60 & sleep 60", 1, NULL, &error));
  g_assert_error (error, HP_ERROR, HP_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "running too long"));
  g_assert_cmpint (g_get_monotonic_time () - start, <, 10 * G_USEC_PER_SEC);
  g_clear_error (&error);

  /* the same when the program is gone but what it started is not */
  start = g_get_monotonic_time ();
  g_assert_false (run_shell ("sleep 60 & exit 0", 1, NULL, &error));
  g_assert_nonnull (strstr (error->message, "running too long"));
  g_assert_cmpint (g_get_monotonic_time () - start, <, 10 * G_USEC_PER_SEC);
  g_clear_error (&error);

  g_cancellable_cancel (cancelled);
  g_assert_false (run_shell ("sleep 60", 60, cancelled, &error));
  g_assert_nonnull (strstr (error->message, "asked to stop"));
  g_clear_error (&error);

  g_assert_false (hpd_boot_run (missing, 5, NULL, &error));
  g_assert_nonnull (error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/boot-grub/check", test_check);
  g_test_add_func ("/boot-grub/dropin-text", test_dropin_text);
  g_test_add_func ("/boot-grub/write", test_write);
  g_test_add_func ("/boot-grub/write/links-and-leftovers", test_write_links_and_leftovers);
  g_test_add_func ("/boot-grub/holds", test_holds);
  g_test_add_func ("/boot-grub/read-shown", test_read_shown);
  g_test_add_func ("/boot-grub/real-root", test_real_root);
  g_test_add_func ("/boot-grub/run", test_run);
  return g_test_run ();
}
