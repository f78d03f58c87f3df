/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The one place where kernel files are named, read and written. Every path
 * is relative to a root ("/" in production, a fake tree in tests and
 * simulations) chosen once on the command line. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define HPD_TYPE_KERNEL (hpd_kernel_get_type ())
G_DECLARE_FINAL_TYPE (HpdKernel, hpd_kernel, HPD, KERNEL, GObject)

HpdKernel *hpd_kernel_new (const char *root);
const char *hpd_kernel_get_root (HpdKernel *self);

/* @relative is a path below the root such as "proc/meminfo". */
char *hpd_kernel_path (HpdKernel *self, const char *relative);
gboolean hpd_kernel_exists (HpdKernel *self, const char *relative);

gboolean hpd_kernel_read_text (HpdKernel *self, const char *relative,
                               char **contents, GError **error);
gboolean hpd_kernel_read_counter (HpdKernel *self, const char *relative,
                                  guint64 *value, GError **error);

/* For a file whose part the caller uses is fixed when the kernel boots
 * (the pageblock order at the top of proc/pagetypeinfo, which costs a walk
 * over all of memory to read): sysfs and procfs files are read once; any
 * other file (a fake tree) as by hpd_kernel_read_text. */
gboolean hpd_kernel_read_fixed_at_boot (HpdKernel *self, const char *relative,
                                        char **contents, GError **error);

/* The target of the symbolic link @relative (a namespace link such as
 * proc/self/ns/mnt reads as "mnt:[4026531840]"). */
gboolean hpd_kernel_read_link (HpdKernel *self, const char *relative,
                               char **target, GError **error);

/* Writes "%lu\n" in a single write() and checks that all of it was taken.
 * The caller re-reads: the kernel often accepts less than was written. */
gboolean hpd_kernel_write_counter (HpdKernel *self, const char *relative,
                                   guint64 value, GError **error);

/* Writes "@text\n" in a single write() (THP keywords). */
gboolean hpd_kernel_write_text (HpdKernel *self, const char *relative,
                                const char *text, GError **error);

/* Names in a directory below the root (for hugepages-*kB), sorted. */
GPtrArray *hpd_kernel_list_dir (HpdKernel *self, const char *relative,
                                GError **error);

G_END_DECLS
