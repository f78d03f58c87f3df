/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hp-error.h"
#include "hpd-queue.h"
#include "hpd-slots.h"

struct _HpdQueue
{
  GObject parent_instance;
  GThreadPool *pool;
  GCancellable *cancellable;
  HpdSlots *slots;  /* jobs waiting or running, per uid */
  GArray *after_reply;  /* worker thread only: the running job's After */
};

G_DEFINE_TYPE (HpdQueue, hpd_queue, G_TYPE_OBJECT)

typedef struct {
  GTask *task;
  GTaskThreadFunc func;
  guint32 uid;
} Job;

typedef struct {
  HpdQueueAfterFunc func;
  gpointer data;
  GDestroyNotify free_data;
} After;

void
hpd_queue_after_reply (HpdQueue *self, HpdQueueAfterFunc func, gpointer data,
                       GDestroyNotify free_data)
{
  After after = { func, data, free_data };

  g_array_append_val (self->after_reply, after);
}

static void
run_after_reply (HpdQueue *self)
{
  for (guint i = 0; i < self->after_reply->len; i++)
    {
      After *after = &g_array_index (self->after_reply, After, i);

      after->func (after->data);
      if (after->free_data != NULL)
        after->free_data (after->data);
    }
  g_array_set_size (self->after_reply, 0);
}

static void
run_job (gpointer data, gpointer user_data)
{
  Job *job = data;
  HpdQueue *self = user_data;
  GCancellable *cancellable = g_task_get_cancellable (job->task);

  if (g_cancellable_is_cancelled (self->cancellable) ||
      g_cancellable_is_cancelled (cancellable))
    g_task_return_new_error (job->task, HP_ERROR, HP_ERROR_FAILED,
                             "The service is shutting down");
  else
    job->func (job->task, g_task_get_source_object (job->task),
               g_task_get_task_data (job->task),
               cancellable ? cancellable : self->cancellable);
  run_after_reply (self);

  g_object_unref (job->task);
  hpd_slots_give (self->slots, job->uid);
  g_free (job);
}

void
hpd_queue_shutdown (HpdQueue *self)
{
  if (self->pool == NULL)
    return;
  g_cancellable_cancel (self->cancellable);
  /* wait: jobs reference kernel state owned elsewhere, and a job half
   * done (one of two sysfs files written, a configuration file not yet
   * renamed into place) must not be cut short by exit(); the waiting
   * ones see the cancellation and end at once */
  g_thread_pool_free (self->pool, FALSE, TRUE);
  self->pool = NULL;
}

static void
hpd_queue_dispose (GObject *object)
{
  HpdQueue *self = HPD_QUEUE (object);

  hpd_queue_shutdown (self);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->slots, hpd_slots_free);
  g_clear_pointer (&self->after_reply, g_array_unref);
  G_OBJECT_CLASS (hpd_queue_parent_class)->dispose (object);
}

static void
hpd_queue_class_init (HpdQueueClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = hpd_queue_dispose;
}

static void
hpd_queue_init (HpdQueue *self)
{
  self->cancellable = g_cancellable_new ();
  self->after_reply = g_array_new (FALSE, FALSE, sizeof (After));
}

HpdQueue *
hpd_queue_new (guint max_pending, guint max_per_uid, guint root_reserve)
{
  HpdQueue *self = g_object_new (HPD_TYPE_QUEUE, NULL);

  self->slots = hpd_slots_new ("changes waiting", max_pending, max_per_uid, root_reserve);
  /* One exclusive thread: jobs never run concurrently. */
  self->pool = g_thread_pool_new (run_job, self, 1, TRUE, NULL);
  return self;
}

gboolean
hpd_queue_push (HpdQueue *self, guint32 uid, GTask *task, GTaskThreadFunc func,
                GError **error)
{
  Job *job;

  if (self->pool == NULL)
    {
      g_set_error_literal (error, HP_ERROR, HP_ERROR_FAILED, "The service is shutting down");
      return FALSE;
    }
  if (!hpd_slots_take (self->slots, uid, error))
    return FALSE;

  job = g_new0 (Job, 1);
  job->task = g_object_ref (task);
  job->func = func;
  job->uid = uid;
  if (!g_thread_pool_push (self->pool, job, error))
    {
      hpd_slots_give (self->slots, uid);
      g_object_unref (job->task);
      g_free (job);
      return FALSE;
    }
  return TRUE;
}

void
hpd_queue_cancel_all (HpdQueue *self)
{
  g_cancellable_cancel (self->cancellable);
}
