# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Every property of the Manager and PageSize objects matches the fake kernel
tree, and is read afresh on every Get / GetAll / GetManagedObjects."""

import os
import re
import subprocess

import pytest

import hpdtest
from hpdtunables import expected_tunables, normalize
from hpdtest import MANAGER_IFACE, MANAGER_PATH, PAGE_SIZE_IFACE, page_size_path
from fakekernel import Mount, NodePool, Pool

BASE_PAGE = os.sysconf('SC_PAGE_SIZE')

# Distinct, non-zero counters everywhere, so a swapped or misread file shows.
RICH_POOLS = {
    2048: Pool(total=10, free=7, resv=3, surplus=2, overcommit=4,
               nodes={0: NodePool(6, 4, 1), 1: NodePool(4, 3, 1)}),
    1048576: Pool(total=3, free=2, resv=1, surplus=0,
                  nodes={0: NodePool(2, 1, 0), 1: NodePool(1, 1, 0)}),
}
# Mounts of both sizes, managed or not, every limit and none, the kernel's
# defaults (uid 0, gid 0, mode 0755) left out, an escaped path, no pagesize=.
RICH_MOUNTS = [
    Mount('var/lib/hugetlbfs/pagesize-2MB', mode=0o770),
    Mount('var/lib/hugetlbfs/user/nobody/pagesize-1GB', page_size_kb=1048576, uid=65534,
          mode=0o700, size=2 << 30, min_size=1 << 30, nr_inodes=5),
    Mount('/dev/hugepages', flags='rw,relatime', optional='master:3 shared:5', source='hugetlbfs'),
    Mount('/mnt/huge pages', page_size_kb=None, gid=100, mode=0o1770, nr_inodes=0),
]
RICH = dict(nodes=2, sizes=(2048, 1048576), default_size=2048, pools=RICH_POOLS,
            mem_total_kb=16384007, mounts=RICH_MOUNTS)


def size_name(size):
    for unit, shift in (('GB', 30), ('MB', 20), ('KB', 10)):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f'{size >> shift}{unit}'
    return f'{size}B'


def meminfo_kb(fk, key):
    for line in fk.read('proc/meminfo').splitlines():
        name, _, value = line.partition(':')
        if name == key:
            return int(value.split()[0])
    raise KeyError(key)


MOUNT_BASE = 'var/lib/hugetlbfs'
SERVICE_MOUNT_POINT = re.compile(r'(global/|(user|group)/[A-Za-z0-9_][A-Za-z0-9_.-]*/)?pagesize-[^/]+')


def managed(fk, path):
    """Whether path is one of the mount points hugepagesd makes:
    BASE/pagesize-S, BASE/global/pagesize-S, BASE/{user,group}/NAME/pagesize-S."""
    base = os.path.join(fk.root, MOUNT_BASE) + '/'
    return path.startswith(base) and SERVICE_MOUNT_POINT.fullmatch(path[len(base):]) is not None


def expected_mounts(fk):
    """Manager.Mounts from the Mount list the fake mountinfo was written
    from; [] when the tree has no mountinfo."""
    result = []
    for m in fk.mounts or []:
        assert isinstance(m, Mount), 'expected_mounts() needs Mount entries, not raw lines'
        attrs = {
            'page-size': (m.page_size_kb or meminfo_kb(fk, 'Hugepagesize')) * 1024,
            'uid': m.uid, 'gid': m.gid, 'mode': m.mode, 'flags': m.flags,
            'managed': managed(fk, m.path),
            # no mount point exists in the tree: the options' values
            'options-uid': m.uid, 'options-gid': m.gid, 'options-mode': m.mode,
            'root-known': False,
        }
        for key, value in (('max-size', m.size), ('min-size', m.min_size), ('max-inodes', m.nr_inodes)):
            if value is not None:
                attrs[key] = value
        result.append((m.path, attrs))
    return result


def expected_page_size_mounts(fk, size_kb):
    """PageSize.Mounts: the paths of that size, in mountinfo order."""
    return [path for path, attrs in expected_mounts(fk) if attrs['page-size'] == size_kb * 1024]


def expected_manager(fk):
    mem_kb = meminfo_kb(fk, 'MemTotal')
    return {
        **expected_tunables(fk),   # ShmMax ... ThpSettings (hpdtunables.py)
        'PageSizes': [s * 1024 for s in sorted(fk.sizes)],
        'DefaultPageSize': meminfo_kb(fk, 'Hugepagesize') * 1024,
        'BasePageSize': BASE_PAGE,
        'NumaNodes': fk.pool_nodes,
        'MemTotal': mem_kb * 1024,
        'PoolMemoryLimit': mem_kb * 1024 * 9 // 10,
        'Mounts': expected_mounts(fk),
        # no configuration and no proc/cmdline in these trees (test_boot.py has them)
        'BootParameters': '',
        'KernelCommandLine': '',
        'RebootRequired': False,
    }


def expected_page_size(fk, size_kb):
    """What the PageSize object should say, from the files as they are now."""
    def counter(name):
        return fk.read_int(fk.pool_file(size_kb, name))

    total, surplus = counter('nr_hugepages'), counter('surplus_hugepages')
    can_overcommit = fk.exists(fk.pool_file(size_kb, 'nr_overcommit_hugepages'))
    overcommit = counter('nr_overcommit_hugepages') if can_overcommit else 0
    minimum = max(total - surplus, 0)
    nodes = []
    for node in fk.pool_nodes:
        nt = fk.read_int(fk.node_file(node, size_kb, 'nr_hugepages'))
        nf = fk.read_int(fk.node_file(node, size_kb, 'free_hugepages'))
        ns = fk.read_int(fk.node_file(node, size_kb, 'surplus_hugepages'))
        # nothing configured or claimed on a node: every node's target is 0
        nodes.append(dict(zip(hpdtest.NODE_KEYS, (node, nt, nf, ns, max(nt - ns, 0))), target=0))
    demote = 0
    if fk.exists(fk.pool_file(size_kb, 'demote')):
        demote = int(fk.read(fk.pool_file(size_kb, 'demote_size')).strip()[:-2]) * 1024
    return {
        'Size': size_kb * 1024,
        'Name': size_name(size_kb * 1024),
        'IsDefault': size_kb == meminfo_kb(fk, 'Hugepagesize'),
        'Gigantic': size_kb * 1024 > BASE_PAGE << fk.max_order,
        'Total': total,
        'Free': counter('free_hugepages'),
        'Reserved': counter('resv_hugepages'),
        'Surplus': surplus,
        'Overcommit': overcommit,
        'Minimum': minimum,
        'Maximum': minimum + overcommit,
        # no SetMinimum, configured minimum or claim on these trees
        'Base': 0,
        'Target': 0,
        'Nodes': nodes,
        'CanOvercommit': can_overcommit,
        'DemoteSize': demote,
        'Mounts': expected_page_size_mounts(fk, size_kb),
        # the service changed no pool on this tree
        'LastAllocation': {},
    }


def assert_props(actual, expected):
    for name, value in expected.items():
        got = normalize(name, actual[name])
        if isinstance(value, list):
            got = [tuple(v) if isinstance(v, (list, tuple)) else v for v in got]
        assert got == value, f'{name}: service says {got!r}, the fake tree {value!r}'


def service_version(hugepagesd):
    out = subprocess.run([hugepagesd, '--version'], capture_output=True, text=True, check=True)
    return out.stdout.split()[-1]


@pytest.mark.fake_kernel(**RICH)
@pytest.mark.valgrind
def test_manager_properties_match_the_tree(service, conn, fake_kernel, hugepagesd):
    props = hpdtest.manager_props(conn)
    assert_props(props, expected_manager(fake_kernel))
    assert props['Version'] == service_version(hugepagesd)
    assert set(props) == set(hpdtest.xml_properties(MANAGER_IFACE))


@pytest.mark.fake_kernel(**RICH)
@pytest.mark.parametrize('size_kb', [2048, 1048576])
@pytest.mark.valgrind
def test_page_size_properties_match_the_tree(service, conn, fake_kernel, size_kb):
    props = hpdtest.page_size_props(conn, size_kb)
    assert set(props) == set(hpdtest.xml_properties(PAGE_SIZE_IFACE))
    assert_props(props, expected_page_size(fake_kernel, size_kb))


@pytest.mark.fake_kernel(**RICH)
def test_the_rich_tree_is_what_the_expectations_assume(fake_kernel):
    # guards the expectation helpers against reading the tree wrongly
    e = expected_page_size(fake_kernel, 2048)
    assert (e['Total'], e['Free'], e['Reserved'], e['Surplus'], e['Overcommit']) == (10, 7, 3, 2, 4)
    assert (e['Minimum'], e['Maximum'], e['IsDefault'], e['Gigantic']) == (8, 12, True, False)
    assert hpdtest.rows(e['Nodes'], hpdtest.NODE_KEYS) == [(0, 6, 4, 1, 5), (1, 4, 3, 1, 3)]
    g = expected_page_size(fake_kernel, 1048576)
    assert (g['CanOvercommit'], g['Gigantic'], g['DemoteSize'], g['Name']) == (False, True, 2 << 20, '1GB')
    assert expected_manager(fake_kernel)['PoolMemoryLimit'] == 15099500851
    base = os.path.join(fake_kernel.root, 'var/lib/hugetlbfs')
    assert expected_manager(fake_kernel)['Mounts'] == [
        (f'{base}/pagesize-2MB', {'page-size': 2 << 20, 'uid': 0, 'gid': 0, 'mode': 0o770,
                                  'flags': 'rw,nosuid,nodev,relatime', 'managed': True,
                                  'options-uid': 0, 'options-gid': 0, 'options-mode': 0o770, 'root-known': False,}),
        (f'{base}/user/nobody/pagesize-1GB',
         {'page-size': 1 << 30, 'uid': 65534, 'gid': 0, 'mode': 0o700,
          'flags': 'rw,nosuid,nodev,relatime', 'managed': True,
          'max-size': 2 << 30, 'min-size': 1 << 30, 'max-inodes': 5,
          'options-uid': 65534, 'options-gid': 0, 'options-mode': 0o700, 'root-known': False,}),
        ('/dev/hugepages', {'page-size': 2 << 20, 'uid': 0, 'gid': 0, 'mode': 0o755,
                            'flags': 'rw,relatime', 'managed': False,
                            'options-uid': 0, 'options-gid': 0, 'options-mode': 0o755, 'root-known': False,}),
        ('/mnt/huge pages', {'page-size': 2 << 20, 'uid': 0, 'gid': 100, 'mode': 0o1770,
                             'flags': 'rw,nosuid,nodev,relatime', 'managed': False,
                             'max-inodes': 0, 'options-uid': 0, 'options-gid': 100, 'options-mode': 0o1770, 'root-known': False,}),
    ]
    assert e['Mounts'] == [f'{base}/pagesize-2MB', '/dev/hugepages', '/mnt/huge pages']
    assert g['Mounts'] == [f'{base}/user/nobody/pagesize-1GB']
    assert '/mnt/huge\\040pages ' in fake_kernel.read('proc/self/mountinfo')


@pytest.mark.fake_kernel(**RICH)
def test_single_gets_match_getall(service, conn, fake_kernel):
    for size_kb in fake_kernel.sizes:
        path = page_size_path(size_kb)
        expected = expected_page_size(fake_kernel, size_kb)
        for name in hpdtest.xml_properties(PAGE_SIZE_IFACE):
            assert_props({name: hpdtest.get(conn, path, PAGE_SIZE_IFACE, name)},
                         {name: expected[name]})
    expected = expected_manager(fake_kernel)
    for name, value in expected.items():
        assert_props({name: hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, name)}, {name: value})


@pytest.mark.fake_kernel(**RICH)
def test_managed_objects_one_per_size(service, conn, fake_kernel):
    objects = hpdtest.managed_objects(conn)
    assert sorted(objects) == sorted(page_size_path(s) for s in fake_kernel.sizes)
    for size_kb in fake_kernel.sizes:
        ifaces = objects[page_size_path(size_kb)]
        assert PAGE_SIZE_IFACE in ifaces
        assert_props(ifaces[PAGE_SIZE_IFACE], expected_page_size(fake_kernel, size_kb))


@pytest.mark.fake_kernel(**RICH)
def test_page_sizes_are_the_object_paths(service, conn):
    sizes = hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'PageSizes')
    assert sizes == sorted(sizes)
    for size in sizes:
        assert hpdtest.get(conn, page_size_path(size // 1024), PAGE_SIZE_IFACE, 'Size') == size


def change_behind_its_back(fk, step):
    """Rewrites every counter of both sizes (and MemTotal) with new values."""
    for i, size_kb in enumerate(fk.sizes):
        base = 100 * step + 10 * i
        d = {'nr_hugepages': base + 9, 'free_hugepages': base + 5, 'resv_hugepages': base + 2,
             'surplus_hugepages': base + 1}
        if fk.has_overcommit_file(size_kb):
            d['nr_overcommit_hugepages'] = base + 3
        for name, value in d.items():
            fk.write(fk.pool_file(size_kb, name), value)
        for node in fk.pool_nodes:
            fk.write(fk.node_file(node, size_kb, 'nr_hugepages'), base + node + 4)
            fk.write(fk.node_file(node, size_kb, 'free_hugepages'), base + node + 2)
            fk.write(fk.node_file(node, size_kb, 'surplus_hugepages'), node)
    # and the mount table: step mounts, each with other values
    fk.write_mountinfo([Mount(f'var/lib/hugetlbfs/group/g{i}/pagesize-2MB', gid=1000 + i,
                              mode=0o700 + step, size=(step + i) << 21, nr_inodes=step)
                        for i in range(step)] +
                       [Mount(f'/mnt/step{step}', page_size_kb=1048576, min_size=step << 30)])
    meminfo = fk.read('proc/meminfo').splitlines(keepends=True)
    fk.write('proc/meminfo', ''.join(
        f'MemTotal:       {32 * 1024 * 1024 + step} kB\n' if line.startswith('MemTotal:') else line
        for line in meminfo))


@pytest.mark.fake_kernel(**RICH)
@pytest.mark.parametrize('how', ['Get', 'GetAll', 'GetManagedObjects'])
@pytest.mark.valgrind(first=1)
def test_values_are_fresh(service, conn, fake_kernel, how):
    for step in range(1, 4):
        change_behind_its_back(fake_kernel, step)
        for size_kb in fake_kernel.sizes:
            path = page_size_path(size_kb)
            expected = expected_page_size(fake_kernel, size_kb)
            if how == 'Get':
                actual = {n: hpdtest.get(conn, path, PAGE_SIZE_IFACE, n) for n in expected}
            elif how == 'GetAll':
                actual = hpdtest.page_size_props(conn, size_kb)
            else:
                actual = hpdtest.managed_objects(conn)[path][PAGE_SIZE_IFACE]
            assert_props(actual, expected)
        expected = expected_manager(fake_kernel)
        if how == 'Get':
            actual = {n: hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, n) for n in expected}
        else:
            actual = hpdtest.manager_props(conn)
        assert_props(actual, expected)


def test_values_are_fresh_between_back_to_back_gets(service, conn, fake_kernel):
    path = page_size_path(2048)
    nr = fake_kernel.pool_file(2048, 'nr_hugepages')
    for value in (7, 123, 4, 0, 9999, 1):
        fake_kernel.write(nr, value)
        assert hpdtest.get(conn, path, PAGE_SIZE_IFACE, 'Total') == value
        assert hpdtest.get(conn, path, PAGE_SIZE_IFACE, 'Minimum') == value


BIG_SIZES = (2048, 32768, 1048576)
BIG_NODES = [0, 1, 2, 4, 5, 6, 7, 9]  # online "0-2,4-7,9"; node 6 is memoryless
BIG_POOLS = {
    size: Pool(total=sum(3 * n + i + 1 for n in BIG_NODES if n != 6),
               free=sum(n + i for n in BIG_NODES if n != 6),
               resv=i, surplus=sum(n % 2 for n in BIG_NODES if n != 6) if i == 0 else 0,
               overcommit=5 + i,
               nodes={n: NodePool(3 * n + i + 1, n + i, n % 2 if i == 0 else 0)
                      for n in BIG_NODES if n != 6})
    for i, size in enumerate(BIG_SIZES)
}


@pytest.mark.fake_kernel(nodes=BIG_NODES, memoryless=[6], sizes=BIG_SIZES, default_size=2048,
                         pools=BIG_POOLS, mem_total_kb=1024 * 1024 * 1024)
@pytest.mark.valgrind
def test_big_machine_nodes(service, conn, fake_kernel):
    assert fake_kernel.read('sys/devices/system/node/online') == '0-2,4-7,9\n'
    manager = hpdtest.manager_props(conn)
    assert manager['NumaNodes'] == [0, 1, 2, 4, 5, 7, 9]
    assert_props(manager, expected_manager(fake_kernel))
    for i, size_kb in enumerate(BIG_SIZES):
        props = hpdtest.page_size_props(conn, size_kb)
        assert_props(props, expected_page_size(fake_kernel, size_kb))
        nodes = hpdtest.rows(props['Nodes'], hpdtest.NODE_KEYS)
        assert [n[0] for n in nodes] == [0, 1, 2, 4, 5, 7, 9]
        for node, total, free, surplus, minimum in nodes:
            assert (total, free, surplus) == (3 * node + i + 1, node + i, node % 2 if i == 0 else 0)
            assert minimum == total - surplus
    # 32 MB and 1 GB are gigantic with max order 10; each demotes to the next smaller size
    assert hpdtest.get(conn, page_size_path(32768), PAGE_SIZE_IFACE, 'Gigantic') is True
    assert hpdtest.get(conn, page_size_path(32768), PAGE_SIZE_IFACE, 'DemoteSize') == 2 << 20
    assert hpdtest.get(conn, page_size_path(1048576), PAGE_SIZE_IFACE, 'DemoteSize') == 32 << 20
    assert hpdtest.get(conn, page_size_path(2048), PAGE_SIZE_IFACE, 'DemoteSize') == 0


@pytest.mark.fake_kernel(nodes=1, sizes=(64, 2048, 32768, 1048576), default_size=64, max_order=12)
def test_max_order_decides_gigantic(service, conn, fake_kernel):
    # 4 KiB << 12 = 16 MiB: 32 MB and 1 GB are gigantic, 64 KB and 2 MB are not
    for size_kb, gigantic in ((64, False), (2048, False), (32768, True), (1048576, True)):
        props = hpdtest.page_size_props(conn, size_kb)
        assert props['Gigantic'] is gigantic, size_kb
        assert props['CanOvercommit'] is not gigantic, size_kb
        assert props['IsDefault'] is (size_kb == 64)
    assert hpdtest.get(conn, page_size_path(64), PAGE_SIZE_IFACE, 'Name') == '64KB'
    assert hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'DefaultPageSize') == 65536


@pytest.mark.fake_kernel(pools={1048576: Pool(total=2, free=2, overcommit=1, overcommit_file=True)})
def test_gigantic_size_with_overcommit_file(service, conn, fake_kernel):
    props = hpdtest.page_size_props(conn, 1048576)
    assert props['Gigantic'] is True
    assert props['CanOvercommit'] is True
    assert (props['Overcommit'], props['Maximum']) == (1, 3)


def test_script_builds_a_tree_the_service_reads(tmp_path, start_service, conn, polkit):
    root = tmp_path / 'kernel'
    script = os.path.join(hpdtest.TESTS_DIR, 'fakekernel.py')
    subprocess.run(['/usr/bin/python3', script, str(root), '--nodes', '4',
                    '--sizes', '2048,1048576', '--pool', '2048:total=8,free=6,overcommit=5',
                    '--overcommit-file', '1048576=yes', '--mem-total', '8388608'], check=True)
    assert (root / 'sys/devices/system/node/online').read_text() == '0-3\n'
    start_service(str(root), check=True)
    manager = hpdtest.manager_props(conn)
    assert manager['NumaNodes'] == [0, 1, 2, 3]
    assert manager['PageSizes'] == [2 << 20, 1 << 30]
    assert manager['MemTotal'] == 8 << 30
    props = hpdtest.page_size_props(conn, 2048)
    assert (props['Total'], props['Free'], props['Overcommit'], props['Maximum']) == (8, 6, 5, 13)
    assert [n['total'] for n in props['Nodes']] == [2, 2, 2, 2]
    assert hpdtest.get(conn, page_size_path(1048576), PAGE_SIZE_IFACE, 'CanOvercommit') is True


@pytest.mark.valgrind
def test_no_huge_page_support(tmp_path, start_service, conn, polkit):
    # an empty tree: no hugepages directory, no meminfo, no nodes
    start_service(str(tmp_path), check=True)
    manager = hpdtest.manager_props(conn)
    assert manager['PageSizes'] == []
    assert manager['NumaNodes'] == []
    assert manager['DefaultPageSize'] == 0
    assert hpdtest.managed_objects(conn) == {}
