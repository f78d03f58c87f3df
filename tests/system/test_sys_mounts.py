# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""hugetlbfs mounts on the real kernel, with the real polkitd.

The service runs in this test's private mount namespace, so its mounts show
in our /proc/self/mountinfo and vanish with the namespace. The directories
below /var/lib/hugetlbfs are on the real file system: the autouse fixture
`area` records what was there and takes back whatever appeared (mounts
first), even after a failure. Pools are put back by conftest's pools_guard;
no test here allocates a 1 GiB page, and at most a few 2 MiB ones.
"""

import json
import os
import stat
import time
from pathlib import Path

import pytest
from gi.repository import Gio, GLib

from hpdsys import (ALLOWED_USER, BUS_NAME, DENIED_USER, ERROR_PREFIX, KB_1G, KB_2M, MANAGER_IFACE,
                    MANAGER_PATH, MOUNT_BASE, PAGE_SIZE_IFACE, PYTHON, TEST_GROUP, MountArea,
                    PropertiesWatch, connect, counters, ensure_group, groups_of, has_pool,
                    hugetlbfs_mounts, mounts_at, page_size_path, path_tree, pool_dir,
                    pool_sizes_kb, run, run_as, size_name, write_counter)

FAILED = ERROR_PREFIX + "Failed"
NOT_AUTHORIZED = ERROR_PREFIX + "NotAuthorized"
NOT_MOUNTED = ERROR_PREFIX + "NotMounted"
INVALID_ARGS = ERROR_PREFIX + "InvalidArgs"
LIMIT_EXCEEDED = ERROR_PREFIX + "LimitExceeded"
MIB2 = 2 << 20
SIZES = pool_sizes_kb()
DEFAULT_MODES = {"system": 0o770, "user": 0o700, "group": 0o070, "global": 0o1777}


# --------------------------------------------------------------------------
# fixtures and helpers

@pytest.fixture(autouse=True)
def area(system):
    """Takes back every mount made in this namespace and every file, link
    and directory that appeared below /var/lib/hugetlbfs during the test."""
    a = MountArea()
    yield a
    problems = a.cleanup()
    assert not problems, "could not put /var/lib/hugetlbfs and the mounts back: %s" % problems


@pytest.fixture(scope="module")
def test_group(system):
    gr = ensure_group(TEST_GROUP, [ALLOWED_USER])
    assert ALLOWED_USER in gr.gr_mem and DENIED_USER not in gr.gr_mem
    return gr


def _variant_opts(opts):
    return {k: GLib.Variant(t, v) for k, (t, v) in opts.items()}


def call(system, user, path, interface, method, signature, args, reply_type=None):
    """A call as @user (None: root) -> {"value": [...]} or {"error", "message"}."""
    if user is not None:
        step = {"op": "call", "path": path, "interface": interface, "method": method,
                "signature": signature, "args": list(args)}
        return system.as_user(user, [step])["results"][0]
    args = [_variant_opts(a) if isinstance(a, dict) else a for a in args]
    try:
        return {"value": list(system.call(path, interface, method, signature, args, reply_type))}
    except GLib.Error as e:
        name = Gio.DBusError.get_remote_error(e)
        Gio.DBusError.strip_remote_error(e)
        return {"error": name, "message": e.message}


def create_mounts(system, user, scope, owner="", **opts):
    """Manager.CreateMounts; options as key=(type, value), '-' for '_'."""
    opts = {k.replace("_", "-"): v for k, v in opts.items()}
    return call(system, user, MANAGER_PATH, MANAGER_IFACE, "CreateMounts", "ssa{sv}",
                (scope, owner, opts), "(as)")


def create_mount(system, user, kb, scope, owner="", **opts):
    """PageSize.CreateMount of one size."""
    opts = {k.replace("_", "-"): v for k, v in opts.items()}
    return call(system, user, page_size_path(kb), PAGE_SIZE_IFACE, "CreateMount", "ssa{sv}",
                (scope, owner, opts), "(s)")


def unmount(system, user, path, **opts):
    return call(system, user, MANAGER_PATH, MANAGER_IFACE, "Unmount", "sa{sv}", (path, opts), "(as)")


def ok(result):
    assert "error" not in result, result
    return result["value"]


def refused(result, name=FAILED):
    assert result.get("error") == name, result
    return result["message"]


def mount_path(scope, owner_name, kb):
    middle = {"system": "", "user": "user/%s/" % owner_name, "group": "group/%s/" % owner_name,
              "global": "global/"}[scope]
    return "%s/%spagesize-%s" % (MOUNT_BASE, middle, size_name(kb))


def kernel_page_size(kb):
    """pagesize= as hugetlbfs prints it: "2M", "1024M", "64K"."""
    return "%dM" % (kb // 1024) if kb >= 1024 else "%dK" % kb


def manager_mounts(system):
    return {path: attrs for path, attrs in system.get(MANAGER_PATH, MANAGER_IFACE, "Mounts")}


def check_mount(system, path, kb, uid, gid, mode, size=None, min_size=None, nr_inodes=None):
    """Exactly one hugetlbfs mount at @path with these superblock options,
    nosuid and nodev, a root of that owner and mode, and the same in the
    Mounts properties."""
    found = mounts_at(path)
    assert len(found) == 1, "mounts at %s: %s" % (path, found)
    m = found[0]
    assert m["fstype"] == "hugetlbfs"
    assert "nosuid" in m["flags"] and "nodev" in m["flags"], m
    # hugetlbfs_show_options(): uid, gid and mode only when not the default
    want = {"rw": None, "pagesize": kernel_page_size(kb)}
    if uid:
        want["uid"] = str(uid)
    if gid:
        want["gid"] = str(gid)
    if mode != 0o755:
        want["mode"] = "%o" % mode
    if size is not None:
        want["size"] = str(size)
    if min_size is not None:
        want["min_size"] = str(min_size)
    if nr_inodes is not None:
        want["nr_inodes"] = str(nr_inodes)
    assert m["super"] == want, m

    st = os.stat(path)
    assert stat.S_ISDIR(st.st_mode)
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (uid, gid, mode), path

    # the root as it is and the options agree on a mount the service made
    attrs = {"page-size": kb * 1024, "uid": uid, "gid": gid, "mode": mode,
             "options-uid": uid, "options-gid": gid, "options-mode": mode, "root-known": True,
             "flags": ",".join(m["flags"]), "managed": path.startswith(str(MOUNT_BASE) + "/")}
    if size is not None:
        attrs["max-size"] = size
    if min_size is not None:
        attrs["min-size"] = min_size
    if nr_inodes is not None:
        attrs["max-inodes"] = nr_inodes
    assert manager_mounts(system).get(path) == attrs
    for other in SIZES:
        listed = system.get(page_size_path(other), PAGE_SIZE_IFACE, "Mounts")
        assert (path in listed) == (other == kb), (other, listed)
    return m


def check_service_dirs(area, path):
    """The directories the service made on the way to @path are root's 0755:
    no user can swap anything below them."""
    p = Path(path).parent
    while p != MOUNT_BASE.parent:
        if str(p) not in area.tree:
            st = os.lstat(p)
            assert stat.S_ISDIR(st.st_mode), p
            assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (0, 0, 0o755), p
        p = p.parent


def make_dir(path, uid=0, gid=0, mode=0o755):
    """A directory made as root with exactly this owner and mode (the area
    fixture removes it); an existing one is left alone."""
    path = Path(path)
    if path.is_dir():
        return path
    os.mkdir(path)
    os.chown(path, uid, gid)
    os.chmod(path, mode)
    return path


def need_fresh_base(area):
    if area.base_existed:
        pytest.skip("%s existed before the tests; this test would have to change it" % MOUNT_BASE)


def give_free_2m_pages(n):
    """At least @n free, unreserved 2 MiB pages (pools_guard puts the pool back)."""
    c = counters(KB_2M)
    if c["Free"] - c["Reserved"] < n:
        write_counter(pool_dir(KB_2M) / "nr_hugepages", c["Minimum"] + n - (c["Free"] - c["Reserved"]))
    c = counters(KB_2M)
    if c["Free"] - c["Reserved"] < n:
        pytest.skip("the kernel gave no %d free 2 MiB pages: %s" % (n, c))
    return c


def assert_nothing_changed(area, tree_before, victims=()):
    """No mount anywhere since the test began, /var/lib/hugetlbfs as it was
    (links untouched), nothing created in or mounted on the victims."""
    assert area.new_mounts() == []
    assert path_tree(MOUNT_BASE) == tree_before
    for victim, victim_tree in victims:
        assert mounts_at(victim) == []
        assert path_tree(victim) == victim_tree


# --------------------------------------------------------------------------
# every scope, with the defaults

SCOPES = [("system", None), ("user", "name"), ("user", "id"), ("group", "name"),
          ("group", "id"), ("global", None)]


@pytest.mark.parametrize("scope,owner_as", SCOPES,
                         ids=["system", "user-name", "user-uid", "group-name", "group-gid", "global"])
def test_create_mounts_each_scope(system, area, test_group, scope, owner_as):
    pw = system.users[ALLOWED_USER]
    owner, owner_name, uid, gid = "", None, 0, 0
    if scope == "user":
        owner_name, uid = pw.pw_name, pw.pw_uid
        owner = owner_name if owner_as == "name" else str(uid)
    elif scope == "group":
        owner_name, gid = test_group.gr_name, test_group.gr_gid
        owner = owner_name if owner_as == "name" else str(gid)
    mode = DEFAULT_MODES[scope]

    paths = ok(create_mounts(system, ALLOWED_USER, scope, owner))[0]
    assert paths == [mount_path(scope, owner_name, kb) for kb in SIZES]
    for kb, path in zip(SIZES, paths):
        check_mount(system, path, kb, uid, gid, mode)
        check_service_dirs(area, path)
    assert len(area.new_mounts()) == len(SIZES)

    # and away again: the mount and its directory go, the directories above
    # with the last mount in them; the base stays
    for i, path in enumerate(paths):
        assert ok(unmount(system, ALLOWED_USER, path)) == [[path]]
        assert mounts_at(path) == []
        assert not os.path.lexists(path)
        assert path not in manager_mounts(system)
        parent = os.path.dirname(path)
        assert os.path.isdir(parent) == (i + 1 < len(paths) or parent == str(MOUNT_BASE)), parent
    assert os.path.isdir(MOUNT_BASE)
    assert not os.path.lexists(MOUNT_BASE / scope)
    assert area.new_mounts() == []
    for kb in SIZES:
        assert system.get(page_size_path(kb), PAGE_SIZE_IFACE, "Mounts") == \
            [m["path"] for m in hugetlbfs_mounts()
             if m["super"].get("pagesize") == kernel_page_size(kb)]
    system.assert_service_alive()


# --------------------------------------------------------------------------
# options

def test_max_size_bytes_max_inodes_and_mode(system, area):
    # 2 GiB: a whole number of pages of every size; nothing is reserved
    paths = ok(create_mounts(system, ALLOWED_USER, "global", max_size=("t", 2 << 30),
                             max_inodes=("t", 16), mode=("u", 0o1770)))[0]
    assert paths == [mount_path("global", None, kb) for kb in SIZES]
    for kb, path in zip(SIZES, paths):
        check_mount(system, path, kb, 0, 0, 0o1770, size=2 << 30, nr_inodes=16)


def test_max_size_percentage(system, area):
    c = give_free_2m_pages(0)
    write_counter(pool_dir(KB_2M) / "nr_hugepages", c["Minimum"] + 4)
    persistent = counters(KB_2M)["Minimum"]
    assert persistent >= 4
    path = ok(create_mount(system, ALLOWED_USER, KB_2M, "system", max_size=("s", "50%")))[0]
    assert path == mount_path("system", None, KB_2M)
    # the kernel turns the percentage into pages of the persistent pool at mount time
    check_mount(system, path, KB_2M, 0, 0, 0o770, size=persistent * 50 // 100 * MIB2)
    # only this size was mounted
    assert len(area.new_mounts()) == 1


def test_percentage_of_an_empty_pool_is_refused(system, area):
    empty = [kb for kb in SIZES if counters(kb)["Minimum"] == 0]
    if not empty:
        pytest.skip("every pool has persistent pages")
    before = path_tree(MOUNT_BASE)
    message = refused(create_mounts(system, ALLOWED_USER, "system", max_size=("s", "50%")),
                      INVALID_ARGS)
    assert "rounds to zero pages" in message
    assert_nothing_changed(area, before)


def test_min_size_reserves_pages_while_mounted(system, area):
    give_free_2m_pages(2)
    resv = counters(KB_2M)["Reserved"]
    path = ok(create_mount(system, ALLOWED_USER, KB_2M, "global", min_size=("t", MIB2),
                           max_size=("t", 2 * MIB2)))[0]
    check_mount(system, path, KB_2M, 0, 0, 0o1777, size=2 * MIB2, min_size=MIB2)
    assert counters(KB_2M)["Reserved"] == resv + 1
    ok(unmount(system, ALLOWED_USER, path))
    assert counters(KB_2M)["Reserved"] == resv
    assert not os.path.lexists(path)


def test_min_size_beyond_the_pool_is_limit_exceeded(system, area):
    c = counters(KB_2M)
    # the most pages the kernel could find: free unreserved plus what overcommit allows
    reachable = max(c["Free"] - c["Reserved"], 0) + max(c["Overcommit"] - c["Surplus"], 0)
    if reachable > 7:
        pytest.skip("%d 2 MiB pages are free or may be overcommitted; asking for more "
                    "would allocate too much" % reachable)
    before = path_tree(MOUNT_BASE)
    message = refused(create_mount(system, ALLOWED_USER, KB_2M, "system",
                                   min_size=("t", (reachable + 1) * MIB2)), LIMIT_EXCEEDED)
    assert "min-size" in message
    # the directories the call made are gone again
    assert_nothing_changed(area, before)
    assert counters(KB_2M)["Reserved"] == c["Reserved"]


# --------------------------------------------------------------------------
# the same again, something else again

def test_identical_request_returns_the_mounts(system, area):
    paths = ok(create_mounts(system, ALLOWED_USER, "global", max_inodes=("t", 8)))[0]
    ids = {p: mounts_at(p)[0]["id"] for p in paths}

    assert ok(create_mounts(system, ALLOWED_USER, "global", max_inodes=("t", 8)))[0] == paths
    assert ok(create_mount(system, ALLOWED_USER, KB_2M, "global", max_inodes=("t", 8)))[0] == \
        mount_path("global", None, KB_2M)
    # root too; and nobody stacked anything
    assert ok(create_mounts(system, None, "global", max_inodes=("t", 8)))[0] == paths
    for p in paths:
        assert [m["id"] for m in mounts_at(p)] == [ids[p]]
    assert len(area.new_mounts()) == len(paths)


def test_other_mode_is_set_not_remounted(system, area):
    """The same page size and limits with another mode: the mounts are taken
    over, their roots chmodded, nothing mounted again."""
    paths = ok(create_mounts(system, ALLOWED_USER, "global", max_inodes=("t", 8)))[0]
    mounts_before = sorted(m["id"] for m in area.new_mounts())
    assert ok(create_mounts(system, ALLOWED_USER, "global", max_inodes=("t", 8),
                            mode=("u", 0o1770)))[0] == paths
    assert sorted(m["id"] for m in area.new_mounts()) == mounts_before
    for p in paths:
        assert stat.S_IMODE(os.lstat(p).st_mode) == 0o1770
        assert manager_mounts(system)[p]["mode"] == 0o1770


@pytest.mark.parametrize("change", [{"max_inodes": ("t", 9)},
                                    {"max_size": ("t", 2 << 30)}, {}],
                         ids=["max-inodes", "max-size", "no-limit"])
def test_different_request_is_refused_not_stacked(system, area, change):
    paths = ok(create_mounts(system, ALLOWED_USER, "global", max_inodes=("t", 8)))[0]
    mounts_before = sorted(m["id"] for m in area.new_mounts())
    tree_before = path_tree(MOUNT_BASE)

    opts = {"max_inodes": ("t", 8)}
    opts.update(change)
    if change == {}:
        del opts["max_inodes"]
    message = refused(create_mounts(system, ALLOWED_USER, "global", **opts))
    assert "already mounted with other options" in message
    message = refused(create_mount(system, ALLOWED_USER, KB_2M, "global", **opts))
    assert paths[0] in message
    assert sorted(m["id"] for m in area.new_mounts()) == mounts_before
    assert path_tree(MOUNT_BASE) == tree_before
    for p in paths:
        assert len(mounts_at(p)) == 1


def test_other_mount_on_the_mount_point_is_refused(system, area):
    """A file system that is not hugetlbfs on a mount point: an error, and
    neither a stacked mount nor a removed directory."""
    path = mount_path("system", None, KB_2M)
    make_dir(MOUNT_BASE)
    make_dir(path)
    run(["mount", "-t", "tmpfs", "-o", "size=64k,mode=0755", "hpd-test", path])
    tree_before = path_tree(MOUNT_BASE)
    mounts_before = [m["id"] for m in area.new_mounts()]

    message = refused(create_mounts(system, ALLOWED_USER, "system"))
    assert "is already a mount point" in message
    assert [m["id"] for m in area.new_mounts()] == mounts_before
    assert [m["fstype"] for m in mounts_at(path)] == ["tmpfs"]
    assert path_tree(MOUNT_BASE) == tree_before


@pytest.mark.skipif(not has_pool(KB_1G), reason="needs a second page size")
def test_failed_second_mount_takes_back_the_first(system, area):
    """All or nothing: 2MB is mounted first, 1GB fails, 2MB is taken back."""
    blocked = mount_path("global", None, KB_1G)
    make_dir(MOUNT_BASE)
    make_dir(MOUNT_BASE / "global")
    make_dir(blocked)
    # root's 0755, so that only the mount itself is the problem
    run(["mount", "-t", "tmpfs", "-o", "size=64k,mode=0755", "hpd-test", blocked])
    tree_before = path_tree(MOUNT_BASE)
    mounts_before = [m["id"] for m in area.new_mounts()]

    message = refused(create_mounts(system, ALLOWED_USER, "global"))
    assert "%s is already a mount point" % blocked in message
    assert [m["id"] for m in area.new_mounts()] == mounts_before
    assert not os.path.lexists(mount_path("global", None, KB_2M))
    assert path_tree(MOUNT_BASE) == tree_before
    assert mount_path("global", None, KB_2M) not in manager_mounts(system)


# --------------------------------------------------------------------------
# who may use the mounts

ACCESS = r"""
import errno, json, mmap, os, sys
path, size = sys.argv[1], 2 << 20
try:
    fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
except OSError as e:
    print(json.dumps({"error": errno.errorcode[e.errno], "at": "open"}))
    sys.exit(0)
try:
    os.ftruncate(fd, size)
    m = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    m[0:5] = b"huge!"
    m.close()
    m = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ)
    data = m[0:5].decode()
    m.close()
except OSError as e:
    print(json.dumps({"error": errno.errorcode[e.errno], "at": "map"}))
    sys.exit(0)
os.close(fd)
print(json.dumps({"data": data}))
"""


def try_access(pw, path, groups):
    proc = run_as(pw, [PYTHON, "-c", ACCESS, str(path)], groups=groups)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def check_writer(system, pw, path, groups):
    """@pw creates a 2 MiB file in @path and maps it shared: one huge page."""
    free = counters(KB_2M)["Free"]
    f = Path(path) / ("%s.bin" % pw.pw_name)
    assert try_access(pw, f, groups) == {"data": "huge!"}
    st = os.stat(f)
    assert (st.st_uid, st.st_size) == (pw.pw_uid, MIB2)
    assert counters(KB_2M)["Free"] == free - 1, "the file should hold one 2 MiB page"
    f.unlink()
    assert counters(KB_2M)["Free"] == free


def check_refused(pw, path, groups):
    f = Path(path) / ("%s.bin" % pw.pw_name)
    assert try_access(pw, f, groups) == {"error": "EACCES", "at": "open"}
    assert not os.path.lexists(f)


def test_group_mount_is_for_members_only(system, area, test_group):
    give_free_2m_pages(2)
    allowed, denied = system.users[ALLOWED_USER], system.users[DENIED_USER]
    path = ok(create_mounts(system, ALLOWED_USER, "group", TEST_GROUP))[0][0]
    assert path == mount_path("group", TEST_GROUP, KB_2M)

    assert test_group.gr_gid in groups_of(ALLOWED_USER)
    check_writer(system, allowed, path, groups_of(ALLOWED_USER))
    # the group is what lets the member in: without it, the same user is refused
    check_refused(allowed, path, [])
    assert test_group.gr_gid not in groups_of(DENIED_USER)
    check_refused(denied, path, groups_of(DENIED_USER))


def test_user_mount_is_for_that_user_only(system, area):
    give_free_2m_pages(2)
    allowed, denied = system.users[ALLOWED_USER], system.users[DENIED_USER]
    path = ok(create_mounts(system, ALLOWED_USER, "user", DENIED_USER))[0][0]
    # the owner is whom the mount is for, not who asked
    assert path == mount_path("user", DENIED_USER, KB_2M)
    check_writer(system, denied, path, groups_of(DENIED_USER))
    check_refused(allowed, path, groups_of(ALLOWED_USER))


def test_global_mount_is_for_everybody_with_the_sticky_bit(system, area):
    give_free_2m_pages(2)
    allowed, denied = system.users[ALLOWED_USER], system.users[DENIED_USER]
    path = ok(create_mounts(system, ALLOWED_USER, "global"))[0][0]
    check_writer(system, denied, path, [])
    check_writer(system, allowed, path, [])
    # sticky: nobody removes another user's file
    f = Path(path) / "owned-by-allowed"
    assert try_access(allowed, f, []) == {"data": "huge!"}
    proc = run_as(denied, [PYTHON, "-c", "import os, sys; os.unlink(sys.argv[1])", str(f)])
    assert proc.returncode != 0 and "PermissionError" in proc.stderr
    assert f.exists()
    f.unlink()


# --------------------------------------------------------------------------
# Unmount

def test_unmount_refuses_what_is_not_hugetlbfs(system, area):
    tmp = area.mkdtemp()
    not_mounted = mount_path("system", None, KB_2M)
    make_dir(MOUNT_BASE)
    make_dir(not_mounted)
    run(["mount", "-t", "tmpfs", "-o", "size=64k", "hpd-test", str(tmp)])
    mounts_before = [m["id"] for m in area.new_mounts()]
    for path in ("/proc", "/tmp", str(tmp), not_mounted, "/nonexistent/x"):
        refused(unmount(system, ALLOWED_USER, path), NOT_MOUNTED)
        refused(unmount(system, None, path), NOT_MOUNTED)
    for path in ("/", "relative", "/tmp/../proc", "/tmp/", "//proc", ""):
        refused(unmount(system, ALLOWED_USER, path), INVALID_ARGS)
    assert [m["id"] for m in area.new_mounts()] == mounts_before
    assert os.path.isdir(not_mounted)
    assert os.path.ismount("/proc")


def test_unmount_of_a_mount_made_by_hand_keeps_the_directory(system, area):
    here = area.mkdtemp() / "x"
    here.mkdir()
    run(["mount", "-t", "hugetlbfs", "-o", "pagesize=2M", "none", str(here)])
    assert manager_mounts(system)[str(here)]["managed"] is False
    assert ok(unmount(system, ALLOWED_USER, str(here))) == [[str(here)]]
    assert mounts_at(here) == []
    assert here.is_dir()
    assert str(here) not in manager_mounts(system)


@pytest.mark.parametrize("relative", ["user/%s/extra" % ALLOWED_USER, "global/other",
                                      "user/%s" % ALLOWED_USER, "pagesize-2MB/deeper",
                                      "user/%s/pagesize-2MB/deeper" % ALLOWED_USER])
def test_hand_mount_below_the_base_is_not_managed(system, area, relative):
    """Only the service's own mount points are "managed" (and lose their
    directory on Unmount); any other path below the base is not."""
    here = MOUNT_BASE / relative
    todo = []
    p = here
    while not p.exists():
        todo.insert(0, p)
        p = p.parent
    for d in todo:
        make_dir(d)
    run(["mount", "-t", "hugetlbfs", "-o", "pagesize=2M", "none", str(here)])
    assert manager_mounts(system)[str(here)]["managed"] is False
    ok(unmount(system, ALLOWED_USER, str(here)))
    assert mounts_at(here) == []
    assert here.is_dir()


def test_polkit_hears_whom_the_mount_is_for(system, area, polkit_monitor):
    """security.md case 5: polkitd is asked about manage-mounts with the
    owner, scope, mode and paths in the details, so rules can tell a user's
    own mount from somebody else's."""
    denied = system.users[DENIED_USER]
    out = system.as_user(ALLOWED_USER, [{
        "op": "call", "path": MANAGER_PATH, "interface": MANAGER_IFACE, "method": "CreateMounts",
        "signature": "ssa{sv}", "args": ["user", DENIED_USER, {}]}])
    paths = ok(out["results"][0])[0]
    checks = system.service_calls(polkit_monitor)
    assert len(checks) == 1, polkit_monitor.calls
    subject, action, details, flags, _ = checks[0]["body"]
    assert subject == ("system-bus-name", {"name": out["unique_name"]})
    assert action == "org.hugepages.manager.manage-mounts"
    assert details == {"scope": "user", "owner-uid": str(denied.pw_uid), "owner-gid": "0",
                       "mode": "0700", "paths": ",".join(paths)}
    assert flags == 0

    polkit_monitor.clear()
    ok(unmount(system, ALLOWED_USER, paths[0]))
    checks = system.service_calls(polkit_monitor)
    assert len(checks) == 1
    assert checks[0]["body"][1] == "org.hugepages.manager.manage-mounts"
    assert checks[0]["body"][2] == {"path": paths[0]}


def test_unmount_by_denied_user_is_refused(system, area):
    paths = ok(create_mounts(system, None, "system"))[0]
    ids = {p: mounts_at(p)[0]["id"] for p in paths}
    tree_before = path_tree(MOUNT_BASE)
    for p in paths:
        refused(unmount(system, DENIED_USER, p), NOT_AUTHORIZED)
        assert [m["id"] for m in mounts_at(p)] == [ids[p]]
    assert path_tree(MOUNT_BASE) == tree_before


def test_unmount_busy_mount_is_busy(system, area):
    """An open file keeps the mount: Busy, still mounted, directory kept."""
    path = ok(create_mount(system, ALLOWED_USER, KB_2M, "global"))[0]
    fd = os.open(os.path.join(path, "holder"), os.O_CREAT | os.O_RDWR, 0o600)
    try:
        refused(unmount(system, ALLOWED_USER, path), ERROR_PREFIX + "Busy")
        assert len(mounts_at(path)) == 1
    finally:
        os.close(fd)
    ok(unmount(system, ALLOWED_USER, path))
    assert not os.path.lexists(path)


# --------------------------------------------------------------------------
# Mounts kept current when others mount

def test_mounts_follow_mounts_made_by_others(system, area):
    here = area.mkdtemp() / "x"
    here.mkdir()
    service = system.name_owner(BUS_NAME)
    manager = PropertiesWatch(system.bus, service, MANAGER_PATH, MANAGER_IFACE)
    pool = PropertiesWatch(system.bus, service, page_size_path(KB_2M), PAGE_SIZE_IFACE)
    try:
        run(["mount", "-t", "hugetlbfs", "-o", "pagesize=2M,mode=0711,size=4M", "none", str(here)])
        listed = dict(manager.wait_for(lambda mounts: any(p == str(here) for p, _ in mounts)))
        assert listed[str(here)] == {"page-size": MIB2, "uid": 0, "gid": 0, "mode": 0o711,
                                     "options-uid": 0, "options-gid": 0, "options-mode": 0o711,
                                     "root-known": True,
                                     "flags": ",".join(mounts_at(here)[0]["flags"]),
                                     "managed": False, "max-size": 4 << 20}
        pool.wait_for(lambda paths: str(here) in paths)
        assert str(here) in system.get(page_size_path(KB_2M), PAGE_SIZE_IFACE, "Mounts")

        manager.events.clear()
        pool.events.clear()
        run(["umount", str(here)])
        manager.wait_for(lambda mounts: all(p != str(here) for p, _ in mounts))
        pool.wait_for(lambda paths: str(here) not in paths)
        assert str(here) not in manager_mounts(system)
    finally:
        manager.close()
        pool.close()


# --------------------------------------------------------------------------
# links and unsafe directories: hugeadm's hole and its relatives

def swap_for_link_as(pw, directory, target):
    """@pw replaces @directory (theirs) with a link to @target, as themself."""
    proc = run_as(pw, [PYTHON, "-c", "import os, sys; os.rmdir(sys.argv[1]); "
                       "os.symlink(sys.argv[2], sys.argv[1])", str(directory), str(target)])
    assert proc.returncode == 0, proc.stderr
    assert os.readlink(directory) == str(target)
    assert os.lstat(directory).st_uid == pw.pw_uid


def test_hugeadm_symlink_attack(system, area):
    """hugeadm leaves user/U owned by U; U swaps pagesize-2MB for a link to a
    directory of root's. The service refuses the user's directory, so it
    neither follows the link nor mounts anything."""
    pw = system.users[ALLOWED_USER]
    victim = area.mkdtemp()
    (victim / "precious").write_text("root's\n")
    make_dir(MOUNT_BASE)
    make_dir(MOUNT_BASE / "user")
    mine = make_dir(MOUNT_BASE / "user" / pw.pw_name, pw.pw_uid, 0, 0o700)
    for kb in SIZES:
        make_dir(mine / ("pagesize-" + size_name(kb)), pw.pw_uid, 0, 0o700)
    link = mine / "pagesize-2MB"
    swap_for_link_as(pw, link, victim)
    before, victim_before = path_tree(MOUNT_BASE), path_tree(victim)

    for result in (create_mounts(system, ALLOWED_USER, "user", pw.pw_name),
                   create_mounts(system, None, "user", str(pw.pw_uid)),
                   create_mount(system, ALLOWED_USER, KB_2M, "user", pw.pw_name)):
        message = refused(result)
        assert "Refusing to use %s" % mine in message and "must belong to root" in message
    assert_nothing_changed(area, before, [(victim, victim_before)])


@pytest.mark.parametrize("scope", ["system", "user", "group", "global"])
def test_root_made_link_at_the_mount_point(system, area, test_group, scope):
    owner = {"user": ALLOWED_USER, "group": TEST_GROUP}.get(scope, "")
    victim = area.mkdtemp()
    link = Path(mount_path(scope, owner, KB_2M))
    p = link.parent
    todo = []
    while not p.exists():
        todo.insert(0, p)
        p = p.parent
    for d in todo:
        make_dir(d)
    os.symlink(victim, link)
    before, victim_before = path_tree(MOUNT_BASE), path_tree(victim)

    for result in (create_mounts(system, ALLOWED_USER, scope, owner),
                   create_mount(system, ALLOWED_USER, KB_2M, scope, owner)):
        message = refused(result)
        assert "Refusing to use %s: it is a symbolic link" % link in message
    assert_nothing_changed(area, before, [(victim, victim_before)])


@pytest.mark.skipif(not has_pool(KB_1G), reason="needs a second page size")
def test_link_at_the_second_mount_point_takes_back_the_first(system, area):
    victim = area.mkdtemp()
    make_dir(MOUNT_BASE)
    os.symlink(victim, mount_path("system", None, KB_1G))
    before, victim_before = path_tree(MOUNT_BASE), path_tree(victim)
    message = refused(create_mounts(system, ALLOWED_USER, "system"))
    assert "symbolic link" in message
    # 2MB was mounted and taken back, its directory removed again
    assert_nothing_changed(area, before, [(victim, victim_before)])


@pytest.mark.parametrize("component", ["user", "group", "global"])
def test_link_in_place_of_a_scope_directory(system, area, test_group, component):
    elsewhere = area.mkdtemp()     # root's 0755: it would pass every other check
    make_dir(MOUNT_BASE)
    os.symlink(elsewhere, MOUNT_BASE / component)
    before, elsewhere_before = path_tree(MOUNT_BASE), path_tree(elsewhere)
    owner = {"user": ALLOWED_USER, "group": TEST_GROUP}.get(component, "")

    message = refused(create_mounts(system, ALLOWED_USER, component, owner))
    assert "Refusing to use %s: it is a symbolic link" % (MOUNT_BASE / component) in message
    assert_nothing_changed(area, before, [(elsewhere, elsewhere_before)])


@pytest.mark.parametrize("scope", ["system", "user"])
def test_base_is_a_link(system, area, scope):
    need_fresh_base(area)
    elsewhere = area.mkdtemp()
    os.symlink(elsewhere, MOUNT_BASE)
    before, elsewhere_before = path_tree(MOUNT_BASE), path_tree(elsewhere)
    owner = ALLOWED_USER if scope == "user" else ""

    message = refused(create_mounts(system, ALLOWED_USER, scope, owner))
    assert "Refusing to use %s: it is a symbolic link" % MOUNT_BASE in message
    assert_nothing_changed(area, before, [(elsewhere, elsewhere_before)])
    assert os.readlink(MOUNT_BASE) == str(elsewhere)


@pytest.mark.parametrize("uid,mode", [(0, 0o777), (0, 0o775), (0, 0o1777), (1000, 0o755)],
                         ids=["world-writable", "group-writable", "sticky-world-writable",
                              "owned-by-1000"])
def test_unsafe_base_is_refused(system, area, uid, mode):
    need_fresh_base(area)
    make_dir(MOUNT_BASE, uid, 0, mode)
    before = path_tree(MOUNT_BASE)
    for result in (create_mounts(system, ALLOWED_USER, "global"),
                   create_mounts(system, None, "system"),
                   create_mount(system, ALLOWED_USER, KB_2M, "user", ALLOWED_USER)):
        message = refused(result)
        assert "Refusing to use %s: it must belong to root" % MOUNT_BASE in message
        assert "owner %d, mode %04o" % (uid, mode) in message
    assert_nothing_changed(area, before)


def test_user_writable_scope_directory_is_refused(system, area, test_group):
    """Group G's directory writable by the group (hugeadm's 0070 G-owned
    layout would be): any member could swap the mount point."""
    make_dir(MOUNT_BASE)
    make_dir(MOUNT_BASE / "group")
    theirs = make_dir(MOUNT_BASE / "group" / TEST_GROUP, 0, test_group.gr_gid, 0o070)
    before = path_tree(MOUNT_BASE)
    message = refused(create_mounts(system, ALLOWED_USER, "group", TEST_GROUP))
    assert "Refusing to use %s" % theirs in message
    assert_nothing_changed(area, before)


# --------------------------------------------------------------------------
# the user polkit does not allow

def test_denied_user_mounts_nothing(system, area, test_group):
    before = path_tree(MOUNT_BASE)
    results = [create_mounts(system, DENIED_USER, "system"),
               create_mounts(system, DENIED_USER, "user", DENIED_USER),
               create_mounts(system, DENIED_USER, "user", str(system.users[DENIED_USER].pw_uid)),
               create_mounts(system, DENIED_USER, "group", TEST_GROUP),
               create_mounts(system, DENIED_USER, "global", max_size=("t", 2 << 30))]
    results += [create_mount(system, DENIED_USER, kb, "global") for kb in SIZES]
    for result in results:
        refused(result, NOT_AUTHORIZED)
    assert_nothing_changed(area, before)
    if not area.base_existed:
        assert not os.path.lexists(MOUNT_BASE)
    system.assert_service_alive()


# --------------------------------------------------------------------------
# many at once (security.md case 31)

def send_together(system, calls):
    """Sends every (method, signature, args) to the Manager at once on root's
    connection, then waits; returns "ok" or the error name of each, in order."""
    conn, ctx = system.bus, GLib.MainContext.default()
    replies = [None] * len(calls)

    def done(c, res, i):
        try:
            replies[i] = ("ok", c.call_finish(res).unpack())
        except GLib.Error as e:
            replies[i] = (Gio.DBusError.get_remote_error(e), e.message)

    for i, (method, signature, args) in enumerate(calls):
        conn.call(BUS_NAME, MANAGER_PATH, MANAGER_IFACE, method, GLib.Variant(signature, args),
                  None, Gio.DBusCallFlags.NONE, 60000, None, done, i)
    deadline = time.monotonic() + 60
    while None in replies and time.monotonic() < deadline:
        if not ctx.iteration(False):
            time.sleep(0.005)
    assert None not in replies
    return replies


@pytest.mark.parametrize("scope", ["system", "global"])
def test_identical_requests_at_once_both_get_the_mounts(system, area, scope):
    paths = [mount_path(scope, None, kb) for kb in SIZES]
    create = ("CreateMounts", "(ssa{sv})", (scope, "", {}))
    replies = send_together(system, [create, create])
    for p in paths:
        assert len(mounts_at(p)) == 1
    assert replies == [("ok", (paths,)), ("ok", (paths,))]


def test_concurrent_creates_and_unmounts_stay_consistent(system, area, rng):
    """Bursts of CreateMounts and Unmount from three connections, sent at
    random moments, so that the service's checks on the main thread and its
    worker see every order of events. Whatever each call answers, there is
    never more than one mount at a mount point, and nothing is left behind."""
    conns = [connect(system.address) for _ in range(3)]
    paths = [mount_path("global", None, kb) for kb in SIZES]
    replies = []

    def done(c, res, what):
        try:
            c.call_finish(res)
            replies.append((what, "ok"))
        except GLib.Error as e:
            replies.append((what, Gio.DBusError.get_remote_error(e)))

    ctx = GLib.MainContext.default()
    ok(create_mounts(system, None, "global"))
    sent = 0
    try:
        for _ in range(80):
            conn = rng.choice(conns)
            if rng.random() < 0.4:
                conn.call(BUS_NAME, MANAGER_PATH, MANAGER_IFACE, "CreateMounts",
                          GLib.Variant("(ssa{sv})", ("global", "", {})), None,
                          Gio.DBusCallFlags.NONE, 60000, None, done, "create")
            else:
                conn.call(BUS_NAME, MANAGER_PATH, MANAGER_IFACE, "Unmount",
                          GLib.Variant("(sa{sv})", (rng.choice(paths), {})), None,
                          Gio.DBusCallFlags.NONE, 60000, None, done, "unmount")
            sent += 1
            pause = time.monotonic() + rng.uniform(0, 0.006)
            while time.monotonic() < pause:
                if not ctx.iteration(False):
                    time.sleep(0.0005)
            for p in paths:
                assert len(mounts_at(p)) <= 1, mounts_at(p)
        deadline = time.monotonic() + 60
        while len(replies) < sent and time.monotonic() < deadline:
            if not ctx.iteration(False):
                time.sleep(0.005)
    finally:
        for conn in conns:
            conn.close_sync(None)
    assert len(replies) == sent
    print("outcomes:", sorted((w, o, replies.count((w, o))) for w, o in set(replies)))
    allowed = {"create": {"ok", FAILED, ERROR_PREFIX + "Busy"},
               "unmount": {"ok", NOT_MOUNTED, ERROR_PREFIX + "Busy"}}
    for what, outcome in replies:
        assert outcome in allowed[what], replies
    assert ("unmount", "ok") in replies

    # never two mounts at one path, nothing but hugetlbfs there
    for p in paths:
        assert len(mounts_at(p)) <= 1
        assert all(m["fstype"] == "hugetlbfs" for m in mounts_at(p))
    assert len(area.new_mounts()) == sum(len(mounts_at(p)) for p in paths)
    for p in paths:
        if mounts_at(p):
            ok(unmount(system, None, p))
    # no orphan mount points
    assert area.new_mounts() == []
    assert not any(os.path.lexists(p) for p in paths)
    system.assert_service_alive()


def test_persisted_mount_is_saved_and_removed(system, area, etc_config):
    own = os.path.join(etc_config, "hugepagesd.conf.d", "90-persisted.conf")
    path = ok(create_mount(system, ALLOWED_USER, KB_2M, "global", max_inodes=("t", 9),
                           persist=("b", True)))[0]
    assert path == mount_path("global", None, KB_2M)
    with open(own) as f:
        assert f.read().split("\n\n", 1)[1] == ("[mount global]\npage-size = 2MB\n"
                                               "max-inodes = 9\nmode = 1777\n")
    state = {s["key"]: s["value"] for s in system.get(MANAGER_PATH, MANAGER_IFACE, "ConfiguredState")}
    assert state["mount global"] == "page-size=2MB max-inodes=9 mode=1777"
    assert system.get(MANAGER_PATH, MANAGER_IFACE, "Drift") == []

    ok(unmount(system, ALLOWED_USER, path, persist=("b", True)))
    assert mounts_at(path) == []
    with open(own) as f:
        assert f.read().split("\n\n", 1)[1] == ""
    assert system.get(MANAGER_PATH, MANAGER_IFACE, "ConfiguredState") == []
