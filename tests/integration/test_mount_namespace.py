# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""security.md case 40 on fake trees: a service whose mount namespace is not
PID 1's (a unit with ProtectSystem=, PrivateTmp=, ...) would make mounts
nobody else sees. It says so at startup, refuses CreateMounts, CreateMount
and Unmount with NotSupported before validation and authorization, tells
in Explain, and keeps serving everything else.

The fake tree carries proc/self/ns/mnt and proc/1/ns/mnt as links with the
targets the kernel shows ("mnt:[4026531840]"); where PID 1's link is
missing the service compares the "/" mounts of proc/self/mountinfo and
proc/1/mountinfo. The real-kernel side is tests/system/test_sys_namespace.py.
"""

import subprocess

import pytest

import hpdtest
from hpdtest import (ACTION_MOUNTS, ACTION_POOLS, ALL_ACTIONS, ERR_NOT_AUTHORIZED, ERR_NOT_SUPPORTED,
                     MANAGER_IFACE, MANAGER_PATH, PAGE_SIZE_IFACE, BusError, page_size_path,
                     pool_call)
from fakekernel import HOST_MOUNT_NS, Mount, Pool
from hpdtunables import explain
from gi.repository import GLib

OTHER_NS = 'mnt:[4026532178]'
SMALL = 2048
POOLS = {SMALL: Pool(total=4, free=4, overcommit=2), 1048576: Pool()}
HAND_MOUNT = Mount('var/lib/hugetlbfs/pagesize-2MB', mode=0o770)
PRIVATE = dict(pools=POOLS, mounts=[HAND_MOUNT], mount_ns=(OTHER_NS, HOST_MOUNT_NS))
REFUSAL = ('hugepagesd runs in a private mount namespace (a unit with ProtectSystem=, '
           'PrivateTmp=, ReadWritePaths=...?): its mounts would be invisible to the rest '
           'of the system')
UNKNOWN = 'hugepagesd cannot tell whether it runs in the mount namespace of PID 1'


def mount_calls(fk):
    """(name, thunk(conn)) for every mount method, with valid arguments."""
    path = f'{fk.root}/var/lib/hugetlbfs/pagesize-2MB'
    return [
        ('CreateMounts', lambda c: hpdtest.call(
            c, MANAGER_PATH, MANAGER_IFACE, 'CreateMounts',
            GLib.Variant('(ssa{sv})', ('global', '', {})), '(as)')),
        ('CreateMount', lambda c: hpdtest.call(
            c, page_size_path(1048576), PAGE_SIZE_IFACE, 'CreateMount',
            GLib.Variant('(ssa{sv})', ('system', '', {})), '(s)')),
        ('Unmount', lambda c: hpdtest.call(
            c, MANAGER_PATH, MANAGER_IFACE, 'Unmount', GLib.Variant('(sa{sv})', (path, {})))),
    ]


def errors_of(conn, fk):
    out = {}
    for name, thunk in mount_calls(fk):
        with pytest.raises(BusError) as e:
            thunk(conn)
        out[name] = e.value
    return out


def entry(conn, id_):
    found = [e for e in explain(conn) if e[1] == id_]
    assert len(found) <= 1
    return found[0] if found else None


def allow_everything(polkit):
    polkit.allow_unknown(True)
    polkit.allow(*ALL_ACTIONS)


@pytest.mark.fake_kernel(pools=POOLS, mounts=[HAND_MOUNT])
def test_same_namespace_as_pid_1_mounts_are_served(service, conn, fake_kernel, polkit):
    # the default fake tree: both links the same; the calls reach polkit
    for name, error in errors_of(conn, fake_kernel).items():
        assert error.name == ERR_NOT_AUTHORIZED, (name, error)
    assert [c.action for c in polkit.checks()] == [ACTION_MOUNTS] * 3
    assert entry(conn, 'private-mount-namespace') is None
    assert 'Mounts are seen system-wide: the mount namespace is mnt:[4026531840] here and ' \
           'mnt:[4026531840] for PID 1' in service.log()


@pytest.mark.fake_kernel(**PRIVATE)
def test_private_namespace_refuses_mounts_before_authorization(service, conn, fake_kernel, polkit):
    allow_everything(polkit)   # a refusal here can only come from the check
    before = fake_kernel.snapshot()
    for name, error in errors_of(conn, fake_kernel).items():
        assert error.name == ERR_NOT_SUPPORTED, (name, error)
        assert error.message.startswith(REFUSAL), (name, error.message)
        assert f'{OTHER_NS} here and {HOST_MOUNT_NS} for PID 1' in error.message
    assert polkit.checks() == []
    assert fake_kernel.snapshot() == before
    assert not fake_kernel.exists('var')
    assert f'{REFUSAL} (the mount namespace is {OTHER_NS} here and {HOST_MOUNT_NS} for PID 1); ' \
           'hugetlbfs mounts are refused' in service.log()


@pytest.mark.fake_kernel(**PRIVATE)
def test_private_namespace_refuses_even_bad_requests_first(service, conn, fake_kernel, polkit):
    # the refusal does not depend on the arguments: it comes before validation
    for params in [('nowhere', '', {}), ('user', 'x' * 100000, {'bogus': GLib.Variant('b', True)})]:
        with pytest.raises(BusError) as e:
            hpdtest.call(conn, MANAGER_PATH, MANAGER_IFACE, 'CreateMounts',
                         GLib.Variant('(ssa{sv})', params), '(as)')
        assert e.value.name == ERR_NOT_SUPPORTED
    with pytest.raises(BusError) as e:
        hpdtest.call(conn, MANAGER_PATH, MANAGER_IFACE, 'Unmount',
                     GLib.Variant('(sa{sv})', ('relative/../path', {})))
    assert e.value.name == ERR_NOT_SUPPORTED
    assert polkit.checks() == []


@pytest.mark.fake_kernel(boot_hook='sysvinit-enabled', **PRIVATE)
def test_private_namespace_fix_without_systemd(service, conn):
    # no systemd: no unit to edit; what started the service gave it the namespace
    severity, _id, _message, fix = entry(conn, 'private-mount-namespace')
    assert severity == 'error'
    assert 'systemctl' not in fix
    assert fix.startswith('nsenter --mount=/proc/1/ns/mnt /') and '/hugepagesd ' in fix
    assert '--allow-private-mount-namespace' in fix


@pytest.mark.fake_kernel(**PRIVATE)
def test_private_namespace_is_explained_and_the_rest_works(service, conn, fake_kernel, polkit):
    severity, _id, message, fix = entry(conn, 'private-mount-namespace')
    assert severity == 'error'
    assert message == (f'{REFUSAL} (the mount namespace is {OTHER_NS} here and {HOST_MOUNT_NS} '
                       'for PID 1); mounts are refused')
    assert 'systemctl edit hugepagesd.service' in fix and 'ProtectSystem=' in fix
    # reads and the other changes are not affected
    mounts = hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'Mounts')
    assert [m[0] for m in mounts] == [fake_kernel.path(HAND_MOUNT.path)]
    polkit.allow(ACTION_POOLS)
    assert pool_call(conn, SMALL, 'SetMinimum', 6) == 6


@pytest.mark.fake_kernel(**PRIVATE)
def test_allowed_private_namespace_serves_mounts(start_service, conn, fake_kernel, polkit):
    svc = start_service(fake_kernel.root, args=['--allow-private-mount-namespace'], check=True)
    for name, error in errors_of(conn, fake_kernel).items():
        assert error.name == ERR_NOT_AUTHORIZED, (name, error)
    severity, _id, message, fix = entry(conn, 'private-mount-namespace')
    assert (severity, fix) == ('info', '')
    assert 'its mounts are seen only there' in message
    assert 'Mounts are made in this mount namespace only, as --allow-private-mount-namespace ' \
           'asks' in svc.log()


def root_line(mount_id):
    return f'{mount_id} 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw'


def mountinfo(fk, rel, root_id):
    fk.write(rel, '22 27 0:21 / /proc rw,nosuid - proc proc rw\n'
                  f'{root_line(root_id)}\n'
                  '28 27 0:5 / /dev rw,nosuid - devtmpfs udev rw\n')


@pytest.mark.fake_kernel(pools=POOLS, mount_ns=(HOST_MOUNT_NS, None))
@pytest.mark.parametrize('init_root,expected', [(27, ERR_NOT_AUTHORIZED), (46, ERR_NOT_SUPPORTED)],
                         ids=['same-root-mount', 'other-root-mount'])
def test_unreadable_pid_1_link_falls_back_to_the_root_mount(start_service, conn, fake_kernel, polkit,
                                                            init_root, expected):
    # As on VMs whose PID 1 holds a capability root lacks: its ns link
    # cannot be read, its mountinfo can.
    mountinfo(fake_kernel, 'proc/self/mountinfo', 27)
    mountinfo(fake_kernel, 'proc/1/mountinfo', init_root)
    svc = start_service(fake_kernel.root, check=True)
    _name, thunk = mount_calls(fake_kernel)[0]
    with pytest.raises(BusError) as e:
        thunk(conn)
    assert e.value.name == expected, e.value
    if expected == ERR_NOT_SUPPORTED:
        assert f'the mount on / is 27 here and {init_root} for PID 1' in e.value.message
        assert entry(conn, 'private-mount-namespace')[0] == 'error'
    else:
        assert entry(conn, 'private-mount-namespace') is None
        assert 'Mounts are seen system-wide: the mount on / is 27 here and 27 for PID 1' in svc.log()


@pytest.mark.fake_kernel(pools=POOLS, mount_ns=(None, None))
def test_nothing_to_compare_is_refused(service, conn, fake_kernel, polkit):
    allow_everything(polkit)
    for name, error in errors_of(conn, fake_kernel).items():
        assert error.name == ERR_NOT_SUPPORTED, (name, error)
        assert error.message.startswith(UNKNOWN), error.message
    assert polkit.checks() == []
    assert entry(conn, 'private-mount-namespace')[0] == 'error'


@pytest.mark.fake_kernel(pools=POOLS, mount_ns=(OTHER_NS, HOST_MOUNT_NS))
def test_apply_refuses_mounts_in_a_private_namespace(hugepagesd, fake_kernel):
    fake_kernel.write('etc/hugepagesd/hugepagesd.conf', '[pool 2MB]\nminimum = 3\n[mount global]\n')
    proc = subprocess.run([hugepagesd, '--kernel-root', fake_kernel.root, '--apply'],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0, proc.stdout
    lines = proc.stdout.splitlines()
    # the pool is applied, the mount is refused with the reason
    assert 'ok      pool 2MB minimum: requested 3, achieved 3' in lines
    refused = [line for line in lines if 'mount global' in line]
    assert len(refused) == 1 and REFUSAL in refused[0], lines
    assert not fake_kernel.exists('var')
    assert 'hugetlbfs mounts are refused' in proc.stderr
    # acknowledged, the same configuration gets as far as making the mount
    proc = subprocess.run([hugepagesd, '--kernel-root', fake_kernel.root, '--apply',
                           '--allow-private-mount-namespace'],
                          capture_output=True, text=True, timeout=60)
    assert REFUSAL not in proc.stdout
    assert not fake_kernel.exists("var")
