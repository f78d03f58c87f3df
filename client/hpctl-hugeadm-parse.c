/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* hugeadm's command line: its options as hugeadm's getopt reads them,
 * checked all at once before anything runs, and how main () recognizes
 * hugeadm's and pagesize's command lines. */

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

static void
pool_spec_free (PoolSpec *spec)
{
  g_free (spec->size);
  g_free (spec->amount);
  g_free (spec);
}

void
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

/* How the usage line names us: "hugepagesctl hugeadm" for the command,
 * "hugepagesctl" for hugeadm's options given to it directly, "hugeadm"
 * through a symlink. */
char *
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
  spec->size = g_strndup (text, (gsize) (colon - text));
  spec->amount = g_strdup (colon + 1);
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

/* Every operation counts, as in hugeadm, except the modifiers --hard,
 * --dry-run and --verbose; --max-size and --max-inodes count there too but
 * are refused here without a mount to apply to. Returns RUN_REQUEST, or
 * the exit status when there is nothing to run (--help, or an error that
 * has been printed). */
int
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
          r->max_size = g_strdup (optarg);
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
