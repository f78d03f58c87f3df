# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Live properties on the real kernel (src/bus/hpd-watchers.h): a plain sysfs
write behind the service's back is announced with PropertiesChanged within
the refresh interval while a client that called is on the bus; with nobody
watching the service has no wakeups at all.

Each test runs its own hugepagesd on a bus of its own (extra_service): the
session's instance has root's connection as a watcher for the whole run."""

import os
import time

import pytest

from hpdsys import (KB_2M, MANAGER_IFACE, MANAGER_PATH, PAGE_SIZE_IFACE, MountArea,
                    PropertiesWatch, connect, has_pool, page_size_path, pool_dir, read_counter, run)

from gi.repository import Gio, GLib

INTERVAL_S = 1.0     # HPD_DEFAULT_REFRESH_INTERVAL_MS in src/bus/hpd-daemon.h
SLACK_S = 0.5        # sysfs reads of every pool and node, and the bus
MAX_ADDED = 4        # 2 MiB pages this test may add (restored by pools_guard)
SETTLE_S = 3.0       # the memory check 2 s after the last call (src/bus/hpd-memory.c)
QUIET_S = 60.0
PAGE_2MB = page_size_path(KB_2M)

pytestmark = pytest.mark.skipif(not has_pool(KB_2M), reason="no 2 MiB huge pages")


def context_switches(pid):
    """Voluntary and involuntary context switches of each of pid's threads,
    by "name/tid"."""
    switches = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/status" % (pid, tid)) as f:
                fields = dict(line.split(":", 1) for line in f if ":" in line)
        except FileNotFoundError:
            continue
        switches["%s/%s" % (fields["Name"].strip(), tid)] = sum(
            int(fields[k]) for k in ("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches"))
    return switches


def woken_threads(before, after):
    """The threads that ran between two context_switches() readings, with
    how often; a thread that came or went counts as having run."""
    return {name: after.get(name, 0) - before.get(name, 0)
            for name in set(before) | set(after) if after.get(name) != before.get(name)}


def owner(conn):
    reply = conn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                           "GetNameOwner", GLib.Variant("(s)", ("org.hugepages.Manager",)),
                           GLib.VariantType("(s)"), Gio.DBusCallFlags.NONE, 5000, None)
    return reply.unpack()[0]


def get_all(conn, path, iface):
    reply = conn.call_sync("org.hugepages.Manager", path, "org.freedesktop.DBus.Properties",
                           "GetAll", GLib.Variant("(s)", (iface,)), GLib.VariantType("(a{sv})"),
                           Gio.DBusCallFlags.NONE, 10000, None)
    return reply.unpack()[0]


def test_sysfs_write_is_announced_within_the_interval(extra_service):
    extra = extra_service("live")
    extra.start()
    conn = connect(extra.address)
    events = []
    try:
        conn.signal_subscribe(owner(conn), "org.freedesktop.DBus.Properties", "PropertiesChanged",
                              PAGE_2MB, None, Gio.DBusSignalFlags.NONE,
                              lambda c, s, p, i, n, params: events.append(
                                  (time.monotonic(), params.unpack()[1])))
        owner(conn)   # the match rule is in place behind this round trip
        before = get_all(conn, PAGE_2MB, PAGE_SIZE_IFACE)["Total"]   # a watcher now

        nr = pool_dir(KB_2M) / "nr_hugepages"
        start = time.monotonic()
        with open(nr, "w") as f:
            f.write("%d\n" % (read_counter(nr) + MAX_ADDED))
        got = read_counter(nr)
        if got == before:
            pytest.skip("the kernel gave no 2 MiB page")

        context = GLib.MainContext.default()
        deadline = start + INTERVAL_S + SLACK_S
        seen = None
        while seen is None and time.monotonic() < deadline:
            while context.iteration(False):
                pass
            seen = next((when for when, changed in events
                         if changed.get("Total") == read_counter(nr)), None)
            time.sleep(0.005)
        assert seen is not None, "Total = %d not announced within %.1f s (events: %r)" % (
            read_counter(nr), INTERVAL_S + SLACK_S, events)
        print("nr_hugepages %d -> %d announced %.0f ms after the write"
              % (before, got, (seen - start) * 1000))
    finally:
        conn.close_sync(None)


def test_mount_by_others_is_announced_at_once(extra_service):
    """A mount made by hand is announced on the mount table's change, not by
    the refresh timer, which a minute's interval keeps out of the way."""
    extra = extra_service("mounts")
    extra.start(["--refresh-interval", "60000"])
    conn = connect(extra.address)
    area = MountArea()
    try:
        here = area.mkdtemp() / "by-hand"
        here.mkdir()
        manager = PropertiesWatch(conn, owner(conn), MANAGER_PATH, MANAGER_IFACE)
        get_all(conn, MANAGER_PATH, MANAGER_IFACE)   # a watcher now
        time.sleep(0.5)   # the refresh a new watcher gets has gone by

        run(["mount", "-t", "hugetlbfs", "-o", "pagesize=2M", "none", str(here)])
        manager.wait_for(lambda mounts: str(here) in dict(mounts), timeout=5)
        manager.events.clear()
        run(["umount", str(here)])
        manager.wait_for(lambda mounts: str(here) not in dict(mounts), timeout=5)
    finally:
        conn.close_sync(None)
        problems = area.cleanup()
        assert not problems, problems


def test_no_wakeups_without_a_client(extra_service):
    extra = extra_service("quiet")
    pid = extra.start().pid
    conn = connect(extra.address)
    get_all(conn, PAGE_2MB, PAGE_SIZE_IFACE)
    # watched: the refresh wakes it up
    first = context_switches(pid)
    time.sleep(INTERVAL_S * 2.5)
    assert woken_threads(first, context_switches(pid))
    conn.close_sync(None)
    deadline = time.monotonic() + 10
    while "Nobody watches any more" not in extra.log():
        assert time.monotonic() < deadline, extra.log()
        time.sleep(0.05)
    time.sleep(SETTLE_S)

    first = context_switches(pid)
    time.sleep(QUIET_S)
    woken = woken_threads(first, context_switches(pid))
    print("threads that ran over %.0f s with nobody watching: %r" % (QUIET_S, woken))
    assert not woken, extra.log()[-3000:]
