/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Checking of the a{sv} options every method takes: known keys only, each
 * with its type, no duplicates, a bounded count. Which keys a method knows
 * is its row of the method table (hpd-methods.c). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  const char *key;
  /* "b", "u", "t", or "v" (any type) */
  const char *type;
} HpdOptionSpec;

/* @allowed ends with a NULL key. InvalidArgs for an unknown key, a key
 * given twice, a value of another type, or more keys than any method
 * knows. Once checked, the values are read with g_variant_lookup(). */
gboolean hpd_options_check (GVariant *options, const HpdOptionSpec *allowed, GError **error);

typedef struct {
  const char *key;
  /* "b" (gboolean *), "u" (guint32 *), "t" (guint64 *), or "v" (GVariant **:
   * any type, a new reference the caller owns) */
  const char *type;
  gpointer value;
} HpdOption;

/* Checks @options against @known (all @n_known of them) as
 * hpd_options_check() does, and stores the values given. For options
 * that are not a method's own (a mount section of the configuration). */
gboolean hpd_options_parse (GVariant *options, const HpdOption *known,
                            gsize n_known, GError **error);

/* Adds one record of string fields to @builder (of aa{sv}): pairs of key
 * and value, NULL-terminated. Records are dictionaries so that a field can
 * be added without breaking clients. */
void hpd_record_add_strings (GVariantBuilder *builder, const char *first_key,
                             ...) G_GNUC_NULL_TERMINATED;

G_END_DECLS
