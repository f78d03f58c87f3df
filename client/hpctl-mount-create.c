/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* mount-create: a scope's hugetlbfs mounts, checked here first (sizes,
 * modes, the scope and its owner) and made by CreateMount or CreateMounts. */
#include "config.h"

#include <string.h>

#include "hp-error.h"
#include "hp-names.h"
#include "hp-units.h"
#include "hpctl.h"

#define SCOPE_HELP \
  "SCOPE says where the mount goes and who may use it (one mount per page\n" \
  "size, below /var/lib/hugetlbfs, as hugeadm --create-*-mounts makes them):\n" \
  "  system   pagesize-2MB, root:root, mode 0770\n" \
  "  user     user/OWNER/pagesize-2MB, owned by the user, mode 0700\n" \
  "  group    group/OWNER/pagesize-2MB, owned by the group, mode 0070\n" \
  "  global   global/pagesize-2MB, root:root, mode 1777\n" \
  "OWNER is a user name or uid for user, a group name or gid for group, and\n" \
  "is not given for system and global.\n" \
  "S is an amount of memory that is a whole number of pages (4M, 1G, bytes)\n" \
  "or a percentage of the pool's persistent pages at mount time (1% to 100%).\n" \
  "N is a decimal number. M is an octal mode of at most 4 digits with only\n" \
  "permission bits and the sticky bit (0750, 1777).\n" \
  "Asking again for mounts that exist as asked prints them again.\n" \
  "The paths made (or found) are printed, one a line."

/* A value that starts with a space is never valid; it is how "-1" reached
 * us (see hpctl_parse_command), so messages quote it without the space. */
static const char *
as_typed (const char *text)
{
  return text[0] == ' ' ? text + 1 : text;
}

static gboolean
option_error (GError **error, const char *option, const char *text, const char *expected,
              const GError *reason)
{
  if (text[0] == ' ' || reason == NULL)
    g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS, "%s takes %s, not '%s'",
                 option, expected, as_typed (text));
  else
    g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS, "%s: %s", option, reason->message);
  return FALSE;
}

#define LIMIT_EXPECTED "an amount of memory (4M, 1G) or a percentage (1% to 100%)"

/* --size, --min-size: bytes (t) or "N%" (s), checked as the service will. */
static gboolean
parse_limit (const char *option, const char *text, GVariant **value, GError **error)
{
  g_autoptr(GError) reason = NULL;
  gsize len = strlen (text);
  guint64 number;

  if (len > 0 && text[len - 1] == '%')
    {
      g_autofree char *digits = g_strndup (text, len - 1);

      /* no "05%": the service takes none either */
      if (digits[0] == '0' || !hp_parse_u64 (digits, &number, NULL) ||
          number == 0 || number > 100)
        {
          g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                       "%s: a percentage must be from 1%% to 100%%, not '%s'", option,
                       as_typed (text));
          return FALSE;
        }
      *value = g_variant_ref_sink (g_variant_new_string (text));
      return TRUE;
    }

  if (!hp_parse_size (text, &number, &reason))
    return option_error (error, option, text, LIMIT_EXPECTED, reason);
  *value = g_variant_ref_sink (g_variant_new_uint64 (number));
  return TRUE;
}

static gboolean
parse_inodes (const char *text, guint64 *inodes, GError **error)
{
  g_autoptr(GError) reason = NULL;

  if (!hp_parse_u64 (text, inodes, &reason))
    return option_error (error, "--inodes", text, "a decimal number", reason);
  if (*inodes == 0)
    {
      g_set_error_literal (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                           "--inodes must be at least 1; leave it out for no limit");
      return FALSE;
    }
  return TRUE;
}

/* Strictly octal: 1 to 4 octal digits, permission bits and the sticky bit
 * only (no setuid or setgid), so at most 1777. */
static gboolean
parse_mode (const char *text, guint32 *mode, GError **error)
{
  gsize len = strlen (text);
  guint32 value = 0;

  if (len == 0 || len > 4 || strspn (text, "01234567") != len)
    return option_error (error, "--mode", text,
                         "an octal mode of at most 4 digits (0750, 1777)", NULL);
  for (gsize i = 0; i < len; i++)
    value = value * 8 + (guint32) (text[i] - '0');
  if (value > 01777)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "--mode %s has bits other than permissions and the sticky bit "
                   "(setuid and setgid are not allowed; at most 1777)", text);
      return FALSE;
    }
  *mode = value;
  return TRUE;
}

static const char *const scopes[] = { "system", "user", "group", "global" };

/* SCOPE and OWNER as the service will check them, so that mistakes are
 * usage errors even without it. */
static gboolean
check_scope (const char *scope, const char *owner, GError **error)
{
  gboolean known = FALSE;
  gboolean needs_owner;

  for (gsize i = 0; i < G_N_ELEMENTS (scopes); i++)
    known = known || strcmp (scope, scopes[i]) == 0;
  if (!known)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "SCOPE must be system, user, group or global, not '%s'", scope);
      return FALSE;
    }

  needs_owner = strcmp (scope, "user") == 0 || strcmp (scope, "group") == 0;
  if (needs_owner && (owner == NULL || *owner == '\0'))
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "the %s scope needs an OWNER: a %s", scope,
                   strcmp (scope, "user") == 0 ? "user name or uid" : "group name or gid");
      return FALSE;
    }
  if (!needs_owner && owner != NULL)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "the %s scope takes no OWNER, but got '%s'", scope, owner);
      return FALSE;
    }
  return TRUE;
}

typedef struct {
  char *size;
  char *min_size;
  char *inodes;
  char *mode;
  char *page_size;
  gboolean persist;
  gboolean secure;
  gboolean dry_run;
} CreateArguments;

static void
create_arguments_clear (CreateArguments *a)
{
  g_free (a->size);
  g_free (a->min_size);
  g_free (a->inodes);
  g_free (a->mode);
  g_free (a->page_size);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (CreateArguments, create_arguments_clear)

static gboolean
check_page_size (const char *text, GError **error)
{
  g_autoptr(GError) reason = NULL;

  if (!hpctl_check_size_syntax (text, &reason))
    return option_error (error, "--page-size", text, "a huge page size (2M, 1G, bytes or DEFAULT)",
                         reason);
  return TRUE;
}

/* The CreateMount(s) options; NULL after setting @error. */
static GVariant *
build_create_options (const CreateArguments *a, GError **error)
{
  g_autoptr(GVariant) max_size = NULL, min_size = NULL;
  GVariantBuilder builder;
  guint64 inodes = 0;
  guint32 mode = 0;

  if ((a->size != NULL && !parse_limit ("--size", a->size, &max_size, error)) ||
      (a->min_size != NULL && !parse_limit ("--min-size", a->min_size, &min_size, error)) ||
      (a->inodes != NULL && !parse_inodes (a->inodes, &inodes, error)) ||
      (a->mode != NULL && !parse_mode (a->mode, &mode, error)) ||
      (a->page_size != NULL && !check_page_size (a->page_size, error)))
    return NULL;

  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  if (max_size != NULL)
    g_variant_builder_add (&builder, "{sv}", HP_OPTION_MAX_SIZE, max_size);
  if (min_size != NULL)
    g_variant_builder_add (&builder, "{sv}", HP_OPTION_MIN_SIZE, min_size);
  if (a->inodes != NULL)
    g_variant_builder_add (&builder, "{sv}", HP_OPTION_MAX_INODES, g_variant_new_uint64 (inodes));
  if (a->mode != NULL)
    g_variant_builder_add (&builder, "{sv}", HP_OPTION_MODE, g_variant_new_uint32 (mode));
  hpctl_add_flag (&builder, HP_OPTION_PERSIST, a->persist);
  hpctl_add_flag (&builder, HP_OPTION_SECURE_DIRECTORIES, a->secure);
  hpctl_add_flag (&builder, HP_OPTION_DRY_RUN, a->dry_run);
  return g_variant_ref_sink (g_variant_builder_end (&builder));
}

static GDBusCallFlags
create_flags (HpctlContext *ctx, GVariant *options)
{
  gboolean dry_run = FALSE;   /* kept when the option is absent */

  g_variant_lookup (options, HP_OPTION_DRY_RUN, "b", &dry_run);
  return hpctl_change_call_flags (ctx, dry_run);
}

/* One page size through its PageSize object. */
static int
create_one (HpctlContext *ctx, const char *size_text, const char *scope, const char *owner,
            GVariant *options)
{
  g_autoptr(HpDBusManagerPageSize) page_size = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  guint64 size;

  if (!hpctl_resolve_size (ctx, size_text, &size, &error))
    return hpctl_usage_error ("%s", error->message);
  page_size = hpctl_get_page_size (ctx, size, &error);
  if (page_size == NULL)
    return hpctl_fail (error);

  if (!hp_dbus_manager_page_size_call_create_mount_sync (page_size, scope, owner, options,
                                                         create_flags (ctx, options),
                                                         HPCTL_CHANGE_TIMEOUT_MS, &path, NULL, &error))
    return hpctl_fail (error);
  g_print ("%s\n", path);
  return HPCTL_EXIT_OK;
}

static int
create_all (HpctlContext *ctx, const char *scope, const char *owner, GVariant *options)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) paths = NULL;

  if (!hp_dbus_manager_call_create_mounts_sync (ctx->manager, scope, owner, options,
                                                create_flags (ctx, options),
                                                HPCTL_CHANGE_TIMEOUT_MS, &paths, NULL, &error))
    return hpctl_fail (error);
  for (gsize i = 0; paths[i] != NULL; i++)
    g_print ("%s\n", paths[i]);
  return HPCTL_EXIT_OK;
}

int
hpctl_mount_create (HpctlContext *ctx, GStrv args)
{
  g_auto(CreateArguments) a = { NULL, };
  const GOptionEntry entries[] = {
    { "size", 0, 0, G_OPTION_ARG_STRING, &a.size,
      "Most memory the mount may use (hugetlbfs size=)", "S" },
    { "min-size", 0, 0, G_OPTION_ARG_STRING, &a.min_size,
      "Memory reserved for the mount when it is made (min_size=)", "S" },
    { "inodes", 0, 0, G_OPTION_ARG_STRING, &a.inodes,
      "Most files the mount may hold (nr_inodes=)", "N" },
    { "mode", 0, 0, G_OPTION_ARG_STRING, &a.mode,
      "Mode of the mount's root instead of the scope's", "M" },
    { "page-size", 0, 0, G_OPTION_ARG_STRING, &a.page_size,
      "Only make the mount of this page size (2M, 1G, bytes or DEFAULT)", "SIZE" },
    { "persist", 0, 0, G_OPTION_ARG_NONE, &a.persist, HPCTL_PERSIST_HELP, NULL },
    { "secure-directories", 0, 0, G_OPTION_ARG_NONE, &a.secure,
      "Make directories below /var/lib/hugetlbfs that hugeadm left owned by a user or group root's (mode 0755)",
      NULL },
    { "dry-run", 0, 0, G_OPTION_ARG_NONE, &a.dry_run,
      "Only check; print the paths; change nothing", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) options =
    hpctl_command_options ("mount-create SCOPE [OWNER]",
                           "Mount hugetlbfs for every huge page size, or for the one of --page-size.",
                           SCOPE_HELP);
  g_autoptr(GVariant) create_options = NULL;
  g_autoptr(GError) error = NULL;
  const char *scope, *owner;
  guint n;

  g_option_context_add_main_entries (options, entries, NULL);
  if (!hpctl_parse_command (ctx, options, &args))
    return HPCTL_EXIT_USAGE;

  n = g_strv_length (args);
  if (n < 2 || n > 3)
    return hpctl_usage_error ("usage: hugepagesctl mount-create SCOPE [OWNER] [OPTION…]");
  scope = args[1];
  owner = args[2];
  if (!check_scope (scope, owner, &error))
    return hpctl_usage_error ("%s", error->message);
  create_options = build_create_options (&a, &error);
  /* gcc -fanalyzer (tests/run-all --tier analyze) does not know that
   * g_variant_builder_end() never returns NULL, and so finds a NULL return
   * without an error: there is none. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wanalyzer-null-dereference"
#endif
  if (create_options == NULL)
    return hpctl_usage_error ("%s", error->message);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

  if (!hpctl_connect (ctx))
    return HPCTL_EXIT_ERROR;
  if (a.page_size != NULL)
    return create_one (ctx, a.page_size, scope, owner ? owner : "", create_options);
  return create_all (ctx, scope, owner ? owner : "", create_options);
}
