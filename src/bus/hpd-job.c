/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hp-error.h"
#include "hpd-daemon.h"
#include "hpd-job.h"
#include "hpd-methods.h"

typedef struct {
  GDBusMethodInvocation *invocation;
  const HpdMethod *method;
  HpdJobAuthorized authorized;
  HpdJobWork work;
  HpdJobDone done;
  HpdJobDone replied;
  gpointer data;
  GDestroyNotify free_data;
  HpdCaller *caller;
  gboolean has_scan_slot;
  HpdDaemon *daemon;
} Job;

static void
job_free (Job *job)
{
  if (job->has_scan_slot)
    hpd_slots_give (hpd_daemon_get_scans (job->daemon), job->caller->uid);
  if (job->free_data != NULL)
    job->free_data (job->data);
  g_clear_object (&job->invocation);
  if (job->daemon != NULL)
    {
      hpd_idle_release (hpd_daemon_get_idle (job->daemon));
      hpd_read_snapshot_release (hpd_daemon_get_read_snapshot (job->daemon));
    }
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

/* The owner's done, the reply, then the owner's replied. */
static void
job_finished (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(Job) job = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_task_propagate_pointer (G_TASK (result), &error);

  if (job->done != NULL)
    job->done (job->data, job->caller, reply, error);
  if (reply == NULL)
    hpd_job_return_error (job->invocation, error);
  else
    g_dbus_method_invocation_return_value (job->invocation, reply);
  if (job->replied != NULL)
    job->replied (job->data, job->caller, reply, error);
}

/* The caller is known: the lane's place, counted from here and not from
 * the call (a caller typing a password must not hold a place that
 * others wait for; hpd-auth bounds the checks waiting), then the work. */
static void
job_start (Job *job_owned)
{
  g_autoptr(Job) job = job_owned;
  g_autoptr(GError) error = NULL;
  g_autoptr(GTask) task = NULL;
  HpdDaemon *daemon = job->daemon;
  guint32 caller_uid = job->caller->uid;
  HpdLane lane = job->method->lane;

  if (job->authorized != NULL)
    job->authorized (job->data, job->caller);

  if (lane == HPD_LANE_SCAN)
    {
      if (!hpd_slots_take (hpd_daemon_get_scans (daemon), caller_uid, &error))
        {
          hpd_job_return_error (job->invocation, error);
          return;
        }
      job->has_scan_slot = TRUE;
    }

  /* From here on job_finished owns the job and sends the reply. */
  task = g_task_new (daemon, NULL, job_finished, job);
  g_task_set_task_data (task, g_steal_pointer (&job), NULL);
  switch (lane)
    {
    case HPD_LANE_QUEUE:
      if (!hpd_queue_push (hpd_daemon_get_queue (daemon), caller_uid, task, job_work, &error))
        g_task_return_error (task, g_steal_pointer (&error));
      break;
    case HPD_LANE_SCAN:
      g_task_run_in_thread (task, job_work);
      break;
    case HPD_LANE_MAIN:
      job_work (task, daemon, g_task_get_task_data (task), NULL);
      break;
    default:
      g_assert_not_reached ();
    }
}

static void
job_identified (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(Job) job = user_data;
  g_autoptr(GError) error = NULL;

  job->caller = hpd_caller_lookup_finish (result, &error);
  if (job->caller == NULL)
    {
      hpd_job_return_error (job->invocation, error);
      return;
    }
  job_start (g_steal_pointer (&job));
}

static void
job_authorized (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(Job) job = user_data;
  g_autoptr(GError) error = NULL;

  job->caller = hpd_auth_check_finish (HPD_AUTH (source), result, &error);
  if (job->caller != NULL)
    job_start (g_steal_pointer (&job));
  /* not refused: the work sees what the caller owns */
  else if (job->method->auth == HPD_AUTH_OPTIONAL &&
           g_error_matches (error, HP_ERROR, HP_ERROR_NOT_AUTHORIZED))
    {
      GDBusMethodInvocation *invocation = job->invocation;

      hpd_caller_lookup (invocation, job_identified, g_steal_pointer (&job));
    }
  else
    hpd_job_return_error (job->invocation, error);
}

void
hpd_job_run (HpdDaemon *daemon, GDBusMethodInvocation *invocation,
             GHashTable *details, HpdJobWork work, HpdJobDone done,
             gpointer data, GDestroyNotify free_data)
{
  hpd_job_run_full (daemon, invocation, details, NULL, work, done, NULL, data, free_data);
}

void
hpd_job_run_full (HpdDaemon *daemon, GDBusMethodInvocation *invocation,
                  GHashTable *details, HpdJobAuthorized authorized,
                  HpdJobWork work, HpdJobDone done, HpdJobDone replied,
                  gpointer data, GDestroyNotify free_data)
{
  Job *job = g_new0 (Job, 1);

  job->daemon = g_object_ref (daemon);
  job->invocation = g_object_ref (invocation);
  job->method = hpd_method_lookup (g_dbus_method_invocation_get_interface_name (invocation),
                                   g_dbus_method_invocation_get_method_name (invocation));
  job->authorized = authorized;
  job->work = work;
  job->done = done;
  job->replied = replied;
  job->data = data;
  job->free_data = free_data;
  /* only hpd_methods_dispatch() gets here */
  g_assert (job->method != NULL);

  /* From authorization to the reply the service must not exit when idle,
   * even for a caller that asked for no reply (which the idle exit's count
   * of unanswered calls does not see). */
  hpd_idle_hold (hpd_daemon_get_idle (daemon));
  /* and no GetManagedObjects is answered from what was before the work,
   * whatever of the daemon's memory it changes, until its end */
  hpd_read_snapshot_hold (hpd_daemon_get_read_snapshot (daemon));
  if (job->method->auth == HPD_AUTH_NONE)
    hpd_caller_lookup (invocation, job_identified, job);
  else
    hpd_auth_check_async (hpd_daemon_get_auth (daemon), invocation, job->method->action,
                          details, NULL, job_authorized, job);
}
