/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <unistd.h>

#include "hpd-boot-calls.h"
#include "hpd-claim-calls.h"
#include "hpd-config.h"
#include "hpd-daemon.h"
#include "hpd-boot-hook.h"
#include "hpd-drift.h"
#include "hpd-fresh.h"
#include "hpd-manager.h"
#include "hpd-mounts.h"
#include "hpd-tunable-calls.h"
#include "hpd-tunables.h"
#include "hpd-parse.h"

struct _HpdManager
{
  HpDBusManagerSkeleton parent_instance;
  HpdDaemon *daemon; /* owns us */
  /* what ThpSettings was made from, in one block: kept from the first
   * read on, it would otherwise be some 40 small blocks made among that
   * read's passing ones, each keeping a page of the heap from the trims */
  GBytes *thp_texts;
};

/* The methods are dispatched from the method table (hpd-methods.c), not
 * through the generated handle-* signals. */
G_DEFINE_TYPE (HpdManager, hpd_manager, HP_DBUS_TYPE_MANAGER_SKELETON)

void
hpd_manager_refresh_mounts (HpdManager *self)
{
  HpdKernel *kernel = hpd_daemon_get_kernel (self->daemon);
  g_autoptr(GPtrArray) mounts = hpd_mounts_read (kernel, hpd_daemon_get_default_page_size (self->daemon));

  hp_dbus_manager_set_mounts (HP_DBUS_MANAGER (self),
                              hpd_mounts_to_variant (mounts, hpd_kernel_get_root (kernel)));
}

/* ThpSettings is made again only when a THP file's text changed: its ~20
 * entries' parse, the a{s(sas)} and the comparison that setting it makes
 * cost more than reading the files, which happens on every refresh. */
static void
refresh_thp (HpdManager *self, HpDBusManager *iface)
{
  g_autoptr(GPtrArray) texts = hpd_tunables_read_thp_texts (hpd_daemon_get_kernel (self->daemon));
  g_autoptr(GBytes) joined = hpd_tunables_join_thp_texts (texts);
  g_autoptr(GHashTable) thp = NULL;
  GVariantBuilder builder;
  g_autoptr(GList) names = NULL;

  if (self->thp_texts != NULL && g_bytes_equal (joined, self->thp_texts))
    return;
  thp = hpd_tunables_parse_thp (texts);
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a{s(sas)}"));
  names = g_hash_table_get_keys (thp);
  names = g_list_sort (names, (GCompareFunc) g_strcmp0);
  for (GList *l = names; l != NULL; l = l->next)
    {
      const HpdThpChoice *choice = g_hash_table_lookup (thp, l->data);
      GVariant *pair[2] = {
        g_variant_new_string (choice->current),
        g_variant_new_strv ((const char *const *) choice->choices, -1),
      };

      /* made directly: g_variant_builder_add() parses its format string
       * for each of the ~20 entries, which cost more than reading the files */
      g_variant_builder_add_value (&builder, g_variant_new_dict_entry (g_variant_new_string (l->data),
                                                                       g_variant_new_tuple (pair, 2)));
    }
  hp_dbus_manager_set_thp_settings (iface, g_variant_builder_end (&builder));
  g_clear_pointer (&self->thp_texts, g_bytes_unref);
  self->thp_texts = g_steal_pointer (&joined);
}

void
hpd_manager_refresh_tunables (HpdManager *self)
{
  HpDBusManager *iface = HP_DBUS_MANAGER (self);
  g_auto(HpdTunables) t = { 0, };
  guint64 shmmax = hpd_tunables_recommended_shmmax (self->daemon);

  hpd_tunables_read_scalars (hpd_daemon_get_kernel (self->daemon), &t);
  hp_dbus_manager_set_shm_max (iface, t.shmmax);
  hp_dbus_manager_set_shm_all_pages (iface, t.shmall);
  hp_dbus_manager_set_shm_group (iface, t.shm_group);
  hp_dbus_manager_set_min_free_kbytes (iface, t.min_free_kbytes);
  hp_dbus_manager_set_recommended_shm_max (iface, shmmax);
  hp_dbus_manager_set_recommended_shm_all_pages (iface,
                                                 hpd_recommend_shmall (shmmax,
                                                                       (guint64) sysconf (_SC_PAGESIZE)));
  hp_dbus_manager_set_recommended_min_free_kbytes (iface,
                                                   hpd_tunables_recommended_min_free_kbytes (self->daemon));
  hp_dbus_manager_set_zone_movable_supported (iface, t.zone_movable_file != NULL);
  hp_dbus_manager_set_zone_movable (iface, t.zone_movable);
  refresh_thp (self, iface);
  hp_dbus_manager_set_khugepaged_pages_to_scan (iface, t.khugepaged_pages_to_scan);
  hp_dbus_manager_set_khugepaged_scan_sleep_millisecs (iface, t.khugepaged_scan_sleep_ms);
  hp_dbus_manager_set_khugepaged_alloc_sleep_millisecs (iface, t.khugepaged_alloc_sleep_ms);
}

static GVariant *
overrides_to_variant (const HpdConfig *config)
{
  GVariantBuilder b;

  g_variant_builder_init (&b, G_VARIANT_TYPE ("aa{sv}"));
  for (guint i = 0; i < config->overrides->len; i++)
    {
      const HpdConfigOverride *o = g_ptr_array_index (config->overrides, i);
      g_autofree char *origin = g_strdup_printf ("%s:%u", o->origin.file, o->origin.line);
      g_autofree char *overridden = g_strdup_printf ("%s:%u", o->overridden_origin.file,
                                                     o->overridden_origin.line);

      hpd_record_add_strings (&b, "key", o->key, "value", o->value, "origin", origin,
                              "overridden", o->overridden, "overridden-origin", overridden, NULL);
    }
  return g_variant_builder_end (&b);
}

/* An administrator edits the files while the service runs: the
 * configuration is checked on every refresh (hpd-config-cache.h), and the
 * properties made from it and the kernel files are made again, as the
 * kernel's side can have changed unseen (hpd-fresh.h). */
static void
refresh_configuration (HpdManager *self, GPtrArray *claims)
{
  HpDBusManager *iface = HP_DBUS_MANAGER (self);
  HpdKernel *kernel = hpd_daemon_get_kernel (self->daemon);
  const HpdConfig *config = hpd_daemon_get_config (self->daemon, NULL);
  g_auto(HpdBootState) boot = { 0, };
  g_auto(HpdBootHook) hook = { 0, };
  g_autoptr(GPtrArray) errors = NULL;
  GVariant *state, *drift;

  /* the unit links are no file the configuration cache covers: a few
   * directory reads on every refresh */
  hpd_boot_hook_read (kernel, &hook);
  hp_dbus_manager_set_apply_at_boot (iface, hpd_boot_hook_to_variant (&hook));

  hpd_drift_describe (self->daemon, config, claims, &state, &drift, &errors);
  hp_dbus_manager_set_configuration_errors (iface, (const char *const *) errors->pdata);
  hp_dbus_manager_set_configuration_overrides (iface, overrides_to_variant (config));
  hp_dbus_manager_set_configured_state (iface, state);
  hp_dbus_manager_set_drift (iface, drift);

  hpd_boot_state_read (self->daemon, config, &boot);
  hp_dbus_manager_set_boot_parameters (iface, boot.boot_parameters);
  hp_dbus_manager_set_kernel_command_line (iface, boot.kernel_command_line);
  hp_dbus_manager_set_reboot_required (iface, boot.reboot_required);
  /* the drop-in is no file the configuration cache covers: one small
   * read on every refresh */
  hp_dbus_manager_set_boot_drop_in (iface, hpd_boot_drop_in_to_variant (self->daemon, &boot));
}

static void
refresh_meminfo (HpdManager *self)
{
  HpDBusManager *iface = HP_DBUS_MANAGER (self);
  g_autofree char *meminfo = NULL;
  guint64 kb;

  if (!hpd_kernel_read_text_part (hpd_daemon_get_kernel (self->daemon), "proc/meminfo",
                                  hpd_parse_meminfo_sizes, &meminfo, NULL))
    return;

  if (hpd_parse_meminfo (meminfo, "MemTotal", &kb))
    hp_dbus_manager_set_mem_total (iface, kb * 1024);
  hp_dbus_manager_set_default_page_size (iface,
                                         hpd_parse_meminfo (meminfo, "Hugepagesize", &kb) ? kb * 1024 : 0);
  hp_dbus_manager_set_pool_memory_limit (iface, hpd_daemon_get_pool_memory_limit (self->daemon));
}

static void
set_claims (HpdManager *self, GPtrArray *claims)
{
  hp_dbus_manager_set_claims (HP_DBUS_MANAGER (self), hpd_claims_to_variant (claims));
}

void
hpd_manager_refresh_claims (HpdManager *self)
{
  g_autoptr(GPtrArray) claims = hpd_daemon_get_claims (self->daemon);

  set_claims (self, claims);
  g_dbus_interface_skeleton_flush (G_DBUS_INTERFACE_SKELETON (self));
}

static void
hpd_manager_refresh (GDBusInterfaceSkeleton *skeleton)
{
  HpdManager *self = HPD_MANAGER (skeleton);
  /* Other programs (a package installing its claim) change the files: on
   * every refresh, from the cache, which reads them again when they did;
   * once, for Claims and for the Drift they add to */
  g_autoptr(GPtrArray) claims = hpd_daemon_get_claims (self->daemon);

  hpd_manager_refresh_mounts (self);
  hpd_manager_refresh_tunables (self);
  refresh_meminfo (self);
  refresh_configuration (self, claims);
  set_claims (self, claims);
}

static HpdKernel *
hpd_manager_kernel (GDBusInterfaceSkeleton *skeleton)
{
  return hpd_daemon_get_kernel (HPD_MANAGER (skeleton)->daemon);
}

static void
hpd_manager_finalize (GObject *object)
{
  HpdManager *self = HPD_MANAGER (object);

  g_clear_pointer (&self->thp_texts, g_bytes_unref);
  G_OBJECT_CLASS (hpd_manager_parent_class)->finalize (object);
}

static void
hpd_manager_class_init (HpdManagerClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = hpd_manager_finalize;
  hpd_fresh_install (G_DBUS_INTERFACE_SKELETON_CLASS (klass), hpd_manager_refresh,
                     hpd_manager_kernel);
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
  /* the kernel's values are made by the refresh before each read
   * (hpd-fresh.h), not here: making them now would put reads such as
   * proc/pagetypeinfo's walk of every zone (~15 ms) before the name */
  return self;
}
