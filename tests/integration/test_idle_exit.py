# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Idle exit under D-Bus activation (security.md §3.8, case 39 of §4): the
bus starts hugepagesd for a call; with --idle-timeout it gives the name back
and exits 0 once idle, and never while a call or a change is pending; calls
spaced around the timeout all get their answer, from the exiting instance or
from the one the bus starts next.

A client that called the service watches its properties until it leaves the
bus, and holds the service meanwhile (src/bus/hpd-watchers.h; tested in
test_live.py): so here each call comes from a client that leaves once it has
its answer, as a command-line client does, and the idle time counts from
then."""

import os
import random
import re
import signal
import threading
import time

import pytest

import hpdtest
from hpdtest import BUS_NAME, MANAGER_IFACE, MANAGER_PATH, PAGE_SIZE_IFACE, PROPS_IFACE
from hpdtest import page_size_path

from gi.repository import Gio, GLib

IDLE = 0.3               # seconds, for the service under test
CALL_TIMEOUT_MS = 5000   # far above an activation; a lost call shows as NoReply or this
DBUS = 'org.freedesktop.DBus'


def send(conn, path, iface, method, params=None, no_reply=False):
    """Sends one call to the name, letting the bus activate the service.
    Returns the reply message, an error reply included; None with no_reply."""
    msg = Gio.DBusMessage.new_method_call(BUS_NAME, path, iface, method)
    if params is not None:
        msg.set_body(params)
    if no_reply:
        msg.set_flags(Gio.DBusMessageFlags.NO_REPLY_EXPECTED)
        conn.send_message(msg, Gio.DBusSendMessageFlags.NONE)
        return None
    reply, _serial = conn.send_message_with_reply_sync(msg, Gio.DBusSendMessageFlags.NONE,
                                                       CALL_TIMEOUT_MS, None)
    return reply


def describe(reply):
    if reply.get_message_type() == Gio.DBusMessageType.ERROR:
        return f'error {reply.get_error_name()}: {reply.get_body()}'
    return f'return {reply.get_body()}'


def sender_pid(conn, reply):
    """The pid of the instance that sent reply; None if it has left the
    bus since (an instance that answered while exiting leaves right after)."""
    try:
        return hpdtest.call(conn, '/org/freedesktop/DBus', DBUS, 'GetConnectionUnixProcessID',
                            GLib.Variant('(s)', (reply.get_sender(),)), '(u)', dest=DBUS)[0]
    except hpdtest.BusError as e:
        assert e.name == 'org.freedesktop.DBus.Error.NameHasNoOwner', e
        return None


def set_minimum(pages, **options):
    return (page_size_path(2048), PAGE_SIZE_IFACE, 'SetMinimum',
            GLib.Variant('(ta{sv})', (pages, hpdtest.options(**options))))


# name -> (call, check of the reply). Reads, a dry run answered at once, a
# change that goes through polkit (denied by the mock) and the job path, and
# Explain, which asks the bus for the caller's credentials first.
OPERATIONS = {
    'get': ((page_size_path(2048), PROPS_IFACE, 'Get',
             GLib.Variant('(ss)', (PAGE_SIZE_IFACE, 'Total'))),
            lambda r: r.get_message_type() == Gio.DBusMessageType.METHOD_RETURN),
    'get-all': ((MANAGER_PATH, PROPS_IFACE, 'GetAll', GLib.Variant('(s)', (MANAGER_IFACE,))),
                lambda r: r.get_message_type() == Gio.DBusMessageType.METHOD_RETURN),
    'dry-run': (set_minimum(4, dry_run=True),
                lambda r: r.get_message_type() == Gio.DBusMessageType.METHOD_RETURN
                and r.get_body().unpack() == (4,)),
    'denied': (set_minimum(1),
               lambda r: r.get_message_type() == Gio.DBusMessageType.ERROR
               and r.get_error_name() == hpdtest.ERR_NOT_AUTHORIZED),
    'explain': ((MANAGER_PATH, MANAGER_IFACE, 'Explain', GLib.Variant('(a{sv})', ({},))),
                lambda r: r.get_message_type() == Gio.DBusMessageType.METHOD_RETURN),
}


def run(conn, name):
    call, ok = OPERATIONS[name]
    reply = send(conn, *call)
    assert ok(reply), f'{name}: {describe(reply)}'
    return reply


class Clients:
    """Connections to an activating bus, each closed at most once."""

    def __init__(self, ab):
        self.ab = ab
        self.conns = []

    def new(self):
        conn = self.ab.connect()
        self.conns.append(conn)
        return conn

    def close_all(self):
        for conn in self.conns:
            if not conn.is_closed():
                conn.close_sync(None)


def leave(conn):
    """The client leaves the bus, so it no longer holds the service."""
    conn.close_sync(None)


@pytest.fixture
def idle_bus(activating_bus, fake_kernel, request):
    marker = request.node.get_closest_marker('service_args')
    ab = activating_bus(fake_kernel.root, idle_timeout=IDLE,
                        args=marker.args if marker else ())
    clients = Clients(ab)
    yield ab, clients
    clients.close_all()


@pytest.mark.valgrind
def test_activated_service_exits_when_idle(idle_bus):
    ab, clients = idle_bus
    conn = clients.new()
    assert hpdtest.name_owner(conn) is None
    reply = run(conn, 'get')
    pid = sender_pid(conn, reply)
    assert ab.started() == [pid]
    leave(conn)
    conn = clients.new()

    status = ab.wait_exit(pid, IDLE + 5)
    assert status is not None, 'the activated instance did not exit when idle'
    assert status == 0, ab.log()
    assert not os.path.exists(f'/proc/{pid}')
    assert hpdtest.name_owner(conn) is None
    assert f'Idle for {IDLE:g} s; released the name and exiting' in ab.log()


def spaced_calls(ab, clients, iterations, seed):
    """Calls one after the other, each from a client that leaves once
    answered, each after a pause around the idle timeout: every other pause is within a few ms of it, where a call can
    reach the instance while it gives the name back (measured: about one
    exit in ten answers such a call; a naive exit(0) fails within seconds).
    Asserts that every call got its proper answer; returns (unique name,
    pid or None) of the instance that answered each."""
    rng = random.Random(seed)
    names = list(OPERATIONS)
    served_by = []
    for i in range(iterations):
        name = names[i % len(names)] if i < len(names) else rng.choice(names)
        conn = clients.new()
        reply = run(conn, name)
        served_by.append((reply.get_sender(), sender_pid(conn, reply)))
        leave(conn)
        spread = 0.05 if i % 2 else 0.003
        time.sleep(IDLE + rng.uniform(-spread, spread))
    return served_by


def assert_all_exited_cleanly(ab, served_by):
    instances = {unique_name for unique_name, _pid in served_by}
    pids = {pid for _unique_name, pid in served_by if pid is not None}
    assert len(instances) > 1, 'every call went to one instance: no idle exit was crossed'
    assert len(pids) > 1 and pids <= set(ab.started())
    for pid in ab.started():
        assert ab.wait_exit(pid, IDLE + 5) is not None, f'instance {pid} did not exit'
    exited = ab.exited()
    assert all(status == 0 for status in exited.values()), exited
    # every instance said why it left
    assert len(re.findall(r'released the name and exiting', ab.log())) == len(exited)


def test_calls_spaced_around_the_timeout_all_get_answers(idle_bus):
    # Case 39: each call comes just before, at, or just after the moment the
    # instance decides it is idle; whoever answers, every call is answered.
    ab, clients = idle_bus
    assert_all_exited_cleanly(ab, spaced_calls(ab, clients, 100, seed=39))


class ServiceManagerStandIn(threading.Thread):
    """Does what systemd does to a Type=dbus unit whose bus name goes away:
    SIGTERM to its main process at once."""

    def __init__(self, ab):
        super().__init__(daemon=True)
        self.ab = ab
        self.context = GLib.MainContext()
        self.loop = GLib.MainLoop(self.context)
        self.owners = {}      # unique name -> pid
        self.signalled = []
        self.ready = threading.Event()

    def run(self):
        self.context.push_thread_default()
        conn = self.ab.connect()
        conn.signal_subscribe(DBUS, DBUS, 'NameOwnerChanged', '/org/freedesktop/DBus',
                              BUS_NAME, Gio.DBusSignalFlags.NONE, self.changed)
        # a round trip, so the subscription is in place before the test goes on
        hpdtest.name_owner(conn)
        self.ready.set()
        self.loop.run()
        conn.close_sync(None)
        self.context.pop_thread_default()

    def changed(self, conn, sender, path, iface, signal_name, params):
        _name, old, new = params.unpack()
        if new:
            self.owners[new] = hpdtest.owner_pid(conn, new)
        elif old in self.owners:
            pid = self.owners.pop(old)
            if pid in self.ab.running():
                os.kill(pid, signal.SIGTERM)
                self.signalled.append(pid)

    def stop(self):
        self.loop.quit()
        self.join(5)


def test_sigterm_on_release_still_answers_every_call(idle_bus):
    # Under systemd the unit is Type=dbus: releasing the name makes systemd
    # stop the service with SIGTERM right away. The calls that reached the
    # instance before must still be answered, and it exits 0.
    ab, clients = idle_bus
    manager = ServiceManagerStandIn(ab)
    manager.start()
    assert manager.ready.wait(5)
    try:
        served_by = spaced_calls(ab, clients, 40, seed=3)
    finally:
        manager.stop()
    assert manager.signalled, 'no instance released the name'
    assert_all_exited_cleanly(ab, served_by)


# The caller of a change that waits for its reply is on the bus, and would
# hold the service as a watcher: without the periodic refresh nobody is a
# watcher, and only the change can hold it.
@pytest.mark.parametrize('no_reply', [False, True], ids=['reply', 'no-reply'])
@pytest.mark.service_args('--refresh-interval=0')
@pytest.mark.valgrind
def test_a_pending_change_blocks_idle_exit(idle_bus, no_reply):
    ab, clients = idle_bus
    conn = clients.new()
    # hang first: a round trip to the mock between the read and the change
    # could outlast the idle timeout on a loaded machine or a slow build
    ab.polkit.hang()
    pid = sender_pid(conn, run(conn, 'get'))
    path, iface, method, params = set_minimum(1)
    if no_reply:
        send(conn, path, iface, method, params, no_reply=True)
    else:
        pending = []
        conn.call(BUS_NAME, path, iface, method, params, GLib.VariantType('(t)'),
                  Gio.DBusCallFlags.NONE, CALL_TIMEOUT_MS * 2, None,
                  lambda c, result: pending.append(result))
    deadline = time.monotonic() + 5
    while not ab.polkit.have_hanging():
        assert time.monotonic() < deadline, 'the change never reached polkit'
        time.sleep(0.01)

    # several timeouts with only the change pending: the instance stays
    time.sleep(IDLE * 5)
    assert ab.exited().get(pid) is None, 'exited with a change waiting for polkit'
    assert hpdtest.owner_pid(conn) == pid

    ab.polkit.release()
    if not no_reply:
        context = GLib.MainContext.default()
        deadline = time.monotonic() + 5
        while not pending and time.monotonic() < deadline:
            context.iteration(False)
            time.sleep(0.005)
        assert pending, 'no answer to the change'
        with pytest.raises(GLib.Error) as excinfo:
            conn.call_finish(pending[0])
        assert Gio.DBusError.get_remote_error(excinfo.value) == hpdtest.ERR_NOT_AUTHORIZED
    # answered: now it may go
    assert ab.wait_exit(pid, IDLE + 5) == 0, ab.log()


@pytest.mark.valgrind
def test_without_idle_timeout_the_service_stays(activating_bus, fake_kernel):
    ab = activating_bus(fake_kernel.root)
    conn = ab.connect()
    try:
        pid = sender_pid(conn, run(conn, 'get'))
        time.sleep(1.0)
        assert ab.exited().get(pid) is None, ab.log()
        assert hpdtest.owner_pid(conn) == pid
        assert 'Idle for' not in ab.log()
    finally:
        conn.close_sync(None)


def test_installed_activation_and_unit_pass_the_timeout():
    data = os.path.join(hpdtest.REPO, 'data')
    with open(os.path.join(data, 'dbus', 'org.hugepages.Manager.service.in')) as f:
        activation = f.read()
    assert re.search(r'^Exec=\S+/hugepagesd --idle-timeout=30$', activation, re.M)
    assert re.search(r'^SystemdService=hugepagesd.service$', activation, re.M)
    assert [re.fullmatch(r'\S+/hugepagesd --idle-timeout=30', v) is not None
            for v in hpdtest.unit_settings()['ExecStart']] == [True]


@pytest.mark.parametrize('value', ['-1', 'nan', 'inf', '86401', 'soon'])
def test_bad_idle_timeout_is_refused(hugepagesd, fake_kernel, value):
    assert hpdtest.daemon_refuses(hugepagesd, fake_kernel.root, 'idle-timeout', value)
