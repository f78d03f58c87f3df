# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""security.md cases 15 and 32 on the real kernel.

- 15: the mount point is swapped for a symbolic link while the service
  works on it. security.md asks for a test-only fault hook between mkdir
  and mount; the service has no such hook (none should ship), so a root
  process races it instead: it keeps exchanging the mount-point directory
  and a link to another directory with renameat2(RENAME_EXCHANGE), while
  the service is asked for that mount over and over. The service opens the
  directory without following links and mounts onto the open directory,
  so whatever the timing, nothing is ever mounted at the link's target.
- 32: many mounts. The owners must be existing users and groups and every
  mount needs the manage-mounts authorization, so there is no per-user
  cap to hit; what is checked is that the service keeps no file descriptor
  per mount.
"""

import grp
import os
import pwd
import subprocess
import time

import pytest

from hpdsys import (ERROR_PREFIX, KB_2M, MOUNT_BASE, PYTHON, MountArea, mounts_at, open_files,
                    path_tree, umount)
from test_sys_mounts import SIZES, create_mount, create_mounts, mount_path, ok, unmount

FAILED = ERROR_PREFIX + "Failed"

RACER = r"""
import ctypes, ctypes.util, os, sys, time
libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
name, other, seconds = sys.argv[1].encode(), sys.argv[2].encode(), float(sys.argv[3])
AT_FDCWD, RENAME_EXCHANGE = -100, 2
swaps = 0
print("ready", flush=True)
deadline = time.monotonic() + seconds
while time.monotonic() < deadline:
    if libc.renameat2(AT_FDCWD, name, AT_FDCWD, other, RENAME_EXCHANGE) == 0:
        swaps += 1
print(swaps, flush=True)
"""


@pytest.fixture
def area(system):
    a = MountArea()
    yield a
    problems = a.cleanup()
    assert not problems, "could not put /var/lib/hugetlbfs and the mounts back: %s" % problems


def test_mount_point_swapped_for_a_link_mid_call(system, area):
    target = area.mkdtemp()
    (target / "keep").write_text("untouched\n")
    target_tree = path_tree(target)
    if not MOUNT_BASE.exists():
        os.makedirs(MOUNT_BASE, mode=0o755)
    point = mount_path("system", None, KB_2M)
    swap = point + ".swap"
    os.symlink(target, swap)
    racer = subprocess.Popen(["setpriv", "--pdeathsig", "KILL", PYTHON, "-c", RACER, point, swap,
                              "60"], stdout=subprocess.PIPE, text=True)
    outcomes = {}
    landed_elsewhere = 0
    try:
        assert racer.stdout.readline().strip() == "ready"
        started = time.monotonic()
        for _ in range(200):
            result = create_mount(system, None, KB_2M, "system")
            outcome = "ok" if "error" not in result else result["error"]
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
            # never on the link's target, never anywhere but below the base
            assert mounts_at(target) == []
            for m in area.new_hugetlbfs_mounts():
                assert m["path"] in (point, swap), m
                landed_elsewhere += m["path"] == swap
                umount(m["path"])
            assert os.listdir(target) == ["keep"]
        elapsed = time.monotonic() - started
    finally:
        racer.kill()
        racer.wait()
    print("200 calls in %.1f s against a swapping racer: %s; %d mounts landed on the directory "
          "after it had been renamed away (the open directory, not the path)"
          % (elapsed, outcomes, landed_elsewhere))
    assert set(outcomes) <= {"ok", FAILED}, outcomes
    assert path_tree(target) == target_tree
    # the link is still a link to the same place
    for p in (point, swap):
        if os.path.islink(p):
            assert os.readlink(p) == str(target)
    system.assert_service_alive()


def existing_owners(limit):
    users = [p.pw_name for p in pwd.getpwall() if len(p.pw_name) <= 32][:limit]
    groups = [g.gr_name for g in grp.getgrall() if len(g.gr_name) <= 32][:limit]
    return users, groups


def test_many_mounts_hold_no_descriptors(system, area):
    pid = system.service.pid
    baseline = len(open_files(pid))
    users, groups = existing_owners(20)
    made = []
    for scope, names in (("user", users), ("group", groups)):
        for name in names:
            made += ok(create_mounts(system, None, scope, name))[0]
    assert len(made) == len(SIZES) * (len(users) + len(groups))
    assert len(area.new_hugetlbfs_mounts()) == len(made)
    during = len(open_files(pid))
    print("%d mounts; the service holds %d fds (%d before)" % (len(made), during, baseline))
    assert during <= baseline + 2, "the service keeps descriptors per mount"
    for path in made:
        ok(unmount(system, None, path))
    assert area.new_hugetlbfs_mounts() == []
    assert len(open_files(pid)) <= baseline + 2
    system.assert_service_alive()
