/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "hp-error.h"
#include "hp-files.h"
#include "hpd-boot-grub.h"

/* Where Debian keeps update-grub (usr-merged or not). */
static const char *const update_grub_paths[] = { "usr/sbin/update-grub", "sbin/update-grub", NULL };

/* g_file_set_contents_full's temporary file: NAME.XXXXXX */
#define TEMP_SUFFIX_LENGTH 6

static const char dropin_header[] =
  "# Huge pages at boot: written by hugepagesd (ConfigureBoot, as in\n"
  "# \"hugepagesctl boot --write\") from /etc/hugepagesd/hugepagesd.conf and its\n"
  "# drop-ins. Changes made here are lost: change the configuration and write\n"
  "# it again. update-grub puts it into grub.cfg.\n";

static gboolean
is_regular (const char *path)
{
  struct stat st;

  return lstat (path, &st) == 0 && S_ISREG (st.st_mode);
}

gboolean
hpd_boot_grub_check (const char *root, char **update_grub, GError **error)
{
  g_autofree char *debian = g_build_filename (root, HPD_BOOT_DEBIAN_VERSION, NULL);
  g_autofree char *grub = g_build_filename (root, HPD_BOOT_GRUB_DEFAULT, NULL);

  if (!g_file_test (debian, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error_literal (error, HP_ERROR, HP_ERROR_NOT_SUPPORTED,
                           "hugepagesd writes the boot configuration on Debian and its "
                           "derivatives only");
      return FALSE;
    }
  if (!g_file_test (grub, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error_literal (error, HP_ERROR, HP_ERROR_NOT_SUPPORTED,
                           "this system does not boot with GRUB configured in /etc/default/grub");
      return FALSE;
    }
  for (guint i = 0; update_grub_paths[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (root, update_grub_paths[i], NULL);

      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        {
          *update_grub = g_steal_pointer (&path);
          return TRUE;
        }
    }
  g_set_error_literal (error, HP_ERROR, HP_ERROR_NOT_SUPPORTED,
                       "/etc/default/grub is there but update-grub is not: GRUB is not "
                       "installed");
  return FALSE;
}

char *
hpd_boot_grub_dropin_text (const HpdBootParams *params)
{
  g_autofree char *parameters = hpd_boot_params_to_string (params);

  if (*parameters == '\0')
    return NULL;
  /* appended, so that what /etc/default/grub and earlier drop-ins set stays */
  return g_strdup_printf ("%sGRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX %s\"\n",
                          dropin_header, parameters);
}

static gboolean
is_stale_temporary (const char *name)
{
  const char *base = strrchr (HPD_BOOT_GRUB_DROPIN, '/') + 1;
  gsize len = strlen (base);

  if (strncmp (name, base, len) != 0 || name[len] != '.' ||
      strlen (name + len + 1) != TEMP_SUFFIX_LENGTH)
    return FALSE;
  for (const char *c = name + len + 1; *c != '\0'; c++)
    if (!g_ascii_isalnum (*c))
      return FALSE;
  return TRUE;
}

/* Left by a write that a crash interrupted; nothing else uses the name. */
static void
remove_stale_temporaries (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = NULL;

      if (!is_stale_temporary (name))
        continue;
      path = g_build_filename (dir, name, NULL);
      if (is_regular (path) && g_unlink (path) != 0)
        g_warning ("Could not remove %s: %s", path, g_strerror (errno));
    }
}

/* The whole of a regular file that had @size bytes, NUL added; NULL when
 * a read fails or it does not fit in memory. Grown as read, whatever
 * fstat () said (a sparse file claims any size). */
static char *
read_whole (int fd, gsize size, gsize *length)
{
  gsize room = MIN (size, HPD_BOOT_GRUB_SHOWN_MAX) + 1;
  g_autofree char *text = g_malloc (room + 1);
  gssize got;

  *length = 0;
  for (;;)
    {
      got = read (fd, text + *length, room - *length);
      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0)
        return NULL;
      if (got == 0)
        break;
      *length += got;
      if (*length == room)
        {
          char *more = room < G_MAXSIZE / 4 ? g_try_realloc (text, room * 2 + 1) : NULL;

          if (more == NULL)
            return NULL;
          text = more;
          room *= 2;
        }
    }
  text[*length] = '\0';
  return g_steal_pointer (&text);
}

void
hpd_boot_grub_dropin_read (const char *root, HpdKernel *recorder, HpdBootGrubDropIn *dropin)
{
  g_autofree char *path = g_build_filename (root, HPD_BOOT_GRUB_DROPIN, NULL);
  struct stat st;
  int fd;

  memset (dropin, 0, sizeof *dropin);
  /* opened without following a link: the link's own state stands for
   * what was read */
  hpd_kernel_record_path (recorder, path, TRUE);
  fd = open (path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    {
      dropin->open_errno = errno != 0 ? errno : EIO;
      return;
    }
  if (fstat (fd, &st) == 0)
    {
      dropin->mode = st.st_mode;
      if (S_ISREG (st.st_mode))
        dropin->contents = read_whole (fd, st.st_size, &dropin->length);
    }
  close (fd);
}

void
hpd_boot_grub_dropin_clear (HpdBootGrubDropIn *dropin)
{
  g_clear_pointer (&dropin->contents, g_free);
}

gboolean
hpd_boot_grub_holds (const HpdBootGrubDropIn *dropin, const char *text)
{
  /* removing takes away whatever is there, a link included */
  if (text == NULL)
    return dropin->open_errno == ENOENT;
  return dropin->contents != NULL && dropin->length == strlen (text) &&
         memcmp (dropin->contents, text, dropin->length) == 0;
}

char *
hpd_boot_grub_shown (const char *root, HpdKernel *recorder, const HpdBootGrubDropIn *dropin)
{
  g_autofree char *dir = g_build_filename (root, HPD_BOOT_GRUB_DIR, NULL);
  struct stat st;

  hpd_kernel_record_path (recorder, dir, FALSE);
  /* the service may read what its caller could not: show only what
   * anybody could read for themselves */
  if (stat (dir, &st) != 0)
    {
      /* no grub.d (ConfigureBoot makes it), as anybody may see if they
       * may enter its parent */
      g_autofree char *parent = errno == ENOENT ? g_path_get_dirname (dir) : NULL;

      if (parent != NULL)
        hpd_kernel_record_path (recorder, parent, FALSE);
      if (parent != NULL && stat (parent, &st) == 0 && S_ISDIR (st.st_mode) &&
          (st.st_mode & S_IXOTH))
        return g_strdup ("");
      return NULL;
    }
  if (!S_ISDIR (st.st_mode) || !(st.st_mode & S_IXOTH))
    return NULL;
  /* that there is none anybody can see for themselves */
  if (dropin->open_errno != 0)
    return dropin->open_errno == ENOENT ? g_strdup ("") : NULL;
  if (dropin->contents == NULL || !(dropin->mode & S_IROTH) ||
      dropin->length > HPD_BOOT_GRUB_SHOWN_MAX)
    return NULL;
  /* a bus string ends at its first NUL and must be UTF-8 */
  return g_utf8_make_valid (dropin->contents, strlen (dropin->contents));
}

/* grub.d as a real directory: made when missing, never through a link. */
static gboolean
ensure_directory (const char *dir, GError **error)
{
  struct stat st;
  int saved_errno;

  if (lstat (dir, &st) == 0)
    {
      if (S_ISDIR (st.st_mode))
        return TRUE;
      g_set_error (error, HP_ERROR, HP_ERROR_FAILED,
                   "%s is not a directory; not writing through it", dir);
      return FALSE;
    }
  if (errno == ENOENT && hp_mkdir_with_parents (dir, 0755) == 0)
    return TRUE;
  saved_errno = errno;
  g_set_error (error, HP_ERROR, HP_ERROR_FAILED, "Could not create %s: %s",
               dir, g_strerror (saved_errno));
  return FALSE;
}

gboolean
hpd_boot_grub_write (const char *root, const char *text, gboolean *changed, GError **error)
{
  g_autofree char *dir = g_build_filename (root, HPD_BOOT_GRUB_DIR, NULL);
  g_autofree char *path = g_build_filename (root, HPD_BOOT_GRUB_DROPIN, NULL);

  *changed = FALSE;
  if (text == NULL)
    {
      /* the link itself if it is one, never what it points to */
      if (g_unlink (path) == 0)
        *changed = TRUE;
      else if (errno != ENOENT)
        {
          int saved_errno = errno;
          g_set_error (error, HP_ERROR, HP_ERROR_FAILED, "Could not remove %s: %s",
                       path, g_strerror (saved_errno));
          return FALSE;
        }
      remove_stale_temporaries (dir);
      return TRUE;
    }

  if (!ensure_directory (dir, error))
    return FALSE;
  /* asking twice leaves the file and its time alone */
  {
    g_auto(HpdBootGrubDropIn) now = { 0, };

    hpd_boot_grub_dropin_read (root, NULL, &now);
    if (hpd_boot_grub_holds (&now, text))
      return TRUE;
  }

  if (!hp_file_set_contents (path, text, -1,
                             G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                             0644, error))
    return FALSE;
  *changed = TRUE;
  remove_stale_temporaries (dir);
  return TRUE;
}

gboolean
hpd_boot_is_real_root (const char *root)
{
  g_autofree char *real = realpath (root, NULL);

  return real != NULL && g_str_equal (real, "/");
}

/* hpd_boot_run (): where the wait for the program ends, a timeout or a
 * cancel, and the program's output read to its end. */
typedef struct {
  GAsyncResult *result;
  gboolean stop;           /* timed out or cancelled */
} Run;

static void
communicated (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Run *run = user_data;

  run->result = g_object_ref (result);
}

static gboolean
stop_running (gpointer user_data)
{
  Run *run = user_data;

  run->stop = TRUE;
  return G_SOURCE_REMOVE;
}

static gboolean
stop_cancelled (GCancellable *cancellable, gpointer user_data)
{
  return stop_running (user_data);
}

/* In the child, before exec: its own process group, so that a stop also
 * reaches what it started (grub-mkconfig, os-prober); and the umask an
 * administrator's shell has, since update-grub decides its files' modes
 * itself and the service's own umask (the unit's 0077) is not meant for
 * them. */
static void
prepare_child (gpointer user_data)
{
  setpgid (0, 0);
  umask (022);
}

static char *
last_line (const char *output)
{
  g_autofree char *copy = g_strstrip (g_strdup (output != NULL ? output : ""));
  const char *nl = strrchr (copy, '\n');

  return g_strdup (nl != NULL ? nl + 1 : copy);
}

gboolean
hpd_boot_run (const char *const *argv, guint timeout_s, GCancellable *cancellable,
              GError **error)
{
  /* the daemon's own environment is not the program's business */
  const char *const environment[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", NULL };
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GCancellable) stop = g_cancellable_new ();
  g_autoptr(GSource) timeout = NULL;
  g_autoptr(GSource) cancelled = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *output = NULL;
  g_autofree char *line = NULL;
  gboolean ok, killed = FALSE;
  const char *identifier;
  pid_t group = 0;
  Run run = { NULL, FALSE };

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                        G_SUBPROCESS_FLAGS_STDERR_MERGE);
  g_subprocess_launcher_set_environ (launcher, (char **) environment);
  g_subprocess_launcher_set_cwd (launcher, "/");
  g_subprocess_launcher_set_child_setup (launcher, prepare_child, NULL, NULL);

  g_main_context_push_thread_default (context);
  process = g_subprocess_launcher_spawnv (launcher, argv, error);
  if (process == NULL)
    {
      g_main_context_pop_thread_default (context);
      return FALSE;
    }
  /* kept: the group outlives its leader while what it started runs. GLib's
   * worker thread may have reaped a quick child already, and then there is
   * no identifier (and no pid to kill) any more. */
  identifier = g_subprocess_get_identifier (process);
  if (identifier != NULL)
    group = (pid_t) g_ascii_strtoll (identifier, NULL, 10);

  g_subprocess_communicate_utf8_async (process, NULL, stop, communicated, &run);
  timeout = g_timeout_source_new_seconds (timeout_s);
  g_source_set_callback (timeout, stop_running, &run, NULL);
  g_source_attach (timeout, context);
  if (cancellable != NULL)
    {
      cancelled = g_cancellable_source_new (cancellable);
      g_source_set_callback (cancelled, G_SOURCE_FUNC (stop_cancelled), &run, NULL);
      g_source_attach (cancelled, context);
    }

  while (run.result == NULL && !run.stop)
    g_main_context_iteration (context, TRUE);
  if (run.result == NULL)
    {
      /* the group, the child itself in case it has not made the group
       * yet, then the reading */
      if (group > 0)
        kill (-group, SIGKILL);
      g_subprocess_force_exit (process);
      g_cancellable_cancel (stop);
      killed = TRUE;
      while (run.result == NULL)
        g_main_context_iteration (context, TRUE);
    }
  g_source_destroy (timeout);
  if (cancelled != NULL)
    g_source_destroy (cancelled);

  ok = g_subprocess_communicate_utf8_finish (process, run.result, &output, NULL, &local_error);
  g_clear_object (&run.result);
  /* reap it: killed, it exits at once */
  g_subprocess_wait (process, NULL, NULL);
  g_main_context_pop_thread_default (context);

  if (killed)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_FAILED, "%s was stopped after %s",
                   argv[0], g_cancellable_is_cancelled (cancellable)
                            ? "the service was asked to stop" : "running too long");
      return FALSE;
    }
  if (!ok)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_FAILED, "Could not read the output of %s: %s",
                   argv[0], local_error->message);
      return FALSE;
    }

  line = last_line (output);
  if (g_subprocess_get_if_signaled (process))
    {
      g_set_error (error, HP_ERROR, HP_ERROR_FAILED, "%s was killed by signal %d%s%s",
                   argv[0], g_subprocess_get_term_sig (process), *line ? ": " : "", line);
      return FALSE;
    }
  if (g_subprocess_get_exit_status (process) != 0)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_FAILED, "%s failed with exit status %d%s%s",
                   argv[0], g_subprocess_get_exit_status (process), *line ? ": " : "", line);
      return FALSE;
    }
  return TRUE;
}
