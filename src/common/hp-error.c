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
