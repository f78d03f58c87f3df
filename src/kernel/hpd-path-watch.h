/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Whether anything changed at a set of paths since they were watched, told
 * by one poll() instead of a stat() of each path: for the read snapshot,
 * whose check runs in GDBus's worker thread at every call
 * (hpd-read-snapshot.h).
 *
 * inotify queues an event from inside the system call that makes the
 * change, before it returns to whoever made it, so a check after that
 * sees it. Anything stat() of a path would show as different is an event
 * of one of the watches below, each taken with IN_DONT_FOLLOW on a path
 * without symbolic links:
 * - the path itself, when it exists: its attributes and contents, and for
 *   a directory its entries (created, deleted, renamed, written);
 * - every directory on the way from / to it, or to the first part of the
 *   way that is missing: an entry created, deleted or renamed there (a
 *   directory that appears on the way, a replaced directory or link);
 *   not its mode, which does not stop a caller with CAP_DAC_OVERRIDE (as
 *   the service has) from going through;
 * - a symbolic link on the way, as stat() follows it: its own directory
 *   (above) and, taken in the same way, the path it points to with the
 *   rest of the way appended;
 * - the mount table, by poll() on /proc/self/mountinfo as in
 *   hpd-kernel.c: a mount over a part of the way changes what stat() sees
 *   without any inotify event.
 * Other entries of the directories on the way have events too: such a
 * change costs one call the slow way, never a stale one. Each watch ends
 * at its first event (IN_ONESHOT), so what waits in the kernel for the
 * next call is one event per watch at most. Only root may add, remove or
 * rename entries of the directories on the way to the service's own
 * paths (/, /etc, /run, /usr/lib) or change those paths, so no other
 * account can make calls go the slow way. A path from elsewhere (a mount's
 * root may be anywhere) is watched with HPD_PATH_WATCH_ROOT_WAY, which
 * refuses a way through a directory another account may change.
 *
 * inotify does not see changes a network or FUSE file system makes on its
 * server's side, so a path on any file system not known to be local is
 * refused. A refused path, or inotify out of instances or watches, fails
 * hpd_path_watch_add(): the caller then checks that path by other means.
 * The paths added before it stay watched: a failed add may leave watches
 * of part of its way, which can only report more changes, never fewer. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _HpdPathWatch HpdPathWatch;

/* NULL with @error if inotify or the mount table cannot be opened. */
HpdPathWatch *hpd_path_watch_new (GError **error);
void hpd_path_watch_free (HpdPathWatch *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HpdPathWatch, hpd_path_watch_free)

typedef enum {
  HPD_PATH_WATCH_NONE = 0,
  /* refuse a way through a directory whose entries an account other than
   * root may change: its every change would be a change of the path */
  HPD_PATH_WATCH_ROOT_WAY = 1 << 0,
} HpdPathWatchFlags;

/* Watches absolute @path as above; FALSE with @error if it cannot be (then
 * @path is not watched, the paths added before are). */
gboolean hpd_path_watch_add (HpdPathWatch *self, const char *path, HpdPathWatchFlags flags,
                             GError **error);

/* Nothing happened to any path added, nor to the mount table, since it
 * was added; once FALSE, FALSE for good. Any thread, one at a time. */
gboolean hpd_path_watch_unchanged (HpdPathWatch *self);

G_END_DECLS
