/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Small key files under /run/hugepagesd that outlive an idle exit or a
 * restart of the service and go at reboot (hpd-requested.h,
 * hpd-last-alloc.h, which give the keys their meaning). A store holds one
 * of them in memory: the file is read once, when the store is made, and
 * written on every change, so that a change does not read it back before
 * replacing it and lookups never touch the disk. A file changed behind the
 * running service's back counts from its next start.
 *
 * Files are replaced atomically (a rename), so a reader never sees half a
 * file (a crash leaves at most a NAME.XXXXXX beside it), but not durably:
 * no fsync, which would make every pool change wait for a disk flush
 * (where /run is not a tmpfs) to keep a file that the next boot drops
 * anyway. Only the service reads them: they are 0600, whatever the umask;
 * the directory it makes for them, where none is, is 0755, as systemd
 * makes the runtime directory (hpd-run-state.c). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _HpdRunState HpdRunState;

/* The store of @relative below @root: empty where the file is missing or
 * unreadable (logged at debug level). */
HpdRunState *hpd_run_state_new (const char *root, const char *relative);
void hpd_run_state_free (HpdRunState *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HpdRunState, hpd_run_state_free)

/* The key file for reading, until hpd_run_state_unlock (): never held
 * across a file write, so a lookup does not wait for a save. Any thread. */
GKeyFile *hpd_run_state_lock (HpdRunState *self);
void hpd_run_state_unlock (HpdRunState *self);

/* The key file for changing, until hpd_run_state_commit (), which saves
 * it. Changes are saved one after the other, each with the key file as
 * its change left it, so the last file written holds the last change.
 * Failures to save are logged as warnings naming @what, not returned:
 * these files are hints, the change they describe is made and kept in
 * memory. Any thread. */
GKeyFile *hpd_run_state_begin (HpdRunState *self);
void hpd_run_state_commit (HpdRunState *self, const char *what);

G_END_DECLS
