#!/usr/bin/env node
// SPDX-FileCopyrightText: 2026 The hugepagesd authors
// SPDX-License-Identifier: LGPL-2.1-or-later

/* The browser half of the real-shell tests (test_shell.py, conftest.py):
 * Debian's chromium, driven by playwright-core, logs in to cockpit-ws
 * through its login page as HP_USER with HP_PASSWORD, finds the page in the
 * shell's navigation and by its search, and runs one scenario inside the
 * page's iframe. Prints "RESULT {json}" with what it saw; screenshots of
 * each view, light and dark and 360 px wide, go to HP_SCREENSHOTS.
 *
 *   HP_BASE=http://127.0.0.1:PORT HP_USER=... HP_PASSWORD=... node shell.mjs SCENARIO
 */
import assert from "node:assert/strict";
import path from "node:path";
import { PARAMS, SHOTS, TEST, go as goTo, log, run } from "./scenario.mjs";

const BASE = process.env.HP_BASE;
const USER = process.env.HP_USER;
const PASSWORD = process.env.HP_PASSWORD;
const TIMEOUT = 20000;
const FRAME_NAME = "cockpit1:localhost/hugepages";
const FRAME = `iframe[name="${FRAME_NAME}"]`;
const AXE = path.join(process.env.HP_NODE_MODULES, "axe-core", "axe.min.js");
const result = { shots: [], axe: {} };

/* the page as it is, then dark and at a phone's width; back as it was */
async function shots(page, name) {
    const views = [
        ["light", { width: 1400, height: 1000 }, "light"],
        ["dark", { width: 1400, height: 1000 }, "dark"],
        ["360", { width: 360, height: 800 }, "light"],
    ];
    for (const [suffix, viewport, scheme] of views) {
        await page.setViewportSize(viewport);
        await page.emulateMedia({ colorScheme: scheme });
        const frame = page.frameLocator(FRAME);
        if (await page.locator(FRAME).count())
            await frame.locator(`html${scheme === "dark" ? "" : ":not("}.pf-v6-theme-dark${scheme === "dark" ? "" : ")"}`)
                    .waitFor({ timeout: TIMEOUT });
        /* colours as they settle (for the picture and for axe's contrast
         * checks): the theme's switch runs CSS transitions */
        const pageFrame = page.frame({ name: FRAME_NAME });
        if (pageFrame && await page.locator(FRAME).count())
            await pageFrame.evaluate(() => Promise.all(document.getAnimations().filter(a => a instanceof CSSTransition)
                .map(a => a.finished.catch(() => null))));
        const file = path.join(SHOTS, `${TEST}-${name}-${suffix}.png`);
        await page.screenshot({ path: file });
        result.shots.push(path.basename(file));
        log(`screenshot ${file}`);
        await checkAxe(page, `${name}-${suffix}`);
    }
    await page.setViewportSize({ width: 1400, height: 1000 });
    await page.emulateMedia({ colorScheme: "light" });
}

/* axe-core on the page's document (the shell is Cockpit's): WCAG A and AA;
 * a serious or critical violation fails, the rest is reported */
async function checkAxe(page, view) {
    const frame = page.frame({ name: FRAME_NAME });
    if (!frame || !(await page.locator(FRAME).count()))
        return;
    if (!(await frame.evaluate(() => typeof window.axe !== "undefined")))
        await frame.addScriptTag({ path: AXE });
    const found = await frame.evaluate(() => window.axe.run(document, {
        runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
    }).then(r => r.violations.map(v => ({
        id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map(n => n.target.join(" ")),
    }))));
    result.axe[view] = found;
    for (const v of found)
        log(`axe ${view}: ${v.impact} ${v.id}: ${v.help} (${v.nodes.join(", ")})`);
    const bad = found.filter(v => v.impact === "serious" || v.impact === "critical");
    assert.deepEqual(bad, [], `axe-core: serious or critical violations in ${view}`);
}

/* Tab (and nothing else) until @selector in the page has the focus */
async function tabTo(page, frame, selector) {
    for (let i = 0; i < 400; i++) {
        if (await frame.locator(`${selector}:focus`).count())
            return i;
        await page.keyboard.press("Tab");
    }
    throw new Error(`Tab never reached ${selector}`);
}

async function login(page) {
    await page.goto(`${BASE}/`);
    await page.locator("#login-user-input").waitFor({ timeout: TIMEOUT });
    if (PARAMS.shellViews)
        await shots(page, "login");
    /* limited access at first: the indicator then offers the switch */
    await page.evaluate(user => window.localStorage.setItem(`superuser:${user}`, "none"), USER);
    await page.fill("#login-user-input", USER);
    await page.fill("#login-password-input", PASSWORD);
    await page.click("#login-button");
    await page.locator("#content").waitFor({ timeout: TIMEOUT });
    await page.locator("#super-user-indicator").getByText("Limited access").waitFor({ timeout: TIMEOUT });
}

/* "Huge pages" in the navigation, and by the shell's search */
async function findPage(page) {
    const nav = page.getByRole("navigation");
    const link = nav.getByRole("link", { name: "Huge pages", exact: true });
    await link.waitFor({ timeout: TIMEOUT });
    result.nav = (await link.getAttribute("href")) || "";
    const search = page.getByPlaceholder("Search", { exact: true });
    await search.fill("dpdk");
    const hit = nav.getByRole("link", { name: /Huge pages/ });
    await hit.waitFor({ timeout: TIMEOUT });
    result.search = (await hit.textContent()).trim();
    if (PARAMS.shellViews)
        await shots(page, "search");
    await hit.click();
    await page.locator(`${FRAME}[data-loaded]`).waitFor({ timeout: TIMEOUT });
    await search.fill("");
    const frame = page.frameLocator(FRAME);
    await frame.locator("body[data-ready=yes]").waitFor({ timeout: TIMEOUT });
    await frame.locator("#hp-summary").waitFor({ timeout: TIMEOUT });
    return frame;
}

const go = (frame, view) => goTo(frame, view, TIMEOUT);

async function readOnly(page, frame) {
    const notice = frame.locator("#hp-readonly");
    await notice.waitFor({ timeout: TIMEOUT });
    result.readonly = (await notice.textContent()).trim();
    await shots(page, "read-only");
    for (const [view, selector] of [["pools", "#hp-pool-actions-2MB"], ["mounts", "#hp-mount-create"],
        ["claims", "#hp-claim-open"], ["claims", "#hp-persist"]]) {
        await go(frame, view);
        assert.equal(await frame.locator(selector).isDisabled(), true, `${selector} is disabled`);
    }
}

async function resize(page, frame, pages) {
    await frame.locator("#hp-readonly").waitFor({ state: "detached", timeout: TIMEOUT });
    await go(frame, "pools");
    await frame.locator("#hp-pool-actions-2MB").click();
    await frame.getByRole("menuitem", { name: "Set minimum…" }).click();
    await frame.locator("#hp-resize-2MB").fill(String(pages));
    await shots(page, "resize-dialog");
    await frame.locator("#hp-resize-button-2MB").click();
    await resultOfResize(page, frame, pages);
}

async function resultOfResize(page, frame, pages) {
    const notice = frame.locator("#hp-notice");
    await notice.waitFor({ timeout: TIMEOUT });
    result.notice = (await notice.textContent()).trim();
    result.severity = await notice.getAttribute("data-severity");
    await frame.locator("#hp-pool-2MB .hp-total").getByText(String(pages), { exact: true })
            .waitFor({ timeout: TIMEOUT });
    await shots(page, "changed");
}

const scenarios = {
    /* read only with the reason, then administrative access (sudo) */
    async admin(page) {
        await login(page);
        const frame = await findPage(page);
        await readOnly(page, frame);
        await page.locator("#super-user-indicator button").click();
        const dialog = page.getByRole("dialog");
        const password = dialog.locator("input[type=password]");
        await password.waitFor({ timeout: TIMEOUT });
        await shots(page, "admin-dialog");
        await password.fill(PASSWORD);
        await dialog.getByRole("button", { name: "Authenticate" }).click();
        await page.locator("#super-user-indicator").getByText("Administrative access")
                .waitFor({ timeout: TIMEOUT });
        /* cockpit.permission reloads the page when the access changes */
        const reloaded = page.frameLocator(FRAME);
        await reloaded.locator("body[data-ready=yes]").waitFor({ timeout: TIMEOUT });
        await resize(page, reloaded, PARAMS.pages);
    },

    /* no administrative access; a polkit rule lets this user change pools,
     * with the keyboard alone from the shell's navigation on */
    async polkit(page) {
        await login(page);
        const frame = await findPage(page);
        await frame.locator("#hp-readonly").waitFor({ state: "detached", timeout: TIMEOUT });
        await frame.locator("#hp-open-pools").waitFor({ timeout: TIMEOUT });
        await page.getByRole("navigation").getByRole("link", { name: "Huge pages", exact: true }).focus();
        /* the summary's Pools card, the row's kebab, its first item, the
         * dialog's field */
        result.tabs = await tabTo(page, frame, "#hp-open-pools");
        await page.keyboard.press("Enter");
        await frame.locator("#hp-pool-actions-2MB:enabled").waitFor({ timeout: TIMEOUT });
        result.tabs += await tabTo(page, frame, "#hp-pool-actions-2MB");
        await page.keyboard.press("Enter");
        await frame.getByRole("menuitem", { name: "Set minimum…" }).and(frame.locator(":focus"))
                .waitFor({ timeout: TIMEOUT });
        await page.keyboard.press("Enter");
        result.tabs += await tabTo(page, frame, "#hp-resize-2MB");
        await page.keyboard.press("Control+A");
        await page.keyboard.type(String(PARAMS.pages));
        result.tabs += await tabTo(page, frame, "#hp-resize-button-2MB");
        await page.keyboard.press("Enter");
        await resultOfResize(page, frame, PARAMS.pages);
    },

    /* no rights at all: nothing can change, and the page says why */
    async nobody(page) {
        await login(page);
        const frame = await findPage(page);
        await readOnly(page, frame);
        /* every view: nothing that changes is enabled; axe on each */
        result.disabled = 0;
        result.enabledChanges = 0;
        for (const view of ["pools", "explain", "claims", "mounts", "tunables", "usage", "config"]) {
            await go(frame, view);
            if (view === "explain")
                await frame.locator("#hp-explain-table, #hp-explain-empty").first().waitFor({ timeout: TIMEOUT });
            await shots(page, `view-${view}`);
            result.disabled += await frame.locator("button:disabled, input:disabled, select:disabled").count();
            result.enabledChanges += await frame.locator(
                "#hp-pool-actions-2MB:enabled, #hp-persist:enabled, #hp-mount-create:enabled, #hp-claim-open:enabled, " +
                "#hp-explain-table button:not(#hp-explain-refresh):enabled, #hp-tunables-table button:enabled, " +
                "#hp-thp-table select:enabled, #hp-tunables-table input:enabled").count();
        }
    },
};

run(scenarios, result, {
    /* axe is added as a script tag, which the page's CSP would block */
    newPage: async browser => (await browser.newContext({ viewport: { width: 1400, height: 1000 }, bypassCSP: true })).newPage(),
    /* the shell's own complaints (a failed login attempt's 401, services
     * this machine lacks) are Cockpit's; the page's are ours */
    isOwnError: msg => (msg.location().url || "").includes("/hugepages/"),
    onFailure: async page => {
        log(await page.locator("body").innerText());
        const frame = page.frame({ name: FRAME_NAME });
        if (frame)
            log(await frame.locator("body").innerText());
    },
});
