/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The bus methods that make and remove hugetlbfs mounts, shared by the
 * Manager (CreateMounts, Unmount) and the PageSize objects (CreateMount). */
#pragma once

#include <gio/gio.h>

#include "hpd-methods.h"
#include "hpd-pool.h"

G_BEGIN_DECLS

typedef struct _HpdDaemon HpdDaemon;

/* One mount for @pool, replying "(s)", or, with @pool NULL, one per page
 * size, replying "(as)". */
/* Handlers of CreateMounts, PageSize.CreateMount and Unmount
 * (hpd-methods.c). */
void hpd_mount_calls_create_mounts (const HpdCall *call);
void hpd_mount_calls_create_mount (const HpdCall *call);
void hpd_mount_calls_unmount (const HpdCall *call);

G_END_DECLS
