/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* org.hugepages.Manager on /org/hugepages/Manager: machine-wide facts. */
#pragma once

#include "hp-dbus-generated.h"

G_BEGIN_DECLS

typedef struct _HpdDaemon HpdDaemon;

#define HPD_TYPE_MANAGER (hpd_manager_get_type ())
G_DECLARE_FINAL_TYPE (HpdManager, hpd_manager, HPD, MANAGER, HpDBusManagerSkeleton)

HpdManager *hpd_manager_new (HpdDaemon *daemon);
void hpd_manager_refresh_mounts (HpdManager *self);
void hpd_manager_refresh_tunables (HpdManager *self);
/* Re-reads the claims into Claims, with PropertiesChanged. */
void hpd_manager_refresh_claims (HpdManager *self);

G_END_DECLS
