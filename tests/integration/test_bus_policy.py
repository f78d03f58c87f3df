# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""The project's real bus policy (data/dbus/org.hugepages.Manager.conf) on a
real dbus-daemon of type system: only root owns the name; anyone may read
and call, and polkit inside the service (not the bus) refuses changes."""

import pytest

import hpdtest
from hpdtest import (ACTION_POOLS, BUS_NAME, DBUS_ACCESS_DENIED, ERR_NOT_AUTHORIZED, MANAGER_IFACE,
                     MANAGER_PATH, PAGE_SIZE_IFACE, page_size_path)
from fakekernel import Pool

POOLS = {2048: Pool(total=4, free=3, resv=1, overcommit=2), 1048576: Pool(total=1, free=1)}


def test_policy_file_is_the_projects(bus):
    with open(bus.config) as f:
        config = f.read()
    assert f'<includedir>{hpdtest.POLICY_DIR}</includedir>' in config
    with open(f'{hpdtest.POLICY_DIR}/org.hugepages.Manager.conf') as f:
        assert 'org.hugepages.Manager' in f.read()


@pytest.mark.parametrize('name', [BUS_NAME, 'org.hugepages.Manager.Fake'])
def test_unprivileged_cannot_own_the_name(bus, run_python_as, NOBODY, name):
    [result] = run_python_as(NOBODY, [['request_name', name]])
    assert result.get('error') == DBUS_ACCESS_DENIED, result


def test_unprivileged_cannot_own_while_service_runs(service, conn, run_python_as, NOBODY):
    [result] = run_python_as(NOBODY, [['request_name', BUS_NAME]])
    assert result.get('error') == DBUS_ACCESS_DENIED, result
    assert service.owns_name(conn)


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind
def test_unprivileged_can_read(service, conn, run_python_as, NOBODY):
    ops = [['get_all', MANAGER_PATH, MANAGER_IFACE],
           ['get_all', page_size_path(2048), PAGE_SIZE_IFACE],
           ['get', page_size_path(1048576), PAGE_SIZE_IFACE, 'Total']]
    results = run_python_as(NOBODY, ops)
    assert all('ok' in r for r in results), results
    assert results[0]['ok']['PageSizes'] == hpdtest.manager_props(conn)['PageSizes']
    assert results[1]['ok']['Total'] == 4
    assert results[1]['ok']['Overcommit'] == 2
    assert results[2]['ok'] == 1


@pytest.mark.fake_kernel(pools=POOLS)
def test_unprivileged_change_is_refused_by_polkit_not_the_bus(service, fake_kernel, polkit,
                                                              run_python_as, NOBODY):
    before = fake_kernel.snapshot()
    ops = [['unique_name'],
           ['pool', 2048, 'SetMinimum', [6], False],
           ['pool', 2048, 'SetMaximum', [9], True],
           ['pool', 2048, 'SetNodePages', [1, 5], False],
           ['pool', 1048576, 'Demote', [1], False]]
    results = run_python_as(NOBODY, ops)
    name = results[0]['ok']
    for op, result in zip(ops[1:], results[1:]):
        assert result.get('error') == ERR_NOT_AUTHORIZED, (op, result)
    assert fake_kernel.snapshot() == before
    checks = polkit.checks()
    assert [c.subject for c in checks] == [('system-bus-name', {'name': name})] * 4
    assert [c.flags for c in checks] == [0, 1, 0, 0]
    assert {c.action for c in checks} == {ACTION_POOLS}


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.valgrind
def test_unprivileged_change_allowed_by_polkit_succeeds(service, fake_kernel, polkit,
                                                        run_python_as, NOBODY):
    polkit.allow(ACTION_POOLS)
    [result] = run_python_as(NOBODY, [['pool', 2048, 'SetMinimum', [6], False]])
    assert result == {'ok': 6}
    assert fake_kernel.read_int(fake_kernel.pool_file(2048, 'nr_hugepages')) == 6


@pytest.mark.valgrind
def test_unprivileged_foreign_interface_refused_by_the_bus(service, run_as, NOBODY):
    # the policy allows our interfaces only; anything else stops at the bus
    code = ('import os, hpdtest\n'
            'from gi.repository import GLib\n'
            'c = hpdtest.connect(os.environ["DBUS_SYSTEM_BUS_ADDRESS"])\n'
            'for iface in ("org.example.Other", "org.freedesktop.DBus.Debug"):\n'
            '    try:\n'
            '        hpdtest.call(c, hpdtest.MANAGER_PATH, iface, "Anything")\n'
            '        print("delivered")\n'
            '    except hpdtest.BusError as e:\n'
            '        print(e.name)\n')
    proc = run_as(NOBODY, ['/usr/bin/python3', '-c', code],
                  env={'PYTHONPATH': hpdtest.os.path.dirname(hpdtest.__file__)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [DBUS_ACCESS_DENIED, DBUS_ACCESS_DENIED]


# --- what the policy allows, and that it allows nothing more ------------------

POLICY_FILE = f'{hpdtest.POLICY_DIR}/org.hugepages.Manager.conf'
OUR_INTERFACES = {MANAGER_IFACE, PAGE_SIZE_IFACE, 'org.freedesktop.DBus.ObjectManager',
                  'org.freedesktop.DBus.Introspectable', 'org.freedesktop.DBus.Properties',
                  'org.freedesktop.DBus.Peer'}


def test_policy_file_has_exactly_the_expected_rules():
    """Only root may own the name; anyone may send to it on our interfaces;
    no deny rules (which would change other services), no receive or
    eavesdrop rules, no send rule without a destination, no other policy."""
    import xml.etree.ElementTree as ET
    root = ET.parse(POLICY_FILE).getroot()
    assert root.tag == 'busconfig'
    assert [child.tag for child in root] == ['policy', 'policy']
    by_context = {tuple(sorted(p.attrib.items())): p for p in root.findall('policy')}
    assert set(by_context) == {(('user', 'root'),), (('context', 'default'),)}
    root_rules = [(r.tag, dict(r.attrib)) for r in by_context[(('user', 'root'),)]]
    assert root_rules == [('allow', {'own': BUS_NAME})]
    default_rules = [(r.tag, dict(r.attrib)) for r in by_context[(('context', 'default'),)]]
    assert all(tag == 'allow' for tag, _ in default_rules)
    assert all(set(attrs) == {'send_destination', 'send_interface'} for _, attrs in default_rules)
    assert all(attrs['send_destination'] == BUS_NAME for _, attrs in default_rules)
    assert {attrs['send_interface'] for _, attrs in default_rules} == OUR_INTERFACES
    assert len(default_rules) == len(OUR_INTERFACES)


def test_root_may_own_the_name_and_nothing_else(make_bus):
    lonely = make_bus()   # no service on it
    c = lonely.connect()
    try:
        reply = hpdtest.call(c, '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'RequestName',
                             hpdtest.GLib.Variant('(su)', (BUS_NAME, 4)), '(u)',
                             dest='org.freedesktop.DBus')
        assert reply == (1,)   # DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER
        # the policy opens our name only, not names that look like it
        for name in ('org.hugepages.Manager2', 'org.hugepages.Manager.Other', 'org.hugepages'):
            with pytest.raises(hpdtest.BusError) as e:
                hpdtest.call(c, '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'RequestName',
                             hpdtest.GLib.Variant('(su)', (name, 4)), '(u)',
                             dest='org.freedesktop.DBus')
            assert e.value.name == DBUS_ACCESS_DENIED, name
    finally:
        c.close_sync(None)


EVERYONE_CALLS = r'''
import json, os, sys
sys.path.insert(0, %(here)r)
import hpdtest
from gi.repository import GLib
c = hpdtest.connect(os.environ["DBUS_SYSTEM_BUS_ADDRESS"])
other = sys.argv[1]
out = {}
def attempt(key, dest, path, iface, method, params=None, reply=None):
    try:
        hpdtest.call(c, path, iface, method, params, reply, dest=dest)
        out[key] = "ok"
    except hpdtest.BusError as e:
        out[key] = e.name
M, P = hpdtest.MANAGER_PATH, hpdtest.page_size_path(2048)
B = hpdtest.BUS_NAME
attempt("introspect manager", B, M, "org.freedesktop.DBus.Introspectable", "Introspect")
attempt("introspect page size", B, P, "org.freedesktop.DBus.Introspectable", "Introspect")
attempt("ping", B, M, "org.freedesktop.DBus.Peer", "Ping")
attempt("machine id", B, M, "org.freedesktop.DBus.Peer", "GetMachineId")
attempt("get", B, M, "org.freedesktop.DBus.Properties", "Get",
        GLib.Variant("(ss)", (hpdtest.MANAGER_IFACE, "Version")))
attempt("get all", B, P, "org.freedesktop.DBus.Properties", "GetAll",
        GLib.Variant("(s)", (hpdtest.PAGE_SIZE_IFACE,)))
attempt("managed objects", B, M, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects")
attempt("explain", B, M, hpdtest.MANAGER_IFACE, "Explain", GLib.Variant("(a{sv})", ({},)))
attempt("set minimum", B, P, hpdtest.PAGE_SIZE_IFACE, "SetMinimum",
        GLib.Variant("(ta{sv})", (5, {})))
# the same interfaces towards another connection: our policy must not open them
attempt("our interface elsewhere", other, M, hpdtest.MANAGER_IFACE, "Explain",
        GLib.Variant("(a{sv})", ({},)))
attempt("page size elsewhere", other, P, hpdtest.PAGE_SIZE_IFACE, "SetMinimum",
        GLib.Variant("(ta{sv})", (5, {})))
attempt("properties elsewhere", other, M, "org.freedesktop.DBus.Properties", "GetAll",
        GLib.Variant("(s)", (hpdtest.MANAGER_IFACE,)))
attempt("peer elsewhere", other, M, "org.freedesktop.DBus.Peer", "Ping")
# and other interfaces towards us
attempt("foreign interface", B, M, "org.example.Other", "Anything")
attempt("monitoring", B, M, "org.freedesktop.DBus.Monitoring", "BecomeMonitor",
        GLib.Variant("(asu)", ([], 0)))
print(json.dumps(out))
''' % {'here': hpdtest.os.path.dirname(hpdtest.os.path.abspath(hpdtest.__file__))}


@pytest.mark.fake_kernel(pools=POOLS)
def test_everyone_may_call_our_interfaces_and_nothing_else(service, conn, polkit, run_as, NOBODY):
    import json
    # conn is root's: a destination that would answer anything it is sent
    proc = run_as(NOBODY, ['/usr/bin/python3', '-c', EVERYONE_CALLS, conn.get_unique_name()])
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    for key in ('introspect manager', 'introspect page size', 'ping', 'machine id', 'get',
                'get all', 'managed objects', 'explain'):
        assert out[key] == 'ok', (key, out[key])
    assert out['set minimum'] == ERR_NOT_AUTHORIZED     # delivered; polkit said no
    for key in ('our interface elsewhere', 'page size elsewhere', 'properties elsewhere',
                'peer elsewhere', 'foreign interface', 'monitoring'):
        assert out[key] == DBUS_ACCESS_DENIED, (key, out[key])


NO_INTERFACE = r'''
import os
from gi.repository import Gio, GLib
c = Gio.DBusConnection.new_for_address_sync(os.environ["DBUS_SYSTEM_BUS_ADDRESS"],
    Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
    None, None)
m = Gio.DBusMessage.new_method_call("org.hugepages.Manager", "/org/hugepages/Manager", None, "Explain")
m.set_body(GLib.Variant("(a{sv})", ({},)))
r = c.send_message_with_reply_sync(m, Gio.DBusSendMessageFlags.NONE, 5000, None)[0]
print(r.get_error_name() if r.get_message_type() == Gio.DBusMessageType.ERROR else "ok")
'''


def test_a_call_without_an_interface_stops_at_the_bus(service, run_as, NOBODY):
    """The interface field is optional in a method call; our allow rules all
    name one, so such a call matches none of them (dbus CVE-2008-0595)."""
    proc = run_as(NOBODY, ['/usr/bin/python3', '-c', NO_INTERFACE])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == DBUS_ACCESS_DENIED
