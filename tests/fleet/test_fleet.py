# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""The fleet tier: the Ansible collection hugepages.manager run by Debian's
ansible-playbook against hugepagesd on the fake kernel, on this machine
(connection local) and on a second "host" reached over the loopback sshd of
the -H tests; and `hugepagesctl metrics` scraped by a real node_exporter.

Every module: check mode (nothing written, the change reported), applied,
applied again (no change). A pool the kernel cannot fill fails the task with
the figures; a user polkit refuses gets a failed task with the service's
message and nothing changed."""

import importlib.util
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request

import pytest
import yaml

import hpdtest

from fakekernel import Mount, NodePool, Pool, Tunables
from test_client_remote import SSHD, Sshd
from conftest import COLLECTION, REPO

SMALL, GIANT = 2048, 1048576
SMALL_BYTES = SMALL * 1024
ALL_ACTIONS = [
    'org.hugepages.manager.configure-pools',
    'org.hugepages.manager.manage-mounts',
    'org.hugepages.manager.configure-tunables',
]
POOLS = {SMALL: Pool(total=6, free=5, resv=1, overcommit=2,
                     nodes={0: NodePool(4, 3, 0), 1: NodePool(2, 2, 0)}),
         GIANT: Pool(total=2, free=2)}
NODE_EXPORTER = '/usr/bin/prometheus-node-exporter'
HERE = os.path.dirname(os.path.abspath(__file__))

pytestmark = pytest.mark.skipif(shutil.which('ansible-playbook') is None,
                                reason='needs ansible-core (scripts/install-deps installs it)')
# scripts/install-deps takes promtool out of Debian's prometheus package into
# here, leaving the package (and its server) uninstalled
PROMTOOL_DIR = '/usr/local/lib/hugepagesd-tests'
ALERT_RULES = os.path.join(REPO, 'data', 'prometheus', 'hugepages-alerts.yml')


def promtool():
    """promtool on PATH, else where scripts/install-deps puts it. Missing is
    a failure, not a skip: the names and the alert rules are checked only
    by it."""
    found = shutil.which('promtool') or shutil.which('promtool', path=PROMTOOL_DIR)
    assert found, f'needs promtool: scripts/install-deps puts it in {PROMTOOL_DIR}'
    return found


class AnsibleSshd(Sshd):
    """The -H tests' sshd with one more key, whose forced command is a shell
    on the "remote" host: the test's bus as its system bus and the built
    hugepagesctl on PATH, as an installed host would have them."""
    KEYS = dict(Sshd.KEYS, ansible='{dir}/remote-shell')

    def __init__(self, bus_address, client_dir):
        super().__init__(bus_address)
        script = os.path.join(self.dir, 'remote-shell')
        with open(script, 'w') as f:
            f.write('#!/bin/sh\n'
                    f'export DBUS_SYSTEM_BUS_ADDRESS="{bus_address}"\n'
                    f'export PATH="{client_dir}:$PATH"\n'
                    'exec /bin/sh -c "$SSH_ORIGINAL_COMMAND"\n')
        os.chmod(script, 0o755)


@pytest.fixture(scope='module')
def sshd(bus, builddir):
    if not os.access(SSHD, os.X_OK):
        pytest.skip('needs openssh-server')
    server = AnsibleSshd(bus.address, os.path.join(builddir, 'client'))
    yield server
    server.stop()


HOSTS = ['local', 'remote']


@pytest.fixture(params=HOSTS)
def play(request, collections, bus, builddir):
    yield from make_play(request, request.param, collections, bus, builddir)


@pytest.fixture
def local_play(request, collections, bus, builddir):
    """play on this machine only: for what does not depend on the host (the
    module's own validation, the role), to keep the tier short."""
    yield from make_play(request, 'local', collections, bus, builddir)


def make_play(request, host, collections, bus, builddir):
    """play(tasks, check=False, diff=False) -> every task result, in order
    (callback_plugins/hpd_results.py; "failed" set on each), of one
    ansible-playbook run on this machine (connection local) or the loopback
    ssh host. Every task gets ignore_errors, so that one run can check a
    failure and go on."""
    top = tempfile.mkdtemp(prefix='hpd-play-')
    if host == 'local':
        inventory = ('target ansible_connection=local '
                     'ansible_python_interpreter=/usr/bin/python3\n')
    else:
        server = request.getfixturevalue('sshd')
        inventory = (f'target ansible_host=127.0.0.1 ansible_port={server.port} ansible_user=root '
                     f'ansible_ssh_common_args="-F {server.dir}/config-ansible" '
                     'ansible_ssh_pipelining=true ansible_python_interpreter=/usr/bin/python3\n')
    with open(os.path.join(top, 'inventory'), 'w') as f:
        f.write(inventory)
    results = os.path.join(top, 'results.json')
    env = dict(os.environ,
               ANSIBLE_HOME=top, ANSIBLE_LOCAL_TEMP=os.path.join(top, 'tmp'),
               ANSIBLE_REMOTE_TEMP=os.path.join(top, 'remote-tmp'),
               ANSIBLE_SSH_CONTROL_PATH_DIR=os.path.join(top, 'cp'),
               ANSIBLE_COLLECTIONS_PATH=collections,
               ANSIBLE_CALLBACK_PLUGINS=os.path.join(HERE, 'callback_plugins'),
               ANSIBLE_CALLBACKS_ENABLED='hpd_results', HPD_RESULTS=results,
               ANSIBLE_NOCOLOR='1', ANSIBLE_RETRY_FILES_ENABLED='0',
               ANSIBLE_HOST_KEY_CHECKING='0',
               DBUS_SYSTEM_BUS_ADDRESS=bus.address,
               PATH=os.path.join(builddir, 'client') + ':' + os.environ['PATH'])

    def run(tasks, check=False, diff=False, trace=None):
        """trace: a file for strace's record of every file the run opens"""
        path = os.path.join(top, 'play.yml')
        tasks = [dict(t, ignore_errors=True) for t in tasks]
        with open(path, 'w') as f:
            yaml.safe_dump([{'hosts': 'target', 'gather_facts': False, 'tasks': tasks}], f)
        argv = ['ansible-playbook', '-i', os.path.join(top, 'inventory'), path]
        if trace is not None:
            argv = ['strace', '-f', '-qq', '-e', 'trace=open,openat,openat2', '-o', trace] + argv
        argv += ['--check'] if check else []
        argv += ['--diff'] if diff else []
        if os.path.exists(results):
            os.unlink(results)
        proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        with open(results) as f:
            return json.load(f)

    run.host = host
    yield run
    shutil.rmtree(top, ignore_errors=True)


def one(results):
    assert len(results) == 1, results
    return results[0]


def unchanged_twice(play, task):
    """Check mode (with diff), apply (with diff), apply again, in one run;
    returns the three results."""
    checked, applied, again = play([dict(task, check_mode=True, diff=True),
                                    dict(task, diff=True), task])
    assert not checked['failed'] and checked['changed'] is True, checked.get('msg', checked)
    assert 'diff' in checked, checked
    assert not applied['failed'] and applied['changed'] is True, applied.get('msg', applied)
    assert not again["failed"] and again["changed"] is False, again.get("msg", again)
    return checked, applied, again


def nr(fake_kernel, size_kb, name='nr_hugepages'):
    return fake_kernel.read_int(fake_kernel.pool_file(size_kb, name))


# --- modules ---------------------------------------------------------------------

@pytest.mark.fake_kernel(pools=POOLS)
def test_pool(service, polkit, fake_kernel, play):
    polkit.allow(*ALL_ACTIONS)
    task = {'hugepages.manager.pool': {'page_size': '2M', 'minimum': '16M', 'maximum': 12,
                                       'persist': True}}
    nodes = {'hugepages.manager.pool': {'page_size': 2097152, 'nodes': {0: 5, 1: 5}}}
    checked, applied, again = unchanged_twice(play, task)
    assert checked['commands'] == ['set-min 2097152 8 --persist', 'set-max 2097152 12 --persist']
    assert checked['diff']['before']['minimum'] == 6 and checked['diff']['after']['minimum'] == 8
    # check mode wrote nothing: the run after it found the pool as it was
    assert applied['before'] == checked['before']
    assert applied['after']['minimum'] == 8 and applied['after']['maximum'] == 12
    assert nr(fake_kernel, SMALL) == 8
    assert nr(fake_kernel, SMALL, 'nr_overcommit_hugepages') == 4

    checked, applied, again = unchanged_twice(play, nodes)
    assert applied['after']['nodes'] == {'0': 5, '1': 5}
    assert fake_kernel.read_int(fake_kernel.node_file(1, SMALL, 'nr_hugepages')) == 5


@pytest.mark.fake_kernel(pools=POOLS)
def test_modules_never_open_the_kernel_files(service, polkit, fake_kernel, local_play):
    # Every module asks hugepagesd (hugepagesctl --json); none reads or
    # writes sysfs or procfs's huge page files itself. strace follows the
    # play, the modules and the clients they run; the service is no child
    # of it, and reads the fake tree.
    if shutil.which('strace') is None:
        pytest.skip('needs strace')
    polkit.allow(*ALL_ACTIONS)
    trace = os.path.join(tempfile.mkdtemp(prefix='hpd-trace-'), 'opens')
    results = local_play([
        {'hugepages.manager.pool': {'page_size': '2M', 'minimum': 8, 'nodes': {0: 5}}},
        {'hugepages.manager.claim': {'consumer': 'db', 'page_size': '2M', 'pages': 2}},
        {'hugepages.manager.tunables': {'shm_max': 'recommended', 'min_free_kbytes': '90112',
                                        'zone_movable': False, 'thp': {'enabled': 'never'}}},
        {'hugepages.manager.mount': {'scope': 'system', 'page_size': '2M'}, 'check_mode': True},
        {'hugepages.manager.info': {}},
    ], trace=trace)
    assert not any(r['failed'] for r in results), results
    assert nr(fake_kernel, SMALL) == 10
    kernel_files = ('/sys/kernel/mm/', '/sys/devices/system/node/', '/proc/sys/vm/',
                    '/proc/sys/kernel/shm', '/proc/meminfo', '/proc/self/mountinfo')
    with open(trace) as f:
        paths = [line.split('"')[1] for line in f if '"' in line]
    shutil.rmtree(os.path.dirname(trace), ignore_errors=True)
    # the record has the modules' own opens (the trace reached them)
    for module in ('pool', 'claim', 'tunables', 'mount', 'info'):
        assert any(p.endswith(f'AnsiballZ_{module}.py') for p in paths), module
    assert [p for p in paths if p.startswith(kernel_files)] == []


@pytest.mark.fake_kernel(pools=POOLS)
def test_persist_counts_a_value_in_force_but_not_saved(service, polkit, fake_kernel, local_play):
    polkit.allow(*ALL_ACTIONS)
    pool = {'page_size': '2M', 'minimum': 8}
    claim = {'consumer': 'db', 'page_size': '2M', 'pages': 2}
    thp = {'thp': {'enabled': 'never'}}
    tasks = [{'hugepages.manager.pool': pool}, {'hugepages.manager.claim': claim},
             {'hugepages.manager.tunables': thp}]
    saved = [{m: dict(args, persist=True)} for task in tasks for m, args in task.items()]
    in_force = local_play(tasks)
    assert all(r['changed'] and not r['failed'] for r in in_force), in_force
    to_save, done = local_play(saved), local_play(saved)
    assert [r['commands'] for r in to_save] == [
        ['set-min 2097152 8 --persist'],
        ['claim db 2097152 2 --persist'], ['thp enabled=never --persist']], to_save
    assert all(r['changed'] and not r['failed'] for r in to_save), to_save
    assert not any(r['changed'] or r['failed'] for r in done), done
    # a node count saved replaces the saved minimum (and set-min --persist
    # drops node counts), so both in one task could never settle: refused
    both = one(local_play([{'hugepages.manager.pool': dict(pool, nodes={1: 3}, persist=True)}]))
    assert both['failed'] and 'give minimum or nodes, not both' in both['msg'], both
    assert both['commands'] == [] and nr(fake_kernel, SMALL) == 10


@pytest.mark.fake_kernel(pools=POOLS)
def test_pool_refuses_relative_amounts(service, polkit, fake_kernel, local_play):
    polkit.allow(*ALL_ACTIONS)
    results = local_play([{'hugepages.manager.pool': {'page_size': '2M', 'minimum': amount}}
                          for amount in ('+2', '-1', '-2M')])
    for result in results:
        assert result['failed'] and 'relative amounts are refused' in result['msg'], result
    assert nr(fake_kernel, SMALL) == 6


@pytest.mark.fake_kernel(pools=POOLS)
def test_pool_shortfall_fails_with_figures(service, polkit, fake_kernel, play):
    polkit.allow(*ALL_ACTIONS)
    fake_kernel.limit_pool(SMALL, 7)
    task = {'hugepages.manager.pool': {'page_size': '2M', 'minimum': 10}}
    failed, accepted = play([task, {'hugepages.manager.pool': dict(task['hugepages.manager.pool'],
                                                                    accept_shortfall=True)}])
    assert failed['failed'] is True and failed['shortfall'] is True, failed
    assert failed['requested']['minimum'] == 10 and failed['after']['minimum'] == 7, failed
    assert 'fewer 2MB pages than asked' in failed['msg']
    assert not accepted['failed'] and accepted['shortfall'] is True, accepted
    assert any('fewer 2MB pages' in w for w in accepted.get('warnings', [])), accepted


@pytest.mark.fake_kernel(pools=POOLS)
def test_denied_user_fails_cleanly(service, polkit, fake_kernel, play):
    # polkit refuses (the mock's default): the task fails with the
    # service's answer, nothing is written, nothing is left half done
    result = one(play([{'hugepages.manager.pool': {'page_size': '2M', 'minimum': 9}}]))
    assert result.get('failed') is True, result
    assert 'hugepagesctl set-min 2097152 9 failed' in result['msg'], result
    assert 'uthoriz' in result['msg'], result
    assert 'Traceback' not in json.dumps(result)
    assert nr(fake_kernel, SMALL) == 6


@pytest.mark.fake_kernel(pools=POOLS)
def test_claim(service, polkit, fake_kernel, play):
    polkit.allow(*ALL_ACTIONS)
    task = {'hugepages.manager.claim': {'consumer': 'postgresql', 'page_size': '2M',
                                        'pages': '8M', 'persist': True}}
    checked, applied, _ = unchanged_twice(play, task)
    assert checked['commands'] == ['claim postgresql 2097152 4 --persist']
    assert applied['claim']['pages'] == 4 and applied['claim']['persisted'] is True
    assert nr(fake_kernel, SMALL) == 10

    gone = {'hugepages.manager.claim': {'consumer': 'postgresql', 'page_size': '2M',
                                        'state': 'absent'}}
    checked, applied, _ = unchanged_twice(play, gone)
    assert applied['claim'] is None
    assert nr(fake_kernel, SMALL) == 6


@pytest.mark.fake_kernel(pools=POOLS)
def test_claim_shortfall_fails_until_the_pool_holds_it(service, polkit, fake_kernel, local_play):
    # the kernel holds 7 pages: a claim of 4 on the base of 6 falls short.
    # The claim is recorded, so a second run has nothing to change, but the
    # pool still lacks pages: that fails again, with the figures, rather
    # than passing as if the claim were held
    polkit.allow(*ALL_ACTIONS)
    fake_kernel.limit_pool(SMALL, 7)
    task = {'hugepages.manager.claim': {'consumer': 'db', 'page_size': '2M', 'pages': 4}}
    accepted = {'hugepages.manager.claim': dict(task['hugepages.manager.claim'],
                                                accept_shortfall=True)}
    first, again, tolerated = local_play([task, task, accepted])
    assert first['failed'] and first['shortfall'] and first['changed'], first
    assert 'holds only 1 of the 4 pages' in first['msg'], first
    assert again['failed'] and again['shortfall'] and not again['changed'], again
    assert 'holds 7 of the 10 pages' in again['msg'], again
    assert not tolerated['failed'] and tolerated['shortfall'], tolerated
    assert any('holds 7 of the 10 pages' in w for w in tolerated.get('warnings', [])), tolerated
    assert nr(fake_kernel, SMALL) == 7


@pytest.mark.fake_kernel(pools=POOLS, tunables=Tunables(treat_as_movable=0))
def test_tunables_and_thp(service, polkit, fake_kernel, play):
    polkit.allow(*ALL_ACTIONS)
    task = {'hugepages.manager.tunables': {'shm_max': '64G', 'min_free_kbytes': '90112',
                                           'thp': {'enabled': 'never', 'defrag': 'defer'},
                                           'persist': True}}
    checked, applied, _ = unchanged_twice(play, task)
    assert checked['after']['shm_max'] == 64 << 30
    assert fake_kernel.read_int('proc/sys/kernel/shmmax') == 64 << 30
    assert fake_kernel.read_int('proc/sys/vm/min_free_kbytes') == 90112
    assert '[never]' in fake_kernel.read('sys/kernel/mm/transparent_hugepage/enabled')
    # the group allowed SHM_HUGETLB (by name) and ZONE_MOVABLE, saved too
    other = {'hugepages.manager.tunables': {'shm_group': 'daemon', 'zone_movable': True,
                                            'persist': True}}
    checked, applied, _ = unchanged_twice(play, other)
    assert checked['commands'] == ['shm-group daemon --persist', 'zone-movable on --persist']
    assert checked['before'] == {'shm_group': 0, 'zone_movable': False}, checked
    assert fake_kernel.read_int('proc/sys/vm/hugetlb_shm_group') == 1
    assert fake_kernel.read_int('proc/sys/vm/hugepages_treat_as_movable') == 1


@pytest.mark.fake_kernel(pools=POOLS)
def test_mount_check_mode_and_present(service, polkit, fake_kernel, play):
    # The fake tier cannot mount (the system tier's job): check mode plans
    # the mounts at the paths the service gives (below its root), and
    # mounts already in mountinfo count as done.
    polkit.allow(*ALL_ACTIONS)
    task = {'hugepages.manager.mount': {'scope': 'system', 'page_size': '2M'}}
    checked = one(play([task], check=True, diff=True))
    assert checked['changed'] is True and not checked.get('failed'), checked
    assert checked['commands'] == ['mount-create system --page-size 2097152']
    assert checked['paths'] == [fake_kernel.path('var/lib/hugetlbfs/pagesize-2MB')]


SYSTEM_MOUNT = 'var/lib/hugetlbfs/pagesize-2MB'
PERSISTED = 'etc/hugepagesd/hugepagesd.conf.d/90-persisted.conf'


@pytest.mark.fake_kernel(pools=POOLS, mounts=[Mount(SYSTEM_MOUNT, mode=0o770),
                                              Mount('var/lib/hugetlbfs/global/pagesize-2MB')])
def test_mount_present_is_unchanged(service, polkit, fake_kernel, local_play):
    play = local_play
    polkit.allow(*ALL_ACTIONS)
    task = {'hugepages.manager.mount': {'scope': 'system', 'page_size': '2M'}}
    mode = {'hugepages.manager.mount': dict(task['hugepages.manager.mount'], mode='0700')}
    # the global mount has the kernel's 0755, not the scope's 1777: the
    # service would set it, so it is a change
    other_mode = {'hugepages.manager.mount': {'scope': 'global', 'page_size': '2M'}}
    planned, present, other, global_mode = play([dict(task, check_mode=True), task,
                                                 dict(mode, check_mode=True),
                                                 dict(other_mode, check_mode=True)])
    for result in (planned, present):
        assert result['changed'] is False and not result['failed'], result
        assert result['mounts'][0]['page_size'] == SMALL_BYTES
        assert result['paths'] == [fake_kernel.path(SYSTEM_MOUNT)]
    assert other['changed'] is True, other
    assert global_mode['changed'] is True and not global_mode['failed'], global_mode


@pytest.mark.fake_kernel(pools=POOLS, mounts=[Mount(SYSTEM_MOUNT, mode=0o770)])
def test_mount_persist_counts_what_is_not_saved(service, polkit, fake_kernel, local_play):
    # A mount in place but not in the configuration is a change with
    # persist (mount-create --persist saves it); once saved as asked, none.
    polkit.allow(*ALL_ACTIONS)
    task = {'hugepages.manager.mount': {'scope': 'system', 'page_size': '2M', 'persist': True}}
    other_mode = {'hugepages.manager.mount': dict(task['hugepages.manager.mount'], mode='0700')}
    limited = {'hugepages.manager.mount': dict(task['hugepages.manager.mount'], inodes=8)}
    unsaved = one(local_play([task], check=True))
    assert unsaved['changed'] is True and not unsaved['failed'], unsaved
    assert unsaved['commands'] == ['mount-create system --page-size 2097152 --persist']
    conf = fake_kernel.path('etc/hugepagesd/hugepagesd.conf')
    os.makedirs(os.path.dirname(conf), exist_ok=True)
    with open(conf, 'w') as f:
        f.write('[mount system]\npage-size = 2MB\nmode = 0770\n')
    saved, other, refused = local_play([task, dict(other_mode, check_mode=True),
                                        dict(limited, check_mode=True)])
    assert saved['changed'] is False and not saved['failed'], saved
    # another saved section (here: another mode) is a change
    assert other['changed'] is True and not other['failed'], other
    # other limits than the mount's: hugepagesd refuses them, check mode
    # says so with its message
    assert refused['failed'] and 'already mounted with other options' in refused['msg'], refused


@pytest.mark.fake_kernel(pools=POOLS)
def test_mount_absent_persist_removes_a_section_whose_mount_is_gone(service, polkit, fake_kernel,
                                                                     play):
    # Saved, then unmounted by hand: the section alone goes (unmount
    # --persist of the mount point the dry run names), and then nothing.
    polkit.allow(*ALL_ACTIONS)
    fake_kernel.write(PERSISTED, '[mount system]\npage-size = 2MB\nmode = 0770\n\n'
                                 '[tunables]\nshmmax = 1GB\n')
    path = fake_kernel.path(SYSTEM_MOUNT)
    task = {'hugepages.manager.mount': {'scope': 'system', 'page_size': '2M', 'persist': True,
                                        'state': 'absent'}}
    checked, applied, again = unchanged_twice(play, task)
    for result in (checked, applied):
        assert result['commands'] == [f'unmount {path} --persist'], result
        assert result['mounts'] == [], result
    saved = fake_kernel.read(PERSISTED)
    assert '[mount system]' not in saved and '[tunables]' in saved, saved
    assert again['commands'] == [], again


@pytest.fixture
def mounting_service(start_service, fake_kernel, polkit):
    """hugepagesd that really mounts hugetlbfs below the fake tree: in this
    private mount namespace (tests/run-all runs the fleet tier in one), with
    the namespace's own mount table as its proc/self, as the Cockpit tier's
    mount test does."""
    if not hpdtest.in_private_mount_namespace():
        pytest.skip('mounts for real: run in a private mount namespace (tests/run-all does)')
    own_ns = os.readlink('/proc/self/ns/mnt')
    fake_kernel.write_mount_namespaces(own_ns, own_ns)
    shutil.rmtree(fake_kernel.path('proc/self'))
    os.symlink('/proc/self', fake_kernel.path('proc/self'))
    os.makedirs(fake_kernel.path('var/lib'))
    yield start_service(fake_kernel.root, check=True)
    # whatever a failed test left mounted goes with this namespace's tree
    top = fake_kernel.path('var/lib/hugetlbfs')
    with open('/proc/self/mountinfo') as f:
        left = [line.split()[4] for line in f if line.split()[4].startswith(top)]
    for path in sorted(left, reverse=True):
        subprocess.run(['umount', '-l', path], check=False)


@pytest.mark.fake_kernel(pools=POOLS)
def test_mount_applied_twice_and_removed(mounting_service, polkit, fake_kernel, play):
    polkit.allow(*ALL_ACTIONS)
    path = fake_kernel.path('var/lib/hugetlbfs/global/pagesize-2MB')
    args = {'scope': 'global', 'page_size': '2M', 'size': '4M', 'inodes': 16, 'persist': True}
    present = {'hugepages.manager.mount': args}
    absent = {'hugepages.manager.mount': dict(args, state='absent')}

    checked, applied, again = unchanged_twice(play, present)
    assert checked['paths'] == [path] and checked['diff']['after'] == path + '\n', checked
    assert checked['commands'] == ['mount-create global --page-size 2097152 --size 4M '
                                   '--inodes 16 --persist'], checked
    mount, = applied['mounts']
    assert (mount['path'], mount['max_size'], mount['max_inodes'], mount['mode']) == \
        (path, 4 << 20, 16, 0o1777), mount
    assert os.path.ismount(path)
    assert '[mount global]' in fake_kernel.read(PERSISTED)

    checked, applied, again = unchanged_twice(play, absent)
    assert checked['commands'] == [f'unmount {path} --persist'], checked
    assert applied['mounts'] == [] and not os.path.ismount(path)
    assert '[mount global]' not in fake_kernel.read(PERSISTED)


def debian_grub(fake_kernel):
    """A Debian tree with GRUB below the fake root, where ConfigureBoot
    writes."""
    for rel, text in (('etc/debian_version', '12.11\n'),
                      ('etc/default/grub', 'GRUB_CMDLINE_LINUX=""\n'),
                      # not run under a fake root; its presence says GRUB is installed
                      ('usr/sbin/update-grub', '#!/bin/sh\nexit 1\n')):
        os.makedirs(os.path.dirname(fake_kernel.path(rel)), exist_ok=True)
        with open(fake_kernel.path(rel), 'w') as f:
            f.write(text)
    os.chmod(fake_kernel.path('usr/sbin/update-grub'), 0o755)
    os.makedirs(fake_kernel.path('etc/default/grub.d'), exist_ok=True)


GRUB_LINE = 'GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX {}"\n'


@pytest.mark.fake_kernel(pools=POOLS)
def test_boot(service, polkit, fake_kernel, play):
    # persistence at boot: a 1 GB pool saved, then its boot parameters
    # written for GRUB (a Debian tree below the fake root)
    polkit.allow(*ALL_ACTIONS, 'org.hugepages.manager.configure-boot')
    debian_grub(fake_kernel)
    saved = play([{'hugepages.manager.pool': {'page_size': '1G', 'minimum': 2, 'persist': True}}])
    assert not saved[0]['failed'], saved
    checked, applied, again = unchanged_twice(play, {'hugepages.manager.boot': {}})
    assert checked['boot_parameters'] == 'hugepagesz=1G hugepages=2', checked
    assert checked['path'] == fake_kernel.path('etc/default/grub.d/hugepagesd.cfg')
    assert checked['diff']['before'] == ''
    assert checked['diff']['after'].endswith(GRUB_LINE.format('hugepagesz=1G hugepages=2'))
    written = fake_kernel.read('etc/default/grub.d/hugepagesd.cfg')
    # the diff showed what hugepagesd then wrote
    assert applied['diff']['after'] == written
    assert again['reboot_required'] is True


@pytest.mark.fake_kernel(pools=POOLS)
def test_boot_stale_drop_in(service, polkit, fake_kernel, local_play):
    # A drop-in that has the configured line, and also one added by hand
    # for a default size the configuration no longer asks for: booting
    # with it is not what the configuration says, so the task changes it.
    # Whether it is current is hugepagesd's answer (BootDropIn), compared as
    # ConfigureBoot writes, not a search for the line in the file.
    polkit.allow('org.hugepages.manager.configure-boot')
    debian_grub(fake_kernel)
    fake_kernel.write('etc/hugepagesd/hugepagesd.conf', '[pool 1GB]\nminimum = 2\n')
    dropin = 'etc/default/grub.d/hugepagesd.cfg'
    stale = (GRUB_LINE.format('hugepagesz=1G hugepages=2') +
             GRUB_LINE.format('default_hugepagesz=1G'))
    fake_kernel.write(dropin, stale)
    checked, applied, again = unchanged_twice(local_play, {'hugepages.manager.boot': {}})
    assert checked['diff']['before'] == stale, checked
    assert 'default_hugepagesz' not in checked['diff']['after']
    assert applied['diff']['after'] == fake_kernel.read(dropin)
    assert fake_kernel.read(dropin).endswith(GRUB_LINE.format('hugepagesz=1G hugepages=2'))
    assert 'default_hugepagesz' not in fake_kernel.read(dropin)


@pytest.mark.fake_kernel(pools=POOLS)
def test_info(service, polkit, fake_kernel, play):
    result = one(play([{'hugepages.manager.info': {}}], check=True))
    assert not result.get('failed') and result['changed'] is False, result
    assert [p['page_size'] for p in result['pools']] == [SMALL_BYTES, GIANT * 1024]
    assert result['pools'][0]['total'] == 6 and result['nodes'] == [0, 1]
    for key in ('mounts', 'claims', 'drift', 'explain', 'settings'):
        assert isinstance(result[key], list), key


# --- metrics ---------------------------------------------------------------------

METRICS_MOUNT = 'var/lib/hugetlbfs/group/dba/pagesize-2MB'


@pytest.mark.fake_kernel(pools=POOLS, mounts=[Mount(METRICS_MOUNT, gid=4321, mode=0o1770,
                                                    size=8 * SMALL_BYTES, nr_inodes=64)])
def test_metrics_scraped_by_node_exporter(service, polkit, fake_kernel, bus, conn, builddir):
    from prometheus_client.parser import text_string_to_metric_families

    if not os.access(NODE_EXPORTER, os.X_OK):
        pytest.skip('needs prometheus-node-exporter')
    polkit.allow(*ALL_ACTIONS)
    ctl = os.path.join(builddir, 'client', 'hugepagesctl')
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus.address)
    subprocess.run([ctl, 'claim', 'vm-1', '2M', '2', '--node', '1'], env=env, check=True,
                   capture_output=True, timeout=30)
    # the service's last allocation: one that falls short where the fake
    # kernel can simulate that, else one that is met
    if fake_kernel.simulating:
        fake_kernel.limit_pool(SMALL, 7)
    began = time.time()
    subprocess.run([ctl, 'set-min', '2M', '10'], env=env, capture_output=True, timeout=30)
    ended = time.time()
    # a configured minimum the pool does not have: requested, shortfall, drift
    conf = fake_kernel.path('etc/hugepagesd/hugepagesd.conf')
    os.makedirs(os.path.dirname(conf), exist_ok=True)
    with open(conf, 'w') as f:
        f.write('[pool 2MB]\nminimum = 40M\n')
    directory = tempfile.mkdtemp(prefix='hpd-textfile-')
    target = os.path.join(directory, 'hugepages.prom')
    # with hugepagesd-metrics.service's UMask=0077: the exporter's user must read the file
    subprocess.run([ctl, 'metrics', '--output', target], env=env, check=True, timeout=30,
                   umask=0o077)
    assert os.stat(target).st_mode & 0o777 == 0o644
    assert os.listdir(directory) == ['hugepages.prom'], 'temporary file left'

    port = hpdtest.free_port()
    exporter = subprocess.Popen([NODE_EXPORTER, f'--web.listen-address=127.0.0.1:{port}',
                                 '--collector.disable-defaults', '--collector.textfile',
                                 f'--collector.textfile.directory={directory}'],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                text = urllib.request.urlopen(f'http://127.0.0.1:{port}/metrics',
                                              timeout=5).read().decode()
                break
            except OSError:
                if time.monotonic() > deadline or exporter.poll() is not None:
                    raise
                time.sleep(0.1)
        # the exporter serves the file; the root service opens no socket of
        # its own (the exporter's listener shows that the look would see one)
        assert listening_sockets(exporter.pid), 'node_exporter listens, and was not seen'
        assert listening_sockets(service.pid) == []
    finally:
        exporter.terminate()
        exporter.wait(timeout=10)
        shutil.rmtree(directory, ignore_errors=True)

    samples = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    assert samples[('node_textfile_scrape_error', ())] == 0

    def value(name, **labels):
        return samples[(name, tuple(sorted((k, str(v)) for k, v in labels.items())))]

    for kb in (SMALL, GIANT):
        size = kb * 1024
        assert value('hugepages_pool_pages', page_size_bytes=size) == nr(fake_kernel, kb)
        assert value('hugepages_pool_free_pages', page_size_bytes=size) == \
            nr(fake_kernel, kb, 'free_hugepages')
        assert value('hugepages_pool_reserved_pages', page_size_bytes=size) == \
            nr(fake_kernel, kb, 'resv_hugepages')
        assert value('hugepages_pool_surplus_pages', page_size_bytes=size) == \
            nr(fake_kernel, kb, 'surplus_hugepages')
        for node in (0, 1):
            assert value('hugepages_node_pool_pages', page_size_bytes=size, node=node) == \
                fake_kernel.read_int(fake_kernel.node_file(node, kb, 'nr_hugepages'))
            assert value('hugepages_node_pool_free_pages', page_size_bytes=size, node=node) == \
                fake_kernel.read_int(fake_kernel.node_file(node, kb, 'free_hugepages'))
    assert value('hugepages_pool_maximum_pages', page_size_bytes=SMALL_BYTES) == \
        nr(fake_kernel, SMALL) + nr(fake_kernel, SMALL, 'nr_overcommit_hugepages')
    assert value('hugepages_claim_pages', consumer='vm-1', page_size_bytes=SMALL_BYTES,
                 node=1) == 2
    for section in ('pool', 'mount', 'tunables', 'thp'):
        assert ('hugepages_drift_items', (('section', section),)) in samples
    for severity in ('info', 'warning', 'error'):
        assert ('hugepages_explain_findings', (('severity', severity),)) in samples
    # the service's target: set-min's base of 10 since boot (before the 20
    # pages configured) plus the claim's 2, against the persistent pool
    minimum = value('hugepages_pool_minimum_pages', page_size_bytes=SMALL_BYTES)
    assert value('hugepages_pool_requested_pages', page_size_bytes=SMALL_BYTES) == 12
    assert value('hugepages_pool_shortfall_pages', page_size_bytes=SMALL_BYTES) == \
        max(12 - minimum, 0)
    assert value('hugepages_pool_requested_pages', page_size_bytes=GIANT * 1024) == 0
    assert value('hugepages_pool_shortfall_pages', page_size_bytes=GIANT * 1024) == 0
    # the configuration's 20 pages the pool does not hold: drift
    assert value('hugepages_drift_items', section='pool') >= 1

    # the last allocation: the base of 10 plus the claim's 2 asked of the
    # kernel, what sysfs holds given, as LastAllocation says
    last = hpdtest.get(conn, hpdtest.page_size_path(SMALL), hpdtest.PAGE_SIZE_IFACE,
                       'LastAllocation')
    achieved = nr(fake_kernel, SMALL) - nr(fake_kernel, SMALL, 'surplus_hugepages')
    assert achieved == (7 if fake_kernel.simulating else 12)
    assert value('hugepages_last_allocation_requested_pages', page_size_bytes=SMALL_BYTES) == \
        last['requested'] == 12
    assert value('hugepages_last_allocation_achieved_pages', page_size_bytes=SMALL_BYTES) == \
        last['achieved'] == achieved
    assert value('hugepages_last_allocation_shortfall_pages', page_size_bytes=SMALL_BYTES) == \
        last['shortfall'] == 12 - achieved
    assert value('hugepages_last_allocation_duration_seconds', page_size_bytes=SMALL_BYTES) == \
        pytest.approx(last['duration-usec'] / 1e6, abs=1e-6)
    assert 0 < last['duration-usec'] <= (ended - began) * 1e6
    assert began - 1 <= value('hugepages_last_allocation_timestamp_seconds',
                              page_size_bytes=SMALL_BYTES) <= ended + 1
    for kb in (SMALL, GIANT):
        for node in (0, 1):
            for counter, name in (('surplus_hugepages', 'hugepages_node_pool_surplus_pages'),):
                assert value(name, page_size_bytes=kb * 1024, node=node) == \
                    fake_kernel.read_int(fake_kernel.node_file(node, kb, counter))
    assert value('hugepages_pool_overcommit_pages', page_size_bytes=SMALL_BYTES) == \
        nr(fake_kernel, SMALL, 'nr_overcommit_hugepages')
    # the mount, its owner and mode as mountinfo has them, and its limits
    mount = fake_kernel.path(METRICS_MOUNT)
    assert value('hugepages_mount_info', path=mount, page_size_bytes=SMALL_BYTES, uid=0,
                 gid=4321, mode='1770', managed='true') == 1
    assert value('hugepages_mount_size_limit_bytes', path=mount) == 8 * SMALL_BYTES
    assert value('hugepages_mount_inodes_limit', path=mount) == 64
    assert ('hugepages_mount_min_size_bytes', (('path', mount),)) not in samples
    # Explain's findings, counted by severity as explain --json lists them
    findings = json.loads(subprocess.run([ctl, 'explain', '--json'], env=env, check=True,
                                         capture_output=True, text=True,
                                         timeout=30).stdout)['entries']
    for severity in ('info', 'warning', 'error'):
        assert value('hugepages_explain_findings', severity=severity) == \
            sum(1 for f in findings if f['severity'] == severity), severity
    assert value('hugepages_explain_findings', severity='warning') >= 1
    # the service's own ask (Base plus the claims: Target) against what the
    # pool holds, per size
    for kb in (SMALL, GIANT):
        path = hpdtest.page_size_path(kb)
        for prop, name in (('Base', 'hugepages_pool_base_pages'),
                           ('Target', 'hugepages_pool_target_pages')):
            assert value(name, page_size_bytes=kb * 1024) == \
                hpdtest.get(conn, path, hpdtest.PAGE_SIZE_IFACE, prop), name
    assert value('hugepages_pool_base_pages', page_size_bytes=SMALL_BYTES) == 10
    assert value('hugepages_pool_target_pages', page_size_bytes=SMALL_BYTES) == 12
    # a size the service did not change has none
    assert not any(name.startswith('hugepages_last_allocation_') and
                   ('page_size_bytes', str(GIANT * 1024)) in labels
                   for name, labels in samples)

    # Prometheus' naming and unit conventions (promtool's lint), on our
    # families: a problem is a line on stderr and a non-zero exit
    proc = subprocess.run([promtool(), 'check', 'metrics'], input=_ours(text),
                          capture_output=True, text=True, timeout=30)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, '', '')


@pytest.mark.fake_kernel(pools=POOLS)
def test_metrics_node_target(service, polkit, fake_kernel, bus, conn, builddir):
    from prometheus_client.parser import text_string_to_metric_families

    polkit.allow(*ALL_ACTIONS)
    ctl = os.path.join(builddir, 'client', 'hugepagesctl')
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus.address)
    # node 0: a configured count and a claim on top of it; node 1: a claim
    # only; the pool-wide claim is on no node
    fake_kernel.write('etc/hugepagesd/hugepagesd.conf', '[pool 2MB]\nnode0 = 3\n')
    for args in (['vm-0', '2M', '1', '--node', '0'], ['vm-1', '2M', '2', '--node', '1'],
                 ['vm-all', '2M', '1']):
        subprocess.run([ctl, 'claim'] + args, env=env, check=True, capture_output=True,
                       timeout=30)
    text = subprocess.run([ctl, 'metrics'], env=env, check=True, capture_output=True, text=True,
                          timeout=30).stdout

    families = {f.name: f for f in text_string_to_metric_families(text)}
    target = families['hugepages_node_pool_target_pages']
    assert target.type == 'gauge' and target.documentation
    got = {(s.labels['page_size_bytes'], s.labels['node']): s.value for s in target.samples}
    # every node of every size, labelled as the other per-node families
    assert set(got) == {(s.labels['page_size_bytes'], s.labels['node'])
                        for s in families['hugepages_node_pool_minimum_pages'].samples}
    assert got == {(str(SMALL_BYTES), '0'): 4, (str(SMALL_BYTES), '1'): 2,
                   (str(GIANT * 1024), '0'): 0, (str(GIANT * 1024), '1'): 0}
    # the service's figures (Nodes' target), not the client's sum
    for kb in (SMALL, GIANT):
        for record in hpdtest.get(conn, hpdtest.page_size_path(kb), hpdtest.PAGE_SIZE_IFACE,
                                  'Nodes'):
            assert got[(str(kb * 1024), str(record['node']))] == record['target']

    proc = subprocess.run([promtool(), 'check', 'metrics'], input=text, capture_output=True,
                          text=True, timeout=30)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, '', '')


def listening_sockets(pid):
    """The sockets process @pid holds that listen (TCP, UDP, or a Unix
    socket that accepts connections), as (table, address) from its
    network namespace's /proc tables."""
    inodes = set()
    for fd in os.listdir(f'/proc/{pid}/fd'):
        try:
            link = os.readlink(f'/proc/{pid}/fd/{fd}')
        except OSError:
            continue
        if link.startswith('socket:['):
            inodes.add(link[len('socket:['):-1])
    found = []
    for table in ('tcp', 'tcp6', 'udp', 'udp6', 'unix'):
        with open(f'/proc/{pid}/net/{table}') as f:
            next(f)
            for line in f:
                fields = line.split()
                if table == 'unix':
                    # Flags __SO_ACCEPTCON: listen() was called
                    if fields[6] in inodes and int(fields[3], 16) & 0x10000:
                        found.append((table, fields[7] if len(fields) > 7 else ''))
                elif fields[9] in inodes and (table.startswith('udp') or fields[3] == '0A'):
                    found.append((table, fields[1]))
    return found


@pytest.mark.fake_kernel(pools=POOLS)
def test_metrics_requested_is_the_service_target(service, polkit, fake_kernel, bus, conn,
                                                 builddir):
    """hugepages_pool_requested_pages is PageSize Target, the service's one
    rule, and the shortfall what the persistent pool lacks of it, in every
    state where a sum of the configuration and the claims made in the
    client would differ from it."""
    from prometheus_client.parser import text_string_to_metric_families

    polkit.allow(*ALL_ACTIONS)
    ctl = os.path.join(builddir, 'client', 'hugepagesctl')
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus.address)

    def run(*args):
        return subprocess.run([ctl, *args], env=env, check=True, capture_output=True,
                              text=True, timeout=30).stdout

    def check(expected):
        got = {}
        for family in text_string_to_metric_families(run('metrics')):
            for s in family.samples:
                if s.name in ('hugepages_pool_requested_pages', 'hugepages_pool_shortfall_pages'):
                    got[(s.name, int(s.labels['page_size_bytes']) // 1024)] = s.value
        for kb in (SMALL, GIANT):
            props = hpdtest.page_size_props(conn, kb)
            assert props['Target'] == expected[kb], kb
            assert got[('hugepages_pool_requested_pages', kb)] == props['Target'], kb
            assert got[('hugepages_pool_shortfall_pages', kb)] == \
                max(props['Target'] - props['Minimum'], 0), kb

    conf = 'etc/hugepagesd/hugepagesd.conf'
    # nothing asked: 0 for every size, not a missing sample
    check({SMALL: 0, GIANT: 0})
    # the size's own section before [pool DEFAULT], whatever the order of
    # ConfiguredState
    fake_kernel.write(conf, '[pool 2MB]\nminimum = 8\n[pool DEFAULT]\nminimum = 3\n')
    check({SMALL: 8, GIANT: 0})
    # a claim on a size nothing configures (the first claim takes its 2
    # pages as the base): the pool must hold both
    run('claim', 'vm-1', '1G', '3')
    check({SMALL: 8, GIANT: 2 + 3})
    # a SetMinimum since boot is the base until reboot, before the configuration
    run('claim', 'db', '2M', '2')
    run('set-min', '2M', '5')
    check({SMALL: 5 + 2, GIANT: 2 + 3})
    # a pool below its target
    fake_kernel.write(fake_kernel.pool_file(SMALL, 'nr_hugepages'), 4)
    check({SMALL: 5 + 2, GIANT: 2 + 3})


def test_metrics_timer_and_cron_write_the_textfile(service, polkit, fake_kernel, bus, builddir):
    # The installed unit's ExecStart and the cron line, run as written (the
    # built client for the installed path, a scratch directory for Debian's
    # textfile directory): both leave a .prom file node_exporter can read.
    from prometheus_client.parser import text_string_to_metric_families

    debian_dir = '/var/lib/prometheus/node-exporter'
    ctl = os.path.join(builddir, 'client', 'hugepagesctl')
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus.address)
    with open(os.path.join(builddir, 'data', 'hugepagesd-metrics.service')) as f:
        unit = f.read()
    with open(os.path.join(REPO, 'data', 'systemd', 'hugepagesd-metrics.timer')) as f:
        timer = f.read()
    assert 'OnUnitActiveSec=1min' in timer and 'WantedBy=timers.target' in timer
    assert f'ConditionPathIsDirectory={debian_dir}' in unit
    assert f'ReadWritePaths={debian_dir}' in unit and 'PrivateNetwork=yes' in unit
    exec_start = [line.split('=', 1)[1] for line in unit.splitlines()
                  if line.startswith('ExecStart=')]
    with open(os.path.join(builddir, 'data', 'hugepagesd-metrics')) as f:
        cron = [line for line in f.read().splitlines() if line and not line.startswith('#')]
    assert len(exec_start) == 1 and len(cron) == 1, (exec_start, cron)
    fields = cron[0].split(None, 6)
    assert fields[:6] == ['*'] * 5 + ['root'], fields
    installed = exec_start[0].split()[0]
    assert installed.endswith('/hugepagesctl') and installed in fields[6]

    for name, command in (('timer', exec_start[0]), ('cron', fields[6])):
        directory = tempfile.mkdtemp(prefix='hpd-textfile-')
        try:
            proc = subprocess.run(['/bin/sh', '-c', command.replace(installed, ctl)
                                   .replace(debian_dir, directory)],
                                  env=env, capture_output=True, text=True, timeout=30)
            assert proc.returncode == 0, (name, proc.stderr)
            assert os.listdir(directory) == ['hugepages.prom'], name
            with open(os.path.join(directory, 'hugepages.prom')) as f:
                names = {s.name for family in text_string_to_metric_families(f.read())
                         for s in family.samples}
            assert {'hugepages_pool_pages', 'hugepages_pool_target_pages'} <= names, name
        finally:
            shutil.rmtree(directory, ignore_errors=True)
    # without the directory (no node_exporter) the cron line writes nothing
    # and fails nobody's mail
    missing = os.path.join(tempfile.gettempdir(), 'hpd-no-such-textfile-dir')
    proc = subprocess.run(['/bin/sh', '-c', fields[6].replace(installed, ctl)
                           .replace(debian_dir, missing)],
                          env=env, capture_output=True, text=True, timeout=30)
    assert proc.stdout == proc.stderr == '' and not os.path.exists(missing)


def _ours(text):
    """Our families only (node_exporter's own are not ours to lint)."""
    keep, lines = False, []
    for line in text.splitlines():
        if line.startswith('# HELP ') or line.startswith('# TYPE '):
            keep = line.split()[2].startswith('hugepages_')
        elif not line.startswith('#'):
            keep = line.startswith('hugepages_')
        if keep:
            lines.append(line)
    return '\n'.join(lines) + '\n'


def test_alert_rules_are_valid():
    proc = subprocess.run([promtool(), 'check', 'rules', ALERT_RULES], capture_output=True,
                          text=True, timeout=30)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert 'SUCCESS: 7 rules found' in proc.stdout, proc.stdout


def test_alert_rules_fire_on_their_series():
    # promtool's rule unit tests: each alert on the series it watches, after
    # its window and not before, not on a pool that holds what is asked
    proc = subprocess.run([promtool(), 'test', 'rules', 'hugepages-alerts.test.yml'], cwd=HERE,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert 'SUCCESS' in proc.stdout, proc.stdout


@pytest.mark.fake_kernel(pools=POOLS)
def test_role(service, polkit, fake_kernel, local_play):
    play = local_play
    # the role's pool, THP and claims (its mount needs a real kernel)
    polkit.allow(*ALL_ACTIONS)
    task = {'ansible.builtin.include_role': {'name': 'hugepages.manager.hugepages'},
            'vars': {'hugepages_minimum': 4, 'hugepages_maximum': '32M',
                     'hugepages_thp': {'enabled': 'madvise'},
                     'hugepages_claims': [{'consumer': 'postgresql', 'pages': '8M'},
                                          {'consumer': 'vm-1', 'pages': 2, 'node': 1}]}}
    runs = [play([task], check=check) for check in (True, False, False)]
    for results, changed in zip(runs, (True, True, False)):
        assert not any(r['failed'] for r in results), results
        assert any(r.get('changed') for r in results) is changed, results
    assert nr(fake_kernel, SMALL) == 4 + 4 + 2
    assert nr(fake_kernel, SMALL, 'nr_overcommit_hugepages') == 16 - 10
    assert '[madvise]' in fake_kernel.read('sys/kernel/mm/transparent_hugepage/enabled')
    # the pool per node instead of a minimum, saved: settles too
    per_node = dict(task, vars=dict(task['vars'], hugepages_nodes={0: 3, 1: 3}))
    runs = [play([per_node]) for _ in range(2)]
    for results, changed in zip(runs, (True, False)):
        assert not any(r['failed'] for r in results), results
        assert any(r.get('changed') for r in results) is changed, results
    assert fake_kernel.read_int(fake_kernel.node_file(0, SMALL, 'nr_hugepages')) == 3


def test_module_docs(collections):
    # ansible-doc parses DOCUMENTATION, EXAMPLES and RETURN of every module
    # and the role's argument-less entry (the stand-in for ansible-test's
    # validate-modules, which needs PyPI)
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=collections)
    listed = subprocess.run(['ansible-doc', '-l', 'hugepages.manager', '--json'], env=env,
                            capture_output=True, text=True, timeout=60, check=True)
    modules = sorted(json.loads(listed.stdout))
    assert modules == ['hugepages.manager.' + m
                       for m in ('boot', 'claim', 'info', 'mount', 'pool', 'tunables')]
    for module in modules:
        proc = subprocess.run(['ansible-doc', '--json', module], env=env, capture_output=True,
                              text=True, timeout=60)
        assert proc.returncode == 0 and proc.stderr == '', proc.stderr
        doc = json.loads(proc.stdout)[module]
        assert doc['doc']['options'] is not None and doc['examples'] and doc['return'] is not None
        assert doc['doc']['attributes']['check_mode']['support'] == 'full'


def test_modules_leave_the_shared_doc_to_the_fragment(collections):
    # author, platform and the check and diff support every module shares
    # are written once, in plugins/doc_fragments/common.py; a module states
    # only where it differs (info has no diff, pool's check mode has details)
    def load(path):
        spec = importlib.util.spec_from_file_location('hpd_doc', path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    fragment = yaml.safe_load(load(os.path.join(COLLECTION, 'plugins', 'doc_fragments',
                                                'common.py')).ModuleDocFragment.DOCUMENTATION)
    shared = fragment['attributes']
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=collections)
    modules = os.path.join(COLLECTION, 'plugins', 'modules')
    for name in sorted(os.listdir(modules)):
        with open(os.path.join(modules, name)) as f:
            source = f.read()
        own = yaml.safe_load(source.split("DOCUMENTATION = r'''", 1)[1].split("'''", 1)[0])
        assert 'author' not in own, name
        for key, value in own.get('attributes', {}).items():
            repeated = {k: v for k, v in value.items() if shared.get(key, {}).get(k) == v}
            assert not repeated, (name, key, repeated)
        # what ansible-doc shows is still whole
        fqcn = 'hugepages.manager.' + name[:-3]
        doc = json.loads(subprocess.run(['ansible-doc', '--json', fqcn], env=env, check=True,
                                        capture_output=True, text=True,
                                        timeout=60).stdout)[fqcn]['doc']
        assert doc['author'] == ['hugepagesd developers'], name
        assert doc['attributes']['platform']['platforms'] == 'posix', name
        for key in ('check_mode', 'diff_mode', 'platform'):
            assert doc['attributes'][key]['support'] and doc['attributes'][key]['description'], \
                (name, key)
    assert json.loads(subprocess.run(
        ['ansible-doc', '--json', 'hugepages.manager.info'], env=env, check=True,
        capture_output=True, text=True, timeout=60).stdout)['hugepages.manager.info']['doc'][
            'attributes']['diff_mode']['support'] == 'none'
