/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* A one-line progress bar on stderr for a long allocation (--hard), fed
 * by the service's AllocationProgress signals. Only on a terminal: a log
 * or a pipe gets nothing extra. */
#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include "hp-names.h"
#include "hpctl.h"

#define BAR_WIDTH 30

struct _HpctlProgress {
  GDBusConnection *bus;
  guint subscription;
  guint64 target;
  gboolean drawn;
};

/* "[#########.....] 123/456 pages  compacting" */
static char *
progress_line (guint64 achieved, guint64 target, const char *phase)
{
  g_autoptr(GString) line = g_string_new ("[");
  guint filled = target == 0 ? BAR_WIDTH
    : (guint) (MIN (achieved, target) * (double) BAR_WIDTH / (double) target);

  for (guint i = 0; i < BAR_WIDTH; i++)
    g_string_append_c (line, i < filled ? '#' : '.');
  g_string_append_printf (line, "] %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " pages  %s",
                          achieved, target, phase);
  return g_string_free (g_steal_pointer (&line), FALSE);
}

static void
on_progress (GDBusConnection *bus, const char *sender, const char *path,
             const char *interface, const char *member, GVariant *parameters,
             gpointer user_data)
{
  HpctlProgress *progress = user_data;
  g_autofree char *line = NULL;
  guint64 achieved, target;
  const char *phase;

  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(tts)")))
    return;
  g_variant_get (parameters, "(tt&s)", &achieved, &target, &phase);
  /* changes run one at a time: another caller's may come first */
  if (target != progress->target)
    return;

  line = progress_line (achieved, target, phase);
  /* \r and erase-line: every update replaces the last */
  fprintf (stderr, "\r\033[K%s", line);
  fflush (stderr);
  progress->drawn = TRUE;
}

HpctlProgress *
hpctl_progress_start (GDBusConnection *bus, const char *object_path, guint64 target)
{
  HpctlProgress *progress;

  if (!isatty (STDERR_FILENO))
    return NULL;

  progress = g_new0 (HpctlProgress, 1);
  progress->bus = g_object_ref (bus);
  progress->target = target;
  progress->subscription =
    g_dbus_connection_signal_subscribe (bus, HP_BUS_NAME, HP_PAGE_SIZE_INTERFACE,
                                        "AllocationProgress", object_path, NULL,
                                        G_DBUS_SIGNAL_FLAGS_NONE, on_progress,
                                        progress, NULL);
  return progress;
}

void
hpctl_progress_stop (HpctlProgress *progress)
{
  if (progress == NULL)
    return;
  g_dbus_connection_signal_unsubscribe (progress->bus, progress->subscription);
  if (progress->drawn)
    {
      /* leave the terminal as it was: the report follows on clean lines */
      fputs ("\r\033[K", stderr);
      fflush (stderr);
    }
  g_object_unref (progress->bus);
  g_free (progress);
}
