# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Messages that lead somewhere (issue 18, point 7) against hugepagesd on the
fake kernel tree: a refused change names the ways that need no polkit agent,
the nearest command for a mistyped one, a trailing slash where a PATH is
meant, and every refused change in the service's log with who asked for
what (no empty values)."""

import os
import pwd
import re
import subprocess

import pytest

from test_client import POOLS, ctl, hugepagesctl, ok, refusal, usage_error  # noqa: F401
from test_client_mounts import write_mountinfo
from hpdtest import ACTION_POOLS


@pytest.mark.parametrize('typed,meant', [
    ('pols', 'pools'), ('stauts', 'status'), ('set-mni', 'set-min'), ('mount', 'mounts'),
    ('claim-s', 'claims'), ('unmonut', 'unmount'),
])
def test_unknown_command_names_the_nearest(ctl, make_bus, typed, meant):
    proc = ctl(typed)
    assert proc.returncode == 2
    assert proc.stderr == (f"hugepagesctl: unknown command '{typed}'; did you mean '{meant}'? "
                           "See 'hugepagesctl --help'\n")


@pytest.mark.parametrize('typed', ['frobnicate', 'x', 'set'])
def test_unknown_command_far_from_all_names_none(ctl, make_bus, typed):
    proc = ctl(typed)
    assert proc.returncode == 2
    assert proc.stderr == f"hugepagesctl: unknown command '{typed}'; see 'hugepagesctl --help'\n"


@pytest.mark.fake_kernel(pools=POOLS)
def test_trailing_slash_names_the_same_path(service, ctl, polkit, fake_kernel):
    write_mountinfo(fake_kernel, [('/mnt/huge', 'pagesize=2M')])
    # the mount is found (and the change refused by the polkit mock), not
    # called a path that is not normalized
    for path in ('/mnt/huge/', '/mnt/huge//'):
        proc = ctl('--no-ask-password', 'unmount', path)
        assert proc.returncode == 1
        assert refusal(proc.stderr) == 'hugepagesctl: Not authorized to manage hugetlbfs mounts\n'
    # RemoveOrphan is authorized before the path is looked at (dry run too)
    polkit.allow('org.hugepages.manager.manage-mounts')
    proc = ctl('remove-orphan', '--dry-run', '/mnt/huge/file/')
    assert 'normalized' not in proc.stderr
    assert proc.stderr.startswith('hugepagesctl: /mnt/huge/file ')


@pytest.mark.fake_kernel(pools=POOLS)
def test_refusals_are_logged(service, ctl, polkit):
    for args in (['--no-ask-password', 'set-min', '2M', '1'], ['set-min', '2M', '1'],
                 ['shm-max', '64G']):
        proc = ctl(*args)
        assert proc.returncode == 1
    log = service.log()
    refused = re.findall(r'uid (\d+) \(pid (\d+)\) was refused (\w+) \(([\w.-]+)\): (.+)', log)
    assert [(method, action) for _, _, method, action, _ in refused] == [
        ('SetMinimum', ACTION_POOLS), ('SetMinimum', ACTION_POOLS),
        ('SetShmMax', 'org.hugepages.manager.configure-tunables')]
    assert refused[0][4].startswith('Not authorized to configure huge page pools')
    assert refused[2][4] == 'Not authorized to change memory tunables'
    assert all(int(pid) > 0 for _, pid, _, _, _ in refused)


@pytest.mark.fake_kernel(pools=POOLS)
def test_log_lines_have_no_empty_values(service, ctl, polkit):
    polkit.allow(ACTION_POOLS)
    for args in (['set-min', '2M', '7'], ['claim', 'db', '2M', '1'], ['release', 'db', '2M'],
                 ['--no-ask-password', 'shm-max', '64G']):
        ctl(*args)
    # saved with the kernel's larger value kept: nothing written
    polkit.allow(ACTION_POOLS, 'org.hugepages.manager.configure-tunables')
    assert 'kept: it is above the recommended' in ok(ctl('shm-max', 'recommended', '--persist'))
    log = service.log()
    assert 'was refused SetShmMax' in log
    # the service's own lines (under valgrind the log has memcheck's too);
    # ":  " is an empty value between two fields
    for line in (line for line in log.splitlines() if not re.match(r'==\d+==', line)):
        assert not re.search(r"=(\s|,|$)|''|\(\)|: $|:  ", line), line
    assert 'saved kernel.shmmax for boot' in log


def ways_forward(stderr, action, user):
    """The lines after the refusal, checked for what they must name."""
    lines = stderr.splitlines()
    assert lines[1].startswith('hugepagesctl: polkit asks for a password only through an agent')
    assert 'cron' in lines[1] and 'ssh' in lines[1]
    assert lines[2] == ('hugepagesctl:   root: sudo hugepagesctl ..., or -H root@HOST to run '
                        'it as root over ssh')
    assert lines[3] == (f'hugepagesctl:   a polkit rule that allows {action}, e.g. in '
                        '/etc/polkit-1/rules.d/50-hugepages.rules:')
    assert lines[4:] == [
        '    polkit.addRule(function(action, subject) {',
        f'        if (action.id == "{action}" && subject.user == "{user}")',
        '            return polkit.Result.YES;',
        '    });']


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('args,action', [
    (['set-min', '2M', '1'], ACTION_POOLS),
    (['--no-ask-password', 'set-min', '2M', '1'], ACTION_POOLS),
    (['shm-max', '64G'], 'org.hugepages.manager.configure-tunables'),
    (['mount-create', 'global', '--no-ask-password'], 'org.hugepages.manager.manage-mounts'),
    (['claim', 'db', '2M', '1'], ACTION_POOLS),
    (['--pool-pages-min', '2M:1'], ACTION_POOLS),
])
def test_refusal_names_the_ways_without_an_agent(service, ctl, polkit, args, action):
    # stdin is no terminal: no pkttyagent, as from cron
    proc = ctl(*args)
    assert proc.returncode == 1
    ways_forward(proc.stderr, action, pwd.getpwuid(os.getuid()).pw_name)


@pytest.mark.fake_kernel(pools=POOLS)
def test_refusal_names_the_ways_as_another_user(service, hugepagesctl, run_as, NOBODY, polkit):
    proc = run_as(NOBODY, [hugepagesctl, 'set-min', '2M', '4'], stdin=subprocess.DEVNULL)
    assert proc.returncode == 1
    ways_forward(proc.stderr, ACTION_POOLS, pwd.getpwuid(NOBODY).pw_name)


@pytest.mark.fake_kernel(pools=POOLS)
def test_other_failures_name_no_ways(service, ctl, polkit):
    polkit.allow(ACTION_POOLS)
    polkit.allow('org.hugepages.manager.configure-tunables')
    for args in (['set-node', '9', '2M', '1'], ['shm-group', 'no-such-group-xyz']):
        proc = ctl(*args)
        assert proc.returncode != 0
        assert len(proc.stderr.splitlines()) == 1, proc.stderr
