/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Files and directories made with the mode their readers need, whatever
 * the umask.
 *
 * The units run with UMask=0077, so that whatever the service, GLib or a
 * child creates without saying otherwise stays root's alone. What others
 * must read or walk through (the configuration, claims, the GRUB drop-in,
 * the directories above a mount point, the metrics file) gets its mode
 * here, explicitly, after creation. */
#pragma once

#include <gio/gio.h>
#include <sys/types.h>

G_BEGIN_DECLS

/* g_mkdir_with_parents (), but each directory it creates has exactly
 * @mode. 0, or -1 with errno set. */
int hp_mkdir_with_parents (const char *path, mode_t mode);

/* g_file_set_contents_full (), and the file then has exactly @mode. The
 * file is private while it is written: the umask can only narrow @mode. */
gboolean hp_file_set_contents (const char *path, const char *contents, gssize length,
                               GFileSetContentsFlags flags, mode_t mode, GError **error);

/* Gives the file or directory behind @fd, which may be an O_PATH
 * descriptor, exactly @mode. 0, or -1 with errno set. */
int hp_chmod_fd (int fd, mode_t mode);

G_END_DECLS
