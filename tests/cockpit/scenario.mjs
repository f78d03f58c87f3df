// SPDX-FileCopyrightText: 2026 The hugepagesd authors
// SPDX-License-Identifier: LGPL-2.1-or-later

/* What browser.mjs (the page on its own) and shell.mjs (the page in the
 * shell) share: the environment conftest.py passes, the tier's chromium,
 * the page's own views, and the run of one scenario that prints
 * "RESULT {json}" or fails with a screenshot of the moment. */
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.env.HP_NODE_MODULES, "noop.js"));
const { chromium } = require("playwright-core");

export const SHOTS = process.env.HP_SCREENSHOTS;
export const TEST = process.env.HP_TEST || "test";
export const PARAMS = JSON.parse(process.env.HP_PARAMS || "{}");

export function log(...args) {
    console.error(new Date().toISOString(), ...args);
}

/* The summary's card of @view opens its details; the breadcrumb leads
 * back. @root: the page, or the shell's frame of it. */
export async function go(root, view, timeout) {
    if (await root.locator("#hp-back").count())
        await root.locator("#hp-back").click();
    await root.locator(`#hp-open-${view}`).click();
    await root.locator(`#hp-card-${view}`).waitFor({ timeout });
}

/* Runs the scenario named on the command line: newPage(browser) makes the
 * page; isOwnError(message) tells the page's console errors from others';
 * onFailure(page) adds to the account of a failure. */
export async function run(scenarios, result, { newPage, isOwnError = () => true, onFailure }) {
    const scenario = process.argv[2];
    if (!scenarios[scenario])
        throw new Error(`unknown scenario ${scenario}`);
    /* the tier's shared chromium (browser-server.mjs), or one of its own */
    const browser = process.env.HP_BROWSER_WS
        ? await chromium.connect(process.env.HP_BROWSER_WS)
        : await chromium.launch({
            executablePath: process.env.HP_CHROMIUM || "/usr/bin/chromium",
            headless: true,
            args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        });
    const page = await newPage(browser);
    const problems = [];
    page.on("console", msg => {
        log(`console.${msg.type()}: ${msg.text()}`);
        if (msg.type() === "error" && isOwnError(msg))
            problems.push(msg.text());
    });
    page.on("pageerror", error => { log(`page error: ${error}`); problems.push(String(error)); });
    try {
        await scenarios[scenario](page);
        if (problems.length)
            throw new Error(`JavaScript errors or console errors in the page: ${JSON.stringify(problems)}`);
        console.log("RESULT " + JSON.stringify(result));
    } catch (error) {
        log(`FAILED: ${error.stack || error}`);
        try {
            await page.screenshot({ path: path.join(SHOTS, `${TEST}-failure.png`), fullPage: true });
            await onFailure(page);
        } catch (e) {
            log(`no failure screenshot: ${e}`);
        }
        process.exitCode = 1;
    } finally {
        await browser.close();
    }
}
