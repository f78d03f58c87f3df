/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hpd-mountinfo.h"
#include "hpd-namespace.h"

static gboolean
root_mount_id (HpdKernel *kernel, const char *relative, guint32 *id, char **why)
{
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;

  if (!hpd_kernel_read_text (kernel, relative, &text, &error))
    {
      *why = g_strdup (error->message);
      return FALSE;
    }
  if (!hpd_mountinfo_root_mount_id (text, id))
    {
      *why = g_strdup_printf ("%s lists no mount on /", relative);
      return FALSE;
    }
  return TRUE;
}

/* PID 1's namespace link is out of reach: mount IDs are unique across
 * namespaces, and a new mount namespace gets copies of the mounts with new
 * IDs, so the same "/" mount means the same namespace. */
static HpdMountNs
compare_root_mounts (HpdKernel *kernel, const char *link_error, char **detail)
{
  g_autofree char *why = NULL;
  guint32 own, init;

  if (!root_mount_id (kernel, "proc/self/mountinfo", &own, &why) ||
      !root_mount_id (kernel, "proc/1/mountinfo", &init, &why))
    {
      *detail = g_strdup_printf ("%s; %s", link_error, why);
      return HPD_MOUNT_NS_UNKNOWN;
    }
  *detail = g_strdup_printf ("the mount on / is %u here and %u for PID 1; %s",
                             own, init, link_error);
  return own == init ? HPD_MOUNT_NS_SHARED : HPD_MOUNT_NS_PRIVATE;
}

HpdMountNs
hpd_mount_ns_check (HpdKernel *kernel, char **detail)
{
  g_autofree char *own = NULL;
  g_autofree char *init = NULL;
  g_autoptr(GError) error = NULL;

  if (!hpd_kernel_read_link (kernel, "proc/self/ns/mnt", &own, &error))
    {
      *detail = g_strdup (error->message);
      return HPD_MOUNT_NS_UNKNOWN;
    }
  if (!hpd_kernel_read_link (kernel, "proc/1/ns/mnt", &init, &error))
    return compare_root_mounts (kernel, error->message, detail);

  *detail = g_strdup_printf ("the mount namespace is %s here and %s for PID 1", own, init);
  return g_str_equal (own, init) ? HPD_MOUNT_NS_SHARED : HPD_MOUNT_NS_PRIVATE;
}
