/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hp-error.h"
#include "hp-names.h"
#include "hp-units.h"
#include "hpd-mounts.h"
#include "hpd-open.h"
#include "hpd-options.h"

#define MAX_PATH_LENGTH 4096
#define MAX_INODES (G_GUINT64_CONSTANT (1) << 31)

/* The owner and mode of the mount's root as they are now, read without
 * following any link. On the real kernel the directory must be the root of
 * that very mount (its mount ID is the one mountinfo gives): a mount
 * hidden under another one, or a path swapped since, tells nothing. Under a
 * fake root the mount is a plain directory inside the fake tree. */
static void
read_root_facts (HpdMountInfo *info, HpdKernel *kernel)
{
  const char *root = hpd_kernel_get_root (kernel);
  gboolean real = g_str_equal (root, "/");
  struct statx stx;
  int fd, r;

  if (!real && !(g_str_has_prefix (info->path, root) && info->path[strlen (root)] == '/'))
    return;
  /* a chmod or chown of the root changes its ctime */
  hpd_kernel_record_path (kernel, info->path, TRUE);
  fd = hpd_open_no_links (info->path, O_PATH | O_DIRECTORY);
  if (fd < 0)
    return;
  r = statx (fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
             STATX_UID | STATX_GID | STATX_MODE | STATX_MNT_ID, &stx);
  close (fd);
  if (r < 0 || (stx.stx_mask & (STATX_UID | STATX_GID | STATX_MODE)) !=
      (STATX_UID | STATX_GID | STATX_MODE))
    return;
  if (real && (!(stx.stx_mask & STATX_MNT_ID) || stx.stx_mnt_id != info->mount_id))
    return;
  info->has_root = TRUE;
  info->root_uid = stx.stx_uid;
  info->root_gid = stx.stx_gid;
  info->root_mode = stx.stx_mode & 07777;
}

GPtrArray *
hpd_mounts_read (HpdKernel *kernel, guint64 default_page_size)
{
  g_autofree char *text = NULL;
  g_autofree char *key = g_strdup_printf (":mounts:%" G_GUINT64_FORMAT, default_page_size);
  GPtrArray *mounts = (GPtrArray *) hpd_kernel_turn_lookup (kernel, key);
  gint writes = hpd_kernel_get_writes (kernel);

  /* parsed once per main loop turn, not once per page size (hpd-kernel.h) */
  if (mounts != NULL)
    return g_ptr_array_ref (mounts);
  if (!hpd_kernel_read_text (kernel, "proc/self/mountinfo", &text, NULL))
    return g_ptr_array_new_with_free_func ((GDestroyNotify) hpd_mount_info_free);

  mounts = hpd_mountinfo_parse_hugetlbfs (text);
  for (guint i = 0; i < mounts->len; i++)
    {
      HpdMountInfo *info = g_ptr_array_index (mounts, i);
      if (info->page_size == 0)
        info->page_size = default_page_size;
      read_root_facts (info, kernel);
    }
  hpd_kernel_turn_store (kernel, key, writes, g_ptr_array_ref (mounts),
                         (GDestroyNotify) g_ptr_array_unref);
  return mounts;
}

GVariant *
hpd_mounts_to_variant (GPtrArray *mounts, const char *root)
{
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(sa{sv})"));
  for (guint i = 0; i < mounts->len; i++)
    {
      const HpdMountInfo *m = g_ptr_array_index (mounts, i);
      GVariantBuilder attrs;

      g_variant_builder_init (&attrs, G_VARIANT_TYPE_VARDICT);
      g_variant_builder_add (&attrs, "{sv}", "page-size", g_variant_new_uint64 (m->page_size));
      g_variant_builder_add (&attrs, "{sv}", "uid", g_variant_new_uint32 (hpd_mount_info_uid (m)));
      g_variant_builder_add (&attrs, "{sv}", "gid", g_variant_new_uint32 (hpd_mount_info_gid (m)));
      g_variant_builder_add (&attrs, "{sv}", "mode", g_variant_new_uint32 (hpd_mount_info_mode (m)));
      g_variant_builder_add (&attrs, "{sv}", "options-uid", g_variant_new_uint32 (m->uid));
      g_variant_builder_add (&attrs, "{sv}", "options-gid", g_variant_new_uint32 (m->gid));
      g_variant_builder_add (&attrs, "{sv}", "options-mode", g_variant_new_uint32 (m->mode));
      g_variant_builder_add (&attrs, "{sv}", "root-known", g_variant_new_boolean (m->has_root));
      g_variant_builder_add (&attrs, "{sv}", "flags", g_variant_new_string (m->flags));
      g_variant_builder_add (&attrs, "{sv}", "managed",
                             g_variant_new_boolean (hpd_hugetlbfs_is_service_mount_point (root, m->path)));
      if (m->has_size)
        g_variant_builder_add (&attrs, "{sv}", "max-size", g_variant_new_uint64 (m->size));
      if (m->has_min_size)
        g_variant_builder_add (&attrs, "{sv}", "min-size", g_variant_new_uint64 (m->min_size));
      if (m->has_nr_inodes)
        g_variant_builder_add (&attrs, "{sv}", "max-inodes", g_variant_new_uint64 (m->nr_inodes));
      /* mountinfo is kernel text: never put a non-UTF-8 path on the bus */
      if (g_utf8_validate (m->path, -1, NULL))
        g_variant_builder_add (&builder, "(sa{sv})", m->path, &attrs);
      else
        g_variant_builder_clear (&attrs);
    }
  return g_variant_builder_end (&builder);
}

guint32
hpd_mount_info_uid (const HpdMountInfo *info)
{
  return info->has_root ? info->root_uid : info->uid;
}

guint32
hpd_mount_info_gid (const HpdMountInfo *info)
{
  return info->has_root ? info->root_gid : info->gid;
}

guint32
hpd_mount_info_mode (const HpdMountInfo *info)
{
  return info->has_root ? info->root_mode : info->mode;
}

GStrv
hpd_mounts_paths_of_size (GPtrArray *mounts, guint64 page_size)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; i < mounts->len; i++)
    {
      const HpdMountInfo *m = g_ptr_array_index (mounts, i);
      if (m->page_size == page_size && g_utf8_validate (m->path, -1, NULL))
        g_strv_builder_add (builder, m->path);
    }
  return g_strv_builder_end (builder);
}

const HpdMountInfo *
hpd_mounts_find (GPtrArray *mounts, const char *path)
{
  /* mountinfo lists stacked mounts bottom first */
  for (guint i = mounts->len; i > 0; i--)
    {
      const HpdMountInfo *m = g_ptr_array_index (mounts, i - 1);
      if (g_str_equal (m->path, path))
        return m;
    }
  return NULL;
}

void
hpd_mount_request_free (HpdMountRequest *request)
{
  if (request == NULL)
    return;
  g_free (request->owner_name);
  g_clear_pointer (&request->max_size, g_variant_unref);
  g_clear_pointer (&request->min_size, g_variant_unref);
  g_free (request);
}

/* A uid or gid as the caller wrote it: decimal, below (u32)-1, which the
 * kernel reads as "no id". */
static gboolean
parse_id (const char *text, guint32 *id)
{
  guint64 v;

  if (!g_ascii_isdigit (text[0]) || !hp_parse_u64 (text, &v, NULL) || v >= G_MAXUINT32)
    return FALSE;
  *id = (guint32) v;
  return TRUE;
}

/* The user and group databases are read from the main thread only. */
static gboolean
resolve_user (HpdMountRequest *request, const char *owner, GError **error)
{
  struct passwd *pw = NULL;
  guint32 uid;

  if (parse_id (owner, &uid))
    pw = getpwuid (uid);
  else if (hpd_mount_name_is_valid (owner))
    pw = getpwnam (owner);
  else
    {
      g_set_error_literal (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                           "The owner must be a user name (letters, digits, '_', '-', '.') or a uid");
      return FALSE;
    }

  if (pw == NULL)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_NO_SUCH_USER, "No such user: %s", owner);
      return FALSE;
    }
  if (!hpd_mount_name_is_valid (pw->pw_name))
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "User %u has a name that cannot be used in a path", (guint) pw->pw_uid);
      return FALSE;
    }
  request->owner_name = g_strdup (pw->pw_name);
  request->uid = pw->pw_uid;
  request->gid = 0;
  return TRUE;
}

static gboolean
resolve_group (HpdMountRequest *request, const char *owner, GError **error)
{
  struct group *gr = NULL;
  guint32 gid;

  if (parse_id (owner, &gid))
    gr = getgrgid (gid);
  else if (hpd_mount_name_is_valid (owner))
    gr = getgrnam (owner);
  else
    {
      g_set_error_literal (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                           "The owner must be a group name (letters, digits, '_', '-', '.') or a gid");
      return FALSE;
    }

  if (gr == NULL)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_NO_SUCH_GROUP, "No such group: %s", owner);
      return FALSE;
    }
  if (!hpd_mount_name_is_valid (gr->gr_name))
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "Group %u has a name that cannot be used in a path", (guint) gr->gr_gid);
      return FALSE;
    }
  request->owner_name = g_strdup (gr->gr_name);
  request->uid = 0;
  request->gid = gr->gr_gid;
  return TRUE;
}

static gboolean
check_limit_type (GVariant *value, const char *name, GError **error)
{
  if (value == NULL || g_variant_is_of_type (value, G_VARIANT_TYPE_UINT64) ||
      g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
    return TRUE;
  g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
               "Option '%s' must be bytes (t) or a percentage (s, \"50%%\")", name);
  return FALSE;
}

HpdMountRequest *
hpd_mount_request_new (const char *scope, const char *owner, GVariant *options,
                       GError **error)
{
  g_autoptr(HpdMountRequest) request = g_new0 (HpdMountRequest, 1);
  g_autoptr(GVariant) given_mode = NULL;
  g_autoptr(GVariant) given_inodes = NULL;
  guint32 mode = 0;
  const HpdOption known[] = {
    { HP_OPTION_MAX_SIZE, "v", &request->max_size },
    { HP_OPTION_MIN_SIZE, "v", &request->min_size },
    { HP_OPTION_MAX_INODES, "t", &request->max_inodes },
    { HP_OPTION_MODE, "u", &mode },
    { HP_OPTION_PERSIST, "b", &request->persist },
    { HP_OPTION_SECURE_DIRECTORIES, "b", &request->secure },
    { HP_OPTION_DRY_RUN, "b", &request->dry_run },
  };
  static const guint32 default_modes[] = { 0770, 0700, 0070, 01777 };

  if (!hpd_mount_scope_parse (scope, &request->scope, error) ||
      !hpd_options_parse (options, known, G_N_ELEMENTS (known), error) ||
      !check_limit_type (request->max_size, HP_OPTION_MAX_SIZE, error) ||
      !check_limit_type (request->min_size, HP_OPTION_MIN_SIZE, error))
    return NULL;

  switch (request->scope)
    {
    case HPD_MOUNT_SCOPE_SYSTEM:
    case HPD_MOUNT_SCOPE_GLOBAL:
      if (*owner != '\0')
        {
          g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                       "The %s scope takes no owner", scope);
          return NULL;
        }
      break;
    case HPD_MOUNT_SCOPE_USER:
      if (!resolve_user (request, owner, error))
        return NULL;
      break;
    case HPD_MOUNT_SCOPE_GROUP:
      if (!resolve_group (request, owner, error))
        return NULL;
      break;
    default:
      g_assert_not_reached ();
    }

  /* every u32 is a mode a caller can send: look for the key, not a value */
  given_mode = g_variant_lookup_value (options, HP_OPTION_MODE, G_VARIANT_TYPE_UINT32);
  if (given_mode == NULL)
    mode = default_modes[request->scope];
  else if ((mode & ~01777u) != 0)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "Mode %o has bits other than permissions and the sticky bit "
                   "(setuid and setgid are not allowed)", mode);
      return NULL;
    }
  request->mode = mode;

  /* 0 is "no limit" inside; asked for, it would be a mount without inodes */
  given_inodes = g_variant_lookup_value (options, HP_OPTION_MAX_INODES, G_VARIANT_TYPE_UINT64);
  if (given_inodes != NULL && request->max_inodes == 0)
    {
      g_set_error_literal (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                           "max-inodes must be at least 1");
      return NULL;
    }
  if (request->max_inodes > MAX_INODES)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "max-inodes must be at most %" G_GUINT64_FORMAT, MAX_INODES);
      return NULL;
    }

  return g_steal_pointer (&request);
}

/* A limit as the kernel will take it ("%lu" bytes or "N%"), after checking
 * it is a whole, non-zero number of pages. */
static gboolean
resolve_limit (GVariant *value, const char *name, guint64 page_size,
               guint64 persistent_pages, char **kernel_value, guint64 *bytes,
               GError **error)
{
  g_autofree char *size_name = hp_size_name (page_size);

  if (g_variant_is_of_type (value, G_VARIANT_TYPE_UINT64))
    {
      guint64 v = g_variant_get_uint64 (value);

      if (v < page_size || v % page_size != 0)
        {
          g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                       "%s of %" G_GUINT64_FORMAT " bytes is not a whole, non-zero number of %s pages",
                       name, v, size_name);
          return FALSE;
        }
      *kernel_value = g_strdup_printf ("%" G_GUINT64_FORMAT, v);
      *bytes = v;
      return TRUE;
    }
  else
    {
      const char *text = g_variant_get_string (value, NULL);
      gsize len = strlen (text);
      g_autofree char *digits = NULL;
      guint64 percent, pages;

      digits = len > 1 && text[len - 1] == '%' ? g_strndup (text, len - 1) : NULL;
      if (digits == NULL || digits[0] == '0' || !hp_parse_u64 (digits, &percent, NULL) ||
          percent == 0 || percent > 100)
        {
          g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                       "%s must be a percentage from 1%% to 100%%", name);
          return FALSE;
        }
      pages = persistent_pages / 100 * percent + persistent_pages % 100 * percent / 100;
      if (pages == 0)
        {
          g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                       "%s of %s of a %" G_GUINT64_FORMAT "-page %s pool rounds to zero pages",
                       name, text, persistent_pages, size_name);
          return FALSE;
        }
      *kernel_value = g_strdup_printf ("%" G_GUINT64_FORMAT "%%", percent);
      *bytes = pages * page_size;
      return TRUE;
    }
}

HpdMountSpec *
hpd_mount_request_spec (const HpdMountRequest *request, guint64 page_size,
                        guint64 persistent_pages, GError **error)
{
  g_autoptr(HpdMountSpec) spec = g_new0 (HpdMountSpec, 1);
  guint64 max_bytes = G_MAXUINT64, min_bytes = 0;

  spec->scope = request->scope;
  spec->owner_name = g_strdup (request->owner_name);
  spec->page_size = page_size;
  spec->uid = request->uid;
  spec->gid = request->gid;
  spec->mode = request->mode;
  spec->nr_inodes = request->max_inodes;

  if (request->max_size != NULL &&
      !resolve_limit (request->max_size, HP_OPTION_MAX_SIZE, page_size, persistent_pages,
                      &spec->size, &max_bytes, error))
    return NULL;
  if (request->min_size != NULL &&
      !resolve_limit (request->min_size, HP_OPTION_MIN_SIZE, page_size, persistent_pages,
                      &spec->min_size, &min_bytes, error))
    return NULL;
  if (min_bytes > max_bytes)
    {
      g_set_error_literal (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                           "min-size is larger than max-size");
      return NULL;
    }

  return g_steal_pointer (&spec);
}

HpdMountSpec *
hpd_mount_request_spec_now (const HpdMountRequest *request, HpdKernel *kernel,
                            const HpdPool *pool, GError **error)
{
  g_auto(HpdPoolCounters) c = { 0, };

  if (!hpd_pool_read (kernel, pool, &c, error))
    return NULL;
  return hpd_mount_request_spec (request, pool->size, hpd_pool_counters_minimum (&c), error);
}

char *
hpd_mount_spec_path (const HpdMountSpec *spec, const char *root)
{
  g_autofree char *relative = hpd_mount_spec_relative_path (spec);

  return g_build_filename (root, HPD_MOUNT_BASE, relative, NULL);
}

static gboolean
limit_matches (const char *wanted, gboolean has, guint64 value)
{
  guint64 bytes;

  if (wanted == NULL)
    return !has;
  if (!has)
    return FALSE;
  if (g_str_has_suffix (wanted, "%"))
    return TRUE;
  return hp_parse_u64 (wanted, &bytes, NULL) && bytes == value;
}

static void
add_limit_difference (GString *out, const char *name, const char *wanted, gboolean has,
                      guint64 value)
{
  if (limit_matches (wanted, has, value))
    return;
  if (out->len > 0)
    g_string_append (out, ", ");
  g_string_append_printf (out, "%s %s asked", name, wanted ? wanted : "none");
  if (has)
    g_string_append_printf (out, ", %" G_GUINT64_FORMAT " mounted", value);
  else
    g_string_append (out, ", none mounted");
}

char *
hpd_mount_spec_differences (const HpdMountSpec *spec, const HpdMountInfo *info,
                            gboolean *limits_differ)
{
  g_autoptr(GString) out = g_string_new (NULL);
  g_autofree char *inodes = spec->nr_inodes ? g_strdup_printf ("%" G_GUINT64_FORMAT, spec->nr_inodes)
                                            : NULL;

  if (info->page_size != spec->page_size)
    g_string_append_printf (out, "page size %" G_GUINT64_FORMAT " asked, %" G_GUINT64_FORMAT
                            " mounted", spec->page_size, info->page_size);
  add_limit_difference (out, "size", spec->size, info->has_size, info->size);
  add_limit_difference (out, "min_size", spec->min_size, info->has_min_size, info->min_size);
  add_limit_difference (out, "nr_inodes", inodes, info->has_nr_inodes, info->nr_inodes);
  *limits_differ = out->len > 0;

  if (hpd_mount_info_uid (info) != spec->uid || hpd_mount_info_gid (info) != spec->gid)
    g_string_append_printf (out, "%sowner %u:%u asked, %u:%u now", out->len ? ", " : "",
                            spec->uid, spec->gid, hpd_mount_info_uid (info),
                            hpd_mount_info_gid (info));
  if (hpd_mount_info_mode (info) != spec->mode)
    g_string_append_printf (out, "%smode %04o asked, %04o now", out->len ? ", " : "",
                            spec->mode, hpd_mount_info_mode (info));
  if (out->len == 0)
    return NULL;
  return g_string_free (g_steal_pointer (&out), FALSE);
}

gboolean
hpd_mount_spec_matches (const HpdMountSpec *spec, const HpdMountInfo *info)
{
  gboolean limits_differ;
  g_autofree char *differences = hpd_mount_spec_differences (spec, info, &limits_differ);

  return differences == NULL;
}

gboolean
hpd_mount_path_is_valid (const char *path)
{
  gsize len = strlen (path);

  if (len < 2 || len > MAX_PATH_LENGTH || path[0] != '/' || path[len - 1] == '/' ||
      !g_utf8_validate (path, -1, NULL) || strstr (path, "//") != NULL)
    return FALSE;
  for (const char *p = path; *p; p++)
    if (g_ascii_iscntrl (*p))
      return FALSE;
  {
    g_auto(GStrv) parts = g_strsplit (path + 1, "/", -1);
    for (guint i = 0; parts[i] != NULL; i++)
      if (g_str_equal (parts[i], ".") || g_str_equal (parts[i], ".."))
        return FALSE;
  }
  return TRUE;
}

static const char *const config_scopes[] = { "system", "user", "group", "global" };

char *
hpd_mount_request_config_key (const HpdMountRequest *request)
{
  if (request->owner_name != NULL)
    return g_strdup_printf ("%s %s", config_scopes[request->scope], request->owner_name);
  return g_strdup (config_scopes[request->scope]);
}

/* A limit as the caller gave it: bytes, or a percentage that
 * hpd_mount_request_spec has already checked to be "N%". */
static void
append_limit (GString *out, const char *key, GVariant *limit)
{
  if (limit == NULL)
    return;
  if (g_variant_is_of_type (limit, G_VARIANT_TYPE_UINT64))
    g_string_append_printf (out, "%s = %" G_GUINT64_FORMAT "\n", key, g_variant_get_uint64 (limit));
  else
    {
      guint64 percent = 0;
      g_autofree char *digits = g_strdup (g_variant_get_string (limit, NULL));

      digits[strcspn (digits, "%")] = '\0';
      hp_parse_u64 (digits, &percent, NULL);
      g_string_append_printf (out, "%s = %" G_GUINT64_FORMAT "%%\n", key, percent);
    }
}

char *
hpd_mount_request_to_config (const HpdMountRequest *request, guint64 page_size)
{
  g_autofree char *key = hpd_mount_request_config_key (request);
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "[mount %s]\n", key);
  if (page_size != 0)
    {
      g_autofree char *size = hp_size_name (page_size);
      g_string_append_printf (out, "page-size = %s\n", size);
    }
  append_limit (out, "max-size", request->max_size);
  append_limit (out, "min-size", request->min_size);
  if (request->max_inodes != 0)
    g_string_append_printf (out, "max-inodes = %" G_GUINT64_FORMAT "\n", request->max_inodes);
  g_string_append_printf (out, "mode = %04o\n", request->mode);
  return g_string_free (out, FALSE);
}

char *
hpd_mount_path_config_key (const char *root, const char *path)
{
  g_autofree char *dir = g_build_filename (root, HPD_MOUNT_BASE, NULL);
  g_autofree char *base = g_strconcat (dir, "/", NULL);
  g_auto(GStrv) parts = NULL;
  guint n;

  if (!g_str_has_prefix (path, base))
    return NULL;
  parts = g_strsplit (path + strlen (base), "/", -1);
  n = g_strv_length (parts);
  if (n == 0 || !g_str_has_prefix (parts[n - 1], "pagesize-"))
    return NULL;
  if (n == 1)
    return g_strdup ("system");
  if (n == 2 && g_str_equal (parts[0], "global"))
    return g_strdup ("global");
  if (n == 3 && (g_str_equal (parts[0], "user") || g_str_equal (parts[0], "group")) &&
      hpd_mount_name_is_valid (parts[1]))
    return g_strdup_printf ("%s %s", parts[0], parts[1]);
  return NULL;
}
