/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Claim, Release and GetClaims on the Manager, and the targets claims give
 * the pools (see hpd-claims.h for where claims are kept).
 *
 * The target of a pool is the administrator's base plus every claim of its
 * size (node claims included); the target of a node is at least the claims
 * on it. The first claim on a size takes the pool as it is then for the
 * base: pages that were there stay. After that the base is what SetMinimum
 * (or --apply) asked for last since boot (kept in /run/hugepagesd/requested,
 * hpd-requested.h); where that was lost, the configured minimum, else the
 * pool less the claims. */
#pragma once

#include <gio/gio.h>

#include "hpd-claims.h"
#include "hpd-methods.h"
#include "hpd-pool.h"

G_BEGIN_DECLS

typedef struct _HpdDaemon HpdDaemon;

/* Handlers of Claim, Release and GetClaims (hpd-methods.c). */
void hpd_claim_calls_claim (const HpdCall *call);
void hpd_claim_calls_release (const HpdCall *call);
void hpd_claim_calls_get (const HpdCall *call);

/* The Claims property and GetClaims' reply: aa{sv}. */
GVariant *hpd_claims_to_variant (GPtrArray *claims);

/* The administrator's base of @pool; FALSE when none is known yet (no
 * SetMinimum since boot and no configured minimum). Main thread only. */
gboolean hpd_claims_base (HpdDaemon *daemon, const HpdPool *pool, guint64 *base);

G_END_DECLS
