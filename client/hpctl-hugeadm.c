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
 * differences. */
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

/* hugeadm's verbosity levels: 2 (warnings) unless -v or --verbose */
#define VERBOSITY_DEFAULT 2
#define VERBOSITY_INFO 3
#define VERBOSITY_MAX 99

/* hugeadm's --list-all-mounts pads the path column to at least this */
#define MOUNT_COLUMN_MIN 20

/* a SIZE:AMOUNT of --pool-pages-min or --pool-pages-max */
typedef struct {
  char *size;
  char *amount;
} PoolSpec;

static void
pool_spec_free (PoolSpec *spec)
{
  g_free (spec->size);
  g_free (spec->amount);
  g_free (spec);
}

typedef struct {
  int verbosity;
  gboolean dry_run, hard;
  gboolean list_mounts, pool_list, page_sizes, page_sizes_all, explain;
  gboolean create_mounts, create_global_mounts;
  char *user_mounts, *group_mounts;
  char *max_size, *max_inodes;
  const char *zone_movable;  /* "on", "off" or NULL: the last one given */
  gboolean thp_always, thp_madvise, thp_never;
  char *khugepaged_pages, *khugepaged_scan_sleep, *khugepaged_alloc_sleep;
  gboolean min_free_kbytes, shmmax;
  char *shm_group;
  GPtrArray *pool_min, *pool_max;  /* PoolSpec, in command-line order */
  guint operations;
} Request;

static void
request_clear (Request *r)
{
  g_free (r->user_mounts);
  g_free (r->group_mounts);
  g_free (r->max_size);
  g_free (r->max_inodes);
  g_free (r->khugepaged_pages);
  g_free (r->khugepaged_scan_sleep);
  g_free (r->khugepaged_alloc_sleep);
  g_free (r->shm_group);
  g_clear_pointer (&r->pool_min, g_ptr_array_unref);
  g_clear_pointer (&r->pool_max, g_ptr_array_unref);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Request, request_clear)

enum {
  OPT_LIST_ALL_MOUNTS = 1000,
  OPT_POOL_LIST,
  OPT_HARD,
  OPT_POOL_PAGES_MIN,
  OPT_POOL_PAGES_MAX,
  OPT_OBEY_MEMPOLICY,
  OPT_THP_ALWAYS,
  OPT_THP_MADVISE,
  OPT_THP_NEVER,
  OPT_THP_KHUGEPAGED_PAGES,
  OPT_THP_KHUGEPAGED_SCAN_SLEEP,
  OPT_THP_KHUGEPAGED_ALLOC_SLEEP,
  OPT_SET_RECOMMENDED_MIN_FREE_KBYTES,
  OPT_SET_RECOMMENDED_SHMMAX,
  OPT_SET_SHM_GROUP,
  OPT_ADD_TEMP_SWAP,
  OPT_ADD_RAMDISK_SWAP,
  OPT_PERSIST,
  OPT_ENABLE_ZONE_MOVABLE,
  OPT_DISABLE_ZONE_MOVABLE,
  OPT_CREATE_MOUNTS,
  OPT_CREATE_USER_MOUNTS,
  OPT_CREATE_GROUP_MOUNTS,
  OPT_CREATE_GLOBAL_MOUNTS,
  OPT_MAX_SIZE,
  OPT_MAX_INODES,
  OPT_PAGE_SIZES,
  OPT_PAGE_SIZES_ALL,
  OPT_EXPLAIN,
  OPT_NO_ASK_PASSWORD,
};

/* hugeadm 2.23's options, spelt as it spells them (getopt_long, so any
 * unique prefix works as it does there), plus --no-ask-password. */
static const struct option hugeadm_options[] = {
  { "list-all-mounts", no_argument, NULL, OPT_LIST_ALL_MOUNTS },
  { "pool-list", no_argument, NULL, OPT_POOL_LIST },
  { "hard", no_argument, NULL, OPT_HARD },
  { "pool-pages-min", required_argument, NULL, OPT_POOL_PAGES_MIN },
  { "pool-pages-max", required_argument, NULL, OPT_POOL_PAGES_MAX },
  { "obey-mempolicy", no_argument, NULL, OPT_OBEY_MEMPOLICY },
  { "thp-always", no_argument, NULL, OPT_THP_ALWAYS },
  { "thp-madvise", no_argument, NULL, OPT_THP_MADVISE },
  { "thp-never", no_argument, NULL, OPT_THP_NEVER },
  { "thp-khugepaged-pages", required_argument, NULL, OPT_THP_KHUGEPAGED_PAGES },
  { "thp-khugepaged-scan-sleep", required_argument, NULL, OPT_THP_KHUGEPAGED_SCAN_SLEEP },
  { "thp-khugepaged-alloc-sleep", required_argument, NULL, OPT_THP_KHUGEPAGED_ALLOC_SLEEP },
  { "set-recommended-min_free_kbytes", no_argument, NULL, OPT_SET_RECOMMENDED_MIN_FREE_KBYTES },
  { "set-recommended-shmmax", no_argument, NULL, OPT_SET_RECOMMENDED_SHMMAX },
  { "set-shm-group", required_argument, NULL, OPT_SET_SHM_GROUP },
  { "add-temp-swap", optional_argument, NULL, OPT_ADD_TEMP_SWAP },
  { "add-ramdisk-swap", no_argument, NULL, OPT_ADD_RAMDISK_SWAP },
  { "persist", no_argument, NULL, OPT_PERSIST },
  { "enable-zone-movable", no_argument, NULL, OPT_ENABLE_ZONE_MOVABLE },
  { "disable-zone-movable", no_argument, NULL, OPT_DISABLE_ZONE_MOVABLE },
  { "create-mounts", no_argument, NULL, OPT_CREATE_MOUNTS },
  { "create-user-mounts", required_argument, NULL, OPT_CREATE_USER_MOUNTS },
  { "create-group-mounts", required_argument, NULL, OPT_CREATE_GROUP_MOUNTS },
  { "create-global-mounts", no_argument, NULL, OPT_CREATE_GLOBAL_MOUNTS },
  { "max-size", required_argument, NULL, OPT_MAX_SIZE },
  { "max-inodes", required_argument, NULL, OPT_MAX_INODES },
  { "page-sizes", no_argument, NULL, OPT_PAGE_SIZES },
  { "page-sizes-all", no_argument, NULL, OPT_PAGE_SIZES_ALL },
  { "dry-run", no_argument, NULL, 'd' },
  { "explain", no_argument, NULL, OPT_EXPLAIN },
  { "verbose", required_argument, NULL, 'v' },
  { "help", no_argument, NULL, 'h' },
  /* what every hugepagesctl command takes (tests/docs/check-man.py asks) */
  { "help-all", no_argument, NULL, 'h' },
  { "no-ask-password", no_argument, NULL, OPT_NO_ASK_PASSWORD },
  /* hugepagesctl's, not hugeadm's (which has no -H) */
  { "host", required_argument, NULL, 'H' },
  { NULL, 0, NULL, 0 },
};

static const char hugeadm_help[] =
  "Usage: %s [OPTION…]\n"
  "hugeadm's options, run through hugepagesd in hugeadm's order:\n"
  "  --list-all-mounts                  hugepagesctl mounts, in hugeadm's format\n"
  "  --pool-list                        hugepagesctl pools\n"
  "  --enable-zone-movable              hugepagesctl zone-movable on\n"
  "  --disable-zone-movable             hugepagesctl zone-movable off\n"
  "  --thp-always, --thp-madvise, --thp-never\n"
  "                                     hugepagesctl thp enabled=MODE\n"
  "  --thp-khugepaged-pages N           hugepagesctl thp khugepaged/pages_to_scan=N\n"
  "  --thp-khugepaged-scan-sleep MS     hugepagesctl thp khugepaged/scan_sleep_millisecs=MS\n"
  "  --thp-khugepaged-alloc-sleep MS    hugepagesctl thp khugepaged/alloc_sleep_millisecs=MS\n"
  "  --set-recommended-min_free_kbytes  hugepagesctl min-free-kbytes recommended\n"
  "  --set-recommended-shmmax           hugepagesctl shm-max recommended\n"
  "  --set-shm-group GROUP              hugepagesctl shm-group GROUP\n"
  "  --pool-pages-min SIZE:[+|-]AMOUNT  hugepagesctl set-min SIZE [+|-]AMOUNT\n"
  "  --pool-pages-max SIZE:[+|-]AMOUNT  hugepagesctl set-max SIZE [+|-]AMOUNT\n"
  "  --hard                             set-min --hard (retries, compacting memory)\n"
  "  --create-mounts                    hugepagesctl mount-create system\n"
  "  --create-user-mounts USER          hugepagesctl mount-create user USER\n"
  "  --create-group-mounts GROUP        hugepagesctl mount-create group GROUP\n"
  "  --create-global-mounts             hugepagesctl mount-create global\n"
  "  --max-size S, --max-inodes N       mount-create --size S, --inodes N\n"
  "  --page-sizes                       sizes with a pool maximum and a mount you can use\n"
  "  --page-sizes-all                   hugepagesctl page-sizes\n"
  "  --explain                          hugeadm's overview, then hugepagesctl explain\n"
  "  -d, --dry-run                      show what would be set; change nothing\n"
  "  -v, --verbose LEVEL                3 or more: print each hugepagesctl command run\n"
  "  --no-ask-password                  fail instead of asking for a password\n"
  "  -H, --host [USER@]HOST             run it on HOST, over ssh (hugepagesctl --help)\n"
  "  -h, --help                         this text\n"
  "SIZE is 2M, 2MB, 1G, a number of bytes or DEFAULT. AMOUNT is a number of\n"
  "pages or an amount of memory (512M, 1G) that is a whole number of pages.\n"
  "Numbers are decimal; anything else is an error, before anything is changed.\n"
  "Unlike hugeadm: exit status 1 on errors, 2 on usage errors and 3 when the\n"
  "kernel gave fewer pages than asked (what it gave is printed); --dry-run\n"
  "changes nothing at all; --add-temp-swap, --add-ramdisk-swap, --persist\n"
  "and --obey-mempolicy are not offered (see 'hugepagesctl set-node').\n"
  "As hugeadm: every step runs after one that failed (the exit status is the\n"
  "first failure's); units may be in any case (2mb, 2048kb).\n";

/* --- parsing ------------------------------------------------------------- */

/* How the usage line names us: "hugepagesctl hugeadm" for the command,
 * "hugepagesctl" for hugeadm's options given to it directly, "hugeadm"
 * through a symlink. */
static char *
usage_name (GStrv args)
{
  if (strcmp (args[0], g_get_prgname ()) == 0)
    return g_strdup (args[0]);
  return g_strdup_printf ("%s %s", g_get_prgname (), args[0]);
}

static int
unsupported (const char *option, const char *instead)
{
  return hpctl_usage_error ("hugeadm's %s is not supported: %s", option, instead);
}

/* A hugeadm pool argument: exactly one colon between a SIZE and an AMOUNT,
 * both checked now so that nothing runs when one of them is wrong. */
/* hugeadm reads a unit by its letter whatever its case (2mb, 2Mb, 2048kb,
 * 1g); hugepagesctl spells units as K, M, G, T with an optional B or iB.
 * A number (with its sign) followed by a unit in any case becomes that
 * spelling; anything else is left for the parser to report. */
static char *
canonical_units (const char *text)
{
  static const struct { const char *unit; const char *as; } units[] = {
    { "b", "" },
    { "k", "K" }, { "kb", "K" }, { "kib", "K" },
    { "m", "M" }, { "mb", "M" }, { "mib", "M" },
    { "g", "G" }, { "gb", "G" }, { "gib", "G" },
    { "t", "T" }, { "tb", "T" }, { "tib", "T" },
  };
  const char *p = text;

  if (*p == '+' || *p == '-')
    p++;
  if (!g_ascii_isdigit (*p))
    return g_strdup (text);
  while (g_ascii_isdigit (*p))
    p++;
  for (gsize i = 0; *p != '\0' && i < G_N_ELEMENTS (units); i++)
    if (g_ascii_strcasecmp (p, units[i].unit) == 0)
      return g_strdup_printf ("%.*s%s", (int) (p - text), text, units[i].as);
  return g_strdup (text);
}

static gboolean
parse_pool_spec (const char *option, const char *text, GPtrArray *specs, GError **error)
{
  g_autoptr(GError) reason = NULL;
  const char *colon = strchr (text, ':');
  PoolSpec *spec;
  HpAmount amount;

  if (colon == NULL || colon == text || colon[1] == '\0' || strchr (colon + 1, ':') != NULL)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "%s takes SIZE:AMOUNT (2M:512, DEFAULT:+1G, 1G:-1), not '%s'", option, text);
      return FALSE;
    }

  spec = g_new0 (PoolSpec, 1);
  {
    g_autofree char *size = g_strndup (text, (gsize) (colon - text));

    spec->size = canonical_units (size);
  }
  spec->amount = canonical_units (colon + 1);
  g_ptr_array_add (specs, spec);

  /* with 1-byte pages any amount of memory is whole pages: the real size
   * is checked when the service has said what it is */
  if (!hpctl_check_size_syntax (spec->size, &reason) ||
      !hp_parse_amount (spec->amount, 1, &amount, &reason))
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS, "%s %s: %s", option, text,
                   reason->message);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_number (const char *option, const char *text, guint64 most, guint64 *value,
              GError **error)
{
  g_autoptr(GError) reason = NULL;

  if (!hp_parse_u64 (text, value, &reason))
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS, "%s takes a decimal number: %s",
                   option, reason->message);
      return FALSE;
    }
  if (*value > most)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "%s %s is out of range (at most %" G_GUINT64_FORMAT ")", option, text, most);
      return FALSE;
    }
  return TRUE;
}

/* --max-size: an amount of memory, or a percentage of the pool as
 * mount-create --size takes it */
static gboolean
check_max_size (const char *text, GError **error)
{
  g_autoptr(GError) reason = NULL;
  gsize len = strlen (text);
  guint64 value;

  if (len > 1 && text[len - 1] == '%')
    {
      g_autofree char *digits = g_strndup (text, len - 1);

      if (digits[0] != '0' && hp_parse_u64 (digits, &value, NULL) && value >= 1 && value <= 100)
        return TRUE;
    }
  else if (hp_parse_size (text, &value, &reason))
    return TRUE;

  g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
               "--max-size takes an amount of memory (512M, 1G) or a percentage "
               "(1%% to 100%%), not '%s'%s%s", text,
               reason != NULL ? ": " : "", reason != NULL ? reason->message : "");
  return FALSE;
}

static gboolean
check_owner (const char *option, const char *text, GError **error)
{
  if (*text != '\0')
    return TRUE;
  g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS, "%s takes a name, not ''", option);
  return FALSE;
}

/* parse_request ()'s answer when the request is to be run; exit statuses
 * are 0 and above */
#define RUN_REQUEST (-1)

/* Every operation counts, as in hugeadm, except the modifiers --hard,
 * --dry-run and --verbose; --max-size and --max-inodes count there too but
 * are refused here without a mount to apply to. Returns RUN_REQUEST, or
 * the exit status when there is nothing to run (--help, or an error that
 * has been printed). */
static int
parse_request (HpctlContext *ctx, GStrv args, Request *r)
{
  g_autoptr(GError) error = NULL;
  int argc = (int) g_strv_length (args);
  int option;

  r->verbosity = VERBOSITY_DEFAULT;
  r->pool_min = g_ptr_array_new_with_free_func ((GDestroyNotify) pool_spec_free);
  r->pool_max = g_ptr_array_new_with_free_func ((GDestroyNotify) pool_spec_free);

  /* "+": stop at the first argument that is not an option, as hugeadm */
  optind = 0;
  while ((option = getopt_long (argc, args, "+hdvH:", hugeadm_options, NULL)) != -1)
    {
      guint64 number;

      switch (option)
        {
        case 'h':
          {
            g_autofree char *name = usage_name (args);

            g_print (hugeadm_help, name);
            return HPCTL_EXIT_OK;
          }
        case 'd':
          r->dry_run = TRUE;
          break;
        case 'v':
          if (optarg == NULL)
            r->verbosity = MIN (r->verbosity + 1, VERBOSITY_MAX);
          else
            {
              guint64 level;

              if (!hp_parse_u64 (optarg, &level, NULL) || level > VERBOSITY_MAX)
                return hpctl_usage_error ("--verbose takes a level from 0 to 99, not '%s'",
                                          optarg);
              r->verbosity = (int) level;
            }
          break;
        case OPT_HARD:
          r->hard = TRUE;
          break;
        case OPT_NO_ASK_PASSWORD:
          ctx->ask_password = FALSE;
          break;
        case 'H':
          if (*optarg == '\0')
            return hpctl_usage_error ("--host takes [USER@]HOST, not ''");
          /* every step's connection goes there (disconnect () keeps it) */
          g_free (ctx->host);
          ctx->host = g_strdup (optarg);
          break;
        case OPT_LIST_ALL_MOUNTS:
          r->list_mounts = TRUE;
          break;
        case OPT_POOL_LIST:
          r->pool_list = TRUE;
          break;
        case OPT_POOL_PAGES_MIN:
          parse_pool_spec ("--pool-pages-min", optarg, r->pool_min, &error);
          break;
        case OPT_POOL_PAGES_MAX:
          parse_pool_spec ("--pool-pages-max", optarg, r->pool_max, &error);
          break;
        case OPT_THP_ALWAYS:
          r->thp_always = TRUE;
          break;
        case OPT_THP_MADVISE:
          r->thp_madvise = TRUE;
          break;
        case OPT_THP_NEVER:
          r->thp_never = TRUE;
          break;
        case OPT_THP_KHUGEPAGED_PAGES:
          check_number ("--thp-khugepaged-pages", optarg, G_MAXUINT32, &number, &error);
          g_free (r->khugepaged_pages);
          r->khugepaged_pages = g_strdup (optarg);
          break;
        case OPT_THP_KHUGEPAGED_SCAN_SLEEP:
          check_number ("--thp-khugepaged-scan-sleep", optarg, G_MAXUINT32, &number, &error);
          g_free (r->khugepaged_scan_sleep);
          r->khugepaged_scan_sleep = g_strdup (optarg);
          break;
        case OPT_THP_KHUGEPAGED_ALLOC_SLEEP:
          check_number ("--thp-khugepaged-alloc-sleep", optarg, G_MAXUINT32, &number, &error);
          g_free (r->khugepaged_alloc_sleep);
          r->khugepaged_alloc_sleep = g_strdup (optarg);
          break;
        case OPT_SET_RECOMMENDED_MIN_FREE_KBYTES:
          r->min_free_kbytes = TRUE;
          break;
        case OPT_SET_RECOMMENDED_SHMMAX:
          r->shmmax = TRUE;
          break;
        case OPT_SET_SHM_GROUP:
          check_owner ("--set-shm-group", optarg, &error);
          g_free (r->shm_group);
          r->shm_group = g_strdup (optarg);
          break;
        case OPT_ENABLE_ZONE_MOVABLE:
          r->zone_movable = "on";
          break;
        case OPT_DISABLE_ZONE_MOVABLE:
          r->zone_movable = "off";
          break;
        case OPT_CREATE_MOUNTS:
          r->create_mounts = TRUE;
          break;
        case OPT_CREATE_USER_MOUNTS:
          check_owner ("--create-user-mounts", optarg, &error);
          g_free (r->user_mounts);
          r->user_mounts = g_strdup (optarg);
          break;
        case OPT_CREATE_GROUP_MOUNTS:
          check_owner ("--create-group-mounts", optarg, &error);
          g_free (r->group_mounts);
          r->group_mounts = g_strdup (optarg);
          break;
        case OPT_CREATE_GLOBAL_MOUNTS:
          r->create_global_mounts = TRUE;
          break;
        case OPT_MAX_SIZE:
          g_free (r->max_size);
          r->max_size = canonical_units (optarg);
          check_max_size (r->max_size, &error);
          break;
        case OPT_MAX_INODES:
          if (check_number ("--max-inodes", optarg, G_MAXUINT64, &number, &error) &&
              number == 0)
            return hpctl_usage_error ("--max-inodes must be at least 1; leave it out for no "
                                      "limit");
          g_free (r->max_inodes);
          r->max_inodes = g_strdup (optarg);
          break;
        case OPT_PAGE_SIZES:
          r->page_sizes = TRUE;
          break;
        case OPT_PAGE_SIZES_ALL:
          r->page_sizes_all = TRUE;
          break;
        case OPT_EXPLAIN:
          r->explain = TRUE;
          break;
        case OPT_OBEY_MEMPOLICY:
          return unsupported ("--obey-mempolicy",
                              "it sizes the pool on the nodes of the caller's memory policy; "
                              "set each node's pool with 'hugepagesctl set-node NODE SIZE AMOUNT'");
        case OPT_ADD_TEMP_SWAP:
        case OPT_ADD_RAMDISK_SWAP:
          return unsupported (option == OPT_ADD_TEMP_SWAP ? "--add-temp-swap"
                                                          : "--add-ramdisk-swap",
                              "hugepagesd adds no swap; --hard compacts memory between tries "
                              "(and set-min --drop-caches can drop the page cache)");
        case OPT_PERSIST:
          return unsupported ("--persist", "it only keeps hugeadm's temporary swap; to make a "
                              "change again at boot use the --persist of hugepagesctl's commands");
        case '?':
        default:
          /* getopt has said what was wrong */
          return HPCTL_EXIT_USAGE;
        }
      /* every check above sets @error when it fails */
      if (error != NULL)
        return hpctl_usage_error ("%s", error->message);
      if (option != 'd' && option != 'v' && option != OPT_HARD && option != OPT_NO_ASK_PASSWORD)
        r->operations++;
    }

  /* hugeadm acts first and complains about these afterwards */
  if (optind < argc)
    return hpctl_usage_error ("unexpected argument '%s'; hugeadm's options take no others "
                              "(see '%s --help')", args[optind], g_get_prgname ());
  if (r->operations == 0)
    return hpctl_usage_error ("no operation given (see '%s --help')", g_get_prgname ());
  if ((r->max_size != NULL || r->max_inodes != NULL) && !r->create_mounts &&
      !r->create_global_mounts && r->user_mounts == NULL && r->group_mounts == NULL)
    return hpctl_usage_error ("--max-size and --max-inodes only apply to the --create-*-mounts "
                              "options");
  return RUN_REQUEST;
}

/* --- running hugepagesctl's commands ------------------------------------- */

typedef int (*CommandFunc) (HpctlContext *ctx, GStrv args);

/* Closes the connection of the last step, if any, so that the next one
 * can connect; a pkttyagent started for an earlier change is kept. */
static void
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
static int
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
static GPtrArray *
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

/* --- the listings, in hugeadm's formats ---------------------------------- */

/* A fresh connection for a listing: the properties as they are now. */
static gboolean
connect_for_listing (HpctlContext *ctx)
{
  disconnect (ctx);
  return hpctl_connect (ctx);
}

/* The options column of /proc/mounts for a hugetlbfs mount: the per-mount
 * flags, then what hugetlbfs_show_options () prints, in its order. */
static char *
kernel_mount_options (GVariant *attributes)
{
  GString *text = g_string_new (NULL);
  const char *flags = NULL;
  guint32 uid = 0, gid = 0, mode = 0755;
  guint64 page_size = 0, value;

  g_variant_lookup (attributes, "flags", "&s", &flags);
  g_variant_lookup (attributes, "uid", "u", &uid);
  g_variant_lookup (attributes, "gid", "u", &gid);
  g_variant_lookup (attributes, "mode", "u", &mode);
  g_variant_lookup (attributes, "page-size", "t", &page_size);

  g_string_append (text, flags != NULL && *flags != '\0' ? flags : "rw");
  if (uid != 0)
    g_string_append_printf (text, ",uid=%u", uid);
  if (gid != 0)
    g_string_append_printf (text, ",gid=%u", gid);
  if (mode != 0755)
    g_string_append_printf (text, ",mode=%o", mode);
  if (g_variant_lookup (attributes, "max-inodes", "t", &value))
    g_string_append_printf (text, ",nr_inodes=%" G_GUINT64_FORMAT, value);
  if (page_size >= 1024 * 1024)
    g_string_append_printf (text, ",pagesize=%" G_GUINT64_FORMAT "M", page_size / (1024 * 1024));
  else if (page_size > 0)
    g_string_append_printf (text, ",pagesize=%" G_GUINT64_FORMAT "K", page_size / 1024);
  if (g_variant_lookup (attributes, "max-size", "t", &value))
    g_string_append_printf (text, ",size=%" G_GUINT64_FORMAT, value);
  if (g_variant_lookup (attributes, "min-size", "t", &value))
    g_string_append_printf (text, ",min_size=%" G_GUINT64_FORMAT, value);
  return g_string_free (text, FALSE);
}

/* hugeadm --list-all-mounts: "No hugetlbfs mount points found" is an
 * error message there, but not an error: exit 0, as there. */
static int
list_all_mounts (HpctlContext *ctx)
{
  GVariant *mounts;
  GVariantIter iter;
  const char *path;
  GVariant *attributes;
  int width = MOUNT_COLUMN_MIN;

  if (!connect_for_listing (ctx))
    return HPCTL_EXIT_ERROR;
  mounts = hp_dbus_manager_get_mounts (ctx->manager);
  if (mounts == NULL || g_variant_n_children (mounts) == 0)
    {
      g_printerr ("%s: No hugetlbfs mount points found\n", g_get_prgname ());
      return HPCTL_EXIT_OK;
    }

  g_variant_iter_init (&iter, mounts);
  while (g_variant_iter_next (&iter, "(&s@a{sv})", &path, &attributes))
    {
      width = MAX (width, (int) strlen (path));
      g_variant_unref (attributes);
    }

  g_print ("%-*s %s\n", width, "Mount Point", "Options");
  g_variant_iter_init (&iter, mounts);
  while (g_variant_iter_next (&iter, "(&s@a{sv})", &path, &attributes))
    {
      g_autofree char *options = kernel_mount_options (attributes);

      g_print ("%-*s %s\n", width, path, options);
      g_variant_unref (attributes);
    }
  return HPCTL_EXIT_OK;
}

/* Whether the caller can use a hugetlbfs mount of @size, as libhugetlbfs
 * decides it: read, write and search access to the mount point. */
static gboolean
has_usable_mount (GVariant *mounts, guint64 size)
{
  GVariantIter iter;
  const char *path;
  GVariant *attributes;
  gboolean found = FALSE;

  if (mounts == NULL)
    return FALSE;
  g_variant_iter_init (&iter, mounts);
  while (!found && g_variant_iter_next (&iter, "(&s@a{sv})", &path, &attributes))
    {
      guint64 page_size = 0;

      g_variant_lookup (attributes, "page-size", "t", &page_size);
      found = page_size == size && access (path, R_OK | W_OK | X_OK) == 0;
      g_variant_unref (attributes);
    }
  return found;
}

/* hugeadm --page-sizes (@all FALSE): sizes whose pool has a maximum and a
 * mount the caller can use; --page-sizes-all: every size. */
static int
list_page_sizes (HpctlContext *ctx, gboolean all)
{
  g_autoptr(GPtrArray) page_sizes = NULL;
  g_autoptr(GError) error = NULL;
  GVariant *mounts;

  if (!connect_for_listing (ctx))
    return HPCTL_EXIT_ERROR;
  page_sizes = hpctl_get_page_sizes (ctx, &error);
  if (page_sizes == NULL)
    return hpctl_fail (error);
  mounts = hp_dbus_manager_get_mounts (ctx->manager);

  for (guint i = 0; i < page_sizes->len; i++)
    {
      HpDBusManagerPageSize *p = g_ptr_array_index (page_sizes, i);
      guint64 size = hp_dbus_manager_page_size_get_size (p);

      if (all || (hp_dbus_manager_page_size_get_maximum (p) > 0 &&
                  has_usable_mount (mounts, size)))
        g_print ("%" G_GUINT64_FORMAT "\n", size);
    }
  return HPCTL_EXIT_OK;
}

/* hugeadm --explain's hugetlb_shm_group check, for the calling user. */
static void
explain_shm_group (guint32 gid)
{
  struct group *gr = getgrgid (gid);
  struct passwd *pw;
  uid_t uid = getuid ();
  g_autofree char *group_name = NULL;
  g_auto(GStrv) members = NULL;

  g_print ("\n");
  if (gr == NULL)
    {
      g_printerr ("%s: warning: Group ID %u in hugetlb_shm_group doesn't appear to be a "
                  "valid group!\n", g_get_prgname (), gid);
      return;
    }
  /* getpwuid () may reuse the buffer getgrgid () returned */
  group_name = g_strdup (gr->gr_name);
  members = g_strdupv (gr->gr_mem);
  pw = getpwuid (uid);
  if (pw == NULL)
    {
      g_printerr ("%s: warning: User uid %u is not in the password file!\n", g_get_prgname (),
                  (guint) uid);
      return;
    }

  if (uid != 0 && pw->pw_gid != gid && !g_strv_contains ((const char *const *) members,
                                                         pw->pw_name))
    g_printerr ("%s: warning: User %s (uid: %u) is not a member of the hugetlb_shm_group %s "
                "(gid: %u)!\n", g_get_prgname (), pw->pw_name, (guint) uid, group_name, gid);
  else
    g_print ("To make your hugetlb_shm_group settings persistent, add the following line to "
             "/etc/sysctl.conf:\n  vm.hugetlb_shm_group = %u\n", gid);
}

static gboolean
has_finding (GVariant *findings, const char *id)
{
  for (gsize i = 0; findings != NULL && i < g_variant_n_children (findings); i++)
    {
      g_autoptr(GVariant) finding = g_variant_get_child_value (findings, i);

      if (strcmp (hpctl_record_string (finding, "id"), id) == 0)
        return TRUE;
    }
  return FALSE;
}

/* hugeadm --explain's text, figures from hugepagesd (its min_free_kbytes
 * recommendation, not hugeadm's), then hugepagesd's own findings. */
static int
explain (HpctlContext *ctx, const Request *r)
{
  HpDBusManager *m;
  g_autoptr(GVariant) findings = NULL;
  g_autoptr(GError) error = NULL;
  GVariantBuilder no_options;
  guint64 shmmax, recommended_shmmax, min_free, recommended_min_free;
  guint32 shm_group;
  int status;

  if (!connect_for_listing (ctx))
    return HPCTL_EXIT_ERROR;
  m = ctx->manager;
  g_variant_builder_init (&no_options, G_VARIANT_TYPE_VARDICT);
  if (!hp_dbus_manager_call_explain_sync (m, g_variant_builder_end (&no_options),
                                          G_DBUS_CALL_FLAGS_NONE, -1, &findings, NULL, &error))
    return hpctl_fail (error);
  shmmax = hp_dbus_manager_get_shm_max (m);
  recommended_shmmax = hp_dbus_manager_get_recommended_shm_max (m);
  min_free = hp_dbus_manager_get_min_free_kbytes (m);
  recommended_min_free = hp_dbus_manager_get_recommended_min_free_kbytes (m);
  shm_group = hp_dbus_manager_get_shm_group (m);

  g_print ("Total System Memory: %" G_GUINT64_FORMAT " MB\n\n",
           hp_dbus_manager_get_mem_total (m) / (1024 * 1024));
  if ((status = list_all_mounts (ctx)) != HPCTL_EXIT_OK)
    return status;
  g_print ("\nHuge page pools:\n");
  if ((status = run_command (ctx, r, hpctl_pools, command_line ("pools", NULL))) != HPCTL_EXIT_OK)
    return status;
  g_print ("\nHuge page sizes with configured pools:\n");
  if ((status = list_page_sizes (ctx, FALSE)) != HPCTL_EXIT_OK)
    return status;

  if (recommended_min_free > min_free)
    g_print ("\nThe /proc/sys/vm/min_free_kbytes of %" G_GUINT64_FORMAT " is too small. "
             "To maximiuse efficiency\n"
             "of fragmentation avoidance, there should be at least one huge page free per zone\n"
             "in the system which minimally requires a min_free_kbytes value of %"
             G_GUINT64_FORMAT "\n", min_free, recommended_min_free);

  /* only advice that --set-recommended-shmmax then follows: it raises
   * shmmax to the recommendation and never lowers it */
  if (shmmax < recommended_shmmax)
    g_print ("\nA /proc/sys/kernel/shmmax value of %" G_GUINT64_FORMAT " bytes may be "
             "sub-optimal. To maximise\n"
             "shared memory usage, this should be set to the size of the largest shared memory\n"
             "segment size you want to be able to use. Alternatively, set it to a size matching\n"
             "the maximum possible allocation size of all huge pages. This can be done\n"
             "automatically, using the --set-recommended-shmmax option.\n", shmmax);
  g_print ("\n");
  if (recommended_shmmax == 0)
    g_printerr ("%s: warning: We can't make a shmmax recommendation until huge pages are "
                "configured!\n", g_get_prgname ());
  else if (shmmax < recommended_shmmax)
    g_print ("The recommended shmmax for your currently allocated huge pages is %"
             G_GUINT64_FORMAT " bytes.\n"
             "To make shmmax settings persistent, add the following line to /etc/sysctl.conf:\n"
             "  kernel.shmmax = %" G_GUINT64_FORMAT "\n", recommended_shmmax, recommended_shmmax);
  else
    g_print ("The shmmax of %" G_GUINT64_FORMAT " bytes already allows segments as large as "
             "your currently\nallocated huge pages (%" G_GUINT64_FORMAT " bytes); lowering it "
             "gains nothing.\n", shmmax, recommended_shmmax);

  if (has_finding (findings, "no-swap"))
    g_printerr ("%s: warning: There is no swap space configured, resizing hugepage pool may "
                "fail\n", g_get_prgname ());
  explain_shm_group (shm_group);
  g_print ("\nNote: Permanent swap space should be preferred when dynamic huge page pools "
           "are used.\n");

  g_print ("\nhugepagesd's findings (hugepagesctl explain):\n");
  return run_command (ctx, r, hpctl_explain, command_line ("explain", NULL));
}

/* --- the changes --------------------------------------------------------- */

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

  if (strcmp (scope, "user") == 0 && getpwnam (owner) == NULL &&
      !(hp_parse_u32 (owner, &id, NULL) && getpwuid (id) != NULL))
    {
      g_printerr ("%s: no such user: '%s'\n", g_get_prgname (), owner);
      return HPCTL_EXIT_ERROR;
    }
  if (strcmp (scope, "group") == 0 && getgrnam (owner) == NULL &&
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

/* --- pagesize ------------------------------------------------------------ */

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

/* --- entry from main () -------------------------------------------------- */

/* hugepagesctl's own top-level options: never taken for hugeadm's */
static const char *const own_options[] = {
  "help", "help-all", "version", "no-ask-password", "json", "host", NULL,
};

static gboolean
is_hugeadm_option (const char *arg)
{
  g_autofree char *name = NULL;
  const char *equals;
  gsize len;

  if (!g_str_has_prefix (arg, "--") || arg[2] == '\0')
    return FALSE;
  equals = strchr (arg, '=');
  name = equals != NULL ? g_strndup (arg + 2, (gsize) (equals - arg - 2)) : g_strdup (arg + 2);
  if (g_strv_contains (own_options, name))
    return FALSE;
  len = strlen (name);
  for (gsize i = 0; hugeadm_options[i].name != NULL; i++)
    if (strncmp (hugeadm_options[i].name, name, len) == 0)
      return TRUE;
  return FALSE;
}

HpctlCompatMode
hpctl_compat_mode (char **argv)
{
  g_autofree char *name = g_path_get_basename (argv[0] != NULL ? argv[0] : "");

  if (strcmp (name, "hugeadm") == 0)
    return HPCTL_COMPAT_HUGEADM;
  if (strcmp (name, "pagesize") == 0)
    return HPCTL_COMPAT_PAGESIZE;
  /* hugeadm's options where a command would be: hugepagesctl --pool-list */
  for (gsize i = 1; argv[i] != NULL && argv[i][0] == '-' && strcmp (argv[i], "--") != 0; i++)
    {
      if (is_hugeadm_option (argv[i]))
        return HPCTL_COMPAT_HUGEADM_OPTIONS;
      /* hugepagesctl -H HOST --pool-list: the host is no command */
      if ((strcmp (argv[i], "-H") == 0 || strcmp (argv[i], "--host") == 0) && argv[i + 1] != NULL)
        i++;
    }
  return HPCTL_COMPAT_NONE;
}

int
hpctl_compat_run (HpctlContext *ctx, HpctlCompatMode mode, GStrv argv)
{
  /* messages and getopt's say who is speaking */
  if (mode == HPCTL_COMPAT_HUGEADM)
    g_set_prgname ("hugeadm");
  else if (mode == HPCTL_COMPAT_PAGESIZE)
    g_set_prgname ("pagesize");
  g_free (argv[0]);
  argv[0] = g_strdup (g_get_prgname ());

  if (mode == HPCTL_COMPAT_PAGESIZE)
    return hpctl_pagesize (ctx, argv);
  return hpctl_hugeadm (ctx, argv);
}
