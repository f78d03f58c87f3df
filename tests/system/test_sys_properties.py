# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Properties against the real kernel's files, read directly."""

import pytest

from hpdsys import (NODE_KEYS, rows, KB_2M, MANAGER_IFACE, MANAGER_PATH, NODES, PAGE_SIZE_IFACE, counters, meminfo_kb,
                      page_size_path, pool_dir, pool_sizes_kb, read_counter, write_counter)

COUNTERS = ("Total", "Free", "Reserved", "Surplus", "Overcommit", "Minimum", "Maximum", "Nodes")


def props_and_kernel(system, kb, tries=10):
    """The service's properties and the kernel's files from the same moment:
    the kernel is read before and after, until nothing moved in between
    (other work may share the kernel)."""
    for _ in range(tries):
        before = counters(kb)
        props = system.pool_props(kb)
        after = counters(kb)
        if before == after:
            return props, after
    pytest.fail("the %dkB pool kept changing while it was read" % kb)


def assert_props_match(system, kb):
    props, kernel = props_and_kernel(system, kb)
    got = {name: props[name] for name in COUNTERS}
    got["Nodes"] = sorted(rows(got["Nodes"], NODE_KEYS))
    assert got == kernel
    return props, kernel


def test_manager_properties(system):
    props = system.get_all(MANAGER_PATH, MANAGER_IFACE)
    assert props["PageSizes"] == [kb * 1024 for kb in pool_sizes_kb()]
    assert props["DefaultPageSize"] == meminfo_kb("Hugepagesize") * 1024
    assert props["MemTotal"] == meminfo_kb("MemTotal") * 1024
    nodes = sorted(int(d.name[4:]) for d in NODES.glob("node[0-9]*") if (d / "hugepages").is_dir())
    assert props["NumaNodes"] == nodes


@pytest.mark.parametrize("kb", pool_sizes_kb())
def test_pool_properties_equal_sysfs(system, kb):
    props, _ = assert_props_match(system, kb)
    assert props["Size"] == kb * 1024
    assert props["IsDefault"] == (kb == meminfo_kb("Hugepagesize"))
    demote_size = pool_dir(kb) / "demote_size"
    if (pool_dir(kb) / "demote").exists():
        text = demote_size.read_text().strip()
        assert text.endswith("kB")
        assert props["DemoteSize"] == int(text[:-2]) * 1024
    else:
        assert props["DemoteSize"] == 0


def test_surplus_pages(system, mapper):
    """Surplus pages: an empty persistent pool, overcommit 4, 2 pages mapped."""
    d = pool_dir(KB_2M)
    write_counter(d / "nr_hugepages", 0)     # the persistent pool: 0
    base = counters(KB_2M)
    if base["Free"] > base["Reserved"]:
        pytest.skip("other work holds free 2 MiB pages that a mapping would use first: %s" % base)
    write_counter(d / "nr_overcommit_hugepages", base["Surplus"] + 4)

    mapper(2)

    props, kernel = assert_props_match(system, KB_2M)
    assert kernel["Minimum"] == base["Minimum"]
    assert props["Surplus"] == base["Surplus"] + 2
    assert props["Total"] == base["Total"] + 2
    assert props["Overcommit"] == base["Surplus"] + 4
    assert props["Maximum"] == base["Minimum"] + base["Surplus"] + 4
    assert sum(n["surplus"] for n in props["Nodes"]) == props["Surplus"]


def test_change_behind_the_back_is_visible(system):
    path = page_size_path(KB_2M)
    before = system.get(path, PAGE_SIZE_IFACE, "Total")
    write_counter(pool_dir(KB_2M) / "nr_hugepages",
                  counters(KB_2M)["Minimum"] + 2)
    total = read_counter(pool_dir(KB_2M) / "nr_hugepages")
    assert total != before
    assert system.get(path, PAGE_SIZE_IFACE, "Total") == total
    assert_props_match(system, KB_2M)
