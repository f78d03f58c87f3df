# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Process lifecycle: losing the bus is a failure exit (so systemd restarts
the service), SIGTERM is a clean exit, --replace takes the name over
(security.md cases 36 and 37)."""

import os
import random
import shutil
import signal
import subprocess
import time

import pytest

import hpdtest
from fakekernel import AllocationModel, FakeKernel, NodePool, Pool
from hpdtest import ACTION_POOLS, page_size_path
from gi.repository import Gio, GLib


@pytest.mark.valgrind
def test_sigterm_exits_zero(start_service, fake_kernel, conn, polkit):
    svc = start_service(fake_kernel.root)
    assert svc.owns_name(conn)
    svc.proc.send_signal(signal.SIGTERM)
    assert svc.wait_exit(3) == 0, svc.log()
    deadline = time.monotonic() + 2
    while hpdtest.name_owner(conn) is not None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert hpdtest.name_owner(conn) is None


@pytest.mark.valgrind
def test_sigint_exits_zero(start_service, fake_kernel, polkit):
    svc = start_service(fake_kernel.root)
    svc.proc.send_signal(signal.SIGINT)
    assert svc.wait_exit(3) == 0, svc.log()


@pytest.mark.valgrind
def test_losing_the_bus_is_a_failure_exit(make_bus, start_service, fake_kernel, hugepagesd):
    own = make_bus()
    svc = start_service(fake_kernel.root, bus=own)
    own.proc.kill()
    own.proc.wait()
    start = time.monotonic()
    status = svc.wait_exit(3)
    elapsed = time.monotonic() - start
    assert status is not None, 'hugepagesd still runs after its bus died'
    assert status != 0, f'hugepagesd exited {status} after losing the bus'
    assert status > 0, f'hugepagesd died of signal {-status} instead of exiting'
    # security.md case 36: within about a second (the tools slow it down)
    limit = 1.0 if hpdtest.plain_build(hugepagesd) else 10.0
    assert elapsed < limit, f'hugepagesd took {elapsed:.2f}s to notice the bus died'


def test_after_losing_the_bus_the_next_start_is_clean(make_bus, start_service, fake_kernel,
                                                      polkit):
    """security.md case 36, the restart: what systemd would do next works,
    and the new instance serves the kernel as it is."""
    own = make_bus()
    svc = start_service(fake_kernel.root, bus=own)
    own.proc.kill()
    own.proc.wait()
    assert svc.wait_exit(3) not in (None, 0)
    again = make_bus()
    start_service(fake_kernel.root, bus=again, check=True)
    c = again.connect()
    try:
        total = hpdtest.get(c, page_size_path(2048), hpdtest.PAGE_SIZE_IFACE, 'Total')
        assert total == fake_kernel.read_int(fake_kernel.pool_file(2048, 'nr_hugepages'))
    finally:
        c.close_sync(None)


@pytest.mark.valgrind
def test_replace_takes_over_the_name(start_service, fake_kernel, conn, polkit, tmp_path):
    first = start_service(fake_kernel.root)
    assert first.owns_name(conn)
    other = tmp_path / 'other'
    FakeKernel(other, nodes=1, sizes=(2048,))
    second = start_service(str(other), args=['--replace'], check=True)
    assert second.owns_name(conn)
    # the replaced instance leaves, successfully: a service manager must not
    # restart it into a fight over the name; the name now serves the second tree
    status = first.wait_exit(3)
    assert status is not None, 'the replaced hugepagesd keeps running'
    assert status == 0, f'replaced instance exited {status}\n{first.log()}'
    assert hpdtest.manager_props(conn)['PageSizes'] == [2 << 20]
    assert hpdtest.get(conn, page_size_path(2048), hpdtest.PAGE_SIZE_IFACE, 'Size') == 2 << 20


@pytest.mark.valgrind
def test_second_instance_without_replace_gives_up(start_service, fake_kernel, conn, polkit):
    first = start_service(fake_kernel.root, check=True)
    second = start_service(fake_kernel.root, wait=False)
    status = second.wait_exit(3)
    assert status is not None and status != 0, f'second instance: {status}\n{second.log()}'
    assert first.owns_name(conn)


@pytest.mark.valgrind
def test_bad_kernel_root_fails_to_start(start_service, tmp_path, fake_kernel):
    # a hugepages directory but no /proc/meminfo: the daemon cannot tell the
    # default size and must refuse to start rather than guess
    fake_kernel.remove('proc/meminfo')
    svc = start_service(fake_kernel.root, wait=False)
    status = svc.wait_exit(3)
    assert status is not None and status != 0, svc.log()



def test_starts_with_one_exec(hugepagesd, tmp_path):
    # GSlice is made to use malloc from the program's .preinit_array
    # (src/bus/hpd-allocators.h), not by executing the program again with
    # G_SLICE set: a second exec doubled the time to the name on the bus
    strace = shutil.which('strace')
    if strace is None:
        pytest.skip('strace is not installed')
    trace = tmp_path / 'execve.txt'
    env = {k: v for k, v in os.environ.items() if k != 'G_SLICE'}
    # LeakSanitizer cannot run under a tracer (it stops the threads with
    # ptrace itself): the ASan tier would abort at exit
    env['ASAN_OPTIONS'] = ':'.join(filter(None, [env.get('ASAN_OPTIONS'), 'detect_leaks=0']))
    subprocess.run([strace, '-f', '-qq', '-e', 'trace=execve', '-o', str(trace),
                    hugepagesd, '--version'], env=env, check=True, capture_output=True,
                   timeout=60)
    execs = [line for line in trace.read_text().splitlines() if 'execve(' in line]
    assert len(execs) == 1, execs


# --- security.md case 37: SIGTERM during a long change or a config write -----

ADMIN = 'etc/hugepagesd/hugepagesd.conf.d'
OWN = f'{ADMIN}/90-persisted.conf'
PERSIST = {'persist': GLib.Variant('b', True)}
# surplus the fake kernel never converts: the pool falls short
SHORT = {2048: Pool(total=4, free=2, surplus=2, overcommit=5,
                    nodes={0: NodePool(2, 1, 1), 1: NodePool(2, 1, 1)})}
# a "hard" change retries only while tries gain pages: with the simulator,
# every compaction finds one more page per node, so a large request keeps
# it busy; without it, the change stalls at once
LONG_PAGES = 2000
COMPACT_FILES = ('proc/sys/vm/compact_memory', 'sys/devices/system/node/node0/compact',
                 'sys/devices/system/node/node1/compact')


def send(conn, pages, opts):
    conn.call(hpdtest.BUS_NAME, page_size_path(2048), hpdtest.PAGE_SIZE_IFACE, 'SetMinimum',
              GLib.Variant('(ta{sv})', (pages, opts)), None, Gio.DBusCallFlags.NONE, 30000, None,
              None, None)


def pump(seconds, until=lambda: False):
    ctx = GLib.MainContext.default()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not until():
        if not ctx.iteration(False):
            time.sleep(0.001)


def saved_pages(fk):
    """The minimum in the service's drop-in, None without one; fails on a
    file that is not one whole version."""
    if not fk.exists(OWN):
        return None
    body = fk.read(OWN).split('\n\n', 1)[1]
    assert body.startswith('[pool 2MB]\nminimum = ') and body.endswith('\n'), body
    lines = body.splitlines()
    assert len(lines) == 2, body
    return int(lines[1].split(' = ')[1])


@pytest.mark.fake_kernel(pools=SHORT)
def test_sigterm_during_a_long_change_exits_at_once(start_service, bus, fake_kernel, polkit,
                                                   hugepagesd):
    polkit.allow(ACTION_POOLS)
    model = None
    if fake_kernel.simulating:
        model = AllocationModel(fake_kernel, 2048, {0: 1, 1: 1}, step=1,
                                ceiling={0: 10**6, 1: 10**6}).install()
    svc = start_service(fake_kernel.root)
    conn = bus.connect()

    def compacted():
        if model is not None:
            return bool(model.compactions)
        return any(fake_kernel.read(f) != '' for f in COMPACT_FILES)

    try:
        # up to ten seconds of compaction and retries, to be saved if it ends
        send(conn, LONG_PAGES, {'hard': GLib.Variant('b', True),
                                'timeout-ms': GLib.Variant('u', 10000), **PERSIST})
        # running: it has compacted memory at least once
        pump(5, compacted)
        assert compacted(), svc.log()
        # reads are answered while it runs (security.md case 21)
        t = time.monotonic()
        assert hpdtest.get(conn, page_size_path(2048), hpdtest.PAGE_SIZE_IFACE, 'Total') >= 0
        assert time.monotonic() - t < 0.5
        time.sleep(0.2)
        started = time.monotonic()
        svc.proc.send_signal(signal.SIGTERM)
        status = svc.wait_exit(5)
        elapsed = time.monotonic() - started
    finally:
        conn.close_sync(None)
        if model is not None:
            model.remove()
    assert status == 0, svc.log()
    assert elapsed < (2 if hpdtest.plain_build(hugepagesd) else 20), \
        f'took {elapsed:.1f} s to stop during a change'
    # Cancelling ends the retries early, as a timeout would: what the kernel
    # gave stays, and the request is saved as asked, as for any shortfall
    # (Drift shows it). Either way one whole file and no temporary one.
    assert saved_pages(fake_kernel) in (None, LONG_PAGES)
    if fake_kernel.exists(ADMIN):
        assert os.listdir(fake_kernel.path(ADMIN)) in ([], ['90-persisted.conf'])


def test_sigterm_while_persisting_leaves_a_whole_file(start_service, bus, fake_kernel, polkit,
                                                     hugepagesd):
    """SIGTERM at random moments while persisted changes are being written:
    the service exits 0 within a second, the file is one whole version (the
    old or a new one) and no temporary file is left, not even for the next
    start to clean."""
    polkit.allow(ACTION_POOLS)
    rng = random.Random(37)
    seen = set()
    for round_ in range(10):
        svc = start_service(fake_kernel.root)
        conn = bus.connect()
        try:
            before = saved_pages(fake_kernel)
            for i in range(16):
                send(conn, round_ * 100 + i + 1, PERSIST)
            pump(10, lambda: (saved_pages(fake_kernel) or 0) > round_ * 100)
            pump(rng.uniform(0.0, 0.02))
            started = time.monotonic()
            svc.proc.send_signal(signal.SIGTERM)
            status = svc.wait_exit(5)
            elapsed = time.monotonic() - started
        finally:
            conn.close_sync(None)
        assert status == 0, svc.log()
        assert elapsed < (1.0 if hpdtest.plain_build(hugepagesd) else 10.0), \
            f'round {round_}: {elapsed:.2f} s to stop'
        pages = saved_pages(fake_kernel)
        assert pages == before or round_ * 100 < pages <= round_ * 100 + 16, (before, pages)
        seen.add(pages)
        assert os.listdir(fake_kernel.path(ADMIN)) == ['90-persisted.conf'], round_
    assert len(seen) >= 5, seen
