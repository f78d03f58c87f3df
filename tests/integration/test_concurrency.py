# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Many changes at once: each gets an answer (success or Busy), changes are
applied one after the other, and the pool ends at the last applied value."""

import json
import os
import re
import subprocess
import time

import pytest

import hpdtest
from hpdtest import ACTION_POOLS, PAGE_SIZE_IFACE, iterate_until, page_size_path
from fakekernel import NodePool, Pool
from gi.repository import Gio, GLib

SMALL = 2048


def send_all(conns, requests, options, messages=None):
    """Sends every (conn index, pages) SetMinimum at once; returns the list
    that collects (pages, 'ok', value) or (pages, 'error', name). The
    messages of Failed errors go to messages when given."""
    replies = []

    def make_done(pages):
        def done(c, result):
            try:
                replies.append((pages, 'ok', c.call_finish(result).unpack()[0]))
            except GLib.Error as e:
                name = Gio.DBusError.get_remote_error(e)
                replies.append((pages, 'error', name))
                if messages is not None and name == hpdtest.ERR_FAILED:
                    messages.append(e.message)
        return done

    for i, pages in requests:
        conns[i].call(hpdtest.BUS_NAME, page_size_path(SMALL), PAGE_SIZE_IFACE, 'SetMinimum',
                      GLib.Variant('(ta{sv})', (pages, options)), GLib.VariantType('(t)'),
                      Gio.DBusCallFlags.NONE, 60000, None, make_done(pages))
    return replies


def applied_minimums(log):
    """[(requested, achieved)] of the applied SetMinimum calls, in order."""
    return [(int(a), int(b)) for a, b in
            re.findall(r'set the 2MB minimum to (\d+) pages; the kernel gave (\d+)', log)]


@pytest.fixture
def callers(bus):
    conns = [bus.connect() for _ in range(4)]
    yield conns
    for c in conns:
        c.close_sync(None)


@pytest.mark.valgrind
def test_parallel_changes_are_serialized(service, callers, fake_kernel, polkit):
    polkit.allow(ACTION_POOLS)
    requests = [(i % len(callers), 100 + i) for i in range(60)]
    messages = []
    replies = send_all(callers, requests, {}, messages)
    iterate_until(lambda: len(replies) == len(requests), 20)
    assert ([r for r in replies if r[1] != 'ok'], messages) == ([], [])
    assert sorted(r[2] for r in replies) == [p for _i, p in requests]
    assert all(r[2] == r[0] for r in replies), replies
    final = fake_kernel.read_int(fake_kernel.pool_file(SMALL, 'nr_hugepages'))
    applied = applied_minimums(service.log())
    assert len(applied) == len(requests)
    assert all(requested == achieved for requested, achieved in applied)
    assert final == applied[-1][0]
    assert hpdtest.page_size_props(callers[0], SMALL)['Minimum'] == final


# Surplus the fake kernel never converts: with "hard" every change retries
# until its timeout, so the queue fills up.
SHORT = {SMALL: Pool(total=4, free=2, surplus=2, overcommit=5,
                     nodes={0: NodePool(2, 1, 1), 1: NodePool(2, 1, 1)})}
BUSY = hpdtest.ERR + 'Busy'


ACTION_TUNABLES = 'org.hugepages.manager.configure-tunables'


def send_shmmax(conns, values):
    """SetShmMax(value) for each value, round robin over conns; returns the
    list that collects (value, 'ok') or (value, error name)."""
    replies = []

    def make_done(value):
        def done(c, result):
            try:
                c.call_finish(result)
                replies.append((value, 'ok'))
            except GLib.Error as e:
                replies.append((value, Gio.DBusError.get_remote_error(e)))
        return done

    for i, value in enumerate(values):
        conns[i % len(conns)].call(hpdtest.BUS_NAME, hpdtest.MANAGER_PATH, hpdtest.MANAGER_IFACE,
                                   'SetShmMax', GLib.Variant('(ta{sv})', (value, {})), None,
                                   Gio.DBusCallFlags.NONE, 60000, None, make_done(value))
    return replies


@pytest.mark.fake_kernel(pools=SHORT)
@pytest.mark.valgrind
def test_a_full_queue_answers_busy(service, callers, fake_kernel, polkit):
    polkit.allow(ACTION_POOLS, ACTION_TUNABLES)
    options = {'hard': GLib.Variant('b', True), 'timeout-ms': GLib.Variant('u', 50)}
    # 64 slow changes authorized in one burst fill the queue (16 per caller,
    # 64 in all: as many as may wait for polkit at once) ...
    polkit.hang(True)
    first = [(i % len(callers), 10 + i) for i in range(64)]
    replies = send_all(callers, first, options)
    iterate_until(lambda: len(polkit.checks()) == len(first), 20)
    polkit.hang(False)
    polkit.release()
    iterate_until(lambda: 'set the 2MB minimum' in service.log(), 10)
    # ... so that the next ones, authorized at once, find it full. These
    # change shmmax: their validation reads no file the worker is
    # rewriting (the fake tree's files are plain files, briefly empty
    # while rewritten; sysfs is never seen half-written).
    second = send_shmmax(callers, [(64 << 20) + i for i in range(36)])
    start = time.monotonic()
    iterate_until(lambda: len(replies) == 64 and len(second) == 36, 30)
    elapsed = time.monotonic() - start
    assert {r[1] for r in replies} == {'ok'}, replies
    assert {r[1] for r in second} <= {'ok', BUSY}, second
    assert any(r[1] == BUSY for r in second), 'no change was refused as Busy with the queue full'
    # successful replies report what was achieved: the 2 surplus pages the
    # fake kernel never converts make most of them short
    assert all(r[2] <= r[0] for r in replies), replies
    assert any(r[2] == r[0] - 2 for r in replies), replies
    assert elapsed < 20
    applied = applied_minimums(service.log())
    assert sorted(applied) == sorted((r[0], r[2]) for r in replies)
    assert hpdtest.page_size_props(callers[0], SMALL)['Minimum'] == applied[-1][1]


# Run as another user: argv[1] is a JSON list of steps, each either
# [pages, hard, timeout_ms] (a SetMinimum sent at once) or a number of
# seconds to wait; prints {"ok" or the error: count} of the answers so
# far, after the steps and again once all are answered.
USER_CHANGES = hpdtest.flood_script(r'''
import json, os, sys, time
from gi.repository import Gio, GLib
address = os.environ["DBUS_SYSTEM_BUS_ADDRESS"]
flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
conn = Gio.DBusConnection.new_for_address_sync(address, flags, None, None)
answers = {}
sent = 0
def done(c, res, _):
    count_reply(answers, c, res, by_message=True)
ctx = GLib.MainContext.default()
def pump(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        ctx.iteration(False) or time.sleep(0.002)
for step in json.loads(sys.argv[1]):
    if not isinstance(step, list):
        pump(step)
        continue
    pages, hard, timeout_ms = step
    options = {"hard": GLib.Variant("b", hard)}
    if timeout_ms:
        options["timeout-ms"] = GLib.Variant("u", timeout_ms)
    conn.call("org.hugepages.Manager", "/org/hugepages/Manager/PageSize/2048kB",
              "org.hugepages.Manager.PageSize", "SetMinimum",
              GLib.Variant("(ta{sv})", (pages, options)), None, Gio.DBusCallFlags.NONE, 60000,
              None, done, None)
    sent += 1
print(json.dumps(answers), flush=True)
while sum(answers.values()) < sent:
    ctx.iteration(True)
print(json.dumps(answers), flush=True)
''')


@pytest.mark.fake_kernel(pools=SHORT)
def test_one_user_cannot_fill_the_queue(service, bus, fake_kernel, polkit):
    """An allowed user (not root) queues changes behind a slow one of its
    own: 16 wait at most (its share of 64), the next are Busy at once,
    and another user's change and root's are still queued and applied."""
    if not fake_kernel.simulating:
        pytest.skip('the fake kernel simulator could not start')
    fk = fake_kernel
    stalled = []
    # only a hard change opens these (the service never reads them), in the
    # worker: the first one waits 2 s
    compact = ['proc/sys/vm/compact_memory'] + [f'sys/devices/system/node/node{n}/compact'
                                                for n in (0, 1)]

    def stall_once(_text):
        if not stalled:
            stalled.append(True)
            time.sleep(2)
        return None
    for rel in compact:
        fk.on_open(rel, stall_once)
    root_conn = bus.connect()
    polkit.allow(ACTION_POOLS)
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus.address)

    def as_user(uid, steps):
        return subprocess.Popen(['setpriv', f'--reuid={uid}', f'--regid={uid}', '--clear-groups',
                                 '/usr/bin/python3', '-c', USER_CHANGES, json.dumps(steps)],
                                stdout=subprocess.PIPE, text=True, env=env, cwd='/')

    # one change that takes 2 s (hard: the fake kernel never converts the
    # surplus, so it compacts), then 15 behind it: its 16 places; then 4 more
    greedy = as_user(1, [[10, True, 4000], 0.3] + [[5, False, 0]] * 15 + [0.5]
                     + [[6, False, 0]] * 4 + [0.5])
    busy = f'GDBus.Error:{BUSY}: Too many changes waiting for this user (16); try again later'
    other = None
    try:
        early = json.loads(greedy.stdout.readline())
        # while the 16 wait behind the slow one
        assert early == {busy: 4}, early
        other = as_user(2, [[7, False, 0]])
        root = send_all([root_conn], [(0, 8)], {})
        greedy_answers = json.loads(greedy.stdout.readline())
        other_answers = json.loads(other.communicate(timeout=30)[0].splitlines()[-1])
        iterate_until(lambda: root, 30)
    finally:
        for p in (greedy, other):
            if p is not None:
                p.kill()
                p.wait()
        for rel in compact:
            fk.on_open(rel, None)
        root_conn.close_sync(None)
    print(f'the greedy user: {greedy_answers}; the other: {other_answers}; root: {root}')
    assert greedy_answers == {'ok': 16, busy: 4}, greedy_answers
    assert other_answers == {'ok': 1}, other_answers
    assert root[0][1] == 'ok', root


def test_checks_waiting_for_polkit_are_bounded(service, callers, fake_kernel, polkit):
    """At most 64 changes wait for polkit at once, 16 per caller: the rest
    are told Busy at once (a system bus would otherwise fail the service's
    129th outstanding check itself, and the caller would hear "not
    authorized"). Once polkit answers, the bound is free again."""
    polkit.allow(ACTION_POOLS)
    polkit.hang(True)
    # one greedy caller: 16 of its 40 reach polkit
    greedy = send_all(callers, [(0, 200 + i) for i in range(40)], {})
    # the mock logs a check when it gets to it, which may be after the
    # service has answered the Busy ones: wait for both
    iterate_until(lambda: len(greedy) == 24 and len(polkit.checks()) == 16, 10)
    assert {r[2] for r in greedy} == {BUSY}
    assert len(polkit.checks()) == 16
    # the others fill the rest: 64 in all
    others = send_all(callers, [(1 + i % 3, 300 + i) for i in range(60)], {})
    iterate_until(lambda: len(others) == 60 - 48 and len(polkit.checks()) == 64, 10)
    assert {r[2] for r in others} == {BUSY}
    assert len(polkit.checks()) == 64
    # reads are not affected
    assert hpdtest.page_size_props(callers[0], SMALL)['Total'] == 0
    polkit.hang(False)
    polkit.release()
    iterate_until(lambda: len(greedy) + len(others) == 100, 20)
    assert sum(1 for r in greedy + others if r[1] == 'ok') == 64
    # and the bound is free again
    assert hpdtest.pool_call(callers[0], SMALL, 'SetMinimum', 7) == 7


def test_2000_changes_from_50_connections(service, bus, fake_kernel, polkit):
    """security.md case 29: 2,000 SetMinimum calls from 50 connections at
    once, polkit slow. Every call is answered (success, Busy or
    NotAuthorized) within a bound, the changes that were applied ran one
    after the other (each read back exactly what it wrote), and the pool
    ends at the value of the last one applied.

    python-dbusmock's SetDelay sleeps in its single thread, so polkit
    answers one check at a time: 5 ms each here (0.5 s, as in security.md,
    would take 1,000 s for 2,000 checks); at most 64 checks wait at once."""
    polkit.allow(ACTION_POOLS)
    polkit.set_delay(0.005)
    conns = [bus.connect() for _ in range(50)]
    torn = []
    try:
        requests = [(i % 50, 1 + i) for i in range(2000)]
        start = time.monotonic()
        replies = send_all(conns, requests, {}, messages=torn)
        iterate_until(lambda: len(replies) == len(requests), 60)
        elapsed = time.monotonic() - start
    finally:
        for c in conns:
            c.close_sync(None)
    outcomes = {}
    for r in replies:
        key = 'ok' if r[1] == 'ok' else r[2]
        outcomes[key] = outcomes.get(key, 0) + 1
    print(f'2000 changes from 50 connections in {elapsed:.1f} s: {outcomes}')
    # The fake tree's nr_hugepages is a plain file that the worker rewrites
    # (open with O_TRUNC, then write): a call validated in between reads it
    # empty and fails. sysfs is never seen half-written; nothing else may fail.
    assert all('nr_hugepages: malformed counter value from the kernel' in m for m in torn), torn
    assert set(outcomes) <= {'ok', BUSY, hpdtest.ERR_NOT_AUTHORIZED, hpdtest.ERR_FAILED}, outcomes
    assert outcomes.get('ok', 0) >= 64
    ok = [r for r in replies if r[1] == 'ok']
    assert all(r[2] == r[0] for r in ok), 'a change read back another one\'s value'
    applied = applied_minimums(service.log())
    assert sorted(p for p, _a in applied) == sorted(r[0] for r in ok)
    assert all(requested == achieved for requested, achieved in applied)
    final = fake_kernel.read_int(fake_kernel.pool_file(SMALL, 'nr_hugepages'))
    assert final == applied[-1][0]
    # the service is alive and not stuck: a change goes through
    c = bus.connect()
    try:
        assert hpdtest.pool_call(c, SMALL, 'SetMinimum', 3) == 3
    finally:
        c.close_sync(None)
