/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* hugepagesctl: administers huge page pools through hugepagesd. */
#include "config.h"

#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <glib/gi18n.h>

#include "hp-error.h"
#include "hpctl.h"

typedef struct {
  const char *name;
  const char *arguments;
  int (*run)(HpctlContext *ctx, GStrv args);
  const char *summary;
} HpctlCommand;

static const HpctlCommand commands[] = {
  { "status", "", hpctl_status, N_("Show the service, the machine and every pool") },
  { "page-sizes", "[--all]", hpctl_page_sizes, N_("List huge page sizes in bytes (pagesize -H, -a)") },
  { "pools", "[--long|--nodes]", hpctl_pools, N_("List the pools (hugeadm --pool-list)") },
  { "set-min", "SIZE AMOUNT", hpctl_set_min, N_("Set the persistent pool of a size") },
  { "set-max", "SIZE AMOUNT", hpctl_set_max, N_("Set how far a pool may grow on demand") },
  { "set-node", "NODE SIZE AMOUNT", hpctl_set_node, N_("Set the persistent pool on one NUMA node") },
  { "demote", "SIZE COUNT", hpctl_demote, N_("Split free pages into pages of the demote size") },
  { "claim", "CONSUMER SIZE AMOUNT", hpctl_claim, N_("Claim pages for a consumer; the pools hold the sum") },
  { "release", "CONSUMER SIZE", hpctl_release, N_("Release a consumer's claim") },
  { "claims", "", hpctl_claims, N_("List the claims, with who made them") },
  { "suggest", "postgresql|jvm|qemu", hpctl_suggest, N_("Print the claim a usual consumer needs") },
  { "mounts", "", hpctl_mounts, N_("List the hugetlbfs mounts") },
  { "mount-create", "SCOPE [OWNER]", hpctl_mount_create, N_("Mount hugetlbfs for system, user, group or global use") },
  { "unmount", "PATH", hpctl_unmount, N_("Unmount a hugetlbfs mount") },
  { "shm-max", "[VALUE|recommended]", hpctl_shm_max, N_("Show or set kernel.shmmax (and shmall)") },
  { "shm-group", "[GROUP]", hpctl_shm_group, N_("Show or set vm.hugetlb_shm_group") },
  { "min-free-kbytes", "[VALUE|recommended]", hpctl_min_free_kbytes, N_("Show or set vm.min_free_kbytes") },
  { "zone-movable", "[on|off]", hpctl_zone_movable, N_("Show or set huge pages in ZONE_MOVABLE") },
  { "thp", "[NAME=VALUE…]", hpctl_thp, N_("Show or set transparent huge page settings") },
  { "explain", "[--json]", hpctl_explain, N_("Explain the setup and what to fix (hugeadm --explain)") },
  { "config", "[--check]", hpctl_config, N_("Show the saved configuration and where the kernel differs") },
  { "boot", "[--write [--dry-run]]", hpctl_boot, N_("Show the huge page boot parameters, or write them") },
  { "usage", "[--json]", hpctl_usage, N_("Show who holds huge pages: processes, files, SysV, cgroups") },
  { "remove-orphan", "PATH", hpctl_remove_orphan, N_("Remove a hugetlbfs file no process maps") },
  { "metrics", "[--output FILE]", hpctl_metrics, N_("Write the figures in Prometheus' text format (node_exporter)") },
  { "monitor", "", hpctl_monitor, N_("Print each change the service announces, until Ctrl-C") },
  { "hugeadm", "OPTION…", hpctl_hugeadm, N_("Run hugeadm options (also: hugepagesctl --pool-list …)") },
  { "pagesize", "[-a|-H]", hpctl_pagesize, N_("pagesize's options and output") },
};

int
hpctl_usage_error (const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_printerr ("%s: %s\n", g_get_prgname (), message);
  return HPCTL_EXIT_USAGE;
}

int
hpctl_fail (const GError *error)
{
  g_autoptr(GError) copy = g_error_copy (error);

  /* The D-Bus error name is for programs, the message is for people. */
  g_dbus_error_strip_remote_error (copy);
  g_printerr ("%s: %s\n", g_get_prgname (), copy->message);
  /* a value the service found wrong is a usage error as much as one the
   * client finds itself (a limit of the machine, LimitExceeded, is not) */
  if (g_error_matches (error, HP_ERROR, HP_ERROR_INVALID_ARGS) ||
      g_error_matches (error, HP_ERROR, HP_ERROR_NO_SUCH_USER) ||
      g_error_matches (error, HP_ERROR, HP_ERROR_NO_SUCH_GROUP))
    return HPCTL_EXIT_USAGE;
  return HPCTL_EXIT_ERROR;
}

gboolean
hpctl_path_argument (char *path)
{
  gsize length = strlen (path);

  if (path[0] != '/')
    {
      hpctl_usage_error ("PATH must be absolute, not '%s'", path);
      return FALSE;
    }
  while (length > 1 && path[length - 1] == '/')
    path[--length] = '\0';
  return TRUE;
}

void
hpctl_print_json (JsonNode *root)
{
  hpctl_print_json_text (root, TRUE);
}

void
hpctl_context_clear (HpctlContext *ctx)
{
  g_clear_pointer (&ctx->agent, hpctl_agent_stop);
  g_clear_object (&ctx->manager);
  g_clear_pointer (&ctx->owner, g_free);
  g_clear_pointer (&ctx->objects, g_variant_unref);
  g_clear_object (&ctx->bus);
  g_clear_pointer (&ctx->remote, hpctl_remote_free);
  g_clear_pointer (&ctx->host, g_free);
}

/* GOption takes any argument that starts with '-' for an option, but
 * "-4" and "-1G" are relative amounts. Such arguments get a leading space
 * while the options are parsed; so that this can be undone exactly,
 * arguments that already start with a space get one more. */
static gboolean
needs_hiding (const char *arg)
{
  return (arg[0] == '-' && g_ascii_isdigit (arg[1])) || arg[0] == ' ';
}

gboolean
hpctl_parse_command (HpctlContext *ctx, GOptionContext *options, GStrv *args)
{
  gboolean no_ask_password = FALSE;
  g_autofree char *host = NULL;
  const GOptionEntry common[] = {
    { "no-ask-password", 0, 0, G_OPTION_ARG_NONE, &no_ask_password,
      N_("Do not ask for a password; fail if authorization needs one"), NULL },
    HPCTL_HOST_ENTRY (host),
    { NULL }
  };
  g_autoptr(GError) error = NULL;
  /* not owned: GOption keeps the strings it leaves in place */
  g_autoptr(GPtrArray) hidden = g_ptr_array_new ();
  GStrv argv = *args;

  g_option_context_add_main_entries (options, common, NULL);
  g_option_context_set_translation_domain (options, GETTEXT_PACKAGE);

  for (gsize i = 1; argv[i] != NULL && strcmp (argv[i], "--") != 0; i++)
    if (needs_hiding (argv[i]))
      {
        char *marked = g_strconcat (" ", argv[i], NULL);
        g_free (argv[i]);
        argv[i] = marked;
        g_ptr_array_add (hidden, marked);
      }

  if (!g_option_context_parse_strv (options, args, &error))
    {
      hpctl_usage_error ("%s", error->message);
      return FALSE;
    }

  /* GOption leaves the "--" that ended the options among the arguments. */
  argv = *args;
  for (gsize i = 1; argv[i] != NULL; i++)
    if (strcmp (argv[i], "--") == 0)
      {
        g_free (argv[i]);
        memmove (&argv[i], &argv[i + 1], (g_strv_length (&argv[i + 1]) + 1) * sizeof (char *));
        break;
      }

  for (gsize i = 1; argv[i] != NULL; i++)
    if (g_ptr_array_find (hidden, argv[i], NULL))
      memmove (argv[i], argv[i] + 1, strlen (argv[i]));

  if (no_ask_password)
    ctx->ask_password = FALSE;
  if (host != NULL)
    {
      g_free (ctx->host);
      ctx->host = g_steal_pointer (&host);
    }
  return hpctl_check_host (ctx);
}

static char *
describe_commands (void)
{
  GString *text = g_string_new (_("Commands:"));
  int width = 0;

  g_string_append_c (text, '\n');
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    width = MAX (width, (int) g_utf8_strlen (commands[i].name, -1) + 1 +
                 (int) g_utf8_strlen (commands[i].arguments, -1));

  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_autofree char *usage = g_strdup_printf ("%s %s", commands[i].name, commands[i].arguments);
      /* pad by characters, not bytes: "…" is three bytes */
      int padding = width - (int) g_utf8_strlen (usage, -1);

      g_string_append_printf (text, "  %s%*s %s\n", usage, padding, "", _(commands[i].summary));
    }

  g_string_append_c (text, '\n');
  /* TRANSLATORS: keep command and option names, SIZE, AMOUNT, DEFAULT,
   * 'recommended' and the JSON keys as they are: they are typed as shown.
   * Keep lines below 80 columns. */
  g_string_append (text, _(
                     "SIZE is a huge page size: 2M, 1G, 2097152 (bytes) or DEFAULT.\n"
                     "AMOUNT is a number of pages (512) or of bytes (1G, 512M) that is a whole\n"
                     "number of pages; a leading + or - changes the current value by that much.\n"
                     "Units are binary, K, M, G or T with an optional B or iB, in any case (2mb,\n"
                     "2048kb and 2M are the same).\n"
                     "Numbers are decimal; anything else is an error (except mount-create --mode,\n"
                     "which is octal).\n"
                     "The tunable commands (shm-max, shm-group, min-free-kbytes, zone-movable,\n"
                     "thp) show the setting without an argument and change it with one; their\n"
                     "changes take --dry-run. 'recommended' sets the value hugepagesd recommends.\n"
                     "boot --write writes the configured boot parameters for the boot loader\n"
                     "(Debian with GRUB); elsewhere it prints what to add to the kernel command\n"
                     "line.\n"
                     "Changes ask for authorization, starting pkttyagent on a terminal when no\n"
                     "polkit agent is running.\n"));
  /* TRANSLATORS: keep -H, [USER@]HOST, the commands in quotes and
   * HUGEPAGESCTL_SSH as they are. */
  g_string_append (text, _(
                     "-H [USER@]HOST runs the command against hugepagesd on HOST, over\n"
                     "'ssh -xT [USER@]HOST systemd-stdio-bridge' as busctl and systemctl do\n"
                     "(HOST needs sshd and systemd-stdio-bridge; HUGEPAGESCTL_SSH replaces 'ssh',\n"
                     "e.g. 'ssh -F FILE'). The remote polkit cannot ask for a password over\n"
                     "ssh: log in as root or as a user its rules allow.\n"));
  /* TRANSLATORS: keep --json, format_version and 'JSON output' as they are. */
  g_string_append (text, _(
                     "Every command that shows something takes --json: one JSON object with\n"
                     "format_version, snake_case fields, sizes in bytes and counts in pages\n"
                     "(monitor --json: one object per line per event). README.md, 'JSON output',\n"
                     "describes each command's fields.\n"));
  g_string_append (text, _(
                     "Run 'hugepagesctl COMMAND --help' for the options of a command.\n"
                     "\n"
                     "Exit status:\n"
                     "  0  success\n"
                     "  1  error (including not authorized)\n"
                     "  2  usage error: bad command, option, argument, SIZE or AMOUNT, also\n"
                     "     when the service finds it wrong (no such user, group or node)\n"
                     "  3  the kernel did not give the requested number of pages"));
  return g_string_free (text, FALSE);
}

/* Optimal string alignment distance: insertions, deletions, substitutions
 * and swaps of neighbours ("stauts") each count one. */
static gsize
edit_distance (const char *a, const char *b)
{
  gsize la = strlen (a), lb = strlen (b);
  g_autofree gsize *d = g_new0 (gsize, (la + 1) * (lb + 1));
#define D(i, j) d[(i) * (lb + 1) + (j)]

  for (gsize i = 0; i <= la; i++)
    D (i, 0) = i;
  for (gsize j = 0; j <= lb; j++)
    D (0, j) = j;
  for (gsize i = 1; i <= la; i++)
    for (gsize j = 1; j <= lb; j++)
      {
        gsize cost = a[i - 1] == b[j - 1] ? 0 : 1;

        D (i, j) = MIN (MIN (D (i - 1, j) + 1, D (i, j - 1) + 1), D (i - 1, j - 1) + cost);
        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
          D (i, j) = MIN (D (i, j), D (i - 2, j - 2) + 1);
      }
  return D (la, lb);
#undef D
}

/* The command @name was most likely meant as, if one is near enough:
 * at most a third of its letters wrong, and no other command as near. */
static const char *
nearest_command (const char *name)
{
  const char *best = NULL;
  gsize best_distance = G_MAXSIZE;
  gboolean tie = FALSE;

  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      gsize distance = edit_distance (name, commands[i].name);

      if (distance < best_distance)
        {
          best = commands[i].name;
          best_distance = distance;
          tie = FALSE;
        }
      else if (distance == best_distance)
        tie = TRUE;
    }
  if (tie || best_distance > MAX ((gsize) 1, strlen (name) / 3))
    return NULL;
  return best;
}

static const HpctlCommand *
find_command (const char *name)
{
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (commands[i].name, name) == 0)
      return &commands[i];
  return NULL;
}

/* --persist before any "--" */
static gboolean
asks_persist (char *const *args)
{
  for (guint i = 1; args[i] != NULL && !g_str_equal (args[i], "--"); i++)
    if (g_str_equal (args[i], "--persist"))
      return TRUE;
  return FALSE;
}

int
main (int argc, char **argv)
{
  g_auto(HpctlContext) ctx = { .ask_password = TRUE };
  gboolean no_ask_password = FALSE, version = FALSE;
  const GOptionEntry entries[] = {
    { "no-ask-password", 0, 0, G_OPTION_ARG_NONE, &no_ask_password,
      N_("Do not ask for a password; fail if authorization needs one"), NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, &version,
      N_("Print the version and exit"), NULL },
    HPCTL_HOST_ENTRY (ctx.host),
    { NULL }
  };
  g_autoptr(GOptionContext) options = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *description = NULL;
  g_auto(GStrv) args = g_strdupv (argv);
  g_auto(GStrv) command_args = NULL;
  const HpctlCommand *command;
  int status;
  gboolean persist;
  HpctlCompatMode compat;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  /* GLib prints UTF-8 and converts to the locale's charset itself */
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  g_set_prgname ("hugepagesctl");
  description = describe_commands ();

  /* Remote errors must come back as HP_ERROR codes. */
  (void) HP_ERROR;

  /* hugeadm's command lines (hugepagesctl --pool-list …, or called as
   * hugeadm through a symlink) and pagesize's */
  compat = hpctl_compat_mode (args);
  if (compat != HPCTL_COMPAT_NONE)
    {
      status = hpctl_compat_run (&ctx, compat, args);
      if (status != HPCTL_EXIT_OK)
        hpctl_explain_refusal (&ctx);
      return status;
    }

  /* TRANSLATORS: the rest of the usage line "hugepagesctl [OPTION…] …" */
  options = g_option_context_new (N_("COMMAND [ARGUMENT…]"));
  g_option_context_set_translation_domain (options, GETTEXT_PACKAGE);
  /* Stop at the command: what follows is the command's to parse. */
  g_option_context_set_strict_posix (options, TRUE);
  g_option_context_set_summary (options, N_("Administer huge page pools through hugepagesd."));
  g_option_context_set_description (options, description);
  g_option_context_add_main_entries (options, entries, NULL);
  if (!g_option_context_parse_strv (options, &args, &error))
    return hpctl_usage_error ("%s", error->message);

  if (version)
    {
      g_print ("hugepagesctl %s\n", VERSION);
      return HPCTL_EXIT_OK;
    }
  if (no_ask_password)
    ctx.ask_password = FALSE;
  if (!hpctl_check_host (&ctx))
    return HPCTL_EXIT_USAGE;

  if (args[1] == NULL)
    {
      g_autofree char *help = g_option_context_get_help (options, TRUE, NULL);
      g_printerr ("%s", help);
      return HPCTL_EXIT_USAGE;
    }

  command = find_command (args[1]);
  if (command == NULL)
    {
      const char *nearest = nearest_command (args[1]);

      if (nearest != NULL)
        return hpctl_usage_error (_("unknown command '%s'; did you mean '%s'? "
                                    "See 'hugepagesctl --help'"), args[1], nearest);
      return hpctl_usage_error (_("unknown command '%s'; see 'hugepagesctl --help'"), args[1]);
    }

  command_args = g_strdupv (args + 1);
  persist = asks_persist (command_args);
  status = command->run (&ctx, command_args);
  if (status != HPCTL_EXIT_OK)
    hpctl_explain_refusal (&ctx);
  /* saved, but perhaps for a boot that will not read it */
  if (persist && (status == HPCTL_EXIT_OK || status == HPCTL_EXIT_SHORTFALL))
    hpctl_warn_apply_at_boot (&ctx);
  return status;
}
