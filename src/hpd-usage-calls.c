/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hp-error.h"
#include "hpd-job.h"
#include "hpd-options.h"
#include "hpd-usage-calls.h"
#include "hpd-usage.h"

/* Scans at once: each holds a thread of GLib's pool and reads every
 * process's maps; more callers wait for a reply of Busy. */
#define MAX_RUNNING_SCANS 2
/* A scan stops here and says so ("truncated": "time"): callers' default
 * D-Bus timeout is 25 s. */
#define SCAN_SECONDS 20

typedef struct {
  HpdDaemon *daemon;
  GObject *owner;
  guint *running;
  gboolean counted;     /* among the running scans */
  GDBusMethodInvocation *invocation;
  HpdUsageScan *scan;
} UsageCall;

static void
usage_call_free (UsageCall *call)
{
  if (call->counted)
    (*call->running)--;
  hpd_idle_release (hpd_daemon_get_idle (call->daemon));
  g_clear_object (&call->invocation);
  g_clear_pointer (&call->scan, hpd_usage_scan_free);
  g_clear_object (&call->owner);
  g_clear_object (&call->daemon);
  g_free (call);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (UsageCall, usage_call_free)

static void
scan_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  const HpdUsageScan *scan = task_data;

  g_task_return_pointer (task, g_variant_ref_sink (hpd_usage_scan_run (scan, cancellable)),
                         (GDestroyNotify) g_variant_unref);
}

static void
scan_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(UsageCall) call = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_task_propagate_pointer (G_TASK (result), &error);

  if (reply == NULL)
    hpd_job_return_error (call->invocation, error);
  else
    g_dbus_method_invocation_return_value (call->invocation, reply);
}

/* Counted from here, not from the call: a caller typing a password must
 * not hold a scan's place (hpd-auth bounds the checks waiting). */
static void
start_scan (UsageCall *call, gboolean restricted, guint32 uid)
{
  g_autoptr(GTask) task = NULL;

  if (*call->running >= MAX_RUNNING_SCANS)
    {
      g_dbus_method_invocation_return_error (call->invocation, HP_ERROR, HP_ERROR_BUSY,
                                             "%u usage scans are running; try again later",
                                             MAX_RUNNING_SCANS);
      usage_call_free (call);
      return;
    }
  (*call->running)++;
  call->counted = TRUE;

  call->scan->restricted = restricted;
  call->scan->caller_uid = uid;
  call->scan->deadline = g_get_monotonic_time () + SCAN_SECONDS * G_USEC_PER_SEC;
  task = g_task_new (NULL, NULL, scan_done, call);
  g_task_set_task_data (task, call->scan, NULL);
  g_task_run_in_thread (task, scan_thread);
}

static void
got_caller (GObject *source, GAsyncResult *result, gpointer user_data)
{
  UsageCall *call = user_data;
  g_autoptr(HpdCaller) caller = hpd_caller_lookup_finish (result, NULL);

  if (caller == NULL)
    {
      g_dbus_method_invocation_return_error_literal (call->invocation, HP_ERROR, HP_ERROR_FAILED,
                                                     "Could not identify the caller");
      usage_call_free (call);
      return;
    }
  start_scan (call, TRUE, caller->uid);
}

/* Not authorized is not an error here: the caller sees what it owns. */
static void
authorized (GObject *source, GAsyncResult *result, gpointer user_data)
{
  UsageCall *call = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(HpdCaller) caller = hpd_auth_check_finish (HPD_AUTH (source), result, &error);

  if (caller != NULL)
    start_scan (call, FALSE, caller->uid);
  else if (g_error_matches (error, HP_ERROR, HP_ERROR_NOT_AUTHORIZED))
    hpd_caller_lookup (call->invocation, got_caller, call);
  else
    {
      hpd_job_return_error (call->invocation, error);
      usage_call_free (call);
    }
}

void
hpd_usage_calls_get_usage (HpdDaemon *daemon, GObject *owner, guint *running,
                           GDBusMethodInvocation *invocation, GVariant *options)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *pools = hpd_daemon_get_pools (daemon);
  UsageCall *call;

  if (!hpd_options_parse (options, NULL, 0, &error))
    {
      hpd_job_return_error (invocation, error);
      return;
    }
  call = g_new0 (UsageCall, 1);
  call->daemon = g_object_ref (daemon);
  call->owner = g_object_ref (owner);
  call->running = running;
  call->invocation = g_object_ref (invocation);
  call->scan = g_new0 (HpdUsageScan, 1);
  call->scan->kernel = g_object_ref (hpd_daemon_get_kernel (daemon));
  call->scan->default_page_size = hpd_daemon_get_default_page_size (daemon);
  call->scan->page_sizes = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint i = 0; i < pools->len; i++)
    g_array_append_val (call->scan->page_sizes, ((HpdPool *) g_ptr_array_index (pools, i))->size);
  /* no idle exit while a scan runs */
  hpd_idle_hold (hpd_daemon_get_idle (daemon));
  hpd_auth_check_async (hpd_daemon_get_auth (daemon), invocation, NULL, NULL, authorized, call);
}

/* --- RemoveOrphan ----------------------------------------------------------- */

typedef struct {
  HpdDaemon *daemon;
  char *path;
  gboolean ignore_unreadable;
  HpdOrphan *checked;
} OrphanCall;

static void
orphan_call_free (OrphanCall *call)
{
  g_clear_object (&call->daemon);
  g_free (call->path);
  g_clear_pointer (&call->checked, hpd_orphan_free);
  g_free (call);
}

static GVariant *
remove_work (gpointer data, GCancellable *cancellable, GError **error)
{
  OrphanCall *call = data;

  if (!hpd_orphan_remove (hpd_daemon_get_kernel (call->daemon),
                          hpd_daemon_get_default_page_size (call->daemon),
                          call->path, call->ignore_unreadable, call->checked, error))
    return NULL;
  return g_variant_new ("()");
}

static void
remove_done (gpointer data, const HpdCaller *caller, GVariant *reply, const GError *error)
{
  OrphanCall *call = data;

  if (reply != NULL)
    g_message ("uid %u (pid %u) removed the orphan file %s", caller->uid, caller->pid, call->path);
  else
    g_warning ("uid %u (pid %u): removing %s failed: %s", caller->uid, caller->pid, call->path,
               error->message);
}

void
hpd_usage_calls_remove_orphan (HpdDaemon *daemon, GDBusMethodInvocation *invocation,
                               const char *path, GVariant *options)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PolkitDetails) details = NULL;
  g_autofree char *owner = NULL;
  gboolean dry_run = FALSE, ignore_unreadable = FALSE;
  const HpdOption known[] = {
    { "dry-run", "b", &dry_run },
    { "ignore-unreadable", "b", &ignore_unreadable },
  };
  OrphanCall *call;

  if (!hpd_options_parse (options, known, G_N_ELEMENTS (known), &error))
    {
      hpd_job_return_error (invocation, error);
      return;
    }

  call = g_new0 (OrphanCall, 1);
  call->daemon = g_object_ref (daemon);
  call->path = g_strdup (path);
  call->ignore_unreadable = ignore_unreadable;
  call->checked = hpd_orphan_resolve (hpd_daemon_get_kernel (daemon),
                                      hpd_daemon_get_default_page_size (daemon), path,
                                      ignore_unreadable, &error);
  if (call->checked == NULL || dry_run)
    {
      if (call->checked == NULL)
        hpd_job_return_error (invocation, error);
      else
        g_dbus_method_invocation_return_value (invocation, g_variant_new ("()"));
      orphan_call_free (call);
      return;
    }

  details = polkit_details_new ();
  owner = g_strdup_printf ("%u", call->checked->uid);
  polkit_details_insert (details, "path", path);
  polkit_details_insert (details, "owner-uid", owner);
  if (ignore_unreadable)
    polkit_details_insert (details, "ignore-unreadable", "true");
  hpd_job_run (daemon, invocation, details, remove_work, remove_done, call,
               (GDestroyNotify) orphan_call_free);
}
