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

/* @claims: the claims (HpdClaim, hpd_daemon_get_claims ()) the caller
 * shows beside the result, read once for both.
 * @state: aa{sv} ("key", "value", "origin" as "FILE:LINE"); @drift (may be
 * NULL): aa{sv} ("key", "configured", "actual", "message"). Both floating. @errors (may be NULL):
 * the configuration's errors and then the lines this kernel cannot follow
 * (a page size it lacks, a THP value that is none of the file's keywords),
 * "FILE:LINE: message", a NULL-terminated array of strings. */
void hpd_drift_describe (HpdDaemon *daemon, const HpdConfig *config, GPtrArray *claims,
                         GVariant **state, GVariant **drift, GPtrArray **errors);

G_END_DECLS
