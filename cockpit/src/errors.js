// SPDX-FileCopyrightText: 2026 The hugepagesd authors
// SPDX-License-Identifier: LGPL-2.1-or-later

/* Turns a failed cockpit.dbus call into a sentence an administrator can act
 * on. The service's own message says what went wrong with this request; the
 * error name says which kind of problem it is, which is what decides what the
 * user can do about it, so both are shown, the kind first. */

const PREFIX = "org.hugepages.Manager.Error.";

const KINDS = {
    Failed: "The change could not be made",
    NotAuthorized: "You are not allowed to make this change. Turn on administrative access, or ask an administrator",
    InvalidArgs: "The value is not valid",
    NotSupported: "This kernel or system does not support that",
    Busy: "The service is busy with another request; try again in a moment",
    LimitExceeded: "That is more than this machine's memory allows",
    NoSuchUser: "There is no such user",
    NoSuchGroup: "There is no such group",
    NotMounted: "That is not a hugetlbfs mount",
};

const DBUS_KINDS = {
    "org.freedesktop.DBus.Error.ServiceUnknown": "The huge pages service (hugepagesd) is not running or not installed",
    "org.freedesktop.DBus.Error.NameHasNoOwner": "The huge pages service (hugepagesd) is not running",
    "org.freedesktop.DBus.Error.NoReply": "The huge pages service did not answer in time",
    "org.freedesktop.DBus.Error.Timeout": "The huge pages service did not answer in time",
    "org.freedesktop.DBus.Error.AccessDenied": "The system bus refused the request",
    "org.freedesktop.DBus.Error.InvalidArgs": "The value is not valid",
    "org.freedesktop.DBus.Error.UnknownMethod": "This version of hugepagesd does not offer that operation",
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
        return "Unknown error";
    const kind = errorKind(error);
    const summary = kind !== null ? KINDS[kind] : DBUS_KINDS[error.name];
    let detail = error.message || "";
    /* cockpit puts the D-Bus name into the message of some errors */
    if (error.name && detail.startsWith(error.name))
        detail = detail.slice(error.name.length).replace(/^[:\s]+/, "");
    if (!summary && !detail && error.problem)
        return cockpit.message(error);
    if (!summary)
        return detail || (kind ? kind : "The request failed");
    if (!detail || detail === summary)
        return summary + ".";
    return summary + ": " + detail.replace(/\.?$/, ".");
}
