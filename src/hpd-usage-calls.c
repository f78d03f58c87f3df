/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hp-error.h"
#include "hpd-job.h"
#include "hpd-options.h"
#include "hpd-usage-calls.h"
#include "hpd-usage.h"

/* A scan stops here and says so ("truncated": "time"): callers' default
 * D-Bus timeout is 25 s. */
#define SCAN_SECONDS 20

/* Worker thread: reads the processes' maps, returns the reply body. */
typedef GVariant *(*ScanWork) (gpointer data, GCancellable *cancellable, GError **error);
/* Main thread, after the work and before the reply: logs. */
typedef void (*ScanDone) (gpointer data, const HpdCaller *caller, GVariant *reply,
                          const GError *error);

/* Both methods' scans: authorized first, then one of the caller's scan
 * slots (hpd_daemon_get_scans), then the work in a thread of GLib's pool,
 * never on the main loop. */
typedef struct {
  HpdDaemon *daemon;
  GDBusMethodInvocation *invocation;
  HpdCaller *caller;
  gboolean has_slot;
  ScanWork work;
  ScanDone done;
  gpointer data;
  GDestroyNotify free_data;
} ScanCall;

static void
scan_call_free (ScanCall *call)
{
  if (call->has_slot)
    hpd_slots_give (hpd_daemon_get_scans (call->daemon), call->caller->uid);
  if (call->free_data != NULL)
    call->free_data (call->data);
  hpd_idle_release (hpd_daemon_get_idle (call->daemon));
  g_clear_pointer (&call->caller, hpd_caller_free);
  g_clear_object (&call->invocation);
  g_clear_object (&call->daemon);
  g_free (call);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ScanCall, scan_call_free)

static ScanCall *
scan_call_new (HpdDaemon *daemon, GDBusMethodInvocation *invocation, ScanWork work,
               ScanDone done, gpointer data, GDestroyNotify free_data)
{
  ScanCall *call = g_new0 (ScanCall, 1);

  call->daemon = g_object_ref (daemon);
  call->invocation = g_object_ref (invocation);
  call->work = work;
  call->done = done;
  call->data = data;
  call->free_data = free_data;
  /* no idle exit from authorization to the reply */
  hpd_idle_hold (hpd_daemon_get_idle (daemon));
  return call;
}

static void
scan_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  ScanCall *call = task_data;
  GError *error = NULL;
  GVariant *reply = call->work (call->data, cancellable, &error);

  if (reply == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, g_variant_ref_sink (reply), (GDestroyNotify) g_variant_unref);
}

static void
scan_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(ScanCall) call = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_task_propagate_pointer (G_TASK (result), &error);

  if (call->done != NULL)
    call->done (call->data, call->caller, reply, error);
  if (reply == NULL)
    hpd_job_return_error (call->invocation, error);
  else
    g_dbus_method_invocation_return_value (call->invocation, reply);
}

/* Counted from here, not from the call: a caller typing a password must
 * not hold a scan's place (hpd-auth bounds the checks waiting). Takes
 * @call. */
static void
start_scan (ScanCall *call, HpdCaller *caller)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;

  call->caller = caller;
  if (!hpd_slots_take (hpd_daemon_get_scans (call->daemon), caller->uid, &error))
    {
      hpd_job_return_error (call->invocation, error);
      scan_call_free (call);
      return;
    }
  call->has_slot = TRUE;
  task = g_task_new (NULL, NULL, scan_done, call);
  g_task_set_task_data (task, call, NULL);
  g_task_run_in_thread (task, scan_thread);
}

/* --- GetUsage --------------------------------------------------------------- */

static GVariant *
usage_work (gpointer data, GCancellable *cancellable, GError **error)
{
  return hpd_usage_scan_run (data, cancellable);
}

static void
usage_start (ScanCall *call, HpdCaller *caller, gboolean restricted)
{
  HpdUsageScan *scan = call->data;

  scan->restricted = restricted;
  scan->caller_uid = caller->uid;
  scan->deadline = g_get_monotonic_time () + SCAN_SECONDS * G_USEC_PER_SEC;
  start_scan (call, caller);
}

static void
got_caller (GObject *source, GAsyncResult *result, gpointer user_data)
{
  ScanCall *call = user_data;
  HpdCaller *caller = hpd_caller_lookup_finish (result, NULL);

  if (caller == NULL)
    {
      g_dbus_method_invocation_return_error_literal (call->invocation, HP_ERROR, HP_ERROR_FAILED,
                                                     "Could not identify the caller");
      scan_call_free (call);
      return;
    }
  usage_start (call, caller, TRUE);
}

/* Not authorized is not an error here: the caller sees what it owns. */
static void
usage_authorized (GObject *source, GAsyncResult *result, gpointer user_data)
{
  ScanCall *call = user_data;
  g_autoptr(GError) error = NULL;
  HpdCaller *caller = hpd_auth_check_finish (HPD_AUTH (source), result, &error);

  if (caller != NULL)
    usage_start (call, caller, FALSE);
  else if (g_error_matches (error, HP_ERROR, HP_ERROR_NOT_AUTHORIZED))
    hpd_caller_lookup (call->invocation, got_caller, call);
  else
    {
      hpd_job_return_error (call->invocation, error);
      scan_call_free (call);
    }
}

void
hpd_usage_calls_get_usage (HpdDaemon *daemon, GDBusMethodInvocation *invocation,
                           GVariant *options)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *pools = hpd_daemon_get_pools (daemon);
  HpdUsageScan *scan;
  ScanCall *call;

  if (!hpd_options_parse (options, NULL, 0, &error))
    {
      hpd_job_return_error (invocation, error);
      return;
    }
  scan = g_new0 (HpdUsageScan, 1);
  scan->kernel = g_object_ref (hpd_daemon_get_kernel (daemon));
  scan->default_page_size = hpd_daemon_get_default_page_size (daemon);
  scan->page_sizes = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint i = 0; i < pools->len; i++)
    g_array_append_val (scan->page_sizes, ((HpdPool *) g_ptr_array_index (pools, i))->size);
  call = scan_call_new (daemon, invocation, usage_work, NULL, scan,
                        (GDestroyNotify) hpd_usage_scan_free);
  hpd_auth_check_async (hpd_daemon_get_auth (daemon), invocation, NULL, NULL, usage_authorized,
                        call);
}

/* --- RemoveOrphan ----------------------------------------------------------- */

typedef struct {
  HpdKernel *kernel;
  guint64 default_page_size;
  char *path;
  gboolean dry_run;
  gboolean ignore_unreadable;
} OrphanCall;

static void
orphan_call_free (OrphanCall *call)
{
  g_clear_object (&call->kernel);
  g_free (call->path);
  g_free (call);
}

static GVariant *
orphan_work (gpointer data, GCancellable *cancellable, GError **error)
{
  OrphanCall *call = data;
  g_autoptr(HpdOrphan) orphan = hpd_orphan_resolve (call->kernel, call->default_page_size,
                                                    call->path, call->ignore_unreadable, error);

  if (orphan == NULL || (!call->dry_run && !hpd_orphan_remove (orphan, call->path, error)))
    return NULL;
  return g_variant_new ("()");
}

static void
orphan_done (gpointer data, const HpdCaller *caller, GVariant *reply, const GError *error)
{
  OrphanCall *call = data;

  if (call->dry_run)
    return;
  if (reply != NULL)
    g_message ("uid %u (pid %u) removed the orphan file %s", caller->uid, caller->pid, call->path);
  else
    g_warning ("uid %u (pid %u): removing %s failed: %s", caller->uid, caller->pid, call->path,
               error->message);
}

static void
orphan_authorized (GObject *source, GAsyncResult *result, gpointer user_data)
{
  ScanCall *call = user_data;
  g_autoptr(GError) error = NULL;
  HpdCaller *caller = hpd_auth_check_finish (HPD_AUTH (source), result, &error);

  if (caller == NULL)
    {
      hpd_job_return_error (call->invocation, error);
      scan_call_free (call);
      return;
    }
  start_scan (call, caller);
}

/* Authorized before anything about the path is looked at, dry run or not:
 * the answer to a caller without the right is the same whether the file
 * exists or not, and nobody can make the service read every process's
 * maps without it. */
void
hpd_usage_calls_remove_orphan (HpdDaemon *daemon, GDBusMethodInvocation *invocation,
                               const char *path, GVariant *options)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PolkitDetails) details = NULL;
  gboolean dry_run = FALSE, ignore_unreadable = FALSE;
  const HpdOption known[] = {
    { "dry-run", "b", &dry_run },
    { "ignore-unreadable", "b", &ignore_unreadable },
  };
  OrphanCall *orphan;
  ScanCall *call;

  if (!hpd_options_parse (options, known, G_N_ELEMENTS (known), &error))
    {
      hpd_job_return_error (invocation, error);
      return;
    }

  orphan = g_new0 (OrphanCall, 1);
  orphan->kernel = g_object_ref (hpd_daemon_get_kernel (daemon));
  orphan->default_page_size = hpd_daemon_get_default_page_size (daemon);
  orphan->path = g_strdup (path);
  orphan->dry_run = dry_run;
  orphan->ignore_unreadable = ignore_unreadable;
  call = scan_call_new (daemon, invocation, orphan_work, orphan_done, orphan,
                        (GDestroyNotify) orphan_call_free);

  details = polkit_details_new ();
  polkit_details_insert (details, "path", path);
  if (ignore_unreadable)
    polkit_details_insert (details, "ignore-unreadable", "true");
  if (dry_run)
    polkit_details_insert (details, "dry-run", "true");
  hpd_auth_check_async (hpd_daemon_get_auth (daemon), invocation, details, NULL,
                        orphan_authorized, call);
}
