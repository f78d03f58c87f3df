/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The D-Bus side of GetUsage and RemoveOrphan: options, authorization
 * (a caller without org.hugepages.manager.inspect-usage gets the view of
 * what it owns, not a refusal), the scan in a worker thread, the reply. */
#pragma once

#include <gio/gio.h>

#include "hpd-daemon.h"
#include "hpd-methods.h"

G_BEGIN_DECLS

/* Both authorize first, then scan in a thread under the caller's scan
 * slots (hpd_daemon_get_scans). */
/* Handlers of GetUsage and RemoveOrphan (hpd-methods.c): both scan
 * every process's maps, in the scan lane (hpd-job.h). */
void hpd_usage_calls_get_usage (const HpdCall *call);
void hpd_usage_calls_remove_orphan (const HpdCall *call);

G_END_DECLS
