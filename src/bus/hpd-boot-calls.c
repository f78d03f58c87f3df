/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hp-error.h"
#include "hp-names.h"
#include "hpd-boot-calls.h"
#include "hpd-boot-grub.h"
#include "hpd-config.h"
#include "hpd-daemon.h"
#include "hpd-job.h"

void
hpd_boot_state_read (HpdDaemon *daemon, const HpdConfig *config, HpdBootState *state)
{
  HpdKernel *kernel = hpd_daemon_get_kernel (daemon);
  GPtrArray *pools = hpd_daemon_get_pools (daemon);
  guint64 default_size = hpd_daemon_get_default_page_size (daemon);
  g_autoptr(HpdConfig) loaded = config ? NULL : hpd_config_load_root (hpd_kernel_get_root (kernel));
  g_autoptr(HpdBootParams) running = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *cmdline = NULL;

  state->problems = g_ptr_array_new_with_free_func (g_free);
  state->wanted = hpd_boot_params_from_config (config ? config : loaded, pools, default_size,
                                               state->problems);
  state->boot_parameters = hpd_boot_params_to_string (state->wanted);

  /* the command line the kernel was booted with: read once (a fake tree's
   * at every use); a fake tree without it is a kernel booted without
   * parameters */
  if (!hpd_kernel_read_fixed_at_boot (kernel, "proc/cmdline", &cmdline, &error))
    {
      if (!g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        g_debug ("Could not read proc/cmdline: %s", error->message);
      g_clear_pointer (&cmdline, g_free);
    }
  state->kernel_command_line = hpd_boot_cmdline_huge_pages (cmdline);
  running = hpd_boot_params_from_cmdline (cmdline, pools, default_size);
  state->reboot_required = hpd_boot_params_differ (state->wanted, running);
}

void
hpd_boot_state_clear (HpdBootState *state)
{
  g_clear_pointer (&state->wanted, hpd_boot_params_free);
  g_clear_pointer (&state->problems, g_ptr_array_unref);
  g_clear_pointer (&state->boot_parameters, g_free);
  g_clear_pointer (&state->kernel_command_line, g_free);
}

GVariant *
hpd_boot_drop_in_to_variant (HpdDaemon *daemon, const HpdBootState *state)
{
  HpdKernel *kernel = hpd_daemon_get_kernel (daemon);
  const char *root = hpd_kernel_get_root (kernel);
  g_autofree char *path = g_build_filename (root, HPD_BOOT_GRUB_DROPIN, NULL);
  g_autofree char *text = hpd_boot_grub_dropin_text (state->wanted);
  g_auto(HpdBootGrubDropIn) now = { 0, };
  g_autofree char *contents = NULL;
  GVariantBuilder builder;

  /* one read, compared and shown */
  hpd_boot_grub_dropin_read (root, kernel, &now);
  contents = hpd_boot_grub_shown (root, kernel, &now);
  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&builder, "{sv}", "path", g_variant_new_string (path));
  /* the comparison ConfigureBoot makes before it writes */
  g_variant_builder_add (&builder, "{sv}", "up-to-date",
                         g_variant_new_boolean (hpd_boot_grub_holds (&now, text)));
  g_variant_builder_add (&builder, "{sv}", "text", g_variant_new_string (text ? text : ""));
  if (contents != NULL)
    g_variant_builder_add (&builder, "{sv}", "contents", g_variant_new_string (contents));
  return g_variant_builder_end (&builder);
}

/* One ConfigureBoot on its way: the drop-in written (or removed) and
 * update-grub run in the worker thread. */
typedef struct {
  char *root;
  char *path;           /* the drop-in, below the root */
  char *text;           /* its contents; NULL: remove it */
  char *parameters;     /* BootParameters, for the log */
  char *update_grub;    /* NULL: not run (a fake root) */
} BootCall;

static void
boot_call_free (BootCall *call)
{
  g_free (call->root);
  g_free (call->path);
  g_free (call->text);
  g_free (call->parameters);
  g_free (call->update_grub);
  g_free (call);
}

/* Worker thread. */
static GVariant *
boot_work (gpointer data, GCancellable *cancellable, GError **error)
{
  BootCall *call = data;
  g_autoptr(GError) local_error = NULL;
  gboolean changed;

  if (!hpd_boot_grub_write (call->root, call->text, &changed, error))
    return NULL;

  /* even when the file did not change: an earlier update-grub may have
   * failed after writing it */
  if (call->update_grub != NULL)
    {
      const char *const argv[] = { call->update_grub, NULL };

      if (!hpd_boot_run (argv, HPD_BOOT_UPDATE_GRUB_TIMEOUT_S, cancellable, &local_error))
        {
          g_set_error (error, HP_ERROR, HP_ERROR_FAILED,
                       "%s %s, but grub.cfg was not regenerated: %s. Run update-grub before "
                       "rebooting", call->text != NULL ? "Wrote" : "Removed", call->path,
                       local_error->message);
          return NULL;
        }
    }
  return g_variant_new ("(s)", call->path);
}

static void
boot_done (gpointer data, const HpdCaller *caller, GVariant *reply, const GError *error)
{
  BootCall *call = data;

  if (reply != NULL)
    g_message ("uid %u (pid %u) configured boot: %s %s (%s)%s", caller->uid, caller->pid,
               call->text != NULL ? "wrote" : "removed", call->path,
               call->text != NULL ? call->parameters : "no boot parameters",
               call->update_grub != NULL ? ", ran update-grub" : "");
  else
    g_warning ("uid %u (pid %u): configuring boot (%s) failed: %s", caller->uid, caller->pid,
               call->text != NULL ? call->parameters : "no boot parameters", error->message);
}

static char *
joined (GPtrArray *lines)
{
  g_autoptr(GString) out = g_string_new (NULL);

  for (guint i = 0; i < lines->len; i++)
    g_string_append_printf (out, "%s%s", i > 0 ? "; " : "", (const char *) g_ptr_array_index (lines, i));
  return g_string_free (g_steal_pointer (&out), FALSE);
}

void
hpd_boot_calls_configure (const HpdCall *method_call)
{
  HpdDaemon *daemon = method_call->daemon;
  GDBusMethodInvocation *invocation = method_call->invocation;
  const char *root = hpd_kernel_get_root (hpd_daemon_get_kernel (daemon));
  gboolean dry_run = FALSE;
  g_auto(HpdBootState) state = { 0, };
  g_autoptr(GError) error = NULL;
  g_autoptr(GHashTable) details = NULL;
  g_autofree char *update_grub = NULL;
  g_autofree char *path = NULL;
  BootCall *call;

  g_variant_lookup (method_call->options, HP_OPTION_DRY_RUN, "b", &dry_run);
  hpd_boot_state_read (daemon, NULL, &state);
  /* writing less than the configuration asks for would fail silently at boot */
  if (state.problems->len > 0)
    {
      g_autofree char *problems = joined (state.problems);
      g_dbus_method_invocation_return_error (invocation, HP_ERROR, HP_ERROR_FAILED,
                                             "The configuration cannot be used at boot: %s",
                                             problems);
      return;
    }
  if (!hpd_boot_grub_check (root, &update_grub, &error))
    {
      if (*state.boot_parameters == '\0')
        g_dbus_method_invocation_return_error (invocation, HP_ERROR, HP_ERROR_NOT_SUPPORTED,
                                               "%s. The configuration asks for no huge page "
                                               "boot parameters: there is nothing to add to "
                                               "the kernel command line", error->message);
      else
        g_dbus_method_invocation_return_error (invocation, HP_ERROR, HP_ERROR_NOT_SUPPORTED,
                                               "%s. Add \"%s\" to the kernel command line in "
                                               "the boot loader's configuration",
                                               error->message, state.boot_parameters);
      return;
    }

  path = g_build_filename (root, HPD_BOOT_GRUB_DROPIN, NULL);
  if (dry_run)
    {
      g_dbus_method_invocation_return_value (invocation, g_variant_new ("(s)", path));
      return;
    }

  call = g_new0 (BootCall, 1);
  call->root = g_strdup (root);
  call->path = g_steal_pointer (&path);
  call->text = hpd_boot_grub_dropin_text (state.wanted);
  call->parameters = g_strdup (state.boot_parameters);
  /* a fake tree's update-grub is never run */
  if (hpd_boot_is_real_root (root))
    call->update_grub = g_steal_pointer (&update_grub);

  details = hpd_auth_details_new ();
  hpd_auth_details_set (details, "boot-parameters", call->parameters);
  hpd_auth_details_set (details, "path", call->path);
  hpd_job_run (daemon, invocation, details, boot_work, boot_done, call,
               (GDestroyNotify) boot_call_free);
}
