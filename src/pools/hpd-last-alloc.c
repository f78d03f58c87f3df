/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <string.h>

#include "hpd-last-alloc.h"
#include "hpd-run-state.h"

struct _HpdLastAlloc
{
  HpdRunState *records;
};

HpdLastAlloc *
hpd_last_alloc_new (const char *root)
{
  HpdLastAlloc *self = g_new0 (HpdLastAlloc, 1);

  self->records = hpd_run_state_new (root, HPD_LAST_ALLOC_FILE);
  return self;
}

void
hpd_last_alloc_free (HpdLastAlloc *self)
{
  if (self == NULL)
    return;
  hpd_run_state_free (self->records);
  g_free (self);
}

void
hpd_last_alloc_note (HpdLastAlloc *self, const char *pool_name, const HpdAllocReport *r)
{
  g_autofree char *what = g_strdup_printf ("the last %s allocation", pool_name);
  GKeyFile *file = hpd_run_state_begin (self->records);

  /* Each key's value is replaced where it is, and only "node" comes and
   * goes (a pool change after a node change has none): a value's block is
   * freed and at once taken again by the next. Making the group anew put
   * some 30 long-lived blocks wherever the heap had room at that moment:
   * during a burst of changes, on pages that the trim after the burst
   * could otherwise have returned. */
  if (!r->on_node)
    g_key_file_remove_key (file, pool_name, "node", NULL);
  g_key_file_set_int64 (file, pool_name, "ended-usec", r->ended_usec);
  g_key_file_set_int64 (file, pool_name, "duration-usec", r->duration_usec);
  g_key_file_set_uint64 (file, pool_name, "requested", r->requested);
  g_key_file_set_uint64 (file, pool_name, "achieved", r->achieved);
  if (r->on_node)
    g_key_file_set_uint64 (file, pool_name, "node", r->node);
  g_key_file_set_string (file, pool_name, "mode", r->hard ? "hard" : "plain");
  g_key_file_set_uint64 (file, pool_name, "writes", r->writes);
  hpd_run_state_commit (self->records, what);
}

static gboolean
lookup_locked (GKeyFile *file, const char *pool_name, HpdAllocReport *r)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *mode = NULL;
  guint64 node = 0, writes = 0;

  memset (r, 0, sizeof *r);
  if (!g_key_file_has_group (file, pool_name))
    return FALSE;

  r->ended_usec = g_key_file_get_int64 (file, pool_name, "ended-usec", &error);
  if (error == NULL)
    r->duration_usec = g_key_file_get_int64 (file, pool_name, "duration-usec", &error);
  if (error == NULL)
    r->requested = g_key_file_get_uint64 (file, pool_name, "requested", &error);
  if (error == NULL)
    r->achieved = g_key_file_get_uint64 (file, pool_name, "achieved", &error);
  if (error == NULL)
    writes = g_key_file_get_uint64 (file, pool_name, "writes", &error);
  if (error == NULL)
    mode = g_key_file_get_string (file, pool_name, "mode", &error);
  if (error == NULL && g_key_file_has_key (file, pool_name, "node", NULL))
    {
      node = g_key_file_get_uint64 (file, pool_name, "node", &error);
      r->on_node = TRUE;
    }
  if (error != NULL || node > G_MAXUINT32 || writes > G_MAXUINT32 ||
      (g_strcmp0 (mode, "hard") != 0 && g_strcmp0 (mode, "plain") != 0))
    {
      g_debug ("Ignoring the last %s allocation in %s: %s", pool_name, HPD_LAST_ALLOC_FILE,
               error != NULL ? error->message : "a value out of range");
      memset (r, 0, sizeof *r);
      return FALSE;
    }
  r->node = (guint) node;
  r->writes = (guint) writes;
  r->hard = g_strcmp0 (mode, "hard") == 0;
  r->done = TRUE;
  return TRUE;
}

gboolean
hpd_last_alloc_lookup (HpdLastAlloc *self, const char *pool_name, HpdAllocReport *r)
{
  gboolean found;

  found = lookup_locked (hpd_run_state_lock (self->records), pool_name, r);
  hpd_run_state_unlock (self->records);
  return found;
}
