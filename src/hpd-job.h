/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The path every change takes after validation: authorize the caller,
 * queue the kernel work behind other changes, run it in the worker thread,
 * then back in the main thread let the owner refresh and log, and reply. */
#pragma once

#include <gio/gio.h>
#include <polkit/polkit.h>

#include "hpd-auth.h"

G_BEGIN_DECLS

typedef struct _HpdDaemon HpdDaemon;

/* Worker thread: does the change, returns the reply body (a tuple). */
typedef GVariant *(*HpdJobWork) (gpointer data, GCancellable *cancellable, GError **error);

/* Main thread, after the work (successful or not) and before the reply:
 * refresh properties, log with the caller's identity. */
typedef void (*HpdJobDone) (gpointer data, const HpdCaller *caller,
                            GVariant *reply, const GError *error);

void hpd_job_run (HpdDaemon *daemon, GDBusMethodInvocation *invocation,
                  PolkitDetails *details, HpdJobWork work, HpdJobDone done,
                  gpointer data, GDestroyNotify free_data);

/* Main thread, once the caller is authorized and before the work is
 * queued: for work that records who asked (claims keep their uid). */
typedef void (*HpdJobAuthorized) (gpointer data, const HpdCaller *caller);

void hpd_job_run_full (HpdDaemon *daemon, GDBusMethodInvocation *invocation,
                       PolkitDetails *details, HpdJobAuthorized authorized,
                       HpdJobWork work, HpdJobDone done,
                       gpointer data, GDestroyNotify free_data);

/* Replies with @error mapped into the service's error domain. */
void hpd_job_return_error (GDBusMethodInvocation *invocation, const GError *error);

G_END_DECLS
