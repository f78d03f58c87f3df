/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The hugetlbfs mount commands: mounts, mount-create, unmount. */
#include "config.h"

#include <grp.h>
#include <pwd.h>
#include <string.h>

#include "hp-error.h"
#include "hp-units.h"
#include "hpctl.h"

/* Authorization may wait for a person typing a password: no timeout. */
#define CHANGE_TIMEOUT_MS G_MAXINT

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

static GOptionContext *
command_options (const char *parameters, const char *summary, const char *description)
{
  GOptionContext *options = g_option_context_new (parameters);

  g_option_context_set_summary (options, summary);
  if (description != NULL)
    g_option_context_set_description (options, description);
  return options;
}

/* --- mounts ---------------------------------------------------------------- */

/* The output is split at spaces by scripts, so a field never contains one:
 * white space, control characters and backslashes are written as octal
 * escapes, as /proc/mounts and fstab write them ("\040" for a space). */
static char *
escape_field (const char *text)
{
  GString *out = g_string_new (NULL);

  for (const unsigned char *p = (const unsigned char *) text; *p; p++)
    if (*p <= ' ' || *p == '\\' || *p == 0x7f)
      g_string_append_printf (out, "\\%03o", *p);
    else
      g_string_append_c (out, (char) *p);
  return g_string_free (out, FALSE);
}

static char *
user_name (guint32 uid)
{
  struct passwd *pw = getpwuid (uid);

  return pw != NULL ? escape_field (pw->pw_name) : g_strdup_printf ("%u", uid);
}

static char *
group_name (guint32 gid)
{
  struct group *gr = getgrgid (gid);

  return gr != NULL ? escape_field (gr->gr_name) : g_strdup_printf ("%u", gid);
}

/* A limit in bytes or a count, "-" when the mount has none. */
static char *
optional_number (GVariant *attributes, const char *key)
{
  guint64 value;

  if (!g_variant_lookup (attributes, key, "t", &value))
    return g_strdup ("-");
  return g_strdup_printf ("%" G_GUINT64_FORMAT, value);
}

enum {
  COLUMN_PATH,
  COLUMN_PAGE_SIZE,
  COLUMN_OWNER,
  COLUMN_MODE,
  COLUMN_MAX_SIZE,
  COLUMN_MIN_SIZE,
  COLUMN_MAX_INODES,
  COLUMN_FLAGS,
  COLUMN_OPTIONS,
  N_COLUMNS
};

static const char *const column_titles[N_COLUMNS] = {
  "Path", "PageSize", "Owner", "Mode", "MaxSize", "MinSize", "MaxInodes", "Flags", "Options",
};

/* The owner and mode the mount options give where the mount's root has
 * others (hugeadm sets them with chown and chmod after mounting), as
 * "uid=0,gid=0,mode=0755"; NULL where they agree. */
static char *
options_differ (GVariant *attributes)
{
  guint32 uid = 0, gid = 0, mode = 0, o_uid = 0, o_gid = 0, o_mode = 0;
  GString *out = g_string_new (NULL);

  g_variant_lookup (attributes, "uid", "u", &uid);
  g_variant_lookup (attributes, "gid", "u", &gid);
  g_variant_lookup (attributes, "mode", "u", &mode);
  if (!g_variant_lookup (attributes, "options-uid", "u", &o_uid))
    o_uid = uid;
  if (!g_variant_lookup (attributes, "options-gid", "u", &o_gid))
    o_gid = gid;
  if (!g_variant_lookup (attributes, "options-mode", "u", &o_mode))
    o_mode = mode;
  if (o_uid != uid)
    g_string_append_printf (out, "uid=%u", o_uid);
  if (o_gid != gid)
    g_string_append_printf (out, "%sgid=%u", out->len ? "," : "", o_gid);
  if (o_mode != mode)
    g_string_append_printf (out, "%smode=%04o", out->len ? "," : "", o_mode);
  return g_string_free (out, out->len == 0);
}

static GStrv
mount_row (const char *path, GVariant *attributes)
{
  GStrv row = g_new0 (char *, N_COLUMNS + 1);
  guint64 page_size = 0;
  guint32 uid = 0, gid = 0, mode = 0;
  const char *flags = NULL;
  g_autofree char *user = NULL, *group = NULL;

  g_variant_lookup (attributes, "page-size", "t", &page_size);
  g_variant_lookup (attributes, "uid", "u", &uid);
  g_variant_lookup (attributes, "gid", "u", &gid);
  g_variant_lookup (attributes, "mode", "u", &mode);
  g_variant_lookup (attributes, "flags", "&s", &flags);
  user = user_name (uid);
  group = group_name (gid);

  row[COLUMN_PATH] = escape_field (path);
  row[COLUMN_PAGE_SIZE] = page_size > 0 ? hp_size_name (page_size) : g_strdup ("-");
  row[COLUMN_OWNER] = g_strdup_printf ("%s:%s", user, group);
  row[COLUMN_MODE] = g_strdup_printf ("%04o", mode);
  row[COLUMN_MAX_SIZE] = optional_number (attributes, "max-size");
  row[COLUMN_MIN_SIZE] = optional_number (attributes, "min-size");
  row[COLUMN_MAX_INODES] = optional_number (attributes, "max-inodes");
  row[COLUMN_FLAGS] = flags != NULL && *flags != '\0' ? escape_field (flags) : g_strdup ("-");
  row[COLUMN_OPTIONS] = options_differ (attributes);
  if (row[COLUMN_OPTIONS] == NULL)
    row[COLUMN_OPTIONS] = g_strdup ("-");
  return row;
}

/* Left-aligned columns, one space apart; the last one is not padded. */
static void
print_row (const char *const *cells, const gsize *widths)
{
  for (guint c = 0; c + 1 < N_COLUMNS; c++)
    g_print ("%-*s ", (int) widths[c], cells[c]);
  g_print ("%s\n", cells[N_COLUMNS - 1]);
}

static void
print_table (GPtrArray *rows)
{
  gsize widths[N_COLUMNS];

  for (guint c = 0; c < N_COLUMNS; c++)
    {
      widths[c] = strlen (column_titles[c]);
      for (guint r = 0; r < rows->len; r++)
        widths[c] = MAX (widths[c], strlen (((GStrv) g_ptr_array_index (rows, r))[c]));
    }

  print_row (column_titles, widths);
  for (guint r = 0; r < rows->len; r++)
    print_row ((const char *const *) g_ptr_array_index (rows, r), widths);
}

static void
add_optional_uint (JsonBuilder *builder, const char *name, GVariant *attributes, const char *key)
{
  guint64 value;

  if (g_variant_lookup (attributes, key, "t", &value))
    hpctl_json_add_uint (builder, name, value);
  else
    hpctl_json_add_string (builder, name, NULL);
}

/* The same mounts and fields as the table, with numbers for ids, mode and
 * page size: names of users and groups are this machine's, which need not
 * be the service's (-H). */
static void
print_mounts_json (GVariant *mounts)
{
  g_autoptr(JsonBuilder) builder = hpctl_json_begin ();
  GVariantIter iter;
  const char *path;
  GVariant *attributes;

  json_builder_set_member_name (builder, "mounts");
  json_builder_begin_array (builder);
  g_variant_iter_init (&iter, mounts);
  while (g_variant_iter_next (&iter, "(&s@a{sv})", &path, &attributes))
    {
      G_GNUC_UNUSED g_autoptr(GVariant) owned = attributes;
      guint64 page_size = 0;
      guint32 uid = 0, gid = 0, mode = 0;
      gboolean managed = FALSE;
      const char *flags = "";

      g_variant_lookup (attributes, "page-size", "t", &page_size);
      g_variant_lookup (attributes, "uid", "u", &uid);
      g_variant_lookup (attributes, "gid", "u", &gid);
      g_variant_lookup (attributes, "mode", "u", &mode);
      g_variant_lookup (attributes, "flags", "&s", &flags);
      g_variant_lookup (attributes, "managed", "b", &managed);

      json_builder_begin_object (builder);
      hpctl_json_add_string (builder, "path", path);
      if (page_size > 0)
        hpctl_json_add_uint (builder, "page_size", page_size);
      else
        hpctl_json_add_string (builder, "page_size", NULL);
      hpctl_json_add_uint (builder, "uid", uid);
      hpctl_json_add_uint (builder, "gid", gid);
      hpctl_json_add_uint (builder, "mode", mode);
      add_optional_uint (builder, "max_size", attributes, "max-size");
      add_optional_uint (builder, "min_size", attributes, "min-size");
      add_optional_uint (builder, "max_inodes", attributes, "max-inodes");
      hpctl_json_add_string (builder, "flags", flags);
      hpctl_json_add_bool (builder, "managed", managed);
      /* the mount options' owner and mode, which the root's may differ from */
      json_builder_set_member_name (builder, "options");
      json_builder_begin_object (builder);
      if (g_variant_lookup (attributes, "options-uid", "u", &uid))
        hpctl_json_add_uint (builder, "uid", uid);
      if (g_variant_lookup (attributes, "options-gid", "u", &gid))
        hpctl_json_add_uint (builder, "gid", gid);
      if (g_variant_lookup (attributes, "options-mode", "u", &mode))
        hpctl_json_add_uint (builder, "mode", mode);
      json_builder_end_object (builder);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  hpctl_json_print (builder);
}

int
hpctl_mounts (HpctlContext *ctx, GStrv args)
{
  gboolean json = FALSE;
  const GOptionEntry entries[] = { HPCTL_JSON_ENTRY (json), { NULL } };
  g_autoptr(GOptionContext) options =
    command_options ("mounts",
                     "List every hugetlbfs mount, one a line after a header line:\n"
                     "Path, PageSize, Owner (user:group), Mode (octal), MaxSize and\n"
                     "MinSize (bytes), MaxInodes, Flags and Options; \"-\" where a mount has\n"
                     "no limit. Owner and Mode are those of the mount's root as they are;\n"
                     "Options gives the mount options' uid=, gid= and mode= where they differ\n"
                     "(hugeadm sets owner and mode after mounting), \"-\" where they agree.",
                     "Fields are separated by spaces; a space, tab, newline or backslash\n"
                     "in a field is written as an octal escape (\\040, \\011, \\012, \\134)\n"
                     "as in /proc/mounts.");
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  GVariant *mounts;
  GVariantIter iter;
  const char *path;
  GVariant *attributes;

  g_option_context_add_main_entries (options, entries, NULL);
  if (!hpctl_parse_command (ctx, options, &args))
    return HPCTL_EXIT_USAGE;
  if (args[1] != NULL)
    return hpctl_usage_error ("%s takes no arguments, but got '%s'", args[0], args[1]);
  if (!hpctl_connect (ctx))
    return HPCTL_EXIT_ERROR;

  mounts = hp_dbus_manager_get_mounts (ctx->manager);
  if (mounts == NULL)
    {
      g_printerr ("%s: hugepagesd did not list its mounts (is it older than this client?)\n",
                  g_get_prgname ());
      return HPCTL_EXIT_ERROR;
    }
  if (json)
    {
      print_mounts_json (mounts);
      return HPCTL_EXIT_OK;
    }

  g_variant_iter_init (&iter, mounts);
  while (g_variant_iter_next (&iter, "(&s@a{sv})", &path, &attributes))
    {
      g_ptr_array_add (rows, mount_row (path, attributes));
      g_variant_unref (attributes);
    }

  if (rows->len == 0)
    g_print ("No hugetlbfs mounts.\n");
  else
    print_table (rows);
  return HPCTL_EXIT_OK;
}

/* --- mount-create ---------------------------------------------------------- */

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
    g_variant_builder_add (&builder, "{sv}", "max-size", max_size);
  if (min_size != NULL)
    g_variant_builder_add (&builder, "{sv}", "min-size", min_size);
  if (a->inodes != NULL)
    g_variant_builder_add (&builder, "{sv}", "max-inodes", g_variant_new_uint64 (inodes));
  if (a->mode != NULL)
    g_variant_builder_add (&builder, "{sv}", "mode", g_variant_new_uint32 (mode));
  if (a->persist)
    g_variant_builder_add (&builder, "{sv}", "persist", g_variant_new_boolean (TRUE));
  if (a->secure)
    g_variant_builder_add (&builder, "{sv}", "secure-directories", g_variant_new_boolean (TRUE));
  if (a->dry_run)
    g_variant_builder_add (&builder, "{sv}", "dry-run", g_variant_new_boolean (TRUE));
  return g_variant_ref_sink (g_variant_builder_end (&builder));
}

/* a dry run needs no authorization: no interactive flag, no agent */
static GDBusCallFlags
create_flags (HpctlContext *ctx, GVariant *options)
{
  gboolean dry_run = FALSE;

  if (g_variant_lookup (options, "dry-run", "b", &dry_run) && dry_run)
    return G_DBUS_CALL_FLAGS_NONE;
  return hpctl_prepare_interactive (ctx);
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
                                                         CHANGE_TIMEOUT_MS, &path, NULL, &error))
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
                                                CHANGE_TIMEOUT_MS, &paths, NULL, &error))
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
    command_options ("mount-create SCOPE [OWNER]",
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

/* --- unmount --------------------------------------------------------------- */

int
hpctl_unmount (HpctlContext *ctx, GStrv args)
{
  g_autoptr(GOptionContext) options =
    command_options ("unmount PATH",
                     "Unmount the hugetlbfs mount at PATH, an absolute path as 'mounts'\n"
                     "lists it. For a mount point below /var/lib/hugetlbfs as mount-create\n"
                     "makes them, the directory is removed too, and so are the empty ones\n"
                     "above it (user/NAME, user, ...) up to /var/lib/hugetlbfs.",
                     NULL);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) paths = NULL;
  gboolean persist = FALSE, dry_run = FALSE;
  const GOptionEntry entries[] = {
    { "persist", 0, 0, G_OPTION_ARG_NONE, &persist,
      "Also remove the configuration that makes this mount at boot", NULL },
    { "dry-run", 0, 0, G_OPTION_ARG_NONE, &dry_run,
      "Only check that PATH can be unmounted; change nothing", NULL },
    { NULL }
  };
  GVariantBuilder unmount_options;

  g_option_context_add_main_entries (options, entries, NULL);
  if (!hpctl_parse_command (ctx, options, &args))
    return HPCTL_EXIT_USAGE;
  if (g_strv_length (args) != 2)
    return hpctl_usage_error ("usage: hugepagesctl unmount PATH");
  if (!hpctl_path_argument (args[1]))
    return HPCTL_EXIT_USAGE;

  if (!hpctl_connect (ctx))
    return HPCTL_EXIT_ERROR;

  g_variant_builder_init (&unmount_options, G_VARIANT_TYPE_VARDICT);
  if (persist)
    g_variant_builder_add (&unmount_options, "{sv}", "persist", g_variant_new_boolean (TRUE));
  if (dry_run)
    g_variant_builder_add (&unmount_options, "{sv}", "dry-run", g_variant_new_boolean (TRUE));
  if (!hp_dbus_manager_call_unmount_sync (ctx->manager, args[1],
                                          g_variant_builder_end (&unmount_options),
                                          dry_run ? G_DBUS_CALL_FLAGS_NONE
                                                  : hpctl_prepare_interactive (ctx),
                                          CHANGE_TIMEOUT_MS, &paths, NULL, &error))
    return hpctl_fail (error);
  for (guint i = 0; dry_run && paths[i] != NULL; i++)
    g_print ("would unmount %s\n", paths[i]);
  return HPCTL_EXIT_OK;
}
