/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The boot side of org.hugepages.Manager: what the BootParameters,
 * KernelCommandLine and RebootRequired properties say (also for Explain),
 * and the ConfigureBoot method, which writes BootParameters for the boot
 * loader (hpd-boot-grub.h) in the worker, after authorization
 * (org.hugepages.manager.configure-boot). */
#pragma once

#include <gio/gio.h>

#include "hpd-boot.h"
#include "hpd-methods.h"

G_BEGIN_DECLS

typedef struct _HpdDaemon HpdDaemon;

typedef struct {
  HpdBootParams *wanted;      /* from the configuration files, read now */
  GPtrArray *problems;        /* what of them cannot be used, "FILE:LINE: text" */
  char *boot_parameters;      /* BootParameters */
  char *kernel_command_line;  /* KernelCommandLine: the huge page subset */
  gboolean reboot_required;   /* RebootRequired */
} HpdBootState;

/* Compares @config (NULL: read it from below the service's root) with the
 * running kernel's proc/cmdline (none: as if empty). */
void hpd_boot_state_read (HpdDaemon *daemon, const HpdConfig *config, HpdBootState *state);
void hpd_boot_state_clear (HpdBootState *state);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (HpdBootState, hpd_boot_state_clear)

/* BootDropIn: the GRUB drop-in ConfigureBoot writes for @state, and
 * whether the one in place is that already (hpd-boot-grub.h). */
GVariant *hpd_boot_drop_in_to_variant (HpdDaemon *daemon, const HpdBootState *state);

/* ConfigureBoot's handler (hpd-methods.c). */
void hpd_boot_calls_configure (const HpdCall *call);

G_END_DECLS
