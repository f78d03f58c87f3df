# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Explain on crafted fake trees: it needs no authorization, its entries are
well formed, and each check's id appears exactly when its condition holds.

Every test starts from a quiet tree (swap, an unfragmented buddyinfo, the
kernel's own min_free_kbytes, the huge default shmmax, THP madvise, no
pools) where only memory-total and allocatable-2MB are listed, changes one
thing and compares the whole set of ids."""

import json
import os
import re

import pytest

import hpdtest
from hpdtest import ERR_INVALID_ARGS, BusError, pool_call
from hpdtunables import (ACTION_TUNABLES, explain, hugetlbfs_line, recommended_min_free_kbytes,
                         set_meminfo, unused_gid, write_mountinfo)
from fakekernel import (MIN_FREE_KBYTES, SHM_GROUP, SHMALL, SHMMAX, THP_CHOICES, THP_DIR, Pool,
                        Tunables, choice_text)
from gi.repository import GLib

MiB = 1 << 20
QUIET = {'memory-total', 'allocatable-2MB'}
ID = re.compile(r'^[a-z]+(-[a-z]+)*(-[0-9]+(KB|MB|GB))?$')
SEVERITIES = {'info', 'warning', 'error'}
# 100 free order-10 blocks: 400 MiB, all of it in 2 MiB pieces
UNFRAGMENTED = 'Node 0, zone   Normal      0      0      0      0      0      0      0      0      0      0    100 \n'
# 100000 single pages and one 2 MiB block: ~392 MiB, 1 page of 2 MiB
FRAGMENTED = 'Node 0, zone   Normal 100000      0      0      0      0      0      0      0      0      1      0 \n'
NOBODY_GROUP = 65534     # nobody's primary group (nogroup)
USERS_GROUP = 100        # a group nobody is not in


def quiet(fk):
    set_meminfo(fk, 'SwapTotal', 4 * 1024 * 1024)
    set_meminfo(fk, 'SwapFree', 4 * 1024 * 1024)
    fk.write('proc/buddyinfo', UNFRAGMENTED)


def by_id(entries):
    result = {}
    for severity, id_, message, fix in entries:
        assert id_ not in result, f'{id_} listed twice'
        result[id_] = (severity, message, fix)
    return result


def ids(conn):
    return set(by_id(explain(conn)))


@pytest.fixture
def fk(fake_kernel):
    quiet(fake_kernel)
    return fake_kernel


@pytest.fixture
def simulated(fk):
    if not fk.simulating:
        pytest.skip('the fake kernel simulator could not start: '
                    + getattr(fk, 'simulator_error', '?'))
    return fk


EXPLAIN_AS = r'''
import json, os, sys
from gi.repository import Gio, GLib
conn = Gio.DBusConnection.new_for_address_sync(os.environ["DBUS_SYSTEM_BUS_ADDRESS"],
    Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
    None, None)
reply = conn.call_sync("org.hugepages.Manager", "/org/hugepages/Manager", "org.hugepages.Manager",
                       "Explain", GLib.Variant("(a{sv})", ({},)), GLib.VariantType("(aa{sv})"),
                       Gio.DBusCallFlags.NONE, 10000, None)
print(json.dumps({"pid": os.getpid(), "entries": reply.unpack()[0]}))
'''


def explain_as(run_as, uid):
    proc = run_as(uid, ['/usr/bin/python3', '-c', EXPLAIN_AS])
    assert proc.returncode == 0, proc.stderr
    return hpdtest.rows(json.loads(proc.stdout)['entries'], hpdtest.EXPLAIN_KEYS)


# --- the basics --------------------------------------------------------------

def test_needs_no_authorization(service, conn, fk, polkit):
    entries = explain(conn)
    assert polkit.checks() == []
    assert entries
    for severity, id_, message, fix in entries:
        assert severity in SEVERITIES, id_
        assert ID.match(id_), id_
        assert message and '\n' not in message and not message.endswith(' '), id_
        assert '\n' not in fix, id_


@pytest.mark.valgrind
def test_quiet_tree(service, conn, fk, polkit):
    entries = by_id(explain(conn))
    assert set(entries) == QUIET
    severity, message, fix = entries['memory-total']
    assert (severity, fix) == ('info', '')
    assert '16.0 GiB' in message
    assert entries['allocatable-2MB'][0] == 'info'


def test_unprivileged_caller_may_explain(service, conn, fk, polkit, run_as, NOBODY):
    entries = by_id(explain_as(run_as, NOBODY))
    # the same facts, plus what only concerns an unprivileged caller
    assert set(entries) == QUIET | {'shm-group-unset'}
    assert polkit.checks() == []


@pytest.mark.parametrize('opts', [{'bogus': True}, {'dry-run': True}])
@pytest.mark.valgrind
def test_options_are_checked(service, conn, fk, polkit, opts):
    with pytest.raises(BusError) as e:
        explain(conn, hpdtest.options(**opts))
    assert e.value.name == ERR_INVALID_ARGS


@pytest.mark.fake_kernel(tunables=None)
def test_bare_tree(service, conn, fake_kernel, polkit):
    # no tunables, no swap: what can be said is said, nothing more
    assert ids(conn) == {'memory-total', 'no-swap', 'allocatable-2MB'}
    fake_kernel.remove('proc/buddyinfo')
    assert ids(conn) == {'memory-total', 'no-swap'}


# --- hugeadm's checks --------------------------------------------------------

def test_no_swap(service, conn, fk):
    set_meminfo(fk, 'SwapTotal', 0)
    entries = by_id(explain(conn))
    assert set(entries) == QUIET | {'no-swap'}
    assert entries['no-swap'][0] == 'info'
    set_meminfo(fk, 'SwapTotal', 1)
    assert ids(conn) == QUIET


def test_min_free_kbytes_low(service, conn, fk):
    recommended = recommended_min_free_kbytes(fk)
    assert recommended == 11 * 2048 * 4
    fk.write(MIN_FREE_KBYTES, recommended - 1)
    entries = by_id(explain(conn))
    assert set(entries) == QUIET | {'min-free-kbytes-low'}
    severity, message, fix = entries['min-free-kbytes-low']
    assert severity == 'warning'
    assert str(recommended - 1) in message and str(recommended) in message
    assert 'min-free-kbytes recommended' in fix
    for value in (recommended, recommended + 1, 10**6):
        fk.write(MIN_FREE_KBYTES, value)
        assert ids(conn) == QUIET


POOL_8 = {2048: Pool(total=8, free=8)}      # recommended shmmax 16 MiB


@pytest.mark.fake_kernel(pools=POOL_8)
def test_shmmax_low(service, conn, fk):
    write_mountinfo(fk, [hugetlbfs_line(50, '/dev/hugepages', '2M')])
    assert ids(conn) == QUIET
    fk.write(SHMMAX, 16 * MiB - 1)
    entries = by_id(explain(conn))
    assert set(entries) == QUIET | {'shmmax-low'}
    severity, message, fix = entries['shmmax-low']
    assert severity == 'warning' and str(16 * MiB) in message
    assert 'shm-max recommended' in fix
    # unlike hugeadm, a larger shmmax is not a problem
    for value in (16 * MiB, 16 * MiB + 1, 2**64 - 1):
        fk.write(SHMMAX, value)
        assert ids(conn) == QUIET


def test_shmmax_without_pools_is_not_low(service, conn, fk):
    fk.write(SHMMAX, 4096)
    fk.write(SHMALL, 1)
    assert ids(conn) == QUIET


def test_shmall_low_without_pools(service, conn, fk):
    fk.write(SHMMAX, MiB)
    fk.write(SHMALL, MiB // 4096 - 1)
    entries = by_id(explain(conn))
    assert set(entries) == QUIET | {'shmall-low'}
    assert entries['shmall-low'][0] == 'warning'
    assert 'shm-max recommended' in entries['shmall-low'][2]
    fk.write(SHMALL, MiB // 4096)
    assert ids(conn) == QUIET


@pytest.mark.fake_kernel(pools=POOL_8)
def test_shmall_low_against_the_pools(service, conn, fk):
    write_mountinfo(fk, [hugetlbfs_line(50, '/dev/hugepages', '2M')])
    # shmmax stays at the huge default: what counts is what the pools back
    fk.write(SHMALL, 16 * MiB // 4096 - 1)
    assert ids(conn) == QUIET | {'shmall-low'}
    fk.write(SHMALL, 16 * MiB // 4096)
    assert ids(conn) == QUIET


@pytest.mark.parametrize('group,as_nobody,expected', [
    (0, False, set()),
    (0, True, {'shm-group-unset'}),
    (unused_gid(), False, {'shm-group-invalid'}),
    (unused_gid(), True, {'shm-group-invalid'}),
    (USERS_GROUP, False, set()),
    (USERS_GROUP, True, {'shm-group-caller'}),
    (NOBODY_GROUP, True, set()),           # nobody's primary group
    (NOBODY_GROUP, False, set()),
])
def test_shm_group(service, conn, fk, run_as, NOBODY, group, as_nobody, expected):
    fk.write(SHM_GROUP, group)
    entries = by_id(explain_as(run_as, NOBODY) if as_nobody else explain(conn))
    assert set(entries) == QUIET | expected
    severities = {'shm-group-unset': 'info', 'shm-group-invalid': 'warning',
                  'shm-group-caller': 'warning'}
    for id_ in expected:
        assert entries[id_][0] == severities[id_]
    if 'shm-group-invalid' in expected:
        assert str(group) in entries['shm-group-invalid'][1]
        assert 'shm-group' in entries['shm-group-invalid'][2]
    if 'shm-group-caller' in expected:
        assert 'users' in entries['shm-group-caller'][1]
        assert str(NOBODY) in entries['shm-group-caller'][1]


# --- the checks hugeadm lacks ------------------------------------------------

@pytest.mark.fake_kernel(pools={2048: Pool(total=2, free=2, overcommit=4)})
@pytest.mark.valgrind
def test_pool_short(service, conn, simulated, polkit):
    fk = simulated
    polkit.allow(hpdtest.ACTION_POOLS)
    write_mountinfo(fk, [hugetlbfs_line(50, '/dev/hugepages', '2M')])
    assert ids(conn) == QUIET
    fk.limit_pool(2048, 3)           # the kernel finds memory for 3 pages only
    assert pool_call(conn, 2048, 'SetMinimum', 8) == 3
    entries = by_id(explain(conn))
    assert set(entries) == QUIET | {'pool-short-2MB'}
    severity, message, fix = entries['pool-short-2MB']
    assert severity == 'warning'
    assert '3 of the 8' in message
    assert fix == 'hugepagesctl set-min 2MB 8 --hard'
    # memory comes back: asking again fills the pool, and the entry goes
    fk.limit_pool(2048, None)
    assert pool_call(conn, 2048, 'SetMinimum', 8) == 8
    assert ids(conn) == QUIET
    # a smaller request is met at once
    assert pool_call(conn, 2048, 'SetMinimum', 5) == 5
    assert ids(conn) == QUIET


@pytest.mark.fake_kernel(pools={2048: Pool(total=2, free=2, overcommit=4)})
def test_pool_short_suggests_drop_caches_only_where_the_cache_would_hold_it(service, conn, simulated,
                                                                          polkit):
    fk = simulated
    polkit.allow(hpdtest.ACTION_POOLS)
    write_mountinfo(fk, [hugetlbfs_line(50, '/dev/hugepages', '2M')])
    # 16 free base pages in the free lists, and 64 MiB of page cache
    fk.write('proc/buddyinfo', 'Node 0, zone   Normal     16      0      0      0      0      0'
                               '      0      0      0      0      0\n')
    assert re.search(r'^Cached:\s+65536 kB$', fk.read('proc/meminfo'), re.M)
    fk.limit_pool(2048, 3)
    # 5 pages (10 MiB) missing: more than is free, less than the cache
    assert pool_call(conn, 2048, 'SetMinimum', 8) == 3
    severity, message, fix = by_id(explain(conn))['pool-short-2MB']
    assert fix == 'hugepagesctl set-min 2MB 8 --hard --drop-caches'
    assert 'the page cache could' in message
    # 37 pages (74 MiB) missing: not even the cache holds them
    assert pool_call(conn, 2048, 'SetMinimum', 40) == 3
    severity, message, fix = by_id(explain(conn))['pool-short-2MB']
    assert fix == 'hugepagesctl set-min 2MB 40 --hard'
    assert 'page cache' not in message


@pytest.mark.valgrind
@pytest.mark.fake_kernel(pools={2048: Pool(total=2, free=2, overcommit=4)})
def test_pool_short_outlives_the_instance(start_service, fake_kernel, conn, simulated, polkit):
    """An idle exit or a restart must not forget what was asked: the request
    is kept under /run, not in the daemon's memory."""
    fk = simulated
    polkit.allow(hpdtest.ACTION_POOLS)
    write_mountinfo(fk, [hugetlbfs_line(50, '/dev/hugepages', '2M')])
    first = start_service(fk.root)
    fk.limit_pool(2048, 3)
    assert pool_call(conn, 2048, 'SetMinimum', 8) == 3
    assert first.terminate() == 0
    start_service(fk.root)
    assert 'pool-short-2MB' in ids(conn)
    assert fk.read('run/hugepagesd/requested') == '[minimum]\n2MB=8\n'


@pytest.mark.fake_kernel(pools={2048: Pool(total=2, free=2)})
def test_pool_short_needs_a_request(service, conn, fk):
    # a pool that shrank behind the service's back was not asked for by it
    write_mountinfo(fk, [hugetlbfs_line(50, '/dev/hugepages', '2M')])
    fk.write(fk.pool_file(2048, 'nr_hugepages'), 1)
    assert ids(conn) == QUIET


@pytest.mark.fake_kernel(pools={2048: Pool(total=10, free=0, surplus=4, overcommit=2)})
def test_surplus_above_maximum(service, conn, fk):
    write_mountinfo(fk, [hugetlbfs_line(50, '/dev/hugepages', '2M')])
    entries = by_id(explain(conn))
    assert set(entries) == QUIET | {'surplus-above-maximum-2MB'}
    severity, message, _fix = entries['surplus-above-maximum-2MB']
    assert severity == 'warning' and '4 surplus' in message and 'limit of 2' in message
    fk.write(fk.pool_file(2048, 'nr_overcommit_hugepages'), 4)
    assert ids(conn) == QUIET


@pytest.mark.fake_kernel(pools={1048576: Pool(total=1, free=1)})
def test_gigantic_at_boot(service, conn, simulated, polkit):
    fk = simulated
    write_mountinfo(fk, [hugetlbfs_line(50, '/dev/hugepages1G', '1024M')])
    entries = by_id(explain(conn))
    assert set(entries) == QUIET | {'gigantic-at-boot-1GB'}
    severity, _message, fix = entries['gigantic-at-boot-1GB']
    assert severity == 'info'
    assert 'hugepagesz=1G hugepages=1' in fix
    # asked for more than the kernel could find: a warning, with the number asked for
    polkit.allow(hpdtest.ACTION_POOLS)
    fk.limit_pool(1048576, 1)
    assert pool_call(conn, 1048576, 'SetMinimum', 3) == 1
    entries = by_id(explain(conn))
    assert set(entries) == QUIET | {'gigantic-at-boot-1GB', 'pool-short-1GB'}
    severity, _message, fix = entries['gigantic-at-boot-1GB']
    assert severity == 'warning' and 'hugepagesz=1G hugepages=3' in fix
    # no gigantic pages and none asked for: nothing to say
    fk.limit_pool(1048576, None)
    assert pool_call(conn, 1048576, 'SetMinimum', 0) == 0
    assert ids(conn) == QUIET


@pytest.mark.fake_kernel(pools={2048: Pool(total=4, free=4)})
def test_no_mount(service, conn, fk):
    entries = by_id(explain(conn))            # no mountinfo at all
    assert set(entries) == QUIET | {'no-mount-2MB'}
    severity, _message, fix = entries['no-mount-2MB']
    assert severity == 'warning' and fix == 'hugepagesctl mount-create system --page-size 2MB'
    write_mountinfo(fk, [hugetlbfs_line(50, '/mnt/gigantic', '1024M')])
    assert ids(conn) == QUIET | {'no-mount-2MB'}
    write_mountinfo(fk, [hugetlbfs_line(50, '/dev/hugepages', '2M')])
    assert ids(conn) == QUIET
    write_mountinfo(fk, [hugetlbfs_line(50, '/dev/hugepages')])   # no pagesize=: the default
    assert ids(conn) == QUIET
    # an empty pool needs no mount, however it got empty
    write_mountinfo(fk, [])
    fk.write(fk.pool_file(2048, 'nr_hugepages'), 0)
    assert ids(conn) == QUIET


@pytest.mark.fake_kernel(pools={2048: Pool(total=0, overcommit=3)})
def test_no_mount_for_an_overcommit_only_pool(service, conn, fk):
    assert ids(conn) == QUIET | {'no-mount-2MB'}


def test_allocatable(service, conn, fk):
    entries = by_id(explain(conn))
    severity, message, fix = entries['allocatable-2MB']
    assert (severity, fix) == ('info', '')
    assert 'About 200 2MB pages' in message and 'would hold 200' in message
    fk.write('proc/buddyinfo', FRAGMENTED)
    entries = by_id(explain(conn))
    assert set(entries) == QUIET
    severity, message, fix = entries['allocatable-2MB']
    assert severity == 'warning' and 'fragmented' in message and '--hard' in fix
    assert 'About 1 2MB pages' in message and 'would hold 196' in message
    # exactly half of what the free memory would hold is not fragmented yet
    fk.write('proc/buddyinfo', 'Node 0, zone Normal 512 0 0 0 0 0 0 0 0 1 0\n')
    assert by_id(explain(conn))['allocatable-2MB'][0] == 'info'
    fk.write('proc/buddyinfo', 'Node 0, zone Normal 1536 0 0 0 0 0 0 0 0 1 0\n')
    assert by_id(explain(conn))['allocatable-2MB'][0] == 'warning'
    # nothing free, or nothing known: no estimate
    fk.write('proc/buddyinfo', 'Node 0, zone Normal 0 0 0 0 0 0 0 0 0 0 0\n')
    assert ids(conn) == QUIET - {'allocatable-2MB'}
    fk.remove('proc/buddyinfo')
    assert ids(conn) == QUIET - {'allocatable-2MB'}


@pytest.mark.fake_kernel(sizes=(64, 2048, 1048576), default_size=2048, max_order=10)
def test_allocatable_per_size(service, conn, fk):
    # every buddy-allocated size gets an estimate, gigantic ones do not
    assert ids(conn) == QUIET | {'allocatable-64KB'}


@pytest.mark.parametrize('setting,value,expected', [
    ('enabled', 'always', {'thp-enabled-always'}),
    ('enabled', 'never', set()),
    ('defrag', 'always', {'thp-defrag-always'}),
    ('defrag', 'defer', set()),
    ('defrag', 'defer+madvise', set()),
    ('shmem_enabled', 'always', set()),
])
def test_thp(service, conn, fk, setting, value, expected):
    fk.write(f'{THP_DIR}/{setting}', choice_text(THP_CHOICES[setting], value))
    entries = by_id(explain(conn))
    assert set(entries) == QUIET | expected
    for id_ in expected:
        severity, message, fix = entries[id_]
        assert severity == 'warning'
        assert fix == f'hugepagesctl thp {setting}=madvise'


@pytest.mark.fake_kernel(tunables=Tunables(thp_enabled='always', thp_defrag='always'))
def test_thp_both(service, conn, fk):
    assert ids(conn) == QUIET | {'thp-enabled-always', 'thp-defrag-always'}
    # an mTHP size set to always is not what the databases warn about
    fk.write(f'{THP_DIR}/hugepages-2048kB/enabled', 'always inherit madvise [never]\n')
    fk.remove(f'{THP_DIR}/enabled')
    assert ids(conn) == QUIET | {'thp-defrag-always'}


@pytest.mark.parametrize('soft,hard,expected', [
    (8388608, 8388608, '8.0 MiB'),
    (65536, 'unlimited', '64.0 KiB'),
    (0, 0, '0 bytes'),
    ('unlimited', 'unlimited', None),
])
def test_memlock_limit(service, conn, fk, soft, hard, expected):
    assert ids(conn) == QUIET           # no limits file for this pid below the root
    fk.write_limits(os.getpid(), soft, hard)
    entries = by_id(explain(conn))
    if expected is None:
        assert set(entries) == QUIET
        return
    assert set(entries) == QUIET | {'memlock-limit'}
    severity, message, fix = entries['memlock-limit']
    assert severity == 'info' and expected in message and 'limits.conf' in fix


@pytest.mark.valgrind
def test_memlock_limit_is_the_callers(service, conn, fk):
    # another process's limits do not matter
    fk.write_limits(os.getpid() + 1 if os.getpid() > 1 else 2, 8388608)
    fk.write_limits(1, 8388608)
    assert ids(conn) == QUIET


# --- everything at once ------------------------------------------------------

EVERYTHING = Tunables(min_free_kbytes=2048, shmmax=MiB, shmall=1, shm_group=USERS_GROUP,
                      thp_enabled='always', thp_defrag='always')


@pytest.mark.fake_kernel(tunables=EVERYTHING,
                         pools={2048: Pool(total=10, free=0, surplus=4, overcommit=2),
                                1048576: Pool(total=1, free=1)})
@pytest.mark.valgrind
def test_everything_wrong(service, conn, fk, run_as, NOBODY):
    set_meminfo(fk, 'SwapTotal', 0)
    fk.write('proc/buddyinfo', FRAGMENTED)
    fk.write_limits(os.getpid(), 65536)
    entries = explain(conn)
    assert {e[1] for e in entries} == {
        'memory-total', 'no-swap', 'surplus-above-maximum-2MB', 'gigantic-at-boot-1GB',
        'no-mount-2MB', 'no-mount-1GB', 'allocatable-2MB', 'min-free-kbytes-low', 'shmmax-low',
        'shmall-low', 'memlock-limit', 'thp-enabled-always', 'thp-defrag-always'}
    # what nobody sees instead of the memlock entry: the group it is not in
    nobody_ids = {e[1] for e in explain_as(run_as, NOBODY)}
    assert nobody_ids == ({e[1] for e in entries} - {'memlock-limit'}) | {'shm-group-caller'}
    # the order is stable: memory, pools (by size), tunables, THP
    order = [e[1] for e in entries]
    assert order.index('memory-total') == 0
    assert order.index('surplus-above-maximum-2MB') < order.index('gigantic-at-boot-1GB')
    assert order.index('allocatable-2MB') < order.index('min-free-kbytes-low')
    assert order[-2:] == ['thp-enabled-always', 'thp-defrag-always']
    assert explain(conn) == entries


@pytest.mark.valgrind
def test_explain_follows_changes_made_through_the_service(service, conn, simulated, polkit):
    polkit.allow(ACTION_TUNABLES)
    hpdtest.call(conn, hpdtest.MANAGER_PATH, hpdtest.MANAGER_IFACE, 'SetThp',
                 GLib.Variant('(a{sv}a{sv})', ({'enabled': GLib.Variant('s', 'always')}, {})))
    assert ids(conn) == QUIET | {'thp-enabled-always'}


@pytest.mark.fake_kernel(sizes=(2048, 32768, 16777216), default_size=2048, max_order=10,
                         pools={32768: Pool(total=2, free=2), 16777216: Pool(total=1, free=1)})
def test_gigantic_at_boot_names_the_size_as_the_kernel_takes_it(service, conn, fk):
    write_mountinfo(fk, [hugetlbfs_line(50, '/mnt/32m', '32M'), hugetlbfs_line(51, '/mnt/16g', '16384M')])
    entries = by_id(explain(conn))
    assert set(entries) == QUIET | {'gigantic-at-boot-32MB', 'gigantic-at-boot-16GB'}
    assert 'hugepagesz=32M hugepages=2' in entries['gigantic-at-boot-32MB'][2]
    assert 'hugepagesz=16G hugepages=1' in entries['gigantic-at-boot-16GB'][2]
