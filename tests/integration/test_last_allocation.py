# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""LastAllocation: what the service's last change of a pool asked of the
kernel, what it got, when and how long it took, on a fake kernel that gives
less than asked (fk.limit_pool); announced with PropertiesChanged, kept
across a restart (under /run), and printed by `hugepagesctl metrics`."""

import json
import os
import subprocess
import time

import pytest

import hpdtest
from conftest import wait_for
from hpdtest import ACTION_POOLS, PAGE_SIZE_IFACE, page_size_path, pool_call
from fakekernel import NodePool, Pool
from gi.repository import Gio, GLib

SMALL = 2048
POOLS = {SMALL: Pool(total=2, free=2, overcommit=0,
                     nodes={0: NodePool(1, 1, 0), 1: NodePool(1, 1, 0)})}
PROPS_IFACE = 'org.freedesktop.DBus.Properties'


@pytest.fixture
def fk(fake_kernel):
    if not fake_kernel.simulating:
        pytest.skip('the fake kernel simulator could not start: '
                    + getattr(fake_kernel, 'simulator_error', '?'))
    return fake_kernel


def last(conn):
    return hpdtest.get(conn, page_size_path(SMALL), PAGE_SIZE_IFACE, 'LastAllocation')


def metrics(builddir, bus):
    proc = subprocess.run([os.path.join(builddir, 'client', 'hugepagesctl'), 'metrics'],
                          env=dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus.address),
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def samples(text, family):
    """{labels text: value} of one family's samples."""
    out = {}
    for line in text.splitlines():
        if line.startswith(family + '{') or line.startswith(family + ' '):
            name_labels, value = line.rsplit(' ', 1)
            out[name_labels[len(family):]] = float(value)
    return out


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind
def test_a_shortfall_is_recorded_and_announced(service, bus, conn, fk, polkit):
    polkit.allow(ACTION_POOLS)
    assert last(conn) == {}
    listener = bus.connect()
    seen = []

    def on_signal(_conn, _sender, path, _iface, _signal, params):
        iface, changed, _invalidated = params.unpack()
        if path == page_size_path(SMALL) and 'LastAllocation' in changed:
            seen.append(changed['LastAllocation'])

    sub = listener.signal_subscribe(hpdtest.BUS_NAME, PROPS_IFACE, 'PropertiesChanged', None,
                                    None, Gio.DBusSignalFlags.NONE, on_signal)
    try:
        hpdtest.call(listener, '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'GetId',
                     None, '(s)', dest='org.freedesktop.DBus')
        fk.limit_pool(SMALL, 3)          # the kernel finds memory for 3 pages only
        before = time.time()
        start = time.monotonic()
        assert pool_call(conn, SMALL, 'SetMinimum', 8) == 3
        took = time.monotonic() - start
        after = time.time()
        ctx = GLib.MainContext.default()
        deadline = time.monotonic() + 5
        while not seen and time.monotonic() < deadline:
            if not ctx.iteration(False):
                time.sleep(0.005)
    finally:
        listener.signal_unsubscribe(sub)
        listener.close_sync(None)

    got = last(conn)
    assert seen and seen[-1] == got
    assert {k: got[k] for k in ('requested', 'achieved', 'shortfall', 'mode')} == \
        {'requested': 8, 'achieved': 3, 'shortfall': 5, 'mode': 'plain'}
    assert 'node' not in got
    assert got['writes'] >= 1
    assert before * 1e6 - 1e6 <= got['ended-usec'] <= after * 1e6 + 1e6
    assert 0 < got['duration-usec'] <= took * 1e6
    # saved by the worker once the reply is on its way (before the next
    # change or an exit), so it may come a moment after the reply
    wait_for(lambda: fk.exists('run/hugepagesd/last-allocation') and
             fk.read('run/hugepagesd/last-allocation').startswith('[2MB]\n'),
             5, 'the last allocation in /run')

    # a change that is met: no shortfall any more
    fk.limit_pool(SMALL, None)
    assert pool_call(conn, SMALL, 'SetMinimum', 6) == 6
    got = last(conn)
    assert (got['requested'], got['achieved'], got['shortfall']) == (6, 6, 0)


@pytest.mark.fake_kernel(pools=POOLS)
def test_metrics_print_the_last_allocation(service, bus, conn, fk, polkit, builddir):
    polkit.allow(ACTION_POOLS)
    text = metrics(builddir, bus)
    # the families are there before any allocation, without samples
    for family in ('duration_seconds', 'requested_pages', 'achieved_pages', 'shortfall_pages',
                   'timestamp_seconds'):
        assert f'# TYPE hugepages_last_allocation_{family} gauge\n' in text
        assert samples(text, 'hugepages_last_allocation_' + family) == {}

    fk.limit_pool(SMALL, 3)
    assert pool_call(conn, SMALL, 'SetMinimum', 8) == 3
    got = last(conn)
    text = metrics(builddir, bus)
    labels = '{page_size_bytes="2097152"}'
    assert samples(text, 'hugepages_last_allocation_requested_pages') == {labels: 8}
    assert samples(text, 'hugepages_last_allocation_achieved_pages') == {labels: 3}
    assert samples(text, 'hugepages_last_allocation_shortfall_pages') == {labels: 5}
    assert samples(text, 'hugepages_last_allocation_duration_seconds')[labels] == \
        pytest.approx(got['duration-usec'] / 1e6, abs=1e-6)
    assert samples(text, 'hugepages_last_allocation_timestamp_seconds')[labels] == \
        pytest.approx(got['ended-usec'] / 1e6, abs=1e-3)

    # status --json (and so Ansible's info module) carries it per pool
    proc = subprocess.run([os.path.join(builddir, 'client', 'hugepagesctl'), 'status', '--json'],
                          env=dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus.address),
                          capture_output=True, text=True, timeout=30)
    small, giant = json.loads(proc.stdout)['pools']
    assert small['last_allocation'] == {k.replace('-', '_'): v for k, v in got.items()}
    assert giant['last_allocation'] is None

    # on one node: the node is a label
    fk.limit_pool(SMALL, None)
    assert pool_call(conn, SMALL, 'SetNodePages', 1, 4) == 4
    got = last(conn)
    assert (got['node'], got['requested'], got['achieved'], got['shortfall']) == (1, 4, 4, 0)
    text = metrics(builddir, bus)
    assert samples(text, 'hugepages_last_allocation_requested_pages') == \
        {'{page_size_bytes="2097152",node="1"}': 4}


@pytest.mark.fake_kernel(pools=POOLS)
def test_hard_and_claims_are_recorded(service, conn, fk, polkit):
    polkit.allow(ACTION_POOLS)
    opts = {'hard': GLib.Variant('b', True), 'timeout-ms': GLib.Variant('u', 300)}
    fk.limit_pool(SMALL, 3)
    assert pool_call(conn, SMALL, 'SetMinimum', 5, options=opts) == 3
    got = last(conn)
    assert (got['mode'], got['requested'], got['achieved'], got['shortfall']) == ('hard', 5, 3, 2)
    # a hard allocation that stalls retried: more than one write
    assert got['writes'] > 1
    fk.limit_pool(SMALL, None)
    hpdtest.call(conn, hpdtest.page_size_path(SMALL), hpdtest.PAGE_SIZE_IFACE, 'Claim',
                 GLib.Variant('(sta{sv})', ('vm-1', 2, {})), '(t)')
    got = last(conn)
    assert (got['mode'], got['requested'], got['achieved'], got['shortfall']) == ('plain', 5, 5, 0)


@pytest.mark.fake_kernel(pools=POOLS)
def test_a_restart_keeps_it_a_refusal_changes_nothing(start_service, fake_kernel, conn, fk,
                                                      polkit):
    first = start_service(fk.root)
    polkit.allow(ACTION_POOLS)
    fk.limit_pool(SMALL, 3)
    assert pool_call(conn, SMALL, 'SetMinimum', 8) == 3
    kept = last(conn)
    assert kept['shortfall'] == 5
    assert first.terminate() == 0
    start_service(fk.root)
    assert last(conn) == kept
    # a denied change leaves it as it was
    polkit.reset()
    with pytest.raises(hpdtest.BusError):
        pool_call(conn, SMALL, 'SetMinimum', 1)
    assert last(conn) == kept


@pytest.mark.fake_kernel(pools=POOLS)
def test_a_plain_change_is_one_write(service, conn, fk, polkit):
    """Without "hard" the engine writes the whole target once, for the pool
    and for one node: no steps."""
    polkit.allow(ACTION_POOLS)
    assert pool_call(conn, SMALL, 'SetMinimum', 2048) == 2048
    got = last(conn)
    assert (got['writes'], got['requested'], got['achieved']) == (1, 2048, 2048)
    assert pool_call(conn, SMALL, 'SetNodePages', 0, 2000) == 2000
    got = last(conn)
    assert (got['writes'], got['node'], got['achieved']) == (1, 0, 2000)


# Only the service reads its files under /run: 0600 whatever the umask it
# starts with (the unit's, or 022 from a shell or an init script, where
# they were 0644); the directory as systemd's RuntimeDirectory= makes it,
# 0755, since the runtime claims (0644) are in it too.
@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('umask', [hpdtest.unit_umask(), 0o022], ids=['unit', '022'])
def test_run_state_files_are_the_services(start_service, bus, fake_kernel, polkit, umask):
    polkit.allow(ACTION_POOLS)
    start_service(fake_kernel.root, check=True, umask=umask)
    conn = bus.connect()
    try:
        assert pool_call(conn, SMALL, 'SetMinimum', 1) == 1
    finally:
        conn.close_sync(None)
    run = os.path.join(fake_kernel.root, 'run', 'hugepagesd')
    files = [os.path.join(run, name) for name in ('requested', 'last-allocation')]
    wait_for(lambda: all(os.path.exists(f) for f in files), 5, 'the files under /run')
    modes = {os.path.relpath(p, fake_kernel.root): oct(os.stat(p).st_mode & 0o7777)
             for p in [os.path.dirname(run), run, *files]}
    assert modes == {'run': '0o755', 'run/hugepagesd': '0o755',
                     'run/hugepagesd/requested': '0o600',
                     'run/hugepagesd/last-allocation': '0o600'}
