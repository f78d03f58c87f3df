// SPDX-FileCopyrightText: 2026 The hugepagesd authors
// SPDX-License-Identifier: LGPL-2.1-or-later

/* Explain gives each finding a fix as the hugepagesctl command that makes it;
 * this turns the ones that are a single D-Bus call into that call, so the
 * page can offer a button. Fixes that need a choice (a group name), a reboot
 * or another tool stay text. */

const MANAGER_PATH = "/org/hugepages/Manager";
const MANAGER_IFACE = "org.hugepages.Manager";
const PAGE_SIZE_IFACE = "org.hugepages.Manager.PageSize";

function managerCall(title, label, method, args, signature) {
    return { title, label, path: MANAGER_PATH, iface: MANAGER_IFACE, method, args, signature };
}

/* entry: (severity, id, message, fix); context: { sizeByName, manager }.
 * Returns null, { resize: { proxy, pages }, label, title }, or a call. */
export function planFix(entry, { sizeByName }) {
    const fix = entry[3] || "";
    let match;

    if ((match = /^hugepagesctl set-min (\S+) (\d+) --hard( --drop-caches)?$/.exec(fix))) {
        const proxy = sizeByName(match[1]);
        if (!proxy)
            return null;
        return {
            label: `Allocate ${match[2]} pages`,
            title: `Resizing the ${match[1]} pool`,
            resize: { proxy, pages: Number(match[2]) },
        };
    }
    if ((match = /^hugepagesctl set-max (\S+) (\d+)$/.exec(fix))) {
        const proxy = sizeByName(match[1]);
        if (!proxy)
            return null;
        return {
            title: `Setting the ${match[1]} maximum`,
            label: `Allow ${match[2]} pages`,
            path: proxy.path,
            iface: PAGE_SIZE_IFACE,
            method: "SetMaximum",
            args: [Number(match[2]), {}],
            signature: "ta{sv}",
        };
    }
    if ((match = /^hugepagesctl mount-create system --page-size (\S+)$/.exec(fix))) {
        const proxy = sizeByName(match[1]);
        if (!proxy)
            return null;
        return {
            title: `Creating a system mount for ${match[1]} pages`,
            label: "Create mount",
            path: proxy.path,
            iface: PAGE_SIZE_IFACE,
            method: "CreateMount",
            args: ["system", "", {}],
            signature: "ssa{sv}",
        };
    }
    if (fix === "hugepagesctl min-free-kbytes recommended")
        return managerCall("Setting vm.min_free_kbytes to the recommended value", "Use recommended",
                           "SetRecommendedMinFreeKbytes", [{}], "a{sv}");
    if (fix === "hugepagesctl shm-max recommended")
        return managerCall("Setting kernel.shmmax to the recommended value", "Use recommended",
                           "SetRecommendedShmMax", [{}], "a{sv}");
    if ((match = /^hugepagesctl thp ([A-Za-z0-9_/-]+)=([a-z_+-]+)$/.exec(fix)))
        return managerCall(`Setting THP ${match[1]} to ${match[2]}`, `Set ${match[1]} to ${match[2]}`,
                           "SetThp", [{ [match[1]]: cockpit.variant("s", match[2]) }, {}], "a{sv}a{sv}");
    if (/^hugepagesctl boot --write/.test(fix))
        return managerCall("Writing the boot configuration", "Write boot configuration",
                           "ConfigureBoot", [{}], "a{sv}");
    return null;
}
