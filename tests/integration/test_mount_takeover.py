# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Mounts hugeadm made, as the service sees and takes them over, on the fake
kernel tree: the owner and mode of each mount's root as they are (hugeadm
sets them with chown and chmod after mounting, so the mount options do not
show them), CreateMount(s) answering for such a mount without a change,
and the dry runs of CreateMount(s) and Unmount.

Nothing here mounts or unmounts: the polkit mock denies every change (its
default), and the mount table is the fake <root>/proc/self/mountinfo. The
mount points are plain directories of the fake tree, which the service
reads as a mount's root only under a fake root (on the real kernel the
directory must be the root of that very mount). What an allowed request
does on a real kernel, with the real hugeadm, is
tests/system/test_sys_hugeadm_mounts.py.
"""

import json
import os

import pytest

from fakekernel import Mount
from gi.repository import GLib
from hpdtest import ERR_FAILED, ERR_NOT_MOUNTED, BusError
from hpdtunables import explain
from test_client import ctl, hugepagesctl, ok  # noqa: F401
from test_mounts import (GIANT, MB, POOLS, SMALL, base, create, create_mounts, manager_mounts,
                         t, unmount)

NOBODY = 65534
USERS = 100


def hugeadm_tree(fk, relative, uid, gid, mode):
    """The mount point hugeadm leaves: its root chowned and chmodded after
    mounting, so the mount options say root:root 0755."""
    path = os.path.join(fk.root, 'var/lib/hugetlbfs', relative)
    os.makedirs(path)
    os.chown(path, uid, gid)
    os.chmod(path, mode)
    return path


def attributes(conn, path):
    [found] = [a for p, a in manager_mounts(conn) if p == path]
    return found


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('relative,uid,gid,mode', [
    ('user/nobody/pagesize-2MB', NOBODY, 0, 0o700),    # --create-user-mounts nobody
    ('group/users/pagesize-2MB', 0, USERS, 0o070),     # --create-group-mounts users
    ('global/pagesize-2MB', 0, 0, 0o1777),             # --create-global-mounts
    ('pagesize-2MB', 0, 0, 0o770),                     # --create-mounts
])
def test_facts_come_from_the_mount_root(service, conn, fake_kernel, relative, uid, gid, mode):
    path = hugeadm_tree(fake_kernel, relative, uid, gid, mode)
    fake_kernel.write_mountinfo([Mount(path)])
    a = attributes(conn, path)
    assert (a['uid'], a['gid'], a['mode']) == (uid, gid, mode)
    assert (a['options-uid'], a['options-gid'], a['options-mode']) == (0, 0, 0o755)
    assert a['root-known'] is True


@pytest.mark.fake_kernel(pools=POOLS)
def test_facts_never_through_a_link(service, conn, fake_kernel):
    target = hugeadm_tree(fake_kernel, 'elsewhere', NOBODY, 0, 0o700)
    link = os.path.join(base(fake_kernel), 'pagesize-2MB')
    os.symlink(target, link)
    fake_kernel.write_mountinfo([Mount(link, mode=0o770)])
    a = attributes(conn, link)
    # the options' values, and said to be those
    assert (a['uid'], a['gid'], a['mode'], a['root-known']) == (0, 0, 0o770, False)


@pytest.mark.fake_kernel(pools=POOLS)
def test_client_shows_facts_and_options(service, ctl, fake_kernel):
    path = hugeadm_tree(fake_kernel, 'global/pagesize-2MB', 0, 0, 0o1777)
    fake_kernel.write_mountinfo([Mount(path)])
    [header, row] = [line.split() for line in ok(ctl('mounts')).splitlines()]
    assert header[3] == 'Mode' and header[-1] == 'Options'
    assert row[0] == path and row[3] == '1777' and row[-1] == 'mode=0755'

    [mount] = json.loads(ok(ctl('mounts', '--json')))['mounts']
    assert (mount['uid'], mount['gid'], mount['mode']) == (0, 0, 0o1777)
    assert mount['options'] == {'uid': 0, 'gid': 0, 'mode': 0o755}


# (scope, owner, what hugeadm made: (relative, uid, gid, mode) per size)
HUGEADM = [
    ('user', 'nobody', [('user/nobody/pagesize-2MB', NOBODY, 0, 0o700),
                        ('user/nobody/pagesize-1GB', NOBODY, 0, 0o700)]),
    ('group', 'users', [('group/users/pagesize-2MB', 0, USERS, 0o070),
                        ('group/users/pagesize-1GB', 0, USERS, 0o070)]),
    ('global', '', [('global/pagesize-2MB', 0, 0, 0o1777), ('global/pagesize-1GB', 0, 0, 0o1777)]),
    ('system', '', [('pagesize-2MB', 0, 0, 0o770), ('pagesize-1GB', 0, 0, 0o770)]),
]


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('scope,owner,made', HUGEADM, ids=[h[0] for h in HUGEADM])
def test_hugeadm_mounts_are_taken_over_as_they_are(service, conn, fake_kernel, polkit,
                                                   scope, owner, made):
    """Same page size and limits, and the root's owner and mode are what
    the scope asks: the mounts are reported as existing, with no change
    (so no authorization) and no remount."""
    paths = [hugeadm_tree(fake_kernel, rel, uid, gid, mode) for rel, uid, gid, mode in made]
    fake_kernel.write_mountinfo([Mount(paths[0]), Mount(paths[1], page_size_kb=GIANT)])
    assert create_mounts(conn, scope, owner) == paths
    assert create(conn, SMALL, scope, owner) == paths[:1]
    assert polkit.checks() == []


@pytest.mark.fake_kernel(pools=POOLS)
def test_hugeadm_mount_with_other_limits_is_named(service, conn, fake_kernel, polkit):
    path = hugeadm_tree(fake_kernel, 'global/pagesize-2MB', 0, 0, 0o1777)
    fake_kernel.write_mountinfo([Mount(path, size=4 * MB)])
    with pytest.raises(BusError) as e:
        create(conn, SMALL, 'global', '', {'max-size': t(8 * MB)})
    assert e.value.name == ERR_FAILED
    assert e.value.message.startswith(f'{path} is already mounted with other options '
                                      '(size 8388608 asked, 4194304 mounted). ')
    assert polkit.checks() == []


# --- dry runs ---------------------------------------------------------------------

@pytest.mark.fake_kernel(pools=POOLS)
def test_create_dry_run_checks_and_changes_nothing(service, conn, fake_kernel, polkit):
    b = base(fake_kernel)
    before = fake_kernel.snapshot()
    dry = {'dry-run': GLib.Variant('b', True)}
    assert create_mounts(conn, 'global', '', dry) == [f'{b}/global/pagesize-2MB',
                                                       f'{b}/global/pagesize-1GB']
    assert create(conn, SMALL, 'system', '', dict(dry, **{'max-size': t(4 * MB)})) == \
        [f'{b}/pagesize-2MB']
    assert polkit.checks() == []
    assert fake_kernel.snapshot() == before
    assert not os.path.lexists(os.path.join(fake_kernel.root, 'var'))
    # still checked as a real call would be
    fake_kernel.write_mountinfo([Mount(f'{b}/pagesize-2MB', mode=0o770, nr_inodes=3)])
    with pytest.raises(BusError) as e:
        create(conn, SMALL, 'system', '', dry)
    assert e.value.name == ERR_FAILED and 'nr_inodes none asked, 3 mounted' in e.value.message


@pytest.mark.fake_kernel(pools=POOLS)
def test_unmount_dry_run_checks_and_changes_nothing(service, conn, fake_kernel, polkit, ctl):
    path = f'{base(fake_kernel)}/pagesize-2MB'
    fake_kernel.write_mountinfo([Mount(path, mode=0o770)])
    before = fake_kernel.snapshot()
    unmount(conn, path, {'dry-run': GLib.Variant('b', True)})
    assert ok(ctl('unmount', '--dry-run', path)) == f'would unmount {path}\n'
    assert polkit.checks() == []
    assert fake_kernel.snapshot() == before
    with pytest.raises(BusError) as e:
        unmount(conn, '/mnt/nothing', {'dry-run': GLib.Variant('b', True)})
    assert e.value.name == ERR_NOT_MOUNTED


@pytest.mark.fake_kernel(pools=POOLS)
def test_client_create_dry_run(service, ctl, fake_kernel, polkit):
    b = base(fake_kernel)
    assert ok(ctl('mount-create', 'user', 'nobody', '--dry-run', '--page-size', '2M')) == \
        f'{b}/user/nobody/pagesize-2MB\n'
    assert polkit.checks() == []
    assert not os.path.lexists(os.path.join(fake_kernel.root, 'var'))


# --- Explain ------------------------------------------------------------------------

@pytest.mark.fake_kernel(pools=POOLS)
def test_explain_names_each_hugeadm_mount_and_its_fix(service, conn, fake_kernel):
    user_mount = hugeadm_tree(fake_kernel, 'user/nobody/pagesize-2MB', NOBODY, 0, 0o700)
    user_dir = os.path.dirname(user_mount)
    os.chown(user_dir, NOBODY, 0)
    os.chmod(user_dir, 0o700)
    global_mount = hugeadm_tree(fake_kernel, 'global/pagesize-1GB', 0, 0, 0o1777)
    made_by_us = hugeadm_tree(fake_kernel, 'pagesize-2MB', 0, 0, 0o770)
    fake_kernel.write_mountinfo([Mount(user_mount, size=4 * MB),
                                 Mount(global_mount, page_size_kb=GIANT),
                                 Mount(made_by_us, mode=0o770)])
    found = {message.split()[0]: (severity, fix)
             for severity, id_, message, fix in explain(conn) if id_ == 'hugeadm-mount'}
    assert found == {
        user_mount: ('warning', 'hugepagesctl mount-create user nobody --page-size 2MB '
                                '--size 4194304 --secure-directories --persist'),
        global_mount: ('info', 'hugepagesctl mount-create global --page-size 1GB --persist'),
    }

    # taken over and saved (what the fix does): nothing more to say of it;
    # the configuration's other page size does not count
    fake_kernel.write('etc/hugepagesd/hugepagesd.conf', '[mount global]\npage-size = 2MB\n')
    assert [fix for _, id_, message, fix in explain(conn)
            if id_ == 'hugeadm-mount' and message.startswith(global_mount + ' ')] == \
        ['hugepagesctl mount-create global --page-size 1GB --persist']
    fake_kernel.write('etc/hugepagesd/hugepagesd.conf', '[mount global]\npage-size = 1GB\n'
                      '[mount user nobody]\nmax-size = 4M\n')
    found = {message.split()[0]: (severity, fix)
             for severity, id_, message, fix in explain(conn) if id_ == 'hugeadm-mount'}
    # the directories are still the user's: that warning stays
    assert found == {user_mount: ('warning', 'hugepagesctl mount-create user nobody '
                                             '--page-size 2MB --size 4194304 --secure-directories')}
