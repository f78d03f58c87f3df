/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* GDBus cannot decode a valid message it serialized itself, and closes the
 * connection that received it.
 *
 * Build and run (GLib alone, no bus needed):
 *   cc -o reproducer reproducer.c $(pkg-config --cflags --libs gio-2.0)
 *   ./reproducer
 *
 * The body is (a{sv}) with { "a": <[{1, "a{sv}"}, {2, ""}]>, "b": <byte 7> }.
 * In the a{yg} the array length word is 8-aligned and followed by 4 bytes
 * of padding up to the first dict entry; GDBus's reader ends the array at
 * "start of the length word + 4 + length", leaving out that padding, so it
 * stops before the last element (3 bytes: y, 0-length g, its NUL) and reads
 * what follows from the wrong offset. dbus-daemon routes the message
 * (it is valid), and any local user can send it as a unicast signal to any
 * connection on the system bus: the receiving process loses its bus.
 *
 * Exit status: 0 when this GLib is fixed, 1 when the bug shows. */
#include <gio/gio.h>
#include <sys/socket.h>

static GVariant *
undecodable_body (void)
{
  GVariantBuilder entries, options;

  g_variant_builder_init (&entries, G_VARIANT_TYPE ("a{yg}"));
  g_variant_builder_add (&entries, "{yg}", 1, "a{sv}");
  g_variant_builder_add (&entries, "{yg}", 2, "");
  g_variant_builder_init (&options, G_VARIANT_TYPE ("a{sv}"));
  g_variant_builder_add (&options, "{sv}", "a", g_variant_builder_end (&entries));
  g_variant_builder_add (&options, "{sv}", "b", g_variant_new_byte (7));
  return g_variant_new ("(a{sv})", &options);
}

static GDBusMessage *
undecodable_signal (void)
{
  GDBusMessage *message = g_dbus_message_new_signal ("/", "org.example.Reproducer", "Boom");

  g_dbus_message_set_body (message, undecodable_body ());
  return message;
}

/* Step 1: the blob round trip, without any connection. */
static gboolean
round_trip_fails (void)
{
  g_autoptr(GDBusMessage) message = undecodable_signal ();
  g_autoptr(GDBusMessage) parsed = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree guchar *blob = NULL;
  gsize size;

  g_dbus_message_set_serial (message, 1);
  blob = g_dbus_message_to_blob (message, &size, G_DBUS_CAPABILITY_FLAGS_NONE, &error);
  g_assert_no_error (error);
  parsed = g_dbus_message_new_from_blob (blob, size, G_DBUS_CAPABILITY_FLAGS_NONE, &error);
  if (parsed == NULL)
    {
      g_print ("g_dbus_message_new_from_blob() on a blob of %" G_GSIZE_FORMAT " bytes that "
               "g_dbus_message_to_blob() wrote: %s\n", size, error->message);
      return TRUE;
    }
  if (!g_variant_equal (g_dbus_message_get_body (parsed), g_dbus_message_get_body (message)))
    {
      g_print ("the body read back differs from the one sent\n");
      return TRUE;
    }
  g_print ("the blob round trip works\n");
  return FALSE;
}

static void
on_closed (GDBusConnection *connection, gboolean remote_peer_vanished, GError *error,
           gpointer user_data)
{
  gboolean *closed = user_data;

  g_print ("the receiving connection closed (remote peer vanished: %s): %s\n",
           remote_peer_vanished ? "yes" : "no", error != NULL ? error->message : "no error");
  *closed = TRUE;
}

static gboolean
on_timeout (gpointer user_data)
{
  gboolean *timed_out = user_data;

  *timed_out = TRUE;
  return G_SOURCE_REMOVE;
}

static GDBusConnection *
peer (int fd)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocket) socket = g_socket_new_from_fd (fd, &error);
  g_autoptr(GSocketConnection) stream = NULL;
  GDBusConnection *connection;

  g_assert_no_error (error);
  stream = g_socket_connection_factory_create_connection (socket);
  /* no authentication: a plain peer-to-peer link, no bus involved */
  connection = g_dbus_connection_new_sync (G_IO_STREAM (stream), NULL,
                                           G_DBUS_CONNECTION_FLAGS_NONE, NULL, NULL, &error);
  g_assert_no_error (error);
  return connection;
}

/* Step 2: what the receiving connection does with it. */
static gboolean
connection_closes (void)
{
  int fds[2];
  g_autoptr(GDBusConnection) sender = NULL;
  g_autoptr(GDBusConnection) receiver = NULL;
  g_autoptr(GDBusMessage) message = undecodable_signal ();
  g_autoptr(GError) error = NULL;
  gboolean closed = FALSE, timed_out = FALSE;
  guint timeout_id;

  if (socketpair (AF_UNIX, SOCK_STREAM, 0, fds) != 0)
    g_error ("socketpair: %s", g_strerror (errno));
  sender = peer (fds[0]);
  receiver = peer (fds[1]);
  g_dbus_connection_set_exit_on_close (receiver, FALSE);
  g_signal_connect (receiver, "closed", G_CALLBACK (on_closed), &closed);

  if (!g_dbus_connection_send_message (sender, message, G_DBUS_SEND_MESSAGE_FLAGS_NONE,
                                       NULL, &error))
    g_error ("send: %s", error->message);
  timeout_id = g_timeout_add (1000, on_timeout, &timed_out);
  while (!closed && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (!timed_out)
    g_source_remove (timeout_id);
  if (!closed)
    g_print ("the receiving connection is still open after 1 s\n");
  return closed;
}

int
main (void)
{
  gboolean bug = FALSE;

  g_print ("GLib %u.%u.%u\n", glib_major_version, glib_minor_version, glib_micro_version);
  bug |= round_trip_fails ();
  bug |= connection_closes ();
  g_print (bug ? "BUG: GDBus cannot decode a valid message and drops the connection\n"
               : "fixed: the message decodes and the connection stays\n");
  return bug ? 1 : 0;
}
