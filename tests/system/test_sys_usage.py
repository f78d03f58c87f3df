# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""GetUsage and RemoveOrphan on the real kernel: a helper process running as
an unprivileged user maps a file of a hugetlbfs mount made in this test's
namespace, or attaches a SHM_HUGETLB segment; the service must name the
process, the file and the segment with the right owner, pages and pids, see
the file become an orphan when the process exits, refuse to remove it while
it is mapped, remove it afterwards, and give a caller polkit refuses only
its own part. At most 5 x 2 MiB pages are used at once (the pool is grown by
6 and put back by conftest's pools_guard); vm.hugetlb_shm_group is put back
and every segment removed after each test."""

import os
import subprocess
import tempfile
from pathlib import Path

import pytest
from gi.repository import Gio, GLib

from hpdsys import (DENIED_USER, ERROR_PREFIX, KB_2M, MANAGER_IFACE, MANAGER_PATH, PYTHON, Mapper,
                    counters, has_pool, pool_dir, read_counter, write_counter)

MIB2 = 2 << 20
BUSY = ERROR_PREFIX + "Busy"
SHM_GROUP = Path("/proc/sys/vm/hugetlb_shm_group")

HELPER = r"""
import ctypes, mmap, os, sys
mode = sys.argv[1]
size = int(sys.argv[3]) * (2 << 20)
if mode == "file":
    fd = os.open(sys.argv[2], os.O_CREAT | os.O_RDWR, 0o600)
    os.ftruncate(fd, size)
    m = mmap.mmap(fd, size, mmap.MAP_SHARED)
    for i in range(0, size, 2 << 20):
        m[i] = 1
    print("ready", flush=True)
    sys.stdin.read()
    m.close()
    sys.exit(0)
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
SHM_HUGETLB = 0o4000
shmid = libc.shmget(int(sys.argv[2]), ctypes.c_size_t(size), 0o1000 | 0o600 | SHM_HUGETLB)  # IPC_CREAT
if shmid < 0:
    print("error shmget", os.strerror(ctypes.get_errno()), flush=True)
    sys.exit(1)
addr = libc.shmat(shmid, None, 0)
if addr in (None, ctypes.c_void_p(-1).value):
    print("error shmat", os.strerror(ctypes.get_errno()), flush=True)
    sys.exit(1)
for i in range(0, size, 2 << 20):
    ctypes.memset(addr + i, 1, 1)
print("ready", shmid, flush=True)
for line in sys.stdin:
    if line.strip() == "detach":
        libc.shmdt(ctypes.c_void_p(addr))
        print("detached", flush=True)
    elif line.strip() == "remove":
        libc.shmctl(shmid, 0, None)   # IPC_RMID
        print("removed", flush=True)
"""


class Helper:
    """HELPER as @pw (a pwd entry), until stdin closes."""

    def __init__(self, pw, *args):
        self.proc = subprocess.Popen(
            ["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid, "--clear-groups",
             "--pdeathsig", "KILL", PYTHON, "-c", HELPER, *map(str, args)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd="/")
        self.pid = self.proc.pid
        words = self.proc.stdout.readline().split()
        if not words or words[0] != "ready":
            self.stop()
            raise AssertionError("helper failed: %r" % words)
        self.ready = words

    def say(self, command, answer):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        assert self.proc.stdout.readline().strip() == answer

    def stop(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def usage(system):
    return system.call(MANAGER_PATH, MANAGER_IFACE, "GetUsage", "a{sv}", ({},), "(a{sv})")[0]


def remove_orphan(system, path, **opts):
    return system.call(MANAGER_PATH, MANAGER_IFACE, "RemoveOrphan", "sa{sv}",
                       (path, {k.replace("_", "-"): GLib.Variant("b", v) for k, v in opts.items()}))


def bus_error(excinfo):
    return Gio.DBusError.get_remote_error(excinfo.value)


def some_maps_unreadable():
    """Whether root cannot read some process's maps (a sandbox's init):
    RemoveOrphan then needs ignore-unreadable."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/maps" % pid) as f:
                f.read()
        except (FileNotFoundError, ProcessLookupError):
            continue
        except OSError:
            return True
    return False


@pytest.fixture
def pages(system):
    """Six more 2 MiB pages in the pool (pools_guard puts it back)."""
    if not has_pool(KB_2M):
        pytest.skip("no 2 MiB pages on this kernel")
    c = counters(KB_2M)
    write_counter(pool_dir(KB_2M) / "nr_hugepages", c["Total"] + 6)
    if counters(KB_2M)["Free"] < 6:
        pytest.skip("the kernel could not give 6 free 2 MiB pages")


@pytest.fixture
def mount(system):
    """A hugetlbfs mount of 2 MiB pages, world-writable, in this namespace."""
    path = tempfile.mkdtemp(prefix="hpd-usage-")
    subprocess.run(["mount", "-t", "hugetlbfs", "-o", "pagesize=2M,mode=1777", "none", path],
                   check=True)
    try:
        yield path
    finally:
        subprocess.run(["umount", path], check=True)
        os.rmdir(path)


@pytest.fixture
def user(system):
    return system.users[DENIED_USER]


@pytest.fixture
def shm_group(user):
    """vm.hugetlb_shm_group set to the user's group, put back afterwards."""
    before = read_counter(SHM_GROUP)
    write_counter(SHM_GROUP, user.pw_gid)
    yield
    write_counter(SHM_GROUP, before)


def test_process_and_file_then_orphan(system, pages, mount, user):
    path = os.path.join(mount, "data")
    helper = Helper(user, "file", path, 2)
    try:
        u = usage(system)
        assert u["restricted"] is False
        [proc] = [p for p in u["processes"] if p["pid"] == helper.pid]
        assert (proc["uid"], proc["user"], proc["command"]) == (user.pw_uid, DENIED_USER, "python3")
        [size] = proc["hugetlb"]
        assert size["page-size"] == MIB2 and size["shared"] + size["private"] == 2
        [f] = [f for f in u["files"] if f["path"] == path]
        assert (f["mapped"], f["pids"], f["pages"], f["size"], f["uid"], f["mount"], f["page-size"]) == \
            (True, [helper.pid], 2, 2 * MIB2, user.pw_uid, mount, MIB2)
        # the pool's pages in use are accounted for, these two among them
        [pool] = [p for p in u["unattributed"] if p["page-size"] == MIB2]
        assert pool["in-use-attributed"] >= 2

        # mapped: refused, even as a dry run, and the file stays
        for opts in ({}, {"dry_run": True}):
            with pytest.raises(GLib.Error) as e:
                remove_orphan(system, path, ignore_unreadable=True, **opts)
            # counted, not named: the caller may not see other users' processes
            assert bus_error(e) == BUSY and "mapped by 1 process;" in e.value.message
            assert str(helper.pid) not in e.value.message
        assert os.path.exists(path)
    finally:
        helper.stop()

    u = usage(system)
    assert helper.pid not in [p["pid"] for p in u["processes"]]
    [f] = [f for f in u["files"] if f["path"] == path]
    assert (f["mapped"], f["pids"], f["pages"]) == (False, [], 2)   # an orphan holding 2 pages

    free_before = counters(KB_2M)["Free"]
    remove_orphan(system, path, ignore_unreadable=some_maps_unreadable())
    assert not os.path.exists(path)
    assert counters(KB_2M)["Free"] == free_before + 2
    assert path not in [f["path"] for f in usage(system)["files"]]


def test_sysv_segment(system, pages, user, shm_group):
    key = 0x48504400 + os.getpid() % 256
    helper = Helper(user, "shm", key, 2)
    shmid = int(helper.ready[1])
    try:
        [seg] = [s for s in usage(system)["sysv"] if s["id"] == shmid]
        assert (seg["key"], seg["uid"], seg["user"], seg["size"], seg["nattch"], seg["pids"],
                seg["backing"], seg["page-size"], seg["pages"]) == \
            (key, user.pw_uid, DENIED_USER, 2 * MIB2, 1, [helper.pid], "hugetlb", MIB2, 2)

        # unattached: nothing marks it as hugetlb any more; on kernels
        # with the rss inflation it is "probably-hugetlb"
        helper.say("detach", "detached")
        [seg] = [s for s in usage(system)["sysv"] if s["id"] == shmid]
        assert seg["nattch"] == 0 and seg["pids"] == []
        assert seg["backing"] in ("probably-hugetlb", "unknown")

        helper.say("remove", "removed")
        assert shmid not in [s["id"] for s in usage(system)["sysv"]]
    finally:
        helper.stop()
        subprocess.run(["ipcrm", "-m", str(shmid)], stderr=subprocess.DEVNULL)


def test_restricted_caller_sees_only_its_own(system, pages, mount, user):
    """hpd-test-denied gets no inspect-usage from polkit (a challenge, and
    no agent): its reply is restricted to its own process and file."""
    own = Helper(user, "file", os.path.join(mount, "own"), 1)
    roots = Mapper(1)
    rootfile = os.path.join(mount, "roots")
    with open(rootfile, "wb"):
        pass
    try:
        full = usage(system)
        assert {own.pid, roots.proc.pid} <= {p["pid"] for p in full["processes"]}

        out = system.as_user(DENIED_USER, [{
            "op": "call", "path": MANAGER_PATH, "interface": MANAGER_IFACE, "method": "GetUsage",
            "signature": "a{sv}", "args": [{}]}])
        [result] = out["results"]
        assert "value" in result, result
        u = result["value"][0]
        assert u["restricted"] is True and u["uid"] == user.pw_uid
        assert [p["pid"] for p in u["processes"]] == [own.pid]
        assert [f["path"] for f in u["files"]] == [os.path.join(mount, "own")]
        assert "unattributed" not in u
    finally:
        own.stop()
        roots.release()
        os.remove(rootfile)
        leftover = os.path.join(mount, "own")
        if os.path.exists(leftover):
            os.remove(leftover)


def test_client_usage_as_root(system, pages, mount, user):
    helper = Helper(user, "file", os.path.join(mount, "shown"), 1)
    try:
        proc = system.ctl(None, "usage")
        assert proc.returncode == 0, proc.stderr
        assert str(helper.pid) in proc.stdout and os.path.join(mount, "shown") in proc.stdout
    finally:
        helper.stop()
        os.remove(os.path.join(mount, "shown"))
