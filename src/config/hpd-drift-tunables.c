/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Drift of [tunables] and [thp]. */
#include "config.h"

#include "hpd-drift-private.h"
#include "hpd-service.h"

static void
tunable_number (Walk *w, const char *name, const HpdConfigValue *v, guint64 recommended,
                guint64 actual, const char *what)
{
  g_autofree char *key = g_strdup_printf ("tunables %s", name);
  g_autofree char *value = hpd_config_value_to_string (v);

  if (v->kind == HPD_CONFIG_UNSET)
    return;
  hpd_drift_list (w, key, value, &v->origin);
  if (v->kind != HPD_CONFIG_RECOMMENDED)
    hpd_drift_compare_number (w, key, value, v->value, actual, what);
  else if (actual < recommended)
    {
      /* "recommended" never lowers, so only less than it is drift */
      g_autofree char *text = g_strdup_printf ("%" G_GUINT64_FORMAT, actual);
      hpd_drift_note (w, key, value, text, "%s: %s, below the recommended %" G_GUINT64_FORMAT,
                      what, text, recommended);
    }
}

void
hpd_drift_tunables (Walk *w, const HpdConfig *c)
{
  const HpdTunables *t = &w->tunables;

  /* the recommendations read several files: only when asked for */
  gboolean shmmax_rec = w->want_drift && c->shmmax.kind == HPD_CONFIG_RECOMMENDED;
  gboolean min_free_rec = w->want_drift && c->min_free_kbytes.kind == HPD_CONFIG_RECOMMENDED;

  tunable_number (w, "shmmax", &c->shmmax,
                  shmmax_rec ? hpd_tunables_recommended_shmmax (w->daemon) : 0,
                  t->shmmax, "kernel.shmmax");
  tunable_number (w, "min-free-kbytes", &c->min_free_kbytes,
                  min_free_rec ? MAX (hpd_tunables_recommended_min_free_kbytes (w->daemon),
                                      HPD_MIN_FREE_KBYTES_FLOOR) : 0,
                  t->min_free_kbytes, "vm.min_free_kbytes");

  if (c->shm_group.value != NULL)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *actual = g_strdup_printf ("%u", t->shm_group);
      guint32 gid;

      hpd_drift_list (w, "tunables shm-group", c->shm_group.value, &c->shm_group.origin);
      /* looked up in the group database */
      hpd_kernel_record_unchecked (w->kernel);
      if (!hpd_tunables_resolve_shm_group (c->shm_group.value, &gid, &error))
        hpd_drift_note (w, "tunables shm-group", c->shm_group.value, actual, "%s", error->message);
      else if (gid != t->shm_group)
        hpd_drift_note (w, "tunables shm-group", c->shm_group.value, actual,
                        "vm.hugetlb_shm_group is %u, the configuration asks for %s (gid %u)",
                        t->shm_group, c->shm_group.value, gid);
    }

  if (c->zone_movable.kind != HPD_CONFIG_UNSET)
    {
      const char *value = c->zone_movable.value ? "yes" : "no";

      hpd_drift_list (w, "tunables zone-movable", value, &c->zone_movable.origin);
      if (t->zone_movable_file == NULL)
        hpd_drift_note (w, "tunables zone-movable", value, "", "This kernel has no such setting");
      else if (t->zone_movable != (c->zone_movable.value != 0))
        hpd_drift_note (w, "tunables zone-movable", value, t->zone_movable ? "yes" : "no",
                        "Huge pages in ZONE_MOVABLE are %s, the configuration asks for %s",
                        t->zone_movable ? "on" : "off", value);
    }
}

gboolean
hpd_drift_thp_setting (gpointer key, gpointer value, gpointer data)
{
  Walk *w = data;
  const char *name = key;
  const HpdConfigString *s = value;
  g_autofree char *k = g_strdup_printf ("thp %s", name);
  const HpdThpChoice *choice = g_hash_table_lookup (w->tunables.thp, name);
  guint32 number;

  hpd_drift_list (w, k, s->value, &s->origin);
  if (choice != NULL && !g_strv_contains ((const char *const *) choice->choices, s->value))
    {
      g_autofree char *known = g_strjoinv (", ", choice->choices);

      hpd_drift_config_error (w, &s->origin, "'%s' is not a value of THP %s (it takes %s)",
                              s->value, name, known);
    }
  else if (choice != NULL)
    {
      if (g_strcmp0 (choice->current, s->value) != 0)
        hpd_drift_note (w, k, s->value, choice->current ? choice->current : "",
                        "THP %s is %s, the configuration asks for %s", name,
                        choice->current ? choice->current : "unreadable", s->value);
    }
  else if (g_strv_contains (hpd_thp_numeric_settings, name) &&
           hpd_tunables_thp_number (w->kernel, name, &number))
    {
      g_autofree char *actual = g_strdup_printf ("%u", number);

      if (!g_str_equal (actual, s->value))
        hpd_drift_note (w, k, s->value, actual, "THP %s is %s, the configuration asks for %s",
                        name, actual, s->value);
    }
  else
    hpd_drift_note (w, k, s->value, "", "This kernel has no THP setting %s", name);
  return FALSE;
}
