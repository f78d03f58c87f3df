#include "config.h"

#include <unistd.h>

#include "hpd-daemon.h"
#include "hpd-fresh.h"
#include "hpd-manager.h"
#include "hpd-mount-calls.h"
#include "hpd-mounts.h"
#include "hpd-parse.h"

struct _HpdManager
{
  HpDBusManagerSkeleton parent_instance;
  HpdDaemon *daemon; /* owns us */
};

static void hpd_manager_iface_init (HpDBusManagerIface *iface);

G_DEFINE_TYPE_WITH_CODE (HpdManager, hpd_manager, HP_DBUS_TYPE_MANAGER_SKELETON,
                         G_IMPLEMENT_INTERFACE (HP_DBUS_TYPE_MANAGER, hpd_manager_iface_init))

void
hpd_manager_refresh_mounts (HpdManager *self)
{
  HpdKernel *kernel = hpd_daemon_get_kernel (self->daemon);
  g_autoptr(GPtrArray) mounts = hpd_mounts_read (kernel, hpd_daemon_get_default_page_size (self->daemon));

  hp_dbus_manager_set_mounts (HP_DBUS_MANAGER (self),
                              hpd_mounts_to_variant (mounts, hpd_kernel_get_root (kernel)));
}

static void
hpd_manager_refresh (GDBusInterfaceSkeleton *skeleton)
{
  HpdManager *self = HPD_MANAGER (skeleton);
  HpDBusManager *iface = HP_DBUS_MANAGER (self);
  g_autofree char *meminfo = NULL;
  guint64 kb;

  /* the mounts do not depend on meminfo */
  hpd_manager_refresh_mounts (self);
  if (!hpd_kernel_read_text (hpd_daemon_get_kernel (self->daemon), "proc/meminfo",
                             &meminfo, NULL))
    return;

  if (hpd_parse_meminfo (meminfo, "MemTotal", &kb))
    hp_dbus_manager_set_mem_total (iface, kb * 1024);
  hp_dbus_manager_set_default_page_size (iface,
                                         hpd_parse_meminfo (meminfo, "Hugepagesize", &kb) ? kb * 1024 : 0);
  hp_dbus_manager_set_pool_memory_limit (iface, hpd_daemon_get_pool_memory_limit (self->daemon));
}

static gboolean
handle_create_mounts (HpDBusManager *object, GDBusMethodInvocation *invocation,
                      const char *scope, const char *owner, GVariant *options)
{
  HpdManager *self = HPD_MANAGER (object);

  hpd_mount_calls_create (self->daemon, invocation, scope, owner, options, NULL);
  return TRUE;
}

static gboolean
handle_unmount (HpDBusManager *object, GDBusMethodInvocation *invocation,
                const char *path, GVariant *options)
{
  HpdManager *self = HPD_MANAGER (object);

  hpd_mount_calls_unmount (self->daemon, invocation, path, options);
  return TRUE;
}

static void
hpd_manager_iface_init (HpDBusManagerIface *iface)
{
  iface->handle_create_mounts = handle_create_mounts;
  iface->handle_unmount = handle_unmount;
}

static void
hpd_manager_class_init (HpdManagerClass *klass)
{
  hpd_fresh_install (G_DBUS_INTERFACE_SKELETON_CLASS (klass), hpd_manager_refresh);
}

static void
hpd_manager_init (HpdManager *self)
{
}

HpdManager *
hpd_manager_new (HpdDaemon *daemon)
{
  HpdManager *self = g_object_new (HPD_TYPE_MANAGER, NULL);
  HpDBusManager *iface = HP_DBUS_MANAGER (self);
  GPtrArray *pools = hpd_daemon_get_pools (daemon);
  GArray *nodes = hpd_daemon_get_nodes (daemon);
  g_autoptr(GVariantBuilder) sizes = g_variant_builder_new (G_VARIANT_TYPE ("at"));

  self->daemon = daemon;

  for (guint i = 0; i < pools->len; i++)
    g_variant_builder_add (sizes, "t", ((HpdPool *) g_ptr_array_index (pools, i))->size);

  hp_dbus_manager_set_version (iface, VERSION);
  hp_dbus_manager_set_page_sizes (iface, g_variant_builder_end (sizes));
  hp_dbus_manager_set_base_page_size (iface, (guint64) sysconf (_SC_PAGESIZE));
  hp_dbus_manager_set_numa_nodes (iface,
                                  g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32, nodes->data,
                                                             nodes->len, sizeof (guint32)));
  hpd_manager_refresh (G_DBUS_INTERFACE_SKELETON (self));
  return self;
}
