# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Values are exactly as fresh as the kernel's (HACKING.md, "Freshness"): a
value written behind the service's back is in the very next read, through
Get, GetAll and GetManagedObjects, for every kind of kernel source (pool and
node counters, meminfo, sysctls, THP files, mountinfo). The fake tree is
written the ways that give no inotify event: through a shared mapping that
stays open while the service reads."""

import contextlib
import mmap
import os
import re

import pytest

import hpdtest
from hpdtest import MANAGER_IFACE, MANAGER_PATH, PAGE_SIZE_IFACE, page_size_path
from fakekernel import Mount, THP_DIR

HOWS = ['Get', 'GetAll', 'GetManagedObjects']


@contextlib.contextmanager
def shared_mapping(fk, rel):
    """The file of rel mapped shared and writable, open until the end."""
    fd = os.open(fk.path(rel), os.O_RDWR)
    try:
        with mmap.mmap(fd, os.fstat(fd).st_size, mmap.MAP_SHARED,
                       mmap.PROT_READ | mmap.PROT_WRITE) as m:
            yield m
    finally:
        os.close(fd)


def poke(m, old, new):
    """Replaces old by new (the same length) in the mapping."""
    assert len(old) == len(new)
    at = m[:].index(old)
    m[at:at + len(new)] = new


def page_size_value(conn, size_kb, name, how):
    path = page_size_path(size_kb)
    if how == 'Get':
        return hpdtest.get(conn, path, PAGE_SIZE_IFACE, name)
    if how == 'GetAll':
        return hpdtest.page_size_props(conn, size_kb)[name]
    return hpdtest.managed_objects(conn)[path][PAGE_SIZE_IFACE][name]


def manager_value(conn, name, how):
    """The Manager is the object manager itself: GetManagedObjects lists
    only the page sizes, so it stands for GetAll there."""
    if how == 'Get':
        return hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, name)
    return hpdtest.manager_props(conn)[name]


def node_total(conn, size_kb, node, how):
    nodes = page_size_value(conn, size_kb, 'Nodes', how)
    return {n: total for n, total, _free, _surplus, _minimum
            in hpdtest.rows(nodes, hpdtest.NODE_KEYS)}[node]


@pytest.mark.parametrize('how', HOWS)
def test_counters_written_through_a_mapping_are_seen_at_once(service, conn, fake_kernel, how):
    fk = fake_kernel
    fk.write(fk.pool_file(2048, 'nr_hugepages'), 3)
    fk.write(fk.node_file(1, 2048, 'nr_hugepages'), 2)
    # twice: the second read is the one a cache would answer
    for _ in range(2):
        assert page_size_value(conn, 2048, 'Total', how) == 3
        assert node_total(conn, 2048, 1, how) == 2
    with shared_mapping(fk, fk.pool_file(2048, 'nr_hugepages')) as pool, \
            shared_mapping(fk, fk.node_file(1, 2048, 'nr_hugepages')) as node:
        for value in range(4, 8):
            poke(pool, str(value - 1).encode(), str(value).encode())
            poke(node, str(value - 2).encode(), str(value - 1).encode())
            assert page_size_value(conn, 2048, 'Total', how) == value
            assert node_total(conn, 2048, 1, how) == value - 1


@pytest.mark.parametrize('how', HOWS)
def test_manager_sources_written_through_a_mapping_are_seen_at_once(service, conn, fake_kernel, how):
    fk = fake_kernel
    fk.write('proc/sys/vm/min_free_kbytes', 45000)
    fk.write(f'{THP_DIR}/enabled', 'always [madvise] never\n')
    for _ in range(2):
        assert manager_value(conn, 'MinFreeKbytes', how) == 45000
        assert manager_value(conn, 'ThpSettings', how)['enabled'][0] == 'madvise'
    total = manager_value(conn, 'MemTotal', how)
    with shared_mapping(fk, 'proc/sys/vm/min_free_kbytes') as min_free, \
            shared_mapping(fk, f'{THP_DIR}/enabled') as thp, \
            shared_mapping(fk, 'proc/meminfo') as meminfo:
        poke(min_free, b'45000', b'46000')
        poke(thp, b'always [madvise]', b'[always] madvise')
        kb = str(total // 1024).encode()
        bigger = str(total // 1024 + 1).encode()
        assert len(bigger) == len(kb)
        at = re.search(rb'MemTotal:\s+(\d+) kB', meminfo[:]).start(1)
        assert meminfo[at:at + len(kb)] == kb
        meminfo[at:at + len(kb)] = bigger
        assert manager_value(conn, 'MinFreeKbytes', how) == 46000
        assert manager_value(conn, 'ThpSettings', how)['enabled'][0] == 'always'
        assert manager_value(conn, 'MemTotal', how) == (total // 1024 + 1) * 1024


@pytest.mark.parametrize('how', HOWS)
def test_mount_table_written_behind_the_back_is_seen_at_once(service, conn, fake_kernel, how):
    fk = fake_kernel

    def paths():
        return ({path for path, _attrs in manager_value(conn, 'Mounts', how)},
                set(page_size_value(conn, 2048, 'Mounts', how)))

    assert paths() == (set(), set())
    fk.write_mountinfo([Mount('/mnt/fresh')])
    assert paths() == ({'/mnt/fresh'}, {'/mnt/fresh'})
    fk.write_mountinfo([])
    assert paths() == (set(), set())
