/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Writing the boot parameters for Debian's GRUB (and its derivatives):
 * grub-mkconfig, run by update-grub, sources every file ending in .cfg in
 * /etc/default/grub.d after /etc/default/grub. hugepagesd owns one
 * file there, hugepagesd.cfg, and touches nothing else: not
 * /etc/default/grub, not grub.cfg except through update-grub. Other boot
 * loaders and distributions are not written to (NotSupported). All paths
 * are below a root: "/" in production, a fake tree in tests, where
 * update-grub is never run. */
#pragma once

#include <sys/types.h>

#include <gio/gio.h>

#include "hpd-boot.h"
#include "hpd-kernel.h"

G_BEGIN_DECLS

#define HPD_BOOT_GRUB_DEFAULT   "etc/default/grub"
#define HPD_BOOT_GRUB_DIR       "etc/default/grub.d"
#define HPD_BOOT_GRUB_DROPIN    HPD_BOOT_GRUB_DIR "/hugepagesd.cfg"
#define HPD_BOOT_DEBIAN_VERSION "etc/debian_version"

/* update-grub with os-prober may take a while on a machine with many
 * disks; past this it is stopped and the call fails. */
#define HPD_BOOT_UPDATE_GRUB_TIMEOUT_S 300

/* Whether @root has Debian's GRUB setup: etc/debian_version, a regular
 * file etc/default/grub, and update-grub in usr/sbin or sbin (without it
 * nothing reads grub.d: /etc/default/grub stays behind when GRUB is
 * removed). Sets @update_grub to its path below @root. A NotSupported
 * error says what is missing. */
gboolean hpd_boot_grub_check (const char *root, char **update_grub, GError **error);

/* The drop-in for @params: a comment and GRUB_CMDLINE_LINUX appended to,
 * from integers and fixed words only. NULL when @params asks for nothing
 * (the drop-in is then removed). */
char *hpd_boot_grub_dropin_text (const HpdBootParams *params);

/* @root's drop-in as one read found it, the one read both the comparison
 * and the showing look at: opened without following a link (a FIFO or a
 * device without waiting), a regular file read whole. */
typedef struct {
  int open_errno;     /* why it could not be opened; 0: it was */
  mode_t mode;        /* the type and mode of what was opened */
  char *contents;     /* a regular file's bytes, NUL added; NULL: none, or the read failed */
  gsize length;       /* of @contents, without the NUL added */
} HpdBootGrubDropIn;

/* @recorder, if not NULL, records each path looked at
 * (hpd_kernel_record_path()), as does hpd_boot_grub_shown()'s. */
void hpd_boot_grub_dropin_read (const char *root, HpdKernel *recorder, HpdBootGrubDropIn *dropin);
void hpd_boot_grub_dropin_clear (HpdBootGrubDropIn *dropin);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (HpdBootGrubDropIn, hpd_boot_grub_dropin_clear)

/* Whether @dropin is what hpd_boot_grub_write () leaves alone: a regular
 * file holding exactly @text, or for NULL nothing at all. */
gboolean hpd_boot_grub_holds (const HpdBootGrubDropIn *dropin, const char *text);

/* @dropin's text, for showing it: only a regular file that every account
 * may read (the file and @root's grub.d), of at most
 * HPD_BOOT_GRUB_SHOWN_MAX bytes, as valid UTF-8 without NUL bytes (a bus
 * string); "" when there is none (nor grub.d) where every account may
 * look. NULL when it may not be shown. */
#define HPD_BOOT_GRUB_SHOWN_MAX 65536
char *hpd_boot_grub_shown (const char *root, HpdKernel *recorder, const HpdBootGrubDropIn *dropin);

/* Makes @root's drop-in hold @text, or removes it for NULL. grub.d is
 * created (0755) when missing, but must not be a symbolic link. The file
 * is replaced atomically and durably (never followed if it is a link), and
 * left alone when it already holds @text; @changed says whether the file
 * changed. Temporary files that an interrupted write of the drop-in left
 * behind are removed. */
gboolean hpd_boot_grub_write (const char *root, const char *text, gboolean *changed,
                              GError **error);

/* Whether @root is the real root, where update-grub may run. */
gboolean hpd_boot_is_real_root (const char *root);

/* Runs @argv (an absolute path first) in its own process group, stdin
 * /dev/null, with a fixed PATH and the C locale, for at most @timeout_s
 * seconds or until @cancellable is cancelled; then the whole group is
 * killed. An error when it cannot start, is stopped, or exits other than
 * 0: it names the exit status and the last line of its output. Blocks:
 * for the worker thread. */
gboolean hpd_boot_run (const char *const *argv, guint timeout_s, GCancellable *cancellable,
                       GError **error);

G_END_DECLS
