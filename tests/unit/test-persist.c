/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The service's own drop-in: edits merge into what the file holds, the
 * file is rewritten in canonical form, an override by a later drop-in is an
 * error after writing, and crash leftovers are removed. */
#include "config.h"

#include <glib/gstdio.h>

#include "hp-error.h"
#include "hpd-persist.h"
#include "hpd-test-util.h"

#define OWN HPD_CONFIG_ADMIN_DIR "/" HPD_PERSIST_FILE_NAME

typedef HpdTestRoot Fixture;

/* The file without its comment header. */
static char *
body (Fixture *f)
{
  g_autofree char *text = hpd_test_get (f->root, OWN);
  const char *start = strstr (text, "\n\n");

  g_assert_nonnull (start);
  g_assert_true (g_str_has_prefix (text, "# "));
  return g_strdup (start + 2);
}

static void
test_creates_and_merges (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;

  g_assert_true (hpd_persist_text (f->root, "[pool 2MB]\nminimum = 8\n", &error));
  g_assert_no_error (error);
  first = body (f);
  g_assert_cmpstr (first, ==, "[pool 2MB]\nminimum = 8\n");

  g_assert_true (hpd_persist_text (f->root, "[tunables]\nshmmax = recommended\n"
                                   "[pool 2MB]\nminimum = 4\n", &error));
  second = body (f);
  g_assert_cmpstr (second, ==, "[pool 2MB]\nminimum = 4\n\n[tunables]\nshmmax = recommended\n");
}

static gboolean
drop_nodes_then_merge (HpdConfig *config, gpointer data, GError **error)
{
  hpd_config_unset_pool_nodes (config, 2 << 20);
  hpd_config_remove_mount (config, "system");
  return hpd_persist_merge (config, data, error);
}

static void
test_edits_remove (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  hpd_test_put (f->root, OWN, "[pool 2MB]\nnode0 = 1\nnode1 = 2\n[mount system]\nmode = 0770\n"
                "[mount global]\n");
  g_assert_true (hpd_persist (f->root, drop_nodes_then_merge, "[pool 2MB]\nminimum = 3\n", &error));
  g_assert_no_error (error);
  text = body (f);
  g_assert_cmpstr (text, ==, "[pool 2MB]\nminimum = 3\n\n[mount global]\n");
}

static void
test_override_is_reported_after_writing (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  hpd_test_put (f->root, HPD_CONFIG_ADMIN_DIR "/95-admin.conf", "[pool 2MB]\nminimum = 100\n");
  hpd_test_put (f->root, HPD_CONFIG_ADMIN_DIR "/10-early.conf", "[pool 2MB]\nmaximum = 7\n");
  g_assert_false (hpd_persist_text (f->root, "[pool 2MB]\nminimum = 8\n", &error));
  g_assert_error (error, HP_ERROR, HP_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "another configuration file overrides it"));
  text = body (f);
  g_assert_cmpstr (text, ==, "[pool 2MB]\nminimum = 8\n");

  /* a key the later file does not set is fine */
  g_clear_error (&error);
  g_assert_true (hpd_persist_text (f->root, "[pool 2MB]\nmaximum = 9\n", &error));
  g_assert_no_error (error);
}

static void
test_bad_snippet_writes_nothing (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (f->root, OWN, NULL);

  g_assert_false (hpd_persist_text (f->root, "[pool 2MB]\nminimum = lots\n", &error));
  g_assert_error (error, HP_ERROR, HP_ERROR_FAILED);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

static void
test_unwritable (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;

  /* a file where the directory should be */
  hpd_test_put (f->root, HPD_CONFIG_ADMIN_DIR, "");
  g_assert_false (hpd_persist_text (f->root, "[pool 2MB]\nminimum = 1\n", &error));
  g_assert_error (error, HP_ERROR, HP_ERROR_FAILED);
  g_assert_true (g_str_has_prefix (error->message, "Applied, but not saved for the next boot"));
}

static void
test_stale_files (Fixture *f, gconstpointer data)
{
  const char *stale = HPD_CONFIG_ADMIN_DIR "/" HPD_PERSIST_FILE_NAME ".Ab3xYz";
  const char *kept[] = { HPD_CONFIG_ADMIN_DIR "/" HPD_PERSIST_FILE_NAME,
                         HPD_CONFIG_ADMIN_DIR "/" HPD_PERSIST_FILE_NAME ".toolong1",
                         HPD_CONFIG_ADMIN_DIR "/other.conf.Ab3xYz" };
  g_autofree char *stale_path = g_build_filename (f->root, stale, NULL);

  hpd_test_put (f->root, stale, "[pool 2MB]\nmin");
  for (guint i = 0; i < G_N_ELEMENTS (kept); i++)
    hpd_test_put (f->root, kept[i], "");
  hpd_persist_remove_stale (f->root);
  g_assert_false (g_file_test (stale_path, G_FILE_TEST_EXISTS));
  for (guint i = 0; i < G_N_ELEMENTS (kept); i++)
    {
      g_autofree char *path = g_build_filename (f->root, kept[i], NULL);
      g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  (void) HP_ERROR;
  g_test_add ("/persist/creates-and-merges", Fixture, NULL, hpd_test_root_setup,
              test_creates_and_merges, hpd_test_root_teardown);
  g_test_add ("/persist/edits-remove", Fixture, NULL, hpd_test_root_setup,
              test_edits_remove, hpd_test_root_teardown);
  g_test_add ("/persist/override", Fixture, NULL, hpd_test_root_setup,
              test_override_is_reported_after_writing, hpd_test_root_teardown);
  g_test_add ("/persist/bad-snippet", Fixture, NULL, hpd_test_root_setup,
              test_bad_snippet_writes_nothing, hpd_test_root_teardown);
  g_test_add ("/persist/unwritable", Fixture, NULL, hpd_test_root_setup,
              test_unwritable, hpd_test_root_teardown);
  g_test_add ("/persist/stale", Fixture, NULL, hpd_test_root_setup,
              test_stale_files, hpd_test_root_teardown);
  return g_test_run ();
}
