# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Fixtures of the cockpit tier: the integration tier's private system bus
(the project's real policy), python-dbusmock's polkitd and hugepagesd on a
fake kernel tree, plus cockpit-ws with a local cockpit-bridge session on
loopback that sees the private bus as its system bus and the page from
cockpit/dist, and Debian's chromium driven by playwright-core (browser.mjs).

    tests/run-all --tier cockpit
    HUGEPAGESD_BUILDDIR=build /usr/bin/python3 -m pytest tests/cockpit -v

Run as root inside a private mount namespace (tests/run-all does
`unshare -m --propagation private`): the mount test really mounts hugetlbfs
below the fake tree, and that mount must stay in the namespace.

Fixtures (besides the integration ones: bus, polkit, fake_kernel,
start_service, ...):

  cockpit_ws      CockpitWs: .url (the page), .port, .log_path. cockpit-ws
                  --local-session=cockpit-bridge --no-tls on 127.0.0.1 with
                  DBUS_SYSTEM_BUS_ADDRESS of `bus` and XDG_DATA_DIRS leading
                  to a directory whose cockpit/hugepages is cockpit/dist.
  browser         browser(scenario, **params) -> dict: runs browser.mjs
                  with that scenario against cockpit_ws; the scenario's
                  steps assert in the browser and report what they saw as
                  JSON; screenshots go to BUILDDIR/test-results/cockpit/.
"""

import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DIST = os.path.join(REPO, 'cockpit', 'dist')
NODE_MODULES = os.path.join(REPO, 'cockpit', 'node_modules')
CHROMIUM = os.environ.get('HPD_CHROMIUM', '/usr/bin/chromium')
COCKPIT_WS = next((p for p in ('/usr/libexec/cockpit-ws', '/usr/lib/cockpit/cockpit-ws')
                   if os.access(p, os.X_OK)), None)

# The integration tier's fixtures and hooks, shared rather than copied.
_spec = importlib.util.spec_from_file_location(
    'hpd_integration_conftest', os.path.join(REPO, 'tests', 'integration', 'conftest.py'))
integration = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(integration)
hpdtest = integration.hpdtest

def pytest_configure(config):
    integration.pytest_configure(config)
    config.addinivalue_line('markers',
                            'cockpit_user(uid): run cockpit-ws and its bridge as that user')

pytest_collection_modifyitems = integration.pytest_collection_modifyitems
pytest_report_header = integration.pytest_report_header
pytest_terminal_summary = integration.pytest_terminal_summary
pytest_runtest_makereport = integration.pytest_runtest_makereport
builddir = integration.builddir
hugepagesd = integration.hugepagesd
_session_dir = integration._session_dir
bus = integration.bus
conn = integration.conn
_polkit_mock = integration._polkit_mock
polkit = integration.polkit
fake_kernel = integration.fake_kernel
start_service = integration.start_service
attach_log = integration.attach_log
wait_for = integration.wait_for


def missing_tools():
    missing = []
    if COCKPIT_WS is None:
        missing.append('cockpit-ws')
    if shutil.which('cockpit-bridge') is None:
        missing.append('cockpit-bridge')
    if not os.access(CHROMIUM, os.X_OK):
        missing.append(CHROMIUM)
    if shutil.which('node') is None:
        missing.append('node')
    if not os.path.isdir(os.path.join(NODE_MODULES, 'playwright-core')):
        missing.append('playwright-core (cd cockpit && npm ci)')
    if not os.path.isfile(os.path.join(NODE_MODULES, 'axe-core', 'axe.min.js')):
        missing.append('axe-core (cd cockpit && npm ci)')
    if not os.path.isfile(os.path.join(DIST, 'index.js')):
        missing.append('cockpit/dist (cd cockpit && npm ci && npm run build)')
    return missing


@pytest.fixture(scope='session')
def tools():
    missing = missing_tools()
    if missing:
        pytest.fail('the cockpit tier needs ' + ', '.join(missing) +
                    ' (scripts/install-deps installs the packages)', pytrace=False)


@pytest.fixture(scope='session')
def results_dir(builddir):
    d = os.path.join(builddir, 'test-results', 'cockpit')
    os.makedirs(d, exist_ok=True)
    return d


def session_members(sid):
    """The pids of the processes in session sid."""
    members = []
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open(f'/proc/{entry}/stat') as f:
                fields = f.read().rsplit(')', 1)[1].split()
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        if int(fields[3]) == sid:
            members.append(int(entry))
    return members


class CockpitWs:
    def __init__(self, directory, bus_address, uid=None):
        self.dir = directory
        os.chmod(directory, 0o755)
        data = os.path.join(directory, 'data')
        os.makedirs(os.path.join(data, 'cockpit'))
        # cockpit-bridge looks for packages in $XDG_DATA_DIRS/cockpit/NAME
        os.symlink(DIST, os.path.join(data, 'cockpit', 'hugepages'))
        home = os.path.join(directory, 'home')
        os.makedirs(home)
        runtime = os.path.join(directory, 'run')
        os.makedirs(runtime, mode=0o700)
        if uid is not None:
            os.chown(home, uid, uid)
            os.chown(runtime, uid, uid)
        self.log_path = os.path.join(directory, 'cockpit-ws.log')
        self.port = hpdtest.free_port()
        env = dict(os.environ,
                   DBUS_SYSTEM_BUS_ADDRESS=bus_address,
                   XDG_DATA_DIRS=f'{data}:/usr/local/share:/usr/share',
                   XDG_DATA_HOME=os.path.join(home, '.local', 'share'),
                   XDG_RUNTIME_DIR=runtime,
                   HOME=home)
        env.pop('DBUS_SESSION_BUS_ADDRESS', None)
        with open(self.log_path, 'w') as log:
            # as another user: a session of that user, whose bridge has no
            # administrative access
            user = []
            if uid is not None:
                user = ['setpriv', f'--reuid={uid}', f'--regid={uid}', '--clear-groups']
            self.proc = subprocess.Popen(
                user + [COCKPIT_WS, '--local-session=cockpit-bridge', '--no-tls',
                        '--address', '127.0.0.1', '--port', str(self.port)],
                stdout=log, stderr=subprocess.STDOUT, env=env, cwd=directory,
                # a session of its own: what it starts is found by it
                start_new_session=True)
        self.base = f'http://127.0.0.1:{self.port}'
        self.url = f'{self.base}/cockpit/@localhost/hugepages/index.html'
        wait_for(lambda: self.proc.poll() is not None or self._listening(), 10,
                 'cockpit-ws to listen')
        if self.proc.poll() is not None:
            raise RuntimeError(f'cockpit-ws exited with {self.proc.returncode}; '
                               f'see {self.log_path}')

    def _listening(self):
        try:
            with socket.create_connection(('127.0.0.1', self.port), timeout=0.2):
                return True
        except OSError:
            return False

    def stop(self):
        hpdtest.stop_process(self.proc)
        # The bridge starts a session bus of its own (there is no
        # DBUS_SESSION_BUS_ADDRESS), which outlives cockpit-ws.
        for pid in session_members(self.proc.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


@pytest.fixture
def cockpit_ws(tools, bus, _session_dir, request):
    """As root, unless the test is marked cockpit_user(uid)."""
    marker = request.node.get_closest_marker('cockpit_user')
    d = tempfile.mkdtemp(prefix='cockpit-', dir=_session_dir)
    ws = CockpitWs(d, bus.address, uid=marker.args[0] if marker else None)
    attach_log(request, 'cockpit-ws and cockpit-bridge log', ws.log_path)
    yield ws
    ws.stop()


@pytest.fixture(scope='session')
def browser_server(tools, _session_dir):
    """One chromium for every test (browser-server.mjs): its endpoint."""
    log = open(os.path.join(_session_dir, 'browser-server.log'), 'w')
    proc = subprocess.Popen(['node', os.path.join(HERE, 'browser-server.mjs')],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True,
                            env=dict(os.environ, HP_CHROMIUM=CHROMIUM,
                                     HP_NODE_MODULES=NODE_MODULES))
    line = proc.stdout.readline()
    if not line.startswith('ENDPOINT '):
        proc.kill()
        raise RuntimeError(f'chromium did not start; see {log.name}')
    yield line.split()[1]
    proc.stdin.close()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    log.close()


def run_scenario(request, session_dir, script, scenario, timeout, params, env):
    """Runs one scenario of @script (browser.mjs, shell.mjs) and returns
    what it reported; fails the test with the browser's account when a step
    fails (a screenshot of the moment is saved too)."""
    name = request.node.name.replace('/', '_')
    log = os.path.join(session_dir, f'{script.split(".")[0]}-{name}-{scenario}.log')
    attach_log(request, f'browser ({scenario})', log)
    env = dict(os.environ, **env, HP_TEST=name, HP_PARAMS=json.dumps(params), HP_CHROMIUM=CHROMIUM,
               HP_NODE_MODULES=NODE_MODULES)
    start = time.monotonic()
    with open(log, 'w') as f:
        proc = subprocess.run(['node', os.path.join(HERE, script), scenario],
                              stdout=subprocess.PIPE, stderr=f, text=True, env=env, timeout=timeout)
    report = None
    for line in proc.stdout.splitlines():
        if line.startswith('RESULT '):
            report = json.loads(line[len('RESULT '):])
    if proc.returncode != 0 or report is None:
        with open(log, errors='replace') as f:
            text = f.read()
        pytest.fail(f'{script} scenario {scenario} failed (exit {proc.returncode}, '
                    f'{time.monotonic() - start:.1f}s):\n{text[-6000:]}', pytrace=False)
    return report


@pytest.fixture
def browser(cockpit_ws, fake_kernel, results_dir, request, _session_dir, browser_server):
    """browser(scenario, **params): runs one scenario of browser.mjs and
    returns what it reported; fails the test with the browser's account when
    a step fails (a screenshot of the moment is saved too)."""

    def run(scenario, timeout=90, **params):
        return run_scenario(request, _session_dir, 'browser.mjs', scenario, timeout, params, dict(
            HP_URL=cockpit_ws.url,
            HP_KERNEL_ROOT=fake_kernel.root,
            HP_SCREENSHOTS=results_dir,
            HP_BROWSER_WS=browser_server))

    return run


# --- the real shell ---------------------------------------------------------
#
# cockpit-ws as root on loopback with Debian's shell (cockpit-system), password
# logins through cockpit-session and PAM as throw-away users, the page found
# in each user's ~/.local/share/cockpit. The sessions' bridges (and the
# privileged one that sudo starts) use the standard system bus socket, so a
# private bus of its own is bound over /run/dbus in this private mount
# namespace, with hugepagesd and a polkitd mock that decides per user
# (polkit_rules.py). One cockpit-ws and one set of users serve every test.

POLKIT_RULES = os.path.join(HERE, 'polkit_rules.py')
RUN_DBUS = '/run/dbus'


in_private_mount_namespace = hpdtest.in_private_mount_namespace


class PolkitRules:
    """polkit_rules.py on a bus: rules(uid -> actions)."""

    def __init__(self, bus, log_path):
        self.conn = bus.connect()
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus.address)
        with open(log_path, 'w') as log:
            self.proc = subprocess.Popen(
                ['/usr/bin/python3', '-m', 'dbusmock', '--system', '--template', POLKIT_RULES],
                stdout=log, stderr=subprocess.STDOUT, env=env)
        wait_for(lambda: self.proc.poll() is not None or
                 hpdtest.has_owner(self.conn, integration.Polkit.NAME), 10, 'the polkit rules mock')
        if self.proc.poll() is not None:
            raise RuntimeError(f'the polkit rules mock exited; see {log_path}')

    def _mock(self, method, sig=None, args=None, reply=None):
        from gi.repository import GLib
        return hpdtest.call(self.conn, integration.Polkit.PATH, integration.Polkit.MOCK, method,
                            GLib.Variant(sig, args) if sig else None, reply,
                            dest=integration.Polkit.NAME)

    def rules(self, rules):
        self._mock('SetRules', '(a{uas})', ({uid: list(a) for uid, a in rules.items()},))
        self._mock('ClearCalls')

    def checks(self):
        """(subject kind, action) of each CheckAuthorization since rules()."""
        calls = self._mock('GetMethodCalls', '(s)', ('CheckAuthorization',), '(a(tav))')[0]
        return [(args[0][0], args[1]) for _t, args in calls]

    def stop(self):
        hpdtest.stop_process(self.proc)
        self.conn.close_sync(None)


@pytest.fixture(scope='session')
def shell_bus(tools, _session_dir):
    """A private system bus bound over /run/dbus, with the rules mock."""
    if not in_private_mount_namespace():
        pytest.skip('binds a bus over /run/dbus: run in a private mount namespace '
                    '(tests/run-all does)')
    d = os.path.join(_session_dir, 'shell-bus')
    os.mkdir(d)
    b = integration.Bus(d)
    made = not os.path.isdir(RUN_DBUS)
    if made:
        os.mkdir(RUN_DBUS)
    subprocess.run(['mount', '--bind', d, RUN_DBUS], check=True)
    rules = PolkitRules(b, os.path.join(d, 'polkit.log'))
    b.polkit = rules
    yield b
    rules.stop()
    subprocess.run(['umount', '-l', RUN_DBUS], check=False)
    if made:
        os.rmdir(RUN_DBUS)
    b.stop()


def uid_processes(uid):
    pids = []
    for entry in os.listdir('/proc'):
        if entry.isdigit():
            try:
                if os.stat(f'/proc/{entry}').st_uid == uid:
                    pids.append(int(entry))
            except FileNotFoundError:
                pass
    return pids


class ShellUser:
    def __init__(self, role, directory):
        self.role = role
        self.name = f'hpd{os.getpid() % 100000}{role[0]}'
        self.password = 'Hp-' + os.urandom(9).hex()
        self.home = os.path.join(directory, self.name)
        subprocess.run(['useradd', '--no-create-home', '--home-dir', self.home, '--shell',
                        '/bin/sh', '--user-group', self.name], check=True)
        self.created = True
        subprocess.run(['chpasswd'], input=f'{self.name}:{self.password}\n', text=True,
                       check=True)
        import pwd
        self.uid = pwd.getpwnam(self.name).pw_uid
        # where the bridge looks first for packages, as `make devel-install` does
        packages = os.path.join(self.home, '.local', 'share', 'cockpit')
        os.makedirs(packages)
        os.symlink(DIST, os.path.join(packages, 'hugepages'))
        for root, dirs, _files in os.walk(self.home):
            os.chown(root, self.uid, self.uid)
        self.sudoers = None

    def allow_sudo(self):
        self.sudoers = f'/etc/sudoers.d/{self.name}'
        with open(self.sudoers, 'w') as f:
            f.write(f'{self.name} ALL=(ALL:ALL) ALL\n')
        os.chmod(self.sudoers, 0o440)

    def remove(self):
        if self.sudoers:
            os.unlink(self.sudoers)
        # what the sessions left (the bridge's session bus, ssh-agent)
        for pid in uid_processes(self.uid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        wait_for(lambda: not uid_processes(self.uid), 10, f'the processes of {self.name} to end')
        subprocess.run(['userdel', '--force', self.name], check=False,
                       stderr=subprocess.DEVNULL)
        shutil.rmtree(self.home, ignore_errors=True)


@pytest.fixture(scope='session')
def shell_users(tools, _session_dir):
    """admin (may sudo), polkit (a polkit rule allows it), nobody (no rights)."""
    users = {}
    try:
        for role in ('admin', 'polkit', 'nobody'):
            users[role] = ShellUser(role, _session_dir)
        users['admin'].allow_sudo()
        yield users
    finally:
        for user in users.values():
            user.remove()


class ShellWs:
    def __init__(self, directory):
        self.log_path = os.path.join(directory, 'cockpit-ws.log')
        self.port = hpdtest.free_port()
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=f'unix:path={RUN_DBUS}/system_bus_socket')
        env.pop('DBUS_SESSION_BUS_ADDRESS', None)
        with open(self.log_path, 'w') as log:
            self.proc = subprocess.Popen(
                [COCKPIT_WS, '--no-tls', '--address', '127.0.0.1', '--port', str(self.port)],
                stdout=log, stderr=subprocess.STDOUT, env=env, cwd=directory,
                start_new_session=True)
        self.base = f'http://127.0.0.1:{self.port}'
        wait_for(lambda: self.proc.poll() is not None or CockpitWs._listening(self), 10,
                 'cockpit-ws to listen')
        if self.proc.poll() is not None:
            raise RuntimeError(f'cockpit-ws exited with {self.proc.returncode}; see {self.log_path}')

    def stop(self):
        hpdtest.stop_process(self.proc)


@pytest.fixture(scope='session')
def shell_ws(shell_bus, shell_users, _session_dir):
    d = tempfile.mkdtemp(prefix='shell-ws-', dir=_session_dir)
    ws = ShellWs(d)
    yield ws
    ws.stop()


@pytest.fixture
def shell_service(start_service, shell_bus, fake_kernel):
    return start_service(fake_kernel.root, bus=shell_bus, check=True)


@pytest.fixture
def shell_browser(shell_ws, shell_users, shell_bus, fake_kernel, results_dir, request,
                  _session_dir, browser_server):
    """shell_browser(scenario, role, **params) -> what shell.mjs reported."""
    attach_log(request, 'cockpit-ws (shell) log', shell_ws.log_path)

    def run(scenario, role, timeout=150, **params):
        user = shell_users[role]
        return run_scenario(request, _session_dir, 'shell.mjs', scenario, timeout, params, dict(
            HP_BASE=shell_ws.base,
            HP_USER=user.name,
            HP_PASSWORD=user.password,
            HP_KERNEL_ROOT=fake_kernel.root,
            HP_SCREENSHOTS=results_dir,
            HP_BROWSER_WS=browser_server))

    return run
