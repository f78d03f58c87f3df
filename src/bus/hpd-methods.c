/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hp-error.h"
#include "hp-names.h"
#include "hpd-boot-calls.h"
#include "hpd-claim-calls.h"
#include "hpd-daemon.h"
#include "hpd-explain.h"
#include "hpd-job.h"
#include "hpd-methods.h"
#include "hpd-mount-calls.h"
#include "hpd-page-size.h"
#include "hpd-tunable-calls.h"
#include "hpd-usage-calls.h"

#define OPTIONS(...) ((const HpdOptionSpec[]) { __VA_ARGS__, { NULL, NULL } })
#define NO_OPTIONS ((const HpdOptionSpec[]) { { NULL, NULL } })
#define DRY_RUN { HP_OPTION_DRY_RUN, "b" }
#define PERSIST { HP_OPTION_PERSIST, "b" }
#define NODE { HP_OPTION_NODE, "u" }
#define ALLOW_LOWER { HP_OPTION_ALLOW_LOWER, "b" }
/* an allocation that tries harder (hpd-alloc.h) */
#define HARD { HP_OPTION_HARD, "b" }, { HP_OPTION_TIMEOUT_MS, "u" }, { HP_OPTION_DROP_CACHES, "b" }
/* limits as numbers or percentages (hpd-mounts.h) */
#define MOUNT_OPTIONS OPTIONS ({ HP_OPTION_MAX_SIZE, "v" }, { HP_OPTION_MIN_SIZE, "v" }, \
                               { HP_OPTION_MAX_INODES, "t" }, { HP_OPTION_MODE, "u" }, \
                               { HP_OPTION_SECURE_DIRECTORIES, "b" }, DRY_RUN, PERSIST)

/* Mounts made (or unmounted) in a private mount namespace would be
 * invisible to (or left in place for) the rest of the system. */
#define MOUNTS_VISIBLE hpd_daemon_check_mounts_visible

static const HpdMethod methods[] = {
  { HP_PAGE_SIZE_INTERFACE, "SetMinimum", HPD_AUTH_REQUIRED, HP_ACTION_CONFIGURE_POOLS,
    HPD_LANE_QUEUE, OPTIONS (DRY_RUN, PERSIST, HARD), hpd_page_size_set_minimum },
  { HP_PAGE_SIZE_INTERFACE, "SetMaximum", HPD_AUTH_REQUIRED, HP_ACTION_CONFIGURE_POOLS,
    HPD_LANE_QUEUE, OPTIONS (DRY_RUN, PERSIST), hpd_page_size_set_maximum },
  { HP_PAGE_SIZE_INTERFACE, "SetNodePages", HPD_AUTH_REQUIRED, HP_ACTION_CONFIGURE_POOLS,
    HPD_LANE_QUEUE, OPTIONS (DRY_RUN, PERSIST, HARD), hpd_page_size_set_node_pages },
  { HP_PAGE_SIZE_INTERFACE, "Demote", HPD_AUTH_REQUIRED, HP_ACTION_CONFIGURE_POOLS,
    HPD_LANE_QUEUE, OPTIONS (DRY_RUN, PERSIST), hpd_page_size_demote },
  { HP_PAGE_SIZE_INTERFACE, "CreateMount", HPD_AUTH_REQUIRED, HP_ACTION_MANAGE_MOUNTS,
    HPD_LANE_QUEUE, MOUNT_OPTIONS, hpd_mount_calls_create_mount, MOUNTS_VISIBLE },
  { HP_PAGE_SIZE_INTERFACE, "Claim", HPD_AUTH_REQUIRED, HP_ACTION_CONFIGURE_POOLS,
    HPD_LANE_QUEUE, OPTIONS (NODE, DRY_RUN, PERSIST, HARD), hpd_claim_calls_claim },
  { HP_PAGE_SIZE_INTERFACE, "Release", HPD_AUTH_REQUIRED, HP_ACTION_CONFIGURE_POOLS,
    HPD_LANE_QUEUE, OPTIONS (NODE), hpd_claim_calls_release },

  /* the claims cache, read on the main thread: answered by the handler,
   * with nothing to authorize and nobody to identify */
  { HP_MANAGER_INTERFACE, "GetClaims", HPD_AUTH_NONE, NULL,
    HPD_LANE_MAIN, NO_OPTIONS, hpd_claim_calls_get },
  { HP_MANAGER_INTERFACE, "CreateMounts", HPD_AUTH_REQUIRED, HP_ACTION_MANAGE_MOUNTS,
    HPD_LANE_QUEUE, MOUNT_OPTIONS, hpd_mount_calls_create_mounts, MOUNTS_VISIBLE },
  { HP_MANAGER_INTERFACE, "Unmount", HPD_AUTH_REQUIRED, HP_ACTION_MANAGE_MOUNTS,
    HPD_LANE_QUEUE, OPTIONS (DRY_RUN, PERSIST), hpd_mount_calls_unmount, MOUNTS_VISIBLE },
  { HP_MANAGER_INTERFACE, "SetShmMax", HPD_AUTH_REQUIRED, HP_ACTION_CONFIGURE_TUNABLES,
    HPD_LANE_QUEUE, OPTIONS (DRY_RUN, PERSIST), hpd_tunable_calls_set_shm_max },
  { HP_MANAGER_INTERFACE, "SetRecommendedShmMax", HPD_AUTH_REQUIRED, HP_ACTION_CONFIGURE_TUNABLES,
    HPD_LANE_QUEUE, OPTIONS (DRY_RUN, PERSIST, ALLOW_LOWER),
    hpd_tunable_calls_set_recommended_shm_max },
  { HP_MANAGER_INTERFACE, "SetShmGroup", HPD_AUTH_REQUIRED, HP_ACTION_CONFIGURE_TUNABLES,
    HPD_LANE_QUEUE, OPTIONS (DRY_RUN, PERSIST), hpd_tunable_calls_set_shm_group },
  { HP_MANAGER_INTERFACE, "SetMinFreeKbytes", HPD_AUTH_REQUIRED, HP_ACTION_CONFIGURE_TUNABLES,
    HPD_LANE_QUEUE, OPTIONS (DRY_RUN, PERSIST), hpd_tunable_calls_set_min_free_kbytes },
  { HP_MANAGER_INTERFACE, "SetRecommendedMinFreeKbytes", HPD_AUTH_REQUIRED,
    HP_ACTION_CONFIGURE_TUNABLES, HPD_LANE_QUEUE,
    OPTIONS (DRY_RUN, PERSIST, ALLOW_LOWER),
    hpd_tunable_calls_set_recommended_min_free_kbytes },
  { HP_MANAGER_INTERFACE, "SetZoneMovable", HPD_AUTH_REQUIRED, HP_ACTION_CONFIGURE_TUNABLES,
    HPD_LANE_QUEUE, OPTIONS (DRY_RUN, PERSIST), hpd_tunable_calls_set_zone_movable },
  { HP_MANAGER_INTERFACE, "SetThp", HPD_AUTH_REQUIRED, HP_ACTION_CONFIGURE_TUNABLES,
    HPD_LANE_QUEUE, OPTIONS (DRY_RUN, PERSIST), hpd_tunable_calls_set_thp },
  { HP_MANAGER_INTERFACE, "ConfigureBoot", HPD_AUTH_REQUIRED, HP_ACTION_CONFIGURE_BOOT,
    HPD_LANE_QUEUE, OPTIONS (DRY_RUN), hpd_boot_calls_configure },
  /* the caller's uid and pid tailor two of its checks (shm group, memlock) */
  { HP_MANAGER_INTERFACE, "Explain", HPD_AUTH_NONE, NULL,
    HPD_LANE_MAIN, NO_OPTIONS, hpd_explain_call },
  /* without the action GetUsage is not refused: it shows what the caller owns */
  { HP_MANAGER_INTERFACE, "GetUsage", HPD_AUTH_OPTIONAL, HP_ACTION_INSPECT_USAGE,
    HPD_LANE_SCAN, NO_OPTIONS, hpd_usage_calls_get_usage },
  { HP_MANAGER_INTERFACE, "RemoveOrphan", HPD_AUTH_REQUIRED, HP_ACTION_MANAGE_MOUNTS,
    HPD_LANE_SCAN, OPTIONS (DRY_RUN, { HP_OPTION_IGNORE_UNREADABLE, "b" }),
    hpd_usage_calls_remove_orphan },
};

const HpdMethod *
hpd_method_lookup (const char *interface_name, const char *method_name)
{
  for (gsize i = 0; i < G_N_ELEMENTS (methods); i++)
    if (g_strcmp0 (methods[i].interface_name, interface_name) == 0 &&
        g_strcmp0 (methods[i].method_name, method_name) == 0)
      return &methods[i];
  return NULL;
}

const HpdMethod *
hpd_methods_get (gsize *n_methods)
{
  *n_methods = G_N_ELEMENTS (methods);
  return methods;
}

static GQuark daemon_quark (void);
static G_DEFINE_QUARK (hpd-methods-daemon, daemon)

void
hpd_methods_serve (GDBusInterfaceSkeleton *skeleton, HpdDaemon *daemon)
{
  g_object_set_qdata (G_OBJECT (skeleton), daemon_quark (), daemon);
}

void
hpd_methods_dispatch (GDBusConnection *connection, const char *sender,
                      const char *object_path, const char *interface_name,
                      const char *method_name, GVariant *parameters,
                      GDBusMethodInvocation *invocation, gpointer user_data)
{
  g_autoptr(GError) error = NULL;
  gsize n = g_variant_n_children (parameters);
  g_autoptr(GVariant) options = n > 0 ? g_variant_get_child_value (parameters, n - 1) : NULL;
  HpdCall call = {
    .daemon = g_object_get_qdata (G_OBJECT (user_data), daemon_quark ()),
    .object = G_DBUS_INTERFACE_SKELETON (user_data),
    .invocation = invocation,
    .parameters = parameters,
    .options = options,
    .method = hpd_method_lookup (interface_name, method_name),
  };

  /* GDBus checked the arguments against the XML, whose every method has a
   * row ending with options (the unit test) */
  if (call.method == NULL || call.daemon == NULL || options == NULL ||
      !g_variant_is_of_type (options, G_VARIANT_TYPE_VARDICT))
    {
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR,
                                             G_DBUS_ERROR_UNKNOWN_METHOD,
                                             "No method %s.%s", interface_name, method_name);
      return;
    }
  if ((call.method->available != NULL && !call.method->available (call.daemon, &error)) ||
      !hpd_options_check (options, call.method->options, &error))
    {
      hpd_job_return_error (invocation, error);
      return;
    }
  /* the filter dropped it when the call came; a snapshot made since
   * knows nothing of what the handler changes */
  hpd_read_snapshot_drop (hpd_daemon_get_read_snapshot (call.daemon));
  call.method->handler (&call);
}
