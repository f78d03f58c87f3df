/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The configuration as the bus shows it: ConfiguredState (every setting
 * with its origin) and Drift (where the kernel differs, for instance a pool
 * another program resized, or a configured mount that is gone). */
#pragma once

#include <gio/gio.h>

#include "hpd-config.h"

G_BEGIN_DECLS

typedef struct _HpdDaemon HpdDaemon;

/* @state: a(sss) (key, value, "FILE:LINE"); @drift (may be NULL): a(ssss)
 * (key, configured, actual, message). Both floating. */
void hpd_drift_describe (HpdDaemon *daemon, const HpdConfig *config,
                         GVariant **state, GVariant **drift);

G_END_DECLS
