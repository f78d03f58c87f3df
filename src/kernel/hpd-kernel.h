/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The one place where kernel files are named, read and written. Every path
 * is relative to a root ("/" in production, a fake tree in tests and
 * simulations) chosen once on the command line. */
#pragma once

#include <glib-object.h>

#include "hpd-path-watch.h"

G_BEGIN_DECLS

#define HPD_TYPE_KERNEL (hpd_kernel_get_type ())
G_DECLARE_FINAL_TYPE (HpdKernel, hpd_kernel, HPD, KERNEL, GObject)

HpdKernel *hpd_kernel_new (const char *root);
const char *hpd_kernel_get_root (HpdKernel *self);

/* Closes the kernel files kept open between reads; the next read of each
 * opens it again. An open sysfs file holds a page of kernel memory from
 * its first read to its close, charged to the service: worth it while
 * calls come, not while nobody reads. Read snapshots' checkers keep their
 * own descriptors until their snapshot is let go. */
void hpd_kernel_close_kept_files (HpdKernel *self);

/* @relative is a path below the root such as "proc/meminfo". */
char *hpd_kernel_path (HpdKernel *self, const char *relative);
gboolean hpd_kernel_exists (HpdKernel *self, const char *relative);

gboolean hpd_kernel_read_text (HpdKernel *self, const char *relative,
                               char **contents, GError **error);
/* What of a file's text a reader's values depend on, made from the text
 * (proc/meminfo's sizes, the zones proc/buddyinfo lists): a read snapshot
 * (hpd_kernel_record_begin()) compares only that, as the rest changes all
 * the time. A newly allocated string. */
typedef char *(*HpdKernelPart) (const char *text);
/* As hpd_kernel_read_text(), for a reader whose values depend on @part
 * of the text only. */
gboolean hpd_kernel_read_text_part (HpdKernel *self, const char *relative, HpdKernelPart part,
                                    char **contents, GError **error);
gboolean hpd_kernel_read_counter (HpdKernel *self, const char *relative,
                                  guint64 *value, GError **error);

/* For a file whose part the caller uses is fixed when the kernel boots
 * (the pageblock order at the top of proc/pagetypeinfo, which costs a walk
 * over all of memory to read): sysfs and procfs files are read once; any
 * other file (a fake tree) as by hpd_kernel_read_text. */
gboolean hpd_kernel_read_fixed_at_boot (HpdKernel *self, const char *relative,
                                        char **contents, GError **error);

/* Whether a file the kernel makes at boot or never exists (a sysctl, an
 * mTHP size's files): on sysfs and procfs looked up once, and never a
 * read snapshot's input; any other file (a fake tree) as by
 * hpd_kernel_exists(). */
gboolean hpd_kernel_exists_fixed_at_boot (HpdKernel *self, const char *relative);

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

/* As hpd_kernel_list_dir(), for a directory whose entries the kernel fixes
 * at boot (the mTHP sizes below transparent_hugepage): a sysfs or procfs
 * directory is listed once, any other (a fake tree) at every call. */
GPtrArray *hpd_kernel_list_dir_fixed_at_boot (HpdKernel *self, const char *relative,
                                              GError **error);

/* Values made from kernel files, shared for the rest of one main loop turn
 * by the reads of the thread that runs the main loop (hpd-fresh.h: every
 * call dispatched in a turn arrived before its first read began). Every
 * hpd_kernel_read_*() uses it for the file's contents; a caller keeps what
 * it made from them (parsed mounts) under a key that starts with ':'.
 * Elsewhere (worker threads, tests without a main loop) lookups find
 * nothing and nothing is stored. A write through hpd_kernel_write_*() from
 * any thread ends the turn's values.
 *
 * Take hpd_kernel_get_writes() before reading and pass it to the store,
 * which owns @data from then on (freeing it at once when it cannot keep
 * it). The lookup's value is borrowed until the next store or turn. */
gconstpointer hpd_kernel_turn_lookup (HpdKernel *self, const char *key);
gint hpd_kernel_get_writes (HpdKernel *self);
gboolean hpd_kernel_turn_store (HpdKernel *self, const char *key, gint writes,
                                gpointer data, GDestroyNotify destroy);

/* What the reads of one thread gave between begin and end, to tell later,
 * from any thread, whether reading again gives the same: every file read
 * through hpd_kernel_read_text/_counter (a value of the turn included, as
 * it is what the reader used), every hpd_kernel_exists(),
 * hpd_kernel_list_dir() and hpd_kernel_read_link(); not what the kernel
 * fixes at boot. While recording, the values a caller keeps under a ':' key
 * are not found, so that it makes them again from recorded reads. NULL
 * from the end when a read failed or a kernel file
 * was written through the service in between. The checker reads with
 * descriptors of its own (kept open on sysfs and procfs, a poll() of its
 * own mountinfo) and is used by one thread at a time. */
typedef struct _HpdKernelInputs HpdKernelInputs;
void hpd_kernel_record_begin (HpdKernel *self);
HpdKernelInputs *hpd_kernel_record_end (HpdKernel *self);

/* The files of the root that are no kernel files (the boot hook's unit
 * links and init scripts, the GRUB drop-in, a mount's root directory) are
 * read where they are used; the reader names here each path whose stat()
 * (lstat() if @link) stands for what it read: a file's contents, a
 * directory's listing, a link's target, a mode. Such a state tells a later
 * change only once its times have settled (hpd_kernel_inputs_settled()).
 * Absolute paths; nothing happens unless this thread records, or for a
 * NULL @self (a reader nobody records). */
void hpd_kernel_record_path (HpdKernel *self, const char *path, gboolean link);
/* A value was made from what no check can read again (the user and group
 * databases, which may come from the network): the record ends in NULL. */
void hpd_kernel_record_unchecked (HpdKernel *self);
/* Every path's times were older than @settle_us when recording began
 * (hpd_stat_state_settled()). */
gboolean hpd_kernel_inputs_settled (HpdKernelInputs *inputs, gint64 settle_us);
/* Hands each path of hpd_kernel_record_path() that @watch can take
 * (hpd_path_watch_add() with HPD_PATH_WATCH_ROOT_WAY) over to it, so that
 * hpd_kernel_inputs_unchanged() no longer stat()s it: one poll() of
 * @watch, checked beside, tells instead. A path whose state already moved
 * stays, and fails the next check. @watched and @left: how many paths
 * went to @watch and how many stay to be stat()ed. */
void hpd_kernel_inputs_watch_paths (HpdKernelInputs *inputs, HpdPathWatch *watch,
                                    guint *watched, guint *left);
gboolean hpd_kernel_inputs_unchanged (HpdKernelInputs *inputs);
guint hpd_kernel_inputs_count (HpdKernelInputs *inputs);
void hpd_kernel_inputs_free (HpdKernelInputs *inputs);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HpdKernelInputs, hpd_kernel_inputs_free)

G_END_DECLS
