/* Checking of the a{sv} options every method takes: known keys only, each
 * with its type, no duplicates, a bounded count. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  const char *key;
  const char *type;   /* "b" (gboolean *) or "u" (guint32 *) */
  gpointer value;
} HpdOption;

gboolean hpd_options_parse (GVariant *options, const HpdOption *known,
                            gsize n_known, GError **error);

G_END_DECLS
