/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hp-error.h"
#include "hpd-slots.h"

struct _HpdSlots
{
  GMutex lock;
  char *what;
  guint total;
  guint per_uid;
  guint root_reserve;
  guint held;
  GHashTable *by_uid;   /* uid -> slots held, only uids holding any */
};

HpdSlots *
hpd_slots_new (const char *what, guint total, guint per_uid, guint root_reserve)
{
  HpdSlots *self = g_new0 (HpdSlots, 1);

  g_return_val_if_fail (root_reserve < total && per_uid > 0, NULL);
  g_mutex_init (&self->lock);
  self->what = g_strdup (what);
  self->total = total;
  self->per_uid = per_uid;
  self->root_reserve = root_reserve;
  self->by_uid = g_hash_table_new (NULL, NULL);
  return self;
}

void
hpd_slots_free (HpdSlots *self)
{
  if (self == NULL)
    return;
  g_mutex_clear (&self->lock);
  g_hash_table_unref (self->by_uid);
  g_free (self->what);
  g_free (self);
}

static guint
held_by_locked (HpdSlots *self, guint32 uid)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (self->by_uid, GUINT_TO_POINTER (uid)));
}

gboolean
hpd_slots_take (HpdSlots *self, guint32 uid, GError **error)
{
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->lock);
  guint mine = held_by_locked (self, uid);

  if (uid != 0 && mine >= self->per_uid)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_BUSY,
                   "Too many %s for this user (%u); try again later", self->what, self->per_uid);
      return FALSE;
    }
  if (self->held >= self->total - (uid == 0 ? 0 : self->root_reserve))
    {
      g_set_error (error, HP_ERROR, HP_ERROR_BUSY,
                   "Too many %s (%u); try again later", self->what, self->held);
      return FALSE;
    }
  self->held++;
  g_hash_table_insert (self->by_uid, GUINT_TO_POINTER (uid), GUINT_TO_POINTER (mine + 1));
  return TRUE;
}

void
hpd_slots_give (HpdSlots *self, guint32 uid)
{
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->lock);
  guint mine = held_by_locked (self, uid);

  g_return_if_fail (mine > 0 && self->held > 0);
  self->held--;
  if (mine == 1)
    g_hash_table_remove (self->by_uid, GUINT_TO_POINTER (uid));
  else
    g_hash_table_insert (self->by_uid, GUINT_TO_POINTER (uid), GUINT_TO_POINTER (mine - 1));
}

guint
hpd_slots_held (HpdSlots *self)
{
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->lock);

  return self->held;
}

guint
hpd_slots_held_by (HpdSlots *self, guint32 uid)
{
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->lock);

  return held_by_locked (self, uid);
}
