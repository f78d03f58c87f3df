/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hpd-fresh.h"
#include "hpd-methods.h"

typedef struct {
  HpdRefreshFunc refresh;
  HpdFreshKernelFunc kernel;
  void (*parent_notify)(GObject *object, GParamSpec *pspec);
  /* D-Bus property name -> its GParamSpec in the skeleton class (the
   * generated pspecs carry the D-Bus name as their nick) */
  GHashTable *pspecs;
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
is_const (const GDBusPropertyInfo *info)
{
  return g_strcmp0 (g_dbus_annotation_info_lookup (info->annotations,
                                                   "org.freedesktop.DBus.Property.EmitsChangedSignal"),
                    "const") == 0;
}

/* The value the skeleton holds, as the bus wants it: the generated
 * skeleton keeps each property as a GObject property, so it is read through
 * GObject and converted with the signature from the introspection data.
 * NULL when the class has no such property. */
static GVariant *
skeleton_value (GDBusInterfaceSkeleton *skeleton, FreshClass *fc, const GDBusPropertyInfo *info)
{
  GParamSpec *pspec = g_hash_table_lookup (fc->pspecs, info->name);
  g_auto(GValue) value = G_VALUE_INIT;

  if (pspec == NULL)
    return NULL;
  g_value_init (&value, G_PARAM_SPEC_VALUE_TYPE (pspec));
  g_object_get_property (G_OBJECT (skeleton), g_param_spec_get_name (pspec), &value);
  return g_dbus_gvalue_to_gvariant (&value, G_VARIANT_TYPE (info->signature));
}

static GVariant *
fresh_get_property (GDBusConnection *connection, const char *sender,
                    const char *object_path, const char *interface_name,
                    const char *property_name, GError **error, gpointer user_data)
{
  GDBusInterfaceSkeleton *skeleton = G_DBUS_INTERFACE_SKELETON (user_data);
  FreshClass *fc = fresh_class_for (skeleton);
  GDBusPropertyInfo *info =
    g_dbus_interface_info_lookup_property (g_dbus_interface_skeleton_get_info (skeleton),
                                           property_name);
  GVariant *value;

  if (info != NULL && !is_const (info))
    hpd_fresh_refresh (skeleton);
  value = info != NULL ? skeleton_value (skeleton, fc, info) : NULL;
  if (value == NULL)
    g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                 "No such property \"%s\"", property_name);
  return value;
}

/* The service's own vtable for every object: methods go to the one method
 * table (hpd-methods.c), reads run the refresh first, and no property is
 * writable (the XML has none: changes are methods, authorized). */
static const GDBusInterfaceVTable fresh_vtable = {
  .method_call = hpd_methods_dispatch,
  .get_property = fresh_get_property,
  .set_property = NULL,
};

static GDBusInterfaceVTable *
fresh_get_vtable (GDBusInterfaceSkeleton *skeleton)
{
  /* GDBus takes a non-const pointer but never writes through it */
  return (GDBusInterfaceVTable *) &fresh_vtable;
}

/* GetManagedObjects (GetAll is GDBus's own, from get_property). The a{sv}
 * is made here, not by the generated get_properties, which looks each
 * property up twice and adds it with g_variant_builder_add (…, "{sv}", …),
 * parsing the format string every time: that was 30% of the service's
 * instructions in a GetManagedObjects (callgrind). It is built for each
 * read: the generated properties notify every set, changed or not (their
 * pspecs lack G_PARAM_EXPLICIT_NOTIFY), so a notify cannot tell that a
 * kept a{sv} is still right, and comparing the values costs as much as
 * building it.
 *
 * It is returned serialised, one block, not as the builder's tree of a
 * block per entry, name and variant: a reply waits in GDBus's queue,
 * tree and blob, until the bus takes it, and with many callers and a
 * slow bus dozens wait at once (a 64-node machine's GetManagedObjects
 * trees were some 500 kB of the service's peak under bench/run's load of
 * 50 clients, and the blocks scattered over the heap kept it from
 * shrinking after). */
static GVariant *
fresh_get_properties (GDBusInterfaceSkeleton *skeleton)
{
  FreshClass *fc = fresh_class_for (skeleton);
  GDBusInterfaceInfo *iface = g_dbus_interface_skeleton_get_info (skeleton);
  GVariantBuilder builder;
  GVariant *result;

  hpd_fresh_refresh (skeleton);
  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  for (guint i = 0; iface->properties != NULL && iface->properties[i] != NULL; i++)
    {
      const GDBusPropertyInfo *info = iface->properties[i];
      g_autoptr(GVariant) value = NULL;

      if ((info->flags & G_DBUS_PROPERTY_INFO_FLAGS_READABLE) == 0)
        continue;
      value = skeleton_value (skeleton, fc, info);
      if (value != NULL)
        g_variant_builder_add_value (&builder,
                                     g_variant_new_dict_entry (g_variant_new_string (info->name),
                                                               g_variant_new_variant (value)));
    }
  result = g_variant_builder_end (&builder);
  (void) g_variant_get_data (result);
  return result;
}

/* A GVariant made by a builder is a tree: one block for each value in it,
 * each string and each container (ThpSettings: some 600), where the
 * serialised form is one. The skeleton keeps the value until the next
 * change, and the refresh that makes it may run amid a burst of calls,
 * whose memory around it is freed after: kept as a tree, its blocks stay
 * spread over the heap's pages, and malloc_trim() can return none of
 * them. A changed value's comparison with the one it replaces serialises
 * it anyway; the first value of a property finds nothing to compare with
 * and stayed a tree. GObject notifies every set (the generated pspecs lack
 * G_PARAM_EXPLICIT_NOTIFY), so for a value already serialised this is a
 * lookup and a reference, no copy. */
static void
fresh_notify (GObject *object, GParamSpec *pspec)
{
  FreshClass *fc = fresh_class_for (object);

  if (G_PARAM_SPEC_VALUE_TYPE (pspec) == G_TYPE_VARIANT)
    {
      g_auto(GValue) value = G_VALUE_INIT;

      g_value_init (&value, G_TYPE_VARIANT);
      g_object_get_property (object, pspec->name, &value);
      if (g_value_get_variant (&value) != NULL)
        (void) g_variant_get_data (g_value_get_variant (&value));
    }
  if (fc->parent_notify != NULL)
    fc->parent_notify (object, pspec);
}

void
hpd_fresh_install (GDBusInterfaceSkeletonClass *klass, HpdRefreshFunc refresh,
                   HpdFreshKernelFunc kernel)
{
  /* Lives as long as the class, that is, for the whole process. */
  FreshClass *fc = g_new0 (FreshClass, 1);
  g_autofree GParamSpec **pspecs = NULL;
  guint n_pspecs = 0;

  fc->refresh = refresh;
  fc->kernel = kernel;
  fc->pspecs = g_hash_table_new (g_str_hash, g_str_equal);
  pspecs = g_object_class_list_properties (G_OBJECT_CLASS (klass), &n_pspecs);
  for (guint i = 0; i < n_pspecs; i++)
    g_hash_table_insert (fc->pspecs, (gpointer) g_param_spec_get_nick (pspecs[i]), pspecs[i]);
  g_type_set_qdata (G_TYPE_FROM_CLASS (klass), fresh_class_quark (), fc);
  fc->parent_notify = G_OBJECT_CLASS (klass)->notify;
  G_OBJECT_CLASS (klass)->notify = fresh_notify;
  klass->get_vtable = fresh_get_vtable;
  klass->get_properties = fresh_get_properties;
}
