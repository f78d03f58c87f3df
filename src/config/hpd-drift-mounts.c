/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Drift of the [mount] sections: each configured mount is where it should
 * be, with its options. */
#include "config.h"

#include "hpd-apply.h"
#include "hpd-drift-private.h"
#include "hpd-mounts.h"
#include "hpd-service.h"

static char *
mount_value (const HpdConfigMount *m)
{
  g_autoptr(GString) out = g_string_new (NULL);
  const struct { const char *key; const HpdConfigValue *v; } values[] = {
    { "page-size", &m->page_size }, { "max-size", &m->max_size },
    { "min-size", &m->min_size }, { "max-inodes", &m->max_inodes },
  };

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autofree char *text = hpd_config_value_to_string (values[i].v);
      if (text != NULL)
        g_string_append_printf (out, "%s%s=%s", out->len ? " " : "", values[i].key, text);
    }
  if (m->mode.kind != HPD_CONFIG_UNSET)
    g_string_append_printf (out, "%smode=%04o", out->len ? " " : "", (guint) m->mode.value);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

gboolean
hpd_drift_mount_section (gpointer key, gpointer value, gpointer data)
{
  static const char *const scopes[] = { "system", "user", "group", "global" };
  Walk *w = data;
  const HpdConfigMount *m = value;
  g_autofree char *k = g_strdup_printf ("mount %s", (const char *) key);
  g_autofree char *v = mount_value (m);
  g_autoptr(GVariant) options = NULL;
  g_autoptr(HpdMountRequest) request = NULL;
  g_autoptr(GPtrArray) mounts = NULL;
  g_autoptr(GError) error = NULL;
  GPtrArray *pools = hpd_daemon_get_pools (w->daemon);
  const char *root = hpd_kernel_get_root (w->kernel);

  hpd_drift_list (w, k, v, &m->origin);
  if (!hpd_drift_check_page_size (w, "page-size", &m->page_size) || !w->want_drift)
    return FALSE;

  options = hpd_apply_mount_options (m);
  /* a user or group scope looks its owner up in the user and group
   * databases */
  if (m->owner != NULL && *m->owner != '\0')
    hpd_kernel_record_unchecked (w->kernel);
  request = hpd_mount_request_new (scopes[m->scope], m->owner ? m->owner : "", options, &error);
  if (request == NULL)
    {
      hpd_drift_note (w, k, v, "", "%s", error->message);
      return FALSE;
    }
  mounts = hpd_mounts_read (w->kernel, hpd_daemon_get_default_page_size (w->daemon));
  for (guint i = 0; i < pools->len; i++)
    {
      const HpdPool *pool = g_ptr_array_index (pools, i);
      g_autoptr(HpdMountSpec) spec = NULL;
      g_autofree char *path = NULL;
      const HpdMountInfo *existing;

      if (m->page_size.kind != HPD_CONFIG_UNSET && m->page_size.value != pool->size)
        continue;
      g_clear_error (&error);
      spec = hpd_mount_request_spec_now (request, w->kernel, pool, &error);
      if (spec == NULL)
        {
          /* a percentage of an empty pool is no size at all */
          hpd_drift_note (w, k, v, "", "No %s mount: %s", pool->name, error->message);
          continue;
        }
      path = hpd_mount_spec_path (spec, root);
      existing = hpd_mounts_find (mounts, path);
      if (existing == NULL)
        hpd_drift_note (w, k, v, "", "%s is not mounted", path);
      else if (!hpd_mount_spec_matches (spec, existing))
        hpd_drift_note (w, k, v, path, "%s is mounted with other options", path);
    }
  return FALSE;
}
