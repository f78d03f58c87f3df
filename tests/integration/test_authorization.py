# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""polkit: every mutating method asks with the caller's bus name, the right
action, details and interactive flag; a denial changes nothing; an
allowance lets the call through; a caller that left is not served."""

import os
import re
import time

import pytest

import hpdtest
from busrelay import BusRelay
from conftest import wait_for
from hpdtest import (ACTION_POOLS, ALL_ACTIONS, ERR_BUSY, ERR_NOT_AUTHORIZED, MANAGER_IFACE,
                     MANAGER_PATH, PAGE_SIZE_IFACE, BusError, iterate_until, page_size_path,
                     pool_call)
from fakekernel import NodePool, Pool
from gi.repository import Gio, GLib

SMALL = 2048
GIANT = 1048576
POOLS = {SMALL: Pool(total=4, free=4, overcommit=2, nodes={0: NodePool(3, 3, 0), 1: NodePool(1, 1, 0)}),
         GIANT: Pool(total=3, free=3)}

# (size, method, args, polkit details, files the call writes when allowed)
MUTATIONS = [
    (SMALL, 'SetMinimum', (6,), {'pages': '6'},
     {'sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages',
      'sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages'}),
    (SMALL, 'SetMaximum', (9,), {'pages': '9'},
     {'sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages'}),
    (SMALL, 'SetNodePages', (1, 3), {'pages': '3', 'node': '1'},
     {'sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages'}),
    (GIANT, 'Demote', (2,), {'pages': '2'},
     {'sys/kernel/mm/hugepages/hugepages-1048576kB/demote'}),
]
IDS = [m[1] for m in MUTATIONS]


def expected_details(size_kb, details):
    return {'page-size': str(size_kb * 1024), **details}


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('interactive', [False, True], ids=['plain', 'interactive'])
@pytest.mark.parametrize('size_kb,method,args,details,writes', MUTATIONS, ids=IDS)
@pytest.mark.valgrind
def test_denied_changes_nothing_and_asks_correctly(service, bus, fake_kernel, polkit, size_kb,
                                                   method, args, details, writes, interactive):
    caller = bus.connect()  # a fresh caller, so its unique name is its own
    try:
        before = fake_kernel.snapshot()
        with pytest.raises(BusError) as e:
            pool_call(caller, size_kb, method, *args, interactive=interactive)
        assert e.value.name == ERR_NOT_AUTHORIZED
        assert fake_kernel.snapshot() == before
        checks = polkit.checks()
        assert len(checks) == 1
        check = checks[0]
        assert check.subject == ('system-bus-name', {'name': caller.get_unique_name()})
        assert check.action == ACTION_POOLS
        assert check.details == expected_details(size_kb, details)
        assert check.flags == (1 if interactive else 0)
    finally:
        caller.close_sync(None)


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('size_kb,method,args,details,writes', MUTATIONS, ids=IDS)
@pytest.mark.valgrind
def test_allowed_succeeds(service, conn, fake_kernel, polkit, size_kb, method, args, details, writes):
    polkit.allow(ACTION_POOLS)
    before = fake_kernel.snapshot()
    pool_call(conn, size_kb, method, *args)
    assert set(fake_kernel.kernel_changes_since(before)) == writes
    assert [c.action for c in polkit.checks()] == [ACTION_POOLS]


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('size_kb,method,args,details,writes', MUTATIONS, ids=IDS)
def test_every_other_action_allowed_is_not_enough(service, conn, fake_kernel, polkit, size_kb,
                                                  method, args, details, writes):
    polkit.allow(*[a for a in ALL_ACTIONS if a != ACTION_POOLS],
                 'org.hugepages.manager', 'org.hugepages.manager.configure-pools.extra')
    before = fake_kernel.snapshot()
    with pytest.raises(BusError) as e:
        pool_call(conn, size_kb, method, *args)
    assert e.value.name == ERR_NOT_AUTHORIZED
    assert fake_kernel.snapshot() == before


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind
def test_each_call_is_checked_again(service, conn, fake_kernel, polkit):
    polkit.allow(ACTION_POOLS)
    assert pool_call(conn, SMALL, 'SetMinimum', 6) == 6
    polkit.allow()
    with pytest.raises(BusError) as e:
        pool_call(conn, SMALL, 'SetMinimum', 7)
    assert e.value.name == ERR_NOT_AUTHORIZED
    assert fake_kernel.read_int(fake_kernel.pool_file(SMALL, 'nr_hugepages')) == 6
    assert len(polkit.checks()) == 2


@pytest.mark.fake_kernel(pools=POOLS)
def test_the_bus_is_asked_about_a_caller_once(service, bus, conn, fake_kernel, polkit):
    # a unique name is never given to another connection and keeps the uid
    # and pid it connected with: one round trip through the bus per caller,
    # not one before every change (polkit is still asked every time)
    polkit.allow(ACTION_POOLS)
    other = bus.connect()
    try:
        for pages in (5, 6, 7):
            assert pool_call(conn, SMALL, 'SetMinimum', pages) == pages
        assert pool_call(other, SMALL, 'SetMinimum', 8) == 8
        assert pool_call(conn, SMALL, 'SetMinimum', 6) == 6
        asked = [line.split('The bus says ')[1].split()[0] for line in service.log().splitlines()
                 if 'The bus says ' in line]
        assert asked == [conn.get_unique_name(), other.get_unique_name()]
        assert len(polkit.checks()) == 5
    finally:
        other.close_sync(None)


@pytest.mark.fake_kernel(pools=POOLS)
def test_changes_in_a_row_watch_departures_once(service, conn, fake_kernel, polkit):
    # callers' departures are watched while checks wait for polkit; for
    # changes in a row the match rule is added once, not added before and
    # removed after each (two messages more through the bus per change),
    # and it goes a few seconds after the last one
    polkit.allow(ACTION_POOLS)
    watching = "Watching callers' departures"
    for pages in (5, 6, 7, 8):
        assert pool_call(conn, SMALL, 'SetMinimum', pages) == pages
    assert service.log().count(watching) == 1
    assert "No longer watching callers' departures" not in service.log()
    assert len(polkit.checks()) == 4
    wait_for(lambda: "No longer watching callers' departures" in service.log(), 10,
             'the departures to be watched no more')
    assert pool_call(conn, SMALL, 'SetMinimum', 9) == 9
    assert service.log().count(watching) == 2


def call_async(conn, size_kb, method, args):
    """Sends a pool call without waiting; returns a list that receives
    ('ok', value) or ('error', name)."""
    out = []
    sig = hpdtest.POOL_METHODS[method]

    def done(c, result):
        try:
            out.append(('ok', c.call_finish(result).unpack()[0]))
        except GLib.Error as e:
            out.append(('error', Gio.DBusError.get_remote_error(e)))

    conn.call(hpdtest.BUS_NAME, page_size_path(size_kb), PAGE_SIZE_IFACE, method,
              GLib.Variant(sig, (*args, {})), GLib.VariantType('(t)'),
              Gio.DBusCallFlags.NONE, 30000, None, done)
    return out


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind
def test_reads_are_served_while_a_check_is_pending(service, bus, conn, fake_kernel, polkit):
    polkit.allow(ACTION_POOLS)
    polkit.hang(True)
    caller = bus.connect()
    try:
        reply = call_async(caller, SMALL, 'SetMinimum', (6,))
        iterate_until(polkit.have_hanging)
        # the service is not blocked on polkit
        assert hpdtest.get(conn, page_size_path(SMALL), PAGE_SIZE_IFACE, 'Total') == 4
        assert reply == []
        polkit.release()
        iterate_until(lambda: reply)
        assert reply == [('ok', 6)]
        assert fake_kernel.read_int(fake_kernel.pool_file(SMALL, 'nr_hugepages')) == 6
    finally:
        caller.close_sync(None)


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind
def test_caller_gone_before_the_answer_is_not_served(service, bus, conn, fake_kernel, polkit):
    polkit.allow(ACTION_POOLS)
    polkit.hang(True)
    caller = bus.connect()
    name = caller.get_unique_name()
    before = fake_kernel.snapshot()
    call_async(caller, SMALL, 'SetMinimum', (6,))
    iterate_until(polkit.have_hanging)
    caller.close_sync(None)
    iterate_until(lambda: not hpdtest.has_owner(conn, name))
    polkit.release()
    # give the service time to act on the (allowing) answer, then check it did not
    deadline = time.monotonic() + 0.5
    while time.monotonic() < deadline:
        assert fake_kernel.snapshot() == before
        time.sleep(0.05)
    assert polkit.checks()[0].subject == ('system-bus-name', {'name': name})
    # and it still serves others
    polkit.hang(False)
    assert pool_call(conn, SMALL, 'SetMinimum', 5) == 5


def explain(conn):
    return hpdtest.call(conn, MANAGER_PATH, MANAGER_IFACE, 'Explain',
                        GLib.Variant('(a{sv})', ({},)), '(aa{sv})')


def test_a_bus_that_does_not_say_who_the_caller_is_makes_busy(start_service, bus, conn,
                                                               fake_kernel, polkit, tmp_path):
    """The service asks the bus who a caller is before anything else. A bus
    that does not answer within 5 s is overloaded, not a verdict on the
    caller: an allowed change, and Explain (which needs no right, only the
    caller's uid), are told Busy ("try again"), never NotAuthorized, and
    change nothing. The same calls, made again once the bus answers,
    succeed; the refused change is logged as refusals are. The service
    reaches the bus through a relay that swallows its questions
    (tests/integration/busrelay.py)."""
    os.chmod(tmp_path, 0o755)
    relay = BusRelay(bus.socket, str(tmp_path))
    try:
        svc = start_service(fake_kernel.root, wait=False,
                            env={'DBUS_SYSTEM_BUS_ADDRESS': relay.address})
        # through the relay the bus names the test's process as the owner
        wait_for(lambda: not svc.alive() or hpdtest.name_owner(conn) is not None, 10,
                 'the service on the bus through the relay')
        assert svc.alive(), svc.log()[-3000:]
        polkit.allow(ACTION_POOLS)
        before = fake_kernel.snapshot()
        relay.swallow.set()
        for call in (lambda c: pool_call(c, SMALL, 'SetMinimum', 6), explain):
            caller = bus.connect()      # a caller the service has not been told of
            try:
                with pytest.raises(BusError) as e:
                    call(caller)
                assert e.value.name == ERR_BUSY, (e.value, svc.log()[-3000:])
            finally:
                caller.close_sync(None)
        assert relay.swallowed >= 2
        assert fake_kernel.snapshot() == before
        assert polkit.checks() == []
        relay.swallow.clear()
        caller = bus.connect()
        try:
            pool_call(caller, SMALL, 'SetMinimum', 6)
            explain(caller)
        finally:
            caller.close_sync(None)
        assert fake_kernel.read_int(fake_kernel.pool_file(SMALL, 'nr_hugepages')) == 6
        log = svc.log()
        assert 'Could not identify the caller' not in log
        # the change's refusal is logged, as any other (Explain makes no line)
        assert re.search(r'which could not be identified, was refused SetMinimum '
                         r'\(org\.hugepages\.manager\.configure-pools\): The bus did not say who '
                         r'the caller is in time', log), log[-3000:]
        svc.terminate()
    finally:
        relay.close()


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind
def test_slow_polkit_still_answers(service, conn, fake_kernel, polkit):
    polkit.allow(ACTION_POOLS)
    polkit.set_delay(0.3)
    start = time.monotonic()
    assert pool_call(conn, SMALL, 'SetMinimum', 7) == 7
    assert time.monotonic() - start >= 0.3


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind
def test_without_polkit_only_root_may_change(make_bus, start_service, fake_kernel, run_python_as,
                                             NOBODY):
    lonely = make_bus()  # no polkitd on this bus
    start_service(fake_kernel.root, bus=lonely, check=True)
    c = lonely.connect()
    try:
        assert not hpdtest.has_owner(c, 'org.freedesktop.PolicyKit1')
        start = time.monotonic()
        [result] = run_python_as(NOBODY, [['pool', SMALL, 'SetMinimum', [6], False]],
                                 env={'DBUS_SYSTEM_BUS_ADDRESS': lonely.address})
        assert result.get('error') == ERR_NOT_AUTHORIZED, result
        assert time.monotonic() - start < 5
        assert fake_kernel.read_int(fake_kernel.pool_file(SMALL, 'nr_hugepages')) == 4
        # root falls back to being allowed (documented in src/bus/hpd-auth.c)
        assert pool_call(c, SMALL, 'SetMinimum', 6) == 6
    finally:
        c.close_sync(None)
