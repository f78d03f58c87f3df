/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* hugeadm and pagesize compatibility. hugeadm's options, with its syntax,
 * are checked all at once and then run in hugeadm's fixed order, each as
 * the hugepagesctl command that does the same through hugepagesd; the
 * listings scripts parse (--pool-list, --page-sizes, --list-all-mounts and
 * the parts of --explain that huge_page_setup_helper.py reads) come out in
 * hugeadm's formats. Where hugeadm is wrong (octal and trailing garbage
 * accepted, exit 0 on failure, a short pool hidden, a dry run that writes)
 * the commands behave as hugepagesctl does; docs/hugeadm.md lists the
 * differences. This file runs the steps; hpctl-hugeadm-parse.c reads the
 * command line and hpctl-hugeadm-listings.c prints hugeadm's listings. */

#include "config.h"

#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "hp-error.h"
#include "hp-units.h"
#include "hpctl.h"
#include "hpctl-hugeadm.h"

/* Closes the connection of the last step, if any, so that the next one
 * can connect; a pkttyagent started for an earlier change is kept. */
void
disconnect (HpctlContext *ctx)
{
  HpctlAgent *agent = g_steal_pointer (&ctx->agent);
  char *host = g_steal_pointer (&ctx->host);

  hpctl_context_clear (ctx);
  ctx->agent = agent;
  ctx->host = host;
}

/* Runs one hugepagesctl command on a connection of its own: every command
 * connects itself. Takes @argv. */
int
run_command (HpctlContext *ctx, const Request *r, CommandFunc func, GPtrArray *argv)
{
  g_auto(GStrv) args = NULL;
  int status;

  g_ptr_array_add (argv, NULL);
  args = (GStrv) g_ptr_array_free (argv, FALSE);
  if (r->verbosity >= VERBOSITY_INFO)
    {
      g_autofree char *line = g_strjoinv (" ", args);
      g_printerr ("%s: running: hugepagesctl %s\n", g_get_prgname (), line);
    }
  disconnect (ctx);
  status = func (ctx, args);
  disconnect (ctx);
  return status;
}

/* A new argument vector: the command name and the arguments, NULL-ended. */
GPtrArray *
command_line (const char *first, ...)
{
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);
  const char *arg;
  va_list ap;

  g_ptr_array_add (argv, g_strdup (first));
  va_start (ap, first);
  while ((arg = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (argv, g_strdup (arg));
  va_end (ap);
  return argv;
}

static void
add_dry_run (const Request *r, GPtrArray *argv)
{
  if (r->dry_run)
    g_ptr_array_add (argv, g_strdup ("--dry-run"));
}

/* Every step runs, whatever the ones before did, as hugeadm goes on after
 * a step that failed (scripts rely on the later steps); the exit status
 * is that of the first failure, a short pool only if nothing else failed.
 * Always TRUE: the steps go on. */
static gboolean
note_status (int status, int *overall)
{
  if (status != HPCTL_EXIT_OK &&
      (*overall == HPCTL_EXIT_OK || *overall == HPCTL_EXIT_SHORTFALL))
    *overall = status;
  return TRUE;
}

/* What --create-*-mounts --dry-run would make: CreateMounts has no dry
 * run, so the paths are hugepagesd's rule (one mount per page size below
 * /var/lib/hugetlbfs), with the owner checked as the service will. */
static int
dry_run_mounts (HpctlContext *ctx, const char *scope, const char *owner)
{
  g_autoptr(GPtrArray) page_sizes = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *directory = NULL;
  guint32 id;

  if (strcmp (scope, "user") == 0 && owner != NULL && getpwnam (owner) == NULL &&
      !(hp_parse_u32 (owner, &id, NULL) && getpwuid (id) != NULL))
    {
      g_printerr ("%s: no such user: '%s'\n", g_get_prgname (), owner);
      return HPCTL_EXIT_ERROR;
    }
  if (strcmp (scope, "group") == 0 && owner != NULL && getgrnam (owner) == NULL &&
      !(hp_parse_u32 (owner, &id, NULL) && getgrgid (id) != NULL))
    {
      g_printerr ("%s: no such group: '%s'\n", g_get_prgname (), owner);
      return HPCTL_EXIT_ERROR;
    }

  if (!connect_for_listing (ctx))
    return HPCTL_EXIT_ERROR;
  page_sizes = hpctl_get_page_sizes (ctx, &error);
  if (page_sizes == NULL)
    return hpctl_fail (error);

  if (strcmp (scope, "system") == 0)
    directory = g_strdup ("/var/lib/hugetlbfs");
  else if (strcmp (scope, "global") == 0)
    directory = g_strdup ("/var/lib/hugetlbfs/global");
  else
    directory = g_strdup_printf ("/var/lib/hugetlbfs/%s/%s", scope, owner);

  for (guint i = 0; i < page_sizes->len; i++)
    {
      guint64 size = hp_dbus_manager_page_size_get_size (g_ptr_array_index (page_sizes, i));
      g_autofree char *name = hp_size_name (size);

      g_print ("would mount hugetlbfs (%s, %s scope) at %s/pagesize-%s\n", name, scope,
               directory, name);
    }
  return HPCTL_EXIT_OK;
}

static int
create_mounts (HpctlContext *ctx, const Request *r, const char *scope, const char *owner)
{
  GPtrArray *argv;

  if (r->dry_run)
    return dry_run_mounts (ctx, scope, owner);

  argv = command_line ("mount-create", scope, owner, NULL);
  if (r->max_size != NULL)
    {
      g_ptr_array_add (argv, g_strdup ("--size"));
      g_ptr_array_add (argv, g_strdup (r->max_size));
    }
  if (r->max_inodes != NULL)
    {
      g_ptr_array_add (argv, g_strdup ("--inodes"));
      g_ptr_array_add (argv, g_strdup (r->max_inodes));
    }
  return run_command (ctx, r, hpctl_mount_create, argv);
}

/* THP: every mode given, in hugeadm's order (always, madvise, never), so
 * the last of those wins as there; the khugepaged numbers, which hugeadm
 * writes right after, go in the same call. */
static GPtrArray *
thp_command (const Request *r)
{
  GPtrArray *argv = command_line ("thp", NULL);
  const char *mode = r->thp_never ? "never" : r->thp_madvise ? "madvise"
                   : r->thp_always ? "always" : NULL;

  if (mode != NULL)
    g_ptr_array_add (argv, g_strdup_printf ("enabled=%s", mode));
  if (r->khugepaged_pages != NULL)
    g_ptr_array_add (argv, g_strdup_printf ("khugepaged/pages_to_scan=%s", r->khugepaged_pages));
  if (r->khugepaged_alloc_sleep != NULL)
    g_ptr_array_add (argv, g_strdup_printf ("khugepaged/alloc_sleep_millisecs=%s",
                                            r->khugepaged_alloc_sleep));
  if (r->khugepaged_scan_sleep != NULL)
    g_ptr_array_add (argv, g_strdup_printf ("khugepaged/scan_sleep_millisecs=%s",
                                            r->khugepaged_scan_sleep));
  if (argv->len == 1)
    g_clear_pointer (&argv, g_ptr_array_unref);
  else
    add_dry_run (r, argv);
  return argv;
}

/* hugeadm empties the pool when asked to take away more pages than it
 * has (2M:-10 of 4 pages); set-min and set-max call that an error, so such
 * an amount becomes 0 here. Anything wrong with the size or the amount is
 * left for the command to report. */
static char *
amount_for_command (HpctlContext *ctx, const PoolSpec *spec, gboolean minimum)
{
  g_autoptr(HpDBusManagerPageSize) page_size = NULL;
  guint64 size, current;
  HpAmount amount;

  if (spec->amount[0] != '-' || !connect_for_listing (ctx) ||
      !hpctl_resolve_size (ctx, spec->size, &size, NULL) ||
      (page_size = hpctl_get_page_size (ctx, size, NULL)) == NULL ||
      !hp_parse_amount (spec->amount, size, &amount, NULL))
    return g_strdup (spec->amount);

  current = minimum ? hp_dbus_manager_page_size_get_minimum (page_size)
                    : hp_dbus_manager_page_size_get_maximum (page_size);
  return g_strdup (amount.pages > current ? "0" : spec->amount);
}

/* Every pool change of one kind, the last given first as in hugeadm. */
static gboolean
run_pool_changes (HpctlContext *ctx, const Request *r, gboolean minimum, int *overall)
{
  GPtrArray *specs = minimum ? r->pool_min : r->pool_max;

  for (guint i = specs->len; i > 0; i--)
    {
      const PoolSpec *spec = g_ptr_array_index (specs, i - 1);
      GPtrArray *argv = command_line (minimum ? "set-min" : "set-max", NULL);

      /* the service takes --hard only for the minimum; hugeadm's retries
       * there are for the minimum the maximum may shrink too */
      if (minimum && r->hard)
        g_ptr_array_add (argv, g_strdup ("--hard"));
      add_dry_run (r, argv);
      g_ptr_array_add (argv, g_strdup (spec->size));
      g_ptr_array_add (argv, amount_for_command (ctx, spec, minimum));
      if (!note_status (run_command (ctx, r, minimum ? hpctl_set_min : hpctl_set_max, argv),
                        overall))
        return FALSE;
    }
  return TRUE;
}

/* Whether the kernel has the ZONE_MOVABLE setting; TRUE (and the step
 * left to report) when the service cannot be asked. */
static gboolean
zone_movable_supported (HpctlContext *ctx, int *overall)
{
  gboolean supported;

  if (!connect_for_listing (ctx))
    {
      note_status (HPCTL_EXIT_ERROR, overall);
      return TRUE;
    }
  supported = hp_dbus_manager_get_zone_movable_supported (ctx->manager);
  disconnect (ctx);
  return supported;
}

/* hugeadm's order of execution, whatever the order on the command line
 * (hugeadm.md section 1). */
static int
run_request (HpctlContext *ctx, const Request *r)
{
  int overall = HPCTL_EXIT_OK;
  GPtrArray *thp;

#define STEP(expression) \
  G_STMT_START {                                          \
    if (!note_status ((expression), &overall)) {          \
        return overall;                                     \
      }                                                     \
  } G_STMT_END

  if (r->list_mounts)
    STEP (list_all_mounts (ctx));
  if (r->pool_list)
    STEP (run_command (ctx, r, hpctl_pools, command_line ("pools", NULL)));
  if (r->zone_movable != NULL && strcmp (r->zone_movable, "off") == 0 &&
      !zone_movable_supported (ctx, &overall))
    /* nothing is movable on such a kernel: the state asked for is the
     * state there is (hugeadm does not check) */
    g_printerr ("%s: warning: this kernel has no setting for huge pages in ZONE_MOVABLE; "
                "--disable-zone-movable changes nothing\n", g_get_prgname ());
  else if (r->zone_movable != NULL)
    {
      GPtrArray *argv = command_line ("zone-movable", r->zone_movable, NULL);

      add_dry_run (r, argv);
      STEP (run_command (ctx, r, hpctl_zone_movable, argv));
    }
  if ((thp = thp_command (r)) != NULL)
    STEP (run_command (ctx, r, hpctl_thp, thp));
  if (r->min_free_kbytes)
    {
      GPtrArray *argv = command_line ("min-free-kbytes", "recommended", NULL);

      add_dry_run (r, argv);
      STEP (run_command (ctx, r, hpctl_min_free_kbytes, argv));
    }
  if (r->shmmax)
    {
      GPtrArray *argv = command_line ("shm-max", "recommended", NULL);

      add_dry_run (r, argv);
      STEP (run_command (ctx, r, hpctl_shm_max, argv));
    }
  if (r->shm_group != NULL)
    {
      GPtrArray *argv = command_line ("shm-group", r->shm_group, NULL);

      add_dry_run (r, argv);
      STEP (run_command (ctx, r, hpctl_shm_group, argv));
    }
  if (!run_pool_changes (ctx, r, TRUE, &overall) || !run_pool_changes (ctx, r, FALSE, &overall))
    return overall;
  if (r->create_mounts)
    STEP (create_mounts (ctx, r, "system", NULL));
  if (r->user_mounts != NULL)
    STEP (create_mounts (ctx, r, "user", r->user_mounts));
  if (r->group_mounts != NULL)
    STEP (create_mounts (ctx, r, "group", r->group_mounts));
  if (r->create_global_mounts)
    STEP (create_mounts (ctx, r, "global", NULL));
  if (r->page_sizes)
    STEP (list_page_sizes (ctx, FALSE));
  if (r->page_sizes_all)
    STEP (list_page_sizes (ctx, TRUE));
  if (r->explain)
    STEP (explain (ctx, r));

#undef STEP
  return overall;
}

int
hpctl_hugeadm (HpctlContext *ctx, GStrv args)
{
  g_auto(Request) r = { 0, };
  int status = parse_request (ctx, args, &r);

  if (status != RUN_REQUEST)
    return status;
  return run_request (ctx, &r);
}

static const struct option pagesize_options[] = {
  { "all", no_argument, NULL, 'a' },
  { "huge-only", no_argument, NULL, 'H' },
  { "help", no_argument, NULL, 'h' },
  { "help-all", no_argument, NULL, 'h' },
  { NULL, 0, NULL, 0 },
};

/* libhugetlbfs's pagesize: the base page size; with -a also every huge
 * page size; with -H (also with -a) only those. */
int
hpctl_pagesize (HpctlContext *ctx, GStrv args)
{
  g_autoptr(GPtrArray) page_sizes = NULL;
  g_autoptr(GError) error = NULL;
  gboolean all = FALSE, huge_only = FALSE;
  int argc = (int) g_strv_length (args);
  int option;

  optind = 0;
  while ((option = getopt_long (argc, args, "+aHh", pagesize_options, NULL)) != -1)
    switch (option)
      {
      case 'a':
        all = TRUE;
        break;
      case 'H':
        huge_only = TRUE;
        break;
      case 'h':
        {
          g_autofree char *name = usage_name (args);

          g_print ("Usage: %s [-a|--all] [-H|--huge-only]\n"
                   "Print the base page size; with -a also every huge page size; with -H\n"
                   "only the huge page sizes. Bytes, one a line, ascending.\n", name);
          return HPCTL_EXIT_OK;
        }
      default:
        return HPCTL_EXIT_USAGE;
      }
  if (optind < argc)
    return hpctl_usage_error ("unexpected argument '%s'", args[optind]);

  if (!hpctl_connect (ctx))
    return HPCTL_EXIT_ERROR;
  page_sizes = hpctl_get_page_sizes (ctx, &error);
  if (page_sizes == NULL)
    return hpctl_fail (error);

  if (!huge_only)
    g_print ("%" G_GUINT64_FORMAT "\n", hp_dbus_manager_get_base_page_size (ctx->manager));
  if (all || huge_only)
    for (guint i = 0; i < page_sizes->len; i++)
      g_print ("%" G_GUINT64_FORMAT "\n",
               hp_dbus_manager_page_size_get_size (g_ptr_array_index (page_sizes, i)));
  return HPCTL_EXIT_OK;
}
