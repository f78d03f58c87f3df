/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Claim and Release on a PageSize object, GetClaims on the Manager (see
 * hpd-claims.h for where claims are kept). The base, the targets claims
 * give the pools and the limit are the pool model's (hpd-pool-model.h). */
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

G_END_DECLS
