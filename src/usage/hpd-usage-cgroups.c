/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* GetUsage's hugetlb cgroups. */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "hp-error.h"
#include "hp-units.h"
#include "hpd-mounts.h"
#include "hpd-parse.h"
#include "hpd-usage-parse.h"
#include "hpd-usage.h"
#include "hpd-usage-private.h"

typedef struct {
  GVariantBuilder *builder;
  guint visited;
} CgroupWalk;

static gboolean
read_number_at (int dir_fd, const char *name, guint64 *value)
{
  g_autofree char *text = NULL;

  return hpd_usage_read_at (dir_fd, name, MAX_SMALL_FILE_BYTES, &text) == 0 &&
         hpd_parse_counter (text, value, NULL);
}

static int
compare_cgroup_files (gconstpointer a, gconstpointer b)
{
  guint64 x = 0, y = 0;

  hpd_usage_parse_cgroup_file (*(const char *const *) a, &x);
  hpd_usage_parse_cgroup_file (*(const char *const *) b, &y);
  return x < y ? -1 : x > y;
}

static void
describe_cgroup (int dir_fd, const char *path, GVariantBuilder *out)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  GVariantBuilder sizes;
  gboolean interesting = FALSE;
  int list_fd = dup (dir_fd);
  DIR *dir = list_fd >= 0 ? fdopendir (list_fd) : NULL;
  struct dirent *entry;

  if (dir == NULL)
    {
      if (list_fd >= 0)
        close (list_fd);
      return;
    }
  while ((entry = readdir (dir)) != NULL)
    {
      guint64 page_size;
      if (hpd_usage_parse_cgroup_file (entry->d_name, &page_size))
        g_ptr_array_add (names, g_strdup (entry->d_name));
    }
  closedir (dir);
  if (names->len == 0)
    return;
  g_ptr_array_sort (names, compare_cgroup_files);

  g_variant_builder_init (&sizes, G_VARIANT_TYPE ("aa{sv}"));
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      g_autofree char *prefix = g_strndup (name, strlen (name) - strlen ("current"));
      g_autofree char *max_name = g_strconcat (prefix, "max", NULL);
      g_autofree char *events_name = g_strconcat (prefix, "events", NULL);
      g_autofree char *rsvd_name = g_strconcat (prefix, "rsvd.current", NULL);
      g_autofree char *max_text = NULL, *events_text = NULL;
      guint64 page_size = 0, current = 0, max = G_MAXUINT64, events = 0, rsvd = 0;
      gboolean has_rsvd;
      GVariantBuilder e;

      hpd_usage_parse_cgroup_file (name, &page_size);
      if (!read_number_at (dir_fd, name, &current))
        continue;
      if (hpd_usage_read_at (dir_fd, max_name, MAX_SMALL_FILE_BYTES, &max_text) == 0)
        hpd_usage_parse_cgroup_limit (max_text, &max);
      if (hpd_usage_read_at (dir_fd, events_name, MAX_SMALL_FILE_BYTES, &events_text) == 0)
        hpd_usage_parse_hugetlb_events (events_text, &events);
      has_rsvd = read_number_at (dir_fd, rsvd_name, &rsvd);

      interesting = interesting || current > 0 || rsvd > 0 || events > 0 || max != G_MAXUINT64;
      g_variant_builder_init (&e, G_VARIANT_TYPE_VARDICT);
      g_variant_builder_add (&e, "{sv}", "page-size", g_variant_new_uint64 (page_size));
      g_variant_builder_add (&e, "{sv}", "current", g_variant_new_uint64 (current));
      /* unlimited: no key (JSON readers take numbers as signed 64 bits) */
      if (max != G_MAXUINT64)
        g_variant_builder_add (&e, "{sv}", "max", g_variant_new_uint64 (max));
      g_variant_builder_add (&e, "{sv}", "max-events", g_variant_new_uint64 (events));
      if (has_rsvd)
        g_variant_builder_add (&e, "{sv}", "reserved", g_variant_new_uint64 (rsvd));
      g_variant_builder_add (&sizes, "a{sv}", &e);
    }

  if (!interesting)
    {
      g_variant_builder_clear (&sizes);
      return;
    }
  {
    g_autofree char *shown = hpd_usage_bus_text (path);
    GVariantBuilder cg;

    g_variant_builder_init (&cg, G_VARIANT_TYPE_VARDICT);
    g_variant_builder_add (&cg, "{sv}", "path", g_variant_new_string (shown));
    g_variant_builder_add (&cg, "{sv}", "hugetlb", g_variant_builder_end (&sizes));
    g_variant_builder_add (out, "a{sv}", &cg);
  }
}

static void
walk_cgroups (Scan *s, int dir_fd, const char *path, guint depth, CgroupWalk *walk)
{
  g_autoptr(GPtrArray) children = g_ptr_array_new_with_free_func (g_free);
  int list_fd;
  DIR *dir;
  struct dirent *entry;

  walk->visited++;
  /* the root cgroup has no hugetlb files (CFTYPE_NOT_ON_ROOT) */
  if (depth > 0)
    describe_cgroup (dir_fd, path, walk->builder);

  list_fd = dup (dir_fd);
  dir = list_fd >= 0 ? fdopendir (list_fd) : NULL;
  if (dir == NULL)
    {
      if (list_fd >= 0)
        close (list_fd);
      return;
    }
  while ((entry = readdir (dir)) != NULL)
    if (entry->d_type == DT_DIR && !g_str_equal (entry->d_name, ".") &&
        !g_str_equal (entry->d_name, ".."))
      g_ptr_array_add (children, g_strdup (entry->d_name));
  closedir (dir);
  g_ptr_array_sort (children, (GCompareFunc) g_strcmp0);

  for (guint i = 0; i < children->len; i++)
    {
      const char *name = g_ptr_array_index (children, i);
      g_autofree char *child_path = g_str_equal (path, "/") ? g_strconcat ("/", name, NULL)
                                                            : g_strconcat (path, "/", name, NULL);
      int child_fd;

      if (walk->visited >= MAX_CGROUPS || depth + 1 > MAX_CGROUP_DEPTH || hpd_usage_out_of_time (s))
        {
          s->cgroups_truncated = TRUE;
          return;
        }
      child_fd = openat (dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (child_fd < 0)
        continue;
      walk_cgroups (s, child_fd, child_path, depth + 1, walk);
      close (child_fd);
    }
}

GVariant *
hpd_usage_cgroups_variant (Scan *s)
{
  HpdKernel *kernel = s->scan->kernel;
  /* cgroup v2 alone at /sys/fs/cgroup, or next to v1 at .../unified */
  const char *rel = hpd_kernel_exists (kernel, "sys/fs/cgroup/unified/cgroup.controllers")
                    ? "sys/fs/cgroup/unified" : "sys/fs/cgroup";
  g_autofree char *top = hpd_kernel_path (kernel, rel);
  GVariantBuilder b;
  CgroupWalk walk = { &b, 0 };
  int fd;

  g_variant_builder_init (&b, G_VARIANT_TYPE ("aa{sv}"));
  fd = open (top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0)
    {
      walk_cgroups (s, fd, "/", 0, &walk);
      close (fd);
    }
  return g_variant_builder_end (&b);
}
