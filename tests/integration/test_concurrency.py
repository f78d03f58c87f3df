"""Many changes at once: each gets an answer (success or Busy), changes are
applied one after the other, and the pool ends at the last applied value."""

import re
import time

import pytest

import hpdtest
from hpdtest import ACTION_POOLS, PAGE_SIZE_IFACE, page_size_path
from fakekernel import NodePool, Pool
from gi.repository import Gio, GLib

SMALL = 2048


def send_all(conns, requests, options):
    """Sends every (conn index, pages) SetMinimum at once; returns the list
    that collects (pages, 'ok', value) or (pages, 'error', name)."""
    replies = []

    def make_done(pages):
        def done(c, result):
            try:
                replies.append((pages, 'ok', c.call_finish(result).unpack()[0]))
            except GLib.Error as e:
                replies.append((pages, 'error', Gio.DBusError.get_remote_error(e)))
        return done

    for i, pages in requests:
        conns[i].call(hpdtest.BUS_NAME, page_size_path(SMALL), PAGE_SIZE_IFACE, 'SetMinimum',
                      GLib.Variant('(ta{sv})', (pages, options)), GLib.VariantType('(t)'),
                      Gio.DBusCallFlags.NONE, 60000, None, make_done(pages))
    return replies


def iterate_until(predicate, timeout):
    ctx = GLib.MainContext.default()
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError('timed out')
        if not ctx.iteration(False):
            time.sleep(0.002)


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


def test_parallel_changes_are_serialized(service, callers, fake_kernel, polkit):
    polkit.allow(ACTION_POOLS)
    requests = [(i % len(callers), 100 + i) for i in range(60)]
    replies = send_all(callers, requests, {})
    iterate_until(lambda: len(replies) == len(requests), 20)
    assert sorted(r[2] for r in replies) == [p for _i, p in requests]
    assert all(r[1] == 'ok' and r[2] == r[0] for r in replies), replies
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


@pytest.mark.fake_kernel(pools=SHORT)
def test_a_full_queue_answers_busy(service, callers, fake_kernel, polkit):
    polkit.allow(ACTION_POOLS)
    polkit.hang(True)  # hold the answers, then release them in one burst
    requests = [(i % len(callers), 10 + i) for i in range(100)]
    options = {'hard': GLib.Variant('b', True), 'timeout-ms': GLib.Variant('u', 20)}
    replies = send_all(callers, requests, options)
    iterate_until(lambda: len(polkit.checks()) == len(requests), 20)
    polkit.release()
    start = time.monotonic()
    iterate_until(lambda: len(replies) == len(requests), 30)
    elapsed = time.monotonic() - start
    outcomes = {r[1] if r[1] == 'ok' else r[2] for r in replies}
    assert outcomes <= {'ok', hpdtest.ERR + 'Busy'}, replies
    busy = sum(1 for r in replies if r[1] == 'error')
    assert busy > 0, 'no change was refused as Busy with 100 waiting'
    assert len(replies) - busy >= 64
    # successful replies report what was achieved: the 2 surplus pages the
    # fake kernel never converts make most of them short
    ok = [r for r in replies if r[1] == 'ok']
    assert all(r[2] <= r[0] for r in ok), ok
    assert any(r[2] == r[0] - 2 for r in ok), ok
    assert elapsed < 20
    applied = applied_minimums(service.log())
    assert len(applied) == len(ok)
    assert sorted(applied) == sorted((r[0], r[2]) for r in ok)
    assert hpdtest.page_size_props(callers[0], SMALL)['Minimum'] == applied[-1][1]
