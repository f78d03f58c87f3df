/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The bound on refusal lines: a bucket per uid, one for all, and the
 * count of lines held back. */
#include "config.h"

#include "hpd-log-limit.h"

#define S(x) ((gint64) ((x) * G_USEC_PER_SEC))

static guint
allowed (HpdLogLimit *limit, guint32 uid, guint n, gint64 now_us)
{
  guint yes = 0;

  for (guint i = 0; i < n; i++)
    yes += hpd_log_limit_allow (limit, uid, now_us);
  return yes;
}

static void
test_per_uid (void)
{
  g_autoptr(HpdLogLimit) limit = hpd_log_limit_new (2, 10, 1000, 1000, 16);
  g_autoptr(GArray) held = NULL;
  g_autoptr(GArray) none = NULL;
  const HpdLogHeld *entry;

  /* the burst at once, then nothing */
  g_assert_cmpuint (allowed (limit, 1001, 1000, S (1)), ==, 10);
  g_assert_true (hpd_log_limit_has_held (limit));
  /* another user is not held back by the first */
  g_assert_cmpuint (allowed (limit, 1002, 3, S (1)), ==, 3);
  /* 2 a second come back: 10 s later, 20 more (not more than the burst) */
  g_assert_cmpuint (allowed (limit, 1001, 1000, S (3.5)), ==, 5);
  g_assert_cmpuint (allowed (limit, 1001, 1000, S (100)), ==, 10);

  /* every line held back is counted, for its uid */
  held = hpd_log_limit_flush (limit, S (100));
  g_assert_cmpuint (held->len, ==, 1);
  entry = &g_array_index (held, HpdLogHeld, 0);
  g_assert_cmpuint (entry->uid, ==, 1001);
  g_assert_cmpuint (entry->held, ==, 3000 - 25);
  g_assert_false (hpd_log_limit_has_held (limit));

  /* counted once: a second flush finds nothing; uids whose bucket is full
   * again are forgotten */
  none = hpd_log_limit_flush (limit, S (200));
  g_assert_cmpuint (none->len, ==, 0);
  g_assert_cmpuint (hpd_log_limit_uids (limit), ==, 0);
}

static void
test_in_all (void)
{
  g_autoptr(HpdLogLimit) limit = hpd_log_limit_new (2, 10, 5, 25, 16);
  g_autoptr(GArray) held = NULL;
  guint yes = 0;

  /* ten users, 10 each at once: 25 in all */
  for (guint32 uid = 1000; uid < 1010; uid++)
    yes += allowed (limit, uid, 10, S (1));
  g_assert_cmpuint (yes, ==, 25);
  /* a clock that goes back gives nothing */
  g_assert_cmpuint (allowed (limit, 1000, 10, S (0.5)), ==, 0);
  /* 5 a second in all, although uid 1009 has its whole burst left */
  g_assert_cmpuint (allowed (limit, 1009, 100, S (2)), ==, 5);
  held = hpd_log_limit_flush (limit, S (2));
  /* 1000 for the lines of the clock gone back, 1002 to 1009 */
  g_assert_cmpuint (held->len, ==, 9);
  g_assert_cmpuint (g_array_index (held, HpdLogHeld, 0).uid, ==, 1000);
  g_assert_cmpuint (g_array_index (held, HpdLogHeld, 0).held, ==, 10);
  g_assert_cmpuint (g_array_index (held, HpdLogHeld, 1).uid, ==, 1002);
  g_assert_cmpuint (g_array_index (held, HpdLogHeld, 1).held, ==, 5);
  g_assert_cmpuint (g_array_index (held, HpdLogHeld, 8).uid, ==, 1009);
  g_assert_cmpuint (g_array_index (held, HpdLogHeld, 8).held, ==, 10 + 95);
}

static void
test_others (void)
{
  g_autoptr(HpdLogLimit) limit = hpd_log_limit_new (1, 1, 1000, 1000, 2);
  g_autoptr(GArray) held = NULL;

  /* the table holds 2 uids; the third and the unknown share one bucket */
  g_assert_true (hpd_log_limit_allow (limit, 1, S (1)));
  g_assert_true (hpd_log_limit_allow (limit, 2, S (1)));
  g_assert_true (hpd_log_limit_allow (limit, 3, S (1)));
  g_assert_false (hpd_log_limit_allow (limit, HPD_LOG_LIMIT_OTHERS, S (1)));
  g_assert_false (hpd_log_limit_allow (limit, 4, S (1)));
  g_assert_cmpuint (hpd_log_limit_uids (limit), ==, 2);
  held = hpd_log_limit_flush (limit, S (1));
  g_assert_cmpuint (held->len, ==, 1);
  g_assert_cmpuint (g_array_index (held, HpdLogHeld, 0).uid, ==, HPD_LOG_LIMIT_OTHERS);
  g_assert_cmpuint (g_array_index (held, HpdLogHeld, 0).held, ==, 2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/log-limit/per-uid", test_per_uid);
  g_test_add_func ("/log-limit/in-all", test_in_all);
  g_test_add_func ("/log-limit/others", test_others);
  return g_test_run ();
}
