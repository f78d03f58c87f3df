/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* -H [USER@]HOST: the system bus of another machine, reached the way
 * busctl and systemctl reach it: `ssh -xT [USER@]HOST systemd-stdio-bridge`,
 * and D-Bus spoken over the pipes of that ssh. No agent of our own runs
 * there; ssh does the login, the bridge (part of systemd) joins the remote
 * system bus as the user ssh logged in as, and the remote hugepagesd and
 * polkit see that user as the caller.
 *
 * sd-bus has an address for this (unixexec:path=ssh,argv1=-xT,...); GDBus
 * in GLib 2.74 has no unixexec: transport, so ssh is started here and the
 * connection made on its stdin and stdout. */
#include "config.h"

#include <signal.h>

#include "hp-error.h"
#include "hpctl.h"

#define REMOTE_BRIDGE "systemd-stdio-bridge"
/* What ssh exits with when it fails itself (cannot resolve, connect, log
 * in), and what a shell exits with for a command it cannot find. */
#define SSH_FAILED 255
#define COMMAND_NOT_FOUND 127
/* Closing the pipes ends the bridge and then ssh; a link that hangs is
 * not waited for longer than this. */
#define EXIT_WAIT_MS 5000

struct _HpctlRemote {
  GSubprocess *ssh;
  GDBusConnection *bus;
  guint filter;
  gint denied;              /* atomic: a NotAuthorized reply came back */
};

typedef struct {
  gboolean done;
  gboolean timed_out;
  GCancellable *cancellable;
} ExitWait;

static void
exited (GObject *source, GAsyncResult *result, gpointer user_data)
{
  ExitWait *wait = user_data;

  /* exited or cancelled: either way the wait is over */
  (void) g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL);
  wait->done = TRUE;
}

static gboolean
give_up (gpointer user_data)
{
  ExitWait *wait = user_data;

  wait->timed_out = TRUE;
  g_cancellable_cancel (wait->cancellable);
  return G_SOURCE_REMOVE;
}

/* TRUE if @ssh exited within @timeout_ms. */
static gboolean
wait_for_exit (GSubprocess *ssh, guint timeout_ms)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(GSource) timeout = g_timeout_source_new (timeout_ms);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  ExitWait wait = { FALSE, FALSE, cancellable };

  g_main_context_push_thread_default (context);
  g_source_set_callback (timeout, give_up, &wait, NULL);
  g_source_attach (timeout, context);
  g_subprocess_wait_async (ssh, cancellable, exited, &wait);
  /* a cancelled wait still calls back, so this ends either way */
  while (!wait.done)
    g_main_context_iteration (context, TRUE);
  g_source_destroy (timeout);
  g_main_context_pop_thread_default (context);
  return !wait.timed_out || g_subprocess_get_identifier (ssh) == NULL;
}

static GDBusMessage *
watch_for_denial (GDBusConnection *bus, GDBusMessage *message, gboolean incoming,
                  gpointer user_data)
{
  HpctlRemote *remote = user_data;
  g_autoptr(GError) error = NULL;

  if (incoming && g_dbus_message_get_message_type (message) == G_DBUS_MESSAGE_TYPE_ERROR &&
      g_dbus_message_to_gerror (message, &error) &&
      g_error_matches (error, HP_ERROR, HP_ERROR_NOT_AUTHORIZED))
    g_atomic_int_set (&remote->denied, 1);
  return message;
}

void
hpctl_remote_free (HpctlRemote *remote)
{
  if (remote->bus != NULL)
    {
      g_dbus_connection_remove_filter (remote->bus, remote->filter);
      /* closes the pipes: the bridge sees the end of its input and exits,
       * and ssh with it */
      (void) g_dbus_connection_close_sync (remote->bus, NULL, NULL);
      g_object_unref (remote->bus);
    }
  if (remote->ssh != NULL)
    {
      if (!wait_for_exit (remote->ssh, EXIT_WAIT_MS))
        {
          g_subprocess_force_exit (remote->ssh);
          (void) wait_for_exit (remote->ssh, EXIT_WAIT_MS);
        }
      g_object_unref (remote->ssh);
    }
  g_free (remote);
}

/* HUGEPAGESCTL_SSH, split as a shell would, or plain ssh. */
static GStrv
ssh_command (GError **error)
{
  const char *setting = g_getenv ("HUGEPAGESCTL_SSH");
  g_auto(GStrv) argv = NULL;
  g_autoptr(GError) reason = NULL;

  if (setting == NULL || *setting == '\0')
    {
      argv = g_new0 (char *, 2);
      argv[0] = g_strdup ("ssh");
      return g_steal_pointer (&argv);
    }
  if (!g_shell_parse_argv (setting, NULL, &argv, &reason))
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "HUGEPAGESCTL_SSH is not a command line: %s", reason->message);
      return NULL;
    }
  return g_steal_pointer (&argv);
}

/* Why the link did not come up, once ssh has ended (or would not). */
static void
explain_failure (HpctlRemote *remote, const char *host, const GError *reason, GError **error)
{
  gboolean ended = wait_for_exit (remote->ssh, EXIT_WAIT_MS);
  int status;

  if (!ended || !g_subprocess_get_if_exited (remote->ssh))
    {
      g_set_error (error, HP_ERROR, HP_ERROR_FAILED,
                   "no D-Bus connection over ssh to %s: %s", host, reason->message);
      return;
    }

  status = g_subprocess_get_exit_status (remote->ssh);
  if (status == SSH_FAILED)
    g_set_error (error, HP_ERROR, HP_ERROR_FAILED,
                 "ssh to %s failed (exit status %d; ssh's message, if any, is above)",
                 host, status);
  else if (status == COMMAND_NOT_FOUND)
    g_set_error (error, HP_ERROR, HP_ERROR_FAILED,
                 "%s has no " REMOTE_BRIDGE " (exit status %d): it comes with systemd "
                 "(Debian: /usr/bin/" REMOTE_BRIDGE " in the package systemd)", host, status);
  else
    g_set_error (error, HP_ERROR, HP_ERROR_FAILED,
                 REMOTE_BRIDGE " on %s ended with exit status %d before the bus answered "
                 "(its message, if any, is above)", host, status);
}

static GDBusConnection *
open_remote_bus (HpctlContext *ctx, GError **error)
{
  g_autoptr(HpctlRemote) remote = g_new0 (HpctlRemote, 1);
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_auto(GStrv) ssh = NULL;
  g_autoptr(GIOStream) stream = NULL;
  g_autoptr(GError) reason = NULL;

  ssh = ssh_command (error);
  if (ssh == NULL)
    return NULL;
  for (gsize i = 0; ssh[i] != NULL; i++)
    g_ptr_array_add (argv, ssh[i]);
  /* busctl's and systemctl's arguments: no X11 forwarding, no terminal
   * (the pipes carry binary D-Bus), and "--" so that no HOST is an option */
  g_ptr_array_add (argv, (char *) "-xT");
  g_ptr_array_add (argv, (char *) "--");
  g_ptr_array_add (argv, ctx->host);
  g_ptr_array_add (argv, (char *) REMOTE_BRIDGE);
  g_ptr_array_add (argv, NULL);

  /* ssh's stderr stays ours: its reasons (host key, login, "not found")
   * are the best explanation of a failure */
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                        G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  remote->ssh = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv->pdata,
                                              &reason);
  if (remote->ssh == NULL)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_FAILED, "cannot run %s: %s", ssh[0],
                   reason->message);
      return NULL;
    }

  /* a write to the pipe of an ssh that has gone would otherwise kill us
   * with SIGPIPE instead of failing the call (sockets use MSG_NOSIGNAL,
   * pipes cannot) */
  signal (SIGPIPE, SIG_IGN);

  stream = g_simple_io_stream_new (g_subprocess_get_stdout_pipe (remote->ssh),
                                   g_subprocess_get_stdin_pipe (remote->ssh));
  remote->bus = g_dbus_connection_new_sync (stream, NULL,
                                            G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                            G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                            NULL, NULL, &reason);
  if (remote->bus == NULL)
    {
      explain_failure (remote, ctx->host, reason, error);
      return NULL;
    }
  remote->filter = g_dbus_connection_add_filter (remote->bus, watch_for_denial, remote, NULL);

  g_clear_pointer (&ctx->remote, hpctl_remote_free);
  ctx->remote = g_steal_pointer (&remote);
  return g_object_ref (ctx->remote->bus);
}

GDBusConnection *
hpctl_open_bus (HpctlContext *ctx, GError **error)
{
  if (ctx->host == NULL)
    return g_bus_get_sync (G_BUS_TYPE_SYSTEM, NULL, error);
  return open_remote_bus (ctx, error);
}

char *
hpctl_describe_bus (HpctlContext *ctx)
{
  if (ctx->host == NULL)
    return g_strdup ("the system bus");
  return g_strdup_printf ("the system bus of %s", ctx->host);
}

void
hpctl_remote_explain_denial (HpctlContext *ctx)
{
  if (ctx->remote == NULL || !g_atomic_int_get (&ctx->remote->denied))
    return;
  g_printerr ("%s: polkit on %s decided without asking: it cannot ask for a password over "
              "SSH. Log in as root (-H root@HOST) or as a user that a polkit rule there "
              "allows without one\n", g_get_prgname (), ctx->host);
}

gboolean
hpctl_check_host (HpctlContext *ctx)
{
  if (ctx->host == NULL || *ctx->host != '\0')
    return TRUE;
  hpctl_usage_error ("-H/--host needs a HOST or USER@HOST, not an empty string");
  return FALSE;
}
