/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hp-error.h"
#include "hp-names.h"
#include "hpd-job.h"
#include "hpd-usage-calls.h"
#include "hpd-usage.h"

/* A scan stops here and says so ("truncated": "time"): callers' default
 * D-Bus timeout is 25 s. */
#define SCAN_SECONDS 20

static GVariant *
usage_work (gpointer data, GCancellable *cancellable, GError **error)
{
  return hpd_usage_scan_run (data, cancellable);
}

/* The caller is known, authorized or not: without the action it sees
 * only what it owns. */
static void
usage_authorized (gpointer data, const HpdCaller *caller)
{
  HpdUsageScan *scan = data;

  scan->restricted = !caller->authorized;
  scan->caller_uid = caller->uid;
  scan->deadline = g_get_monotonic_time () + SCAN_SECONDS * G_USEC_PER_SEC;
}

void
hpd_usage_calls_get_usage (const HpdCall *call)
{
  HpdDaemon *daemon = call->daemon;
  GPtrArray *pools = hpd_daemon_get_pools (daemon);
  HpdUsageScan *scan;

  scan = g_new0 (HpdUsageScan, 1);
  scan->kernel = g_object_ref (hpd_daemon_get_kernel (daemon));
  scan->default_page_size = hpd_daemon_get_default_page_size (daemon);
  scan->page_sizes = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint i = 0; i < pools->len; i++)
    g_array_append_val (scan->page_sizes, ((HpdPool *) g_ptr_array_index (pools, i))->size);
  hpd_job_run_full (daemon, call->invocation, NULL, usage_authorized, usage_work, NULL, NULL, scan,
                    (GDestroyNotify) hpd_usage_scan_free);
}

typedef struct {
  HpdKernel *kernel;
  guint64 default_page_size;
  char *path;
  gboolean dry_run;
  gboolean ignore_unreadable;
  guint64 bytes;   /* what the file held, for the log */
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
  guint64 bytes;

  if (orphan == NULL)
    return NULL;
  bytes = orphan->bytes;
  if (!call->dry_run && !hpd_orphan_remove (orphan, call->path, &bytes, error))
    return NULL;
  call->bytes = bytes;
  return g_variant_new ("(t)", bytes);
}

static void
orphan_done (gpointer data, const HpdCaller *caller, GVariant *reply, const GError *error)
{
  OrphanCall *call = data;

  if (call->dry_run)
    return;
  if (reply != NULL)
    g_message ("uid %u (pid %u) removed the orphan file %s (%" G_GUINT64_FORMAT " bytes)",
               caller->uid, caller->pid, call->path, call->bytes);
  else
    g_warning ("uid %u (pid %u): removing %s failed: %s", caller->uid, caller->pid, call->path,
               error->message);
}

/* Authorized before anything about the path is looked at, dry run or not:
 * the answer to a caller without the right is the same whether the file
 * exists or not, and nobody can make the service read every process's
 * maps without it. */
void
hpd_usage_calls_remove_orphan (const HpdCall *call)
{
  HpdDaemon *daemon = call->daemon;
  g_autoptr(GHashTable) details = NULL;
  gboolean dry_run = FALSE, ignore_unreadable = FALSE;
  const char *path;
  OrphanCall *orphan;

  g_variant_get (call->parameters, "(&s@a{sv})", &path, NULL);
  g_variant_lookup (call->options, HP_OPTION_DRY_RUN, "b", &dry_run);
  g_variant_lookup (call->options, HP_OPTION_IGNORE_UNREADABLE, "b", &ignore_unreadable);

  orphan = g_new0 (OrphanCall, 1);
  orphan->kernel = g_object_ref (hpd_daemon_get_kernel (daemon));
  orphan->default_page_size = hpd_daemon_get_default_page_size (daemon);
  orphan->path = g_strdup (path);
  orphan->dry_run = dry_run;
  orphan->ignore_unreadable = ignore_unreadable;

  details = hpd_auth_details_new ();
  hpd_auth_details_set (details, "path", path);
  if (ignore_unreadable)
    hpd_auth_details_set (details, "ignore-unreadable", "true");
  if (dry_run)
    hpd_auth_details_set (details, "dry-run", "true");
  hpd_job_run (daemon, call->invocation, details, orphan_work, orphan_done, orphan,
               (GDestroyNotify) orphan_call_free);
}
