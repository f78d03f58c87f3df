/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* floor: the least a GDBus service costs, as the baselines of the
 * footprint and of the read path.
 *
 *     floor NAME [MEMBER=FILE]...
 *
 * Connects to the system bus (DBUS_SYSTEM_BUS_ADDRESS), exports one object
 * with one method, owns NAME and idles. It links GIO, GObject, GLib and
 * libc as hugepagesd does, and sets up the allocators with the service's
 * own code (src/bus/hpd-allocators.h), so its Pss and RssAnon are what any
 * such service pays on this machine; hugepagesd's excess over it is what
 * the service itself adds.
 *
 * Each MEMBER=FILE makes it answer a call of MEMBER, on any path and
 * interface, with the reply body FILE holds (GVariant text, types
 * annotated), from GDBus's worker thread as the call arrives, reading and
 * checking nothing: the least any GDBus service can spend on a reply of
 * that size.
 *
 * SIGUSR1 makes it return its free memory to the kernel as hugepagesd does
 * once calls have stopped (its thread's cache of freed blocks emptied where
 * it is on, then malloc_trim()): the benchmark sends it before it compares
 * what a load leaves, so that the floor keeps no more than a service that
 * trims would. */

#include <malloc.h>
#include <signal.h>
#include <string.h>

#include <gio/gio.h>
#include <glib-unix.h>

#include "hpd-allocators.h"

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

/* In GDBus's worker thread: @bodies maps a member to its reply's body. */
static GDBusMessage *
answer_in_worker (GDBusConnection *connection, GDBusMessage *message, gboolean incoming,
                  gpointer bodies)
{
  GVariant *body;
  g_autoptr(GDBusMessage) reply = NULL;

  if (!incoming || g_dbus_message_get_message_type (message) != G_DBUS_MESSAGE_TYPE_METHOD_CALL)
    return message;
  body = g_hash_table_lookup (bodies, g_dbus_message_get_member (message));
  if (body == NULL)
    return message;
  reply = g_dbus_message_new_method_reply (message);
  g_dbus_message_set_body (reply, body);
  g_dbus_connection_send_message (connection, reply, G_DBUS_SEND_MESSAGE_FLAGS_NONE, NULL, NULL);
  g_object_unref (message);
  return NULL;
}

static gboolean
trim_now (gpointer user_data)
{
  hpd_allocators_empty_thread_cache (g_getenv ("GLIBC_TUNABLES"));
  malloc_trim (0);
  return G_SOURCE_CONTINUE;
}

/* As the service does (src/main.c) */
HPD_ALLOCATORS_TUNE_AT_PREINIT;

/* MEMBER=FILE arguments into @bodies; FALSE with @error on a bad one. */
static gboolean
load_bodies (GHashTable *bodies, int argc, char **argv, GError **error)
{
  for (int i = 0; i < argc; i++)
    {
      const char *eq = strchr (argv[i], '=');
      g_autofree char *text = NULL;
      GVariant *body;

      if (eq == NULL || eq == argv[i])
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "not MEMBER=FILE: %s", argv[i]);
          return FALSE;
        }
      if (!g_file_get_contents (eq + 1, &text, NULL, error))
        return FALSE;
      body = g_variant_parse (NULL, text, NULL, NULL, error);
      if (body == NULL)
        return FALSE;
      if (!g_variant_is_of_type (body, G_VARIANT_TYPE_TUPLE))
        {
          g_variant_unref (body);
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: not a tuple", eq + 1);
          return FALSE;
        }
      (void) g_variant_get_data (g_variant_ref_sink (body));   /* serialised once, here */
      g_hash_table_insert (bodies, g_strndup (argv[i], eq - argv[i]), body);
    }
  return TRUE;
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDBusConnection) connection = NULL;
  g_autoptr(GDBusNodeInfo) info = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  /* lives as long as the process: the filter may run until exit */
  GHashTable *bodies = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                              (GDestroyNotify) g_variant_unref);

  if (argc < 2)
    {
      g_printerr ("usage: floor NAME [MEMBER=FILE]...\n");
      return 2;
    }
  if (!load_bodies (bodies, argc - 2, argv + 2, &error))
    {
      g_printerr ("floor: %s\n", error->message);
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
  if (g_hash_table_size (bodies) > 0)
    g_dbus_connection_add_filter (connection, answer_in_worker, bodies, NULL);
  g_bus_own_name_on_connection (connection, argv[1], G_BUS_NAME_OWNER_FLAGS_NONE,
                                NULL, NULL, NULL, NULL);
  g_unix_signal_add (SIGUSR1, trim_now, NULL);
  loop = g_main_loop_new (NULL, FALSE);
  g_main_loop_run (loop);
  return 0;
}
