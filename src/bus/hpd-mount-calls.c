/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hp-error.h"
#include "hp-names.h"
#include "hpd-daemon.h"
#include "hpd-job.h"
#include "hpd-mount-calls.h"
#include "hpd-mounts.h"
#include "hpd-page-size.h"
#include "hpd-persist.h"

typedef struct {
  HpdDaemon *daemon;
  char *root;
  GPtrArray *specs;     /* HpdMountSpec, ascending page size */
  GPtrArray *paths;     /* char *, same order */
  GArray *exists;       /* gboolean: already mounted with the page size and limits asked */
  gboolean secure;      /* option "secure-directories" */
  gboolean single;
  char *unmount_path;   /* for Unmount */
  gboolean section_only; /* Unmount with persist of a saved mount not mounted */
  char *config_key;     /* with persist: the section to replace or remove */
  char *config_text;    /* with persist: the new section, NULL to remove */
} MountCall;

static void
mount_call_free (MountCall *call)
{
  g_clear_object (&call->daemon);
  g_free (call->root);
  g_clear_pointer (&call->specs, g_ptr_array_unref);
  g_clear_pointer (&call->paths, g_ptr_array_unref);
  g_clear_pointer (&call->exists, g_array_unref);
  g_free (call->unmount_path);
  g_free (call->config_key);
  g_free (call->config_text);
  g_free (call);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MountCall, mount_call_free)

static MountCall *
mount_call_new (HpdDaemon *daemon)
{
  MountCall *call = g_new0 (MountCall, 1);

  call->daemon = g_object_ref (daemon);
  call->root = g_strdup (hpd_kernel_get_root (hpd_daemon_get_kernel (daemon)));
  call->specs = g_ptr_array_new_with_free_func ((GDestroyNotify) hpd_mount_spec_free);
  call->paths = g_ptr_array_new_null_terminated (0, g_free, TRUE);
  call->exists = g_array_new (FALSE, FALSE, sizeof (gboolean));
  return call;
}

/* The section replaces the one of the same name: the call is saved as it
 * was made, not merged with options an earlier call saved. */
static gboolean
edit_mounts (HpdConfig *config, gpointer data, GError **error)
{
  MountCall *call = data;

  hpd_config_remove_mount (config, call->config_key);
  return call->config_text == NULL || hpd_persist_merge (config, call->config_text, error);
}

static gboolean
persist_mounts (MountCall *call, GError **error)
{
  if (call->config_key == NULL)
    return TRUE;
  return hpd_persist (call->root, edit_mounts, call, error);
}

static GVariant *
created_reply (MountCall *call)
{
  if (call->single)
    return g_variant_new ("(s)", g_ptr_array_index (call->paths, 0));
  return g_variant_new ("(^as)", (char **) call->paths->pdata);
}

/* Takes back the mounts this call made before @upto: all or nothing. */
static void
undo_created (MountCall *call, guint upto)
{
  for (guint j = 0; j < upto; j++)
    {
      g_autoptr(GError) undo_error = NULL;

      if (!g_array_index (call->exists, gboolean, j) &&
          !hpd_hugetlbfs_unmount (call->root, g_ptr_array_index (call->paths, j), &undo_error))
        g_warning ("Could not take back %s: %s",
                   (char *) g_ptr_array_index (call->paths, j), undo_error->message);
    }
}

/* A mount in the way whose page size or limits are not what was asked. */
static void
set_differs_error (GError **error, const char *path, const char *differences)
{
  g_set_error (error, HP_ERROR, HP_ERROR_FAILED,
               "%s is already mounted with other options (%s). The kernel cannot change "
               "the page size or limits of a live hugetlbfs mount (a remount ignores them): "
               "ask for what is mounted, or unmount it once nothing uses it "
               "(hugepagesctl usage) and ask again", path, differences);
}

/* Worker thread. The mounts are looked at again here: an identical call
 * queued ahead of this one may have made them since it was validated. A
 * mount that is there with the page size and limits asked is taken over:
 * its root gets the owner and mode asked, and nothing is remounted. */
static GVariant *
create_work (gpointer data, GCancellable *cancellable, GError **error)
{
  MountCall *call = data;
  g_autoptr(GPtrArray) mounts = hpd_mounts_read (hpd_daemon_get_kernel (call->daemon),
                                                 hpd_daemon_get_default_page_size (call->daemon));

  for (guint i = 0; i < call->specs->len; i++)
    {
      const HpdMountSpec *spec = g_ptr_array_index (call->specs, i);
      const char *path = g_ptr_array_index (call->paths, i);
      const HpdMountInfo *existing;

      existing = hpd_mounts_find (mounts, path);
      if (existing != NULL)
        {
          gboolean limits_differ;
          g_autofree char *differences = hpd_mount_spec_differences (spec, existing,
                                                                     &limits_differ);

          if (limits_differ)
            set_differs_error (error, path, differences);
          else if ((differences == NULL && !call->secure) ||
                   hpd_hugetlbfs_adopt (call->root, spec, call->secure, error))
            {
              g_array_index (call->exists, gboolean, i) = TRUE;
              continue;
            }
          undo_created (call, i);
          return NULL;
        }

      /* gone since validation: made anew, and taken back on failure */
      g_array_index (call->exists, gboolean, i) = FALSE;
      if (!hpd_hugetlbfs_mount (call->root, spec, call->secure, error))
        {
          undo_created (call, i);
          return NULL;
        }
    }
  if (!persist_mounts (call, error))
    return NULL;
  return created_reply (call);
}

static void
create_done (gpointer data, const HpdCaller *caller, GVariant *reply, const GError *error)
{
  MountCall *call = data;

  hpd_daemon_refresh_mounts (call->daemon);
  for (guint i = 0; i < call->specs->len; i++)
    {
      const HpdMountSpec *spec = g_ptr_array_index (call->specs, i);
      const char *path = g_ptr_array_index (call->paths, i);

      if (g_array_index (call->exists, gboolean, i))
        {
          if (reply != NULL)
            g_message ("uid %u (pid %u) took over the hugetlbfs mount at %s (uid %u, gid %u, mode %04o)",
                       caller->uid, caller->pid, path, spec->uid, spec->gid, spec->mode);
          continue;
        }
      if (reply != NULL)
        g_message ("uid %u (pid %u) mounted hugetlbfs at %s (uid %u, gid %u, mode %04o)",
                   caller->uid, caller->pid, path, spec->uid, spec->gid, spec->mode);
    }
  if (reply == NULL)
    g_warning ("uid %u (pid %u): creating hugetlbfs mounts failed: %s",
               caller->uid, caller->pid, error->message);
}

/* CreateMounts (every page size) and CreateMount (@only's). */
static void
create (HpdDaemon *daemon, GDBusMethodInvocation *invocation,
        const char *scope, const char *owner, GVariant *options,
        const HpdPool *only)
{
  HpdKernel *kernel = hpd_daemon_get_kernel (daemon);
  GPtrArray *pools = hpd_daemon_get_pools (daemon);
  g_autoptr(MountCall) call = mount_call_new (daemon);
  g_autoptr(HpdMountRequest) request = NULL;
  g_autoptr(GPtrArray) mounts = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GHashTable) details = NULL;
  g_autofree char *uid = NULL;
  g_autofree char *gid = NULL;
  g_autofree char *mode = NULL;
  g_autofree char *joined = NULL;
  gboolean all_exist = TRUE, in_line = TRUE;

  request = hpd_mount_request_new (scope, owner, options, &error);
  if (request == NULL)
    {
      hpd_job_return_error (invocation, error);
      return;
    }

  call->single = only != NULL;
  mounts = hpd_mounts_read (kernel, hpd_daemon_get_default_page_size (daemon));

  for (guint i = 0; i < pools->len; i++)
    {
      const HpdPool *pool = g_ptr_array_index (pools, i);
      g_autoptr(HpdMountSpec) spec = NULL;
      g_autofree char *path = NULL;
      const HpdMountInfo *existing;
      gboolean exists = FALSE;

      if (only != NULL && pool != only)
        continue;
      spec = hpd_mount_request_spec_now (request, kernel, pool, &error);
      if (spec == NULL)
        {
          hpd_job_return_error (invocation, error);
          return;
        }

      path = hpd_mount_spec_path (spec, call->root);
      existing = hpd_mounts_find (mounts, path);
      if (existing != NULL)
        {
          gboolean limits_differ;
          g_autofree char *differences = hpd_mount_spec_differences (spec, existing,
                                                                     &limits_differ);

          if (limits_differ)
            {
              set_differs_error (&error, path, differences);
              hpd_job_return_error (invocation, error);
              return;
            }
          /* same page size and limits: taken over, with its owner and mode
           * set as asked, never remounted */
          exists = TRUE;
          in_line = in_line && differences == NULL;
        }
      all_exist = all_exist && exists;

      g_ptr_array_add (call->specs, g_steal_pointer (&spec));
      g_ptr_array_add (call->paths, g_steal_pointer (&path));
      g_array_append_val (call->exists, exists);
    }

  /* no page sizes: nothing to mount (and no paths to reply with) */
  if (call->specs->len == 0)
    {
      g_dbus_method_invocation_return_error_literal (invocation, HP_ERROR, HP_ERROR_NOT_SUPPORTED,
                                                     "The kernel offers no huge page sizes to mount");
      return;
    }

  call->secure = request->secure;
  if (request->persist)
    {
      call->config_key = hpd_mount_request_config_key (request);
      call->config_text = hpd_mount_request_to_config (request, only ? only->size : 0);
    }
  /* a dry run answers with the paths once every check passed, before
   * authorization, as every other change does */
  if (request->dry_run || (all_exist && in_line && !request->persist && !request->secure))
    {
      g_dbus_method_invocation_return_value (invocation, created_reply (call));
      return;
    }

  /* the owner goes to polkit: rules can tell a user's own mount from others' */
  details = hpd_auth_details_new ();
  uid = g_strdup_printf ("%u", request->uid);
  gid = g_strdup_printf ("%u", request->gid);
  mode = g_strdup_printf ("%04o", request->mode);
  joined = g_strjoinv (",", (char **) call->paths->pdata);
  hpd_auth_details_set (details, "scope", scope);
  hpd_auth_details_set (details, "owner-uid", uid);
  hpd_auth_details_set (details, "owner-gid", gid);
  hpd_auth_details_set (details, "mode", mode);
  hpd_auth_details_set (details, "paths", joined);
  if (request->persist)
    hpd_auth_details_set (details, "persist", "true");
  if (request->secure)
    hpd_auth_details_set (details, "secure-directories", "true");

  hpd_job_run (daemon, invocation, details, create_work, create_done,
               g_steal_pointer (&call), (GDestroyNotify) mount_call_free);
}

static GVariant *
unmount_work (gpointer data, GCancellable *cancellable, GError **error)
{
  MountCall *call = data;

  const char *unmounted[] = { call->section_only ? NULL : call->unmount_path, NULL };

  if ((!call->section_only && !hpd_hugetlbfs_unmount (call->root, call->unmount_path, error)) ||
      !persist_mounts (call, error))
    return NULL;
  return g_variant_new ("(^as)", unmounted);
}

static void
unmount_done (gpointer data, const HpdCaller *caller, GVariant *reply, const GError *error)
{
  MountCall *call = data;

  hpd_daemon_refresh_mounts (call->daemon);
  if (reply != NULL && call->section_only)
    g_message ("uid %u (pid %u) removed the saved section of %s (not mounted)", caller->uid,
               caller->pid, call->unmount_path);
  else if (reply != NULL)
    g_message ("uid %u (pid %u) unmounted %s", caller->uid, caller->pid, call->unmount_path);
  else
    g_warning ("uid %u (pid %u): unmounting %s failed: %s", caller->uid, caller->pid,
               call->unmount_path, error->message);
}

void
hpd_mount_calls_create_mounts (const HpdCall *method_call)
{
  const char *scope, *owner;

  g_variant_get (method_call->parameters, "(&s&s@a{sv})", &scope, &owner, NULL);
  create (method_call->daemon, method_call->invocation, scope, owner, method_call->options, NULL);
}

void
hpd_mount_calls_create_mount (const HpdCall *method_call)
{
  const char *scope, *owner;

  g_variant_get (method_call->parameters, "(&s&s@a{sv})", &scope, &owner, NULL);
  create (method_call->daemon, method_call->invocation, scope, owner, method_call->options,
          hpd_page_size_get_pool (HPD_PAGE_SIZE (method_call->object)));
}

void
hpd_mount_calls_unmount (const HpdCall *method_call)
{
  HpdDaemon *daemon = method_call->daemon;
  GDBusMethodInvocation *invocation = method_call->invocation;
  g_autoptr(MountCall) call = mount_call_new (daemon);
  g_autoptr(GPtrArray) mounts = NULL;
  g_autoptr(GHashTable) details = NULL;
  gboolean persist = FALSE, dry_run = FALSE;
  const char *path;

  g_variant_get (method_call->parameters, "(&s@a{sv})", &path, NULL);
  g_variant_lookup (method_call->options, HP_OPTION_PERSIST, "b", &persist);
  g_variant_lookup (method_call->options, HP_OPTION_DRY_RUN, "b", &dry_run);

  if (!hpd_mount_path_is_valid (path))
    {
      g_dbus_method_invocation_return_error_literal (invocation, HP_ERROR, HP_ERROR_INVALID_ARGS,
                                                     "The path must be absolute and normalized, "
                                                     "without control characters");
      return;
    }

  mounts = hpd_mounts_read (hpd_daemon_get_kernel (daemon),
                            hpd_daemon_get_default_page_size (daemon));
  if (hpd_mounts_find (mounts, path) == NULL)
    {
      /* A mount point of the service that is not mounted (unmounted by
       * hand, or not made since boot) but whose section is saved: with
       * persist there is still that section to remove, and only it. */
      g_autofree char *key = persist ? hpd_mount_path_config_key (call->root, path) : NULL;

      if (key == NULL ||
          g_tree_lookup (hpd_daemon_get_config (daemon, NULL)->mounts, key) == NULL)
        {
          g_dbus_method_invocation_return_error (invocation, HP_ERROR, HP_ERROR_NOT_MOUNTED,
                                                 "%s is not a hugetlbfs mount", path);
          return;
        }
      call->section_only = TRUE;
    }

  if (persist)
    {
      /* The whole section goes, with the mounts of its other page sizes
       * (which stay mounted until unmounted): a section cannot say "every
       * size but this one". */
      call->config_key = hpd_mount_path_config_key (call->root, path);
      if (call->config_key == NULL)
        {
          g_dbus_method_invocation_return_error (invocation, HP_ERROR, HP_ERROR_INVALID_ARGS,
                                                 "%s is not a mount hugepagesd makes, so there "
                                                 "is no configuration to remove it from", path);
          return;
        }
    }

  if (dry_run)
    {
      const char *would[] = { call->section_only ? NULL : path, NULL };

      g_dbus_method_invocation_return_value (invocation, g_variant_new ("(^as)", would));
      return;
    }

  call->unmount_path = g_strdup (path);
  details = hpd_auth_details_new ();
  hpd_auth_details_set (details, "path", path);
  if (persist)
    hpd_auth_details_set (details, "persist", "true");
  hpd_job_run (daemon, invocation, details, unmount_work, unmount_done,
               g_steal_pointer (&call), (GDestroyNotify) mount_call_free);
}
