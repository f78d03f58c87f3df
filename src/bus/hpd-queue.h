/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Kernel changes run one at a time, off the main loop: a slow allocation
 * (compaction, hard retries) must not stop the service from answering reads,
 * and two writers of the same pool must not interleave. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define HPD_TYPE_QUEUE (hpd_queue_get_type ())
G_DECLARE_FINAL_TYPE (HpdQueue, hpd_queue, HPD, QUEUE, GObject)

/* At most @max_pending jobs wait or run, @max_per_uid of them for one
 * non-root uid, and the last @root_reserve only for root (hpd-slots.h). */
HpdQueue *hpd_queue_new (guint max_pending, guint max_per_uid, guint root_reserve);

/* Runs @func(task, source, task_data, cancellable) in the queue's worker
 * thread after every job pushed before it; the task completes in its own
 * main context as usual. Fails with Busy when the bounds for @uid (the
 * caller's) are reached. */
gboolean hpd_queue_push (HpdQueue *self, guint32 uid, GTask *task, GTaskThreadFunc func,
                         GError **error);

typedef void (*HpdQueueAfterFunc) (gpointer data);

/* From a job's work, in the queue's worker thread: @func (@data) runs
 * there once the work has returned, that is once its task has its result
 * and the reply is on its way, and before the next job or a shutdown. For
 * bookkeeping that the reply need not wait for. Takes @data, freed with
 * @free_data (may be NULL). */
void hpd_queue_after_reply (HpdQueue *self, HpdQueueAfterFunc func, gpointer data,
                            GDestroyNotify free_data);

/* Cancels the running job and every waiting one (at shutdown). */
void hpd_queue_cancel_all (HpdQueue *self);

/* Cancels, then waits until the running job has returned; pushing fails
 * from then on. Main thread, when the main loop is done. */
void hpd_queue_shutdown (HpdQueue *self);

G_END_DECLS
