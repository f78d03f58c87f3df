/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The shared bound: per uid, in all, and root's reserve. */
#include "config.h"

#include "hp-error.h"
#include "hpd-slots.h"

static void
test_per_uid_and_reserve (void)
{
  g_autoptr(HpdSlots) slots = hpd_slots_new ("checks", 8, 3, 2);
  g_autoptr(GError) error = NULL;

  /* one user: its own share, not more */
  for (guint i = 0; i < 3; i++)
    g_assert_true (hpd_slots_take (slots, 1000, NULL));
  g_assert_false (hpd_slots_take (slots, 1000, &error));
  g_assert_error (error, HP_ERROR, HP_ERROR_BUSY);
  g_clear_error (&error);

  /* another user still gets in, until only root's reserve is left */
  for (guint i = 0; i < 3; i++)
    g_assert_true (hpd_slots_take (slots, 1001, NULL));
  g_assert_false (hpd_slots_take (slots, 1002, &error));
  g_assert_error (error, HP_ERROR, HP_ERROR_BUSY);
  g_clear_error (&error);
  g_assert_cmpuint (hpd_slots_held (slots), ==, 6);

  /* root: the reserve, and no per-uid share */
  g_assert_true (hpd_slots_take (slots, 0, NULL));
  g_assert_true (hpd_slots_take (slots, 0, NULL));
  g_assert_false (hpd_slots_take (slots, 0, &error));
  g_assert_error (error, HP_ERROR, HP_ERROR_BUSY);
  g_assert_cmpuint (hpd_slots_held_by (slots, 0), ==, 2);

  /* given back, a slot is there again for the same or another user */
  hpd_slots_give (slots, 1000);
  g_assert_cmpuint (hpd_slots_held_by (slots, 1000), ==, 2);
  g_assert_false (hpd_slots_take (slots, 1002, NULL));   /* 7 held: inside root's reserve */
  hpd_slots_give (slots, 0);
  hpd_slots_give (slots, 0);
  g_assert_true (hpd_slots_take (slots, 1002, NULL));
  g_assert_cmpuint (hpd_slots_held_by (slots, 0), ==, 0);
  g_assert_cmpuint (hpd_slots_held (slots), ==, 6);
}

static gpointer
take_and_give (gpointer data)
{
  HpdSlots *slots = data;

  for (guint i = 0; i < 10000; i++)
    if (hpd_slots_take (slots, 1000 + i % 4, NULL))
      hpd_slots_give (slots, 1000 + i % 4);
  return NULL;
}

static void
test_threads (void)
{
  g_autoptr(HpdSlots) slots = hpd_slots_new ("jobs", 16, 4, 2);
  GThread *threads[4];

  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("slots", take_and_give, slots);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_thread_join (threads[i]);
  g_assert_cmpuint (hpd_slots_held (slots), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/slots/per-uid-and-reserve", test_per_uid_and_reserve);
  g_test_add_func ("/slots/threads", test_threads);
  return g_test_run ();
}
