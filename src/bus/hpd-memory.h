/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Giving memory back after a flood. GDBus turns every message into a tree
 * of GVariants before any handler sees it: a 20 MB a{sv} of a million
 * entries took over 500 MB in its reader thread. The handler refuses it at
 * once, but GLib's slice allocator (before 2.76) and glibc keep the freed
 * memory, so the service would stay that large (and near the unit's
 * MemoryMax) for the rest of its life. */
#pragma once

#include <gio/gio.h>

#include "hpd-traffic.h"

G_BEGIN_DECLS

/* Sets up the allocators so that what a burst of calls freed can be given
 * back. Call it from the program's .preinit_array, which the dynamic
 * linker runs before any library's constructor and before any thread
 * exists (main.c):
 * - glibc's malloc gets one arena for every thread and takes large blocks
 *   from mmap() at a fixed threshold (the why in hpd-memory.c), each
 *   unless @envp sets that tunable itself (GLIBC_TUNABLES, MALLOC_*); its
 *   per-thread cache of freed blocks can only be turned off in the
 *   environment, which the unit does;
 * - before GLib 2.76 GVariants come from GSlice, which never gives memory
 *   back: GSlice is made to use malloc, unless G_SLICE is set in @envp.
 *   GSlice reads its configuration once, when GLib's own constructor
 *   first allocates (before main(), so setting G_SLICE in main() is too
 *   late). */
void hpd_memory_tune_allocators (char **envp);

/* Gives the freed blocks glibc keeps for the calling thread's next
 * allocations (its tcache) back to the heap, where malloc_trim() can
 * return their pages (the how in hpd-memory.c). Starts and joins a thread. */
void hpd_memory_empty_thread_cache (void);

typedef struct _HpdMemory HpdMemory;

/* Lets go of what the service keeps only to answer the next call faster
 * and can make again when one comes. */
typedef void (*HpdMemoryReleaseFunc) (gpointer user_data);

/* Once the calls @traffic sees have stopped for a moment (no call in and
 * no reply out for a couple of seconds), and once that long after start-up,
 * calls @release from the main context, empties the main thread's cache
 * of freed blocks, then returns every whole page of freed memory to the
 * kernel (malloc_trim()).
 * Driven by the calls only: an idle service is never woken. */
HpdMemory *hpd_memory_watch (HpdTraffic *traffic, HpdMemoryReleaseFunc release,
                             gpointer user_data);
/* Runs the check once more when a quiet period from now has passed with
 * no call, as after a burst: for what @release keeps while somebody
 * watches. */
void hpd_memory_check_later (HpdMemory *self);
/* Stops watching; no check runs after this. */
void hpd_memory_free (HpdMemory *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HpdMemory, hpd_memory_free)

G_END_DECLS
