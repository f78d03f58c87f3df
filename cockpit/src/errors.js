// SPDX-FileCopyrightText: 2026 The hugepagesd authors
// SPDX-License-Identifier: LGPL-2.1-or-later

/* Turns a failed cockpit.dbus call into a sentence an administrator can act
 * on. The service's own message says what went wrong with this request; the
 * error name says which kind of problem it is, which is what decides what the
 * user can do about it, so both are shown, the kind first. */

import { _ } from "./i18n.js";

const PREFIX = "org.hugepages.Manager.Error.";

const KINDS = {
    Failed: _("The change could not be made"),
    NotAuthorized: _("You are not allowed to make this change. Turn on administrative access, or ask an administrator"),
    InvalidArgs: _("The value is not valid"),
    NotSupported: _("This kernel or system does not support that"),
    Busy: _("The service is busy with another request; try again in a moment"),
    LimitExceeded: _("That is more than this machine's memory allows"),
    NoSuchUser: _("There is no such user"),
    NoSuchGroup: _("There is no such group"),
    NotMounted: _("That is not a hugetlbfs mount"),
};

const DBUS_KINDS = {
    "org.freedesktop.DBus.Error.ServiceUnknown": _("The huge pages service (hugepagesd) is not running or not installed"),
    "org.freedesktop.DBus.Error.NameHasNoOwner": _("The huge pages service (hugepagesd) is not running"),
    "org.freedesktop.DBus.Error.NoReply": _("The huge pages service did not answer in time"),
    "org.freedesktop.DBus.Error.Timeout": _("The huge pages service did not answer in time"),
    "org.freedesktop.DBus.Error.AccessDenied": _("The system bus refused the request"),
    "org.freedesktop.DBus.Error.InvalidArgs": _("The value is not valid"),
    "org.freedesktop.DBus.Error.UnknownMethod": _("This version of hugepagesd does not offer that operation"),
};

/* The kind of error, without the bus prefix ("NotAuthorized"), or null for
 * errors that are not the service's. */
export function errorKind(error) {
    const name = error && error.name;
    if (typeof name === "string" && name.startsWith(PREFIX))
        return name.slice(PREFIX.length);
    return null;
}

export function isNotAuthorized(error) {
    return errorKind(error) === "NotAuthorized" ||
        (error && error.problem === "access-denied");
}

/* "Kind: the service's message." Never only a D-Bus name. */
export function describeError(error) {
    if (!error)
        return _("Unknown error");
    const kind = errorKind(error);
    const summary = kind !== null ? KINDS[kind] : DBUS_KINDS[error.name];
    let detail = error.message || "";
    /* cockpit puts the D-Bus name into the message of some errors */
    if (error.name && detail.startsWith(error.name))
        detail = detail.slice(error.name.length).replace(/^[:\s]+/, "");
    if (!summary && !detail && error.problem)
        return cockpit.message(error);
    if (!summary)
        return detail || (kind ? kind : _("The request failed"));
    if (!detail || detail === summary)
        return summary + ".";
    return summary + ": " + detail.replace(/\.?$/, ".");
}
