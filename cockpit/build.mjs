#!/usr/bin/env node
// SPDX-FileCopyrightText: 2026 The hugepagesd authors
// SPDX-License-Identifier: LGPL-2.1-or-later

/* Builds dist/ from src/ with esbuild (npm ci && npm run build), or with
 * --check builds into a temporary directory and fails when dist/ differs,
 * so a committed dist/ never goes stale. cockpit.js is not bundled: the page
 * loads it from the Cockpit runtime (../base1/cockpit.js). */
import * as esbuild from "esbuild";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const check = process.argv.includes("--check");
const outdir = check ? fs.mkdtempSync(path.join(os.tmpdir(), "hugepages-cockpit-")) : path.join(here, "dist");

fs.rmSync(outdir, { recursive: true, force: true });
fs.mkdirSync(outdir, { recursive: true });

await esbuild.build({
    entryPoints: [path.join(here, "src/index.js")],
    bundle: true,
    minify: true,
    legalComments: "eof",
    target: ["es2020"],
    format: "iife",
    /* React's production build, JSX without importing React in each file */
    jsx: "automatic",
    define: { "process.env.NODE_ENV": '"production"' },
    outdir,
    /* Cockpit serves the Red Hat fonts itself; the page falls back to the
     * system's fonts rather than shipping a second copy */
    loader: { ".woff2": "empty", ".woff": "empty", ".ttf": "empty", ".otf": "empty", ".svg": "empty" },
    external: ["../../static/*"],
    logLevel: "warning",
});
fs.copyFileSync(path.join(here, "src/index.html"), path.join(outdir, "index.html"));
fs.copyFileSync(path.join(here, "manifest.json"), path.join(outdir, "manifest.json"));

if (check) {
    const dist = path.join(here, "dist");
    const names = dir => (fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []);
    const stale = [];
    for (const name of new Set([...names(dist), ...names(outdir)])) {
        const a = path.join(dist, name), b = path.join(outdir, name);
        if (!fs.existsSync(a) || !fs.existsSync(b) || !fs.readFileSync(a).equals(fs.readFileSync(b)))
            stale.push(name);
    }
    fs.rmSync(outdir, { recursive: true, force: true });
    if (stale.length) {
        console.error(`cockpit/dist is not built from cockpit/src: ${stale.join(", ")} differ; run npm run build`);
        process.exit(1);
    }
    console.log("cockpit/dist matches cockpit/src");
}
