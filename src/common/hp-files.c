/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "hp-files.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int
hp_chmod_fd (int fd, mode_t mode)
{
  /* fchmod () refuses O_PATH descriptors; the descriptor's link in /proc
   * reaches the same inode, whatever has been renamed since it was opened */
  g_autofree char *link = g_strdup_printf ("/proc/self/fd/%d", fd);

  return chmod (link, mode);
}

/* Gives @path, made a moment ago by this process in a directory only root
 * may write to, exactly @mode, without following a link put in its place. */
static int
chmod_made (const char *path, int type_flag, mode_t mode)
{
  int fd = open (path, O_PATH | O_NOFOLLOW | O_CLOEXEC | type_flag);
  int result, saved_errno;

  if (fd < 0)
    return -1;
  result = hp_chmod_fd (fd, mode);
  saved_errno = errno;
  close (fd);
  errno = saved_errno;
  return result;
}

int
hp_mkdir_with_parents (const char *path, mode_t mode)
{
  g_autofree char *copy = NULL;
  char *end;

  if (path == NULL || *path == '\0')
    {
      errno = EINVAL;
      return -1;
    }
  copy = g_strdup (path);
  /* each component in turn, the last one included; "a//b" and a trailing
   * slash make no empty name */
  end = copy;
  do
    {
      char saved;
      struct stat st;

      end += strspn (end, "/");
      end += strcspn (end, "/");
      saved = *end;
      *end = '\0';
      if (mkdir (copy, mode) == 0)
        {
          if (chmod_made (copy, O_DIRECTORY, mode) < 0)
            return -1;
        }
      else if (errno != EEXIST)
        return -1;
      else if (stat (copy, &st) < 0)
        return -1;
      else if (!S_ISDIR (st.st_mode))
        {
          errno = ENOTDIR;
          return -1;
        }
      *end = saved;
    }
  while (*end != '\0' && end[strspn (end, "/")] != '\0');
  return 0;
}

gboolean
hp_file_set_contents (const char *path, const char *contents, gssize length,
                      GFileSetContentsFlags flags, mode_t mode, GError **error)
{
  if (!g_file_set_contents_full (path, contents, length, flags, mode, error))
    return FALSE;
  if (chmod_made (path, 0, mode) < 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   "Cannot set the mode of %s: %s", path, g_strerror (saved_errno));
      return FALSE;
    }
  return TRUE;
}
