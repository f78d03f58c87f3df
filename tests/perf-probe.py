#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Quick performance probe of hugepagesd on a fake kernel tree, in the
integration tier's setup (private system-type bus with the real policy,
polkitd mock, the service with --kernel-root). Not a test: it prints
figures to compare before and after a change.

    HUGEPAGESD_BUILDDIR=build /usr/bin/python3 tests/perf-probe.py \
        [--nodes 64] [--sizes 64,2048,32768,1048576,16777216] [--calls 2000] \
        [--config] [--idle 30] [--strace]

Figures: exec to name on the bus; the round trip of Peer.Ping,
GetManagedObjects, Manager GetAll and one PageSize Get on one connection
(median and mean over --calls); VmRSS/RssAnon after start, after the calls
and after --idle seconds; the context switches of all threads over the idle
period (voluntary + nonvoluntary, /proc/PID/task/*/status).
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'integration'))
sys.path.insert(0, HERE)

import hpdtest  # noqa: E402
from conftest import Bus, Polkit  # noqa: E402
from fakekernel import FakeKernel  # noqa: E402

from gi.repository import Gio, GLib  # noqa: E402

CONFIG = '''[pool 2MB]
minimum = 4
maximum = 8

[pool 1GB]
node0 = 1
node1 = 1

[shm]
max = recommended

[boot]
default-page-size = 2MB
'''


def status_fields(pid, *names):
    values = {}
    with open(f'/proc/{pid}/status') as f:
        for line in f:
            key, _, rest = line.partition(':')
            if key in names:
                values[key] = int(rest.split()[0])
    return values


def context_switches(pid):
    total = 0
    for tid in os.listdir(f'/proc/{pid}/task'):
        try:
            fields = status_fields(f'{pid}/task/{tid}', 'voluntary_ctxt_switches',
                                   'nonvoluntary_ctxt_switches')
        except FileNotFoundError:
            continue
        total += sum(fields.values())
    return total


def memory(pid):
    f = status_fields(pid, 'VmRSS', 'RssAnon', 'RssFile')
    return f"VmRSS {f['VmRSS']} kB, RssAnon {f['RssAnon']} kB, RssFile {f['RssFile']} kB"


def cpu_ms(pid):
    with open(f'/proc/{pid}/stat') as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf('SC_CLK_TCK')


CPU = {}


def time_calls(conn, n, dest, path, iface, method, args=None):
    pids = CPU.get('pids', ())
    before = [cpu_ms(p) for p in pids]
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        conn.call_sync(dest, path, iface, method, args, None,
                       Gio.DBusCallFlags.NONE, -1, None)
        samples.append(time.perf_counter() - t0)
    CPU['last'] = [(cpu_ms(p) - b) / n for p, b in zip(pids, before)]
    return statistics.median(samples) * 1e3, statistics.mean(samples) * 1e3


def CPU_WRAP(*args):  # noqa: N802
    median, mean = time_calls(*args)
    return median, mean, CPU['last']


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--nodes', type=int, default=64)
    parser.add_argument('--sizes', default='64,2048,32768,1048576,16777216')
    parser.add_argument('--calls', type=int, default=2000)
    parser.add_argument('--config', action='store_true', help='write a configuration file')
    parser.add_argument('--idle', type=float, default=0, help='seconds of idle to watch')
    parser.add_argument('--strace', action='store_true',
                        help='strace -c -f the service during the GetManagedObjects calls')
    parser.add_argument('--perf', metavar='FILE',
                        help='perf record -g the service into FILE during the GetManagedObjects calls')
    parser.add_argument('--env', action='append', default=[], metavar='NAME=VALUE',
                        help='environment of the service (G_SLICE=always-malloc spares GLib < 2.76 '
                             'its restart)')
    parser.add_argument('--starts', type=int, default=1,
                        help='start the service this many times, for exec to name on the bus')
    parser.add_argument('--keep', action='store_true')
    opts = parser.parse_args()

    builddir = os.path.abspath(os.environ.get('HUGEPAGESD_BUILDDIR') or
                               os.path.join(hpdtest.REPO, 'build'))
    binary = os.path.join(builddir, 'src', 'hugepagesd')
    work = tempfile.mkdtemp(prefix='hpd-perf-')
    os.chmod(work, 0o755)
    bus_dir = os.path.join(work, 'bus')
    os.mkdir(bus_dir)
    bus = Bus(bus_dir)
    os.environ['DBUS_SYSTEM_BUS_ADDRESS'] = bus.address
    polkit = Polkit(bus, os.path.join(work, 'polkit.log'))
    sizes = [int(s) for s in opts.sizes.split(',')]
    fk = FakeKernel(os.path.join(work, 'kernel'), nodes=opts.nodes, sizes=sizes,
                    default_size=2048 if 2048 in sizes else None)
    if opts.config:
        fk.write('etc/hugepagesd/hugepagesd.conf', CONFIG)
    conn = bus.connect()
    proc = None
    try:
        log = open(os.path.join(work, 'hugepagesd.log'), 'w')
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus.address)
        env.update(item.split('=', 1) for item in opts.env)
        starts = []
        for i in range(opts.starts):
            if proc is not None:
                proc.terminate()
                proc.wait(5)
                while hpdtest.owner_pid(conn) is not None:
                    time.sleep(0.001)
            t0 = time.perf_counter()
            proc = subprocess.Popen([binary, '--kernel-root', fk.root], stdout=log,
                                    stderr=subprocess.STDOUT, env=env)
            while hpdtest.owner_pid(conn) != proc.pid:
                if proc.poll() is not None:
                    sys.exit(f'hugepagesd exited {proc.returncode}; log in {work}')
                time.sleep(0.0005)
            starts.append((time.perf_counter() - t0) * 1e3)
        print(f'exec to name on the bus: median {statistics.median(starts):.1f} ms, '
              f'min {min(starts):.1f} ms of {len(starts)} '
              f'({opts.nodes} nodes, {len(sizes)} sizes, config {"yes" if opts.config else "no"})')
        time.sleep(0.5)
        print(f'memory after start: {memory(proc.pid)}')

        dest = hpdtest.BUS_NAME
        mp = hpdtest.MANAGER_PATH
        ps = hpdtest.PAGE_SIZE_PREFIX + '2048kB'
        n = opts.calls
        # warm up
        time_calls(conn, 20, dest, mp, 'org.freedesktop.DBus.ObjectManager', 'GetManagedObjects')
        results = {}
        CPU['pids'] = (proc.pid, bus.pid)
        results['Ping'] = CPU_WRAP(conn, n, dest, mp, 'org.freedesktop.DBus.Peer', 'Ping')
        strace = None
        if opts.strace:
            strace_out = os.path.join(work, 'strace.txt')
            strace = subprocess.Popen(['strace', '-c', '-f', '-o', strace_out, '-p', str(proc.pid)],
                                      stderr=subprocess.DEVNULL)
            time.sleep(0.5)
        if opts.perf:
            strace = subprocess.Popen(['perf', 'record', '-g', '-o', opts.perf, '-p', str(proc.pid)],
                                      stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
            time.sleep(0.5)
        results['GetManagedObjects'] = CPU_WRAP(conn, n, dest, mp,
                                                  'org.freedesktop.DBus.ObjectManager',
                                                  'GetManagedObjects')
        if strace is not None:
            strace.send_signal(2 if opts.perf else 15)
            strace.wait()
        if opts.strace:
            with open(strace_out) as f:
                print(f'strace -c -f over {n} GetManagedObjects:\n' + f.read())
        results['Manager GetAll'] = CPU_WRAP(conn, n, dest, mp, hpdtest.PROPS_IFACE, 'GetAll',
                                               GLib.Variant('(s)', (hpdtest.MANAGER_IFACE,)))
        results['Manager Get Drift'] = CPU_WRAP(conn, n, dest, mp, hpdtest.PROPS_IFACE, 'Get',
                                                  GLib.Variant('(ss)', (hpdtest.MANAGER_IFACE,
                                                                        'Drift')))
        results['PageSize Get Total'] = CPU_WRAP(conn, n, dest, ps, hpdtest.PROPS_IFACE, 'Get',
                                                   GLib.Variant('(ss)', (hpdtest.PAGE_SIZE_IFACE,
                                                                         'Total')))
        ping = results['Ping'][0]
        for name, (median, mean, cpu) in results.items():
            print(f'{name:20s} median {median:7.3f} ms  mean {mean:7.3f} ms  '
                  f'{median / ping:5.2f}x Ping  CPU/call: service {cpu[0]:.3f} ms, '
                  f'bus {cpu[1]:.3f} ms')
        print(f'memory after calls: {memory(proc.pid)}')

        if opts.idle > 0:
            time.sleep(3)   # settle: a trim after the last call may come
            before = context_switches(proc.pid)
            time.sleep(opts.idle)
            after = context_switches(proc.pid)
            print(f'context switches over {opts.idle:g} s idle: {after - before}')
            print(f'memory after idle: {memory(proc.pid)}')
    finally:
        if proc is not None and proc.poll() is None:
            proc.terminate()
            proc.wait(5)
        conn.close_sync(None)
        polkit.stop()
        bus.stop()
        fk.stop()
        if opts.keep:
            print(f'kept {work}')
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
