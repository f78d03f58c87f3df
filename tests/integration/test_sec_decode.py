# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""A message GDBus cannot decode does not take the service away (issue 17
point 1, tests/SECURITY.md "Undecodable messages").

GLib 2.74's GDBus closes the whole connection when it cannot decode an
incoming message, and a valid body with an array of small structures
inside a variant is enough (contrib/glib-decode-close). Any local user can
send one, as a method call or as a unicast signal to the service's unique
name, which no bus policy stops. The service then opens a new connection,
exports everything again and takes its name back: it answers on its
well-known name within 1 s of each such message, with the same pid and the
same state, and a real loss of the bus still ends it with a failure."""

import os
import re
import sys
import time

import pytest

import hpdtest
from conftest import TIMEOUT_FACTOR, wait_for
from hpdtest import (ACTION_POOLS, MANAGER_IFACE, MANAGER_PATH, PAGE_SIZE_IFACE, PROPS_IFACE,
                     page_size_path)
from gi.repository import Gio, GLib

SV_ENTRY = GLib.VariantType('{sv}')

# The shortest kind of body GDBus (gio/gdbusmessage.c) writes and
# dbus-daemon routes, but GDBus cannot read back: an a{yg} whose last
# element is 3 bytes, inside a variant, inside an a{sv}.
UNDECODABLE = GLib.Variant.new_tuple(GLib.Variant.new_array(SV_ENTRY, [
    GLib.Variant.new_dict_entry(GLib.Variant('s', 'a'), GLib.Variant('v', GLib.Variant.new_array(
        GLib.VariantType('{yg}'),
        [GLib.Variant.new_dict_entry(GLib.Variant('y', 1), GLib.Variant('g', 'a{sv}')),
         GLib.Variant.new_dict_entry(GLib.Variant('y', 2), GLib.Variant('g', ''))]))),
    GLib.Variant.new_dict_entry(GLib.Variant('s', 'b'), GLib.Variant('v', GLib.Variant('y', 7)))]))

SMALL = 2048
PEER_IFACE = 'org.freedesktop.DBus.Peer'

# (kind, destination: 'name' for the well-known name, 'unique' for the
# service's unique name, path, interface, member)
TARGETS = [
    ('call', 'name', MANAGER_PATH, MANAGER_IFACE, 'Explain'),
    ('call', 'name', page_size_path(SMALL), PAGE_SIZE_IFACE, 'SetMinimum'),
    ('call', 'unique', MANAGER_PATH, PROPS_IFACE, 'GetAll'),
    ('call', 'name', MANAGER_PATH, PEER_IFACE, 'Ping'),
    ('call', 'unique', '/nowhere', MANAGER_IFACE, 'NoSuchMethod'),
    ('signal', 'unique', MANAGER_PATH, MANAGER_IFACE, 'Changed'),
    ('signal', 'unique', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'NameOwnerChanged'),
    ('signal', 'unique', MANAGER_PATH, PROPS_IFACE, 'PropertiesChanged'),
    ('signal', 'unique', '/', 'com.example.Anything', 'Anything'),
]


def undecodable_message(target, unique):
    kind, dest, path, iface, member = target
    if kind == 'call':
        message = Gio.DBusMessage.new_method_call(
            unique if dest == 'unique' else hpdtest.BUS_NAME, path, iface, member)
    else:
        message = Gio.DBusMessage.new_signal(path, iface, member)
        message.set_destination(unique)
    message.set_body(UNDECODABLE)
    return message


def answers(conn):
    """Whether the owner of the well-known name answers Peer.Ping."""
    try:
        conn.call_sync(hpdtest.BUS_NAME, MANAGER_PATH, PEER_IFACE, 'Ping', None, None,
                       Gio.DBusCallFlags.NO_AUTO_START, 250, None)
        return True
    except GLib.Error:
        return False


def wait_answer(conn, since, limit):
    """Seconds from since until the service answered again; fails past limit."""
    while True:
        if answers(conn):
            return time.monotonic() - since
        if time.monotonic() - since > limit:
            raise AssertionError(f'no answer on {hpdtest.BUS_NAME} within {limit} s')
        time.sleep(0.002)


def limit_for(hugepagesd):
    # the tools slow everything down many times
    return 1.0 if hpdtest.plain_build(hugepagesd) else 10.0


def send_and_wait(conn, svc, target, limit):
    """Sends one undecodable message, waits until the service answers on its
    name from a new connection; returns the seconds that took."""
    before = hpdtest.name_owner(conn)
    assert before is not None
    conn.send_message(undecodable_message(target, before), Gio.DBusSendMessageFlags.NONE)
    conn.flush_sync(None)
    start = time.monotonic()
    elapsed = wait_answer(conn, start, limit)
    after = hpdtest.name_owner(conn)
    assert after != before, (f'{target}: the service kept its connection: this message is '
                             f'decodable, the test proves nothing')
    assert hpdtest.owner_pid(conn) == svc.pid, svc.log()[-3000:]
    return elapsed


@pytest.mark.parametrize('target', TARGETS, ids=[f'{t[0]}-{t[3]}.{t[4]}' for t in TARGETS])
def test_undecodable_message_the_service_answers_again(service, conn, hugepagesd, target,
                                                        record_property):
    elapsed = send_and_wait(conn, service, target, limit_for(hugepagesd))
    record_property('answers_again_s', round(elapsed, 3))
    # the objects are all back on the new connection
    assert hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'Claims') is not None
    assert page_size_path(SMALL) in hpdtest.managed_objects(conn)
    assert hpdtest.get(conn, page_size_path(SMALL), PAGE_SIZE_IFACE, 'Total') == 0


def snapshot(conn, fk):
    files = {}
    for top in ('run/hugepagesd', 'etc/hugepagesd'):
        for base, _dirs, names in os.walk(fk.path(top)):
            for name in names:
                path = os.path.join(base, name)
                with open(path) as f:
                    files[os.path.relpath(path, fk.root)] = f.read()
    props = hpdtest.page_size_props(conn, SMALL)
    return {
        'claims': hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'Claims'),
        'pool': {k: props[k] for k in ('Total', 'Minimum', 'Maximum') if k in props},
        'files': files,
        'kernel': fk.read_int(fk.pool_file(SMALL, 'nr_hugepages')),
    }


@pytest.mark.valgrind
def test_twenty_in_a_row_keep_every_state(service, conn, fake_kernel, polkit, hugepagesd,
                                          record_property):
    """A SetMinimum result, a runtime claim and a persisted claim are the
    same after 20 undecodable messages of every kind, and changes are
    authorized and applied afterwards as before."""
    polkit.allow(ACTION_POOLS)
    hpdtest.pool_call(conn, SMALL, 'SetMinimum', 3)
    for consumer, persist in (('db', False), ('cache', True)):
        params = GLib.Variant('(sta{sv})', (consumer, 2,
                                            hpdtest.options(persist=GLib.Variant('b', persist))))
        hpdtest.call(conn, page_size_path(SMALL), PAGE_SIZE_IFACE, 'Claim', params, '(t)')
    before = snapshot(conn, fake_kernel)
    assert before['kernel'] == 7 and len(before['claims']) == 2
    assert any('etc/hugepagesd' in path for path in before['files'])

    limit = limit_for(hugepagesd)
    times = [send_and_wait(conn, service, TARGETS[i % len(TARGETS)], limit) for i in range(20)]
    record_property('answers_again_max_s', round(max(times), 3))
    record_property('answers_again_median_s', round(sorted(times)[10], 3))
    print(f'answered again after {min(times):.3f}..{max(times):.3f} s '
          f'(median {sorted(times)[10]:.3f} s)', file=sys.stderr)

    assert snapshot(conn, fake_kernel) == before
    # polkit checks and the queue work on the new connection
    hpdtest.pool_call(conn, SMALL, 'SetMinimum', 4)
    assert fake_kernel.read_int(fake_kernel.pool_file(SMALL, 'nr_hugepages')) == 8
    log = service.log()
    reconnect_ms = sorted(float(m) for m in re.findall(r'Reconnected to the bus in ([0-9.]+) ms', log))
    assert len(reconnect_ms) == 20, log[-3000:]
    print(f'reconnected in {reconnect_ms[0]}..{reconnect_ms[-1]} ms '
          f'(median {reconnect_ms[10]} ms)', file=sys.stderr)
    record_property('reconnect_max_ms', reconnect_ms[-1])
    # rate-limited: 20 reconnects in a few seconds make one or two lines
    assert log.count('although the bus is still there') <= 3, log[-3000:]


SEND_AS_USER = r'''
import sys
sys.path.insert(0, sys.argv[1])
import test_sec_decode as t
conn = t.hpdtest.connect(sys.argv[2])
unique = t.hpdtest.name_owner(conn)
assert unique is not None, 'nobody owns the name'
conn.send_message(t.undecodable_message(t.TARGETS[int(sys.argv[3])], unique), 0)
conn.flush_sync(None)
print(unique)
'''


def test_any_user_as_signal_or_call(service, conn, bus, run_as, NOBODY, hugepagesd):
    """nobody, with no polkit right, sends them: each is a unicast signal or a
    call the bus policy lets through, and the service answers again."""
    here = os.path.dirname(os.path.abspath(__file__))
    limit = limit_for(hugepagesd)
    for index in (0, 5, 6):
        start = time.monotonic()
        proc = run_as(NOBODY, ['/usr/bin/python3', '-c', SEND_AS_USER, here, bus.address,
                               str(index)], env={'PYTHONDONTWRITEBYTECODE': '1'})
        assert proc.returncode == 0, proc.stderr
        old = proc.stdout.strip()
        wait_for(lambda: answers(conn) and hpdtest.name_owner(conn) != old, limit + 5,
                 'the service to answer from a new connection')
        # the sender's process start-up counts in; the reconnect itself is quick
        assert time.monotonic() - start < limit + 5
        assert hpdtest.owner_pid(conn) == service.pid


# Each round closes the service's connection and then sends the same message,
# for argv[4] seconds, to the next unique names the bus will hand out: the bus
# numbers them in order, so the service's next connection is one of them.
SEND_TO_THE_NEXT_NAMES = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
import test_sec_decode as t
conn = t.hpdtest.connect(sys.argv[2])
for round_ in range(int(sys.argv[3])):
    owner, waited_until = None, time.monotonic() + 10
    while owner is None:
        if time.monotonic() > waited_until:
            sys.exit(f'round {round_}: nobody owns the name any more')
        owner = t.hpdtest.name_owner(conn)
        if owner is None:
            time.sleep(0.01)
    conn.send_message(t.undecodable_message(t.TARGETS[5], owner), 0)
    number = max(int(name.split('.')[1]) for name in (owner, conn.get_unique_name()))
    ahead = [f':1.{number + i}' for i in range(1, 4)]
    until = time.monotonic() + float(sys.argv[4])
    while time.monotonic() < until:
        for name in ahead:
            conn.send_message(t.undecodable_message(t.TARGETS[5], name), 0)
        conn.flush_sync(None)
"""


def test_the_next_connection_closed_at_once_is_not_the_end(service, conn, run_as, NOBODY, bus,
                                                            hugepagesd):
    """nobody closes the service's connection and sends the message to the
    unique names the bus hands out next, 15 times: the new connection may
    close before it is used, or while it asks for the name, which GDBus
    then reports as a failed RequestName before the close. Either way the
    service connects again, logs no critical and answers on its name."""
    here = os.path.dirname(os.path.abspath(__file__))
    rounds = 15
    proc = run_as(NOBODY, ['/usr/bin/python3', '-c', SEND_TO_THE_NEXT_NAMES, here, bus.address,
                           str(rounds), '0.3'], env={'PYTHONDONTWRITEBYTECODE': '1'}, timeout=120)
    assert proc.returncode == 0, (proc.stderr[-2000:], service.log()[-3000:])
    wait_answer(conn, time.monotonic(), limit_for(hugepagesd))
    assert service.alive(), service.log()[-3000:]
    assert hpdtest.owner_pid(conn) == service.pid
    log = service.log()
    assert 'CRITICAL' not in log and 'Could not own the bus name' not in log, log[-3000:]
    reconnects = log.count('Reconnected to the bus in')
    unused = log.count('closed before it was used')
    print(f'{reconnects} reconnects, {unused} new connections closed before they were used')
    assert reconnects >= rounds, log[-3000:]


@pytest.mark.valgrind
def test_watchers_still_get_properties_changed(service, conn, bus, fake_kernel, hugepagesd):
    """A client that read a property keeps getting PropertiesChanged for
    changes made behind the service's back after a reconnect: the service
    still counts it as a watcher. Under valgrind the message closes the
    connection while the service is still asking the bus about the
    watcher: the watch then starts on the next connection, and the failed
    question about the watcher's name is no departure (hpd-watchers.c)."""
    watcher = bus.connect()
    changes = []
    sub = watcher.signal_subscribe(None, PROPS_IFACE, 'PropertiesChanged', page_size_path(SMALL),
                                   None, Gio.DBusSignalFlags.NONE,
                                   lambda *args: changes.append(args[5]), None)
    try:
        hpdtest.get(watcher, page_size_path(SMALL), PAGE_SIZE_IFACE, 'Total')
        send_and_wait(conn, service, TARGETS[5], limit_for(hugepagesd))
        fake_kernel.write(fake_kernel.pool_file(SMALL, 'nr_hugepages'), '5\n')
        ctx = GLib.MainContext.default()
        deadline = time.monotonic() + 5 * TIMEOUT_FACTOR
        while not any('Total' in c.unpack()[1] for c in changes):
            assert time.monotonic() < deadline, 'no PropertiesChanged after the reconnect'
            if not ctx.iteration(False):
                time.sleep(0.01)
    finally:
        watcher.signal_unsubscribe(sub)
        watcher.close_sync(None)


@pytest.mark.valgrind
def test_a_watcher_gone_while_the_connection_is_replaced_is_seen_gone(service, conn, bus,
                                                                      hugepagesd):
    """A watcher that leaves while the service has no connection sends no
    NameOwnerChanged the service could see: the service asks the bus on
    the next connection whether it is still there, and lets it go. One
    that stays is still watched."""
    staying, leaving = bus.connect(), bus.connect()
    try:
        for watcher in (staying, leaving):
            hpdtest.get(watcher, page_size_path(SMALL), PAGE_SIZE_IFACE, 'Total')
            wait_for(lambda: f'Watching {watcher.get_unique_name()} ' in service.log(),
                     5 * TIMEOUT_FACTOR, 'the watcher watched')
        gone = leaving.get_unique_name()
        before = hpdtest.name_owner(conn)
        conn.send_message(undecodable_message(TARGETS[5], before), Gio.DBusSendMessageFlags.NONE)
        conn.flush_sync(None)
        leaving.close_sync(None)
        wait_answer(conn, time.monotonic(), limit_for(hugepagesd))
        wait_for(lambda: f'{gone} left the bus; 1 watcher(s) left' in service.log(),
                 5 * TIMEOUT_FACTOR, 'the watcher that left let go')
        assert hpdtest.name_owner(conn) != before
        staying.close_sync(None)
        wait_for(lambda: 'left the bus; 0 watcher(s) left' in service.log(),
                 5 * TIMEOUT_FACTOR, 'the watcher that stayed followed on the new connection')
    finally:
        for watcher in (staying, leaving):
            if not watcher.is_closed():
                watcher.close_sync(None)
    assert 'CRITICAL' not in service.log()


def test_losing_the_bus_after_a_reconnect_is_a_failure_exit(make_bus, start_service, fake_kernel,
                                                            hugepagesd):
    own = make_bus()
    svc = start_service(fake_kernel.root, bus=own)
    c = own.connect()
    try:
        send_and_wait(c, svc, TARGETS[0], limit_for(hugepagesd))
    finally:
        c.close_sync(None)
    own.proc.kill()
    own.proc.wait()
    status = svc.wait_exit(3)
    assert status is not None, 'hugepagesd still runs after its bus died'
    assert status > 0, f'hugepagesd exited with {status} after losing the bus'
    assert 'the bus is gone' in svc.log() or 'closed' in svc.log()


def service_connections(conn, pid):
    """The unique names of every connection of process pid."""
    names = conn.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                           'ListNames', None, None, 0, 5000, None)[0]
    found = []
    for name in names:
        if not name.startswith(':'):
            continue
        try:
            owner = conn.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                                   'org.freedesktop.DBus', 'GetConnectionUnixProcessID',
                                   GLib.Variant('(s)', (name,)), None, 0, 5000, None)[0]
        except GLib.Error:
            continue
        if owner == pid:
            found.append(name)
    return found


def changes_pool(conn, pages):
    try:
        return hpdtest.pool_call(conn, SMALL, 'SetMinimum', pages) == pages
    except hpdtest.BusError:
        return False


def test_every_connection_of_the_service_survives(service, conn, bus, fake_kernel, polkit,
                                                  hugepagesd):
    """Every connection of the service gets the message while a check
    hangs: the check in flight fails with the connection it was asked on
    (denied, never allowed for want of an answer), the service connects
    again, and the next checks run on the new connection."""
    polkit.allow(ACTION_POOLS)
    hpdtest.pool_call(conn, SMALL, 'SetMinimum', 1)
    for round_ in range(3):
        polkit.hang()
        caller = bus.connect()
        caller.call(hpdtest.BUS_NAME, page_size_path(SMALL), PAGE_SIZE_IFACE, 'SetMinimum',
                    GLib.Variant('(ta{sv})', (9, {})), None, Gio.DBusCallFlags.NONE, 30000,
                    None, None, None)
        wait_for(lambda: polkit.have_hanging(), 5, 'the polkit check')
        names = service_connections(conn, service.pid)
        assert names, names
        for name in names:
            conn.send_message(undecodable_message(TARGETS[5], name), Gio.DBusSendMessageFlags.NONE)
        conn.flush_sync(None)
        wait_answer(conn, time.monotonic(), limit_for(hugepagesd))
        polkit.hang(False)
        polkit.release()
        caller.close_sync(None)
        time.sleep(0.2)
        assert service.alive(), service.log()[-3000:]
        assert hpdtest.owner_pid(conn) == service.pid
        wait_for(lambda: changes_pool(conn, 2 + round_), 5, 'an authorized change')
    assert fake_kernel.read_int(fake_kernel.pool_file(SMALL, 'nr_hugepages')) == 4


@pytest.mark.valgrind
def test_a_change_right_before_the_message_is_refused_not_fatal(service, conn, fake_kernel, polkit,
                                                                hugepagesd):
    """A change and an undecodable message sent together: GDBus has closed
    the connection before the change reaches its handler, which then starts
    its polkit check on a closed connection, or on one that GDBus closes
    while the check subscribes to callers' departures. GLib 2.74 makes a
    critical of a subscription whose match rule it cannot send, and the
    tests run the service with fatal criticals: the service sends its rule
    itself (hpd_departures_match in hpd-auth.h). The change fails with the
    connection; the next one is made."""
    polkit.allow(ACTION_POOLS)
    for round_ in range(5):
        before = hpdtest.name_owner(conn)
        change = Gio.DBusMessage.new_method_call(hpdtest.BUS_NAME, page_size_path(SMALL),
                                                 PAGE_SIZE_IFACE, 'SetMinimum')
        change.set_body(GLib.Variant('(ta{sv})', (10 + round_, {})))
        conn.send_message(change, Gio.DBusSendMessageFlags.NONE)
        conn.send_message(undecodable_message(TARGETS[5], before), Gio.DBusSendMessageFlags.NONE)
        conn.flush_sync(None)
        wait_answer(conn, time.monotonic(), limit_for(hugepagesd))
        wait_for(lambda: hpdtest.name_owner(conn) not in (None, before), 5, 'a new connection')
        assert service.alive(), service.log()[-3000:]
    assert 'CRITICAL' not in service.log()
    hpdtest.pool_call(conn, SMALL, 'SetMinimum', 2)
    assert fake_kernel.read_int(fake_kernel.pool_file(SMALL, 'nr_hugepages')) == 2


@pytest.mark.valgrind
def test_checks_go_over_the_service_connection(service, conn, fake_kernel, polkit):
    """polkitd is asked over the connection the calls come on, the only
    one the service has: no second connection another user could close
    with an undecodable message, and none made per check."""
    polkit.allow(ACTION_POOLS)
    owner = hpdtest.name_owner(conn)
    for pages in range(1, 6):
        hpdtest.pool_call(conn, SMALL, 'SetMinimum', pages)
    assert service_connections(conn, service.pid) == [owner]
    assert all(c.subject == ('system-bus-name', {'name': conn.get_unique_name()})
               for c in polkit.checks())
    assert len(polkit.checks()) == 5
    assert service.alive()
