// SPDX-FileCopyrightText: 2026 The hugepagesd authors
// SPDX-License-Identifier: LGPL-2.1-or-later

/* Cockpit page for hugepagesd. Everything goes through cockpit.dbus to
 * org.hugepages.Manager on the system bus: properties come from the proxies,
 * which cockpit keeps current from PropertiesChanged (the service refreshes
 * its properties every second for a client that called it, and the proxies'
 * GetManagedObjects is such a call), changes are method calls. The channel
 * asks for superuser "try", so with Cockpit's administrative access on the
 * calls come from root; without it they come from the user and polkit
 * decides: the page is read-only with the reason when polkit would refuse
 * (service.js asks first) or did refuse. */

import "./index.css";
import { describeError, isNotAuthorized } from "./errors.js";
import { planFix } from "./fixes.js";
import { alert, button, formatBytes, h, label, replaceChildren, select, table, textInput } from "./dom.js";
import { mountApp } from "./app.jsx";

import {
    MANAGER_PATH, MANAGER_IFACE, PAGE_SIZE_IFACE, call, client, manager, pageSizes, variant, watchAccess,
} from "./service.js";
import { followShellTheme } from "./theme.js";

const state = {
    ready: false,
    unavailable: null,          /* why the service cannot be reached */
    limited: null,              /* why changes are off, or null */
    notice: null,               /* { severity, title, body } of the last change */
    resize: null,               /* { name, target, achieved, phase } while one runs */
    explain: null,              /* entries of the last Explain, or null */
    explainError: null,
    usage: null,
    usageError: null,
    usageRunning: false,
    busy: false,
    persist: false,             /* "Keep after reboot": the persist option */
};

/* the containers app.jsx gives the cards that this file draws */
const sections = {};

/* The React half (app.jsx) draws the header, the alerts and the pools from
 * state and the proxies; notify() tells it that something changed. */
let version = 0;
const listeners = new Set();

function notify() {
    version++;
    for (const listener of listeners)
        listener();
}

/* --- calls ---------------------------------------------------------------- */

/* The options of a change: with "Keep after reboot" ticked the service also
 * saves it in its configuration (hugepagesd --apply makes it at boot). */
function changeOptions(extra = {}) {
    return state.persist ? { ...extra, persist: variant("b", true) } : extra;
}

/* The service's records (aa{sv}) as arrays of the keys' values in the
 * order asked, undefined where a record lacks one (a claim's node). */
function records(list, keys) {
    return (list || []).map(record => keys.map(key => record[key] ? record[key].v : undefined));
}

function sizeProxies() {
    return Object.keys(pageSizes)
            .map(path => pageSizes[path])
            .filter(p => p && p.valid && p.Size !== undefined)
            .sort((a, b) => a.Size - b.Size);
}

function sizeByName(name) {
    return sizeProxies().find(p => p.Name === name) || null;
}

/* Runs a change, shows its outcome (success(result) gives the text, or a
 * whole notice when the change did less than asked); a refusal by polkit
 * turns the page read-only with the reason. */
async function change(what, run, { success } = {}) {
    if (state.limited || state.busy)
        return;
    state.busy = true;
    state.notice = null;
    renderAll();
    try {
        const result = await run();
        const outcome = success ? success(result) : `${what}: done.`;
        state.notice = typeof outcome === "string" ? { severity: "success", title: outcome } : outcome;
    } catch (error) {
        if (isNotAuthorized(error))
            state.limited = "The system refused a change for this session" +
                (error.message ? ` (${error.message.replace(/\.$/, "")})` : "") +
                ". Turn on administrative access in Cockpit's top bar, or ask an administrator.";
        state.notice = { severity: "danger", title: `${what} failed`, body: describeError(error) };
    } finally {
        state.busy = false;
        state.resize = null;
        renderAll();
        refreshExplain();
    }
}

/* The requested and the achieved size, side by side: a shortfall is a
 * warning, never a success. */
function resizeOutcome(name, pages, achieved) {
    if (achieved === pages)
        return `The ${name} pool now has ${achieved} pages, as requested.`;
    if (achieved < pages)
        return {
            severity: "warning",
            title: `The ${name} pool got ${achieved} of the ${pages} pages requested.`,
            body: "The kernel could not find enough free contiguous memory. " +
                  "Try again later, free memory, or reserve the pages at boot.",
        };
    return {
        severity: "info",
        title: `The ${name} pool has ${achieved} pages; ${pages} were requested.`,
        body: `${achieved - pages} pages are in use and cannot be freed yet: ` +
              "the kernel frees them when their users release them.",
    };
}

/* SetMinimum takes the administrator's base, which leaves the claims out
 * (Minimum holds them too): the box starts at Base. A Target of 0 means
 * no base and no claims are known, and then the pool as it is is the base. */
function resizeStart(proxy) {
    return proxy.Target > 0 ? proxy.Base : proxy.Minimum;
}

function resizePool(proxy, pages) {
    if (state.limited || state.busy)
        return;
    const name = proxy.Name;
    const subscription = client.subscribe(
        { path: proxy.path, interface: PAGE_SIZE_IFACE, member: "AllocationProgress" },
        (path, iface, signal, [achieved, target, phase]) => {
            state.resize = { name, achieved, target, phase };
            notify();
        });
    state.resize = { name, achieved: proxy.Minimum, target: pages, phase: "starting" };
    return change(`Resizing the ${name} pool`, async () => {
        try {
            const [achieved] = await call(proxy.path, PAGE_SIZE_IFACE, "SetMinimum",
                                          [pages, changeOptions({ hard: variant("b", true) })], "ta{sv}");
            return { achieved, pages };
        } finally {
            subscription.remove();
        }
    }, { success: ({ achieved }) => resizeOutcome(name, pages, achieved) });
}

function setMaximum(proxy, pages) {
    return change(`Setting the ${proxy.Name} maximum`,
                  async () => (await call(proxy.path, PAGE_SIZE_IFACE, "SetMaximum", [pages, changeOptions()], "ta{sv}"))[0],
                  {
                      success: achieved => achieved === pages
                          ? `The ${proxy.Name} pool may now grow to ${achieved} pages.`
                          : {
                              severity: "info",
                              title: `The ${proxy.Name} pool's maximum is ${achieved} pages; ${pages} were requested.`,
                              body: "Pages in use keep the pool above the new maximum until they are released.",
                          },
                  });
}

function setNodePages(proxy, node, pages) {
    return change(`Resizing the ${proxy.Name} pool on node ${node}`,
                  async () => (await call(proxy.path, PAGE_SIZE_IFACE, "SetNodePages",
                                          [node, pages, changeOptions()], "uta{sv}"))[0],
                  {
                      success: achieved => achieved === pages
                          ? `Node ${node} now has ${achieved} ${proxy.Name} pages, as requested.`
                          : {
                              severity: "warning",
                              title: `Node ${node} has ${achieved} ${proxy.Name} pages; ${pages} were requested.`,
                          },
                  });
}

function createMounts(scope, owner, pageSize, maxSize) {
    const options = changeOptions();
    if (maxSize) {
        const bytes = parseBytes(maxSize);
        if (!/^\d+%$/.test(maxSize) && Number.isNaN(bytes)) {
            state.notice = { severity: "danger", title: "The size limit must be a size such as 512M or 2G, or a percentage such as 50%" };
            notify();
            return;
        }
        options["max-size"] = /%$/.test(maxSize) ? variant("s", maxSize) : variant("t", bytes);
    }
    return change("Creating the mount", async () => {
        if (pageSize === "all")
            return (await call(MANAGER_PATH, MANAGER_IFACE, "CreateMounts", [scope, owner, options], "ssa{sv}"))[0];
        const proxy = sizeByName(pageSize);
        return [(await call(proxy.path, PAGE_SIZE_IFACE, "CreateMount", [scope, owner, options], "ssa{sv}"))[0]];
    }, { success: paths => `Mounted ${paths.join(", ")}.` });
}

/* A claim on the whole pool has no node (absent from the Claims record). */
const ALL_NODES = undefined;

function sizeName(size) {
    const proxy = sizeProxies().find(p => p.Size === size);
    return proxy ? proxy.Name : formatBytes(size);
}

/* A consumer's share of a pool: the service keeps the pool at the base plus
 * every claim. The answer is how many claimed pages the pool holds: fewer
 * is a warning, and the claim stays recorded. */
function claim(consumer, pageSize, pages, node) {
    if (!/^[a-z0-9][a-z0-9._-]{0,63}$/.test(consumer)) {
        state.notice = { severity: "danger", title: "A consumer name is 1 to 64 characters of a-z, 0-9, '.', '_' and '-', such as postgresql" };
        notify();
        return;
    }
    if (!Number.isInteger(pages) || pages < 1) {
        state.notice = { severity: "danger", title: "Claim a whole number of pages, at least 1" };
        notify();
        return;
    }
    const proxy = sizeByName(pageSize);
    const options = changeOptions(node === "" ? {} : { node: variant("u", Number(node)) });
    return change(`Claiming ${pageSize} pages for ${consumer}`,
                  async () => (await call(proxy.path, PAGE_SIZE_IFACE, "Claim",
                                          [consumer, pages, options], "sta{sv}"))[0],
                  {
                      success: achieved => achieved === pages
                          ? `${consumer} holds its ${pages} ${pageSize} pages.`
                          : {
                              severity: "warning",
                              title: `${consumer} got ${achieved} of the ${pages} ${pageSize} pages it claimed.`,
                              body: "The claim is recorded; the kernel could not find more memory now (see Checks).",
                          },
                  });
}

/* A pool is addressed by its object: the claim's page size names it. */
function release(consumer, size, node) {
    const proxy = sizeProxies().find(p => p.Size === size);
    if (!proxy) {
        state.notice = { severity: "danger", title: `The kernel has no ${sizeName(size)} pool: the claim of ${consumer} cannot be released here` };
        notify();
        return;
    }
    const options = node === ALL_NODES ? {} : { node: variant("u", node) };
    return change(`Releasing the claim of ${consumer}`,
                  async () => (await call(proxy.path, PAGE_SIZE_IFACE, "Release", [consumer, options], "sa{sv}"))[0],
                  {
                      success: held => `Released the ${sizeName(size)} claim of ${consumer}; other consumers' pages stay` +
                          ` (${node === ALL_NODES ? "the pool" : `node ${node}`} holds ${held} persistent pages).`,
                  });
}

/* persist on Unmount removes the configuration section that makes the
 * mount, which only the service's own mounts have */
function unmount(path, managed) {
    return change(`Unmounting ${path}`,
                  async () => (await call(MANAGER_PATH, MANAGER_IFACE, "Unmount", [path, managed ? changeOptions() : {}], "sa{sv}"))[0],
                  { success: paths => `Unmounted ${paths.join(", ")}.` });
}

function setThp(key, value) {
    return change(`Setting THP ${key}`,
                  async () => (await call(MANAGER_PATH, MANAGER_IFACE, "SetThp", [{ [key]: variant("s", value) }, changeOptions()], "a{sv}a{sv}"))[0],
                  { success: achieved => `Transparent huge pages: ${key} is now ${achieved[key] ? achieved[key].v : value}.` });
}

function setTunable(method, signature, args, what) {
    return change(what, () => call(MANAGER_PATH, MANAGER_IFACE, method, [...args, changeOptions()], signature),
                  { success: result => result && result.length ? `${what}: now ${result[0]}.` : `${what}: done.` });
}

/* "2M", "1G", "512k" or a byte count, as the mount limits take them */
function parseBytes(text) {
    const match = /^\s*(\d+)\s*([kKmMgGtT]?)i?[bB]?\s*$/.exec(text);
    if (!match)
        return NaN;
    const shift = { "": 0, k: 10, m: 20, g: 30, t: 40 }[match[2].toLowerCase()];
    return Number(match[1]) * 2 ** shift;
}

/* --- Explain and usage ------------------------------------------------------ */

let explainSerial = 0;

async function refreshExplain() {
    if (state.unavailable)
        return;
    const serial = ++explainSerial;
    try {
        const [entries] = await call(MANAGER_PATH, MANAGER_IFACE, "Explain", [{}], "a{sv}");
        if (serial !== explainSerial)
            return;
        state.explain = records(entries, ["severity", "id", "message", "fix"]);
        state.explainError = null;
    } catch (error) {
        state.explainError = describeError(error);
    }
    renderExplain();
}

function applyFix(entry) {
    const plan = planFix(entry, { sizeByName, manager });
    if (!plan)
        return;
    if (plan.resize)
        return resizePool(plan.resize.proxy, plan.resize.pages);
    return change(plan.title, () => call(plan.path, plan.iface, plan.method, plan.args, plan.signature),
                  { success: () => `${plan.title}: done.` });
}

async function scanUsage() {
    state.usage = null;
    state.usageError = null;
    state.usageRunning = true;
    renderUsage();
    try {
        const [usage] = await call(MANAGER_PATH, MANAGER_IFACE, "GetUsage", [{}], "a{sv}");
        state.usage = usage;
    } catch (error) {
        state.usageError = describeError(error);
    }
    state.usageRunning = false;
    renderUsage();
}

/* --- rendering ------------------------------------------------------------- */

/* Keeps what the user typed (and the focus) across a re-render of a live
 * section: properties change every second while someone is typing. */
function rerender(container, build) {
    if (!container)
        return;
    const typed = {};
    for (const input of container.querySelectorAll("input[id], select[id]"))
        typed[input.id] = input.value;
    const focused = document.activeElement && container.contains(document.activeElement)
        ? document.activeElement.id : null;
    replaceChildren(container, build());
    for (const [id, value] of Object.entries(typed)) {
        const input = document.getElementById(id);
        if (input && input.dataset.keep !== "no")
            input.value = value;
    }
    if (focused && document.getElementById(focused))
        document.getElementById(focused).focus();
}

function disabled() {
    return Boolean(state.limited || state.busy);
}

function modeText(mode) {
    return "0" + Number(mode).toString(8);
}

function renderMounts() {
    const mounts = manager.valid ? (manager.Mounts || []) : [];
    const sizes = sizeProxies();
    rerender(sections.mounts, () => {
        const rows = mounts.map(([path, attrs]) => {
            const a = name => attrs[name] ? attrs[name].v : undefined;
            const limits = [
                a("max-size") !== undefined ? `max ${formatBytes(a("max-size"))}` : null,
                a("min-size") !== undefined ? `min ${formatBytes(a("min-size"))}` : null,
                a("max-inodes") !== undefined ? `${a("max-inodes")} inodes` : null,
            ].filter(Boolean).join(", ") || "none";
            // the root's owner and mode are shown; the mount options' where
            // they differ (hugeadm sets them after mounting)
            const differ = name => a(`options-${name}`) !== undefined && a(`options-${name}`) !== a(name);
            const optionsSay = [
                differ("uid") ? `uid=${a("options-uid")}` : null,
                differ("gid") ? `gid=${a("options-gid")}` : null,
                differ("mode") ? `mode=${modeText(a("options-mode"))}` : null,
            ].filter(Boolean).join(",");
            return {
                attrs: { "data-mount": path },
                cells: [
                    h("code", {}, path),
                    formatBytes(a("page-size")),
                    `${a("uid")}:${a("gid")}`,
                    modeText(a("mode")) + (optionsSay ? ` (mount options: ${optionsSay})` : ""),
                    limits,
                    a("managed") ? label("hugepagesd", "green") : label("other"),
                    button("Unmount", () => unmount(path, a("managed")),
                           { variant: "danger", small: true, disabled: disabled(), title: `Unmount ${path}` }),
                ],
            };
        });
        const sizeOptions = [["all", "Every page size"], ...sizes.map(p => [p.Name, p.Name])];
        const form = h("form", { class: "hp-inline-form", id: "hp-mount-form", onsubmit: ev => ev.preventDefault() },
                       h("label", { for: "hp-mount-scope" }, "Scope"),
                       select({ id: "hp-mount-scope" },
                              [["system", "System"], ["user", "User"], ["group", "Group"], ["global", "Everyone"]], "system"),
                       h("label", { for: "hp-mount-owner" }, "User or group"),
                       textInput({ id: "hp-mount-owner", placeholder: "for user and group mounts" }),
                       h("label", { for: "hp-mount-size" }, "Page size"),
                       select({ id: "hp-mount-size" }, sizeOptions, "all"),
                       h("label", { for: "hp-mount-max" }, "Size limit"),
                       textInput({ id: "hp-mount-max", placeholder: "e.g. 1G or 50%" }),
                       button("Create mount", () => {
                           const value = id => document.getElementById(id).value.trim();
                           const scope = value("hp-mount-scope");
                           createMounts(scope, scope === "user" || scope === "group" ? value("hp-mount-owner") : "",
                                        value("hp-mount-size"), value("hp-mount-max"));
                       }, { id: "hp-mount-create", variant: "primary", disabled: disabled() }));
        return [table("hugetlbfs mounts", ["Path", "Page size", "Owner", "Mode", "Limits", "Made by", ""],
                      rows, { id: "hp-mounts-table", empty: "No hugetlbfs mounts" }), form];
    });
}

/* cockpit's bridge hands 64-bit unsigned values above 2^63 over as negative
 * numbers; the kernel's default shmmax and shmall are that large, meaning
 * "no limit" */
function unsignedText(value) {
    const v = value < 0 ? value + 2 ** 64 : value;
    return v >= 2 ** 62 ? "unlimited" : String(v);
}

function renderTunables() {
    if (!manager.valid)
        return;
    const m = manager;
    rerender(sections.tunables, () => {
        const numberRow = (name, id, value, apply, recommended, applyRecommended) => [
            name,
            h("span", { id: `${id}-value` }, unsignedText(value)),
            recommended !== undefined ? String(recommended) : "",
            h("div", { class: "hp-inline" },
              h("input", {
                  type: "number", min: 0, id, "aria-label": name, disabled: disabled(),
                  value: unsignedText(value) === "unlimited" ? "" : value,
              }),
              button("Set", () => apply(Number(document.getElementById(id).value)), { small: true, disabled: disabled() }),
              applyRecommended
                  ? button("Use recommended", applyRecommended, { small: true, variant: "link", disabled: disabled() })
                  : null),
        ];
        const tunables = table("Tunables", ["Setting", "Current", "Recommended", "Change"], [
            numberRow("kernel.shmmax (bytes)", "hp-shmmax", m.ShmMax,
                      v => setTunable("SetShmMax", "ta{sv}", [v], "Setting kernel.shmmax"),
                      m.RecommendedShmMax,
                      () => setTunable("SetRecommendedShmMax", "a{sv}", [], "Setting kernel.shmmax")),
            ["kernel.shmall (base pages)", unsignedText(m.ShmAllPages), String(m.RecommendedShmAllPages), "raised with shmmax"],
            numberRow("vm.min_free_kbytes", "hp-min-free", m.MinFreeKbytes,
                      v => setTunable("SetMinFreeKbytes", "ta{sv}", [v], "Setting vm.min_free_kbytes"),
                      m.RecommendedMinFreeKbytes,
                      () => setTunable("SetRecommendedMinFreeKbytes", "a{sv}", [], "Setting vm.min_free_kbytes")),
            ["vm.hugetlb_shm_group", String(m.ShmGroup),
                "",
                h("div", { class: "hp-inline" },
                  textInput({ id: "hp-shm-group", "aria-label": "Group name or number", placeholder: "group" }),
                  button("Set", () => setTunable("SetShmGroup", "sa{sv}",
                                                 [document.getElementById("hp-shm-group").value.trim()],
                                                 "Setting vm.hugetlb_shm_group"),
                         { small: true, disabled: disabled() }))],
            ["Huge pages from ZONE_MOVABLE",
                m.ZoneMovableSupported ? (m.ZoneMovable ? "yes" : "no") : "not supported by this kernel",
                "",
                m.ZoneMovableSupported
                    ? button(m.ZoneMovable ? "Turn off" : "Turn on",
                             () => setTunable("SetZoneMovable", "ba{sv}", [!m.ZoneMovable], "Setting zone movable"),
                             { small: true, disabled: disabled() })
                    : ""],
        ], { id: "hp-tunables-table" });

        const thp = m.ThpSettings || {};
        const control = (key, showCurrent) => {
            const [current, allowed] = thp[key];
            const id = "hp-thp-" + key.replace(/[^A-Za-z0-9]/g, "-");
            return h("div", { class: "hp-inline", "data-thp": key },
                     showCurrent ? h("span", { class: "hp-thp-current" }, current) : null,
                     select({ id, "aria-label": `THP ${key}`, disabled: disabled(), "data-keep": "no" },
                            allowed.map(v => [v, v]), current),
                     button("Apply", () => setThp(key, document.getElementById(id).value),
                            { small: true, disabled: disabled() }));
        };
        /* the system-wide choices, then one row per mTHP size */
        const mthp = /^hugepages-(\d+)kB\/(.+)$/;
        const thpRows = Object.keys(thp).filter(key => !mthp.test(key)).sort().map(key => {
            const [current] = thp[key];
            return {
                attrs: { "data-thp": key },
                cells: [key, h("span", { class: "hp-thp-current" }, current), control(key, false)],
            };
        });
        const sizes = [...new Set(Object.keys(thp).filter(key => mthp.test(key))
                .map(key => Number(mthp.exec(key)[1])))].sort((a, b) => a - b);
        const mthpRows = sizes.map(kb => {
            const cell = name => (thp[`hugepages-${kb}kB/${name}`] ? control(`hugepages-${kb}kB/${name}`, true) : "—");
            return { attrs: { "data-mthp": kb }, cells: [formatBytes(kb * 1024), cell("enabled"), cell("shmem_enabled")] };
        });
        const khugepaged = h("p", {},
                             `khugepaged: ${m.KhugepagedPagesToScan} pages per scan, sleeps ` +
                             `${m.KhugepagedScanSleepMillisecs} ms between scans and ` +
                             `${m.KhugepagedAllocSleepMillisecs} ms after a failed allocation.`);
        return [tunables,
            h("h3", { class: "hp-subtitle" }, "Transparent huge pages"),
            table("Transparent huge pages", ["Setting", "Current", "Change"], thpRows,
                  { id: "hp-thp-table", empty: "This kernel has no transparent huge pages" }),
            mthpRows.length
                ? table("Multi-size transparent huge pages", ["mTHP size", "Anonymous memory (enabled)", "Shared memory (shmem_enabled)"],
                        mthpRows, { id: "hp-mthp-table" })
                : null,
            khugepaged];
    });
}

function renderExplain() {
    rerender(sections.explain, () => {
        if (state.explainError)
            return alert("danger", "The checks could not run", state.explainError);
        if (!state.explain)
            return h("p", {}, "Checking…");
        const order = { error: 0, warning: 1, info: 2 };
        const entries = [...state.explain].sort((a, b) => order[a[0]] - order[b[0]]);
        const rows = entries.map(entry => {
            const [severity, id, message, fix] = entry;
            const plan = planFix(entry, { sizeByName, manager });
            return {
                attrs: { "data-explain": id },
                cells: [
                    label(severity, severity === "error" ? "red" : severity === "warning" ? "orange" : "blue"),
                    message,
                    fix ? h("code", {}, fix) : "",
                    plan
                        ? button(plan.label, () => applyFix(entry),
                                 { small: true, disabled: disabled(), id: `hp-fix-${id}` })
                        : "",
                ],
            };
        });
        return [table("Explain", ["", "Finding", "Fix", ""], rows, { id: "hp-explain-table", empty: "Nothing to report" }),
            button("Check again", refreshExplain, { variant: "link", id: "hp-explain-refresh" })];
    });
}

function renderUsage() {
    rerender(sections.usage, () => {
        const parts = [button("Scan", scanUsage, { id: "hp-usage-scan", disabled: state.usageRunning })];
        if (state.usageRunning)
            parts.push(h("p", {}, "Scanning processes, files and segments…"));
        if (state.usageError)
            parts.push(alert("danger", "The scan failed", state.usageError));
        const u = state.usage;
        if (u) {
            const v = key => (u[key] ? u[key].v : undefined);
            const f = (entry, key) => (entry[key] ? entry[key].v : "");
            if (v("restricted"))
                parts.push(alert("info", "Only your own processes, files and segments are shown",
                                 "Seeing everything needs administrative access."));
            const pagesOf = list => (list || []).map(e =>
                `${formatBytes(f(e, "page-size"))}: ${Number(f(e, "shared") || 0) + Number(f(e, "private") || 0)}`).join(", ");
            parts.push(h("h3", { class: "hp-subtitle" }, "Processes"),
                       table("Processes", ["PID", "Command", "User", "Pages"],
                             (v("processes") || []).map(p => [String(f(p, "pid")), f(p, "cmdline") || f(p, "command"),
                                 f(p, "user"), pagesOf(f(p, "hugetlb"))]),
                             { id: "hp-usage-processes", empty: "No process maps huge pages" }),
                       h("h3", { class: "hp-subtitle" }, "Files in hugetlbfs"),
                       table("Files", ["Path", "Size", "Pages", "Owner", "Mapped by"],
                             (v("files") || []).map(e => [h("code", {}, f(e, "path")), formatBytes(f(e, "size")),
                                 String(f(e, "pages")), f(e, "user"),
                                 f(e, "mapped") ? (f(e, "pids") || []).join(", ") : label("orphan", "orange")]),
                             { id: "hp-usage-files", empty: "No files" }),
                       h("h3", { class: "hp-subtitle" }, "SysV shared memory"),
                       table("SysV segments", ["Key", "Owner", "Size", "Backing", "Attached"],
                             (v("sysv") || []).map(e => [String(f(e, "key")), f(e, "user"), formatBytes(f(e, "size")),
                                 f(e, "backing"), String(f(e, "nattch"))]),
                             { id: "hp-usage-sysv", empty: "No segments" }));
            const unattributed = v("unattributed") || [];
            if (unattributed.length)
                parts.push(h("h3", { class: "hp-subtitle" }, "Pages nobody accounts for"),
                           table("Unattributed", ["Page size", "In use", "Attributed", "Unattributed", "Reserved"],
                                 unattributed.map(e => [formatBytes(f(e, "page-size")), String(f(e, "in-use")),
                                     String(f(e, "in-use-attributed")), String(f(e, "in-use-unattributed")),
                                     String(f(e, "reserved"))]), { id: "hp-usage-unattributed" }));
            for (const warning of v("warnings") || [])
                parts.push(alert("warning", warning));
            if ((v("truncated") || []).length)
                parts.push(alert("warning", "The scan stopped early: " + v("truncated").join(", ")));
        }
        return parts;
    });
}

function renderClaims() {
    if (!manager.valid)
        return;
    rerender(sections.claims, () => {
        const rows = records(manager.Claims, ["consumer", "page-size", "pages", "node"]).map(([consumer, size, pages, node]) => {
            const where = node === ALL_NODES ? "pool" : `node ${node}`;
            return {
                attrs: { "data-claim": `${consumer} ${sizeName(size)} ${node === ALL_NODES ? "all" : node}` },
                cells: [consumer, sizeName(size), h("span", { class: "hp-claim-pages" }, String(pages)),
                    node === ALL_NODES ? "whole pool" : String(node),
                    button("Release", () => release(consumer, size, node),
                           { variant: "link", small: true, disabled: disabled(), title: `Release ${consumer}'s ${where} claim` })],
            };
        });
        const sizes = sizeProxies().map(p => [p.Name, p.Name]);
        const nodes = [["", "Whole pool"], ...(manager.NumaNodes || []).map(n => [String(n), `Node ${n}`])];
        const form = h("form", { class: "hp-inline-form", id: "hp-claim-form", onsubmit: ev => ev.preventDefault() },
                       h("label", { for: "hp-claim-consumer" }, "Consumer"),
                       textInput({ id: "hp-claim-consumer", placeholder: "e.g. postgresql" }),
                       h("label", { for: "hp-claim-size" }, "Page size"),
                       select({ id: "hp-claim-size" }, sizes, sizes.length ? sizes[0][0] : ""),
                       h("label", { for: "hp-claim-pages" }, "Pages"),
                       h("span", { class: "pf-v6-c-form-control" },
                         h("input", { type: "number", min: 1, id: "hp-claim-pages", "aria-label": "Pages to claim" })),
                       h("label", { for: "hp-claim-node" }, "Where"),
                       select({ id: "hp-claim-node" }, nodes, ""),
                       button("Claim", () => {
                           const value = id => document.getElementById(id).value.trim();
                           claim(value("hp-claim-consumer"), value("hp-claim-size"),
                                 Number(value("hp-claim-pages")), value("hp-claim-node"));
                       }, { id: "hp-claim-button", variant: "primary", disabled: disabled() }));
        return [h("p", {}, "Programs that need huge pages claim their share here (or with hugepagesctl claim); " +
                  "each pool is kept at the administrator's minimum plus every claim, so no consumer " +
                  "overwrites another's pages."),
                table("Claims", ["Consumer", "Page size", "Pages", "Node", ""], rows,
                      { id: "hp-claims-table", empty: "No claims" }),
                form];
    });
}

function renderConfig() {
    if (!manager.valid)
        return;
    const m = manager;
    rerender(sections.config, () => {
        const drift = {};
        for (const [key, configured, actual, message] of records(m.Drift, ["key", "configured", "actual", "message"]))
            drift[key] = { configured, actual, message };
        const settings = records(m.ConfiguredState, ["key", "value", "origin"]);
        const configured = settings.map(([key, value, origin]) => {
            const d = drift[key];
            return {
                class: d ? "hp-drift" : "",
                attrs: { "data-config": key, "data-drift": d ? "yes" : "no" },
                cells: [key, value, d ? (d.actual === "" ? "not on this kernel" : d.actual) : "as configured",
                    d ? h("span", {}, label("drift", "orange"), " ", d.message) : "", h("code", {}, origin)],
            };
        });
        /* drift of keys the state does not list (should not happen, but
         * never hide a difference) */
        for (const key of Object.keys(drift)) {
            if (!settings.some(([k]) => k === key)) {
                const d = drift[key];
                configured.push({
                    class: "hp-drift",
                    attrs: { "data-config": key, "data-drift": "yes" },
                    cells: [key, d.configured, d.actual, h("span", {}, label("drift", "orange"), " ", d.message), ""],
                });
            }
        }
        const parts = [
            table("Persisted configuration", ["Setting", "Configured", "Kernel now", "Difference", "Set in"], configured,
                  { id: "hp-config-table", empty: "Nothing is configured in /etc/hugepagesd" }),
        ];
        const hook = m.ApplyAtBoot || {};
        const hookValue = key => (hook[key] ? hook[key].v : undefined);
        if (hookValue("enabled") === false)
            parts.push(alert("warning", "Not applied at boot",
                             h("span", {}, hookValue("message"), ". Fix: ", h("code", {}, hookValue("fix"))),
                             { id: "hp-apply-at-boot" }));
        for (const error of m.ConfigurationErrors || [])
            parts.push(alert("danger", "Configuration error", error));
        for (const [key, value, origin, overridden, overriddenOrigin] of records(m.ConfigurationOverrides,
                                                                                  ["key", "value", "origin", "overridden", "overridden-origin"]))
            parts.push(alert("info", "Overridden",
                             h("span", { "data-override": key },
                               `${key} = ${value} (`, h("code", {}, origin), `) overrides ${overridden} (`,
                               h("code", {}, overriddenOrigin), ")")));
        parts.push(h("dl", { class: "hp-boot" },
                     h("dt", {}, "Boot parameters from the configuration"), h("dd", {}, h("code", {}, m.BootParameters || "none")),
                     h("dt", {}, "Running kernel was booted with"), h("dd", {}, h("code", {}, m.KernelCommandLine || "none")),
                     m.RebootRequired ? h("dd", {}, label("reboot required", "orange")) : null));
        return parts;
    });
}

function renderAll() {
    notify();
    renderMounts();
    renderTunables();
    renderExplain();
    renderClaims();
    renderConfig();
}

const renderers = {
    explain: renderExplain, claims: renderClaims, mounts: renderMounts, tunables: renderTunables,
    usage: renderUsage, config: renderConfig,
};

/* What app.jsx draws from */
const api = {
    state, manager, records, sizeProxies, resizeStart,
    disabled,
    actions: { resizePool, setMaximum, setNodePages },
    setPersist(on) {
        state.persist = on;
        notify();
    },
    registerSection(name, element) {
        sections[name] = element;
        renderers[name]();
        return () => { delete sections[name]; };
    },
    subscribe(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
    },
    version: () => version,
};

/* --- administrative access --------------------------------------------------- */

function watchSuperuser() {
    /* a refusal by polkit holds until the access changes (which reloads) */
    let accessReason = null;
    watchAccess(reason => {
        if (state.limited === null || state.limited === accessReason)
            state.limited = reason;
        accessReason = reason;
        renderAll();
    });
}

/* --- start ----------------------------------------------------------------- */

function start() {
    followShellTheme();
    mountApp(document.getElementById("app"), api);
    manager.addEventListener("changed", renderAll);
    pageSizes.addEventListener("added", notify);
    pageSizes.addEventListener("changed", () => { notify(); renderMounts(); });
    pageSizes.addEventListener("removed", notify);
    client.addEventListener("close", (event, options) => {
        state.unavailable = cockpit.message(options);
        notify();
    });
    manager.wait(() => {
        if (!manager.valid) {
            state.unavailable = "hugepagesd is not running or does not answer on the system bus " +
                "(org.hugepages.Manager). Start hugepagesd.service.";
            notify();
            return;
        }
        renderAll();
        refreshExplain();
        document.body.dataset.ready = "yes";
    });
    watchSuperuser();
}

document.addEventListener("DOMContentLoaded", start);
