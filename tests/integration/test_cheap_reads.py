# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Reads are cheap and the idle service is silent, without reads going
stale: the service keeps the parsed configuration between reads
(src/config/hpd-config-cache.h) and reads kernel files whenever they are asked for
(src/bus/hpd-fresh.h), so these tests change files behind its back in the ways
that defeat a careless cache (same size, the old modification time put
back, renamed over, a directory on the way replaced) and check the very
next read. The
idle tests count the service's context switches while nobody calls and
nobody watches (a client that called and stays is a watcher: test_live.py)."""

import os
import re
import time

import pytest

import hpdtest
from hpdtest import MANAGER_IFACE, MANAGER_PATH, PAGE_SIZE_IFACE, PROPS_IFACE, page_size_path
from fakekernel import NodePool, Pool
from hpdtunables import expected_tunables, set_meminfo

from gi.repository import GLib

# HPD_CONFIG_SETTLE_US in src/config/hpd-config-cache.h, and a margin
CONFIG_SETTLE_S = 3.0 + 0.5
# QUIET_BEFORE_CHECK_US in src/bus/hpd-memory.c
TRIM_AFTER_S = 2.0
TRIM_LINE = 'Calls stopped:'
CONFIG_READ_LINE = 'Read the configuration'

SIZES = (2048, 32768, 1048576)
NODES = 8
POOLS = {size: Pool(total=8 * (i + 1), free=4, overcommit=3,
                    nodes={n: NodePool(i + 1, n % 2, 0) for n in range(NODES)})
         for i, size in enumerate(SIZES)}
MANY = dict(nodes=NODES, sizes=SIZES, default_size=2048, pools=POOLS)


def write_keeping_mtime(fk, rel, value):
    """Rewrites rel in place, then puts its modification time back, as a
    write to sysfs would leave it: only the write itself tells."""
    path = fk.path(rel)
    before = os.stat(path)
    fk.write(rel, value)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def node_counters(conn, size_kb, how):
    if how == 'Get':
        nodes = hpdtest.get(conn, page_size_path(size_kb), PAGE_SIZE_IFACE, 'Nodes')
    elif how == 'GetAll':
        nodes = hpdtest.page_size_props(conn, size_kb)['Nodes']
    else:
        nodes = hpdtest.managed_objects(conn)[page_size_path(size_kb)][PAGE_SIZE_IFACE]['Nodes']
    return {node: (total, free, surplus)
            for node, total, free, surplus, _minimum in hpdtest.rows(nodes, hpdtest.NODE_KEYS)}


@pytest.mark.fake_kernel(**MANY)
@pytest.mark.parametrize('how', ['Get', 'GetAll', 'GetManagedObjects'])
def test_same_size_writes_with_old_mtime_are_seen_at_once(service, conn, fake_kernel, how):
    fk = fake_kernel
    for size_kb in SIZES:
        # twice: the second read is the one a cache answers
        assert node_counters(conn, size_kb, how)[3] == (SIZES.index(size_kb) + 1, 1, 0)
        assert node_counters(conn, size_kb, how)[3] == (SIZES.index(size_kb) + 1, 1, 0)
    for value in range(5, 9):
        for size_kb in SIZES:
            write_keeping_mtime(fk, fk.node_file(3, size_kb, 'free_hugepages'), value)
            write_keeping_mtime(fk, fk.pool_file(size_kb, 'nr_hugepages'), value)
            assert node_counters(conn, size_kb, how)[3][1] == value
            assert hpdtest.get(conn, page_size_path(size_kb), PAGE_SIZE_IFACE, 'Total') == value


@pytest.mark.fake_kernel(**MANY)
def test_file_renamed_over_is_seen(service, conn, fake_kernel):
    fk = fake_kernel
    rel = fk.node_file(5, 2048, 'nr_hugepages')
    assert node_counters(conn, 2048, 'GetManagedObjects')[5][0] == 1
    assert node_counters(conn, 2048, 'GetManagedObjects')[5][0] == 1
    fk.write(rel + '.new', 4)
    os.replace(fk.path(rel + '.new'), fk.path(rel))
    assert node_counters(conn, 2048, 'GetManagedObjects')[5][0] == 4


@pytest.mark.fake_kernel(**MANY)
def test_directory_on_the_way_replaced_is_seen(service, conn, fake_kernel):
    fk = fake_kernel
    node_dir = fk.path('sys/devices/system/node/node2')
    assert node_counters(conn, 32768, 'GetManagedObjects')[2] == (2, 0, 0)
    assert node_counters(conn, 32768, 'GetManagedObjects')[2] == (2, 0, 0)
    os.rename(node_dir, node_dir + '.old')
    for size_kb in SIZES:
        for name, value in (('nr_hugepages', 7), ('free_hugepages', 6), ('surplus_hugepages', 5)):
            fk.write(fk.node_file(2, size_kb, name), value)
    fk.write('sys/devices/system/node/node2/compact', '')
    assert node_counters(conn, 32768, 'GetManagedObjects')[2] == (7, 6, 5)
    # the new directory is watched in turn; the old one means nothing now
    write_keeping_mtime(fk, fk.node_file(2, 32768, 'free_hugepages'), 1)
    fk.write(fk.node_file(2, 32768, 'free_hugepages').replace('node2', 'node2.old'), 3)
    assert node_counters(conn, 32768, 'GetManagedObjects')[2] == (7, 1, 5)


def test_tunables_and_meminfo_edits_are_seen(service, conn, fake_kernel):
    fk = fake_kernel
    first = hpdtest.manager_props(conn)
    assert hpdtest.manager_props(conn)['MinFreeKbytes'] == first['MinFreeKbytes']
    write_keeping_mtime(fk, 'proc/sys/vm/min_free_kbytes', first['MinFreeKbytes'] + 1)
    assert hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'MinFreeKbytes') == first['MinFreeKbytes'] + 1
    meminfo = fk.read('proc/meminfo')
    total = re.search(r'MemTotal:\s+(\d+) kB', meminfo).group(1)
    changed = str(int(total) + 1)
    assert len(changed) == len(total)
    fk.write('proc/meminfo', meminfo.replace(total, changed, 1))
    assert hpdtest.manager_props(conn)['MemTotal'] == int(changed) * 1024


def configured(conn):
    return {key: value for key, value, _origin in
            hpdtest.rows(hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'ConfiguredState'),
                         hpdtest.STATE_KEYS)}


def config_reads(service):
    return service.log().count(CONFIG_READ_LINE)


def test_settled_configuration_is_kept_and_edits_are_seen(service, conn, fake_kernel):
    fk = fake_kernel
    main = 'etc/hugepagesd/hugepagesd.conf'
    fk.write(main, '[pool 2MB]\nminimum = 4\n')
    assert configured(conn)['pool 2MB minimum'] == '4'
    time.sleep(CONFIG_SETTLE_S)
    configured(conn)
    reads = config_reads(service)
    # settled: kept, not read again
    for _ in range(3):
        assert configured(conn)['pool 2MB minimum'] == '4'
    assert config_reads(service) == reads
    # the same size, the modification time put back: the change time tells
    write_keeping_mtime(fk, main, '[pool 2MB]\nminimum = 5\n')
    assert configured(conn)['pool 2MB minimum'] == '5'
    assert config_reads(service) > reads
    # a drop-in appears (its directory too), then goes
    fk.write('etc/hugepagesd/hugepagesd.conf.d/50-more.conf', '[pool 2MB]\nminimum = 6\n')
    assert configured(conn)['pool 2MB minimum'] == '6'
    assert hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'ConfigurationErrors') == []
    fk.write('etc/hugepagesd/hugepagesd.conf.d/60-bad.conf', '[pool 2MB]\nminimum = x\n')
    assert len(hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'ConfigurationErrors')) == 1
    fk.remove('etc/hugepagesd/hugepagesd.conf.d/50-more.conf')
    fk.remove('etc/hugepagesd/hugepagesd.conf.d/60-bad.conf')
    assert configured(conn)['pool 2MB minimum'] == '5'
    assert hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'ConfigurationErrors') == []


def test_drift_follows_the_kernel_with_a_kept_configuration(service, conn, fake_kernel):
    fk = fake_kernel
    fk.write('etc/hugepagesd/hugepagesd.conf', '[pool 2MB]\nminimum = 4\n')
    time.sleep(CONFIG_SETTLE_S)

    def drift():
        return {key: actual for key, _configured, actual, _message in
                hpdtest.rows(hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'Drift'),
                             hpdtest.DRIFT_KEYS)}

    assert drift() == {'pool 2MB minimum': '0'}
    assert drift() == {'pool 2MB minimum': '0'}
    write_keeping_mtime(fk, fk.pool_file(2048, 'nr_hugepages'), 4)
    assert drift() == {}
    write_keeping_mtime(fk, fk.pool_file(2048, 'nr_hugepages'), 3)
    assert drift() == {'pool 2MB minimum': '3'}


# --- idle --------------------------------------------------------------------

def context_switches(pid):
    total = 0
    for tid in os.listdir(f'/proc/{pid}/task'):
        try:
            with open(f'/proc/{pid}/task/{tid}/status') as f:
                for line in f:
                    if line.startswith(('voluntary_ctxt_switches', 'nonvoluntary_ctxt_switches')):
                        total += int(line.split()[1])
        except FileNotFoundError:
            pass
    return total


def quietest_window(pid, seconds, windows):
    """The fewest context switches of the service in one of up to windows
    windows of seconds each (stopping at a silent one): a timer that fires
    every few seconds shows in all of them, a rare outside event (the mount
    monitor sees the host's mounts) in one at most."""
    fewest = None
    for _ in range(windows):
        before = context_switches(pid)
        time.sleep(seconds)
        switches = context_switches(pid) - before
        fewest = switches if fewest is None else min(fewest, switches)
        if fewest == 0:
            break
    return fewest


def wait_for_log(service, text, count, timeout):
    deadline = time.monotonic() + timeout
    while service.log().count(text) < count:
        assert time.monotonic() < deadline, f'no {count}. "{text}" in the log:\n{service.log()}'
        time.sleep(0.05)


def busy(conn, calls=50):
    for _ in range(calls):
        hpdtest.managed_objects(conn)
        hpdtest.manager_props(conn)


def busy_and_leave(bus, calls=50):
    """Calls from a client that then leaves the bus: while it stayed it
    would be a watcher, for which the service refreshes its properties
    periodically (test_live.py)."""
    client = bus.connect()
    try:
        busy(client, calls)
    finally:
        client.close_sync(None)


def test_idle_service_does_not_wake_up(service, bus):
    # (a check pending since start-up waits for the calls to stop as well)
    checks = service.log().count(TRIM_LINE) + 1
    busy_and_leave(bus)
    # one memory check a short while after the last call ...
    wait_for_log(service, TRIM_LINE, checks, TRIM_AFTER_S + 3)
    # ... and then nothing at all
    assert quietest_window(service.pid, 3.0, 3) == 0
    assert service.log().count(TRIM_LINE) == checks
    # calls again: one more check after them
    busy_and_leave(bus, 5)
    wait_for_log(service, TRIM_LINE, checks + 1, TRIM_AFTER_S + 3)
    assert quietest_window(service.pid, 3.0, 3) == 0
    assert service.log().count(TRIM_LINE) == checks + 1


def test_a_stream_of_calls_checks_memory_only_after_it(service, conn):
    start = time.monotonic()
    checks = service.log().count(TRIM_LINE)
    while time.monotonic() - start < TRIM_AFTER_S * 2:
        hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'Version')
        time.sleep(0.05)
    # calls never stopped for the quiet period: no check yet
    assert service.log().count(TRIM_LINE) == checks
    wait_for_log(service, TRIM_LINE, checks + 1, TRIM_AFTER_S + 3)


def main_thread_switches(pid):
    with open(f'/proc/{pid}/task/{pid}/status') as f:
        return sum(int(line.split()[1]) for line in f
                   if line.startswith(('voluntary_ctxt_switches', 'nonvoluntary_ctxt_switches')))


def test_calls_in_a_row_answered_by_the_worker_do_not_wake_the_main_thread(service, conn):
    # Peer.Ping never reaches the main thread; neither does the end of
    # each call while the memory check's timer runs (src/bus/hpd-traffic.h)
    calls = 200
    hpdtest.call(conn, MANAGER_PATH, 'org.freedesktop.DBus.Peer', 'Ping')
    before = main_thread_switches(service.pid)
    for _ in range(calls):
        hpdtest.call(conn, MANAGER_PATH, 'org.freedesktop.DBus.Peer', 'Ping')
    woken = main_thread_switches(service.pid) - before
    assert woken < calls // 10, f'the main thread woke {woken} times for {calls} calls'


def test_idle_activated_service_is_silent_until_it_exits(activating_bus, fake_kernel):
    ab = activating_bus(fake_kernel.root, idle_timeout=8)
    conn = ab.connect()
    try:
        hpdtest.call(conn, MANAGER_PATH, PROPS_IFACE, 'GetAll',
                     GLib.Variant('(s)', (MANAGER_IFACE,)), '(a{sv})')
        [pid] = ab.started()
        # the caller leaves: it no longer watches, nor holds the service
        conn.close_sync(None)
        conn = ab.connect()
        time.sleep(TRIM_AFTER_S + 0.5)
        assert quietest_window(pid, 2.0, 2) == 0
        assert ab.wait_exit(pid, 10) == 0
    finally:
        conn.close_sync(None)


# --- constant properties -------------------------------------------------------

def test_constant_properties_are_read_without_a_refresh(start_service, conn, fake_kernel, polkit):
    # EmitsChangedSignal "const" properties are set once, when their object
    # is made: a Get of one reads no kernel file, a Get of another does.
    # No periodic refresh for this watching client (--refresh-interval=0).
    fk = fake_kernel
    if getattr(fk, 'simulator_error', None):
        pytest.skip(f'no simulator: {fk.simulator_error}')
    start_service(fk.root, args=('--refresh-interval=0',))
    opens = []
    for rel in ('proc/meminfo', fk.pool_file(2048, 'nr_hugepages')):
        fk.on_open(rel, lambda _text, rel=rel: opens.append(rel))
    path = page_size_path(2048)
    for _ in range(3):
        for name in ('Version', 'PageSizes', 'BasePageSize', 'NumaNodes'):
            hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, name)
        for name in ('Size', 'Name', 'IsDefault', 'Gigantic', 'CanOvercommit', 'DemoteSize'):
            hpdtest.get(conn, path, PAGE_SIZE_IFACE, name)
    assert opens == []
    hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'MemTotal')
    assert 'proc/meminfo' in opens
    hpdtest.get(conn, path, PAGE_SIZE_IFACE, 'Total')
    assert fk.pool_file(2048, 'nr_hugepages') in opens


# --- the populated zones -------------------------------------------------------

def test_zoneinfo_is_read_again_only_when_memory_changes(start_service, conn, fake_kernel, polkit):
    # proc/zoneinfo makes the kernel walk every zone with its per-CPU
    # statistics: the populated zones behind RecommendedMinFreeKbytes are
    # counted again only when MemTotal or the zones buddyinfo lists change,
    # as every change of them does (src/tunables/hpd-tunables.c). No
    # periodic refresh for this watching client (--refresh-interval=0).
    fk = fake_kernel
    if getattr(fk, 'simulator_error', None):
        pytest.skip(f'no simulator: {fk.simulator_error}')
    start_service(fk.root, args=('--refresh-interval=0',))
    opens = []
    counting = [True]     # the test's own reads of the tree do not count
    fk.on_open('proc/zoneinfo', lambda _text: opens.append(1) if counting[0] else None)

    def recommended():
        value = hpdtest.manager_props(conn)['RecommendedMinFreeKbytes']
        counting[0] = False
        assert value == expected_tunables(fk)['RecommendedMinFreeKbytes']
        counting[0] = True
        return value

    first = recommended()
    assert first > 0
    counted = len(opens)
    assert counted <= 1
    for _ in range(5):
        assert recommended() == first
        assert hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'RecommendedMinFreeKbytes') == first
        hpdtest.managed_objects(conn)
    assert len(opens) == counted

    # memory offlined: the Normal zone is empty now, and MemTotal smaller
    normal = re.compile(r'(zone +Normal\n(?:.*\n)*? +managed +)\d+')
    counting[0] = False
    zoneinfo = fk.read('proc/zoneinfo')
    assert normal.search(zoneinfo)
    fk.write('proc/zoneinfo', normal.sub(r'\g<1>0', zoneinfo, count=1))
    mem_total = int(re.search(r'MemTotal:\s+(\d+) kB', fk.read('proc/meminfo')).group(1))
    set_meminfo(fk, 'MemTotal', mem_total - 1024)
    counting[0] = True
    fewer = recommended()
    assert fewer < first
    assert len(opens) == counted + 1
    assert recommended() == fewer
    assert len(opens) == counted + 1

    # as much onlined again into the Normal zone as offlined elsewhere:
    # MemTotal as it was, the zones buddyinfo lists not
    counting[0] = False
    fk.write('proc/zoneinfo', zoneinfo)
    fk.write('proc/buddyinfo', fk.read('proc/buddyinfo') + 'Node 0, zone  Movable      1      0\n')
    counting[0] = True
    assert recommended() == first
    assert len(opens) == counted + 2
