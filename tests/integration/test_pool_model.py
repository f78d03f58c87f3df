# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""One pool model (hpd-pool-model.c): every caller asks the same module for
a pool's base and target, so SetMinimum, Claim, Explain, Drift, the pool's
properties and `hugepagesd --apply` agree on them, and a claim on a node
brings the pool to its target as a claim on the whole pool does.

The kernel is fakekernel's AllocationModel: the global nr_hugepages is the
sum of the nodes, as in the kernel, so node writes move the pool."""

import subprocess

import pytest

import hpdtest

from hpdtest import ACTION_POOLS, MANAGER_IFACE, MANAGER_PATH
from fakekernel import AllocationModel, NodePool, Pool
from gi.repository import GLib

SMALL = 2048
SIZE_2M = SMALL * 1024
CONF = 'etc/hugepagesd/hugepagesd.conf'
REQUESTED = 'run/hugepagesd/requested'
# 2 + 2 pages on the two nodes to start with
START = {SMALL: Pool(total=4, free=4, overcommit=0,
                     nodes={0: NodePool(2, 2, 0), 1: NodePool(2, 2, 0)})}
NODE1 = {'node': GLib.Variant('u', 1)}
NODE1_NR = 'sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages'


def claim(conn, consumer, pages, **opts):
    params = GLib.Variant('(sta{sv})', (consumer, pages, hpdtest.options(**opts)))
    return hpdtest.call(conn, hpdtest.page_size_path(SIZE_2M // 1024), hpdtest.PAGE_SIZE_IFACE,
                        'Claim', params, '(t)')[0]


def explain(conn):
    entries = hpdtest.call(conn, MANAGER_PATH, MANAGER_IFACE, 'Explain',
                           GLib.Variant('(a{sv})', ({},)), '(aa{sv})')[0]
    return {id_: (severity, message, fix)
            for severity, id_, message, fix in hpdtest.rows(entries, hpdtest.EXPLAIN_KEYS)}


@pytest.fixture
def kernel(fake_kernel, polkit):
    """The 2 MiB pool as an AllocationModel with room to spare."""
    polkit.allow(ACTION_POOLS)
    m = AllocationModel(fake_kernel, SMALL, {0: 1000, 1: 1000}).install()
    yield m
    m.remove()


@pytest.mark.fake_kernel(pools=START)
@pytest.mark.parametrize('where', [NODE1, {}], ids=['node', 'pool'])
def test_a_claim_brings_a_pool_that_fell_short_to_its_target(service, conn, fake_kernel,
                                                             kernel, where):
    fk = fake_kernel
    assert claim(conn, 'db', 2) == 2                 # the base is the pool: 4
    assert kernel.total() == 6
    # another program shrinks the pool below base + claims
    fk.write(fk.pool_file(SMALL, 'nr_hugepages'), '4\n')
    assert fk.read_int(fk.pool_file(SMALL, 'nr_hugepages')) == 4
    assert 'claims-drift-2MB' in explain(conn)
    # a claim, on node 1 or on the whole pool, puts the target back
    assert claim(conn, 'vm', 3, **where) == 3
    assert kernel.total() == 9                       # 4 + 2 + 3
    if where:
        assert kernel.pages[1] >= 3
    found = explain(conn)
    assert 'claims-drift-2MB' not in found
    assert 'the pool\'s target is 9' in found['claims-2MB'][1]


@pytest.mark.fake_kernel(pools=START)
def test_callers_agree_on_the_target(start_service, conn, fake_kernel, kernel, hugepagesd):
    fk = fake_kernel
    fk.write(CONF, '[pool 2MB]\nminimum = 4\n')
    start_service(fk.root)
    assert claim(conn, 'db', 10) == 10
    assert claim(conn, 'vm', 3, **NODE1) == 3
    target = 4 + 10 + 3

    # the kernel, the pool's property, Explain and Drift
    assert kernel.total() == target
    assert hpdtest.page_size_props(conn, SMALL)['Minimum'] == target
    found = explain(conn)
    assert (f"with the administrator's base of 4 the pool's target is {target}"
            in found['claims-2MB'][1])
    assert not [k for k in found if k.startswith('claims-drift') or k.startswith('claims-exceed')]
    assert [d for d in hpdtest.manager_props(conn)['Drift'] if d['key'].startswith('pool 2MB')] == []

    # SetMinimum sets the same base under the same claims: nothing moves
    assert hpdtest.pool_call(conn, SMALL, 'SetMinimum', 4) == 4
    assert kernel.total() == target

    # --apply (after boot) takes the same base and the same claims
    proc = subprocess.run([hugepagesd, '--kernel-root', fk.root, '--apply'],
                          capture_output=True, text=True, timeout=60)
    assert (f'ok      pool 2MB minimum: requested 4 plus 13 claimed, achieved {target}'
            in proc.stdout.splitlines()), proc.stdout
    assert kernel.total() == target

    # a SetMinimum since boot is the base, before the configuration
    assert hpdtest.pool_call(conn, SMALL, 'SetMinimum', 2) == 2
    assert kernel.total() == 2 + 13
    assert "base of 2 the pool's target is 15" in explain(conn)['claims-2MB'][1]
    assert claim(conn, 'db', 11) == 11
    assert kernel.total() == 2 + 14


@pytest.mark.fake_kernel(pools=START)
def test_the_requested_base_is_read_from_memory(start_service, conn, fake_kernel, kernel):
    """The base SetMinimum records is held by the daemon: the file under
    /run is only what a restart (or an idle exit) starts from, so a refresh
    of the properties reads no file, and a file changed behind the
    running service's back counts from its next start."""
    fk = fake_kernel
    svc = start_service(fk.root)
    assert hpdtest.pool_call(conn, SMALL, 'SetMinimum', 6) == 6
    assert fk.read(REQUESTED) == '[minimum]\n2MB=6\n'
    props = hpdtest.page_size_props(conn, SMALL)
    assert (props['Base'], props['Target']) == (6, 6)

    fk.write(REQUESTED, '[minimum]\n2MB=9\n')
    props = hpdtest.page_size_props(conn, SMALL)
    assert (props['Base'], props['Target']) == (6, 6)
    assert claim(conn, 'db', 2) == 2
    assert kernel.total() == 6 + 2
    assert hpdtest.page_size_props(conn, SMALL)['Target'] == 6 + 2

    assert svc.terminate() == 0
    fk.write(REQUESTED, '[minimum]\n2MB=3\n')
    start_service(fk.root)
    props = hpdtest.page_size_props(conn, SMALL)
    assert (props['Base'], props['Target']) == (3, 3 + 2)


@pytest.mark.fake_kernel(pools=START)
def test_node_targets_are_the_configured_node_pages_plus_the_node_claims(service, conn,
                                                                          fake_kernel, kernel,
                                                                          hugepagesd):
    def node_targets():
        records = hpdtest.page_size_props(conn, SMALL)['Nodes']
        return {r['node']: r['target'] for r in records}

    assert node_targets() == {0: 0, 1: 0}
    fake_kernel.write(CONF, '[pool 2MB]\nnode0 = 3\n')
    assert node_targets() == {0: 3, 1: 0}
    # a claim on the pool is no node's; claims on a node add to its count
    claim(conn, 'all', 1)
    claim(conn, 'db', 2, **NODE1)
    claim(conn, 'web', 1, node=GLib.Variant('u', 0))
    assert node_targets() == {0: 3 + 1, 1: 2}
    # --apply (after boot) brings the nodes to the same targets
    proc = subprocess.run([hugepagesd, '--kernel-root', fake_kernel.root, '--apply'],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert kernel.pages[0] == 3 + 1 and kernel.pages[1] >= 2


@pytest.mark.fake_kernel(pools=START)
def test_explain_checks_a_node_against_its_target(service, conn, fake_kernel, kernel):
    """Explain's node check, --apply and Nodes' target are one rule: the
    node's configured pages plus the claims on it, not the claims alone."""
    fake_kernel.write(CONF, '[pool 2MB]\nnode1 = 3\n')
    assert claim(conn, 'db', 2, **NODE1) == 2
    assert kernel.pages[1] == 3 + 2
    assert 'claims-drift-2MB-node1' not in explain(conn)
    # another program takes one page of node 1: one short of 3 + 2
    fake_kernel.write(NODE1_NR, 4)
    assert fake_kernel.read_int(NODE1_NR) == kernel.pages[1] == 4
    nodes = {r['node']: r for r in hpdtest.page_size_props(conn, SMALL)['Nodes']}
    assert (nodes[1]['minimum'], nodes[1]['target']) == (4, 3 + 2)
    severity, message, fix = explain(conn)['claims-drift-2MB-node1']
    assert severity == 'warning'
    assert 'Node 1 holds 4 2MB pages, fewer than its target of 5' in message
    assert '3 configured pages plus the 2 claimed on it' in message
    assert fix == 'hugepagesctl set-node 1 2MB 5 --hard'
    # node 0 has neither: no finding of its own
    assert 'claims-drift-2MB-node0' not in explain(conn)

    # the fix meets the target
    assert hpdtest.pool_call(conn, SMALL, 'SetNodePages', 1, 5) == 5
    assert 'claims-drift-2MB-node1' not in explain(conn)


def release(conn, consumer, **opts):
    params = GLib.Variant('(sa{sv})', (consumer, hpdtest.options(**opts)))
    return hpdtest.call(conn, hpdtest.page_size_path(SIZE_2M // 1024), hpdtest.PAGE_SIZE_IFACE,
                        'Release', params, '(t)')[0]


def warnings(conn):
    """Explain's warnings on the pool's pages (no-mount-2MB is about files)."""
    return {id_: message for id_, (severity, message, _fix) in explain(conn).items()
            if severity == 'warning' and not id_.startswith('no-mount-')}


@pytest.mark.fake_kernel(pools=START)
def test_a_node_claim_works_towards_the_node_target(service, conn, fake_kernel, kernel):
    """Claim and Release on a node use the node target of Nodes, Explain
    and --apply: its configured pages plus its claims. A node below its
    configured pages is brought to them with the claim on top, and a
    release gives back the claim but never the configured pages."""
    fake_kernel.write(CONF, '[pool 2MB]\nnode1 = 3\n')
    assert kernel.pages[1] == 2                       # below its configured 3
    assert claim(conn, 'db', 2, **NODE1) == 2
    assert kernel.pages[1] == 3 + 2
    nodes = {r['node']: r for r in hpdtest.page_size_props(conn, SMALL)['Nodes']}
    assert (nodes[1]['minimum'], nodes[1]['target']) == (5, 5)
    last = hpdtest.page_size_props(conn, SMALL)['LastAllocation']
    assert (last['node'], last['requested'], last['achieved'], last['shortfall']) == (1, 5, 5, 0)
    assert warnings(conn) == {}

    # a second claim on the node grows it by its pages
    assert claim(conn, 'web', 1, **NODE1) == 1
    assert kernel.pages[1] == 3 + 2 + 1
    assert release(conn, 'web', **NODE1) == 3 + 2

    # another program took a page: the release goes to the configured 3,
    # not 2 below the 4 the node holds
    fake_kernel.write(NODE1_NR, 4)
    assert fake_kernel.read_int(NODE1_NR) == kernel.pages[1] == 4
    assert release(conn, 'db', **NODE1) == 3
    assert kernel.pages[1] == 3
    assert hpdtest.page_size_props(conn, SMALL)['Nodes'][1]['target'] == 3
    assert warnings(conn) == {}


@pytest.mark.fake_kernel(pools=START)
def test_a_node_claim_counts_a_shortfall_of_the_node_target(service, conn, fake_kernel, kernel):
    """When the kernel cannot bring the node to its configured pages plus
    the claim, the reply says how many of the claimed pages it holds, and
    Explain the node short."""
    fake_kernel.write(CONF, '[pool 2MB]\nnode1 = 3\n')
    kernel.capacity[1] = kernel.ceiling[1] = 4         # room for 2 more pages
    assert claim(conn, 'db', 2, **NODE1) == 1
    assert kernel.pages[1] == 4
    last = hpdtest.page_size_props(conn, SMALL)['LastAllocation']
    assert (last['node'], last['requested'], last['achieved'], last['shortfall']) == (1, 5, 4, 1)
    assert 'claims-drift-2MB-node1' in warnings(conn)


@pytest.mark.fake_kernel(pools=START)
def test_a_node_claim_checks_the_node_target_against_the_memory_limit(service, conn,
                                                                      fake_kernel, kernel,
                                                                      polkit):
    """The configured pages a node lacks come with the claim, so they count
    towards PoolMemoryLimit (90% of 16 GiB: 7372 pages of 2 MiB) though the
    pool's target (its 4 pages and the claim) would fit."""
    fake_kernel.write(CONF, '[pool 2MB]\nnode1 = 7000\n')
    for opts in ({'dry_run': True}, {}):
        with pytest.raises(hpdtest.BusError) as e:
            claim(conn, 'db', 1000, **NODE1, **opts)
        assert e.value.name == hpdtest.ERR_LIMIT_EXCEEDED
    assert polkit.checks() == []
    assert kernel.pages == {0: 2, 1: 2}
    assert hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'Claims') == []
