/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The connection to hugepagesd and the objects a command works on. */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "hp-error.h"
#include "hp-names.h"
#include "hp-units.h"
#include "hpctl.h"

/* Reading needs no authorization and the service answers from sysfs. */
#define READ_TIMEOUT_MS 25000

static gboolean
cannot_reach (HpctlContext *ctx, const char *reason)
{
  g_autofree char *bus = hpctl_describe_bus (ctx);

  g_printerr ("%s: cannot reach hugepagesd on %s: %s\n", g_get_prgname (), bus, reason);
  return FALSE;
}

/* Calls @method of @iface on the object at HP_MANAGER_PATH with no
 * arguments; returns its one result and, in @owner, the unique name that
 * answered (the first call may have started the service). */
static GVariant *
call_manager_path (HpctlContext *ctx, const char *name, const char *iface,
                   const char *method, GVariant *args, char **owner, GError **error)
{
  g_autoptr(GDBusMessage) message = g_dbus_message_new_method_call (name, HP_MANAGER_PATH,
                                                                    iface, method);
  g_autoptr(GDBusMessage) reply = NULL;
  GVariant *body;

  if (args != NULL)
    g_dbus_message_set_body (message, args);
  reply = g_dbus_connection_send_message_with_reply_sync (ctx->bus, message,
                                                          G_DBUS_SEND_MESSAGE_FLAGS_NONE,
                                                          READ_TIMEOUT_MS, NULL, NULL, error);
  if (reply == NULL || g_dbus_message_to_gerror (reply, error))
    return NULL;
  body = g_dbus_message_get_body (reply);
  if (body == NULL || !g_variant_is_of_type (body, G_VARIANT_TYPE_TUPLE) ||
      g_variant_n_children (body) != 1)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "unexpected reply to %s", method);
      return NULL;
    }
  if (owner != NULL)
    *owner = g_strdup (g_dbus_message_get_sender (reply));
  return g_variant_get_child_value (body, 0);
}

/* Fills a proxy made with DO_NOT_LOAD_PROPERTIES from an a{sv}. */
static void
seed_properties (GDBusProxy *proxy, GVariant *properties)
{
  GVariantIter iter;
  const char *key;
  GVariant *value;

  g_variant_iter_init (&iter, properties);
  while (g_variant_iter_loop (&iter, "{&sv}", &key, &value))
    g_dbus_proxy_set_cached_property (proxy, key, value);
}

/* Every command reads the Manager, most the page sizes too: one GetAll and
 * one GetManagedObjects, instead of a GetAll, a match rule and a name-owner
 * lookup per object (a proxy's own start-up), answer them all. The proxies
 * are then made without loading anything and talk to the unique name that
 * answered, so they need no name watching of their own; a ping would have
 * started the service just the same. Without @manager_properties the
 * GetManagedObjects alone is made: for the commands that read only the
 * page sizes, which it holds whole. */
static gboolean
connect_reading (HpctlContext *ctx, gboolean manager_properties)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) properties = NULL;
  g_autofree char *version = NULL;

  g_return_val_if_fail (ctx->bus == NULL, FALSE);

  ctx->bus = hpctl_open_bus (ctx, &error);
  if (ctx->bus == NULL)
    return cannot_reach (ctx, error->message);
  if (ctx->host == NULL)
    hpctl_watch_refusals (ctx);

  if (manager_properties)
    {
      properties = call_manager_path (ctx, HP_BUS_NAME, "org.freedesktop.DBus.Properties",
                                      "GetAll", g_variant_new ("(s)", HP_MANAGER_INTERFACE),
                                      &ctx->owner, &error);
      if (properties == NULL || ctx->owner == NULL)
        {
          if (error == NULL)
            return cannot_reach (ctx, "the reply had no sender");
          g_dbus_error_strip_remote_error (error);
          return cannot_reach (ctx, error->message);
        }
    }
  ctx->objects = call_manager_path (ctx, ctx->owner != NULL ? ctx->owner : HP_BUS_NAME,
                                    "org.freedesktop.DBus.ObjectManager", "GetManagedObjects",
                                    NULL, ctx->owner != NULL ? NULL : &ctx->owner, &error);
  if (ctx->objects == NULL || ctx->owner == NULL)
    {
      if (error == NULL)
        return cannot_reach (ctx, "the reply had no sender");
      g_dbus_error_strip_remote_error (error);
      return cannot_reach (ctx, error->message);
    }

  ctx->manager = hp_dbus_manager_proxy_new_sync (ctx->bus,
                                                 G_DBUS_PROXY_FLAGS_DO_NOT_CONNECT_SIGNALS |
                                                 G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES |
                                                 G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START,
                                                 ctx->owner, HP_MANAGER_PATH, NULL, &error);
  if (ctx->manager == NULL)
    {
      g_dbus_error_strip_remote_error (error);
      return cannot_reach (ctx, error->message);
    }
  g_dbus_proxy_set_default_timeout (G_DBUS_PROXY (ctx->manager), READ_TIMEOUT_MS);
  if (!manager_properties)
    return TRUE;
  seed_properties (G_DBUS_PROXY (ctx->manager), properties);

  version = hp_dbus_manager_dup_version (ctx->manager);
  if (version == NULL)
    return cannot_reach (ctx, "it did not return its properties");
  return TRUE;
}

gboolean
hpctl_connect (HpctlContext *ctx)
{
  return connect_reading (ctx, TRUE);
}

gboolean
hpctl_connect_page_sizes (HpctlContext *ctx)
{
  return connect_reading (ctx, FALSE);
}

gboolean
hpctl_check_size_syntax (const char *text, GError **error)
{
  guint64 bytes;

  if (strcmp (text, "DEFAULT") == 0)
    return TRUE;
  if (g_ascii_strcasecmp (text, "DEFAULT") == 0)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "'%s' is not a size; the default size is spelt DEFAULT", text);
      return FALSE;
    }
  return hp_parse_size (text, &bytes, error);
}

static char *
list_sizes (GVariant *sizes)
{
  g_autoptr(GString) text = g_string_new (NULL);

  for (gsize i = 0; i < g_variant_n_children (sizes); i++)
    {
      g_autofree char *name = NULL;
      guint64 size;

      g_variant_get_child (sizes, i, "t", &size);
      name = hp_size_name (size);
      g_string_append_printf (text, "%s%s", i > 0 ? ", " : "", name);
    }
  return g_strdup (text->len > 0 ? text->str : "none");
}

gboolean
hpctl_resolve_size (HpctlContext *ctx, const char *text, guint64 *size, GError **error)
{
  GVariant *sizes = hp_dbus_manager_get_page_sizes (ctx->manager);
  g_autofree char *available = NULL;
  guint64 wanted;

  /* Exactly as hugeadm spells it, so scripts carry over. */
  if (strcmp (text, "DEFAULT") == 0)
    {
      wanted = hp_dbus_manager_get_default_page_size (ctx->manager);
      if (wanted == 0)
        {
          g_set_error_literal (error, HP_ERROR, HP_ERROR_NOT_SUPPORTED,
                               "the kernel has no default huge page size");
          return FALSE;
        }
    }
  else if (!hp_parse_size (text, &wanted, error))
    return FALSE;

  for (gsize i = 0; sizes != NULL && i < g_variant_n_children (sizes); i++)
    {
      guint64 offered;

      g_variant_get_child (sizes, i, "t", &offered);
      if (offered == wanted)
        {
          *size = wanted;
          return TRUE;
        }
    }

  available = sizes != NULL ? list_sizes (sizes) : g_strdup ("none");
  g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
               "'%s' is not a huge page size of this machine (available: %s)",
               text, available);
  return FALSE;
}

gboolean
hpctl_resolve_size_arg (HpctlContext *ctx, const char *text, guint64 *size, int *status)
{
  g_autoptr(GError) error = NULL;

  if (!hpctl_check_size_syntax (text, &error))
    {
      *status = hpctl_usage_error ("%s", error->message);
      return FALSE;
    }
  if (!hpctl_connect (ctx))
    {
      *status = HPCTL_EXIT_ERROR;
      return FALSE;
    }
  if (!hpctl_resolve_size (ctx, text, size, &error))
    {
      *status = hpctl_usage_error ("%s", error->message);
      return FALSE;
    }
  return TRUE;
}

/* The a{sv} of @iface at @path in a GetManagedObjects result, or NULL. */
static GVariant *
find_interface (GVariant *objects, const char *path, const char *iface)
{
  g_autoptr(GVariant) interfaces = NULL;

  if (objects == NULL)
    return NULL;
  interfaces = g_variant_lookup_value (objects, path, G_VARIANT_TYPE ("a{sa{sv}}"));
  if (interfaces == NULL)
    return NULL;
  return g_variant_lookup_value (interfaces, iface, G_VARIANT_TYPE_VARDICT);
}

HpDBusManagerPageSize *
hpctl_get_page_size (HpctlContext *ctx, guint64 size, GError **error)
{
  g_autofree char *path = g_strdup_printf (HP_PAGE_SIZE_PATH_PREFIX "%" G_GUINT64_FORMAT "kB",
                                           size / 1024);
  g_autoptr(HpDBusManagerPageSize) page_size = NULL;
  g_autofree char *name = NULL;

  g_autoptr(GVariant) properties = NULL;

  page_size = hp_dbus_manager_page_size_proxy_new_sync (ctx->bus,
                                                        G_DBUS_PROXY_FLAGS_DO_NOT_CONNECT_SIGNALS |
                                                        G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES |
                                                        G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START,
                                                        ctx->owner, path, NULL, error);
  if (page_size == NULL)
    return NULL;
  g_dbus_proxy_set_default_timeout (G_DBUS_PROXY (page_size), READ_TIMEOUT_MS);

  /* from hpctl_connect ()'s GetManagedObjects */
  properties = find_interface (ctx->objects, path, HP_PAGE_SIZE_INTERFACE);
  if (properties != NULL)
    seed_properties (G_DBUS_PROXY (page_size), properties);

  /* an object without properties is one the service does not have */
  name = hp_dbus_manager_page_size_dup_name (page_size);
  if (name == NULL || hp_dbus_manager_page_size_get_size (page_size) != size)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_FAILED,
                   "hugepagesd has no pool object at %s", path);
      return NULL;
    }
  return g_steal_pointer (&page_size);
}

static gint
compare_size (gconstpointer a, gconstpointer b)
{
  guint64 x = hp_dbus_manager_page_size_get_size (*(HpDBusManagerPageSize *const *) a);
  guint64 y = hp_dbus_manager_page_size_get_size (*(HpDBusManagerPageSize *const *) b);

  return x < y ? -1 : x > y;
}

/* The sizes of the page size objects in a GetManagedObjects result. */
static GArray *
sizes_of_objects (GVariant *objects)
{
  GArray *sizes = g_array_new (FALSE, FALSE, sizeof (guint64));
  GVariantIter iter;
  const char *path;

  if (objects == NULL)
    return sizes;
  g_variant_iter_init (&iter, objects);
  while (g_variant_iter_next (&iter, "{&o@a{sa{sv}}}", &path, NULL))
    {
      g_autoptr(GVariant) properties = find_interface (objects, path, HP_PAGE_SIZE_INTERFACE);
      guint64 size;

      if (properties != NULL && g_variant_lookup (properties, "Size", "t", &size))
        g_array_append_val (sizes, size);
    }
  return sizes;
}

GPtrArray *
hpctl_get_page_sizes (HpctlContext *ctx, GError **error)
{
  g_autoptr(GVariant) listed = hp_dbus_manager_dup_page_sizes (ctx->manager);
  g_autoptr(GArray) sizes = NULL;
  g_autoptr(GPtrArray) result = g_ptr_array_new_with_free_func (g_object_unref);

  /* the Manager's list where its properties were read, else the objects */
  if (listed != NULL)
    {
      sizes = g_array_new (FALSE, FALSE, sizeof (guint64));
      for (gsize i = 0; i < g_variant_n_children (listed); i++)
        {
          guint64 size;

          g_variant_get_child (listed, i, "t", &size);
          g_array_append_val (sizes, size);
        }
    }
  else
    sizes = sizes_of_objects (ctx->objects);

  for (guint i = 0; i < sizes->len; i++)
    {
      HpDBusManagerPageSize *page_size = hpctl_get_page_size (ctx, g_array_index (sizes, guint64, i),
                                                              error);

      if (page_size == NULL)
        return NULL;
      g_ptr_array_add (result, page_size);
    }

  /* The API promises ascending order; the output formats depend on it. */
  g_ptr_array_sort (result, compare_size);
  return g_steal_pointer (&result);
}

GDBusCallFlags
hpctl_prepare_interactive (HpctlContext *ctx)
{
  /* Over SSH no agent of ours can answer the remote polkit (it asks an
   * agent of the bridge's session there, which has none): the remote
   * decides without asking, at once. See hpctl_remote_explain_denial (). */
  if (!ctx->ask_password || ctx->host != NULL)
    return G_DBUS_CALL_FLAGS_NONE;

  if (ctx->agent == NULL && isatty (STDIN_FILENO))
    ctx->agent = hpctl_agent_start ();
  return G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION;
}

GDBusCallFlags
hpctl_change_call_flags (HpctlContext *ctx, gboolean dry_run)
{
  return dry_run ? G_DBUS_CALL_FLAGS_NONE : hpctl_prepare_interactive (ctx);
}

void
hpctl_add_flag (GVariantBuilder *options, const char *name, gboolean set)
{
  if (set)
    g_variant_builder_add (options, "{sv}", name, g_variant_new_boolean (TRUE));
}

GOptionContext *
hpctl_command_options (const char *parameters, const char *summary, const char *description)
{
  GOptionContext *options = g_option_context_new (parameters);

  g_option_context_set_summary (options, summary);
  if (description != NULL)
    g_option_context_set_description (options, description);
  return options;
}
