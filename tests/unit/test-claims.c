/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The claim files: consumer names, the three layers (runtime over
 * persisted, etc/ masking usr/lib/), sums, and what storing and removing
 * write. */
#include "config.h"

#include <unistd.h>

#include <glib/gstdio.h>

#include "hp-error.h"
#include "hpd-claims.h"
#include "hpd-test-util.h"

#define MB2 (G_GUINT64_CONSTANT (2) << 20)
#define GB1 (G_GUINT64_CONSTANT (1) << 30)

typedef HpdTestRoot Fixture;

static gboolean
exists (Fixture *f, const char *relative)
{
  g_autofree char *path = g_build_filename (f->root, relative, NULL);

  return g_file_test (path, G_FILE_TEST_EXISTS);
}

static void
test_consumer_names (void)
{
  const char *good[] = { "postgresql", "libvirt-vm42", "a", "0", "ceph.osd_3",
                         "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" };
  const char *bad[] = { "", "Postgres", "-x", ".x", "_x", "a/b", "..", "a b", "a\n",
                        "caf\xc3\xa9",
                        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" };

  for (gsize i = 0; i < G_N_ELEMENTS (good); i++)
    g_assert_true (hpd_claim_consumer_valid (good[i], NULL));
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_false (hpd_claim_consumer_valid (bad[i], &error));
      g_assert_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS);
    }
}

static void
test_store_load_and_sum (Fixture *f, gconstpointer data)
{
  HpdClaim pg = { "postgresql", MB2, HPD_CLAIM_ALL_NODES, 10, 26, FALSE };
  HpdClaim vm = { "vm", MB2, 1, 4, 0, FALSE };
  HpdClaim big = { "vm", GB1, HPD_CLAIM_ALL_NODES, 2, 0, FALSE };
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) claims = NULL;
  g_autofree char *text = NULL;
  const HpdClaim *c;

  g_assert_true (hpd_claims_store (f->root, &pg, FALSE, &error));
  g_assert_true (hpd_claims_store (f->root, &vm, TRUE, &error));
  g_assert_true (hpd_claims_store (f->root, &big, FALSE, &error));
  g_assert_no_error (error);

  text = hpd_test_get (f->root, HPD_CLAIMS_RUNTIME_DIR "/postgresql.conf");
  g_assert_nonnull (strstr (text, "\n[2MB]\npages = 10\nuid = 26\n"));
  g_clear_pointer (&text, g_free);
  text = hpd_test_get (f->root, HPD_CLAIMS_ADMIN_DIR "/vm.conf");
  g_assert_nonnull (strstr (text, "\n[2MB node1]\npages = 4\nuid = 0\n"));

  claims = hpd_claims_load (f->root);
  g_assert_cmpuint (claims->len, ==, 3);
  /* by consumer, then size, the pool before its nodes */
  c = g_ptr_array_index (claims, 0);
  g_assert_cmpstr (c->consumer, ==, "postgresql");
  g_assert_cmpuint (c->uid, ==, 26);
  g_assert_false (c->persisted);
  c = g_ptr_array_index (claims, 1);
  g_assert_cmpstr (c->consumer, ==, "vm");
  g_assert_cmpuint (c->page_size, ==, MB2);
  g_assert_cmpuint (c->node, ==, 1);
  g_assert_true (c->persisted);
  c = g_ptr_array_index (claims, 2);
  g_assert_cmpuint (c->page_size, ==, GB1);

  g_assert_cmpuint (hpd_claims_sum (claims, MB2, HPD_CLAIM_ALL_NODES), ==, 14);
  g_assert_cmpuint (hpd_claims_sum (claims, MB2, 1), ==, 4);
  g_assert_cmpuint (hpd_claims_sum (claims, MB2, 0), ==, 0);
  g_assert_cmpuint (hpd_claims_sum (claims, GB1, HPD_CLAIM_ALL_NODES), ==, 2);
  g_assert_cmpuint (hpd_claims_count_consumers (claims), ==, 2);
  g_assert_nonnull (hpd_claims_find (claims, "vm", MB2, 1));
  g_assert_null (hpd_claims_find (claims, "vm", MB2, HPD_CLAIM_ALL_NODES));
}

static void
test_runtime_overrides_persisted (Fixture *f, gconstpointer data)
{
  HpdClaim claim = { "postgresql", MB2, HPD_CLAIM_ALL_NODES, 10, 0, FALSE };
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) claims = NULL;
  g_autoptr(GPtrArray) again = NULL;

  g_assert_true (hpd_claims_store (f->root, &claim, TRUE, &error));
  claim.pages = 3;
  g_assert_true (hpd_claims_store (f->root, &claim, FALSE, &error));
  claims = hpd_claims_load (f->root);
  g_assert_cmpuint (claims->len, ==, 1);
  g_assert_cmpuint (((HpdClaim *) g_ptr_array_index (claims, 0))->pages, ==, 3);

  /* persisting again drops the runtime claim, which would hide it */
  claim.pages = 5;
  g_assert_true (hpd_claims_store (f->root, &claim, TRUE, &error));
  g_assert_no_error (error);
  g_assert_false (exists (f, HPD_CLAIMS_RUNTIME_DIR "/postgresql.conf"));
  again = hpd_claims_load (f->root);
  g_assert_cmpuint (again->len, ==, 1);
  g_assert_cmpuint (((HpdClaim *) g_ptr_array_index (again, 0))->pages, ==, 5);
  g_assert_true (((HpdClaim *) g_ptr_array_index (again, 0))->persisted);
}

static void
test_remove_masks_a_shipped_claim (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) before = NULL;
  g_autoptr(GPtrArray) after = NULL;

  hpd_test_put (f->root, HPD_CLAIMS_VENDOR_DIR "/ceph-osd.conf",
                "[2MB]\npages = 4\n\n[1GB]\npages = 1\n");
  before = hpd_claims_load (f->root);
  g_assert_cmpuint (before->len, ==, 2);
  g_assert_true (((HpdClaim *) g_ptr_array_index (before, 0))->persisted);

  g_assert_true (hpd_claims_remove (f->root, "ceph-osd", MB2, HPD_CLAIM_ALL_NODES, &error));
  g_assert_no_error (error);
  after = hpd_claims_load (f->root);
  g_assert_cmpuint (after->len, ==, 1);
  g_assert_cmpuint (((HpdClaim *) g_ptr_array_index (after, 0))->page_size, ==, GB1);
  g_assert_true (exists (f, HPD_CLAIMS_VENDOR_DIR "/ceph-osd.conf"));

  /* the last one: the file in etc/ stays, empty, to keep masking */
  g_assert_true (hpd_claims_remove (f->root, "ceph-osd", GB1, HPD_CLAIM_ALL_NODES, &error));
  g_clear_pointer (&after, g_ptr_array_unref);
  after = hpd_claims_load (f->root);
  g_assert_cmpuint (after->len, ==, 0);
  g_assert_true (exists (f, HPD_CLAIMS_ADMIN_DIR "/ceph-osd.conf"));
}

static void
test_remove_deletes_empty_files (Fixture *f, gconstpointer data)
{
  HpdClaim claim = { "redis", MB2, HPD_CLAIM_ALL_NODES, 2, 0, FALSE };
  g_autoptr(GError) error = NULL;

  g_assert_true (hpd_claims_store (f->root, &claim, FALSE, &error));
  g_assert_true (hpd_claims_store (f->root, &claim, TRUE, &error));
  claim.pages = 1;
  g_assert_true (hpd_claims_store (f->root, &claim, FALSE, &error));
  g_assert_true (hpd_claims_remove (f->root, "redis", MB2, HPD_CLAIM_ALL_NODES, &error));
  g_assert_no_error (error);
  g_assert_false (exists (f, HPD_CLAIMS_RUNTIME_DIR "/redis.conf"));
  g_assert_false (exists (f, HPD_CLAIMS_ADMIN_DIR "/redis.conf"));
}

static void
test_bad_files_and_groups_are_skipped (Fixture *f, gconstpointer data)
{
  g_autoptr(GPtrArray) claims = NULL;
  g_autoptr(GPtrArray) none = NULL;
  g_autofree char *a = g_build_filename (f->root, HPD_CLAIMS_ADMIN_DIR, "a.conf", NULL);

  /* bad groups: skipped one by one, in file order; the good one stays */
  hpd_test_put (f->root, HPD_CLAIMS_ADMIN_DIR "/a.conf",
                "[2MB]\npages = ten\n\n[2MB node]\npages = 1\n\n[2MB node1]\n\n"
                "[1GB node2]\npages = 0\n\n[1GB]\npages = 1\nowner = x\n\n"
                "[2MB node3]\npages = 7\n");
  /* not a consumer name, not a .conf: ignored without a word */
  hpd_test_put (f->root, HPD_CLAIMS_ADMIN_DIR "/Bad.conf", "[2MB]\npages = 1\n");
  hpd_test_put (f->root, HPD_CLAIMS_ADMIN_DIR "/b.txt", "[2MB]\npages = 1\n");
  g_test_expect_message (G_LOG_DOMAIN, G_LOG_LEVEL_WARNING, "*a.conf: [2MB]: bad key or value 'pages'*");
  g_test_expect_message (G_LOG_DOMAIN, G_LOG_LEVEL_WARNING, "*a.conf: [2MB node] is not SIZE*");
  g_test_expect_message (G_LOG_DOMAIN, G_LOG_LEVEL_WARNING, "*a.conf: [2MB node1]: no pages*");
  g_test_expect_message (G_LOG_DOMAIN, G_LOG_LEVEL_WARNING, "*a.conf: [1GB node2]: bad key*");
  g_test_expect_message (G_LOG_DOMAIN, G_LOG_LEVEL_WARNING, "*a.conf: [1GB]: bad key or value 'owner'*");
  claims = hpd_claims_load (f->root);
  g_test_assert_expected_messages ();
  g_assert_cmpuint (claims->len, ==, 1);
  g_assert_cmpuint (((HpdClaim *) g_ptr_array_index (claims, 0))->node, ==, 3);
  g_assert_cmpuint (((HpdClaim *) g_ptr_array_index (claims, 0))->pages, ==, 7);

  /* not a key file at all */
  g_assert_cmpint (g_unlink (a), ==, 0);
  hpd_test_put (f->root, HPD_CLAIMS_ADMIN_DIR "/c.conf", "pages = 1\n");
  g_test_expect_message (G_LOG_DOMAIN, G_LOG_LEVEL_WARNING, "*Ignoring the claims in *c.conf*");
  none = hpd_claims_load (f->root);
  g_test_assert_expected_messages ();
  g_assert_cmpuint (none->len, ==, 0);
}

/* The cache reads the files once while their directories stay the same, and
 * again after a file was added, replaced or removed. A negative settle time
 * trusts every state at once; the pauses keep two changes in different
 * timestamp ticks. */
static void
test_cache_follows_the_directories (Fixture *f, gconstpointer data)
{
  g_autoptr(HpdClaimsCache) cache = hpd_claims_cache_new (f->root, -G_USEC_PER_SEC);
  g_autoptr(GPtrArray) first = hpd_claims_cache_get (cache);
  g_autoptr(GPtrArray) second = NULL;
  g_autoptr(GPtrArray) third = NULL;
  g_autoptr(GPtrArray) fourth = NULL;
  g_autoptr(GPtrArray) fifth = NULL;
  g_autofree char *path = NULL;

  g_assert_cmpuint (first->len, ==, 0);
  second = hpd_claims_cache_get (cache);
  g_assert_true (second == first);
  g_assert_cmpuint (hpd_claims_cache_get_loads (cache), ==, 1);

  g_usleep (20000);
  hpd_test_put (f->root, HPD_CLAIMS_RUNTIME_DIR "/db.conf", "[2MB]\npages = 3\n");
  third = hpd_claims_cache_get (cache);
  g_assert_cmpuint (third->len, ==, 1);
  g_assert_cmpuint (hpd_claims_sum (third, 2u << 20, HPD_CLAIM_ALL_NODES), ==, 3);
  g_assert_cmpuint (hpd_claims_cache_get_loads (cache), ==, 2);

  g_usleep (20000);
  hpd_test_put (f->root, HPD_CLAIMS_RUNTIME_DIR "/db.conf", "[2MB]\npages = 5\n");
  fourth = hpd_claims_cache_get (cache);
  g_assert_cmpuint (hpd_claims_sum (fourth, 2u << 20, HPD_CLAIM_ALL_NODES), ==, 5);

  g_usleep (20000);
  path = g_build_filename (f->root, HPD_CLAIMS_RUNTIME_DIR, "db.conf", NULL);
  g_assert_no_errno (unlink (path));
  fifth = hpd_claims_cache_get (cache);
  g_assert_cmpuint (fifth->len, ==, 0);
  g_assert_cmpuint (hpd_claims_cache_get_loads (cache), ==, 4);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/claims/consumer-names", test_consumer_names);
  g_test_add ("/claims/store-load-and-sum", Fixture, NULL, hpd_test_root_setup,
              test_store_load_and_sum, hpd_test_root_teardown);
  g_test_add ("/claims/runtime-overrides-persisted", Fixture, NULL, hpd_test_root_setup,
              test_runtime_overrides_persisted, hpd_test_root_teardown);
  g_test_add ("/claims/remove-masks-a-shipped-claim", Fixture, NULL, hpd_test_root_setup,
              test_remove_masks_a_shipped_claim, hpd_test_root_teardown);
  g_test_add ("/claims/remove-deletes-empty-files", Fixture, NULL, hpd_test_root_setup,
              test_remove_deletes_empty_files, hpd_test_root_teardown);
  g_test_add ("/claims/bad-files-and-groups-are-skipped", Fixture, NULL, hpd_test_root_setup,
              test_bad_files_and_groups_are_skipped, hpd_test_root_teardown);
  g_test_add ("/claims/cache-follows-the-directories", Fixture, NULL, hpd_test_root_setup,
              test_cache_follows_the_directories, hpd_test_root_teardown);
  return g_test_run ();
}
