/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hpd-fresh.h"
#include "hpd-methods.h"

typedef struct {
  HpdRefreshFunc refresh;
  HpdFreshKernelFunc kernel;
  GDBusInterfaceSkeletonClass *parent_class;
  const GDBusInterfaceVTable *parent_vtable;
  GDBusInterfaceVTable vtable;
} FreshClass;

static GQuark fresh_class_quark (void);
static G_DEFINE_QUARK (hpd-fresh-class, fresh_class)

static FreshClass *
fresh_class_for (gpointer instance)
{
  return g_type_get_qdata (G_TYPE_FROM_INSTANCE (instance), fresh_class_quark ());
}

/* Refreshes now unless that already happened in this main loop turn with
 * no kernel file written since: the mark lives in the kernel's values of
 * the turn (hpd_kernel_turn_lookup), which end with the turn or a write. */
void
hpd_fresh_refresh (GDBusInterfaceSkeleton *skeleton)
{
  FreshClass *fc = fresh_class_for (skeleton);
  HpdKernel *kernel = fc->kernel (skeleton);
  char key[32];
  gint writes;

  g_snprintf (key, sizeof key, ":fresh %p", (gpointer) skeleton);
  if (hpd_kernel_turn_lookup (kernel, key) != NULL)
    return;
  writes = hpd_kernel_get_writes (kernel);
  fc->refresh (skeleton);
  hpd_kernel_turn_store (kernel, key, writes, skeleton, NULL);
}

/* A property the XML declares constant (EmitsChangedSignal "const") is
 * set when its object is made and never read again: no refresh for it. */
static gboolean
is_const (GDBusInterfaceSkeleton *skeleton, const char *property_name)
{
  GDBusPropertyInfo *info =
    g_dbus_interface_info_lookup_property (g_dbus_interface_skeleton_get_info (skeleton),
                                           property_name);

  return info != NULL &&
         g_strcmp0 (g_dbus_annotation_info_lookup (info->annotations,
                                                   "org.freedesktop.DBus.Property.EmitsChangedSignal"),
                    "const") == 0;
}

static GVariant *
fresh_get_property (GDBusConnection *connection, const char *sender,
                    const char *object_path, const char *interface_name,
                    const char *property_name, GError **error, gpointer user_data)
{
  FreshClass *fc = fresh_class_for (user_data);

  if (!is_const (G_DBUS_INTERFACE_SKELETON (user_data), property_name))
    hpd_fresh_refresh (G_DBUS_INTERFACE_SKELETON (user_data));
  return fc->parent_vtable->get_property (connection, sender, object_path,
                                          interface_name, property_name,
                                          error, user_data);
}

static GDBusInterfaceVTable *
fresh_get_vtable (GDBusInterfaceSkeleton *skeleton)
{
  FreshClass *fc = fresh_class_for (skeleton);

  if (fc->parent_vtable == NULL)
    {
      fc->parent_vtable = fc->parent_class->get_vtable (skeleton);
      fc->vtable = *fc->parent_vtable;
      fc->vtable.get_property = fresh_get_property;
      /* every method call goes to the one method table, not to the
       * generated handle-* signals */
      fc->vtable.method_call = hpd_methods_dispatch;
    }
  return &fc->vtable;
}

/* GetAll and GetManagedObjects. The a{sv} is built for each read: the
 * generated properties notify every set, changed or not (their pspecs lack
 * G_PARAM_EXPLICIT_NOTIFY), so a notify cannot tell that a kept a{sv} is
 * still right, and comparing the values costs as much as building it. */
static GVariant *
fresh_get_properties (GDBusInterfaceSkeleton *skeleton)
{
  FreshClass *fc = fresh_class_for (skeleton);

  hpd_fresh_refresh (skeleton);
  return fc->parent_class->get_properties (skeleton);
}

void
hpd_fresh_install (GDBusInterfaceSkeletonClass *klass, HpdRefreshFunc refresh,
                   HpdFreshKernelFunc kernel)
{
  /* Lives as long as the class, that is, for the whole process. */
  FreshClass *fc = g_new0 (FreshClass, 1);

  fc->refresh = refresh;
  fc->kernel = kernel;
  fc->parent_class = g_type_class_peek_parent (klass);
  g_type_set_qdata (G_TYPE_FROM_CLASS (klass), fresh_class_quark (), fc);
  klass->get_vtable = fresh_get_vtable;
  klass->get_properties = fresh_get_properties;
}
