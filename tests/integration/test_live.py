# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Live properties (src/bus/hpd-watchers.h): while a client that called the
service is on the bus, the service reads the kernel again every
--refresh-interval (1 s by default) and announces what changed with
PropertiesChanged, changes made behind its back included. When the last such
client has left it stops, and with nobody watching it does not wake up."""

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
    nodes = [dict(zip(hpdtest.NODE_KEYS, n)) for n in ((0, 0, 0, 0, 0), (1, 3, 2, 0, 3))]
    assert watcher.wait(page_size_path(1048576), 'Nodes', nodes,
                        DEFAULT_INTERVAL_S + SLACK_S)
    print(f'announced {took * 1000:.0f} ms after the write')


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
    wait_for_log(live_service, f'Not watching {extra.unique_name}: already watching '
                 f'{WATCHERS_MAX} callers', 1, 5)
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
