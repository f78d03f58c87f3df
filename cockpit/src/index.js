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
import { parseBytes } from "./validate.js";
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
        notify();
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
    /* the dialog checked the limit (validate.js) */
    if (maxSize)
        options["max-size"] = /%$/.test(maxSize) ? variant("s", maxSize) : variant("t", parseBytes(maxSize));
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
                  { success: () => `${plan.title}: done.` });
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
    state, manager, records, sizeProxies, sizeByName, sizeName, resizeStart,
    disabled,
    actions: {
        resizePool, setMaximum, setNodePages, claim, release, createMounts, unmount, setThp, setTunable,
        applyFix, refreshExplain, scanUsage,
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
    pageSizes.addEventListener("added", notify);
    pageSizes.addEventListener("changed", notify);
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
        notify();
        refreshExplain();
        document.body.dataset.ready = "yes";
    });
    watchSuperuser();
}

document.addEventListener("DOMContentLoaded", start);
