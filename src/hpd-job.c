/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hp-error.h"
#include "hpd-daemon.h"
#include "hpd-job.h"

typedef struct {
  GDBusMethodInvocation *invocation;
  HpdJobAuthorized authorized;
  HpdJobWork work;
  HpdJobDone done;
  gpointer data;
  GDestroyNotify free_data;
  HpdCaller *caller;
  HpdDaemon *daemon;
} Job;

static void
job_free (Job *job)
{
  if (job->free_data != NULL)
    job->free_data (job->data);
  g_clear_object (&job->invocation);
  if (job->daemon != NULL)
    hpd_idle_release (hpd_daemon_get_idle (job->daemon));
  g_clear_object (&job->daemon);
  g_clear_pointer (&job->caller, hpd_caller_free);
  g_free (job);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Job, job_free)

void
hpd_job_return_error (GDBusMethodInvocation *invocation, const GError *error)
{
  g_autoptr(GError) bus_error = hp_error_to_bus (error);

  g_dbus_method_invocation_return_gerror (invocation, bus_error);
}

static void
job_work (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  Job *job = task_data;
  GError *error = NULL;
  GVariant *reply = job->work (job->data, cancellable, &error);

  if (reply == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, g_variant_ref_sink (reply), (GDestroyNotify) g_variant_unref);
}

static void
job_finished (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(Job) job = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_task_propagate_pointer (G_TASK (result), &error);

  job->done (job->data, job->caller, reply, error);
  if (reply == NULL)
    hpd_job_return_error (job->invocation, error);
  else
    g_dbus_method_invocation_return_value (job->invocation, reply);
}

static void
job_authorized (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(Job) job = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GTask) task = NULL;
  guint32 caller_uid;

  job->caller = hpd_auth_check_finish (HPD_AUTH (source), result, &error);
  if (job->caller == NULL)
    {
      hpd_job_return_error (job->invocation, error);
      return;
    }
  if (job->authorized != NULL)
    job->authorized (job->data, job->caller);
  caller_uid = job->caller->uid;

  /* From here on job_finished owns the job and sends the reply. */
  task = g_task_new (job->daemon, NULL, job_finished, job);
  g_task_set_task_data (task, g_steal_pointer (&job), NULL);
  if (!hpd_queue_push (hpd_daemon_get_queue (HPD_DAEMON (g_task_get_source_object (task))),
                       caller_uid, task, job_work, &error))
    g_task_return_error (task, g_steal_pointer (&error));
}

void
hpd_job_run (HpdDaemon *daemon, GDBusMethodInvocation *invocation,
             PolkitDetails *details, HpdJobWork work, HpdJobDone done,
             gpointer data, GDestroyNotify free_data)
{
  hpd_job_run_full (daemon, invocation, details, NULL, work, done, data, free_data);
}

void
hpd_job_run_full (HpdDaemon *daemon, GDBusMethodInvocation *invocation,
                  PolkitDetails *details, HpdJobAuthorized authorized,
                  HpdJobWork work, HpdJobDone done,
                  gpointer data, GDestroyNotify free_data)
{
  Job *job = g_new0 (Job, 1);

  job->daemon = g_object_ref (daemon);
  job->invocation = g_object_ref (invocation);
  job->authorized = authorized;
  job->work = work;
  job->done = done;
  job->data = data;
  job->free_data = free_data;

  /* From authorization to the reply the service must not exit when idle,
   * even for a caller that asked for no reply (which the idle exit's count
   * of unanswered calls does not see). */
  hpd_idle_hold (hpd_daemon_get_idle (daemon));
  hpd_auth_check_async (hpd_daemon_get_auth (daemon), invocation, details, NULL,
                        job_authorized, job);
}
