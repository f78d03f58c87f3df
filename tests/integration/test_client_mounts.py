# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""hugepagesctl's hugetlbfs commands (mounts, mount-create, unmount) against
hugepagesd on the fake kernel tree. Nothing here mounts for real: the mount
table is a fake <root>/proc/self/mountinfo, and every change that would
mount or unmount is refused by the polkit mock (or answered without a
mount, when the mounts asked for are already listed)."""

import grp
import os
import pwd
import subprocess

import pytest

from fakekernel import Pool
# the command-line fixtures and checks of the client tests
from test_client import ALLOW_USER_INTERACTION, ctl, hugepagesctl, ok, refusal, usage_error  # noqa: F401

ACTION_MOUNTS = 'org.hugepages.manager.manage-mounts'
REFUSED = 'hugepagesctl: Not authorized to manage hugetlbfs mounts\n'
HEADER = ['Path', 'PageSize', 'Owner', 'Mode', 'MaxSize', 'MinSize', 'MaxInodes', 'Flags',
          'Options']
FLAGS = 'rw,nosuid,nodev,relatime'
UNKNOWN_ID = 3999999  # neither a user nor a group on the test machine

# 2MB with a persistent pool of 10 pages, so that percentages do not round
# to zero pages.
FILLED = {2048: Pool(total=10, free=10)}


def user(uid):
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def group(gid):
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)


def base(fake_kernel):
    return os.path.join(fake_kernel.root, 'var/lib/hugetlbfs')


def write_mountinfo(fake_kernel, mounts):
    """mounts: [(path as mountinfo escapes it, superblock options)] as
    hugetlbfs lines between two other file systems."""
    lines = ['22 1 0:21 / /proc rw,relatime - proc proc rw',
             '27 1 254:0 / / rw,relatime - ext4 /dev/vda rw']
    for i, (path, options) in enumerate(mounts):
        lines.append(f'{60 + i} 27 0:{48 + i} / {path} {FLAGS} - hugetlbfs none rw,{options}')
    lines.append('99 27 0:99 / /tmp rw,relatime - tmpfs tmpfs rw,size=100k')
    fake_kernel.write('proc/self/mountinfo', '\n'.join(lines) + '\n')


def nothing_created(fake_kernel):
    assert not os.path.lexists(os.path.join(fake_kernel.root, 'var'))


def fields(line):
    """[(column, text)] of a line of the table."""
    result, start = [], None
    for i, ch in enumerate(line + ' '):
        if ch != ' ' and start is None:
            start = i
        elif ch == ' ' and start is not None:
            result.append((start, line[start:i]))
            start = None
    return result


def table(out):
    """The rows of `mounts` as lists of fields, after checking the header and
    that every field starts in the column of its title."""
    lines = out.splitlines()
    header = fields(lines[0])
    assert [text for _, text in header] == HEADER
    rows = []
    for line in lines[1:]:
        row = fields(line)
        assert [column for column, _ in row] == [column for column, _ in header], out
        rows.append([text for _, text in row])
    return rows


# --- the command line, no service needed -----------------------------------

def test_help(ctl):
    out = ok(ctl('--help'))
    for text in ('mounts', 'mount-create SCOPE [OWNER]', 'unmount PATH'):
        assert text in out
    out = ok(ctl('mount-create', '--help'))
    for text in ('--size=S', '--min-size=S', '--inodes=N', '--mode=M', '--page-size=SIZE',
                 '--no-ask-password', 'user/OWNER/pagesize-2MB'):
        assert text in out
    assert 'octal escape' in ok(ctl('mounts', '--help'))


@pytest.mark.parametrize('args,text', [
    (['mounts', 'x'], "mounts takes no arguments, but got 'x'"),
    (['mount-create'], 'usage: hugepagesctl mount-create SCOPE [OWNER]'),
    (['mount-create', 'user', 'a', 'b'], 'usage: hugepagesctl mount-create SCOPE [OWNER]'),
    (['mount-create', 'bogus'], "SCOPE must be system, user, group or global, not 'bogus'"),
    (['mount-create', 'System'], "not 'System'"),
    (['mount-create', 'system', 'root'], "the system scope takes no OWNER, but got 'root'"),
    (['mount-create', 'global', '0'], "the global scope takes no OWNER, but got '0'"),
    (['mount-create', 'user'], 'the user scope needs an OWNER: a user name or uid'),
    (['mount-create', 'user', ''], 'the user scope needs an OWNER'),
    (['mount-create', 'group'], 'the group scope needs an OWNER: a group name or gid'),
    (['mount-create', 'system', '--mode', '4777'],
     '--mode 4777 has bits other than permissions and the sticky bit'),
    (['mount-create', 'system', '--mode', '2770'], 'has bits other than permissions'),
    (['mount-create', 'system', '--mode', '04777'], "--mode takes an octal mode of at most 4 digits"),
    (['mount-create', 'system', '--mode', '01777'], "not '01777'"),
    (['mount-create', 'system', '--mode', '8'], "not '8'"),
    (['mount-create', 'system', '--mode', '0x1ff'], "not '0x1ff'"),
    (['mount-create', 'system', '--mode', '-1'], "not '-1'"),
    (['mount-create', 'system', '--mode', ''], "not ''"),
    (['mount-create', 'system', '--mode', ' 770'], "not ' 770'"),
    (['mount-create', 'system', '--size', '0%'], "--size: a percentage must be from 1% to 100%, not '0%'"),
    (['mount-create', 'system', '--size', '101%'], "not '101%'"),
    (['mount-create', 'system', '--size', '05%'], "not '05%'"),
    (['mount-create', 'system', '--size', '%'], "not '%'"),
    (['mount-create', 'system', '--size', '-5%'], "a percentage must be from 1% to 100%, not '-5%'"),
    (['mount-create', 'system', '--size', '4X'], "--size: '4X' has an unknown unit 'X'"),
    (['mount-create', 'system', '--size', '0'], "--size: size '0' is zero"),
    (['mount-create', 'system', '--size', '-4M'],
     "--size takes an amount of memory (4M, 1G) or a percentage (1% to 100%), not '-4M'"),
    (['mount-create', 'system', '--min-size', '1.5G'], "--min-size: '1.5G' has an unknown unit"),
    (['mount-create', 'system', '--min-size', '50 %'], "--min-size: a percentage must be"),
    (['mount-create', 'system', '--inodes', '0'], '--inodes must be at least 1'),
    (['mount-create', 'system', '--inodes', 'x'], "--inodes: 'x' is not a decimal number"),
    (['mount-create', 'system', '--inodes', '-3'], "--inodes takes a decimal number, not '-3'"),
    (['mount-create', 'system', '--inodes', '99999999999999999999'], 'is too large'),
    (['mount-create', 'system', '--page-size', 'default'], '--page-size: ' + "'default' is not a size"),
    (['mount-create', 'system', '--page-size', '3X'], "--page-size: '3X' has an unknown unit"),
    (['mount-create', 'system', '--page-size', '-2M'], "--page-size takes a huge page size"),
    (['unmount'], 'usage: hugepagesctl unmount PATH'),
    (['unmount', '/a', '/b'], 'usage: hugepagesctl unmount PATH'),
    (['unmount', 'var/lib/hugetlbfs/pagesize-2MB'], "PATH must be absolute, not 'var/lib"),
])
def test_usage_errors_need_no_service(ctl, make_bus, args, text):
    empty = make_bus()
    usage_error(ctl(*args, env={'DBUS_SYSTEM_BUS_ADDRESS': empty.address}), text)


def test_service_not_running(ctl, make_bus):
    empty = make_bus()
    for args in (['mounts'], ['mount-create', 'system'], ['unmount', '/mnt/huge']):
        proc = ctl(*args, env={'DBUS_SYSTEM_BUS_ADDRESS': empty.address})
        assert proc.returncode == 1
        assert proc.stdout == ''
        assert proc.stderr.startswith('hugepagesctl: cannot reach hugepagesd on the system bus: ')
        assert len(proc.stderr.splitlines()) == 1


# --- mounts ------------------------------------------------------------------

def test_no_mounts(service, ctl, fake_kernel):
    # no mountinfo at all, then one without hugetlbfs
    assert ok(ctl('mounts')) == 'No hugetlbfs mounts.\n'
    write_mountinfo(fake_kernel, [])
    assert ok(ctl('mounts')) == 'No hugetlbfs mounts.\n'


@pytest.mark.valgrind
def test_mounts_table(service, ctl, fake_kernel, NOBODY):
    b = base(fake_kernel)
    write_mountinfo(fake_kernel, [
        (f'{b}/pagesize-2MB', 'mode=770,pagesize=2M'),
        (f'{b}/user/nobody/pagesize-1GB',
         f'uid={NOBODY},mode=700,pagesize=1024M,size=2147483648,min_size=1073741824,nr_inodes=5'),
        (f'{b}/group/users/pagesize-2MB', 'gid=100,mode=70,pagesize=2M,nr_inodes=3'),
        ('/mnt/with\\040space\\011tab', f'uid={UNKNOWN_ID},gid={UNKNOWN_ID},mode=1777'),
    ])
    rows = table(ok(ctl('mounts')))
    assert rows == [
        [f'{b}/pagesize-2MB', '2MB', f'{user(0)}:{group(0)}', '0770', '-', '-', '-', FLAGS, '-'],
        [f'{b}/user/nobody/pagesize-1GB', '1GB', f'{user(NOBODY)}:{group(0)}', '0700',
         '2147483648', '1073741824', '5', FLAGS, '-'],
        [f'{b}/group/users/pagesize-2MB', '2MB', f'{user(0)}:{group(100)}', '0070',
         '-', '-', '3', FLAGS, '-'],
        # no pagesize=: the default size; escapes kept so the line splits right
        ['/mnt/with\\040space\\011tab', '2MB', f'{UNKNOWN_ID}:{UNKNOWN_ID}', '1777',
         '-', '-', '-', FLAGS, '-'],
    ]


def test_mounts_for_scripts(service, ctl, fake_kernel):
    b = base(fake_kernel)
    write_mountinfo(fake_kernel, [(f'{b}/pagesize-2MB', 'mode=770,pagesize=2M'),
                                  (f'{b}/global/pagesize-1GB', 'mode=1777,pagesize=1G')])
    out = ok(ctl('mounts'))
    assert [line.split()[0] for line in out.splitlines()[1:]] == \
        [f'{b}/pagesize-2MB', f'{b}/global/pagesize-1GB']
    assert all(len(line.split()) == len(HEADER) for line in out.splitlines())


def test_mounts_needs_no_privileges(service, hugepagesctl, run_as, NOBODY, polkit, fake_kernel):
    write_mountinfo(fake_kernel, [(f'{base(fake_kernel)}/pagesize-2MB', 'mode=770,pagesize=2M')])
    proc = run_as(NOBODY, [hugepagesctl, 'mounts'])
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.splitlines()) == 2
    assert polkit.checks() == []


# --- mount-create and unmount: refused, invalid, or already there -----------

@pytest.mark.parametrize('args', [
    ['mount-create', 'system'],
    ['mount-create', 'global', '--page-size', '2M'],
    ['mount-create', 'user', 'nobody', '--page-size', 'DEFAULT'],
    ['mount-create', 'group', 'users'],
])
@pytest.mark.valgrind(first=2)
def test_create_not_authorized(service, ctl, polkit, fake_kernel, args):
    proc = ctl(*args)
    assert proc.returncode == 1
    assert proc.stdout == ''
    assert refusal(proc.stderr) == REFUSED
    [check] = polkit.checks()
    assert check.action == ACTION_MOUNTS
    assert check.flags == ALLOW_USER_INTERACTION
    assert check.details['scope'] == args[1]
    nothing_created(fake_kernel)


@pytest.mark.valgrind
def test_create_sends_owner_mode_and_page_size(service, ctl, polkit, fake_kernel, NOBODY):
    assert refusal(ctl('mount-create', 'user', str(NOBODY), '--mode', '750', '--page-size', '2M').stderr) == REFUSED
    [check] = polkit.checks()
    assert check.details['owner-uid'] == str(NOBODY)
    assert check.details['mode'] == '0750'
    # CreateMount of the one size, not CreateMounts
    assert check.details['paths'] == f'{base(fake_kernel)}/user/{user(NOBODY)}/pagesize-2MB'
    nothing_created(fake_kernel)


@pytest.mark.fake_kernel(pools=FILLED)
@pytest.mark.parametrize('args', [
    # every option, typed as the service takes them: else InvalidArgs, not a refusal
    ['--size', '4M', '--min-size', '2M', '--inodes', '10', '--mode', '1777', '--page-size', '2M'],
    ['--size', '50%', '--min-size', '10%', '--page-size', '2M'],
    ['--size', '100%', '--mode', '0', '--page-size', '2097152'],
    ['--size', '2G', '--min-size', '1G', '--inodes', '2147483648'],
    # units in any case, as hugeadm reads them
    ['--size', '4mb', '--min-size', '2Mb', '--page-size', '2048kb'],
    ['--size', '2gb', '--min-size', '1g'],
])
def test_create_options_are_accepted(service, ctl, polkit, fake_kernel, args):
    assert refusal(ctl('mount-create', 'global', *args).stderr) == REFUSED
    nothing_created(fake_kernel)


def test_no_ask_password(service, ctl, polkit, fake_kernel):
    assert refusal(ctl('--no-ask-password', 'mount-create', 'system').stderr) == REFUSED
    assert refusal(ctl('mount-create', 'system', '--no-ask-password').stderr) == REFUSED
    assert [c.flags for c in polkit.checks()] == [0, 0]
    nothing_created(fake_kernel)


def test_create_not_authorized_as_nobody(service, hugepagesctl, run_as, NOBODY, polkit,
                                         fake_kernel):
    proc = run_as(NOBODY, [hugepagesctl, 'mount-create', 'user', 'nobody'],
                  stdin=subprocess.DEVNULL)
    assert proc.returncode == 1
    assert refusal(proc.stderr) == REFUSED
    nothing_created(fake_kernel)


@pytest.mark.parametrize('args,message', [
    (['user', 'hpd-no-such-user'], 'No such user: hpd-no-such-user'),
    (['user', str(UNKNOWN_ID)], f'No such user: {UNKNOWN_ID}'),
    (['group', 'hpd-no-such-group'], 'No such group: hpd-no-such-group'),
    (['user', 'bad/name'], 'The owner must be a user name'),
    # both sizes: 4M is not a whole number of 1GB pages
    (['system', '--size', '4M'],
     'max-size of 4194304 bytes is not a whole, non-zero number of 1GB pages'),
    (['system', '--size', '3M', '--page-size', '2M'],
     'max-size of 3145728 bytes is not a whole, non-zero number of 2MB pages'),
    # empty pools: any percentage is zero pages
    (['system', '--size', '50%'], 'max-size of 50% of a 0-page 2MB pool rounds to zero pages'),
    (['global', '--min-size', '100%', '--page-size', '1G'],
     'min-size of 100% of a 0-page 1GB pool rounds to zero pages'),
    (['system', '--size', '2M', '--min-size', '4M', '--page-size', '2M'],
     'min-size is larger than max-size'),
    (['system', '--inodes', '2147483649'], 'max-inodes must be at most 2147483648'),
])
def test_create_refused_by_the_service(service, ctl, polkit, fake_kernel, args, message):
    proc = ctl('mount-create', *args)
    # a value the service finds wrong: a usage error
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ''
    assert proc.stderr.startswith(f'hugepagesctl: {message}')
    assert len(proc.stderr.splitlines()) == 1
    # checked before authorization
    assert polkit.checks() == []
    nothing_created(fake_kernel)


def test_page_size_not_on_this_machine(service, ctl, polkit):
    usage_error(ctl('mount-create', 'system', '--page-size', '16M'),
                "'16M' is not a huge page size of this machine (available: 2MB, 1GB)")
    assert polkit.checks() == []


@pytest.mark.valgrind
def test_existing_mounts_are_printed_without_authorization(service, ctl, polkit, fake_kernel):
    b = base(fake_kernel)
    write_mountinfo(fake_kernel, [(f'{b}/pagesize-2MB', 'mode=770,pagesize=2M'),
                                  (f'{b}/pagesize-1GB', 'mode=770,pagesize=1024M')])
    assert ok(ctl('mount-create', 'system')) == f'{b}/pagesize-2MB\n{b}/pagesize-1GB\n'
    assert ok(ctl('mount-create', 'system', '--page-size', '1G')) == f'{b}/pagesize-1GB\n'
    assert ok(ctl('mount-create', 'system', '--mode', '0770', '--page-size', 'DEFAULT')) == \
        f'{b}/pagesize-2MB\n'
    assert polkit.checks() == []


@pytest.mark.valgrind
def test_existing_mount_with_other_options(service, ctl, polkit, fake_kernel):
    b = base(fake_kernel)
    write_mountinfo(fake_kernel, [(f'{b}/pagesize-2MB', 'mode=770,pagesize=2M')])
    proc = ctl('mount-create', 'system', '--size', '4M', '--page-size', '2M')
    assert proc.returncode == 1
    assert proc.stderr.startswith(f'hugepagesctl: {b}/pagesize-2MB is already mounted with other '
                                  'options (size 4194304 asked, none mounted). ')
    assert polkit.checks() == []


def test_unmount_not_authorized(service, ctl, polkit, fake_kernel):
    path = f'{base(fake_kernel)}/pagesize-2MB'
    write_mountinfo(fake_kernel, [(path, 'mode=770,pagesize=2M')])
    proc = ctl('unmount', path)
    assert proc.returncode == 1
    assert proc.stdout == ''
    assert refusal(proc.stderr) == REFUSED
    [check] = polkit.checks()
    assert check.action == ACTION_MOUNTS
    assert check.flags == ALLOW_USER_INTERACTION
    assert check.details['path'] == path


@pytest.mark.parametrize('path,message', [
    ('/mnt/not-a-mount', '/mnt/not-a-mount is not a hugetlbfs mount'),
    ('/tmp', '/tmp is not a hugetlbfs mount'),
    ('/mnt/../huge', 'The path must be absolute and normalized'),
])
@pytest.mark.valgrind(first=2)
def test_unmount_refused_by_the_service(service, ctl, polkit, fake_kernel, path, message):
    write_mountinfo(fake_kernel, [('/mnt/huge', 'pagesize=2M')])
    proc = ctl('unmount', path)
    # a path that is not normalized is a usage error; one that is no mount not
    assert proc.returncode == (2 if 'normalized' in message else 1)
    assert proc.stderr.startswith(f'hugepagesctl: {message}')
    assert len(proc.stderr.splitlines()) == 1
    assert polkit.checks() == []
