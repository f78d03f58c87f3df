/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* What the tunable commands share (hpctl-tunables.c, hpctl-thp.c): their
 * options and how a change is called and reported. */
#pragma once

#include "hpctl.h"

#define EXIT_HELP "\nExit status: 0 done, 1 error (including not authorized), 2 usage error."

#define DRY_RUN_HELP "Only show what would be set; needs no authorization"
#define ALLOW_LOWER_HELP "With 'recommended': also lower a larger current value"

/* The options of one tunable command. */
typedef struct {
  gboolean dry_run;
  gboolean persist;
  gboolean allow_lower;
  gboolean json;
} TunableOptions;

/* The command's option context with the options of @o (--allow-lower with
 * @with_recommended). */
GOptionContext *hpctl_tunable_options (const char *parameters, const char *summary,
                                       const char *description, TunableOptions *o,
                                       gboolean with_recommended);
/* The options only make sense with a change; --allow-lower only with
 * "recommended". Prints the usage error itself. */
gboolean hpctl_tunable_check_use (const TunableOptions *o, const char *argument,
                                  gboolean recommended);
/* The a{sv} of the call. */
GVariant *hpctl_tunable_build_options (const TunableOptions *o);
/* A dry run needs no authorization: no interactive flag, no agent. */
GDBusCallFlags hpctl_tunable_call_flags (HpctlContext *ctx, const TunableOptions *o);
int hpctl_tunable_call_timeout (const TunableOptions *o);
/* Commands that take at most one argument: the usage line if more came. */
gboolean hpctl_tunable_at_most_one_argument (GStrv args, const char *usage);
/* "kernel.shmmax: VALUE" after a change, "would set kernel.shmmax to VALUE"
 * for a dry run. @kept_above is the recommended value when 'recommended'
 * kept a larger current value, NULL otherwise. */
void hpctl_tunable_report (const TunableOptions *o, const char *what, const char *value,
                           const char *kept_above);
