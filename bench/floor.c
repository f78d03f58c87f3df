/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* floor: the least a GDBus service costs, as the footprint's baseline.
 *
 *     floor NAME
 *
 * Connects to the system bus (DBUS_SYSTEM_BUS_ADDRESS), exports one object
 * with one method, owns NAME and idles. It links GIO, GObject, GLib and
 * libc as hugepagesd does, so its Pss and RssAnon are what any such
 * service pays on this machine; hugepagesd's excess over it is what the
 * service itself adds. */

#include <gio/gio.h>

static const char introspection[] =
  "<node><interface name='org.hugepages.Floor'><method name='Ping'/></interface></node>";

static void
method_call (GDBusConnection *connection, const char *sender, const char *path,
             const char *interface, const char *method, GVariant *parameters,
             GDBusMethodInvocation *invocation, gpointer user_data)
{
  g_dbus_method_invocation_return_value (invocation, NULL);
}

static const GDBusInterfaceVTable vtable = { .method_call = method_call };

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDBusConnection) connection = NULL;
  g_autoptr(GDBusNodeInfo) info = NULL;
  g_autoptr(GMainLoop) loop = NULL;

  if (argc != 2)
    {
      g_printerr ("usage: floor NAME\n");
      return 2;
    }
  connection = g_bus_get_sync (G_BUS_TYPE_SYSTEM, NULL, &error);
  if (connection != NULL)
    info = g_dbus_node_info_new_for_xml (introspection, &error);
  if (info == NULL ||
      g_dbus_connection_register_object (connection, "/org/hugepages/Floor", info->interfaces[0],
                                         &vtable, NULL, NULL, &error) == 0)
    {
      g_printerr ("floor: %s\n", error->message);
      return 1;
    }
  g_bus_own_name_on_connection (connection, argv[1], G_BUS_NAME_OWNER_FLAGS_NONE,
                                NULL, NULL, NULL, NULL);
  loop = g_main_loop_new (NULL, FALSE);
  g_main_loop_run (loop);
  return 0;
}
