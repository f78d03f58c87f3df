# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""`hugepagesctl pools` prints what `hugeadm --pool-list` prints, byte for byte."""

import subprocess

import pytest

from hpdsys import DENIED_USER, KB_2M, counters, pool_dir, stable_counters, write_counter

HUGEADM = "/usr/bin/hugeadm"


def hugeadm_pool_list(system):
    return subprocess.run([HUGEADM, "--pool-list"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, env=system.env(), timeout=60)


def compare(system):
    for _ in range(10):
        before = counters(KB_2M)
        ours = system.ctl(DENIED_USER, "pools")
        theirs = hugeadm_pool_list(system)
        if counters(KB_2M) == before:
            break
    assert theirs.returncode == 0, theirs.stderr
    assert ours.returncode == 0, ours.stderr
    assert theirs.stdout.strip(), "hugeadm printed nothing"
    assert ours.stdout == theirs.stdout, (
        "hugepagesctl pools:\n%s\nhugeadm --pool-list:\n%s" % (ours.stdout, theirs.stdout))


def test_pools_as_found(system):
    compare(system)


def test_pools_with_minimum_and_overcommit(system):
    base = stable_counters(KB_2M)
    write_counter(pool_dir(KB_2M) / "nr_hugepages", base["Minimum"] + 3)
    write_counter(pool_dir(KB_2M) / "nr_overcommit_hugepages", base["Overcommit"] + 5)
    compare(system)


def test_pools_with_surplus_pages(system, mapper):
    """Current above Minimum: 2 surplus pages in use on an empty pool."""
    d = pool_dir(KB_2M)
    write_counter(d / "nr_hugepages", 0)
    base = counters(KB_2M)
    if base["Free"] > base["Reserved"]:
        pytest.skip("other work holds free 2 MiB pages that a mapping would use first")
    write_counter(d / "nr_overcommit_hugepages", base["Surplus"] + 4)
    mapper(2)
    assert counters(KB_2M)["Surplus"] == base["Surplus"] + 2
    compare(system)
