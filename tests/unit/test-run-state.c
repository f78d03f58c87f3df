/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* State under /run: a store reads its key file once and writes it whole
 * on every change (a new inode, no temporary left, the service's alone
 * whatever the umask); a
 * restart reads back what was saved, a damaged file counts as none. The
 * last allocation and the requested pools keep their keys in such a
 * store: read back as saved, a damaged record ignored, not half taken. */
#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "hpd-last-alloc.h"
#include "hpd-requested.h"
#include "hpd-run-state.h"
#include "hpd-test-util.h"

typedef HpdTestRoot Fixture;

#define FILE_NAME "run/hugepagesd/state"

/* @data is the umask the save runs with: the units' UMask=0077, or 022 as
 * from a shell or an init script. */
static void
test_save_replaces_whole (Fixture *f, gconstpointer data)
{
  mode_t old_umask = umask ((mode_t) GPOINTER_TO_UINT (data));
  g_autoptr(HpdRunState) store = hpd_run_state_new (f->root, FILE_NAME);
  g_autofree char *path = g_build_filename (f->root, FILE_NAME, NULL);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *run = g_path_get_dirname (dir);
  g_autofree char *text = NULL;
  g_autoptr(GDir) listing = NULL;
  g_auto(GStrv) groups = NULL;
  GStatBuf before, after, st;

  /* missing: empty, and the folder made by the first save */
  groups = g_key_file_get_groups (hpd_run_state_lock (store), NULL);
  hpd_run_state_unlock (store);
  g_assert_cmpuint (g_strv_length (groups), ==, 0);
  g_key_file_set_string (hpd_run_state_begin (store), "a", "key", "a long first value");
  hpd_run_state_commit (store, "a test");
  /* only the service reads the file; the folders are as systemd's
   * RuntimeDirectory= makes them, for the runtime claims beside it */
  g_assert_cmpint (g_stat (path, &before), ==, 0);
  g_assert_cmpuint (before.st_mode & 07777, ==, 0600);
  g_assert_cmpint (g_stat (dir, &st), ==, 0);
  g_assert_cmpuint (st.st_mode & 07777, ==, 0755);
  g_assert_cmpint (g_stat (run, &st), ==, 0);
  g_assert_cmpuint (st.st_mode & 07777, ==, 0755);

  g_key_file_set_string (hpd_run_state_begin (store), "a", "key", "b");
  hpd_run_state_commit (store, "a test");
  umask (old_umask);
  text = hpd_test_get (f->root, FILE_NAME);
  g_assert_cmpstr (text, ==, "[a]\nkey=b\n");
  /* renamed over, not rewritten in place: a reader holds the old or the new */
  g_assert_cmpint (g_stat (path, &after), ==, 0);
  g_assert_cmpuint (before.st_ino, !=, after.st_ino);
  g_assert_cmpuint (after.st_mode & 07777, ==, 0600);

  listing = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (listing);
  g_assert_cmpstr (g_dir_read_name (listing), ==, "state");
  g_assert_null (g_dir_read_name (listing));
}

static char *
lookup_string (HpdRunState *store, const char *group, const char *key)
{
  char *value = g_key_file_get_string (hpd_run_state_lock (store), group, key, NULL);

  hpd_run_state_unlock (store);
  return value;
}

/* A restart reads back every change saved; a file changed behind a
 * running store's back is neither read nor kept by it. */
static void
test_restart_reads_back (Fixture *f, gconstpointer data)
{
  g_autoptr(HpdRunState) store = hpd_run_state_new (f->root, FILE_NAME);
  g_autoptr(HpdRunState) restarted = NULL;
  g_autofree char *value = NULL;
  g_autofree char *text = NULL;
  GKeyFile *file;

  file = hpd_run_state_begin (store);
  g_key_file_set_string (file, "one", "key", "1");
  g_key_file_set_string (file, "two", "key", "2");
  hpd_run_state_commit (store, "a test");
  file = hpd_run_state_begin (store);
  g_key_file_remove_group (file, "one", NULL);
  g_key_file_set_string (file, "two", "other", "3");
  hpd_run_state_commit (store, "a test");

  restarted = hpd_run_state_new (f->root, FILE_NAME);
  value = lookup_string (restarted, "two", "key");
  g_assert_cmpstr (value, ==, "2");
  g_clear_pointer (&value, g_free);
  value = lookup_string (restarted, "two", "other");
  g_assert_cmpstr (value, ==, "3");
  g_clear_pointer (&value, g_free);
  value = lookup_string (restarted, "one", "key");
  g_assert_null (value);

  hpd_test_put (f->root, FILE_NAME, "[three]\nkey=3\n");
  value = lookup_string (restarted, "two", "key");
  g_assert_cmpstr (value, ==, "2");
  g_clear_pointer (&value, g_free);
  g_key_file_set_string (hpd_run_state_begin (restarted), "two", "key", "4");
  hpd_run_state_commit (restarted, "a test");
  text = hpd_test_get (f->root, FILE_NAME);
  g_assert_cmpstr (text, ==, "[two]\nkey=4\nother=3\n");
}

/* A file that is not a key file (a crash of whatever wrote it, another
 * program) is taken as none, and the next change replaces it whole. */
/* Counts the service's debug lines instead of printing them: a damaged
 * file's bytes are in them, which the test report (XML) cannot carry; the
 * service's own log writer escapes them (main.c). */
static void
count_ignoring (const char *domain, GLogLevelFlags level, const char *message,
                gpointer user_data)
{
  guint *ignored = user_data;

  if (g_str_has_prefix (message, "Ignoring "))
    (*ignored)++;
}

static void
test_corrupt_file_is_none (Fixture *f, gconstpointer data)
{
  guint ignored = 0;
  guint handler = g_log_set_handler (G_LOG_DOMAIN, G_LOG_LEVEL_DEBUG, count_ignoring, &ignored);

  static const char *const corrupt[] = {
    "\x7f" "ELF\x02\x01\x01 not a key file\n",
    "key=without a group\n",
    "[unterminated\nkey=1\n",
    "\x1f\x8b\x08 compressed\n",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (corrupt); i++)
    {
      g_autoptr(HpdRunState) store = NULL;
      g_autoptr(HpdRunState) restarted = NULL;
      g_auto(GStrv) groups = NULL;
      g_autofree char *text = NULL;
      g_autofree char *value = NULL;

      hpd_test_put (f->root, FILE_NAME, corrupt[i]);
      store = hpd_run_state_new (f->root, FILE_NAME);
      groups = g_key_file_get_groups (hpd_run_state_lock (store), NULL);
      hpd_run_state_unlock (store);
      g_assert_cmpuint (g_strv_length (groups), ==, 0);

      g_key_file_set_string (hpd_run_state_begin (store), "a", "key", "b");
      hpd_run_state_commit (store, "a test");
      text = hpd_test_get (f->root, FILE_NAME);
      g_assert_cmpstr (text, ==, "[a]\nkey=b\n");
      restarted = hpd_run_state_new (f->root, FILE_NAME);
      value = lookup_string (restarted, "a", "key");
      g_assert_cmpstr (value, ==, "b");
    }
  g_log_remove_handler (G_LOG_DOMAIN, handler);
  /* each damaged file is named in the log */
  g_assert_cmpuint (ignored, ==, G_N_ELEMENTS (corrupt));
}

static void
assert_same (const HpdAllocReport *a, const HpdAllocReport *b)
{
  g_assert_cmpint (a->done, ==, b->done);
  g_assert_cmpint (a->ended_usec, ==, b->ended_usec);
  g_assert_cmpint (a->duration_usec, ==, b->duration_usec);
  g_assert_cmpuint (a->requested, ==, b->requested);
  g_assert_cmpuint (a->achieved, ==, b->achieved);
  g_assert_cmpint (a->on_node, ==, b->on_node);
  g_assert_cmpuint (a->node, ==, b->node);
  g_assert_cmpint (a->hard, ==, b->hard);
  g_assert_cmpuint (a->writes, ==, b->writes);
}

static void
test_last_allocation_round_trip (Fixture *f, gconstpointer data)
{
  HpdAllocReport saved = {
    .done = TRUE, .ended_usec = 1796400000123456, .duration_usec = 10512,
    .requested = 512, .achieved = 500, .on_node = TRUE, .node = 3, .hard = TRUE, .writes = 4,
  };
  HpdAllocReport plain = {
    .done = TRUE, .ended_usec = 2, .duration_usec = 1, .requested = 8, .achieved = 8, .writes = 1,
  };
  g_autoptr(HpdLastAlloc) last = hpd_last_alloc_new (f->root);
  g_autoptr(HpdLastAlloc) restarted = NULL;
  HpdAllocReport got;

  g_assert_false (hpd_last_alloc_lookup (last, "2MB", &got));
  g_assert_false (got.done);

  hpd_last_alloc_note (last, "2MB", &saved);
  hpd_last_alloc_note (last, "1GB", &plain);
  g_assert_true (hpd_last_alloc_lookup (last, "2MB", &got));
  assert_same (&got, &saved);

  /* a restart reads back what was saved, every pool's */
  restarted = hpd_last_alloc_new (f->root);
  g_assert_true (hpd_last_alloc_lookup (restarted, "2MB", &got));
  assert_same (&got, &saved);
  g_assert_true (hpd_last_alloc_lookup (restarted, "1GB", &got));
  assert_same (&got, &plain);

  /* a pool-wide change after a node change leaves no node behind */
  plain.requested = 9;
  hpd_last_alloc_note (restarted, "2MB", &plain);
  g_clear_pointer (&restarted, hpd_last_alloc_free);
  restarted = hpd_last_alloc_new (f->root);
  g_assert_true (hpd_last_alloc_lookup (restarted, "2MB", &got));
  g_assert_false (got.on_node);
  g_assert_cmpuint (got.requested, ==, 9);
}

/* The records are held in memory: a save writes what memory holds, every
 * pool's, and does not read the file back first. */
static void
test_last_allocation_in_memory (Fixture *f, gconstpointer data)
{
  HpdAllocReport one = {
    .done = TRUE, .ended_usec = 5, .duration_usec = 4, .requested = 3, .achieved = 2, .writes = 1,
  };
  g_autoptr(HpdLastAlloc) last = NULL;
  g_autofree char *text = NULL;
  HpdAllocReport got;

  hpd_test_put (f->root, HPD_LAST_ALLOC_FILE,
                "[1GB]\nended-usec=1\nduration-usec=1\nrequested=8\nachieved=8\nmode=plain\n"
                "writes=1\n");
  last = hpd_last_alloc_new (f->root);
  /* changed behind its back: neither read nor kept */
  hpd_test_put (f->root, HPD_LAST_ALLOC_FILE, "[64kB]\nmode=plain\n");
  g_assert_true (hpd_last_alloc_lookup (last, "1GB", &got));
  g_assert_cmpuint (got.requested, ==, 8);

  hpd_last_alloc_note (last, "2MB", &one);
  text = hpd_test_get (f->root, HPD_LAST_ALLOC_FILE);
  g_assert_nonnull (strstr (text, "[1GB]\n"));
  g_assert_nonnull (strstr (text, "[2MB]\n"));
  g_assert_null (strstr (text, "64kB"));
}

static void
test_damaged_record_is_ignored (Fixture *f, gconstpointer data)
{
  static const char *const damaged[] = {
    "[2MB]\nended-usec=1\nduration-usec=1\nrequested=8\nachieved=8\nmode=soft\nwrites=1\n",
    "[2MB]\nended-usec=1\nduration-usec=1\nrequested=8\nmode=plain\nwrites=1\n",
    /* one string: a node beyond 32 bits */
    ("[2MB]\nended-usec=1\nduration-usec=1\nrequested=8\nachieved=8\nmode=plain\nwrites=1\n"
     "node=4294967296\n"),
    "[2MB]\nended-usec=x\nduration-usec=1\nrequested=8\nachieved=8\nmode=plain\nwrites=1\n",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (damaged); i++)
    {
      g_autoptr(HpdLastAlloc) last = NULL;
      HpdAllocReport got;

      hpd_test_put (f->root, HPD_LAST_ALLOC_FILE, damaged[i]);
      last = hpd_last_alloc_new (f->root);
      g_assert_false (hpd_last_alloc_lookup (last, "2MB", &got));
      g_assert_false (got.done);
      g_assert_cmpuint (got.requested, ==, 0);
    }
}

static void
test_requested_in_memory (Fixture *f, gconstpointer data)
{
  g_autoptr(HpdRequested) requested = NULL;
  g_autoptr(HpdRequested) restarted = NULL;
  g_autofree char *text = NULL;
  guint64 pages = 99;

  hpd_test_put (f->root, HPD_REQUESTED_FILE, "[minimum]\n1GB=2\n");
  requested = hpd_requested_new (f->root);
  g_assert_true (hpd_requested_lookup (requested, "1GB", &pages));
  g_assert_cmpuint (pages, ==, 2);
  g_assert_false (hpd_requested_lookup (requested, "2MB", &pages));
  g_assert_cmpuint (pages, ==, 0);

  /* a change is kept in memory and saved beside what the file held */
  hpd_requested_note (requested, "2MB", 7);
  text = hpd_test_get (f->root, HPD_REQUESTED_FILE);
  g_assert_cmpstr (text, ==, "[minimum]\n1GB=2\n2MB=7\n");

  /* the file changed or gone behind its back: lookups read memory only */
  hpd_test_put (f->root, HPD_REQUESTED_FILE, "[minimum]\n2MB=3\n");
  g_assert_true (hpd_requested_lookup (requested, "2MB", &pages));
  g_assert_cmpuint (pages, ==, 7);
  g_assert_true (hpd_requested_lookup (requested, "1GB", &pages));
  g_assert_cmpuint (pages, ==, 2);

  /* a restart takes what the file holds */
  restarted = hpd_requested_new (f->root);
  g_assert_true (hpd_requested_lookup (restarted, "2MB", &pages));
  g_assert_cmpuint (pages, ==, 3);
  g_assert_false (hpd_requested_lookup (restarted, "1GB", &pages));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/run-state/save-replaces-whole/umask-077", Fixture, GUINT_TO_POINTER (077),
              hpd_test_root_setup, test_save_replaces_whole, hpd_test_root_teardown);
  g_test_add ("/run-state/save-replaces-whole/umask-022", Fixture, GUINT_TO_POINTER (022),
              hpd_test_root_setup, test_save_replaces_whole, hpd_test_root_teardown);
  g_test_add ("/run-state/restart-reads-back", Fixture, NULL, hpd_test_root_setup,
              test_restart_reads_back, hpd_test_root_teardown);
  g_test_add ("/run-state/corrupt-file-is-none", Fixture, NULL, hpd_test_root_setup,
              test_corrupt_file_is_none, hpd_test_root_teardown);
  g_test_add ("/run-state/last-allocation-round-trip", Fixture, NULL, hpd_test_root_setup,
              test_last_allocation_round_trip, hpd_test_root_teardown);
  g_test_add ("/run-state/last-allocation-in-memory", Fixture, NULL, hpd_test_root_setup,
              test_last_allocation_in_memory, hpd_test_root_teardown);
  g_test_add ("/run-state/damaged-record-is-ignored", Fixture, NULL, hpd_test_root_setup,
              test_damaged_record_is_ignored, hpd_test_root_teardown);
  g_test_add ("/run-state/requested-in-memory", Fixture, NULL, hpd_test_root_setup,
              test_requested_in_memory, hpd_test_root_teardown);
  return g_test_run ();
}
