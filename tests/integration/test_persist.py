# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""The `persist` option and the configuration on the bus: every change can
be saved in the service's own drop-in (etc/hugepagesd/hugepagesd.conf.d/
90-persisted.conf below the fake root), written whole and atomically, in
canonical form, only after authorization and only when the kernel took the
change; ConfiguredState, ConfigurationErrors and Drift show the
configuration and where the kernel differs from it; a later drop-in that
overrides a saved change, or a file that cannot be written, is a Failed
reply that says so; a SIGKILL at any moment leaves a whole file."""

import os
import random
import signal
import subprocess
import time

import pytest

import hpdtest
from hpdtest import ERR_FAILED, ERR_INVALID_ARGS, ERR_NOT_AUTHORIZED, BusError, options
from hpdtunables import ACTION_TUNABLES, manager_call
from gi.repository import GLib

ADMIN = 'etc/hugepagesd/hugepagesd.conf.d'
OWN = f'{ADMIN}/90-persisted.conf'
CONF = 'etc/hugepagesd/hugepagesd.conf'
H2 = 'sys/kernel/mm/hugepages/hugepages-2048kB'
NODE1_2M = 'sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages'
HEADER_LINES = 4   # the comment header and its blank line
PERSIST = {'persist': GLib.Variant('b', True)}


def own_body(fk):
    """The saved file without its comment header, or None."""
    if not fk.exists(OWN):
        return None
    lines = fk.read(OWN).splitlines()
    assert all(line.startswith('#') for line in lines[:HEADER_LINES - 1])
    assert lines[HEADER_LINES - 1] == ''
    return '\n'.join(lines[HEADER_LINES:]) + '\n'



def props(conn):
    return hpdtest.manager_props(conn)


def state(conn):
    return {key: (value, origin)
            for key, value, origin in hpdtest.rows(props(conn)['ConfiguredState'], hpdtest.STATE_KEYS)}


def drift(conn):
    return {key: (configured, actual, message)
            for key, configured, actual, message in hpdtest.rows(props(conn)['Drift'], hpdtest.DRIFT_KEYS)}


def set_min(conn, pages, opts=None, size_kb=2048):
    return hpdtest.pool_call(conn, size_kb, 'SetMinimum', pages, options=opts)


@pytest.fixture
def pools_allowed(polkit):
    polkit.allow(hpdtest.ACTION_POOLS)
    return polkit


# ---- pools ----

@pytest.mark.valgrind
def test_set_minimum_persist_writes_the_request(service, conn, fake_kernel, pools_allowed):
    assert set_min(conn, 8, PERSIST) == 8
    assert fake_kernel.read(f'{H2}/nr_hugepages') == '8\n'
    assert own_body(fake_kernel) == '[pool 2MB]\nminimum = 8\n'
    assert os.stat(fake_kernel.path(OWN)).st_mode & 0o777 == 0o644
    value, origin = state(conn)['pool 2MB minimum']
    assert value == '8'
    assert origin == fake_kernel.path(OWN) + ':6'
    assert drift(conn) == {}


def test_without_persist_nothing_is_saved(service, conn, fake_kernel, pools_allowed):
    assert set_min(conn, 4) == 4
    assert not fake_kernel.exists(OWN)
    assert props(conn)['ConfiguredState'] == []


@pytest.mark.valgrind
def test_dry_run_with_persist_saves_nothing(service, conn, fake_kernel, polkit):
    assert set_min(conn, 4, dict(PERSIST, **options(dry_run=True))) == 4
    assert not fake_kernel.exists(OWN)
    assert polkit.checks() == []


@pytest.mark.valgrind
def test_persist_needs_authorization(service, conn, fake_kernel, polkit):
    with pytest.raises(BusError) as e:
        set_min(conn, 4, PERSIST)
    assert e.value.name == ERR_NOT_AUTHORIZED
    assert not fake_kernel.exists(OWN)
    assert fake_kernel.read(f'{H2}/nr_hugepages') == '0\n'
    check = polkit.checks()[-1]
    assert check.action == hpdtest.ACTION_POOLS
    assert check.details.get('persist') == 'true'


def test_persisting_what_the_kernel_already_has_still_saves(service, conn, fake_kernel,
                                                            pools_allowed):
    fake_kernel.write(f'{H2}/nr_hugepages', 6)
    assert set_min(conn, 6, PERSIST) == 6
    assert own_body(fake_kernel) == '[pool 2MB]\nminimum = 6\n'
    assert len(pools_allowed.checks()) == 1


@pytest.mark.valgrind
def test_a_shortfall_saves_the_request_and_shows_as_drift(service, conn, fake_kernel,
                                                         pools_allowed):
    if not fake_kernel.simulating:
        pytest.skip('needs the fake kernel simulator')
    fake_kernel.limit_pool(2048, 5)
    assert set_min(conn, 8, PERSIST) == 5
    assert own_body(fake_kernel) == '[pool 2MB]\nminimum = 8\n'
    assert drift(conn)['pool 2MB minimum'][:2] == ('8', '5')


@pytest.mark.valgrind
def test_node_pages_and_minimum_replace_each_other(service, conn, fake_kernel, pools_allowed):
    assert set_min(conn, 4, PERSIST) == 4
    assert hpdtest.pool_call(conn, 2048, 'SetNodePages', GLib.Variant('u', 1).unpack(), 3,
                             options=PERSIST) == 3
    assert own_body(fake_kernel) == '[pool 2MB]\nnode1 = 3\n'
    assert set_min(conn, 2, PERSIST) == 2
    assert own_body(fake_kernel) == '[pool 2MB]\nminimum = 2\n'


def test_maximum_and_several_sizes(service, conn, fake_kernel, pools_allowed):
    assert hpdtest.pool_call(conn, 2048, 'SetMaximum', 16, options=PERSIST) == 16
    assert set_min(conn, 1, PERSIST, size_kb=1048576) == 1
    assert own_body(fake_kernel) == ('[pool 2MB]\nmaximum = 16\n\n'
                                     '[pool 1GB]\nminimum = 1\n')
    assert set(state(conn)) == {'pool 2MB maximum', 'pool 1GB minimum'}


def test_saved_pools_come_back_with_apply(service, conn, fake_kernel, pools_allowed, hugepagesd):
    assert set_min(conn, 8, PERSIST) == 8
    fake_kernel.write(f'{H2}/nr_hugepages', 0)
    assert drift(conn)['pool 2MB minimum'][:2] == ('8', '0')
    proc = subprocess.run([hugepagesd, '--kernel-root', fake_kernel.root, '--apply'],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert fake_kernel.read(f'{H2}/nr_hugepages') == '8\n'
    assert drift(conn) == {}


def test_other_settings_of_the_file_are_kept(service, conn, fake_kernel, pools_allowed):
    fake_kernel.write(OWN, '[tunables]\nmin-free-kbytes = 70000\n')
    assert set_min(conn, 2, PERSIST) == 2
    assert own_body(fake_kernel) == ('[pool 2MB]\nminimum = 2\n\n'
                                     '[tunables]\nmin-free-kbytes = 70000\n')


@pytest.mark.valgrind
def test_a_later_dropin_that_overrides_is_reported(service, conn, fake_kernel, pools_allowed):
    fake_kernel.write(f'{ADMIN}/95-admin.conf', '[pool 2MB]\nminimum = 100\n')
    with pytest.raises(BusError) as e:
        set_min(conn, 3, PERSIST)
    assert e.value.name == ERR_FAILED
    assert 'another configuration file overrides it' in e.value.message
    # the kernel change and the file stay: nothing is silently undone
    assert fake_kernel.read(f'{H2}/nr_hugepages') == '3\n'
    assert own_body(fake_kernel) == '[pool 2MB]\nminimum = 3\n'
    assert state(conn)['pool 2MB minimum'][0] == '100'


def test_an_earlier_file_is_overridden_by_the_saved_change(service, conn, fake_kernel,
                                                            pools_allowed):
    fake_kernel.write(CONF, '[pool 2MB]\nminimum = 100\n')
    fake_kernel.write(f'{ADMIN}/10-early.conf', '[pool 2MB]\nmaximum = 200\n')
    assert set_min(conn, 3, PERSIST) == 3
    assert state(conn)['pool 2MB minimum'][0] == '3'


@pytest.mark.valgrind
def test_a_file_that_cannot_be_written_is_reported(service, conn, fake_kernel, pools_allowed):
    # a plain file where the directory should be: mkdir fails
    fake_kernel.write('etc/hugepagesd/placeholder', '')
    with open(fake_kernel.path('etc/hugepagesd/hugepagesd.conf.d'), 'w') as f:
        f.write('not a directory\n')
    with pytest.raises(BusError) as e:
        set_min(conn, 2, PERSIST)
    assert e.value.name == ERR_FAILED
    assert e.value.message.startswith('Applied, but not saved for the next boot')
    assert fake_kernel.read(f'{H2}/nr_hugepages') == '2\n'


@pytest.mark.valgrind
def test_demote_persist_saves_both_pools(service, conn, fake_kernel, pools_allowed):
    if fake_kernel.demote_size_kb(1048576) != 2048:
        pytest.skip('the fake tree has no demotion')
    fake_kernel.write('sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages', 1)
    demoted = hpdtest.pool_call(conn, 1048576, 'Demote', 1, options=PERSIST)
    body = own_body(fake_kernel)
    gig = fake_kernel.read_int('sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages')
    small = fake_kernel.read_int(f'{H2}/nr_hugepages')
    assert body == f'[pool 2MB]\nminimum = {small}\n\n[pool 1GB]\nminimum = {gig}\n'
    assert demoted in (0, 1)


# ---- tunables ----

@pytest.fixture
def tunables_allowed(polkit):
    polkit.allow(ACTION_TUNABLES)
    return polkit


@pytest.mark.valgrind
def test_tunables_persist(service, conn, fake_kernel, tunables_allowed):
    manager_call(conn, 'SetShmMax', 'ta{sv}', (1 << 30, PERSIST))
    manager_call(conn, 'SetMinFreeKbytes', 'ta{sv}', (70000, PERSIST))
    manager_call(conn, 'SetShmGroup', 'sa{sv}', ('0', PERSIST))
    manager_call(conn, 'SetThp', 'a{sv}a{sv}',
                 ({'enabled': GLib.Variant('s', 'never'),
                   'khugepaged/pages_to_scan': GLib.Variant('u', 1024)}, PERSIST))
    assert own_body(fake_kernel) == ('[tunables]\nshmmax = 1GB\nshm-group = 0\n'
                                     'min-free-kbytes = 70000\n\n'
                                     '[thp]\nenabled = never\nkhugepaged/pages_to_scan = 1024\n')
    assert fake_kernel.read('proc/sys/vm/min_free_kbytes') == '70000\n'
    keys = set(state(conn))
    assert {'tunables shmmax', 'tunables min-free-kbytes', 'tunables shm-group',
            'thp enabled', 'thp khugepaged/pages_to_scan'} <= keys


def test_recommended_is_saved_as_the_keyword(service, conn, fake_kernel, tunables_allowed):
    value = manager_call(conn, 'SetRecommendedMinFreeKbytes', 'a{sv}', (PERSIST,), '(t)')[0]
    assert own_body(fake_kernel) == '[tunables]\nmin-free-kbytes = recommended\n'
    assert fake_kernel.read_int('proc/sys/vm/min_free_kbytes') == value
    assert 'tunables min-free-kbytes' not in drift(conn)


def test_recommended_persist_refuses_allow_lower(service, conn, fake_kernel, tunables_allowed):
    before = fake_kernel.snapshot()
    for method in ('SetRecommendedMinFreeKbytes', 'SetRecommendedShmMax'):
        with pytest.raises(BusError) as e:
            manager_call(conn, method, 'a{sv}',
                         (dict(PERSIST, **options(allow_lower=True)),), '(t)')
        assert e.value.name == ERR_INVALID_ARGS
    assert fake_kernel.changes_since(before) == {}
    assert tunables_allowed.checks() == []


def test_zone_movable_persist(service, conn, fake_kernel, tunables_allowed):
    from fakekernel import TREAT_AS_MOVABLE
    fake_kernel.write(TREAT_AS_MOVABLE, 0)
    manager_call(conn, 'SetZoneMovable', 'ba{sv}', (True, PERSIST))
    assert own_body(fake_kernel) == '[tunables]\nzone-movable = yes\n'
    assert fake_kernel.read(TREAT_AS_MOVABLE) == '1\n'
    fake_kernel.write(TREAT_AS_MOVABLE, 0)
    assert drift(conn)['tunables zone-movable'][:2] == ('yes', 'no')


def test_unknown_option_is_still_refused(service, conn, fake_kernel, tunables_allowed):
    with pytest.raises(BusError) as e:
        manager_call(conn, 'SetShmMax', 'ta{sv}', (1 << 30, {'persistent': GLib.Variant('b', True)}))
    assert e.value.name == ERR_INVALID_ARGS
    with pytest.raises(BusError) as e:
        manager_call(conn, 'SetShmMax', 'ta{sv}', (1 << 30, {'persist': GLib.Variant('s', 'yes')}))
    assert e.value.name == ERR_INVALID_ARGS
    assert not fake_kernel.exists(OWN)


@pytest.mark.valgrind
def test_unmount_persist_of_a_foreign_path_is_refused(service, conn, fake_kernel, polkit):
    from fakekernel import Mount
    fake_kernel.write_mountinfo([Mount('mnt/huge')])
    polkit.allow(hpdtest.ACTION_MOUNTS)
    with pytest.raises(BusError) as e:
        manager_call(conn, 'Unmount', 'sa{sv}', (fake_kernel.path('mnt/huge'), PERSIST))
    assert e.value.name == ERR_INVALID_ARGS
    assert polkit.checks() == []


def test_unmount_persist_removes_a_saved_mount_not_mounted(service, conn, fake_kernel, polkit):
    # A saved mount unmounted by hand (or not made since boot): with persist
    # its section is removed and nothing is unmounted; without persist, or
    # once no section is saved, it is not a mount.
    fake_kernel.write(OWN, '# saved\n#\n#\n\n[mount system]\npage-size = 2MB\n\n'
                           '[tunables]\nshmmax = 1GB\n')
    polkit.allow(hpdtest.ACTION_MOUNTS)
    path = fake_kernel.path('var/lib/hugetlbfs/pagesize-2MB')
    assert 'mount system' in state(conn)
    with pytest.raises(BusError) as e:
        manager_call(conn, 'Unmount', 'sa{sv}', (path, {}))
    assert e.value.name == hpdtest.ERR_NOT_MOUNTED
    dry = dict(PERSIST, **{'dry-run': GLib.Variant('b', True)})
    assert manager_call(conn, 'Unmount', 'sa{sv}', (path, dry), '(as)') == ([],)
    assert 'mount system' in state(conn) and polkit.checks() == []
    assert manager_call(conn, 'Unmount', 'sa{sv}', (path, PERSIST), '(as)') == ([],)
    assert own_body(fake_kernel) == '[tunables]\nshmmax = 1GB\n'
    assert 'mount system' not in state(conn)
    [check] = polkit.checks()
    assert check.action == hpdtest.ACTION_MOUNTS and check.details['persist'] == 'true'
    with pytest.raises(BusError) as e:
        manager_call(conn, 'Unmount', 'sa{sv}', (path, PERSIST))
    assert e.value.name == hpdtest.ERR_NOT_MOUNTED
    assert len(polkit.checks()) == 1


# ---- the configuration on the bus ----

@pytest.mark.valgrind
def test_configured_state_and_errors(service, conn, fake_kernel):
    fake_kernel.write(CONF, '[pool 2MB]\nminimum = 4\nnode1 = 2\n'
                           '[mount group 0]\npage-size = 2MB\nmax-size = 50%\n'
                           '[tunables]\nshmmax = recommended\nzone-movable = no\n'
                           '[thp]\nenabled = madvise\n'
                           'bogus line\n')
    conf = fake_kernel.path(CONF)
    st = state(conn)
    assert st['pool 2MB minimum'] == ('4', f'{conf}:2')
    assert st['pool 2MB node1'] == ('2', f'{conf}:3')
    assert st['mount group 0'] == ('page-size=2MB max-size=50%', f'{conf}:4')
    assert st['tunables shmmax'] == ('recommended', f'{conf}:8')
    assert st['thp enabled'] == ('madvise', f'{conf}:11')
    errors = props(conn)['ConfigurationErrors']
    assert len(errors) == 1 and errors[0].startswith(f'{conf}:12: ')


def test_drift_follows_the_kernel(service, conn, fake_kernel):
    fake_kernel.write(CONF, '[pool 2MB]\nminimum = 4\n[tunables]\nmin-free-kbytes = 70000\n')
    d = drift(conn)
    assert d['pool 2MB minimum'][:2] == ('4', '0')
    assert d['pool 2MB minimum'][2] == 'Pages in the 2MB pool: 0, the configuration asks for 4'
    assert d['tunables min-free-kbytes'][0] == '70000'
    fake_kernel.write(f'{H2}/nr_hugepages', 4)
    fake_kernel.write('proc/sys/vm/min_free_kbytes', 70000)
    assert drift(conn) == {}
    # another program changes the pool behind the service's back
    fake_kernel.write(f'{H2}/nr_hugepages', 9)
    assert drift(conn)['pool 2MB minimum'][:2] == ('4', '9')


@pytest.mark.valgrind
def test_drift_of_sizes_nodes_and_settings_the_kernel_lacks(service, conn, fake_kernel):
    fake_kernel.write(CONF, '[pool 16GB]\nminimum = 1\n[pool 2MB]\nnode7 = 1\n'
                           '[thp]\nhugepages-8192kB/enabled = always\n')
    d = drift(conn)
    # a page size the kernel lacks is an error of the section (test_config_truth)
    assert 'pool 16GB minimum' not in d
    [error] = hpdtest.manager_props(conn)['ConfigurationErrors']
    assert error.startswith(f'{fake_kernel.path(CONF)}:1: ') and 'no 16GB huge pages' in error
    assert 'no NUMA node 7' in d['pool 2MB node7'][2]
    assert d['thp hugepages-8192kB/enabled'][1] == ''


def test_node_counts_decide_over_the_minimum(service, conn, fake_kernel):
    fake_kernel.write(CONF, '[pool 2MB]\nminimum = 10\nnode1 = 2\n')
    fake_kernel.write(NODE1_2M, 2)
    fake_kernel.write(f'{H2}/nr_hugepages', 2)
    assert 'pool 2MB minimum' not in drift(conn)
    assert 'pool 2MB node1' not in drift(conn)


def test_the_configuration_is_readable_by_anyone(service, conn, fake_kernel, run_python_as,
                                                 NOBODY):
    fake_kernel.write(CONF, '[pool 2MB]\nminimum = 4\n')
    result = run_python_as(NOBODY, [('get', hpdtest.MANAGER_PATH, hpdtest.MANAGER_IFACE, name)
                                     for name in ('ConfiguredState', 'Drift')])
    assert hpdtest.rows(result[0]['ok'], hpdtest.STATE_KEYS) == \
        [('pool 2MB minimum', '4', fake_kernel.path(CONF) + ':2')]
    assert hpdtest.rows(result[1]['ok'], hpdtest.DRIFT_KEYS)[0][:3] == ('pool 2MB minimum', '4', '0')


# ---- crashes ----

@pytest.mark.valgrind
def test_stale_temporary_files_are_removed_at_start(start_service, fake_kernel, polkit):
    fake_kernel.write(f'{ADMIN}/90-persisted.conf.AB12cd', '[pool 2MB]\nmini')
    fake_kernel.write(f'{ADMIN}/keep.conf.AB12cd', 'not ours\n')
    start_service(fake_kernel.root)
    assert not fake_kernel.exists(f'{ADMIN}/90-persisted.conf.AB12cd')
    assert fake_kernel.exists(f'{ADMIN}/keep.conf.AB12cd')


def round_started(fk, round_):
    try:
        body = own_body(fk)
    except (AssertionError, IndexError, FileNotFoundError):
        return False
    return body is not None and int(body.split('= ')[1]) >= round_ * 100


def test_sigkill_while_persisting_never_leaves_a_torn_file(start_service, bus, fake_kernel,
                                                          pools_allowed, hugepagesd):
    """Kill the service at random moments while clients keep persisting
    changes: the file is always absent or one complete version."""
    rng = random.Random(5)
    written = set()
    seen = set()
    for round_ in range(12):
        svc = start_service(fake_kernel.root)
        conn = bus.connect()
        for i in range(30):
            pages = round_ * 100 + i
            params = GLib.Variant('(ta{sv})', (pages, PERSIST))
            conn.call(hpdtest.BUS_NAME, hpdtest.page_size_path(2048), hpdtest.PAGE_SIZE_IFACE,
                      'SetMinimum', params, None, 0, 10000, None, None, None)
            written.add(pages)
        # kill once this round's writes have begun, at a random moment among them
        ctx = GLib.MainContext.default()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not round_started(fake_kernel, round_):
            ctx.iteration(False)
        deadline = time.monotonic() + rng.uniform(0.0, 0.03)
        while time.monotonic() < deadline:
            ctx.iteration(False)
        os.kill(svc.pid, signal.SIGKILL)
        svc.proc.wait(timeout=10)
        conn.close_sync(None)
        # A kill between open(O_TRUNC) and write() empties the fake tree's
        # pool file; sysfs has no such state, so put a value back.
        try:
            fake_kernel.read_int(f'{H2}/nr_hugepages')
        except ValueError:
            fake_kernel.write(f'{H2}/nr_hugepages', 0)
        body = own_body(fake_kernel)
        if body is not None:
            assert body.startswith('[pool 2MB]\nminimum = ')
            pages = int(body.splitlines()[1].split(' = ')[1])
            assert pages in written
            assert body == f'[pool 2MB]\nminimum = {pages}\n'
            seen.add(pages)
        # whatever the kill left, the next start cleans it up
    # the kills really fell among the writes
    assert len(seen) >= 8, seen
    svc = start_service(fake_kernel.root)
    leftovers = [n for n in os.listdir(fake_kernel.path(ADMIN)) if n != '90-persisted.conf']
    assert leftovers == []


@pytest.mark.valgrind
def test_explain_reports_bad_lines_and_drift(service, conn, fake_kernel):
    from hpdtunables import explain
    fake_kernel.write(CONF, '[pool 2MB]\nminimum = 4\nnonsense\n')
    entries = {(sev, id_): (msg, fix) for sev, id_, msg, fix in explain(conn)}
    msg, fix = entries[('warning', 'config-errors')]
    assert f'{fake_kernel.path(CONF)}:3' in msg
    msg, fix = entries[('warning', 'config-drift')]
    assert msg.startswith('pool 2MB minimum differs from the configuration (pool 2MB minimum = 4)')
    fake_kernel.write(f'{H2}/nr_hugepages', 4)
    fake_kernel.write(CONF, '[pool 2MB]\nminimum = 4\n')
    assert not any(id_.startswith('config-') for _s, id_, _m, _f in explain(conn))
