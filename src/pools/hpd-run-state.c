/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "hp-files.h"
#include "hpd-run-state.h"

/* Only the service reads these files: they are its own, whatever the
 * umask it was started with (the unit's UMask=0077, or 022 from a shell or
 * an init script). */
#define FILE_MODE 0600
/* The directory is the service's runtime directory, which systemd makes
 * 0755 (RuntimeDirectory=) and which also holds the runtime claims,
 * claims.d, made readable by all (hpd-claims.c): where no service manager
 * made it, it gets the same mode, whoever makes it first. */
#define DIR_MODE 0755

struct _HpdRunState
{
  char *path;
  /* the keys; readers take only this lock, which no one holds across a
   * file write */
  GMutex lock;
  GKeyFile *file;
  /* taken before @lock by writers and held across their file write, so
   * that the files are written in the order of the changes */
  GMutex save_lock;
};

static GKeyFile *
load (const char *path)
{
  GKeyFile *file = g_key_file_new ();
  g_autoptr(GError) error = NULL;

  if (!g_key_file_load_from_file (file, path, G_KEY_FILE_NONE, &error) &&
      !g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    g_debug ("Ignoring %s: %s", path, error->message);
  return file;
}

HpdRunState *
hpd_run_state_new (const char *root, const char *relative)
{
  HpdRunState *self = g_new0 (HpdRunState, 1);

  self->path = g_build_filename (root, relative, NULL);
  g_mutex_init (&self->lock);
  g_mutex_init (&self->save_lock);
  self->file = load (self->path);
  return self;
}

void
hpd_run_state_free (HpdRunState *self)
{
  if (self == NULL)
    return;
  g_key_file_unref (self->file);
  g_mutex_clear (&self->save_lock);
  g_mutex_clear (&self->lock);
  g_free (self->path);
  g_free (self);
}

GKeyFile *
hpd_run_state_lock (HpdRunState *self)
{
  g_mutex_lock (&self->lock);
  return self->file;
}

void
hpd_run_state_unlock (HpdRunState *self)
{
  g_mutex_unlock (&self->lock);
}

/* The whole of @text into @fd. */
static gboolean
write_all (int fd, const char *text, gsize length)
{
  while (length > 0)
    {
      ssize_t n = write (fd, text, length);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      text += n;
      length -= (gsize) n;
    }
  return TRUE;
}

/* Replaces @path with @text; failures are logged naming @what. */
static void
save (const char *path, const char *text, gsize length, const char *what)
{
  g_autofree char *temporary = g_strconcat (path, ".XXXXXX", NULL);
  int fd, e;

  /* g_file_set_contents () would fsync the new file before the rename
   * whenever the old one is not empty, even without DURABLE */
  fd = g_mkstemp_full (temporary, O_WRONLY | O_CLOEXEC, FILE_MODE);
  /* the directory goes with /run at reboot: made by the first save after
   * it, not looked for before every save */
  if (fd < 0 && errno == ENOENT)
    {
      g_autofree char *dir = g_path_get_dirname (path);

      if (hp_mkdir_with_parents (dir, DIR_MODE) < 0)
        {
          e = errno;
          g_warning ("Cannot create %s: %s", dir, g_strerror (e));
          return;
        }
      g_free (temporary);
      temporary = g_strconcat (path, ".XXXXXX", NULL);
      fd = g_mkstemp_full (temporary, O_WRONLY | O_CLOEXEC, FILE_MODE);
    }
  if (fd < 0)
    {
      e = errno;
      g_warning ("Cannot remember %s: %s: %s", what, temporary, g_strerror (e));
      return;
    }
  if (!write_all (fd, text, length))
    {
      e = errno;
      close (fd);
      unlink (temporary);
      g_warning ("Cannot remember %s: %s: %s", what, temporary, g_strerror (e));
      return;
    }
  if (close (fd) < 0 || rename (temporary, path) < 0)
    {
      e = errno;
      unlink (temporary);
      g_warning ("Cannot remember %s: %s: %s", what, path, g_strerror (e));
    }
}

GKeyFile *
hpd_run_state_begin (HpdRunState *self)
{
  g_mutex_lock (&self->save_lock);
  g_mutex_lock (&self->lock);
  return self->file;
}

void
hpd_run_state_commit (HpdRunState *self, const char *what)
{
  gsize length;
  g_autofree char *text = g_key_file_to_data (self->file, &length, NULL);

  g_mutex_unlock (&self->lock);
  save (self->path, text, length, what);
  g_mutex_unlock (&self->save_lock);
}
