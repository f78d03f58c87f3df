/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <string.h>

#include "hp-units.h"
#include "hpd-apply.h"
#include "hpd-drift-private.h"
#include "hpd-options.h"
#include "hpd-service.h"

void
hpd_drift_config_error (Walk *w, const HpdConfigOrigin *origin, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  if (w->errors == NULL)
    return;
  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_ptr_array_add (w->errors, g_strdup_printf ("%s:%u: %s", origin->file, origin->line, message));
}

char *
hpd_drift_kernel_sizes (Walk *w)
{
  GPtrArray *pools = hpd_daemon_get_pools (w->daemon);
  g_autoptr(GString) out = g_string_new (NULL);

  for (guint i = 0; i < pools->len; i++)
    {
      const HpdPool *pool = g_ptr_array_index (pools, i);
      g_string_append_printf (out, "%s%s", i ? ", " : "", pool->name);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

gboolean
hpd_drift_check_page_size (Walk *w, const char *key, const HpdConfigValue *v)
{
  g_autofree char *name = NULL;
  g_autofree char *sizes = NULL;

  if (v->kind == HPD_CONFIG_UNSET || hpd_apply_find_pool (w->daemon, v->value) != NULL)
    return TRUE;
  name = hp_size_name (v->value);
  sizes = hpd_drift_kernel_sizes (w);
  hpd_drift_config_error (w, &v->origin, "%s = %s: this kernel has no %s huge pages (it has %s)",
                          key, name, name, sizes);
  return FALSE;
}

void
hpd_drift_list (Walk *w, const char *key, const char *value, const HpdConfigOrigin *origin)
{
  g_autofree char *where = origin->file
    ? g_strdup_printf ("%s:%u", origin->file, origin->line) : g_strdup ("");

  hpd_record_add_strings (&w->state, "key", key, "value", value, "origin", where, NULL);
}

void
hpd_drift_note (Walk *w, const char *key, const char *configured, const char *actual,
                const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  if (!w->want_drift)
    return;
  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  hpd_record_add_strings (&w->drift, "key", key, "configured", configured, "actual", actual,
                          "message", message, NULL);
}

void
hpd_drift_compare_number (Walk *w, const char *key, const char *configured, guint64 wanted,
                          guint64 actual, const char *what)
{
  g_autofree char *text = g_strdup_printf ("%" G_GUINT64_FORMAT, actual);

  if (actual != wanted)
    hpd_drift_note (w, key, configured, text, "%s: %s, the configuration asks for %" G_GUINT64_FORMAT,
                    what, text, wanted);
}

/* A line that a later one overrides is still a line of its file, and one
 * this kernel cannot follow is reported as the winning line would be (of
 * the overrides listed, HPD_CONFIG_MAX_OVERRIDES at most). @thp: the
 * kernel's THP files have been read into the walk. */
static void
check_overridden (Walk *w, const HpdConfig *config, gboolean thp)
{
  if (w->errors == NULL)
    return;
  for (guint i = 0; i < config->overrides->len; i++)
    {
      const HpdConfigOverride *o = g_ptr_array_index (config->overrides, i);

      if (g_str_has_prefix (o->key, "thp "))
        {
          const char *name = o->key + strlen ("thp ");
          const HpdThpChoice *choice = thp ? g_hash_table_lookup (w->tunables.thp, name) : NULL;

          if (choice != NULL &&
              !g_strv_contains ((const char *const *) choice->choices, o->overridden))
            {
              g_autofree char *known = g_strjoinv (", ", choice->choices);

              hpd_drift_config_error (w, &o->overridden_origin,
                                      "'%s' is not a value of THP %s (it takes %s)",
                                      o->overridden, name, known);
            }
        }
      else if (g_str_equal (o->key, "boot default-page-size") ||
               (g_str_has_prefix (o->key, "mount ") && g_str_has_suffix (o->key, " page-size")))
        {
          HpdConfigValue v = { HPD_CONFIG_BYTES, 0, o->overridden_origin };

          /* only values the parser took are overrides: this reads them again */
          if (hp_parse_size (o->overridden, &v.value, NULL))
            hpd_drift_check_page_size (w, strrchr (o->key, ' ') + 1, &v);
        }
    }
}

static void
walk (Walk *w, const HpdConfig *config)
{
  gboolean thp = FALSE;

  w->config = config;
  g_tree_foreach (config->pools, hpd_drift_pool_section, w);
  g_tree_foreach (config->mounts, hpd_drift_mount_section, w);
  hpd_drift_check_page_size (w, "default-page-size", &config->boot_default_page_size);
  /* reading the tunables is a dozen files: not for every property read
   * of a configuration without them */
  if (config->shmmax.kind || config->shm_group.value || config->min_free_kbytes.kind ||
      config->zone_movable.kind || g_tree_nnodes (config->thp) > 0)
    {
      hpd_tunables_read (w->kernel, &w->tunables);
      hpd_drift_tunables (w, config);
      g_tree_foreach (config->thp, hpd_drift_thp_setting, w);
      thp = TRUE;
    }
  check_overridden (w, config, thp);
  if (thp)
    hpd_tunables_clear (&w->tunables);
}

void
hpd_drift_describe (HpdDaemon *daemon, const HpdConfig *config, GPtrArray *claims,
                    GVariant **state, GVariant **drift, GPtrArray **errors)
{
  Walk w = { daemon, hpd_daemon_get_kernel (daemon), };

  w.claims = claims;
  if (errors != NULL)
    {
      /* the file format's errors first, then this kernel's, NULL-terminated */
      w.errors = g_ptr_array_new_null_terminated (config->errors->len, g_free, TRUE);
      for (guint i = 0; i < config->errors->len; i++)
        g_ptr_array_add (w.errors, g_strdup (g_ptr_array_index (config->errors, i)));
    }

  w.want_drift = drift != NULL;
  g_variant_builder_init (&w.state, G_VARIANT_TYPE ("aa{sv}"));
  g_variant_builder_init (&w.drift, G_VARIANT_TYPE ("aa{sv}"));
  walk (&w, config);
  *state = g_variant_builder_end (&w.state);
  if (drift != NULL)
    *drift = g_variant_builder_end (&w.drift);
  else
    g_variant_builder_clear (&w.drift);
  if (errors != NULL)
    *errors = w.errors;
}
