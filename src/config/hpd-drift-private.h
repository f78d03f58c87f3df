/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* What the parts of the drift walk share (hpd-drift.c and its parts for
 * pools, tunables and THP, and mounts): the walk, and how a setting is
 * listed and its drift noted. */
#pragma once

#include "hpd-claims.h"
#include "hpd-drift.h"
#include "hpd-tunables.h"

G_BEGIN_DECLS

/* One walk over the settings serves both properties: every setting is
 * listed; with @drift, those the kernel does not match are also added
 * there. */
typedef struct {
  HpdDaemon *daemon;
  HpdKernel *kernel;
  GVariantBuilder state;   /* aa{sv} */
  GVariantBuilder drift;   /* aa{sv} */
  gboolean want_drift;
  const HpdConfig *config;
  HpdTunables tunables;
  GPtrArray *claims;       /* HpdClaim: on top of the configured minimum */
  GPtrArray *errors;       /* lines this kernel cannot follow; NULL: not wanted */
} Walk;

/* A line this kernel cannot follow, "FILE:LINE: message" (when wanted). */
void hpd_drift_config_error (Walk *w, const HpdConfigOrigin *origin, const char *format, ...)
G_GNUC_PRINTF (3, 4);
/* "2MB, 1GB": the sizes this kernel has, for messages */
char *hpd_drift_kernel_sizes (Walk *w);
/* A page size in [boot] or a mount section that this kernel lacks is
 * refused where it is used: an error of the line, not drift. */
gboolean hpd_drift_check_page_size (Walk *w, const char *key, const HpdConfigValue *v);
/* @key's setting in ConfiguredState. */
void hpd_drift_list (Walk *w, const char *key, const char *value, const HpdConfigOrigin *origin);
/* @key in Drift (when wanted), with a message. */
void hpd_drift_note (Walk *w, const char *key, const char *configured, const char *actual,
                     const char *format, ...) G_GNUC_PRINTF (5, 6);
/* Drift when @actual is not @wanted. */
void hpd_drift_compare_number (Walk *w, const char *key, const char *configured, guint64 wanted,
                               guint64 actual, const char *what);

/* The parts: a [pool] section (a GTraverseFunc over the configuration's
 * pools, data: the Walk), the tunables, a THP setting and a [mount]
 * section (GTraverseFuncs too). */
gboolean hpd_drift_pool_section (gpointer key, gpointer value, gpointer data);
void hpd_drift_tunables (Walk *w, const HpdConfig *c);
gboolean hpd_drift_thp_setting (gpointer key, gpointer value, gpointer data);
gboolean hpd_drift_mount_section (gpointer key, gpointer value, gpointer data);

G_END_DECLS
