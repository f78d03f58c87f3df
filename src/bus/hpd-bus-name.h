/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Owning the service's well-known name with RequestName and ReleaseName,
 * instead of g_bus_own_name(). Idle exit must give the name back without
 * blocking the main loop and then go on answering the calls the bus routed
 * to us before; GBusNameOwner can only release synchronously
 * (g_bus_unown_name) and would report our own release as a lost name, and
 * it releases once more, synchronously, when it is dropped. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define HPD_TYPE_BUS_NAME (hpd_bus_name_get_type ())
G_DECLARE_FINAL_TYPE (HpdBusName, hpd_bus_name, HPD, BUS_NAME, GObject)

/* Asks for @name on @connection, never waiting in the bus's queue, and
 * letting a later instance with --replace take it over. "acquired" ()
 * tells that we own it; "lost" (gboolean had_it, const char *why) that we
 * could not get it (had_it FALSE) or that another instance took it over.
 * Each fires at most once; a release asked for with
 * hpd_bus_name_release_async() is not reported as "lost". */
HpdBusName *hpd_bus_name_own (GDBusConnection *connection, const char *name,
                              gboolean replace);

/* Gives the name back. Once this completes the bus routes nothing more to
 * us by that name: every call it routed before is already in our incoming
 * queue. Succeeds also when the name was no longer ours. */
void hpd_bus_name_release_async (HpdBusName *self, GAsyncReadyCallback callback,
                                 gpointer user_data);
gboolean hpd_bus_name_release_finish (HpdBusName *self, GAsyncResult *result,
                                      GError **error);

G_END_DECLS
