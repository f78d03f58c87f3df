/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* hugepagesd --apply: make the kernel match the configuration once (at
 * boot, from a oneshot unit) and say, line by line, what was asked and
 * what the kernel gave. Everything that can be applied is, even after a
 * failure; the result is FALSE if anything failed or fell short. */
#pragma once

#include <gio/gio.h>

#include "hpd-config.h"
#include "hpd-pool.h"
#include "hpd-pool-model.h"

G_BEGIN_DECLS

typedef struct _HpdDaemon HpdDaemon;

gboolean hpd_apply_configuration (HpdDaemon *daemon, GString *report);

/* What --apply and the Drift property share. */
/* The pool a [pool SIZE] section means (0: the default size), or NULL. */
const HpdPool *hpd_apply_find_pool (HpdDaemon *daemon, guint64 size);

/* Pages from a configured amount; FALSE if memory is not whole pages. */
gboolean hpd_apply_to_pages (const HpdConfigValue *v, const HpdPool *pool, guint64 *pages);
/* The minimum @config gives @pool in pages ([pool SIZE], else [pool
 * DEFAULT] for the default size): the configured base of the pool model
 * (hpd_pool_model_init ()). FALSE (and 0) when it sets none or @config
 * is NULL. */
gboolean hpd_apply_configured_minimum (const HpdConfig *config, const HpdPool *pool,
                                       guint64 *pages);
/* The pages @config sets on @node of @pool (nodeN, else [pool DEFAULT]'s
 * for the default size), 0 if none or @config is NULL: a node's configured
 * base (hpd_apply_node_target ()). */
guint64 hpd_apply_configured_node_pages (const HpdConfig *config, const HpdPool *pool,
                                         guint node);
/* The persistent pages the service keeps on @node of @model's pool: its
 * configured pages plus the claims on it. The one node target that Nodes'
 * "target", --apply and Explain show and work towards. */
guint64 hpd_apply_node_target (const HpdConfig *config, const HpdPoolModel *model, guint node);
/* CreateMount options for a [mount] section. */
GVariant *hpd_apply_mount_options (const HpdConfigMount *m);

G_END_DECLS
