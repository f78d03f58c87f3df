// SPDX-FileCopyrightText: 2026 The hugepagesd authors
// SPDX-License-Identifier: LGPL-2.1-or-later

/* The page's D-Bus access, in one place: the hugepagesd client and its
 * proxies, method calls, and whether this session may change anything.
 *
 * The client asks for superuser "try": with Cockpit's administrative access
 * on, calls come from root; without it they come from the user, and polkit
 * decides. So without administrative access the page asks polkit itself,
 * about the bridge's own process (as any process may ask about itself),
 * whether a rule lets this user change pools; it is a hint for the page,
 * the service still checks every call. */

import { _ } from "./i18n.js";

export const BUS_NAME = "org.hugepages.Manager";
export const MANAGER_PATH = "/org/hugepages/Manager";
export const MANAGER_IFACE = "org.hugepages.Manager";
export const PAGE_SIZE_IFACE = "org.hugepages.Manager.PageSize";
export const ACTION_POOLS = "org.hugepages.manager.configure-pools";

export const client = cockpit.dbus(BUS_NAME, { bus: "system", superuser: "try" });
export const manager = client.proxy(MANAGER_IFACE, MANAGER_PATH);
export const pageSizes = client.proxies(PAGE_SIZE_IFACE, MANAGER_PATH);

export function variant(type, value) {
    return cockpit.variant(type, value);
}

export function call(path, iface, method, args, signature) {
    return client.call(path, iface, method, args, { type: signature });
}

/* The bridge's pid and start time from /proc/self/stat (read by the bridge
 * itself): polkit's unix-process subject. */
async function bridgeProcess() {
    const stat = await cockpit.file("/proc/self/stat").read();
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { pid: parseInt(stat, 10), startTime: Number(fields[19]) };
}

/* Whether polkit authorizes this session's user for @action without asking
 * (false when polkit says no, would have to ask, or cannot be reached). */
export async function polkitAllows(action) {
    const polkit = cockpit.dbus("org.freedesktop.PolicyKit1", { bus: "system" });
    try {
        const [process, user] = await Promise.all([bridgeProcess(), cockpit.user()]);
        const subject = ["unix-process", {
            pid: variant("u", process.pid),
            "start-time": variant("t", process.startTime),
            uid: variant("i", user.id),
        }];
        const [[authorized]] = await polkit.call(
            "/org/freedesktop/PolicyKit1/Authority", "org.freedesktop.PolicyKit1.Authority",
            "CheckAuthorization", [subject, action, {}, 0, ""], { type: "(sa{sv})sa{ss}us" });
        return authorized;
    } catch (error) {
        console.warn("polkit could not be asked:", error.message || error);
        return false;
    } finally {
        polkit.close();
    }
}

/* Calls @update(reason) now and whenever the session's rights change:
 * reason is null when changes are allowed, a sentence saying why not
 * otherwise. A change of the administrative access reloads the page, as
 * cockpit.permission does, since the open channels keep the old access. */
export function watchAccess(update) {
    const superuser = cockpit.dbus(null, { bus: "internal" }).proxy("cockpit.Superuser", "/superuser");
    let current = null;
    const check = async () => {
        if (!superuser.valid || superuser.Current === current || superuser.Current === "init")
            return;
        if (current !== null) {
            console.info(`administrative access changed from ${current} to ${superuser.Current}: reloading`);
            window.location.reload();
            return;
        }
        current = superuser.Current;
        if (current !== "none" || await polkitAllows(ACTION_POOLS))
            update(null);
        else
            update(_("Administrative access is off, and this user is not allowed to change huge page settings. Turn on administrative access in Cockpit's top bar, or ask an administrator."));
    };
    superuser.addEventListener("changed", check);
    superuser.wait(check);
}
