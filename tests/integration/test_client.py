# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""hugepagesctl against hugepagesd on the fake kernel tree: strict argument
parsing, the output of every command (pools byte for byte as hugeadm
--pool-list), the exit codes (0 ok, 1 error, 2 usage, 3 shortfall), dry
runs, authorization (the interactive flag, NotAuthorized) and the pkttyagent
that is started on a terminal."""

import os
import pty
import re
import subprocess
import time

import pytest

from hpdtest import ACTION_POOLS
from fakekernel import NodePool, Pool

SMALL = 2048
GIANT = 1048576
MEM_KB = 16 * 1024 * 1024
SMALL_CAP = MEM_KB * 1024 * 9 // 10 // (SMALL * 1024)

# polkit's CheckAuthorizationFlags
ALLOW_USER_INTERACTION = 1

# Minimum 6, Maximum 8 for 2MB; 5/5/5 for 1GB (no overcommit file).
POOLS = {SMALL: Pool(total=6, free=5, resv=1, overcommit=2,
                     nodes={0: NodePool(4, 3, 0), 1: NodePool(2, 2, 0)}),
         GIANT: Pool(total=5, free=4, resv=1)}

# Surplus pages the static fake kernel never converts: asking for 10 leaves
# the persistent pool at 8, a shortfall.
SHORT = {SMALL: Pool(total=4, free=2, surplus=2, overcommit=5,
                     nodes={0: NodePool(2, 1, 1), 1: NodePool(2, 1, 1)})}


@pytest.fixture(scope='session')
def hugepagesctl(builddir):
    path = os.path.join(builddir, 'client', 'hugepagesctl')
    if not os.access(path, os.X_OK):
        pytest.fail(f'{path} is not built')
    return path


@pytest.fixture
def ctl(hugepagesctl, bus):
    """ctl(*args, env=None, **kw) -> CompletedProcess of hugepagesctl as root,
    stdin not a terminal."""
    def run(*args, env=None, **kwargs):
        full_env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus.address)
        full_env.update(env or {})
        kwargs.setdefault('stdin', subprocess.DEVNULL)
        return subprocess.run([hugepagesctl, *args], env=full_env, capture_output=True,
                              text=True, timeout=30, **kwargs)
    return run


@pytest.fixture
def allowed(polkit):
    polkit.allow(ACTION_POOLS)
    return polkit


def ok(proc):
    assert proc.returncode == 0, f'exit {proc.returncode}: {proc.stderr}'
    assert proc.stderr == ''
    return proc.stdout


def refusal(stderr):
    """The first line of a refused change's stderr: the refusal. The lines
    after it name the ways without a polkit agent (test_client_messages.py
    checks them)."""
    return stderr.split('\n', 1)[0] + '\n'


def usage_error(proc, text=None):
    assert proc.returncode == 2, f'exit {proc.returncode}: {proc.stdout}{proc.stderr}'
    assert proc.stdout == ''
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith('hugepagesctl: '), proc.stderr
    if text is not None:
        assert text in lines[0]
    return lines[0]


def hugeadm_pool_list(rows):
    """hugeadm --pool-list's format (hugeadm.md section 3)."""
    out = '%10s %8s %8s %8s %8s\n' % ('Size', 'Minimum', 'Current', 'Maximum', 'Default')
    for size, minimum, current, maximum, default in rows:
        out += '%10d %8d %8d %8d %8s\n' % (size, minimum, current, maximum, '*' if default else '')
    return out


# --- the command line, no service needed -----------------------------------

def test_no_command_prints_usage_and_exits_2(ctl):
    proc = ctl()
    assert proc.returncode == 2
    assert 'Usage:' in proc.stderr and 'set-min SIZE AMOUNT' in proc.stderr


def test_help_and_version(ctl):
    proc = ctl('--help')
    assert proc.returncode == 0
    for text in ('status', 'page-sizes', 'pools', 'set-min', 'set-max', 'set-node', 'demote',
                 '--no-ask-password', 'Exit status', '3  the kernel did not give'):
        assert text in proc.stdout
    assert ok(ctl('--version')).startswith('hugepagesctl ')
    proc = ctl('set-min', '--help')
    assert proc.returncode == 0
    for text in ('--hard', '--timeout', '--dry-run', '--no-ask-password'):
        assert text in proc.stdout
    assert '--hard' not in ctl('set-max', '--help').stdout
    assert '--hard' not in ctl('demote', '--help').stdout


@pytest.mark.parametrize('args,text', [
    (['frobnicate'], "unknown command 'frobnicate'"),
    (['--bogus'], 'Unknown option --bogus'),
    (['status', 'extra'], 'takes no arguments'),
    (['pools', '--long', '--nodes'], 'cannot be used together'),
    (['set-min'], 'usage: hugepagesctl set-min SIZE AMOUNT'),
    (['set-min', '2M'], 'usage: hugepagesctl set-min SIZE AMOUNT'),
    (['set-min', '2M', '1', '2'], 'usage: hugepagesctl set-min SIZE AMOUNT'),
    (['set-node', '2M', '1'], 'usage: hugepagesctl set-node NODE SIZE AMOUNT'),
    (['set-max', '--hard', '2M', '1'], 'Unknown option --hard'),
    (['demote', '--hard', '1G', '1'], 'Unknown option --hard'),
    (['demote', '--timeout', '5', '1G', '1'], 'Unknown option --timeout'),
    (['set-min', '--timeout', '5', '2M', '1'], '--timeout only applies to --hard'),
    (['set-min', '--hard', '--timeout', 'x', '2M', '1'], "--timeout takes a number of seconds, not 'x'"),
    (['set-min', '--hard', '--timeout', '-5', '2M', '1'], "not '-5'"),
    (['set-min', '2M:5', '1'], "'2M:5' has an unknown unit"),
    (['set-min', '0x200000', '1'], "'0x200000' has an unknown unit"),
    (['set-min', 'default', '1'], 'spelt DEFAULT'),
    (['set-min', '0', '1'], 'is zero'),
    (['set-min', '99999999999999999999', '1'], 'is too large'),
    (['set-min', '2M', '5x'], "'5x' has an unknown unit 'x'"),
    (['set-min', '2M', '2M:5'], 'unknown unit'),
    (['set-min', '2M', '0x10'], 'unknown unit'),
    (['set-min', '2M', '1.5'], 'unknown unit'),
    (['set-min', '2M', ''], 'empty amount'),
    (['set-min', '2M', ' 5'], 'does not start with a decimal number'),
    (['set-min', '2M', '--', ' 5'], 'does not start with a decimal number'),
    (['set-min', '2M', '+-1'], 'does not start with a decimal number'),
    (['set-min', '2M', '--5'], 'Unknown option --5'),
    (['set-min', '2M', '99999999999999999999'], 'is too large'),
    (['set-min', '2M', '99999999999999999T'], 'is too large'),
    (['set-node', 'x', '2M', '1'], "'x' is not a decimal number"),
    (['set-node', '4294967296', '2M', '1'], 'is not a NUMA node'),
    (['demote', '1G', '1G'], "'1G' is not a decimal number"),
    (['demote', '1G', '+1'], "'+1' is not a decimal number"),
])
def test_usage_errors_need_no_service(ctl, make_bus, args, text):
    # a bus without hugepagesd: these are found before connecting
    empty = make_bus()
    usage_error(ctl(*args, env={'DBUS_SYSTEM_BUS_ADDRESS': empty.address}), text)


def test_service_not_running(ctl, make_bus):
    empty = make_bus()
    for args in (['status'], ['pools'], ['page-sizes'], ['set-min', '2M', '1']):
        proc = ctl(*args, env={'DBUS_SYSTEM_BUS_ADDRESS': empty.address})
        assert proc.returncode == 1
        assert proc.stdout == ''
        assert proc.stderr.startswith('hugepagesctl: cannot reach hugepagesd on the system bus: ')
        assert 'GDBus.Error' not in proc.stderr
        assert len(proc.stderr.splitlines()) == 1


def test_no_bus_at_all(ctl, tmp_path):
    proc = ctl('pools', env={'DBUS_SYSTEM_BUS_ADDRESS': f'unix:path={tmp_path}/none'})
    assert proc.returncode == 1
    assert proc.stderr.startswith('hugepagesctl: cannot reach hugepagesd on the system bus: ')


# --- reading ---------------------------------------------------------------

@pytest.mark.fake_kernel(pools=POOLS)
def test_pools_is_hugeadm_pool_list(service, ctl):
    assert ok(ctl('pools')) == hugeadm_pool_list([
        (SMALL * 1024, 6, 6, 8, True),
        (GIANT * 1024, 5, 5, 5, False),
    ])


def calls_sent(text):
    """The method calls to anyone but the bus in GDBus's
    G_DBUS_DEBUG=message trace of a client, as interface.member, in order."""
    calls = []
    for block in text.split('>>>> SENT D-Bus message')[1:]:
        block = block.split('<<<< RECEIVED')[0]
        if not re.search(r'^\s+Type:\s+method-call$', block, re.MULTILINE):
            continue
        fields = dict(re.findall(r"^\s+(interface|member|destination) -> '([^']*)'", block,
                                 re.MULTILINE))
        if fields.get('destination') != 'org.freedesktop.DBus':
            calls.append(f"{fields.get('interface')}.{fields.get('member')}")
    return calls


@pytest.mark.fake_kernel(pools=POOLS)
def test_pools_reads_with_one_call(service, ctl):
    # the page size objects hold all that pools shows: the Manager's
    # GetAll, which refreshes every Manager property, is not needed
    proc = ctl('pools', '--long', env={'G_DBUS_DEBUG': 'message'})
    assert proc.returncode == 0, proc.stderr
    assert calls_sent(proc.stdout) == ['org.freedesktop.DBus.ObjectManager.GetManagedObjects']
    assert ok(ctl('pools', '--long')).count('\n') == 3


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind
def test_pools_long(service, ctl):
    out = ok(ctl('pools', '--long')).splitlines()
    assert out == [
        '      Size  Minimum  Current  Maximum  Default     Free Reserved  Surplus',
        '   2097152        6        6        8        *        5        1        0',
        '1073741824        5        5        5                 4        1        0',
    ]
    assert ok(ctl('pools', '-l')).splitlines() == out


@pytest.mark.fake_kernel(pools=POOLS)
def test_pools_nodes(service, ctl):
    assert ok(ctl('pools', '--nodes')).splitlines() == [
        'Node       Size    Total     Free  Surplus  Minimum   Target',
        '   0    2097152        4        3        0        4        -',
        '   0 1073741824        3        2        0        3        -',
        '   1    2097152        2        2        0        2        -',
        '   1 1073741824        2        2        0        2        -',
    ]


@pytest.mark.fake_kernel(pools=POOLS)
def test_pools_nodes_target(service, ctl, fake_kernel):
    # configured node pages, and a claim on a node on top of them
    fake_kernel.write('etc/hugepagesd/hugepagesd.conf',
                      '[pool 2MB]\nnode1 = 3\n\n[pool 1GB]\nnode0 = 4\n')
    fake_kernel.write('etc/hugepagesd/claims.d/vm.conf', '[2MB node1]\npages = 2\n')
    assert ok(ctl('pools', '--nodes')).splitlines() == [
        'Node       Size    Total     Free  Surplus  Minimum   Target',
        '   0    2097152        4        3        0        4        -',
        '   0 1073741824        3        2        0        3        4',
        '   1    2097152        2        2        0        2        5',
        '   1 1073741824        2        2        0        2        -',
    ]


@pytest.mark.fake_kernel(sizes=(1048576, 2048, 64), default_size=2048)
def test_pools_and_page_sizes_ascending(service, ctl):
    assert ok(ctl('pools')) == hugeadm_pool_list([
        (64 * 1024, 0, 0, 0, False),
        (SMALL * 1024, 0, 0, 0, True),
        (GIANT * 1024, 0, 0, 0, False),
    ])
    assert ok(ctl('page-sizes')) == '65536\n2097152\n1073741824\n'


def test_page_sizes(service, ctl):
    # pagesize -H and pagesize -a
    assert ok(ctl('page-sizes')) == '2097152\n1073741824\n'
    base = os.sysconf('SC_PAGESIZE')
    assert ok(ctl('page-sizes', '--all')) == f'{base}\n2097152\n1073741824\n'
    assert ok(ctl('page-sizes', '-a')) == f'{base}\n2097152\n1073741824\n'


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind
def test_status(service, ctl):
    out = ok(ctl('status')).splitlines()
    assert out[0].startswith('hugepagesd version:  ')
    assert 'Base page size:      4KB' in out
    assert 'Default huge page:   2MB' in out
    assert 'NUMA nodes:          0, 1' in out
    assert 'MemTotal:            16.0 GiB (17179869184 bytes)' in out
    assert f'Pool memory limit:   14.4 GiB ({MEM_KB * 1024 * 9 // 10} bytes)' in out
    assert out[-2:] == [
        '  2MB (default): minimum 6, total 6, maximum 8; free 5, reserved 1, surplus 0; '
        'overcommit 2 (allowed); gigantic: no; demotes to: none',
        '  1GB: minimum 5, total 5, maximum 5; free 4, reserved 1, surplus 0; '
        'overcommit 0 (not allowed); gigantic: yes; demotes to: 2MB',
    ]


@pytest.mark.fake_kernel(pools=POOLS)
def test_reading_needs_no_privileges(service, hugepagesctl, run_as, NOBODY, polkit):
    for args in (['status'], ['pools'], ['page-sizes']):
        proc = run_as(NOBODY, [hugepagesctl, *args])
        assert proc.returncode == 0, proc.stderr
    assert polkit.checks() == []


# --- SIZE and AMOUNT on a live service (dry runs: no authorization) --------

@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('command,size,amount,expected', [
    ('set-min', '2M', '010', 'the 2MB pool minimum to 10 pages'),    # decimal, not octal
    ('set-min', '2M', '0', 'the 2MB pool minimum to 0 pages'),
    ('set-min', '2M', '+2', 'the 2MB pool minimum to 8 pages'),      # Minimum is 6
    ('set-min', '2M', '-2', 'the 2MB pool minimum to 4 pages'),
    ('set-min', '2M', '-6', 'the 2MB pool minimum to 0 pages'),
    ('set-min', '2M', '4M', 'the 2MB pool minimum to 2 pages'),
    ('set-min', '2M', '+4MB', 'the 2MB pool minimum to 8 pages'),
    ('set-min', '2M', '-2MiB', 'the 2MB pool minimum to 5 pages'),
    ('set-min', '2M', '1G', 'the 2MB pool minimum to 512 pages'),
    ('set-min', 'DEFAULT', '3', 'the 2MB pool minimum to 3 pages'),
    ('set-min', '2097152', '3', 'the 2MB pool minimum to 3 pages'),
    ('set-min', '2048kB', '3', 'the 2MB pool minimum to 3 pages'),
    ('set-min', '2MB', '3', 'the 2MB pool minimum to 3 pages'),
    ('set-min', '1G', '1G', 'the 1GB pool minimum to 1 pages'),
    ('set-min', '1G', '-1', 'the 1GB pool minimum to 4 pages'),
    ('set-max', '2M', '+2', 'the 2MB pool maximum to 10 pages'),     # Maximum is 8
    ('set-max', '2M', '-3', 'the 2MB pool maximum to 5 pages'),
    ('set-max', '2M', '20M', 'the 2MB pool maximum to 10 pages'),
    ('set-node', None, '+1', 'the 2MB pool on node 1 to 3 pages'),   # node 1 has 2
    ('set-node', None, '-2', 'the 2MB pool on node 1 to 0 pages'),
    ('set-node', None, '8M', 'the 2MB pool on node 1 to 4 pages'),
])
def test_amounts(service, ctl, polkit, fake_kernel, command, size, amount, expected):
    before = fake_kernel.snapshot()
    args = [command, '--dry-run'] + (['1', '2M'] if size is None else [size]) + [amount]
    assert ok(ctl(*args)) == f'would set {expected}\n'
    assert fake_kernel.snapshot() == before
    assert polkit.checks() == []


# Units in any case, as hugeadm reads them (and the hugeadm mode, test_client_hugeadm.py):
# the same parser for every SIZE and AMOUNT.
@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('args,pool,pages,output', [
    (['set-min', '2mb', '7'], SMALL, 7, '2MB pool minimum: 7 pages (requested 7)'),
    (['set-min', '2Mb', '7'], SMALL, 7, '2MB pool minimum: 7 pages (requested 7)'),
    (['set-min', '2048kb', '7'], SMALL, 7, '2MB pool minimum: 7 pages (requested 7)'),
    (['set-min', '2mib', '14mb'], SMALL, 7, '2MB pool minimum: 7 pages (requested 7)'),
    (['set-min', '2m', '+2048kb'], SMALL, 7, '2MB pool minimum: 7 pages (requested 7)'),
    (['set-min', '1g', '3'], GIANT, 3, '1GB pool minimum: 3 pages (requested 3)'),
    (['set-min', '1gb', '3gb'], GIANT, 3, '1GB pool minimum: 3 pages (requested 3)'),
    (['set-min', '--', '1Gib', '-2g'], GIANT, 3, '1GB pool minimum: 3 pages (requested 3)'),
    (['set-max', '2mb', '20mb'], SMALL, 6, '2MB pool maximum: 10 pages (requested 10)'),
])
def test_units_in_any_case(service, ctl, allowed, fake_kernel, args, pool, pages, output):
    assert ok(ctl(*args)) == output + '\n'
    assert fake_kernel.read_int(fake_kernel.pool_file(pool, 'nr_hugepages')) == pages


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('args,expected', [
    (['set-min', '2mb', '0'], 'would set the 2MB pool minimum to 0 pages'),
    (['set-node', '1', '2Mb', '4mb'], 'would set the 2MB pool on node 1 to 2 pages'),
    (['demote', '1g', '2'], 'would demote 2 pages of 1GB into pages of 2MB'),
])
def test_units_in_any_case_dry_run(service, ctl, polkit, fake_kernel, args, expected):
    before = fake_kernel.snapshot()
    assert ok(ctl(args[0], '--dry-run', *args[1:])) == expected + '\n'
    assert fake_kernel.snapshot() == before
    assert polkit.checks() == []


@pytest.mark.parametrize('args,text', [
    (['set-min', '2ib', '1'], "'2ib' has an unknown unit 'ib' (use K, M, G or T)"),
    (['set-min', '2mbb', '1'], "'2mbb' has an unknown unit 'mbb'"),
    (['set-min', '2mb ', '1'], "'2mb ' has an unknown unit 'mb '"),
    (['set-min', '2Mxyz', '1'], "'2Mxyz' has an unknown unit 'Mxyz'"),
    (['set-min', '2pb', '1'], "'2pb' has an unknown unit 'pb'"),
    (['set-min', '2M', '1mbit'], "'1mbit' has an unknown unit 'mbit'"),
    (['set-min', 'Default', '1'], 'spelt DEFAULT'),
])
def test_units_in_any_case_only_units(ctl, make_bus, args, text):
    empty = make_bus()
    usage_error(ctl(*args, env={'DBUS_SYSTEM_BUS_ADDRESS': empty.address}), text)


@pytest.mark.fake_kernel(pools=POOLS)
def test_negative_amount_after_double_dash(service, ctl):
    assert ok(ctl('set-min', '--dry-run', '2M', '--', '-1')) == \
        'would set the 2MB pool minimum to 5 pages\n'
    # after "--" nothing is an option
    usage_error(ctl('set-min', '--', '2M', '-1', '--dry-run'), 'usage: hugepagesctl set-min')


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('args,text', [
    (['set-min', '3M', '1'], "'3M' is not a huge page size of this machine (available: 2MB, 1GB)"),
    (['set-min', '010', '1'], "'010' is not a huge page size"),
    (['set-min', '4K', '1'], 'is not a huge page size'),
    (['set-min', '2M', '3M'], '3M is not a whole number of 2097152-byte pages'),
    (['set-min', '2M', '+1M'], 'not a whole number'),
    (['set-min', '1G', '512M'], 'not a whole number of 1073741824-byte pages'),
    (['set-min', '2M', '-7'], 'cannot remove 7 pages from 6'),
    (['set-max', '2M', '-9'], 'cannot remove 9 pages from 8'),
    (['set-max', '2M', '+18446744073709551615'], 'overflows'),
    (['set-node', '2', '2M', '1'], 'NUMA node 2 has no 2MB pool (nodes: 0, 1)'),
    (['set-node', '0', '2M', '-5'], 'cannot remove 5 pages from 4'),
])
def test_bad_amounts_for_this_machine(service, ctl, polkit, fake_kernel, args, text):
    before = fake_kernel.snapshot()
    usage_error(ctl(*args), text)
    usage_error(ctl(args[0], '--dry-run', *args[1:]), text)
    assert fake_kernel.snapshot() == before
    assert polkit.checks() == []


@pytest.mark.fake_kernel(pools=POOLS)
def test_demote_dry_run(service, ctl, polkit):
    assert ok(ctl('demote', '--dry-run', '1G', '2')) == 'would demote 2 pages of 1GB into pages of 2MB\n'
    # at most free - reserved = 3
    assert ok(ctl('demote', '--dry-run', '1G', '010')) == \
        'would demote 3 pages of 1GB into pages of 2MB (only 3 of the 10 requested are free and unreserved)\n'
    assert polkit.checks() == []


# --- changes ---------------------------------------------------------------

@pytest.mark.valgrind
def test_set_min(service, ctl, allowed, fake_kernel):
    assert ok(ctl('set-min', '2M', '4')) == '2MB pool minimum: 4 pages (requested 4)\n'
    assert fake_kernel.read_int(fake_kernel.pool_file(SMALL, 'nr_hugepages')) == 4
    [check] = allowed.checks()
    assert check.action == ACTION_POOLS
    assert check.flags == ALLOW_USER_INTERACTION
    assert check.details['pages'] == '4'


@pytest.mark.valgrind
def test_set_max(service, ctl, allowed, fake_kernel):
    assert ok(ctl('set-max', 'DEFAULT', '16M')) == '2MB pool maximum: 8 pages (requested 8)\n'
    assert fake_kernel.read_int(fake_kernel.pool_file(SMALL, 'nr_overcommit_hugepages')) == 8


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind
def test_set_node_relative(service, ctl, allowed, fake_kernel):
    assert ok(ctl('set-node', '1', '2M', '+3')) == '2MB pool on node 1: 5 pages (requested 5)\n'
    assert fake_kernel.read_int(fake_kernel.node_file(1, SMALL, 'nr_hugepages')) == 5
    assert allowed.checks()[0].details['node'] == '1'


@pytest.mark.valgrind
def test_options_reach_the_service(service, ctl, allowed):
    # The service rejects unknown or mistyped options, so a success shows
    # that "hard" (b) and "timeout-ms" (u) were sent as such.
    assert ok(ctl('set-min', '--hard', '--timeout', '1', '2M', '2')) == \
        '2MB pool minimum: 2 pages (requested 2)\n'


@pytest.mark.valgrind
def test_service_errors_are_one_line_exit_1(service, ctl, allowed, fake_kernel):
    before = fake_kernel.snapshot()
    proc = ctl('set-min', '2M', str(SMALL_CAP + 1))
    assert proc.returncode == 1
    assert proc.stdout == ''
    assert proc.stderr.startswith('hugepagesctl: ')
    assert 'GDBus.Error' not in proc.stderr and 'org.hugepages' not in proc.stderr
    assert len(proc.stderr.splitlines()) == 1
    # the largest allowed value is fine as a dry run
    assert ok(ctl('set-min', '--dry-run', '2M', str(SMALL_CAP))) == \
        f'would set the 2MB pool minimum to {SMALL_CAP} pages\n'
    proc = ctl('set-max', '1G', '7')
    assert proc.returncode == 1
    assert 'overcommit' in proc.stderr
    # a value the service finds wrong is a usage error, exit 2
    proc = ctl('set-min', '--hard', '--timeout', '601', '2M', '1')
    assert proc.returncode == 2
    assert len(proc.stderr.splitlines()) == 1
    assert fake_kernel.snapshot() == before


def test_demote_not_supported(service, ctl, allowed):
    proc = ctl('demote', '2M', '1')
    assert proc.returncode == 1
    assert proc.stderr == 'hugepagesctl: The kernel cannot demote 2MB pages\n'


# --- shortfalls: exit 3 ----------------------------------------------------

@pytest.mark.fake_kernel(pools=SHORT)
@pytest.mark.valgrind
def test_shortfall_exit_3(service, ctl, allowed):
    proc = ctl('set-min', '2M', '10')
    assert proc.returncode == 3
    assert proc.stdout == '2MB pool minimum: 8 pages (requested 10)\n'
    assert proc.stderr == ('hugepagesctl: the kernel gave only 8 of 10 pages of 2MB '
                           '(memory is fragmented or short); try --hard\n')


@pytest.mark.fake_kernel(pools=SHORT)
def test_shortfall_with_hard(service, ctl, allowed):
    proc = ctl('set-min', '--hard', '--timeout', '1', '2M', '10')
    assert proc.returncode == 3
    assert proc.stdout == '2MB pool minimum: 8 pages (requested 10)\n'
    assert proc.stderr.endswith('(memory is fragmented or short); a longer --timeout may help\n')


@pytest.mark.fake_kernel(pools=SHORT)
def test_node_shortfall(service, ctl, allowed):
    proc = ctl('set-node', '1', '2M', '5')
    assert proc.returncode == 3
    assert proc.stdout == '2MB pool on node 1: 4 pages (requested 5)\n'
    assert proc.stderr == ('hugepagesctl: the kernel gave only 4 of 5 pages of 2MB on node 1 '
                           '(memory is fragmented or short); try --hard\n')


@pytest.mark.fake_kernel(pools={GIANT: Pool(total=4, free=3, resv=1)})
@pytest.mark.valgrind
def test_demote_shortfall(service, ctl, allowed):
    # the fake kernel does not demote
    proc = ctl('demote', '1G', '2')
    assert proc.returncode == 3
    assert proc.stdout == '1GB pages demoted into pages of 2MB: 0 (requested 2)\n'
    assert proc.stderr.startswith('hugepagesctl: the kernel demoted only 0 of 2 pages of 1GB')


# --- authorization ---------------------------------------------------------

@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('args', [
    ['set-min', '2M', '4'],
    ['set-max', '2M', '20'],
    ['set-node', '0', '2M', '1'],
    ['demote', '1G', '1'],
])
@pytest.mark.valgrind(first=2)
def test_not_authorized(service, ctl, polkit, fake_kernel, args):
    before = fake_kernel.snapshot()
    proc = ctl(*args)
    assert proc.returncode == 1
    assert proc.stdout == ''
    assert refusal(proc.stderr) == 'hugepagesctl: Not authorized to configure huge page pools\n'
    assert fake_kernel.snapshot() == before
    assert [c.flags for c in polkit.checks()] == [ALLOW_USER_INTERACTION]


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('where', ['global', 'command'])
def test_no_ask_password_clears_the_interactive_flag(service, ctl, polkit, where):
    args = ['set-min', '2M', '4']
    args = ['--no-ask-password', *args] if where == 'global' else [*args, '--no-ask-password']
    proc = ctl(*args)
    assert proc.returncode == 1
    assert proc.stderr.startswith('hugepagesctl: Not authorized')
    assert [c.flags for c in polkit.checks()] == [0]


@pytest.mark.fake_kernel(pools=POOLS)
def test_not_authorized_as_nobody(service, hugepagesctl, run_as, NOBODY, polkit, fake_kernel):
    before = fake_kernel.snapshot()
    proc = run_as(NOBODY, [hugepagesctl, 'set-min', '2M', '4'], stdin=subprocess.DEVNULL)
    assert proc.returncode == 1
    assert refusal(proc.stderr) == 'hugepagesctl: Not authorized to configure huge page pools\n'
    # a dry run needs no authorization
    proc = run_as(NOBODY, [hugepagesctl, 'set-min', '--dry-run', '2M', '4'])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == 'would set the 2MB pool minimum to 4 pages\n'
    assert fake_kernel.snapshot() == before


# --- pkttyagent on a terminal ------------------------------------------------

FAKE_AGENT = '''#!/bin/sh
PATH=/usr/bin:/bin
dir=$(dirname "$0")
echo "$@" > "$dir/args"
trap 'echo terminated >> "$dir/state"; exit 0' TERM
sleep {delay}
echo registered > "$dir/state"
eval "echo ready >&$2"
eval "exec $2>&-"
while :; do sleep 0.05; done
'''


def fake_agent(directory, delay=0):
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, 'pkttyagent')
    with open(path, 'w') as f:
        f.write(FAKE_AGENT.format(delay=delay))
    os.chmod(path, 0o755)
    return directory


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except FileNotFoundError:
        return None


def on_tty(ctl, *args, env):
    master, slave = pty.openpty()
    try:
        return ctl(*args, env=env, stdin=slave)
    finally:
        os.close(slave)
        os.close(master)


def test_agent_started_on_a_tty_and_stopped(service, ctl, allowed, tmp_path):
    agent_dir = fake_agent(str(tmp_path / 'bin'), delay=0.3)
    start = time.monotonic()
    proc = on_tty(ctl, 'set-min', '2M', '2', env={'PATH': agent_dir})
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - start >= 0.3   # waited for the agent to be ready
    args = read(os.path.join(agent_dir, 'args')).split()
    assert args[0] == '--notify-fd' and args[1].isdigit() and args[2:] == ['--fallback']
    # subprocess.run returned, so the agent (which shares stdout) is gone too
    assert read(os.path.join(agent_dir, 'state')) == 'registered\nterminated\n'
    assert allowed.checks()[0].flags == ALLOW_USER_INTERACTION


@pytest.mark.parametrize('why', ['no-ask-password', 'no-tty', 'dry-run', 'read-only'])
def test_agent_not_started(service, ctl, allowed, tmp_path, why):
    agent_dir = fake_agent(str(tmp_path / 'bin'))
    env = {'PATH': agent_dir}
    if why == 'no-ask-password':
        proc = on_tty(ctl, '--no-ask-password', 'set-min', '2M', '2', env=env)
    elif why == 'no-tty':
        proc = ctl('set-min', '2M', '2', env=env)
    elif why == 'dry-run':
        proc = on_tty(ctl, 'set-min', '--dry-run', '2M', '2', env=env)
    else:
        proc = on_tty(ctl, 'pools', env=env)
    assert proc.returncode == 0, proc.stderr
    assert read(os.path.join(agent_dir, 'args')) is None


def test_missing_agent_is_not_an_error(service, ctl, allowed, tmp_path):
    empty = tmp_path / 'empty'
    empty.mkdir()
    proc = on_tty(ctl, 'set-min', '2M', '2', env={'PATH': str(empty)})
    assert ok(proc) == '2MB pool minimum: 2 pages (requested 2)\n'
