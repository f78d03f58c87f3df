/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Whether anything applies the configuration at the next boot: the
 * systemd units where systemd is the init (/run/systemd/system exists, as
 * sd_booted() decides), else the init script. Read from the files under
 * the service's root (tests use a tree of their own), never from systemctl:
 * asking PID 1 over the bus is slower and not possible below a test root. */
#pragma once

#include <glib.h>

#include "hpd-kernel.h"

G_BEGIN_DECLS

#define HPD_APPLY_UNIT        "hugepagesd-apply.service"
#define HPD_APPLY_TARGET      "hugepages.target"
#define HPD_APPLY_INIT_SCRIPT "etc/init.d/hugepagesd-apply"

typedef struct {
  gboolean enabled;
  const char *mechanism;    /* "systemd", "sysvinit", "none" */
  char *message;            /* what is wrong; NULL when enabled */
  char *fix;                /* the command that fixes it; NULL when enabled */
} HpdBootHook;

/* Below @kernel's root; every path it looks at is recorded
 * (hpd_kernel_record_path()). */
void hpd_boot_hook_read (HpdKernel *kernel, HpdBootHook *hook);
/* Below @root, nothing recorded (any thread). */
void hpd_boot_hook_read_root (const char *root, HpdBootHook *hook);
void hpd_boot_hook_clear (HpdBootHook *hook);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (HpdBootHook, hpd_boot_hook_clear)

/* a{sv}: "enabled" (b), "mechanism", "message", "fix" (s, "" when enabled);
 * floating */
GVariant *hpd_boot_hook_to_variant (const HpdBootHook *hook);

G_END_DECLS
