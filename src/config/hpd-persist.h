/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The `persist` option of every change: the service keeps the changes it
 * was asked to persist in one drop-in of its own,
 * /etc/hugepagesd/hugepagesd.conf.d/90-persisted.conf, rewritten whole and
 * atomically (temporary file, fsync, rename, fsync of the directory), so a
 * crash at any moment leaves the old file or the new one. The content comes
 * from the parsed configuration in canonical form, never from caller text. */
#pragma once

#include <glib.h>

#include "hpd-config.h"

G_BEGIN_DECLS

#define HPD_PERSIST_FILE_NAME "90-persisted.conf"

/* Changes @config the way a persisted call asks. Called twice: on the
 * service's own drop-in, and on the whole configuration to tell whether a
 * later file overrides the change. */
typedef gboolean (*HpdPersistEdit) (HpdConfig *config, gpointer data, GError **error);

/* Applies @edit to the service's drop-in under @root and writes it. Fails
 * (Failed) when the file cannot be written, and also after writing when the
 * whole configuration does not come out as the edit says (a drop-in sorted
 * later sets the same keys, or the main file's node counts decide the
 * pool): the change would not survive a reboot, and the caller must hear
 * that. */
gboolean hpd_persist (const char *root, HpdPersistEdit edit, gpointer data, GError **error);

/* The common edit: merge @snippet (configuration text the caller built from
 * numbers and fixed words) into the file. */
gboolean hpd_persist_text (const char *root, const char *snippet, GError **error);

/* The merge hpd_persist_text does, for edits that also remove something. */
gboolean hpd_persist_merge (HpdConfig *config, const char *snippet, GError **error);

/* Removes the temporary files a crash in the middle of a write left. */
void hpd_persist_remove_stale (const char *root);

/* The path of the service's drop-in under @root. */
char *hpd_persist_path (const char *root);

G_END_DECLS
