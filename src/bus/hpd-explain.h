/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Explain: hugeadm --explain's checks and the ones it lacks, as a list of
 * records (aa{sv}: "severity", "id", "message", "fix"). Ids are stable so frontends and scripts
 * can act on them; fixes name the hugepagesctl command (and so the method)
 * that helps. Reads only. */
#pragma once

#include <gio/gio.h>

#include "hpd-methods.h"

G_BEGIN_DECLS

/* @uid and @pid are the caller's, for the group and memlock checks. */
GVariant *hpd_explain (HpdDaemon *daemon, guint32 uid, guint32 pid);

/* Explain's handler (hpd-methods.c). */
void hpd_explain_call (const HpdCall *call);

G_END_DECLS
