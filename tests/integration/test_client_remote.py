# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""hugepagesctl -H [USER@]HOST: the service of another machine over
`ssh -xT HOST systemd-stdio-bridge`, as busctl and systemctl reach one.

The "other machine" is this one: the test starts its own sshd on a free
loopback port with a temporary host key, and an authorized_keys whose
forced commands stand for the remote side. For the key of a working remote,
the forced command checks that hugepagesctl asked for exactly
`systemd-stdio-bridge` and runs it pointed at the test's private bus (the
remote "system bus"), where hugepagesd runs on the fake kernel. Other keys
stand for a host without the bridge (its PATH has none) and for a bridge
that cannot reach its bus. hugepagesctl's ssh is `ssh -F <the test's
config>` through HUGEPAGESCTL_SSH, so no file outside the test's temporary
directory is read or written (apart from sshd's privilege separation
directory /run/sshd, made if missing, as the ssh package does)."""

import json
import os
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import pytest

import hpdtest
from test_client import ALLOW_USER_INTERACTION, POOLS, SMALL, ctl, hugepagesctl, ok, usage_error  # noqa: F401

SSHD = '/usr/sbin/sshd'
BRIDGE = 'systemd-stdio-bridge'
HOST = 'root@127.0.0.1'
DENIAL_HINT = 'cannot ask for a password over SSH'

pytestmark = pytest.mark.skipif(
    not (os.access(SSHD, os.X_OK) and shutil.which('ssh') and shutil.which(BRIDGE)),
    reason='needs openssh-server, openssh-client and systemd-stdio-bridge '
           '(scripts/install-deps installs them)')


def keygen(path, comment):
    subprocess.run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', path],
                   check=True, timeout=30)
    with open(path + '.pub') as f:
        return f.read().strip()


class Sshd:
    """sshd on 127.0.0.1:port; .ssh(name) is a HUGEPAGESCTL_SSH value that
    logs in with the key of that name (see KEYS)."""

    # key name -> the forced command of its authorized_keys line
    KEYS = {
        # a host with the bridge: only exactly what busctl asks for is run
        'bridge': '{dir}/remote-bridge',
        # a host without it: the shell cannot find it (exit status 127)
        'no-bridge': 'PATH=/nonexistent; exec $SSH_ORIGINAL_COMMAND',
        # a bridge whose bus is not there (exit status 1)
        'no-bus': f'exec {BRIDGE} -p unix:path={{dir}}/no-such-bus',
    }

    def __init__(self, bus_address):
        self.dir = tempfile.mkdtemp(prefix='hpd-sshd-')
        os.chmod(self.dir, 0o700)
        self.port = hpdtest.free_port()
        self.log_path = os.path.join(self.dir, 'sshd.log')
        host_key = keygen(os.path.join(self.dir, 'host_key'), 'host')
        with open(os.path.join(self.dir, 'known_hosts'), 'w') as f:
            f.write(f'[127.0.0.1]:{self.port} {host_key}\n')

        script = os.path.join(self.dir, 'remote-bridge')
        with open(script, 'w') as f:
            f.write('#!/bin/sh\n'
                    f'if [ "$SSH_ORIGINAL_COMMAND" != {BRIDGE} ]; then\n'
                    '  echo "unexpected remote command: $SSH_ORIGINAL_COMMAND" >&2; exit 99\n'
                    'fi\n'
                    f'exec {BRIDGE} -p "{bus_address}"\n')
        os.chmod(script, 0o755)

        lines = []
        for name, command in self.KEYS.items():
            public = keygen(os.path.join(self.dir, f'id-{name}'), name)
            command = command.format(dir=self.dir).replace('"', '\\"')
            lines.append(f'command="{command}",no-pty,no-port-forwarding,no-agent-forwarding,'
                         f'no-X11-forwarding {public}')
            with open(os.path.join(self.dir, f'config-{name}'), 'w') as f:
                f.write(f'Host *\n'
                        f'  Port {self.port}\n'
                        f'  IdentityFile {self.dir}/id-{name}\n'
                        f'  IdentitiesOnly yes\n'
                        f'  UserKnownHostsFile {self.dir}/known_hosts\n'
                        f'  GlobalKnownHostsFile /dev/null\n'
                        f'  StrictHostKeyChecking yes\n'
                        f'  BatchMode yes\n'
                        f'  ConnectTimeout 10\n'
                        f'  LogLevel ERROR\n')
        with open(os.path.join(self.dir, 'authorized_keys'), 'w') as f:
            f.write('\n'.join(lines) + '\n')

        config = os.path.join(self.dir, 'sshd_config')
        with open(config, 'w') as f:
            f.write(f'Port {self.port}\n'
                    'ListenAddress 127.0.0.1\n'
                    f'HostKey {self.dir}/host_key\n'
                    f'PidFile {self.dir}/sshd.pid\n'
                    f'AuthorizedKeysFile {self.dir}/authorized_keys\n'
                    'PermitRootLogin prohibit-password\n'
                    'PubkeyAuthentication yes\n'
                    'PasswordAuthentication no\n'
                    'KbdInteractiveAuthentication no\n'
                    'UsePAM no\n'
                    # the temporary directory lies below the world-writable /tmp
                    'StrictModes no\n'
                    'X11Forwarding no\n'
                    'AllowTcpForwarding no\n'
                    'PermitTTY no\n'
                    'LogLevel VERBOSE\n')
        # sshd's compiled-in privilege separation directory (the ssh
        # package's unit makes it with RuntimeDirectory=sshd)
        os.makedirs('/run/sshd', mode=0o755, exist_ok=True)
        self.log = open(self.log_path, 'w')
        self.proc = subprocess.Popen([SSHD, '-D', '-e', '-f', config], stdout=self.log,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f'sshd exited with {self.proc.returncode}: {self.read_log()}')
            try:
                socket.create_connection(('127.0.0.1', self.port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f'sshd is not listening: {self.read_log()}')
                time.sleep(0.05)

    def ssh(self, key='bridge'):
        return f'ssh -F {self.dir}/config-{key}'

    def read_log(self):
        with open(self.log_path, errors='replace') as f:
            return f.read()

    def stop(self):
        hpdtest.stop_process(self.proc, timeout=10)
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope='module')
def sshd(bus):
    server = Sshd(bus.address)
    yield server
    server.stop()


@pytest.fixture
def remote(ctl, sshd):
    """remote(*args, key='bridge', host=HOST) -> CompletedProcess of
    `hugepagesctl -H host args` through the test's sshd."""
    def run(*args, key='bridge', host=HOST, env=None):
        return ctl('-H', host, *args, env={'HUGEPAGESCTL_SSH': sshd.ssh(key), **(env or {})})
    return run


def single_error(proc, text):
    """A failure: exit 1, nothing on stdout, and hugepagesctl's own line
    (last on stderr, after whatever ssh said) containing text."""
    assert proc.returncode == 1, f'exit {proc.returncode}: {proc.stdout}{proc.stderr}'
    assert proc.stdout == ''
    last = proc.stderr.splitlines()[-1]
    assert last.startswith('hugepagesctl: ') and text in last, proc.stderr
    return proc.stderr


# --- reading ---------------------------------------------------------------------

@pytest.mark.fake_kernel(pools=POOLS)
def test_remote_reads_equal_local(service, ctl, remote):
    assert ok(remote('status')) == ok(ctl('status'))
    remote_pools = json.loads(ok(remote('pools', '--json')))
    assert remote_pools == json.loads(ok(ctl('pools', '--json')))
    assert remote_pools['pools'][0]['minimum'] == 6
    assert ok(remote('pools', '--nodes')) == ok(ctl('pools', '--nodes'))
    assert ok(remote('mounts', '--json')) == ok(ctl('mounts', '--json'))


@pytest.mark.fake_kernel(pools=POOLS)
def test_host_option_after_the_command(service, ctl, sshd):
    proc = ctl('page-sizes', '--host', HOST, env={'HUGEPAGESCTL_SSH': sshd.ssh()})
    assert ok(proc) == ok(ctl('page-sizes'))


@pytest.mark.fake_kernel(pools=POOLS)
def test_hugeadm_command_lines_run_remotely(service, ctl, remote, sshd):
    # every step of a hugeadm command line runs on the host: -H before the
    # hugeadm options, and among them
    assert ok(remote('--pool-list', '--page-sizes-all')) == ok(ctl('--pool-list', '--page-sizes-all'))
    proc = ctl('hugeadm', '--pool-list', '-H', HOST, env={'HUGEPAGESCTL_SSH': sshd.ssh()})
    assert ok(proc) == ok(ctl('--pool-list'))
    # an unreachable host fails the listing, never falls back to this machine
    proc = ctl('hugeadm', '--host', 'root@127.0.0.1', '--pool-list',
               env={'HUGEPAGESCTL_SSH': 'ssh -o BatchMode=yes -p 1'})
    assert proc.returncode == 1 and proc.stdout == '', proc.stdout + proc.stderr


# --- changing -----------------------------------------------------------------------

@pytest.mark.fake_kernel(pools=POOLS)
def test_remote_change_authorized_by_the_remote_polkit(service, remote, polkit, fake_kernel):
    polkit.allow(hpdtest.ACTION_POOLS)
    ok(remote('set-min', '2M', '7'))
    assert fake_kernel.read_int(fake_kernel.pool_file(SMALL, 'nr_hugepages')) == 7
    assert json.loads(ok(remote('pools', '--json')))['pools'][0]['minimum'] == 7
    checks = polkit.checks()
    assert [c.action for c in checks] == [hpdtest.ACTION_POOLS]
    # nobody could answer a password prompt over ssh: never asked for one
    assert not checks[0].flags & ALLOW_USER_INTERACTION


@pytest.mark.fake_kernel(pools=POOLS)
def test_remote_denial_explains_why_no_password_was_asked(service, remote, polkit, fake_kernel):
    proc = remote('set-min', '2M', '7')
    assert proc.returncode == 1 and proc.stdout == ''
    lines = proc.stderr.splitlines()
    assert lines[0].startswith('hugepagesctl: Not authorized'), proc.stderr
    assert DENIAL_HINT in lines[1] and "-H root@HOST" in lines[1]
    assert fake_kernel.read_int(fake_kernel.pool_file(SMALL, 'nr_hugepages')) == 6
    # a refusal of something else (bad input) gets no hint
    proc = remote('set-min', '2M', '999999999')
    assert proc.returncode != 0 and DENIAL_HINT not in proc.stderr


@pytest.mark.fake_kernel(pools=POOLS)
def test_remote_monitor_json(service, hugepagesctl, bus, sshd, polkit):
    polkit.allow(hpdtest.ACTION_POOLS)
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus.address, HUGEPAGESCTL_SSH=sshd.ssh())
    proc = subprocess.Popen([hugepagesctl, '-H', HOST, 'monitor', '--json'],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, env=env)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 15)
        assert ready, 'monitor printed nothing'
        event = json.loads(proc.stdout.readline())
        assert event['event'] == 'service_on_bus'
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=15)
    assert proc.returncode == 0, err


# --- failures ------------------------------------------------------------------------

def test_ssh_cannot_connect(ctl, sshd):
    # nothing listens on this port: ssh fails itself
    config = os.path.join(sshd.dir, 'config-closed')
    with open(os.path.join(sshd.dir, 'config-bridge')) as f:
        text = f.read()
    with open(config, 'w') as f:
        f.write(text.replace(f'Port {sshd.port}', f'Port {hpdtest.free_port()}'))
    proc = ctl('-H', HOST, 'status', env={'HUGEPAGESCTL_SSH': f'ssh -F {config}'})
    err = single_error(proc, f'cannot reach hugepagesd on the system bus of {HOST}: '
                             f'ssh to {HOST} failed (exit status 255')
    assert 'Connection refused' in err


def test_unknown_host(remote):
    err = single_error(remote('status', host='root@hugepagesd-test.invalid'),
                       'ssh to root@hugepagesd-test.invalid failed (exit status 255')
    assert 'hugepagesd-test.invalid' in err.splitlines()[0]


def test_host_without_the_bridge(remote):
    single_error(remote('status', key='no-bridge'),
                 f'{HOST} has no systemd-stdio-bridge (exit status 127)')


def test_bridge_without_a_bus(remote):
    single_error(remote('pools', '--json', key='no-bus'),
                 f'systemd-stdio-bridge on {HOST} ended with exit status 1')


def test_ssh_not_there(remote):
    single_error(remote('status', env={'HUGEPAGESCTL_SSH': '/nonexistent/ssh -F x'}),
                 'cannot run /nonexistent/ssh')


def test_bad_ssh_setting(remote):
    single_error(remote('status', env={'HUGEPAGESCTL_SSH': 'ssh "unterminated'}),
                 'HUGEPAGESCTL_SSH is not a command line')


def test_empty_host_is_a_usage_error(ctl):
    usage_error(ctl('-H', '', 'status'), '-H/--host needs a HOST')
    usage_error(ctl('status', '--host='), '-H/--host needs a HOST')


def test_help_mentions_host(ctl):
    out = ok(ctl('--help'))
    for text in ('-H, --host=[USER@]HOST', 'systemd-stdio-bridge', 'HUGEPAGESCTL_SSH', '--json'):
        assert text in out
    assert '--host' in ok(ctl('status', '--help'))
