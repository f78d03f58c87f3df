#!/usr/bin/env node
// SPDX-FileCopyrightText: 2026 The hugepagesd authors
// SPDX-License-Identifier: LGPL-2.1-or-later

/* The browser half of the cockpit tier (see conftest.py): Debian's chromium
 * driven by playwright-core (cockpit/node_modules, no browser download)
 * runs one scenario against the page that cockpit-ws serves, asserting as it
 * goes, and prints "RESULT {json}" with what it saw. Changes "behind the
 * service's back" are plain writes into the fake kernel tree.
 *
 *   HP_URL=... HP_KERNEL_ROOT=... HP_SCREENSHOTS=DIR node browser.mjs SCENARIO
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { PARAMS, SHOTS, TEST, go as goTo, log, run } from "./scenario.mjs";

const URL = process.env.HP_URL;
const ROOT = process.env.HP_KERNEL_ROOT;
const TIMEOUT = 15000;
const result = {};

function kernelWrite(rel, value) {
    log(`kernel: ${rel} = ${value}`);
    fs.writeFileSync(path.join(ROOT, rel), `${value}\n`);
}

function kernelRead(rel) {
    return fs.readFileSync(path.join(ROOT, rel), "utf8").trim();
}

const POOL_2MB = "sys/kernel/mm/hugepages/hugepages-2048kB";

async function shot(page, name) {
    const file = path.join(SHOTS, `${TEST}-${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    log(`screenshot ${file}`);
}

async function text(page, selector) {
    return (await page.locator(selector).first().textContent({ timeout: TIMEOUT })).trim();
}

async function waitText(page, selector, expected, timeout = TIMEOUT) {
    const locator = page.locator(selector).first();
    const deadline = Date.now() + timeout;
    let last = null;
    for (;;) {
        try {
            last = (await locator.textContent({ timeout: 1000 })).trim();
        } catch (e) {
            last = `(${e.message.split("\n")[0]})`;
        }
        if (expected instanceof RegExp ? expected.test(last) : last === String(expected))
            return last;
        if (Date.now() > deadline)
            throw new Error(`${selector}: waited ${timeout} ms for ${expected}, last saw ${JSON.stringify(last)}`);
        await new Promise(resolve => setTimeout(resolve, 100));
    }
}

const go = (page, view) => goTo(page, view, TIMEOUT);

async function open(page, view = "pools") {
    await page.goto(URL);
    await page.locator("body[data-ready=yes]").waitFor({ timeout: TIMEOUT });
    await page.locator("#hp-summary").waitFor({ timeout: TIMEOUT });
    await go(page, view);
}

async function notice(page) {
    const locator = page.locator("#hp-notice");
    await locator.waitFor({ timeout: TIMEOUT });
    return {
        severity: await locator.getAttribute("data-severity"),
        text: (await locator.textContent()).trim(),
    };
}

/* a pool's action from its row's kebab menu: the dialog it opens */
async function poolAction(page, name, action) {
    await page.click(`#hp-pool-actions-${name}`);
    await page.getByRole("menuitem", { name: action }).click();
}

async function resize(page, name, pages) {
    await poolAction(page, name, "Set minimum…");
    await page.fill(`#hp-resize-${name}`, String(pages));
    await page.click(`#hp-resize-button-${name}`);
    await page.locator(`#hp-resize-${name}`).waitFor({ state: "detached", timeout: TIMEOUT });
}

const scenarios = {
    /* read the pools, resize one, a shortfall with its progress, and a
     * change made behind the service's back */
    async pools(page) {
        await open(page);
        result.pools = await page.locator("#hp-pools-table tbody tr").evaluateAll(
            rows => rows.map(r => r.dataset.pool));
        assert.deepEqual(result.pools, ["2MB", "1GB"]);
        assert.equal(await text(page, "#hp-pool-2MB .hp-total"), String(PARAMS.total));
        assert.equal(await text(page, "#hp-pool-2MB .hp-free"), String(PARAMS.free));
        const nodes = await page.locator("#hp-pool-2MB .hp-node").allTextContents();
        assert.equal(nodes.length, 2, `two NUMA nodes: ${nodes}`);
        /* each node's target beside its pages, where it has one */
        result.nodeTargets = await page.locator("#hp-pool-2MB .hp-node").evaluateAll(
            divs => divs.map(d => [d.dataset.node, d.querySelector(".hp-node-target")?.textContent.trim() ?? null]));
        /* the bars: in use, reserved, free, surplus, in words for everyone */
        result.bar = await page.locator("#hp-bar-2MB [role=img]").getAttribute("aria-label");
        result.nodeBars = await page.locator("#hp-pool-2MB .hp-node [role=img]").evaluateAll(
            bars => bars.map(b => b.getAttribute("aria-label")));
        await shot(page, "loaded");

        await resize(page, "2MB", PARAMS.grant);
        let n = await notice(page);
        log("notice", n);
        assert.equal(n.severity, "success");
        assert.match(n.text, new RegExp(`now has ${PARAMS.grant} pages, as requested`));
        await waitText(page, "#hp-pool-2MB .hp-total", String(PARAMS.grant));
        result.granted = kernelRead(`${POOL_2MB}/nr_hugepages`);

        /* more than the (fake) kernel can give: the hard mode retries, the
         * progress shows, and the shortfall is reported */
        /* a phase that only AllocationProgress signals can bring, recorded
         * by the page as it shows (a busy machine may end the call before a
         * poll from here would see it) */
        await page.evaluate(() => {
            const observer = new MutationObserver(() => {
                const el = document.getElementById("hp-progress-2MB");
                if (el && el.dataset.phase !== "starting") {
                    const bar = el.querySelector("[role=progressbar]");
                    window.hpProgressSeen = { phase: el.dataset.phase, progress: bar && bar.getAttribute("aria-valuetext") };
                    observer.disconnect();
                }
            });
            observer.observe(document.body, { subtree: true, childList: true, attributes: true });
        });
        await resize(page, "2MB", PARAMS.ask);
        const seen = await (await page.waitForFunction(() => window.hpProgressSeen, null, { timeout: TIMEOUT })).jsonValue();
        result.phase = seen.phase;
        result.progress = seen.progress;
        log("progress", result.progress);
        await shot(page, "progress");
        await page.locator("#hp-progress-2MB").waitFor({ state: "detached", timeout: 60000 });
        n = await notice(page);
        log("notice", n);
        assert.equal(n.severity, "warning");
        assert.match(n.text, new RegExp(`got ${PARAMS.limit} of the ${PARAMS.ask} pages requested`));
        await shot(page, "shortfall");

        /* another program changes the pool: the page follows */
        kernelWrite(`${POOL_2MB}/nr_hugepages`, PARAMS.behind);
        kernelWrite(`${POOL_2MB}/free_hugepages`, PARAMS.behind);
        const t0 = Date.now();
        await waitText(page, "#hp-pool-2MB .hp-total", String(PARAMS.behind), 10000);
        await waitText(page, "#hp-pool-2MB .hp-free", String(PARAMS.behind), 10000);
        result.liveMs = Date.now() - t0;
        /* the configuration changes a node's target, no counter: it follows too */
        fs.writeFileSync(path.join(ROOT, "etc/hugepagesd/hugepagesd.conf"), `[pool 2MB]\nnode0 = ${PARAMS.node0}\n`);
        await waitText(page, '#hp-pool-2MB .hp-node[data-node="0"] .hp-node-target', `target ${PARAMS.node0}`, 10000);
        /* the live chart drew the change from the same stream */
        await page.waitForFunction(behind => document.getElementById("hp-chart-2MB").dataset.lastTotal === String(behind),
                                   PARAMS.behind, { timeout: TIMEOUT });
        result.chartSamples = Number(await page.locator("#hp-chart-2MB").getAttribute("data-samples"));
        result.chartLabel = await page.locator("#hp-chart-2MB svg").getAttribute("aria-label");
        result.chartPath = await page.locator("#hp-chart-2MB .hp-chart-total").getAttribute("d");
        await shot(page, "live");

        /* one NUMA node's share: the dialog validates as one types */
        await poolAction(page, "2MB", "Pages per node…");
        await page.click("#hp-node-select-2MB-1");
        await page.fill("#hp-node-2MB", "-3");
        assert.equal(await page.locator("#hp-node-button-2MB").isDisabled(), true, "a negative count is refused");
        result.nodeInvalid = await text(page, "#hp-node-2MB-helper");
        await page.fill("#hp-node-2MB", String(PARAMS.node1));
        assert.equal(await page.locator("#hp-node-button-2MB").isDisabled(), false);
        await shot(page, "node-dialog");
        await page.click("#hp-node-button-2MB");
        n = await notice(page);
        log("notice", n);
        assert.equal(n.severity, "success", n.text);
        assert.match(n.text, new RegExp(`Node 1 now has ${PARAMS.node1} 2MB pages, as requested`));
    },

    /* polkit refuses: a message people understand, then read only */
    async denied(page) {
        await open(page);
        assert.equal(await page.locator("#hp-readonly").count(), 0, "not read only before a refusal");
        await resize(page, "2MB", 5);
        const n = await notice(page);
        log("notice", n);
        assert.equal(n.severity, "danger");
        assert.match(n.text, /not allowed to make this change/);
        assert.match(n.text, /Not authorized/);
        assert.doesNotMatch(n.text, /^org\.hugepages/);
        result.notice = n.text;
        result.readonly = await text(page, "#hp-readonly");
        assert.match(result.readonly, /Read only/);
        assert.equal(await page.locator("#hp-pool-actions-2MB").isDisabled(), true);
        await go(page, "mounts");
        assert.equal(await page.locator("#hp-mount-create").isDisabled(), true);
        await shot(page, "readonly");
    },

    /* a session without administrative access: read only from the start,
     * the reason shown, every change disabled; reading still works */
    async limited(page) {
        await open(page);
        await page.locator("#hp-readonly").waitFor({ timeout: TIMEOUT });
        result.readonly = await text(page, "#hp-readonly");
        assert.match(result.readonly, /Read only/);
        assert.equal(await text(page, "#hp-pool-2MB .hp-total"), "0");
        for (const [view, selector] of [["pools", "#hp-pool-actions-2MB"], ["mounts", "#hp-mount-create"],
            ["claims", "#hp-claim-open"], ["mounts", "#hp-persist"], ["config", "#hp-boot-write"]]) {
            await go(page, view);
            assert.equal(await page.locator(selector).isDisabled(), true, `${selector} is disabled`);
        }
        /* the boot section says why its button is off */
        result.bootReadonly = await text(page, "#hp-boot-write-readonly");
        await go(page, "explain");
        await page.locator("#hp-explain-table, #hp-explain-empty").first().waitFor({ timeout: TIMEOUT });
        const fixes = page.locator("#hp-explain-table button:not(#hp-explain-refresh)");
        for (let i = 0; i < await fixes.count(); i++)
            assert.equal(await fixes.nth(i).isDisabled(), true, "Explain fixes are disabled");
        await shot(page, "limited");
    },

    /* no hugepagesd on the bus: said in words */
    async missing(page) {
        await page.goto(URL);
        await page.locator("#hp-unavailable").waitFor({ timeout: TIMEOUT });
        result.unavailable = await text(page, "#hp-unavailable");
        assert.match(result.unavailable, /hugepagesd is not running/);
        await shot(page, "missing");
    },

    /* an error of the service's own: friendly text and its message */
    async limit(page) {
        await open(page);
        await resize(page, "2MB", PARAMS.pages);
        const n = await notice(page);
        log("notice", n);
        assert.equal(n.severity, "danger");
        result.notice = n.text;
        assert.match(n.text, /more than this machine's memory allows: \S/);
        assert.equal(await page.locator("#hp-readonly").count(), 0, "a refused value is not a refused user");
        await shot(page, "error");
    },

    /* a bad consumer name is refused in the page; a claim grows the pool and
     * is listed; its release shrinks the pool again */
    async claims(page) {
        await open(page, "claims");
        await page.click("#hp-claim-open");
        await page.fill("#hp-claim-consumer", "Bad Name");
        await page.fill("#hp-claim-pages", String(PARAMS.pages));
        /* checked as one types: the dialog says why and cannot be sent */
        result.refused = await waitText(page, "#hp-claim-consumer-helper", /consumer name/);
        assert.equal(await page.locator("#hp-claim-button").isDisabled(), true, "a bad name cannot be sent");
        await page.keyboard.press("Enter");
        await shot(page, "claim-invalid");
        await page.fill("#hp-claim-consumer", "postgresql");
        await page.selectOption("#hp-claim-size", "2MB");
        await page.click("#hp-claim-node-all");
        await page.click("#hp-claim-button");
        await waitText(page, "#hp-notice", /holds its/);
        const n = await notice(page);
        assert.equal(n.severity, "success", n.text);
        result.claimed = n.text;
        const row = page.locator('#hp-claims-table tr[data-claim="postgresql 2MB all"]');
        await row.waitFor({ timeout: TIMEOUT });
        result.pages = await text(page, '#hp-claims-table tr[data-claim="postgresql 2MB all"] .hp-claim-pages');
        result.poolAfterClaim = kernelRead(`${POOL_2MB}/nr_hugepages`);
        await shot(page, "claimed");
        await row.locator("#hp-claim-actions-postgresql-2MB-all").click();
        await page.getByRole("menuitem", { name: "Release" }).click();
        await waitText(page, "#hp-notice", /Released/);
        await row.waitFor({ state: "detached", timeout: TIMEOUT });
        result.poolAfterRelease = kernelRead(`${POOL_2MB}/nr_hugepages`);
        await shot(page, "released");
    },

    /* create a system mount for 2MB pages, see it listed, unmount it */
    async mounts(page) {
        await open(page, "mounts");
        await page.click("#hp-mount-create");
        await page.selectOption("#hp-mount-scope", "system");
        await page.selectOption("#hp-mount-size", "2MB");
        /* a limit that is no size: said as one types, nothing sent */
        await page.fill("#hp-mount-max", "lots");
        result.badLimit = await waitText(page, "#hp-mount-max-helper", /size limit must be/);
        assert.equal(await page.locator("#hp-mount-submit").isDisabled(), true);
        await page.fill("#hp-mount-max", "");
        await page.click("#hp-mount-submit");
        let n = await notice(page);
        log("notice", n);
        assert.equal(n.severity, "success", n.text);
        const path = PARAMS.path;
        assert.match(n.text, new RegExp(`Mounted ${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
        const row = page.locator(`#hp-mounts-table tr[data-mount="${path}"]`);
        await row.waitFor({ timeout: TIMEOUT });
        result.row = (await row.textContent()).trim();
        await shot(page, "mounted");
        await row.getByRole("button", { name: `Actions of ${path}` }).click();
        await page.getByRole("menuitem", { name: "Unmount" }).click();
        await row.waitFor({ state: "detached", timeout: TIMEOUT });
        n = await notice(page);
        assert.equal(n.severity, "success", n.text);
        await shot(page, "unmounted");
    },

    /* an Explain finding with a fix: the button makes it */
    async explain(page) {
        await open(page, "explain");
        const entry = page.locator('#hp-explain-table tr[data-explain="thp-enabled-always"]');
        await entry.waitFor({ timeout: TIMEOUT });
        result.finding = (await entry.textContent()).trim();
        await shot(page, "finding");
        await page.click("#hp-fix-thp-enabled-always");
        const n = await notice(page);
        log("notice", n);
        assert.equal(n.severity, "success", n.text);
        await entry.waitFor({ state: "detached", timeout: TIMEOUT });
        await go(page, "tunables");
        await waitText(page, '#hp-thp-table tr[data-thp="enabled"] .hp-thp-current', "madvise");
        result.thp = kernelRead("sys/kernel/mm/transparent_hugepage/enabled");
        await shot(page, "fixed");
    },

    /* the persisted configuration with drift, tunables and usage */
    async config(page) {
        await open(page, "config");
        const drifted = page.locator('#hp-config-table tr[data-config="pool 2MB minimum"]');
        await drifted.waitFor({ timeout: TIMEOUT });
        assert.equal(await drifted.getAttribute("data-drift"), "yes");
        result.drift = (await drifted.textContent()).trim();
        const settled = page.locator('#hp-config-table tr[data-config="thp enabled"]');
        assert.equal(await settled.getAttribute("data-drift"), "no");
        await shot(page, "drift");
        /* the kernel catches up with the configuration: the drift goes */
        kernelWrite(`${POOL_2MB}/nr_hugepages`, PARAMS.configured);
        await page.locator('#hp-config-table tr[data-config="pool 2MB minimum"][data-drift="no"]')
                .waitFor({ timeout: 10000 });
        await go(page, "tunables");
        assert.equal(await text(page, "#hp-min-free-value"), String(PARAMS.minFree));
        /* tunables: min_free_kbytes to the recommended value, kept after
         * reboot: the configuration then lists it */
        await page.check("#hp-persist");
        await page.locator("#hp-tunables-table button", { hasText: "Use recommended" }).nth(1).click();
        const n = await notice(page);
        assert.equal(n.severity, "success", n.text);
        await waitText(page, "#hp-min-free-value", String(PARAMS.recommendedMinFree));
        await go(page, "config");
        const saved = page.locator('#hp-config-table tr[data-config="tunables min-free-kbytes"]');
        await saved.waitFor({ timeout: 10000 });
        result.saved = (await saved.textContent()).trim();
        assert.equal(await saved.getAttribute("data-drift"), "no");
        /* usage */
        await go(page, "usage");
        await page.click("#hp-usage-scan");
        await page.locator("#hp-usage-processes").waitFor({ timeout: 30000 });
        assert.equal(await page.locator("#hp-usage .pf-m-danger").count(), 0, "the usage scan failed");
        /* processes, files and segments: each a table, or an empty state */
        result.usageTables = await page.locator("#hp-usage-processes, #hp-usage-files, #hp-usage-sysv").count();
        /* per process and per cgroup, drawn as well as listed */
        result.processBars = await page.locator("#hp-usage-processes [role=img]").evaluateAll(
            bars => bars.map(b => [b.getAttribute("aria-label"), b.style.width]));
        result.cgroupBars = await page.locator("#hp-usage-cgroups [role=img]").evaluateAll(
            bars => bars.map(b => [b.getAttribute("aria-label"), b.style.width]));
        await shot(page, "config");
    },

    /* free 1 GB pages split into 2 MB pages from the pool's menu */
    async demote(page) {
        await open(page);
        await poolAction(page, "1GB", "Demote…");
        await page.fill("#hp-demote-1GB", String(PARAMS.pages));
        await shot(page, "demote-dialog");
        await page.click("#hp-demote-button-1GB");
        const n = await notice(page);
        log("notice", n);
        result.notice = n.text;
        result.severity = n.severity;
    },

    /* an orphaned hugetlbfs file from the usage scan, removed from its row's menu */
    async orphan(page) {
        await open(page, "usage");
        await page.click("#hp-usage-scan");
        const row = page.locator("#hp-usage-files tr", { hasText: PARAMS.path });
        await row.waitFor({ timeout: 30000 });
        result.row = (await row.textContent()).trim();
        /* a mapped file offers no removal */
        result.mappedActions = await page.locator("#hp-usage-files tr", { hasText: PARAMS.mapped })
                .getByRole("button").count();
        await row.getByRole("button", { name: `Actions of ${PARAMS.path}` }).click();
        await page.getByRole("menuitem", { name: "Remove" }).click();
        await waitText(page, "#hp-notice", /Removed/);
        const n = await notice(page);
        assert.equal(n.severity, "success", n.text);
        result.notice = n.text;
        await row.waitFor({ state: "detached", timeout: 30000 });
        await shot(page, "orphan-removed");
    },

    /* a German browser: the page's strings from its German catalog */
    async german(page) {
        await page.goto(URL);
        await page.locator("body[data-ready=yes]").waitFor({ timeout: TIMEOUT });
        result.title = await text(page, "h1");
        result.claims = await text(page, "#hp-summary-claims-title");
        result.persist = await text(page, "label[for=hp-persist]");
        result.summary = await text(page, "#hp-summary-claims");
        await go(page, "pools");
        result.headers = await page.locator("#hp-pools-table th").allTextContents();
        result.back = await text(page, "#hp-back");
        await shot(page, "german");
    },

    /* nothing silent in the configuration: not applied at boot, a value
     * overridden by a drop-in, a THP value that is no keyword */
    async configTruth(page) {
        await open(page, "config");
        const hook = page.locator("#hp-apply-at-boot");
        await hook.waitFor({ timeout: TIMEOUT });
        result.hook = (await hook.textContent()).trim();
        const override = page.locator('#hp-card-config [data-override="pool 2MB minimum"]');
        await override.waitFor({ timeout: TIMEOUT });
        result.override = (await override.textContent()).trim();
        result.errors = await page.locator("#hp-card-config .pf-m-danger").allTextContents();
        await shot(page, "config-truth");
    },

    /* the configuration's boot parameters written from the boot section:
     * the dialog shows what and where, the notice what was written */
    async boot(page) {
        await open(page, "config");
        await waitText(page, "#hp-boot code", PARAMS.params);
        await page.locator("#hp-reboot-required").waitFor({ timeout: TIMEOUT });
        await page.click("#hp-boot-write");
        await page.locator("#hp-boot-dialog-path").waitFor({ timeout: TIMEOUT });
        result.dialogParams = await text(page, "#hp-boot-dialog-params");
        result.dialogPath = await text(page, "#hp-boot-dialog-path");
        await shot(page, "boot-dialog");
        await page.click("#hp-boot-write-button");
        await page.locator("#hp-boot-dialog").waitFor({ state: "detached", timeout: TIMEOUT });
        await waitText(page, "#hp-notice", /Wrote/);
        const n = await notice(page);
        log("notice", n);
        result.notice = n.text;
        result.severity = n.severity;
        /* the running kernel is unchanged: still a reboot away */
        assert.equal(await page.locator("#hp-reboot-required").count(), 1);
        await shot(page, "boot-written");
    },

    /* BootDropIn beside the boot parameters: the file missing, offered as
     * the primary action, written, edited by hand, then unreadable to
     * other accounts (its contents are then not shown) */
    async bootDropIn(page) {
        await page.goto(URL);
        await page.locator("body[data-ready=yes]").waitFor({ timeout: TIMEOUT });
        result.summary = await text(page, "#hp-summary-dropin-stale");
        await go(page, "config");
        result.path = await text(page, "#hp-boot-dropin-path");
        const state = page.locator("#hp-boot-dropin-state");
        assert.equal(await state.getAttribute("data-up-to-date"), "no");
        result.stale = (await state.textContent()).trim();
        result.missing = await text(page, "#hp-boot-dropin-why");
        result.none = await text(page, "#hp-boot-dropin-none");
        result.primaryWhenStale = await page.locator("#hp-boot-write.pf-m-primary").count();
        await shot(page, "dropin-missing");

        await page.click("#hp-boot-write");
        await page.locator("#hp-boot-dialog-path").waitFor({ timeout: TIMEOUT });
        await page.click("#hp-boot-write-button");
        await waitText(page, "#hp-notice", /Wrote/);
        await page.locator('#hp-boot-dropin-state[data-up-to-date="yes"]').waitFor({ timeout: TIMEOUT });
        result.fresh = await text(page, "#hp-boot-dropin-state");
        result.written = await page.locator("#hp-boot-dropin-contents").textContent({ timeout: TIMEOUT });
        assert.equal(await page.locator("#hp-boot-dropin-why").count(), 0);
        result.primaryWhenFresh = await page.locator("#hp-boot-write.pf-m-primary").count();
        await shot(page, "dropin-written");

        /* a line added by hand: lost at the next write, so not up to date */
        const file = PARAMS.path;
        fs.appendFileSync(file, PARAMS.handLine);
        await page.locator('#hp-boot-dropin-state[data-up-to-date="no"]').waitFor({ timeout: 10000 });
        result.edited = await page.locator("#hp-boot-dropin-contents").textContent({ timeout: TIMEOUT });
        result.differs = await text(page, "#hp-boot-dropin-why");
        result.primaryWhenEdited = await page.locator("#hp-boot-write.pf-m-primary").count();
        await shot(page, "dropin-edited");

        /* readable by root only: still compared, but its contents not shown */
        fs.chmodSync(file, 0o600);
        await page.locator("#hp-boot-dropin-hidden").waitFor({ timeout: 10000 });
        result.hidden = await text(page, "#hp-boot-dropin-hidden");
        assert.equal(await page.locator("#hp-boot-dropin-contents").count(), 0);
        assert.equal(await state.getAttribute("data-up-to-date"), "no");
        await shot(page, "dropin-hidden");
    },

    /* a system ConfigureBoot cannot write for: the dialog's dry run says
     * so with the text to add by hand, and Write stays off */
    async bootUnsupported(page) {
        await open(page, "config");
        await page.click("#hp-boot-write");
        const error = page.locator("#hp-boot-dialog-error");
        await error.waitFor({ timeout: TIMEOUT });
        result.error = (await error.textContent()).trim();
        assert.equal(await page.locator("#hp-boot-write-button").isDisabled(), true);
        await shot(page, "boot-unsupported");
    },
};

run(scenarios, result, {
    /* a locale of the scenario's (Accept-Language, which picks the page's po.js) */
    newPage: browser => browser.newPage({ viewport: { width: 1400, height: 1000 }, locale: PARAMS.locale }),
    onFailure: async page => log(await page.locator("#app").innerText()),
});
