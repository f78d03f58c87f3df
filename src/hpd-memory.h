/* Giving memory back after a flood. GDBus turns every message into a tree
 * of GVariants before any handler sees it: a 20 MB a{sv} of a million
 * entries took over 500 MB in its reader thread. The handler refuses it at
 * once, but GLib's slice allocator (before 2.76) and glibc keep the freed
 * memory, so the service would stay that large (and near the unit's
 * MemoryMax) for the rest of its life. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Before GLib 2.76 GVariants come from GSlice, which never gives memory
 * back. G_SLICE=always-malloc must be set before GLib initializes, that is
 * before the program starts: when it is not set, this sets it and executes
 * the program again (same pid, same arguments). Call it first in main(). */
void hpd_memory_prefer_malloc (char **argv);

/* Checks every few seconds, from the main loop, how much freed memory
 * malloc holds, and returns it to the kernel when that is a lot. Returns
 * the source id, for g_source_remove(). */
guint hpd_memory_watch (void);

G_END_DECLS
