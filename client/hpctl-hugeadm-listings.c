/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* hugeadm's listings, in hugeadm's formats: --list-all-mounts,
 * --page-sizes and --explain's report. */

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

/* hugeadm's --list-all-mounts pads the path column to at least this */
#define MOUNT_COLUMN_MIN 20

/* A fresh connection for a listing: the properties as they are now. */
gboolean
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
int
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
int
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
int
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
