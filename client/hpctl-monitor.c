/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* monitor: one line per change hugepagesd announces (PropertiesChanged,
 * objects added and removed, its own signals), with the time, until
 * Ctrl-C; with --json one JSON object per line. When the service leaves the
 * bus (idle exit, restart) it says so and waits for it to come back. */
#include "config.h"

#include <stdio.h>

#include <glib-unix.h>

#include "hp-names.h"
#include "hpctl.h"

/* Longer values (Mounts, ThpSettings) are cut: one line per change. */
#define MAX_VALUE_CHARS 160

typedef struct {
  GDBusConnection *bus;
  GMainLoop *loop;
  gboolean json;
  int status;               /* the exit status once the loop ends */
  char *owner;              /* unique name of the service, NULL when gone */
  guint subscription;       /* its signals */
  GHashTable *values;       /* "path\ninterface\nproperty" -> GVariant */
  GHashTable *labels;       /* object path -> "2MB", "Manager" */
} Monitor;

static void
say (const char *format, ...) G_GNUC_PRINTF (1, 2);

static void
say (const char *format, ...)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *stamp = g_date_time_format (now, "%H:%M:%S");
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  g_print ("%s %s\n", stamp, text);
  /* a line as it happens, also into a pipe or a file */
  fflush (stdout);
}

static const char *label_of (Monitor *m, const char *path);

/* An event for --json: time, event and, for one object, its label and
 * path; the caller adds the rest and prints it with print_event (). */
static JsonBuilder *
begin_event (Monitor *m, const char *event, const char *path)
{
  JsonBuilder *builder = hpctl_json_begin ();
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *stamp = g_date_time_format_iso8601 (now);

  hpctl_json_add_string (builder, "time", stamp);
  hpctl_json_add_string (builder, "event", event);
  if (path != NULL)
    {
      hpctl_json_add_string (builder, "object", label_of (m, path));
      hpctl_json_add_string (builder, "path", path);
    }
  return builder;
}

static void
print_event (JsonBuilder *builder)
{
  g_autoptr(JsonNode) root = NULL;

  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  hpctl_print_json_line (root);
}

/* A property's value as the service sent it: dictionary keys are left as
 * they are, since some are data (the THP setting names), not field names. */
static void
add_raw_value (JsonBuilder *builder, const char *name, GVariant *value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_value (builder, hpctl_json_from_variant_raw (value));
}

static const char *
label_of (Monitor *m, const char *path)
{
  const char *label = g_hash_table_lookup (m->labels, path);

  if (label != NULL)
    return label;
  if (g_str_equal (path, HP_MANAGER_PATH))
    return "Manager";
  return path;
}

static char *
value_text (GVariant *value)
{
  g_autofree char *text = NULL;

  if (value == NULL)
    return g_strdup ("?");
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
    text = g_variant_dup_string (value, NULL);
  else
    text = g_variant_print (value, FALSE);
  if (g_utf8_strlen (text, -1) > MAX_VALUE_CHARS)
    {
      *g_utf8_offset_to_pointer (text, MAX_VALUE_CHARS) = '\0';
      return g_strconcat (text, "…", NULL);
    }
  return g_steal_pointer (&text);
}

static char *
value_key (const char *path, const char *iface, const char *name)
{
  return g_strdup_printf ("%s\n%s\n%s", path, iface, name);
}

/* Remembers the properties of one interface, and the page size's name. */
static void
remember (Monitor *m, const char *path, const char *iface, GVariant *properties)
{
  GVariantIter iter;
  const char *name;
  GVariant *value;

  g_variant_iter_init (&iter, properties);
  while (g_variant_iter_next (&iter, "{&sv}", &name, &value))
    {
      if (g_str_equal (iface, HP_PAGE_SIZE_INTERFACE) && g_str_equal (name, "Name") &&
          g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
        g_hash_table_replace (m->labels, g_strdup (path), g_variant_dup_string (value, NULL));
      g_hash_table_replace (m->values, value_key (path, iface, name), value);
    }
}

static void
remember_object (Monitor *m, const char *path, GVariant *interfaces)
{
  GVariantIter iter;
  const char *iface;
  GVariant *properties;

  g_variant_iter_init (&iter, interfaces);
  while (g_variant_iter_next (&iter, "{&s@a{sv}}", &iface, &properties))
    {
      remember (m, path, iface, properties);
      g_variant_unref (properties);
    }
}

/* Everything the service exports now, so that changes show old → new. */
static void
load_objects (Monitor *m)
{
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) objects = NULL;
  GVariantIter iter;
  const char *path;
  GVariant *interfaces;

  g_hash_table_remove_all (m->values);
  reply = g_dbus_connection_call_sync (m->bus, HP_BUS_NAME, HP_MANAGER_PATH,
                                       "org.freedesktop.DBus.ObjectManager", "GetManagedObjects",
                                       NULL, G_VARIANT_TYPE ("(a{oa{sa{sv}}})"),
                                       G_DBUS_CALL_FLAGS_NO_AUTO_START, 25000, NULL, NULL);
  if (reply == NULL)
    return;
  objects = g_variant_get_child_value (reply, 0);
  g_variant_iter_init (&iter, objects);
  while (g_variant_iter_next (&iter, "{&o@a{sa{sv}}}", &path, &interfaces))
    {
      remember_object (m, path, interfaces);
      g_variant_unref (interfaces);
    }
  {
    /* the Manager's own properties are not among the managed objects */
    g_autoptr(GVariant) props = g_dbus_connection_call_sync (m->bus, HP_BUS_NAME, HP_MANAGER_PATH,
                                                             "org.freedesktop.DBus.Properties", "GetAll",
                                                             g_variant_new ("(s)", HP_MANAGER_INTERFACE),
                                                             G_VARIANT_TYPE ("(a{sv})"),
                                                             G_DBUS_CALL_FLAGS_NO_AUTO_START, 25000,
                                                             NULL, NULL);
    if (props != NULL)
      {
        g_autoptr(GVariant) dict = g_variant_get_child_value (props, 0);
        remember (m, HP_MANAGER_PATH, HP_MANAGER_INTERFACE, dict);
      }
  }
}

static void
properties_changed (Monitor *m, const char *path, GVariant *parameters)
{
  const char *iface;
  g_autoptr(GVariant) changed = NULL;
  g_autofree const char **invalidated = NULL;
  GVariantIter iter;
  const char *name;
  GVariant *value;

  g_variant_get (parameters, "(&s@a{sv}^a&s)", &iface, &changed, &invalidated);
  g_variant_iter_init (&iter, changed);
  while (g_variant_iter_next (&iter, "{&sv}", &name, &value))
    {
      g_autofree char *key = value_key (path, iface, name);
      GVariant *old = g_hash_table_lookup (m->values, key);
      g_autofree char *old_text = old ? value_text (old) : NULL;
      g_autofree char *new_text = value_text (value);

      if (old != NULL && g_variant_equal (old, value))
        {
          g_variant_unref (value);
          continue;
        }
      if (m->json)
        {
          g_autoptr(JsonBuilder) event = begin_event (m, "property_changed", path);

          hpctl_json_add_string (event, "interface", iface);
          hpctl_json_add_string (event, "property", name);
          add_raw_value (event, "value", value);
          if (old != NULL)
            add_raw_value (event, "old_value", old);
          print_event (event);
        }
      else if (old_text != NULL)
        say ("%s %s %s → %s", label_of (m, path), name, old_text, new_text);
      else
        say ("%s %s %s", label_of (m, path), name, new_text);
      g_hash_table_replace (m->values, g_steal_pointer (&key), value);
    }
  for (gsize i = 0; invalidated[i] != NULL; i++)
    {
      g_autofree char *key = value_key (path, iface, invalidated[i]);

      g_hash_table_remove (m->values, key);
      if (m->json)
        {
          g_autoptr(JsonBuilder) event = begin_event (m, "property_invalidated", path);

          hpctl_json_add_string (event, "interface", iface);
          hpctl_json_add_string (event, "property", invalidated[i]);
          print_event (event);
        }
      else
        say ("%s %s changed", label_of (m, path), invalidated[i]);
    }
}

static void
on_signal (GDBusConnection *bus, const char *sender, const char *path, const char *iface,
           const char *member, GVariant *parameters, gpointer user_data)
{
  Monitor *m = user_data;

  /* anyone may send a signal with these names: only the service's count */
  if (m->owner == NULL || g_strcmp0 (sender, m->owner) != 0 ||
      !(g_str_equal (path, HP_MANAGER_PATH) || g_str_has_prefix (path, HP_MANAGER_PATH "/")))
    return;

  if (g_str_equal (iface, "org.freedesktop.DBus.Properties") &&
      g_str_equal (member, "PropertiesChanged") &&
      g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(sa{sv}as)")))
    properties_changed (m, path, parameters);
  else if (g_str_equal (iface, "org.freedesktop.DBus.ObjectManager") &&
           g_str_equal (member, "InterfacesAdded") &&
           g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(oa{sa{sv}})")))
    {
      const char *object;
      g_autoptr(GVariant) interfaces = NULL;

      g_variant_get (parameters, "(&o@a{sa{sv}})", &object, &interfaces);
      remember_object (m, object, interfaces);
      if (m->json)
        {
          g_autoptr(JsonBuilder) event = begin_event (m, "object_added", object);
          print_event (event);
        }
      else
        say ("%s added", label_of (m, object));
    }
  else if (g_str_equal (iface, "org.freedesktop.DBus.ObjectManager") &&
           g_str_equal (member, "InterfacesRemoved") &&
           g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(oas)")))
    {
      const char *object;

      g_variant_get (parameters, "(&o@as)", &object, NULL);
      if (m->json)
        {
          g_autoptr(JsonBuilder) event = begin_event (m, "object_removed", object);
          print_event (event);
        }
      else
        say ("%s removed", label_of (m, object));
    }
  else if (m->json)
    {
      g_autoptr(JsonBuilder) event = begin_event (m, "signal", path);

      hpctl_json_add_string (event, "interface", iface);
      hpctl_json_add_string (event, "signal", member);
      add_raw_value (event, "arguments", parameters);
      print_event (event);
    }
  else
    {
      g_autofree char *args = g_variant_print (parameters, FALSE);
      say ("%s %s.%s %s", label_of (m, path), iface, member, args);
    }
}

static void
name_appeared (GDBusConnection *bus, const char *name, const char *owner, gpointer user_data)
{
  Monitor *m = user_data;
  gboolean again = m->owner != NULL || g_hash_table_size (m->values) > 0;

  g_free (m->owner);
  m->owner = g_strdup (owner);
  /* Every signal of this instance (by its unique name: anyone may send
   * signals with the service's interface and path). The well-known name
   * would do too, but only the bus knows its owner at each moment. */
  if (m->subscription != 0)
    g_dbus_connection_signal_unsubscribe (m->bus, m->subscription);
  m->subscription = g_dbus_connection_signal_subscribe (m->bus, owner, NULL, NULL, NULL, NULL,
                                                        G_DBUS_SIGNAL_FLAGS_NONE, on_signal, m, NULL);
  load_objects (m);
  if (m->json)
    {
      g_autoptr(JsonBuilder) event = begin_event (m, "service_on_bus", NULL);

      hpctl_json_add_string (event, "unique_name", owner);
      hpctl_json_add_bool (event, "again", again);
      print_event (event);
    }
  else
    say ("hugepagesd %s the bus (%s)", again ? "is back on" : "is on", owner);
}

static void
name_vanished (GDBusConnection *bus, const char *name, gpointer user_data)
{
  Monitor *m = user_data;

  const char *event = NULL;

  if (m->owner != NULL)
    event = "service_left_bus";
  else if (g_hash_table_size (m->values) == 0)
    event = "service_not_on_bus";
  if (event != NULL && m->json)
    {
      g_autoptr(JsonBuilder) builder = begin_event (m, event, NULL);
      print_event (builder);
    }
  else if (m->owner != NULL)
    say ("hugepagesd left the bus; waiting for it to come back");
  else if (event != NULL)
    say ("hugepagesd is not on the bus; waiting for it");
  g_clear_pointer (&m->owner, g_free);
  if (m->subscription != 0)
    g_dbus_connection_signal_unsubscribe (m->bus, m->subscription);
  m->subscription = 0;
}

/* Only a connection of our own (-H) closes without ending the process:
 * the ssh link broke. */
static void
bus_closed (GDBusConnection *bus, gboolean remote_peer_vanished, GError *error,
            gpointer user_data)
{
  Monitor *m = user_data;

  g_printerr ("%s: the connection to the bus was lost%s%s\n", g_get_prgname (),
              error != NULL ? ": " : "", error != NULL ? error->message : "");
  m->status = HPCTL_EXIT_ERROR;
  g_main_loop_quit (m->loop);
}

static gboolean
interrupted (gpointer user_data)
{
  g_main_loop_quit (((Monitor *) user_data)->loop);
  return G_SOURCE_CONTINUE;
}

int
hpctl_monitor (HpctlContext *ctx, GStrv args)
{
  g_autoptr(GOptionContext) options = g_option_context_new ("monitor");
  g_autoptr(GError) error = NULL;
  Monitor m = { NULL, };
  const GOptionEntry entries[] = { HPCTL_JSON_ENTRY (m.json), { NULL } };
  guint watch, sigint, sigterm;
  gulong closed;

  g_option_context_set_summary (options,
                                "Print one line per change hugepagesd announces, with the time:\n"
                                "  12:00:01 2MB Free 10 → 8\n"
                                "until interrupted (Ctrl-C). While a client that called it is on the\n"
                                "bus (this one is) the service reads the kernel again every second\n"
                                "(its --refresh-interval), so changes made by other programs show\n"
                                "within about that long. With --json, one JSON object per line for\n"
                                "each event (see README.md).");
  g_option_context_set_description (options, "Exit status: 0 interrupted, 1 error (including a\n"
                                    "lost connection), 2 usage error.");
  g_option_context_add_main_entries (options, entries, NULL);
  if (!hpctl_parse_command (ctx, options, &args))
    return HPCTL_EXIT_USAGE;
  if (args[1] != NULL)
    return hpctl_usage_error ("%s takes no arguments, but got '%s'", args[0], args[1]);

  m.bus = hpctl_open_bus (ctx, &error);
  if (m.bus == NULL)
    return hpctl_fail (error);
  closed = g_signal_connect (m.bus, "closed", G_CALLBACK (bus_closed), &m);
  m.loop = g_main_loop_new (NULL, FALSE);
  m.values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_variant_unref);
  m.labels = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  watch = g_bus_watch_name_on_connection (m.bus, HP_BUS_NAME, G_BUS_NAME_WATCHER_FLAGS_AUTO_START,
                                          name_appeared, name_vanished, &m, NULL);
  sigint = g_unix_signal_add (SIGINT, interrupted, &m);
  sigterm = g_unix_signal_add (SIGTERM, interrupted, &m);

  g_main_loop_run (m.loop);

  g_source_remove (sigint);
  g_source_remove (sigterm);
  g_bus_unwatch_name (watch);
  g_signal_handler_disconnect (m.bus, closed);
  if (m.subscription != 0)
    g_dbus_connection_signal_unsubscribe (m.bus, m.subscription);
  g_free (m.owner);
  g_hash_table_unref (m.values);
  g_hash_table_unref (m.labels);
  g_main_loop_unref (m.loop);
  g_object_unref (m.bus);
  return m.status;
}
