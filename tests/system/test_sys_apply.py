"""hugepagesd --apply on the real kernel: a configuration in
/etc/hugepagesd (a temporary directory bind-mounted there inside the test's
mount namespace) is applied, and the pools are found back as configured
after they were reset; the pools guard restores them afterwards."""

import os
import subprocess
import tempfile

import pytest

from hpdsys import KB_2M, builddir, pool_dir, read_counter, stable_counters, write_counter

ETC = "/etc/hugepagesd"
MIN_FREE = "/proc/sys/vm/min_free_kbytes"


@pytest.fixture
def etc_config():
    """A private /etc/hugepagesd for this test only."""
    created = not os.path.exists(ETC)
    if created:
        os.mkdir(ETC)
    tmp = tempfile.mkdtemp(prefix="hpd-etc-")
    subprocess.run(["mount", "--bind", tmp, ETC], check=True)
    try:
        yield tmp
    finally:
        subprocess.run(["umount", ETC], check=True)
        subprocess.run(["rm", "-rf", tmp], check=True)
        if created:
            os.rmdir(ETC)


def apply():
    proc = subprocess.run([str(builddir() / "src" / "hugepagesd"), "--apply"],
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
