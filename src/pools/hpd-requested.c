/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hpd-requested.h"
#include "hpd-run-state.h"

#define GROUP "minimum"

void
hpd_requested_note (const char *root, const char *pool_name, guint64 pages)
{
  g_autoptr(GKeyFile) file = hpd_run_state_load (root, HPD_REQUESTED_FILE);
  g_autofree char *what = g_strdup_printf ("the requested %s pool", pool_name);

  g_key_file_set_uint64 (file, GROUP, pool_name, pages);
  hpd_run_state_save (root, HPD_REQUESTED_FILE, file, what);
}

guint64
hpd_requested_get (const char *root, const char *pool_name)
{
  g_autoptr(GKeyFile) file = hpd_run_state_load (root, HPD_REQUESTED_FILE);

  return g_key_file_get_uint64 (file, GROUP, pool_name, NULL);
}

gboolean
hpd_requested_lookup (const char *root, const char *pool_name, guint64 *pages)
{
  g_autoptr(GKeyFile) file = hpd_run_state_load (root, HPD_REQUESTED_FILE);
  g_autoptr(GError) error = NULL;

  *pages = g_key_file_get_uint64 (file, GROUP, pool_name, &error);
  return error == NULL;
}
