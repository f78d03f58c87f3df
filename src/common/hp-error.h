/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The org.hugepages.Manager.Error domain, registered with GDBus so that
 * errors cross the bus by name and come back as the same GError code. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  HP_ERROR_FAILED,
  HP_ERROR_NOT_AUTHORIZED,
  HP_ERROR_INVALID_ARGS,
  HP_ERROR_NOT_SUPPORTED,
  HP_ERROR_BUSY,
  HP_ERROR_LIMIT_EXCEEDED,
  HP_ERROR_NO_SUCH_USER,
  HP_ERROR_NO_SUCH_GROUP,
  HP_ERROR_NOT_MOUNTED,
} HpError;

#define HP_ERROR (hp_error_quark ())
GQuark hp_error_quark (void);

/* Turns any GError into one of the HP_ERROR codes (keeping the message), so
 * nothing from another domain reaches the bus unmapped. */
GError *hp_error_to_bus (const GError *error);

/* The message of a NotAuthorized refusal of @action, and back: the action
 * whose refusal @message begins with (NULL if none), so that a client can
 * name the polkit action it needs. */
const char *hp_error_refusal_for_action (const char *action);
const char *hp_error_action_of_refusal (const char *message);

G_END_DECLS
