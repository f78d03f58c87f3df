/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The one path of every call's work, after its handler validated it
 * (hpd-methods.h): authorize the caller with the method's polkit action
 * (or only identify it), take the place the method's lane needs (the
 * queue of kernel changes, or one of the caller's scan slots), run the
 * work in its thread, then back in the main thread let the owner read
 * back, refresh and log, and reply. */
#pragma once

#include <gio/gio.h>

#include "hpd-auth.h"

G_BEGIN_DECLS

typedef struct _HpdDaemon HpdDaemon;

/* The method's lane's thread: does the work, returns the reply body (a
 * tuple). */
typedef GVariant *(*HpdJobWork) (gpointer data, GCancellable *cancellable, GError **error);

/* Main thread, after the work (successful or not): refresh properties,
 * log with the caller's identity. As a job's "done", before the reply; as
 * its "replied", right after the reply was queued, so that the caller does
 * not wait for what it does not need (a read that follows the reply is
 * dispatched after it, and sees what it set). May be NULL. */
typedef void (*HpdJobDone) (gpointer data, const HpdCaller *caller,
                            GVariant *reply, const GError *error);

/* Main thread, once the caller is authorized (or, for a method that asks
 * no action or does not require it, identified) and before the work is
 * queued: for work that records who asked (claims keep their uid) or
 * depends on it. May be NULL. */
typedef void (*HpdJobAuthorized) (gpointer data, const HpdCaller *caller);

/* Runs @invocation's method's work along its row (hpd-methods.c). Takes
 * @data. @details (may be NULL) is shown to polkit rules. */
void hpd_job_run (HpdDaemon *daemon, GDBusMethodInvocation *invocation,
                  GHashTable *details, HpdJobWork work, HpdJobDone done,
                  gpointer data, GDestroyNotify free_data);

void hpd_job_run_full (HpdDaemon *daemon, GDBusMethodInvocation *invocation,
                       GHashTable *details, HpdJobAuthorized authorized,
                       HpdJobWork work, HpdJobDone done, HpdJobDone replied,
                       gpointer data, GDestroyNotify free_data);

/* Replies with @error mapped into the service's error domain. */
void hpd_job_return_error (GDBusMethodInvocation *invocation, const GError *error);

G_END_DECLS
