/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The one table of the service's methods. Each row names a method of the
 * interface XML, its polkit action, the option keys it accepts (with their
 * types), how its work runs, and its handler. Every call is dispatched from
 * here: the options are checked against the row, then the handler
 * validates the rest and answers at once or hands the work to the one
 * pipeline (hpd-job.h: authorize, queue or scan slot, apply, read back,
 * reply). A unit test checks the table against the XML. A new method is
 * its XML, one handler and one row. */
#pragma once

#include <gio/gio.h>

#include "hpd-options.h"

G_BEGIN_DECLS

typedef struct _HpdDaemon HpdDaemon;
typedef struct _HpdMethod HpdMethod;

/* One incoming call, as the handler sees it (valid during the handler). */
typedef struct {
  HpdDaemon *daemon;
  GDBusInterfaceSkeleton *object;   /* the Manager, or a PageSize */
  GDBusMethodInvocation *invocation;
  GVariant *parameters;             /* the in-arguments, as the XML declares them */
  GVariant *options;                /* the last of them, checked against the row */
  const HpdMethod *method;
} HpdCall;

/* Validates what the row cannot (values, the kernel's state), then
 * answers at once (errors, dry runs, calls that change nothing) or calls
 * hpd_job_run(). */
typedef void (*HpdMethodHandler) (const HpdCall *call);

typedef enum {
  /* no polkit question: the caller is only identified */
  HPD_AUTH_NONE,
  /* refused without the action */
  HPD_AUTH_REQUIRED,
  /* not refused without the action: the work then sees only what the
   * caller owns (HpdCaller.authorized is FALSE) */
  HPD_AUTH_OPTIONAL,
} HpdAuthMode;

typedef enum {
  /* kernel changes, one at a time in the queue's worker (hpd-queue.h) */
  HPD_LANE_QUEUE,
  /* reads of every process's maps: one of the caller's scan slots
   * (hpd_daemon_get_scans), then a thread of GLib's pool */
  HPD_LANE_SCAN,
  /* quick reads of what the main thread owns (the configuration cache) */
  HPD_LANE_MAIN,
} HpdLane;

struct _HpdMethod {
  const char *interface_name;
  const char *method_name;
  HpdAuthMode auth;
  const char *action;               /* NULL exactly with HPD_AUTH_NONE */
  HpdLane lane;
  const HpdOptionSpec *options;     /* ends with a NULL key */
  HpdMethodHandler handler;
};

/* The row of a method, NULL for none. */
const HpdMethod *hpd_method_lookup (const char *interface_name, const char *method_name);

/* Every row, for the test against the XML. */
const HpdMethod *hpd_methods_get (gsize *n_methods);

/* Serves @skeleton's methods from the table, for @daemon (not owned: it
 * owns the skeletons). */
void hpd_methods_serve (GDBusInterfaceSkeleton *skeleton, HpdDaemon *daemon);

/* The method_call of every skeleton's vtable (hpd-fresh.c builds it). */
void hpd_methods_dispatch (GDBusConnection *connection, const char *sender,
                           const char *object_path, const char *interface_name,
                           const char *method_name, GVariant *parameters,
                           GDBusMethodInvocation *invocation, gpointer user_data);

G_END_DECLS
