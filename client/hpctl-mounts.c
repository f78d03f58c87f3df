/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The hugetlbfs mount commands: mounts, unmount (mount-create is
 * hpctl-mount-create.c). */
#include "config.h"

#include <grp.h>
#include <pwd.h>
#include <string.h>

#include "hp-error.h"
#include "hp-names.h"
#include "hp-units.h"
#include "hpctl.h"

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
    hpctl_command_options ("mounts",
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

int
hpctl_unmount (HpctlContext *ctx, GStrv args)
{
  g_autoptr(GOptionContext) options =
    hpctl_command_options ("unmount PATH",
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
      "Also remove the configuration that makes this mount at boot (also when not mounted)",
      NULL },
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
  hpctl_add_flag (&unmount_options, HP_OPTION_PERSIST, persist);
  hpctl_add_flag (&unmount_options, HP_OPTION_DRY_RUN, dry_run);
  if (!hp_dbus_manager_call_unmount_sync (ctx->manager, args[1],
                                          g_variant_builder_end (&unmount_options),
                                          hpctl_change_call_flags (ctx, dry_run),
                                          HPCTL_CHANGE_TIMEOUT_MS, &paths, NULL, &error))
    return hpctl_fail (error);
  for (guint i = 0; dry_run && paths[i] != NULL; i++)
    g_print ("would unmount %s\n", paths[i]);
  return HPCTL_EXIT_OK;
}
