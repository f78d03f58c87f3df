# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""security.md cases 27, 28, 30 and 33: floods that cost the service memory
or file descriptors. Every test ends with the service alive, with the same
pid (the service fixture checks), and its fd count and RSS back near
where they started."""

import json
import os
import signal
import subprocess
import time

import pytest

import hpdtest
from conftest import Polkit, wait_for
from hpdtest import (ACTION_POOLS, BusError, MANAGER_IFACE, MANAGER_PATH, PAGE_SIZE_IFACE,
                     iterate_until, page_size_path)
from fakekernel import Pool
from gi.repository import Gio, GLib

SMALL = 2048
POOLS = {SMALL: Pool(total=4, free=4, overcommit=2), 1048576: Pool()}
MiB = 1 << 20
BUSY = hpdtest.ERR + 'Busy'
OTHER_USER = 1   # daemon: another unprivileged user than nobody


def rss_kb(pid):
    with open(f'/proc/{pid}/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
    raise AssertionError('no VmRSS')


def fd_count(pid):
    return len(os.listdir(f'/proc/{pid}/fd'))


def settle(pid, baseline_kb, slack_kb, timeout=10):
    """Waits for the RSS to come back within slack of baseline; returns it."""
    deadline = time.monotonic() + timeout
    while True:
        now = rss_kb(pid)
        if now <= baseline_kb + slack_kb or time.monotonic() > deadline:
            return now
        time.sleep(0.2)


def manager(conn, method, sig, args, reply=None, timeout_ms=60000):
    return hpdtest.call(conn, MANAGER_PATH, MANAGER_IFACE, method, GLib.Variant(sig, args) if
                        isinstance(args, tuple) else args, reply, timeout_ms=timeout_ms)


# --- case 27: huge a{sv} ------------------------------------------------------------

def million_entries():
    text = '{' + ', '.join(f'"{i:x}": <true>' for i in range(1000000)) + '}'
    return GLib.Variant.parse(GLib.VariantType('a{sv}'), text, None, None)


@pytest.mark.fake_kernel(pools=POOLS)
def test_a_million_entry_dict_is_refused_and_memory_comes_back(service, conn, fake_kernel, polkit,
                                                               hugepagesd):
    polkit.allow_unknown(True)
    polkit.allow(*hpdtest.ALL_ACTIONS)
    baseline = rss_kb(service.pid)
    big = million_entries()           # 20 MB on the wire
    before = fake_kernel.snapshot()
    started = time.monotonic()
    with pytest.raises(BusError) as e:
        manager(conn, 'SetThp', None, GLib.Variant.new_tuple(big, GLib.Variant('a{sv}', {})))
    assert e.value.name == hpdtest.ERR_INVALID_ARGS, e.value
    assert len(e.value.message) < 200
    print(f'SetThp with 10^6 settings refused in {time.monotonic() - started:.1f} s')
    assert fake_kernel.snapshot() == before
    assert polkit.checks() == []
    # GDBus builds the whole message as GVariants before the handler sees it
    # (hundreds of MB for this one); the service gives that back
    after = settle(service.pid, baseline, 48 * 1024)
    print(f'RSS {baseline} kB before, {after} kB after')
    if hpdtest.plain_build(hugepagesd):
        assert after <= baseline + 48 * 1024, f'RSS stays at {after} kB (was {baseline} kB)'
    assert manager(conn, 'Explain', '(a{sv})', ({},), '(aa{sv})')[0]


# --- case 28: 16 MiB strings ----------------------------------------------------------

# every string argument the API has; the value is put in place of None
STRING_CALLS = [
    (MANAGER_PATH, MANAGER_IFACE, 'CreateMounts', '(ssa{sv})', (None, '', {})),
    (MANAGER_PATH, MANAGER_IFACE, 'CreateMounts', '(ssa{sv})', ('user', None, {})),
    (page_size_path(SMALL), PAGE_SIZE_IFACE, 'CreateMount', '(ssa{sv})', ('group', None, {})),
    (MANAGER_PATH, MANAGER_IFACE, 'Unmount', '(sa{sv})', (None, {})),
    (MANAGER_PATH, MANAGER_IFACE, 'SetShmGroup', '(sa{sv})', (None, {})),
    (MANAGER_PATH, MANAGER_IFACE, 'SetThp', '(a{sv}a{sv})', ({'enabled': None}, {})),
    (MANAGER_PATH, MANAGER_IFACE, 'SetThp', '(a{sv}a{sv})', ({None: True}, {})),
]


def with_string(args, text):
    def put(value):
        if value is None:
            return text
        if isinstance(value, dict):
            return {put(k) if k is None else k:
                    GLib.Variant('s', text) if v is None else GLib.Variant('b', v)
                    for k, v in value.items()}
        return value
    return tuple(put(a) for a in args)


@pytest.mark.fake_kernel(pools=POOLS)
def test_16_mib_strings_are_refused_in_linear_time(service, conn, fake_kernel, polkit, hugepagesd):
    """Every string argument of the API, 16 MiB long, three times each (21
    calls rather than security.md's 100: each one moves 16 MiB through
    dbus-daemon, about a quarter of a second): refused, never echoed or
    logged, in a time that grows with the length only."""
    polkit.allow_unknown(True)
    polkit.allow(*hpdtest.ALL_ACTIONS)
    baseline = rss_kb(service.pid)
    log_size = os.path.getsize(service.log_path)
    before = fake_kernel.snapshot()
    times = {}
    for length in (1 * MiB, 16 * MiB):
        text = 'x' * length
        for path, iface, method, sig, args in STRING_CALLS * (3 if length == 16 * MiB else 1):
            params = GLib.Variant(sig, with_string(args, text))
            started = time.monotonic()
            with pytest.raises(BusError) as e:
                hpdtest.call(conn, path, iface, method, params, timeout_ms=30000)
            times.setdefault(length, []).append(time.monotonic() - started)
            assert e.value.name in {hpdtest.ERR_INVALID_ARGS, hpdtest.ERR_NOT_MOUNTED,
                                    hpdtest.ERR_NO_SUCH_GROUP}, (method, e.value.name)
            # the text is never echoed back
            assert len(e.value.message) < 1000, (method, len(e.value.message))
    slow16, slow1 = max(times[16 * MiB]), max(times[1 * MiB])
    print(f'{len(times[16 * MiB])} calls with a 16 MiB string: slowest {slow16:.2f} s '
          f'(1 MiB: {slow1:.2f} s)')
    # nor logged
    assert os.path.getsize(service.log_path) - log_size < 64 * 1024
    assert fake_kernel.snapshot() == before
    assert polkit.checks() == []
    if hpdtest.plain_build(hugepagesd):
        # linear, not quadratic: 16 times the length takes nowhere near 256 times as long
        assert slow16 < 3 and slow16 < 64 * slow1 + 0.5
        after = settle(service.pid, baseline, 48 * 1024)
        assert after <= baseline + 48 * 1024, f'RSS stays at {after} kB (was {baseline} kB)'


# --- case 30: 256 connections with calls pending --------------------------------------

FLOOD = hpdtest.flood_script(r'''
import json, os, sys, time
from gi.repository import Gio, GLib
conns, per = int(sys.argv[1]), int(sys.argv[2])
address = os.environ["DBUS_SYSTEM_BUS_ADDRESS"]
flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
opened = []
for i in range(conns):
    try:
        opened.append(Gio.DBusConnection.new_for_address_sync(address, flags, None, None))
    except GLib.Error as e:
        print(json.dumps({"connect_failed": i, "why": e.message}), flush=True)
        break
outcomes = {}
def done(c, res, _):
    count_reply(outcomes, c, res)
sent = 0
for c in opened:
    for j in range(per):
        c.call("org.hugepages.Manager", "/org/hugepages/Manager/PageSize/2048kB",
               "org.hugepages.Manager.PageSize", "SetMinimum",
               GLib.Variant("(ta{sv})", (10 + j, {})), None, Gio.DBusCallFlags.NONE, 120000,
               None, done, None)
        sent += 1
ctx = GLib.MainContext.default()
reported = False
deadline = time.monotonic() + 120
while sum(outcomes.values()) < sent and time.monotonic() < deadline:
    ctx.iteration(True)
    if not reported and sum(outcomes.values()) >= sent - 64:
        print(json.dumps({"connections": len(opened), "sent": sent, "answered": dict(outcomes)}),
              flush=True)
        reported = True
print(json.dumps({"connections": len(opened), "sent": sent, "answered": outcomes}), flush=True)
''')


def flood_as(uid, bus_address, connections, calls, script=FLOOD):
    """Runs @script as @uid against the bus at @bus_address: @connections
    connections sending @calls changes each; its stdout is JSON lines."""
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus_address)
    return subprocess.Popen(['setpriv', f'--reuid={uid}', f'--regid={uid}', '--clear-groups',
                             '/usr/bin/python3', '-c', script, str(connections), str(calls)],
                            stdout=subprocess.PIPE, text=True, env=env, cwd='/')


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.skipif(hpdtest.under_valgrind(), reason=hpdtest.OUTRUN_UNDER_VALGRIND)
def test_256_connections_of_pending_calls(service, conn, fake_kernel, polkit, run_python_as, NOBODY,
                                          hugepagesd):
    """One user opens the bus's maximum of 256 connections and sends
    changes on each while polkit holds its answers: the service keeps at
    most 16 checks for that user (its share of 64), answers Busy to the
    rest at once, stays small, and keeps answering other users and root,
    whose changes still reach polkit rather than Busy. 16 calls per
    connection (4,096 in all) rather than the bus's limit of 128 pending
    replies each: every call costs the service about a millisecond of
    validation, and 256 times the bound already shows it holds."""
    polkit.hang(True)    # and its answers, when they come, are no
    baseline_rss, baseline_fds = rss_kb(service.pid), fd_count(service.pid)
    flood = flood_as(NOBODY, service.bus.address, 256, 16)
    others = []
    try:
        started = time.monotonic()
        first = json.loads(flood.stdout.readline())
        if 'connect_failed' in first:
            first = json.loads(flood.stdout.readline())
        print(f'{first["connections"]} connections, {first["sent"]} calls: '
              f'{first["answered"]} within {time.monotonic() - started:.1f} s')
        assert first['connections'] >= 250
        assert set(first['answered']) == {BUSY}
        wait_for(lambda: len(polkit.checks()) >= 16, 30, "the flood's checks")
        assert len(polkit.checks()) == 16
        peak = rss_kb(service.pid)
        # another user reads, root reads
        t = time.monotonic()
        [result] = run_python_as(OTHER_USER, [['get', page_size_path(SMALL), PAGE_SIZE_IFACE,
                                               'Total']])
        assert result == {'ok': 4}
        assert hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'Version')
        assert time.monotonic() - t < 5 or not hpdtest.plain_build(hugepagesd)
        # root's and another user's changes are not Busy: they reach polkit
        # (which holds them too)
        for uid in (0, OTHER_USER):
            others.append(flood_as(uid, service.bus.address, 1, 1))
        wait_for(lambda: len(polkit.checks()) == 18, 30, "root's and the other user's checks")
        # polkit answers, no: the rest are refused and the flood ends
        polkit.hang(False)
        polkit.release()
        last = json.loads(flood.stdout.readline())
        flood.wait(30)
        for other in others:
            [*_, answer] = [json.loads(line) for line in other.stdout.read().splitlines()]
            assert answer['answered'] == {hpdtest.ERR_NOT_AUTHORIZED: 1}, answer
            other.wait(30)
    finally:
        for p in [flood] + others:
            p.kill()
            p.wait()
    assert last['answered'] == {BUSY: last['sent'] - 16, hpdtest.ERR_NOT_AUTHORIZED: 16}, last
    assert fake_kernel.read_int(fake_kernel.pool_file(SMALL, 'nr_hugepages')) == 4
    print(f'RSS {baseline_rss} kB before, {peak} kB during the flood')
    if hpdtest.plain_build(hugepagesd):
        assert peak < baseline_rss + 64 * 1024
    wait_for(lambda: fd_count(service.pid) <= baseline_fds, 10, 'the fds to come back')
    polkit.allow(ACTION_POOLS)
    assert hpdtest.pool_call(conn, SMALL, 'SetMinimum', 5) == 5


ACTION_TUNABLES = 'org.hugepages.manager.configure-tunables'


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.skipif(hpdtest.under_valgrind(), reason=hpdtest.OUTRUN_UNDER_VALGRIND)
def test_admins_complete_their_changes_under_a_sustained_flood(service, conn, fake_kernel, polkit,
                                                                run_python_as, NOBODY, hugepagesd):
    """One user keeps 4 changes in flight on each of 250 connections, sending
    the next as soon as one is answered (thousands a second: 16 wait on
    polkit, the rest are Busy), while an allowed admin (another uid) and
    root each make 5 changes: all 10 complete, none is Busy or refused
    because the service could not learn who the caller is. polkit's mock
    allows by action, so the flood's action hangs and the admins use
    another one."""
    polkit.hang_actions([ACTION_POOLS])
    polkit.allow(ACTION_TUNABLES)
    flood = flood_as(NOBODY, service.bus.address, 250, 4, hpdtest.SUSTAINED_FLOOD)
    times = []
    try:
        assert json.loads(flood.stdout.readline())['connections'] == 250
        wait_for(lambda: len(polkit.checks()) >= 16, 30, "the flood's checks")
        for i in range(5):
            t = time.monotonic()
            [result] = run_python_as(OTHER_USER, [[
                'call', MANAGER_PATH, MANAGER_IFACE, 'SetShmMax', '(ta{sv})',
                f'({(64 + i) * MiB}, @a{{sv}} {{}})', None, False]], timeout=60)
            times.append(time.monotonic() - t)
            assert result == {'ok': [(64 + i) * MiB]}, (i, result)
            t = time.monotonic()
            manager(conn, 'SetShmMax', '(ta{sv})', ((80 + i) * MiB, {}))
            times.append(time.monotonic() - t)
        flood.send_signal(signal.SIGUSR1)
        answered = json.loads(flood.stdout.readline())
        # (once the flood is killed, its calls still waiting for the bus's
        # answer are refused so: their callers have left)
        log_while_flooded = service.log()
    finally:
        flood.kill()
        flood.wait()
        polkit.hang_actions([])
        polkit.release()
    print(f'the flood: {answered}; the admin\'s and root\'s changes meanwhile: '
          f'{", ".join(f"{x:.2f}" for x in times)} s')
    assert answered.get(BUSY, 0) > 1000, answered
    assert set(answered) == {BUSY}, answered
    assert len(polkit.checks()) >= 16
    assert 'could not be identified' not in log_while_flooded
    assert max(times) < 5 or not hpdtest.plain_build(hugepagesd)


# --- case 33: unix fds sent along ------------------------------------------------------

@pytest.mark.fake_kernel(pools=POOLS)
def test_calls_carrying_16_fds_leak_none(service, bus, fake_kernel, polkit):
    """10,000 calls, each with 16 file descriptors attached, to methods
    that take none: a property read, GDBus's own Peer.Ping, a change held
    while polkit refuses it, an unknown method."""
    baseline = fd_count(service.pid)
    read_end, write_end = os.pipe()
    fds = Gio.UnixFDList.new()
    for _ in range(16):
        fds.append(read_end)
    calls = [
        (MANAGER_PATH, hpdtest.PROPS_IFACE, 'Get', GLib.Variant('(ss)', (MANAGER_IFACE, 'Version'))),
        (MANAGER_PATH, 'org.freedesktop.DBus.Peer', 'Ping', None),
        (page_size_path(SMALL), PAGE_SIZE_IFACE, 'SetMinimum', GLib.Variant('(ta{sv})', (6, {}))),
        (MANAGER_PATH, MANAGER_IFACE, 'NoSuchMethod', None),
    ]
    c = bus.connect()
    outcomes = {}

    def done(conn, result, _):
        try:
            conn.call_with_unix_fd_list_finish(result)
            key = 'ok'
        except GLib.Error as e:
            key = Gio.DBusError.get_remote_error(e)
        outcomes[key] = outcomes.get(key, 0) + 1

    try:
        started = time.monotonic()
        sent = 0
        peak = baseline
        while sent < 10000:
            for i in range(100):     # the bus allows 128 pending replies
                path, iface, method, params = calls[(sent + i) % len(calls)]
                c.call_with_unix_fd_list(hpdtest.BUS_NAME, path, iface, method, params, None,
                                         Gio.DBusCallFlags.NONE, 30000, fds, None, done, None)
            sent += 100
            iterate_until(lambda: sum(outcomes.values()) == sent, 30)
            peak = max(peak, fd_count(service.pid))
        print(f'10000 calls with 16 fds in {time.monotonic() - started:.1f} s: {outcomes}; '
              f'fds {baseline} before, at most {peak} between batches')
    finally:
        c.close_sync(None)
        os.close(read_end)
        os.close(write_end)
    # the changes are refused by polkit, or Busy past 16 waiting per caller
    assert outcomes.pop('ok') == 5000 and outcomes.pop(hpdtest.DBUS_UNKNOWN_METHOD) == 2500
    assert set(outcomes) <= {hpdtest.ERR_NOT_AUTHORIZED, BUSY} and sum(outcomes.values()) == 2500
    assert fake_kernel.read_int(fake_kernel.pool_file(SMALL, 'nr_hugepages')) == 4
    wait_for(lambda: fd_count(service.pid) <= baseline, 5, 'the fds to come back')
    assert fd_count(service.pid) == baseline


# --- a caller that leaves while its checks wait -------------------------------------------

@pytest.mark.fake_kernel(pools=POOLS)
def test_checks_of_a_caller_that_left_keep_their_places_until_polkit_answers(service, conn,
                                                                           fake_kernel, polkit,
                                                                           NOBODY):
    """A user holds its 16 places with checks polkit does not answer yet,
    then leaves the bus. Its checks are given up at once: the service asks
    polkitd to cancel each one (CancelCheckAuthorization, by its
    cancellation id). But each keeps its place until polkitd's answer has
    come back, as the bus counts the call against the service until then:
    the same user's next changes are Busy, not sent to polkit, until
    polkitd answers the cancelled checks; then they get places again.
    Freeing the places at once let a user who sends calls and leaves make
    the service pass the bus's limit of pending replies, and the bus then
    failed every check, root's too."""
    polkit.record_cancels()
    polkit.hang(True)

    def flood(calls):
        return flood_as(NOBODY, service.bus.address, 1, calls)

    def outcome(proc):
        return [json.loads(line) for line in proc.communicate(timeout=30)[0].splitlines()][-1]

    first = flood(20)
    third = None
    try:
        wait_for(lambda: len(polkit.checks()) == 16, 30, "the first caller's checks")
        first.kill()
        first.wait()
        wait_for(lambda: len(polkit.cancels()) == 16, 10, 'the checks to be cancelled')
        assert sorted(polkit.cancels()) == sorted(c.cancellation_id for c in polkit.checks())
        assert len(set(polkit.cancels())) == 16
        # polkitd has not answered: the places are still taken
        second = flood(4)
        assert outcome(second)['answered'] == {BUSY: 4}
        assert len(polkit.checks()) == 16
        # polkitd answers the cancelled checks: the places are free again
        polkit.release()
        wait_for(lambda: not polkit.have_hanging(), 10, 'the answers')
        third = flood(16)
        wait_for(lambda: len(polkit.checks()) == 32, 10, "the third caller's checks")
    finally:
        polkit.hang(False)
        polkit.release()
    assert outcome(third)['answered'] == {hpdtest.ERR_NOT_AUTHORIZED: 16}
    assert service.proc.poll() is None


@pytest.mark.fake_kernel(pools=POOLS)
def test_a_polkitd_that_ignores_cancels_keeps_the_places_10_s_at_most(service, conn, fake_kernel,
                                                                      polkit, NOBODY):
    """polkitd answers a cancelled check at once; one that does not (the mock
    here has no CancelCheckAuthorization and holds every answer) does not
    keep the user's places for ever: 10 s after the cancel they are free,
    and the same user's next changes reach polkit again."""
    polkit.hang(True)

    def flood(calls):
        return flood_as(NOBODY, service.bus.address, 1, calls)
    first = flood(16)
    second = None
    try:
        wait_for(lambda: len(polkit.checks()) == 16, 30, "the first caller's checks")
        left = time.monotonic()
        first.kill()
        first.wait()
        wait_for(lambda: service.log().count('after it was cancelled: its slot is free') == 16,
                 20, 'the places to be given back')
        assert time.monotonic() - left >= 9
        second = flood(16)
        wait_for(lambda: len(polkit.checks()) == 32, 10, "the second caller's checks")
    finally:
        polkit.hang(False)
        polkit.release()
    last = [json.loads(line) for line in second.communicate(timeout=30)[0].splitlines()][-1]
    assert last['answered'] == {hpdtest.ERR_NOT_AUTHORIZED: 16}, last
    assert service.proc.poll() is None


@pytest.mark.fake_kernel(pools=POOLS)
def test_the_bus_refusing_a_check_is_busy_for_users_and_lets_root_go_on(make_bus, start_service,
                                                                        fake_kernel, tmp_path,
                                                                        NOBODY):
    """When the bus refuses to carry one more check of the service's to
    polkitd (LimitsExceeded: here a bus that lets a connection have only 4
    calls awaiting replies, while polkitd holds 4), polkit's answer is
    unknown, not no: a user is told Busy, not NotAuthorized, and root goes
    on, as polkitd allows uid 0 every action and as when polkitd is not
    running. The bus used to turn every check of every caller into
    "Authorization failed" for as long as it was full."""
    bus = make_bus(limits={'max_replies_per_connection': 4})
    polkit = Polkit(bus, str(tmp_path / 'polkitd.log'))
    try:
        polkit.reset()
        polkit.hang(True)        # and no action is allowed, root's neither
        svc = start_service(fake_kernel.root, bus=bus, check=True)
        # two connections of three calls: each within the bus's limit itself
        flood = flood_as(NOBODY, bus.address, 2, 3)
        wait_for(lambda: 'LimitsExceeded' in svc.log(), 30, 'the bus to refuse a check')
        assert len(polkit.checks()) == 4
        root = bus.connect()
        try:
            assert hpdtest.pool_call(root, SMALL, 'SetMinimum', 3) == 3
        finally:
            root.close_sync(None)
        assert fake_kernel.read_int(fake_kernel.pool_file(SMALL, 'nr_hugepages')) == 3
        polkit.release()
        last = [json.loads(line) for line in flood.communicate(timeout=30)[0].splitlines()][-1]
        assert last['answered'] == {BUSY: 2, hpdtest.ERR_NOT_AUTHORIZED: 4}, last
    finally:
        polkit.stop()
