# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""hugepagesd --apply on the real kernel: a configuration in
/etc/hugepagesd (a temporary directory bind-mounted there inside the test's
mount namespace) is applied, and the pools are found back as configured
after they were reset; the pools guard restores them afterwards."""

import os
import subprocess

import pytest

from hpdsys import KB_2M, MIN_FREE, builddir, pool_dir, read_counter, stable_counters, write_counter



def apply():
    # this namespace is the test's own: the mounts are meant to stay in it
    proc = subprocess.run([str(builddir() / "src" / "hugepagesd"), "--apply",
                           "--allow-private-mount-namespace"],
                          capture_output=True, text=True, timeout=120)
    return proc.returncode, proc.stdout.splitlines()


def test_apply_brings_the_pools_back(system, etc_config):
    minimum = stable_counters(KB_2M)["Minimum"]
    want = minimum + 3
    with open(os.path.join(etc_config, "hugepagesd.conf"), "w") as f:
        f.write(f"[pool 2MB]\nminimum = {want}\nmaximum = {want + 2}\n")

    # as after a reboot: the pool is back where it was before
    write_counter(pool_dir(KB_2M) / "nr_hugepages", minimum)
    status, lines = apply()
    assert status == 0, lines
    assert f"ok      pool 2MB minimum: requested {want}, achieved {want}" in lines
    after = stable_counters(KB_2M)
    assert after["Minimum"] == want
    assert after["Maximum"] == want + 2


def test_apply_sets_min_free_kbytes_and_reports_failures(system, etc_config):
    old = read_counter(MIN_FREE)
    try:
        with open(os.path.join(etc_config, "hugepagesd.conf"), "w") as f:
            f.write(f"[tunables]\nmin-free-kbytes = {old + 1024}\nzone-movable = yes\n")
        status, lines = apply()
        # zone movable does not exist on this kernel: reported, the rest applied
        assert status == 1, lines
        assert f"ok      vm.min_free_kbytes: requested {old + 1024}, achieved {old + 1024}" in lines
        assert any(l.startswith("FAILED  zone movable") for l in lines), lines
        assert read_counter(MIN_FREE) == old + 1024
    finally:
        write_counter(MIN_FREE, old)


def test_apply_mounts_and_converts_limits(system, etc_config):
    base = "/var/lib/hugetlbfs"
    if os.path.exists(base):
        pytest.skip(f"{base} exists already; this test only runs where it can remove what it makes")
    path = f"{base}/global/pagesize-2MB"
    with open(os.path.join(etc_config, "hugepagesd.conf"), "w") as f:
        f.write("[mount global]\npage-size = 2MB\nmax-size = 4M\nmode = 1770\nmax-inodes = 7\n")
    try:
        status, lines = apply()
        assert status == 0, lines
        assert lines == [f"ok      mount {path}: mounted"]
        with open("/proc/self/mountinfo") as f:
            found = [l.split() for l in f if l.split()[4] == path]
        assert len(found) == 1
        fields = found[0]
        assert fields[fields.index("-") + 1] == "hugetlbfs"
        assert "nosuid" in fields[5] and "nodev" in fields[5]
        assert fields[-1].split(",")[1:] == ["mode=1770", "nr_inodes=7", "pagesize=2M",
                                             "size=4194304"]
        # applying again finds it in place
        status, lines = apply()
        assert (status, lines) == (0, [f"ok      mount {path}: already mounted"])
    finally:
        subprocess.run(["umount", path], check=False)
        subprocess.run(["rm", "-r", "--one-file-system", base], check=False)
    assert not os.path.exists(base)
