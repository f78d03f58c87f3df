# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""GetManagedObjects answered from the read snapshot on the real root
(src/bus/hpd-read-snapshot.h): the configuration and a claim file in
/etc/hugepagesd (a private directory, etc_config), changed behind the
service's back as an administrator or a package changes them, are in the
very next reply, and the calls in between come from the snapshot. The
integration tier does the same below a fake tree; here the watch of the
paths (src/kernel/hpd-path-watch.h) runs on /etc, /run and /usr/lib."""

import os
import re
import time

import pytest
from gi.repository import GLib

from hpdsys import KB_2M, MANAGER_PATH, PAGE_SIZE_IFACE, page_size_path

OM_IFACE = "org.freedesktop.DBus.ObjectManager"
MADE = re.compile(r"GetManagedObjects snapshot made \(\d+ kernel inputs; (\d+) calls answered")
# HPD_CONFIG_SETTLE_US in src/config/hpd-config-cache.h, and a margin
SETTLE_S = 3.0 + 0.5


def pool(system):
    objects = system.call(MANAGER_PATH, OM_IFACE, "GetManagedObjects")[0]
    return objects[page_size_path(KB_2M)][PAGE_SIZE_IFACE]


def answered(system):
    """How many calls snapshots answered so far: a call that is no read
    drops the snapshot, and the next GetManagedObjects makes one anew and
    logs the count."""
    before = len(MADE.findall(system.log("hugepagesd")))
    with pytest.raises(GLib.Error):
        system.call(page_size_path(KB_2M), "org.freedesktop.DBus.Properties", "Set", "ssv",
                    (PAGE_SIZE_IFACE, "Total", GLib.Variant("t", 1)))
    pool(system)
    deadline = time.monotonic() + 5
    while len(MADE.findall(system.log("hugepagesd"))) <= before:
        assert time.monotonic() < deadline, "no snapshot made:\n" + system.log("hugepagesd")[-3000:]
        time.sleep(0.02)
    return int(MADE.findall(system.log("hugepagesd"))[-1])


def write(path, text, in_place=False):
    if in_place:
        with open(path, "r+") as f:
            f.write(text)
            f.truncate()
        return
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, path)


def node0_target(system):
    """Node 0's target: its configured pages plus the claims on it; a
    SetMinimum or SetNodePages of an earlier test does not override it, as
    it does the pool's Base."""
    return {node["node"]: node["target"] for node in pool(system)["Nodes"]}[0]


def test_configuration_edits_are_seen_by_the_next_reply(system, etc_config):
    conf = os.path.join(etc_config, "hugepagesd.conf")
    claimed = node0_target(system)        # nothing configured yet
    write(conf, "[pool 2MB]\nnode0 = 5\n")
    time.sleep(SETTLE_S)
    start = answered(system)
    # renamed over, then written in place to the same size
    for pages, in_place in ((6, False), (7, True)):
        assert node0_target(system) == claimed + pages - 1
        assert node0_target(system) == claimed + pages - 1
        write(conf, "[pool 2MB]\nnode0 = %d\n" % pages, in_place)
        assert node0_target(system) == claimed + pages
        time.sleep(SETTLE_S)
        assert node0_target(system) == claimed + pages
    assert answered(system) > start


def test_claim_in_a_directory_that_appears_is_seen_by_the_next_reply(system, etc_config):
    time.sleep(SETTLE_S)
    start = answered(system)
    # the Base and the claims of earlier tests, kept in /run/hugepagesd
    before = pool(system)["Target"]
    assert pool(system)["Target"] == before
    # claims.d did not exist: the watch of /etc/hugepagesd sees it appear;
    # a consumer no other test claims for
    os.mkdir(os.path.join(etc_config, "claims.d"))
    write(os.path.join(etc_config, "claims.d", "snapshot-test.conf"), "[2MB]\npages = 3\n")
    assert pool(system)["Target"] == before + 3
    time.sleep(SETTLE_S)
    assert pool(system)["Target"] == before + 3
    assert pool(system)["Target"] == before + 3
    assert answered(system) > start
