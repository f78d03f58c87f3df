/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The one bound for every resource the service shares among callers
 * (authorization checks waiting, changes queued, scans running): a count
 * per uid and a global count, with a reserve that only root may use.
 *
 * A non-root uid gets a slot while it holds fewer than @per_uid and fewer
 * than @total - @root_reserve are held in all; root while fewer than
 * @total are held. So one user, whatever it sends and however many
 * connections it opens, leaves room for others, and however many users
 * flood, root keeps @root_reserve. Thread-safe: slots are taken in the main
 * thread and may be given back in a worker. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _HpdSlots HpdSlots;

/* @what names the resource in the Busy error ("changes waiting for
 * authorization"). */
HpdSlots *hpd_slots_new (const char *what, guint total, guint per_uid, guint root_reserve);
void hpd_slots_free (HpdSlots *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HpdSlots, hpd_slots_free)

/* Takes a slot for @uid, or fails with Busy. */
gboolean hpd_slots_take (HpdSlots *self, guint32 uid, GError **error);
/* Gives back a slot taken for @uid. */
void hpd_slots_give (HpdSlots *self, guint32 uid);

guint hpd_slots_held (HpdSlots *self);
guint hpd_slots_held_by (HpdSlots *self, guint32 uid);

G_END_DECLS
