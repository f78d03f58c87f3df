#!/usr/bin/env node
// SPDX-FileCopyrightText: 2026 The hugepagesd authors
// SPDX-License-Identifier: LGPL-2.1-or-later

/* One chromium for the whole cockpit tier (conftest.py's browser_server):
 * prints "ENDPOINT ws://..." for browser.mjs and shell.mjs to connect to,
 * each with a context of its own, and closes the browser when stdin does.
 *
 *   HP_NODE_MODULES=... HP_CHROMIUM=/usr/bin/chromium node browser-server.mjs
 */
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.env.HP_NODE_MODULES, "noop.js"));
const { chromium } = require("playwright-core");

const server = await chromium.launchServer({
    executablePath: process.env.HP_CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
console.log(`ENDPOINT ${server.wsEndpoint()}`);
process.stdin.resume();
process.stdin.on("end", async () => {
    await server.close();
    process.exit(0);
});
