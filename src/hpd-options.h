/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Checking of the a{sv} options every method takes: known keys only, each
 * with its type, no duplicates, a bounded count. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  const char *key;
  /* "b" (gboolean *), "u" (guint32 *), "t" (guint64 *), or "v" (GVariant **:
   * any type, a new reference the caller owns) */
  const char *type;
  gpointer value;
} HpdOption;

gboolean hpd_options_parse (GVariant *options, const HpdOption *known,
                            gsize n_known, GError **error);

/* Adds one record of string fields to @builder (of aa{sv}): pairs of key
 * and value, NULL-terminated. Records are dictionaries so that a field can
 * be added without breaking clients. */
void hpd_record_add_strings (GVariantBuilder *builder, const char *first_key,
                             ...) G_GNUC_NULL_TERMINATED;

G_END_DECLS
