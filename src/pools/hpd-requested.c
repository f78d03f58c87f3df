/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hpd-requested.h"
#include "hpd-run-state.h"

#define GROUP "minimum"

struct _HpdRequested
{
  HpdRunState *values;
};

HpdRequested *
hpd_requested_new (const char *root)
{
  HpdRequested *self = g_new0 (HpdRequested, 1);

  self->values = hpd_run_state_new (root, HPD_REQUESTED_FILE);
  return self;
}

void
hpd_requested_free (HpdRequested *self)
{
  if (self == NULL)
    return;
  hpd_run_state_free (self->values);
  g_free (self);
}

void
hpd_requested_note (HpdRequested *self, const char *pool_name, guint64 pages)
{
  g_autofree char *what = g_strdup_printf ("the requested %s pool", pool_name);

  g_key_file_set_uint64 (hpd_run_state_begin (self->values), GROUP, pool_name, pages);
  hpd_run_state_commit (self->values, what);
}

gboolean
hpd_requested_lookup (HpdRequested *self, const char *pool_name, guint64 *pages)
{
  g_autoptr(GError) error = NULL;

  *pages = g_key_file_get_uint64 (hpd_run_state_lock (self->values), GROUP, pool_name, &error);
  hpd_run_state_unlock (self->values);
  if (error != NULL)
    *pages = 0;
  return error == NULL;
}
