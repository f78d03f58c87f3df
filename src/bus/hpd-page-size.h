/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* org.hugepages.Manager.PageSize: one object per huge page size, with the
 * pool's counters and the methods that resize it. */
#pragma once

#include "hp-dbus-generated.h"
#include "hpd-methods.h"
#include "hpd-pool.h"

G_BEGIN_DECLS

typedef struct _HpdDaemon HpdDaemon;

#define HPD_TYPE_PAGE_SIZE (hpd_page_size_get_type ())
G_DECLARE_FINAL_TYPE (HpdPageSize, hpd_page_size, HPD, PAGE_SIZE,
                      HpDBusManagerPageSizeSkeleton)

HpdPageSize *hpd_page_size_new (HpdDaemon *daemon, const HpdPool *pool);
/* The pool it shows. */
const HpdPool *hpd_page_size_get_pool (HpdPageSize *self);

/* Handlers of the PageSize methods that change the pool (hpd-methods.c). */
void hpd_page_size_set_minimum (const HpdCall *call);
void hpd_page_size_set_maximum (const HpdCall *call);
void hpd_page_size_set_node_pages (const HpdCall *call);
void hpd_page_size_demote (const HpdCall *call);

void hpd_page_size_refresh_mounts (HpdPageSize *self);
/* Re-reads the counters now and sends PropertiesChanged for what changed
 * (after a change made elsewhere, such as a claim). */
void hpd_page_size_refresh_now (HpdPageSize *self);
/* Publishes what the allocation engine did (LastAllocation), when it ran;
 * main thread. */
void hpd_page_size_set_last_allocation (HpdPageSize *self, const HpdAllocReport *report);

G_END_DECLS
