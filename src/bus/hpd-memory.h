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

typedef struct _HpdMemory HpdMemory;

/* Lets go of what the service keeps only to answer the next call faster
 * and can make again when one comes. */
typedef void (*HpdMemoryReleaseFunc) (gpointer user_data);

/* Once the calls @traffic sees have stopped for a moment (no call in and
 * no reply out for a couple of seconds), and once that long after start-up,
 * calls @release from the main context, empties the main thread's cache
 * of freed blocks (hpd-allocators.h), then returns every whole page of
 * freed memory to the kernel (malloc_trim()).
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
