# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""hugepagesctl's tunable commands (shm-max, shm-group, min-free-kbytes,
zone-movable, thp) and explain, against hugepagesd on the fake kernel tree.

The tunable files are written by these tests themselves (write_tunables,
which replaces the whole transparent_hugepage directory), so that they do
not depend on what tests/fakekernel.py generates by default. A THP choice
file the service writes reads back as "a [b] c" only where the fake tree
simulates the kernel, so real THP changes are only tried for the khugepaged
numbers; the choices are covered with --dry-run, usage errors and polkit
refusals. Nothing here touches the real kernel."""

import grp
import json
import os
import shutil
import subprocess

import pytest

from fakekernel import Pool
# the command-line fixtures and checks of the client tests
from test_client import (ALLOW_USER_INTERACTION, ctl, fake_agent, hugepagesctl, ok,  # noqa: F401
                         on_tty, read, refusal, usage_error)

ACTION_TUNABLES = 'org.hugepages.manager.configure-tunables'
REFUSED = 'hugepagesctl: Not authorized to change memory tunables\n'
UNKNOWN_ID = 3999999  # not a group on the test machine

SHMMAX = 'proc/sys/kernel/shmmax'
SHMALL = 'proc/sys/kernel/shmall'
SHM_GROUP = 'proc/sys/vm/hugetlb_shm_group'
MIN_FREE = 'proc/sys/vm/min_free_kbytes'
TREAT_AS_MOVABLE = 'proc/sys/vm/hugepages_treat_as_movable'
MOVABLE_GIGANTIC = 'proc/sys/vm/movable_gigantic_pages'
THP = 'sys/kernel/mm/transparent_hugepage'

# 2MB with Minimum 6 and Maximum 8: RecommendedShmMax = 8 × 2 MiB.
POOLS = {2048: Pool(total=6, free=6, overcommit=2)}
RECOMMENDED_SHMMAX = 8 * 2 * 1024 * 1024
# DMA, DMA32 and Normal populated, 2 MiB pageblocks: 11 × 2048 × 3.
RECOMMENDED_MIN_FREE = 11 * 2048 * 3

ZONEINFO = '''Node 0, zone      DMA
  per-node stats
      nr_inactive_anon 100
  pages free     3840
        min      12
        managed  3840
Node 0, zone    DMA32
  pages free     100000
        managed  400000
Node 0, zone   Normal
  pages free     1000000
        managed  3600000
Node 0, zone  Movable
  pages free     0
        managed  0
'''

PAGETYPEINFO = '''Page block order: 9
Pages per block:  512

Free pages count per migrate type at order       0      1
'''

THP_FILES = {
    'enabled': 'always [madvise] never\n',
    'defrag': 'always defer defer+madvise [madvise] never\n',
    'shmem_enabled': 'always within_size advise [never] deny force\n',
    'hugepages-2048kB/enabled': 'always [inherit] madvise never\n',
    'hugepages-64kB/enabled': 'always inherit madvise [never]\n',
    'hugepages-64kB/shmem_enabled': 'always inherit within_size advise [never]\n',
    'hugepages-128kB/enabled': 'always inherit [madvise] never\n',
    'khugepaged/pages_to_scan': '4096\n',
    'khugepaged/scan_sleep_millisecs': '10000\n',
    'khugepaged/alloc_sleep_millisecs': '60000\n',
    'hpage_pmd_size': '2097152\n',
}

THP_SHOWN = '''defrag                           madvise (always, defer, defer+madvise, madvise, never)
enabled                          madvise (always, madvise, never)
shmem_enabled                    never (always, within_size, advise, never, deny, force)
hugepages-64kB/enabled           never (always, inherit, madvise, never)
hugepages-64kB/shmem_enabled     never (always, inherit, within_size, advise, never)
hugepages-128kB/enabled          madvise (always, inherit, madvise, never)
hugepages-2048kB/enabled         inherit (always, inherit, madvise, never)
khugepaged/pages_to_scan         4096
khugepaged/scan_sleep_millisecs  10000
khugepaged/alloc_sleep_millisecs 60000
'''


def write_tunables(fake_kernel, shmmax=32 * 1024 * 1024, shmall=8192, shm_group=0,
                   min_free=45056, zone_movable=None, thp=True):
    """The tunable files of a 6.18 kernel. zone_movable: None for no sysctl
    (Linux >= 4.16 without movable_gigantic_pages), else its value."""
    fake_kernel.write(SHMMAX, shmmax)
    fake_kernel.write(SHMALL, shmall)
    fake_kernel.write(SHM_GROUP, shm_group)
    fake_kernel.write(MIN_FREE, min_free)
    fake_kernel.write('proc/zoneinfo', ZONEINFO)
    fake_kernel.write('proc/pagetypeinfo', PAGETYPEINFO)
    for name in (TREAT_AS_MOVABLE, MOVABLE_GIGANTIC):
        if fake_kernel.exists(name):
            fake_kernel.remove(name)
    if zone_movable is not None:
        fake_kernel.write(MOVABLE_GIGANTIC, int(zone_movable))
    # exactly these THP files, whatever the tree had before
    shutil.rmtree(fake_kernel.path(THP), ignore_errors=True)
    if thp:
        for name, text in THP_FILES.items():
            fake_kernel.write(f'{THP}/{name}', text)


@pytest.fixture
def tunables(fake_kernel):
    write_tunables(fake_kernel)
    return fake_kernel


@pytest.fixture
def allowed(polkit):
    polkit.allow(ACTION_TUNABLES)
    return polkit


def other_group():
    """(gid, name) of a group other than root on this machine."""
    for gid in (65534, 100, 1):
        try:
            return gid, grp.getgrgid(gid).gr_name
        except KeyError:
            continue
    pytest.skip('no group besides root on this machine')


def lines(proc):
    return ok(proc).splitlines()


# --- the command line, no service needed -----------------------------------

def test_help(ctl):
    out = ok(ctl('--help'))
    for text in ('shm-max [VALUE|recommended]', 'shm-group [GROUP]',
                 'min-free-kbytes [VALUE|recommended]', 'zone-movable [on|off]',
                 'thp [NAME=VALUE…]', 'explain [--json]'):
        assert text in out
    for command in ('shm-max', 'min-free-kbytes'):
        out = ok(ctl(command, '--help'))
        for text in ('--dry-run', '--allow-lower', '--no-ask-password', 'recommended'):
            assert text in out
    for command in ('shm-group', 'zone-movable', 'thp'):
        out = ok(ctl(command, '--help'))
        assert '--dry-run' in out and '--allow-lower' not in out
    out = ok(ctl('explain', '--help'))
    for text in ('--json', '"entries"', '"severity"', '"id"', '"message"', '"fix"'):
        assert text in out


@pytest.mark.parametrize('args,text', [
    (['shm-max', '1', '2'], 'usage: hugepagesctl shm-max [VALUE|recommended]'),
    (['shm-max', '4x'], "'4x' has an unknown unit 'x'"),
    (['shm-max', '0'], "size '0' is zero"),
    (['shm-max', '-1'], "'-1' does not start with a decimal number"),
    (['shm-max', '1.5G'], 'unknown unit'),
    (['shm-max', '99999999999999999999'], 'is too large'),
    (['shm-max', '--dry-run'], '--dry-run only applies to a change'),
    (['shm-max', '--allow-lower', '4G'], "--allow-lower only applies to 'recommended'"),
    (['shm-max', '--allow-lower'], "--allow-lower only applies to 'recommended'"),
    (['shm-max', 'Recommended'], "'Recommended' does not start with a decimal number"),
    (['shm-group', 'a', 'b'], 'usage: hugepagesctl shm-group [GROUP]'),
    (['shm-group', ''], 'GROUP is empty'),
    (['shm-group', '--dry-run'], '--dry-run only applies to a change'),
    (['shm-group', '--allow-lower', 'x'], 'Unknown option --allow-lower'),
    (['min-free-kbytes', '64M'], "'64M' is not a decimal number"),
    (['min-free-kbytes', '-5'], "'-5' is not a decimal number"),
    (['min-free-kbytes', '99999999999999999999'], 'is too large'),
    (['min-free-kbytes', '1', '2'], 'usage: hugepagesctl min-free-kbytes'),
    (['min-free-kbytes', '--dry-run'], '--dry-run only applies to a change'),
    (['min-free-kbytes', '--allow-lower', '2048'], "--allow-lower only applies to 'recommended'"),
    (['zone-movable', 'yes'], "zone-movable takes on or off, not 'yes'"),
    (['zone-movable', 'ON'], "not 'ON'"),
    (['zone-movable', 'on', 'off'], 'usage: hugepagesctl zone-movable [on|off]'),
    (['zone-movable', '--allow-lower', 'on'], 'Unknown option --allow-lower'),
    (['thp', 'enabled'], "'enabled' is not NAME=VALUE"),
    (['thp', '=madvise'], "'=madvise' is not NAME=VALUE"),
    (['thp', 'enabled=madvise', 'defrag'], "'defrag' is not NAME=VALUE"),
    (['thp', '--dry-run'], '--dry-run only applies to a change'),
    (['thp', '--allow-lower', 'enabled=never'], 'Unknown option --allow-lower'),
    (['explain', 'extra'], "explain takes no arguments, but got 'extra'"),
    (['explain', '--dry-run'], 'Unknown option --dry-run'),
])
def test_usage_errors_need_no_service(ctl, make_bus, args, text):
    # a bus without hugepagesd: these are found before connecting
    empty = make_bus()
    usage_error(ctl(*args, env={'DBUS_SYSTEM_BUS_ADDRESS': empty.address}), text)


def test_service_not_running(ctl, make_bus):
    empty = make_bus()
    for args in (['shm-max'], ['shm-group', 'root'], ['min-free-kbytes', 'recommended'],
                 ['zone-movable'], ['thp'], ['explain', '--json']):
        proc = ctl(*args, env={'DBUS_SYSTEM_BUS_ADDRESS': empty.address})
        assert proc.returncode == 1
        assert proc.stdout == ''
        assert proc.stderr.startswith('hugepagesctl: cannot reach hugepagesd on the system bus: ')
        assert len(proc.stderr.splitlines()) == 1


# --- showing -----------------------------------------------------------------

@pytest.mark.fake_kernel(pools=POOLS)
def test_shm_max_show(service, ctl, tunables):
    assert lines(ctl('shm-max')) == [
        'kernel.shmmax:       32.0 MiB (33554432 bytes)',
        'kernel.shmall:       8192 pages of 4096 bytes',
        'Recommended shmmax:  16.0 MiB (16777216 bytes)',
        'Recommended shmall:  4096 pages',
    ]


def test_shm_max_show_without_pools(service, ctl, fake_kernel):
    write_tunables(fake_kernel, shmmax=18446744073692774399, shmall=18446744073692774399)
    assert lines(ctl('shm-max')) == [
        'kernel.shmmax:       16.0 EiB (18446744073692774399 bytes)',
        'kernel.shmall:       18446744073692774399 pages of 4096 bytes',
        'Recommended shmmax:  none (no pool is configured)',
        'Recommended shmall:  none',
    ]


def test_shm_group_show(service, ctl, fake_kernel):
    write_tunables(fake_kernel, shm_group=0)
    assert ok(ctl('shm-group')) == 'vm.hugetlb_shm_group: 0 (root only)\n'
    gid, name = other_group()
    fake_kernel.write(SHM_GROUP, gid)
    assert ok(ctl('shm-group')) == f'vm.hugetlb_shm_group: {gid} ({name})\n'
    fake_kernel.write(SHM_GROUP, UNKNOWN_ID)
    assert ok(ctl('shm-group')) == f'vm.hugetlb_shm_group: {UNKNOWN_ID} (no such group)\n'


def test_min_free_kbytes_show(service, ctl, tunables):
    assert lines(ctl('min-free-kbytes')) == [
        'vm.min_free_kbytes:  45056 kB',
        f'Recommended:         {RECOMMENDED_MIN_FREE} kB',
    ]


def test_zone_movable_show(service, ctl, fake_kernel):
    write_tunables(fake_kernel, zone_movable=None)
    assert lines(ctl('zone-movable')) == ['Supported:     no', 'Zone movable:  off']
    write_tunables(fake_kernel, zone_movable=True)
    assert lines(ctl('zone-movable')) == ['Supported:     yes', 'Zone movable:  on']
    write_tunables(fake_kernel, zone_movable=False)
    assert lines(ctl('zone-movable')) == ['Supported:     yes', 'Zone movable:  off']


def test_thp_show(service, ctl, tunables):
    # settings for all sizes first, then mTHP by size, then khugepaged
    assert ok(ctl('thp')) == THP_SHOWN


def test_thp_show_without_thp(service, ctl, fake_kernel):
    write_tunables(fake_kernel, thp=False)
    assert ok(ctl('thp')) == 'This kernel has no transparent huge page settings.\n'


def test_showing_needs_no_privileges(service, tunables, hugepagesctl, run_as, NOBODY, polkit):
    for command in ('shm-max', 'shm-group', 'min-free-kbytes', 'zone-movable', 'thp', 'explain'):
        proc = run_as(NOBODY, [hugepagesctl, command], stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr == ''
    assert polkit.checks() == []


# --- dry runs ----------------------------------------------------------------

def dry_run(ctl, fake_kernel, polkit, *args):
    """Runs a --dry-run change; nothing may be written or authorized."""
    before = fake_kernel.snapshot()
    proc = ctl(args[0], '--dry-run', *args[1:])
    assert fake_kernel.snapshot() == before
    assert polkit.checks() == []
    return proc


@pytest.mark.fake_kernel(pools=POOLS)
def test_shm_max_dry_run(service, ctl, tunables, polkit):
    # 64 GiB needs 16777216 pages of shmall, more than the 8192 there are
    assert lines(dry_run(ctl, tunables, polkit, 'shm-max', '64G')) == [
        'would set kernel.shmmax to 64.0 GiB (68719476736 bytes)',
        'would raise kernel.shmall from 8192 to 16777216 pages',
    ]
    # 16 MiB fits in the 8192 pages of shmall
    assert lines(dry_run(ctl, tunables, polkit, 'shm-max', '16777216')) == [
        'would set kernel.shmmax to 16.0 MiB (16777216 bytes)',
    ]
    # units in any case, as hugeadm reads them
    for size in ('16mb', '16Mb', '16384kb'):
        assert lines(dry_run(ctl, tunables, polkit, 'shm-max', size)) == [
            'would set kernel.shmmax to 16.0 MiB (16777216 bytes)',
        ]


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind
def test_shm_max_recommended_dry_run(service, ctl, tunables, polkit):
    # 32 MiB is above the recommended 16 MiB: kept unless --allow-lower
    assert lines(dry_run(ctl, tunables, polkit, 'shm-max', 'recommended')) == [
        'would keep kernel.shmmax at 32.0 MiB (33554432 bytes)',
        'kept: it is above the recommended 16.0 MiB (16777216 bytes); --allow-lower lowers it',
    ]
    assert lines(dry_run(ctl, tunables, polkit, 'shm-max', 'recommended', '--allow-lower')) == [
        'would set kernel.shmmax to 16.0 MiB (16777216 bytes)',
    ]
    tunables.write(SHMMAX, 1048576)
    tunables.write(SHMALL, 256)
    assert lines(dry_run(ctl, tunables, polkit, 'shm-max', 'recommended')) == [
        'would set kernel.shmmax to 16.0 MiB (16777216 bytes)',
        'would raise kernel.shmall from 256 to 4096 pages',
    ]


def test_shm_max_recommended_without_pools(service, ctl, tunables, polkit):
    proc = dry_run(ctl, tunables, polkit, 'shm-max', 'recommended')
    assert proc.returncode == 1
    assert proc.stdout == ''
    assert proc.stderr == ('hugepagesctl: No pool is configured, so there is nothing to '
                           'recommend for shmmax\n')


def test_shm_group_dry_run(service, ctl, tunables, polkit):
    gid, name = other_group()
    expected = f'would set vm.hugetlb_shm_group to {gid} ({name})\n'
    assert ok(dry_run(ctl, tunables, polkit, 'shm-group', name)) == expected
    assert ok(dry_run(ctl, tunables, polkit, 'shm-group', str(gid))) == expected
    assert ok(dry_run(ctl, tunables, polkit, 'shm-group', '0')) == \
        'would set vm.hugetlb_shm_group to 0 (root only)\n'


def test_min_free_kbytes_dry_run(service, ctl, tunables, polkit):
    assert ok(dry_run(ctl, tunables, polkit, 'min-free-kbytes', '90000')) == \
        'would set vm.min_free_kbytes to 90000 kB\n'
    assert ok(dry_run(ctl, tunables, polkit, 'min-free-kbytes', 'recommended')) == \
        f'would set vm.min_free_kbytes to {RECOMMENDED_MIN_FREE} kB\n'
    tunables.write(MIN_FREE, 100000)
    assert lines(dry_run(ctl, tunables, polkit, 'min-free-kbytes', 'recommended')) == [
        'would keep vm.min_free_kbytes at 100000 kB',
        f'kept: it is above the recommended {RECOMMENDED_MIN_FREE} kB; --allow-lower lowers it',
    ]
    assert ok(dry_run(ctl, tunables, polkit, 'min-free-kbytes', 'recommended',
                      '--allow-lower')) == \
        f'would set vm.min_free_kbytes to {RECOMMENDED_MIN_FREE} kB\n'


def test_zone_movable_dry_run(service, ctl, fake_kernel, polkit):
    write_tunables(fake_kernel, zone_movable=False)
    assert ok(dry_run(ctl, fake_kernel, polkit, 'zone-movable', 'on')) == \
        'would set zone movable to on\n'
    write_tunables(fake_kernel, zone_movable=None)
    proc = dry_run(ctl, fake_kernel, polkit, 'zone-movable', 'on')
    assert proc.returncode == 1
    assert proc.stdout == ''
    assert proc.stderr.startswith('hugepagesctl: This kernel has no setting for huge pages '
                                  'in ZONE_MOVABLE')
    assert len(proc.stderr.splitlines()) == 1


def test_thp_dry_run(service, ctl, tunables, polkit):
    proc = dry_run(ctl, tunables, polkit, 'thp', 'enabled=always', 'defrag=defer',
                   'hugepages-64kB/enabled=inherit', 'khugepaged/pages_to_scan=0100',
                   'khugepaged/alloc_sleep_millisecs=4294967295')
    assert lines(proc) == [
        'would set enabled to always',
        'would set defrag to defer',
        'would set hugepages-64kB/enabled to inherit',
        'would set khugepaged/pages_to_scan to 100',
        'would set khugepaged/alloc_sleep_millisecs to 4294967295',
    ]


@pytest.mark.parametrize('args,text', [
    (['enabled=sometimes'], "THP setting 'enabled' takes one of: always, madvise, never; "
                            "not 'sometimes'"),
    (['enabled='], "takes one of: always, madvise, never; not ''"),
    (['hugepages-64kB/enabled=defer'], "'hugepages-64kB/enabled' takes one of: always, inherit"),
    (['bogus=1'], "this kernel has no THP setting 'bogus'"),
    (['hugepages-32kB/enabled=never'], "no THP setting 'hugepages-32kB/enabled'"),
    (['enabled=never', 'enabled=always'], "THP setting 'enabled' given twice"),
    (['khugepaged/pages_to_scan=many'], "'many' is not a decimal number"),
    (['khugepaged/pages_to_scan=-1'], "'-1' is not a decimal number"),
    (['khugepaged/scan_sleep_millisecs=4294967296'], 'out of range (at most 4294967295)'),
    (['khugepaged/pages_to_scan=1', 'khugepaged/pages_to_scan=2'], 'given twice'),
])
def test_thp_bad_settings_for_this_kernel(service, ctl, tunables, polkit, args, text):
    before = tunables.snapshot()
    usage_error(ctl('thp', *args), text)
    usage_error(ctl('thp', '--dry-run', *args), text)
    assert tunables.snapshot() == before
    assert polkit.checks() == []


# exit 2 where the service finds the value wrong, 1 where it is beyond a
# limit of this machine
@pytest.mark.parametrize('args,message,status', [
    (['min-free-kbytes', '100'], 'min_free_kbytes below 1024 kB breaks the system', 2),
    (['min-free-kbytes', '99999999'], 'min_free_kbytes above 5% of MemTotal', 1),
    (['shm-max', '100'], 'shmmax of 100 bytes is smaller than a page', 2),
    (['shm-group', 'no-such-group-xyz'], 'No such group: no-such-group-xyz', 2),
    (['shm-group', str(UNKNOWN_ID)], f'No such group: {UNKNOWN_ID}', 2),
    (['shm-group', 'bad name'], 'The group must be a group name or a decimal gid', 2),
    (['thp', 'khugepaged/pages_to_scan=0'], "THP setting 'khugepaged/pages_to_scan' takes a whole number", 2),
])
def test_service_errors_are_one_line(service, ctl, tunables, allowed, args, message, status):
    before = tunables.snapshot()
    for dry in (False, True):
        proc = ctl(args[0], *(['--dry-run'] if dry else []), *args[1:])
        assert proc.returncode == status, proc.stderr
        assert proc.stdout == ''
        assert proc.stderr.startswith('hugepagesctl: ' + message), proc.stderr
        assert len(proc.stderr.splitlines()) == 1
        assert 'GDBus.Error' not in proc.stderr
    assert tunables.snapshot() == before


# --- changes -----------------------------------------------------------------

def changed(fake_kernel, before):
    return {path: new.decode().strip() for path, (_old, new) in
            fake_kernel.changes_since(before).items()}


def checked(polkit, count=1):
    checks = polkit.checks()
    assert [c.action for c in checks] == [ACTION_TUNABLES] * count
    assert [c.flags for c in checks] == [ALLOW_USER_INTERACTION] * count
    return checks


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind
def test_shm_max_changes(service, ctl, tunables, allowed):
    before = tunables.snapshot()
    assert lines(ctl('shm-max', '64G')) == [
        'kernel.shmmax: 64.0 GiB (68719476736 bytes)',
        'kernel.shmall: 16777216 pages (raised from 8192)',
    ]
    assert changed(tunables, before) == {SHMMAX: '68719476736', SHMALL: '16777216'}
    checks = checked(allowed)
    assert checks[0].details['tunable'] == 'kernel.shmmax'
    assert checks[0].details['value'] == '68719476736'

    # a larger value is kept, and said so
    assert lines(ctl('shm-max', 'recommended')) == [
        'kernel.shmmax: 64.0 GiB (68719476736 bytes)',
        'kept: it is above the recommended 16.0 MiB (16777216 bytes); --allow-lower lowers it',
    ]
    before = tunables.snapshot()
    assert lines(ctl('shm-max', 'recommended', '--allow-lower')) == [
        'kernel.shmmax: 16.0 MiB (16777216 bytes)',
    ]
    # shmall is never lowered
    assert changed(tunables, before) == {SHMMAX: str(RECOMMENDED_SHMMAX)}


@pytest.mark.valgrind
def test_shm_group_changes(service, ctl, tunables, allowed):
    gid, name = other_group()
    before = tunables.snapshot()
    assert ok(ctl('shm-group', name)) == f'vm.hugetlb_shm_group: {gid} ({name})\n'
    assert changed(tunables, before) == {SHM_GROUP: str(gid)}
    assert ok(ctl('shm-group')) == f'vm.hugetlb_shm_group: {gid} ({name})\n'
    assert ok(ctl('shm-group', '0')) == 'vm.hugetlb_shm_group: 0 (root only)\n'
    assert tunables.read_int(SHM_GROUP) == 0
    checked(allowed, 2)


@pytest.mark.valgrind
def test_min_free_kbytes_changes(service, ctl, tunables, allowed):
    before = tunables.snapshot()
    assert ok(ctl('min-free-kbytes', '50000')) == 'vm.min_free_kbytes: 50000 kB\n'
    assert changed(tunables, before) == {MIN_FREE: '50000'}
    assert ok(ctl('min-free-kbytes', 'recommended')) == \
        f'vm.min_free_kbytes: {RECOMMENDED_MIN_FREE} kB\n'
    assert tunables.read_int(MIN_FREE) == RECOMMENDED_MIN_FREE
    checked(allowed, 2)


@pytest.mark.valgrind
def test_zone_movable_changes(service, ctl, fake_kernel, allowed):
    write_tunables(fake_kernel, zone_movable=False)
    assert ok(ctl('zone-movable', 'on')) == 'zone movable: on\n'
    assert fake_kernel.read_int(MOVABLE_GIGANTIC) == 1
    assert lines(ctl('zone-movable')) == ['Supported:     yes', 'Zone movable:  on']
    assert ok(ctl('zone-movable', 'off')) == 'zone movable: off\n'
    assert fake_kernel.read_int(MOVABLE_GIGANTIC) == 0
    checked(allowed, 2)


@pytest.mark.valgrind
def test_thp_numbers_change_in_one_call(service, ctl, tunables, allowed):
    before = tunables.snapshot()
    assert lines(ctl('thp', 'khugepaged/pages_to_scan=8192',
                     'khugepaged/scan_sleep_millisecs=5000')) == [
        'khugepaged/pages_to_scan: 8192',
        'khugepaged/scan_sleep_millisecs: 5000',
    ]
    assert changed(tunables, before) == {
        f'{THP}/khugepaged/pages_to_scan': '8192',
        f'{THP}/khugepaged/scan_sleep_millisecs': '5000',
    }
    checked(allowed, 1)


# --- authorization -----------------------------------------------------------

# every one a real change on the tree of write_tunables: a change to the
# current value is answered without asking polkit
CHANGES = [
    ['shm-max', '64G'],
    ['shm-max', 'recommended', '--allow-lower'],
    ['shm-group', '0'],  # the tree says the other group, see below
    ['min-free-kbytes', '50000'],
    ['min-free-kbytes', 'recommended'],
    ['zone-movable', 'on'],
    ['thp', 'enabled=never', 'khugepaged/pages_to_scan=1'],
]


def prepare_for_refusal(fake_kernel):
    gid, _name = other_group()
    write_tunables(fake_kernel, shm_group=gid, zone_movable=False)


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('args', CHANGES, ids=lambda a: '-'.join(a))
def test_not_authorized(service, ctl, fake_kernel, polkit, args):
    prepare_for_refusal(fake_kernel)
    before = fake_kernel.snapshot()
    proc = ctl(*args)
    assert proc.returncode == 1
    assert proc.stdout == ''
    assert refusal(proc.stderr) == REFUSED
    assert fake_kernel.snapshot() == before
    checks = polkit.checks()
    assert [(c.action, c.flags) for c in checks] == [(ACTION_TUNABLES, ALLOW_USER_INTERACTION)]


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('where', ['global', 'command'])
def test_no_ask_password_clears_the_interactive_flag(service, ctl, fake_kernel, polkit, where):
    prepare_for_refusal(fake_kernel)
    args = ['thp', 'defrag=never']
    args = ['--no-ask-password', *args] if where == 'global' else [*args, '--no-ask-password']
    proc = ctl(*args)
    assert proc.returncode == 1
    assert refusal(proc.stderr) == REFUSED
    assert [c.flags for c in polkit.checks()] == [0]


@pytest.mark.fake_kernel(pools=POOLS)
def test_not_authorized_as_nobody(service, fake_kernel, hugepagesctl, run_as, NOBODY, polkit):
    prepare_for_refusal(fake_kernel)
    before = fake_kernel.snapshot()
    for args in CHANGES:
        proc = run_as(NOBODY, [hugepagesctl, *args], stdin=subprocess.DEVNULL)
        assert proc.returncode == 1, args
        assert refusal(proc.stderr) == REFUSED
        # a dry run needs no authorization
        proc = run_as(NOBODY, [hugepagesctl, args[0], '--dry-run', *args[1:]])
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.startswith('would ')
    assert fake_kernel.snapshot() == before
    assert len(polkit.checks()) == len(CHANGES)


@pytest.mark.parametrize('dry', [False, True], ids=['change', 'dry-run'])
def test_agent_on_a_tty_for_changes_only(service, ctl, tunables, allowed, tmp_path, dry):
    agent_dir = fake_agent(str(tmp_path / 'bin'))
    args = ['thp', *(['--dry-run'] if dry else []), 'khugepaged/pages_to_scan=10']
    proc = on_tty(ctl, *args, env={'PATH': agent_dir})
    assert proc.returncode == 0, proc.stderr
    started = read(os.path.join(agent_dir, 'args')) is not None
    assert started == (not dry)
    assert tunables.read_int(f'{THP}/khugepaged/pages_to_scan') == (4096 if dry else 10)


# --- explain -----------------------------------------------------------------

def render(entries):
    """The text form of explain, from its JSON form."""
    out = ''
    for e in entries:
        out += f"[{e['severity']}] {e['id']}: {e['message']}\n"
        if e['fix']:
            out += f"    fix: {e['fix']}\n"
    return out


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind
def test_explain_text_and_json(service, ctl, fake_kernel, polkit):
    write_tunables(fake_kernel, min_free=4096)
    fake_kernel.write(f'{THP}/enabled', '[always] madvise never\n')

    data = json.loads(ok(ctl('explain', '--json')))
    assert list(data) == ['format_version', 'entries'] and data['format_version'] == 1
    entries = data['entries']
    assert entries, 'explain found nothing at all'
    for e in entries:
        assert list(e) == ['severity', 'id', 'message', 'fix']
        assert all(isinstance(v, str) for v in e.values())
        assert e['severity'] in ('info', 'warning', 'error')
    by_id = {e['id']: e for e in entries}

    # the service formats sizes with g_format_size (): a no-break space
    memory = by_id['memory-total']
    assert memory['severity'] == 'info' and memory['fix'] == ''
    assert memory['message'].replace('\xa0', ' ') == 'Total system memory: 16.0 GiB'
    assert by_id['thp-enabled-always']['severity'] == 'warning'
    assert by_id['thp-enabled-always']['fix'] == 'hugepagesctl thp enabled=madvise'
    assert by_id['min-free-kbytes-low']['fix'] == 'hugepagesctl min-free-kbytes recommended'
    assert f'{RECOMMENDED_MIN_FREE} kB' in by_id['min-free-kbytes-low']['message']
    # 32 MiB of shmmax is above the pools' 16 MiB; shmall covers it
    assert 'shmmax-low' not in by_id and 'shmall-low' not in by_id

    # the text is the same entries, in the same order (in a UTF-8 locale:
    # elsewhere text is converted to the locale's charset)
    text = ok(ctl('explain', env={'LC_ALL': 'C.UTF-8'}))
    assert text == render(entries)
    assert '[warning] thp-enabled-always: Transparent huge pages are ' in text
    assert '\n    fix: hugepagesctl thp enabled=madvise\n' in text
    assert '\n[warning] min-free-kbytes-low: vm.min_free_kbytes is 4096 kB; ' in text
    assert text.startswith('[info] memory-total: Total system memory: 16.0')
    assert 'GiB\n[' in text  # memory-total has no fix line

    # and the tunable fixes it suggests are commands this client takes
    fixes = [e['fix'].split()[1:] for e in entries
             if e['fix'].split()[1:2] in (['shm-max'], ['min-free-kbytes'], ['thp'])]
    assert len(fixes) >= 2
    for args in fixes:
        assert ok(ctl(args[0], '--dry-run', *args[1:])).startswith('would ')
    # explaining asks no one
    assert polkit.checks() == []


def test_explain_json_is_pretty_and_utf8_in_any_locale(service, ctl, fake_kernel, hugepagesctl,
                                                       bus):
    write_tunables(fake_kernel)
    out = ok(ctl('explain', '--json', env={'LC_ALL': 'C.UTF-8'}))
    assert out.startswith('{\n') and out.endswith('}\n')
    assert '\n  "entries"' in out
    # the C locale's charset is ASCII: JSON stays UTF-8 all the same
    proc = subprocess.run([hugepagesctl, 'explain', '--json'], capture_output=True, timeout=30,
                          stdin=subprocess.DEVNULL,
                          env=dict(os.environ, LC_ALL='C', DBUS_SYSTEM_BUS_ADDRESS=bus.address))
    assert proc.returncode == 0 and proc.stderr == b''
    assert json.loads(proc.stdout.decode('utf-8')) == json.loads(out)


def test_explain_as_nobody(service, fake_kernel, hugepagesctl, run_as, NOBODY, polkit):
    write_tunables(fake_kernel, shm_group=0)
    proc = run_as(NOBODY, [hugepagesctl, 'explain', '--json'])
    assert proc.returncode == 0, proc.stderr
    ids = [e['id'] for e in json.loads(proc.stdout)['entries']]
    # tailored to the caller: nobody has no CAP_IPC_LOCK
    assert 'shm-group-unset' in ids
    proc = run_as(NOBODY, [hugepagesctl, 'explain'])
    assert proc.returncode == 0 and proc.stderr == ''
    assert '[info] shm-group-unset: ' in proc.stdout
    assert '    fix: hugepagesctl shm-group GROUP\n' in proc.stdout
    assert polkit.checks() == []
