# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Fixtures of the integration tier: a private system-type dbus-daemon with the
project's real bus policy, python-dbusmock's polkitd, and hugepagesd running
on a fake kernel tree. Run as root with Debian's interpreter:

    HUGEPAGESD_BUILDDIR=build /usr/bin/python3 -m pytest tests/integration

Fixture names are stable (test_client.py and others rely on them):

  builddir        the meson build dir: $HUGEPAGESD_BUILDDIR, else <repo>/build.
  hugepagesd      path of the built daemon.
  bus             session-wide private bus (Bus: .address, .pid, .proc,
                  .connect()). Its config is <type>system</type>, the stock
                  system default policy (deny own, deny method calls), an
                  <includedir> of the repo's data/dbus (so the REAL
                  org.hugepages.Manager.conf applies), and a test-only policy
                  letting root own org.freedesktop.PolicyKit1 for the mock.
                  DBUS_SYSTEM_BUS_ADDRESS points at it for the whole session
                  (also for every child process).
  make_bus        factory: make_bus() -> a further private Bus with the same
                  config, stopped at teardown (for tests that kill a bus).
  activating_bus  factory: activating_bus(kernel_root, idle_timeout=None,
                  args=()) -> ActivatingBus: a further private Bus with the
                  same config plus a <servicedir> whose
                  org.hugepages.Manager.service makes the bus itself start
                  hugepagesd (--kernel-root kernel_root, -v, --idle-timeout
                  when given, args) for the first call to the name, as D-Bus
                  activation does; and its own polkitd mock (.polkit, reset
                  like `polkit`). The bus runs Exec directly (a system-type
                  bus without <servicehelper> needs no setuid launch helper)
                  and points DBUS_SYSTEM_BUS_ADDRESS of the child at itself.
                  .started() and .exited() list the instances it started
                  (pid; pid -> exit status), .wait_exit(pid, timeout),
                  .log() is the instances' shared log. Instances still
                  running at teardown get SIGTERM.
  polkit          the mock polkitd on `bus`, reset for every test to: deny
                  everything, no delay, no hang, empty call log. Methods:
                  allow(*actions), allow_unknown(bool), set_delay(seconds),
                  hang(bool), hang_actions(list), release(), have_hanging(),
                  checks() -> [Check(subject, action, details, flags,
                  cancellation_id)] of the CheckAuthorization calls so far.
  fake_kernel     a tests/fakekernel.FakeKernel in a fresh directory. Default
                  layout: 2 NUMA nodes, sizes 2048 kB (default) and 1048576 kB
                  (gigantic, no overcommit file), 16 GiB MemTotal, empty pools.
                  Change it per test with the marker
                  @pytest.mark.fake_kernel(**FakeKernel keyword arguments),
                  and parent='DIR' for a directory of its own inside DIR
                  (default: the session's, below the temporary directory).
                  The tree has the tunables of a 6.x kernel (fakekernel.Tunables)
                  and runs the fake kernel's simulator (fk.simulating), so
                  THP choice files read back with the written keyword in
                  brackets and fk.limit_pool() can make a pool fall short.
                  No proc/self/mountinfo unless mounts=[fakekernel.Mount(...)]
                  is given (or fake_kernel.write_mountinfo() is called).
  service         hugepagesd on `bus` and `fake_kernel` (Service: .proc, .pid,
                  .log_path, .log(), .args). After the test it must still be
                  alive with the same pid, then SIGTERM must make it exit 0.
                  Its log is attached to the report of a failing test.
  start_service   factory: start_service(kernel_root, bus=None, args=(),
                  wait=True, check=False) -> Service. check=True adds the
                  alive-and-same-pid check at teardown; every service left
                  running is stopped at teardown.
  conn            a root Gio.DBusConnection to `bus`.
  run_as          run_as(uid, argv, gid=None, env=None, **subprocess_kw) ->
                  CompletedProcess: runs argv via `setpriv --reuid --regid
                  --clear-groups` with DBUS_SYSTEM_BUS_ADDRESS of `bus` (pass
                  env to add variables or override it); text mode, output
                  captured, timeout 30 s.
  run_python_as   run_python_as(uid, ops) -> results of hpdtest.CLIENT_SCRIPT
                  (reads and calls as that user; see hpdtest.py).
  NOBODY          the uid/gid used for unprivileged callers (65534).

The service is always started with --kernel-root pointing at a temporary
fake tree; nothing here touches the real kernel.

Memory checking (tests/run-all's asan and valgrind tiers):
  HUGEPAGESD_WRAPPER        a command prefix (shlex syntax) for every
                            hugepagesd that Service and ActivatingBus start,
                            e.g. "valgrind --error-exitcode=99 ...". The
                            pid stays the service's (the wrapper must exec).
  HUGEPAGESD_TIMEOUT_FACTOR multiplies START_TIMEOUT and the waits for a
                            service to exit (default 1; 6 with a wrapper).
  Every service log (Service, ActivatingBus) is scanned at teardown for
  AddressSanitizer, LeakSanitizer, UndefinedBehaviorSanitizer and valgrind
  reports (memory_errors()); any fails the test.
"""

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hpdtest  # noqa: E402

sys.path.insert(0, hpdtest.TESTS_DIR)
from fakekernel import FakeKernel  # noqa: E402

from gi.repository import GLib  # noqa: E402

NOBODY = 65534
WRAPPER = shlex.split(os.environ.get('HUGEPAGESD_WRAPPER', ''))
TIMEOUT_FACTOR = float(os.environ.get('HUGEPAGESD_TIMEOUT_FACTOR') or (6 if WRAPPER else 1))
START_TIMEOUT = 10.0 * TIMEOUT_FACTOR

# What a sanitizer or valgrind prints for an error or a leak; a service log
# with any of these fails the test (see memory_errors()). Also valgrind's
# warning for a system call it cannot run (it returns ENOSYS instead): the
# test would then check another path than the one it means to. Except
# openat2 (437), which Debian 12's valgrind 3.19 lacks: the service then
# reports mounts without their root's facts, which no valgrind-marked test
# checks (they run in the plain and ASan tiers).
MEMORY_ERROR = re.compile(
    r'ERROR: (AddressSanitizer|LeakSanitizer)'
    r'|^\S+:\d+:\d+: runtime error: |SUMMARY: UndefinedBehaviorSanitizer'
    r'|^==\d+== ERROR SUMMARY: [1-9]|^==\d+== +definitely lost: [1-9]'
    r'|^==\d+== (Invalid (read|write|free)|Conditional jump|Use of uninitialised'
    r'|Syscall param|Mismatched free|Source and destination overlap)'
    r'|^--\d+-- WARNING: unhandled \S+ syscall: (?!437\b)')


def memory_errors(text):
    """The lines of @text (a service log) that report a memory error or leak."""
    return [line for line in text.splitlines() if MEMORY_ERROR.search(line)]


def memory_problems(title, path, most=10):
    """['<title>: <report line>', ...] for the memory errors in the log at @path
    (each line once, at most @most of them; the log is in the test's report)."""
    try:
        with open(path, errors='replace') as f:
            found = list(dict.fromkeys(memory_errors(f.read())))
    except OSError:
        return []
    if len(found) > most:
        found[most:] = [f'... {len(found) - most} more']
    return [f'{title}: {line}' for line in found]


BUS_CONFIG = '''<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>

  <!-- the stock system bus default policy (/usr/share/dbus-1/system.conf) -->
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus"
           send_interface="org.freedesktop.DBus" />
    <allow send_destination="org.freedesktop.DBus"
           send_interface="org.freedesktop.DBus.Introspectable"/>
    <allow send_destination="org.freedesktop.DBus"
           send_interface="org.freedesktop.DBus.Properties"/>
    <deny send_destination="org.freedesktop.DBus"
          send_interface="org.freedesktop.DBus"
          send_member="UpdateActivationEnvironment"/>
    <deny send_destination="org.freedesktop.DBus"
          send_interface="org.freedesktop.DBus.Debug.Stats"/>
    <deny send_destination="org.freedesktop.DBus"
          send_interface="org.freedesktop.systemd1.Activator"/>
  </policy>

  <!-- test only: the polkitd mock, as polkit's own policy allows it -->
  <policy user="root">
    <allow own="org.freedesktop.PolicyKit1"/>
    <allow send_destination="org.freedesktop.PolicyKit1"/>
  </policy>
  <policy context="default">
    <allow send_destination="org.freedesktop.PolicyKit1"
           send_interface="org.freedesktop.PolicyKit1.Authority"/>
    <allow send_destination="org.freedesktop.PolicyKit1"
           send_interface="org.freedesktop.DBus.Properties"/>
    <allow send_destination="org.freedesktop.PolicyKit1"
           send_interface="org.freedesktop.DBus.Introspectable"/>
  </policy>

  <!-- the project's real policy -->
  <includedir>{policy_dir}</includedir>
{servicedir}{limits}</busconfig>
'''


def pytest_configure(config):
    config.addinivalue_line('markers', 'fake_kernel(**kwargs): FakeKernel arguments for the fake_kernel fixture')
    config.addinivalue_line('markers', 'service_args(*args): further hugepagesd arguments '
                            'for fixtures that start it (test_idle_exit.py, test_live.py)')
    config.addinivalue_line('markers', 'valgrind(first=N): in the subset that tests/run-all --tier '
                            'valgrind runs (every method and code path; see docs/testing.md), with the '
                            'first N parametrizations only if first is given')
    config.addinivalue_line('markers', 'hostile: the adversarial tests, every test of a test_sec_*.py '
                            'file (set by file name); tests/run-all --tier asan runs them and the '
                            'valgrind subset')


NOT_ROOT = 'hugepagesd integration tests need root (bus policy as root, setpriv clients)'


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    if os.geteuid() != 0:
        skip = pytest.mark.skip(reason=NOT_ROOT)
        for item in items:
            item.add_marker(skip)
    for item in items:
        if item.path.name.startswith('test_sec_'):
            item.add_marker(pytest.mark.hostile)
    # In the valgrind subset (-m valgrind) a test marked valgrind(first=N)
    # runs with its first N parametrizations only.
    if 'valgrind' in (config.getoption('markexpr') or ''):
        seen = {}
        keep, drop = [], []
        for item in items:
            marker = item.get_closest_marker('valgrind')
            first = marker.kwargs.get('first') if marker else None
            key = (str(item.path), getattr(item, 'originalname', item.name))
            seen[key] = seen.get(key, 0) + 1
            (drop if first is not None and seen[key] > first else keep).append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep


def pytest_report_header(config):
    if os.geteuid() != 0:
        return f'!!! {NOT_ROOT}: ALL SKIPPED !!!'
    return None


def pytest_terminal_summary(terminalreporter):
    if os.geteuid() != 0:
        terminalreporter.write_sep('!', f'SKIPPED: {NOT_ROOT}', red=True, bold=True)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        for title, path in getattr(item, '_hpd_logs', []):
            try:
                with open(path, errors='replace') as f:
                    text = f.read()
            except OSError as e:
                text = f'(cannot read {path}: {e})'
            report.sections.append((title, text[-20000:]))


def attach_log(request, title, path):
    if not hasattr(request.node, '_hpd_logs'):
        request.node._hpd_logs = []
    request.node._hpd_logs.append((title, path))


@pytest.fixture(scope='session')
def builddir():
    path = os.environ.get('HUGEPAGESD_BUILDDIR') or os.path.join(hpdtest.REPO, 'build')
    return os.path.abspath(path)


@pytest.fixture(scope='session')
def hugepagesd(builddir):
    path = os.path.join(builddir, 'src', 'hugepagesd')
    if not os.access(path, os.X_OK):
        pytest.fail(f'{path} is not built (set HUGEPAGESD_BUILDDIR or build {builddir})')
    return path


def wait_for(predicate, timeout, what, interval=0.01):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f'timed out after {timeout}s waiting for {what}')
        time.sleep(interval)


class Bus:
    """A private dbus-daemon of type system with the project's policy."""

    def __init__(self, directory, servicedir=None, limits=None):
        self.dir = directory
        os.chmod(directory, 0o755)  # unprivileged clients must reach the socket
        self.socket = os.path.join(directory, 'system_bus_socket')
        self.config = os.path.join(directory, 'bus.conf')
        self.log_path = os.path.join(directory, 'dbus-daemon.log')
        activation = f'  <servicedir>{servicedir}</servicedir>\n' if servicedir else ''
        # limits other than the stock system bus's, e.g. {'max_replies_per_connection': 4}
        limit_lines = ''.join(f'  <limit name="{name}">{value}</limit>\n'
                              for name, value in (limits or {}).items())
        with open(self.config, 'w') as f:
            f.write(BUS_CONFIG.format(socket=self.socket, policy_dir=hpdtest.POLICY_DIR,
                                      servicedir=activation, limits=limit_lines))
        with open(self.log_path, 'w') as log:
            self.proc = subprocess.Popen(
                ['dbus-daemon', '--config-file=' + self.config, '--nofork', '--nopidfile',
                 '--print-address=1'],
                stdout=subprocess.PIPE, stderr=log, text=True)
        line = self.proc.stdout.readline().strip()
        if not line:
            raise RuntimeError(f'dbus-daemon did not start; see {self.log_path}')
        self.address = line
        self.pid = self.proc.pid

    def connect(self):
        return hpdtest.connect(self.address)

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        hpdtest.stop_process(self.proc)
        self.proc.stdout.close()


@pytest.fixture(scope='session')
def _session_dir():
    d = tempfile.mkdtemp(prefix='hpd-it-')
    os.chmod(d, 0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope='session')
def bus(_session_dir):
    d = os.path.join(_session_dir, 'bus')
    os.mkdir(d)
    b = Bus(d)
    old = os.environ.get('DBUS_SYSTEM_BUS_ADDRESS')
    os.environ['DBUS_SYSTEM_BUS_ADDRESS'] = b.address
    yield b
    if old is None:
        os.environ.pop('DBUS_SYSTEM_BUS_ADDRESS', None)
    else:
        os.environ['DBUS_SYSTEM_BUS_ADDRESS'] = old
    b.stop()


@pytest.fixture
def make_bus(_session_dir, request):
    buses = []

    def make(limits=None):
        d = tempfile.mkdtemp(prefix='bus-', dir=_session_dir)
        b = Bus(d, limits=limits)
        attach_log(request, f'dbus-daemon log ({d})', b.log_path)
        buses.append(b)
        return b

    yield make
    for b in buses:
        b.stop()


@pytest.fixture(scope='session')
def conn(bus):
    c = bus.connect()
    yield c
    c.close_sync(None)


@dataclass
class Check:
    subject: tuple
    action: str
    details: dict
    flags: int
    cancellation_id: str


class Polkit:
    """Controls python-dbusmock's polkitd template on a bus."""

    NAME = 'org.freedesktop.PolicyKit1'
    PATH = '/org/freedesktop/PolicyKit1/Authority'
    MOCK = 'org.freedesktop.DBus.Mock'

    def __init__(self, bus, log_path):
        self.bus = bus
        self.log_path = log_path
        self.conn = bus.connect()
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus.address)
        with open(log_path, 'w') as log:
            self.proc = subprocess.Popen(
                ['/usr/bin/python3', '-m', 'dbusmock', '--system', '--template', 'polkitd'],
                stdout=log, stderr=subprocess.STDOUT, env=env)
        wait_for(lambda: self.proc.poll() is not None or hpdtest.has_owner(self.conn, self.NAME),
                 START_TIMEOUT, 'the polkitd mock')
        if self.proc.poll() is not None:
            raise RuntimeError(f'the polkitd mock exited; see {log_path}')

    def _mock(self, method, sig=None, args=None, reply=None):
        return hpdtest.call(self.conn, self.PATH, self.MOCK, method,
                            GLib.Variant(sig, args) if sig else None, reply, dest=self.NAME)

    def reset(self):
        assert self.proc.poll() is None, 'the polkitd mock died'
        self._mock('SetAllowed', '(as)', ([],))
        self._mock('AllowUnknown', '(b)', (False,))
        self._mock('SetDelay', '(d)', (0.0,))
        self._mock('SimulateHang', '(b)', (False,))
        self._mock('SimulateHangActions', '(as)', ([],))
        self.release()
        self._mock('ClearCalls')

    def allow(self, *actions):
        self._mock('SetAllowed', '(as)', (list(actions),))

    def allow_unknown(self, value=True):
        self._mock('AllowUnknown', '(b)', (value,))

    def set_delay(self, seconds):
        self._mock('SetDelay', '(d)', (float(seconds),))

    def hang(self, value=True):
        self._mock('SimulateHang', '(b)', (value,))

    def hang_actions(self, actions):
        self._mock('SimulateHangActions', '(as)', (list(actions),))

    def release(self):
        self._mock('ReleaseHangingCalls')

    def have_hanging(self):
        return bool(self._mock('HaveHangingCalls', reply='(b)')[0])

    def checks(self):
        calls = self._mock('GetMethodCalls', '(s)', ('CheckAuthorization',), '(a(tav))')[0]
        result = []
        for _timestamp, args in calls:
            subject, action, details, flags, cancellation_id = args
            result.append(Check(tuple(subject), action, dict(details), flags, cancellation_id))
        return result

    def record_cancels(self):
        """Gives the mock polkitd's CancelCheckAuthorization, which the
        template lacks. It only records the call: the template's hanging
        calls do not keep their cancellation id, so release() answers them."""
        self._mock('AddMethod', '(sssss)', ('org.freedesktop.PolicyKit1.Authority',
                                            'CancelCheckAuthorization', 's', '', ''))

    def cancels(self):
        """The cancellation ids CancelCheckAuthorization was called with."""
        calls = self._mock('GetMethodCalls', '(s)', ('CancelCheckAuthorization',), '(a(tav))')[0]
        return [args[0] for _timestamp, args in calls]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(5)
        self.conn.close_sync(None)


# What the bus runs to activate hugepagesd. Its parent is the bus, not the
# test, so this records each instance's pid and exit status for the test.
ACTIVATION_SCRIPT = '''#!/bin/sh
export G_DEBUG=fatal-criticals G_MESSAGES_DEBUG=all
{command} >>{log} 2>&1 </dev/null &
pid=$!
echo "$pid" >>{started}
echo "=== instance $pid started" >>{log}
wait "$pid"
status=$?
echo "=== instance $pid exited with status $status" >>{log}
echo "$pid $status" >>{exited}
'''

ACTIVATION_FILE = '''[D-BUS Service]
Name={name}
Exec={script}
User=root
'''


class ActivatingBus:
    """A private bus that starts hugepagesd by D-Bus activation, with its
    own polkitd mock (see the activating_bus fixture)."""

    def __init__(self, directory, binary, kernel_root, idle_timeout, args):
        real_root = os.path.realpath(kernel_root)
        if real_root == '/' or not os.path.isdir(real_root):
            raise ValueError(f'refusing to run hugepagesd on kernel root {kernel_root!r}')
        self.dir = directory
        self.args = [binary, '--kernel-root', kernel_root, '-v', *args]
        if idle_timeout is not None:
            self.args.append(f'--idle-timeout={idle_timeout}')
        self.log_path = os.path.join(directory, 'hugepagesd.log')
        self._started = os.path.join(directory, 'started')
        self._exited = os.path.join(directory, 'exited')
        open(self.log_path, 'w').close()
        servicedir = os.path.join(directory, 'services')
        os.mkdir(servicedir)
        script = os.path.join(directory, 'activate-hugepagesd')
        with open(script, 'w') as f:
            f.write(ACTIVATION_SCRIPT.format(command=shlex.join(WRAPPER + self.args),
                                             log=shlex.quote(self.log_path),
                                             started=shlex.quote(self._started),
                                             exited=shlex.quote(self._exited)))
        os.chmod(script, 0o755)
        with open(os.path.join(servicedir, hpdtest.BUS_NAME + '.service'), 'w') as f:
            f.write(ACTIVATION_FILE.format(name=hpdtest.BUS_NAME, script=script))
        self.bus = Bus(directory, servicedir=servicedir)
        self.address = self.bus.address
        try:
            self.polkit = Polkit(self.bus, os.path.join(directory, 'polkitd-mock.log'))
            self.polkit.reset()
        except BaseException:
            self.bus.stop()
            raise

    def connect(self):
        return self.bus.connect()

    def log(self):
        with open(self.log_path, errors='replace') as f:
            return f.read()

    @staticmethod
    def _lines(path):
        try:
            with open(path) as f:
                return [line.split() for line in f if line.strip()]
        except FileNotFoundError:
            return []

    def started(self):
        """Pids of the instances started so far, in order."""
        return [int(fields[0]) for fields in self._lines(self._started)]

    def exited(self):
        """{pid: exit status} of the instances that have exited."""
        return {int(pid): int(status) for pid, status in self._lines(self._exited)}

    def running(self):
        exited = self.exited()
        return [pid for pid in self.started() if pid not in exited]

    def wait_exit(self, pid, timeout):
        """The exit status of instance pid, None if it still runs after timeout
        (times TIMEOUT_FACTOR)."""
        deadline = time.monotonic() + timeout * TIMEOUT_FACTOR
        while time.monotonic() < deadline:
            status = self.exited().get(pid)
            if status is not None:
                return status
            time.sleep(0.01)
        return self.exited().get(pid)

    def _is_ours(self, pid):
        try:
            with open(f'/proc/{pid}/cmdline', 'rb') as f:
                argv = f.read().split(b'\0')
        except OSError:
            return False
        # under a wrapper the binary comes after the wrapper's arguments
        return self.args[0].encode() in argv[:len(WRAPPER) + 1]

    def stop(self):
        for pid in self.running():
            if self._is_ours(pid):
                os.kill(pid, signal.SIGTERM)
        for pid in self.running():
            if self.wait_exit(pid, 5) is None and self._is_ours(pid):
                os.kill(pid, signal.SIGKILL)
                self.wait_exit(pid, 5)
        self.polkit.stop()
        self.bus.stop()


@pytest.fixture(scope='session')
def _polkit_mock(bus, _session_dir):
    p = Polkit(bus, os.path.join(_session_dir, 'polkitd-mock.log'))
    yield p
    p.stop()


@pytest.fixture
def polkit(_polkit_mock, request):
    _polkit_mock.reset()
    attach_log(request, 'polkitd mock log', _polkit_mock.log_path)
    return _polkit_mock


@pytest.fixture
def activating_bus(hugepagesd, _session_dir, request):
    made = []

    def make(kernel_root, idle_timeout=None, args=()):
        d = tempfile.mkdtemp(prefix='activating-', dir=_session_dir)
        ab = ActivatingBus(d, hugepagesd, kernel_root, idle_timeout, list(args))
        made.append(ab)
        attach_log(request, f'activated hugepagesd log ({" ".join(ab.args[1:])})', ab.log_path)
        attach_log(request, f'dbus-daemon log ({d})', ab.bus.log_path)
        attach_log(request, f'polkitd mock log ({d})', ab.polkit.log_path)
        return ab

    yield make
    problems = []
    for ab in made:
        ab.stop()
        problems += memory_problems('activated hugepagesd', ab.log_path)
    if problems:
        pytest.fail('\n'.join(problems), pytrace=False)


DEFAULT_FAKE_KERNEL = dict(nodes=2, sizes=(2048, 1048576), default_size=2048)


@pytest.fixture
def fake_kernel(_session_dir, request):
    kwargs = dict(DEFAULT_FAKE_KERNEL)
    marker = request.node.get_closest_marker('fake_kernel')
    if marker is not None:
        kwargs.update(marker.kwargs)
    d = tempfile.mkdtemp(prefix='kernel-', dir=kwargs.pop('parent', _session_dir))
    fk = FakeKernel(d, **kwargs)
    try:
        fk.simulate()
    except OSError as e:   # not root, or no fanotify: tests that need it skip
        fk.simulator_error = str(e)
    yield fk
    fk.stop()
    shutil.rmtree(d, ignore_errors=True)


class Service:
    """One hugepagesd process."""

    def __init__(self, binary, kernel_root, bus, args, log_path, umask=None, env=None):
        real_root = os.path.realpath(kernel_root)
        if real_root == '/' or not os.path.isdir(real_root):
            raise ValueError(f'refusing to run hugepagesd on kernel root {kernel_root!r}')
        self.bus = bus
        self.log_path = log_path
        self.args = [binary, '--kernel-root', kernel_root, '-v', *args]
        # the unit's Environment= and UMask= unless a test asks for others:
        # what others must read gets its mode explicitly
        env = {**os.environ, **hpdtest.unit_environment(), 'DBUS_SYSTEM_BUS_ADDRESS': bus.address,
               'G_DEBUG': 'fatal-criticals', 'G_MESSAGES_DEBUG': 'all', **(env or {})}
        with open(log_path, 'a') as log:
            self.proc = subprocess.Popen(WRAPPER + self.args, stdout=log, stderr=subprocess.STDOUT,
                                         env=env,
                                         umask=hpdtest.unit_umask() if umask is None else umask)
        self.pid = self.proc.pid

    def log(self):
        with open(self.log_path, errors='replace') as f:
            return f.read()

    def owns_name(self, conn):
        return hpdtest.owner_pid(conn) == self.pid

    def wait_ready(self, conn, timeout=START_TIMEOUT):
        wait_for(lambda: self.proc.poll() is not None or self.owns_name(conn),
                 timeout, 'hugepagesd to own ' + hpdtest.BUS_NAME)
        if self.proc.poll() is not None:
            raise AssertionError(f'hugepagesd exited with {self.proc.returncode}:\n{self.log()}')

    def alive(self):
        return self.proc.poll() is None

    def wait_exit(self, timeout):
        try:
            return self.proc.wait(timeout * TIMEOUT_FACTOR)
        except subprocess.TimeoutExpired:
            return None

    def threads(self):
        """Each thread's name, state, where it waits in the kernel and its
        kernel stack (root only), for a report of a service that will not
        exit: a thread blocked in a system call shows which one."""
        lines = []
        task_dir = f'/proc/{self.pid}/task'
        try:
            tids = sorted(os.listdir(task_dir), key=int)
        except OSError as e:
            return [f'threads of {self.pid}: {e}']
        for tid in tids:
            def read(name):
                try:
                    with open(f'{task_dir}/{tid}/{name}', errors='replace') as f:
                        return f.read().strip()
                except OSError as e:
                    return f'({e.strerror})'
            state = read('stat').rpartition(')')[2].split()[:1]
            lines.append(f'thread {tid} {read("comm")!r} state {" ".join(state)} '
                         f'wchan {read("wchan")}')
            lines += ['    ' + frame for frame in read('stack').splitlines()[:12]]
        return lines

    def terminate(self, timeout=5):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.wait_exit(timeout)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def start_service(hugepagesd, bus, _session_dir, request):
    started = []

    def start(kernel_root, bus=bus, args=(), wait=True, check=False, umask=None, env=None):
        log = tempfile.NamedTemporaryFile(prefix='hugepagesd-', suffix='.log', dir=_session_dir,
                                          delete=False).name
        svc = Service(hugepagesd, kernel_root, bus, list(args), log, umask=umask, env=env)
        attach_log(request, f'hugepagesd log (pid {svc.pid}: {" ".join(svc.args[1:])})', log)
        started.append((svc, check))
        if wait:
            c = bus.connect()
            try:
                svc.wait_ready(c)
            finally:
                c.close_sync(None)
        return svc

    yield start

    problems = []
    for svc, check in started:
        if check:
            if not svc.alive():
                problems.append(f'hugepagesd (pid {svc.pid}) died during the test: '
                                f'exit status {svc.proc.returncode}')
            else:
                c = svc.bus.connect()
                try:
                    pid = hpdtest.owner_pid(c)
                finally:
                    c.close_sync(None)
                if pid != svc.pid:
                    problems.append(f'{hpdtest.BUS_NAME} is owned by pid {pid}, not by '
                                    f'hugepagesd (pid {svc.pid})')
                status = svc.terminate()
                if status is None:
                    # still running: say where each thread waits, and whether the fake
                    # kernel's simulator (which every open of a marked file waits for)
                    # still answers
                    fk = request.node.funcargs.get('fake_kernel')
                    problems.append('\n'.join(
                        ['hugepagesd did not exit on SIGTERM; its threads:'] + svc.threads() +
                        ([fk.simulator_state()] if fk is not None else [])))
                elif status != 0:
                    problems.append(f'hugepagesd did not exit 0 on SIGTERM: {status}')
        svc.kill()
        problems += memory_problems(f'hugepagesd (pid {svc.pid})', svc.log_path)
    if problems:
        pytest.fail('\n'.join(problems), pytrace=False)


@pytest.fixture
def service(start_service, fake_kernel, polkit):
    """hugepagesd on the session bus and a fresh fake kernel (the polkit
    fixture is pulled in so every test starts from a denying mock)."""
    return start_service(fake_kernel.root, check=True)


@pytest.fixture(scope='session')
def run_as(bus):
    def run(uid, argv, gid=None, env=None, **kwargs):
        gid = uid if gid is None else gid
        full_env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus.address)
        full_env.update(env or {})
        kwargs.setdefault('capture_output', True)
        kwargs.setdefault('text', True)
        kwargs.setdefault('timeout', 30)
        kwargs.setdefault('cwd', '/')
        return subprocess.run(['setpriv', f'--reuid={uid}', f'--regid={gid}', '--clear-groups',
                               *argv], env=full_env, **kwargs)
    return run


@pytest.fixture(scope='session')
def run_python_as(run_as):
    def run(uid, ops, **kwargs):
        return hpdtest.parse_client_output(run_as(uid, hpdtest.client_command(ops), **kwargs))
    return run


@pytest.fixture(scope='session')
def NOBODY():  # noqa: N802 (a constant as a fixture)
    return 65534
