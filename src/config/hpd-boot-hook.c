/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <fnmatch.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>

#include "hpd-boot-hook.h"

/* systemd's unit search path, without the generator directories: a unit
 * only a generator makes is no installed one. */
static const char *const unit_dirs[] = {
  "etc/systemd/system", "run/systemd/system", "usr/local/lib/systemd/system",
  "usr/lib/systemd/system", "lib/systemd/system", NULL
};

/* Where the hook is read, and who records what it looks at (NULL: none). */
typedef struct {
  const char *root;
  HpdKernel *recorder;
} Look;

/* Each look at a path through one of these, so that a read snapshot can
 * tell when what it saw changed (hpd_kernel_record_path()): a directory's
 * state stands for its listing, a link's for its target. */
static gboolean
test_path (const Look *look, const char *path, GFileTest test)
{
  hpd_kernel_record_path (look->recorder, path, FALSE);
  return g_file_test (path, test);
}

static gboolean
link_exists (const Look *look, const char *path)
{
  struct stat st;

  hpd_kernel_record_path (look->recorder, path, TRUE);
  return lstat (path, &st) == 0;
}

static GDir *
open_dir (const Look *look, const char *path)
{
  hpd_kernel_record_path (look->recorder, path, FALSE);
  return g_dir_open (path, 0, NULL);
}

static gboolean
is_masked (const char *path)
{
  g_autofree char *target = g_file_read_link (path, NULL);

  return target != NULL && g_str_equal (target, "/dev/null");
}

/* The first file systemd takes for @unit: NULL if none, "" if masked. */
static char *
find_unit (const Look *look, const char *unit)
{
  for (guint i = 0; unit_dirs[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (look->root, unit_dirs[i], unit, NULL);

      if (!link_exists (look, path))
        continue;
      if (is_masked (path))
        return g_strdup ("");
      return g_steal_pointer (&path);
    }
  return NULL;
}

/* Enabled as systemctl enable does it: a link in some *.wants directory of
 * the unit directories (the package's WantedBy=, or a vendor preset). */
static gboolean
is_wanted (const Look *look, const char *unit)
{
  for (guint i = 0; unit_dirs[i] != NULL; i++)
    {
      g_autofree char *dir_path = g_build_filename (look->root, unit_dirs[i], NULL);
      g_autoptr(GDir) dir = open_dir (look, dir_path);
      const char *name;

      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *link = NULL;

          if (!g_str_has_suffix (name, ".wants"))
            continue;
          link = g_build_filename (dir_path, name, unit, NULL);
          if (link_exists (look, link))
            return TRUE;
        }
    }
  return FALSE;
}

static void
read_systemd (const Look *look, HpdBootHook *hook)
{
  g_autofree char *unit = find_unit (look, HPD_APPLY_UNIT);
  g_autofree char *target = find_unit (look, HPD_APPLY_TARGET);

  hook->mechanism = "systemd";
  if (unit == NULL)
    {
      hook->message = g_strdup (HPD_APPLY_UNIT " is not installed: nothing applies "
                                "the configuration at boot");
      hook->fix = g_strdup ("reinstall hugepagesd (apt-get install --reinstall hugepagesd, "
                            "or meson install)");
    }
  else if (*unit == '\0')
    {
      hook->message = g_strdup (HPD_APPLY_UNIT " is masked: nothing applies the "
                                "configuration at boot");
      hook->fix = g_strdup ("systemctl unmask " HPD_APPLY_UNIT " && systemctl enable "
                            HPD_APPLY_UNIT " " HPD_APPLY_TARGET);
    }
  /* hugepages.target wants the apply unit by itself (Wants=), so either
   * being enabled is enough */
  else if (is_wanted (look, HPD_APPLY_UNIT) ||
           (target != NULL && *target != '\0' && is_wanted (look, HPD_APPLY_TARGET)))
    hook->enabled = TRUE;
  else
    {
      hook->message = g_strdup (HPD_APPLY_UNIT " is not enabled: nothing applies the "
                                "configuration at boot");
      hook->fix = g_strdup ("systemctl enable " HPD_APPLY_UNIT " " HPD_APPLY_TARGET);
    }
}

static gboolean
has_link (const Look *look, const char *dir_path, const char *pattern)
{
  g_autoptr(GDir) dir = open_dir (look, dir_path);
  const char *link;

  while (dir != NULL && (link = g_dir_read_name (dir)) != NULL)
    if (fnmatch (pattern, link, 0) == 0)
      return TRUE;
  return FALSE;
}

/* update-rc.d (sysv-rc) and insserv make S links in /etc/rc?.d; OpenRC's
 * rc-update links into /etc/runlevels/RUNLEVEL/. The runlevels of sysv-rc
 * that start services are named, not found in a listing of /etc, which
 * holds hundreds of entries and was read on every refresh. */
static gboolean
init_script_is_linked (const Look *look)
{
  const char *root = look->root;
  static const char *const sysv_rc_dirs[] = { "rcS.d", "rc2.d", "rc3.d", "rc4.d", "rc5.d" };
  g_autofree char *runlevels = g_build_filename (root, "etc/runlevels", NULL);
  g_autoptr(GDir) dir = NULL;
  const char *name;

  for (guint i = 0; i < G_N_ELEMENTS (sysv_rc_dirs); i++)
    {
      g_autofree char *sub = g_build_filename (root, "etc", sysv_rc_dirs[i], NULL);

      if (has_link (look, sub, "S[0-9][0-9]hugepagesd-apply"))
        return TRUE;
    }
  dir = open_dir (look, runlevels);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *sub = g_build_filename (runlevels, name, NULL);

      if (has_link (look, sub, "hugepagesd-apply"))
        return TRUE;
    }
  return FALSE;
}

static void
read_sysvinit (const Look *look, HpdBootHook *hook)
{
  const char *root = look->root;
  g_autofree char *script = g_build_filename (root, HPD_APPLY_INIT_SCRIPT, NULL);

  if (!test_path (look, script, G_FILE_TEST_IS_REGULAR) ||
      access (script, X_OK) < 0)
    {
      hook->mechanism = "none";
      /* the script is made from data/init.d's template at install time:
       * a copy of the template would find no daemon and do nothing */
      hook->message = g_strdup ("this machine does not boot with systemd and "
                                "/" HPD_APPLY_INIT_SCRIPT " is not installed: nothing "
                                "applies the configuration at boot (an init without "
                                "init scripts can run " LIBEXECDIR "/hugepagesd --apply "
                                "at boot instead)");
      hook->fix = g_strdup ("reinstall hugepagesd (apt-get install --reinstall hugepagesd, "
                            "or meson install), then enable its init script "
                            "(update-rc.d hugepagesd-apply defaults)");
      return;
    }
  hook->mechanism = "sysvinit";
  if (init_script_is_linked (look))
    hook->enabled = TRUE;
  else
    {
      /* OpenRC, booted, has /run/openrc as systemd has /run/systemd/system;
       * its runlevels are not sysv-rc's, which update-rc.d writes */
      g_autofree char *openrc = g_build_filename (root, "run/openrc", NULL);

      hook->message = g_strdup ("/" HPD_APPLY_INIT_SCRIPT " is not enabled: nothing applies "
                                "the configuration at boot");
      hook->fix = g_strdup (test_path (look, openrc, G_FILE_TEST_IS_DIR)
                            ? "rc-update add hugepagesd-apply boot"
                            : "update-rc.d hugepagesd-apply defaults");
    }
}

static void
read_hook (const Look *look, HpdBootHook *hook)
{
  g_autofree char *booted = g_build_filename (look->root, "run/systemd/system", NULL);

  memset (hook, 0, sizeof *hook);
  if (test_path (look, booted, G_FILE_TEST_IS_DIR))
    read_systemd (look, hook);
  else
    read_sysvinit (look, hook);
}

void
hpd_boot_hook_read (HpdKernel *kernel, HpdBootHook *hook)
{
  Look look = { hpd_kernel_get_root (kernel), kernel };

  read_hook (&look, hook);
}

void
hpd_boot_hook_read_root (const char *root, HpdBootHook *hook)
{
  Look look = { root, NULL };

  read_hook (&look, hook);
}

void
hpd_boot_hook_clear (HpdBootHook *hook)
{
  g_clear_pointer (&hook->message, g_free);
  g_clear_pointer (&hook->fix, g_free);
}

GVariant *
hpd_boot_hook_to_variant (const HpdBootHook *hook)
{
  GVariantBuilder b;

  g_variant_builder_init (&b, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&b, "{sv}", "enabled", g_variant_new_boolean (hook->enabled));
  g_variant_builder_add (&b, "{sv}", "mechanism", g_variant_new_string (hook->mechanism));
  g_variant_builder_add (&b, "{sv}", "message",
                         g_variant_new_string (hook->message ? hook->message : ""));
  g_variant_builder_add (&b, "{sv}", "fix", g_variant_new_string (hook->fix ? hook->fix : ""));
  return g_variant_builder_end (&b);
}
