# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Taking over what the real hugeadm (libhugetlbfs-bin) mounted, on the real
kernel with the real polkitd.

hugeadm's --create-mounts, --create-user-mounts, --create-group-mounts and
--create-global-mounts mount hugetlbfs with only pagesize= and set owner and
mode with chown and chmod afterwards, so the mount options say root:root
0755. The service must report the owner and mode of each mount's root as
they are, take each mount over as it is (no remount: the same mount IDs),
bring owner, mode and hugeadm's user-owned directories in line when asked,
and remove the directories of a mount it unmounts.

The tier runs in a private mount namespace, where /var/lib/hugetlbfs starts
missing (conftest hides a host's); `area` takes back every mount and
directory that appeared. Pools are only read (pools_guard)."""

import os
import subprocess
import time
from pathlib import Path

import pytest

from hpdsys import (ALLOWED_USER, KB_2M, MANAGER_IFACE, MANAGER_PATH, MOUNT_BASE, TEST_GROUP,
                    MountArea, builddir,
                    ensure_group, has_pool, mounts_at, pool_sizes_kb)
from test_sys_mounts import (create_mount, create_mounts, manager_mounts, mount_path, ok, refused,
                             unmount)

HUGEADM = "/usr/bin/hugeadm"
SIZES = pool_sizes_kb()

pytestmark = pytest.mark.skipif(not Path(HUGEADM).exists() or not has_pool(KB_2M),
                                reason="needs hugeadm (libhugetlbfs-bin) and 2 MiB pages")


@pytest.fixture
def area(system):
    a = MountArea()
    yield a
    problems = a.cleanup()
    assert not problems, problems


def hugeadm(system, *args):
    proc = subprocess.run([HUGEADM, *args], stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, env=system.env(), cwd="/", timeout=60)
    assert proc.returncode == 0, (args, proc.stderr)


def hugepagesctl(system, *args):
    proc = subprocess.run([str(builddir() / "client" / "hugepagesctl"), *args],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          env=system.env(), cwd="/", timeout=60)
    assert proc.returncode == 0, (args, proc.stderr)
    return proc.stdout


def hugeadm_findings(system):
    """Explain's hugeadm-mount findings: {mount path: fix}."""
    entries = system.call(MANAGER_PATH, MANAGER_IFACE, "Explain", "a{sv}", ({},), "(aa{sv})")[0]
    return {e["message"].split()[0]: e["fix"] for e in entries if e["id"] == "hugeadm-mount"}


def mount_id(path):
    [m] = mounts_at(path)
    return m["id"]


def wait_for_mounts(system, paths):
    """Mounts is refreshed when the mount table changes: soon, not at once."""
    deadline = time.monotonic() + 10
    while True:
        mounts = manager_mounts(system)
        if all(p in mounts for p in paths) or time.monotonic() > deadline:
            return mounts
        time.sleep(0.1)


def test_hugeadm_mounts_reported_and_taken_over(system, area, etc_config):
    assert not os.path.lexists(MOUNT_BASE), "conftest did not hide the host's base"
    group = ensure_group(TEST_GROUP, [ALLOWED_USER])
    user = system.users[ALLOWED_USER]
    hugeadm(system, "--create-mounts")
    hugeadm(system, "--create-user-mounts", ALLOWED_USER)
    hugeadm(system, "--create-group-mounts", TEST_GROUP)
    hugeadm(system, "--create-global-mounts")

    # hugeadm's table: (scope, owner name, root's uid, gid, mode)
    kinds = [("system", "", 0, 0, 0o770), ("user", ALLOWED_USER, user.pw_uid, 0, 0o700),
             ("group", TEST_GROUP, 0, group.gr_gid, 0o070), ("global", "", 0, 0, 0o1777)]
    paths = {kind: [mount_path(kind[0], kind[1], kb) for kb in SIZES] for kind in kinds}
    mounts = wait_for_mounts(system, [p for ps in paths.values() for p in ps])

    # 1. the facts of each mount's root, and the options' beside them
    for (scope, owner, uid, gid, mode), ps in paths.items():
        for p in ps:
            a = mounts[p]
            assert (a["uid"], a["gid"], a["mode"], a["root-known"]) == (uid, gid, mode, True), p
            assert (a["options-uid"], a["options-gid"], a["options-mode"]) == (0, 0, 0o755), p
    global_2m = mount_path("global", "", KB_2M)
    [row] = [line.split() for line in hugepagesctl(system, "mounts").splitlines()
             if line.startswith(global_2m + " ")]
    assert row[3] == "1777" and row[-1] == "mode=0755", row

    # 2. Explain: a finding for each, with the command that takes it over
    findings = hugeadm_findings(system)
    assert sorted(findings) == sorted(p for ps in paths.values() for p in ps)
    assert findings[global_2m] == "hugepagesctl mount-create global --page-size 2MB --persist"

    # taken over as they are: the same paths, the same mounts (no remount)
    ids = {p: mount_id(p) for ps in paths.values() for p in ps}
    for (scope, owner, _, _, _), ps in paths.items():
        assert ok(create_mounts(system, None, scope, owner)) == [ps], scope
    assert {p: mount_id(p) for p in ids} == ids
    # saved as well, Explain has nothing more to say of them
    ok(create_mounts(system, None, "global", "", persist=("b", True)))
    assert not set(paths[kinds[3]]) & set(hugeadm_findings(system))
    assert {p: mount_id(p) for p in ids} == ids

    # hugeadm's user-owned directory: made root's on request, not followed
    user_dir = MOUNT_BASE / "user" / ALLOWED_USER
    group_dir = MOUNT_BASE / "group" / TEST_GROUP
    assert (os.lstat(user_dir).st_uid, os.lstat(user_dir).st_mode & 0o7777) == (user.pw_uid, 0o700)
    ok(create_mounts(system, None, "user", ALLOWED_USER, secure_directories=("b", True)))
    ok(create_mounts(system, None, "group", TEST_GROUP, secure_directories=("b", True)))
    for d in (user_dir, group_dir):
        st = os.lstat(d)
        assert (st.st_uid, st.st_gid, st.st_mode & 0o7777) == (0, 0, 0o755), d
    assert {p: mount_id(p) for p in ids} == ids

    # another mode: set on the mount's root, still no remount
    system_2m = mount_path("system", "", KB_2M)
    assert ok(create_mount(system, None, KB_2M, "system", mode=("u", 0o750))) == [system_2m]
    assert os.lstat(system_2m).st_mode & 0o7777 == 0o750
    assert mount_id(system_2m) == ids[system_2m]

    # other limits: named, with no change
    message = refused(create_mount(system, None, KB_2M, "global", max_size=("t", 4 << 20)))
    assert "(size 4194304 asked, none mounted)" in message
    assert mount_id(global_2m) == ids[global_2m]

    # 7. a dry run unmounts nothing; an unmount removes the directories
    ok(unmount(system, None, global_2m, **{"dry-run": ("b", True)}))
    assert mount_id(global_2m) == ids[global_2m]
    for p in paths[kinds[1]]:
        ok(unmount(system, None, p))
        assert not os.path.lexists(p)
    assert not os.path.lexists(MOUNT_BASE / "user")
    assert os.path.isdir(MOUNT_BASE)


def test_hugeadm_leftover_directory_secured_on_request(system, area):
    """After hugeadm's user mount is gone its directories stay, the user's:
    a new mount there is refused with the way out, which then works."""
    assert not os.path.lexists(MOUNT_BASE), "conftest did not hide the host's base"
    user = system.users[ALLOWED_USER]
    hugeadm(system, "--create-user-mounts", ALLOWED_USER)
    path = mount_path("user", ALLOWED_USER, KB_2M)
    subprocess.run(["umount", path], check=True)
    assert os.lstat(path).st_uid == user.pw_uid

    message = refused(create_mount(system, None, KB_2M, "user", ALLOWED_USER))
    assert "--secure-directories" in message
    assert ok(create_mount(system, None, KB_2M, "user", ALLOWED_USER,
                           secure_directories=("b", True))) == [path]
    st = os.lstat(MOUNT_BASE / "user" / ALLOWED_USER)
    assert (st.st_uid, st.st_mode & 0o7777) == (0, 0o755)
    [m] = mounts_at(path)
    assert m["fstype"] == "hugetlbfs"
    st = os.lstat(path)
    assert (st.st_uid, st.st_mode & 0o7777) == (user.pw_uid, 0o700)
