# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""hugepagesctl --json against hugepagesd on the fake kernel tree: every
command that shows something takes --json (a command added later that
forgets it fails test_every_reading_command_takes_json), each document is
one object with format_version, snake_case names, sizes in bytes and counts
in pages, and holds the same values as the fake tree and as the command's
text output. The schema is in README.md, "JSON output"."""

import json
import os
import re
import signal
import subprocess
import time

import pytest

import hpdtest
from fakekernel import NodePool, Pool
from test_client import GIANT, MEM_KB, POOLS, SMALL, ctl, hugepagesctl, ok, usage_error  # noqa: F401
from test_client_mounts import FLAGS, base, write_mountinfo
from test_client_tunables import MIN_FREE, THP_FILES, write_tunables

FORMAT_VERSION = 1

# Commands that only change something; every other command shows something
# and must take --json. A new command goes in one list or the other.
CHANGING = {'set-min', 'set-max', 'set-node', 'demote', 'mount-create', 'unmount',
            'remove-orphan', 'claim', 'release'}
# Other tools' command lines in those tools' output formats (the JSON of
# what they show comes from pools, page-sizes, mounts, ...), and metrics in
# Prometheus' text format.
FOREIGN = {'hugeadm', 'pagesize', 'metrics'}
# Reading commands with the arguments that make them show (not change).
SHOWING_ARGS = {'status': [], 'page-sizes': [], 'pools': [], 'mounts': [], 'shm-max': [],
                'shm-group': [], 'min-free-kbytes': [], 'zone-movable': [], 'thp': [],
                'explain': [], 'config': [], 'boot': [], 'usage': ['--no-ask-password'],
                'claims': [], 'suggest': ['jvm', '--heap', '1G']}
SNAKE = re.compile(r'^[a-z][a-z0-9]*(_[a-z0-9]+)*$')


def commands(ctl):
    """The command names `hugepagesctl --help` lists."""
    out = ok(ctl('--help'))
    listed = out.split('Commands:\n', 1)[1].split('\n\n', 1)[0]
    return [line.split()[0] for line in listed.splitlines()]


def document(proc):
    doc = json.loads(ok(proc))
    assert isinstance(doc, dict)
    assert doc['format_version'] == FORMAT_VERSION
    check_names(doc)
    return doc


def check_names(value, where='$'):
    """Every member name in a document is snake_case."""
    if isinstance(value, dict):
        for name, member in value.items():
            assert SNAKE.match(name), f'{where}: {name!r} is not snake_case'
            check_names(member, f'{where}.{name}')
    elif isinstance(value, list):
        for i, item in enumerate(value):
            check_names(item, f'{where}[{i}]')


# --- every reading command takes --json --------------------------------------

def test_every_reading_command_takes_json(service, ctl):
    listed = commands(ctl)
    assert CHANGING <= set(listed)
    reading = [c for c in listed if c not in CHANGING | FOREIGN]
    # each is classified: a new command must be added to SHOWING_ARGS (or
    # CHANGING) here, and a reading one must take --json
    assert set(reading) == set(SHOWING_ARGS) | {'monitor'}, reading
    for command in reading:
        assert '--json' in ok(ctl(command, '--help')), command
        if command != 'monitor':
            document(ctl(command, *SHOWING_ARGS[command], '--json'))
    for command in CHANGING:
        assert '--json' not in ok(ctl(command, '--help')), command


@pytest.mark.parametrize('args,text', [
    (['shm-max', '64G', '--json'], '--json only applies to showing the setting'),
    (['shm-group', 'root', '--json'], '--json only applies to showing'),
    (['min-free-kbytes', 'recommended', '--json'], '--json only applies to showing'),
    (['zone-movable', 'on', '--json'], '--json only applies to showing'),
    (['thp', 'enabled=never', '--json'], '--json only applies to showing'),
    (['boot', '--write', '--json'], '--json only applies to showing the boot parameters'),
    (['set-min', '--json', '2M', '1'], 'Unknown option --json'),
    (['status', '--json', 'x'], 'takes no arguments'),
])
def test_json_with_a_change_is_a_usage_error(ctl, make_bus, args, text):
    empty = make_bus()
    usage_error(ctl(*args, env={'DBUS_SYSTEM_BUS_ADDRESS': empty.address}), text)


def test_json_error_is_text_on_stderr(ctl, make_bus):
    empty = make_bus()
    proc = ctl('status', '--json', env={'DBUS_SYSTEM_BUS_ADDRESS': empty.address})
    assert proc.returncode == 1 and proc.stdout == ''
    assert proc.stderr.startswith('hugepagesctl: cannot reach hugepagesd on the system bus: ')


# --- status, page-sizes, pools ------------------------------------------------

@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind
def test_status_json(service, ctl):
    doc = document(ctl('status', '--json'))
    text = ok(ctl('status')).splitlines()
    assert text[0] == f'hugepagesd version:  {doc["service_version"]}'
    assert doc['base_page_size'] == 4096
    assert doc['default_page_size'] == SMALL * 1024
    assert doc['numa_nodes'] == [0, 1]
    assert doc['mem_total'] == MEM_KB * 1024
    assert doc['pool_memory_limit'] == MEM_KB * 1024 * 9 // 10
    small, giant = doc['pools']
    assert small == {
        'name': '2MB', 'page_size': SMALL * 1024, 'default': True, 'gigantic': False,
        'minimum': 6, 'total': 6, 'maximum': 8, 'free': 5, 'reserved': 1, 'surplus': 0,
        'overcommit': 2, 'base': 0, 'target': 0, 'can_overcommit': True, 'demote_size': 0,
        'last_allocation': None,
        'nodes': [{'node': 0, 'total': 4, 'free': 3, 'surplus': 0, 'minimum': 4, 'target': 0},
                  {'node': 1, 'total': 2, 'free': 2, 'surplus': 0, 'minimum': 2, 'target': 0}],
        'mounts': []}
    assert (giant['name'], giant['gigantic'], giant['demote_size']) == ('1GB', True, SMALL * 1024)
    assert (giant['minimum'], giant['total'], giant['free'], giant['reserved']) == (5, 5, 4, 1)
    assert giant['can_overcommit'] is False
    # the text shows the same numbers
    for pool, line in zip(doc['pools'], text[-2:]):
        assert line.startswith(f'  {pool["name"]}')
        for name in ('minimum', 'total', 'maximum', 'free', 'reserved', 'surplus', 'overcommit'):
            assert f'{name} {pool[name]}' in line


@pytest.mark.fake_kernel(pools=POOLS)
def test_page_sizes_json(service, ctl):
    doc = document(ctl('page-sizes', '--json'))
    assert doc == {'format_version': FORMAT_VERSION, 'page_sizes': [SMALL * 1024, GIANT * 1024]}
    assert [int(x) for x in ok(ctl('page-sizes')).split()] == doc['page_sizes']
    doc = document(ctl('page-sizes', '--all', '--json'))
    assert doc['base_page_size'] == 4096
    assert [int(x) for x in ok(ctl('page-sizes', '--all')).split()] == \
        [doc['base_page_size'], *doc['page_sizes']]


def table(out):
    return [line.split() for line in out.splitlines()[1:]]


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind
def test_pools_json_matches_the_tables(service, ctl):
    doc = document(ctl('pools', '--json'))
    assert doc['pools'] == [
        {'page_size': SMALL * 1024, 'minimum': 6, 'total': 6, 'maximum': 8, 'default': True},
        {'page_size': GIANT * 1024, 'minimum': 5, 'total': 5, 'maximum': 5, 'default': False}]
    assert table(ok(ctl('pools'))) == [
        [str(p['page_size']), str(p['minimum']), str(p['total']), str(p['maximum'])]
        + (['*'] if p['default'] else []) for p in doc['pools']]

    doc = document(ctl('pools', '--long', '--json'))
    rows = table(ok(ctl('pools', '--long')))
    for pool, row in zip(doc['pools'], rows, strict=True):
        assert row[-3:] == [str(pool['free']), str(pool['reserved']), str(pool['surplus'])]
    assert (doc['pools'][0]['free'], doc['pools'][0]['reserved']) == (5, 1)

    doc = document(ctl('pools', '--nodes', '--json'))
    assert doc['nodes'][:2] == [
        {'node': 0, 'page_size': SMALL * 1024, 'total': 4, 'free': 3, 'surplus': 0, 'minimum': 4,
         'target': 0},
        {'node': 0, 'page_size': GIANT * 1024, 'total': 3, 'free': 2, 'surplus': 0, 'minimum': 3,
         'target': 0}]
    assert table(ok(ctl('pools', '--nodes'))) == node_table(doc)


def node_table(doc):
    """pools --nodes as the table prints pools --nodes --json: "-" for no target."""
    return [[str(n[k]) for k in ('node', 'page_size', 'total', 'free', 'surplus', 'minimum')]
            + [str(n['target']) if n['target'] else '-'] for n in doc['nodes']]


@pytest.mark.fake_kernel(pools=POOLS)
def test_pools_nodes_json_node_target(service, ctl, fake_kernel):
    fake_kernel.write('etc/hugepagesd/hugepagesd.conf', '[pool 2MB]\nnode1 = 3\n')
    fake_kernel.write('etc/hugepagesd/claims.d/vm.conf', '[2MB node1]\npages = 2\n')
    doc = document(ctl('pools', '--nodes', '--json'))
    # Nodes' target: the configured 3 plus the claim's 2; status says the same
    assert [(n['node'], n['page_size'], n['target']) for n in doc['nodes']] == [
        (0, SMALL * 1024, 0), (0, GIANT * 1024, 0), (1, SMALL * 1024, 3 + 2), (1, GIANT * 1024, 0)]
    small = document(ctl('status', '--json'))['pools'][0]
    assert [n['target'] for n in small['nodes']] == [0, 3 + 2]
    assert table(ok(ctl('pools', '--nodes'))) == node_table(doc)


@pytest.mark.fake_kernel(pools=POOLS)
def test_status_json_node_target(service, ctl, fake_kernel):
    fake_kernel.write('etc/hugepagesd/hugepagesd.conf', '[pool 2MB]\nnode1 = 3\n')
    small = document(ctl('status', '--json'))['pools'][0]
    # in each node's object, as Nodes has it; no list of its own
    assert [(n['node'], n['minimum'], n['target']) for n in small['nodes']] == [(0, 4, 0),
                                                                               (1, 2, 3)]
    assert 'node_targets' not in small


@pytest.mark.fake_kernel(pools={SMALL: Pool(total=4, free=2, surplus=2, overcommit=5,
                                            nodes={0: NodePool(2, 1, 1), 1: NodePool(2, 1, 1)})})
def test_pools_json_follows_the_kernel(service, ctl, fake_kernel):
    before = document(ctl('pools', '--json'))['pools'][0]
    assert (before['minimum'], before['total'], before['maximum']) == (2, 4, 7)
    fake_kernel.write(fake_kernel.pool_file(SMALL, 'nr_hugepages'), 9)
    after = document(ctl('pools', '--json'))['pools'][0]
    assert after['total'] == 9 and after['minimum'] == 7


# --- mounts ---------------------------------------------------------------------

def test_mounts_json(service, ctl, fake_kernel, NOBODY):
    b = base(fake_kernel)
    assert document(ctl('mounts', '--json')) == {'format_version': FORMAT_VERSION, 'mounts': []}
    write_mountinfo(fake_kernel, [
        (f'{b}/pagesize-2MB', 'mode=770,pagesize=2M'),
        (f'{b}/user/nobody/pagesize-1GB',
         f'uid={NOBODY},mode=700,pagesize=1024M,size=2147483648,min_size=1073741824,nr_inodes=5'),
        ('/mnt/with\\040space', 'gid=100,mode=1777'),
    ])
    doc = document(ctl('mounts', '--json'))
    assert doc['mounts'] == [
        {'path': f'{b}/pagesize-2MB', 'page_size': SMALL * 1024, 'uid': 0, 'gid': 0,
         'mode': 0o770, 'max_size': None, 'min_size': None, 'max_inodes': None,
         'flags': FLAGS, 'managed': True, 'options': {'uid': 0, 'gid': 0, 'mode': 0o770}},
        {'path': f'{b}/user/nobody/pagesize-1GB', 'page_size': GIANT * 1024, 'uid': NOBODY,
         'gid': 0, 'mode': 0o700, 'max_size': 2147483648, 'min_size': 1073741824,
         'max_inodes': 5, 'flags': FLAGS, 'managed': True,
         'options': {'uid': NOBODY, 'gid': 0, 'mode': 0o700}},
        # the real path, not the table's escape; not below /var/lib/hugetlbfs
        {'path': '/mnt/with space', 'page_size': SMALL * 1024, 'uid': 0, 'gid': 100,
         'mode': 0o1777, 'max_size': None, 'min_size': None, 'max_inodes': None,
         'flags': FLAGS, 'managed': False, 'options': {'uid': 0, 'gid': 100, 'mode': 0o1777}},
    ]
    rows = table(ok(ctl('mounts')))
    for mount, row in zip(doc['mounts'], rows, strict=True):
        assert row[3] == '%04o' % mount['mode']
        assert row[4:7] == ['-' if mount[k] is None else str(mount[k])
                            for k in ('max_size', 'min_size', 'max_inodes')]


# --- the tunables ---------------------------------------------------------------

@pytest.mark.fake_kernel(pools=POOLS)
def test_tunables_json(service, ctl, fake_kernel):
    write_tunables(fake_kernel, zone_movable=True)
    doc = document(ctl('shm-max', '--json'))
    assert doc == {'format_version': FORMAT_VERSION, 'shmmax': 32 * 1024 * 1024, 'shmall': 8192,
                   'base_page_size': 4096, 'recommended_shmmax': doc['recommended_shmmax'],
                   'recommended_shmall': doc['recommended_shmall']}
    text = ok(ctl('shm-max'))
    assert f'({doc["recommended_shmmax"]} bytes)' in text
    assert f'Recommended shmall:  {doc["recommended_shmall"]} pages' in text

    assert document(ctl('shm-group', '--json'))['shm_group'] == 0
    fake_kernel.write('proc/sys/vm/hugetlb_shm_group', 100)
    assert document(ctl('shm-group', '--json'))['shm_group'] == 100
    assert ok(ctl('shm-group')).startswith('vm.hugetlb_shm_group: 100 ')

    doc = document(ctl('min-free-kbytes', '--json'))
    assert doc['min_free_kbytes'] == fake_kernel.read_int(MIN_FREE) == 45056
    assert ok(ctl('min-free-kbytes')).splitlines() == [
        f'vm.min_free_kbytes:  {doc["min_free_kbytes"]} kB',
        f'Recommended:         {doc["recommended_min_free_kbytes"]} kB']

    assert document(ctl('zone-movable', '--json')) == {
        'format_version': FORMAT_VERSION, 'supported': True, 'enabled': True}

    doc = document(ctl('thp', '--json'))
    shown = [line.split(None, 1) for line in ok(ctl('thp')).splitlines()]
    named = doc['settings'] + doc['numeric_settings']
    assert [s['name'] for s in named] == [name for name, _ in shown]
    assert {s['name'] for s in named} == set(THP_FILES) - {'hpage_pmd_size'}
    for setting in doc['settings']:
        assert f'[{setting["value"]}]' in THP_FILES[setting['name']]
        assert sorted(setting['choices']) == sorted(THP_FILES[setting['name']].replace('[', '')
                                                    .replace(']', '').split())
    for setting in doc['numeric_settings']:
        assert setting['value'] == int(THP_FILES[setting['name']])


def test_tunables_json_without_settings(service, ctl, fake_kernel):
    write_tunables(fake_kernel, thp=False)
    assert ok(ctl('thp')) == 'This kernel has no transparent huge page settings.\n'
    doc = document(ctl('thp', '--json'))
    assert (doc['settings'], doc['numeric_settings']) == ([], [])
    doc = document(ctl('shm-max', '--json'))
    assert (doc['recommended_shmmax'], doc['recommended_shmall']) == (None, None)
    assert document(ctl('zone-movable', '--json'))['supported'] is False


# --- config, boot, explain, usage -----------------------------------------------

def test_config_json(service, ctl, fake_kernel):
    assert document(ctl('config', '--json')) == {
        'format_version': FORMAT_VERSION, 'settings': [], 'drift': [], 'errors': [],
        'overrides': [],
        'apply_at_boot': {'enabled': True, 'mechanism': 'systemd', 'message': '', 'fix': ''}}
    conf = 'etc/hugepagesd/hugepagesd.conf'
    fake_kernel.write(conf, '[pool 2MB]\nminimum = 4\n[tunables]\nzone-movable = maybe\n')
    doc = document(ctl('config', '--json'))
    assert doc['settings'] == [{'key': 'pool 2MB minimum', 'value': '4',
                                'origin': f'{fake_kernel.path(conf)}:2'}]
    assert doc['drift'] == [{'key': 'pool 2MB minimum', 'configured': '4', 'actual': '0',
                             'message': 'Pages in the 2MB pool: 0, the configuration asks for 4'}]
    assert len(doc['errors']) == 1 and doc['errors'][0].startswith(f'{fake_kernel.path(conf)}:4: ')
    text = ok(ctl('config')).splitlines()
    assert text[1] == f'  ! {doc["drift"][0]["message"]}'
    assert text[2] == f'error: {doc["errors"][0]}'
    # --check keeps its exit status with --json
    assert ctl('config', '--check', '--json').returncode == 1


def test_boot_json(service, ctl, fake_kernel):
    doc = document(ctl('boot', '--json'))
    dropin = fake_kernel.path('etc/default/grub.d/hugepagesd.cfg')
    assert doc == {'format_version': FORMAT_VERSION, 'boot_parameters': '',
                   'kernel_command_line': '', 'reboot_required': False,
                   'drop_in': {'path': dropin, 'text': '', 'up_to_date': True}}
    fake_kernel.write('etc/hugepagesd/hugepagesd.conf', '[pool 1GB]\nminimum = 2\n')
    doc = document(ctl('boot', '--json'))
    assert doc['boot_parameters'] == 'hugepagesz=1G hugepages=2'
    assert doc['reboot_required'] is True
    assert doc['drop_in']['up_to_date'] is False
    assert doc['drop_in']['text'].endswith(
        'GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX hugepagesz=1G hugepages=2"\n')
    assert f'Boot parameters:      {doc["boot_parameters"]}' in ok(ctl('boot'))


@pytest.mark.fake_kernel(pools={SMALL: Pool(total=8, free=8)})
def test_explain_json_has_the_format_version(service, ctl):
    doc = document(ctl('explain', '--json'))
    assert set(doc) == {'format_version', 'entries'}
    assert all(set(e) == {'severity', 'id', 'message', 'fix'} for e in doc['entries'])
    text = ok(ctl('explain'))
    for entry in doc['entries']:
        assert f'[{entry["severity"]}] {entry["id"]}: ' in text


def test_usage_json_names_are_snake_case(service, ctl):
    doc = document(ctl('usage', '--json', '--no-ask-password'))
    assert doc['restricted'] is True
    assert 'scanned_processes' in doc and 'unattributed' not in doc


# --- monitor --json ---------------------------------------------------------------

def read_events(lines, until, timeout=15):
    """JSON lines from monitor's stdout (an hpdtest.PipeLines) until
    until(event) holds."""
    events = []
    deadline = time.monotonic() + timeout
    while True:
        try:
            line = lines.next(deadline)
        except EOFError:
            line = None
        if line is None:
            raise AssertionError(f'no such event; got {events}')
        event = json.loads(line)
        events.append(event)
        if until(event):
            return events


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind
def test_monitor_json(service, ctl, hugepagesctl, bus, polkit):
    polkit.allow(hpdtest.ACTION_POOLS)
    proc = subprocess.Popen([hugepagesctl, 'monitor', '--json'], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            env=dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus.address))
    lines = hpdtest.PipeLines(proc)
    try:
        first = read_events(lines, lambda e: e['event'] == 'service_on_bus')[-1]
        assert first['format_version'] == FORMAT_VERSION
        assert first['unique_name'].startswith(':')
        assert re.match(r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d', first['time'])
        ok(ctl('set-min', '2M', '7'))
        events = read_events(lines, lambda e: e['event'] == 'property_changed'
                             and e['object'] == '2MB' and e['property'] == 'Minimum')
        change = events[-1]
        assert (change['old_value'], change['value']) == (6, 7)
        assert change['path'] == '/org/hugepages/Manager/PageSize/2048kB'
        assert change['interface'] == 'org.hugepages.Manager.PageSize'
        assert all(set(e) >= {'format_version', 'time', 'event'} for e in events)
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    for line in out.splitlines():
        json.loads(line)


# --- unsigned 64-bit values above 2^63 --------------------------------------------

# The kernel's default shmmax and shmall (ULONG_MAX - 2^24): above json-glib's
# G_MAXINT64, where a signed integer would clip it to 9223372036854775807.
HUGE = 18446744073692774399
assert HUGE > 2**63


@pytest.mark.fake_kernel(pools={SMALL: Pool(total=4, free=4, overcommit=HUGE)})
def test_json_values_above_2_63_are_exact(service, ctl, fake_kernel):
    write_tunables(fake_kernel, shmmax=HUGE, shmall=HUGE - 1, min_free=HUGE - 3)
    assert document(ctl('min-free-kbytes', '--json'))['min_free_kbytes'] == HUGE - 3
    doc = document(ctl('shm-max', '--json'))
    assert (doc['shmmax'], doc['shmall']) == (HUGE, HUGE - 1)
    text = ok(ctl('shm-max'))
    assert f'({HUGE} bytes)' in text
    # the pools' overcommit makes the recommendation 2^64 - 1 as well
    assert doc['recommended_shmmax'] == 2**64 - 1
    assert f'({doc["recommended_shmmax"]} bytes)' in text

    pool = document(ctl('status', '--json'))['pools'][0]
    assert (pool['overcommit'], pool['maximum']) == (HUGE, HUGE + 4)
    pool = document(ctl('pools', '--long', '--json'))['pools'][0]
    assert pool['maximum'] == HUGE + 4
    assert table(ok(ctl('pools')))[0][3] == str(HUGE + 4)

    # the per-node counters, in status and pools --nodes
    for name in ('nr_hugepages', 'free_hugepages', 'surplus_hugepages'):
        fake_kernel.write(fake_kernel.node_file(0, SMALL, name), HUGE - 1)
    node = document(ctl('status', '--json'))['pools'][0]['nodes'][0]
    assert (node['total'], node['free'], node['surplus']) == (HUGE - 1,) * 3
    [row] = [n for n in document(ctl('pools', '--nodes', '--json'))['nodes']
             if (n['node'], n['page_size']) == (0, SMALL * 1024)]
    assert (row['total'], row['free'], row['surplus']) == (HUGE - 1,) * 3

    b = base(fake_kernel)
    write_mountinfo(fake_kernel, [(f'{b}/pagesize-2MB',
                                   f'mode=770,pagesize=2M,size={HUGE},nr_inodes={HUGE - 2}')])
    mount, = document(ctl('mounts', '--json'))['mounts']
    assert (mount['max_size'], mount['max_inodes']) == (HUGE, HUGE - 2)


@pytest.mark.fake_kernel(pools=POOLS)
def test_monitor_json_values_above_2_63_are_exact(service, ctl, hugepagesctl, bus, fake_kernel):
    proc = subprocess.Popen([hugepagesctl, 'monitor', '--json'], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            env=dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus.address))
    lines = hpdtest.PipeLines(proc)
    try:
        read_events(lines, lambda e: e['event'] == 'service_on_bus')
        fake_kernel.write(fake_kernel.pool_file(SMALL, 'nr_overcommit_hugepages'), HUGE)
        ok(ctl('pools'))
        change = read_events(lines, lambda e: e['event'] == 'property_changed'
                             and e['object'] == '2MB' and e['property'] == 'Overcommit')[-1]
        assert (change['old_value'], change['value']) == (2, HUGE)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=10)
