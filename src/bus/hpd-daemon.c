/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib-unix.h>
#include <glib/gstdio.h>

#include "hp-error.h"
#include "hp-names.h"
#include "hp-units.h"
#include "hpd-bus-name.h"
#include "hpd-claims.h"
#include "hpd-config-cache.h"
#include "hpd-daemon.h"
#include "hpd-fresh.h"
#include "hpd-idle.h"
#include "hpd-last-alloc.h"
#include "hpd-manager.h"
#include "hpd-memory.h"
#include "hpd-methods.h"
#include "hpd-namespace.h"
#include "hpd-page-size.h"
#include "hpd-parse.h"
#include "hpd-persist.h"
#include "hpd-read-snapshot.h"
#include "hpd-requested.h"
#include "hpd-watchers.h"

/* Changes waiting for the kernel beyond this are refused with Busy; one
 * user may have a quarter of them waiting, and root has a reserve
 * (hpd-slots.h). */
#define MAX_PENDING_CHANGES 64
#define MAX_PENDING_CHANGES_PER_UID 16
#define ROOT_RESERVED_CHANGES 8
/* Scans of every process's maps (GetUsage, RemoveOrphan) at once: each
 * holds a thread of GLib's pool for up to 20 s. One per user, two for
 * all users but root, and one more for root. */
#define MAX_RUNNING_SCANS 3
#define MAX_RUNNING_SCANS_PER_UID 1
#define ROOT_RESERVED_SCANS 1

/* A reconnect after an undecodable message is logged at most this often;
 * the next message counts the ones in between. */
#define RECONNECT_LOG_INTERVAL_US (10 * G_USEC_PER_SEC)

struct _HpdDaemon
{
  GObject parent_instance;

  HpdKernel *kernel;
  HpdConfigCache *config;
  HpdClaimsCache *claims;
  HpdRequested *requested;
  HpdLastAlloc *last_alloc;
  HpdAuth *auth;
  HpdQueue *queue;
  HpdSlots *scans;
  GPtrArray *pools;           /* HpdPool, ascending size */
  GArray *nodes;              /* guint */
  HpdZoneCount zones;

  char *bus_address;
  GDBusConnection *connection;
  GCancellable *reconnecting;
  gint64 reconnect_started;
  gint64 reconnect_logged;
  guint reconnects_unlogged;
  GDBusObjectManagerServer *object_manager;
  HpdManager *manager;
  GPtrArray *page_sizes;      /* HpdPageSize */
  int mount_table;             /* /proc/self/mountinfo, for poll() */
  guint mount_table_watch;
  HpdBusName *bus_name;
  HpdIdle *idle;
  double idle_timeout;
  gulong closed_id;
  HpdTraffic *traffic;
  HpdReadSnapshot *read_snapshot;
  HpdMemory *memory;
  guint refresh_interval_ms;
  HpdWatchers *watchers;
  guint refresh_id;

  HpdMountNs mount_ns;
  char *mount_ns_detail;
  gboolean private_mount_ns_allowed;
};

enum { SIGNAL_LOST, SIGNAL_IDLE_EXIT, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_TYPE (HpdDaemon, hpd_daemon, G_TYPE_OBJECT)

static void
hpd_daemon_finalize (GObject *object)
{
  HpdDaemon *self = HPD_DAEMON (object);

  g_free (self->mount_ns_detail);
  g_free (self->bus_address);
  hpd_slots_free (self->scans);
  hpd_zone_count_clear (&self->zones);
  G_OBJECT_CLASS (hpd_daemon_parent_class)->finalize (object);
}

static void detach (HpdDaemon *self);
static void connection_closed (GDBusConnection *connection, gboolean remote_peer_vanished,
                               GError *error, gpointer user_data);

static void
hpd_daemon_dispose (GObject *object)
{
  HpdDaemon *self = HPD_DAEMON (object);

  g_cancellable_cancel (self->reconnecting);
  g_clear_object (&self->reconnecting);
  detach (self);
  g_clear_pointer (&self->watchers, hpd_watchers_free);
  g_clear_handle_id (&self->refresh_id, g_source_remove);
  if (self->idle != NULL)
    g_signal_handlers_disconnect_by_data (self->idle, self);
  g_clear_handle_id (&self->mount_table_watch, g_source_remove);
  if (self->mount_table >= 0)
    g_close (g_steal_fd (&self->mount_table), NULL);
  g_clear_pointer (&self->page_sizes, g_ptr_array_unref);
  g_clear_object (&self->manager);
  g_clear_object (&self->object_manager);
  /* the queue waits for a running job, which uses the pools */
  g_clear_object (&self->queue);
  g_clear_object (&self->read_snapshot);
  g_clear_pointer (&self->pools, g_ptr_array_unref);
  g_clear_pointer (&self->nodes, g_array_unref);
  g_clear_object (&self->auth);
  g_clear_object (&self->kernel);
  g_clear_pointer (&self->config, hpd_config_cache_free);
  g_clear_pointer (&self->claims, hpd_claims_cache_free);
  g_clear_pointer (&self->requested, hpd_requested_free);
  g_clear_pointer (&self->last_alloc, hpd_last_alloc_free);
  g_clear_object (&self->idle);

  G_OBJECT_CLASS (hpd_daemon_parent_class)->dispose (object);
}

static void
hpd_daemon_class_init (HpdDaemonClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = hpd_daemon_dispose;
  object_class->finalize = hpd_daemon_finalize;

  /* (reason, failed): failed is FALSE only when another instance took
   * over the name, which is no reason for a service manager to restart us */
  signals[SIGNAL_LOST] = g_signal_new ("lost", G_TYPE_FROM_CLASS (klass),
                                       G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                       G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_BOOLEAN);
  /* the idle timeout passed, the name is released and every call that
   * reached us is answered: time to quit, successfully */
  signals[SIGNAL_IDLE_EXIT] = g_signal_new ("idle-exit", G_TYPE_FROM_CLASS (klass),
                                            G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                            G_TYPE_NONE, 0);
}

static void
hpd_daemon_init (HpdDaemon *self)
{
  self->idle = hpd_idle_new ();
  self->mount_table = -1;
  hpd_zone_count_init (&self->zones);
  self->refresh_interval_ms = HPD_DEFAULT_REFRESH_INTERVAL_MS;
}

HpdDaemon *
hpd_daemon_new (const char *kernel_root, GError **error)
{
  g_autoptr(HpdDaemon) self = g_object_new (HPD_TYPE_DAEMON, NULL);

  self->kernel = hpd_kernel_new (kernel_root);
  self->config = hpd_config_cache_new (hpd_kernel_get_root (self->kernel),
                                       HPD_CONFIG_SETTLE_US);
  self->claims = hpd_claims_cache_new (hpd_kernel_get_root (self->kernel),
                                       HPD_CONFIG_SETTLE_US);
  self->requested = hpd_requested_new (hpd_kernel_get_root (self->kernel));
  self->last_alloc = hpd_last_alloc_new (hpd_kernel_get_root (self->kernel));
  self->auth = hpd_auth_new ();
  self->queue = hpd_queue_new (MAX_PENDING_CHANGES, MAX_PENDING_CHANGES_PER_UID,
                               ROOT_RESERVED_CHANGES);
  self->scans = hpd_slots_new ("scans of the processes' mappings running", MAX_RUNNING_SCANS,
                               MAX_RUNNING_SCANS_PER_UID, ROOT_RESERVED_SCANS);
  self->nodes = hpd_nodes_probe (self->kernel);
  self->pools = hpd_pools_probe (self->kernel, self->nodes, error);
  if (self->pools == NULL)
    return NULL;
  /* once: neither our mount namespace nor PID 1's changes while we run */
  self->mount_ns = hpd_mount_ns_check (self->kernel, &self->mount_ns_detail);

  if (self->pools->len == 0)
    g_warning ("The kernel under %s offers no huge pages", kernel_root);
  for (guint i = 0; i < self->pools->len; i++)
    {
      HpdPool *pool = g_ptr_array_index (self->pools, i);
      g_debug ("Pool %s: %s%s%s, %u node(s), demotes to %" G_GUINT64_FORMAT " bytes",
               pool->name, pool->is_default ? "default, " : "",
               pool->gigantic ? "gigantic" : "buddy-allocated",
               pool->can_overcommit ? ", overcommit" : ", no overcommit",
               pool->nodes->len, pool->demote_size);
    }

  return g_steal_pointer (&self);
}

static void
name_acquired (HpdBusName *bus_name, gpointer user_data)
{
  HpdDaemon *self = user_data;

  g_message ("Acquired the name %s", HP_BUS_NAME);
  hpd_idle_start (self->idle, bus_name);
}

static void
name_lost (HpdBusName *bus_name, gboolean had_it, const char *why, gpointer user_data)
{
  HpdDaemon *self = user_data;
  g_autofree char *reason = NULL;

  if (had_it)
    {
      g_signal_emit (self, signals[SIGNAL_LOST], 0, "Another instance replaced this one", FALSE);
      return;
    }
  reason = g_strdup_printf ("Could not own the bus name (%s)", why);
  g_signal_emit (self, signals[SIGNAL_LOST], 0, reason, TRUE);
}

static void
idle_exit (HpdIdle *idle, gpointer user_data)
{
  HpdDaemon *self = user_data;

  g_signal_emit (self, signals[SIGNAL_IDLE_EXIT], 0);
}

void
hpd_daemon_set_idle_timeout (HpdDaemon *self, double seconds)
{
  g_return_if_fail (self->connection == NULL);
  self->idle_timeout = seconds;
}

void
hpd_daemon_set_refresh_interval (HpdDaemon *self, guint milliseconds)
{
  g_return_if_fail (self->connection == NULL);
  self->refresh_interval_ms = milliseconds;
}

/* The same refresh as a read, for every object. The generated skeletons
 * note each value that changed (whoever changed it) and send one
 * PropertiesChanged per object from an idle source right after, so no
 * flush is needed. */
static gboolean
refresh_watched (gpointer user_data)
{
  HpdDaemon *self = user_data;

  hpd_fresh_refresh (G_DBUS_INTERFACE_SKELETON (self->manager));
  for (guint i = 0; i < self->page_sizes->len; i++)
    hpd_fresh_refresh (g_ptr_array_index (self->page_sizes, i));
  return G_SOURCE_CONTINUE;
}

static void
watched_changed (gboolean watched, gpointer user_data)
{
  HpdDaemon *self = user_data;

  hpd_idle_set_watched (self->idle, watched);
  if (!watched)
    {
      g_debug ("Nobody watches any more: the periodic refresh stops");
      g_clear_handle_id (&self->refresh_id, g_source_remove);
      /* release_caches() then closes the kernel files, unless calls or a
       * watcher came back meanwhile: a script's next one-shot client
       * finds them open */
      if (self->memory != NULL)
        hpd_memory_check_later (self->memory);
      return;
    }
  g_debug ("Watched: refreshing the properties every %u ms", self->refresh_interval_ms);
  if (self->refresh_id == 0)
    self->refresh_id = g_timeout_add_full (G_PRIORITY_DEFAULT, self->refresh_interval_ms,
                                           refresh_watched, self, NULL);
}

/* When the calls have stopped: the read snapshots are made again by the
 * next read, and on a machine of many nodes they hold hundreds of
 * kilobytes (each reply body, and every kernel file's path and text that
 * it is checked against). The kernel files kept open, each holding a
 * page of kernel memory, are closed too unless a watcher's refresh reads
 * them every second (the last watcher's leaving runs the check again). */
static void
release_caches (gpointer user_data)
{
  HpdDaemon *self = user_data;

  hpd_read_snapshot_drop (self->read_snapshot);
  if (self->refresh_id == 0)
    hpd_kernel_close_kept_files (self->kernel);
}

/* Everything that lives on one bus connection, and nothing else: the
 * claims, the requested values, the watchers, the queue and the caches
 * belong to the daemon and outlive it. Called at start-up and after each
 * reconnect, so both export the same. */
static gboolean
attach (HpdDaemon *self, GDBusConnection *connection, gboolean replace, GError **error)
{
  self->connection = g_object_ref (connection);
  /* A connection of our own (not g_bus_get()'s shared one), so GLib does
   * not raise SIGTERM when it closes: connection_closed() decides. */
  g_dbus_connection_set_exit_on_close (connection, FALSE);
  self->closed_id = g_signal_connect (connection, "closed",
                                      G_CALLBACK (connection_closed), self);

  g_dbus_object_manager_server_set_connection (self->object_manager, connection);
  if (!g_dbus_interface_skeleton_export (G_DBUS_INTERFACE_SKELETON (self->manager),
                                         connection, HP_MANAGER_PATH, error))
    return FALSE;

  /* watching the calls starts before the name is ours: the ones the bus
   * queued while it started us come right behind the RequestName reply */
  self->traffic = hpd_traffic_watch (connection);
  hpd_read_snapshot_attach (self->read_snapshot, connection);
  self->memory = hpd_memory_watch (self->traffic, release_caches, self);
  if (self->refresh_interval_ms > 0 && self->watchers == NULL)
    self->watchers = hpd_watchers_new (connection, self->traffic, watched_changed, self);
  else if (self->watchers != NULL)
    hpd_watchers_resume (self->watchers, connection, self->traffic);

  hpd_idle_watch (self->idle, self->traffic, connection, self->idle_timeout);

  self->bus_name = hpd_bus_name_own (connection, HP_BUS_NAME, replace);
  g_signal_connect (self->bus_name, "acquired", G_CALLBACK (name_acquired), self);
  g_signal_connect (self->bus_name, "lost", G_CALLBACK (name_lost), self);
  return TRUE;
}

/* Undoes attach(); the calls still in flight on the old connection keep
 * it alive until they are done, and their replies go nowhere. */
static void
detach (HpdDaemon *self)
{
  if (self->bus_name != NULL)
    g_signal_handlers_disconnect_by_data (self->bus_name, self);
  g_clear_object (&self->bus_name);
  hpd_idle_unwatch (self->idle);
  if (self->watchers != NULL)
    hpd_watchers_suspend (self->watchers);
  g_clear_pointer (&self->memory, hpd_memory_free);
  if (self->read_snapshot != NULL)
    hpd_read_snapshot_detach (self->read_snapshot);
  g_clear_object (&self->traffic);
  if (self->manager != NULL &&
      g_dbus_interface_skeleton_get_connection (G_DBUS_INTERFACE_SKELETON (self->manager)) != NULL)
    g_dbus_interface_skeleton_unexport (G_DBUS_INTERFACE_SKELETON (self->manager));
  if (self->object_manager != NULL)
    g_dbus_object_manager_server_set_connection (self->object_manager, NULL);
  if (self->connection != NULL && self->closed_id != 0)
    g_signal_handler_disconnect (self->connection, self->closed_id);
  self->closed_id = 0;
  g_clear_object (&self->connection);
}

static void
log_reconnect (HpdDaemon *self, const char *why)
{
  gint64 now = g_get_monotonic_time ();

  if (self->reconnect_logged != 0 && now - self->reconnect_logged < RECONNECT_LOG_INTERVAL_US)
    {
      self->reconnects_unlogged++;
      return;
    }
  if (self->reconnects_unlogged > 0)
    g_warning ("The bus connection closed although the bus is still there (%s), "
               "and %u more time(s) since the last message: reconnected "
               "(GLib cannot decode some valid messages, and closes the connection)",
               why, self->reconnects_unlogged);
  else
    g_warning ("The bus connection closed although the bus is still there (%s): reconnected "
               "(GLib cannot decode some valid messages, and closes the connection)", why);
  self->reconnect_logged = now;
  self->reconnects_unlogged = 0;
}

typedef struct {
  HpdDaemon *daemon;
  char *why;
} Reconnect;

static void
reconnect_free (Reconnect *reconnect)
{
  g_object_unref (reconnect->daemon);
  g_free (reconnect->why);
  g_free (reconnect);
}

static void reconnected (GObject *source, GAsyncResult *result, gpointer user_data);

static void
connect_again (HpdDaemon *self, Reconnect *reconnect)
{
  self->reconnecting = g_cancellable_new ();
  g_dbus_connection_new_for_address (self->bus_address, HPD_BUS_CONNECTION_FLAGS,
                                     NULL, self->reconnecting, reconnected, reconnect);
}

static void
reconnected (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Reconnect *reconnect = user_data;
  HpdDaemon *self = reconnect->daemon;
  g_autoptr(GError) error = NULL;
  g_autoptr(GDBusConnection) connection = g_dbus_connection_new_for_address_finish (result, &error);
  g_autofree char *reason = NULL;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      reconnect_free (reconnect);
      return;
    }
  g_clear_object (&self->reconnecting);
  if (connection == NULL)
    {
      /* the bus itself is gone: as before, a failure for the service
       * manager to see */
      reason = g_strdup_printf ("The bus connection closed (%s), and the bus is gone (%s)",
                                reconnect->why, error->message);
      reconnect_free (reconnect);
      g_signal_emit (self, signals[SIGNAL_LOST], 0, reason, TRUE);
      return;
    }

  /* Closed already: a message it could not decode came right behind its
   * Hello (the unique names the bus hands out can be guessed). Its
   * "closed" may have been emitted before anybody listened, and GLib 2.74
   * logs a critical for each subscription on it: it is never attached, and
   * the next one is asked for. */
  if (g_dbus_connection_is_closed (connection))
    {
      g_debug ("The new bus connection closed before it was used: connecting again");
      connect_again (self, reconnect);
      return;
    }

  /* The bus may not have seen our old connection go yet, and would then
   * refuse the name to a newcomer that does not replace: the old owner
   * allowed replacement and was us. */
  if (!attach (self, connection, TRUE, &error))
    {
      reconnect_free (reconnect);
      g_signal_emit (self, signals[SIGNAL_LOST], 0, error->message, TRUE);
      return;
    }
  log_reconnect (self, reconnect->why);
  g_debug ("Reconnected to the bus in %.1f ms",
           (g_get_monotonic_time () - self->reconnect_started) / 1000.0);
  reconnect_free (reconnect);
}

/* GDBus closes a connection when it cannot decode an incoming message,
 * which any local user can send us (a unicast signal passes every bus
 * policy). So a close is a loss of the bus only when a new connection to
 * the same address fails; otherwise the objects go to the new connection,
 * which asks for the name again, and the service never exits (under
 * systemd repeated exits would trip the unit's start limit). */
static void
connection_closed (GDBusConnection *connection, gboolean remote_peer_vanished,
                   GError *error, gpointer user_data)
{
  HpdDaemon *self = user_data;
  Reconnect *reconnect;

  /* giving the name back for an idle exit: nothing left to reconnect */
  if (hpd_daemon_is_exiting_idle (self))
    {
      g_signal_emit (self, signals[SIGNAL_LOST], 0, "The bus connection closed", TRUE);
      return;
    }

  reconnect = g_new0 (Reconnect, 1);
  reconnect->daemon = g_object_ref (self);
  reconnect->why = g_strdup (error != NULL ? error->message : "no reason given");
  detach (self);
  self->reconnect_started = g_get_monotonic_time ();
  connect_again (self, reconnect);
}

static gboolean
mount_table_changed (int fd, GIOCondition condition, gpointer user_data)
{
  hpd_daemon_refresh_mounts (user_data);
  return G_SOURCE_CONTINUE;
}

/* Mounts and unmounts, the service's and everybody else's, refresh the
 * mounts at once. The kernel counts every change of the mount table and
 * poll() on an open mountinfo reports POLLPRI once per file after each
 * (as hpd-kernel.c uses it), so the main loop polls it with the rest.
 * GUnixMountMonitor does the same from GLib's worker thread, but getting
 * it also loads GIO's extension points and watches /etc for fstab, which
 * cost the start some 500 kB of mapped pages. Without the file the mounts
 * are still read afresh at every use; only the signal is lost. */
static void
watch_mount_table (HpdDaemon *self)
{
  self->mount_table = open ("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
  if (self->mount_table < 0)
    {
      g_warning ("Cannot watch the mount table: %s", g_strerror (errno));
      return;
    }
  self->mount_table_watch = g_unix_fd_add (self->mount_table, G_IO_PRI | G_IO_ERR,
                                           mount_table_changed, self);
}

void
hpd_daemon_start (HpdDaemon *self, const char *bus_address, GDBusConnection *connection,
                  gboolean replace)
{
  g_autoptr(GError) error = NULL;

  g_return_if_fail (self->connection == NULL);
  self->bus_address = g_strdup (bus_address);

  hpd_persist_remove_stale (hpd_kernel_get_root (self->kernel));

  self->object_manager = g_dbus_object_manager_server_new (HP_MANAGER_PATH);
  self->page_sizes = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < self->pools->len; i++)
    {
      HpdPool *pool = g_ptr_array_index (self->pools, i);
      g_autofree char *path = g_strdup_printf (HP_PAGE_SIZE_PATH_PREFIX "%" G_GUINT64_FORMAT "kB",
                                               pool->size / 1024);
      g_autoptr(HpDBusObjectSkeleton) object = hp_dbus_object_skeleton_new (path);
      g_autoptr(HpdPageSize) page_size = hpd_page_size_new (self, pool);

      hpd_methods_serve (G_DBUS_INTERFACE_SKELETON (page_size), self);
      hp_dbus_object_skeleton_set_manager_page_size (object, HP_DBUS_MANAGER_PAGE_SIZE (page_size));
      g_ptr_array_add (self->page_sizes, g_object_ref (page_size));
      g_dbus_object_manager_server_export (self->object_manager, G_DBUS_OBJECT_SKELETON (object));
    }
  self->manager = hpd_manager_new (self);
  self->read_snapshot = hpd_read_snapshot_new (self->object_manager,
                                               G_DBUS_INTERFACE_SKELETON (self->manager), self);
  hpd_methods_serve (G_DBUS_INTERFACE_SKELETON (self->manager), self);

  watch_mount_table (self);
  g_signal_connect (self->idle, "exit", G_CALLBACK (idle_exit), self);

  if (!attach (self, connection, replace, &error))
    g_signal_emit (self, signals[SIGNAL_LOST], 0, error->message, TRUE);
}

void
hpd_daemon_stop (HpdDaemon *self)
{
  hpd_queue_cancel_all (self->queue);
}

void
hpd_daemon_finish (HpdDaemon *self)
{
  /* Calls still waiting for polkit or the queue hold references to us, so
   * the last unref in main() need not dispose of anything: wait for the
   * worker here, or exit() would cut a running change short. */
  hpd_queue_shutdown (self->queue);
}

void
hpd_daemon_allow_private_mount_namespace (HpdDaemon *self, gboolean allowed)
{
  self->private_mount_ns_allowed = allowed;
}

HpdMountNs
hpd_daemon_get_mount_namespace (HpdDaemon *self, const char **detail)
{
  if (detail != NULL)
    *detail = self->mount_ns_detail;
  return self->mount_ns;
}

const char *
hpd_daemon_get_mount_refusal (HpdDaemon *self)
{
  if (self->mount_ns == HPD_MOUNT_NS_SHARED || self->private_mount_ns_allowed)
    return NULL;
  if (self->mount_ns == HPD_MOUNT_NS_PRIVATE)
    return "hugepagesd runs in a private mount namespace (a unit with ProtectSystem=, "
           "PrivateTmp=, ReadWritePaths=...?): its mounts would be invisible to the rest "
           "of the system";
  return "hugepagesd cannot tell whether it runs in the mount namespace of PID 1: its "
         "mounts could be invisible to the rest of the system";
}

gboolean
hpd_daemon_check_mounts_visible (HpdDaemon *self, GError **error)
{
  const char *refusal = hpd_daemon_get_mount_refusal (self);

  if (refusal == NULL)
    return TRUE;
  g_set_error (error, HP_ERROR, HP_ERROR_NOT_SUPPORTED, "%s (%s)", refusal,
               self->mount_ns_detail);
  return FALSE;
}

HpdKernel *
hpd_daemon_get_kernel (HpdDaemon *self)
{
  return self->kernel;
}

const HpdConfig *
hpd_daemon_get_config (HpdDaemon *self, guint64 *generation)
{
  return hpd_config_cache_get (self->config, generation);
}

HpdZoneCount *
hpd_daemon_get_zone_count (HpdDaemon *self)
{
  return &self->zones;
}

HpdConfigCache *
hpd_daemon_get_config_cache (HpdDaemon *self)
{
  return self->config;
}

HpdClaimsCache *
hpd_daemon_get_claims_cache (HpdDaemon *self)
{
  return self->claims;
}

HpdReadSnapshot *
hpd_daemon_get_read_snapshot (HpdDaemon *self)
{
  return self->read_snapshot;
}

GPtrArray *
hpd_daemon_get_claims (HpdDaemon *self)
{
  return hpd_claims_cache_get (self->claims);
}

HpdAuth *
hpd_daemon_get_auth (HpdDaemon *self)
{
  return self->auth;
}

HpdQueue *
hpd_daemon_get_queue (HpdDaemon *self)
{
  return self->queue;
}

HpdLastAlloc *
hpd_daemon_get_last_alloc (HpdDaemon *self)
{
  return self->last_alloc;
}

HpdSlots *
hpd_daemon_get_scans (HpdDaemon *self)
{
  return self->scans;
}

HpdIdle *
hpd_daemon_get_idle (HpdDaemon *self)
{
  return self->idle;
}

gboolean
hpd_daemon_is_exiting_idle (HpdDaemon *self)
{
  return hpd_idle_is_exiting (self->idle);
}

GPtrArray *
hpd_daemon_get_pools (HpdDaemon *self)
{
  return self->pools;
}

GArray *
hpd_daemon_get_nodes (HpdDaemon *self)
{
  return self->nodes;
}

guint64
hpd_daemon_get_default_page_size (HpdDaemon *self)
{
  for (guint i = 0; i < self->pools->len; i++)
    {
      const HpdPool *pool = g_ptr_array_index (self->pools, i);
      if (pool->is_default)
        return pool->size;
    }
  return 0;
}

void
hpd_daemon_refresh_mounts (HpdDaemon *self)
{
  if (self->manager != NULL)
    hpd_manager_refresh_mounts (self->manager);
  for (guint i = 0; self->page_sizes != NULL && i < self->page_sizes->len; i++)
    hpd_page_size_refresh_mounts (g_ptr_array_index (self->page_sizes, i));
}

void
hpd_daemon_refresh_pools (HpdDaemon *self)
{
  for (guint i = 0; self->page_sizes != NULL && i < self->page_sizes->len; i++)
    hpd_page_size_refresh_now (g_ptr_array_index (self->page_sizes, i));
  if (self->manager != NULL)
    hpd_manager_refresh_claims (self->manager);
}

void
hpd_daemon_note_allocation (HpdDaemon *self, const HpdPool *pool, const HpdAllocReport *report)
{
  for (guint i = 0; self->page_sizes != NULL && i < self->page_sizes->len; i++)
    {
      HpdPageSize *page_size = g_ptr_array_index (self->page_sizes, i);

      if (hp_dbus_manager_page_size_get_size (HP_DBUS_MANAGER_PAGE_SIZE (page_size)) == pool->size)
        hpd_page_size_set_last_allocation (page_size, report);
    }
}

void
hpd_daemon_refresh_tunables (HpdDaemon *self)
{
  if (self->manager != NULL)
    hpd_manager_refresh_tunables (self->manager);
}

void
hpd_daemon_note_requested (HpdDaemon *self, const HpdPool *pool, guint64 pages)
{
  hpd_requested_note (self->requested, pool->name, pages);
  /* from any thread: Base and Target change with it */
  hpd_read_snapshot_drop (self->read_snapshot);
}

gboolean
hpd_daemon_lookup_requested (HpdDaemon *self, const HpdPool *pool, guint64 *pages)
{
  return hpd_requested_lookup (self->requested, pool->name, pages);
}

guint64
hpd_daemon_get_pool_memory_limit (HpdDaemon *self)
{
  g_autofree char *meminfo = NULL;
  guint64 kb = 0;

  if (!hpd_kernel_read_text_part (self->kernel, "proc/meminfo", hpd_parse_meminfo_sizes, &meminfo,
                                  NULL) ||
      !hpd_parse_meminfo (meminfo, "MemTotal", &kb))
    return 0;
  /* kb * 1024 * 9 / 10 without overflow for any real machine */
  return kb / 10 * 9 * 1024 + (kb % 10) * 9 * 1024 / 10;
}
