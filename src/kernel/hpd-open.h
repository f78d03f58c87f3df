/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Opening a path that somebody else may own part of (a mount point below a
 * user's directory, a mount table entry) without following any symbolic
 * or magic link on the way: the one helper for it. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Opens the absolute @path with @flags (O_CLOEXEC is added) when no
 * component of it, the last included, is a symbolic link or a /proc magic
 * link. openat2() with RESOLVE_NO_SYMLINKS does it in one call; where that
 * system call is missing (kernels before 5.6, valgrind before 3.20) the
 * path is walked one component at a time with O_NOFOLLOW. Returns the
 * file descriptor, or -1 with errno set (ELOOP for a link). */
int hpd_open_no_links (const char *path, int flags);

/* The same, always one component at a time with O_NOFOLLOW (a link fails
 * with ELOOP as with openat2()): the fallback, and what the unit tests
 * check against openat2(). */
int hpd_open_no_links_walk (const char *path, int flags);

G_END_DECLS
