/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <string.h>

#include "hp-units.h"
#include "hpd-mountinfo.h"

void
hpd_mount_info_free (HpdMountInfo *info)
{
  if (info == NULL)
    return;
  g_free (info->path);
  g_free (info->flags);
  g_free (info->source);
  g_free (info);
}

char *
hpd_mountinfo_unescape (const char *field)
{
  GString *out = g_string_sized_new (strlen (field));

  for (const char *p = field; *p; p++)
    {
      if (*p != '\\')
        {
          g_string_append_c (out, *p);
          continue;
        }
      if (p[1] < '0' || p[1] > '3' || p[2] < '0' || p[2] > '7' || p[3] < '0' || p[3] > '7')
        {
          g_string_free (out, TRUE);
          return NULL;
        }
      g_string_append_c (out, (char) ((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0')));
      p += 3;
    }

  /* a NUL smuggled in through \000 would cut the path short */
  if (strlen (out->str) != out->len)
    {
      g_string_free (out, TRUE);
      return NULL;
    }
  return g_string_free (out, FALSE);
}

static gboolean
parse_octal_mode (const char *text, guint32 *mode)
{
  guint64 v = 0;

  if (*text == '\0' || strlen (text) > 6)
    return FALSE;
  for (const char *p = text; *p; p++)
    {
      if (*p < '0' || *p > '7')
        return FALSE;
      v = v * 8 + (guint64) (*p - '0');
    }
  *mode = (guint32) v;
  return TRUE;
}

static void
parse_super_options (HpdMountInfo *info, const char *options)
{
  g_auto(GStrv) parts = g_strsplit (options, ",", -1);

  for (guint i = 0; parts[i] != NULL; i++)
    {
      const char *eq = strchr (parts[i], '=');
      g_autofree char *key = NULL;
      const char *value;

      if (eq == NULL)
        continue;
      key = g_strndup (parts[i], (gsize) (eq - parts[i]));
      value = eq + 1;

      if (strcmp (key, "uid") == 0)
        hp_parse_u32 (value, &info->uid, NULL);
      else if (strcmp (key, "gid") == 0)
        hp_parse_u32 (value, &info->gid, NULL);
      else if (strcmp (key, "mode") == 0)
        parse_octal_mode (value, &info->mode);
      /* as the kernel prints it ("2M", "1024M", "64K") or, before 4.13, as
       * the admin typed it ("1g"): hp_parse_size reads units in any case */
      else if (strcmp (key, "pagesize") == 0)
        hp_parse_size (value, &info->page_size, NULL);
      else if (strcmp (key, "size") == 0)
        info->has_size = hp_parse_u64 (value, &info->size, NULL);
      else if (strcmp (key, "min_size") == 0)
        info->has_min_size = hp_parse_u64 (value, &info->min_size, NULL);
      else if (strcmp (key, "nr_inodes") == 0)
        info->has_nr_inodes = hp_parse_u64 (value, &info->nr_inodes, NULL);
    }
}

HpdMountInfo *
hpd_mountinfo_parse_line (const char *line)
{
  g_auto(GStrv) fields = g_strsplit (line, " ", -1);
  g_autoptr(HpdMountInfo) info = NULL;
  guint n = g_strv_length (fields);
  guint sep;

  /* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER */
  for (sep = 6; sep < n; sep++)
    if (strcmp (fields[sep], "-") == 0)
      break;
  if (sep + 4 != n)
    return NULL;
  if (strcmp (fields[sep + 1], "hugetlbfs") != 0)
    return NULL;

  info = g_new0 (HpdMountInfo, 1);
  info->mode = 0755; /* the kernel prints mode only when it differs */
  if (!hp_parse_u32 (fields[0], &info->mount_id, NULL) ||
      !hp_parse_u32 (fields[1], &info->parent_id, NULL))
    return NULL;
  info->path = hpd_mountinfo_unescape (fields[4]);
  info->source = hpd_mountinfo_unescape (fields[sep + 2]);
  if (info->path == NULL || info->source == NULL || info->path[0] != '/')
    return NULL;
  info->flags = g_strdup (fields[5]);
  parse_super_options (info, fields[sep + 3]);
  return g_steal_pointer (&info);
}

GPtrArray *
hpd_mountinfo_parse_hugetlbfs (const char *text)
{
  GPtrArray *mounts = g_ptr_array_new_with_free_func ((GDestroyNotify) hpd_mount_info_free);
  g_auto(GStrv) lines = g_strsplit (text ? text : "", "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      HpdMountInfo *info = hpd_mountinfo_parse_line (lines[i]);

      if (info != NULL)
        g_ptr_array_add (mounts, info);
    }
  return mounts;
}

gboolean
hpd_mountinfo_root_mount_id (const char *text, guint32 *mount_id)
{
  g_auto(GStrv) lines = g_strsplit (text ? text : "", "\n", -1);
  gboolean found = FALSE;

  /* Later lines are mounted on top of earlier ones at the same point. */
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = g_strsplit (lines[i], " ", 6);
      guint32 id;

      if (g_strv_length (fields) == 6 && strcmp (fields[4], "/") == 0 &&
          hp_parse_u32 (fields[0], &id, NULL))
        {
          *mount_id = id;
          found = TRUE;
        }
    }
  return found;
}
