# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""security.md cases 4, 9 and 35: how polkit's answers are used.

- 4: the method -> action matrix. For each polkit action, everything but
  that action is allowed: exactly the methods mapped to it are refused, all
  others get past authorization. The expected mapping is written out here,
  apart from the service's table, and the method list is checked against
  the interface XML, so that a new method cannot go untested.
- 9: polkitd answering with an error, with a challenge (is_challenge) or
  with "dismissed": denied every time, root included.
- 35: polkitd dying while a check is pending, then coming back.
"""

import os
import subprocess
import time
import xml.etree.ElementTree as ET

import pytest

import hpdtest
from conftest import Polkit, wait_for
from hpdtest import (ACTION_MOUNTS, ACTION_POOLS, ALL_ACTIONS, ERR_NOT_AUTHORIZED, MANAGER_IFACE,
                     MANAGER_PATH, PAGE_SIZE_IFACE, BusError, page_size_path, pool_call)
from fakekernel import Mount, NodePool, Pool, Tunables
from gi.repository import GLib

ACTION_TUNABLES = 'org.hugepages.manager.configure-tunables'
ACTION_BOOT = 'org.hugepages.manager.configure-boot'
SMALL = 2048
GIANT = 1048576

# The expected mapping, written independently of src/bus/hpd-auth.c.
EXPECTED_ACTIONS = {
    (PAGE_SIZE_IFACE, 'SetMinimum'): ACTION_POOLS,
    (PAGE_SIZE_IFACE, 'SetMaximum'): ACTION_POOLS,
    (PAGE_SIZE_IFACE, 'SetNodePages'): ACTION_POOLS,
    (PAGE_SIZE_IFACE, 'Demote'): ACTION_POOLS,
    (PAGE_SIZE_IFACE, 'CreateMount'): ACTION_MOUNTS,
    (MANAGER_IFACE, 'CreateMounts'): ACTION_MOUNTS,
    (MANAGER_IFACE, 'Unmount'): ACTION_MOUNTS,
    (MANAGER_IFACE, 'SetShmMax'): ACTION_TUNABLES,
    (MANAGER_IFACE, 'SetRecommendedShmMax'): ACTION_TUNABLES,
    (MANAGER_IFACE, 'SetShmGroup'): ACTION_TUNABLES,
    (MANAGER_IFACE, 'SetMinFreeKbytes'): ACTION_TUNABLES,
    (MANAGER_IFACE, 'SetRecommendedMinFreeKbytes'): ACTION_TUNABLES,
    (MANAGER_IFACE, 'SetZoneMovable'): ACTION_TUNABLES,
    (MANAGER_IFACE, 'SetThp'): ACTION_TUNABLES,
    (MANAGER_IFACE, 'ConfigureBoot'): ACTION_BOOT,
    (MANAGER_IFACE, 'RemoveOrphan'): ACTION_MOUNTS,
    (PAGE_SIZE_IFACE, 'Claim'): ACTION_POOLS,
    (PAGE_SIZE_IFACE, 'Release'): ACTION_POOLS,
}
READ_ONLY_METHODS = {(MANAGER_IFACE, 'Explain'), (MANAGER_IFACE, 'GetClaims')}
# Asks polkit, but a refusal narrows the reply instead of failing the call
ACTION_INSPECT = 'org.hugepages.manager.inspect-usage'
VIEW_METHODS = {(MANAGER_IFACE, 'GetUsage'): ACTION_INSPECT}

MiB = 1 << 20
ALLOW_LOWER = {'allow-lower': GLib.Variant('b', True)}
# (interface, method, object path, signature, arguments): each a real change
# on the tree below, valid, and not a no-op, so that it must ask polkit
CALLS = [
    (PAGE_SIZE_IFACE, 'SetMinimum', page_size_path(SMALL), 'ta{sv}', (6, {})),
    (PAGE_SIZE_IFACE, 'SetMaximum', page_size_path(SMALL), 'ta{sv}', (9, {})),
    (PAGE_SIZE_IFACE, 'SetNodePages', page_size_path(SMALL), 'uta{sv}', (1, 3, {})),
    (PAGE_SIZE_IFACE, 'Demote', page_size_path(GIANT), 'ta{sv}', (1, {})),
    (PAGE_SIZE_IFACE, 'CreateMount', page_size_path(SMALL), 'ssa{sv}', ('global', '', {})),
    (MANAGER_IFACE, 'CreateMounts', MANAGER_PATH, 'ssa{sv}', ('global', '', {})),
    (MANAGER_IFACE, 'Unmount', MANAGER_PATH, 'sa{sv}', (None, {})),   # the tree's mount
    (MANAGER_IFACE, 'SetShmMax', MANAGER_PATH, 'ta{sv}', (64 * MiB, {})),
    (MANAGER_IFACE, 'SetRecommendedShmMax', MANAGER_PATH, 'a{sv}', (ALLOW_LOWER,)),
    (MANAGER_IFACE, 'SetShmGroup', MANAGER_PATH, 'sa{sv}', ('users', {})),
    (MANAGER_IFACE, 'SetMinFreeKbytes', MANAGER_PATH, 'ta{sv}', (100000, {})),
    (MANAGER_IFACE, 'SetRecommendedMinFreeKbytes', MANAGER_PATH, 'a{sv}', (ALLOW_LOWER,)),
    (MANAGER_IFACE, 'SetZoneMovable', MANAGER_PATH, 'ba{sv}', (True, {})),
    (MANAGER_IFACE, 'SetThp', MANAGER_PATH, 'a{sv}a{sv}', ({'enabled': GLib.Variant('s', 'never')}, {})),
    (MANAGER_IFACE, 'ConfigureBoot', MANAGER_PATH, 'a{sv}', ({},)),
    (MANAGER_IFACE, 'RemoveOrphan', MANAGER_PATH, 'sa{sv}', (None, {})),   # ORPHAN
    (MANAGER_IFACE, 'GetUsage', MANAGER_PATH, 'a{sv}', ({},)),
    (PAGE_SIZE_IFACE, 'Claim', page_size_path(SMALL), 'sta{sv}', ('postgresql', 2, {})),
    (PAGE_SIZE_IFACE, 'Release', page_size_path(SMALL), 'sa{sv}', ('seeded', {})),   # SEEDED
]
POOLS = {SMALL: Pool(total=4, free=4, overcommit=2, nodes={0: NodePool(3, 3, 0), 1: NodePool(1, 1, 0)}),
         GIANT: Pool(total=3, free=3)}
# a claim Release can take back whatever Claim was allowed
SEEDED = 'etc/hugepagesd/claims.d/seeded.conf'
HAND_MOUNT = Mount('var/lib/hugetlbfs/pagesize-2MB', mode=0o770)
# a "mount" outside var/ (which must stay absent) holding a file nobody maps
ORPHAN_MOUNT = Mount('srv/hugetlbfs')
ORPHAN = 'srv/hugetlbfs/orphan'
TREE = dict(pools=POOLS, mounts=[HAND_MOUNT, ORPHAN_MOUNT],
            tunables=Tunables(min_free_kbytes=200000, treat_as_movable=0))


def xml_methods():
    root = ET.parse(hpdtest.INTERFACE_XML).getroot()
    return {(i.get('name'), m.get('name')) for i in root.findall('interface')
            for m in i.findall('method')}


def test_every_method_of_the_xml_is_in_the_matrix():
    assert set(EXPECTED_ACTIONS) | READ_ONLY_METHODS | set(VIEW_METHODS) == xml_methods()
    assert {(i, m) for i, m, *_ in CALLS} == set(EXPECTED_ACTIONS) | set(VIEW_METHODS)


def debian_with_boot_config(fk):
    fk.write('etc/debian_version', '12.11\n')
    fk.write('etc/default/grub', 'GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX=""\n')
    os.makedirs(fk.path('etc/default/grub.d'), exist_ok=True)
    # never run under --kernel-root, but it must be there
    fk.write('usr/sbin/update-grub', '#!/bin/sh\nexit 0\n')
    os.chmod(fk.path('usr/sbin/update-grub'), 0o755)
    fk.write('etc/hugepagesd/hugepagesd.conf', '[pool 1GB]\nminimum = 4G\n')


def call_one(conn, fk, iface, method, path, sig, args):
    if method == 'Unmount':
        args = (fk.path(HAND_MOUNT.path), args[1])
    if method == 'RemoveOrphan':
        args = (fk.path(ORPHAN), args[1])
    try:
        reply = hpdtest.call(conn, path, iface, method, GLib.Variant(f'({sig})', args))
        if method == 'GetUsage':
            return 'restricted' if reply[0]['restricted'] else 'ok'
        return 'ok'
    except BusError as e:
        return e.name


@pytest.mark.fake_kernel(**TREE)
@pytest.mark.parametrize('withheld', ALL_ACTIONS)
def test_method_action_matrix(service, conn, fake_kernel, polkit, withheld):
    debian_with_boot_config(fake_kernel)
    fake_kernel.write(ORPHAN, '')
    fake_kernel.write(SEEDED, '[2MB]\npages = 1\n')
    polkit.allow(*[a for a in ALL_ACTIONS if a != withheld])
    outcomes = {}
    for iface, method, path, sig, args in CALLS:
        before = len(polkit.checks())
        outcomes[method] = call_one(conn, fake_kernel, iface, method, path, sig, args)
        asked = [c.action for c in polkit.checks()[before:]]
        # every change asks polkit exactly once, for its own action
        assert asked == [{**EXPECTED_ACTIONS, **VIEW_METHODS}[(iface, method)]], (method, asked)
    # without its action GetUsage shows only the caller's own part
    assert outcomes.pop('GetUsage') == ('restricted' if withheld == ACTION_INSPECT else 'ok')
    refused = {m for m, outcome in outcomes.items() if outcome == ERR_NOT_AUTHORIZED}
    assert refused == {m for (_i, m), a in EXPECTED_ACTIONS.items() if a == withheld}, outcomes
    # the others got past authorization; only the mount methods then fail
    # here, as the fake tree has no var/ to mount on (nothing is mounted)
    for method, outcome in outcomes.items():
        if method not in refused:
            expected = {'ok'} if 'ount' not in method else {'ok', hpdtest.ERR_FAILED,
                                                              hpdtest.ERR_NOT_MOUNTED}
            assert outcome in expected, (method, outcome)
    assert fake_kernel.exists(ORPHAN) == (withheld == ACTION_MOUNTS)
    assert not fake_kernel.exists('var')


# --- case 9: what polkitd answers ---------------------------------------------

AUTHORITY = '/org/freedesktop/PolicyKit1/Authority'
AUTHORITY_IFACE = 'org.freedesktop.PolicyKit1.Authority'


class ScriptedPolkit:
    """A bare python-dbusmock object standing in for polkitd, whose
    CheckAuthorization runs the Python code given (so it can return any
    result, or raise any error)."""

    def __init__(self, bus, log_path):
        self.conn = bus.connect()
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus.address)
        with open(log_path, 'w') as log:
            self.proc = subprocess.Popen(
                ['/usr/bin/python3', '-m', 'dbusmock', '--system', Polkit.NAME, AUTHORITY,
                 AUTHORITY_IFACE], stdout=log, stderr=subprocess.STDOUT, env=env)
        wait_for(lambda: self.proc.poll() is not None or hpdtest.has_owner(self.conn, Polkit.NAME),
                 10, 'the scripted polkitd')
        assert self.proc.poll() is None, f'the scripted polkitd died; see {log_path}'

    def answer(self, code, out_sig='(bba{ss})'):
        hpdtest.call(self.conn, AUTHORITY, Polkit.MOCK, 'AddMethod',
                     GLib.Variant('(sssss)', (AUTHORITY_IFACE, 'CheckAuthorization',
                                              '(sa{sv})sa{ss}us', out_sig, code)),
                     dest=Polkit.NAME)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(5)
        self.conn.close_sync(None)


@pytest.fixture
def scripted(make_bus, start_service, fake_kernel, tmp_path):
    bus = make_bus()
    polkit = ScriptedPolkit(bus, str(tmp_path / 'scripted-polkitd.log'))
    svc = start_service(fake_kernel.root, bus=bus, check=True)
    conn = bus.connect()
    yield bus, polkit, conn, svc
    conn.close_sync(None)
    polkit.stop()


ANSWERS = {
    'not-authorized': ('ret = (False, False, {})', '(bba{ss})'),
    'challenge': ('ret = (False, True, {})', '(bba{ss})'),
    'dismissed': ("ret = (False, False, {'polkit.dismissed': 'true'})", '(bba{ss})'),
    'polkit-error': ("raise dbus.exceptions.DBusException('no', "
                     "name='org.freedesktop.PolicyKit1.Error.Failed')", '(bba{ss})'),
    'caller-gone-error': ("raise dbus.exceptions.DBusException('Could not get UID of name', "
                          "name='org.freedesktop.DBus.Error.NameHasNoOwner')", '(bba{ss})'),
    'access-denied-error': ("raise dbus.exceptions.DBusException('no', "
                            "name='org.freedesktop.DBus.Error.AccessDenied')", '(bba{ss})'),
}
# Not here: a reply of the wrong type. libpolkit reads the reply with
# g_variant_get() unchecked (a CRITICAL, then uninitialised values), so the
# service cannot defend against it; only polkitd's own user may own
# org.freedesktop.PolicyKit1 on the system bus (see tests/SECURITY.md).


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('interactive', [False, True], ids=['plain', 'interactive'])
@pytest.mark.parametrize('answer', list(ANSWERS))
def test_every_non_yes_answer_denies(scripted, fake_kernel, answer, interactive):
    _bus, polkit, conn, _svc = scripted
    polkit.answer(*ANSWERS[answer])
    before = fake_kernel.snapshot()
    # root, too: polkitd is there, so its answer decides
    with pytest.raises(BusError) as e:
        pool_call(conn, SMALL, 'SetMinimum', 6, interactive=interactive)
    assert e.value.name == ERR_NOT_AUTHORIZED, e.value
    assert fake_kernel.snapshot() == before
    if answer == 'challenge' and not interactive:
        assert 'did not allow interactive authorization' in e.value.message
    # and a plain yes still works afterwards: the denials left nothing behind
    polkit.answer('ret = (True, False, {})')
    assert pool_call(conn, SMALL, 'SetMinimum', 6) == 6


# --- case 35: polkitd dies during a check, and comes back -------------------------

CLIENT = r'''
import os, sys, json
sys.path.insert(0, %(here)r)
import hpdtest
c = hpdtest.connect(os.environ["DBUS_SYSTEM_BUS_ADDRESS"])
print(c.get_unique_name(), flush=True)
try:
    print(json.dumps({"ok": hpdtest.pool_call(c, 2048, "SetMinimum", int(sys.argv[1]), timeout_ms=30000)}))
except hpdtest.BusError as e:
    print(json.dumps({"error": e.name, "message": e.message}))
''' % {'here': os.path.dirname(os.path.abspath(__file__))}


def start_client(bus, uid, pages):
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus.address)
    return subprocess.Popen(['setpriv', f'--reuid={uid}', f'--regid={uid}', '--clear-groups',
                             '/usr/bin/python3', '-c', CLIENT, str(pages)],
                            stdout=subprocess.PIPE, text=True, env=env, cwd='/')


@pytest.mark.fake_kernel(pools=POOLS)
def test_polkitd_dying_during_a_check_denies_and_recovers(make_bus, start_service, fake_kernel,
                                                          tmp_path, NOBODY):
    import json
    bus = make_bus()
    polkit = Polkit(bus, str(tmp_path / 'polkitd-1.log'))
    polkit.reset()
    polkit.allow(ACTION_POOLS)
    polkit.hang(True)       # it would say yes, but not yet
    start_service(fake_kernel.root, bus=bus, check=True)
    before = fake_kernel.snapshot()
    client = start_client(bus, NOBODY, 7)
    try:
        client.stdout.readline()
        wait_for(polkit.have_hanging, 10, 'the check to reach polkitd')
        polkit.proc.kill()      # polkitd crashes with the check in flight
        polkit.proc.wait()
        started = time.monotonic()
        result = json.loads(client.stdout.readline())
        assert time.monotonic() - started < 5
    finally:
        client.kill()
        client.wait()
        polkit.conn.close_sync(None)
    # not allowed just because the answer never came
    assert result.get('error') == ERR_NOT_AUTHORIZED, result
    assert fake_kernel.snapshot() == before

    # polkitd is back (as systemd would restart it): calls work again
    again = Polkit(bus, str(tmp_path / 'polkitd-2.log'))
    try:
        again.reset()
        again.allow(ACTION_POOLS)
        client = start_client(bus, NOBODY, 7)
        client.stdout.readline()
        assert json.loads(client.stdout.readline()) == {'ok': 7}
        client.wait(10)
        assert [c.action for c in again.checks()] == [ACTION_POOLS]
        again.allow()
        client = start_client(bus, NOBODY, 8)
        client.stdout.readline()
        assert json.loads(client.stdout.readline())['error'] == ERR_NOT_AUTHORIZED
        client.wait(10)
        assert fake_kernel.read_int(fake_kernel.pool_file(SMALL, 'nr_hugepages')) == 7
    finally:
        again.stop()
