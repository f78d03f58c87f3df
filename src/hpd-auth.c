/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hp-error.h"
#include "hp-names.h"
#include "hpd-auth.h"

/* Non-interactive checks should be quick; a person typing a password may
 * take a while. Past these the call is denied. */
#define CHECK_TIMEOUT_S 25
#define INTERACTIVE_CHECK_TIMEOUT_S 300

/* Checks waiting for polkitd (or for the caller's credentials) at once.
 * Each one is a call from us awaiting its reply, and a system bus lets a
 * connection have only 128 of those (max_replies_per_connection): past
 * that the bus itself would fail our checks, and the callers would be
 * told they are not authorized. So refuse earlier, with Busy, and bound
 * the memory a flood of calls can pin. One caller (one connection) may
 * hold a quarter of them, so that a single client cannot take them all. */
#define MAX_PENDING_CHECKS 64
#define MAX_PENDING_CHECKS_PER_CALLER 16

/* What a refusal tells the caller it was not allowed to do. */
static const struct {
  const char *action;
  const char *refused;
} action_refusals[] = {
  { HP_ACTION_CONFIGURE_POOLS,    "Not authorized to configure huge page pools" },
  { HP_ACTION_MANAGE_MOUNTS,      "Not authorized to manage hugetlbfs mounts" },
  { HP_ACTION_CONFIGURE_TUNABLES, "Not authorized to change memory tunables" },
  { HP_ACTION_CONFIGURE_BOOT,     "Not authorized to change the boot configuration" },
  { HP_ACTION_INSPECT_USAGE,      "Not authorized to see other users' huge page usage" },
};

static const struct {
  const char *interface_name;
  const char *method_name;
  const char *action;
} method_actions[] = {
  { HP_PAGE_SIZE_INTERFACE, "SetMinimum",   HP_ACTION_CONFIGURE_POOLS },
  { HP_PAGE_SIZE_INTERFACE, "SetMaximum",   HP_ACTION_CONFIGURE_POOLS },
  { HP_PAGE_SIZE_INTERFACE, "SetNodePages", HP_ACTION_CONFIGURE_POOLS },
  { HP_PAGE_SIZE_INTERFACE, "Demote",       HP_ACTION_CONFIGURE_POOLS },
  { HP_PAGE_SIZE_INTERFACE, "CreateMount",  HP_ACTION_MANAGE_MOUNTS },
  { HP_MANAGER_INTERFACE,   "Claim",        HP_ACTION_CONFIGURE_POOLS },
  { HP_MANAGER_INTERFACE,   "Release",      HP_ACTION_CONFIGURE_POOLS },
  { HP_MANAGER_INTERFACE,   "CreateMounts", HP_ACTION_MANAGE_MOUNTS },
  { HP_MANAGER_INTERFACE,   "Unmount",      HP_ACTION_MANAGE_MOUNTS },
  { HP_MANAGER_INTERFACE,   "SetShmMax",    HP_ACTION_CONFIGURE_TUNABLES },
  { HP_MANAGER_INTERFACE,   "SetRecommendedShmMax", HP_ACTION_CONFIGURE_TUNABLES },
  { HP_MANAGER_INTERFACE,   "SetShmGroup",  HP_ACTION_CONFIGURE_TUNABLES },
  { HP_MANAGER_INTERFACE,   "SetMinFreeKbytes", HP_ACTION_CONFIGURE_TUNABLES },
  { HP_MANAGER_INTERFACE,   "SetRecommendedMinFreeKbytes", HP_ACTION_CONFIGURE_TUNABLES },
  { HP_MANAGER_INTERFACE,   "SetZoneMovable", HP_ACTION_CONFIGURE_TUNABLES },
  { HP_MANAGER_INTERFACE,   "SetThp",       HP_ACTION_CONFIGURE_TUNABLES },
  { HP_MANAGER_INTERFACE,   "ConfigureBoot", HP_ACTION_CONFIGURE_BOOT },
  /* without it GetUsage is not refused: it shows what the caller owns */
  { HP_MANAGER_INTERFACE,   "GetUsage",     HP_ACTION_INSPECT_USAGE },
  { HP_MANAGER_INTERFACE,   "RemoveOrphan", HP_ACTION_MANAGE_MOUNTS },
};

const char *
hpd_auth_action_for_method (const char *interface_name, const char *method_name)
{
  for (gsize i = 0; i < G_N_ELEMENTS (method_actions); i++)
    if (g_strcmp0 (method_actions[i].interface_name, interface_name) == 0 &&
        g_strcmp0 (method_actions[i].method_name, method_name) == 0)
      return method_actions[i].action;
  return NULL;
}

static const char *
refusal_for (const char *action)
{
  for (gsize i = 0; i < G_N_ELEMENTS (action_refusals); i++)
    if (g_strcmp0 (action_refusals[i].action, action) == 0)
      return action_refusals[i].refused;
  return "Not authorized";
}

void
hpd_caller_free (HpdCaller *caller)
{
  if (caller == NULL)
    return;
  g_free (caller->sender);
  g_free (caller);
}

struct _HpdAuth
{
  GObject parent_instance;
  guint pending;
  GHashTable *pending_by_caller;   /* unique name -> count */
};

G_DEFINE_TYPE (HpdAuth, hpd_auth, G_TYPE_OBJECT)

static void
hpd_auth_finalize (GObject *object)
{
  HpdAuth *self = HPD_AUTH (object);

  g_hash_table_unref (self->pending_by_caller);
  G_OBJECT_CLASS (hpd_auth_parent_class)->finalize (object);
}

static void
hpd_auth_class_init (HpdAuthClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = hpd_auth_finalize;
}

static void
hpd_auth_init (HpdAuth *self)
{
  self->pending_by_caller = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

static guint
pending_of (HpdAuth *self, const char *caller)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (self->pending_by_caller, caller));
}

static void
count_pending (HpdAuth *self, const char *caller, int delta)
{
  guint n = pending_of (self, caller) + (guint) delta;

  self->pending = self->pending + (guint) delta;
  if (n == 0)
    g_hash_table_remove (self->pending_by_caller, caller);
  else
    g_hash_table_replace (self->pending_by_caller, g_strdup (caller), GUINT_TO_POINTER (n));
}

HpdAuth *
hpd_auth_new (void)
{
  return g_object_new (HPD_TYPE_AUTH, NULL);
}

typedef struct {
  GDBusMethodInvocation *invocation;
  PolkitDetails *details;
  const char *action;
  gboolean interactive;
  gboolean polkit_unavailable;
  GCancellable *cancellable;
  guint timeout_id;
  HpdAuth *counted;   /* owned; set while the check counts as pending */
} Check;

static void
check_free (Check *check)
{
  /* GTask drops its source object before the task data: hold our own ref */
  if (check->counted != NULL)
    {
      count_pending (check->counted, g_dbus_method_invocation_get_sender (check->invocation), -1);
      g_clear_object (&check->counted);
    }
  g_clear_handle_id (&check->timeout_id, g_source_remove);
  g_clear_object (&check->invocation);
  g_clear_object (&check->details);
  g_clear_object (&check->cancellable);
  g_free (check);
}

static gboolean
check_timed_out (gpointer user_data)
{
  Check *check = user_data;

  check->timeout_id = 0;
  g_cancellable_cancel (check->cancellable);
  return G_SOURCE_REMOVE;
}

static void
deny (GTask *task, const char *message)
{
  g_task_return_new_error (task, HP_ERROR, HP_ERROR_NOT_AUTHORIZED, "%s", message);
  g_object_unref (task);
}

static void
caller_got_credentials (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  GDBusMethodInvocation *invocation = g_task_get_task_data (task);
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) creds = NULL;
  g_autoptr(HpdCaller) caller = g_new0 (HpdCaller, 1);

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, NULL);
  if (reply != NULL)
    creds = g_variant_get_child_value (reply, 0);
  if (creds == NULL || !g_variant_lookup (creds, "UnixUserID", "u", &caller->uid))
    {
      g_task_return_new_error (task, HP_ERROR, HP_ERROR_FAILED, "Could not identify the caller");
      return;
    }
  if (!g_variant_lookup (creds, "ProcessID", "u", &caller->pid))
    caller->pid = 0;
  caller->sender = g_strdup (g_dbus_method_invocation_get_sender (invocation));
  g_task_return_pointer (task, g_steal_pointer (&caller), (GDestroyNotify) hpd_caller_free);
}

void
hpd_caller_lookup (GDBusMethodInvocation *invocation, GAsyncReadyCallback callback,
                   gpointer user_data)
{
  GTask *task = g_task_new (NULL, NULL, callback, user_data);

  g_task_set_task_data (task, g_object_ref (invocation), g_object_unref);
  g_dbus_connection_call (g_dbus_method_invocation_get_connection (invocation),
                          "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "GetConnectionCredentials",
                          g_variant_new ("(s)", g_dbus_method_invocation_get_sender (invocation)),
                          G_VARIANT_TYPE ("(a{sv})"), G_DBUS_CALL_FLAGS_NONE, 5000,
                          NULL, caller_got_credentials, task);
}

HpdCaller *
hpd_caller_lookup_finish (GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* The caller's uid and pid, for the log and for the root fallback. A
 * caller that has left the bus by now gets nothing: its change is not
 * applied. */
static void
got_caller (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Check *check = g_task_get_task_data (task);
  g_autoptr(HpdCaller) caller = hpd_caller_lookup_finish (result, NULL);

  if (caller == NULL)
    {
      deny (task, "Could not identify the caller");
      return;
    }
  if (check->polkit_unavailable && caller->uid != 0)
    {
      deny (task, "Authorization is unavailable (polkit is not running); only root may make changes");
      return;
    }

  g_task_return_pointer (task, g_steal_pointer (&caller), (GDestroyNotify) hpd_caller_free);
  g_object_unref (task);
}

static void
lookup_credentials (GTask *task)
{
  Check *check = g_task_get_task_data (task);

  hpd_caller_lookup (check->invocation, got_caller, task);
}

static gboolean
polkit_has_owner (PolkitAuthority *authority)
{
  g_autofree char *owner = polkit_authority_get_owner (authority);

  return owner != NULL;
}

static void
checked_authorization (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Check *check = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(PolkitAuthorizationResult) auth = NULL;

  auth = polkit_authority_check_authorization_finish (POLKIT_AUTHORITY (source), result, &error);
  if (auth == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          deny (task, "Authorization timed out");
          return;
        }
      /* polkitd is not on the bus: only root may go on. Any other error,
       * such as a caller that left before polkitd looked it up, denies. */
      if (error->domain != POLKIT_ERROR && !polkit_has_owner (POLKIT_AUTHORITY (source)))
        {
          g_debug ("polkit unavailable: %s", error->message);
          check->polkit_unavailable = TRUE;
          lookup_credentials (task);
          return;
        }
      g_debug ("Checking %s failed: %s", check->action, error->message);
      deny (task, "Authorization failed");
      return;
    }

  if (!polkit_authorization_result_get_is_authorized (auth))
    {
      if (polkit_authorization_result_get_is_challenge (auth) && !check->interactive)
        {
          g_autofree char *message = g_strdup_printf ("%s: authentication is required, but the "
                                                      "caller did not allow interactive authorization",
                                                      refusal_for (check->action));
          deny (task, message);
        }
      else
        deny (task, refusal_for (check->action));
      return;
    }

  lookup_credentials (task);
}

static void
got_authority (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Check *check = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(PolkitAuthority) authority = NULL;
  g_autoptr(PolkitSubject) subject = NULL;
  PolkitCheckAuthorizationFlags flags = POLKIT_CHECK_AUTHORIZATION_FLAGS_NONE;

  authority = polkit_authority_get_finish (result, &error);
  if (authority == NULL)
    {
      g_debug ("polkit unavailable: %s", error->message);
      check->polkit_unavailable = TRUE;
      lookup_credentials (task);
      return;
    }

  if (check->interactive)
    flags |= POLKIT_CHECK_AUTHORIZATION_FLAGS_ALLOW_USER_INTERACTION;

  subject = polkit_system_bus_name_new (g_dbus_method_invocation_get_sender (check->invocation));
  polkit_authority_check_authorization (authority, subject, check->action,
                                        check->details, flags, check->cancellable,
                                        checked_authorization, task);
}

void
hpd_auth_check_async (HpdAuth *self, GDBusMethodInvocation *invocation,
                      PolkitDetails *details, GCancellable *cancellable,
                      GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  GDBusMessage *message = g_dbus_method_invocation_get_message (invocation);
  Check *check = g_new0 (Check, 1);

  g_task_set_source_tag (task, hpd_auth_check_async);
  check->invocation = g_object_ref (invocation);
  check->details = details ? g_object_ref (details) : polkit_details_new ();
  check->interactive = (g_dbus_message_get_flags (message) &
                        G_DBUS_MESSAGE_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION) != 0;
  check->action = hpd_auth_action_for_method (g_dbus_method_invocation_get_interface_name (invocation),
                                              g_dbus_method_invocation_get_method_name (invocation));
  check->cancellable = g_cancellable_new ();
  g_task_set_task_data (task, check, (GDestroyNotify) check_free);

  if (check->action == NULL)
    {
      g_warning ("No polkit action for %s.%s: denied",
                 g_dbus_method_invocation_get_interface_name (invocation),
                 g_dbus_method_invocation_get_method_name (invocation));
      deny (task, "Not authorized");
      return;
    }

  if (self->pending >= MAX_PENDING_CHECKS ||
      pending_of (self, g_dbus_method_invocation_get_sender (invocation)) >=
      MAX_PENDING_CHECKS_PER_CALLER)
    {
      g_task_return_new_error (task, HP_ERROR, HP_ERROR_BUSY,
                               "Too many changes are waiting for authorization; try again later");
      g_object_unref (task);
      return;
    }
  check->counted = g_object_ref (self);
  count_pending (self, g_dbus_method_invocation_get_sender (invocation), +1);

  check->timeout_id = g_timeout_add_seconds (check->interactive ? INTERACTIVE_CHECK_TIMEOUT_S
                                                                : CHECK_TIMEOUT_S,
                                             check_timed_out, check);
  polkit_authority_get_async (check->cancellable, got_authority, task);
}

HpdCaller *
hpd_auth_check_finish (HpdAuth *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
