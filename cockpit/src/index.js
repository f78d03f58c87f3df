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
import { formatBytes } from "./format.js";
import { parseSize } from "./validate.js";
import { _, format } from "./i18n.js";
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

/* Each pool's pages over the last minutes, from the proxies' changes
 * (PropertiesChanged): { name: [{ t, total, used }] }, oldest first */
const HISTORY_MS = 5 * 60 * 1000;
const history = {};

function recordPools() {
    const now = Date.now();
    for (const p of sizeProxies()) {
        const points = history[p.Name] || (history[p.Name] = []);
        const last = points[points.length - 1];
        if (!last || last.total !== p.Total || last.used !== p.Total - p.Free)
            points.push({ t: now, total: p.Total, used: p.Total - p.Free });
        /* keep the last point before the window: the line starts at its value */
        while (points.length > 1 && points[1].t < now - HISTORY_MS)
            points.shift();
    }
}

/* The React half (app.jsx, cards.jsx) draws the page from state and the
 * proxies; notify() tells it that something changed. */
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
    notify();
    try {
        const result = await run();
        const outcome = success ? success(result) : format(_("$0: done."), what);
        state.notice = typeof outcome === "string" ? { severity: "success", title: outcome } : outcome;
    } catch (error) {
        if (isNotAuthorized(error))
            state.limited = (error.message
                ? format(_("The system refused a change for this session ($0)."), error.message.replace(/\.$/, ""))
                : _("The system refused a change for this session.")) + " " +
                _("Turn on administrative access in Cockpit's top bar, or ask an administrator.");
        state.notice = { severity: "danger", title: format(_("$0 failed"), what), body: describeError(error) };
    } finally {
        state.busy = false;
        state.resize = null;
        notify();
        refreshExplain();
    }
}

/* The requested and the achieved size, side by side: a shortfall is a
 * warning, never a success. */
function resizeOutcome(name, pages, achieved) {
    if (achieved === pages)
        return format(_("The $0 pool now has $1 pages, as requested."), name, achieved);
    if (achieved < pages)
        return {
            severity: "warning",
            title: format(_("The $0 pool got $1 of the $2 pages requested."), name, achieved, pages),
            body: _("The kernel could not find enough free contiguous memory. Try again later, free memory, or reserve the pages at boot."),
        };
    return {
        severity: "info",
        title: format(_("The $0 pool has $1 pages; $2 were requested."), name, achieved, pages),
        body: format(_("$0 pages are in use and cannot be freed yet: the kernel frees them when their users release them."), achieved - pages),
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
    return change(format(_("Resizing the $0 pool"), name), async () => {
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
    return change(format(_("Setting the $0 maximum"), proxy.Name),
                  async () => (await call(proxy.path, PAGE_SIZE_IFACE, "SetMaximum", [pages, changeOptions()], "ta{sv}"))[0],
                  {
                      success: achieved => achieved === pages
                          ? format(_("The $0 pool may now grow to $1 pages."), proxy.Name, achieved)
                          : {
                              severity: "info",
                              title: format(_("The $0 pool's maximum is $1 pages; $2 were requested."), proxy.Name, achieved, pages),
                              body: _("Pages in use keep the pool above the new maximum until they are released."),
                          },
                  });
}

function setNodePages(proxy, node, pages) {
    return change(format(_("Resizing the $0 pool on node $1"), proxy.Name, node),
                  async () => (await call(proxy.path, PAGE_SIZE_IFACE, "SetNodePages",
                                          [node, pages, changeOptions()], "uta{sv}"))[0],
                  {
                      success: achieved => achieved === pages
                          ? format(_("Node $0 now has $1 $2 pages, as requested."), node, achieved, proxy.Name)
                          : {
                              severity: "warning",
                              title: format(_("Node $0 has $1 $2 pages; $3 were requested."), node, achieved, proxy.Name, pages),
                          },
                  });
}

/* Splits free pages of the pool into pages of its DemoteSize; the kernel
 * demotes only free, unreserved pages, so fewer is a warning */
function demote(proxy, pages) {
    const smaller = sizeName(proxy.DemoteSize);
    return change(format(_("Demoting $0 pages"), proxy.Name),
                  async () => (await call(proxy.path, PAGE_SIZE_IFACE, "Demote", [pages, {}], "ta{sv}"))[0],
                  {
                      success: demoted => demoted === pages
                          ? format(_("$0 $1 pages were split into $2 pages."), demoted, proxy.Name, smaller)
                          : {
                              severity: "warning",
                              title: format(_("$0 of the $1 $2 pages asked for were split into $3 pages."), demoted, pages, proxy.Name, smaller),
                              body: _("The kernel splits only free pages that nobody has reserved."),
                          },
                  });
}

/* Unlinks a hugetlbfs file that no process maps; its pages go back to the
 * pool. The usage is scanned again to show it gone. */
function removeOrphan(path) {
    return change(format(_("Removing $0"), path),
                  async () => {
                      const [freed] = await call(MANAGER_PATH, MANAGER_IFACE, "RemoveOrphan", [path, {}], "sa{sv}");
                      scanUsage();
                      return freed;
                  },
                  { success: freed => format(_("Removed $0; $1 of huge pages went back to the pool."), path, formatBytes(freed)) });
}

function createMounts(scope, owner, pageSize, maxSize) {
    const options = changeOptions();
    /* the dialog checked the limit (validate.js) */
    if (maxSize)
        options["max-size"] = /%$/.test(maxSize) ? variant("s", maxSize) : variant("t", Number(parseSize(maxSize)));
    return change(_("Creating the mount"), async () => {
        if (pageSize === "all")
            return (await call(MANAGER_PATH, MANAGER_IFACE, "CreateMounts", [scope, owner, options], "ssa{sv}"))[0];
        const proxy = sizeByName(pageSize);
        return [(await call(proxy.path, PAGE_SIZE_IFACE, "CreateMount", [scope, owner, options], "ssa{sv}"))[0]];
    }, { success: paths => format(_("Mounted $0."), paths.join(", ")) });
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
    const proxy = sizeByName(pageSize);
    const options = changeOptions(node === "" ? {} : { node: variant("u", Number(node)) });
    return change(format(_("Claiming $0 pages for $1"), pageSize, consumer),
                  async () => (await call(proxy.path, PAGE_SIZE_IFACE, "Claim",
                                          [consumer, pages, options], "sta{sv}"))[0],
                  {
                      success: achieved => achieved === pages
                          ? format(_("$0 holds its $1 $2 pages."), consumer, pages, pageSize)
                          : {
                              severity: "warning",
                              title: format(_("$0 got $1 of the $2 $3 pages it claimed."), consumer, achieved, pages, pageSize),
                              body: _("The claim is recorded; the kernel could not find more memory now (see Checks)."),
                          },
                  });
}

/* A pool is addressed by its object: the claim's page size names it. */
function release(consumer, size, node) {
    const proxy = sizeProxies().find(p => p.Size === size);
    if (!proxy) {
        state.notice = { severity: "danger", title: format(_("The kernel has no $0 pool: the claim of $1 cannot be released here"), sizeName(size), consumer) };
        notify();
        return;
    }
    const options = node === ALL_NODES ? {} : { node: variant("u", node) };
    return change(format(_("Releasing the claim of $0"), consumer),
                  async () => (await call(proxy.path, PAGE_SIZE_IFACE, "Release", [consumer, options], "sa{sv}"))[0],
                  {
                      success: held => (node === ALL_NODES
                          ? format(_("Released the $0 claim of $1; other consumers' pages stay (the pool holds $2 persistent pages)."),
                                   sizeName(size), consumer, held)
                          : format(_("Released the $0 claim of $1; other consumers' pages stay (node $2 holds $3 persistent pages)."),
                                   sizeName(size), consumer, node, held)),
                  });
}

/* persist on Unmount removes the configuration section that makes the
 * mount, which only the service's own mounts have */
function unmount(path, managed) {
    return change(format(_("Unmounting $0"), path),
                  async () => (await call(MANAGER_PATH, MANAGER_IFACE, "Unmount", [path, managed ? changeOptions() : {}], "sa{sv}"))[0],
                  { success: paths => format(_("Unmounted $0."), paths.join(", ")) });
}

function setThp(key, value) {
    return change(format(_("Setting THP $0"), key),
                  async () => (await call(MANAGER_PATH, MANAGER_IFACE, "SetThp", [{ [key]: variant("s", value) }, changeOptions()], "a{sv}a{sv}"))[0],
                  { success: achieved => format(_("Transparent huge pages: $0 is now $1."), key, achieved[key] ? achieved[key].v : value) });
}

function setTunable(method, signature, args, what) {
    return change(what, () => call(MANAGER_PATH, MANAGER_IFACE, method, [...args, changeOptions()], signature),
                  { success: result => (result && result.length ? format(_("$0: now $1."), what, result[0]) : format(_("$0: done."), what)) });
}

/* Writes BootParameters for the boot loader (the GRUB drop-in); the running
 * kernel keeps its pages until the next boot. With "" the service removes
 * its drop-in instead. RebootRequired compares the configuration with the
 * running kernel, so it is current before the call returns. */
function configureBoot() {
    const params = manager.BootParameters || "";
    return change(_("Writing the boot configuration"),
                  async () => (await call(MANAGER_PATH, MANAGER_IFACE, "ConfigureBoot", [{}], "a{sv}"))[0],
                  {
                      success: path => ({
                          severity: "success",
                          title: params
                              ? format(_("Wrote $0 to $1."), params, path)
                              : format(_("Removed $0: the configuration asks for no huge pages at boot."), path),
                          body: manager.RebootRequired
                              ? _("Reboot required: the running kernel keeps its huge pages until the next boot.")
                              : _("No reboot required: the running kernel was booted with these parameters."),
                      }),
                  });
}

/* The dialog's preview: the drop-in a write would touch, or why it cannot
 * (NotSupported says what to add to the kernel command line by hand). A
 * dry run needs no authorization and changes nothing. */
async function previewBoot() {
    try {
        const [path] = await call(MANAGER_PATH, MANAGER_IFACE, "ConfigureBoot", [{ "dry-run": variant("b", true) }], "a{sv}");
        return { path };
    } catch (error) {
        return { error: describeError(error) };
    }
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
    notify();
}

function applyFix(entry) {
    const plan = planFix(entry, { sizeByName, manager });
    if (!plan)
        return;
    if (plan.resize)
        return resizePool(plan.resize.proxy, plan.resize.pages);
    return change(plan.title, () => call(plan.path, plan.iface, plan.method, plan.args, plan.signature),
                  { success: () => format(_("$0: done."), plan.title) });
}

async function scanUsage() {
    state.usage = null;
    state.usageError = null;
    state.usageRunning = true;
    notify();
    try {
        const [usage] = await call(MANAGER_PATH, MANAGER_IFACE, "GetUsage", [{}], "a{sv}");
        state.usage = usage;
    } catch (error) {
        state.usageError = describeError(error);
    }
    state.usageRunning = false;
    notify();
}

function disabled() {
    return Boolean(state.limited || state.busy);
}

/* What app.jsx draws from */
const api = {
    state, manager, records, sizeProxies, history, HISTORY_MS, sizeByName, sizeName, resizeStart,
    disabled,
    actions: {
        resizePool, setMaximum, setNodePages, demote, removeOrphan, claim, release, createMounts, unmount, setThp, setTunable,
        configureBoot, previewBoot, applyFix, refreshExplain, scanUsage,
    },
    setPersist(on) {
        state.persist = on;
        notify();
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
        notify();
    });
}

/* --- start ----------------------------------------------------------------- */

function start() {
    followShellTheme();
    mountApp(document.getElementById("app"), api);
    manager.addEventListener("changed", notify);
    cockpit.addEventListener("locationchanged", notify);
    pageSizes.addEventListener("added", () => { recordPools(); notify(); });
    pageSizes.addEventListener("changed", () => { recordPools(); notify(); });
    /* the charts move on while nothing changes */
    window.setInterval(notify, 5000);
    pageSizes.addEventListener("removed", notify);
    client.addEventListener("close", (event, options) => {
        state.unavailable = cockpit.message(options);
        notify();
    });
    manager.wait(() => {
        if (!manager.valid) {
            state.unavailable = _("hugepagesd is not running or does not answer on the system bus (org.hugepages.Manager). Start hugepagesd.service.");
            notify();
            return;
        }
        notify();
        refreshExplain();
        document.body.dataset.ready = "yes";
    });
    watchSuperuser();
}

document.addEventListener("DOMContentLoaded", start);
