/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <malloc.h>

#include "hpd-allocators.h"
#include "hpd-memory.h"

/* How long the calls must have stopped before the check. */
#define QUIET_BEFORE_CHECK_US (2 * G_USEC_PER_SEC)

struct _HpdMemory
{
  HpdTraffic *traffic;
  HpdMemoryReleaseFunc release;
  gpointer release_data;
  gulong quiet_id;
  guint check_id;       /* the check waits for its time */
};

/* Every time, with no threshold of free memory before it: the check runs
 * once after each burst of calls, never periodically, so the trim's cost
 * (a walk of malloc's free lists and one madvise() per free run of whole
 * pages) comes once per burst. A threshold made the idle footprint depend
 * on where the free memory after start-up happened to fall: with one of
 * 256 kB, in 10 starts on the real kernel, 6 kept it and idled at some
 * 712 kB of RssAnon, 4 trimmed and idled at some 590 kB. */
static void
trim (void)
{
  if (malloc_trim (0))
    g_debug ("Calls stopped: freed memory returned to the kernel");
  else
    g_debug ("Calls stopped: no freed memory to return to the kernel");
}

static void arm (HpdMemory *self, gint64 due);

/* The check is armed only when it is not already: at start-up and when
 * the calls stop. At its time it looks whether calls went on meanwhile
 * and, if so, waits for the rest of the quiet period instead of checking.
 * So a stream of calls costs one wakeup per period, not one per call, and
 * after the check nothing is armed until calls come and stop again: an
 * idle service sleeps. */
static gboolean
check_due (gpointer user_data)
{
  HpdMemory *self = user_data;
  HpdTrafficState now;
  gint64 due;

  self->check_id = 0;
  /* calls under way, or the next ones after a check, arm it again when
   * they end */
  hpd_traffic_want_quiet (self->traffic);
  hpd_traffic_get_state (self->traffic, &now);
  due = now.last_activity + QUIET_BEFORE_CHECK_US;
  if (now.unanswered == 0 && g_get_monotonic_time () >= due)
    {
      self->release (self->release_data);
      /* glibc read the environment at exec, and nothing changes it since */
      hpd_allocators_empty_thread_cache (g_getenv ("GLIBC_TUNABLES"));
      trim ();
    }
  else if (now.unanswered == 0)
    arm (self, due);
  return G_SOURCE_REMOVE;
}

static void
arm (HpdMemory *self, gint64 due)
{
  gint64 wait_us = MAX (due - g_get_monotonic_time (), 0);

  if (self->check_id != 0)
    return;
  self->check_id = g_timeout_add_full (G_PRIORITY_LOW, (guint) ((wait_us + 999) / 1000),
                                       check_due, self, NULL);
}

void
hpd_memory_check_later (HpdMemory *self)
{
  arm (self, g_get_monotonic_time () + QUIET_BEFORE_CHECK_US);
}

static void
calls_stopped (HpdTraffic *traffic, gpointer user_data)
{
  hpd_memory_check_later (user_data);
}

HpdMemory *
hpd_memory_watch (HpdTraffic *traffic, HpdMemoryReleaseFunc release, gpointer user_data)
{
  HpdMemory *self = g_new0 (HpdMemory, 1);

  self->traffic = g_object_ref (traffic);
  self->release = release;
  self->release_data = user_data;
  self->quiet_id = g_signal_connect (traffic, "quiet", G_CALLBACK (calls_stopped), self);
  /* once after start-up too: probing and the first reads leave freed memory */
  arm (self, g_get_monotonic_time () + QUIET_BEFORE_CHECK_US);
  return self;
}

void
hpd_memory_free (HpdMemory *self)
{
  if (self == NULL)
    return;
  g_clear_handle_id (&self->check_id, g_source_remove);
  g_signal_handler_disconnect (self->traffic, self->quiet_id);
  g_object_unref (self->traffic);
  g_free (self);
}
