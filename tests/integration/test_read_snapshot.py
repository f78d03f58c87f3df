# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""GetManagedObjects and the Manager's GetAll answered in GDBus's worker
thread from a snapshot (src/bus/hpd-read-snapshot.h): it is used while
nothing it was made from changed, its reply is the very bytes the main
thread's reply has, and a change by anyone (a raw write, SetMinimum, the
configuration, a claim, the mount table, the boot hook's files, the GRUB
drop-in, a mount's root) is seen by the very next call. The service logs,
when it makes a snapshot, how many calls snapshots of that kind answered so
far: the tests read that count."""

import os

import re
import time

import pytest

import hpdtest
from hpdtest import BusError, MANAGER_PATH, PAGE_SIZE_IFACE, page_size_path
from fakekernel import Mount
from gi.repository import Gio, GLib

# HPD_CONFIG_SETTLE_US in src/config/hpd-config-cache.h, and a margin: the
# caches trust nothing younger, and no snapshot is made before
SETTLE_S = 3.0 + 0.5
MADE = re.compile(r'GetManagedObjects snapshot made \(\d+ kernel inputs; (\d+) calls answered')
MADE_MANAGER = re.compile(r'Manager GetAll snapshot made \(\d+ kernel inputs; (\d+) calls answered')
NO_MANAGER = 'No Manager GetAll snapshot: '
MANAGER_IFACE = 'org.hugepages.Manager'
PROPERTIES_IFACE = 'org.freedesktop.DBus.Properties'
OM_IFACE = 'org.freedesktop.DBus.ObjectManager'
CONF = 'etc/hugepagesd/hugepagesd.conf'
P2M = page_size_path(2048)
# hpd-memory.c, once the traffic says every call was answered
QUIET_LINE = 'Calls stopped:'


# Where the fake tree is: below the temporary directory, where every
# account may add entries, the paths of the boot hook, the GRUB drop-in and
# the mounts' roots are stat()ed at every call; below /run, a way only root
# may change as the real root's paths are, a watch takes them
# (hpd_kernel_inputs_watch_paths()). The log line of each snapshot made
# counts both.
TREES = [pytest.param('stat', id='stat'),
         pytest.param('watch', id='watch', marks=pytest.mark.fake_kernel(parent='/run'))]
PATHS = re.compile(r'Manager GetAll snapshot made .*; (\d+) paths watched, (\d+) left to stat')


def assert_paths_checked_by(tree, service):
    counts = [(int(w), int(s)) for w, s in PATHS.findall(service.log())]
    assert counts, 'no Manager GetAll snapshot made'
    for watched, stated in counts:
        if tree == 'watch':
            assert (watched > 0, stated) == (True, 0), service.log()[-3000:]
        else:
            assert (watched, stated > 0) == (0, True), service.log()[-3000:]


def made(service, pattern=MADE):
    return [int(m.group(1)) for m in pattern.finditer(service.log())]


def raw_managed_objects(conn):
    """The reply's body as sent: its serialised bytes keep the order."""
    return conn.call_sync(hpdtest.BUS_NAME, MANAGER_PATH, OM_IFACE, 'GetManagedObjects', None,
                          GLib.VariantType('(a{oa{sa{sv}}})'), Gio.DBusCallFlags.NONE, 10000,
                          None)


def drop(conn):
    """A call that is no read (a property is never written: an error from
    GDBus): the service drops its snapshot."""
    with pytest.raises(BusError):
        hpdtest.call(conn, P2M, 'org.freedesktop.DBus.Properties', 'Set',
                     GLib.Variant('(ssv)', (PAGE_SIZE_IFACE, 'Total', GLib.Variant('t', 1))))


def answered(conn, service):
    """How many calls snapshots answered: a dropped snapshot, one call the
    main thread answers, and the log line of the snapshot it then makes."""
    before = len(made(service))
    drop(conn)
    reply = raw_managed_objects(conn)
    hpdtest.iterate_until(lambda: len(made(service)) > before)
    return made(service)[-1], reply


def raw_manager(conn):
    return conn.call_sync(hpdtest.BUS_NAME, MANAGER_PATH, PROPERTIES_IFACE, 'GetAll',
                          GLib.Variant('(s)', (MANAGER_IFACE,)), GLib.VariantType('(a{sv})'),
                          Gio.DBusCallFlags.NONE, 10000, None)


def manager(conn):
    return raw_manager(conn).unpack()[0]


def manager_answered(conn, service):
    """answered(), for the Manager's GetAll."""
    before = len(made(service, MADE_MANAGER))
    drop(conn)
    reply = raw_manager(conn)
    hpdtest.iterate_until(lambda: len(made(service, MADE_MANAGER)) > before)
    return made(service, MADE_MANAGER)[-1], reply


def pool(conn):
    return hpdtest.managed_objects(conn)[P2M][PAGE_SIZE_IFACE]


@pytest.fixture
def settled(service, conn):
    time.sleep(SETTLE_S)
    answered(conn, service)
    return service


@pytest.fixture
def manager_settled(service, conn):
    time.sleep(SETTLE_S)
    manager_answered(conn, service)
    return service


def test_calls_are_answered_from_the_snapshot_with_the_same_bytes(settled, conn):
    start, slow = answered(conn, settled)
    quiet = settled.log().count(QUIET_LINE)
    fast = [raw_managed_objects(conn) for _ in range(20)]
    # the traffic saw each reply: the calls stopped, the memory trim looks
    hpdtest.iterate_until(lambda: settled.log().count(QUIET_LINE) > quiet, timeout=10)
    end, _ = answered(conn, settled)
    assert end - start == 20
    for reply in fast:
        assert reply.get_data_as_bytes().get_data() == slow.get_data_as_bytes().get_data()


def test_snapshots_are_let_go_when_the_calls_stop(settled, conn):
    # hpd-daemon.c's release_caches: what a snapshot holds (on a machine of
    # many nodes, hundreds of kB) is not kept through a quiet time; the next
    # read makes one anew
    before = len(made(settled))
    quiet = settled.log().count(QUIET_LINE)
    first = raw_managed_objects(conn)
    assert len(made(settled)) == before
    hpdtest.iterate_until(lambda: settled.log().count(QUIET_LINE) > quiet, timeout=10)
    again = raw_managed_objects(conn)
    hpdtest.iterate_until(lambda: len(made(settled)) > before)
    assert again.get_data_as_bytes().get_data() == first.get_data_as_bytes().get_data()


def test_raw_write_is_seen_by_the_next_call(settled, conn, fake_kernel):
    fk = fake_kernel
    start, _ = answered(conn, settled)
    for value in (5, 6, 6, 2):
        fk.write(fk.pool_file(2048, 'nr_hugepages'), value)
        assert pool(conn)['Total'] == value
        assert pool(conn)['Total'] == value
    end, _ = answered(conn, settled)
    # the second read of each value, bar the first (6 twice), came from one
    assert end - start >= 3


def test_set_minimum_reply_then_read_sees_it(settled, conn, polkit):
    polkit.allow(hpdtest.ACTION_POOLS)
    start, _ = answered(conn, settled)
    for pages in (3, 7, 1):
        pool(conn)
        assert hpdtest.pool_call(conn, 2048, 'SetMinimum', pages) == pages
        props = pool(conn)
        assert (props['Minimum'], props['Target'], props['Base']) == (pages, pages, pages)
    end, _ = answered(conn, settled)
    assert end > start


def test_configuration_edit_is_seen(settled, conn, fake_kernel):
    start, _ = answered(conn, settled)
    for pages in (4, 9):
        pool(conn)
        fake_kernel.write(CONF, f'[pool 2MB]\nminimum = {pages}\n')
        assert pool(conn)['Base'] == pages
        time.sleep(SETTLE_S)
        assert pool(conn)['Base'] == pages
        assert pool(conn)['Base'] == pages
    end, _ = answered(conn, settled)
    assert end > start


def test_claim_is_seen(settled, conn, polkit):
    polkit.allow(hpdtest.ACTION_POOLS)
    start, _ = answered(conn, settled)
    assert pool(conn)['Target'] == 0
    params = GLib.Variant('(sta{sv})', ('postgresql', 2, hpdtest.options()))
    hpdtest.call(conn, P2M, PAGE_SIZE_IFACE, 'Claim', params, '(t)')
    assert pool(conn)['Target'] == 2
    assert pool(conn)['Target'] == 2
    # the claims' directory trusted again: from snapshots, still right
    time.sleep(SETTLE_S)
    for _ in range(3):
        assert pool(conn)['Target'] == 2
    end, _ = answered(conn, settled)
    assert end > start


def test_mount_change_is_seen(settled, conn, fake_kernel):
    start, _ = answered(conn, settled)
    for mounts in ([Mount('/mnt/fresh')], [], [Mount('/mnt/a'), Mount('/mnt/b')]):
        pool(conn)
        fake_kernel.write_mountinfo(mounts)
        assert set(pool(conn)['Mounts']) == {m.path for m in mounts}
        assert set(pool(conn)['Mounts']) == {m.path for m in mounts}
    end, _ = answered(conn, settled)
    assert end > start


def test_claim_file_written_by_a_package_is_seen(settled, conn, fake_kernel):
    start, _ = answered(conn, settled)
    assert pool(conn)['Target'] == 0
    fake_kernel.write('etc/hugepagesd/claims.d/postgresql.conf', '[2MB]\npages = 3\n')
    assert pool(conn)['Target'] == 3
    time.sleep(SETTLE_S)
    for _ in range(3):
        assert pool(conn)['Target'] == 3
    end, _ = answered(conn, settled)
    assert end > start


def test_node_target_is_seen(settled, conn, fake_kernel):
    """Nodes' target comes from the configuration and the claims, not from
    the kernel's counters, which stay as they are: an edit of either is in
    the very next reply, and in the snapshots made from then on."""
    def targets():
        return {r['node']: r['target'] for r in pool(conn)['Nodes']}

    start, _ = answered(conn, settled)
    assert set(targets().values()) == {0}
    fake_kernel.write(CONF, '[pool 2MB]\nnode1 = 3\n')
    assert targets()[1] == 3
    time.sleep(SETTLE_S)
    for _ in range(3):
        assert targets()[1] == 3
    fake_kernel.write('etc/hugepagesd/claims.d/vm.conf', '[2MB node1]\npages = 2\n')
    assert targets()[1] == 3 + 2
    time.sleep(SETTLE_S)
    for _ in range(3):
        assert targets()[1] == 3 + 2
    end, _ = answered(conn, settled)
    assert end > start


def test_change_of_memory_alone_is_seen(settled, conn, fake_kernel, polkit):
    """SetMinimum that leaves every kernel file as it was (the pool already
    holds the target) and only records the base, while reads come all the
    time it waits for polkit: no snapshot made before its reply answers
    after it."""
    polkit.allow(hpdtest.ACTION_POOLS)
    fk = fake_kernel
    assert hpdtest.pool_call(conn, 2048, 'SetMinimum', 3) == 3
    params = GLib.Variant('(sta{sv})', ('postgresql', 2, hpdtest.options()))
    hpdtest.call(conn, P2M, PAGE_SIZE_IFACE, 'Claim', params, '(t)')
    fk.write(fk.pool_file(2048, 'nr_hugepages'), 7)
    time.sleep(SETTLE_S)
    start, _ = answered(conn, settled)
    props = pool(conn)
    assert (props['Base'], props['Target'], props['Total']) == (3, 5, 7)
    end, _ = answered(conn, settled)
    assert end == start + 1

    polkit.set_delay(0.5)
    box = {}

    def done(source, result):
        box['reply'] = source.call_finish(result).unpack()
    conn.call(hpdtest.BUS_NAME, P2M, PAGE_SIZE_IFACE, 'SetMinimum',
              GLib.Variant('(ta{sv})', (5, hpdtest.options())), GLib.VariantType('(t)'),
              Gio.DBusCallFlags.NONE, 10000, None, done)
    while 'reply' not in box:
        props = pool(conn)
        if 'reply' not in box:
            assert props['Base'] in (3, 5)
        GLib.MainContext.default().iteration(False)
        time.sleep(0.01)
    props = pool(conn)
    assert fk.read_int(fk.pool_file(2048, 'nr_hugepages')) == 7
    assert (props['Base'], props['Target'], props['Total']) == (5, 7, 7)


# --- the Manager's GetAll ---------------------------------------------------------


def test_manager_getall_is_answered_from_the_snapshot_with_the_same_bytes(manager_settled, conn):
    start, slow = manager_answered(conn, manager_settled)
    fast = [raw_manager(conn) for _ in range(20)]
    end, _ = manager_answered(conn, manager_settled)
    assert end - start == 20
    for reply in fast:
        assert reply.get_data_as_bytes().get_data() == slow.get_data_as_bytes().get_data()
    # the same values a Get of each gives
    values = slow.unpack()[0]
    for name in ('MinFreeKbytes', 'ThpSettings', 'ApplyAtBoot', 'BootDropIn', 'Mounts'):
        got = hpdtest.call(conn, MANAGER_PATH, PROPERTIES_IFACE, 'Get',
                           GLib.Variant('(ss)', (MANAGER_IFACE, name)), '(v)')[0]
        assert got == values[name]


def test_manager_raw_tunable_write_is_seen(manager_settled, conn, fake_kernel):
    fk = fake_kernel
    start, _ = manager_answered(conn, manager_settled)
    for value in (70000, 70001, 70001, 68000):
        fk.write('proc/sys/vm/min_free_kbytes', value)
        assert manager(conn)['MinFreeKbytes'] == value
        assert manager(conn)['MinFreeKbytes'] == value
    end, _ = manager_answered(conn, manager_settled)
    assert end - start >= 3


def test_manager_free_memory_moving_keeps_the_snapshot(manager_settled, conn, fake_kernel):
    """MemFree and the free blocks change all the time; the Manager uses
    MemTotal and the zones' names only, so its snapshot stays."""
    fk = fake_kernel
    meminfo = fk.path('proc/meminfo')
    buddyinfo = fk.path('proc/buddyinfo')
    start, _ = manager_answered(conn, manager_settled)
    for i in range(5):
        with open(meminfo) as f:
            text = f.read()
        text = re.sub(r'^(MemFree:\s+)(\d+)', lambda m: m.group(1) + str(int(m.group(2)) - 1 - i),
                      text, flags=re.M)
        fk.write('proc/meminfo', text)
        with open(buddyinfo) as f:
            lines = f.read().splitlines()
        lines[0] = lines[0].rstrip() + ' '
        fk.write('proc/buddyinfo', '\n'.join(lines) + '\n')
        manager(conn)
    end, _ = manager_answered(conn, manager_settled)
    assert end - start == 5
    # and MemTotal is not in that part
    with open(meminfo) as f:
        text = f.read()
    total = int(re.search(r'^MemTotal:\s+(\d+)', text, re.M).group(1))
    fk.write('proc/meminfo', re.sub(r'^MemTotal:\s+\d+', 'MemTotal:       %d' % (total - 1024),
                                    text, flags=re.M))
    assert manager(conn)['MemTotal'] == (total - 1024) * 1024


@pytest.mark.parametrize('tree', TREES)
@pytest.mark.parametrize('kinds', [
    ('sysvinit-disabled', 'sysvinit-enabled', None, 'sysvinit-enabled'),
    ('systemd-missing', 'systemd-disabled', 'systemd-enabled', 'systemd-disabled'),
])
def test_manager_boot_hook_change_is_seen(manager_settled, conn, fake_kernel, kinds, tree):
    start, _ = manager_answered(conn, manager_settled)
    for kind in kinds:
        manager(conn)
        fake_kernel.write_boot_hook(kind)
        enabled = kind is not None and kind.endswith('-enabled')
        assert manager(conn)['ApplyAtBoot']['enabled'] is enabled
        assert manager(conn)['ApplyAtBoot']['enabled'] is enabled
    # the files settled: from snapshots, still right
    time.sleep(SETTLE_S)
    for _ in range(3):
        assert manager(conn)['ApplyAtBoot']['enabled'] is enabled
    end, _ = manager_answered(conn, manager_settled)
    assert end - start >= 2
    assert_paths_checked_by(tree, manager_settled)


@pytest.mark.parametrize('tree', TREES)
def test_manager_unit_masked_behind_its_back_is_seen(manager_settled, conn, fake_kernel, tree):
    fake_kernel.write_boot_hook('systemd-enabled')
    time.sleep(SETTLE_S)
    start, _ = manager_answered(conn, manager_settled)
    assert manager(conn)['ApplyAtBoot']['enabled'] is True
    unit = fake_kernel.path('lib/systemd/system/hugepagesd-apply.service')
    os.unlink(unit)
    os.symlink('/dev/null', unit)
    assert manager(conn)['ApplyAtBoot']['enabled'] is False
    assert 'masked' in manager(conn)['ApplyAtBoot']['message']
    time.sleep(SETTLE_S)
    end, _ = manager_answered(conn, manager_settled)
    assert end > start
    assert_paths_checked_by(tree, manager_settled)


@pytest.mark.parametrize('tree', TREES)
def test_manager_drop_in_rewritten_in_place_is_seen(manager_settled, conn, fake_kernel, tree):
    """The same size, written over in place: its times move, and a state
    taken before the write no longer matches."""
    dropin = 'etc/default/grub.d/hugepagesd.cfg'
    os.makedirs(fake_kernel.path('etc/default/grub.d'), exist_ok=True)
    fake_kernel.write(dropin, 'A' * 40 + '\n')
    time.sleep(SETTLE_S)
    start, _ = manager_answered(conn, manager_settled)
    assert manager(conn)['BootDropIn']['contents'] == 'A' * 40 + '\n'
    for letter in 'BC':
        with open(fake_kernel.path(dropin), 'r+') as f:
            f.write(letter * 40 + '\n')
        assert manager(conn)['BootDropIn']['contents'] == letter * 40 + '\n'
        assert manager(conn)['BootDropIn']['contents'] == letter * 40 + '\n'
    # no longer readable by others: no longer shown
    os.chmod(fake_kernel.path(dropin), 0o600)
    assert 'contents' not in manager(conn)['BootDropIn']
    time.sleep(SETTLE_S)
    for _ in range(3):
        assert 'contents' not in manager(conn)['BootDropIn']
    end, _ = manager_answered(conn, manager_settled)
    assert end - start >= 2
    assert_paths_checked_by(tree, manager_settled)


@pytest.mark.parametrize('tree', TREES)
def test_manager_mount_root_chmod_is_seen(service, conn, fake_kernel, tree):
    """A mount's root is no kernel file: its mode and owner come from
    stat(), which a chmod changes without any mount event."""
    rel = 'var/lib/hugetlbfs/pagesize-2MB'
    os.makedirs(fake_kernel.path(rel))
    os.chmod(fake_kernel.path(rel), 0o700)
    fake_kernel.write_mountinfo([Mount(fake_kernel.path(rel))])

    def mode():
        (attrs,) = [a for path, a in manager(conn)['Mounts'] if path == fake_kernel.path(rel)]
        assert attrs['root-known']
        return attrs['mode']

    time.sleep(SETTLE_S)
    start, _ = manager_answered(conn, service)
    assert mode() == 0o700
    for bits in (0o750, 0o1777):
        os.chmod(fake_kernel.path(rel), bits)
        assert mode() == bits
        assert mode() == bits
    time.sleep(SETTLE_S)
    for _ in range(3):
        assert mode() == 0o1777
    end, _ = manager_answered(conn, service)
    assert end - start >= 2
    assert_paths_checked_by(tree, service)


def test_manager_with_a_group_to_look_up_is_answered_by_the_main_thread(service, conn, fake_kernel):
    """The group database may come from the network, and no stat() follows
    it: with a shm group in the configuration the Manager's GetAll is made
    by the main thread every time, and stays exactly as fresh."""
    fake_kernel.write(CONF, '[tunables]\nshm-group = 0\n')
    time.sleep(SETTLE_S)
    before = len(made(service, MADE_MANAGER))
    for value in (70000, 70002):
        fake_kernel.write('proc/sys/vm/min_free_kbytes', value)
        assert manager(conn)['MinFreeKbytes'] == value
        assert manager(conn)['MinFreeKbytes'] == value
    hpdtest.iterate_until(lambda: 'user and group databases' in service.log())
    assert len(made(service, MADE_MANAGER)) == before
    # taken out again: snapshots again
    fake_kernel.write(CONF, '')
    time.sleep(SETTLE_S)
    start, _ = manager_answered(conn, service)
    manager(conn)
    end, _ = manager_answered(conn, service)
    assert end == start + 1


# --- a page size's GetAll, from the GetManagedObjects snapshot -------------------


def raw_pool_getall(conn, path=P2M, iface=PAGE_SIZE_IFACE):
    return conn.call_sync(hpdtest.BUS_NAME, path, PROPERTIES_IFACE, 'GetAll',
                          GLib.Variant('(s)', (iface,)), GLib.VariantType('(a{sv})'),
                          Gio.DBusCallFlags.NONE, 10000, None)


def test_page_size_getall_is_answered_from_the_snapshot_with_the_same_bytes(settled, conn):
    start, _ = answered(conn, settled)
    drop(conn)
    slow = raw_pool_getall(conn)          # GDBus's own reply, from the main thread
    fast = [raw_pool_getall(conn) for _ in range(20)]
    end, _ = answered(conn, settled)
    assert end - start == 20
    for reply in fast:
        assert reply.get_data_as_bytes().get_data() == slow.get_data_as_bytes().get_data()
    assert slow.unpack()[0] == pool(conn)


def test_page_size_getall_sees_a_raw_write(settled, conn, fake_kernel):
    fk = fake_kernel
    start, _ = answered(conn, settled)
    for value in (5, 6, 6, 2):
        fk.write(fk.pool_file(2048, 'nr_hugepages'), value)
        assert raw_pool_getall(conn).unpack()[0]['Total'] == value
        assert raw_pool_getall(conn).unpack()[0]['Total'] == value
    end, _ = answered(conn, settled)
    assert end - start >= 3


@pytest.mark.parametrize('path,iface', [
    (hpdtest.page_size_path(3), PAGE_SIZE_IFACE),        # no such page size
    (P2M, MANAGER_IFACE),                                # not its interface
    (MANAGER_PATH, PAGE_SIZE_IFACE),
])
def test_other_getalls_get_gdbus_own_answer(settled, conn, path, iface):
    answered(conn, settled)
    for _ in range(2):
        with pytest.raises(GLib.Error) as first:
            raw_pool_getall(conn, path, iface)
        assert 'org.freedesktop.DBus.Error' in first.value.message
