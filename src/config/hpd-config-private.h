/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Shared by the files of the configuration (hpd-config*.c) only: the
 * parsers of single values and the key order of the trees. */

#pragma once

#include <gio/gio.h>

#include "hpd-config.h"

G_BEGIN_DECLS

int hpd_config_compare_uint (gconstpointer a, gconstpointer b, gpointer user_data);

gboolean hpd_config_parse_page_size (const char *text, guint64 *bytes, GError **error);

gboolean hpd_config_parse_pool_amount (const char *text, guint64 page_size, HpdConfigKind *kind,
                                       guint64 *value, GError **error);

gboolean hpd_config_parse_limit (const char *text, HpdConfigKind *kind, guint64 *value, GError **error);

gboolean hpd_config_parse_mode (const char *text, guint64 *mode, GError **error);

char *hpd_config_parse_owner (const char *text, guint64 max_id, GError **error);

gboolean hpd_config_is_thp_word (const char *text, gsize len, const char *also);

gboolean hpd_config_is_thp_name (const char *name);

G_END_DECLS
