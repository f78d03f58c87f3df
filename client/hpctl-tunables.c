/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The tunable commands: shm-max, shm-group, min-free-kbytes, zone-movable
 * and thp (hpctl-thp.c). Without an argument each shows the setting; with one it changes
 * it. Changes are authorized like the pool changes (the interactive flag,
 * pkttyagent on a terminal, --no-ask-password); --dry-run asks the service
 * what it would set and needs no authorization. */
#include "config.h"

#include <grp.h>
#include <string.h>

#include "hp-error.h"
#include "hp-names.h"
#include "hp-units.h"
#include "hpctl-tunables.h"

GOptionContext *
hpctl_tunable_options (const char *parameters, const char *summary, const char *description,
                       TunableOptions *o, gboolean with_recommended)
{
  GOptionContext *options = hpctl_command_options (parameters, summary, description);
  const GOptionEntry entries[] = {
    { "dry-run", 0, 0, G_OPTION_ARG_NONE, &o->dry_run, DRY_RUN_HELP, NULL },
    { "persist", 0, 0, G_OPTION_ARG_NONE, &o->persist, HPCTL_PERSIST_HELP, NULL },
    HPCTL_JSON_ENTRY (o->json),
    { NULL }
  };
  const GOptionEntry recommended_entries[] = {
    { "allow-lower", 0, 0, G_OPTION_ARG_NONE, &o->allow_lower, ALLOW_LOWER_HELP, NULL },
    { NULL }
  };

  /* GOption copies the entries */
  g_option_context_add_main_entries (options, entries, NULL);
  if (with_recommended)
    g_option_context_add_main_entries (options, recommended_entries, NULL);
  return options;
}

gboolean
hpctl_tunable_check_use (const TunableOptions *o, const char *argument, gboolean recommended)
{
  if (argument == NULL && (o->dry_run || o->persist))
    {
      hpctl_usage_error ("--%s only applies to a change", o->dry_run ? "dry-run" : "persist");
      return FALSE;
    }
  if (argument != NULL && o->json)
    {
      hpctl_usage_error ("--json only applies to showing the setting, not to a change");
      return FALSE;
    }
  if (o->allow_lower && !recommended)
    {
      hpctl_usage_error ("--allow-lower only applies to 'recommended'");
      return FALSE;
    }
  return TRUE;
}

GVariant *
hpctl_tunable_build_options (const TunableOptions *o)
{
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  hpctl_add_flag (&builder, HP_OPTION_DRY_RUN, o->dry_run);
  hpctl_add_flag (&builder, HP_OPTION_ALLOW_LOWER, o->allow_lower);
  hpctl_add_flag (&builder, HP_OPTION_PERSIST, o->persist);
  return g_variant_builder_end (&builder);
}

GDBusCallFlags
hpctl_tunable_call_flags (HpctlContext *ctx, const TunableOptions *o)
{
  return hpctl_change_call_flags (ctx, o->dry_run);
}

int
hpctl_tunable_call_timeout (const TunableOptions *o)
{
  return o->dry_run ? -1 : HPCTL_CHANGE_TIMEOUT_MS;
}

gboolean
hpctl_tunable_at_most_one_argument (GStrv args, const char *usage)
{
  if (g_strv_length (args) <= 2)
    return TRUE;
  hpctl_usage_error ("usage: hugepagesctl %s", usage);
  return FALSE;
}

void
hpctl_tunable_report (const TunableOptions *o, const char *what, const char *value,
                      const char *kept_above)
{
  if (kept_above == NULL)
    {
      if (o->dry_run)
        g_print ("would set %s to %s\n", what, value);
      else
        g_print ("%s: %s\n", what, value);
      return;
    }

  if (o->dry_run)
    g_print ("would keep %s at %s\n", what, value);
  else
    g_print ("%s: %s\n", what, value);
  g_print ("kept: it is above the recommended %s; --allow-lower lowers it\n", kept_above);
}

#define SHM_MAX_USAGE "shm-max [VALUE|recommended] [--allow-lower] [--dry-run]"

/* Base pages that segments of @shmmax bytes need, rounded up: the service's
 * rule for raising shmall with shmmax. */
static guint64
shmall_needed (guint64 shmmax, guint64 base)
{
  return shmmax / base + (shmmax % base != 0);
}

static int
show_shm_max_json (HpctlContext *ctx)
{
  g_autoptr(JsonBuilder) builder = hpctl_json_begin ();
  HpDBusManager *m = ctx->manager;
  guint64 recommended = hp_dbus_manager_get_recommended_shm_max (m);

  hpctl_json_add_uint (builder, "shmmax", hp_dbus_manager_get_shm_max (m));
  hpctl_json_add_uint (builder, "shmall", hp_dbus_manager_get_shm_all_pages (m));
  hpctl_json_add_uint (builder, "base_page_size", hp_dbus_manager_get_base_page_size (m));
  /* null as the text's "none": no pool is configured */
  if (recommended == 0)
    {
      hpctl_json_add_string (builder, "recommended_shmmax", NULL);
      hpctl_json_add_string (builder, "recommended_shmall", NULL);
    }
  else
    {
      hpctl_json_add_uint (builder, "recommended_shmmax", recommended);
      hpctl_json_add_uint (builder, "recommended_shmall",
                           hp_dbus_manager_get_recommended_shm_all_pages (m));
    }
  hpctl_json_print (builder);
  return HPCTL_EXIT_OK;
}

static int
show_shm_max (HpctlContext *ctx, const TunableOptions *o)
{
  HpDBusManager *m = ctx->manager;
  guint64 recommended = hp_dbus_manager_get_recommended_shm_max (m);
  g_autofree char *shmmax = hpctl_describe_bytes (hp_dbus_manager_get_shm_max (m));
  g_autofree char *recommended_text = hpctl_describe_bytes (recommended);

  if (o->json)
    return show_shm_max_json (ctx);
  g_print ("kernel.shmmax:       %s\n", shmmax);
  g_print ("kernel.shmall:       %" G_GUINT64_FORMAT " pages of %" G_GUINT64_FORMAT " bytes\n",
           hp_dbus_manager_get_shm_all_pages (m), hp_dbus_manager_get_base_page_size (m));
  if (recommended == 0)
    {
      g_print ("Recommended shmmax:  none (no pool is configured)\n");
      g_print ("Recommended shmall:  none\n");
    }
  else
    {
      g_print ("Recommended shmmax:  %s\n", recommended_text);
      g_print ("Recommended shmall:  %" G_GUINT64_FORMAT " pages\n",
               hp_dbus_manager_get_recommended_shm_all_pages (m));
    }
  return HPCTL_EXIT_OK;
}

/* What SetShmMax did, or would do, with shmall as it was. */
static void
report_shm_max (HpctlContext *ctx, const TunableOptions *o, guint64 value, guint64 old_shmall,
                const char *kept_above)
{
  guint64 base = hp_dbus_manager_get_base_page_size (ctx->manager);
  g_autofree char *text = hpctl_describe_bytes (value);
  guint64 shmall = base > 0 ? shmall_needed (value, base) : 0;

  hpctl_tunable_report (o, "kernel.shmmax", text, kept_above);

  if (shmall <= old_shmall)
    return;
  if (o->dry_run)
    g_print ("would raise kernel.shmall from %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT
             " pages\n", old_shmall, shmall);
  else
    g_print ("kernel.shmall: %" G_GUINT64_FORMAT " pages (raised from %" G_GUINT64_FORMAT ")\n",
             shmall, old_shmall);
}

int
hpctl_shm_max (HpctlContext *ctx, GStrv args)
{
  TunableOptions o = { FALSE, };
  g_autoptr(GOptionContext) options =
    hpctl_tunable_options ("shm-max [VALUE|recommended]",
                           "Show or set kernel.shmmax, the largest SysV shared memory segment.",
                           "Without an argument: kernel.shmmax (bytes), kernel.shmall (base pages)\n"
                           "and the recommended values: the pools' Maximum × page size summed\n"
                           "over every pool (hugeadm's formula), and that in base pages.\n"
                           "VALUE is bytes or an amount with a unit: 68719476736, 64G, 512M.\n"
                           "'recommended' sets the recommended value and prints the value set; a\n"
                           "larger current value is kept unless --allow-lower is given.\n"
                           "kernel.shmall is raised with kernel.shmmax when it would block a\n"
                           "segment that large; it is never lowered.\n"
                           EXIT_HELP,
                           &o, TRUE);
  g_autoptr(GError) error = NULL;
  g_autofree char *kept_above = NULL;
  const char *argument;
  gboolean recommended;
  guint64 value = 0, old_shmall, recommended_value;

  if (!hpctl_parse_command (ctx, options, &args))
    return HPCTL_EXIT_USAGE;
  if (!hpctl_tunable_at_most_one_argument (args, SHM_MAX_USAGE))
    return HPCTL_EXIT_USAGE;
  argument = args[1];
  recommended = g_strcmp0 (argument, "recommended") == 0;
  if (!hpctl_tunable_check_use (&o, argument, recommended))
    return HPCTL_EXIT_USAGE;
  if (argument != NULL && !recommended && !hp_parse_size (argument, &value, &error))
    return hpctl_usage_error ("VALUE: %s", error->message);

  if (!hpctl_connect (ctx))
    return HPCTL_EXIT_ERROR;
  if (argument == NULL)
    return show_shm_max (ctx, &o);

  old_shmall = hp_dbus_manager_get_shm_all_pages (ctx->manager);
  if (!recommended)
    {
      if (!hp_dbus_manager_call_set_shm_max_sync (ctx->manager, value, hpctl_tunable_build_options (&o),
                                                  hpctl_tunable_call_flags (ctx, &o), hpctl_tunable_call_timeout (&o),
                                                  &value, NULL, &error))
        return hpctl_fail (error);
      report_shm_max (ctx, &o, value, old_shmall, NULL);
      return HPCTL_EXIT_OK;
    }

  recommended_value = hp_dbus_manager_get_recommended_shm_max (ctx->manager);
  if (!hp_dbus_manager_call_set_recommended_shm_max_sync (ctx->manager, hpctl_tunable_build_options (&o),
                                                          hpctl_tunable_call_flags (ctx, &o), hpctl_tunable_call_timeout (&o),
                                                          &value, NULL, &error))
    return hpctl_fail (error);
  /* the service keeps a larger value unless told to lower it */
  kept_above = value > recommended_value ? hpctl_describe_bytes (recommended_value) : NULL;
  report_shm_max (ctx, &o, value, old_shmall, kept_above);
  return HPCTL_EXIT_OK;
}

/* "1001 (hugetlb)", "0 (root only)", "4000 (no such group)". */
static char *
describe_group (guint32 gid)
{
  struct group *gr;

  if (gid == 0)
    return g_strdup ("0 (root only)");
  gr = getgrgid ((gid_t) gid);
  if (gr == NULL)
    return g_strdup_printf ("%u (no such group)", gid);
  return g_strdup_printf ("%u (%s)", gid, gr->gr_name);
}

/* The group the service resolved GROUP to, as this machine resolves it. */
static char *
describe_group_argument (const char *text)
{
  struct group *gr;
  guint64 gid;

  if (hp_parse_u64 (text, &gid, NULL))
    return gid <= G_MAXUINT32 ? describe_group ((guint32) gid) : g_strdup (text);
  gr = getgrnam (text);
  return gr != NULL ? describe_group ((guint32) gr->gr_gid) : g_strdup (text);
}

int
hpctl_shm_group (HpctlContext *ctx, GStrv args)
{
  TunableOptions o = { FALSE, };
  g_autoptr(GOptionContext) options =
    hpctl_tunable_options ("shm-group [GROUP]",
                           "Show or set vm.hugetlb_shm_group, the group whose members may create\n"
                           "SHM_HUGETLB shared memory segments without CAP_IPC_LOCK.",
                           "Without an argument: the gid and the group's name; 0 means root only.\n"
                           "GROUP is the name or decimal gid of an existing group; 0 for root only.\n"
                           EXIT_HELP,
                           &o, FALSE);
  g_autoptr(GError) error = NULL;
  g_autofree char *shown = NULL;
  const char *group;

  if (!hpctl_parse_command (ctx, options, &args))
    return HPCTL_EXIT_USAGE;
  if (!hpctl_tunable_at_most_one_argument (args, "shm-group [GROUP] [--dry-run]"))
    return HPCTL_EXIT_USAGE;
  group = args[1];
  if (!hpctl_tunable_check_use (&o, group, FALSE))
    return HPCTL_EXIT_USAGE;
  if (group != NULL && *group == '\0')
    return hpctl_usage_error ("GROUP is empty; give a group name or gid (0 for root only)");

  if (!hpctl_connect (ctx))
    return HPCTL_EXIT_ERROR;
  if (group == NULL && o.json)
    {
      g_autoptr(JsonBuilder) builder = hpctl_json_begin ();

      /* the gid only: a name would be this machine's, not the service's */
      hpctl_json_add_uint (builder, "shm_group", hp_dbus_manager_get_shm_group (ctx->manager));
      hpctl_json_print (builder);
      return HPCTL_EXIT_OK;
    }
  if (group == NULL)
    {
      shown = describe_group (hp_dbus_manager_get_shm_group (ctx->manager));
      g_print ("vm.hugetlb_shm_group: %s\n", shown);
      return HPCTL_EXIT_OK;
    }

  if (!hp_dbus_manager_call_set_shm_group_sync (ctx->manager, group, hpctl_tunable_build_options (&o),
                                                hpctl_tunable_call_flags (ctx, &o), hpctl_tunable_call_timeout (&o),
                                                NULL, NULL, &error))
    return hpctl_fail (error);
  shown = describe_group_argument (group);
  hpctl_tunable_report (&o, "vm.hugetlb_shm_group", shown, NULL);
  return HPCTL_EXIT_OK;
}

#define MIN_FREE_USAGE "min-free-kbytes [VALUE|recommended] [--allow-lower] [--dry-run]"

int
hpctl_min_free_kbytes (HpctlContext *ctx, GStrv args)
{
  TunableOptions o = { FALSE, };
  g_autoptr(GOptionContext) options =
    hpctl_tunable_options ("min-free-kbytes [VALUE|recommended]",
                           "Show or set vm.min_free_kbytes, the memory the kernel keeps free.",
                           "Without an argument: the current and the recommended value, in kB.\n"
                           "The recommendation is 11 pageblocks per populated zone (the kernel's\n"
                           "own khugepaged formula), at most 5% of MemTotal; more free memory\n"
                           "makes huge pages easier to allocate.\n"
                           "VALUE is a decimal number of kB, from 1024 to 5% of MemTotal.\n"
                           "'recommended' sets the recommended value and prints the value set; a\n"
                           "larger current value is kept unless --allow-lower is given.\n"
                           EXIT_HELP,
                           &o, TRUE);
  g_autoptr(GError) error = NULL;
  g_autofree char *kept_above = NULL, *text = NULL;
  const char *argument;
  gboolean recommended;
  guint64 value = 0, recommended_value;

  if (!hpctl_parse_command (ctx, options, &args))
    return HPCTL_EXIT_USAGE;
  if (!hpctl_tunable_at_most_one_argument (args, MIN_FREE_USAGE))
    return HPCTL_EXIT_USAGE;
  argument = args[1];
  recommended = g_strcmp0 (argument, "recommended") == 0;
  if (!hpctl_tunable_check_use (&o, argument, recommended))
    return HPCTL_EXIT_USAGE;
  if (argument != NULL && !recommended && !hp_parse_u64 (argument, &value, &error))
    return hpctl_usage_error ("VALUE is a number of kB: %s", error->message);

  if (!hpctl_connect (ctx))
    return HPCTL_EXIT_ERROR;
  recommended_value = hp_dbus_manager_get_recommended_min_free_kbytes (ctx->manager);
  if (argument == NULL && o.json)
    {
      g_autoptr(JsonBuilder) builder = hpctl_json_begin ();

      /* kB as the tunable itself, and its name, say */
      hpctl_json_add_uint (builder, "min_free_kbytes",
                           hp_dbus_manager_get_min_free_kbytes (ctx->manager));
      hpctl_json_add_uint (builder, "recommended_min_free_kbytes", recommended_value);
      hpctl_json_print (builder);
      return HPCTL_EXIT_OK;
    }
  if (argument == NULL)
    {
      g_print ("vm.min_free_kbytes:  %" G_GUINT64_FORMAT " kB\n",
               hp_dbus_manager_get_min_free_kbytes (ctx->manager));
      g_print ("Recommended:         %" G_GUINT64_FORMAT " kB\n", recommended_value);
      return HPCTL_EXIT_OK;
    }

  if (recommended)
    {
      if (!hp_dbus_manager_call_set_recommended_min_free_kbytes_sync (ctx->manager,
                                                                      hpctl_tunable_build_options (&o),
                                                                      hpctl_tunable_call_flags (ctx, &o),
                                                                      hpctl_tunable_call_timeout (&o),
                                                                      &value, NULL, &error))
        return hpctl_fail (error);
    }
  else if (!hp_dbus_manager_call_set_min_free_kbytes_sync (ctx->manager, value,
                                                           hpctl_tunable_build_options (&o),
                                                           hpctl_tunable_call_flags (ctx, &o),
                                                           hpctl_tunable_call_timeout (&o), &value, NULL,
                                                           &error))
    return hpctl_fail (error);

  /* the service keeps a larger value unless told to lower it, and never
   * sets less than 1024 kB, even where that is more than recommended */
  recommended_value = MAX (recommended_value, 1024);
  if (recommended && value > recommended_value)
    kept_above = g_strdup_printf ("%" G_GUINT64_FORMAT " kB", recommended_value);
  text = g_strdup_printf ("%" G_GUINT64_FORMAT " kB", value);
  hpctl_tunable_report (&o, "vm.min_free_kbytes", text, kept_above);
  return HPCTL_EXIT_OK;
}

int
hpctl_zone_movable (HpctlContext *ctx, GStrv args)
{
  TunableOptions o = { FALSE, };
  g_autoptr(GOptionContext) options =
    hpctl_tunable_options ("zone-movable [on|off]",
                           "Show or set whether huge pages may come from ZONE_MOVABLE.",
                           "Without an argument: whether the kernel has such a setting\n"
                           "(hugepages_treat_as_movable up to Linux 4.16, movable_gigantic_pages\n"
                           "on newer kernels) and its value. Kernels without it refuse a change.\n"
                           EXIT_HELP,
                           &o, FALSE);
  g_autoptr(GError) error = NULL;
  const char *argument;
  gboolean enabled;

  if (!hpctl_parse_command (ctx, options, &args))
    return HPCTL_EXIT_USAGE;
  if (!hpctl_tunable_at_most_one_argument (args, "zone-movable [on|off] [--dry-run]"))
    return HPCTL_EXIT_USAGE;
  argument = args[1];
  if (!hpctl_tunable_check_use (&o, argument, FALSE))
    return HPCTL_EXIT_USAGE;
  if (argument != NULL && strcmp (argument, "on") != 0 && strcmp (argument, "off") != 0)
    return hpctl_usage_error ("zone-movable takes on or off, not '%s'", argument);
  enabled = g_strcmp0 (argument, "on") == 0;

  if (!hpctl_connect (ctx))
    return HPCTL_EXIT_ERROR;
  if (argument == NULL && o.json)
    {
      g_autoptr(JsonBuilder) builder = hpctl_json_begin ();

      hpctl_json_add_bool (builder, "supported",
                           hp_dbus_manager_get_zone_movable_supported (ctx->manager));
      hpctl_json_add_bool (builder, "enabled", hp_dbus_manager_get_zone_movable (ctx->manager));
      hpctl_json_print (builder);
      return HPCTL_EXIT_OK;
    }
  if (argument == NULL)
    {
      g_print ("Supported:     %s\n",
               hp_dbus_manager_get_zone_movable_supported (ctx->manager) ? "yes" : "no");
      g_print ("Zone movable:  %s\n",
               hp_dbus_manager_get_zone_movable (ctx->manager) ? "on" : "off");
      return HPCTL_EXIT_OK;
    }

  if (!hp_dbus_manager_call_set_zone_movable_sync (ctx->manager, enabled, hpctl_tunable_build_options (&o),
                                                   hpctl_tunable_call_flags (ctx, &o), hpctl_tunable_call_timeout (&o),
                                                   NULL, NULL, &error))
    return hpctl_fail (error);
  hpctl_tunable_report (&o, "zone movable", argument, NULL);
  return HPCTL_EXIT_OK;
}
