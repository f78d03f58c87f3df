/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The queue of kernel changes: what a job leaves for after its reply runs
 * in the worker once the job's task has its result, before the next job
 * and before a shutdown returns. */
#include "config.h"

#include "hpd-queue.h"

typedef struct {
  GMutex lock;
  GPtrArray *events;   /* what happened, in order */
  guint completed;
} Log;

static void
log_event (Log *log, const char *event)
{
  g_mutex_lock (&log->lock);
  g_ptr_array_add (log->events, g_strdup (event));
  g_mutex_unlock (&log->lock);
}

typedef struct {
  HpdQueue *queue;
  Log *log;
  const char *name;
  gboolean leave_after;
  gboolean wait_for_completion;  /* in after_reply, up to 5 s */
} Work;

static gint
index_of_locked (Log *log, const char *event)
{
  for (guint i = 0; i < log->events->len; i++)
    if (g_str_equal (g_ptr_array_index (log->events, i), event))
      return (gint) i;
  return -1;
}

static void
after_reply (gpointer data)
{
  Work *work = data;
  g_autofree char *event = g_strdup_printf ("%s after", work->name);
  g_autofree char *done = g_strdup_printf ("%s completed", work->name);
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  gboolean seen = !work->wait_for_completion;

  /* the task has its result already: the main thread completes it while
   * this still runs */
  while (!seen && g_get_monotonic_time () < deadline)
    {
      g_mutex_lock (&work->log->lock);
      seen = index_of_locked (work->log, done) >= 0;
      g_mutex_unlock (&work->log->lock);
      if (!seen)
        g_usleep (1000);
    }
  log_event (work->log, event);
}

static void
run (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  Work *work = task_data;
  g_autofree char *event = g_strdup_printf ("%s work", work->name);

  log_event (work->log, event);
  if (work->leave_after)
    hpd_queue_after_reply (work->queue, after_reply, work, NULL);
  g_task_return_boolean (task, TRUE);
}

static void
completed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Log *log = user_data;
  Work *work = g_task_get_task_data (G_TASK (result));
  gboolean ok = g_task_propagate_boolean (G_TASK (result), NULL);
  g_autofree char *event = g_strdup_printf ("%s %s", work->name, ok ? "completed" : "failed");

  log_event (log, event);
  log->completed++;
}

static void
push (HpdQueue *queue, Log *log, Work *work)
{
  g_autoptr(GTask) task = g_task_new (NULL, NULL, completed, log);

  g_task_set_task_data (task, work, NULL);
  g_assert_true (hpd_queue_push (queue, 0, task, run, NULL));
}

static gint
index_of (Log *log, const char *event)
{
  gint i;

  g_mutex_lock (&log->lock);
  i = index_of_locked (log, event);
  g_mutex_unlock (&log->lock);
  return i;
}

static void
test_after_reply_order (void)
{
  g_autoptr(HpdQueue) queue = hpd_queue_new (8, 4, 1);
  Log log = { .events = g_ptr_array_new_with_free_func (g_free) };
  Work first = { queue, &log, "first", TRUE, TRUE };
  Work second = { queue, &log, "second", FALSE, FALSE };

  g_mutex_init (&log.lock);
  push (queue, &log, &first);
  push (queue, &log, &second);
  while (log.completed < 2)
    g_main_context_iteration (NULL, TRUE);
  hpd_queue_shutdown (queue);

  g_assert_cmpint (index_of (&log, "first work"), ==, 0);
  /* the result did not wait for it: the task completed meanwhile */
  g_assert_cmpint (index_of (&log, "first completed"), ==, 1);
  /* the next job waited for it */
  g_assert_cmpint (index_of (&log, "first after"), ==, 2);
  g_assert_cmpint (index_of (&log, "second work"), ==, 3);
  g_assert_cmpint (index_of (&log, "second completed"), ==, 4);
  g_assert_cmpuint (log.events->len, ==, 5);

  g_ptr_array_unref (log.events);
  g_mutex_clear (&log.lock);
}

static void
test_after_reply_before_shutdown (void)
{
  g_autoptr(HpdQueue) queue = hpd_queue_new (8, 4, 1);
  Log log = { .events = g_ptr_array_new_with_free_func (g_free) };
  Work only = { queue, &log, "only", TRUE, FALSE };

  g_mutex_init (&log.lock);
  push (queue, &log, &only);
  /* as at exit: the job may not have started, or be running */
  hpd_queue_shutdown (queue);
  /* a job that ran has its bookkeeping done by now; one that did not
   * run left none */
  if (index_of (&log, "only work") == 0)
    g_assert_cmpint (index_of (&log, "only after"), ==, 1);
  else
    g_assert_cmpint (index_of (&log, "only after"), ==, -1);
  while (log.completed < 1)
    g_main_context_iteration (NULL, TRUE);

  g_ptr_array_unref (log.events);
  g_mutex_clear (&log.lock);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/queue/after-reply/order", test_after_reply_order);
  g_test_add_func ("/queue/after-reply/before-shutdown", test_after_reply_before_shutdown);
  return g_test_run ();
}
