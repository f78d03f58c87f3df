# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Pool changes: hugeadm's pool-pages-min/max semantics, return values, the
files written (and only those), gigantic sizes, per-node pools, demotion,
dry runs, no-ops, shortfalls and the memory limit. The fake tree stores what
is written and does not simulate the kernel, so every file the service
touched is visible in a snapshot diff."""

import os
import time

import pytest

import hpdtest
from hpdtest import (ACTION_POOLS, ERR_INVALID_ARGS, ERR_LIMIT_EXCEEDED, ERR_NOT_SUPPORTED,
                     PAGE_SIZE_IFACE, BusError, page_size_path, pool_call)
from fakekernel import NodePool, Pool
from gi.repository import GLib

SMALL = 2048
GIANT = 1048576


@pytest.fixture
def allowed(polkit):
    polkit.allow(ACTION_POOLS)
    return polkit


def nr_file(fk, size_kb=SMALL):
    return fk.pool_file(size_kb, 'nr_hugepages')


def oc_file(fk, size_kb=SMALL):
    return fk.pool_file(size_kb, 'nr_overcommit_hugepages')


def pool_state(fk, size_kb=SMALL):
    return fk.read_int(nr_file(fk, size_kb)), fk.read_int(oc_file(fk, size_kb))


def changed_files(fk, before):
    return set(fk.kernel_changes_since(before))


def props(conn, size_kb=SMALL):
    return hpdtest.page_size_props(conn, size_kb)


# hugeadm.md 4.4, observed from nr=0, OC=5:
#   min 2M:2 -> nr 2 / OC 3; min 2M:+4 -> nr 6 / OC 0; max 2M:+3 -> nr 6 / OC 3;
#   min 2M:-6 -> nr 0 / OC 9; (min 2M:2 -> nr 2 / OC 7;) max 2M:1 -> nr 1 / OC 0
HUGEADM_SEQUENCE = [
    ('SetMinimum', 2, 2, 2, 3),
    ('SetMinimum', 6, 6, 6, 0),
    ('SetMaximum', 9, 9, 6, 3),
    ('SetMinimum', 0, 0, 0, 9),
    ('SetMinimum', 2, 2, 2, 7),
    ('SetMaximum', 1, 1, 1, 0),
]


@pytest.mark.fake_kernel(pools={SMALL: Pool(total=0, overcommit=5)})
@pytest.mark.valgrind
def test_hugeadm_sequence(service, conn, fake_kernel, allowed):
    assert pool_state(fake_kernel) == (0, 5)
    for method, pages, returned, nr, oc in HUGEADM_SEQUENCE:
        before = fake_kernel.snapshot()
        result = pool_call(conn, SMALL, method, pages)
        step = f'{method}({pages})'
        assert result == returned, step
        assert pool_state(fake_kernel) == (nr, oc), step
        assert changed_files(fake_kernel, before) <= {nr_file(fake_kernel), oc_file(fake_kernel)}, step
        p = props(conn)
        assert (p['Total'], p['Overcommit'], p['Minimum'], p['Maximum']) == (nr, oc, nr, nr + oc), step
    assert len(allowed.checks()) == len(HUGEADM_SEQUENCE)


@pytest.mark.fake_kernel(pools={SMALL: Pool(total=12, free=12, overcommit=10)})
def test_shrinking_to_fewer_digits(service, conn, fake_kernel, allowed):
    # 12 -> 5 and 10 -> 17 -> 9: the files must hold exactly the new numbers
    assert pool_call(conn, SMALL, 'SetMinimum', 5) == 5
    assert fake_kernel.read(nr_file(fake_kernel)) == '5\n'
    assert fake_kernel.read(oc_file(fake_kernel)) == '17\n'
    assert pool_call(conn, SMALL, 'SetMaximum', 14) == 14
    assert fake_kernel.read(oc_file(fake_kernel)) == '9\n'
    p = props(conn)
    assert (p['Total'], p['Minimum'], p['Maximum']) == (5, 5, 14)


@pytest.mark.fake_kernel(pools={SMALL: Pool(total=4, overcommit=2)})
@pytest.mark.parametrize('method,pages,nr,oc', [
    ('SetMinimum', 3, 3, 3),   # Maximum 6 kept
    ('SetMinimum', 8, 8, 0),   # above Maximum: Maximum follows
    ('SetMaximum', 10, 4, 6),  # Minimum kept
    ('SetMaximum', 2, 2, 0),   # below Minimum: the pool shrinks
])
@pytest.mark.valgrind
def test_return_value_and_files(service, conn, fake_kernel, allowed, method, pages, nr, oc):
    before = fake_kernel.snapshot()
    result = pool_call(conn, SMALL, method, pages)
    assert pool_state(fake_kernel) == (nr, oc)
    assert result == (nr if method == 'SetMinimum' else nr + oc)
    assert changed_files(fake_kernel, before) <= {nr_file(fake_kernel), oc_file(fake_kernel)}
    assert fake_kernel.read(fake_kernel.pool_file(SMALL, 'nr_hugepages_mempolicy')) == '4\n'


@pytest.mark.fake_kernel(pools={GIANT: Pool(total=2, free=2)})
@pytest.mark.valgrind
def test_gigantic_set_minimum_writes_only_the_pool(service, conn, fake_kernel, allowed):
    assert not fake_kernel.exists(oc_file(fake_kernel, GIANT))
    before = fake_kernel.snapshot()
    assert pool_call(conn, GIANT, 'SetMinimum', 5) == 5
    assert fake_kernel.kernel_changes_since(before) == {nr_file(fake_kernel, GIANT): (b'2\n', b'5\n')}
    p = props(conn, GIANT)
    assert (p['Minimum'], p['Maximum'], p['CanOvercommit']) == (5, 5, False)


@pytest.mark.fake_kernel(pools={GIANT: Pool(total=2, free=2)})
@pytest.mark.parametrize('pages', [3, 4, 10])
@pytest.mark.valgrind(first=1)
def test_gigantic_set_maximum_above_minimum_not_supported(service, conn, fake_kernel, allowed, pages):
    before = fake_kernel.snapshot()
    with pytest.raises(BusError) as e:
        pool_call(conn, GIANT, 'SetMaximum', pages)
    assert e.value.name == ERR_NOT_SUPPORTED
    assert fake_kernel.snapshot() == before
    assert allowed.checks() == []


@pytest.mark.fake_kernel(pools={GIANT: Pool(total=2, free=2)})
def test_gigantic_set_maximum_at_or_below_minimum(service, conn, fake_kernel, allowed):
    before = fake_kernel.snapshot()
    assert pool_call(conn, GIANT, 'SetMaximum', 2) == 2     # no-op
    assert fake_kernel.snapshot() == before
    assert allowed.checks() == []
    assert pool_call(conn, GIANT, 'SetMaximum', 1) == 1     # shrinks the pool
    assert fake_kernel.kernel_changes_since(before) == {nr_file(fake_kernel, GIANT): (b'2\n', b'1\n')}


@pytest.mark.fake_kernel(pools={GIANT: Pool(total=2, free=2, overcommit=0, overcommit_file=True)})
@pytest.mark.valgrind
def test_gigantic_with_overcommit_support(service, conn, fake_kernel, allowed):
    assert pool_call(conn, GIANT, 'SetMaximum', 6) == 6
    assert pool_state(fake_kernel, GIANT) == (2, 4)


@pytest.mark.fake_kernel(pools={SMALL: Pool(total=6, free=6, overcommit=3,
                                            nodes={0: NodePool(4, 4, 0), 1: NodePool(2, 2, 0)})})
@pytest.mark.parametrize('node,pages', [(0, 1), (1, 7), (1, 0)])
@pytest.mark.valgrind(first=1)
def test_set_node_pages_writes_the_node_file_only(service, conn, fake_kernel, allowed, node, pages):
    before = fake_kernel.snapshot()
    assert pool_call(conn, SMALL, 'SetNodePages', node, pages) == pages
    node_nr = fake_kernel.node_file(node, SMALL, 'nr_hugepages')
    old = before[node_nr]
    assert fake_kernel.kernel_changes_since(before) == {node_nr: (old, f'{pages}\n'.encode())}
    check = allowed.checks()[-1]
    assert check.details == {'page-size': str(SMALL * 1024), 'pages': str(pages), 'node': str(node)}


@pytest.mark.fake_kernel(pools={GIANT: Pool(total=4, free=3, resv=1)})
@pytest.mark.valgrind
def test_demote_writes_the_demote_file(service, conn, fake_kernel, allowed):
    demote = fake_kernel.pool_file(GIANT, 'demote')
    before = fake_kernel.snapshot()
    # the fake kernel does not demote: nr_hugepages stays, so 0 were demoted
    assert pool_call(conn, GIANT, 'Demote', 2) == 0
    assert fake_kernel.changes_since(before) == {demote: (b'0\n', b'2\n')}


@pytest.mark.fake_kernel(pools={SMALL: Pool(total=4, free=4)})
def test_demote_not_supported_without_smaller_size(service, conn, fake_kernel, allowed):
    assert hpdtest.get(conn, page_size_path(SMALL), PAGE_SIZE_IFACE, 'DemoteSize') == 0
    before = fake_kernel.snapshot()
    for opts in ({}, {'dry-run': GLib.Variant('b', True)}):
        with pytest.raises(BusError) as e:
            pool_call(conn, SMALL, 'Demote', 1, options=opts)
        assert e.value.name == ERR_NOT_SUPPORTED
    assert fake_kernel.snapshot() == before
    assert allowed.checks() == []


@pytest.mark.fake_kernel(pools={GIANT: Pool(total=2, free=2)}, demote=False)
@pytest.mark.valgrind
def test_demote_not_supported_without_demote_file(service, conn, fake_kernel, allowed):
    assert not fake_kernel.exists(fake_kernel.pool_file(GIANT, 'demote'))
    assert hpdtest.get(conn, page_size_path(GIANT), PAGE_SIZE_IFACE, 'DemoteSize') == 0
    with pytest.raises(BusError) as e:
        pool_call(conn, GIANT, 'Demote', 1)
    assert e.value.name == ERR_NOT_SUPPORTED


DRY_POOLS = {SMALL: Pool(total=6, free=5, resv=1, overcommit=2,
                         nodes={0: NodePool(4, 3, 0), 1: NodePool(2, 2, 0)}),
             GIANT: Pool(total=5, free=4, resv=1)}

# (size, method, args, dry-run result): none of them is a no-op
DRY_RUNS = [
    (SMALL, 'SetMinimum', (10,), 10),
    (SMALL, 'SetMinimum', (1,), 1),
    (SMALL, 'SetMaximum', (20,), 20),
    (SMALL, 'SetMaximum', (3,), 3),
    (SMALL, 'SetNodePages', (1, 9), 9),
    (GIANT, 'SetMinimum', (1,), 1),
    (GIANT, 'Demote', (2,), 2),
    (GIANT, 'Demote', (10,), 3),   # at most free - reserved
]


@pytest.mark.fake_kernel(pools=DRY_POOLS)
@pytest.mark.parametrize('size_kb,method,args,expected', DRY_RUNS)
@pytest.mark.valgrind
def test_dry_run_writes_nothing_and_needs_no_authorization(service, conn, fake_kernel, polkit,
                                                            size_kb, method, args, expected):
    before = fake_kernel.snapshot()
    opts = {'dry-run': GLib.Variant('b', True)}
    assert pool_call(conn, size_kb, method, *args, options=opts) == expected
    assert fake_kernel.snapshot() == before
    assert polkit.checks() == []
    # and without dry-run the same call does need authorization (the mock denies)
    with pytest.raises(BusError) as e:
        pool_call(conn, size_kb, method, *args)
    assert e.value.name == hpdtest.ERR_NOT_AUTHORIZED
    assert fake_kernel.snapshot() == before


NO_OPS = [
    (SMALL, 'SetMinimum', (6,), 6),
    (SMALL, 'SetMaximum', (8,), 8),
    (SMALL, 'SetNodePages', (0, 4), 4),
    (SMALL, 'SetNodePages', (1, 2), 2),
    (GIANT, 'SetMinimum', (5,), 5),
    (GIANT, 'SetMaximum', (5,), 5),
    (GIANT, 'Demote', (0,), 0),
]


@pytest.mark.fake_kernel(pools=DRY_POOLS)
@pytest.mark.parametrize('size_kb,method,args,expected', NO_OPS)
def test_no_op_returns_without_polkit(service, conn, fake_kernel, polkit, size_kb, method, args,
                                      expected):
    before = fake_kernel.snapshot()
    assert pool_call(conn, size_kb, method, *args) == expected
    assert fake_kernel.snapshot() == before
    assert polkit.checks() == []


# Surplus pages the fake kernel never converts: asking for 10 leaves the
# persistent pool at 10 - 2 = 8, a shortfall the reply must show.
SHORT = {SMALL: Pool(total=4, free=2, surplus=2, overcommit=5,
                     nodes={0: NodePool(2, 1, 1), 1: NodePool(2, 1, 1)})}


@pytest.mark.fake_kernel(pools=SHORT)
@pytest.mark.valgrind
def test_shortfall_is_reported_and_maximum_kept(service, conn, fake_kernel, allowed):
    assert pool_call(conn, SMALL, 'SetMinimum', 10) == 8
    p = props(conn)
    assert (p['Minimum'], p['Maximum']) == (8, 10)
    assert pool_state(fake_kernel) == (10, 2)
    # without "hard" there is no compaction
    assert fake_kernel.read('proc/sys/vm/compact_memory') == ''


@pytest.mark.fake_kernel(pools=SHORT)
@pytest.mark.valgrind
def test_hard_compacts_and_retries_within_timeout(service, conn, fake_kernel, allowed):
    opts = {'hard': GLib.Variant('b', True), 'timeout-ms': GLib.Variant('u', 300)}
    start = time.monotonic()
    assert pool_call(conn, SMALL, 'SetMinimum', 10, options=opts) == 8
    elapsed = time.monotonic() - start
    assert elapsed < 2.0, f'hard with timeout-ms 300 took {elapsed:.2f}s'
    # the nodes have compact files: each node is compacted, not the machine
    assert all(fake_kernel.read(f'sys/devices/system/node/node{n}/compact') == '1\n'
               for n in (0, 1))
    assert fake_kernel.read('proc/sys/vm/compact_memory') == ''


@pytest.mark.fake_kernel(pools=SHORT)
@pytest.mark.valgrind
def test_node_shortfall_and_hard_compacts_that_node(service, conn, fake_kernel, allowed):
    assert pool_call(conn, SMALL, 'SetNodePages', 1, 5) == 4
    assert fake_kernel.read('sys/devices/system/node/node1/compact') == ''
    opts = {'hard': GLib.Variant('b', True), 'timeout-ms': GLib.Variant('u', 200)}
    assert pool_call(conn, SMALL, 'SetNodePages', 1, 6, options=opts) == 5
    assert fake_kernel.read('sys/devices/system/node/node1/compact') == '1\n'
    assert fake_kernel.read('sys/devices/system/node/node0/compact') == ''
    assert fake_kernel.read('proc/sys/vm/compact_memory') == ''


MEM_KB = 16 * 1024 * 1024
LIMIT = MEM_KB * 1024 * 9 // 10
SMALL_CAP = LIMIT // (SMALL * 1024)


@pytest.mark.parametrize('method', ['SetMinimum', 'SetMaximum'])
@pytest.mark.valgrind
def test_memory_limit_boundary(service, conn, fake_kernel, polkit, method):
    dry = {'dry-run': GLib.Variant('b', True)}
    assert pool_call(conn, SMALL, method, SMALL_CAP, options=dry) == SMALL_CAP
    before = fake_kernel.snapshot()
    polkit.allow(ACTION_POOLS)
    with pytest.raises(BusError) as e:
        pool_call(conn, SMALL, method, SMALL_CAP + 1)
    assert e.value.name == ERR_LIMIT_EXCEEDED
    assert fake_kernel.snapshot() == before
    assert polkit.checks() == []


def test_memory_limit_boundary_node(service, conn, fake_kernel, polkit):
    dry = {'dry-run': GLib.Variant('b', True)}
    assert pool_call(conn, SMALL, 'SetNodePages', 1, SMALL_CAP, options=dry) == SMALL_CAP
    polkit.allow(ACTION_POOLS)
    before = fake_kernel.snapshot()
    with pytest.raises(BusError) as e:
        pool_call(conn, SMALL, 'SetNodePages', 1, SMALL_CAP + 1)
    assert e.value.name == ERR_LIMIT_EXCEEDED
    assert fake_kernel.snapshot() == before


@pytest.mark.fake_kernel(pools={GIANT: Pool(total=3, free=3),
                                SMALL: Pool(total=10, nodes={0: NodePool(6, 0, 0),
                                                             1: NodePool(4, 0, 0)})})
def test_memory_limit_counts_the_other_pools(service, conn, fake_kernel, polkit):
    polkit.allow(ACTION_POOLS)
    cap = (LIMIT - 3 * (1 << 30)) // (SMALL * 1024)
    dry = {'dry-run': GLib.Variant('b', True)}
    assert pool_call(conn, SMALL, 'SetMinimum', cap, options=dry) == cap
    before = fake_kernel.snapshot()
    with pytest.raises(BusError) as e:
        pool_call(conn, SMALL, 'SetMinimum', cap + 1)
    assert e.value.name == ERR_LIMIT_EXCEEDED
    # a node's pages count together with the other nodes' (4 on node 1)
    assert pool_call(conn, SMALL, 'SetNodePages', 0, cap - 4, options=dry) == cap - 4
    with pytest.raises(BusError) as e:
        pool_call(conn, SMALL, 'SetNodePages', 0, cap - 3)
    assert e.value.name == ERR_LIMIT_EXCEEDED
    # and the 1 GB pool may only grow into what the 2 MB pool leaves
    giant_cap = (LIMIT - 10 * SMALL * 1024) // (1 << 30)
    with pytest.raises(BusError) as e:
        pool_call(conn, GIANT, 'SetMinimum', giant_cap + 1)
    assert e.value.name == ERR_LIMIT_EXCEEDED
    assert fake_kernel.snapshot() == before
    assert pool_call(conn, GIANT, 'SetMinimum', giant_cap) == giant_cap


@pytest.mark.fake_kernel(pools={SMALL: Pool(total=3, free=3)})
@pytest.mark.valgrind
def test_kernel_refusing_a_write_is_a_typed_error(service, conn, fake_kernel, allowed):
    # nr_hugepages as a symlink: readable, but the service opens with
    # O_NOFOLLOW, so the write fails like a kernel refusal would
    nr = fake_kernel.path(nr_file(fake_kernel))
    os.rename(nr, nr + '.real')
    os.symlink(os.path.basename(nr) + '.real', nr)
    assert props(conn)['Total'] == 3
    with pytest.raises(BusError) as e:
        pool_call(conn, SMALL, 'SetMinimum', 7)
    assert e.value.name.startswith(hpdtest.ERR)
    assert fake_kernel.read(nr_file(fake_kernel) + '.real') == '3\n'
    assert props(conn)['Total'] == 3


@pytest.mark.valgrind
def test_unknown_node(service, conn, fake_kernel, polkit):
    polkit.allow(ACTION_POOLS)
    before = fake_kernel.snapshot()
    for node in (2, 7, 2**32 - 1):
        for opts in ({}, {'dry-run': GLib.Variant('b', True)}):
            with pytest.raises(BusError) as e:
                pool_call(conn, SMALL, 'SetNodePages', node, 1, options=opts)
            assert e.value.name == ERR_INVALID_ARGS, node
    assert fake_kernel.snapshot() == before
    assert polkit.checks() == []


@pytest.mark.fake_kernel(nodes=3, memoryless=[1])
def test_memoryless_node_is_unknown(service, conn, fake_kernel, polkit):
    assert hpdtest.manager_props(conn)['NumaNodes'] == [0, 2]
    with pytest.raises(BusError) as e:
        pool_call(conn, SMALL, 'SetNodePages', 1, 1, options={'dry-run': GLib.Variant('b', True)})
    assert e.value.name == ERR_INVALID_ARGS
    assert pool_call(conn, SMALL, 'SetNodePages', 2, 1,
                     options={'dry-run': GLib.Variant('b', True)}) == 1
