/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hpd-claims.h"
#include "hpd-config-cache.h"
#include "hp-names.h"
#include "hpd-daemon.h"
#include "hpd-path-watch.h"
#include "hpd-read-snapshot.h"
#include "hpd-wakeup.h"

#define OBJECT_MANAGER "org.freedesktop.DBus.ObjectManager"
#define PROPERTIES     "org.freedesktop.DBus.Properties"

/* One kept reply body with everything it was made from. */
typedef struct {
  const char *what;          /* for the log */
  gboolean (*build)(HpdReadSnapshot *self, GVariant **body); /* what the body is */
  HpdReadSnapshot *owner;    /* for @wanted, which it destroys before it goes */
  guint64 made_in;           /* valid while the generation is still this */
  GVariant *body;            /* NULL: none */
  HpdKernelInputs *inputs;
  HpdPathWatch *files;       /* the configuration's and the claims' */
  guint64 answered;
  GSource *wanted;           /* makes one in the main thread */
} Kept;

/* What the filter shares with the main thread; counted apart from the
 * object for the same reason as the traffic's (hpd-traffic.c). */
typedef struct {
  gatomicrefcount ref;
  GMutex lock;
  char *path;                /* the ObjectManager's, and the Manager's */
  guint64 generation;        /* moves with every drop */
  guint held;                /* jobs under way */
  Kept objects;              /* GetManagedObjects: (a{oa{sa{sv}}}) */
  Kept manager;              /* GetAll of org.hugepages.Manager: (a{sv}) */
} Shared;

struct _HpdReadSnapshot
{
  GObject parent_instance;

  GDBusConnection *connection;
  GDBusObjectManagerServer *objects;
  GDBusInterfaceSkeleton *manager;
  HpdDaemon *daemon;         /* owns us */
  guint filter_id;
  Shared *shared;
};

G_DEFINE_TYPE (HpdReadSnapshot, hpd_read_snapshot, G_TYPE_OBJECT)

/* Under the lock. */
static void
clear_kept (Kept *kept)
{
  g_clear_pointer (&kept->body, g_variant_unref);
  g_clear_pointer (&kept->inputs, hpd_kernel_inputs_free);
  g_clear_pointer (&kept->files, hpd_path_watch_free);
}

static void
drop_locked (Shared *shared)
{
  shared->generation++;
  clear_kept (&shared->objects);
  clear_kept (&shared->manager);
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
  clear_kept (&shared->objects);
  clear_kept (&shared->manager);
  g_source_unref (shared->objects.wanted);
  g_source_unref (shared->manager.wanted);
  g_free (shared->path);
  g_mutex_clear (&shared->lock);
  g_free (shared);
}

/* A call that cannot change what the service holds. */
static gboolean
is_read (GDBusMessage *call)
{
  const char *iface = g_dbus_message_get_interface (call);
  const char *member = g_dbus_message_get_member (call);

  if (g_strcmp0 (iface, "org.freedesktop.DBus.Peer") == 0 ||
      g_strcmp0 (iface, "org.freedesktop.DBus.Introspectable") == 0)
    return TRUE;
  if (g_strcmp0 (iface, PROPERTIES) == 0)
    return g_strcmp0 (member, "Get") == 0 || g_strcmp0 (member, "GetAll") == 0;
  return g_strcmp0 (iface, OBJECT_MANAGER) == 0 &&
         g_strcmp0 (member, "GetManagedObjects") == 0;
}

/* The interface a GetAll asks for, if the call is one with exactly its
 * argument. */
static const char *
get_all_of (GDBusMessage *call)
{
  GVariant *body = g_dbus_message_get_body (call);
  const char *asked = NULL;

  if (g_strcmp0 (g_dbus_message_get_interface (call), PROPERTIES) != 0 ||
      g_strcmp0 (g_dbus_message_get_member (call), "GetAll") != 0 ||
      body == NULL || !g_variant_is_of_type (body, G_VARIANT_TYPE ("(s)")))
    return NULL;
  g_variant_get (body, "(&s)", &asked);
  return asked;
}

/* The snapshot for @call, if it is one a snapshot answers: exactly the
 * call, with exactly the arguments; any other (wrong arguments, another
 * path or interface) gets GDBus's own answer. A page size's GetAll is
 * answered from the GetManagedObjects body, which holds its a{sv}:
 * @page_size says so. */
static Kept *
kept_for (Shared *shared, GDBusMessage *call, gboolean *page_size)
{
  const char *path = g_dbus_message_get_path (call);
  const char *asked = get_all_of (call);

  *page_size = FALSE;
  if (path == NULL ||
      (g_dbus_message_get_flags (call) & G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED) != 0)
    return NULL;
  if (g_str_equal (path, shared->path))
    {
      if (g_strcmp0 (g_dbus_message_get_interface (call), OBJECT_MANAGER) == 0 &&
          g_strcmp0 (g_dbus_message_get_member (call), "GetManagedObjects") == 0)
        return g_dbus_message_get_body (call) == NULL ? &shared->objects : NULL;
      return g_strcmp0 (asked, HP_MANAGER_INTERFACE) == 0 ? &shared->manager : NULL;
    }
  *page_size = g_str_has_prefix (path, HP_PAGE_SIZE_PATH_PREFIX) &&
               g_strcmp0 (asked, HP_PAGE_SIZE_INTERFACE) == 0;
  return *page_size ? &shared->objects : NULL;
}

/* Under the lock: what @kept's body answers to @call; NULL for a page
 * size that is not there. */
static GVariant *
reply_body (Kept *kept, GDBusMessage *call, gboolean page_size)
{
  g_autoptr(GVariant) objects = NULL;
  g_autoptr(GVariant) interfaces = NULL;
  g_autoptr(GVariant) properties = NULL;

  if (!page_size)
    return g_variant_ref (kept->body);
  /* a page size's a{sv}, found in a{oa{sa{sv}}} */
  objects = g_variant_get_child_value (kept->body, 0);
  interfaces = g_variant_lookup_value (objects, g_dbus_message_get_path (call),
                                       G_VARIANT_TYPE ("a{sa{sv}}"));
  if (interfaces != NULL)
    properties = g_variant_lookup_value (interfaces, HP_PAGE_SIZE_INTERFACE, G_VARIANT_TYPE_VARDICT);
  if (properties == NULL)
    return NULL;
  return g_variant_ref_sink (g_variant_new_tuple (&properties, 1));
}

/* In GDBus's worker thread: the reply if the snapshot still holds. The
 * checks are a few pread()s and poll()s, under the lock so that the main
 * thread cannot replace what is being checked. */
static GDBusMessage *
answer (Shared *shared, Kept *kept, GDBusMessage *call, gboolean page_size)
{
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&shared->lock);
  g_autoptr(GVariant) body = NULL;
  GDBusMessage *reply;

  if (kept->body == NULL || kept->made_in != shared->generation || shared->held > 0)
    return NULL;
  if (!hpd_kernel_inputs_unchanged (kept->inputs) || !hpd_path_watch_unchanged (kept->files))
    {
      /* for good: the main thread makes the next one */
      clear_kept (kept);
      return NULL;
    }
  body = reply_body (kept, call, page_size);
  /* no such object: GDBus's own error */
  if (body == NULL)
    return NULL;
  reply = g_dbus_message_new_method_reply (call);
  g_dbus_message_set_body (reply, body);
  kept->answered++;
  return reply;
}

static GDBusMessage *
filter (GDBusConnection *connection, GDBusMessage *message, gboolean incoming,
        gpointer user_data)
{
  Shared *shared = user_data;
  g_autoptr(GDBusMessage) reply = NULL;
  gboolean page_size;
  Kept *kept;

  if (!incoming || g_dbus_message_get_message_type (message) != G_DBUS_MESSAGE_TYPE_METHOD_CALL)
    return message;
  if (!is_read (message))
    {
      G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&shared->lock);

      drop_locked (shared);
      return message;
    }
  kept = kept_for (shared, message, &page_size);
  if (kept == NULL)
    return message;
  reply = answer (shared, kept, message, page_size);
  if (reply == NULL)
    {
      /* answered by the main thread, which makes the snapshot first */
      hpd_wakeup_ring (kept->wanted);
      return message;
    }
  /* written by this thread at its next iteration; our filters see it */
  g_dbus_connection_send_message (connection, reply, G_DBUS_SEND_MESSAGE_FLAGS_NONE, NULL, NULL);
  g_object_unref (message);
  return NULL;
}

static void
free_paths (GArray *paths)
{
  if (paths != NULL)
    g_array_unref (paths);
}

/* A watch of every path the caches' contents came from, made after they
 * read them; their states from before the reads, compared once the watch
 * runs, tell of a change in between. NULL with @why when that cannot be
 * (or the states differ). */
static HpdPathWatch *
watch_files (GArray *config_paths, GArray *claims_paths, char **why)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HpdPathWatch) files = hpd_path_watch_new (&error);
  GArray *lists[] = { config_paths, claims_paths };

  for (guint l = 0; files != NULL && l < G_N_ELEMENTS (lists); l++)
    for (guint i = 0; i < lists[l]->len; i++)
      if (!hpd_path_watch_add (files, g_array_index (lists[l], HpdStatPath, i).path,
                               HPD_PATH_WATCH_NONE, &error))
        {
          g_clear_pointer (&files, hpd_path_watch_free);
          break;
        }
  if (files == NULL)
    *why = g_strdup_printf ("cannot watch the configuration and the claims: %s", error->message);
  else if (!hpd_stat_paths_unchanged (config_paths) || !hpd_stat_paths_unchanged (claims_paths))
    {
      *why = g_strdup ("the configuration or the claims changed");
      g_clear_pointer (&files, hpd_path_watch_free);
    }
  return g_steal_pointer (&files);
}

/* The body as the ObjectManager makes it (each object in the order of its
 * table, whose listing is made by prepending, each property set by
 * fresh_get_properties); FALSE when that order cannot be known. */
static gboolean
build_objects (HpdReadSnapshot *self, GVariant **body)
{
  g_autolist(GDBusObject) objects = g_list_reverse (g_dbus_object_manager_get_objects (G_DBUS_OBJECT_MANAGER (self->objects)));
  GVariantBuilder builder;
  gboolean complete = TRUE;

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a{oa{sa{sv}}}"));
  for (GList *l = objects; l != NULL; l = l->next)
    {
      g_autolist(GDBusInterface) ifaces = g_dbus_object_get_interfaces (l->data);
      GDBusInterfaceSkeleton *skeleton;
      g_autoptr(GVariant) properties = NULL;
      GVariantBuilder one;

      /* the order of several interfaces is that of a table we cannot see */
      if (ifaces == NULL || ifaces->next != NULL)
        {
          complete = FALSE;
          continue;
        }
      /* refreshed now whatever ran this turn: the turn's marks are not
       * found while recording (hpd-kernel.h) */
      skeleton = G_DBUS_INTERFACE_SKELETON (ifaces->data);
      properties = g_dbus_interface_skeleton_get_properties (skeleton);
      g_variant_builder_init (&one, G_VARIANT_TYPE ("a{sa{sv}}"));
      g_variant_builder_add_value (&one,
                                   g_variant_new_dict_entry (g_variant_new_string (g_dbus_interface_skeleton_get_info (skeleton)->name),
                                                             properties));
      g_variant_builder_add_value (&builder,
                                   g_variant_new_dict_entry (g_variant_new_object_path (g_dbus_object_get_object_path (l->data)),
                                                             g_variant_builder_end (&one)));
    }
  *body = g_variant_new_tuple ((GVariant *[]) { g_variant_builder_end (&builder) }, 1);
  return complete;
}

/* GDBus's GetAll asks for each readable property in the order of the
 * introspection data, as fresh_get_properties makes the a{sv}. */
static gboolean
build_manager (HpdReadSnapshot *self, GVariant **body)
{
  g_autoptr(GVariant) properties = g_dbus_interface_skeleton_get_properties (self->manager);

  *body = g_variant_new_tuple (&properties, 1);
  return TRUE;
}

/* Main thread: @kept's body, refreshed now with every read recorded. */
static void
make (Kept *kept)
{
  HpdReadSnapshot *self = kept->owner;
  Shared *shared = self->shared;
  HpdKernel *kernel = hpd_daemon_get_kernel (self->daemon);
  HpdConfigCache *config = hpd_daemon_get_config_cache (self->daemon);
  HpdClaimsCache *claims = hpd_daemon_get_claims_cache (self->daemon);
  g_autoptr(HpdKernelInputs) inputs = NULL;
  g_autoptr(HpdPathWatch) files = NULL;
  g_autoptr(GVariant) body = NULL;
  GArray *config_paths = NULL, *claims_paths = NULL;
  guint64 generation, config_loads, claims_loads;
  guint watched = 0, left = 0;
  g_autofree char *why = NULL;
  gboolean complete;

  g_mutex_lock (&shared->lock);
  generation = shared->generation;
  complete = shared->held == 0 && !(kept->body != NULL && kept->made_in == generation);
  g_mutex_unlock (&shared->lock);
  if (!complete)
    return;

  /* the caches checked first: a load during the making would mean values
   * made from two versions of the files */
  (void) hpd_config_cache_get (config, NULL);
  g_ptr_array_unref (hpd_claims_cache_get (claims));
  config_loads = hpd_config_cache_get_loads (config);
  claims_loads = hpd_claims_cache_get_loads (claims);

  hpd_kernel_record_begin (kernel);
  complete = kept->build (self, &body);
  g_variant_ref_sink (body);
  inputs = hpd_kernel_record_end (kernel);
  if (!complete)
    why = g_strdup ("an object of several interfaces");
  else if (inputs == NULL)
    why = g_strdup ("a kernel file failed or was written, or a value came from the user and group databases");
  else if (config_loads != hpd_config_cache_get_loads (config) ||
           claims_loads != hpd_claims_cache_get_loads (claims))
    why = g_strdup ("the configuration or the claims changed");
  /* a time as recent as the read may be shared by a later change */
  else if (!hpd_kernel_inputs_settled (inputs, HPD_CONFIG_SETTLE_US))
    why = g_strdup ("a file it was made from changed too recently");
  else
    {
      config_paths = hpd_config_cache_dup_paths (config);
      claims_paths = hpd_claims_cache_dup_paths (claims);
      if (config_paths == NULL || claims_paths == NULL)
        why = g_strdup ("the configuration or the claims changed too recently");
      else
        files = watch_files (config_paths, claims_paths, &why);
      /* the boot hook's, the GRUB drop-in's and the mounts' paths in the
       * same watch where it can take them: one poll() instead of a stat()
       * of each at every call */
      if (files != NULL)
        hpd_kernel_inputs_watch_paths (inputs, files, &watched, &left);
    }
  free_paths (config_paths);
  free_paths (claims_paths);
  if (why != NULL)
    {
      g_debug ("No %s snapshot: %s", kept->what, why);
      return;
    }
  /* serialised once, here, not by each reply in the worker */
  (void) g_variant_get_data (body);

  g_mutex_lock (&shared->lock);
  if (shared->generation == generation && shared->held == 0)
    {
      clear_kept (kept);
      kept->made_in = generation;
      kept->body = g_steal_pointer (&body);
      g_debug ("%s snapshot made (%u kernel inputs; %" G_GUINT64_FORMAT
               " calls answered from snapshots so far; %u paths watched, %u left to stat)",
               kept->what, hpd_kernel_inputs_count (inputs) + watched, kept->answered, watched, left);
      kept->inputs = g_steal_pointer (&inputs);
      kept->files = g_steal_pointer (&files);
    }
  g_mutex_unlock (&shared->lock);
}

static gboolean
make_wanted (gpointer user_data)
{
  make (user_data);
  return G_SOURCE_CONTINUE;
}

static void
hpd_read_snapshot_dispose (GObject *object)
{
  HpdReadSnapshot *self = HPD_READ_SNAPSHOT (object);

  hpd_read_snapshot_detach (self);
  if (self->shared != NULL)
    {
      g_source_destroy (self->shared->objects.wanted);
      g_source_destroy (self->shared->manager.wanted);
      g_clear_pointer (&self->shared, shared_unref);
    }
  g_clear_object (&self->objects);
  g_clear_object (&self->manager);
  G_OBJECT_CLASS (hpd_read_snapshot_parent_class)->dispose (object);
}

static void
hpd_read_snapshot_class_init (HpdReadSnapshotClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = hpd_read_snapshot_dispose;
}

static void
hpd_read_snapshot_init (HpdReadSnapshot *self)
{
}

HpdReadSnapshot *
hpd_read_snapshot_new (GDBusObjectManagerServer *objects, GDBusInterfaceSkeleton *manager,
                       HpdDaemon *daemon)
{
  HpdReadSnapshot *self = g_object_new (HPD_TYPE_READ_SNAPSHOT, NULL);
  Shared *shared = g_new0 (Shared, 1);

  g_atomic_ref_count_init (&shared->ref);
  g_mutex_init (&shared->lock);
  shared->path = g_strdup (g_dbus_object_manager_get_object_path (G_DBUS_OBJECT_MANAGER (objects)));
  /* At GDBus's priority for calls, and attached before any: made ready as
   * the call that wants it passes the filter, it runs just before that
   * call in the same main loop turn, so the call's refresh is its refresh
   * (no read the service would not have made, no PropertiesChanged a read
   * would not have sent), and the call is answered from what it made. */
  shared->objects = (Kept) { .what = "GetManagedObjects", .build = build_objects, .owner = self };
  shared->objects.wanted = hpd_wakeup_new ("[hugepagesd] GetManagedObjects snapshot", G_PRIORITY_DEFAULT,
                                           make_wanted, &shared->objects);
  shared->manager = (Kept) { .what = "Manager GetAll", .build = build_manager, .owner = self };
  shared->manager.wanted = hpd_wakeup_new ("[hugepagesd] Manager GetAll snapshot", G_PRIORITY_DEFAULT,
                                           make_wanted, &shared->manager);

  self->objects = g_object_ref (objects);
  self->manager = g_object_ref (manager);
  self->daemon = daemon;
  self->shared = shared;
  return self;
}

void
hpd_read_snapshot_attach (HpdReadSnapshot *self, GDBusConnection *connection)
{
  g_return_if_fail (self->connection == NULL);
  hpd_read_snapshot_drop (self);
  self->connection = g_object_ref (connection);
  self->filter_id = g_dbus_connection_add_filter (connection, filter, shared_ref (self->shared),
                                                  (GDestroyNotify) shared_unref);
}

void
hpd_read_snapshot_detach (HpdReadSnapshot *self)
{
  if (self->connection == NULL)
    return;
  g_dbus_connection_remove_filter (self->connection, self->filter_id);
  g_clear_object (&self->connection);
  hpd_read_snapshot_drop (self);
}

void
hpd_read_snapshot_drop (HpdReadSnapshot *self)
{
  if (self == NULL)
    return;
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->shared->lock);
  drop_locked (self->shared);
}

void
hpd_read_snapshot_hold (HpdReadSnapshot *self)
{
  if (self == NULL)
    return;
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->shared->lock);
  self->shared->held++;
  drop_locked (self->shared);
}

void
hpd_read_snapshot_release (HpdReadSnapshot *self)
{
  if (self == NULL)
    return;
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->shared->lock);
  g_return_if_fail (self->shared->held > 0);
  self->shared->held--;
  drop_locked (self->shared);
}
