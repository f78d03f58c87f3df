/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hp-error.h"
#include "hp-names.h"
#include "hpd-auth.h"
#include "hpd-log-limit.h"
#include "hpd-slots.h"

/* Non-interactive checks should be quick; a person typing a password may
 * take a while. Past these the call is denied. */
#define CHECK_TIMEOUT_S 25
#define INTERACTIVE_CHECK_TIMEOUT_S 300

/* polkitd's D-Bus interface, asked directly rather than through
 * libpolkit: when a check is given up (the caller left, or the timeout
 * came), libpolkit ends its call at once, while the bus goes on counting
 * the call against our connection until polkitd answers it. A slot freed
 * then lets a user who sends calls and leaves have us start more checks
 * than the bus lets a connection have pending, and the bus then fails
 * every check, root's too. Here a check keeps its slot until polkitd's
 * answer (or the bus's error) has come back, and asks polkitd to cancel
 * it, which makes that answer come at once. */
#define POLKIT_BUS_NAME "org.freedesktop.PolicyKit1"
#define POLKIT_PATH "/org/freedesktop/PolicyKit1/Authority"
#define POLKIT_INTERFACE "org.freedesktop.PolicyKit1.Authority"
#define BUS_ERROR_LIMITS_EXCEEDED "org.freedesktop.DBus.Error.LimitsExceeded"
#define POLKIT_CHECK_ALLOW_USER_INTERACTION 1u
/* polkitd answers a cancelled check at once. One that does not within
 * this long is not working on it: the slot is given back, so that a
 * polkitd that ignores cancels cannot keep a user's slots forever (the
 * bus may then refuse a check, which is Busy, below). */
#define CANCELLED_ANSWER_WAIT_S 10
/* A non-interactive check polkitd answers this late is told in the debug
 * log with how long it waited: polkitd answers in order, so a slow one
 * makes every change slow, root's too, and the log then says where a
 * change's time went. */
#define SLOW_ANSWER_MS 250

/* Checks waiting for polkitd, counted per uid (hpd-slots.h). Each one is
 * a call from us awaiting its reply, and a system bus lets a connection
 * have only 128 of those (max_replies_per_connection): past that the bus
 * itself would fail our checks. So refuse earlier, with Busy, and bound the
 * memory a flood of calls can pin. A check holds its slot for as long as
 * the bus counts its call, which is until polkitd's answer, even when its
 * caller was answered before (left the bus, timed out). One user may hold a quarter of them, so that a user whose
 * polkit agent never answers cannot keep others waiting; root keeps a
 * reserve that no other user can take. */
#define MAX_PENDING_CHECKS 64
#define MAX_PENDING_CHECKS_PER_UID 16
#define ROOT_RESERVED_CHECKS 8
/* The uid is known only once the bus has told us: until then, calls are
 * counted per connection, so that one connection cannot have us ask the
 * bus about it without bound. */
#define MAX_PENDING_CHECKS_PER_CALLER 16
/* How long callers' departures stay watched after the last check ended:
 * a caller making one change after another would otherwise have the bus
 * add the match rule before each check and remove it after (two messages
 * more per change, and their way through our threads and the bus:
 * about 0.15 ms of a 2 MiB SetMinimum measured alternately), while a
 * service left idle is still not woken by every name on the bus for
 * longer than this. */
#define DEPARTURES_LINGER_S 5

/* Refusal lines (hpd-log-limit.h): a user may cause 10 at once and 2 a
 * second after that, all users together 100 and 20. With one summary line
 * per uid every 10 s, refusals take at most about 1,500 of the 10,000
 * lines journald lets the unit log in 30 s, whoever floods, and the rest
 * stays for the service's other lines. Users past 256 are counted
 * together. */
#define REFUSAL_LINES_PER_SECOND 2.0
#define REFUSAL_LINES_BURST 10
#define REFUSAL_LINES_TOTAL_PER_SECOND 20.0
#define REFUSAL_LINES_TOTAL_BURST 100
#define REFUSAL_LINES_UIDS 256
#define REFUSAL_SUMMARY_INTERVAL_S 10

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
  HpdSlots *slots;                 /* checks waiting, per uid */
  GHashTable *pending_by_caller;   /* unique name -> count, until the uid is known */
  GHashTable *checks_by_caller;    /* unique name -> GPtrArray of its Checks (not owned) */
  GDBusConnection *connection;     /* where callers' departures are watched */
  guint name_lost_id;
  guint linger_id;                 /* no check pending: watching ends then */
  guint64 last_cancellation_id;    /* polkitd's handle on each check */
  HpdLogLimit *refusal_lines;      /* refusal lines per uid */
  guint refusal_summary_id;        /* the summary of lines held back is due */
};

G_DEFINE_TYPE (HpdAuth, hpd_auth, G_TYPE_OBJECT)

static void stop_watching_departures (HpdAuth *self);
static gboolean log_refusals_held_back (gpointer user_data);

static gboolean
linger_over (gpointer user_data)
{
  HpdAuth *self = user_data;

  self->linger_id = 0;
  stop_watching_departures (self);
  return G_SOURCE_REMOVE;
}

static void
hpd_auth_finalize (GObject *object)
{
  HpdAuth *self = HPD_AUTH (object);

  stop_watching_departures (self);
  /* refusals held back are counted in the log before the service ends */
  if (self->refusal_summary_id != 0)
    {
      g_clear_handle_id (&self->refusal_summary_id, g_source_remove);
      log_refusals_held_back (self);
    }
  hpd_log_limit_free (self->refusal_lines);
  g_hash_table_unref (self->checks_by_caller);
  g_hash_table_unref (self->pending_by_caller);
  hpd_slots_free (self->slots);
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
  self->slots = hpd_slots_new ("changes waiting for authorization", MAX_PENDING_CHECKS,
                               MAX_PENDING_CHECKS_PER_UID, ROOT_RESERVED_CHECKS);
  self->pending_by_caller = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->checks_by_caller = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                  (GDestroyNotify) g_ptr_array_unref);
  self->refusal_lines = hpd_log_limit_new (REFUSAL_LINES_PER_SECOND, REFUSAL_LINES_BURST,
                                           REFUSAL_LINES_TOTAL_PER_SECOND,
                                           REFUSAL_LINES_TOTAL_BURST, REFUSAL_LINES_UIDS);
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

  if (n == 0)
    g_hash_table_remove (self->pending_by_caller, caller);
  else
    g_hash_table_replace (self->pending_by_caller, g_strdup (caller), GUINT_TO_POINTER (n));
  if (g_hash_table_size (self->pending_by_caller) == 0 && self->name_lost_id != 0 &&
      self->linger_id == 0)
    self->linger_id = g_timeout_add_seconds (DEPARTURES_LINGER_S, linger_over, self);
}

HpdAuth *
hpd_auth_new (void)
{
  return g_object_new (HPD_TYPE_AUTH, NULL);
}

typedef struct {
  GTask *task;        /* not owned: the check is its data */
  GDBusMethodInvocation *invocation;
  GHashTable *details;
  const char *action;
  gboolean interactive;
  gboolean answered;  /* the caller has its answer; polkitd's may still come */
  char *cancellation_id;
  guint timeout_id;
  HpdCaller *caller;  /* once the bus has told us who it is */
  HpdAuth *counted;   /* owned; set while the check counts as pending */
  gboolean has_slot;  /* one of @uid's slots is taken */
  guint32 uid;
  gint64 asked_at;    /* monotonic time polkitd was asked */
} Check;

static void
forget_check (HpdAuth *self, Check *check)
{
  const char *sender = g_dbus_method_invocation_get_sender (check->invocation);
  GPtrArray *checks = g_hash_table_lookup (self->checks_by_caller, sender);

  if (checks == NULL || !g_ptr_array_remove_fast (checks, check))
    return;
  if (checks->len == 0)
    g_hash_table_remove (self->checks_by_caller, sender);
}

/* The one place a check's slot is given back: once, whichever comes first
 * of polkitd's answer and the wait for it after a cancel. */
static void
give_back_slot (Check *check)
{
  if (check->has_slot)
    hpd_slots_give (check->counted->slots, check->uid);
  check->has_slot = FALSE;
}

static void
check_free (Check *check)
{
  /* GTask drops its source object before the task data: hold our own ref */
  if (check->counted != NULL)
    {
      forget_check (check->counted, check);
      give_back_slot (check);
      count_pending (check->counted, g_dbus_method_invocation_get_sender (check->invocation), -1);
      g_clear_object (&check->counted);
    }
  g_clear_handle_id (&check->timeout_id, g_source_remove);
  g_clear_pointer (&check->caller, hpd_caller_free);
  g_clear_object (&check->invocation);
  g_clear_pointer (&check->details, g_hash_table_unref);
  g_free (check->cancellation_id);
  g_free (check);
}

static void give_up (Check *check, const char *message);

static gboolean
check_timed_out (gpointer user_data)
{
  Check *check = user_data;

  check->timeout_id = 0;
  give_up (check, "Authorization timed out");
  return G_SOURCE_REMOVE;
}

/* A caller that left the bus can get no answer: its checks are given up
 * now, and polkitd (or an agent that would never answer) is asked to stop
 * working on them. */
static void
name_lost (GDBusConnection *connection, const char *sender_name, const char *object_path,
           const char *interface_name, const char *signal_name, GVariant *parameters,
           gpointer user_data)
{
  HpdAuth *self = user_data;
  const char *name, *old_owner, *new_owner;
  GPtrArray *checks;

  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(sss)")))
    return;
  g_variant_get (parameters, "(&s&s&s)", &name, &old_owner, &new_owner);
  if (name[0] != ':' || new_owner[0] != '\0' ||
      (checks = g_hash_table_lookup (self->checks_by_caller, name)) == NULL)
    return;
  g_debug ("%s left the bus: dropping its %u authorization checks", name, checks->len);
  /* a check given up stays in the list until polkitd's answer frees it,
   * but its caller's answer runs code of others: go over a copy */
  checks = g_ptr_array_copy (checks, NULL, NULL);
  for (guint i = 0; i < checks->len; i++)
    give_up (g_ptr_array_index (checks, i), "The caller left the bus");
  g_ptr_array_unref (checks);
}

static void
stop_watching_departures (HpdAuth *self)
{
  g_clear_handle_id (&self->linger_id, g_source_remove);
  if (self->name_lost_id != 0)
    {
      g_dbus_connection_signal_unsubscribe (self->connection, self->name_lost_id);
      hpd_departures_match (self->connection, NULL, FALSE);
      g_debug ("No longer watching callers' departures");
    }
  self->name_lost_id = 0;
  g_clear_object (&self->connection);
}

/* Departures are watched only while checks are pending (and
 * DEPARTURES_LINGER_S after), so that an idle service is not woken by
 * every name on the bus. Calls come on the service's current connection;
 * after a reconnect (hpd-daemon.c) they are watched on the new one. */
static void
watch_departures (HpdAuth *self, GDBusConnection *connection)
{
  if (self->connection == connection && self->name_lost_id != 0)
    {
      g_clear_handle_id (&self->linger_id, g_source_remove);
      return;
    }
  stop_watching_departures (self);
  self->connection = g_object_ref (connection);
  self->name_lost_id = hpd_departures_subscribe (connection, name_lost, self);
  hpd_departures_match (connection, NULL, TRUE);
  g_debug ("Watching callers' departures while their changes wait for polkit");
}

/* One line per uid for the refusals held back since the last summary, so
 * that every refusal is still counted in the log. */
static gboolean
log_refusals_held_back (gpointer user_data)
{
  HpdAuth *self = user_data;
  g_autoptr(GArray) held = hpd_log_limit_flush (self->refusal_lines, g_get_monotonic_time ());

  self->refusal_summary_id = 0;
  for (guint i = 0; i < held->len; i++)
    {
      const HpdLogHeld *entry = &g_array_index (held, HpdLogHeld, i);

      if (entry->uid == HPD_LOG_LIMIT_OTHERS)
        g_message ("Callers that could not be identified, or past %u users: %" G_GUINT64_FORMAT
                   " more refusals not logged in the last %u s",
                   REFUSAL_LINES_UIDS, entry->held, REFUSAL_SUMMARY_INTERVAL_S);
      else
        g_message ("uid %u: %" G_GUINT64_FORMAT " more refusals not logged in the last %u s",
                   entry->uid, entry->held, REFUSAL_SUMMARY_INTERVAL_S);
    }
  return G_SOURCE_REMOVE;
}

/* Every refusal is logged with who asked for what, so that an admin sees
 * attempts that polkit turned away, not only the changes made: as a line
 * of its own while the caller's uid is within its bound, else counted in
 * the uid's summary line. */
static void
log_denial (HpdAuth *self, Check *check, const HpdCaller *caller, const char *message)
{
  const char *method = g_dbus_method_invocation_get_method_name (check->invocation);
  guint32 uid = caller != NULL ? caller->uid : HPD_LOG_LIMIT_OTHERS;

  if (!hpd_log_limit_allow (self->refusal_lines, uid, g_get_monotonic_time ()))
    {
      if (self->refusal_summary_id == 0)
        self->refusal_summary_id = g_timeout_add_seconds (REFUSAL_SUMMARY_INTERVAL_S,
                                                          log_refusals_held_back, self);
      return;
    }
  if (caller != NULL)
    g_message ("uid %u (pid %u) was refused %s (%s): %s", caller->uid, caller->pid, method,
               check->action, message);
  else
    g_message ("%s, which could not be identified, was refused %s (%s): %s",
               g_dbus_method_invocation_get_sender (check->invocation), method, check->action,
               message);
}

/* Every answer to the caller goes through one of return_denial(), busy()
 * and authorized(), which drop the reference the check's own way holds;
 * a call to polkitd in flight holds another, and with it the slot. */
static void
return_denial (GTask *task, const char *message)
{
  Check *check = g_task_get_task_data (task);

  check->answered = TRUE;
  g_task_return_new_error (task, HP_ERROR, HP_ERROR_NOT_AUTHORIZED, "%s", message);
  g_object_unref (task);
}

/* Refuses the caller, identified by then: every check learns the uid
 * before it asks polkit. */
static void
deny (GTask *task, const char *message)
{
  Check *check = g_task_get_task_data (task);

  log_denial (g_task_get_source_object (task), check, check->caller, message);
  return_denial (task, message);
}

static void
busy (GTask *task, GError *error)
{
  Check *check = g_task_get_task_data (task);

  check->answered = TRUE;
  g_task_return_error (task, error);
  g_object_unref (task);
}

/* The bus never gives a unique name to another connection, and a
 * connection's uid and pid are the ones it had when it connected: the bus
 * is asked once per caller, not once per call (a round trip through the
 * bus before every change). Kept on our connection, so that a connection
 * to a restarted bus, which hands out the same names again, starts empty;
 * a caller is dropped when the watchers see it leave the bus
 * (hpd_caller_forget), and the whole is bounded for the callers they do
 * not track, as every caller is a new name. While the bus is being asked
 * about a name, further lookups of it (the watchers', hpd-watchers.h, and
 * every call of a caller that sends many at once) wait for that answer:
 * at most one question per name is in flight. */
#define CALLER_CACHE_KEY "hpd-caller-credentials"
#define CALLER_ASKING_KEY "hpd-caller-asking"
#define CALLER_CACHE_MAX 64
/* dbus-daemon answers at once; beyond this it is overloaded (Busy) */
#define CALLER_LOOKUP_TIMEOUT_MS 5000

static HpdCaller *
caller_copy (const HpdCaller *caller)
{
  HpdCaller *copy = g_new0 (HpdCaller, 1);

  copy->sender = g_strdup (caller->sender);
  copy->uid = caller->uid;
  copy->pid = caller->pid;
  return copy;
}

/* A table kept on the connection, made at its first use: what is known
 * of a unique name lives exactly as long as the connection it came on. */
static GHashTable *
connection_table (GDBusConnection *connection, const char *key, GDestroyNotify key_free,
                  GDestroyNotify value_free)
{
  GHashTable *table = g_object_get_data (G_OBJECT (connection), key);

  if (table == NULL)
    {
      table = g_hash_table_new_full (g_str_hash, g_str_equal, key_free, value_free);
      g_object_set_data_full (G_OBJECT (connection), key, table,
                              (GDestroyNotify) g_hash_table_unref);
    }
  return table;
}

/* name -> HpdCaller, the key being the value's own sender */
static GHashTable *
caller_cache (GDBusConnection *connection)
{
  return connection_table (connection, CALLER_CACHE_KEY, NULL, (GDestroyNotify) hpd_caller_free);
}

static void
caller_cache_add (GDBusConnection *connection, const HpdCaller *caller)
{
  GHashTable *cache = caller_cache (connection);
  HpdCaller *copy = caller_copy (caller);

  if (g_hash_table_size (cache) >= CALLER_CACHE_MAX)
    g_hash_table_remove_all (cache);
  /* the key is the value's own sender */
  g_hash_table_replace (cache, copy->sender, copy);
}

/* name -> GPtrArray of the GTasks waiting for the bus's answer about it */
static GHashTable *
caller_asking (GDBusConnection *connection)
{
  return connection_table (connection, CALLER_ASKING_KEY, g_free,
                           (GDestroyNotify) g_ptr_array_unref);
}

static void
caller_got_credentials (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autofree char *sender = user_data;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) creds = NULL;
  g_autofree char *key = NULL;
  g_autoptr(GPtrArray) waiting = NULL;
  g_autoptr(HpdCaller) caller = g_new0 (HpdCaller, 1);
  g_autoptr(GError) error = NULL;
  gboolean overloaded;

  g_hash_table_steal_extended (caller_asking (G_DBUS_CONNECTION (source)), sender,
                               (gpointer *) &key, (gpointer *) &waiting);
  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  /* A bus that did not answer in time, or ran out of room for the
   * question, is busy: the caller may well be allowed, and may try again.
   * Otherwise (above all, a caller that left the bus) nobody is known. */
  overloaded = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT) ||
               g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_LIMITS_EXCEEDED) ||
               g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_NO_MEMORY);
  if (reply != NULL)
    creds = g_variant_get_child_value (reply, 0);
  if (creds == NULL || !g_variant_lookup (creds, "UnixUserID", "u", &caller->uid))
    g_clear_pointer (&caller, hpd_caller_free);
  else
    {
      if (!g_variant_lookup (creds, "ProcessID", "u", &caller->pid))
        caller->pid = 0;
      caller->sender = g_strdup (sender);
      g_debug ("The bus says %s is uid %u, pid %u", caller->sender, caller->uid, caller->pid);
      caller_cache_add (G_DBUS_CONNECTION (source), caller);
    }
  for (guint i = 0; waiting != NULL && i < waiting->len; i++)
    {
      GTask *task = g_ptr_array_index (waiting, i);

      if (g_task_return_error_if_cancelled (task))
        continue;
      if (caller == NULL && overloaded)
        g_task_return_new_error (task, HP_ERROR, HP_ERROR_BUSY,
                                 "The bus did not say who the caller is in time; try again");
      else if (caller == NULL)
        g_task_return_new_error (task, HP_ERROR, HP_ERROR_FAILED, "Could not identify the caller");
      else
        g_task_return_pointer (task, caller_copy (caller), (GDestroyNotify) hpd_caller_free);
    }
}

void
hpd_caller_lookup_name (GDBusConnection *connection, const char *sender,
                        GCancellable *cancellable, GAsyncReadyCallback callback,
                        gpointer user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  GHashTable *asking = caller_asking (connection);
  const HpdCaller *known = sender != NULL ? g_hash_table_lookup (caller_cache (connection), sender)
                                          : NULL;
  GPtrArray *waiting;

  if (known != NULL)
    {
      g_task_return_pointer (task, caller_copy (known), (GDestroyNotify) hpd_caller_free);
      g_object_unref (task);
      return;
    }
  waiting = g_hash_table_lookup (asking, sender);
  if (waiting != NULL)
    {
      g_ptr_array_add (waiting, task);
      return;
    }
  waiting = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (waiting, task);
  g_hash_table_insert (asking, g_strdup (sender), waiting);
  /* not cancelled with @cancellable: others may wait for the answer */
  g_dbus_connection_call (connection,
                          "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "GetConnectionCredentials",
                          g_variant_new ("(s)", sender), G_VARIANT_TYPE ("(a{sv})"),
                          G_DBUS_CALL_FLAGS_NONE, CALLER_LOOKUP_TIMEOUT_MS,
                          NULL, caller_got_credentials, g_strdup (sender));
}

void
hpd_caller_forget (GDBusConnection *connection, const char *sender)
{
  GHashTable *cache = g_object_get_data (G_OBJECT (connection), CALLER_CACHE_KEY);

  if (cache != NULL)
    g_hash_table_remove (cache, sender);
}

guint
hpd_departures_subscribe (GDBusConnection *connection, GDBusSignalCallback callback,
                          gpointer user_data)
{
  return g_dbus_connection_signal_subscribe (connection, "org.freedesktop.DBus",
                                             "org.freedesktop.DBus", "NameOwnerChanged",
                                             "/org/freedesktop/DBus", NULL,
                                             G_DBUS_SIGNAL_FLAGS_NO_MATCH_RULE,
                                             callback, user_data, NULL);
}

void
hpd_departures_match (GDBusConnection *connection, const char *name, gboolean add)
{
  g_autofree char *rule = NULL;

  /* a unique name holds no quote to end the rule's value early */
  g_return_if_fail (name == NULL || g_dbus_is_unique_name (name));
  rule = g_strdup_printf ("type='signal',sender='org.freedesktop.DBus',"
                          "interface='org.freedesktop.DBus',member='NameOwnerChanged',"
                          "path='/org/freedesktop/DBus'%s%s%s",
                          name != NULL ? ",arg0='" : "", name != NULL ? name : "",
                          name != NULL ? "'" : "");
  g_dbus_connection_call (connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", add ? "AddMatch" : "RemoveMatch",
                          g_variant_new ("(s)", rule), NULL, G_DBUS_CALL_FLAGS_NONE, -1,
                          NULL, NULL, NULL);
}

void
hpd_caller_lookup (GDBusMethodInvocation *invocation, GAsyncReadyCallback callback,
                   gpointer user_data)
{
  hpd_caller_lookup_name (g_dbus_method_invocation_get_connection (invocation),
                          g_dbus_method_invocation_get_sender (invocation), NULL,
                          callback, user_data);
}

HpdCaller *
hpd_caller_lookup_finish (GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
authorized (GTask *task)
{
  Check *check = g_task_get_task_data (task);

  check->answered = TRUE;
  check->caller->authorized = TRUE;
  g_task_return_pointer (task, g_steal_pointer (&check->caller), (GDestroyNotify) hpd_caller_free);
  g_object_unref (task);
}

/* The bus could not bring our question to polkitd: polkitd is not on
 * the bus (and cannot be started), or the bus refused to hold one more
 * call of ours awaiting a reply. Other errors, from polkitd or about the
 * caller, deny; so does NoReply, which polkitd may also pass on from its
 * own question to the bus about the caller. */
static gboolean
polkit_unreachable (const char *error_name)
{
  return g_strcmp0 (error_name, "org.freedesktop.DBus.Error.ServiceUnknown") == 0 ||
         g_strcmp0 (error_name, BUS_ERROR_LIMITS_EXCEEDED) == 0 ||
         (error_name != NULL && g_str_has_prefix (error_name, "org.freedesktop.DBus.Error.Spawn."));
}

/* polkitd cannot be asked: root may go on, as polkitd itself allows uid 0
 * every action. Others are denied, or told to try again when the bus was
 * only too busy. */
static void
polkit_unavailable (GTask *task, const char *error_name)
{
  Check *check = g_task_get_task_data (task);

  if (check->caller->uid == 0)
    authorized (task);
  else if (g_strcmp0 (error_name, BUS_ERROR_LIMITS_EXCEEDED) == 0)
    busy (task, g_error_new (HP_ERROR, HP_ERROR_BUSY,
                             "Too many changes are waiting for authorization; try again later"));
  else
    deny (task, "Authorization is unavailable (polkit is not running); only root may make changes");
}

static void
answer_from_polkit (GTask *task, GVariant *reply, const GError *error)
{
  Check *check = g_task_get_task_data (task);
  gboolean is_authorized, is_challenge;

  if (reply == NULL)
    {
      g_autofree char *name = g_dbus_error_get_remote_error (error);

      if (polkit_unreachable (name))
        {
          g_debug ("polkit unavailable: %s", error->message);
          polkit_unavailable (task, name);
          return;
        }
      g_debug ("Checking %s failed: %s", check->action, error->message);
      deny (task, "Authorization failed");
      return;
    }

  g_variant_get (reply, "((bb@a{ss}))", &is_authorized, &is_challenge, NULL);
  if (is_authorized)
    authorized (task);
  else if (is_challenge && !check->interactive)
    {
      g_autofree char *message = g_strdup_printf ("%s: authentication is required, but the "
                                                  "caller did not allow interactive authorization",
                                                  hp_error_refusal_for_action (check->action));
      deny (task, message);
    }
  else
    deny (task, hp_error_refusal_for_action (check->action));
}

/* @user_data is the call's reference to the task, dropped here: the slot
 * is free only now. The check's own way holds the other one until the
 * caller is answered, here or before. */
static void
checked_authorization (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  Check *check = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  gint64 waited_ms;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  g_clear_handle_id (&check->timeout_id, g_source_remove);
  waited_ms = (g_get_monotonic_time () - check->asked_at) / 1000;
  if (waited_ms >= SLOW_ANSWER_MS && !check->interactive)
    g_debug ("polkitd answered check %s (uid %u, %s) after %" G_GINT64_FORMAT " ms",
             check->cancellation_id, check->uid, check->action, waited_ms);
  if (!check->answered)
    answer_from_polkit (task, reply, error);
  else
    g_debug ("polkitd answered check %s, given up before: %s", check->cancellation_id,
             reply != NULL ? "a result" : error->message);
}

static gboolean
cancelled_unanswered (gpointer user_data)
{
  Check *check = user_data;

  check->timeout_id = 0;
  g_debug ("polkitd has not answered check %s %u s after it was cancelled: its slot is free",
           check->cancellation_id, CANCELLED_ANSWER_WAIT_S);
  give_back_slot (check);
  return G_SOURCE_REMOVE;
}

/* Answers the caller now. polkitd is asked to cancel the check, without a
 * reply of its own (which the bus would count against us too); its answer
 * to the check then comes at once, and frees the slot. */
static void
give_up (Check *check, const char *message)
{
  g_autoptr(GDBusMessage) cancel = NULL;

  if (check->answered)
    return;
  g_clear_handle_id (&check->timeout_id, g_source_remove);
  check->timeout_id = g_timeout_add_seconds (CANCELLED_ANSWER_WAIT_S, cancelled_unanswered, check);
  cancel = g_dbus_message_new_method_call (POLKIT_BUS_NAME, POLKIT_PATH, POLKIT_INTERFACE,
                                           "CancelCheckAuthorization");
  g_dbus_message_set_body (cancel, g_variant_new ("(s)", check->cancellation_id));
  g_dbus_message_set_flags (cancel, G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED);
  /* a closed connection has failed the check already */
  g_dbus_connection_send_message (g_dbus_method_invocation_get_connection (check->invocation),
                                  cancel, G_DBUS_SEND_MESSAGE_FLAGS_NONE, NULL, NULL);
  deny (check->task, message);
}

GHashTable *
hpd_auth_details_new (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

void
hpd_auth_details_set (GHashTable *details, const char *key, const char *value)
{
  g_hash_table_replace (details, g_strdup (key), g_strdup (value));
}

static GVariant *
details_to_variant (GHashTable *details)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a{ss}"));
  GHashTableIter iter;
  const char *key, *value;

  g_hash_table_iter_init (&iter, details);
  while (g_hash_table_iter_next (&iter, (gpointer *) &key, (gpointer *) &value))
    g_variant_builder_add (&builder, "{ss}", key, value);
  return g_variant_builder_end (&builder);
}

/* On the connection the call came on: the caller's unique name means
 * something only on that bus. The subject is that name, never a pid. */
static void
ask_polkit (GTask *task)
{
  Check *check = g_task_get_task_data (task);
  HpdAuth *self = check->counted;
  const char *sender = g_dbus_method_invocation_get_sender (check->invocation);
  GVariantBuilder subject;

  g_variant_builder_init (&subject, G_VARIANT_TYPE ("a{sv}"));
  g_variant_builder_add (&subject, "{sv}", "name", g_variant_new_string (sender));
  check->cancellation_id = g_strdup_printf ("hugepagesd-%" G_GUINT64_FORMAT,
                                            ++self->last_cancellation_id);
  check->asked_at = g_get_monotonic_time ();
  g_dbus_connection_call (g_dbus_method_invocation_get_connection (check->invocation),
                          POLKIT_BUS_NAME, POLKIT_PATH, POLKIT_INTERFACE, "CheckAuthorization",
                          g_variant_new ("((sa{sv})s@a{ss}us)", "system-bus-name", &subject,
                                         check->action, details_to_variant (check->details),
                                         check->interactive ? POLKIT_CHECK_ALLOW_USER_INTERACTION
                                                            : 0u,
                                         check->cancellation_id),
                          G_VARIANT_TYPE ("((bba{ss}))"), G_DBUS_CALL_FLAGS_NONE, G_MAXINT,
                          NULL, checked_authorization, g_object_ref (task));
}

/* The uid first: the slots are counted per uid. */
static void
got_caller (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Check *check = g_task_get_task_data (task);
  HpdAuth *self = check->counted;
  const char *sender = g_dbus_method_invocation_get_sender (check->invocation);
  GPtrArray *checks;
  GError *error = NULL;

  check->caller = hpd_caller_lookup_finish (result, &error);
  if (g_error_matches (error, HP_ERROR, HP_ERROR_BUSY))
    {
      /* the admin's trace of an overloaded bus */
      log_denial (self, check, NULL, error->message);
      busy (task, error);
      return;
    }
  if (check->caller == NULL)
    {
      g_clear_error (&error);
      log_denial (self, check, NULL, "Could not identify the caller");
      return_denial (task, "Could not identify the caller");
      return;
    }
  if (!hpd_slots_take (self->slots, check->caller->uid, &error))
    {
      busy (task, error);
      return;
    }
  check->has_slot = TRUE;
  check->uid = check->caller->uid;

  checks = g_hash_table_lookup (self->checks_by_caller, sender);
  if (checks == NULL)
    {
      checks = g_ptr_array_new ();
      g_hash_table_insert (self->checks_by_caller, g_strdup (sender), checks);
    }
  g_ptr_array_add (checks, check);

  check->timeout_id = g_timeout_add_seconds (check->interactive ? INTERACTIVE_CHECK_TIMEOUT_S
                                                                : CHECK_TIMEOUT_S,
                                             check_timed_out, check);
  ask_polkit (task);
}

void
hpd_auth_check_async (HpdAuth *self, GDBusMethodInvocation *invocation, const char *action,
                      GHashTable *details, GCancellable *cancellable,
                      GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  GDBusMessage *message = g_dbus_method_invocation_get_message (invocation);
  const char *sender = g_dbus_method_invocation_get_sender (invocation);
  Check *check = g_new0 (Check, 1);

  g_task_set_source_tag (task, hpd_auth_check_async);
  check->invocation = g_object_ref (invocation);
  check->details = details ? g_hash_table_ref (details) : hpd_auth_details_new ();
  check->interactive = (g_dbus_message_get_flags (message) &
                        G_DBUS_MESSAGE_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION) != 0;
  check->action = action;
  check->task = task;
  g_task_set_task_data (task, check, (GDestroyNotify) check_free);

  if (pending_of (self, sender) >= MAX_PENDING_CHECKS_PER_CALLER)
    {
      g_task_return_new_error (task, HP_ERROR, HP_ERROR_BUSY,
                               "Too many changes are waiting for authorization; try again later");
      g_object_unref (task);
      return;
    }
  check->counted = g_object_ref (self);
  count_pending (self, sender, +1);

  /* before the first question to the bus about a caller, so that its
   * departure cannot come unseen between the answer and the check */
  watch_departures (self, g_dbus_method_invocation_get_connection (invocation));
  hpd_caller_lookup (invocation, got_caller, task);
}

HpdCaller *
hpd_auth_check_finish (HpdAuth *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
