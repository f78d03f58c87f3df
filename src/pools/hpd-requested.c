/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hpd-requested.h"
#include "hpd-run-state.h"

#define GROUP "minimum"

struct _HpdRequested
{
  char *root;
  /* the values; lookups on the main thread take only this lock, never
   * one held across a file write */
  GMutex lock;
  GKeyFile *values;
  /* taken before @lock by writers: the files are written one after the
   * other, each with the values as they were when it took this lock, so
   * the last one written holds the last change */
  GMutex save_lock;
};

HpdRequested *
hpd_requested_new (const char *root)
{
  HpdRequested *self = g_new0 (HpdRequested, 1);

  self->root = g_strdup (root);
  g_mutex_init (&self->lock);
  g_mutex_init (&self->save_lock);
  self->values = hpd_run_state_load (root, HPD_REQUESTED_FILE);
  return self;
}

void
hpd_requested_free (HpdRequested *self)
{
  if (self == NULL)
    return;
  g_key_file_unref (self->values);
  g_mutex_clear (&self->save_lock);
  g_mutex_clear (&self->lock);
  g_free (self->root);
  g_free (self);
}

void
hpd_requested_note (HpdRequested *self, const char *pool_name, guint64 pages)
{
  g_autofree char *what = g_strdup_printf ("the requested %s pool", pool_name);
  g_autofree char *text = NULL;
  gsize length;

  g_mutex_lock (&self->save_lock);
  g_mutex_lock (&self->lock);
  g_key_file_set_uint64 (self->values, GROUP, pool_name, pages);
  text = g_key_file_to_data (self->values, &length, NULL);
  g_mutex_unlock (&self->lock);
  hpd_run_state_save_data (self->root, HPD_REQUESTED_FILE, text, length, what);
  g_mutex_unlock (&self->save_lock);
}

gboolean
hpd_requested_lookup (HpdRequested *self, const char *pool_name, guint64 *pages)
{
  g_autoptr(GError) error = NULL;

  g_mutex_lock (&self->lock);
  *pages = g_key_file_get_uint64 (self->values, GROUP, pool_name, &error);
  g_mutex_unlock (&self->lock);
  if (error != NULL)
    *pages = 0;
  return error == NULL;
}
