/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* A text polkit agent for the length of one command, as systemctl does it:
 * pkttyagent registers for us (its parent) only when no other agent is
 * there (--fallback), and tells us through --notify-fd when it is ready,
 * so that the call that needs it is not sent too early. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <glib-unix.h>
#include <glib/gstdio.h>

#include "hp-error.h"

#include "hpctl.h"

/* pkttyagent needs polkitd to register; if that hangs, go on without it
 * rather than hang too. */
#define AGENT_READY_TIMEOUT_MS 10000

struct _HpctlAgent
{
  GSubprocess *process;
};

/* Returns once pkttyagent wrote to or closed its end of the pipe: either
 * it is registered, or it gave up (another agent is running, no polkitd). */
static void
wait_until_ready (int fd)
{
  struct pollfd pfd = { .fd = fd, .events = POLLIN };
  gint64 deadline = g_get_monotonic_time () + AGENT_READY_TIMEOUT_MS * G_TIME_SPAN_MILLISECOND;

  for (;;)
    {
      gint64 left_ms = (deadline - g_get_monotonic_time ()) / G_TIME_SPAN_MILLISECOND;
      int r;

      if (left_ms <= 0)
        {
          g_debug ("pkttyagent did not say it is ready; going on");
          return;
        }
      r = poll (&pfd, 1, (int) left_ms);
      if (r < 0 && errno == EINTR)
        continue;
      return;
    }
}

/* If we are killed, the agent must not stay behind holding the terminal. */
static void
die_with_parent (gpointer user_data)
{
  prctl (PR_SET_PDEATHSIG, SIGTERM);
}

HpctlAgent *
hpctl_agent_start (void)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *notify_fd = NULL;
  HpctlAgent *agent;
  int fds[2];

  if (!g_unix_open_pipe (fds, FD_CLOEXEC, &error))
    {
      g_debug ("No pipe for pkttyagent: %s", error->message);
      return NULL;
    }

  /* The child gets the write end under the same number. */
  notify_fd = g_strdup_printf ("%d", fds[1]);
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_INHERIT);
  g_subprocess_launcher_take_fd (launcher, fds[1], fds[1]);
  g_subprocess_launcher_set_child_setup (launcher, die_with_parent, NULL, NULL);
  process = g_subprocess_launcher_spawn (launcher, &error, "pkttyagent",
                                         "--notify-fd", notify_fd, "--fallback", NULL);
  /* Our copy of the write end must go, or we never see the agent close it. */
  g_clear_object (&launcher);

  if (process == NULL)
    {
      /* Not installed, most likely: the call still works with a session
       * agent or for callers that need no password. */
      g_debug ("Could not start pkttyagent: %s", error->message);
      g_close (fds[0], NULL);
      return NULL;
    }

  wait_until_ready (fds[0]);
  g_close (fds[0], NULL);

  agent = g_new0 (HpctlAgent, 1);
  agent->process = g_steal_pointer (&process);
  return agent;
}

void
hpctl_agent_stop (HpctlAgent *agent)
{
  if (agent == NULL)
    return;

  g_subprocess_send_signal (agent->process, SIGTERM);
  if (!g_subprocess_wait (agent->process, NULL, NULL))
    g_debug ("Could not reap pkttyagent");
  g_object_unref (agent->process);
  g_free (agent);
}

static GDBusMessage *
watch_for_refusal (GDBusConnection *connection, GDBusMessage *message, gboolean incoming,
                   gpointer user_data)
{
  HpctlContext *ctx = user_data;
  g_autoptr(GError) error = NULL;

  if (incoming && g_dbus_message_get_message_type (message) == G_DBUS_MESSAGE_TYPE_ERROR &&
      g_dbus_message_to_gerror (message, &error) &&
      g_error_matches (error, HP_ERROR, HP_ERROR_NOT_AUTHORIZED))
    {
      const char *action;

      g_dbus_error_strip_remote_error (error);
      action = hp_error_action_of_refusal (error->message);
      /* a static string: the main thread reads it after the reply */
      g_atomic_pointer_set (&ctx->refused_action, action != NULL ? action : "");
    }
  return message;
}

void
hpctl_watch_refusals (HpctlContext *ctx)
{
  /* the filter lives as long as the connection, which ctx outlives */
  g_dbus_connection_add_filter (ctx->bus, watch_for_refusal, ctx, NULL);
}

void
hpctl_explain_refusal (HpctlContext *ctx)
{
  const char *action = g_atomic_pointer_get (&ctx->refused_action);
  const char *prgname = g_get_prgname ();

  if (ctx->host != NULL)
    {
      hpctl_remote_explain_denial (ctx);
      return;
    }
  if (action == NULL)
    return;
  /* Without an agent polkit decides at once (whatever --no-ask-password
   * says): no terminal for pkttyagent and no session agent, as over ssh
   * without a terminal, from cron or from a service. */
  g_printerr ("%s: polkit asks for a password only through an agent: pkttyagent on a terminal, "
              "or the agent of a desktop session; without one (ssh without a terminal, cron, "
              "no login session) a change needs one of:\n", prgname);
  g_printerr ("%s:   root: sudo %s ..., or -H root@HOST to run it as root over ssh\n",
              prgname, prgname);
  if (*action != '\0')
    g_printerr ("%s:   a polkit rule that allows %s, e.g. in "
                "/etc/polkit-1/rules.d/50-hugepages.rules:\n"
                "    polkit.addRule(function(action, subject) {\n"
                "        if (action.id == \"%s\" && subject.user == \"%s\")\n"
                "            return polkit.Result.YES;\n"
                "    });\n", prgname, action, action, g_get_user_name ());
}
