# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""hugeadm parity on the real kernel: the same command lines through the real
hugeadm (libhugetlbfs-bin) and through `hugepagesctl` (its hugeadm
compatibility, talking to the tier's hugepagesd), comparing what they print
and the kernel state they leave: pool counters in sysfs, kernel.shmmax and
shmall, vm.hugetlb_shm_group, the khugepaged numbers and the hugetlbfs
mounts. Where hugeadm is wrong (docs/hugeadm.md) the test
checks the documented difference instead.

Every value is put back after each run: the pools by conftest's pools_guard
and by this file between the two runs of a comparison, the sysctl and THP
files by the `tunables` fixture, mounts and /var/lib/hugetlbfs by MountArea
(this tier runs in its own mount namespace). Pools grow by at most 8 x 2 MiB
from wherever they stand; 1 GiB pools are only read."""

import atexit
import grp
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from hpdsys import (KB_2M, MANAGER_IFACE, MANAGER_PATH, MIN_FREE, SHM_GROUP, SHMALL, SHMMAX, SYSCTL,
                    THP, MountArea, builddir, counters, has_pool, meminfo_kb, mountinfo, pool_dir,
                    pools_snapshot, restore_pools, stable_counters, umount, write_counter)

HUGEADM = "/usr/bin/hugeadm"
PAGESIZE = "/usr/bin/pagesize"
KHUGEPAGED = THP / "khugepaged"
KHUGEPAGED_FILES = ["pages_to_scan", "scan_sleep_millisecs", "alloc_sleep_millisecs"]

pytestmark = pytest.mark.skipif(not Path(HUGEADM).exists() or not has_pool(KB_2M),
                                reason="needs hugeadm (libhugetlbfs-bin) and 2 MiB pages")


def hugeadm(system, *args):
    return subprocess.run([HUGEADM, *args], stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, env=system.env(), cwd="/", timeout=60)


CLIENT = builddir() / "client" / "hugepagesctl"
# hugepagesctl called as hugeadm and as pagesize, through symlinks
LINKS = Path(tempfile.mkdtemp(prefix="hpd-parity-"))
atexit.register(shutil.rmtree, LINKS, ignore_errors=True)
for _name in ("hugeadm", "pagesize"):
    (LINKS / _name).symlink_to(CLIENT)


def ours(system, *args, program="hugepagesctl"):
    """hugepagesctl as root; @program "hugeadm" or "pagesize" runs it through
    a symlink of that name."""
    argv = [str(CLIENT if program == "hugepagesctl" else LINKS / program), *args]
    return subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          env=system.env(), cwd="/", timeout=60)


def read(path):
    return Path(path).read_text().strip()


def write(path, value):
    Path(path).write_text("%s\n" % value)


def pool_state():
    """(Minimum, Overcommit) of the 2 MiB pool, two equal reads in a row."""
    c = stable_counters(KB_2M)
    return c["Minimum"], c["Overcommit"]


def same_output(system, args, ours_args=None, program="hugepagesctl", reference=HUGEADM):
    """Runs @args through @reference and ours while the pools hold still;
    returns the two."""
    for _ in range(10):
        before = counters(KB_2M)
        theirs = subprocess.run([reference, *args], stdin=subprocess.DEVNULL, capture_output=True,
                                text=True, env=system.env(), cwd="/", timeout=60)
        mine = ours(system, *(ours_args if ours_args is not None else args), program=program)
        if counters(KB_2M) == before:
            break
    assert mine.returncode == 0, mine.stderr
    assert mine.stdout == theirs.stdout, ("hugeadm %s:\n%s\nhugepagesctl:\n%s"
                                          % (" ".join(args), theirs.stdout, mine.stdout))
    return theirs, mine


@pytest.fixture
def tunables():
    """Puts shmmax, shmall, hugetlb_shm_group, min_free_kbytes and the
    khugepaged numbers back after the test (min_free_kbytes last)."""
    files = [SHMMAX, SHMALL, SHM_GROUP] + [KHUGEPAGED / n for n in KHUGEPAGED_FILES
                                           if (KHUGEPAGED / n).exists()] + [MIN_FREE]
    saved = {f: read(f) for f in files}
    yield saved
    problems = []
    for f, value in saved.items():
        if read(f) != value:
            write(f, value)
        if read(f) != value:
            problems.append("%s is %s, wanted %s" % (f, read(f), value))
    assert not problems, problems


@pytest.fixture
def area(system):
    a = MountArea()
    yield a
    problems = a.cleanup()
    assert not problems, problems


# --------------------------------------------------------------------------
# listings: byte for byte

def test_listings(system, area):
    # a maximum and a mount for 2 MiB, so that --page-sizes lists it
    c = stable_counters(KB_2M)
    write_counter(pool_dir(KB_2M) / "nr_overcommit_hugepages", c["Overcommit"] + 2)
    mnt = area.mkdtemp()
    subprocess.run(["mount", "-t", "hugetlbfs", "-o", "pagesize=2M,size=4M,nr_inodes=7,mode=0751",
                    "none", str(mnt)], check=True)
    long_mnt = area.mkdtemp(suffix="-a-long-name-for-the-column-width")
    subprocess.run(["mount", "-t", "hugetlbfs", "-o", "uid=1,gid=2,min_size=0", "none",
                    str(long_mnt)], check=True)

    same_output(system, ["--pool-list"])
    same_output(system, ["--page-sizes-all"])
    theirs, _ = same_output(system, ["--page-sizes"])
    assert "2097152\n" in theirs.stdout
    theirs, _ = same_output(system, ["--list-all-mounts"])
    assert str(mnt) in theirs.stdout and str(long_mnt) in theirs.stdout
    # several at once: hugeadm's order, not the command line's
    same_output(system, ["--page-sizes-all", "--pool-list", "--list-all-mounts"])
    same_output(system, ["--pool-list"], ["hugeadm", "--pool-list"])
    same_output(system, ["--pool-list"], program="hugeadm")
    for args in ([], ["-a"], ["-H"], ["--all"], ["-aH"]):
        same_output(system, args, ["pagesize", *args], reference=PAGESIZE)
        same_output(system, args, program="pagesize", reference=PAGESIZE)

    umount(long_mnt)
    umount(mnt)


def test_no_mounts(system, area):
    if any(m["fstype"] == "hugetlbfs" for m in mountinfo()):
        pytest.skip("hugetlbfs is mounted in this namespace")
    theirs, mine = same_output(system, ["--list-all-mounts"])
    assert theirs.stderr == "hugeadm:ERROR: No hugetlbfs mount points found\n"
    assert mine.stderr == "hugepagesctl: No hugetlbfs mount points found\n"


def test_explain_parseable_parts(system, tunables):
    # a configured pool, whatever the host's: without one neither tool
    # recommends a shmmax (pools_guard puts the maximum back)
    c = stable_counters(KB_2M)
    write_counter(pool_dir(KB_2M) / "nr_overcommit_hugepages", c["Overcommit"] + 2)
    theirs, mine = hugeadm(system, "--explain"), ours(system, "--explain")
    assert mine.returncode == 0, mine.stderr

    def part(text, start, end):
        return text[text.index(start):text.index(end, text.index(start))]

    assert mine.stdout.splitlines()[0] == theirs.stdout.splitlines()[0]   # Total System Memory
    assert mine.stdout.splitlines()[0] == "Total System Memory: %d MB" % (meminfo_kb("MemTotal") // 1024)
    for start, end in (("\nHuge page pools:\n", "\nHuge page sizes"),
                       ("\nHuge page sizes with configured pools:\n", "\n\n")):
        assert part(mine.stdout, start, end) == part(theirs.stdout, start, end)
    assert "\n  vm.hugetlb_shm_group = %s\n" % read(SHM_GROUP) in mine.stdout
    assert "\n  vm.hugetlb_shm_group = %s\n" % read(SHM_GROUP) in theirs.stdout
    # hugeadm reads shmmax with strtol: the kernel's default shows as LONG_MAX
    shmmax = int(read(SHMMAX))
    assert ("A /proc/sys/kernel/shmmax value of %d bytes" % min(shmmax, 2 ** 63 - 1)) in theirs.stdout
    if shmmax < int(system.get(MANAGER_PATH, MANAGER_IFACE, "RecommendedShmMax")):
        assert ("A /proc/sys/kernel/shmmax value of %d bytes" % shmmax) in mine.stdout
    else:
        # hugeadm advises lowering shmmax to the pools' size; we advise
        # nothing --set-recommended-shmmax would then keep as it is
        assert "A /proc/sys/kernel/shmmax value" not in mine.stdout
        assert "kernel.shmmax = " not in mine.stdout
        assert "lowering it gains nothing" in mine.stdout
        assert ours(system, "--set-recommended-shmmax").returncode == 0
        assert int(read(SHMMAX)) == shmmax


# --------------------------------------------------------------------------
# pool changes: the same state afterwards

def relative_runs():
    return [
        ["--pool-pages-min", "2M:+4"],
        ["--pool-pages-min", "2MB:+8M"],
        ["--pool-pages-max", "2M:+3"],
        ["--pool-pages-min", "2M:+2", "--pool-pages-max", "2M:+6"],
        # hugeadm runs the last first: +3, then +1
        ["--pool-pages-min", "2097152:+1", "--pool-pages-min", "2M:+3"],
        ["--pool-pages-max", "2M:+5", "--pool-pages-max", "2M:-1"],
        ["--pool-pages-min", "2M:+4", "--pool-pages-max", "2M:-2"],
        # units in any case, as hugeadm reads them
        ["--pool-pages-min", "2mb:+4"],
        ["--pool-pages-min", "2Mb:+2", "--pool-pages-max", "2048kb:+6"],
    ]


def test_pool_changes_leave_the_same_state(system):
    snap = pools_snapshot()
    runs = relative_runs()
    if meminfo_kb("Hugepagesize") == KB_2M:
        runs.append(["--pool-pages-min", "DEFAULT:+2"])
    minimum, _ = pool_state()
    # an absolute value, with a relative one given after it: it runs first
    runs.append(["--pool-pages-min", "2M:%d" % (minimum + 2), "--pool-pages-min", "2M:+5"])
    for args in runs:
        start = pool_state()
        theirs = hugeadm(system, *args)
        after_theirs = pool_state()
        assert not restore_pools(snap)
        assert pool_state() == start
        mine = ours(system, *args)
        after_mine = pool_state()
        assert not restore_pools(snap)
        assert theirs.returncode == 0, theirs.stderr
        assert mine.returncode == 0, (args, mine.stdout, mine.stderr)
        assert after_mine == after_theirs, "%s: hugeadm left %s, hugepagesctl %s" % (
            args, after_theirs, after_mine)
        assert after_mine != start


def test_dry_run_writes_nothing_unlike_hugeadm(system):
    """hugeadm --dry-run still resizes the pool; ours changes nothing."""
    start = pool_state()
    mine = ours(system, "--dry-run", "--pool-pages-min", "2M:+1")
    assert mine.returncode == 0, mine.stderr
    assert mine.stdout == "would set the 2MB pool minimum to %d pages\n" % (start[0] + 1)
    assert pool_state() == start
    hugeadm(system, "--dry-run", "--pool-pages-min", "2M:+1")
    assert pool_state()[0] == start[0] + 1     # the documented hugeadm bug


def test_garbage_is_refused_before_anything_runs(system):
    start = pool_state()
    for spec in ("2M:1x", "2M:0x10", "2M:1:2", "2Mxyz:1"):
        mine = ours(system, "--pool-pages-max", "2M:+2", "--pool-pages-min", spec)
        assert mine.returncode == 2, (spec, mine.stderr)
        assert pool_state() == start


# --------------------------------------------------------------------------
# tunables

def test_recommended_shmmax_and_shm_group(system, tunables):
    c = stable_counters(KB_2M)
    write_counter(pool_dir(KB_2M) / "nr_overcommit_hugepages", c["Overcommit"] + 2)
    # below the recommendation, so that both set it (ours never lowers)
    write(SHMMAX, 4096)
    group = grp.getgrgid(1).gr_name
    args = ["--set-recommended-shmmax", "--set-shm-group", group]
    theirs = hugeadm(system, *args)
    state_theirs = (read(SHMMAX), read(SHMALL), read(SHM_GROUP))
    write(SHMMAX, 4096)
    write(SHM_GROUP, tunables[SHM_GROUP])
    mine = ours(system, *args)
    state_mine = (read(SHMMAX), read(SHMALL), read(SHM_GROUP))
    assert theirs.returncode == 0 and mine.returncode == 0, mine.stderr
    assert state_mine == state_theirs
    assert state_mine[2] == "1" and int(state_mine[0]) > 4096


def test_recommended_shmmax_keeps_a_larger_value(system, tunables):
    """hugeadm lowers a larger shmmax (the kernel's default) to the
    recommendation; ours keeps it."""
    c = stable_counters(KB_2M)
    write_counter(pool_dir(KB_2M) / "nr_overcommit_hugepages", c["Overcommit"] + 2)
    recommended = system.get(MANAGER_PATH, MANAGER_IFACE, "RecommendedShmMax")
    larger = recommended + 4096
    write(SHMMAX, larger)
    mine = ours(system, "--set-recommended-shmmax")
    assert mine.returncode == 0, mine.stderr
    assert int(read(SHMMAX)) == larger
    assert "kept: it is above the recommended" in mine.stdout
    theirs = hugeadm(system, "--set-recommended-shmmax")
    assert theirs.returncode == 0
    assert int(read(SHMMAX)) == recommended


def test_khugepaged_numbers(system, tunables):
    if not KHUGEPAGED.is_dir():
        pytest.skip("no khugepaged settings")
    values = {n: int(read(KHUGEPAGED / n)) + 1 for n in KHUGEPAGED_FILES}
    args = ["--thp-khugepaged-pages", str(values["pages_to_scan"]),
            "--thp-khugepaged-scan-sleep", str(values["scan_sleep_millisecs"]),
            "--thp-khugepaged-alloc-sleep", str(values["alloc_sleep_millisecs"])]
    theirs = hugeadm(system, *args)
    state_theirs = {n: read(KHUGEPAGED / n) for n in KHUGEPAGED_FILES}
    for n in KHUGEPAGED_FILES:
        write(KHUGEPAGED / n, tunables[KHUGEPAGED / n])
    mine = ours(system, *args)
    state_mine = {n: read(KHUGEPAGED / n) for n in KHUGEPAGED_FILES}
    assert theirs.returncode == 0 and mine.returncode == 0, mine.stderr
    assert state_mine == state_theirs == {n: str(v) for n, v in values.items()}


def test_recommended_min_free_kbytes_differs_by_design(system, tunables):
    """hugeadm: 11 x default huge page kB x every zone line (empty ones too);
    ours: the kernel's khugepaged formula, never lowering a larger value."""
    zones = sum(1 for line in Path("/proc/zoneinfo").read_text().splitlines()
                if line.startswith("Node "))
    before = int(read(MIN_FREE))
    theirs = hugeadm(system, "--set-recommended-min_free_kbytes")
    assert theirs.returncode == 0
    assert int(read(MIN_FREE)) == 11 * meminfo_kb("Hugepagesize") * zones
    write(MIN_FREE, before)
    mine = ours(system, "--set-recommended-min_free_kbytes")
    assert mine.returncode == 0, mine.stderr
    assert int(read(MIN_FREE)) >= before
    assert mine.stdout.startswith("vm.min_free_kbytes: %s kB" % read(MIN_FREE))


def test_zone_movable_failure_is_an_error(system):
    if any((SYSCTL / "vm" / n).exists() for n in ("hugepages_treat_as_movable",
                                                 "movable_gigantic_pages")):
        pytest.skip("this kernel has a zone movable sysctl")
    theirs = hugeadm(system, "--enable-zone-movable")
    mine = ours(system, "--enable-zone-movable")
    assert theirs.returncode == 0 and "No such file or directory" in theirs.stderr
    assert mine.returncode == 1 and mine.stderr.startswith("hugepagesctl: ")


# --------------------------------------------------------------------------
# mounts (in this tier's private mount namespace)

def no_zone_movable_sysctl():
    if any((SYSCTL / "vm" / n).exists() for n in ("hugepages_treat_as_movable",
                                                 "movable_gigantic_pages")):
        pytest.skip("this kernel has a zone movable sysctl")


def test_a_failing_step_does_not_stop_the_rest(system):
    """hugeadm goes on after a step that failed; so do we, with exit 1."""
    no_zone_movable_sysctl()
    theirs = hugeadm(system, "--enable-zone-movable", "--page-sizes-all")
    mine = ours(system, "--enable-zone-movable", "--page-sizes-all")
    assert theirs.returncode == 0 and "No such file or directory" in theirs.stderr
    assert theirs.stdout != ""
    assert mine.returncode == 1, mine.stderr
    assert mine.stdout == theirs.stdout


def test_a_failing_step_does_not_stop_a_change(system):
    """After the failing step the pool change still runs, in both: the same
    kernel state, hugeadm's exit 0 against our 1."""
    no_zone_movable_sysctl()
    snap = pools_snapshot()
    start = pool_state()
    args = ["--enable-zone-movable", "--pool-pages-max", "2M:+2"]
    theirs = hugeadm(system, *args)
    after_theirs = pool_state()
    assert not restore_pools(snap)
    assert pool_state() == start
    mine = ours(system, *args)
    after_mine = pool_state()
    assert not restore_pools(snap)
    assert theirs.returncode == 0 and "No such file or directory" in theirs.stderr
    assert mine.returncode == 1, mine.stderr
    assert after_mine == after_theirs == (start[0], start[1] + 2)


def test_disable_zone_movable_without_the_setting(system):
    """The state asked for is the state there is: a warning, exit 0, nothing
    written (hugeadm: an error message, exit 0)."""
    no_zone_movable_sysctl()
    before = sorted(p.name for p in (SYSCTL / "vm").iterdir())
    theirs = hugeadm(system, "--disable-zone-movable", "--page-sizes-all")
    mine = ours(system, "--disable-zone-movable", "--page-sizes-all")
    assert theirs.returncode == 0
    assert mine.returncode == 0, mine.stderr
    assert mine.stdout == theirs.stdout
    assert mine.stderr.startswith("hugepagesctl: warning: this kernel has no setting")
    assert sorted(p.name for p in (SYSCTL / "vm").iterdir()) == before


def hugetlbfs_state(area):
    """{path: (page size option, size, nr_inodes, mode, uid, gid)} of the
    mounts made since @area was recorded."""
    state = {}
    for m in area.new_hugetlbfs_mounts():
        st = Path(m["path"]).stat()
        state[m["path"]] = (m["super"].get("pagesize"), m["super"].get("size"),
                            m["super"].get("nr_inodes"), oct(st.st_mode & 0o7777), st.st_uid,
                            st.st_gid)
    return state


def test_create_global_mounts(system, area):
    if area.base_existed:
        pytest.skip("/var/lib/hugetlbfs existed before the test")
    args = ["--create-global-mounts", "--max-size", "1G", "--max-inodes", "10"]
    theirs = hugeadm(system, *args)
    assert theirs.returncode == 0, theirs.stderr
    state_theirs = hugetlbfs_state(area)
    problems = area.cleanup()
    assert not problems, problems
    mine = ours(system, *args)
    assert mine.returncode == 0, mine.stderr
    state_mine = hugetlbfs_state(area)
    assert state_theirs and state_mine == state_theirs
    assert sorted(mine.stdout.split()) == sorted(state_mine)
    # ours adds nosuid and nodev; hugeadm's mounts have neither
    for m in area.new_hugetlbfs_mounts():
        assert "nosuid" in m["flags"] and "nodev" in m["flags"]
