/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The one authorization component. Every mutating method asks it (through
 * hpd-job.h); it asks polkit about the caller's bus name (never a PID), asynchronously, with user interaction only
 * when the caller's message allows it, and denies on any doubt. The action
 * is the method's, from the method table (hpd-methods.h). */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct {
  char *sender;
  guint32 uid;
  guint32 pid;
  /* polkit allowed the method's action (hpd_auth_check_finish) */
  gboolean authorized;
} HpdCaller;

void hpd_caller_free (HpdCaller *caller);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HpdCaller, hpd_caller_free)

/* The uid and pid of @invocation's sender, from the bus daemon (never from
 * /proc). Fails when the caller has left the bus, and with HP_ERROR_BUSY
 * when the bus did not answer within 5 s or had no room for the question. */
void hpd_caller_lookup (GDBusMethodInvocation *invocation,
                        GAsyncReadyCallback callback, gpointer user_data);
/* The same for the unique name @sender on @connection (a caller seen in
 * the connection's traffic, hpd-traffic.h). Cancelled, it fails with
 * G_IO_ERROR_CANCELLED. */
void hpd_caller_lookup_name (GDBusConnection *connection, const char *sender,
                             GCancellable *cancellable, GAsyncReadyCallback callback,
                             gpointer user_data);
HpdCaller *hpd_caller_lookup_finish (GAsyncResult *result, GError **error);
/* Drops what is known of @sender on @connection, which has left the bus
 * (its name is never given again): what the service keeps of a caller
 * goes with it. */
void hpd_caller_forget (GDBusConnection *connection, const char *sender);

/* Callers leaving the bus: @callback gets the bus's NameOwnerChanged on
 * @connection, for the names whose rule was added with
 * hpd_departures_match (@name NULL: every name). GDBus closes a connection
 * in its worker thread when it cannot decode a message, which any caller
 * can send, while calls read before it still wait for the main loop; GLib
 * 2.74 logs a critical for a subscription whose match rule it cannot send
 * then (fatal under G_DEBUG=fatal-criticals). These send the rules as
 * calls without a reply, which fail quietly with the connection. */
guint hpd_departures_subscribe (GDBusConnection *connection, GDBusSignalCallback callback,
                                gpointer user_data);
void hpd_departures_match (GDBusConnection *connection, const char *name, gboolean add);

/* What polkit rules see of a change besides its action (polkit's
 * "details", for example page-size and pages): string keys to string
 * values. */
GHashTable *hpd_auth_details_new (void);
void hpd_auth_details_set (GHashTable *details, const char *key, const char *value);

#define HPD_TYPE_AUTH (hpd_auth_get_type ())
G_DECLARE_FINAL_TYPE (HpdAuth, hpd_auth, HPD, AUTH, GObject)

HpdAuth *hpd_auth_new (void);

/* Authorizes @action (the method's, from its row in hpd-methods.c) for
 * @invocation's sender. @details (may be NULL) is
 * shown to polkit rules (for example page-size and pages). Busy when the
 * sender's uid has its share of the checks waiting (hpd-slots.h); denied
 * at once when the sender leaves the bus while its check waits, though
 * the check keeps its place until polkitd has answered. Asked over
 * @invocation's connection. */
void hpd_auth_check_async (HpdAuth *self, GDBusMethodInvocation *invocation,
                           const char *action, GHashTable *details, GCancellable *cancellable,
                           GAsyncReadyCallback callback, gpointer user_data);
HpdCaller *hpd_auth_check_finish (HpdAuth *self, GAsyncResult *result,
                                  GError **error);

G_END_DECLS
