/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* hugepagesd: administers Linux huge pages on behalf of D-Bus callers. */
#include "config.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>

#include <gio/gio.h>
#include <glib-unix.h>

#include "hp-error.h"
#include "hp-escape.h"
#include "hpd-apply.h"
#include "hpd-daemon.h"
#include "hpd-allocators.h"

/* Longest --idle-timeout: a day is plenty, and keeps the timer's
 * milliseconds far from overflowing. */
#define MAX_IDLE_TIMEOUT_S 86400.0

typedef struct {
  GMainLoop *loop;
  HpdDaemon *daemon;
  double idle_timeout;
  gboolean terminating;
  int exit_status;
} Run;

/* Every log line, the service's own and GLib's, passes here: the message
 * is escaped (hp-escape.h) whatever its arguments were, so that no caller
 * or file can forge a line, and then written as GLib would. */
static GLogWriterOutput
write_escaped (GLogLevelFlags level, const GLogField *fields, gsize n_fields,
               gpointer user_data)
{
  g_autofree GLogField *copy = g_memdup2 (fields, n_fields * sizeof *fields);
  g_autofree char *message = NULL;

  for (gsize i = 0; i < n_fields; i++)
    if (g_str_equal (copy[i].key, "MESSAGE") && copy[i].value != NULL)
      {
        message = hp_escape_log_text (copy[i].value, copy[i].length);
        copy[i].value = message;
        copy[i].length = -1;
        break;
      }
  return g_log_writer_default (level, copy, n_fields, user_data);
}

HPD_ALLOCATORS_TUNE_AT_PREINIT;

static gboolean
on_terminate (gpointer user_data)
{
  Run *run = user_data;

  /* Under systemd (Type=dbus) giving the name back at an idle exit makes
   * the service manager stop the unit with SIGTERM right away. The name is
   * already released then, and the idle exit only answers the calls that
   * reached us before: cancel the changes, but let it answer them rather
   * than lose them. A second signal quits at once. */
  if (hpd_daemon_is_exiting_idle (run->daemon) && !run->terminating)
    {
      run->terminating = TRUE;
      g_message ("Terminating once the calls already received are answered");
      hpd_daemon_stop (run->daemon);
      return G_SOURCE_CONTINUE;
    }

  g_message ("Terminating");
  g_main_loop_quit (run->loop);
  return G_SOURCE_CONTINUE;
}

static void
on_idle_exit (HpdDaemon *daemon, gpointer user_data)
{
  Run *run = user_data;

  g_message ("Idle for %g s; released the name and exiting", run->idle_timeout);
  g_main_loop_quit (run->loop);
}

static void
on_lost (HpdDaemon *daemon, const char *reason, gboolean failed, gpointer user_data)
{
  Run *run = user_data;

  if (failed)
    {
      g_warning ("%s; exiting", reason);
      run->exit_status = EXIT_FAILURE;
    }
  else
    g_message ("%s; exiting", reason);
  g_main_loop_quit (run->loop);
}

/* Said once at startup, so that a misconfigured unit shows in its log
 * before anybody asks for a mount. */
static void
report_mount_namespace (HpdDaemon *daemon)
{
  const char *detail = NULL;
  HpdMountNs ns = hpd_daemon_get_mount_namespace (daemon, &detail);
  const char *refusal = hpd_daemon_get_mount_refusal (daemon);

  if (refusal != NULL)
    g_warning ("%s (%s); hugetlbfs mounts are refused", refusal, detail);
  else if (ns != HPD_MOUNT_NS_SHARED)
    g_message ("Mounts are made in this mount namespace only, as "
               "--allow-private-mount-namespace asks (%s)", detail);
  else
    g_debug ("Mounts are seen system-wide: %s", detail);
}

int
main (int argc, char **argv)
{
  g_autofree char *kernel_root = NULL;
  gboolean replace = FALSE, verbose = FALSE, version = FALSE, apply = FALSE;
  gboolean allow_private_mount_ns = FALSE;
  double idle_timeout = 0;
  int refresh_interval = HPD_DEFAULT_REFRESH_INTERVAL_MS;
  const GOptionEntry entries[] = {
    { "kernel-root", 0, 0, G_OPTION_ARG_FILENAME, &kernel_root,
      "Use the kernel files under DIR instead of / (for tests and simulations)", "DIR" },
    { "apply", 0, 0, G_OPTION_ARG_NONE, &apply,
      "Apply the configuration (/etc/hugepagesd/hugepagesd.conf and drop-ins) and exit: "
      "non-zero if anything failed or the kernel gave less than asked", NULL },
    { "replace", 'r', 0, G_OPTION_ARG_NONE, &replace,
      "Replace a running instance", NULL },
    { "idle-timeout", 0, 0, G_OPTION_ARG_DOUBLE, &idle_timeout,
      "Exit after SECONDS without calls and with no work pending, first giving the bus "
      "name back and answering every call already received, so the bus starts a new "
      "instance for the next call (for D-Bus activation; the activation file and the "
      "systemd unit pass 30). 0, the default, never exits", "SECONDS" },
    { "refresh-interval", 0, 0, G_OPTION_ARG_INT, &refresh_interval,
      "While a client that called the service is still on the bus, read the kernel's "
      "values again every MS milliseconds and announce changes with PropertiesChanged "
      "(default 1000); 0 reads them only when a client reads a property. Nobody "
      "watching: no refresh", "MS" },
    { "allow-private-mount-namespace", 0, 0, G_OPTION_ARG_NONE, &allow_private_mount_ns,
      "Make hugetlbfs mounts even when running in a mount namespace other than PID 1's, "
      "where only this namespace sees them (for tests that run in a namespace of their "
      "own); without it such mounts are refused", NULL },
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose,
      "Log debug messages", NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, &version,
      "Print the version and exit", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *bus_address = NULL;
  g_autoptr(GDBusConnection) connection = NULL;
  g_autoptr(HpdDaemon) daemon = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  Run run = { NULL, NULL, 0, FALSE, EXIT_SUCCESS };

  setlocale (LC_ALL, "");
  g_log_set_writer_func (write_escaped, NULL, NULL);

  context = g_option_context_new (NULL);
  g_option_context_set_summary (context, "Huge page administration service");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("hugepagesd: %s\n", error->message);
      return EXIT_FAILURE;
    }
  if (version)
    {
      g_print ("hugepagesd %s\n", VERSION);
      return EXIT_SUCCESS;
    }
  if (!isfinite (idle_timeout) || idle_timeout < 0 || idle_timeout > MAX_IDLE_TIMEOUT_S)
    {
      g_printerr ("hugepagesd: --idle-timeout must be between 0 and %g seconds\n",
                  MAX_IDLE_TIMEOUT_S);
      return EXIT_FAILURE;
    }
  if (refresh_interval < 0 || refresh_interval > HPD_MAX_REFRESH_INTERVAL_MS)
    {
      g_printerr ("hugepagesd: --refresh-interval must be between 0 and %d milliseconds\n",
                  HPD_MAX_REFRESH_INTERVAL_MS);
      return EXIT_FAILURE;
    }
  if (verbose)
    g_log_set_debug_enabled (TRUE);

  /* register the error domain before anything can cross the bus */
  (void) HP_ERROR;

  daemon = hpd_daemon_new (kernel_root ? kernel_root : "/", &error);
  if (daemon == NULL)
    {
      g_printerr ("hugepagesd: cannot read the kernel's huge page state: %s\n", error->message);
      return EXIT_FAILURE;
    }

  hpd_daemon_allow_private_mount_namespace (daemon, allow_private_mount_ns);
  report_mount_namespace (daemon);

  if (apply)
    {
      g_autoptr(GString) report = g_string_new (NULL);
      gboolean ok = hpd_apply_configuration (daemon, report);

      g_print ("%s", report->str);
      return ok ? EXIT_SUCCESS : EXIT_FAILURE;
    }

  /* Not g_bus_get()'s shared connection: after GDBus closed it on a
   * message it could not decode, g_bus_get() would hand back the closed
   * one while anybody still holds it. */
  bus_address = g_dbus_address_get_for_bus_sync (G_BUS_TYPE_SYSTEM, NULL, &error);
  if (bus_address != NULL)
    connection = g_dbus_connection_new_for_address_sync (bus_address, HPD_BUS_CONNECTION_FLAGS,
                                                         NULL, NULL, &error);
  if (connection == NULL)
    {
      g_printerr ("hugepagesd: cannot connect to the system bus: %s\n", error->message);
      return EXIT_FAILURE;
    }

  loop = g_main_loop_new (NULL, FALSE);
  run.loop = loop;
  run.daemon = daemon;
  run.idle_timeout = idle_timeout;
  g_unix_signal_add (SIGTERM, on_terminate, &run);
  g_unix_signal_add (SIGINT, on_terminate, &run);
  g_signal_connect (daemon, "lost", G_CALLBACK (on_lost), &run);
  g_signal_connect (daemon, "idle-exit", G_CALLBACK (on_idle_exit), &run);

  hpd_daemon_set_idle_timeout (daemon, idle_timeout);
  hpd_daemon_set_refresh_interval (daemon, (guint) refresh_interval);
  hpd_daemon_start (daemon, bus_address, connection, replace);
  g_main_loop_run (loop);

  hpd_daemon_finish (daemon);
  return run.exit_status;
}
