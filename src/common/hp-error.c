/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <gio/gio.h>

#include "hp-error.h"
#include "hp-names.h"

static const GDBusErrorEntry hp_error_entries[] = {
  { HP_ERROR_FAILED,          "org.hugepages.Manager.Error.Failed" },
  { HP_ERROR_NOT_AUTHORIZED,  "org.hugepages.Manager.Error.NotAuthorized" },
  { HP_ERROR_INVALID_ARGS,    "org.hugepages.Manager.Error.InvalidArgs" },
  { HP_ERROR_NOT_SUPPORTED,   "org.hugepages.Manager.Error.NotSupported" },
  { HP_ERROR_BUSY,            "org.hugepages.Manager.Error.Busy" },
  { HP_ERROR_LIMIT_EXCEEDED,  "org.hugepages.Manager.Error.LimitExceeded" },
  { HP_ERROR_NO_SUCH_USER,    "org.hugepages.Manager.Error.NoSuchUser" },
  { HP_ERROR_NO_SUCH_GROUP,   "org.hugepages.Manager.Error.NoSuchGroup" },
  { HP_ERROR_NOT_MOUNTED,     "org.hugepages.Manager.Error.NotMounted" },
};

G_STATIC_ASSERT (G_N_ELEMENTS (hp_error_entries) == HP_ERROR_NOT_MOUNTED + 1);

GQuark
hp_error_quark (void)
{
  static gsize quark = 0;

  g_dbus_error_register_error_domain ("hp-error-quark", &quark,
                                      hp_error_entries,
                                      G_N_ELEMENTS (hp_error_entries));
  return (GQuark) quark;
}

/* How errors of other domains reach the bus: file and parse errors say
 * what kind of problem it was, as every caller's error handling (the
 * client's exit status, the Cockpit page's sentences) depends on the type.
 * A code of ANY_CODE covers the whole domain; the first match wins. */
#define ANY_CODE (-1)

typedef struct {
  GQuark (*domain)(void);
  gint code;
  HpError to;
} HpErrorMapping;

static const HpErrorMapping hp_error_mappings[] = {
  /* what the caller sent is wrong (a kernel file that is a directory or a
   * link loop is the machine's fault, not the caller's: Failed) */
  { g_io_error_quark, G_IO_ERROR_INVALID_ARGUMENT, HP_ERROR_INVALID_ARGS },
  { g_io_error_quark, G_IO_ERROR_INVALID_FILENAME, HP_ERROR_INVALID_ARGS },
  { g_io_error_quark, G_IO_ERROR_FILENAME_TOO_LONG, HP_ERROR_INVALID_ARGS },
  { g_file_error_quark, G_FILE_ERROR_INVAL, HP_ERROR_INVALID_ARGS },
  { g_file_error_quark, G_FILE_ERROR_NAMETOOLONG, HP_ERROR_INVALID_ARGS },
  { g_key_file_error_quark, ANY_CODE, HP_ERROR_INVALID_ARGS },
  { g_markup_error_quark, ANY_CODE, HP_ERROR_INVALID_ARGS },
  { g_variant_parse_error_quark, ANY_CODE, HP_ERROR_INVALID_ARGS },
  { g_number_parser_error_quark, ANY_CODE, HP_ERROR_INVALID_ARGS },
  { g_convert_error_quark, ANY_CODE, HP_ERROR_INVALID_ARGS },
  { g_option_error_quark, ANY_CODE, HP_ERROR_INVALID_ARGS },
  { g_dbus_error_quark, G_DBUS_ERROR_INVALID_ARGS, HP_ERROR_INVALID_ARGS },
  { g_dbus_error_quark, G_DBUS_ERROR_INVALID_SIGNATURE, HP_ERROR_INVALID_ARGS },
  /* this machine cannot do it: a file the kernel lacks or keeps read-only */
  { g_io_error_quark, G_IO_ERROR_NOT_FOUND, HP_ERROR_NOT_SUPPORTED },
  { g_io_error_quark, G_IO_ERROR_NOT_SUPPORTED, HP_ERROR_NOT_SUPPORTED },
  { g_io_error_quark, G_IO_ERROR_PERMISSION_DENIED, HP_ERROR_NOT_SUPPORTED },
  { g_io_error_quark, G_IO_ERROR_READ_ONLY, HP_ERROR_NOT_SUPPORTED },
  { g_file_error_quark, G_FILE_ERROR_NOENT, HP_ERROR_NOT_SUPPORTED },
  { g_file_error_quark, G_FILE_ERROR_ACCES, HP_ERROR_NOT_SUPPORTED },
  { g_file_error_quark, G_FILE_ERROR_PERM, HP_ERROR_NOT_SUPPORTED },
  { g_file_error_quark, G_FILE_ERROR_ROFS, HP_ERROR_NOT_SUPPORTED },
  { g_file_error_quark, G_FILE_ERROR_NODEV, HP_ERROR_NOT_SUPPORTED },
  { g_file_error_quark, G_FILE_ERROR_NXIO, HP_ERROR_NOT_SUPPORTED },
  { g_spawn_error_quark, G_SPAWN_ERROR_NOENT, HP_ERROR_NOT_SUPPORTED },
  { g_dbus_error_quark, G_DBUS_ERROR_NOT_SUPPORTED, HP_ERROR_NOT_SUPPORTED },
  { g_dbus_error_quark, G_DBUS_ERROR_UNKNOWN_METHOD, HP_ERROR_NOT_SUPPORTED },
  { g_dbus_error_quark, G_DBUS_ERROR_SERVICE_UNKNOWN, HP_ERROR_NOT_SUPPORTED },
  /* try again later */
  { g_io_error_quark, G_IO_ERROR_BUSY, HP_ERROR_BUSY },
  { g_io_error_quark, G_IO_ERROR_WOULD_BLOCK, HP_ERROR_BUSY },
  { g_io_error_quark, G_IO_ERROR_TIMED_OUT, HP_ERROR_BUSY },
  { g_io_error_quark, G_IO_ERROR_TOO_MANY_OPEN_FILES, HP_ERROR_BUSY },
  { g_file_error_quark, G_FILE_ERROR_AGAIN, HP_ERROR_BUSY },
  { g_file_error_quark, G_FILE_ERROR_INTR, HP_ERROR_BUSY },
  { g_file_error_quark, G_FILE_ERROR_MFILE, HP_ERROR_BUSY },
  { g_file_error_quark, G_FILE_ERROR_NFILE, HP_ERROR_BUSY },
  { g_dbus_error_quark, G_DBUS_ERROR_LIMITS_EXCEEDED, HP_ERROR_BUSY },
  { g_dbus_error_quark, G_DBUS_ERROR_TIMEOUT, HP_ERROR_BUSY },
  { g_dbus_error_quark, G_DBUS_ERROR_TIMED_OUT, HP_ERROR_BUSY },
  { g_dbus_error_quark, G_DBUS_ERROR_NO_REPLY, HP_ERROR_BUSY },
  /* more than the machine has */
  { g_io_error_quark, G_IO_ERROR_NO_SPACE, HP_ERROR_LIMIT_EXCEEDED },
  { g_file_error_quark, G_FILE_ERROR_NOSPC, HP_ERROR_LIMIT_EXCEEDED },
  { g_file_error_quark, G_FILE_ERROR_NOMEM, HP_ERROR_LIMIT_EXCEEDED },
  { g_dbus_error_quark, G_DBUS_ERROR_NO_MEMORY, HP_ERROR_LIMIT_EXCEEDED },
  /* the caller may not */
  { g_dbus_error_quark, G_DBUS_ERROR_ACCESS_DENIED, HP_ERROR_NOT_AUTHORIZED },
  { g_dbus_error_quark, G_DBUS_ERROR_AUTH_FAILED, HP_ERROR_NOT_AUTHORIZED },
  /* the path is not a hugetlbfs mount */
  { g_io_error_quark, G_IO_ERROR_NOT_MOUNTED, HP_ERROR_NOT_MOUNTED },
};

GError *
hp_error_to_bus (const GError *error)
{
  HpError code = HP_ERROR_FAILED;

  if (error->domain == HP_ERROR)
    return g_error_copy (error);

  for (gsize i = 0; i < G_N_ELEMENTS (hp_error_mappings); i++)
    {
      const HpErrorMapping *m = &hp_error_mappings[i];

      if (error->domain == m->domain () && (m->code == ANY_CODE || m->code == error->code))
        {
          code = m->to;
          break;
        }
    }

  return g_error_new_literal (HP_ERROR, code, error->message);
}

/* What a refusal tells the caller it was not allowed to do. */
static const struct {
  const char *action;
  const char *refused;
} action_refusals[] = {
  { HP_ACTION_CONFIGURE_POOLS,    "Not authorized to configure huge page pools" },
  { HP_ACTION_MANAGE_MOUNTS,      "Not authorized to manage hugetlbfs mounts" },
  { HP_ACTION_CONFIGURE_TUNABLES, "Not authorized to change memory tunables" },
  { HP_ACTION_CONFIGURE_BOOT,     "Not authorized to change the boot configuration" },
  { HP_ACTION_INSPECT_USAGE,      "Not authorized to see other users' huge page usage" },
};

const char *
hp_error_refusal_for_action (const char *action)
{
  for (gsize i = 0; i < G_N_ELEMENTS (action_refusals); i++)
    if (g_strcmp0 (action_refusals[i].action, action) == 0)
      return action_refusals[i].refused;
  return "Not authorized";
}

const char *
hp_error_action_of_refusal (const char *message)
{
  for (gsize i = 0; i < G_N_ELEMENTS (action_refusals); i++)
    if (g_str_has_prefix (message, action_refusals[i].refused))
      return action_refusals[i].action;
  return NULL;
}
