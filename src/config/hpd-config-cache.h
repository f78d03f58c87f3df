/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The configuration, parsed once and kept while its files stay the same.
 * Properties (ConfiguredState, Drift, ConfigurationErrors, BootParameters)
 * are read far more often than an administrator edits the files, and
 * reading and parsing them on every read cost milliseconds.
 *
 * Valid while stat() of the main file, of both drop-in directories and of
 * every drop-in found in them gives what it gave when they were read:
 * device, inode, type and mode, size, and modification and change times to
 * the nanosecond (an error such as ENOENT counts as a state too). A drop-in
 * that appears, goes or is renamed changes its directory's times; an edit,
 * even to the same size, changes the file's; an editor's rename-over
 * changes the inode. Paths are looked up again each time, so a replaced
 * directory or symbolic link on the way is seen as well.
 *
 * Timestamps have a granularity (the kernel stamps files from a clock that
 * ticks every few milliseconds; some file systems keep whole seconds), so a
 * second edit within the same tick as the one before, to the same size,
 * could leave everything equal. Hence the rule git uses for its index: a
 * state is only trusted once every time in it is older than
 * HPD_CONFIG_SETTLE_US before the moment it was taken. Until then the
 * files are read again on every call, which costs what it always did.
 *
 * Main thread only. */
#pragma once

#include "hpd-config.h"
#include "hpd-stat-state.h"

G_BEGIN_DECLS

/* Longer than any timestamp granularity of a Linux file system in use for
 * /etc (whole seconds on ext3 with small inodes; 2 s on FAT). The claims'
 * cache (hpd-claims.h) is given it too. */
#define HPD_CONFIG_SETTLE_US (3 * G_USEC_PER_SEC)

typedef struct _HpdConfigCache HpdConfigCache;

/* For the configuration below @root, as hpd_config_load_root() reads it.
 * @settle_us: HPD_CONFIG_SETTLE_US (tests choose others). */
HpdConfigCache *hpd_config_cache_new (const char *root, gint64 settle_us);
void hpd_config_cache_free (HpdConfigCache *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HpdConfigCache, hpd_config_cache_free)

/* The configuration as hpd_config_load_root() would read it now; owned by
 * the cache and valid until the next call. @generation (may be NULL)
 * changes whenever the files were read anew. */
const HpdConfig *hpd_config_cache_get (HpdConfigCache *self, guint64 *generation);

/* The paths and states the configuration kept now depends on (an array of
 * HpdStatPath), or NULL when the cache does not trust them (it reads the
 * files at every call). */
GArray *hpd_config_cache_dup_paths (HpdConfigCache *self);

/* For tests: how many calls read the files. */
guint64 hpd_config_cache_get_loads (HpdConfigCache *self);

G_END_DECLS
