/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The configuration kept between reads: read again after any change of
 * the files or directories (an edit to the same size with the old
 * modification time, a rename over, a drop-in added or removed, a
 * directory appearing), and on every call while a change is too recent to
 * be told from the next one by its timestamps. */
#include "config.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "hpd-config-cache.h"
#include "hpd-test-util.h"

#define DROPIN HPD_CONFIG_ADMIN_DIR "/50-test.conf"
/* longer than the tick of the clock that stamps files */
#define TICK_US (30 * 1000)

typedef struct {
  char *root;
  HpdConfigCache *cache;
} Fixture;

static void
setup (Fixture *f, gconstpointer data)
{
  f->root = g_dir_make_tmp ("hpd-config-cache-XXXXXX", NULL);
  g_assert_nonnull (f->root);
  hpd_test_put (f->root, HPD_CONFIG_FILE, "[pool 2MB]\nminimum = 4\n");
  /* no settling in most tests: what is looked at is what decides */
  f->cache = hpd_config_cache_new (f->root, 0);
  g_usleep (TICK_US);
}

static void
teardown (Fixture *f, gconstpointer data)
{
  hpd_config_cache_free (f->cache);
  hpd_test_remove (f->root);
  g_free (f->root);
}

/* The cached configuration, and what reading the files gives now: equal. */
static char *
current (Fixture *f)
{
  g_autoptr(HpdConfig) fresh = hpd_config_load_root (f->root);
  const HpdConfig *kept = hpd_config_cache_get (f->cache, NULL);
  g_autofree char *fresh_text = hpd_config_to_text (fresh);
  char *kept_text = hpd_config_to_text (kept);

  g_assert_cmpstr (kept_text, ==, fresh_text);
  g_assert_cmpuint (kept->errors->len, ==, fresh->errors->len);
  return kept_text;
}

static void
assert_current_has (Fixture *f, const char *wanted)
{
  g_autofree char *text = current (f);

  if (strstr (text, wanted) == NULL)
    g_error ("expected %s in:\n%s", wanted, text);
}

static void
test_read_once_while_unchanged (Fixture *f, gconstpointer data)
{
  guint64 first, second;

  hpd_config_cache_get (f->cache, &first);
  hpd_config_cache_get (f->cache, &second);
  g_assert_cmpuint (first, ==, second);
  g_assert_cmpuint (hpd_config_cache_get_loads (f->cache), ==, 1);
  assert_current_has (f, "minimum = 4");
  g_assert_cmpuint (hpd_config_cache_get_loads (f->cache), ==, 1);
}

static void
test_same_size_edit_with_old_mtime (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->root, HPD_CONFIG_FILE, NULL);
  struct stat before;

  assert_current_has (f, "minimum = 4");
  g_assert_cmpint (stat (path, &before), ==, 0);
  for (int value = 5; value <= 7; value++)
    {
      g_autofree char *text = g_strdup_printf ("[pool 2MB]\nminimum = %d\n", value);
      g_autofree char *wanted = g_strdup_printf ("minimum = %d", value);
      struct timespec times[2] = { before.st_atim, before.st_mtim };

      g_usleep (TICK_US);
      hpd_test_put_in_place (f->root, HPD_CONFIG_FILE, text);
      /* the size and the modification time as before: the change time
       * (which no program can set) tells */
      g_assert_cmpint (utimensat (AT_FDCWD, path, times, 0), ==, 0);
      assert_current_has (f, wanted);
    }
}

static void
test_renamed_over (Fixture *f, gconstpointer data)
{
  assert_current_has (f, "minimum = 4");
  /* g_file_set_contents writes a new file and renames it over */
  hpd_test_put (f->root, HPD_CONFIG_FILE, "[pool 2MB]\nminimum = 6\n");
  assert_current_has (f, "minimum = 6");
}

static void
test_dropins_come_and_go (Fixture *f, gconstpointer data)
{
  g_autofree char *dropin = g_build_filename (f->root, DROPIN, NULL);
  g_autofree char *masked = g_build_filename (f->root, HPD_CONFIG_ADMIN_DIR "/60-mask.conf", NULL);

  assert_current_has (f, "minimum = 4");
  /* the directory appears, with a drop-in */
  hpd_test_put (f->root, DROPIN, "[pool 2MB]\nminimum = 9\n");
  assert_current_has (f, "minimum = 9");
  g_usleep (TICK_US);
  /* a bad line in another one */
  hpd_test_put (f->root, HPD_CONFIG_ADMIN_DIR "/70-bad.conf", "[pool 2MB]\nminimum = x\n");
  g_assert_cmpuint (hpd_config_cache_get (f->cache, NULL)->errors->len, ==, 1);
  g_free (current (f));
  g_usleep (TICK_US);
  /* a link to /dev/null masks a name */
  g_assert_cmpint (symlink ("/dev/null", masked), ==, 0);
  g_free (current (f));
  g_usleep (TICK_US);
  g_assert_cmpint (g_unlink (dropin), ==, 0);
  assert_current_has (f, "minimum = 4");
}

static void
test_directory_replaced (Fixture *f, gconstpointer data)
{
  g_autofree char *dir = g_build_filename (f->root, "etc/hugepagesd", NULL);
  g_autofree char *old = g_build_filename (f->root, "etc/hugepagesd.old", NULL);
  g_autofree char *main_file = g_build_filename (f->root, HPD_CONFIG_FILE, NULL);

  assert_current_has (f, "minimum = 4");
  g_assert_cmpint (g_rename (dir, old), ==, 0);
  hpd_test_put (f->root, HPD_CONFIG_FILE, "[pool 2MB]\nminimum = 8\n");
  assert_current_has (f, "minimum = 8");
  g_usleep (TICK_US);
  g_assert_cmpint (g_unlink (main_file), ==, 0);
  {
    g_autofree char *text = current (f);
    g_assert_null (strstr (text, "minimum"));
  }
}

/* Changed within the settling time: its timestamps could equal those of a
 * second change, so it is read on every call. */
static void
test_recent_changes_are_read_every_time (Fixture *f, gconstpointer data)
{
  g_autoptr(HpdConfigCache) cache = hpd_config_cache_new (f->root, (gint64) 3600 * G_USEC_PER_SEC);
  guint64 first, second;

  hpd_config_cache_get (cache, &first);
  hpd_config_cache_get (cache, &second);
  g_assert_cmpuint (second, !=, first);
  g_assert_cmpuint (hpd_config_cache_get_loads (cache), ==, 2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(name, func) \
  g_test_add ("/config-cache/" name, Fixture, NULL, setup, func, teardown)
  ADD ("read-once-while-unchanged", test_read_once_while_unchanged);
  ADD ("same-size-edit-with-old-mtime", test_same_size_edit_with_old_mtime);
  ADD ("renamed-over", test_renamed_over);
  ADD ("dropins-come-and-go", test_dropins_come_and_go);
  ADD ("directory-replaced", test_directory_replaced);
  ADD ("recent-changes-are-read-every-time", test_recent_changes_are_read_every_time);
#undef ADD

  return g_test_run ();
}
