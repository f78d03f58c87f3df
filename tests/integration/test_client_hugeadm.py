# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""hugeadm and pagesize compatibility of hugepagesctl (client/hpctl-hugeadm.c)
against hugepagesd on the fake kernel tree: hugeadm's option syntax (unique
prefixes, SIZE:AMOUNT), everything checked before anything runs, hugeadm's
order of execution, the listings in hugeadm's formats, the entry points
(hugepagesctl --pool-list, hugepagesctl hugeadm, a hugeadm or pagesize
symlink), and the documented differences: garbage refused, non-zero exits,
short pools reported, a dry run that changes nothing. Nothing here touches
the real kernel or mounts anything."""

import os
import shutil
import subprocess
import tempfile

import pytest

from fakekernel import Pool
# the command-line fixtures and checks of the client tests
from test_client import ctl, hugeadm_pool_list, hugepagesctl, ok, usage_error  # noqa: F401
from test_client_tunables import ACTION_TUNABLES, SHMMAX, SHM_GROUP, THP, write_tunables
from hpdtest import ACTION_POOLS

SMALL = 2048
GIANT = 1048576
MEM_MB = 16 * 1024

# Minimum 6, Maximum 8 for 2MB; 5/5/5 for 1GB (no overcommit file).
POOLS = {SMALL: Pool(total=6, free=6, overcommit=2), GIANT: Pool(total=5, free=5)}
POOL_LIST = hugeadm_pool_list([(SMALL * 1024, 6, 6, 8, True), (GIANT * 1024, 5, 5, 5, False)])
# Surplus pages the static fake kernel never converts: asking for 10 leaves
# the persistent pool at 8, a shortfall.
SHORT = {SMALL: Pool(total=4, free=2, surplus=2, overcommit=5)}

ACTION_MOUNTS = 'org.hugepages.manager.manage-mounts'
FLAGS = 'rw,nosuid,nodev,relatime'


def nr(fake_kernel, size=SMALL, name='nr_hugepages'):
    return fake_kernel.read_int(fake_kernel.pool_file(size, name))


def write_mountinfo(fake_kernel, mounts):
    """mounts: [(path, superblock options after "rw,")] as hugetlbfs lines
    between two other file systems."""
    lines = ['22 1 0:21 / /proc rw,relatime - proc proc rw']
    for i, (path, options) in enumerate(mounts):
        lines.append(f'{60 + i} 1 0:{48 + i} / {path} {FLAGS} - hugetlbfs none rw,{options}')
    lines.append('99 1 0:99 / /tmp rw,relatime - tmpfs tmpfs rw,size=100k')
    fake_kernel.write('proc/self/mountinfo', '\n'.join(lines) + '\n')


# --- the command line, no service needed -----------------------------------

@pytest.mark.parametrize('args,text', [
    (['--pool-pages-min', '2M'], "--pool-pages-min takes SIZE:AMOUNT (2M:512, DEFAULT:+1G, 1G:-1), not '2M'"),
    (['--pool-pages-min', '2M:'], "not '2M:'"),
    (['--pool-pages-min', ':5'], "not ':5'"),
    (['--pool-pages-max', '2M:5:7'], "--pool-pages-max takes SIZE:AMOUNT"),   # hugeadm: 5
    (['--pool-pages-max', '2M::5'], "not '2M::5'"),                            # hugeadm: 5
    (['--pool-pages-min', '2M:5x'], '--pool-pages-min 2M:5x: '),               # hugeadm: 5
    (['--pool-pages-min', '2M:10.5'], '--pool-pages-min 2M:10.5: '),           # hugeadm: 10
    (['--pool-pages-min', '2M:0x10'], '--pool-pages-min 2M:0x10: '),           # hugeadm: 16
    (['--pool-pages-min', '2M:99999999999999999999'], 'too large'),
    (['--pool-pages-min', '2M:-99999999999G'], '--pool-pages-min 2M:-99999999999G: '),  # hugeadm: +3676093022720
    (['--pool-pages-min', 'default:1'], 'the default size is spelt DEFAULT'),
    (['--pool-pages-min', '2Mxyz:1'], '--pool-pages-min 2Mxyz:1: '),           # hugeadm: 2M
    (['--pool-pages-min', '0x200000:1'], '--pool-pages-min 0x200000:1: '),
    (['--thp-khugepaged-pages', 'abc'], '--thp-khugepaged-pages takes a decimal number'),
    (['--thp-khugepaged-scan-sleep', '-5'], '--thp-khugepaged-scan-sleep takes a decimal number'),
    (['--thp-khugepaged-alloc-sleep', '4294967296'], 'out of range (at most 4294967295)'),
    (['--create-mounts', '--max-size', '1.5G'], "--max-size takes an amount of memory"),
    (['--create-mounts', '--max-size', '100x'], "not '100x'"),
    (['--create-mounts', '--max-size', '0%'], "not '0%'"),
    (['--create-mounts', '--max-inodes', 'foo'], '--max-inodes takes a decimal number'),
    (['--create-mounts', '--max-inodes', '0'], '--max-inodes must be at least 1'),
    (['--max-size', '1G'], '--max-size and --max-inodes only apply to the --create-*-mounts'),
    (['--max-inodes', '5'], 'only apply to the --create-*-mounts'),
    (['--set-shm-group', ''], "--set-shm-group takes a name, not ''"),
    (['--create-user-mounts', ''], "--create-user-mounts takes a name"),
    (['--verbose', 'x', '--pool-list'], "--verbose takes a level from 0 to 99, not 'x'"),
    (['--verbose', '100', '--pool-list'], "not '100'"),
    (['--hard'], 'no operation given'),
    (['--dry-run'], 'no operation given'),
    (['-d', '-v', '--hard'], 'no operation given'),
    (['--pool-list', 'extra'], "unexpected argument 'extra'"),
    (['--add-temp-swap', '--pool-pages-min', '2M:1'], "hugeadm's --add-temp-swap is not supported"),
    (['--add-temp-swap=10', '--pool-pages-min', '2M:1'], "--add-temp-swap is not supported"),
    (['--add-ramdisk-swap'], "hugeadm's --add-ramdisk-swap is not supported"),
    (['--persist'], "hugeadm's --persist is not supported"),
    (['--obey-mempolicy'], "set-node NODE SIZE AMOUNT"),
])
def test_usage_errors_need_no_service(ctl, make_bus, args, text):
    # a bus without hugepagesd: all of it is found before connecting
    empty = make_bus()
    env = {'DBUS_SYSTEM_BUS_ADDRESS': empty.address}
    usage_error(ctl(*args, env=env), text)
    usage_error(ctl('hugeadm', *args, env=env), text)


@pytest.mark.parametrize('args,text', [
    (['--pool-lis', '--bogus'], "unrecognized option '--bogus'"),
    (['--pool-pages-m', '2M:1'], "option '--pool-pages-m' is ambiguous"),
    (['--pool-pages-min'], "option '--pool-pages-min' requires an argument"),
])
def test_getopt_errors(ctl, make_bus, args, text):
    empty = make_bus()
    proc = ctl(*args, env={'DBUS_SYSTEM_BUS_ADDRESS': empty.address})
    assert proc.returncode == 2 and proc.stdout == ''
    assert text in proc.stderr


def test_help(ctl):
    for args in (['hugeadm', '--help'], ['hugeadm', '-h'], ['--pool-list', '-h']):
        out = ok(ctl(*args))
        for text in ('--pool-pages-min SIZE:[+|-]AMOUNT', '--create-user-mounts USER',
                     '--thp-khugepaged-alloc-sleep MS', '--explain', '--dry-run',
                     'hugepagesctl set-min', 'not offered'):
            assert text in out
    assert ok(ctl('hugeadm', '-h')).startswith('Usage: hugepagesctl hugeadm [OPTION…]\n')
    assert ok(ctl('--pool-list', '-h')).startswith('Usage: hugepagesctl [OPTION…]\n')
    assert ok(ctl('pagesize', '-h')).startswith('Usage: hugepagesctl pagesize [-a|--all] [-H|--huge-only]\n')
    assert 'hugeadm OPTION…' in ok(ctl('--help'))
    # hugepagesctl's own options stay its own
    assert ok(ctl('--version')).startswith('hugepagesctl ')


# --- listings --------------------------------------------------------------

@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind(first=1)
@pytest.mark.parametrize('args', [
    ['--pool-list'], ['--pool-l'], ['hugeadm', '--pool-list'], ['--no-ask-password', '--pool-list'],
    ['hugeadm', '--verbose', '1', '--pool-list'], ['--verbose=2', '--pool-list'],
])
def test_pool_list(service, ctl, args):
    assert ok(ctl(*args)) == POOL_LIST
    assert ok(ctl('pools')) == POOL_LIST


@pytest.mark.fake_kernel(pools=POOLS)
def test_called_as_hugeadm_and_pagesize(service, hugepagesctl, bus, tmp_path):
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus.address)
    base = os.sysconf('SC_PAGESIZE')
    for name in ('hugeadm', 'pagesize'):
        os.symlink(hugepagesctl, tmp_path / name)

    def run(name, *args):
        return subprocess.run([str(tmp_path / name), *args], env=env, capture_output=True,
                              text=True, timeout=30, stdin=subprocess.DEVNULL)

    assert ok(run('hugeadm', '--pool-list')) == POOL_LIST
    assert ok(run('hugeadm', '--help')).startswith('Usage: hugeadm [OPTION…]\n')
    assert ok(run('pagesize', '--help')).startswith('Usage: pagesize [-a|--all]')
    assert ok(run('hugeadm', '--page-sizes-all')) == '2097152\n1073741824\n'
    proc = run('hugeadm', '--pool-pages-min', '2M:5x')
    assert proc.returncode == 2 and proc.stderr.startswith('hugeadm: --pool-pages-min 2M:5x: ')
    proc = run('hugeadm', '--hard')
    assert proc.returncode == 2 and proc.stderr.startswith('hugeadm: no operation given')
    assert ok(run('pagesize')) == f'{base}\n'
    assert ok(run('pagesize', '-a')) == f'{base}\n2097152\n1073741824\n'
    assert ok(run('pagesize', '--all')) == f'{base}\n2097152\n1073741824\n'
    assert ok(run('pagesize', '-H')) == '2097152\n1073741824\n'
    assert ok(run('pagesize', '--huge-only')) == '2097152\n1073741824\n'
    assert ok(run('pagesize', '-aH')) == '2097152\n1073741824\n'
    proc = run('pagesize', 'target')
    assert proc.returncode == 2 and proc.stderr == "pagesize: unexpected argument 'target'\n"
    proc = run('pagesize', '-x')
    assert proc.returncode == 2 and 'invalid option' in proc.stderr


@pytest.mark.fake_kernel(pools=POOLS)
def test_pagesize_command(service, ctl):
    base = os.sysconf('SC_PAGESIZE')
    assert ok(ctl('pagesize')) == f'{base}\n'
    assert ok(ctl('pagesize', '-a')) == f'{base}\n2097152\n1073741824\n'
    assert ok(ctl('pagesize', '-H')) == '2097152\n1073741824\n'
    usage_error(ctl('pagesize', 'x'), "unexpected argument 'x'")


@pytest.mark.fake_kernel(sizes=(1048576, 2048, 64), default_size=2048)
def test_page_sizes_all(service, ctl):
    assert ok(ctl('--page-sizes-all')) == '65536\n2097152\n1073741824\n'


@pytest.fixture
def mount_points():
    """A directory everyone can search (pytest's tmp_path is root's only),
    for mount points the client checks with access()."""
    d = tempfile.mkdtemp(prefix='hpd-hugeadm-')
    os.chmod(d, 0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.mark.fake_kernel(pools={SMALL: Pool(total=2, free=2), GIANT: Pool(total=1, free=1)},
                         sizes=(2048, 1048576, 64), default_size=2048)
def test_page_sizes_needs_a_maximum_and_a_usable_mount(service, ctl, hugepagesctl, run_as,
                                                       fake_kernel, mount_points, NOBODY):
    usable = os.path.join(mount_points, 'huge-2M')
    private = os.path.join(mount_points, 'huge-64K')
    os.mkdir(usable, 0o777)
    os.chmod(usable, 0o777)
    os.mkdir(private, 0o700)
    # 2MB: a pool and a mount; 1GB: a pool, its mount missing; 64KB: a mount, no pool
    write_mountinfo(fake_kernel, [(str(usable), 'pagesize=2M'),
                                  ('/nonexistent/huge-1G', 'pagesize=1024M'),
                                  (str(private), 'pagesize=64K')])
    assert ok(ctl('--page-sizes')) == '2097152\n'
    fake_kernel.write(fake_kernel.pool_file(64, 'nr_hugepages'), 3)
    assert ok(ctl('--page-sizes')) == '65536\n2097152\n'
    # someone who cannot use the 64KB mount is not offered it
    proc = run_as(NOBODY, [hugepagesctl, '--page-sizes'])
    assert proc.returncode == 0 and proc.stdout == '2097152\n', proc.stderr


@pytest.mark.fake_kernel(pools=POOLS)
def test_list_all_mounts_is_proc_mounts_format(service, ctl, fake_kernel):
    proc = ctl('--list-all-mounts')
    assert proc.returncode == 0 and proc.stdout == ''
    assert proc.stderr == 'hugepagesctl: No hugetlbfs mount points found\n'

    long_path = '/var/lib/hugetlbfs/user/someone-with-a-long-name/pagesize-1GB'
    write_mountinfo(fake_kernel, [
        ('/dev/hugepages', 'pagesize=2M'),
        (long_path, 'uid=1000,mode=700,pagesize=1024M,size=2147483648'),
        ('/mnt/h', 'gid=27,mode=1777,nr_inodes=5,pagesize=2M,size=4194304,min_size=2097152'),
    ])
    width = len(long_path)
    assert ok(ctl('--list-all-mounts')) == (
        f'{"Mount Point":<{width}} Options\n'
        f'{"/dev/hugepages":<{width}} {FLAGS},pagesize=2M\n'
        f'{long_path} {FLAGS},uid=1000,mode=700,pagesize=1024M,size=2147483648\n'
        f'{"/mnt/h":<{width}} {FLAGS},gid=27,mode=1777,nr_inodes=5,pagesize=2M,size=4194304,'
        f'min_size=2097152\n')
    write_mountinfo(fake_kernel, [('/dev/hugepages', 'pagesize=2M')])
    assert ok(ctl('--list-all-m')) == (f'{"Mount Point":<20} Options\n'
                                       f'{"/dev/hugepages":<20} {FLAGS},pagesize=2M\n')


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind
def test_explain_has_hugeadms_parseable_parts(service, ctl, fake_kernel):
    write_tunables(fake_kernel, shmmax=4096, shm_group=0, min_free=45056)
    write_mountinfo(fake_kernel, [('/dev/hugepages', 'pagesize=2M')])
    proc = ctl('--explain')
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    recommended = 8 * 2 * 1024 * 1024 + 5 * 1024 * 1024 * 1024
    assert out.startswith(f'Total System Memory: {MEM_MB} MB\n\n'
                          f'{"Mount Point":<20} Options\n'
                          f'{"/dev/hugepages":<20} {FLAGS},pagesize=2M\n'
                          f'\nHuge page pools:\n{POOL_LIST}'
                          f'\nHuge page sizes with configured pools:\n')
    assert ('\nThe /proc/sys/vm/min_free_kbytes of 45056 is too small. To maximiuse efficiency\n'
            'of fragmentation avoidance, there should be at least one huge page free per zone\n'
            'in the system which minimally requires a min_free_kbytes value of 67584\n') in out
    assert ('\nA /proc/sys/kernel/shmmax value of 4096 bytes may be sub-optimal. To maximise\n'
            in out)
    assert (f'The recommended shmmax for your currently allocated huge pages is {recommended} '
            f'bytes.\nTo make shmmax settings persistent, add the following line to '
            f'/etc/sysctl.conf:\n  kernel.shmmax = {recommended}\n') in out
    assert '\n  vm.hugetlb_shm_group = 0\n' in out
    assert '\nNote: Permanent swap space should be preferred' in out
    # then hugepagesd's own findings, as hugepagesctl explain prints them
    findings = ok(ctl('explain'))
    assert out.endswith("\nhugepagesd's findings (hugepagesctl explain):\n" + findings)


@pytest.mark.fake_kernel(pools=POOLS)
def test_hugeadm_order_not_command_line_order(service, ctl):
    # hugeadm: --list-all-mounts, --pool-list, ..., --page-sizes, --page-sizes-all
    proc = ctl('--page-sizes-all', '--page-sizes', '--pool-list', '--list-all-mounts')
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == POOL_LIST + '2097152\n1073741824\n'
    assert proc.stderr == 'hugepagesctl: No hugetlbfs mount points found\n'


# --- changes ---------------------------------------------------------------

@pytest.fixture
def allow_pools(polkit):
    polkit.allow(ACTION_POOLS)
    return polkit


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind(first=1)
@pytest.mark.parametrize('spec,minimum,maximum', [
    ('2M:4', 4, 8),          # Maximum kept: overcommit grows
    ('2M:+4', 10, 10),       # above Maximum: Maximum follows
    ('DEFAULT:-2', 4, 8),
    ('2MB:4M', 2, 8),
    ('2097152:010', 10, 10),  # decimal, not octal
])
def test_pool_pages_min(service, ctl, allow_pools, fake_kernel, spec, minimum, maximum):
    out = ok(ctl('--pool-pages-min', spec))
    assert out == f'2MB pool minimum: {minimum} pages (requested {minimum})\n'
    assert nr(fake_kernel) == minimum
    assert nr(fake_kernel) + nr(fake_kernel, name='nr_overcommit_hugepages') == maximum
    assert [c.action for c in allow_pools.checks()] == [ACTION_POOLS]


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('spec,minimum,maximum', [
    ('2M:12', 6, 12),
    ('2M:+2', 6, 10),
    ('2M:-4', 4, 4),         # below Minimum: the persistent pool shrinks, as in hugeadm
])
def test_pool_pages_max(service, ctl, allow_pools, fake_kernel, spec, minimum, maximum):
    out = ok(ctl('--pool-pages-max', spec))
    assert out == f'2MB pool maximum: {maximum} pages (requested {maximum})\n'
    assert nr(fake_kernel) == minimum
    assert nr(fake_kernel) + nr(fake_kernel, name='nr_overcommit_hugepages') == maximum


@pytest.mark.fake_kernel(pools=POOLS)
def test_removing_more_than_there_is_empties_the_pool(service, ctl, allow_pools, fake_kernel):
    # as hugeadm does; hugepagesctl set-min 2M -7 is an error (test_client.py)
    proc = ctl('-v', '--pool-pages-min', '2M:-7', '--pool-pages-max', '2M:-20M')
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == ['hugepagesctl: running: hugepagesctl set-min 2M 0',
                                        'hugepagesctl: running: hugepagesctl set-max 2M 0']
    assert nr(fake_kernel) == 0 and nr(fake_kernel, name='nr_overcommit_hugepages') == 0
    # an amount that is wrong anyway is still reported as such
    usage_error(ctl('--pool-pages-min', '2M:-3M'), '3M is not a whole number of 2097152-byte pages')
    usage_error(ctl('--pool-pages-min', '3M:-1'), "'3M' is not a huge page size of this machine")
    # hugeadm wraps this to 0 pages; it is far above the pool memory limit
    proc = ctl('--pool-pages-min', '2M:9999999999G')
    assert proc.returncode == 1 and proc.stdout == ''
    assert proc.stderr.startswith('hugepagesctl: ') and 'limit' in proc.stderr


@pytest.mark.fake_kernel(pools=POOLS)
def test_repeated_pool_options_run_last_first(service, ctl, allow_pools, fake_kernel):
    # hugeadm applies +2 (6 -> 8) and then 3
    proc = ctl('-v', '--pool-pages-min', '2M:3', '--pool-pages-min', '2M:+2',
               '--pool-pages-max', '2M:-1', '--pool-pages-max', '2M:20')
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        '2MB pool minimum: 8 pages (requested 8)',
        '2MB pool minimum: 3 pages (requested 3)',
        '2MB pool maximum: 20 pages (requested 20)',
        '2MB pool maximum: 19 pages (requested 19)',
    ]
    assert proc.stderr.splitlines() == [
        'hugepagesctl: running: hugepagesctl set-min 2M +2',
        'hugepagesctl: running: hugepagesctl set-min 2M 3',
        'hugepagesctl: running: hugepagesctl set-max 2M 20',
        'hugepagesctl: running: hugepagesctl set-max 2M -1',
    ]
    assert nr(fake_kernel) == 3
    assert nr(fake_kernel, name='nr_overcommit_hugepages') == 16


@pytest.mark.fake_kernel(pools=POOLS)
def test_dry_run_changes_nothing(service, ctl, polkit, fake_kernel):
    before = fake_kernel.snapshot()
    proc = ctl('--dry-run', '--pool-pages-min', '2M:+1', '--pool-pages-max', '1G:5',
               '--create-global-mounts', '--create-user-mounts', 'root', '--max-size', '1G')
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        'would set the 2MB pool minimum to 7 pages',
        'would set the 1GB pool maximum to 5 pages',
        'would mount hugetlbfs (2MB, user scope) at /var/lib/hugetlbfs/user/root/pagesize-2MB',
        'would mount hugetlbfs (1GB, user scope) at /var/lib/hugetlbfs/user/root/pagesize-1GB',
        'would mount hugetlbfs (2MB, global scope) at /var/lib/hugetlbfs/global/pagesize-2MB',
        'would mount hugetlbfs (1GB, global scope) at /var/lib/hugetlbfs/global/pagesize-1GB',
    ]
    assert fake_kernel.snapshot() == before
    assert polkit.checks() == []
    proc = ctl('-d', '--create-group-mounts', 'no-such-group-here')
    assert proc.returncode == 1 and "no such group: 'no-such-group-here'" in proc.stderr


@pytest.mark.fake_kernel(pools=SHORT)
def test_short_pool_is_reported_and_the_rest_still_runs(service, ctl, allow_pools, fake_kernel):
    proc = ctl('--pool-pages-min', '2M:10', '--page-sizes-all')
    assert proc.returncode == 3
    assert proc.stdout == '2MB pool minimum: 8 pages (requested 10)\n2097152\n1073741824\n'
    assert 'the kernel gave only 8 of 10 pages of 2MB' in proc.stderr


@pytest.mark.fake_kernel(pools=POOLS)
def test_errors_do_not_stop_later_steps(service, ctl, polkit, fake_kernel):
    # as hugeadm: every step runs, the exit status is the first failure's
    proc = ctl('--pool-pages-max', '2M:9', '--pool-pages-min', '3M:1', '--pool-list')
    assert proc.returncode == 2
    assert proc.stdout == POOL_LIST
    assert "'3M' is not a huge page size of this machine (available: 2MB, 1GB)" in proc.stderr
    assert 'Not authorized to configure huge page pools' in proc.stderr    # the maximum ran
    # the maximum after the refused minimum is asked for too
    proc = ctl('--no-ask-password', '--pool-pages-min', '2M:1', '--pool-pages-max', '2M:9',
               '--page-sizes-all')
    assert proc.returncode == 1
    assert proc.stdout == '2097152\n1073741824\n'
    assert [c.action for c in polkit.checks()] == [ACTION_POOLS] * 3
    polkit.allow(ACTION_POOLS)
    proc = ctl('--pool-pages-min', '3M:1', '--pool-pages-max', '2M:9')
    assert proc.returncode == 2
    assert nr(fake_kernel, name='nr_overcommit_hugepages') == 3


@pytest.mark.fake_kernel(pools=POOLS)
def test_hard_goes_to_the_minimum_only(service, ctl, allow_pools, fake_kernel):
    proc = ctl('-v', '--hard', '--pool-pages-min', '2M:7', '--pool-pages-max', '2M:9')
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == ['hugepagesctl: running: hugepagesctl set-min --hard 2M 7',
                                        'hugepagesctl: running: hugepagesctl set-max 2M 9']
    assert nr(fake_kernel) == 7


@pytest.fixture
def allow_tunables(polkit):
    polkit.allow(ACTION_TUNABLES)
    return polkit


@pytest.mark.fake_kernel(pools=POOLS)
def test_tunables(service, ctl, allow_tunables, fake_kernel):
    write_tunables(fake_kernel, shmmax=4096)
    proc = ctl('-v', '--set-shm-group', '0', '--set-recommended-shmmax',
               '--thp-khugepaged-pages', '1000', '--thp-khugepaged-scan-sleep', '2000',
               '--thp-khugepaged-alloc-sleep', '3000', '--set-recommended-min_free_kbytes')
    assert proc.returncode == 0, proc.stderr
    recommended = 8 * 2 * 1024 * 1024 + 5 * 1024 * 1024 * 1024
    assert proc.stderr.splitlines() == [
        'hugepagesctl: running: hugepagesctl thp khugepaged/pages_to_scan=1000 '
        'khugepaged/alloc_sleep_millisecs=3000 khugepaged/scan_sleep_millisecs=2000',
        'hugepagesctl: running: hugepagesctl min-free-kbytes recommended',
        'hugepagesctl: running: hugepagesctl shm-max recommended',
        'hugepagesctl: running: hugepagesctl shm-group 0',
    ]
    assert fake_kernel.read_int(SHMMAX) == recommended
    assert fake_kernel.read_int(SHM_GROUP) == 0
    assert fake_kernel.read_int('proc/sys/vm/min_free_kbytes') == 67584
    assert fake_kernel.read_int(f'{THP}/khugepaged/pages_to_scan') == 1000
    assert fake_kernel.read_int(f'{THP}/khugepaged/scan_sleep_millisecs') == 2000
    assert fake_kernel.read_int(f'{THP}/khugepaged/alloc_sleep_millisecs') == 3000


@pytest.mark.fake_kernel(pools=POOLS)
def test_thp_modes_and_zone_movable_dry_run(service, ctl, polkit, fake_kernel):
    write_tunables(fake_kernel, zone_movable=False)
    before = fake_kernel.snapshot()
    # hugeadm writes always, madvise, never in that order: never wins
    proc = ctl('--dry-run', '--thp-never', '--thp-always', '--thp-khugepaged-pages', '10',
               '--enable-zone-movable', '--disable-zone-movable', '--enable-zone-movable')
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ['would set zone movable to on',
                                        'would set enabled to never',
                                        'would set khugepaged/pages_to_scan to 10']
    proc = ctl('-d', '--thp-madvise', '--thp-always')
    assert proc.stdout == 'would set enabled to madvise\n'
    assert fake_kernel.snapshot() == before
    assert polkit.checks() == []


@pytest.mark.fake_kernel(pools=POOLS)
def test_bad_values_the_service_finds(service, ctl, allow_tunables, fake_kernel):
    write_tunables(fake_kernel)
    before = fake_kernel.snapshot()
    proc = ctl('--set-shm-group', 'no-such-group-here', '--set-recommended-min_free_kbytes')
    assert proc.returncode == 2
    assert 'no-such-group-here' in proc.stderr
    # the step before it ran
    assert fake_kernel.read_int('proc/sys/vm/min_free_kbytes') == 67584
    before = fake_kernel.snapshot()
    proc = ctl('--enable-zone-movable')      # no such sysctl on this kernel
    assert proc.returncode == 1 and proc.stderr.startswith('hugepagesctl: ')
    assert fake_kernel.snapshot() == before


@pytest.mark.fake_kernel(pools=POOLS)
def test_create_mounts_go_through_the_service(service, ctl, polkit, fake_kernel):
    # the polkit mock refuses: nothing is mounted or made
    proc = ctl('-v', '--no-ask-password', '--create-mounts', '--create-group-mounts', 'root',
               '--max-size', '50%', '--max-inodes', '100')
    assert proc.returncode == 1
    # then the ways forward, once (test_client_messages.py)
    assert proc.stderr.splitlines()[:4] == [
        'hugepagesctl: running: hugepagesctl mount-create system --size 50% --inodes 100',
        'hugepagesctl: Not authorized to manage hugetlbfs mounts',
        'hugepagesctl: running: hugepagesctl mount-create group root --size 50% --inodes 100',
        'hugepagesctl: Not authorized to manage hugetlbfs mounts',
    ]
    assert [c.action for c in polkit.checks()] == [ACTION_MOUNTS, ACTION_MOUNTS]
    assert not os.path.lexists(os.path.join(fake_kernel.root, 'var'))


# --- hugeadm's behaviours scripts rely on ---------------------------------------

@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('spec', ['2mb:7', '2Mb:7', '2048kb:7', '2MB:14MB', '2m:14mb', '2048KB:+2M'])
def test_units_in_any_case(service, ctl, allow_pools, fake_kernel, spec):
    proc = ctl('--pool-pages-min', spec)
    assert proc.returncode == 0, proc.stderr
    assert nr(fake_kernel) == 7


@pytest.mark.fake_kernel(pools=POOLS)
def test_a_b_alone_is_bytes(service, ctl, allow_pools, fake_kernel):
    # hugeadm ignores the b and takes 7 pages; 7 bytes are refused here,
    # as by set-min, before anything changes
    before = fake_kernel.snapshot()
    proc = ctl('--pool-pages-min', '2M:7b')
    assert proc.returncode == 2, proc.stderr
    assert 'is not a whole number of 2097152-byte pages' in proc.stderr
    assert fake_kernel.snapshot() == before
    # a whole number of pages in bytes is that many pages
    assert ctl('--pool-pages-min', '2M:14680064b').returncode == 0
    assert nr(fake_kernel) == 7


@pytest.mark.fake_kernel(pools=POOLS)
def test_max_size_units_in_any_case(service, ctl, polkit):
    proc = ctl('--dry-run', '--create-global-mounts', '--max-size', '512mb')
    assert proc.returncode == 0, proc.stderr


@pytest.mark.fake_kernel(pools=POOLS)
def test_disable_zone_movable_without_the_setting_is_a_no_op(service, ctl, allow_tunables,
                                                             fake_kernel):
    write_tunables(fake_kernel)      # no such sysctl on this kernel
    before = fake_kernel.snapshot()
    proc = ctl('--disable-zone-movable', '--pool-list')
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == POOL_LIST
    assert 'warning: this kernel has no setting for huge pages in ZONE_MOVABLE' in proc.stderr
    assert fake_kernel.snapshot() == before
    # enabling is still refused: the state asked for is not the state there is
    assert ctl('--enable-zone-movable').returncode == 1


@pytest.mark.fake_kernel(pools=POOLS)
def test_explain_advises_no_shmmax_the_tool_keeps(service, ctl, allow_tunables, fake_kernel):
    # above what the pools can back: --set-recommended-shmmax keeps it
    write_tunables(fake_kernel, shmmax=2**64 - 2**24 - 1)
    out = ctl('--explain').stdout
    assert 'kernel.shmmax = ' not in out
    assert '--set-recommended-shmmax' not in out
    assert 'lowering it gains nothing' in out
    before = fake_kernel.read_int(SHMMAX)
    assert ctl('--set-recommended-shmmax').returncode == 0
    assert fake_kernel.read_int(SHMMAX) == before
    # below it: the advice is given, and followed
    write_tunables(fake_kernel, shmmax=4096)
    out = ctl('--explain').stdout
    assert '--set-recommended-shmmax' in out
    recommended = int(out.split('kernel.shmmax = ')[1].split()[0])
    assert ctl('--set-recommended-shmmax').returncode == 0
    assert fake_kernel.read_int(SHMMAX) == recommended
