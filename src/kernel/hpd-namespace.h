/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Whether the service's mounts reach the rest of the system. A unit with
 * ProtectSystem=, PrivateTmp=, ReadWritePaths= and many other settings
 * runs the service in a mount namespace of its own: a hugetlbfs mount made
 * there is invisible to every other process and goes away with the
 * service, while the call reports success. The check compares the
 * service's mount namespace with PID 1's, read below the kernel root so
 * that a fake tree can stand for either answer. */
#pragma once

#include "hpd-kernel.h"

G_BEGIN_DECLS

typedef enum {
  HPD_MOUNT_NS_SHARED,    /* PID 1's: mounts are seen system-wide */
  HPD_MOUNT_NS_PRIVATE,   /* another one: mounts stay in it */
  HPD_MOUNT_NS_UNKNOWN,   /* could not be compared */
} HpdMountNs;

/* Compares <root>/proc/self/ns/mnt with <root>/proc/1/ns/mnt (their link
 * targets, "mnt:[4026531840]"). Where PID 1's link cannot be read (root
 * without a capability PID 1 holds may not ptrace-read it) it compares
 * the mount ID of "/" in <root>/proc/self/mountinfo and
 * <root>/proc/1/mountinfo instead: unshare(CLONE_NEWNS) copies every
 * mount with a new ID. @detail says what was compared, for the log and
 * Explain. */
HpdMountNs hpd_mount_ns_check (HpdKernel *kernel, char **detail);

G_END_DECLS
