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
def test_unprivileged_change_allowed_by_polkit_succeeds(service, fake_kernel, polkit,
                                                        run_python_as, NOBODY):
    polkit.allow(ACTION_POOLS)
    [result] = run_python_as(NOBODY, [['pool', 2048, 'SetMinimum', [6], False]])
    assert result == {'ok': 6}
    assert fake_kernel.read_int(fake_kernel.pool_file(2048, 'nr_hugepages')) == 6


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
