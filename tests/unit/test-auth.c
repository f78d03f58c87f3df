/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Every method of the interface XML must be in the authorization table:
 * a method added without a polkit action would otherwise be denied only by
 * luck, or allowed by mistake. Read-only methods are listed here on
 * purpose. */
#include "config.h"

#include <gio/gio.h>

#include "hp-names.h"
#include "hpd-auth.h"

static const char *const read_only_methods[] = {
  "Explain",
  "GetClaims",
  NULL,
};

static gboolean
is_read_only (const char *method)
{
  for (gsize i = 0; read_only_methods[i] != NULL; i++)
    if (g_str_equal (read_only_methods[i], method))
      return TRUE;
  return FALSE;
}

static void
test_every_method_has_an_action (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "..", "data", "dbus",
                                                 "org.hugepages.Manager.xml", NULL);
  g_autofree char *xml = NULL;
  g_autoptr(GDBusNodeInfo) node = NULL;
  g_autoptr(GError) error = NULL;
  guint checked = 0;

  g_assert_true (g_file_get_contents (path, &xml, NULL, &error));
  node = g_dbus_node_info_new_for_xml (xml, &error);
  g_assert_no_error (error);

  for (guint i = 0; node->interfaces[i] != NULL; i++)
    {
      GDBusInterfaceInfo *iface = node->interfaces[i];

      for (guint j = 0; iface->methods != NULL && iface->methods[j] != NULL; j++)
        {
          const char *action = hpd_auth_action_for_method (iface->name, iface->methods[j]->name);

          if (is_read_only (iface->methods[j]->name))
            g_assert_null (action);
          else
            {
              g_test_message ("%s.%s -> %s", iface->name, iface->methods[j]->name, action);
              g_assert_nonnull (action);
              g_assert_true (g_str_has_prefix (action, "org.hugepages.manager."));
            }
          checked++;
        }
    }

  g_assert_cmpuint (checked, >=, 4);
}

static void
test_unknown_methods_have_none (void)
{
  g_assert_null (hpd_auth_action_for_method (HP_PAGE_SIZE_INTERFACE, "NoSuchMethod"));
  g_assert_null (hpd_auth_action_for_method ("org.example.Other", "SetMinimum"));
  g_assert_null (hpd_auth_action_for_method (NULL, NULL));
  g_assert_cmpstr (hpd_auth_action_for_method (HP_PAGE_SIZE_INTERFACE, "SetMinimum"), ==,
                   HP_ACTION_CONFIGURE_POOLS);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/auth/every-method-has-an-action", test_every_method_has_an_action);
  g_test_add_func ("/auth/unknown-methods-have-none", test_unknown_methods_have_none);
  return g_test_run ();
}
