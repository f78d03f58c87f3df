# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Live properties (src/bus/hpd-watchers.h): while a client that called the
service is on the bus, the service reads the kernel again every
--refresh-interval (1 s by default) and announces what changed with
PropertiesChanged, changes made behind its back included. When the last such
client has left it stops, and with nobody watching it does not wake up."""

import json
import os
import queue
import subprocess
import threading
import time

import pytest

import hpdtest
from hpdtest import MANAGER_IFACE, MANAGER_PATH, PAGE_SIZE_IFACE, PROPS_IFACE, page_size_path
from conftest import TIMEOUT_FACTOR
from fakekernel import MIN_FREE_KBYTES, THP_CHOICES, THP_DIR, choice_text
from test_cheap_reads import TRIM_AFTER_S, TRIM_LINE, quietest_window, wait_for_log

from gi.repository import Gio, GLib

DEFAULT_INTERVAL_S = 1.0      # HPD_DEFAULT_REFRESH_INTERVAL_MS in src/bus/hpd-daemon.h
# a read of the fake tree and the signal's way over the bus; far more than needed
SLACK_S = 0.5 * TIMEOUT_FACTOR
WATCHERS_MAX = 128            # HPD_WATCHERS_MAX in src/bus/hpd-watchers.h
WATCHERS_PER_UID = 16         # HPD_WATCHERS_PER_UID
WATCHERS_ROOT_RESERVE = 8     # HPD_WATCHERS_ROOT_RESERVE
WATCHING = 'Watching '
NOBODY_WATCHES = 'Nobody watches any more'
PAGE_2MB = page_size_path(2048)


class Listener:
    """A client on the bus that collects the service's PropertiesChanged;
    with call=True it calls the service once (GetManagedObjects), which makes
    it a watcher."""

    def __init__(self, bus, call=True):
        self.conn = bus.connect()
        self.events = []   # (monotonic time, path, interface, {name: value})
        owner = hpdtest.name_owner(self.conn)
        assert owner is not None
        self.sub = self.conn.signal_subscribe(owner, PROPS_IFACE, 'PropertiesChanged', None, None,
                                              Gio.DBusSignalFlags.NONE, self._changed)
        # a round trip to the bus: the match rule is in place behind it
        hpdtest.name_owner(self.conn)
        if call:
            self.call()

    def call(self):
        hpdtest.managed_objects(self.conn)

    @property
    def unique_name(self):
        return self.conn.get_unique_name()

    def _changed(self, conn, sender, path, signal_iface, signal_name, params):
        interface, changed, _invalidated = params.unpack()
        self.events.append((time.monotonic(), path, interface, changed))

    def pump(self, seconds):
        deadline = time.monotonic() + seconds
        context = GLib.MainContext.default()
        while time.monotonic() < deadline:
            while context.iteration(False):
                pass
            time.sleep(0.005)

    def wait(self, path, name, value, timeout):
        """The time the service announced name == value on path, None if it
        did not within timeout seconds."""
        deadline = time.monotonic() + timeout
        context = GLib.MainContext.default()
        while True:
            while context.iteration(False):
                pass
            for when, p, _iface, changed in self.events:
                if p == path and name in changed and changed[name] == value:
                    return when
            if time.monotonic() > deadline:
                return None
            time.sleep(0.005)

    def close(self):
        if not self.conn.is_closed():
            self.conn.signal_unsubscribe(self.sub)
            self.conn.close_sync(None)


@pytest.fixture
def listeners(bus):
    made = []

    def make(call=True):
        listener = Listener(bus, call)
        made.append(listener)
        return listener

    yield make
    for listener in made:
        listener.close()


@pytest.fixture
def live_service(start_service, fake_kernel, polkit, request):
    marker = request.node.get_closest_marker('service_args')
    return start_service(fake_kernel.root, args=marker.args if marker else (), check=True)


def arrives_in_time(listener, path, name, value, write, interval_s):
    """Makes the change with write() and returns how long it took to be
    announced; fails if that took longer than the interval and the slack."""
    start = time.monotonic()
    write()
    when = listener.wait(path, name, value, interval_s + SLACK_S)
    assert when is not None, f'{name} = {value!r} on {path} not announced within ' \
                             f'{interval_s + SLACK_S} s'
    return when - start


def test_counters_written_behind_the_back_arrive(live_service, fake_kernel, listeners):
    fk = fake_kernel
    watcher = listeners()
    wait_for_log(live_service, WATCHING + watcher.unique_name, 1, 5)
    took = arrives_in_time(watcher, PAGE_2MB, 'Total', 6,
                           lambda: fk.write(fk.pool_file(2048, 'nr_hugepages'), 6),
                           DEFAULT_INTERVAL_S)
    # the per-node counters too, of any size
    fk.write(fk.node_file(1, 1048576, 'free_hugepages'), 2)
    fk.write(fk.node_file(1, 1048576, 'nr_hugepages'), 3)
    nodes = [dict(zip(hpdtest.NODE_KEYS, n), target=0) for n in ((0, 0, 0, 0, 0), (1, 3, 2, 0, 3))]
    assert watcher.wait(page_size_path(1048576), 'Nodes', nodes,
                        DEFAULT_INTERVAL_S + SLACK_S)
    print(f'announced {took * 1000:.0f} ms after the write')


def test_node_target_edited_in_the_configuration_arrives(live_service, fake_kernel, listeners):
    """Nodes' target comes from the configuration, not the kernel: an edit
    that leaves every counter as it was is announced all the same."""
    fk = fake_kernel
    watcher = listeners()
    wait_for_log(live_service, WATCHING + watcher.unique_name, 1, 5)
    nodes = []
    for node in fk.pool_nodes:
        nt = fk.read_int(fk.node_file(node, 2048, 'nr_hugepages'))
        nf = fk.read_int(fk.node_file(node, 2048, 'free_hugepages'))
        ns = fk.read_int(fk.node_file(node, 2048, 'surplus_hugepages'))
        nodes.append(dict(zip(hpdtest.NODE_KEYS, (node, nt, nf, ns, max(nt - ns, 0))),
                          target=3 if node == 1 else 0))
    arrives_in_time(watcher, PAGE_2MB, 'Nodes', nodes,
                    lambda: fk.write('etc/hugepagesd/hugepagesd.conf', '[pool 2MB]\nnode1 = 3\n'),
                    DEFAULT_INTERVAL_S)


def test_tunable_and_thp_written_behind_the_back_arrive(live_service, fake_kernel, listeners):
    fk = fake_kernel
    watcher = listeners()
    before = fk.read_int(MIN_FREE_KBYTES)
    arrives_in_time(watcher, MANAGER_PATH, 'MinFreeKbytes', before + 7,
                    lambda: fk.write(MIN_FREE_KBYTES, before + 7), DEFAULT_INTERVAL_S)
    rel = f'{THP_DIR}/enabled'
    current, _choices = fk.thp_choice(rel)
    other = next(c for c in THP_CHOICES['enabled'] if c != current)
    expected = {**hpdtest.manager_props(watcher.conn)['ThpSettings'],
                'enabled': (other, list(THP_CHOICES['enabled']))}
    arrives_in_time(watcher, MANAGER_PATH, 'ThpSettings', expected,
                    lambda: fk.write(rel, choice_text(THP_CHOICES['enabled'], other)),
                    DEFAULT_INTERVAL_S)


def test_no_refresh_and_no_wakeup_once_the_watcher_left(live_service, fake_kernel, listeners):
    fk = fake_kernel
    # (a check pending since start-up waits for the calls to stop as well)
    checks = live_service.log().count(TRIM_LINE)
    watcher = listeners()
    # watched: the refresh shows as context switches, in every window
    assert quietest_window(live_service.pid, 1.5, 2) > 0
    watcher.close()
    wait_for_log(live_service, NOBODY_WATCHES, 1, 5)
    # the memory check 2 s after the last call, then nothing at all
    wait_for_log(live_service, TRIM_LINE, checks + 1, TRIM_AFTER_S + 3)
    assert quietest_window(live_service.pid, 3.0, 3) == 0
    # and the change stays unannounced (nobody could hear it anyway); a
    # read still sees it
    fk.write(fk.pool_file(2048, 'nr_hugepages'), 9)
    assert quietest_window(live_service.pid, 1.5, 1) == 0
    reader = listeners(call=False)
    assert hpdtest.get(reader.conn, PAGE_2MB, PAGE_SIZE_IFACE, 'Total') == 9


@pytest.mark.service_args('--refresh-interval=200')
@pytest.mark.valgrind
def test_refresh_goes_on_until_both_watchers_left(live_service, fake_kernel, listeners):
    fk = fake_kernel
    first, second = listeners(), listeners()
    wait_for_log(live_service, WATCHING + second.unique_name, 1, 5)
    first.close()
    wait_for_log(live_service, f'{first.unique_name} left the bus; 1 watcher(s) left', 1, 5)
    arrives_in_time(second, PAGE_2MB, 'Free', 3,
                    lambda: fk.write(fk.pool_file(2048, 'free_hugepages'), 3), 0.2)
    assert NOBODY_WATCHES not in live_service.log()
    second.close()
    wait_for_log(live_service, NOBODY_WATCHES, 1, 5)
    assert live_service.log().count(NOBODY_WATCHES) == 1


@pytest.mark.service_args('--refresh-interval=200')
def test_a_client_that_never_called_is_no_watcher(live_service, fake_kernel, listeners):
    fk = fake_kernel
    silent = listeners(call=False)
    fk.write(fk.pool_file(2048, 'nr_hugepages'), 4)
    assert silent.wait(PAGE_2MB, 'Total', 4, 1.0) is None
    assert WATCHING not in live_service.log()
    # once it calls, it is one
    silent.call()
    arrives_in_time(silent, PAGE_2MB, 'Total', 5,
                    lambda: fk.write(fk.pool_file(2048, 'nr_hugepages'), 5), 0.2)


def test_peer_ping_makes_no_watcher(live_service, listeners):
    pinging, reading = listeners(call=False), listeners(call=False)
    hpdtest.call(pinging.conn, MANAGER_PATH, 'org.freedesktop.DBus.Peer', 'Ping')
    # names are taken in the order their calls came
    hpdtest.get(reading.conn, MANAGER_PATH, MANAGER_IFACE, 'Version')
    wait_for_log(live_service, WATCHING + reading.unique_name, 1, 5)
    assert WATCHING + pinging.unique_name not in live_service.log()


@pytest.mark.service_args('--refresh-interval=200')
def test_callers_beyond_the_bound_are_not_tracked(live_service, fake_kernel, listeners):
    fk = fake_kernel
    many = [listeners() for _ in range(WATCHERS_MAX)]
    wait_for_log(live_service, f'{WATCHERS_MAX} watcher(s)', 1, 10)
    extra = listeners()
    wait_for_log(live_service, f'Not watching {extra.unique_name}: Too many watchers '
                 f'({WATCHERS_MAX})', 1, 5)
    for listener in many:
        listener.close()
    # the one beyond the bound was never tracked: nobody watches
    wait_for_log(live_service, NOBODY_WATCHES, 1, 10)
    fk.write(fk.pool_file(2048, 'nr_hugepages'), 7)
    assert extra.wait(PAGE_2MB, 'Total', 7, 1.0) is None
    # its next call finds room
    extra.call()
    wait_for_log(live_service, WATCHING + extra.unique_name, 1, 5)
    arrives_in_time(extra, PAGE_2MB, 'Total', 8,
                    lambda: fk.write(fk.pool_file(2048, 'nr_hugepages'), 8), 0.2)


# Run as another user: opens argv[1] connections, each calls the service once
# (a property read: a watcher), prints their unique names, then prints the
# pool's Total from every PropertiesChanged the first one receives.
HOLDER = r'''
import json, os, sys, time
from gi.repository import Gio, GLib
address = os.environ["DBUS_SYSTEM_BUS_ADDRESS"]
flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
conns = [Gio.DBusConnection.new_for_address_sync(address, flags, None, None)
         for _ in range(int(sys.argv[1]))]
def changed(conn, sender, path, iface, signal, params):
    _iface, values, _invalidated = params.unpack()
    if path == "%(path)s" and "Total" in values:
        print(json.dumps({"total": values["Total"]}), flush=True)
conns[0].signal_subscribe("org.hugepages.Manager", "org.freedesktop.DBus.Properties",
                          "PropertiesChanged", None, None, Gio.DBusSignalFlags.NONE, changed)
for c in conns:
    c.call_sync("org.hugepages.Manager", "/org/hugepages/Manager",
                "org.freedesktop.DBus.Properties", "Get",
                GLib.Variant("(ss)", ("org.hugepages.Manager", "Version")), None,
                Gio.DBusCallFlags.NONE, 30000, None)
print(json.dumps({"names": [c.get_unique_name() for c in conns]}), flush=True)
ctx = GLib.MainContext.default()
while True:
    ctx.iteration(True)
''' % {'path': PAGE_2MB}


class Holder:
    """HOLDER as @uid with @conns connections, all of them callers."""

    def __init__(self, bus, uid, conns):
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus.address)
        self.proc = subprocess.Popen(['setpriv', f'--reuid={uid}', f'--regid={uid}',
                                      '--clear-groups', '--pdeathsig', 'KILL', '/usr/bin/python3',
                                      '-c', HOLDER, str(conns)],
                                     stdout=subprocess.PIPE, text=True, env=env, cwd='/')
        line = self.proc.stdout.readline()
        assert line, f'the holder as uid {uid} failed'
        self.names = json.loads(line)['names']
        self.lines = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(json.loads(x)) for x in self.proc.stdout],
                         daemon=True).start()

    def total_announced(self, value, timeout):
        deadline = time.monotonic() + timeout
        while True:
            try:
                if self.lines.get(timeout=max(0.01, deadline - time.monotonic()))['total'] == value:
                    return True
            except queue.Empty:
                return False

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


@pytest.fixture
def holders(bus):
    made = []

    def make(uid, conns):
        made.append(Holder(bus, uid, conns))
        return made[-1]

    yield make
    for holder in made:
        holder.close()


def watched_of(service, names):
    return [n for n in names if WATCHING + n + ' ' in service.log()]


def wait_until_decided(service, names, timeout=10):
    """Until the service has either watched or turned away each of @names."""
    deadline = time.monotonic() + timeout
    while True:
        log = service.log()
        left = [n for n in names if WATCHING + n + ' ' not in log and f'Not watching {n}:' not in log]
        if not left:
            return
        assert time.monotonic() < deadline, f'{len(left)} callers neither watched nor turned away'
        time.sleep(0.05)


@pytest.mark.service_args('--refresh-interval=200')
def test_one_user_cannot_take_every_watcher_place(live_service, fake_kernel, holders, NOBODY):
    """One user opens as many connections as there are watcher places and
    reads on each: it gets its share, so another user's client is still
    tracked, and when the first user leaves the refresh goes on for the
    other (before, the other was never tracked and, once the first had
    left, heard of no change)."""
    fk = fake_kernel
    hostile = holders(NOBODY, WATCHERS_MAX)
    wait_until_decided(live_service, hostile.names)
    other = holders(1, 1)
    wait_for_log(live_service, WATCHING + other.names[0] + ' ', 1, 5)
    assert len(watched_of(live_service, hostile.names)) == WATCHERS_PER_UID
    hostile.close()
    wait_for_log(live_service, ' left the bus; 1 watcher(s) left', 1, 10)
    fk.write(fk.pool_file(2048, 'nr_hugepages'), 7)
    assert other.total_announced(7, 0.2 + SLACK_S), 'the other user heard of no change'
    assert NOBODY_WATCHES not in live_service.log()


@pytest.mark.service_args('--refresh-interval=200')
def test_root_keeps_a_reserve_of_watcher_places(live_service, holders, listeners):
    """Users take every place they can (8 users, 16 connections each): one
    more user's client is not tracked, root's is."""
    names = []
    for uid in range(1, 9):
        names += holders(uid, WATCHERS_PER_UID).names
        wait_until_decided(live_service, names)
    late = holders(9, 1)
    wait_until_decided(live_service, late.names)
    root = listeners()
    wait_for_log(live_service, WATCHING + root.unique_name + ' ', 1, 5)
    assert len(watched_of(live_service, names)) == WATCHERS_MAX - WATCHERS_ROOT_RESERVE
    assert watched_of(live_service, late.names) == []


@pytest.mark.service_args('--refresh-interval=0')
def test_refresh_interval_0_disables_it(live_service, fake_kernel, listeners):
    fk = fake_kernel
    client = listeners()
    fk.write(fk.pool_file(2048, 'nr_hugepages'), 4)
    assert client.wait(PAGE_2MB, 'Total', 4, DEFAULT_INTERVAL_S * 2) is None
    assert WATCHING not in live_service.log()
    # reads are as fresh as ever
    assert hpdtest.get(client.conn, PAGE_2MB, PAGE_SIZE_IFACE, 'Total') == 4


@pytest.mark.parametrize('value', ['-1', '3600001', 'often'])
def test_bad_refresh_interval_is_refused(hugepagesd, fake_kernel, value):
    assert hpdtest.daemon_refuses(hugepagesd, fake_kernel.root, 'refresh-interval', value)


def test_monitor_shows_a_change_behind_the_back(live_service, fake_kernel, builddir, bus):
    fk = fake_kernel
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus.address, LC_ALL='C.UTF-8')
    proc = subprocess.Popen([os.path.join(builddir, 'client', 'hugepagesctl'), 'monitor'],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    lines = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout],
                              daemon=True)
    reader.start()

    def next_line_with(text, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            if text in line:
                return line
        return None

    try:
        assert next_line_with('hugepagesd is on the bus', 10)
        start = time.monotonic()
        fk.write(fk.pool_file(2048, 'nr_hugepages'), 6)
        line = next_line_with('2MB Total 0 → 6', DEFAULT_INTERVAL_S + SLACK_S)
        assert line, 'the monitor did not show the change in time'
        assert time.monotonic() - start <= DEFAULT_INTERVAL_S + SLACK_S
    finally:
        proc.terminate()
        assert proc.wait(5) == 0


IDLE = 0.3


def test_a_watcher_holds_the_activated_service(activating_bus, fake_kernel):
    ab = activating_bus(fake_kernel.root, idle_timeout=IDLE)
    conn = ab.connect()
    try:
        hpdtest.get(conn, PAGE_2MB, PAGE_SIZE_IFACE, 'Total')
        [pid] = ab.started()
        time.sleep(IDLE * 6)
        assert ab.exited().get(pid) is None, 'exited under a watcher'
    finally:
        conn.close_sync(None)
    # the idle time counts from the watcher's departure
    left = time.monotonic()
    assert ab.wait_exit(pid, IDLE + 5) == 0, ab.log()
    assert time.monotonic() - left >= IDLE
    assert NOBODY_WATCHES in ab.log()
