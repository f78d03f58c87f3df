# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""security.md cases 37 and 38 on the real kernel: a hugepagesd killed
(SIGKILL) or stopped (SIGTERM) in the middle of a persisted CreateMounts,
that is between making the directories, mounting, and saving the
configuration.

security.md asks for test hooks that stop the service at exact points; the
service has none (no fault injection ships), so the signal falls at random
moments of the ~5 ms the call takes, over a dozen rounds, and the test
checks the invariants whatever moment it hit:
- no stacked mount, nothing mounted but hugetlbfs, nowhere but the mount
  points;
- every directory the service made is root's 0755, and empty unless
  something is mounted on it: an orphan left between mkdir and mount is
  harmless, as the next CreateMounts uses it (the service does not remove
  it at start: it may be hugeadm's or the administrator's, and after every
  reboot all mount points are empty anyway);
- the saved configuration is absent or one whole version, and no temporary
  file survives the next start;
- after the restart, Drift tells a configured mount that is missing;
- SIGTERM: exit 0 within a second, no temporary file left at all, and the
  change made whole (mounts and configuration) or not at all.
The instance runs on a bus of its own (no polkitd: root is allowed), so the
session's instance is not disturbed.
"""

import os
import random
import signal
import time

import pytest
from gi.repository import Gio, GLib

from hpdsys import (BUS_NAME, MANAGER_IFACE, MANAGER_PATH, MOUNT_BASE, MountArea, mounts_at,
                    path_tree, pool_sizes_kb, size_name)

SIZES = pool_sizes_kb()
PATHS = ["%s/global/pagesize-%s" % (MOUNT_BASE, size_name(kb)) for kb in SIZES]
SECTION = "[mount global]\nmode = 1777\n"


@pytest.fixture
def area(system):
    a = MountArea()
    yield a
    problems = a.cleanup()
    assert not problems, "could not put /var/lib/hugetlbfs and the mounts back: %s" % problems


def saved(etc):
    """The service's drop-in without its header, or None; asserts it is whole."""
    path = os.path.join(etc, "hugepagesd.conf.d", "90-persisted.conf")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        text = f.read()
    header, sep, body = text.partition("\n\n")
    assert sep and header.startswith("# Written by hugepagesd"), text
    assert body in ("", SECTION), text
    return body


def leftovers(etc):
    d = os.path.join(etc, "hugepagesd.conf.d")
    return sorted(n for n in os.listdir(d) if n != "90-persisted.conf") if os.path.isdir(d) else []


def check_area(area, before_tree):
    for path in PATHS:
        assert len(mounts_at(path)) <= 1, mounts_at(path)
    for m in area.new_mounts():
        assert m["fstype"] == "hugetlbfs" and m["path"] in PATHS, m
    now = path_tree(MOUNT_BASE)
    mounted = {m["path"] for m in area.new_mounts()}
    for path, (kind, mode, uid, gid, _link) in now.items():
        if path in before_tree or path in mounted or any(path.startswith(p + "/") for p in mounted):
            continue
        assert (kind, mode, uid, gid) == ("dir", 0o755, 0, 0), (path, now[path])
        if path in PATHS:
            assert os.listdir(path) == [], path
    return mounted


def send_create(extra):
    extra.conn.call(BUS_NAME, MANAGER_PATH, MANAGER_IFACE, "CreateMounts",
                    GLib.Variant("(ssa{sv})", ("global", "", {"persist": GLib.Variant("b", True)})),
                    None, Gio.DBusCallFlags.NONE, 10000, None, None, None)


def drift_keys(extra):
    return {d["key"] for d in extra.get(MANAGER_PATH, MANAGER_IFACE, "Drift")}


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_signal_during_a_persisted_create_mounts(system, etc_config, area, extra_service, signum):
    rng = random.Random(38 + signum)
    before_tree = path_tree(MOUNT_BASE)
    extra = extra_service("crash")
    args = ["--allow-private-mount-namespace"]
    states = set()
    for round_ in range(12):
        extra.start(args)
        send_create(extra)
        ctx = GLib.MainContext.default()
        deadline = time.monotonic() + rng.uniform(0.0, 0.04 if signum == signal.SIGKILL else 0.01)
        while time.monotonic() < deadline:
            ctx.iteration(False)
        started = time.monotonic()
        status = extra.signal(signum)
        elapsed = time.monotonic() - started
        if signum == signal.SIGTERM:
            assert status == 0, extra.log()
            assert elapsed < 1.0, "%.2f s to stop" % elapsed
            assert leftovers(etc_config) == [], "SIGTERM left %s" % leftovers(etc_config)
        else:
            assert status == -signal.SIGKILL

        mounted = check_area(area, before_tree)
        body = saved(etc_config)
        states.add((len(mounted), body is not None))

        # the next start cleans up and tells what is missing
        extra.start(args)
        assert leftovers(etc_config) == [], leftovers(etc_config)
        assert ("mount global" in drift_keys(extra)) == (body == SECTION and
                                                         len(mounted) < len(PATHS)), \
            (body, mounted)
        # and making the mounts now works, orphan directories or not
        result = extra.call(MANAGER_PATH, MANAGER_IFACE, "CreateMounts", "ssa{sv}",
                            ("global", "", {}), "(as)")
        assert result == {"value": [PATHS]}, result
        check_area(area, before_tree)
        for path in PATHS:
            assert extra.call(MANAGER_PATH, MANAGER_IFACE, "Unmount", "sa{sv}",
                              (path, {}), "(as)") == {"value": [[path]]}
        os.unlink(os.path.join(etc_config, "hugepagesd.conf.d", "90-persisted.conf")) \
            if body is not None else None
        assert extra.signal(signal.SIGTERM) == 0
    print("%s: (mounts made, configuration saved) seen: %s" % (signal.Signals(signum).name,
                                                              sorted(states)))
    if signum == signal.SIGTERM:
        # the change is made whole, or not at all: the worker finishes the
        # running one before the service exits, waiting ones are cancelled
        assert states <= {(0, False), (len(PATHS), True)}, states
    else:
        # the kills fell at different moments
        assert len(states) >= 2, states
    assert area.new_mounts() == []
