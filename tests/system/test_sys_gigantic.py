# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""The 1 GiB pool on the real kernel: no overcommit, runtime allocation, demotion."""

import pytest

from hpdsys import (ALLOWED_USER, ERROR_PREFIX, KB_1G, KB_2M, can_overcommit_kernel, counters,
                      has_pool, meminfo_kb, pool_dir, stable_counters, tree_snapshot, write_counter)

pytestmark = pytest.mark.skipif(not has_pool(KB_1G), reason="this kernel has no 1 GiB huge pages")

GIB_KB = 1024 * 1024


def need_free_memory(gib):
    free = meminfo_kb("MemFree")
    if free < gib * GIB_KB:
        pytest.skip("needs %d GiB of MemFree for a 1 GiB page, there is %d MiB" % (gib, free // 1024))


def test_can_overcommit_matches_the_kernel(system):
    props = system.pool_props(KB_1G)
    assert props["Gigantic"] is True
    assert props["CanOvercommit"] == can_overcommit_kernel(KB_1G)
    if props["CanOvercommit"]:
        pytest.skip("this kernel allows overcommitting 1 GiB pages (6.19+?)")
    assert props["Overcommit"] == 0
    assert props["Maximum"] == props["Minimum"]


def test_set_maximum_is_not_supported(system):
    if can_overcommit_kernel(KB_1G):
        pytest.skip("this kernel allows overcommitting 1 GiB pages")
    before = tree_snapshot()
    minimum = counters(KB_1G)["Minimum"]
    result = system.user_call(ALLOWED_USER, KB_1G, "SetMaximum", minimum + 1)
    assert result.get("error") == ERROR_PREFIX + "NotSupported", result
    assert tree_snapshot() == before
    # equal to the Minimum is no change, and fine
    result = system.user_call(ALLOWED_USER, KB_1G, "SetMaximum", minimum)
    assert result.get("value") == [minimum], result


def test_set_minimum_allocates_one_page_at_runtime(system):
    need_free_memory(2)
    before = stable_counters(KB_1G)
    result = system.user_call(ALLOWED_USER, KB_1G, "SetMinimum", before["Minimum"] + 1)
    assert "error" not in result, result
    achieved = result["value"][0]
    after = counters(KB_1G)
    # a shortfall is allowed (fragmentation), but never hidden
    assert achieved == after["Minimum"]
    assert system.pool_props(KB_1G)["Minimum"] == achieved
    if achieved == before["Minimum"]:
        pytest.skip("the kernel found no contiguous 1 GiB right now (reply and kernel agree)")
    assert achieved == before["Minimum"] + 1

    result = system.user_call(ALLOWED_USER, KB_1G, "SetMinimum", before["Minimum"])
    assert result.get("value") == [before["Minimum"]], result
    assert counters(KB_1G)["Minimum"] == before["Minimum"]


def test_demote_one_gib_page_into_2m_pages(system):
    props = system.pool_props(KB_1G)
    if props["DemoteSize"] != 2 << 20:
        pytest.skip("1 GiB pages do not demote to 2 MiB here (DemoteSize %d)" % props["DemoteSize"])
    c = stable_counters(KB_1G)
    if c["Free"] - c["Reserved"] < 1:
        need_free_memory(2)
        write_counter(pool_dir(KB_1G) / "nr_hugepages", c["Minimum"] + 1)
        c = stable_counters(KB_1G)
        if c["Free"] - c["Reserved"] < 1:
            pytest.skip("the kernel found no contiguous 1 GiB right now")
    small_before = stable_counters(KB_2M)

    result = system.user_call(ALLOWED_USER, KB_1G, "Demote", 1)

    assert result.get("value") == [1], result
    big_after = counters(KB_1G)
    small_after = counters(KB_2M)
    assert big_after["Total"] == c["Total"] - 1
    assert small_after["Total"] == small_before["Total"] + 512
    assert small_after["Free"] == small_before["Free"] + 512
    assert system.pool_props(KB_2M)["Total"] == small_after["Total"]
    assert system.pool_props(KB_1G)["Total"] == big_after["Total"]
    # pools_guard puts both pools back
