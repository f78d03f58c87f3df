/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* hugepagesctl metrics: every figure the service publishes, in the
 * Prometheus text format, for node_exporter's textfile collector. The
 * service itself opens no socket: a timer (or cron) runs this command and
 * node_exporter serves the file. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "hp-files.h"
#include "hp-names.h"
#include "hpctl.h"

#define METRICS_HELP \
  "Prints the metrics, or with --output writes them to FILE atomically (a\n" \
  "temporary file in the same directory, renamed over FILE, mode 0644), as\n" \
  "node_exporter's textfile collector needs: FILE should end in .prom and sit\n" \
  "in its directory (Debian: /var/lib/prometheus/node-exporter). The names\n" \
  "and labels are listed in docs/fleet.md.\n" \
  "\nExit status: 0 done, 1 error, 2 usage error."

/* Label values are free text (mount paths, consumer names): escaped as the
 * exposition format asks, backslash, double quote and newline. */
static void
append_label_value (GString *out, const char *value)
{
  for (const char *p = value; *p != '\0'; p++)
    {
      if (*p == '\\')
        g_string_append (out, "\\\\");
      else if (*p == '"')
        g_string_append (out, "\\\"");
      else if (*p == '\n')
        g_string_append (out, "\\n");
      else
        g_string_append_c (out, *p);
    }
}

static void
family (GString *out, const char *name, const char *type, const char *help)
{
  g_string_append_printf (out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* One sample; @labels is NULL or NULL-terminated name, value pairs;
 * @value as the text format writes it. */
static void
sample_text (GString *out, const char *name, const char *const *labels, const char *value)
{
  g_string_append (out, name);
  if (labels != NULL && labels[0] != NULL)
    {
      g_string_append_c (out, '{');
      for (gsize i = 0; labels[i] != NULL; i += 2)
        {
          g_string_append_printf (out, "%s%s=\"", i > 0 ? "," : "", labels[i]);
          append_label_value (out, labels[i + 1]);
          g_string_append_c (out, '"');
        }
      g_string_append_c (out, '}');
    }
  g_string_append_printf (out, " %s\n", value);
}

static void
sample (GString *out, const char *name, const char *const *labels, guint64 value)
{
  char text[G_ASCII_DTOSTR_BUF_SIZE];

  g_snprintf (text, sizeof text, "%" G_GUINT64_FORMAT, value);
  sample_text (out, name, labels, text);
}

/* Microseconds as seconds, exactly: integer part and six decimals. */
static void
sample_usec (GString *out, const char *name, const char *const *labels, guint64 usec)
{
  char text[G_ASCII_DTOSTR_BUF_SIZE];

  g_snprintf (text, sizeof text, "%" G_GUINT64_FORMAT ".%06u", usec / G_USEC_PER_SEC,
              (guint) (usec % G_USEC_PER_SEC));
  sample_text (out, name, labels, text);
}

typedef guint64 (*PoolGetter) (HpDBusManagerPageSize *p);

static void
pool_family (GString *out, GPtrArray *page_sizes, const char *name, const char *help,
             PoolGetter get)
{
  family (out, name, "gauge", help);
  for (guint i = 0; i < page_sizes->len; i++)
    {
      HpDBusManagerPageSize *p = g_ptr_array_index (page_sizes, i);
      g_autofree char *size = g_strdup_printf ("%" G_GUINT64_FORMAT,
                                               hp_dbus_manager_page_size_get_size (p));

      sample (out, name, (const char *[]) { "page_size_bytes", size, NULL }, get (p));
    }
}

/* @key is one of the figures of the per-node records of Nodes. */
static void
node_family (GString *out, GPtrArray *page_sizes, const char *name, const char *help,
             const char *key)
{
  family (out, name, "gauge", help);
  for (guint i = 0; i < page_sizes->len; i++)
    {
      HpDBusManagerPageSize *p = g_ptr_array_index (page_sizes, i);
      GVariant *nodes = hp_dbus_manager_page_size_get_nodes (p);
      g_autofree char *size = g_strdup_printf ("%" G_GUINT64_FORMAT,
                                               hp_dbus_manager_page_size_get_size (p));

      for (gsize j = 0; nodes != NULL && j < g_variant_n_children (nodes); j++)
        {
          g_autoptr(GVariant) record = g_variant_get_child_value (nodes, j);
          guint32 node = 0;
          guint64 value = 0;
          g_autofree char *node_text = NULL;

          g_variant_lookup (record, "node", "u", &node);
          g_variant_lookup (record, key, "t", &value);
          node_text = g_strdup_printf ("%u", node);
          sample (out, name,
                  (const char *[]) { "page_size_bytes", size, "node", node_text, NULL }, value);
        }
    }
}

/* Requested against achieved: the persistent pool the service keeps
 * (PageSize Target: its base plus every claim, the daemon's one rule, so a
 * SetMinimum since boot and claims on a size the configuration leaves out
 * count as they do for the service) and what the pool lacks of it. Every
 * size has both: 0 where nothing is asked. */
static void
requested_families (GString *out, GPtrArray *page_sizes)
{
  family (out, "hugepages_pool_requested_pages", "gauge",
          "Persistent pages the service keeps in the pool (PageSize Target: the base plus every claim)");
  for (guint i = 0; i < page_sizes->len; i++)
    {
      HpDBusManagerPageSize *p = g_ptr_array_index (page_sizes, i);
      g_autofree char *size = g_strdup_printf ("%" G_GUINT64_FORMAT,
                                               hp_dbus_manager_page_size_get_size (p));

      sample (out, "hugepages_pool_requested_pages",
              (const char *[]) { "page_size_bytes", size, NULL },
              hp_dbus_manager_page_size_get_target (p));
    }

  family (out, "hugepages_pool_shortfall_pages", "gauge",
          "Requested persistent pages the pool lacks (0 when it holds them)");
  for (guint i = 0; i < page_sizes->len; i++)
    {
      HpDBusManagerPageSize *p = g_ptr_array_index (page_sizes, i);
      guint64 want = hp_dbus_manager_page_size_get_target (p);
      guint64 have = hp_dbus_manager_page_size_get_minimum (p);
      g_autofree char *size = g_strdup_printf ("%" G_GUINT64_FORMAT,
                                               hp_dbus_manager_page_size_get_size (p));

      sample (out, "hugepages_pool_shortfall_pages",
              (const char *[]) { "page_size_bytes", size, NULL }, want > have ? want - have : 0);
    }
}

/* The service's last change of each pool (LastAllocation): sizes it has
 * not changed since boot have no sample. */
static void
last_allocation_families (GString *out, GPtrArray *page_sizes)
{
  static const struct {
    const char *name;
    const char *key;
    const char *help;
    gboolean usec;
  } families[] = {
    { "hugepages_last_allocation_timestamp_seconds", "ended-usec",
      "When the service's last change of the pool ended (Unix time)", TRUE },
    { "hugepages_last_allocation_duration_seconds", "duration-usec",
      "How long the service's last change of the pool took", TRUE },
    { "hugepages_last_allocation_requested_pages", "requested",
      "Persistent pages the service's last change asked of the kernel (claims included; of the node when labelled with one)", FALSE },
    { "hugepages_last_allocation_achieved_pages", "achieved",
      "Persistent pages the kernel gave the service's last change", FALSE },
    { "hugepages_last_allocation_shortfall_pages", "shortfall",
      "Pages the kernel did not give the service's last change (0: all it asked)", FALSE },
  };

  for (gsize f = 0; f < G_N_ELEMENTS (families); f++)
    {
      family (out, families[f].name, "gauge", families[f].help);
      for (guint i = 0; i < page_sizes->len; i++)
        {
          HpDBusManagerPageSize *p = g_ptr_array_index (page_sizes, i);
          GVariant *last = hp_dbus_manager_page_size_get_last_allocation (p);
          g_autofree char *size = g_strdup_printf ("%" G_GUINT64_FORMAT,
                                                   hp_dbus_manager_page_size_get_size (p));
          g_autofree char *node_text = NULL;
          guint64 value;
          guint32 node;

          if (last == NULL || !g_variant_lookup (last, families[f].key, "t", &value))
            continue;
          if (g_variant_lookup (last, "node", "u", &node))
            node_text = g_strdup_printf ("%u", node);
          const char *labels[] = { "page_size_bytes", size, node_text != NULL ? "node" : NULL,
                                   node_text, NULL };
          if (families[f].usec)
            sample_usec (out, families[f].name, labels, value);
          else
            sample (out, families[f].name, labels, value);
        }
    }
}

static void
claim_family (GString *out, HpctlContext *ctx)
{
  GVariant *claims = hp_dbus_manager_get_claims (ctx->manager);
  GVariantIter iter;
  GVariant *claim;

  family (out, "hugepages_claim_pages", "gauge",
          "Pages claimed per consumer; no node label for a claim on the whole pool");
  if (claims == NULL)
    return;
  g_variant_iter_init (&iter, claims);
  while ((claim = g_variant_iter_next_value (&iter)) != NULL)
    {
      G_GNUC_UNUSED g_autoptr(GVariant) owned = claim;
      const char *consumer = "";
      guint64 size = 0, pages = 0;
      guint32 node = 0;
      gboolean on_node = g_variant_lookup (claim, "node", "u", &node);
      g_autofree char *size_text = NULL;
      g_autofree char *node_text = g_strdup_printf ("%u", node);

      g_variant_lookup (claim, "consumer", "&s", &consumer);
      g_variant_lookup (claim, "page-size", "t", &size);
      g_variant_lookup (claim, "pages", "t", &pages);
      size_text = g_strdup_printf ("%" G_GUINT64_FORMAT, size);
      if (!on_node)
        sample (out, "hugepages_claim_pages",
                (const char *[]) { "consumer", consumer, "page_size_bytes", size_text, NULL }, pages);
      else
        sample (out, "hugepages_claim_pages",
                (const char *[]) { "consumer", consumer, "page_size_bytes", size_text,
                                   "node", node_text, NULL }, pages);
    }
}

/* A mount's limit from its attributes, in the metric's family. */
static void
mount_limit_family (GString *out, GVariant *mounts, const char *name, const char *key,
                    const char *help)
{
  GVariantIter iter;
  const char *path;
  GVariant *attributes;

  family (out, name, "gauge", help);
  if (mounts == NULL)
    return;
  g_variant_iter_init (&iter, mounts);
  while (g_variant_iter_next (&iter, "(&s@a{sv})", &path, &attributes))
    {
      guint64 value;

      if (g_variant_lookup (attributes, key, "t", &value))
        sample (out, name, (const char *[]) { "path", path, NULL }, value);
      g_variant_unref (attributes);
    }
}

static void
mount_families (GString *out, HpctlContext *ctx)
{
  GVariant *mounts = hp_dbus_manager_get_mounts (ctx->manager);
  GVariantIter iter;
  const char *path;
  GVariant *attributes;

  family (out, "hugepages_mount_info", "gauge",
          "One per hugetlbfs mount (value 1): path, page size, owner, mode, and whether hugepagesd manages it");
  if (mounts != NULL)
    {
      g_variant_iter_init (&iter, mounts);
      while (g_variant_iter_next (&iter, "(&s@a{sv})", &path, &attributes))
        {
          guint64 size = 0;
          guint32 uid = 0, gid = 0, mode = 0;
          gboolean managed = FALSE;
          g_autofree char *size_text = NULL, *uid_text = NULL, *gid_text = NULL, *mode_text = NULL;

          g_variant_lookup (attributes, "page-size", "t", &size);
          g_variant_lookup (attributes, "uid", "u", &uid);
          g_variant_lookup (attributes, "gid", "u", &gid);
          g_variant_lookup (attributes, "mode", "u", &mode);
          g_variant_lookup (attributes, "managed", "b", &managed);
          size_text = g_strdup_printf ("%" G_GUINT64_FORMAT, size);
          uid_text = g_strdup_printf ("%u", uid);
          gid_text = g_strdup_printf ("%u", gid);
          mode_text = g_strdup_printf ("%04o", mode);
          sample (out, "hugepages_mount_info",
                  (const char *[]) { "path", path, "page_size_bytes", size_text, "uid", uid_text,
                                     "gid", gid_text, "mode", mode_text,
                                     "managed", managed ? "true" : "false", NULL }, 1);
          g_variant_unref (attributes);
        }
    }

  mount_limit_family (out, mounts, "hugepages_mount_size_limit_bytes", "max-size",
                      "A hugetlbfs mount's size= limit; mounts without one are left out");
  mount_limit_family (out, mounts, "hugepages_mount_min_size_bytes", "min-size",
                      "A hugetlbfs mount's min_size= reservation; mounts without one are left out");
  mount_limit_family (out, mounts, "hugepages_mount_inodes_limit", "max-inodes",
                      "A hugetlbfs mount's nr_inodes= limit; mounts without one are left out");
}

/* Drift by section (the first word of its key: pool, mount, tunables, thp),
 * every section present so that alerts see 0 rather than nothing. */
static void
drift_family (GString *out, HpctlContext *ctx)
{
  static const char *const sections[] = { "pool", "mount", "tunables", "thp" };
  GVariant *drift = hp_dbus_manager_get_drift (ctx->manager);
  guint64 counts[G_N_ELEMENTS (sections)] = { 0, };

  if (drift != NULL)
    {
      GVariantIter iter;
      const char *key;

      g_variant_iter_init (&iter, drift);
      for (GVariant *record; (record = g_variant_iter_next_value (&iter)) != NULL;)
        {
          G_GNUC_UNUSED g_autoptr(GVariant) owned = record;

          if (!g_variant_lookup (record, "key", "&s", &key))
            continue;
          for (gsize i = 0; i < G_N_ELEMENTS (sections); i++)
            if (g_str_has_prefix (key, sections[i]) && key[strlen (sections[i])] == ' ')
              counts[i]++;
        }
    }

  family (out, "hugepages_drift_items", "gauge",
          "Settings where the kernel differs from the configuration, by configuration section");
  for (gsize i = 0; i < G_N_ELEMENTS (sections); i++)
    sample (out, "hugepages_drift_items", (const char *[]) { "section", sections[i], NULL },
            counts[i]);
}

static void
explain_family (GString *out, GVariant *findings)
{
  static const char *const severities[] = { "info", "warning", "error" };
  guint64 counts[G_N_ELEMENTS (severities)] = { 0, };
  GVariantIter iter;
  const char *severity;

  g_variant_iter_init (&iter, findings);
  for (GVariant *record; (record = g_variant_iter_next_value (&iter)) != NULL;)
    {
      G_GNUC_UNUSED g_autoptr(GVariant) owned = record;

      if (!g_variant_lookup (record, "severity", "&s", &severity))
        continue;
      for (gsize i = 0; i < G_N_ELEMENTS (severities); i++)
        if (strcmp (severity, severities[i]) == 0)
          counts[i]++;
    }

  family (out, "hugepages_explain_findings", "gauge",
          "Findings of hugepagesctl explain, by severity");
  for (gsize i = 0; i < G_N_ELEMENTS (severities); i++)
    sample (out, "hugepages_explain_findings",
            (const char *[]) { "severity", severities[i], NULL }, counts[i]);
}

static void
machine_families (GString *out, HpctlContext *ctx)
{
  HpDBusManager *m = ctx->manager;

  family (out, "hugepages_build_info", "gauge", "The version of hugepagesd (value 1)");
  sample (out, "hugepages_build_info",
          (const char *[]) { "version", hp_dbus_manager_get_version (m), NULL }, 1);
  family (out, "hugepages_default_page_size_bytes", "gauge",
          "The default huge page size (0: none)");
  sample (out, "hugepages_default_page_size_bytes", NULL,
          hp_dbus_manager_get_default_page_size (m));
  family (out, "hugepages_pool_memory_limit_bytes", "gauge",
          "The most memory all persistent pools together may be set to");
  sample (out, "hugepages_pool_memory_limit_bytes", NULL,
          hp_dbus_manager_get_pool_memory_limit (m));
  family (out, "hugepages_shmmax_bytes", "gauge", "kernel.shmmax");
  sample (out, "hugepages_shmmax_bytes", NULL, hp_dbus_manager_get_shm_max (m));
  family (out, "hugepages_min_free_bytes", "gauge", "vm.min_free_kbytes in bytes");
  sample (out, "hugepages_min_free_bytes", NULL, hp_dbus_manager_get_min_free_kbytes (m) * 1024);
  family (out, "hugepages_reboot_required", "gauge",
          "1 when the configured boot parameters differ from the running kernel's");
  sample (out, "hugepages_reboot_required", NULL, hp_dbus_manager_get_reboot_required (m));
}

#define POOL_GETTER(field) \
  static guint64 get_ ## field (HpDBusManagerPageSize *p) \
  { return hp_dbus_manager_page_size_get_ ## field (p); }
POOL_GETTER (total)
POOL_GETTER (free)
POOL_GETTER (reserved)
POOL_GETTER (surplus)
POOL_GETTER (minimum)
POOL_GETTER (maximum)
POOL_GETTER (overcommit)
POOL_GETTER (base)
POOL_GETTER (target)

static char *
render (HpctlContext *ctx, GPtrArray *page_sizes, GVariant *findings)
{
  GString *out = g_string_new (NULL);

  machine_families (out, ctx);
  pool_family (out, page_sizes, "hugepages_pool_pages",
               "Pages in the pool, surplus included (nr_hugepages)", get_total);
  pool_family (out, page_sizes, "hugepages_pool_free_pages", "Free pages in the pool", get_free);
  pool_family (out, page_sizes, "hugepages_pool_reserved_pages",
               "Pages reserved for mappings but not yet faulted in", get_reserved);
  pool_family (out, page_sizes, "hugepages_pool_surplus_pages",
               "Surplus pages (above the persistent pool)", get_surplus);
  pool_family (out, page_sizes, "hugepages_pool_minimum_pages",
               "The persistent pool: pages kept when unused", get_minimum);
  pool_family (out, page_sizes, "hugepages_pool_maximum_pages",
               "How far the pool may grow on demand (minimum plus overcommit)", get_maximum);
  pool_family (out, page_sizes, "hugepages_pool_overcommit_pages",
               "nr_overcommit_hugepages", get_overcommit);
  pool_family (out, page_sizes, "hugepages_pool_base_pages",
               "The administrator's base: what SetMinimum set since boot, else the configured minimum, claims left out",
               get_base);
  pool_family (out, page_sizes, "hugepages_pool_target_pages",
               "The persistent pool the service keeps: the base plus every claim (minimum below it is a shortfall)",
               get_target);
  node_family (out, page_sizes, "hugepages_node_pool_pages", "Pages of the pool on a NUMA node",
               "total");
  node_family (out, page_sizes, "hugepages_node_pool_free_pages", "Free pages on a NUMA node",
               "free");
  node_family (out, page_sizes, "hugepages_node_pool_surplus_pages",
               "Surplus pages on a NUMA node", "surplus");
  node_family (out, page_sizes, "hugepages_node_pool_minimum_pages",
               "Persistent pages on a NUMA node", "minimum");
  node_family (out, page_sizes, "hugepages_node_pool_target_pages",
               "The persistent pages the service keeps on a NUMA node (PageSize Nodes' target): its configured nodeN pages plus the claims on it, 0 where neither asks (minimum below it is a shortfall)",
               "target");
  requested_families (out, page_sizes);
  last_allocation_families (out, page_sizes);
  claim_family (out, ctx);
  mount_families (out, ctx);
  drift_family (out, ctx);
  explain_family (out, findings);
  return g_string_free (out, FALSE);
}

int
hpctl_metrics (HpctlContext *ctx, GStrv args)
{
  g_autofree char *output = NULL;
  const GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "Write to FILE atomically instead of printing", "FILE" },
    { NULL }
  };
  g_autoptr(GOptionContext) options = g_option_context_new ("metrics");
  g_autoptr(GPtrArray) page_sizes = NULL;
  g_autoptr(GVariant) findings = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  GVariantBuilder no_options;

  g_option_context_set_summary (options,
                                "Write every figure hugepagesd knows in the Prometheus text format.");
  g_option_context_set_description (options, METRICS_HELP);
  g_option_context_add_main_entries (options, entries, NULL);
  if (!hpctl_parse_command (ctx, options, &args))
    return HPCTL_EXIT_USAGE;
  if (args[1] != NULL)
    return hpctl_usage_error ("%s takes no arguments, but got '%s'", args[0], args[1]);
  if (output != NULL && output[0] == '\0')
    return hpctl_usage_error ("--output needs a file name");
  if (!hpctl_connect (ctx))
    return HPCTL_EXIT_ERROR;

  page_sizes = hpctl_get_page_sizes (ctx, &error);
  if (page_sizes == NULL)
    return hpctl_fail (error);
  /* needs no authorization, as explain */
  g_variant_builder_init (&no_options, G_VARIANT_TYPE_VARDICT);
  if (!hp_dbus_manager_call_explain_sync (ctx->manager, g_variant_builder_end (&no_options),
                                          G_DBUS_CALL_FLAGS_NONE, -1, &findings, NULL, &error))
    return hpctl_fail (error);

  text = render (ctx, page_sizes, findings);
  if (output == NULL)
    {
      fputs (text, stdout);
      return HPCTL_EXIT_OK;
    }
  /* node_exporter reads only *.prom; the temporary NAME.XXXXXX is not one,
   * and the rename means it never sees half a file */
  if (!hp_file_set_contents (output, text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0644, &error))
    return hpctl_fail (error);
  return HPCTL_EXIT_OK;
}
