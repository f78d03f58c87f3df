# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""The hugetlbfs mount API on the bus: the Mounts properties, read from the
fake tree's <root>/proc/self/mountinfo, and CreateMounts, CreateMount and
Unmount up to the point where they would mount or unmount.

Nothing here mounts or unmounts for real:
- the polkit mock denies (its default), so a request that gets through
  validation ends in NotAuthorized: that proves it was valid, and that
  nothing was made before authorization;
- the fake tree has no var/ (the service makes only the last directory of
  var/lib/hugetlbfs), so even a request authorized by mistake could not reach
  a mount point; every test checks that var/ is still missing;
- every path in the fake mount tables is below the fake root or made up, so
  an Unmount authorized by mistake finds no hugetlbfs there.
What an allowed request does on a real kernel is the system tier's job.
"""

import grp
import os
import pwd
import re

import pytest

import hpdtest
from hpdtest import (ACTION_MOUNTS, ACTION_POOLS, ALL_ACTIONS, DBUS_INVALID_ARGS, ERR_FAILED,
                     ERR_INVALID_ARGS, ERR_NO_SUCH_GROUP, ERR_NO_SUCH_USER, ERR_NOT_AUTHORIZED,
                     ERR_NOT_MOUNTED, ERR_NOT_SUPPORTED, MANAGER_IFACE, MANAGER_PATH,
                     PAGE_SIZE_IFACE, PROPS_IFACE, UINT64_MAX, BusError, iterate_until,
                     page_size_path)
from fakekernel import Mount, Pool
from gi.repository import Gio, GLib

SMALL = 2048      # kB, the default size
GIANT = 1048576   # kB
MB = 1 << 20
GB = 1 << 30
FLAGS = 'rw,nosuid,nodev,relatime'
REFUSED = 'Not authorized to manage hugetlbfs mounts'
UNKNOWN_ID = 3999999  # neither a user nor a group on the test machine

# A persistent 2MB pool of 10 pages, so percentages of it are whole pages;
# an empty 1GB pool, where every percentage rounds to zero pages.
POOLS = {SMALL: Pool(total=10, free=10), GIANT: Pool()}

# The Manager.Mounts attribute types (interface XML).
ATTRIBUTE_TYPES = {'page-size': 't', 'uid': 'u', 'gid': 'u', 'mode': 'u', 'flags': 's',
                   'options-uid': 'u', 'options-gid': 'u', 'options-mode': 'u', 'root-known': 'b',
                   'managed': 'b', 'max-size': 't', 'min-size': 't', 'max-inodes': 't'}


# --- helpers ------------------------------------------------------------------

def base(fk):
    return os.path.join(fk.root, 'var/lib/hugetlbfs')


def t(value):
    return GLib.Variant('t', value)


def s(value):
    return GLib.Variant('s', value)


def u(value):
    return GLib.Variant('u', value)


def dup_options(*pairs):
    """An a{sv} that repeats keys (a Python dict cannot)."""
    entries = [GLib.Variant.new_dict_entry(GLib.Variant('s', k), GLib.Variant.new_variant(v))
               for k, v in pairs]
    return GLib.Variant.new_array(GLib.VariantType('{sv}'), entries)


def options_variant(opts):
    return opts if isinstance(opts, GLib.Variant) else GLib.Variant('a{sv}', opts or {})


def create_mounts(conn, scope, owner='', opts=None, interactive=False):
    """Manager.CreateMounts -> list of paths."""
    params = GLib.Variant.new_tuple(GLib.Variant('s', scope), GLib.Variant('s', owner),
                                    options_variant(opts))
    return hpdtest.call(conn, MANAGER_PATH, MANAGER_IFACE, 'CreateMounts', params, '(as)',
                        interactive=interactive)[0]


def create_mount(conn, size_kb, scope, owner='', opts=None, interactive=False):
    """PageSize.CreateMount -> path."""
    params = GLib.Variant.new_tuple(GLib.Variant('s', scope), GLib.Variant('s', owner),
                                    options_variant(opts))
    return hpdtest.call(conn, page_size_path(size_kb), PAGE_SIZE_IFACE, 'CreateMount', params,
                        '(s)', interactive=interactive)[0]


def unmount(conn, path, opts=None, interactive=False):
    params = GLib.Variant.new_tuple(GLib.Variant('s', path), options_variant(opts))
    return hpdtest.call(conn, MANAGER_PATH, MANAGER_IFACE, 'Unmount', params, '(as)',
                        interactive=interactive)[0]


def create(conn, target, scope, owner='', opts=None, interactive=False):
    """target 'all' is Manager.CreateMounts, a size in kB that size's
    PageSize.CreateMount; returns a list of paths either way."""
    if target == 'all':
        return create_mounts(conn, scope, owner, opts, interactive)
    return [create_mount(conn, target, scope, owner, opts, interactive)]


def nothing_below_var(fk):
    assert not os.path.lexists(os.path.join(fk.root, 'var')), \
        f'{fk.root}/var exists: something was created'


@pytest.fixture(autouse=True)
def no_var(fake_kernel):
    """The safety net of this file: var/ never exists in the fake tree, so
    var/lib/hugetlbfs cannot be made and nothing can be mounted there."""
    nothing_below_var(fake_kernel)
    yield
    nothing_below_var(fake_kernel)


def refused(fk, polkit, name, fn, message=None):
    """fn() fails with the bus error name (and a message matching the
    regular expression message), writes nothing and never asks polkit."""
    before = fk.snapshot()
    with pytest.raises(BusError) as e:
        fn()
    assert e.value.name == name, e.value
    if message is not None:
        assert re.search(message, e.value.message), e.value.message
    assert fk.snapshot() == before
    assert polkit.checks() == [], 'polkit was asked about an invalid request'
    nothing_below_var(fk)
    return e.value


def not_authorized(fk, polkit, fn):
    """fn() gets past validation and is refused by polkit, after one check;
    returns that check."""
    before = fk.snapshot()
    with pytest.raises(BusError) as e:
        fn()
    assert e.value.name == ERR_NOT_AUTHORIZED, e.value
    assert e.value.message.startswith(REFUSED), e.value.message
    assert fk.snapshot() == before
    nothing_below_var(fk)
    checks = polkit.checks()
    assert len(checks) == 1, checks
    assert checks[0].action == ACTION_MOUNTS
    return checks[0]


def raw_get(conn, path, iface, name):
    """The property's GLib.Variant, types kept."""
    reply = conn.call_sync(hpdtest.BUS_NAME, path, PROPS_IFACE, 'Get',
                           GLib.Variant('(ss)', (iface, name)), GLib.VariantType('(v)'),
                           Gio.DBusCallFlags.NONE, 10000, None)
    return reply.get_child_value(0).get_variant()


def manager_mounts(conn):
    return hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'Mounts')


def size_mounts(conn, size_kb):
    return hpdtest.get(conn, page_size_path(size_kb), PAGE_SIZE_IFACE, 'Mounts')


def attrs(page_size, uid=0, gid=0, mode=0o755, flags=FLAGS, managed=False, options=None,
          root_known=False, **limits):
    """Expected attributes; limits (as mount options): size, min_size, nr_inodes. uid, gid and
    mode are the mount root's; options (uid, gid, mode) the mount options',
    the same unless given."""
    o_uid, o_gid, o_mode = options or (uid, gid, mode)
    result = {'page-size': page_size, 'uid': uid, 'gid': gid, 'mode': mode, 'flags': flags,
              'managed': managed, 'options-uid': o_uid, 'options-gid': o_gid,
              'options-mode': o_mode, 'root-known': root_known}
    names = {'size': 'max-size', 'min_size': 'min-size', 'nr_inodes': 'max-inodes'}
    result.update({names[k]: v for k, v in limits.items()})
    return result


# --- the Mounts properties ------------------------------------------------------

def test_no_mountinfo_no_mounts(service, conn, fake_kernel):
    assert not fake_kernel.exists('proc/self/mountinfo')
    assert manager_mounts(conn) == []
    assert size_mounts(conn, SMALL) == [] and size_mounts(conn, GIANT) == []
    # a mount table without hugetlbfs
    fake_kernel.write_mountinfo([])
    assert 'tmpfs' in fake_kernel.read('proc/self/mountinfo')
    assert manager_mounts(conn) == []
    assert size_mounts(conn, SMALL) == [] and size_mounts(conn, GIANT) == []


def kernel_lines(fk):
    """Hand-written lines in the kernel's format, hugetlbfs and other."""
    b = base(fk)
    return [
        '22 27 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw',
        '27 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,errors=remount-ro',
        # every option the kernel prints, in its order
        f'53 27 0:48 / {b}/pagesize-2MB rw,nosuid,nodev,relatime - hugetlbfs none '
        'rw,uid=1000,gid=100,mode=1770,nr_inodes=5,pagesize=2M,size=4194304,min_size=2097152',
        # 1 GB pages show as 1024M; uid, gid and mode 0755 are left out
        f'54 27 0:49 / {b}/global/pagesize-1GB rw,nosuid,nodev,relatime shared:30 - hugetlbfs '
        'none rw,pagesize=1024M',
        # not hugetlbfs, though it looks like it
        f'55 27 0:50 / {b}/pagesize-16MB rw,relatime - tmpfs hugetlbfs rw,pagesize=16M,mode=700',
        # escapes: space, tab, newline, backslash
        '56 27 0:51 / /mnt/a\\040b\\011c\\012d\\134e rw,relatime - hugetlbfs hugetlbfs '
        'rw,mode=700,pagesize=2M,nr_inodes=0',
        # no pagesize=: the default size; a page size this machine lacks
        '57 27 0:52 / /dev/hugepages rw,relatime master:3 shared:5 - hugetlbfs hugetlbfs rw',
        '58 27 0:53 / /mnt/huge64k rw,relatime - hugetlbfs none rw,pagesize=64K',
        '99 27 0:99 / /tmp rw,nosuid,nodev shared:40 - tmpfs tmpfs rw,size=1048576k',
    ]


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind
def test_mounts_property_from_kernel_lines(service, conn, fake_kernel):
    fake_kernel.write_mountinfo(kernel_lines(fake_kernel))
    b = base(fake_kernel)
    expected = [
        (f'{b}/pagesize-2MB', attrs(2 * MB, uid=1000, gid=100, mode=0o1770, managed=True,
                                     size=4 * MB, min_size=2 * MB, nr_inodes=5)),
        (f'{b}/global/pagesize-1GB', attrs(GB, managed=True)),
        ('/mnt/a b\tc\nd\\e', attrs(2 * MB, mode=0o700, flags='rw,relatime', nr_inodes=0)),
        ('/dev/hugepages', attrs(2 * MB, flags='rw,relatime')),
        ('/mnt/huge64k', attrs(64 << 10, flags='rw,relatime')),
    ]
    assert [tuple(m) for m in manager_mounts(conn)] == expected

    # the types of the interface XML, and no other attributes
    value = raw_get(conn, MANAGER_PATH, MANAGER_IFACE, 'Mounts')
    assert value.get_type_string() == 'a(sa{sv})'
    for i in range(value.n_children()):
        entry = value.get_child_value(i).get_child_value(1)
        for j in range(entry.n_children()):
            key = entry.get_child_value(j).get_child_value(0).get_string()
            inner = entry.get_child_value(j).get_child_value(1).get_variant()
            assert inner.get_type_string() == ATTRIBUTE_TYPES[key], key

    # per size, in mountinfo order; 64K is no size of this machine
    assert size_mounts(conn, SMALL) == [f'{b}/pagesize-2MB', '/mnt/a b\tc\nd\\e', '/dev/hugepages']
    assert size_mounts(conn, GIANT) == [f'{b}/global/pagesize-1GB']
    assert raw_get(conn, page_size_path(SMALL), PAGE_SIZE_IFACE, 'Mounts').get_type_string() == 'as'


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind
def test_lines_that_cannot_be_read_are_left_out(service, conn, fake_kernel):
    good = Mount('/mnt/good')
    fake_kernel.write_mountinfo([
        '60 27 0:60 / /mnt/bad\\9escape rw - hugetlbfs none rw,pagesize=2M',
        '61 27 0:61 / /mnt/nul\\000byte rw - hugetlbfs none rw,pagesize=2M',
        '62 27 0:62 / /mnt/latin1\\377 rw - hugetlbfs none rw,pagesize=2M',  # not UTF-8
        '63 27 0:63 / /mnt/truncated rw - hugetlbfs',
        '64 27 0:64 / relative rw - hugetlbfs none rw,pagesize=2M',
        'garbage',
        '',
        good,
        '65 27 0:65 / /mnt/trailing\\ rw - hugetlbfs none rw,pagesize=2M',
    ])
    assert [m[0] for m in manager_mounts(conn)] == ['/mnt/good']
    assert size_mounts(conn, SMALL) == ['/mnt/good']
    # UTF-8 paths are kept as they are
    fake_kernel.write_mountinfo([Mount('/mnt/grüße'), Mount('/mnt/日本')])
    assert [m[0] for m in manager_mounts(conn)] == ['/mnt/grüße', '/mnt/日本']


@pytest.mark.fake_kernel(pools=POOLS)
def test_managed_is_only_the_service_mount_points(service, conn, fake_kernel):
    b = base(fake_kernel)
    cases = [
        (f'{b}/pagesize-2MB', True),
        (f'{b}/pagesize-1GB', True),
        (f'{b}/global/pagesize-2MB', True),
        (f'{b}/user/nobody/pagesize-2MB', True),
        (f'{b}/group/users/pagesize-2MB', True),
        # not a mount point the service makes
        (b, False),
        (f'{b}/global', False),
        (f'{b}/user/nobody', False),
        (f'{b}/group/users', False),
        (f'{b}/custom', False),
        (f'{b}/pagesize-2MB/inner', False),
        (f'{b}/user/nobody/pagesize-2MB/inner', False),
        (f'{b}/user/pagesize-2MB', False),
        (f'{b}/global/x/pagesize-2MB', False),
        (f'{b}-other/pagesize-2MB', False),
        (f'{fake_kernel.root}/var/lib/pagesize-2MB', False),
        ('/var/lib/hugetlbfs/pagesize-2MB', False),  # outside the kernel root
        ('/dev/hugepages', False),
    ]
    fake_kernel.write_mountinfo([Mount(path) for path, _ in cases])
    got = [(path, a['managed']) for path, a in manager_mounts(conn)]
    assert got == cases


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('how', ['Get', 'GetAll', 'GetManagedObjects'])
def test_mounts_are_fresh(service, conn, fake_kernel, how):
    b = base(fake_kernel)
    steps = [
        [Mount('var/lib/hugetlbfs/pagesize-2MB', mode=0o770)],
        [Mount('var/lib/hugetlbfs/pagesize-2MB', mode=0o750, size=8 * MB),
         Mount('var/lib/hugetlbfs/pagesize-1GB', page_size_kb=GIANT, uid=65534, min_size=GB)],
        [Mount('var/lib/hugetlbfs/pagesize-1GB', page_size_kb=GIANT, nr_inodes=3)],
        [],
    ]
    expected = [
        ([(f'{b}/pagesize-2MB', attrs(2 * MB, mode=0o770, managed=True))],
         [f'{b}/pagesize-2MB'], []),
        ([(f'{b}/pagesize-2MB', attrs(2 * MB, mode=0o750, managed=True, size=8 * MB)),
          (f'{b}/pagesize-1GB', attrs(GB, uid=65534, managed=True, min_size=GB))],
         [f'{b}/pagesize-2MB'], [f'{b}/pagesize-1GB']),
        ([(f'{b}/pagesize-1GB', attrs(GB, managed=True, nr_inodes=3))], [], [f'{b}/pagesize-1GB']),
        ([], [], []),
    ]
    for mounts, (manager, small, giant) in zip(steps, expected):
        fake_kernel.write_mountinfo(mounts)
        if how == 'Get':
            got = (manager_mounts(conn), size_mounts(conn, SMALL), size_mounts(conn, GIANT))
        elif how == 'GetAll':
            got = (hpdtest.manager_props(conn)['Mounts'],
                   hpdtest.page_size_props(conn, SMALL)['Mounts'],
                   hpdtest.page_size_props(conn, GIANT)['Mounts'])
        else:
            objects = hpdtest.managed_objects(conn)
            got = (manager_mounts(conn),
                   objects[page_size_path(SMALL)][PAGE_SIZE_IFACE]['Mounts'],
                   objects[page_size_path(GIANT)][PAGE_SIZE_IFACE]['Mounts'])
        assert ([tuple(m) for m in got[0]], got[1], got[2]) == (manager, small, giant)


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind
def test_managed_objects_carry_the_mounts(service, conn, fake_kernel):
    b = base(fake_kernel)
    fake_kernel.write_mountinfo([Mount('var/lib/hugetlbfs/pagesize-2MB'),
                                 Mount('var/lib/hugetlbfs/pagesize-1GB', page_size_kb=GIANT),
                                 Mount('/mnt/other')])
    objects = hpdtest.managed_objects(conn)
    assert objects[page_size_path(SMALL)][PAGE_SIZE_IFACE]['Mounts'] == \
        [f'{b}/pagesize-2MB', '/mnt/other']
    assert objects[page_size_path(GIANT)][PAGE_SIZE_IFACE]['Mounts'] == [f'{b}/pagesize-1GB']


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind
def test_a_change_seen_on_reading_is_announced(service, bus, conn, fake_kernel):
    # Outside changes are announced when the kernel reports a mount change
    # (that needs real mounts: the system tier). Here: a change the service
    # notices while reading still goes out as PropertiesChanged.
    listener = bus.connect()
    seen = []

    def on_signal(_conn, _sender, path, _iface, _signal, params):
        iface, changed, _invalidated = params.unpack()
        if 'Mounts' in changed:
            seen.append((path, iface, changed['Mounts']))

    sub = listener.signal_subscribe(hpdtest.BUS_NAME, PROPS_IFACE, 'PropertiesChanged', None,
                                    None, Gio.DBusSignalFlags.NONE, on_signal)
    try:
        # make sure the match rule is in place before the change
        hpdtest.call(listener, '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'GetId',
                     None, '(s)', dest='org.freedesktop.DBus')
        fake_kernel.write_mountinfo([Mount('/mnt/huge', mode=0o700)])
        # reading any property re-reads the kernel
        hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'Version')
        hpdtest.get(conn, page_size_path(SMALL), PAGE_SIZE_IFACE, 'Size')
        iterate_until(lambda: len(seen) >= 2)
        assert sorted(seen, key=lambda x: x[0]) == [
            (MANAGER_PATH, MANAGER_IFACE, [('/mnt/huge', attrs(2 * MB, mode=0o700))]),
            (page_size_path(SMALL), PAGE_SIZE_IFACE, ['/mnt/huge']),
        ]
    finally:
        listener.signal_unsubscribe(sub)
        listener.close_sync(None)


@pytest.mark.fake_kernel(pools=POOLS)
def test_mounts_are_readable_by_anyone(service, fake_kernel, run_python_as, polkit, NOBODY):
    fake_kernel.write_mountinfo([Mount('var/lib/hugetlbfs/pagesize-2MB', mode=0o770)])
    path = f'{base(fake_kernel)}/pagesize-2MB'
    results = run_python_as(NOBODY, [
        ['get', MANAGER_PATH, MANAGER_IFACE, 'Mounts'],
        ['get', page_size_path(SMALL), PAGE_SIZE_IFACE, 'Mounts'],
    ])
    assert results == [{'ok': [[path, attrs(2 * MB, mode=0o770, managed=True)]]},
                       {'ok': [path]}]
    assert polkit.checks() == []


def test_mounts_without_meminfo(service, conn, fake_kernel):
    # Mounts do not depend on /proc/meminfo being readable
    fake_kernel.remove('proc/meminfo')
    fake_kernel.write_mountinfo([Mount('/mnt/huge')])
    assert [m[0] for m in manager_mounts(conn)] == ['/mnt/huge']
    assert size_mounts(conn, SMALL) == ['/mnt/huge']


# --- validation: a typed error, nothing written, polkit not asked ---------------

SCOPE_CASES = [
    ('all', 'bogus', '', 'The scope must be system, user, group or global'),
    ('all', 'System', '', 'The scope must be'),
    ('all', '', '', 'The scope must be'),
    ('all', 'system ', '', 'The scope must be'),
    ('all', 'user\n', 'nobody', 'The scope must be'),
    (SMALL, 'users', 'nobody', 'The scope must be'),
    ('all', 'system', 'root', 'The system scope takes no owner'),
    ('all', 'global', '0', 'The global scope takes no owner'),
    (SMALL, 'system', ' ', 'The system scope takes no owner'),
    (GIANT, 'global', 'nobody', 'The global scope takes no owner'),
]


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('target,scope,owner,message', SCOPE_CASES)
def test_bad_scope_or_owner_for_scope(service, conn, fake_kernel, polkit, target, scope, owner,
                                      message):
    refused(fake_kernel, polkit, ERR_INVALID_ARGS,
            lambda: create(conn, target, scope, owner), re.escape(message))


UNKNOWN_OWNERS = [
    ('user', 'hpd-no-such-user', ERR_NO_SUCH_USER),
    ('user', str(UNKNOWN_ID), ERR_NO_SUCH_USER),
    ('user', '4294967295', ERR_NO_SUCH_USER),   # (uid_t) -1: "no id", not an id
    ('user', '4294967296', ERR_NO_SUCH_USER),
    ('user', '99999999999999999999999', ERR_NO_SUCH_USER),
    ('user', 'x' * 32, ERR_NO_SUCH_USER),        # the longest name there can be
    ('user', 'Nobody', ERR_NO_SUCH_USER),
    ('group', 'hpd-no-such-group', ERR_NO_SUCH_GROUP),
    ('group', str(UNKNOWN_ID), ERR_NO_SUCH_GROUP),
    ('group', '4294967295', ERR_NO_SUCH_GROUP),
    ('group', 'x' * 32, ERR_NO_SUCH_GROUP),
]


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('target', ['all', SMALL])
@pytest.mark.parametrize('scope,owner,name', UNKNOWN_OWNERS)
def test_unknown_owner(service, conn, fake_kernel, polkit, target, scope, owner, name):
    what = 'user' if scope == 'user' else 'group'
    refused(fake_kernel, polkit, name, lambda: create(conn, target, scope, owner),
            re.escape(f'No such {what}: {owner}'))


BAD_OWNERS = [
    '', 'a,b', 'no,body', 'a/b', '/', '..', '.', '../root', '../../etc', 'a\nb', 'nobody\n',
    'a\tb', 'a\x01b', '\x1b[31m', 'a\x7fb', 'a b', ' nobody', 'nobody ', '-nobody', '-1', '+1',
    '.hidden', 'x' * 33, 'x' * 65, 'x' * 300, 'nöbody', 'ü', 'a:b', 'a*', 'a=b', 'a%s', '$USER',
]


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('scope,target', [('user', 'all'), ('group', GIANT)])
@pytest.mark.parametrize('owner', BAD_OWNERS, ids=[repr(o)[:20] for o in BAD_OWNERS])
def test_owner_that_cannot_be_a_name(service, conn, fake_kernel, polkit, target, scope, owner):
    refused(fake_kernel, polkit, ERR_INVALID_ARGS, lambda: create(conn, target, scope, owner),
            f'^The owner must be a {scope} name')


BAD_MODES = [0o4777, 0o2770, 0o6000, 0o4000, 0o2000, 0o100755, 0o40755, 0o10000, 0o170777,
             0xFFFFFFFF, 0xFFFFFFFE, 0x80000000]


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('target', ['all', SMALL])
@pytest.mark.parametrize('mode', BAD_MODES, ids=[oct(m) for m in BAD_MODES])
def test_mode_with_more_than_permission_bits(service, conn, fake_kernel, polkit, target, mode):
    refused(fake_kernel, polkit, ERR_INVALID_ARGS,
            lambda: create(conn, target, 'system', opts={'mode': u(mode)}),
            'has bits other than permissions and the sticky bit')


SIZE_NAMES = {SMALL: '2MB', GIANT: '1GB'}

# (target, options, message): on POOLS (2MB: 10 pages, 1GB: empty)
BAD_LIMITS = [
    # bytes: zero, not whole pages, below one page
    (SMALL, {'max-size': t(0)}, 'max-size of 0 bytes is not a whole, non-zero number of 2MB pages'),
    (SMALL, {'min-size': t(0)}, 'min-size of 0 bytes is not a whole, non-zero number of 2MB pages'),
    (SMALL, {'max-size': t(3 * MB)}, 'max-size of 3145728 bytes is not a whole'),
    (SMALL, {'max-size': t(2 * MB + 1)}, 'not a whole, non-zero number of 2MB pages'),
    (SMALL, {'max-size': t(1)}, 'not a whole, non-zero number of 2MB pages'),
    (SMALL, {'max-size': t(UINT64_MAX)}, 'not a whole'),
    (SMALL, {'min-size': t(MB)}, 'min-size of 1048576 bytes is not a whole'),
    (GIANT, {'max-size': t(2 * MB)}, 'max-size of 2097152 bytes is not a whole, non-zero number of 1GB pages'),
    (GIANT, {'max-size': t(GB - 1)}, 'of 1GB pages'),
    (GIANT, {'min-size': t(3 * GB // 2)}, 'min-size of 1610612736 bytes is not a whole'),
    # CreateMounts: a whole number of 2MB pages, but not of 1GB pages
    ('all', {'max-size': t(4 * MB)}, 'max-size of 4194304 bytes is not a whole, non-zero number of 1GB pages'),
    ('all', {'min-size': t(2 * MB)}, 'min-size of 2097152 bytes is not a whole, non-zero number of 1GB pages'),
    ('all', {'max-size': t(0)}, 'max-size of 0 bytes'),
    # wrong types
    (SMALL, {'max-size': GLib.Variant('b', True)}, "Option 'max-size' must be bytes (t) or a percentage (s, \"50%\")"),
    (SMALL, {'max-size': GLib.Variant('i', 4 * MB)}, "Option 'max-size' must be bytes"),
    (SMALL, {'max-size': GLib.Variant('u', 4 * MB)}, "Option 'max-size' must be bytes"),
    (SMALL, {'max-size': GLib.Variant('x', 4 * MB)}, "Option 'max-size' must be bytes"),
    (SMALL, {'max-size': GLib.Variant('d', 4.0 * MB)}, "Option 'max-size' must be bytes"),
    (SMALL, {'max-size': GLib.Variant('as', ['50%'])}, "Option 'max-size' must be bytes"),
    (SMALL, {'min-size': GLib.Variant('b', False)}, "Option 'min-size' must be bytes"),
    (SMALL, {'min-size': GLib.Variant('i', 2 * MB)}, "Option 'min-size' must be bytes"),
    (SMALL, {'max-inodes': u(5)}, "Option 'max-inodes' must be of type 't', not 'u'"),
    (SMALL, {'max-inodes': GLib.Variant('i', 5)}, "Option 'max-inodes' must be of type 't'"),
    (SMALL, {'mode': t(0o750)}, "Option 'mode' must be of type 'u', not 't'"),
    (SMALL, {'mode': s('0750')}, "Option 'mode' must be of type 'u', not 's'"),
    (SMALL, {'mode': GLib.Variant('i', 0o750)}, "Option 'mode' must be of type 'u'"),
    # percentages: 1% to 100%, plain digits, one '%'
    *[(SMALL, {'max-size': s(text)}, 'max-size must be a percentage from 1% to 100%')
      for text in ('0%', '00%', '101%', '1000%', '05%', '050%', '50', '%', '50%%', '%50',
                   '-5%', '+5%', ' 5%', '5 %', '5% ', '5.5%', '1e2%', '0x10%', '٥%',
                   '18446744073709551616%', '18446744073709551617%', '', '5M', '4194304')],
    (SMALL, {'min-size': s('0%')}, 'min-size must be a percentage from 1% to 100%'),
    (SMALL, {'min-size': s('101%')}, 'min-size must be a percentage'),
    # percentages that round to zero pages: of an empty pool, or 1% of 10 pages
    (GIANT, {'max-size': s('50%')}, 'max-size of 50% of a 0-page 1GB pool rounds to zero pages'),
    (GIANT, {'min-size': s('100%')}, 'min-size of 100% of a 0-page 1GB pool rounds to zero pages'),
    ('all', {'max-size': s('100%')}, 'max-size of 100% of a 0-page 1GB pool rounds to zero pages'),
    (SMALL, {'max-size': s('9%')}, 'max-size of 9% of a 10-page 2MB pool rounds to zero pages'),
    (SMALL, {'min-size': s('1%')}, 'min-size of 1% of a 10-page 2MB pool rounds to zero pages'),
    # min-size above max-size, in bytes, percentages or both
    (SMALL, {'max-size': t(2 * MB), 'min-size': t(4 * MB)}, 'min-size is larger than max-size'),
    (SMALL, {'max-size': s('10%'), 'min-size': s('20%')}, 'min-size is larger than max-size'),
    (SMALL, {'max-size': t(2 * MB), 'min-size': s('20%')}, 'min-size is larger than max-size'),
    (SMALL, {'max-size': s('50%'), 'min-size': t(12 * MB)}, 'min-size is larger than max-size'),
    (GIANT, {'max-size': t(GB), 'min-size': t(2 * GB)}, 'min-size is larger than max-size'),
    # inodes: none would be a mount without files; a limit, not "no limit"
    (SMALL, {'max-inodes': t(0)}, 'max-inodes must be at least 1'),
    ('all', {'max-inodes': t(0)}, 'max-inodes must be at least 1'),
    (SMALL, {'max-inodes': t((1 << 31) + 1)}, 'max-inodes must be at most 2147483648'),
    ('all', {'max-inodes': t(UINT64_MAX)}, 'max-inodes must be at most 2147483648'),
    # keys
    (SMALL, {'size': t(4 * MB)}, "Unknown option 'size'"),
    ('all', {'Max-Size': t(4 * MB)}, "Unknown option 'Max-Size'"),
    ('all', {'max_size': t(4 * MB)}, "Unknown option 'max_size'"),
    ('all', {'uid': u(0)}, "Unknown option 'uid'"),
    ('all', {'dry-run': GLib.Variant('s', 'true')},
     "Option 'dry-run' must be of type 'b', not 's'"),
    ('all', {'secure-directories': u(1)},
     "Option 'secure-directories' must be of type 'b', not 'u'"),
    ('all', {'max-size ': t(4 * MB)}, "Unknown option 'max-size '"),
    ('all', {'': t(1)}, "Unknown option ''"),
    ('all', dup_options(('max-size', t(4 * MB)), ('max-size', t(4 * MB))),
     "Option 'max-size' given twice"),
    (SMALL, dup_options(('mode', u(0o700)), ('mode', u(0o700))), "Option 'mode' given twice"),
]


def limit_id(case):
    target, opts, _message = case
    if isinstance(opts, GLib.Variant):
        return f'{target}-{opts.print_(False)}'
    return f'{target}-' + ','.join(f'{k}={v.print_(True)}' for k, v in opts.items())


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('target,opts,message', BAD_LIMITS, ids=[limit_id(c) for c in BAD_LIMITS])
def test_bad_options(service, conn, fake_kernel, polkit, target, opts, message):
    refused(fake_kernel, polkit, ERR_INVALID_ARGS,
            lambda: create(conn, target, 'system', '', opts), re.escape(message))


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('scope,owner', [('user', 'nobody'), ('group', 'users'), ('global', '')])
@pytest.mark.valgrind
def test_bad_options_in_every_scope(service, conn, fake_kernel, polkit, scope, owner):
    for target, opts, message in BAD_LIMITS[::7]:
        refused(fake_kernel, polkit, ERR_INVALID_ARGS,
                lambda: create(conn, target, scope, owner, opts), re.escape(message))


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind
def test_wrong_signature(service, conn, fake_kernel, polkit):
    for path, iface, method, params in [
        (MANAGER_PATH, MANAGER_IFACE, 'CreateMounts', GLib.Variant('(ss)', ('system', ''))),
        (MANAGER_PATH, MANAGER_IFACE, 'CreateMounts',
         GLib.Variant('(sa{sv})', ('system', {}))),
        (page_size_path(SMALL), PAGE_SIZE_IFACE, 'CreateMount',
         GLib.Variant('(ssa{ss})', ('system', '', {'mode': '700'}))),
        (MANAGER_PATH, MANAGER_IFACE, 'Unmount', GLib.Variant('(s)', ('/mnt/huge',))),
        (MANAGER_PATH, MANAGER_IFACE, 'Unmount', GLib.Variant('(oa{sv})', ('/mnt/huge', {}))),
    ]:
        refused(fake_kernel, polkit, DBUS_INVALID_ARGS,
                lambda: hpdtest.call(conn, path, iface, method, params))


# percentages are of the persistent pool (Minimum), not of Total


@pytest.mark.fake_kernel(pools={SMALL: Pool(total=10, free=10, surplus=10), GIANT: Pool()})
def test_percentage_of_surplus_only_pool_is_zero(service, conn, fake_kernel, polkit):
    refused(fake_kernel, polkit, ERR_INVALID_ARGS,
            lambda: create_mount(conn, SMALL, 'system', opts={'max-size': s('100%')}),
            re.escape('max-size of 100% of a 0-page 2MB pool rounds to zero pages'))


@pytest.mark.fake_kernel(pools={SMALL: Pool(total=99, free=99), GIANT: Pool(total=100, free=100)})
@pytest.mark.valgrind
def test_percentage_rounding_boundary(service, conn, fake_kernel, polkit):
    # 1% of 99 pages is 0 pages; 1% of 100 pages is one
    refused(fake_kernel, polkit, ERR_INVALID_ARGS,
            lambda: create_mount(conn, SMALL, 'system', opts={'min-size': s('1%')}),
            re.escape('min-size of 1% of a 99-page 2MB pool rounds to zero pages'))
    not_authorized(fake_kernel, polkit,
                   lambda: create_mount(conn, GIANT, 'system', opts={'min-size': s('1%')}))


@pytest.mark.fake_kernel(sizes=(), default_size=0)
def test_no_huge_page_sizes(service, conn, fake_kernel, polkit):
    # nothing to mount: an error, not an empty success (and no crash)
    refused(fake_kernel, polkit, ERR_NOT_SUPPORTED, lambda: create_mounts(conn, 'system'))
    # validation still comes first
    refused(fake_kernel, polkit, ERR_INVALID_ARGS, lambda: create_mounts(conn, 'bogus'))
    refused(fake_kernel, polkit, ERR_NO_SUCH_USER,
            lambda: create_mounts(conn, 'user', 'hpd-no-such-user'))


# --- accepted requests: polkit is asked, and says no ---------------------------

# (target, scope, owner, options) that are valid on POOLS
ACCEPTED = [
    ('all', 'system', '', {}),
    ('all', 'global', '', {}),
    ('all', 'user', 'nobody', {}),
    ('all', 'user', '0', {}),
    ('all', 'user', 'root', {}),
    ('all', 'group', 'nogroup', {}),
    ('all', 'group', '100', {}),
    (SMALL, 'system', '', {'max-size': t(4 * MB), 'min-size': t(2 * MB), 'max-inodes': t(10),
                           'mode': u(0o1777)}),
    (SMALL, 'system', '', {'max-size': s('50%'), 'min-size': s('10%')}),
    (SMALL, 'system', '', {'max-size': s('100%')}),
    (SMALL, 'system', '', {'max-size': s('10%')}),
    (SMALL, 'system', '', {'max-size': s('10%'), 'min-size': s('19%')}),  # both 1 page
    (SMALL, 'system', '', {'max-size': t(20 * MB), 'min-size': s('100%')}),  # equal
    (SMALL, 'system', '', {'max-size': t(UINT64_MAX - 2 * MB + 1)}),  # whole pages
    (SMALL, 'system', '', {'max-size': t(4 * MB)}),  # fine for 2MB; 1GB is not asked
    (GIANT, 'system', '', {'max-size': t(2 * GB), 'min-size': t(GB)}),
    ('all', 'system', '', {'max-size': t(2 * GB), 'min-size': t(GB)}),
    ('all', 'system', '', {'max-inodes': t(1 << 31)}),
    ('all', 'system', '', {'max-inodes': t(1)}),
    ('all', 'system', '', {'mode': u(0o750)}),
    ('all', 'system', '', {'mode': u(0o1777)}),
    ('all', 'system', '', {'mode': u(0)}),
    ('all', 'system', '', {'mode': u(0o777)}),
    (GIANT, 'user', 'nobody', {'mode': u(0o1700)}),
]


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('target,scope,owner,opts', ACCEPTED,
                         ids=[f'{c[0]}-{c[1]}-{c[2]}-' + ','.join(f'{k}={v.print_(False)}'
                                                                  for k, v in c[3].items())
                              for c in ACCEPTED])
@pytest.mark.valgrind
def test_valid_requests_reach_polkit(service, conn, fake_kernel, polkit, target, scope, owner, opts):
    not_authorized(fake_kernel, polkit, lambda: create(conn, target, scope, owner, opts))


def owner_details(fk, target, scope, owner, mode):
    """The polkit details CreateMount(s) should send."""
    b = base(fk)
    uid = gid = 0
    if scope == 'user':
        entry = pwd.getpwuid(int(owner)) if owner.isdigit() else pwd.getpwnam(owner)
        uid, prefix = entry.pw_uid, f'user/{entry.pw_name}/'
    elif scope == 'group':
        entry = grp.getgrgid(int(owner)) if owner.isdigit() else grp.getgrnam(owner)
        gid, prefix = entry.gr_gid, f'group/{entry.gr_name}/'
    elif scope == 'global':
        prefix = 'global/'
    else:
        prefix = ''
    sizes = [SMALL, GIANT] if target == 'all' else [target]
    return {'scope': scope, 'owner-uid': str(uid), 'owner-gid': str(gid), 'mode': mode,
            'paths': ','.join(f'{b}/{prefix}pagesize-{SIZE_NAMES[size]}' for size in sizes)}


# (target, scope, owner, options, mode in the details)
DETAILS = [
    ('all', 'system', '', {}, '0770'),
    ('all', 'global', '', {}, '1777'),
    (SMALL, 'user', 'nobody', {}, '0700'),
    (SMALL, 'user', '65534', {}, '0700'),       # a uid gives the same mount point
    (GIANT, 'user', '100', {}, '0700'),          # uid 100 is a user; gid 100 is another name
    ('all', 'group', '100', {}, '0070'),
    (GIANT, 'group', 'nogroup', {}, '0070'),
    ('all', 'user', 'root', {'mode': u(0o750)}, '0750'),
    (SMALL, 'group', 'users', {'mode': u(0o1770), 'max-size': t(4 * MB)}, '1770'),
    (SMALL, 'system', '', {'mode': u(0)}, '0000'),
    (GIANT, 'global', '', {'mode': u(0o1777), 'max-inodes': t(7)}, '1777'),
]


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('interactive', [False, True], ids=['plain', 'interactive'])
@pytest.mark.parametrize('target,scope,owner,opts,mode', DETAILS,
                         ids=[f'{c[0]}-{c[1]}-{c[2]}-{c[4]}' for c in DETAILS])
def test_denied_create_asks_correctly(service, bus, fake_kernel, polkit, target, scope, owner,
                                      opts, mode, interactive):
    if owner.isdigit() and scope == 'user':
        try:
            pwd.getpwuid(int(owner))
        except KeyError:
            pytest.skip(f'no user {owner} on this machine')
    if owner.isdigit() and scope == 'group':
        try:
            grp.getgrgid(int(owner))
        except KeyError:
            pytest.skip(f'no group {owner} on this machine')
    caller = bus.connect()  # a fresh caller, so its unique name is its own
    try:
        check = not_authorized(fake_kernel, polkit,
                               lambda: create(caller, target, scope, owner, opts, interactive))
        assert check.subject == ('system-bus-name', {'name': caller.get_unique_name()})
        assert check.details == owner_details(fake_kernel, target, scope, owner, mode)
        assert check.flags == (1 if interactive else 0)
    finally:
        caller.close_sync(None)


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('interactive', [False, True], ids=['plain', 'interactive'])
@pytest.mark.valgrind
def test_denied_unmount_asks_correctly(service, bus, fake_kernel, polkit, interactive):
    path = f'{base(fake_kernel)}/pagesize-2MB'
    fake_kernel.write_mountinfo([Mount('var/lib/hugetlbfs/pagesize-2MB', mode=0o770)])
    caller = bus.connect()
    try:
        check = not_authorized(fake_kernel, polkit, lambda: unmount(caller, path,
                                                                    interactive=interactive))
        assert check.subject == ('system-bus-name', {'name': caller.get_unique_name()})
        assert check.details == {'path': path}
        assert check.flags == (1 if interactive else 0)
    finally:
        caller.close_sync(None)


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind
def test_denied_for_an_unprivileged_caller(service, fake_kernel, polkit, run_python_as, NOBODY):
    fake_kernel.write_mountinfo([Mount('/mnt/huge')])
    before = fake_kernel.snapshot()
    results = run_python_as(NOBODY, [
        ['unique_name'],
        ['call', page_size_path(SMALL), PAGE_SIZE_IFACE, 'CreateMount', '(ssa{sv})',
         "('user', 'nobody', @a{sv} {})", '(s)', True],
        ['call', MANAGER_PATH, MANAGER_IFACE, 'CreateMounts', '(ssa{sv})',
         "('global', '', {'mode': <uint32 1023>})", '(as)', False],
        ['call', MANAGER_PATH, MANAGER_IFACE, 'Unmount', '(sa{sv})',
         "('/mnt/huge', @a{sv} {})", '()', False],
    ])
    name = results[0]['ok']
    assert [r.get('error') for r in results[1:]] == [ERR_NOT_AUTHORIZED] * 3
    checks = polkit.checks()
    assert [c.subject for c in checks] == [('system-bus-name', {'name': name})] * 3
    assert [c.action for c in checks] == [ACTION_MOUNTS] * 3
    assert [c.flags for c in checks] == [1, 0, 0]
    assert fake_kernel.snapshot() == before


# --- which polkit action: mounts and pools are apart ---------------------------

@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind
def test_pool_actions_do_not_allow_mounts(service, conn, fake_kernel, polkit):
    # Safe even if the service mapped the action wrongly: without var/lib a
    # mount cannot be made (it would fail with Failed instead).
    polkit.allow(*[a for a in ALL_ACTIONS if a != ACTION_MOUNTS],
                 'org.hugepages.manager', 'org.hugepages.manager.manage-mounts.extra')
    fake_kernel.write_mountinfo([Mount('/mnt/huge')])
    before = fake_kernel.snapshot()
    calls = [lambda: create_mounts(conn, 'system'),
             lambda: create_mount(conn, SMALL, 'user', 'nobody'),
             lambda: create_mount(conn, GIANT, 'global'),
             lambda: unmount(conn, '/mnt/huge')]
    for fn in calls:
        with pytest.raises(BusError) as e:
            fn()
        assert e.value.name == ERR_NOT_AUTHORIZED, e.value
        assert e.value.message.startswith(REFUSED)
    assert [c.action for c in polkit.checks()] == [ACTION_MOUNTS] * len(calls)
    assert fake_kernel.snapshot() == before


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('method,args', [('SetMinimum', (12,)), ('SetMaximum', (14,)),
                                         ('SetNodePages', (0, 8)), ('Demote', (1,))])
def test_mount_action_does_not_allow_pool_changes(service, conn, fake_kernel, polkit, method,
                                                  args):
    polkit.allow(ACTION_MOUNTS)
    size = GIANT if method == 'Demote' else SMALL
    if method == 'Demote':
        fake_kernel.write(fake_kernel.pool_file(GIANT, 'nr_hugepages'), 2)
        fake_kernel.write(fake_kernel.pool_file(GIANT, 'free_hugepages'), 2)
    before = fake_kernel.snapshot()
    with pytest.raises(BusError) as e:
        hpdtest.pool_call(conn, size, method, *args)
    assert e.value.name == ERR_NOT_AUTHORIZED, e.value
    assert 'Not authorized to configure huge page pools' in e.value.message
    assert [c.action for c in polkit.checks()] == [ACTION_POOLS]
    assert fake_kernel.snapshot() == before


# --- asking again for what is there: no polkit, no error -----------------------

def m(rel, **kw):
    return Mount('var/lib/hugetlbfs/' + rel, **kw)


# (target, scope, owner, options, the mounts listed, paths returned)
IDENTICAL = [
    (SMALL, 'system', '', {}, [m('pagesize-2MB', mode=0o770)], ['pagesize-2MB']),
    # no pagesize= means the default size: 2MB
    (SMALL, 'system', '', {}, [m('pagesize-2MB', mode=0o770, page_size_kb=None)], ['pagesize-2MB']),
    (GIANT, 'system', '', {}, [m('pagesize-1GB', mode=0o770, page_size_kb=GIANT)], ['pagesize-1GB']),
    (SMALL, 'global', '', {}, [m('global/pagesize-2MB', mode=0o1777)], ['global/pagesize-2MB']),
    (SMALL, 'user', 'nobody', {}, [m('user/nobody/pagesize-2MB', uid=65534, mode=0o700)],
     ['user/nobody/pagesize-2MB']),
    (SMALL, 'user', '65534', {}, [m('user/nobody/pagesize-2MB', uid=65534, mode=0o700)],
     ['user/nobody/pagesize-2MB']),
    (SMALL, 'group', 'users', {}, [m('group/users/pagesize-2MB', gid=100, mode=0o70)],
     ['group/users/pagesize-2MB']),
    (SMALL, 'system', '', {'mode': u(0o755)}, [m('pagesize-2MB')], ['pagesize-2MB']),
    (SMALL, 'system', '', {'max-size': t(4 * MB), 'min-size': t(2 * MB), 'max-inodes': t(5),
                           'mode': u(0o750)},
     [m('pagesize-2MB', mode=0o750, size=4 * MB, min_size=2 * MB, nr_inodes=5)], ['pagesize-2MB']),
    # a percentage matches any size: it depends on the pool at mount time
    (SMALL, 'system', '', {'max-size': s('50%')}, [m('pagesize-2MB', mode=0o770, size=8 * MB)],
     ['pagesize-2MB']),
    (SMALL, 'system', '', {'min-size': s('10%')}, [m('pagesize-2MB', mode=0o770, min_size=2 * MB)],
     ['pagesize-2MB']),
    # stacked: the mount on top counts
    (SMALL, 'system', '', {}, [m('pagesize-2MB', mode=0o750), m('pagesize-2MB', mode=0o770)],
     ['pagesize-2MB']),
    # every size, listed in any order, other mounts around
    ('all', 'system', '', {}, [m('pagesize-1GB', mode=0o770, page_size_kb=GIANT), Mount('/mnt/x'),
                               m('pagesize-2MB', mode=0o770)], ['pagesize-2MB', 'pagesize-1GB']),
    ('all', 'global', '', {'max-inodes': t(9)},
     [m('global/pagesize-2MB', mode=0o1777, nr_inodes=9),
      m('global/pagesize-1GB', mode=0o1777, nr_inodes=9, page_size_kb=GIANT)],
     ['global/pagesize-2MB', 'global/pagesize-1GB']),
]


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('target,scope,owner,opts,mounts,paths', IDENTICAL)
def test_identical_mount_is_returned_without_polkit(service, conn, fake_kernel, polkit, target,
                                                    scope, owner, opts, mounts, paths):
    fake_kernel.write_mountinfo(mounts)
    before = fake_kernel.snapshot()
    got = create(conn, target, scope, owner, opts)
    assert got == [f'{base(fake_kernel)}/{p}' for p in paths]
    assert polkit.checks() == []
    assert fake_kernel.snapshot() == before


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind
def test_identical_mount_for_an_unprivileged_caller(service, fake_kernel, polkit, run_python_as,
                                                    NOBODY):
    fake_kernel.write_mountinfo([m('user/nobody/pagesize-2MB', uid=65534, mode=0o700)])
    results = run_python_as(NOBODY, [
        ['call', page_size_path(SMALL), PAGE_SIZE_IFACE, 'CreateMount', '(ssa{sv})',
         "('user', 'nobody', @a{sv} {})", '(s)', False]])
    assert results == [{'ok': [f'{base(fake_kernel)}/user/nobody/pagesize-2MB']}]
    assert polkit.checks() == []


# (target, scope, owner, options, the mounts listed, the path that differs,
#  what differs)
LIMITS_DIFFER = [
    (SMALL, 'system', '', {}, [m('pagesize-2MB', mode=0o770, size=4 * MB)], 'pagesize-2MB',
     'size none asked, 4194304 mounted'),
    (SMALL, 'system', '', {}, [m('pagesize-2MB', mode=0o770, min_size=2 * MB)], 'pagesize-2MB',
     'min_size none asked, 2097152 mounted'),
    (SMALL, 'system', '', {}, [m('pagesize-2MB', mode=0o770, nr_inodes=5)], 'pagesize-2MB',
     'nr_inodes none asked, 5 mounted'),
    (SMALL, 'system', '', {}, [m('pagesize-2MB', mode=0o770, page_size_kb=GIANT)], 'pagesize-2MB',
     'page size 2097152 asked, 1073741824 mounted'),
    (GIANT, 'system', '', {}, [m('pagesize-1GB', mode=0o770, page_size_kb=None)], 'pagesize-1GB',
     'page size 1073741824 asked, 2097152 mounted'),
    (SMALL, 'system', '', {'max-size': t(4 * MB)}, [m('pagesize-2MB', mode=0o770)], 'pagesize-2MB',
     'size 4194304 asked, none mounted'),
    (SMALL, 'system', '', {'max-size': t(4 * MB)}, [m('pagesize-2MB', mode=0o770, size=8 * MB)],
     'pagesize-2MB', 'size 4194304 asked, 8388608 mounted'),
    (SMALL, 'system', '', {'min-size': t(4 * MB)},
     [m('pagesize-2MB', mode=0o770, min_size=2 * MB)], 'pagesize-2MB',
     'min_size 4194304 asked, 2097152 mounted'),
    (SMALL, 'system', '', {'max-size': s('50%')}, [m('pagesize-2MB', mode=0o770)], 'pagesize-2MB',
     'size 50% asked, none mounted'),
    (SMALL, 'system', '', {'min-size': s('50%')}, [m('pagesize-2MB', mode=0o770, size=10 * MB)],
     'pagesize-2MB', 'size none asked, 10485760 mounted, min_size 50% asked, none mounted'),
    (SMALL, 'system', '', {'max-inodes': t(5)}, [m('pagesize-2MB', mode=0o770, nr_inodes=6)],
     'pagesize-2MB', 'nr_inodes 5 asked, 6 mounted'),
    (SMALL, 'system', '', {'max-inodes': t(5)}, [m('pagesize-2MB', mode=0o770)], 'pagesize-2MB',
     'nr_inodes 5 asked, none mounted'),
    # the owner and mode are named too, beside a limit
    (SMALL, 'system', '', {}, [m('pagesize-2MB', mode=0o750, size=4 * MB)], 'pagesize-2MB',
     'size none asked, 4194304 mounted, mode 0770 asked, 0750 now'),
    # CreateMounts: one size that differs is enough
    ('all', 'system', '', {}, [m('pagesize-2MB', mode=0o770),
                               m('pagesize-1GB', mode=0o770, page_size_kb=GIANT, nr_inodes=3)],
     'pagesize-1GB', 'nr_inodes none asked, 3 mounted'),
]


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('target,scope,owner,opts,mounts,path,differs', LIMITS_DIFFER)
def test_other_limits_are_named_without_polkit(service, conn, fake_kernel, polkit, target,
                                               scope, owner, opts, mounts, path, differs):
    fake_kernel.write_mountinfo(mounts)
    full = f'{base(fake_kernel)}/{path}'
    error = refused(fake_kernel, polkit, ERR_FAILED,
                    lambda: create(conn, target, scope, owner, opts),
                    '^' + re.escape(f'{full} is already mounted with other options ({differs}). '))
    # the way forward: no remount can do it, unmounting once unused can
    assert 'a remount ignores them' in error.message
    assert 'hugepagesctl usage' in error.message


# (target, scope, owner, the mounts listed): the page size and limits asked,
# another owner or mode: taken over, which is a change and needs polkit
OWNER_DIFFERS = [
    (SMALL, 'system', '', [m('pagesize-2MB', mode=0o750)]),
    (SMALL, 'system', '', [m('pagesize-2MB')]),  # 0755
    (SMALL, 'system', '', [m('pagesize-2MB', mode=0o1770)]),
    (SMALL, 'system', '', [m('pagesize-2MB', mode=0o770, uid=1000)]),
    (SMALL, 'system', '', [m('pagesize-2MB', mode=0o770, gid=100)]),
    (SMALL, 'user', 'nobody', [m('user/nobody/pagesize-2MB', mode=0o700)]),
    (SMALL, 'group', 'users', [m('group/users/pagesize-2MB', gid=100, mode=0o700)]),
    # stacked: the mount on top counts
    (SMALL, 'system', '', [m('pagesize-2MB', mode=0o770), m('pagesize-2MB', mode=0o750)]),
    ('all', 'system', '', [m('pagesize-2MB', mode=0o770),
                           m('pagesize-1GB', mode=0o700, page_size_kb=GIANT)]),
    ('all', 'system', '', [m('pagesize-2MB', mode=0o700)]),
]


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('target,scope,owner,mounts', OWNER_DIFFERS)
def test_other_owner_or_mode_is_taken_over(service, conn, fake_kernel, polkit, target,
                                           scope, owner, mounts):
    fake_kernel.write_mountinfo(mounts)
    check = not_authorized(fake_kernel, polkit, lambda: create(conn, target, scope, owner))
    assert check.details['scope'] == scope


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind
def test_some_sizes_mounted_asks_for_all(service, conn, fake_kernel, polkit):
    b = base(fake_kernel)
    fake_kernel.write_mountinfo([m('pagesize-2MB', mode=0o770)])
    check = not_authorized(fake_kernel, polkit, lambda: create_mounts(conn, 'system'))
    assert check.details['paths'] == f'{b}/pagesize-2MB,{b}/pagesize-1GB'


@pytest.mark.fake_kernel(pools=POOLS)
def test_other_mounts_do_not_count(service, conn, fake_kernel, polkit):
    b = base(fake_kernel)
    # the same options at other places
    fake_kernel.write_mountinfo([
        Mount('/mnt/pagesize-2MB', mode=0o770),
        Mount(f'/other{b}/pagesize-2MB', mode=0o770),
        m('user/nobody/pagesize-2MB', mode=0o770),
        m('pagesize-2MB/inner', mode=0o770),
    ])
    not_authorized(fake_kernel, polkit, lambda: create_mount(conn, SMALL, 'system'))


# --- Unmount ----------------------------------------------------------------------

BAD_PATHS = [
    '', '/', 'mnt/huge', 'huge', './mnt/huge', '~/huge', '/mnt/huge/', '/mnt/huge//',
    '//mnt/huge', '/mnt//huge', '/mnt/../mnt/huge', '/mnt/huge/..', '/..', '/mnt/./huge',
    '/mnt/huge/.', '/.', '/mnt/huge\n', '/mnt/\nhuge', '/mnt/huge\t', '/mnt/\x01huge',
    '/mnt/huge\x7f', '/mnt/\x1b[0mhuge', '/' + 'x' * 4096,
]


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('path', BAD_PATHS, ids=[repr(p)[:24] for p in BAD_PATHS])
def test_unmount_bad_path(service, conn, fake_kernel, polkit, path):
    # the normalized path is a hugetlbfs mount: only the spelling is wrong
    fake_kernel.write_mountinfo([Mount('/mnt/huge'), Mount('/' + 'x' * 4096)])
    refused(fake_kernel, polkit, ERR_INVALID_ARGS, lambda: unmount(conn, path),
            'The path must be absolute and normalized, without control characters')


@pytest.mark.fake_kernel(pools=POOLS)
def test_unmount_long_path_is_fine(service, conn, fake_kernel, polkit):
    path = '/' + 'x' * 4095
    fake_kernel.write_mountinfo([Mount(path)])
    check = not_authorized(fake_kernel, polkit, lambda: unmount(conn, path))
    assert check.details == {'path': path}


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('path', [
    '/mnt/not-a-mount', '/tmp', '/proc', '/mnt', '/mnt/huge/sub', '/mnt/hug', '/mnt/huge2',
    '/mnt/with\\040space', '/MNT/HUGE'])
def test_unmount_not_a_hugetlbfs_mount(service, conn, fake_kernel, polkit, path):
    fake_kernel.write_mountinfo([Mount('/mnt/huge'), Mount('/mnt/with space')])
    refused(fake_kernel, polkit, ERR_NOT_MOUNTED, lambda: unmount(conn, path),
            '^' + re.escape(f'{path} is not a hugetlbfs mount'))


@pytest.mark.fake_kernel(pools=POOLS)
def test_unmount_without_mountinfo(service, conn, fake_kernel, polkit):
    refused(fake_kernel, polkit, ERR_NOT_MOUNTED,
            lambda: unmount(conn, f'{base(fake_kernel)}/pagesize-2MB'), 'is not a hugetlbfs mount')


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('opts', [{'force': GLib.Variant('b', True)}, {'lazy': GLib.Variant('b', True)},
                                  {'': u(0)}, {'path': s('/mnt/huge')}])
def test_unmount_takes_no_options(service, conn, fake_kernel, polkit, opts):
    fake_kernel.write_mountinfo([Mount('/mnt/huge')])
    key = next(iter(opts))
    refused(fake_kernel, polkit, ERR_INVALID_ARGS, lambda: unmount(conn, '/mnt/huge', opts),
            re.escape(f"Unknown option '{key}'"))


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('path', ['/mnt/with space', '/mnt/back\\slash', '/mnt/grüße'])
@pytest.mark.valgrind(first=1)
def test_unmount_finds_escaped_paths(service, conn, fake_kernel, polkit, path):
    fake_kernel.write_mountinfo([Mount(path)])
    check = not_authorized(fake_kernel, polkit, lambda: unmount(conn, path))
    assert check.details == {'path': path}


@pytest.mark.fake_kernel(pools=POOLS)
def test_unmount_dry_run_replies_the_paths_it_would_unmount(service, conn, fake_kernel, polkit):
    fake_kernel.write_mountinfo([Mount('/mnt/huge'), Mount('/mnt/other')])
    assert unmount(conn, '/mnt/huge', {'dry-run': GLib.Variant('b', True)}) == ['/mnt/huge']
    assert polkit.checks() == []
    assert sorted(p for p, _ in hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'Mounts')) == \
        ['/mnt/huge', '/mnt/other']
