// SPDX-FileCopyrightText: 2026 The hugepagesd authors
// SPDX-License-Identifier: LGPL-2.1-or-later

/* node --test: the page's size parser (cockpit/src/validate.js) against
 * tests/units.json, the vectors the C parser (src/common/hp-units.c) and
 * the Ansible collection's are checked against too, the mount dialog's
 * size limit built on it, and the page count fields. */
import assert from "node:assert/strict";
import fs from "node:fs";
import test from "node:test";

const { pagesError, parseSize, sizeLimitError } = await import("../../cockpit/src/validate.js");
const vectors = JSON.parse(fs.readFileSync(new URL("../units.json", import.meta.url), "utf8"));

test("sizes are read as hugepagesd reads them", () => {
    assert.ok(vectors.size.length > 0);
    for (const v of vectors.size) {
        const got = parseSize(v.text);
        if (v.bytes !== undefined)
            assert.equal(got, BigInt(v.bytes), JSON.stringify(v.text));
        else
            assert.equal(got, null, `${JSON.stringify(v.text)} is refused (${v.error})`);
    }
});

test("a mount's size limit: a size, 1% to 100%, or nothing", () => {
    for (const ok of ["", "2M", "512mb", "1GiB", "1%", "50%", "100%", "9007199254740991"])
        assert.equal(sizeLimitError(ok), null, ok);
    for (const bad of ["2 M", " 1G", "0", "0M", "lots", "0%", "05%", "101%", "50 %", "%",
        "9007199254740992", "8192T"])
        assert.notEqual(sizeLimitError(bad), null, bad);
});

test("a page count is ASCII digits, as the service reads a count", () => {
    /* every plain count of the amount vectors the C parser takes */
    const counts = vectors.amount.filter(v => /^[0-9]+$/.test(v.text) && v.pages !== undefined &&
                                              BigInt(v.pages) <= BigInt(Number.MAX_SAFE_INTEGER));
    assert.ok(counts.length > 0);
    for (const v of counts)
        assert.equal(pagesError(v.text), null, v.text);
    for (const ok of ["0", "1", "0010", "9007199254740991"])
        assert.equal(pagesError(ok), null, ok);
    for (const bad of [" 5", "5 ", "0x10", "1e3", "5.0", "+5", "-1", "5M", "\uff15", "\u00b2", "\u0665",
        "9007199254740992", "18446744073709551615"])
        assert.notEqual(pagesError(bad), null, JSON.stringify(bad));
    assert.notEqual(pagesError("0", 1), null);
    assert.equal(pagesError("1", 1), null);
});
