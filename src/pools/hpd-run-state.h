/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Small key files under /run/hugepagesd that outlive an idle exit or a
 * restart of the service and go at reboot (hpd-requested.h,
 * hpd-last-alloc.h). They are replaced atomically (a rename), so a reader
 * never sees half a file (a crash leaves at most a NAME.XXXXXX beside it),
 * but not durably: no fsync, which would make every pool change wait for a
 * disk flush (where /run is not a tmpfs) to keep a file that the next boot
 * drops anyway. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* @relative below @root; an empty key file where it is missing or
 * unreadable (logged at debug level). */
GKeyFile *hpd_run_state_load (const char *root, const char *relative);

/* Failures are logged as warnings naming @what, not returned: these files
 * are hints, the change they describe is made. */
void hpd_run_state_save (const char *root, const char *relative, GKeyFile *file,
                         const char *what);
/* The same with the key file's text (g_key_file_to_data ()). */
void hpd_run_state_save_data (const char *root, const char *relative, const char *text,
                              gsize length, const char *what);

G_END_DECLS
