// SPDX-FileCopyrightText: 2026 The hugepagesd authors
// SPDX-License-Identifier: LGPL-2.1-or-later

/* node --test: the Explain fixes the page turns into D-Bus calls
 * (cockpit/src/fixes.js), for the fix texts src/bus/hpd-explain.c writes, and
 * the error texts (cockpit/src/errors.js). */
import assert from "node:assert/strict";
import test from "node:test";

globalThis.cockpit = {
    variant: (t, v) => ({ t, v }),
    message: problem => `problem ${problem.problem}`,
};
const { planFix } = await import("../../cockpit/src/fixes.js");
const { describeError } = await import("../../cockpit/src/errors.js");

const sizes = {
    "2MB": { path: "/org/hugepages/Manager/PageSize/2048kB" },
    "1GB": { path: "/org/hugepages/Manager/PageSize/1048576kB" },
};
const context = { sizeByName: name => sizes[name] || null };
const plan = fix => planFix(["warning", "id", "message", fix], context);

test("set-min becomes a hard resize of that pool", () => {
    const p = plan("hugepagesctl set-min 2MB 512 --hard");
    assert.equal(p.resize.proxy, sizes["2MB"]);
    assert.equal(p.resize.pages, 512);
    assert.equal(plan("hugepagesctl set-min 1GB 4 --hard --drop-caches").resize.pages, 4);
    assert.equal(plan("hugepagesctl set-min 16GB 4 --hard"), null, "a size the page does not have");
});

test("set-max, mount-create, recommended values, thp and boot are single calls", () => {
    assert.deepEqual(
        (({ path, method, args, signature }) => ({ path, method, args, signature }))(plan("hugepagesctl set-max 2MB 30")),
        { path: sizes["2MB"].path, method: "SetMaximum", args: [30, {}], signature: "ta{sv}" });
    const mount = plan("hugepagesctl mount-create system --page-size 1GB");
    assert.equal(mount.method, "CreateMount");
    assert.equal(mount.path, sizes["1GB"].path);
    assert.deepEqual(mount.args, ["system", "", {}]);
    assert.equal(plan("hugepagesctl min-free-kbytes recommended").method, "SetRecommendedMinFreeKbytes");
    assert.equal(plan("hugepagesctl shm-max recommended").method, "SetRecommendedShmMax");
    const thp = plan("hugepagesctl thp defrag=madvise");
    assert.equal(thp.method, "SetThp");
    assert.deepEqual(thp.args, [{ defrag: { t: "s", v: "madvise" } }, {}]);
    assert.equal(plan("hugepagesctl boot --write, then reboot").method, "ConfigureBoot");
});

test("fixes that need a choice or another tool stay text", () => {
    for (const fix of ["", "hugepagesctl shm-group GROUP", "usermod -aG dba alice",
        "raise memlock in /etc/security/limits.conf", "systemctl restart hugepagesd-apply.service",
        'add "hugepagesz=1G hugepages=4" to the kernel command line', "hugepagesctl config"])
        assert.equal(plan(fix), null, fix);
});

test("errors read as sentences with the service's message, never a bare name", () => {
    const e = (name, message) => ({ name, message });
    assert.equal(describeError(e("org.hugepages.Manager.Error.LimitExceeded", "100 GiB is above the limit")),
                 "That is more than this machine's memory allows: 100 GiB is above the limit.");
    assert.equal(describeError(e("org.hugepages.Manager.Error.Busy", "")),
                 "The service is busy with another request; try again in a moment.");
    assert.match(describeError(e("org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.ServiceUnknown")),
                 /hugepagesd\) is not running/);
    for (const kind of ["Failed", "NotAuthorized", "InvalidArgs", "NotSupported", "Busy", "LimitExceeded",
        "NoSuchUser", "NoSuchGroup", "NotMounted"]) {
        const text = describeError(e(`org.hugepages.Manager.Error.${kind}`, "detail"));
        assert.doesNotMatch(text, /org\.hugepages/, kind);
        assert.match(text, /: detail\.$/, kind);
    }
});
