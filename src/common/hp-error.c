/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <gio/gio.h>

#include "hp-error.h"

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

GError *
hp_error_to_bus (const GError *error)
{
  HpError code = HP_ERROR_FAILED;

  if (error->domain == HP_ERROR)
    return g_error_copy (error);

  if (error->domain == G_IO_ERROR)
    {
      switch (error->code)
        {
        case G_IO_ERROR_INVALID_ARGUMENT:
          code = HP_ERROR_INVALID_ARGS;
          break;
        case G_IO_ERROR_NOT_SUPPORTED:
        case G_IO_ERROR_NOT_FOUND:
          code = HP_ERROR_NOT_SUPPORTED;
          break;
        case G_IO_ERROR_BUSY:
          code = HP_ERROR_BUSY;
          break;
        default:
          break;
        }
    }

  return g_error_new_literal (HP_ERROR, code, error->message);
}
