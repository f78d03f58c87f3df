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
const srcdir = path.join(here, "src");
const podir = path.join(here, "po");

/* --- messages: _("...") and ngettext("...", "...", n) in src/ ------------- */

const STRING = String.raw`"((?:[^"\\]|\\.)*)"`;
const MARKED = new RegExp(String.raw`\b(?:_\(\s*${STRING}\s*\)|ngettext\(\s*${STRING}\s*,\s*${STRING})`, "g");

/* [{ id, plural, refs }] in the order they first appear */
function collectMessages() {
    const found = new Map();
    for (const name of fs.readdirSync(srcdir).filter(n => /\.(js|jsx)$/.test(n)).sort()) {
        const text = fs.readFileSync(path.join(srcdir, name), "utf8");
        for (const match of text.matchAll(MARKED)) {
            const id = JSON.parse(`"${match[1] ?? match[2]}"`);
            const plural = match[3] === undefined ? null : JSON.parse(`"${match[3]}"`);
            const line = text.slice(0, match.index).split("\n").length;
            if (!found.has(id))
                found.set(id, { id, plural, refs: [] });
            found.get(id).refs.push(`src/${name}:${line}`);
        }
    }
    return [...found.values()];
}

const poString = text => '"' + text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n") + '"';

function writePot(messages) {
    const entries = messages.map(m => `#: ${m.refs.join(" ")}\n` +
        (m.plural === null
            ? `msgid ${poString(m.id)}\nmsgstr ""\n`
            : `msgid ${poString(m.id)}\nmsgid_plural ${poString(m.plural)}\nmsgstr[0] ""\nmsgstr[1] ""\n`));
    const header = 'msgid ""\nmsgstr ""\n"Project-Id-Version: hugepagesd cockpit page\\n"\n' +
        '"MIME-Version: 1.0\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Content-Transfer-Encoding: 8bit\\n"\n';
    /* REUSE-IgnoreStart: the header of the file written, not this one's */
    fs.writeFileSync(path.join(podir, "hugepages-cockpit.pot"),
                     "# The Cockpit page's messages: node build.mjs --pot (do not edit)\n" +
                     "# SPDX-FileCopyrightText: 2026 The hugepagesd authors\n# SPDX-License-Identifier: LGPL-2.1-or-later\n" + header + "\n" + entries.join("\n"));
    /* REUSE-IgnoreEnd */
}

/* A .po file as { header, messages: { msgid: [plural or null, str0, str1...] } };
 * fuzzy entries are left out, as msgfmt does. */
function parsePo(text) {
    const messages = {};
    let header = "";
    for (const block of text.split(/\n\s*\n/)) {
        const entry = { fuzzy: /^#,.*\bfuzzy\b/m.test(block) };
        let key = null;
        for (const line of block.split("\n")) {
            let m;
            if ((m = /^(msgid|msgid_plural|msgstr(?:\[(\d+)\])?)\s+(".*")$/.exec(line))) {
                key = m[1];
                entry[key] = JSON.parse(m[3]);
            } else if (key && /^".*"$/.test(line)) {
                entry[key] += JSON.parse(line);
            }
        }
        if (entry.msgid === undefined)
            continue;
        if (entry.msgid === "") {
            header = entry.msgstr || "";
            continue;
        }
        if (entry.fuzzy)
            continue;
        if (entry.msgid_plural !== undefined) {
            const forms = Object.keys(entry).filter(k => /^msgstr\[\d+\]$/.test(k)).sort().map(k => entry[k]);
            if (forms.every(f => f))
                messages[entry.msgid] = [entry.msgid_plural, ...forms];
        } else if (entry.msgstr) {
            messages[entry.msgid] = [null, entry.msgstr];
        }
    }
    return { header, messages };
}

/* po.LANG.js: the catalog as cockpit.locale() takes it; the bridge serves
 * it for the page's po.js in that language */
function writeCatalogs(outdir) {
    for (const name of fs.readdirSync(podir).filter(n => n.endsWith(".po")).sort()) {
        const lang = name.slice(0, -3);
        const { header, messages } = parsePo(fs.readFileSync(path.join(podir, name), "utf8"));
        const plural = /plural=([^;\n]+)/.exec(header);
        if (!plural || !/^[\sn0-9!=<>&|?:%()]+$/.test(plural[1]))
            throw new Error(`${name}: no Plural-Forms this build can turn into a function`);
        const sorted = Object.fromEntries(Object.keys(messages).sort().map(k => [k, messages[k]]));
        const body = JSON.stringify(sorted).slice(1);
        fs.writeFileSync(path.join(outdir, `po.${lang}.js`),
                         `cockpit.locale({"": {"plural-forms": n => ${plural[1].trim()}, "language": ${JSON.stringify(lang)}, ` +
                         `"language-direction": "ltr"},${body});\n`);
    }
}

if (process.argv.includes("--pot")) {
    writePot(collectMessages());
    process.exit(0);
}

/* --untranslated LANG: lists the page's messages LANG's catalog lacks */
if (process.argv.includes("--untranslated")) {
    const lang = process.argv[process.argv.indexOf("--untranslated") + 1];
    const { messages } = parsePo(fs.readFileSync(path.join(podir, `${lang}.po`), "utf8"));
    const missing = collectMessages().filter(m => !messages[m.id]);
    for (const m of missing)
        console.log(`untranslated: ${JSON.stringify(m.id)} (${m.refs[0]})`);
    console.log(`${missing.length} untranslated`);
    process.exit(missing.length ? 1 : 0);
}
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
writeCatalogs(outdir);

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
