# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Properties.Set on every property is refused, for root and for an
unprivileged caller, and changes nothing (a codegen skeleton's Set would
bypass polkit). The property list comes from the interface XML and is
checked against the live service's introspection."""

import pytest

import hpdtest
from hpdtest import (MANAGER_IFACE, MANAGER_PATH, PAGE_SIZE_IFACE, PROPS_IFACE, BusError,
                     page_size_path)
from fakekernel import Mount, Pool
from gi.repository import GLib

POOLS = {2048: Pool(total=4, free=3, resv=1, overcommit=2), 1048576: Pool(total=1, free=1)}
# so that the Mounts properties have values to keep
MOUNTS = [Mount('var/lib/hugetlbfs/pagesize-2MB', mode=0o770, size=4 << 20),
          Mount('/dev/hugepages', page_size_kb=1048576, min_size=1 << 30, nr_inodes=9)]
# the attribute types of Manager.Mounts, to send a value back
MOUNT_ATTRIBUTES = {'page-size': 't', 'uid': 'u', 'gid': 'u', 'mode': 'u', 'flags': 's',
                    'managed': 'b', 'max-size': 't', 'min-size': 't', 'max-inodes': 't',
                    'options-uid': 'u', 'options-gid': 'u', 'options-mode': 'u',
                    'root-known': 'b'}
OBJECTS = [(MANAGER_PATH, MANAGER_IFACE), (page_size_path(2048), PAGE_SIZE_IFACE),
           (page_size_path(1048576), PAGE_SIZE_IFACE)]
PROPERTIES = [(path, iface, name, sig)
              for path, iface in OBJECTS
              for name, (sig, _access) in sorted(hpdtest.xml_properties(iface).items())]
APPLY_AT_BOOT = {'enabled': 'b', 'mechanism': 's', 'message': 's', 'fix': 's'}
REFUSALS = {hpdtest.DBUS_INVALID_ARGS, hpdtest.DBUS_PROPERTY_READ_ONLY, hpdtest.DBUS_ACCESS_DENIED,
            hpdtest.ERR_NOT_AUTHORIZED}


def different_value(sig, current):
    """A value of type sig that differs from current."""
    if sig == 'a{s(sas)}':   # ThpSettings
        return {**current, 'hugepages-4kB/enabled': ('always', ['always', 'never'])}
    if sig == 't':
        return current + 1 if current < hpdtest.UINT64_MAX else 0
    if sig == 'u':
        return current + 1
    if sig == 'b':
        return not current
    if sig == 's':
        return current + 'x'
    if sig in ('at', 'au'):
        return list(current) + [7]
    if sig == 'as':
        return list(current) + ['/mnt/other']
    if sig == 'aa{sv}':    # the records: Nodes, ConfiguredState, Drift, overrides, Claims
        return list(current) + [{'key': 'pool 4MB minimum', 'node': 99}]
    if sig == 'a{sv}':     # ApplyAtBoot; LastAllocation, empty before any allocation
        if 'enabled' in current:
            return {**current, 'enabled': not current['enabled']}
        return {**current, 'requested': current.get('requested', 0) + 1}
    if sig == 'a(sa{sv})':
        return list(current) + [('/mnt/other', {'page-size': 2 << 20, 'uid': 0, 'gid': 0,
                                                'mode': 0o777, 'flags': 'rw', 'managed': True})]
    raise AssertionError(f'no test value for type {sig}')


def variant(sig, value):
    """value (as unpacked from a reply) as a GLib.Variant of type sig."""
    if sig == 'a(sa{sv})':
        value = [(path, {k: GLib.Variant(MOUNT_ATTRIBUTES[k], v) for k, v in attrs.items()})
                 for path, attrs in value]
    if sig == 'a{sv}':
        value = {k: GLib.Variant(APPLY_AT_BOOT.get(k, 't'), v) for k, v in value.items()}
    if sig == 'aa{sv}':
        value = [{k: GLib.Variant('u' if isinstance(v, int) and not isinstance(v, bool) else
                                  'b' if isinstance(v, bool) else 's', v)
                  for k, v in record.items()} for record in value]
    return GLib.Variant(sig, value)


def with_configuration(fk):
    """A configuration with a bad line and a value set twice, so that
    ConfigurationErrors, ConfigurationOverrides, ConfiguredState and Drift
    all have values to send back, and a claim a package shipped, for
    Claims."""
    import os
    path = fk.path('etc/hugepagesd/hugepagesd.conf')
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write('[pool 2MB]\nminimum = 98\nminimum = 99\nbad line\n')
    fk.write('usr/lib/hugepagesd/claims.d/postgresql.conf', '[2MB]\npages = 2\n')


def state(conn, fk):
    return ({(p, i): hpdtest.get_all(conn, p, i) for p, i in OBJECTS}, fk.snapshot())


@pytest.mark.fake_kernel(pools=POOLS, mounts=MOUNTS)
@pytest.mark.parametrize('path,iface', OBJECTS)
@pytest.mark.valgrind
def test_introspection_matches_the_xml_and_is_read_only(service, conn, path, iface):
    live = hpdtest.introspected_properties(conn, path, iface)
    assert live == hpdtest.xml_properties(iface)
    assert live, f'no properties on {path}'
    assert {access for _sig, access in live.values()} == {'read'}


@pytest.mark.fake_kernel(pools=POOLS, mounts=MOUNTS)
@pytest.mark.parametrize('path,iface,name,sig', PROPERTIES,
                         ids=[f'{p.rsplit("/", 1)[-1]}.{n}' for p, _i, n, _s in PROPERTIES])
def test_set_refused_for_root(service, conn, fake_kernel, polkit, path, iface, name, sig):
    polkit.allow_unknown(True)  # even "allowed by polkit" must not make Set work
    polkit.allow(*hpdtest.ALL_ACTIONS)
    with_configuration(fake_kernel)
    before = state(conn, fake_kernel)
    current = hpdtest.get(conn, path, iface, name)
    if sig in ('as', 'a(sa{sv})', 'aa{sv}'):
        assert current, f'{name} is empty: the test would not send a value back'
    for value in (variant(sig, different_value(sig, current)), variant(sig, current),
                  GLib.Variant('s', 'wrong type')):
        with pytest.raises(BusError) as e:
            hpdtest.call(conn, path, PROPS_IFACE, 'Set', GLib.Variant('(ssv)', (iface, name, value)))
        assert e.value.name in REFUSALS, e.value
    assert state(conn, fake_kernel) == before
    assert polkit.checks() == []


@pytest.mark.fake_kernel(pools=POOLS, mounts=MOUNTS)
@pytest.mark.valgrind
def test_set_refused_for_unprivileged_caller(service, conn, fake_kernel, run_python_as, NOBODY):
    with_configuration(fake_kernel)
    before = state(conn, fake_kernel)
    ops = []
    for path, iface, name, sig in PROPERTIES:
        current = hpdtest.get(conn, path, iface, name)
        value = variant(sig, different_value(sig, current))
        ops.append(['set', path, iface, name, value.print_(True)])
    ops.append(['set', MANAGER_PATH, MANAGER_IFACE, 'NoSuchProperty', 'uint32 1'])
    results = run_python_as(NOBODY, ops)
    assert len(results) == len(ops)
    for op, result in zip(ops, results):
        assert result.get('error') in REFUSALS, f'Set {op[3]} as nobody: {result}'
    assert state(conn, fake_kernel) == before
