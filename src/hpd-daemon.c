/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <gio/gunixmounts.h>

#include "hp-error.h"
#include "hp-names.h"
#include "hp-units.h"
#include "hpd-bus-name.h"
#include "hpd-config-cache.h"
#include "hpd-daemon.h"
#include "hpd-fresh.h"
#include "hpd-idle.h"
#include "hpd-manager.h"
#include "hpd-memory.h"
#include "hpd-namespace.h"
#include "hpd-page-size.h"
#include "hpd-parse.h"
#include "hpd-persist.h"
#include "hpd-requested.h"
#include "hpd-watchers.h"

/* Changes waiting for the kernel beyond this are refused with Busy. */
#define MAX_PENDING_CHANGES 64

struct _HpdDaemon
{
  GObject parent_instance;

  HpdKernel *kernel;
  HpdConfigCache *config;
  HpdAuth *auth;
  HpdQueue *queue;
  GPtrArray *pools;           /* HpdPool, ascending size */
  GArray *nodes;              /* guint */

  GDBusConnection *connection;
  GDBusObjectManagerServer *object_manager;
  HpdManager *manager;
  GPtrArray *page_sizes;      /* HpdPageSize */
  GUnixMountMonitor *mount_monitor;
  HpdBusName *bus_name;
  HpdIdle *idle;
  double idle_timeout;
  gulong closed_id;
  HpdTraffic *traffic;
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
  G_OBJECT_CLASS (hpd_daemon_parent_class)->finalize (object);
}

static void
hpd_daemon_dispose (GObject *object)
{
  HpdDaemon *self = HPD_DAEMON (object);

  g_clear_pointer (&self->memory, hpd_memory_free);
  g_clear_pointer (&self->watchers, hpd_watchers_free);
  g_clear_object (&self->traffic);
  g_clear_handle_id (&self->refresh_id, g_source_remove);
  if (self->bus_name != NULL)
    g_signal_handlers_disconnect_by_data (self->bus_name, self);
  g_clear_object (&self->bus_name);
  if (self->idle != NULL)
    g_signal_handlers_disconnect_by_data (self->idle, self);
  if (self->mount_monitor != NULL)
    g_signal_handlers_disconnect_by_data (self->mount_monitor, self);
  g_clear_object (&self->mount_monitor);
  g_clear_pointer (&self->page_sizes, g_ptr_array_unref);
  if (self->manager != NULL)
    g_dbus_interface_skeleton_unexport (G_DBUS_INTERFACE_SKELETON (self->manager));
  g_clear_object (&self->manager);
  g_clear_object (&self->object_manager);
  if (self->connection != NULL && self->closed_id != 0)
    g_signal_handler_disconnect (self->connection, self->closed_id);
  self->closed_id = 0;
  g_clear_object (&self->connection);
  /* the queue waits for a running job, which uses the pools */
  g_clear_object (&self->queue);
  g_clear_pointer (&self->pools, g_ptr_array_unref);
  g_clear_pointer (&self->nodes, g_array_unref);
  g_clear_object (&self->auth);
  g_clear_object (&self->kernel);
  g_clear_pointer (&self->config, hpd_config_cache_free);
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
  self->refresh_interval_ms = HPD_DEFAULT_REFRESH_INTERVAL_MS;
}

HpdDaemon *
hpd_daemon_new (const char *kernel_root, GError **error)
{
  g_autoptr(HpdDaemon) self = g_object_new (HPD_TYPE_DAEMON, NULL);

  self->kernel = hpd_kernel_new (kernel_root);
  self->config = hpd_config_cache_new (hpd_kernel_get_root (self->kernel),
                                       HPD_CONFIG_SETTLE_US);
  self->auth = hpd_auth_new ();
  self->queue = hpd_queue_new (MAX_PENDING_CHANGES);
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

static void
connection_closed (GDBusConnection *connection, gboolean remote_peer_vanished,
                   GError *error, gpointer user_data)
{
  HpdDaemon *self = user_data;

  g_signal_emit (self, signals[SIGNAL_LOST], 0, "The bus connection closed", TRUE);
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
      return;
    }
  g_debug ("Watched: refreshing the properties every %u ms", self->refresh_interval_ms);
  if (self->refresh_id == 0)
    self->refresh_id = g_timeout_add_full (G_PRIORITY_DEFAULT, self->refresh_interval_ms,
                                           refresh_watched, self, NULL);
}

void
hpd_daemon_start (HpdDaemon *self, GDBusConnection *connection, gboolean replace)
{
  g_autoptr(GError) error = NULL;

  g_return_if_fail (self->connection == NULL);
  self->connection = g_object_ref (connection);

  hpd_persist_remove_stale (hpd_kernel_get_root (self->kernel));

  /* GLib raises SIGTERM when a bus connection closes; our SIGTERM handler
   * means a clean exit, but losing the bus is a failure. */
  g_dbus_connection_set_exit_on_close (connection, FALSE);
  self->closed_id = g_signal_connect (connection, "closed",
                                      G_CALLBACK (connection_closed), self);

  self->object_manager = g_dbus_object_manager_server_new (HP_MANAGER_PATH);
  self->page_sizes = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < self->pools->len; i++)
    {
      HpdPool *pool = g_ptr_array_index (self->pools, i);
      g_autofree char *path = g_strdup_printf (HP_PAGE_SIZE_PATH_PREFIX "%" G_GUINT64_FORMAT "kB",
                                               pool->size / 1024);
      g_autoptr(HpDBusObjectSkeleton) object = hp_dbus_object_skeleton_new (path);
      g_autoptr(HpdPageSize) page_size = hpd_page_size_new (self, pool);

      hp_dbus_object_skeleton_set_manager_page_size (object, HP_DBUS_MANAGER_PAGE_SIZE (page_size));
      g_ptr_array_add (self->page_sizes, g_object_ref (page_size));
      g_dbus_object_manager_server_export (self->object_manager, G_DBUS_OBJECT_SKELETON (object));
    }
  g_dbus_object_manager_server_set_connection (self->object_manager, connection);

  self->manager = hpd_manager_new (self);
  if (!g_dbus_interface_skeleton_export (G_DBUS_INTERFACE_SKELETON (self->manager),
                                         connection, HP_MANAGER_PATH, &error))
    {
      g_signal_emit (self, signals[SIGNAL_LOST], 0, error->message, TRUE);
      return;
    }

  /* watching the calls starts before the name is ours: the ones the bus
   * queued while it started us come right behind the RequestName reply */
  self->traffic = hpd_traffic_watch (connection);
  self->memory = hpd_memory_watch (self->traffic);
  if (self->refresh_interval_ms > 0)
    self->watchers = hpd_watchers_new (connection, self->traffic, watched_changed, self);

  /* the kernel tells about mount changes; our own and everybody else's */
  self->mount_monitor = g_unix_mount_monitor_get ();
  g_signal_connect_swapped (self->mount_monitor, "mounts-changed",
                            G_CALLBACK (hpd_daemon_refresh_mounts), self);

  hpd_idle_watch (self->idle, self->traffic, connection, self->idle_timeout);
  g_signal_connect (self->idle, "exit", G_CALLBACK (idle_exit), self);

  self->bus_name = hpd_bus_name_own (connection, HP_BUS_NAME, replace);
  g_signal_connect (self->bus_name, "acquired", G_CALLBACK (name_acquired), self);
  g_signal_connect (self->bus_name, "lost", G_CALLBACK (name_lost), self);
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
hpd_daemon_refresh_tunables (HpdDaemon *self)
{
  if (self->manager != NULL)
    hpd_manager_refresh_tunables (self->manager);
}

void
hpd_daemon_note_requested (HpdDaemon *self, const HpdPool *pool, guint64 pages)
{
  hpd_requested_note (hpd_kernel_get_root (self->kernel), pool->name, pages);
}

guint64
hpd_daemon_get_requested (HpdDaemon *self, const HpdPool *pool)
{
  return hpd_requested_get (hpd_kernel_get_root (self->kernel), pool->name);
}

guint64
hpd_daemon_get_pool_memory_limit (HpdDaemon *self)
{
  g_autofree char *meminfo = NULL;
  guint64 kb = 0;

  if (!hpd_kernel_read_text (self->kernel, "proc/meminfo", &meminfo, NULL) ||
      !hpd_parse_meminfo (meminfo, "MemTotal", &kb))
    return 0;
  /* kb * 1024 * 9 / 10 without overflow for any real machine */
  return kb / 10 * 9 * 1024 + (kb % 10) * 9 * 1024 / 10;
}

gboolean
hpd_daemon_check_pool_memory (HpdDaemon *self, const HpdPool *pool,
                              guint64 pages, GError **error)
{
  guint64 limit = hpd_daemon_get_pool_memory_limit (self);
  guint64 bytes, others = 0;
  g_autofree char *wanted = NULL;
  g_autofree char *others_text = NULL;
  g_autofree char *limit_text = NULL;

  if (!hp_pages_to_bytes (pages, pool->size, &bytes))
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "%" G_GUINT64_FORMAT " pages of %s do not fit in 64 bits of bytes",
                   pages, pool->name);
      return FALSE;
    }

  for (guint i = 0; i < self->pools->len; i++)
    {
      const HpdPool *other = g_ptr_array_index (self->pools, i);
      g_auto(HpdPoolCounters) c = { 0, };
      guint64 held;

      if (other == pool || !hpd_pool_read (self->kernel, other, &c, NULL))
        continue;
      /* what the other pool holds right now, surplus included */
      if (!hp_pages_to_bytes (c.total, other->size, &held) ||
          held > G_MAXUINT64 - others)
        others = G_MAXUINT64;
      else
        others += held;
    }

  if (bytes <= limit && others <= limit - bytes)
    return TRUE;

  wanted = hp_format_bytes (bytes);
  others_text = hp_format_bytes (others);
  limit_text = hp_format_bytes (limit);
  g_set_error (error, HP_ERROR, HP_ERROR_LIMIT_EXCEEDED,
               "%" G_GUINT64_FORMAT " pages of %s (%s) plus the other pools (%s) "
               "would exceed the limit of %s (90%% of MemTotal)",
               pages, pool->name, wanted, others_text, limit_text);
  return FALSE;
}
