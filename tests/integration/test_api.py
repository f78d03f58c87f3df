# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""The API keeps its own promises: every property says with
org.freedesktop.DBus.Property.EmitsChangedSignal how its changes are
announced, and the service announces them that way ("const": never changes
while the service runs; "true": PropertiesChanged with the new value;
"invalidates": PropertiesChanged naming it without a value; "false":
never announced)."""

import time
import xml.etree.ElementTree as ET

import pytest

import hpdtest
from hpdtest import MANAGER_IFACE, MANAGER_PATH, PAGE_SIZE_IFACE, PROPS_IFACE, page_size_path
from conftest import TIMEOUT_FACTOR
from fakekernel import (MIN_FREE_KBYTES, SHMMAX, THP_CHOICES, THP_DIR, Mount, Tunables,
                        choice_text, size_dir)
from hpdtunables import ACTION_TUNABLES
from test_cheap_reads import wait_for_log

from gi.repository import Gio, GLib

ANNOTATION = 'org.freedesktop.DBus.Property.EmitsChangedSignal'
VALUES = ('true', 'invalidates', 'const', 'false')
INTERVAL_S = 0.2
SIZES_KB = (2048, 1048576)


def annotations(node, iface):
    """{property: [EmitsChangedSignal values]} of iface in an introspection tree."""
    for i in node.findall('interface'):
        if i.get('name') == iface:
            return {p.get('name'): [a.get('value') for a in p.findall('annotation')
                                    if a.get('name') == ANNOTATION]
                    for p in i.findall('property')}
    raise KeyError(iface)


def xml_annotations(iface):
    return annotations(ET.parse(hpdtest.INTERFACE_XML).getroot(), iface)


@pytest.mark.parametrize('iface', [MANAGER_IFACE, PAGE_SIZE_IFACE])
def test_every_property_says_how_its_changes_are_announced(iface):
    found = xml_annotations(iface)
    assert found
    missing = sorted(name for name, values in found.items() if len(values) != 1)
    assert not missing, f'properties without exactly one {ANNOTATION}: {missing}'
    wrong = {name: values[0] for name, values in found.items() if values[0] not in VALUES}
    assert not wrong


def test_the_service_introspects_the_annotations(service, conn):
    for path, iface in ((MANAGER_PATH, MANAGER_IFACE), (page_size_path(2048), PAGE_SIZE_IFACE)):
        assert annotations(hpdtest.introspect(conn, path), iface) == xml_annotations(iface)


class Recorder:
    """PropertiesChanged of the service, as [(path, interface, changed, invalidated)]."""

    def __init__(self, bus):
        self.conn = bus.connect()
        self.events = []
        owner = hpdtest.name_owner(self.conn)
        self.sub = self.conn.signal_subscribe(owner, PROPS_IFACE, 'PropertiesChanged', None, None,
                                              Gio.DBusSignalFlags.NONE, self._changed)
        hpdtest.name_owner(self.conn)
        hpdtest.managed_objects(self.conn)   # a caller: a watcher of the refresh

    def _changed(self, conn, sender, path, signal_iface, signal_name, params):
        interface, changed, invalidated = params.unpack()
        self.events.append((path, interface, changed, invalidated))

    def pump(self, seconds):
        deadline = time.monotonic() + seconds
        context = GLib.MainContext.default()
        while time.monotonic() < deadline:
            while context.iteration(False):
                pass
            time.sleep(0.005)

    def close(self):
        self.conn.signal_unsubscribe(self.sub)
        self.conn.close_sync(None)


def snapshot(conn):
    objects = {MANAGER_PATH: (MANAGER_IFACE, hpdtest.manager_props(conn))}
    for size_kb in SIZES_KB:
        objects[page_size_path(size_kb)] = (PAGE_SIZE_IFACE, hpdtest.page_size_props(conn, size_kb))
    return objects


def change_everything(fk):
    """Changes behind the service's back what its properties come from,
    the facts of the const ones included."""
    for size_kb in SIZES_KB:
        fk.write(fk.pool_file(size_kb, 'nr_hugepages'), 3)
        fk.write(fk.pool_file(size_kb, 'free_hugepages'), 2)
        fk.write(fk.node_file(1, size_kb, 'nr_hugepages'), 2)
        fk.write(fk.node_file(1, size_kb, 'free_hugepages'), 1)
    fk.write(fk.pool_file(2048, 'nr_overcommit_hugepages'), 5)
    if fk.exists(f'{size_dir(1048576)}/demote_size'):
        fk.write(f'{size_dir(1048576)}/demote_size', '4096kB')
    fk.mem_total_kb += 1024 * 1024
    fk.write('proc/meminfo', fk.meminfo_text())
    fk.write(MIN_FREE_KBYTES, fk.read_int(MIN_FREE_KBYTES) + 7)
    fk.write(SHMMAX, 1 << 33)
    rel = f'{THP_DIR}/enabled'
    current, _choices = fk.thp_choice(rel)
    other = next(c for c in THP_CHOICES['enabled'] if c != current)
    fk.write(rel, choice_text(THP_CHOICES['enabled'], other))
    fk.write_mountinfo([Mount('/dev/hugepages', flags='rw,relatime', source='hugetlbfs')])


def test_announcements_keep_the_annotations(start_service, fake_kernel, polkit, bus, conn):
    service = start_service(fake_kernel.root, args=(f'--refresh-interval={int(INTERVAL_S * 1000)}',),
                            check=True)
    recorder = Recorder(bus)
    try:
        wait_for_log(service, 'Watching ' + recorder.conn.get_unique_name(), 1, 5)
        before = snapshot(conn)
        change_everything(fake_kernel)
        # a few refreshes, then the values the watcher must have been told
        recorder.pump(5 * INTERVAL_S + 0.5 * TIMEOUT_FACTOR)
        after = snapshot(conn)
        recorder.pump(2 * INTERVAL_S)
    finally:
        recorder.close()

    changed_names = set()
    for path, (iface, values) in after.items():
        kinds = {name: v[0] for name, v in xml_annotations(iface).items()}
        announced = {}
        invalidated = set()
        for p, i, changed, gone in recorder.events:
            if p == path and i == iface:
                announced.update(changed)
                invalidated.update(gone)
        for name, kind in kinds.items():
            old, new = before[path][1][name], values[name]
            if old != new:
                changed_names.add(name)
            if kind == 'const':
                assert new == old, f'const {name} on {path} changed'
                assert name not in announced and name not in invalidated, name
            elif kind == 'false':
                assert name not in announced and name not in invalidated, name
            elif kind == 'invalidates':
                assert name not in announced, name
                assert old == new or name in invalidated, f'{name} on {path} not invalidated'
            else:
                assert name not in invalidated, name
                if old != new:
                    assert announced.get(name) == new, f'{name} on {path}: {old!r} -> {new!r} ' \
                                                       f'announced as {announced.get(name)!r}'
    # the changes reached the properties of every kind of source
    assert {'Total', 'Free', 'Nodes', 'Overcommit', 'MemTotal', 'MinFreeKbytes', 'ShmMax',
            'ThpSettings', 'Mounts'} <= changed_names


# --- the shapes of 1.0 ---------------------------------------------------------

# 0.1.0's names that 1.0 replaced (docs/api-changes-0.1.0.md)
GONE = {MANAGER_IFACE: {'ThpEnabled', 'ThpDefrag', 'ThpShmemEnabled', 'ShmAll',
                        'RecommendedShmAll'}}
# every record a property or a reply holds is a dictionary, so it can grow
RECORDS = {MANAGER_IFACE: {'ConfiguredState', 'ConfigurationOverrides', 'Drift', 'Claims'},
           PAGE_SIZE_IFACE: {'Nodes'}}


def test_records_are_dictionaries_and_duplicates_are_gone(service, conn):
    for path, iface in ((MANAGER_PATH, MANAGER_IFACE), (page_size_path(2048), PAGE_SIZE_IFACE)):
        props = hpdtest.introspected_properties(conn, path, iface)
        assert not GONE.get(iface, set()) & set(props)
        for name in RECORDS[iface]:
            assert props[name][0] == 'aa{sv}', name
        # no other property holds a tuple, whose fields cannot grow, but
        # Mounts (path, attributes) and ThpSettings' (current, allowed)
        assert [n for n, (t, _a) in props.items()
                if '(' in t and n not in ('Mounts', 'ThpSettings')] == []
    node = hpdtest.introspect(conn, MANAGER_PATH)
    explain = node.find("interface[@name='org.hugepages.Manager']/method[@name='Explain']")
    assert [a.get('type') for a in explain.findall("arg[@direction='out']")] == ['aa{sv}']


def test_claims_have_one_shape_and_the_whole_pool_no_node(service, conn, fake_kernel, polkit):
    polkit.allow(hpdtest.ACTION_POOLS)
    for consumer, options in (('whole', {}), ('one-node', {'node': GLib.Variant('u', 1)})):
        hpdtest.call(conn, page_size_path(2048), PAGE_SIZE_IFACE, 'Claim',
                     GLib.Variant('(sta{sv})', (consumer, 1, options)), '(t)')
    prop = hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'Claims')
    got = hpdtest.call(conn, MANAGER_PATH, MANAGER_IFACE, 'GetClaims',
                       GLib.Variant('(a{sv})', ({},)), '(aa{sv})')[0]
    assert prop == got
    assert {c['consumer']: c.get('node') for c in got} == {'whole': None, 'one-node': 1}


def test_mount_limits_have_the_names_create_mounts_takes(service, conn, fake_kernel):
    fake_kernel.write_mountinfo([Mount('/mnt/limited', size=4 << 20, min_size=2 << 20,
                                       nr_inodes=5)])
    (path, attrs), = hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'Mounts')
    assert (attrs['max-size'], attrs['min-size'], attrs['max-inodes']) == (4 << 20, 2 << 20, 5)
    assert 'size' not in attrs and 'nr-inodes' not in attrs


@pytest.mark.fake_kernel(tunables=Tunables(movable_gigantic_pages=0))
def test_every_tunable_change_replies_what_the_kernel_holds(service, conn, fake_kernel, polkit):
    polkit.allow(ACTION_TUNABLES)
    changes = [
        ('SetShmMax', 'ta{sv}', 1 << 30, '(t)', 'ShmMax'),
        ('SetMinFreeKbytes', 'ta{sv}', 70000, '(t)', 'MinFreeKbytes'),
        ('SetShmGroup', 'sa{sv}', '0', '(u)', 'ShmGroup'),
        ('SetZoneMovable', 'ba{sv}', True, '(b)', 'ZoneMovable'),
    ]
    for method, sig, value, reply, prop in changes:
        for dry_run in (True, False):
            options = {'dry-run': GLib.Variant('b', True)} if dry_run else {}
            got = hpdtest.call(conn, MANAGER_PATH, MANAGER_IFACE, method,
                               GLib.Variant(f'({sig})', (value, options)), reply)[0]
            if not dry_run:
                assert got == hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, prop), method


def test_set_thp_replies_the_settings_the_kernel_holds(service, conn, fake_kernel, polkit):
    polkit.allow(ACTION_TUNABLES)
    current = hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'ThpSettings')['enabled'][0]
    other = next(c for c in THP_CHOICES['enabled'] if c != current)
    settings = {'enabled': GLib.Variant('s', other),
                'khugepaged/pages_to_scan': GLib.Variant('u', 1024)}
    asked = {'enabled': other, 'khugepaged/pages_to_scan': 1024}

    dry = hpdtest.call(conn, MANAGER_PATH, MANAGER_IFACE, 'SetThp',
                       GLib.Variant('(a{sv}a{sv})', (settings, {'dry-run': GLib.Variant('b', True)})),
                       '(a{sv})')[0]
    assert dry == asked
    assert hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'ThpSettings')['enabled'][0] == current

    got = hpdtest.call(conn, MANAGER_PATH, MANAGER_IFACE, 'SetThp',
                       GLib.Variant('(a{sv}a{sv})', (settings, {})), '(a{sv})')[0]
    assert got == asked
    assert got['enabled'] == hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'ThpSettings')['enabled'][0]
    assert int(fake_kernel.read(f'{THP_DIR}/khugepaged/pages_to_scan')) == 1024
    # what the kernel already holds is replied as well, read back
    again = hpdtest.call(conn, MANAGER_PATH, MANAGER_IFACE, 'SetThp',
                         GLib.Variant('(a{sv}a{sv})', (settings, {})), '(a{sv})')[0]
    assert again == asked
