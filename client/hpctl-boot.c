/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* boot: the huge page parameters of the kernel command line. Without
 * options it shows what the configuration asks for (BootParameters), what
 * the running kernel got (KernelCommandLine) and whether a reboot is
 * needed; --write has the service write them for the boot loader
 * (ConfigureBoot), or, where it cannot, prints what to add by hand. */
#include "config.h"

#include "hp-error.h"
#include "hp-names.h"
#include "hpctl.h"

#define BOOT_HELP \
  "Gigantic pages (1 GiB on x86-64) are reliably reserved only when the\n" \
  "kernel boots. The configuration (/etc/hugepagesd/hugepagesd.conf: [pool]\n" \
  "sections of gigantic sizes, [boot] default-page-size) says how many;\n" \
  "without options this shows, one a line:\n" \
  "  Boot parameters:      what the configuration asks for\n" \
  "  Kernel command line:  the huge page parameters the running kernel got\n" \
  "  Reboot required:      yes or no\n" \
  "('none' where there are no parameters.)\n" \
  "--write has hugepagesd write the boot parameters for the boot loader: on\n" \
  "Debian with GRUB, /etc/default/grub.d/hugepagesd.cfg, then update-grub.\n" \
  "Elsewhere it fails and prints the parameters to add to the kernel\n" \
  "command line by hand. Reboot afterwards.\n" \
  "\nExit status: 0 done, 1 error (including not supported and not\n" \
  "authorized), 2 usage error."

static const char *
or_none (const char *text)
{
  return text != NULL && *text != '\0' ? text : "none";
}

static int
show_boot (HpctlContext *ctx, gboolean json)
{
  HpDBusManager *m = ctx->manager;
  gboolean reboot = hp_dbus_manager_get_reboot_required (m);

  if (json)
    {
      g_autoptr(JsonBuilder) builder = hpctl_json_begin ();

      const char *parameters = hp_dbus_manager_get_boot_parameters (m);
      const char *command_line = hp_dbus_manager_get_kernel_command_line (m);

      /* "" where the text says none */
      hpctl_json_add_string (builder, "boot_parameters", parameters != NULL ? parameters : "");
      hpctl_json_add_string (builder, "kernel_command_line",
                             command_line != NULL ? command_line : "");
      hpctl_json_add_bool (builder, "reboot_required", reboot);
      /* whether --write would change the file: the service's comparison */
      hpctl_json_add_variant (builder, "drop_in", hp_dbus_manager_get_boot_drop_in (m));
      hpctl_json_print (builder);
      return HPCTL_EXIT_OK;
    }

  g_print ("Boot parameters:      %s\n", or_none (hp_dbus_manager_get_boot_parameters (m)));
  g_print ("Kernel command line:  %s\n", or_none (hp_dbus_manager_get_kernel_command_line (m)));
  g_print ("Reboot required:      %s\n", reboot ? "yes" : "no");
  if (reboot)
    g_print ("\nRun 'hugepagesctl boot --write', then reboot.\n");
  return HPCTL_EXIT_OK;
}

static int
write_boot (HpctlContext *ctx, gboolean dry_run)
{
  const char *parameters = hp_dbus_manager_get_boot_parameters (ctx->manager);
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  GVariantBuilder options;

  g_variant_builder_init (&options, G_VARIANT_TYPE_VARDICT);
  hpctl_add_flag (&options, HP_OPTION_DRY_RUN, dry_run);

  if (!hp_dbus_manager_call_configure_boot_sync (ctx->manager, g_variant_builder_end (&options),
                                                 hpctl_change_call_flags (ctx, dry_run),
                                                 dry_run ? -1 : HPCTL_CHANGE_TIMEOUT_MS,
                                                 &path, NULL, &error))
    {
      int status = hpctl_fail (error);

      /* the service's message has it too; this line is for scripts */
      if (g_error_matches (error, HP_ERROR, HP_ERROR_NOT_SUPPORTED) && parameters != NULL &&
          *parameters != '\0')
        g_print ("Add to the kernel command line: %s\n", parameters);
      return status;
    }

  if (parameters == NULL || *parameters == '\0')
    g_print ("%s %s: the configuration asks for no boot parameters\n",
             dry_run ? "would remove" : "Removed", path);
  else
    g_print ("%s %s: %s\n", dry_run ? "would write" : "Wrote", path, parameters);
  if (!dry_run)
    g_print ("The running kernel is unchanged: reboot for the boot parameters to apply.\n");
  return HPCTL_EXIT_OK;
}

int
hpctl_boot (HpctlContext *ctx, GStrv args)
{
  gboolean write = FALSE, dry_run = FALSE, json = FALSE;
  const GOptionEntry entries[] = {
    { "write", 0, 0, G_OPTION_ARG_NONE, &write,
      "Write the boot parameters for the boot loader", NULL },
    { "dry-run", 0, 0, G_OPTION_ARG_NONE, &dry_run,
      "With --write: only show what would be written; needs no authorization", NULL },
    HPCTL_JSON_ENTRY (json),
    { NULL }
  };
  g_autoptr(GOptionContext) options = g_option_context_new ("boot");

  g_option_context_set_summary (options,
                                "Show the huge page boot parameters, or write them for the boot "
                                "loader.");
  g_option_context_set_description (options, BOOT_HELP);
  g_option_context_add_main_entries (options, entries, NULL);
  if (!hpctl_parse_command (ctx, options, &args))
    return HPCTL_EXIT_USAGE;
  if (args[1] != NULL)
    return hpctl_usage_error ("%s takes no arguments, but got '%s'", args[0], args[1]);
  if (dry_run && !write)
    return hpctl_usage_error ("--dry-run only applies to --write");
  if (json && write)
    return hpctl_usage_error ("--json only applies to showing the boot parameters, not to --write");
  if (!hpctl_connect (ctx))
    return HPCTL_EXIT_ERROR;

  return write ? write_boot (ctx, dry_run) : show_boot (ctx, json);
}
