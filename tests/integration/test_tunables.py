# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""The tunables on a fake kernel tree: every property matches the files (and
follows changes made behind the service's back), with and without each
optional file; every method writes exactly the files it should, refuses bad
input before asking polkit or writing anything, needs no polkit for dry runs
and no-ops, puts back what it wrote when a later write fails, and asks for
org.hugepages.manager.configure-tunables with the tunable and value.

THP choice files read back with the written keyword in brackets thanks to
the fake kernel's simulator (conftest starts it)."""

import json
import os
import shutil
import time

import pytest

import hpdtest
from hpdtest import (ERR_FAILED, ERR_INVALID_ARGS, ERR_LIMIT_EXCEEDED, ERR_NOT_AUTHORIZED,
                     ERR_NOT_SUPPORTED, BusError)
from hpdtunables import (ACTION_TUNABLES, BASE_PAGE, ERR_NO_SUCH_GROUP, TUNABLE_PROPERTIES,
                         expected_tunables, manager_call, recommended_min_free_kbytes,
                         set_meminfo, tunable_props, unused_gid)
from fakekernel import (KERNEL_SHMMAX, MIN_FREE_KBYTES, MOVABLE_GIGANTIC, PAGETYPEINFO, SHM_GROUP,
                        SHMALL, SHMMAX, THP_DIR, TREAT_AS_MOVABLE, ZONEINFO, Pool, Tunables,
                        choice_text)
from gi.repository import Gio, GLib

MiB = 1 << 20
GiB = 1 << 30
ENABLED = f'{THP_DIR}/enabled'
DEFRAG = f'{THP_DIR}/defrag'
SHMEM = f'{THP_DIR}/shmem_enabled'
M64 = f'{THP_DIR}/hugepages-64kB/enabled'
M64_SHMEM = f'{THP_DIR}/hugepages-64kB/shmem_enabled'
SCAN = f'{THP_DIR}/khugepaged/pages_to_scan'
SCAN_SLEEP = f'{THP_DIR}/khugepaged/scan_sleep_millisecs'
ALLOC_SLEEP = f'{THP_DIR}/khugepaged/alloc_sleep_millisecs'
MEM_16G_KB = 16 * 1024 * 1024
CAP_16G = MEM_16G_KB // 20            # 838860 kB: 5% of the default MemTotal


def b(value):
    """A file's bytes as the fake tree stores an integer."""
    return f'{value}\n'.encode()


def s(value):
    return GLib.Variant('s', value)


def u(value):
    return GLib.Variant('u', value)


@pytest.fixture
def allowed(polkit):
    polkit.allow(ACTION_TUNABLES)
    return polkit


@pytest.fixture
def simulated(fake_kernel):
    if not fake_kernel.simulating:
        pytest.skip('the fake kernel simulator could not start: '
                    + getattr(fake_kernel, 'simulator_error', '?'))
    return fake_kernel


def call(conn, method, sig, *args, reply=None):
    return manager_call(conn, method, sig, args, reply)


def set_shmmax(conn, value, **opts):
    return call(conn, 'SetShmMax', 'ta{sv}', value, hpdtest.options(**opts))


def set_recommended_shmmax(conn, **opts):
    return call(conn, 'SetRecommendedShmMax', 'a{sv}', hpdtest.options(**opts), reply='(t)')[0]


def set_shm_group(conn, group, **opts):
    return call(conn, 'SetShmGroup', 'sa{sv}', group, hpdtest.options(**opts))


def set_min_free(conn, value, **opts):
    return call(conn, 'SetMinFreeKbytes', 'ta{sv}', value, hpdtest.options(**opts))


def set_recommended_min_free(conn, **opts):
    return call(conn, 'SetRecommendedMinFreeKbytes', 'a{sv}', hpdtest.options(**opts),
                reply='(t)')[0]


def set_zone_movable(conn, enabled, **opts):
    return call(conn, 'SetZoneMovable', 'ba{sv}', enabled, hpdtest.options(**opts))


def set_thp(conn, settings, **opts):
    return call(conn, 'SetThp', 'a{sv}a{sv}', settings, hpdtest.options(**opts))


def thp_current(props, name):
    """The current value of a THP setting from ThpSettings, '' where absent."""
    return props['ThpSettings'].get(name, ('', []))[0]


def assert_refused(conn, fk, polkit, error, method, sig, *args):
    """The call fails with error, writes nothing and never asks polkit.
    sig None: args is one prebuilt parameter tuple (a GLib.Variant)."""
    before = fk.snapshot()
    with pytest.raises(BusError) as e:
        if sig is None:
            hpdtest.call(conn, hpdtest.MANAGER_PATH, hpdtest.MANAGER_IFACE, method, args[0])
        else:
            call(conn, method, sig, *args)
    assert e.value.name in (error if isinstance(error, tuple) else (error,)), e.value
    assert fk.changes_since(before) == {}
    assert polkit.checks() == []
    return e.value


def assert_single_check(polkit, tunable, value=None):
    checks = polkit.checks()
    assert [c.action for c in checks] == [ACTION_TUNABLES]
    expected = {'tunable': tunable}
    if value is not None:
        expected['value'] = value
    assert checks[0].details == expected
    polkit._mock('ClearCalls')


# --- properties ----------------------------------------------------------------

def assert_tunables(conn, fk, how='GetAll'):
    assert tunable_props(conn, how) == expected_tunables(fk)


def test_default_tree_properties(service, conn, fake_kernel):
    assert_tunables(conn, fake_kernel)
    props = tunable_props(conn)
    # a 6.x kernel: the huge shmmax default, no zone movable sysctl, THP madvise
    assert (props['ShmMax'], props['ShmAllPages'], props['ShmGroup']) == (KERNEL_SHMMAX, KERNEL_SHMMAX, 0)
    assert props['MinFreeKbytes'] == props['RecommendedMinFreeKbytes'] == 11 * 2048 * 3 + 11 * 2048
    assert (props['ZoneMovableSupported'], props['ZoneMovable']) == (False, False)
    assert (thp_current(props, 'enabled'), thp_current(props, 'defrag'),
            thp_current(props, 'shmem_enabled')) == ('madvise', 'madvise', 'never')
    assert (props['KhugepagedPagesToScan'], props['KhugepagedScanSleepMillisecs'],
            props['KhugepagedAllocSleepMillisecs']) == (4096, 10000, 60000)
    assert (props['RecommendedShmMax'], props['RecommendedShmAllPages']) == (0, 0)
    thp = props['ThpSettings']
    assert thp['enabled'] == ('madvise', ['always', 'madvise', 'never'])
    assert thp['hugepages-2048kB/enabled'] == ('inherit', ['always', 'inherit', 'madvise', 'never'])
    assert thp['hugepages-64kB/shmem_enabled'][0] == 'never'
    assert 'hugepages-8kB/enabled' not in thp and 'hugepages-8kB/shmem_enabled' in thp
    assert len(thp) == 3 + 2 * 8 + 1


RICH_TUNABLES = Tunables(shmmax=33554431, shmall=8191, shm_group=100, min_free_kbytes=45678,
                         movable_gigantic_pages=1, thp_enabled='always', thp_defrag='defer+madvise',
                         thp_shmem_enabled='within_size', pageblock_order=10,
                         mthp_enabled={64: 'madvise', 16: 'always'}, mthp_shmem={32: 'advise'},
                         khugepaged={'pages_to_scan': 511, 'scan_sleep_millisecs': 1234,
                                     'alloc_sleep_millisecs': 56789})
RICH_POOLS = {2048: Pool(total=10, free=10, surplus=3, overcommit=6),
              1048576: Pool(total=2, free=2)}


@pytest.mark.fake_kernel(nodes=2, tunables=RICH_TUNABLES, pools=RICH_POOLS, mem_total_kb=MEM_16G_KB)
@pytest.mark.parametrize('how', ['GetAll', 'Get'])
@pytest.mark.valgrind(first=1)
def test_rich_tree_properties(service, conn, fake_kernel, how):
    assert_tunables(conn, fake_kernel, how)
    props = tunable_props(conn, how)
    assert (props['ShmMax'], props['ShmAllPages'], props['ShmGroup'], props['MinFreeKbytes']) == \
        (33554431, 8191, 100, 45678)
    # Maximum 2MB = 7 + 6 = 13 pages; 1GB = 2 pages
    assert props['RecommendedShmMax'] == 13 * 2 * MiB + 2 * GiB
    assert props['RecommendedShmAllPages'] == (13 * 2 * MiB + 2 * GiB) // BASE_PAGE
    # 4 populated zones of 1024-page (4 MiB) pageblocks
    assert props['RecommendedMinFreeKbytes'] == 11 * 4096 * 4
    assert (props['ZoneMovableSupported'], props['ZoneMovable']) == (True, True)
    assert (thp_current(props, 'enabled'), thp_current(props, 'defrag'),
            thp_current(props, 'shmem_enabled')) == ('always', 'defer+madvise', 'within_size')
    assert (props['KhugepagedPagesToScan'], props['KhugepagedScanSleepMillisecs'],
            props['KhugepagedAllocSleepMillisecs']) == (511, 1234, 56789)
    assert props['ThpSettings']['hugepages-16kB/enabled'][0] == 'always'
    assert props['ThpSettings']['hugepages-64kB/enabled'][0] == 'madvise'
    assert props['ThpSettings']['hugepages-32kB/shmem_enabled'][0] == 'advise'


@pytest.mark.parametrize('how', ['Get', 'GetAll'])
def test_changes_behind_the_back_are_seen(service, conn, fake_kernel, how):
    fk = fake_kernel
    for step in range(1, 4):
        fk.write(SHMMAX, 4096 * 1000 * step + 1)
        fk.write(SHMALL, 77 * step)
        fk.write(SHM_GROUP, step)
        fk.write(MIN_FREE_KBYTES, 20000 + step)
        fk.write(ENABLED, choice_text(('always', 'madvise', 'never'),
                                      ('always', 'madvise', 'never')[step - 1]))
        fk.write(DEFRAG, choice_text(('always', 'defer', 'defer+madvise', 'madvise', 'never'),
                                     ('defer', 'never', 'always')[step - 1]))
        fk.write(M64, choice_text(('always', 'inherit', 'madvise', 'never'),
                                  ('inherit', 'always', 'madvise')[step - 1]))
        fk.write(SCAN, 100 + step)
        fk.write(SCAN_SLEEP, 200 + step)
        fk.write(ALLOC_SLEEP, 300 + step)
        fk.write(fk.pool_file(2048, 'nr_hugepages'), step)
        fk.write(fk.pool_file(2048, 'nr_overcommit_hugepages'), 2 * step)
        set_meminfo(fk, 'MemTotal', 1000000 * step)   # the cap of RecommendedMinFreeKbytes
        if step == 2:
            fk.write(TREAT_AS_MOVABLE, 1)
        if step == 3:
            fk.remove(TREAT_AS_MOVABLE)
            fk.remove(SHMEM)
        assert_tunables(conn, fk, how)
        props = tunable_props(conn, how)
        assert props['ShmGroup'] == step
        assert props['ZoneMovable'] is (step == 2)
        assert props['RecommendedShmMax'] == 3 * step * 2 * MiB
        assert props['RecommendedMinFreeKbytes'] == min(11 * 2048 * 4, 1000000 * step // 20)


# Each optional file gone: the property falls back, everything else is read.
WITHOUT = {
    'shmmax': [SHMMAX],
    'shmall': [SHMALL],
    'shm-group': [SHM_GROUP],
    'min-free-kbytes': [MIN_FREE_KBYTES],
    'zoneinfo': [ZONEINFO],
    'pagetypeinfo': [PAGETYPEINFO],
    'pagetypeinfo-and-pmd-size': [PAGETYPEINFO, f'{THP_DIR}/hpage_pmd_size'],
    'memtotal': [],              # the MemTotal line (without meminfo the service will not start)
    'thp-enabled': [ENABLED],
    'thp-defrag': [DEFRAG],
    'thp-shmem': [SHMEM],
    'mthp-64kB-enabled': [M64],
    'mthp-64kB': [f'{THP_DIR}/hugepages-64kB'],
    'khugepaged-scan': [SCAN],
    'khugepaged': [f'{THP_DIR}/khugepaged'],
    'thp-dir': [THP_DIR],
}


@pytest.mark.fake_kernel(tunables=Tunables(pageblock_order=10, treat_as_movable=1))
@pytest.mark.parametrize('gone', list(WITHOUT), ids=list(WITHOUT))
def test_without_each_optional_file(start_service, conn, fake_kernel, polkit, gone):
    fk = fake_kernel
    full = expected_tunables(fk)
    for rel in WITHOUT[gone]:
        path = fk.path(rel)
        shutil.rmtree(path) if os.path.isdir(path) else os.unlink(path)
    if gone == 'memtotal':
        fk.write('proc/meminfo', ''.join(line for line in fk.read('proc/meminfo').splitlines(True)
                                         if not line.startswith('MemTotal:')))
    start_service(fk.root, check=True)
    props = tunable_props(conn)
    assert props == expected_tunables(fk)
    changed = {n for n in TUNABLE_PROPERTIES if props[n] != full[n]}
    fallback = {
        'shmmax': {'ShmMax'}, 'shmall': {'ShmAllPages'}, 'shm-group': set(),   # 0 either way
        'min-free-kbytes': {'MinFreeKbytes'},
        'zoneinfo': {'RecommendedMinFreeKbytes'},
        # 1024-page blocks from pagetypeinfo, then THP's 2 MiB PMD, then 2 MiB
        'pagetypeinfo': {'RecommendedMinFreeKbytes'},
        'pagetypeinfo-and-pmd-size': {'RecommendedMinFreeKbytes'},
        'memtotal': {'RecommendedMinFreeKbytes'},
        'thp-enabled': {'ThpSettings'}, 'thp-defrag': {'ThpSettings'},
        'thp-shmem': {'ThpSettings'}, 'mthp-64kB-enabled': {'ThpSettings'},
        'mthp-64kB': {'ThpSettings'}, 'khugepaged-scan': {'KhugepagedPagesToScan'},
        'khugepaged': {'KhugepagedPagesToScan', 'KhugepagedScanSleepMillisecs',
                       'KhugepagedAllocSleepMillisecs'},
        'thp-dir': {'ThpSettings', 'KhugepagedPagesToScan', 'KhugepagedScanSleepMillisecs',
                    'KhugepagedAllocSleepMillisecs'},
    }[gone]
    assert changed == fallback
    for name in changed - {'ThpSettings', 'RecommendedMinFreeKbytes'}:
        assert props[name] in (0, ''), name
    if gone in ('zoneinfo', 'memtotal'):
        assert props['RecommendedMinFreeKbytes'] == 0
    elif gone == 'pagetypeinfo':
        assert props['RecommendedMinFreeKbytes'] == 11 * 2048 * 3 + 11 * 2048
    if gone == 'thp-dir':
        assert props['ThpSettings'] == {}
    # the service stays up and Explain still works on what is left
    assert hpdtest.get(conn, hpdtest.MANAGER_PATH, hpdtest.MANAGER_IFACE, 'Version')
    assert any(e['id'] == 'memory-total' for e in
               manager_call(conn, 'Explain', 'a{sv}', ({},), '(aa{sv})')[0])


@pytest.mark.fake_kernel(tunables=None)
@pytest.mark.valgrind
def test_kernel_without_any_tunable_file(service, conn, fake_kernel, polkit):
    assert not fake_kernel.exists(SHMMAX) and not fake_kernel.exists(THP_DIR)
    props = tunable_props(conn)
    assert props == expected_tunables(fake_kernel)
    assert props['ThpSettings'] == {}
    assert props['RecommendedMinFreeKbytes'] == 0
    assert_refused(conn, fake_kernel, polkit, ERR_NOT_SUPPORTED, 'SetZoneMovable', 'ba{sv}', True, {})
    assert_refused(conn, fake_kernel, polkit, ERR_INVALID_ARGS, 'SetThp', 'a{sv}a{sv}',
                   {'enabled': s('never')}, {})
    assert_refused(conn, fake_kernel, polkit, ERR_NOT_SUPPORTED, 'SetThp', 'a{sv}a{sv}',
                   {'khugepaged/pages_to_scan': u(10)}, {})


@pytest.mark.parametrize('text,shown', [
    ('always madvise never\n', None),            # brackets missing
    ('[always] [madvise] never\n', None),        # doubled
    ('always [madvise never\n', None),
    ('\x00\xff garbage\n', None),
    ('', None),
    ('[always] madvise never\n', 'always'),
])
def test_thp_file_contents(service, conn, fake_kernel, polkit, text, shown):
    fake_kernel.write(ENABLED, text)
    props = tunable_props(conn)
    assert thp_current(props, 'enabled') == (shown or '')
    assert ('enabled' in props['ThpSettings']) is (shown is not None)
    if shown is None:
        # a setting the service cannot read is not one it will write
        assert_refused(conn, fake_kernel, polkit, ERR_INVALID_ARGS, 'SetThp', 'a{sv}a{sv}',
                       {'enabled': s('never')}, {})


@pytest.mark.parametrize('text,shown', [('-1\n', 0), ('4294967295\n', 0), ('2147483648\n', 0),
                                        ('x\n', 0), ('2147483647\n', 2147483647), ('65534\n', 65534)])
def test_shm_group_file_values(service, conn, fake_kernel, text, shown):
    fake_kernel.write(SHM_GROUP, text)
    assert tunable_props(conn)['ShmGroup'] == shown


# --- SetShmMax -----------------------------------------------------------------

@pytest.mark.fake_kernel(tunables=Tunables(shmmax=32 * MiB, shmall=2048))
@pytest.mark.valgrind
def test_set_shmmax_raises_shmall(service, conn, fake_kernel, allowed):
    before = fake_kernel.snapshot()
    assert set_shmmax(conn, 64 * MiB) == ()
    assert fake_kernel.changes_since(before) == {SHMMAX: (b(32 * MiB), b(64 * MiB)),
                                                 SHMALL: (b(2048), b(64 * MiB // BASE_PAGE))}
    assert_single_check(allowed, 'kernel.shmmax', str(64 * MiB))
    assert_tunables(conn, fake_kernel)
    # a size that is not a whole number of pages: shmall rounds up
    set_shmmax(conn, 64 * MiB + 1)
    assert fake_kernel.read_int(SHMALL) == 64 * MiB // BASE_PAGE + 1


@pytest.mark.fake_kernel(tunables=Tunables(shmmax=64 * MiB, shmall=10**9))
def test_set_shmmax_never_lowers_shmall(service, conn, fake_kernel, allowed):
    for value in (8 * MiB, 1 * GiB, BASE_PAGE):
        before = fake_kernel.snapshot()
        set_shmmax(conn, value)
        assert set(fake_kernel.changes_since(before)) == {SHMMAX}
        assert fake_kernel.read_int(SHMALL) == 10**9
    assert fake_kernel.read_int(SHMMAX) == BASE_PAGE


def test_set_shmmax_keeps_the_kernel_default_shmall(service, conn, fake_kernel, allowed):
    before = fake_kernel.snapshot()
    set_shmmax(conn, 2**64 - 1)
    assert fake_kernel.changes_since(before) == {SHMMAX: (b(KERNEL_SHMMAX), b(2**64 - 1))}
    assert tunable_props(conn)['ShmMax'] == 2**64 - 1


@pytest.mark.fake_kernel(tunables=Tunables(shmmax=32 * MiB, shmall=32 * MiB // 4096))
@pytest.mark.valgrind
def test_set_shmmax_dry_run_and_no_op_need_no_polkit(service, conn, fake_kernel, polkit):
    before = fake_kernel.snapshot()
    assert set_shmmax(conn, 64 * MiB, dry_run=True) == ()
    assert set_shmmax(conn, 32 * MiB) == ()             # same value, shmall large enough
    assert set_shmmax(conn, 32 * MiB, dry_run=False) == ()
    assert fake_kernel.changes_since(before) == {}
    assert polkit.checks() == []
    # the same shmmax with a shmall too small is a change: shmall is raised
    fake_kernel.write(SHMALL, 5)
    with pytest.raises(BusError) as e:
        set_shmmax(conn, 32 * MiB)
    assert e.value.name == ERR_NOT_AUTHORIZED
    assert fake_kernel.read_int(SHMALL) == 5


@pytest.mark.parametrize('value', [0, 1, BASE_PAGE - 1])
def test_set_shmmax_below_a_page(service, conn, fake_kernel, allowed, value):
    assert_refused(conn, fake_kernel, allowed, ERR_INVALID_ARGS, 'SetShmMax', 'ta{sv}', value, {})
    assert_refused(conn, fake_kernel, allowed, ERR_INVALID_ARGS, 'SetShmMax', 'ta{sv}', value,
                   hpdtest.options(dry_run=True))


@pytest.mark.parametrize('method,sig,args', [
    ('SetShmMax', 'ta{sv}', (64 * MiB,)),
    ('SetRecommendedShmMax', 'a{sv}', ()),
    ('SetShmGroup', 'sa{sv}', ('users',)),
    ('SetMinFreeKbytes', 'ta{sv}', (100000,)),
    ('SetRecommendedMinFreeKbytes', 'a{sv}', ()),
    ('SetZoneMovable', 'ba{sv}', (True,)),
    ('SetThp', 'a{sv}a{sv}', ({'enabled': s('never')},)),
])
@pytest.mark.parametrize('opts', [
    {'no-such-option': GLib.Variant('b', True)},
    {'dry-run': GLib.Variant('s', 'yes')},
    {'allow-lower': GLib.Variant('u', 1)},
], ids=['unknown', 'dry-run-type', 'allow-lower-type'])
def test_bad_options(service, conn, fake_kernel, allowed, method, sig, args, opts):
    if method == 'SetZoneMovable':
        fake_kernel.write(TREAT_AS_MOVABLE, 0)
    assert_refused(conn, fake_kernel, allowed, ERR_INVALID_ARGS, method, sig, *args, opts)


@pytest.mark.parametrize('method,sig,args', [
    ('SetShmMax', 'ta{sv}', (64 * MiB,)),
    ('SetShmGroup', 'sa{sv}', ('users',)),
    ('SetMinFreeKbytes', 'ta{sv}', (100000,)),
    ('SetZoneMovable', 'ba{sv}', (True,)),
    ('SetThp', 'a{sv}a{sv}', ({'enabled': s('never')},)),
])
@pytest.mark.valgrind(first=2)
def test_allow_lower_only_for_recommended(service, conn, fake_kernel, allowed, method, sig, args):
    fake_kernel.write(TREAT_AS_MOVABLE, 0)
    assert_refused(conn, fake_kernel, allowed, ERR_INVALID_ARGS, method, sig, *args,
                   hpdtest.options(allow_lower=True))


# --- SetRecommendedShmMax --------------------------------------------------------

def test_recommended_shmmax_without_pools(service, conn, fake_kernel, allowed):
    for opts in ({}, {'allow-lower': GLib.Variant('b', True)}, {'dry-run': GLib.Variant('b', True)}):
        assert_refused(conn, fake_kernel, allowed, ERR_NOT_SUPPORTED, 'SetRecommendedShmMax',
                       'a{sv}', opts)


POOLED = dict(pools={2048: Pool(total=10, free=10, surplus=2, overcommit=6),
                     1048576: Pool(total=1, free=1)})
RECOMMENDED = (8 + 6) * 2 * MiB + 1 * GiB


@pytest.mark.fake_kernel(**POOLED)
def test_recommended_shmmax_keeps_a_larger_value(service, conn, fake_kernel, allowed):
    assert tunable_props(conn)['RecommendedShmMax'] == RECOMMENDED
    before = fake_kernel.snapshot()
    # the kernel's huge default is larger: kept, nothing to authorize
    assert set_recommended_shmmax(conn) == KERNEL_SHMMAX
    assert set_recommended_shmmax(conn, dry_run=True) == KERNEL_SHMMAX
    assert set_recommended_shmmax(conn, dry_run=True, allow_lower=True) == RECOMMENDED
    assert fake_kernel.changes_since(before) == {}
    assert allowed.checks() == []
    # asked to: lowered; shmall is never lowered
    assert set_recommended_shmmax(conn, allow_lower=True) == RECOMMENDED
    assert fake_kernel.changes_since(before) == {SHMMAX: (b(KERNEL_SHMMAX), b(RECOMMENDED))}
    assert_single_check(allowed, 'kernel.shmmax', str(RECOMMENDED))
    assert tunable_props(conn)['ShmMax'] == RECOMMENDED


@pytest.mark.fake_kernel(tunables=Tunables(shmmax=MiB, shmall=256), **POOLED)
def test_recommended_shmmax_raises_a_smaller_value(service, conn, fake_kernel, allowed):
    before = fake_kernel.snapshot()
    assert set_recommended_shmmax(conn, dry_run=True) == RECOMMENDED
    assert fake_kernel.changes_since(before) == {}
    assert set_recommended_shmmax(conn) == RECOMMENDED
    assert fake_kernel.changes_since(before) == {
        SHMMAX: (b(MiB), b(RECOMMENDED)), SHMALL: (b(256), b(RECOMMENDED // BASE_PAGE))}
    assert_single_check(allowed, 'kernel.shmmax', str(RECOMMENDED))
    # now it is the recommended value: a no-op, with or without allow-lower
    assert set_recommended_shmmax(conn) == RECOMMENDED
    assert set_recommended_shmmax(conn, allow_lower=True) == RECOMMENDED
    assert allowed.checks() == []


@pytest.mark.fake_kernel(tunables=Tunables(shmmax=MiB, shmall=256), **POOLED)
@pytest.mark.valgrind
def test_recommended_shmmax_follows_the_pools(service, conn, fake_kernel, allowed):
    allowed.allow(ACTION_TUNABLES, hpdtest.ACTION_POOLS)
    hpdtest.pool_call(conn, 2048, 'SetMaximum', 100)
    expected = 100 * 2 * MiB + 1 * GiB
    assert tunable_props(conn)['RecommendedShmMax'] == expected
    assert set_recommended_shmmax(conn) == expected


# --- SetShmGroup -----------------------------------------------------------------

@pytest.mark.parametrize('group,gid', [('users', 100), ('100', 100), ('nogroup', 65534),
                                       ('65534', 65534), ('daemon', 1), ('0', 0), ('root', 0),
                                       ('000100', 100)])
@pytest.mark.fake_kernel(tunables=Tunables(shm_group=33))
def test_set_shm_group(service, conn, fake_kernel, allowed, group, gid):
    before = fake_kernel.snapshot()
    set_shm_group(conn, group)
    assert fake_kernel.changes_since(before) == {SHM_GROUP: (b(33), b(gid))}
    assert_single_check(allowed, 'vm.hugetlb_shm_group', str(gid))
    assert tunable_props(conn)['ShmGroup'] == gid


@pytest.mark.fake_kernel(tunables=Tunables(shm_group=100))
@pytest.mark.valgrind
def test_set_shm_group_dry_run_and_no_op(service, conn, fake_kernel, polkit):
    before = fake_kernel.snapshot()
    set_shm_group(conn, 'users')
    set_shm_group(conn, '100')
    set_shm_group(conn, 'daemon', dry_run=True)
    assert fake_kernel.changes_since(before) == {}
    assert polkit.checks() == []


@pytest.mark.parametrize('group,error', [
    ('-1', ERR_INVALID_ARGS),
    ('4294967295', ERR_INVALID_ARGS),
    (str(2**31), ERR_INVALID_ARGS),
    (str(2**64), (ERR_INVALID_ARGS, ERR_NO_SUCH_GROUP)),   # taken as a name today
    (str(unused_gid()), ERR_NO_SUCH_GROUP),
    ('no-such-group-hpd', ERR_NO_SUCH_GROUP),
    ('12abc', ERR_NO_SUCH_GROUP),
    ('', ERR_INVALID_ARGS),
    ('-users', ERR_INVALID_ARGS),
    ('us ers', ERR_INVALID_ARGS),
    ('users\n', ERR_INVALID_ARGS),
    ('../users', ERR_INVALID_ARGS),
    ('g' * 33, ERR_INVALID_ARGS),
    ('gr\u00fcppe', ERR_INVALID_ARGS),
    ('+100', ERR_INVALID_ARGS),
    (' 100', ERR_INVALID_ARGS),
    ('0x64', ERR_NO_SUCH_GROUP),
])
def test_set_shm_group_refused(service, conn, fake_kernel, allowed, group, error):
    for opts in ({}, hpdtest.options(dry_run=True)):
        e = assert_refused(conn, fake_kernel, allowed, error, 'SetShmGroup', 'sa{sv}', group, opts)
        assert '\n' not in e.message


# --- SetMinFreeKbytes ------------------------------------------------------------

@pytest.mark.parametrize('value', [1024, 50000, CAP_16G])
def test_set_min_free_kbytes(service, conn, fake_kernel, allowed, value):
    old = fake_kernel.read_int(MIN_FREE_KBYTES)
    before = fake_kernel.snapshot()
    set_min_free(conn, value)
    assert fake_kernel.changes_since(before) == {MIN_FREE_KBYTES: (b(old), b(value))}
    assert_single_check(allowed, 'vm.min_free_kbytes', str(value))
    assert tunable_props(conn)['MinFreeKbytes'] == value


@pytest.mark.parametrize('value,error', [(0, ERR_INVALID_ARGS), (512, ERR_INVALID_ARGS),
                                         (1023, ERR_INVALID_ARGS),
                                         (CAP_16G + 1, ERR_LIMIT_EXCEEDED),
                                         (MEM_16G_KB, ERR_LIMIT_EXCEEDED),
                                         (2**64 - 1, ERR_LIMIT_EXCEEDED)])
def test_set_min_free_kbytes_refused(service, conn, fake_kernel, allowed, value, error):
    for opts in ({}, hpdtest.options(dry_run=True)):
        assert_refused(conn, fake_kernel, allowed, error, 'SetMinFreeKbytes', 'ta{sv}', value, opts)


def test_min_free_kbytes_cap_follows_memtotal(service, conn, fake_kernel, allowed):
    set_meminfo(fake_kernel, 'MemTotal', 2000000)
    assert_refused(conn, fake_kernel, allowed, ERR_LIMIT_EXCEEDED, 'SetMinFreeKbytes', 'ta{sv}',
                   100001, {})
    set_min_free(conn, 100000)
    assert fake_kernel.read_int(MIN_FREE_KBYTES) == 100000


@pytest.mark.valgrind
def test_set_min_free_kbytes_dry_run_and_no_op(service, conn, fake_kernel, polkit):
    current = fake_kernel.read_int(MIN_FREE_KBYTES)
    before = fake_kernel.snapshot()
    set_min_free(conn, current)
    set_min_free(conn, 2048, dry_run=True)
    assert fake_kernel.changes_since(before) == {}
    assert polkit.checks() == []


# --- SetRecommendedMinFreeKbytes ------------------------------------------------

DEFAULT_RECOMMENDED = 11 * 2048 * 4   # 2 nodes: DMA DMA32 Normal + Normal; 2 MiB blocks


@pytest.mark.fake_kernel(tunables=Tunables(min_free_kbytes=11264))
@pytest.mark.valgrind
def test_recommended_min_free_kbytes_raises(service, conn, fake_kernel, allowed):
    assert recommended_min_free_kbytes(fake_kernel) == DEFAULT_RECOMMENDED
    before = fake_kernel.snapshot()
    assert set_recommended_min_free(conn, dry_run=True) == DEFAULT_RECOMMENDED
    assert fake_kernel.changes_since(before) == {}
    assert allowed.checks() == []
    assert set_recommended_min_free(conn) == DEFAULT_RECOMMENDED
    assert fake_kernel.changes_since(before) == {MIN_FREE_KBYTES: (b(11264), b(DEFAULT_RECOMMENDED))}
    assert_single_check(allowed, 'vm.min_free_kbytes', str(DEFAULT_RECOMMENDED))


@pytest.mark.fake_kernel(tunables=Tunables(min_free_kbytes=200000))
def test_recommended_min_free_kbytes_never_lowers_unless_asked(service, conn, fake_kernel, allowed):
    before = fake_kernel.snapshot()
    assert set_recommended_min_free(conn) == 200000
    assert set_recommended_min_free(conn, dry_run=True) == 200000
    assert set_recommended_min_free(conn, dry_run=True, allow_lower=True) == DEFAULT_RECOMMENDED
    assert fake_kernel.changes_since(before) == {}
    assert allowed.checks() == []
    assert set_recommended_min_free(conn, allow_lower=True) == DEFAULT_RECOMMENDED
    assert fake_kernel.changes_since(before) == {MIN_FREE_KBYTES: (b(200000), b(DEFAULT_RECOMMENDED))}
    assert_single_check(allowed, 'vm.min_free_kbytes', str(DEFAULT_RECOMMENDED))


@pytest.mark.fake_kernel(nodes=1, mem_total_kb=1000000, tunables=Tunables(min_free_kbytes=1500))
def test_recommended_min_free_kbytes_capped_at_5_percent(service, conn, fake_kernel, allowed):
    # 3 zones x 11 x 2048 = 67584 > 5% of 1000000 kB
    assert tunable_props(conn)['RecommendedMinFreeKbytes'] == 50000
    assert set_recommended_min_free(conn) == 50000
    assert fake_kernel.read_int(MIN_FREE_KBYTES) == 50000


@pytest.mark.fake_kernel(nodes=1, tunables=Tunables(min_free_kbytes=11 * 2048 * 3, zones=[
    (0, 'DMA', 3840), (0, 'DMA32', 500000), (0, 'Normal', 0), (0, 'Movable', 100000),
    (0, 'Device', 0)]))
def test_recommended_min_free_kbytes_counts_populated_zones(service, conn, fake_kernel, allowed):
    # an empty Normal zone and a populated Movable zone do not count
    assert tunable_props(conn)['RecommendedMinFreeKbytes'] == 11 * 2048 * 2
    assert set_recommended_min_free(conn, allow_lower=True) == 11 * 2048 * 2


@pytest.mark.fake_kernel(tunables=Tunables(min_free_kbytes=200000, zoneinfo=False))
def test_recommended_min_free_kbytes_without_zoneinfo(service, conn, fake_kernel, allowed):
    """Without zoneinfo there is nothing to count: no recommendation, and
    certainly no lowering to the 1024 kB floor."""
    assert tunable_props(conn)['RecommendedMinFreeKbytes'] == 0
    assert_refused(conn, fake_kernel, allowed, ERR_NOT_SUPPORTED, 'SetRecommendedMinFreeKbytes',
                   'a{sv}', hpdtest.options(allow_lower=True))
    assert_refused(conn, fake_kernel, allowed, ERR_NOT_SUPPORTED, 'SetRecommendedMinFreeKbytes',
                   'a{sv}', {})


# --- SetZoneMovable --------------------------------------------------------------

def test_zone_movable_not_supported_on_this_kernel(service, conn, fake_kernel, allowed):
    assert not fake_kernel.exists(TREAT_AS_MOVABLE) and not fake_kernel.exists(MOVABLE_GIGANTIC)
    for enabled in (True, False):
        for opts in ({}, hpdtest.options(dry_run=True)):
            assert_refused(conn, fake_kernel, allowed, ERR_NOT_SUPPORTED, 'SetZoneMovable', 'ba{sv}',
                           enabled, opts)


@pytest.mark.parametrize('rel', [TREAT_AS_MOVABLE, MOVABLE_GIGANTIC])
@pytest.mark.valgrind(first=1)
def test_zone_movable_where_the_sysctl_exists(service, conn, fake_kernel, allowed, rel):
    fake_kernel.write(rel, 0)
    assert tunable_props(conn)['ZoneMovableSupported'] is True
    before = fake_kernel.snapshot()
    set_zone_movable(conn, True)
    assert fake_kernel.changes_since(before) == {rel: (b'0\n', b'1\n')}
    assert_single_check(allowed, 'zone movable', '1')
    assert tunable_props(conn)['ZoneMovable'] is True
    # no-op and dry run: nothing asked, nothing written
    before = fake_kernel.snapshot()
    set_zone_movable(conn, True)
    set_zone_movable(conn, False, dry_run=True)
    assert fake_kernel.changes_since(before) == {}
    assert allowed.checks() == []
    set_zone_movable(conn, False)
    assert fake_kernel.changes_since(before) == {rel: (b'1\n', b'0\n')}
    assert_single_check(allowed, 'zone movable', '0')


@pytest.mark.fake_kernel(tunables=Tunables(treat_as_movable=1, movable_gigantic_pages=0))
def test_zone_movable_prefers_the_old_sysctl(service, conn, fake_kernel, allowed):
    assert tunable_props(conn)['ZoneMovable'] is True
    set_zone_movable(conn, False)
    assert fake_kernel.read(TREAT_AS_MOVABLE) == '0\n'
    assert fake_kernel.read(MOVABLE_GIGANTIC) == '0\n'


# --- SetThp ----------------------------------------------------------------------

def test_set_thp_one(service, conn, simulated, allowed):
    fk = simulated
    before = fk.snapshot()
    set_thp(conn, {'enabled': s('never')})
    assert fk.changes_since(before) == {ENABLED: (b'always [madvise] never\n',
                                                  b'always madvise [never]\n')}
    assert_single_check(allowed, 'transparent huge pages', 'enabled=never')
    props = tunable_props(conn)
    assert thp_current(props, 'enabled') == 'never'
    assert props['ThpSettings']['enabled'] == ('never', ['always', 'madvise', 'never'])


@pytest.mark.valgrind
def test_set_thp_many(service, conn, simulated, allowed):
    fk = simulated
    before = fk.snapshot()
    set_thp(conn, {'enabled': s('always'), 'defrag': s('defer+madvise'),
                   'shmem_enabled': s('within_size'), 'hugepages-64kB/enabled': s('inherit'),
                   'hugepages-64kB/shmem_enabled': s('advise'),
                   'hugepages-2048kB/enabled': s('inherit'),             # already: not written
                   'khugepaged/pages_to_scan': u(8192), 'khugepaged/scan_sleep_millisecs': u(0),
                   'khugepaged/alloc_sleep_millisecs': u(4294967295)})
    assert fk.changes_since(before) == {
        ENABLED: (b'always [madvise] never\n', b'[always] madvise never\n'),
        DEFRAG: (b'always defer defer+madvise [madvise] never\n',
                 b'always defer [defer+madvise] madvise never\n'),
        SHMEM: (b'always within_size advise [never] deny force\n',
                b'always [within_size] advise never deny force\n'),
        M64: (b'always inherit madvise [never]\n', b'always [inherit] madvise never\n'),
        M64_SHMEM: (b'always inherit within_size advise [never]\n',
                    b'always inherit within_size [advise] never\n'),
        SCAN: (b'4096\n', b'8192\n'),
        SCAN_SLEEP: (b'10000\n', b'0\n'),
        ALLOC_SLEEP: (b'60000\n', b'4294967295\n'),
    }
    # the settings polkit rules see: those that change, in the order given
    assert_single_check(allowed, 'transparent huge pages',
                        'enabled=always,defrag=defer+madvise,shmem_enabled=within_size,'
                        'hugepages-64kB/enabled=inherit,hugepages-64kB/shmem_enabled=advise,'
                        'khugepaged/pages_to_scan=8192,khugepaged/scan_sleep_millisecs=0,'
                        'khugepaged/alloc_sleep_millisecs=4294967295')
    props = tunable_props(conn)
    assert props == expected_tunables(fk)
    assert (props['KhugepagedPagesToScan'], props['KhugepagedScanSleepMillisecs'],
            props['KhugepagedAllocSleepMillisecs']) == (8192, 0, 4294967295)


@pytest.mark.valgrind
def test_set_thp_dry_run_and_no_op(service, conn, simulated, polkit):
    fk = simulated
    before = fk.snapshot()
    set_thp(conn, {'enabled': s('never'), 'khugepaged/pages_to_scan': u(1)}, dry_run=True)
    set_thp(conn, {'enabled': s('madvise'), 'hugepages-64kB/enabled': s('never'),
                   'khugepaged/pages_to_scan': u(4096)})
    assert fk.changes_since(before) == {}
    assert polkit.checks() == []


def set_thp_params(pairs, opts):
    """(a{sv}a{sv}) with the settings in order, duplicates allowed."""
    settings = GLib.Variant.new_array(GLib.VariantType('{sv}'), [
        GLib.Variant.new_dict_entry(GLib.Variant('s', name), GLib.Variant.new_variant(value))
        for name, value in pairs])
    return GLib.Variant.new_tuple(settings, GLib.Variant('a{sv}', opts))


BAD_THP = {
    'empty': [],
    'unknown-name': [('bogus', s('always'))],
    'path-escape': [('../enabled', s('never'))],
    'path-escape-mthp': [('hugepages-64kB/../enabled', s('never'))],
    'absolute': [(f'/{THP_DIR}/enabled', s('never'))],
    'numeric-not-offered': [('khugepaged/defrag', u(0))],
    'read-only': [('hpage_pmd_size', u(4096))],
    'mthp-size-missing': [('hugepages-4096kB/enabled', s('never'))],
    'mthp-8kB-enabled': [('hugepages-8kB/enabled', s('never'))],
    'global-inherit': [('enabled', s('inherit'))],
    'mthp-deny': [('hugepages-64kB/enabled', s('deny'))],
    'mthp-shmem-force': [('hugepages-64kB/shmem_enabled', s('force'))],
    'not-a-value': [('defrag', s('sometimes'))],
    'bracketed': [('enabled', s('[never]'))],
    'case': [('enabled', s('Never'))],
    'newline': [('enabled', s('never\n'))],
    'string-as-u': [('enabled', u(1))],
    'u-as-string': [('khugepaged/pages_to_scan', s('4096'))],
    'u-as-t': [('khugepaged/pages_to_scan', GLib.Variant('t', 4096))],
    'u-as-i': [('khugepaged/scan_sleep_millisecs', GLib.Variant('i', 5))],
    'pages-to-scan-0': [('khugepaged/pages_to_scan', u(0))],
    'duplicate': [('enabled', s('never')), ('enabled', s('never'))],
    'duplicate-apart': [('enabled', s('never')), ('defrag', s('never')), ('enabled', s('always'))],
    'one-bad-of-many': [('enabled', s('never')), ('defrag', s('never')), ('shmem_enabled', s('x'))],
    'too-many': [(f'x{i}', s('never')) for i in range(65)],
}


@pytest.mark.parametrize('case', list(BAD_THP), ids=list(BAD_THP))
def test_set_thp_refused(service, conn, fake_kernel, allowed, case):
    for opts in ({}, hpdtest.options(dry_run=True)):
        e = assert_refused(conn, fake_kernel, allowed, ERR_INVALID_ARGS, 'SetThp', None,
                           set_thp_params(BAD_THP[case], opts))
        assert len(e.message) < 400


def test_set_thp_numeric_file_missing(service, conn, fake_kernel, allowed):
    fake_kernel.remove(SCAN_SLEEP)
    assert_refused(conn, fake_kernel, allowed, ERR_NOT_SUPPORTED, 'SetThp', 'a{sv}a{sv}',
                   {'enabled': s('never'), 'khugepaged/scan_sleep_millisecs': u(5)}, {})


# --- all or nothing ----------------------------------------------------------------

@pytest.mark.valgrind
def test_set_thp_rollback_when_a_write_fails(service, conn, simulated, allowed):
    """The second write fails (defrag is a symlink, which the service never
    writes through): the first is put back."""
    fk = simulated
    real = f'{THP_DIR}/defrag.real'
    fk.write(real, fk.read(DEFRAG))
    fk.remove(DEFRAG)
    os.symlink('defrag.real', fk.path(DEFRAG))
    before = fk.snapshot()
    with pytest.raises(BusError) as e:
        set_thp(conn, {'enabled': s('never'), 'defrag': s('always'), 'shmem_enabled': s('advise')})
    assert e.value.name == ERR_FAILED
    assert fk.changes_since(before) == {}
    assert fk.read(ENABLED) == 'always [madvise] never\n'
    assert [c.action for c in allowed.checks()] == [ACTION_TUNABLES]
    assert tunable_props(conn) == expected_tunables(fk)
    # the enabled file was written, then put back
    enabled = os.path.realpath(fk.path(ENABLED))
    assert [(old, new) for path, old, new in fk._simulator.rewrites if path == enabled] == [
        ('never\n', 'always madvise [never]\n'), ('madvise\n', 'always [madvise] never\n')]


def test_set_thp_rollback_when_a_value_reads_back_wrong(service, conn, simulated, allowed):
    """The kernel takes 20000 but shows 19999: the call fails, and both the
    files written before and that one are put back."""
    fk = simulated
    fk.on_open(SCAN_SLEEP, lambda text: '19999\n' if text.strip() == '20000' else None)
    before = fk.snapshot()
    with pytest.raises(BusError) as e:
        set_thp(conn, {'enabled': s('always'), 'khugepaged/pages_to_scan': u(100),
                       'khugepaged/scan_sleep_millisecs': u(20000),
                       'khugepaged/alloc_sleep_millisecs': u(1)})
    assert e.value.name == ERR_FAILED
    assert '19999' in e.value.message
    assert fk.changes_since(before) == {}
    assert fk.read_int(ALLOC_SLEEP) == 60000     # never written


@pytest.mark.valgrind
def test_set_thp_last_write_reading_back_wrong_fails(service, conn, simulated, allowed):
    """The only (so the last) write reads back wrong: that is a failure, not a
    success, and the file is put back (a regression: the last write's
    mismatch used to be reported as done)."""
    fk = simulated
    fk.on_open(SCAN_SLEEP, lambda text: '19999\n' if text.strip() == '20000' else None)
    before = fk.snapshot()
    with pytest.raises(BusError) as e:
        set_thp(conn, {'khugepaged/scan_sleep_millisecs': u(20000)})
    assert e.value.name == ERR_FAILED
    assert '19999' in e.value.message
    assert fk.changes_since(before) == {}


@pytest.mark.fake_kernel(tunables=Tunables(shmmax=32 * MiB, shmall=2048))
@pytest.mark.valgrind
def test_set_shmmax_rollback_when_shmall_fails(service, conn, fake_kernel, allowed):
    os.unlink(fake_kernel.path(SHMALL))
    os.mkdir(fake_kernel.path(SHMALL))     # reads as nothing, refuses the write
    before = fake_kernel.snapshot()
    with pytest.raises(BusError) as e:
        set_shmmax(conn, 64 * MiB)
    assert e.value.name == ERR_FAILED
    assert fake_kernel.changes_since(before) == {}
    assert fake_kernel.read_int(SHMMAX) == 32 * MiB


def test_single_write_failure_changes_nothing(service, conn, fake_kernel, allowed):
    fake_kernel.remove(MIN_FREE_KBYTES)
    os.symlink('/dev/null', fake_kernel.path(MIN_FREE_KBYTES))
    with pytest.raises(BusError) as e:
        set_min_free(conn, 4096)
    assert e.value.name == ERR_FAILED
    assert os.path.islink(fake_kernel.path(MIN_FREE_KBYTES))


# --- authorization --------------------------------------------------------------

CHANGES = [
    ('SetShmMax', 'ta{sv}', (64 * MiB, {}), 'kernel.shmmax', str(64 * MiB)),
    ('SetRecommendedShmMax', 'a{sv}', (hpdtest.options(allow_lower=True),), 'kernel.shmmax',
     str(RECOMMENDED)),
    ('SetShmGroup', 'sa{sv}', ('users', {}), 'vm.hugetlb_shm_group', '100'),
    ('SetMinFreeKbytes', 'ta{sv}', (100000, {}), 'vm.min_free_kbytes', '100000'),
    ('SetRecommendedMinFreeKbytes', 'a{sv}', (hpdtest.options(allow_lower=True),),
     'vm.min_free_kbytes', str(DEFAULT_RECOMMENDED)),
    ('SetZoneMovable', 'ba{sv}', (True, {}), 'zone movable', '1'),
    ('SetThp', 'a{sv}a{sv}', ({'enabled': s('never')}, {}), 'transparent huge pages',
     'enabled=never'),
]


@pytest.mark.fake_kernel(tunables=Tunables(min_free_kbytes=200000, treat_as_movable=0), **POOLED)
@pytest.mark.parametrize('method,sig,args,tunable,value', CHANGES, ids=[c[0] for c in CHANGES])
@pytest.mark.parametrize('grant', ['nothing', 'every-other-action'])
def test_denied_changes_nothing(service, conn, fake_kernel, polkit, method, sig, args, tunable,
                                value, grant):
    if grant == 'every-other-action':
        polkit.allow(*[a for a in hpdtest.ALL_ACTIONS if a != ACTION_TUNABLES])
    before = fake_kernel.snapshot()
    props = tunable_props(conn)
    with pytest.raises(BusError) as e:
        call(conn, method, sig, *args)
    assert e.value.name == ERR_NOT_AUTHORIZED
    assert 'tunables' in e.value.message
    assert fake_kernel.changes_since(before) == {}
    assert tunable_props(conn) == props
    checks = polkit.checks()
    assert len(checks) == 1
    assert checks[0].action == ACTION_TUNABLES
    assert checks[0].subject[0] == 'system-bus-name'
    assert checks[0].details == ({'tunable': tunable, 'value': value} if value else {'tunable': tunable})
    assert checks[0].flags == 0


@pytest.mark.fake_kernel(tunables=Tunables(min_free_kbytes=200000, treat_as_movable=0), **POOLED)
@pytest.mark.parametrize('method,sig,args,tunable,value', CHANGES, ids=[c[0] for c in CHANGES])
@pytest.mark.valgrind
def test_allowed_changes(service, conn, fake_kernel, allowed, method, sig, args, tunable, value):
    before = fake_kernel.snapshot()
    call(conn, method, sig, *args)
    assert len(fake_kernel.changes_since(before)) == 1
    assert_single_check(allowed, tunable, value)


@pytest.mark.fake_kernel(tunables=Tunables(treat_as_movable=0))
def test_interactive_flag_is_passed_on(service, conn, fake_kernel, allowed):
    manager_call(conn, 'SetZoneMovable', 'ba{sv}', (True, {}), interactive=True)
    assert [c.flags for c in allowed.checks()] == [1]


UNPRIVILEGED = r'''
import json, os, sys
from gi.repository import Gio, GLib
conn = Gio.DBusConnection.new_for_address_sync(os.environ["DBUS_SYSTEM_BUS_ADDRESS"],
    Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
    None, None)
out = []
for method, sig, text in json.loads(sys.argv[1]):
    try:
        conn.call_sync("org.hugepages.Manager", "/org/hugepages/Manager", "org.hugepages.Manager",
                       method, GLib.Variant.parse(GLib.VariantType(sig), text, None, None), None,
                       Gio.DBusCallFlags.NONE, 10000, None)
        out.append("ok")
    except GLib.Error as e:
        out.append(Gio.DBusError.get_remote_error(e))
print(json.dumps(out))
'''


@pytest.mark.fake_kernel(tunables=Tunables(min_free_kbytes=200000, treat_as_movable=0), **POOLED)
@pytest.mark.valgrind
def test_unprivileged_caller(service, conn, fake_kernel, polkit, run_as, NOBODY):
    calls = [(m, f'({sig})', GLib.Variant(f'({sig})', args).print_(True))
             for m, sig, args, _t, _v in CHANGES]
    before = fake_kernel.snapshot()
    proc = run_as(NOBODY, ['/usr/bin/python3', '-c', UNPRIVILEGED, json.dumps(calls)])
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [ERR_NOT_AUTHORIZED] * len(CHANGES)
    assert fake_kernel.changes_since(before) == {}
    assert len(polkit.checks()) == len(CHANGES)
    # with polkit's yes, nobody may (the bus policy lets everyone call)
    polkit.allow(ACTION_TUNABLES)
    proc = run_as(NOBODY, ['/usr/bin/python3', '-c', UNPRIVILEGED, json.dumps(calls[:1])])
    assert json.loads(proc.stdout) == ['ok']
    assert fake_kernel.read_int(SHMMAX) == 64 * MiB


@pytest.mark.valgrind
def test_rollback_keeps_a_change_made_since_the_call_was_checked(service, bus, simulated, polkit):
    """A's SetThp and B's are checked (B remembers enabled=madvise to put
    back), then run one after the other while polkit answers: A sets never,
    B's second write fails. Putting back must restore A's never, not the
    madvise B saw when it was checked."""
    fk = simulated
    real = f'{THP_DIR}/defrag.real'
    fk.write(real, fk.read(DEFRAG))
    fk.remove(DEFRAG)
    os.symlink('defrag.real', fk.path(DEFRAG))
    polkit.allow(ACTION_TUNABLES)
    polkit.set_delay(0.3)
    conns = [bus.connect(), bus.connect()]
    replies = {}

    def send(i, settings):
        def done(c, result):
            try:
                c.call_finish(result)
                replies[i] = 'ok'
            except GLib.Error as e:
                replies[i] = Gio.DBusError.get_remote_error(e)
        conns[i].call(hpdtest.BUS_NAME, hpdtest.MANAGER_PATH, hpdtest.MANAGER_IFACE, 'SetThp',
                      GLib.Variant('(a{sv}a{sv})', (settings, {})), None, Gio.DBusCallFlags.NONE,
                      20000, None, done)

    def iterate(seconds, until=lambda: False):
        ctx = GLib.MainContext.default()
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not until():
            if not ctx.iteration(False):
                time.sleep(0.002)

    try:
        send(0, {'enabled': s('never')})
        iterate(0.1)
        send(1, {'enabled': s('always'), 'defrag': s('always')})
        iterate(10, lambda: len(replies) == 2)
        assert replies == {0: 'ok', 1: ERR_FAILED}
        assert fk.thp_choice(ENABLED)[0] == 'never'
        assert thp_current(tunable_props(conns[0]), 'enabled') == 'never'
    finally:
        for c in conns:
            c.close_sync(None)
