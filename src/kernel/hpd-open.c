/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hpd-open.h"

/* Whether @name below @dir_fd is a symbolic link. */
static gboolean
is_link_at (int dir_fd, const char *name)
{
  struct stat st;

  return fstatat (dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK (st.st_mode);
}

int
hpd_open_no_links_walk (const char *path, int flags)
{
  g_auto(GStrv) parts = NULL;
  int fd, last = -1;

  if (path == NULL || path[0] != '/')
    {
      errno = EINVAL;
      return -1;
    }
  parts = g_strsplit (path, "/", -1);
  for (int i = 0; parts[i] != NULL; i++)
    if (parts[i][0] != '\0')
      last = i;
  if (last < 0)
    return open ("/", flags | O_CLOEXEC);

  fd = open ("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  for (int i = 0; fd >= 0 && i <= last; i++)
    {
      int next, saved_errno;

      if (parts[i][0] == '\0')
        continue;
      next = openat (fd, parts[i], (i == last ? flags : O_PATH | O_DIRECTORY) | O_NOFOLLOW | O_CLOEXEC);
      saved_errno = errno;
      if (next < 0 && saved_errno == ENOTDIR && is_link_at (fd, parts[i]))
        saved_errno = ELOOP;
      close (fd);
      errno = saved_errno;
      fd = next;
    }
  /* O_PATH | O_NOFOLLOW opens a final link itself instead of refusing it */
  if (fd >= 0 && (flags & O_PATH))
    {
      struct stat st;

      if (fstat (fd, &st) < 0 || S_ISLNK (st.st_mode))
        {
          close (fd);
          errno = ELOOP;
          return -1;
        }
    }
  return fd;
}

int
hpd_open_no_links (const char *path, int flags)
{
  struct open_how how = {
    .flags = (guint64) (flags | O_CLOEXEC),
    .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
  };
  long fd;

  if (path == NULL || path[0] != '/')
    {
      errno = EINVAL;
      return -1;
    }
  fd = syscall (SYS_openat2, AT_FDCWD, path, &how, sizeof how);
  if (fd >= 0 || errno != ENOSYS)
    return (int) fd;
  return hpd_open_no_links_walk (path, flags);
}
