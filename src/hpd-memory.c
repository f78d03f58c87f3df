#include "config.h"

#include <malloc.h>
#include <stdlib.h>
#include <unistd.h>

#include "hpd-memory.h"

/* How long the calls must have stopped before the check. */
#define QUIET_BEFORE_CHECK_US (2 * G_USEC_PER_SEC)
/* Below this much free memory in the arenas trimming is not worth it. The
 * check runs once after each burst of calls, not periodically, so even a
 * few hundred kilobytes are worth giving back: that is most of what an idle
 * service holds beyond its libraries. */
#define KEEP_FREE_BYTES (256u << 10)

/* What the filter shares with the main thread. Counted apart from
 * HpdMemory because GDBus may still run the filter after it was removed,
 * until it calls the filter's destroy notify (as in hpd-traffic.c). */
typedef struct {
  gatomicrefcount ref;
  GMutex lock;
  gint64 last_activity;   /* monotonic µs, under the lock */
  gint armed;             /* atomic: the check source has a ready time */
  GSource *check;         /* runs in the watcher's main context */
} Shared;

struct _HpdMemory
{
  GDBusConnection *connection;
  guint filter_id;
  Shared *shared;
};

void
hpd_memory_prefer_malloc (char **argv)
{
#if !GLIB_CHECK_VERSION (2, 76, 0)
  if (getenv ("G_SLICE") != NULL)
    return;
  if (setenv ("G_SLICE", "always-malloc", 1) == 0)
    {
      /* The process name (comm, what ps and top show) comes from the last
       * component of the path run: the binary's own path, not "exe". */
      g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);

      if (self != NULL && g_path_is_absolute (self))
        execv (self, argv);
      execv ("/proc/self/exe", argv);
    }
  /* no /proc: go on with GSlice, which only keeps memory longer */
#else
  (void) argv;
#endif
}

static Shared *
shared_ref (Shared *shared)
{
  g_atomic_ref_count_inc (&shared->ref);
  return shared;
}

static void
shared_unref (Shared *shared)
{
  if (!g_atomic_ref_count_dec (&shared->ref))
    return;
  g_source_unref (shared->check);
  g_mutex_clear (&shared->lock);
  g_free (shared);
}

static void
trim_if_worth_it (void)
{
  struct mallinfo2 info = mallinfo2 ();

  /* fordblks: bytes in free chunks, over all arenas (the GDBus reader
   * thread has an arena of its own) */
  if (info.fordblks > KEEP_FREE_BYTES)
    {
      g_debug ("Calls stopped: returning up to %zu bytes of freed memory to the kernel",
               info.fordblks);
      malloc_trim (0);
    }
  else
    g_debug ("Calls stopped: %zu bytes of freed memory kept, too little to return",
             info.fordblks);
}

/* The source gets a ready time only when it has none; at that time it
 * looks whether calls went on meanwhile and, if so, waits for the rest of
 * the quiet period instead of checking. So a stream of calls costs one
 * wakeup per period, not one per call, and after the check the source has
 * no ready time until the next call: an idle service sleeps. */
static gboolean
check_dispatch (GSource *source, GSourceFunc callback, gpointer user_data)
{
  Shared *shared = user_data;
  gint64 due;

  /* Disarmed first: a call from here on arms the source again itself. */
  g_source_set_ready_time (source, -1);
  g_atomic_int_set (&shared->armed, 0);
  g_mutex_lock (&shared->lock);
  due = shared->last_activity + QUIET_BEFORE_CHECK_US;
  g_mutex_unlock (&shared->lock);

  if (g_get_monotonic_time () < due)
    {
      /* calls went on: wait for the rest of the quiet period (unless a
       * call armed the source meanwhile, for a later time still) */
      if (g_atomic_int_compare_and_exchange (&shared->armed, 0, 1))
        g_source_set_ready_time (source, due);
      return G_SOURCE_CONTINUE;
    }
  trim_if_worth_it ();
  return G_SOURCE_CONTINUE;
}

/* GLib takes a non-const table; it is never written. */
static GSourceFuncs check_funcs = { .dispatch = check_dispatch };

static GDBusMessage *
filter (GDBusConnection *connection, GDBusMessage *message, gboolean incoming,
        gpointer user_data)
{
  Shared *shared = user_data;
  GDBusMessageType type = g_dbus_message_get_message_type (message);
  gint64 now;

  if (!(incoming && type == G_DBUS_MESSAGE_TYPE_METHOD_CALL) &&
      !(!incoming && (type == G_DBUS_MESSAGE_TYPE_METHOD_RETURN ||
                      type == G_DBUS_MESSAGE_TYPE_ERROR)))
    return message;

  now = g_get_monotonic_time ();
  g_mutex_lock (&shared->lock);
  shared->last_activity = now;
  g_mutex_unlock (&shared->lock);
  /* g_source_set_ready_time() may be called from any thread */
  if (g_atomic_int_compare_and_exchange (&shared->armed, 0, 1))
    g_source_set_ready_time (shared->check, now + QUIET_BEFORE_CHECK_US);
  return message;
}

HpdMemory *
hpd_memory_watch (GDBusConnection *connection)
{
  HpdMemory *self = g_new0 (HpdMemory, 1);
  Shared *shared = g_new0 (Shared, 1);

  g_atomic_ref_count_init (&shared->ref);
  g_mutex_init (&shared->lock);
  shared->check = g_source_new (&check_funcs, sizeof (GSource));
  g_source_set_static_name (shared->check, "[hugepagesd] memory check after calls");
  g_source_set_callback (shared->check, NULL, shared, NULL);
  g_source_set_priority (shared->check, G_PRIORITY_LOW);
  g_source_attach (shared->check, g_main_context_get_thread_default ());
  /* once after start-up too: probing and the first reads leave freed memory */
  shared->last_activity = g_get_monotonic_time ();
  shared->armed = 1;
  g_source_set_ready_time (shared->check, shared->last_activity + QUIET_BEFORE_CHECK_US);

  self->connection = g_object_ref (connection);
  self->shared = shared;
  self->filter_id = g_dbus_connection_add_filter (connection, filter, shared_ref (shared),
                                                  (GDestroyNotify) shared_unref);
  return self;
}

void
hpd_memory_free (HpdMemory *self)
{
  if (self == NULL)
    return;
  g_dbus_connection_remove_filter (self->connection, self->filter_id);
  /* a filter still running can only make the destroyed source ready */
  g_source_destroy (self->shared->check);
  shared_unref (self->shared);
  g_object_unref (self->connection);
  g_free (self);
}
