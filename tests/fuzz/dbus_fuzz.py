#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""An in-house D-Bus fuzzer for hugepagesd (dfuzzer is not packaged for
Debian 12). Run as root with Debian's interpreter:

    /usr/bin/python3 tests/fuzz/dbus_fuzz.py --calls 50000 --seed 1 --mode deny
    /usr/bin/python3 tests/fuzz/dbus_fuzz.py --calls 50000 --seed 2 --mode allow \\
        [--builddir build] [--findings FILE] [--in-flight 64] [--batch 1000]
    /usr/bin/python3 tests/fuzz/dbus_fuzz.py --seed 1 --mode deny --replay 417,9012

Like the integration fixtures (whose classes it imports from
tests/integration/conftest.py) it starts a private system-type dbus-daemon
with the project's real bus policy, python-dbusmock's polkitd and hugepagesd
with --kernel-root on a fresh fake kernel tree (tests/fakekernel.py). Then:

- it introspects every object the service exports (the tree below "/" and
  GetManagedObjects), and for every method and property builds calls from
  the signatures: boundary and random values per D-Bus type, the method's
  own option keys with right and wrong types, unknown and duplicate keys,
  33 and thousands of keys, long (64 KiB, 1 MiB) and odd strings; and
  malformed calls: missing, extra and wrong-typed arguments, unknown
  methods, interfaces and objects, very long object paths,
  Properties.Get/GetAll/Set with good and bad names;
- it sends them asynchronously with a bounded number in flight and a
  bounded timeout, and checks every reply: an error must be one of the
  service's own (org.hugepages.Manager.Error.*) or a standard D-Bus one
  (never org.gtk.GDBus.UnmappedGError.*, NoReply or a timeout), a value must
  have the signature the introspection promises, Properties.Set must never
  succeed, and no reply may take more than 5 s; after every reply the
  service must still run;
- after every batch, and at the end, the bus name must still belong to the
  same pid, its fd count must not grow without bound, and in deny mode
  (polkit denies everything, unknown actions included) every file,
  directory and link of the fake tree, the service's own state below
  etc/hugepagesd and run/hugepagesd included, must be byte-identical to
  before; at the end SIGTERM must make the service exit 0.

With --messages N it sends, instead of method calls, N signals (unicast to
the service's unique name and broadcast, through GDBus) and method calls and
signals that GLib serialized (g_dbus_message_to_blob) written raw on a socket
after the EXTERNAL handshake, with random bodies, a third of them bodies
GDBus cannot decode (see glib_parses()); after each of those, and every tenth
other one, the service must answer Peer.Ping on its well-known name within
1 s, with the same pid (MessageFuzzer).

Modes: "deny" as above; "allow" lets polkit allow every action, so the fake
tree changes. The fake tree has no var/ (the service makes only the last
directory of var/lib/hugetlbfs) and its mount table lists only paths below
the fake root or made up, so no mount or unmount can succeed, and the
service's mount table is checked after every batch: nothing may be mounted
or unmounted. The fuzzer re-executes itself under
`unshare -m --propagation private` anyway, so even a mount or unmount made
by mistake could not reach the host (and mounts the host makes meanwhile
do not show in that check).

Call generation depends on the seed only (never on replies), so call N of
a seed is the same in every run: --replay N[,M...] sends just those calls,
one at a time, and prints each reply. Findings (call, arguments, reply) go
to a JSON file with the seed (--findings; default
<builddir>/test-results/dbus-fuzz-<mode>-<seed>.json). The last line
printed is the summary:

    dbus-fuzz: 50000 calls (deny 50000), 0 findings, 11 distinct error names, 1000 calls/s
"""

import argparse
import collections
import importlib.util
import json
import os
import random
import shutil
import stat
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS_DIR = os.path.dirname(HERE)
REPO = os.path.dirname(TESTS_DIR)


def _load_integration_fixtures():
    """tests/integration/conftest.py as a plain module: its Bus, Polkit and
    Service classes. Loaded under its own name, so that it never clashes
    with a conftest module pytest has loaded."""
    path = os.path.join(TESTS_DIR, 'integration', 'conftest.py')
    spec = importlib.util.spec_from_file_location('hpd_integration_conftest', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fixtures = _load_integration_fixtures()
hpdtest = fixtures.hpdtest
FakeKernel = fixtures.FakeKernel
from fakekernel import Mount, Pool, Tunables  # noqa: E402 (the fixtures put tests/ on sys.path)
from gi.repository import Gio, GLib  # noqa: E402

KB = 1 << 10
MB = 1 << 20
GB = 1 << 30

ERR = hpdtest.ERR
DBUS_ERR = 'org.freedesktop.DBus.Error.'
# Every error a reply may carry. Anything else is a finding: above all
# org.gtk.GDBus.UnmappedGError.* (a GError the service forgot to map),
# NoReply (the service died or dropped the call), ServiceUnknown (it is gone).
ALLOWED_ERRORS = frozenset(
    [ERR + n for n in ('Failed', 'NotAuthorized', 'InvalidArgs', 'NotSupported', 'Busy',
                       'LimitExceeded', 'NoSuchUser', 'NoSuchGroup', 'NotMounted')] +
    [DBUS_ERR + n for n in ('InvalidArgs', 'UnknownMethod', 'UnknownObject', 'UnknownInterface',
                            'UnknownProperty', 'PropertyReadOnly',
                            'AccessDenied')])   # the bus policy: foreign interfaces
# what the bus answers when the service is gone
GONE_ERRORS = (DBUS_ERR + 'NoReply', DBUS_ERR + 'ServiceUnknown', DBUS_ERR + 'NameHasNoOwner')
SLOW_SECONDS = 5.0
TIMEOUT_MS = 30000
STANDARD_IFACES = ('org.freedesktop.DBus.Properties', 'org.freedesktop.DBus.Introspectable',
                   'org.freedesktop.DBus.Peer', 'org.freedesktop.DBus.ObjectManager')
SERVICE_IFACES = (hpdtest.MANAGER_IFACE, hpdtest.PAGE_SIZE_IFACE)

# The option keys each method documents (data/dbus/org.hugepages.Manager.xml)
# and their types; "t|s" takes either. A method missing here gets every key.
DRY_PERSIST = {'dry-run': 'b', 'persist': 'b'}
HARD = {'hard': 'b', 'timeout-ms': 'u', 'drop-caches': 'b'}
MOUNT_OPTIONS = {'max-size': 't|s', 'min-size': 't|s', 'max-inodes': 't', 'mode': 'u',
                 'persist': 'b'}
OPTION_KEYS = {
    'SetShmMax': DRY_PERSIST,
    'SetRecommendedShmMax': {**DRY_PERSIST, 'allow-lower': 'b'},
    'SetShmGroup': DRY_PERSIST,
    'SetMinFreeKbytes': DRY_PERSIST,
    'SetRecommendedMinFreeKbytes': {**DRY_PERSIST, 'allow-lower': 'b'},
    'SetZoneMovable': DRY_PERSIST,
    'SetThp': DRY_PERSIST,
    'ConfigureBoot': {'dry-run': 'b'},
    'Explain': {},
    'CreateMounts': MOUNT_OPTIONS,
    'Unmount': {'persist': 'b'},
    'GetUsage': {},
    'RemoveOrphan': {'dry-run': 'b', 'ignore-unreadable': 'b'},
    'SetMinimum': {**DRY_PERSIST, **HARD},
    'SetMaximum': DRY_PERSIST,
    'SetNodePages': {**DRY_PERSIST, **HARD},
    'Demote': DRY_PERSIST,
    'CreateMount': MOUNT_OPTIONS,
    'Claim': {'node': 'u', **DRY_PERSIST, **HARD},
    'Release': {'node': 'u'},
    'GetClaims': {},
}
ALL_OPTION_KEYS = {k: v for keys in OPTION_KEYS.values() for k, v in keys.items()}
NOT_MUTATING = {'Explain', 'GetUsage', 'GetClaims'}   # service methods that change nothing
PROPERTIES = 'org.freedesktop.DBus.Properties'


def is_mutating(iface, member):
    return iface in SERVICE_IFACES and member not in NOT_MUTATING
KHUGEPAGED_SETTINGS = ('khugepaged/pages_to_scan', 'khugepaged/scan_sleep_millisecs',
                       'khugepaged/alloc_sleep_millisecs')
THP_WORDS = ('always', 'madvise', 'never', 'inherit', 'within_size', 'advise', 'deny', 'force',
             'defer', 'defer+madvise')

# The fake kernel: the integration default (2 nodes, 2 MB and 1 GB pages,
# 16 GiB) with small pools, a mount table, a zone movable sysctl, a
# configuration and a Debian tree with GRUB, so that Mounts, Unmount, Demote,
# SetZoneMovable, Drift and ConfigureBoot reach past their first checks.
# No var/: nothing can be mounted.
MOUNTS = [Mount('var/lib/hugetlbfs/pagesize-2MB', mode=0o770, size=4 * MB),
          Mount('var/lib/hugetlbfs/user/nobody/pagesize-1GB', page_size_kb=1048576, uid=65534),
          Mount('var/lib/hugetlbfs/global/pagesize-2MB', mode=0o1777, nr_inodes=9),
          Mount('/mnt/hpd-fuzz-made-up', page_size_kb=1048576)]


CONFIGURATION = '[pool 2MB]\nminimum = 8\n\n[pool 1GB]\nnode0 = 1\nnode1 = 1\n'
UPDATE_GRUB_MARK = 'update-grub-ran'


def make_fake_kernel(root, simulate=True):
    kw = dict(fixtures.DEFAULT_FAKE_KERNEL)
    kw['pools'] = {2048: Pool(total=8, free=6, resv=1, overcommit=4),
                   1048576: Pool(total=2, free=2)}
    fk = FakeKernel(root, mounts=MOUNTS, tunables=Tunables(movable_gigantic_pages=0), **kw)
    fk.write('etc/hugepagesd/hugepagesd.conf', CONFIGURATION)
    fk.write('etc/debian_version', '12.11\n')
    fk.write('etc/default/grub', 'GRUB_CMDLINE_LINUX=""\n')
    # never run under a fake root; if it were, it would leave a mark
    fk.write('usr/sbin/update-grub', f'#!/bin/sh\ntouch {fk.path(UPDATE_GRUB_MARK)}\n')
    os.chmod(fk.path('usr/sbin/update-grub'), 0o755)
    if simulate:
        fk.simulate()
    return fk


# --- the calls ----------------------------------------------------------------

@dataclass
class Call:
    index: int
    kind: str
    path: str
    iface: Optional[str]
    member: str
    body: Optional[GLib.Variant]
    expect: Optional[str]       # the reply signature of a success; None: must fail
    mutating: bool = False
    interactive: bool = False
    prop_types: object = None         # Get of a known property: its type; GetAll: all
    risky: bool = False               # may hit GLib's parser bug, see glib_parses()

    def signature(self):
        return self.body.get_type_string() if self.body is not None else '()'

    def describe(self, limit=2000):
        """A JSON-able record (long parts shortened; --replay regenerates
        the exact call from the seed and the index)."""
        return {'index': self.index, 'kind': self.kind, 'path': shorten(self.path, 300),
                'interface': self.iface, 'member': self.member,
                'signature': shorten(self.signature(), 300),
                'args': shorten(self.body.print_(True), limit) if self.body is not None else '()',
                'interactive': self.interactive}


def shorten(text, limit):
    if text is None or len(text) <= limit:
        return text
    return f'{text[:limit]}... ({len(text)} characters)'


@dataclass
class Method:
    path: str
    iface: str
    name: str
    in_types: List[str]
    in_names: List[str]
    out_sig: str


@dataclass
class Target:
    """What introspection found: objects, methods, properties."""
    objects: Dict[str, List[str]] = field(default_factory=dict)   # path -> interfaces
    methods: List[Method] = field(default_factory=list)
    properties: List[tuple] = field(default_factory=list)         # (path, iface, name, type)
    thp_settings: Dict[str, tuple] = field(default_factory=dict)  # name -> (current, allowed)
    nodes: List[int] = field(default_factory=list)
    kernel_root: str = ''


def discover(conn, kernel_root):
    """Introspects every object below "/" and every managed object."""
    target = Target(kernel_root=kernel_root)
    seen = set()
    todo = ['/']
    while todo:
        path = todo.pop(0)
        if path in seen:
            continue
        seen.add(path)
        xml = hpdtest.call(conn, path, 'org.freedesktop.DBus.Introspectable', 'Introspect',
                           None, '(s)')[0]
        node = Gio.DBusNodeInfo.new_for_xml(xml)
        for child in node.nodes:
            todo.append(path.rstrip('/') + '/' + child.path)
        if node.interfaces:
            target.objects[path] = [i.name for i in node.interfaces]
        for iface in node.interfaces:
            for m in iface.methods:
                target.methods.append(Method(
                    path, iface.name, m.name, [a.signature for a in m.in_args],
                    [a.name for a in m.in_args],
                    '(' + ''.join(a.signature for a in m.out_args) + ')'))
            for p in iface.properties:
                target.properties.append((path, iface.name, p.name, p.signature))
        if not todo:
            for managed in hpdtest.managed_objects(conn):
                if managed not in seen:
                    todo.append(managed)
    props = hpdtest.manager_props(conn)
    target.thp_settings = {k: tuple(v) for k, v in props.get('ThpSettings', {}).items()}
    target.nodes = list(props.get('NumaNodes', [0]))
    return target


SV_ENTRY = GLib.VariantType('{sv}')
BASIC = 'ybnqiuxtdsog'   # no 'h': a handle without an fd makes the bus drop us
T_EDGES = [0, 1, 2, 3, 5, 7, 8, 16, 100, 511, 512, 1024, 4096, 7000, 2**31 - 1, 2**31,
           2**32 - 1, 2**32, 2**43 - 1, 2**43, 2**53, 2**63 - 1, 2**63, 2**64 - 2, 2**64 - 1,
           2 * MB, GB, 16 * GB]
U_EDGES = [0, 1, 2, 3, 63, 64, 0o777, 0o1777, 0o4777, 0o7777, 1023, 1024, 30000, 65534, 65535,
           600000, 600001, 3999999, 2**31 - 1, 2**31, 2**32 - 2, 2**32 - 1]
NAMES = ['root', 'nobody', 'nogroup', 'daemon', 'staff', '0', '65534', '3999999', '4294967295',
         '4294967294', '-1', '+0', '00', ' 0', '0 ', '0x0', 'x' * 32, 'x' * 33, 'a.b', '-x', '.x',
         'a,uid=0,mode=0777', 'Root', 'a b', 'a\nb', 'é', 'a/b', '..', '.']
ODD_STRINGS = ['', ' ', '0', '-1', '+1', '010', '1e3', '0x10', '18446744073709551615',
               '18446744073709551616', '99999999999999999999999', '2M', '1G', '2MB', '2048kB',
               'DEFAULT', '50%', '100%', '0%', '200%', '1.5%', '%', '%%', '%s%n%x%p', '=', ',',
               ';', ':', '"', "'", '\\', '\\n', '..', '../', '../../../../etc/passwd', '/',
               '/etc/passwd', 'a/b', '-', '--help', '\n', '\r\n', 'a\nb', '\t', '\x01\x02\x1f\x7f',
               '\x1b[31mred\x1b[0m', 'é', '\u202egnp.exe', '\ufeff', '\U0001f600', 'true',
               'yes', 'recommended', '[madvise]', 'always madvise', 'madvise\n', ' never',
               'x' * 255, 'y' * 4096]
DICT_KEY_NOISE = ['', ' ', 'dry_run', 'DRY-RUN', 'dry-run ', 'dryrun', 'dry-run\n', 'timeout',
                  'max_size', 'k' * 1000, '../persist', 'persist\x01', 'é']


ALIGNMENT = {'y': 1, 'g': 1, 'v': 1, 'n': 2, 'q': 2, 'b': 4, 'i': 4, 'u': 4, 's': 4, 'o': 4,
             'a': 4, 'x': 8, 't': 8, 'd': 8, '(': 8, '{': 8}
FIXED_SIZE = {'y': 1, 'n': 2, 'q': 2, 'b': 4, 'i': 4, 'u': 4, 'x': 8, 't': 8, 'd': 8}


def min_size(type_string):
    """The fewest bytes a value of this type takes on the wire, from an
    8-aligned offset."""
    code = type_string[0]
    if code in FIXED_SIZE:
        return FIXED_SIZE[code]
    if code in 'so':
        return 5           # length, NUL
    if code == 'g':
        return 2
    if code == 'v':
        return 4           # signature "y", one byte
    if code == 'a':
        return 4           # empty
    offset = 0
    for member in split_types(type_string[1:-1]):
        offset += -offset % ALIGNMENT[member[0]]
        offset += min_size(member)
    return offset


def split_types(signature):
    """'ta{sv}(us)' -> ['t', 'a{sv}', '(us)']: the complete types in a row."""
    types = []
    i = 0
    while i < len(signature):
        j = i
        while signature[j] == 'a':
            j += 1
        if signature[j] in '({':
            depth = 0
            while True:
                depth += signature[j] in '({'
                depth -= signature[j] in ')}'
                j += 1
                if depth == 0:
                    break
        else:
            j += 1
        types.append(signature[i:j])
        i = j
    return types


class Generator:
    """Builds the calls from the seed and the introspection, never from
    replies."""

    def __init__(self, seed, target):
        self.rng = random.Random(seed)
        self.target = target
        self.index = 0
        self.scope = ''
        root = target.kernel_root
        self.paths = ([root + '/var/lib/hugetlbfs/' + rel for rel in
                       ('pagesize-2MB', 'user/nobody/pagesize-1GB', 'global/pagesize-2MB',
                        'pagesize-1GB', 'group/root/pagesize-2MB', '../pagesize-2MB')] +
                      ['/mnt/hpd-fuzz-made-up', '/var/lib/hugetlbfs/pagesize-2MB',
                       '/dev/hugepages', '/', '/proc', root, root + '/', root + '//x',
                       root + '/var/lib/hugetlbfs/./pagesize-2MB', 'relative/path'])
        self.methods = [m for m in target.methods if m.iface in SERVICE_IFACES]
        self.std_methods = [m for m in target.methods if m.iface not in SERVICE_IFACES]
        self.service_props = [p for p in target.properties if p[1] in SERVICE_IFACES]
        # big values, built once
        self.big_strings = ['A' * (64 * KB), 'é' * (32 * KB), 'B' * MB,
                            ('\x01\n,=%/..' * (8 * KB))]
        true, text = GLib.Variant.new_boolean(True), GLib.Variant.new_string('x' * 100)
        self.big = [
            self.new_dict([(f'key{i}', true) for i in range(5000)]),
            self.new_dict([(f'k{i}', text) for i in range(2000)]),
            self.new_dict([('dry-run', true)] * 3000),
            GLib.Variant.new_from_bytes(GLib.VariantType('at'), GLib.Bytes.new(
                b''.join(i.to_bytes(8, sys.byteorder) for i in range(100000))), True),
            GLib.Variant.new_strv(['s%d' % i for i in range(20000)]),
            GLib.Variant.new_array(GLib.VariantType('ay'),
                                   [GLib.Variant.new_from_bytes(GLib.VariantType('ay'),
                                                                GLib.Bytes.new(b'\xff' * 64),
                                                                True)] * 5000),
        ]
        self.long_paths = ['/' + 'a' * (64 * KB), '/a' * (32 * KB),
                           hpdtest.PAGE_SIZE_PREFIX + 'x' * (64 * KB)]

    # --- values -------------------------------------------------------------

    def chance(self, p):
        return self.rng.random() < p

    def t(self):
        r = self.rng.random()
        if r < 0.6:
            return self.rng.choice(T_EDGES)
        if r < 0.8:
            return self.rng.randrange(0, 64)
        return self.rng.getrandbits(self.rng.choice([8, 16, 32, 63, 64]))

    def u(self):
        r = self.rng.random()
        if r < 0.6:
            return self.rng.choice(U_EDGES)
        return self.rng.getrandbits(self.rng.choice([2, 8, 16, 32]))

    def s(self):
        r = self.rng.random()
        if r < 0.01:
            return self.rng.choice(self.big_strings)
        if r < 0.45:
            return self.rng.choice(ODD_STRINGS)
        if r < 0.6:
            return self.rng.choice(NAMES)
        if r < 0.7:
            return self.rng.choice(self.paths)
        if r < 0.8:
            return self.rng.choice(THP_WORDS)
        alphabet = 'aZ09-_.,=%/\\ \n\t\x01\x7fé\u202e' + 'abcdefgh'
        return ''.join(self.rng.choice(alphabet) for _ in range(self.rng.randrange(0, 80)))

    def object_path(self):
        return self.rng.choice(['/', '/org', '/org/hugepages/Manager', hpdtest.PAGE_SIZE_PREFIX +
                                '2048kB', '/a/b/c', '/_', hpdtest.PAGE_SIZE_PREFIX + '3kB'])

    def basic(self, code):
        rng = self.rng
        if code == 'y':
            return GLib.Variant.new_byte(rng.choice([0, 1, 127, 128, 255, rng.randrange(256)]))
        if code == 'b':
            return GLib.Variant.new_boolean(rng.random() < 0.5)
        if code == 'n':
            return GLib.Variant.new_int16(rng.choice([-2**15, -1, 0, 1, 2**15 - 1]))
        if code == 'q':
            return GLib.Variant.new_uint16(rng.choice([0, 1, 2**16 - 1, rng.randrange(2**16)]))
        if code == 'i':
            return GLib.Variant.new_int32(rng.choice([-2**31, -1, 0, 1, 2**31 - 1,
                                                      rng.randrange(-2**31, 2**31)]))
        if code == 'u':
            return GLib.Variant.new_uint32(self.u())
        if code == 'x':
            return GLib.Variant.new_int64(rng.choice([-2**63, -1, 0, 1, 2**63 - 1,
                                                      rng.randrange(-2**63, 2**63)]))
        if code == 't':
            return GLib.Variant.new_uint64(self.t())
        if code == 'd':
            return GLib.Variant.new_double(rng.choice([0.0, -0.0, 1.5, -1.0, 1e308, float('inf'),
                                                       float('-inf'), float('nan')]))
        if code == 's':
            return GLib.Variant.new_string(self.s())
        if code == 'o':
            return GLib.Variant.new_object_path(self.object_path())
        if code == 'g':
            return GLib.Variant.new_signature(rng.choice(['', 's', 'a{sv}', 'ta{sv}', 'v',
                                                          '(ii)']))
        raise ValueError(code)

    def random_type(self, depth=0):
        r = self.rng.random()
        if depth >= 3 or r < 0.6:
            return self.rng.choice(BASIC)
        if r < 0.7:
            return 'v'
        if r < 0.8:
            return 'a' + self.random_type(depth + 1)
        if r < 0.9:
            return 'a{' + self.rng.choice(BASIC) + self.random_type(depth + 1) + '}'
        return '(' + ''.join(self.random_type(depth + 1)
                             for _ in range(self.rng.randrange(1, 4))) + ')'

    def value(self, type_string, depth=0):
        """A random GLib.Variant of a complete D-Bus type."""
        if type_string in BASIC:
            return self.basic(type_string)
        if type_string == 'v':
            if depth < 4 and self.chance(0.2):
                return GLib.Variant('v', self.value('v', depth + 1))
            return GLib.Variant('v', self.value(self.random_type(2), depth + 1))
        if type_string == 'a{sv}' and self.chance(0.5):
            return self.options(ALL_OPTION_KEYS)
        if type_string.startswith('a'):
            element = type_string[1:]
            if self.chance(0.02):
                for big in self.big:
                    if big.get_type_string() == type_string:
                        return big
            n = self.rng.choice([0, 0, 1, 1, 2, 3, 5, 40])
            children = [self.value(element, depth + 1) for _ in range(n)]
            if n > 1 and element[0] in '({' and min_size(element) <= 4:
                self.risky = True    # see glib_parses()
            return GLib.Variant.new_array(GLib.VariantType(element), children)
        if type_string.startswith('{'):
            key, val = split_types(type_string[1:-1])
            return GLib.Variant.new_dict_entry(self.value(key, depth + 1),
                                               self.value(val, depth + 1))
        if type_string.startswith('('):
            return GLib.Variant.new_tuple(*[self.value(t, depth + 1)
                                            for t in split_types(type_string[1:-1])])
        raise ValueError(type_string)

    def typed(self, types):
        """A value of one of types ("t|s"), mostly right."""
        choice = self.rng.choice(types.split('|'))
        if choice == 's':
            return GLib.Variant('s', self.rng.choice(['1%', '50%', '100%', '0%', '101%', '%',
                                                      '2M', '4194304', '-1%', self.s()]))
        if choice == 't':
            return GLib.Variant('t', self.rng.choice([0, 1, 2 * MB, 4 * MB, 3 * MB, GB, 2 * GB,
                                                      self.t()]))
        if choice == 'u':
            return GLib.Variant('u', self.u())
        return self.value(choice)

    @staticmethod
    def new_dict(pairs):
        """An a{sv} from (key, value) pairs; duplicates kept."""
        return GLib.Variant.new_array(
            SV_ENTRY, [GLib.Variant.new_dict_entry(GLib.Variant.new_string(k),
                                                   GLib.Variant.new_variant(v))
                       for k, v in pairs])

    def options(self, known):
        """An a{sv} for a method whose options are known: valid ones mostly,
        then wrong types, unknown keys, duplicates, too many keys."""
        rng = self.rng
        keys = sorted(known)
        pairs = []
        for key in keys:
            if self.chance(0.4):
                pairs.append((key, self.typed(known[key])))
        r = rng.random()
        if r < 0.65 or not keys and r < 0.75:
            pass                                    # valid (or empty)
        elif r < 0.75 and keys:                     # a known key, wrong type
            key = rng.choice(keys)
            wrong = self.value(rng.choice([t for t in 'ybnqiuxtdsv' if t not in known[key]] +
                                          ['as', 'a{sv}']))
            pairs.append((key, wrong))
        elif r < 0.82:                              # an unknown key
            pairs.append((rng.choice(DICT_KEY_NOISE + list(ALL_OPTION_KEYS) + [self.s()]),
                          self.value('b')))
        elif r < 0.88 and keys:                     # a key twice
            key = rng.choice(keys)
            pairs += [(key, self.typed(known[key])), (key, self.typed(known[key]))]
        elif r < 0.93:                              # as many as the limit, or one more
            pairs = [(f'k{i}', GLib.Variant('b', True)) for i in range(rng.choice([32, 33, 64]))]
        elif r < 0.96:
            return rng.choice(self.big[:3])
        else:                                       # nested variants, odd values
            pairs.append((rng.choice(keys or ['dry-run']),
                          GLib.Variant('v', GLib.Variant('v', GLib.Variant('b', True)))))
        rng.shuffle(pairs)
        return self.new_dict(pairs)

    def thp_settings(self):
        rng = self.rng
        names = sorted(self.target.thp_settings) + list(KHUGEPAGED_SETTINGS)
        pairs = []
        for _ in range(rng.choice([0, 1, 1, 2, 3, 5])):
            name = rng.choice(names)
            if name.startswith('khugepaged/'):
                value = GLib.Variant('u', rng.choice([0, 1, 10, 4096, 2**31, 2**32 - 1,
                                                      self.u()]))
            else:
                allowed = self.target.thp_settings[name][1]
                value = GLib.Variant('s', rng.choice(list(allowed) + list(THP_WORDS) +
                                                     [self.s()]))
            if self.chance(0.1):
                value = self.value(rng.choice('bsut'))   # maybe the wrong type
            pairs.append((name, value))
        r = rng.random()
        if r < 0.15:
            pairs.append((rng.choice(['hugepages-3kB/enabled', 'enabled/../defrag', '../enabled',
                                      'khugepaged/defrag', 'khugepaged/../../x',
                                      'hugepages-64kB/../../../etc/passwd', 'Enabled', '',
                                      'khugepaged/full_scans', 'hpage_pmd_size',
                                      'hugepages-64kB/stats/x', self.s()]),
                          GLib.Variant('s', rng.choice(THP_WORDS))))
        elif r < 0.2:
            pairs += [(f'hugepages-{k}kB/enabled', GLib.Variant('s', 'never'))
                      for k in range(65)]
        elif r < 0.23:
            return self.big[rng.choice([0, 1])]
        rng.shuffle(pairs)
        return self.new_dict(pairs)

    def argument(self, method, name, type_string):
        """A value for one argument, from its name and type."""
        rng = self.rng
        if type_string == 'a{sv}' and name == 'options':
            return self.options(OPTION_KEYS.get(method.name, ALL_OPTION_KEYS))
        if type_string == 'a{sv}' and name == 'settings':
            return self.thp_settings()
        if type_string == 's':     # every string argument gets long and odd ones too
            r = rng.random()
            if r < 0.03:
                return GLib.Variant.new_string(rng.choice(self.big_strings))
            if r < 0.13:
                return GLib.Variant.new_string(self.s())
        elif self.chance(0.05):
            return self.value(type_string)
        if name == 'scope':
            self.scope = rng.choice(['system', 'user', 'group', 'global'] * 3 +
                                    ['System', 'users', '', self.s()])
            return GLib.Variant.new_string(self.scope)
        if name == 'owner':   # mostly what the scope wants
            if self.chance(0.7):
                owner = {'user': rng.choice(['root', 'nobody', '0', '65534', 'daemon']),
                         'group': rng.choice(['root', 'nogroup', '0', '65534', 'daemon'])
                         }.get(self.scope, '')
            else:
                owner = rng.choice(NAMES + ['', self.s()])
            return GLib.Variant.new_string(owner)
        if name == 'group':
            return GLib.Variant('s', rng.choice(NAMES + [self.s()]))
        if name == 'consumer':   # a few valid names, so that Release finds Claim's claims
            return GLib.Variant('s', rng.choice(['postgresql', 'libvirt-vm42', 'db.1', 'a_b']))
        if name == 'path':
            return GLib.Variant('s', rng.choice(self.paths + [self.s()]))
        if name == 'node':
            if self.chance(0.7):
                return GLib.Variant.new_uint32(rng.choice(self.target.nodes))
            return GLib.Variant.new_uint32(rng.choice([2, 63, 64, 1024, 2**31, 2**32 - 1,
                                                       self.u()]))
        if name == 'pages':
            return GLib.Variant('t', rng.choice([0, 1, 2, 3, 4, 8, 16, 7000, self.t()]))
        if name == 'value' and method.name == 'SetMinFreeKbytes':
            return GLib.Variant('t', rng.choice([0, 1023, 1024, 67584, 838860, 838861,
                                                 self.t()]))
        return self.value(type_string)

    # --- calls ----------------------------------------------------------------

    def call(self, kind, path, iface, member, body, expect, **kw):
        c = Call(self.index, kind, path, iface, member, body, expect, **kw)
        c.interactive = self.chance(0.2)
        return c

    def method_call(self, m, kind='method'):
        args = [self.argument(m, n, t) for n, t in zip(m.in_names, m.in_types)]
        body = GLib.Variant.new_tuple(*args) if args else None
        return self.call(kind, m.path, m.iface, m.name, body, m.out_sig,
                         mutating=is_mutating(m.iface, m.name))

    def random_method_call(self, m):
        args = [self.value(t) for t in m.in_types]
        body = GLib.Variant.new_tuple(*args) if args else None
        expect = None if (m.iface, m.name) == (PROPERTIES, 'Set') else m.out_sig
        return self.call('random', m.path, m.iface, m.name, body, expect,
                         mutating=is_mutating(m.iface, m.name))

    def wrong_signature(self, m):
        rng = self.rng
        types = list(m.in_types)
        r = rng.random()
        if r < 0.25 and types:
            del types[rng.randrange(len(types))]
        elif r < 0.5:
            types.insert(rng.randrange(len(types) + 1), self.random_type())
        elif r < 0.75 and types:
            i = rng.randrange(len(types))
            new = self.random_type()
            while new == types[i]:
                new = self.random_type()
            types[i] = new
        else:
            types = [self.random_type() for _ in range(rng.randrange(0, 5))]
        if types == m.in_types:
            types.append('s')
        body = GLib.Variant.new_tuple(*[self.value(t) for t in types]) if types else None
        return self.call('signature', m.path, m.iface, m.name, body, None,
                         mutating=is_mutating(m.iface, m.name))

    def property_call(self):
        rng = self.rng
        path, iface, name, sig = rng.choice(self.service_props)
        props = PROPERTIES
        r = rng.random()
        if r < 0.5:
            return self.call('get', path, props, 'Get', GLib.Variant('(ss)', (iface, name)),
                             '(v)', prop_types=sig)
        if r < 0.62:
            return self.call('getall', path, props, 'GetAll', GLib.Variant('(s)', (iface,)),
                             '(a{sv})', prop_types={n: t for p, i, n, t in self.service_props
                                                    if (p, i) == (path, iface)})
        if r < 0.8:   # Set: every property is read-only
            value = self.value(sig if self.chance(0.5) else self.random_type())
            return self.call('set', path, props, 'Set',
                             GLib.Variant('(ssv)', (iface, name, value)), None)
        # bad names
        bad_iface = rng.choice([iface, iface, '', 'org.hugepages.Manager.Nope', 'x', 'a.b',
                                props, hpdtest.MANAGER_IFACE, hpdtest.PAGE_SIZE_IFACE, self.s()])
        bad_name = rng.choice([name, '', name.lower(), name + 'x', 'Version', 'Size', '..',
                               self.s()])
        which = rng.choice(['Get', 'GetAll', 'Set'])
        if which == 'Get':
            body = GLib.Variant('(ss)', (bad_iface, bad_name))
            # a good pair on the wrong object or interface can be a success
            expect = '(v)'
        elif which == 'GetAll':
            body = GLib.Variant('(s)', (bad_iface,))
            expect = '(a{sv})'
        else:
            body = GLib.Variant('(ssv)', (bad_iface, bad_name, self.value(self.random_type())))
            expect = None
        return self.call('property-names', path, props, which, body, expect)

    def unknown_call(self):
        rng = self.rng
        m = rng.choice(self.methods)
        r = rng.random()
        args = [self.argument(m, n, t) for n, t in zip(m.in_names, m.in_types)]
        body = GLib.Variant.new_tuple(*args) if args else None
        if r < 0.3:    # unknown method on a known interface
            known = {k.name for k in self.methods if k.iface == m.iface}
            member = rng.choice([n for n in ('Frobnicate', m.name.lower(), m.name + 's',
                                             'SetMinimum', 'SetShmMax', 'Get', 'Introspect',
                                             'X' * 255, '_', 'A0') if n not in known])
            return self.call('unknown-method', m.path, m.iface, member, body, None)
        if r < 0.45:   # an interface the bus policy does not allow
            iface = rng.choice(['org.hugepages.Manager.Evil', 'org.freedesktop.DBus.Debug.Stats',
                                'org.gtk.Actions', 'a.b'])
            return self.call('unknown-interface', m.path, iface, m.name, body, None)
        if r < 0.55:   # no interface at all
            return self.call('no-interface', m.path, None, m.name, body, None,
                             mutating=is_mutating(m.iface, m.name))
        if r < 0.8:    # a known method on an unknown object
            path = rng.choice([hpdtest.PAGE_SIZE_PREFIX + '3072kB', hpdtest.PAGE_SIZE_PREFIX +
                               '2048kB/x', hpdtest.PAGE_SIZE_PREFIX.rstrip('/'), '/',
                               '/org/hugepages', hpdtest.PAGE_SIZE_PREFIX + '0kB',
                               hpdtest.PAGE_SIZE_PREFIX + '18446744073709551615kB'])
            return self.call('unknown-object', path, m.iface, m.name, body, None)
        path = rng.choice(self.long_paths)   # a very long object path
        if self.chance(0.5):
            return self.call('long-path', path, 'org.freedesktop.DBus.Introspectable',
                             'Introspect', None, '(s)')
        return self.call('long-path', path, m.iface, m.name, body, None)

    def standard_call(self):
        rng = self.rng
        m = rng.choice(self.std_methods)
        if m.iface == 'org.freedesktop.DBus.Properties' or self.chance(0.3):
            return self.random_method_call(m) if self.chance(0.5) else self.wrong_signature(m)
        path = m.path if self.chance(0.8) else rng.choice(['/', '/org', '/nothing/here'])
        expect = m.out_sig
        if m.iface == 'org.freedesktop.DBus.ObjectManager' and path != m.path:
            expect = None
        return self.call('standard', path, m.iface, m.name, None, expect)

    def next(self):
        """The next call of the sequence."""
        self.risky = False
        r = self.rng.random()
        m = self.rng.choice(self.methods)
        if r < 0.50:
            c = self.method_call(m)
        elif r < 0.58:
            c = self.random_method_call(m)
        elif r < 0.68:
            c = self.wrong_signature(m)
        elif r < 0.88:
            c = self.property_call()
        elif r < 0.95:
            c = self.unknown_call()
        else:
            c = self.standard_call()
        c.risky = self.risky
        self.index += 1
        return c


# --- running them -------------------------------------------------------------

def glib_parses(message, body):
    """Whether GDBus reads message back with the body it was given.

    GLib's D-Bus parser (gio/gdbusmessage.c, parse_value_from_blob; 2.74 here,
    unchanged upstream in 2026) ends an array of structures or dict entries
    at the position after its length word plus the length, leaving out the
    padding between the two. When the length word is 8-aligned (4 bytes of
    padding) and the last element is at most 4 bytes long (a {yg} or (g)
    with an empty signature, an (ay) with an empty array, a (v) holding a
    byte), that element is skipped and what follows is read from the wrong
    offset. dbus-daemon routes such a message (it is valid); the receiving
    GDBus fails to decode it and closes its bus connection (or it silently
    gets other arguments). That is GLib's bug (contrib/glib-decode-close):
    the service reconnects and takes its name back
    (test_message_glib_misparses_keeps_the_service), but the call is lost,
    so the method-call phase counts such calls instead of sending them (the
    Generator marks the calls whose arrays could hit it, min_size(), and
    only those are checked here: a round trip costs); the message phase
    (MessageFuzzer) sends them on purpose."""
    message.set_serial(1)
    try:
        blob = message.to_blob(Gio.DBusCapabilityFlags.NONE)
        parsed = Gio.DBusMessage.new_from_blob(blob, Gio.DBusCapabilityFlags.NONE)
    except GLib.Error:
        return False
    except RuntimeError:
        # The misread can land inside a string: GLib then quotes the bytes it
        # found in its error message, which is not UTF-8, and PyGObject cannot
        # convert that GError ("Converting the GError failed"). Unparseable all
        # the same.
        return False
    finally:
        message.set_serial(0)
    return parsed.get_body() is not None and parsed.get_body().equal(body)


@dataclass
class Stats:
    sent: int = 0
    replies: int = 0
    successes: int = 0
    mutating_successes: int = 0
    errors: collections.Counter = field(default_factory=collections.Counter)
    kinds: collections.Counter = field(default_factory=collections.Counter)
    slowest: float = 0.0
    glib_unparseable: int = 0     # calls not sent, see glib_parses()
    error_examples: dict = field(default_factory=dict)    # 'Member: name' -> first message
    outcomes: collections.Counter = field(default_factory=collections.Counter)
    slowest_call: Optional[dict] = None


class Environment:
    """A private bus with the project's policy, the polkitd mock and
    hugepagesd on a fresh fake kernel tree (as the integration fixtures)."""

    def __init__(self, builddir, mode, keep=False):
        self.binary = os.path.join(builddir, 'src', 'hugepagesd')
        if not os.access(self.binary, os.X_OK):
            raise SystemExit(f'dbus-fuzz: {self.binary} is not built')
        self.dir = tempfile.mkdtemp(prefix=f'hpd-fuzz-{mode}-')
        os.chmod(self.dir, 0o755)
        self.keep = keep
        self.bus = self.polkit = self.fk = self.service = self.conn = None
        try:
            os.mkdir(os.path.join(self.dir, 'bus'))
            self.bus = fixtures.Bus(os.path.join(self.dir, 'bus'))
            os.environ['DBUS_SYSTEM_BUS_ADDRESS'] = self.bus.address
            self.polkit = fixtures.Polkit(self.bus, os.path.join(self.dir, 'polkitd-mock.log'))
            self.polkit.reset()
            if mode == 'allow':
                self.polkit.allow(*hpdtest.ALL_ACTIONS)
                self.polkit.allow_unknown(True)
            # The simulator only acts on writes (THP choice files): deny
            # mode does without, as its thread in this process slows us.
            self.fk = make_fake_kernel(os.path.join(self.dir, 'kernel'),
                                       simulate=mode == 'allow')
            self.service = fixtures.Service(self.binary, self.fk.root, self.bus, [],
                                            os.path.join(self.dir, 'hugepagesd.log'))
            self.conn = self.bus.connect()
            self.service.wait_ready(self.conn)
            self.unique_name = hpdtest.name_owner(self.conn)
        except BaseException:
            self.close()
            raise

    def log_tail(self, n=20000):
        try:
            return self.service.log()[-n:]
        except (OSError, AttributeError):
            return ''

    def close(self):
        if self.service is not None:
            self.service.kill()
        if self.conn is not None:
            self.conn.close_sync(None)
        if self.polkit is not None:
            self.polkit.stop()
        if self.bus is not None:
            self.bus.stop()
        if self.fk is not None:
            self.fk.stop()
        if not self.keep:
            shutil.rmtree(self.dir, ignore_errors=True)


def tree_snapshot(root):
    """Every file, directory and link below root: type, mode, owner, and
    the bytes of files (mtime too, so a rewrite with the same bytes shows)."""
    result = {}
    for dirpath, dirs, files in os.walk(root):
        for name in dirs + files:
            full = os.path.join(dirpath, name)
            st = os.lstat(full)
            rel = os.path.relpath(full, root)
            meta = (stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid)
            if stat.S_ISREG(st.st_mode):
                with open(full, 'rb') as f:
                    result[rel] = meta + (st.st_mtime_ns, f.read())
            elif stat.S_ISLNK(st.st_mode):
                result[rel] = meta + (os.readlink(full),)
            else:
                result[rel] = meta
    return result


def tree_diff(before, after):
    changes = {}
    for p in sorted(set(before) | set(after)):
        if before.get(p) != after.get(p):
            changes[p] = [shorten(repr(before.get(p)), 300), shorten(repr(after.get(p)), 300)]
    return changes


def mount_points(pid):
    """The mount points of pid's mount namespace (a multiset as a Counter)."""
    with open(f'/proc/{pid}/mountinfo') as f:
        return collections.Counter(line.split()[4] for line in f)


def fd_count(pid):
    return len(os.listdir(f'/proc/{pid}/fd'))


def rss_kb(pid):
    with open(f'/proc/{pid}/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
    return 0


class Fuzzer:
    def __init__(self, env, mode, seed, in_flight=64, batch=1000, rss_growth_mb=256, log=print):
        self.env = env
        self.rss_growth_mb = rss_growth_mb
        self.mode = mode
        self.seed = seed
        self.in_flight_max = in_flight
        self.batch = batch
        self.log = log
        self.target = discover(env.conn, env.fk.root)
        self.gen = Generator(seed, self.target)
        self.stats = Stats()
        self.findings = []
        self.pending = {}          # serial -> (call, sent at)
        self.batch_calls = []
        self.dead = False

    # --- findings -----------------------------------------------------------

    def finding(self, what, call=None, reply=None, **extra):
        record = {'finding': what, 'mode': self.mode, 'seed': self.seed}
        if call is not None:
            record['call'] = call.describe()
        if reply is not None:
            record['reply'] = reply
        record.update(extra)
        self.findings.append(record)
        if len(self.findings) <= 20:
            self.log(f'dbus-fuzz: FINDING {what}: {shorten(json.dumps(record), 1500)}')

    # --- replies --------------------------------------------------------------

    def check_reply(self, call, message, error, elapsed):
        s = self.stats
        s.replies += 1
        s.kinds[call.kind] += 1
        if elapsed > s.slowest:
            s.slowest = elapsed
            s.slowest_call = call.describe(200)
        if elapsed > SLOW_SECONDS:
            self.finding(f'slow reply ({elapsed:.1f} s)', call)
        if error is not None:
            if error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.TIMED_OUT):
                s.errors['(timeout)'] += 1
                self.finding('no reply within the timeout', call)
            else:
                s.errors['(local error)'] += 1
                self.finding('the call could not be made', call, reply=error.message)
            return
        is_error = message.get_message_type() == Gio.DBusMessageType.ERROR
        name = message.get_error_name() if is_error else 'success'
        if call.kind in ('method', 'random') and call.iface in SERVICE_IFACES:
            s.outcomes[f'{call.member}: {name.rsplit(".", 1)[-1]}'] += 1
        if is_error:
            s.errors[name] += 1
            body = message.get_body()
            text = body.get_child_value(0).get_string() if body is not None else ''
            key = f'{call.member}: {name}'
            if key not in s.error_examples:
                s.error_examples[key] = shorten(text, 300)
            if name in GONE_ERRORS and self.service_gone(call):
                return       # one finding for the death, not one per call in flight
            if name not in ALLOWED_ERRORS:
                self.finding(f'unexpected error {name}', call, reply=shorten(text, 2000))
            sender = message.get_sender()
            if sender not in (self.env.unique_name, 'org.freedesktop.DBus'):
                self.finding(f'error from {sender}', call, reply=name)
            return
        s.successes += 1
        if call.mutating:
            s.mutating_successes += 1
        sig = message.get_signature()
        got = '(' + sig + ')'
        if message.get_sender() != self.env.unique_name:
            self.finding(f'reply from {message.get_sender()}', call)
        if call.expect is None:
            self.finding('call succeeded but must fail', call,
                         reply=shorten(message.get_body().print_(True), 2000)
                         if message.get_body() is not None else '()')
        elif got != call.expect:
            self.finding(f'reply signature {got}, introspection says {call.expect}', call)
        elif isinstance(call.prop_types, str):
            inner = message.get_body().get_child_value(0).get_variant().get_type_string()
            if inner != call.prop_types:
                self.finding(f'property value of type {inner}, introspection says '
                             f'{call.prop_types}', call)
        elif call.prop_types is not None:
            values = message.get_body().get_child_value(0)
            got = {}
            for i in range(values.n_children()):
                entry = values.get_child_value(i)
                got[entry.get_child_value(0).get_string()] = \
                    entry.get_child_value(1).get_variant().get_type_string()
            if got != call.prop_types:
                self.finding('GetAll differs from the introspection', call,
                             reply={k: [got.get(k), call.prop_types.get(k)]
                                    for k in set(got) | set(call.prop_types)
                                    if got.get(k) != call.prop_types.get(k)})

    def on_reply(self, conn, result, token):
        call, sent_at = self.pending.pop(token)
        elapsed = time.monotonic() - sent_at
        message = error = None
        try:
            message = conn.send_message_with_reply_finish(result)
        except GLib.Error as e:
            error = e
        self.check_reply(call, message, error, elapsed)
        if not self.dead and not self.env.service.alive():
            self.service_gone(call)

    def service_gone(self, call):
        """After a NoReply or ServiceUnknown: whether the service is dead
        (then the finding is made once, with the calls in flight, one of
        which killed it: --in-flight 1 --batch 1 tells which)."""
        if self.dead:
            return True
        if self.env.service.wait_exit(2) is None:
            return False
        self.dead = True
        self.finding('the service died', call, exit_status=self.env.service.proc.returncode,
                     in_flight=[c.describe(500) for c, _ in self.pending.values()],
                     log_tail=self.env.log_tail())
        return True

    def send(self, call):
        msg = Gio.DBusMessage.new_method_call(hpdtest.BUS_NAME, call.path, call.iface,
                                              call.member)
        if call.body is not None:
            msg.set_body(call.body)
            if call.risky and not glib_parses(msg, call.body):
                # GLib's bug, not the service's: see glib_parses()
                self.stats.glib_unparseable += 1
                return False
        if call.interactive:
            msg.set_flags(Gio.DBusMessageFlags.ALLOW_INTERACTIVE_AUTHORIZATION)
        token = object()   # the reply cannot come before we are back in the main loop
        self.env.conn.send_message_with_reply(
            msg, Gio.DBusSendMessageFlags.NONE, TIMEOUT_MS, None, self.on_reply, token)
        self.pending[token] = (call, time.monotonic())
        self.stats.sent += 1
        return True

    # --- checks between batches -------------------------------------------

    def check_service(self):
        env = self.env
        if not env.service.alive():
            if not self.dead:
                self.dead = True
                self.finding('the service died', exit_status=env.service.proc.returncode,
                             log_tail=env.log_tail())
            return False
        pid = hpdtest.owner_pid(env.conn)
        if pid != env.service.pid:
            self.finding(f'{hpdtest.BUS_NAME} belongs to pid {pid}, not {env.service.pid}')
            self.dead = True
            return False
        for what, proc in (('the bus', env.bus.proc), ('the polkitd mock', env.polkit.proc)):
            if proc.poll() is not None:
                raise SystemExit(f'dbus-fuzz: {what} exited ({proc.returncode}); see {env.dir}')
        if env.conn.is_closed():
            raise SystemExit(f'dbus-fuzz: the bus closed our connection; see {env.dir}')
        return True

    def check_mounts(self, calls):
        """Nothing may be mounted or unmounted in the service's mount
        namespace: the fake tree has no var/, and its mount table points
        nowhere real."""
        now = mount_points(self.env.service.pid)
        if now != self.mounts:
            self.finding('the mount table changed', added=sorted((now - self.mounts).elements()),
                         removed=sorted((self.mounts - now).elements()),
                         calls=[c.describe(300) for c in calls][-200:])
            self.mounts = now

    def check_tree(self, baseline, calls):
        after = tree_snapshot(self.env.fk.root)
        if after != baseline:
            self.finding('the fake tree changed in deny mode', changes=tree_diff(baseline, after),
                         calls=[c.describe(300) for c in calls][-200:])
        return after

    # --- the run ----------------------------------------------------------------

    def drain(self, ctx):
        while self.pending:
            ctx.iteration(True)

    def run(self, n):
        env = self.env
        ctx = GLib.MainContext.default()
        baseline = tree_snapshot(env.fk.root) if self.mode == 'deny' else None
        fds0 = fd_count(env.service.pid)
        rss0 = rss_kb(env.service.pid)
        self.mounts = mount_points(env.service.pid)
        self.fd_max = fds0
        started = time.monotonic()
        next_report = started + 10
        while self.stats.sent < n and not self.dead:
            batch_end = min(n, self.stats.sent + self.batch)
            calls = []
            while self.stats.sent < batch_end and not self.dead:
                while len(self.pending) < self.in_flight_max and self.stats.sent < batch_end:
                    call = self.gen.next()
                    calls.append(call)
                    self.send(call)
                ctx.iteration(True)
            self.drain(ctx)
            if not self.check_service():
                break
            self.fd_max = max(self.fd_max, fd_count(env.service.pid))
            self.check_mounts(calls)
            if baseline is not None:
                baseline = self.check_tree(baseline, calls)
            now = time.monotonic()
            if now >= next_report:
                next_report = now + 10
                self.log(f'dbus-fuzz: {self.mode}: {self.stats.sent}/{n} calls, '
                         f'{len(self.findings)} findings, '
                         f'{self.stats.sent / (now - started):.0f} calls/s, '
                         f'service RSS {rss_kb(env.service.pid)} kB')
        self.drain(ctx)
        self.duration = time.monotonic() - started
        if env.fk.exists(UPDATE_GRUB_MARK):
            self.finding('update-grub of the fake tree was run')
        if not self.dead and self.check_service():
            fds = fd_count(env.service.pid)
            self.rss = (rss0, rss_kb(env.service.pid))
            if fds > fds0 + 16:
                self.finding(f'the service holds {fds} fds, {fds0} at the start')
            if self.rss_growth_mb and self.rss[1] > self.rss[0] + self.rss_growth_mb * KB:
                self.finding(f'the service grew from {rss0} kB to {self.rss[1]} kB')
            status = env.service.terminate(10)
            if status != 0:
                self.finding(f'hugepagesd did not exit 0 on SIGTERM: {status}',
                             log_tail=env.log_tail())
        else:
            self.rss = (rss0, 0)
        self.fds = (fds0, self.fd_max)

    def replay(self, indexes):
        """Sends just the calls at indexes, one at a time, with every check
        after each."""
        ctx = GLib.MainContext.default()
        wanted = sorted(set(indexes))
        baseline = tree_snapshot(self.env.fk.root) if self.mode == 'deny' else None
        self.mounts = mount_points(self.env.service.pid)
        while wanted:
            call = self.gen.next()
            if call.index != wanted[0]:
                continue
            wanted.pop(0)
            print(json.dumps(call.describe(4000)))
            before = len(self.findings)
            errors_before = collections.Counter(self.stats.errors)
            if not self.send(call):
                print('  -> not sent: GLib cannot parse it (see glib_parses())')
                continue
            self.drain(ctx)
            if self.check_service():
                self.check_mounts([call])
                if baseline is not None:
                    baseline = self.check_tree(baseline, [call])
            got = self.stats.errors - errors_before
            print('  ->', ', '.join(got) or 'success',
                  '; '.join(f['finding'] for f in self.findings[before:]))

    def summary(self):
        s = self.stats
        return {'mode': self.mode, 'seed': self.seed, 'calls': s.replies,
                'findings': len(self.findings),
                'error_names': dict(sorted(s.errors.items())),
                'distinct_error_names': len([e for e in s.errors if not e.startswith('(')]),
                'successes': s.successes, 'mutating_successes': s.mutating_successes,
                'not_sent_glib_unparseable': s.glib_unparseable,
                'error_examples': dict(sorted(s.error_examples.items())),
                'method_outcomes': dict(sorted(s.outcomes.items())),
                'kinds': dict(sorted(s.kinds.items())),
                'duration_s': round(self.duration, 2),
                'calls_per_s': round(s.replies / self.duration, 1) if self.duration else 0,
                'slowest_s': round(s.slowest, 3), 'slowest_call': s.slowest_call,
                'methods': sorted({f'{m.iface}.{m.name}' for m in self.target.methods}),
                'objects': sorted(self.target.objects),
                'properties': len(self.target.properties),
                'service_fds': list(self.fds), 'service_rss_kb': list(self.rss)}


# --- signals and raw messages ------------------------------------------------

# A body GDBus writes and dbus-daemon routes, but GDBus cannot read back (see
# glib_parses()): the message phase mixes it in, so that every run makes the
# service lose its connection many times.
UNDECODABLE = GLib.Variant.new_tuple(GLib.Variant.new_array(SV_ENTRY, [
    GLib.Variant.new_dict_entry(GLib.Variant('s', 'a'), GLib.Variant('v', GLib.Variant.new_array(
        GLib.VariantType('{yg}'),
        [GLib.Variant.new_dict_entry(GLib.Variant('y', 1), GLib.Variant('g', 'a{sv}')),
         GLib.Variant.new_dict_entry(GLib.Variant('y', 2), GLib.Variant('g', ''))]))),
    GLib.Variant.new_dict_entry(GLib.Variant('s', 'b'), GLib.Variant('v', GLib.Variant('y', 7)))]))

MESSAGE_KINDS = ('signal', 'broadcast', 'raw-signal', 'raw-call', 'raw-call-unique')
ANSWER_AGAIN_S = 1.0


class RawBus:
    """A plain socket on the bus: the EXTERNAL handshake and Hello, then
    whatever bytes GLib serialized (g_dbus_message_to_blob), with no GDBus
    in between to refuse or rewrite them."""

    def __init__(self, address):
        import socket
        path = dict(kv.split('=', 1) for kv in address.split(':', 1)[1].split(','))['path']
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        uid = str(os.geteuid()).encode().hex().encode()
        self.sock.sendall(b'\0AUTH EXTERNAL ' + uid + b'\r\n')
        reply = self.sock.recv(4096)
        if not reply.startswith(b'OK '):
            raise SystemExit(f'dbus-fuzz: the bus refused the raw connection: {reply!r}')
        self.sock.sendall(b'BEGIN\r\n')
        self.serial = 0
        hello = Gio.DBusMessage.new_method_call('org.freedesktop.DBus', '/org/freedesktop/DBus',
                                                'org.freedesktop.DBus', 'Hello')
        self.send(hello)
        self.sock.setblocking(False)

    def send(self, message, drain=True):
        self.serial += 1
        message.set_serial(self.serial)
        blob = message.to_blob(Gio.DBusCapabilityFlags.NONE)
        self.sock.setblocking(True)
        self.sock.sendall(blob)
        self.sock.setblocking(False)
        if drain:
            self.drain()
        return len(blob)

    def sync(self, timeout=5.0):
        """A round trip to the bus: once its reply is here, the bus has
        routed everything sent before, so a call made afterwards on another
        connection reaches the service behind it."""
        call = Gio.DBusMessage.new_method_call('org.freedesktop.DBus', '/org/freedesktop/DBus',
                                               'org.freedesktop.DBus', 'GetId')
        self.send(call, drain=False)
        serial = call.get_serial()
        deadline = time.monotonic() + timeout
        data = b''
        while time.monotonic() < deadline:
            while len(data) >= 16:
                need = Gio.DBusMessage.bytes_needed(data[:16])
                if len(data) < need:
                    break
                reply = Gio.DBusMessage.new_from_blob(data[:need], Gio.DBusCapabilityFlags.NONE)
                data = data[need:]
                if reply.get_reply_serial() == serial:
                    return
            try:
                chunk = self.sock.recv(65536)
            except BlockingIOError:
                time.sleep(0.001)
                continue
            if not chunk:
                raise SystemExit('dbus-fuzz: the bus closed the raw connection')
            data += chunk
        raise SystemExit('dbus-fuzz: no reply from the bus on the raw connection')

    def drain(self):
        """Reads what the bus sent us (NameAcquired, errors), so that it
        never stops reading us for a full queue."""
        while True:
            try:
                if not self.sock.recv(65536):
                    raise SystemExit('dbus-fuzz: the bus closed the raw connection')
            except BlockingIOError:
                return

    def close(self):
        self.sock.close()


class MessageFuzzer:
    """Besides method calls: unicast and broadcast signals sent with GDBus,
    and method calls and signals GLib serialized, written raw on a socket,
    all with random bodies (a third of them one GDBus cannot decode), to
    random and to the service's own paths, interfaces and members. After
    each message GDBus cannot decode, and every tenth other one, the service
    must answer Peer.Ping on its well-known name within ANSWER_AGAIN_S (1 s;
    10 s under valgrind or ASan), with the same pid; at the end, in deny
    mode, the fake tree must be unchanged and SIGTERM must exit 0."""

    def __init__(self, env, mode, seed, log=print):
        self.env = env
        self.mode = mode
        self.seed = seed
        self.log = log
        self.target = discover(env.conn, env.fk.root)
        self.gen = Generator(seed, self.target)
        self.rng = self.gen.rng
        self.raw = RawBus(env.bus.address)
        self.findings = []
        self.kinds = collections.Counter()
        self.undecodable = 0
        self.reconnects = 0
        self.answer_times = []
        self.limit = ANSWER_AGAIN_S if hpdtest.plain_build(env.binary) else 10 * ANSWER_AGAIN_S
        self.duration = 0.0

    finding = Fuzzer.finding

    def body(self):
        if self.rng.random() < 1 / 3:
            return UNDECODABLE
        types = [self.gen.random_type() for _ in range(self.rng.randrange(1, 4))]
        return GLib.Variant.new_tuple(*[self.gen.value(t) for t in types])

    def address(self):
        if self.gen.methods and self.rng.random() < 0.6:
            m = self.rng.choice(self.target.methods)
            return m.path, m.iface, m.name
        return (self.rng.choice(['/', '/org/hugepages/Manager', '/x/y', '/org/freedesktop/DBus']),
                self.rng.choice([hpdtest.MANAGER_IFACE, hpdtest.PAGE_SIZE_IFACE,
                                 'org.freedesktop.DBus', 'org.freedesktop.DBus.Properties',
                                 'com.example.Fuzz']),
                self.rng.choice(['NameOwnerChanged', 'PropertiesChanged', 'Ping', 'X', 'Claim']))

    def message(self, kind, unique):
        path, iface, member = self.address()
        if kind in ('signal', 'broadcast', 'raw-signal'):
            message = Gio.DBusMessage.new_signal(path, iface, member)
            if kind != 'broadcast':
                message.set_destination(unique)
        else:
            message = Gio.DBusMessage.new_method_call(
                unique if kind == 'raw-call-unique' else hpdtest.BUS_NAME, path, iface, member)
            # nobody reads the raw socket's replies
            message.set_flags(Gio.DBusMessageFlags.NO_REPLY_EXPECTED)
        message.set_body(self.body())
        return message

    def answers_again(self, before, message):
        """Waits until the service answers on its name; a finding if not
        within the limit or from another process."""
        conn = self.env.conn
        start = time.monotonic()
        while True:
            try:
                conn.call_sync(hpdtest.BUS_NAME, hpdtest.MANAGER_PATH, 'org.freedesktop.DBus.Peer',
                               'Ping', None, None, Gio.DBusCallFlags.NO_AUTO_START, 250, None)
                # not an answer from the old connection just before it read
                # the message, nor while the name is between owners
                if hpdtest.owner_pid(conn) is not None:
                    break
            except GLib.Error:
                pass
            if not self.env.service.alive() or time.monotonic() - start > self.limit:
                self.finding(f'no answer on {hpdtest.BUS_NAME} within {self.limit} s',
                             message=shorten(message.print_(0), 2000),
                             alive=self.env.service.alive(), log_tail=self.env.log_tail(3000))
                return False
            time.sleep(0.002)
        self.answer_times.append(time.monotonic() - start)
        pid = hpdtest.owner_pid(conn)
        if pid != self.env.service.pid:
            self.finding(f'{hpdtest.BUS_NAME} belongs to pid {pid}, not {self.env.service.pid}')
            return False
        if hpdtest.name_owner(conn) != before:
            self.reconnects += 1
        return True

    def run(self, n):
        env = self.env
        baseline = tree_snapshot(env.fk.root) if self.mode == 'deny' else None
        started = time.monotonic()
        unique = hpdtest.name_owner(env.conn)
        for i in range(n):
            kind = self.rng.choice(MESSAGE_KINDS)
            message = self.message(kind, unique)
            self.kinds[kind] += 1
            decodable = glib_parses(message, message.get_body())
            self.undecodable += not decodable
            if kind.startswith('raw'):
                self.raw.send(message)
                self.raw.sync()
            else:
                env.conn.send_message(message, Gio.DBusSendMessageFlags.NONE)
                env.conn.flush_sync(None)
            if (not decodable or i % 10 == 9) and not self.answers_again(unique, message):
                break
            unique = hpdtest.name_owner(env.conn) or unique
        self.duration = time.monotonic() - started
        if self.findings:
            return
        if baseline is not None:
            after = tree_snapshot(env.fk.root)
            if after != baseline:
                self.finding('the fake tree changed in deny mode',
                             changes=tree_diff(baseline, after))
        status = env.service.terminate(10)
        if status != 0:
            self.finding(f'hugepagesd did not exit 0 on SIGTERM: {status}',
                         log_tail=env.log_tail())

    def summary(self):
        times = sorted(self.answer_times) or [0.0]
        return {'mode': self.mode, 'seed': self.seed, 'messages': sum(self.kinds.values()),
                'kinds': dict(sorted(self.kinds.items())), 'findings': len(self.findings),
                'undecodable': self.undecodable, 'reconnects': self.reconnects,
                'answer_again_max_s': round(times[-1], 3),
                'answer_again_median_s': round(times[len(times) // 2], 3),
                'duration_s': round(self.duration, 2)}


def message_summary_line(summary):
    return (f"dbus-fuzz messages: {summary['messages']} ({summary['undecodable']} undecodable, "
            f"{summary['reconnects']} reconnects), {summary['findings']} findings, answered again "
            f"within {summary['answer_again_max_s']} s (median {summary['answer_again_median_s']} s)")


def summary_line(summaries, findings=None):
    """dbus-fuzz: N calls (allow A, deny D), F findings, E distinct error names, X calls/s"""
    calls = sum(s['calls'] for s in summaries)
    duration = sum(s['duration_s'] for s in summaries)
    names = set()
    for s in summaries:
        names |= {e for e in s['error_names'] if not e.startswith('(')}
    parts = ', '.join(f"{s['mode']} {s['calls']}" for s in summaries)
    nfind = sum(s['findings'] for s in summaries) if findings is None else findings
    rate = calls / duration if duration else 0
    return (f'dbus-fuzz: {calls} calls ({parts}), {nfind} findings, '
            f'{len(names)} distinct error names, {rate:.0f} calls/s')


# --- command line -------------------------------------------------------------

IN_NAMESPACE = 'HPD_FUZZ_PRIVATE_MOUNT_NS'


def reexec_in_private_mount_namespace():
    """The fuzzer runs in a mount namespace of its own with private
    propagation: whatever the service would mount stays there, and the mount
    table it checks changes only with what the service does."""
    if os.environ.get(IN_NAMESPACE) == '1':
        return
    env = dict(os.environ, **{IN_NAMESPACE: '1'})
    argv = ['unshare', '-m', '--propagation', 'private', sys.executable,
            os.path.abspath(__file__)] + sys.argv[1:]
    sys.stdout.flush()
    os.execvpe('unshare', argv, env)


def run_messages(env, args, builddir, findings_path):
    try:
        fuzzer = MessageFuzzer(env, args.mode, args.seed)
        fuzzer.run(args.messages)
        summary = fuzzer.summary()
        if fuzzer.findings:
            env.keep = True
            summary['kept'] = env.dir
    finally:
        env.close()
    os.makedirs(os.path.dirname(os.path.abspath(findings_path)), exist_ok=True)
    with open(findings_path, 'w') as f:
        json.dump({'seed': args.seed, 'mode': args.mode, 'builddir': builddir,
                   'summary': summary, 'findings': fuzzer.findings}, f, indent=1)
    print(f'dbus-fuzz: findings and summary in {findings_path}')
    print(message_summary_line(summary))
    return 1 if fuzzer.findings else 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--calls', type=int, default=10000)
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--mode', choices=('allow', 'deny'), default='deny')
    parser.add_argument('--builddir', default=os.environ.get('HUGEPAGESD_BUILDDIR') or
                        os.path.join(REPO, 'build'))
    parser.add_argument('--findings', help='JSON file for the findings and the summary '
                        '(default <builddir>/test-results/dbus-fuzz-<mode>-<seed>.json)')
    parser.add_argument('--in-flight', type=int, default=64, help='calls sent before their reply')
    parser.add_argument('--batch', type=int, default=1000,
                        help='calls between the checks of pid, fds and (deny) the tree')
    parser.add_argument('--max-rss-growth', type=int, default=256, metavar='MB',
                        help='a finding if the service grows more (0: no check, as under ASan, '
                        'whose quarantine keeps freed memory)')
    parser.add_argument('--replay', help='send only these call indexes (comma-separated)')
    parser.add_argument('--messages', type=int, default=0,
                        help='instead of method calls, send this many signals and raw '
                        'GLib-serialized messages (MessageFuzzer)')
    parser.add_argument('--keep', action='store_true', help='keep the temporary directory')
    args = parser.parse_args(argv)

    if os.geteuid() != 0:
        raise SystemExit('dbus-fuzz: needs root (bus policy as root, fanotify, unshare)')
    reexec_in_private_mount_namespace()
    builddir = os.path.abspath(args.builddir)
    findings_path = args.findings or os.path.join(
        builddir, 'test-results', f'dbus-fuzz-{args.mode}-{args.seed}.json')

    env = Environment(builddir, args.mode, keep=args.keep)
    if args.messages:
        return run_messages(env, args, builddir, findings_path)
    try:
        fuzzer = Fuzzer(env, args.mode, args.seed, args.in_flight, args.batch,
                        args.max_rss_growth)
        if args.replay:
            fuzzer.replay(int(i) for i in args.replay.split(','))
            return 1 if fuzzer.findings else 0
        fuzzer.run(args.calls)
        summary = fuzzer.summary()
        if fuzzer.findings:
            env.keep = True
            summary['kept'] = env.dir
    finally:
        env.close()

    os.makedirs(os.path.dirname(os.path.abspath(findings_path)), exist_ok=True)
    with open(findings_path, 'w') as f:
        json.dump({'seed': args.seed, 'mode': args.mode, 'builddir': builddir,
                   'reproduce': f'/usr/bin/python3 {os.path.relpath(__file__, REPO)} '
                                f'--mode {args.mode} --seed {args.seed} --replay INDEX',
                   'summary': summary, 'findings': fuzzer.findings}, f, indent=1)
    print(f'dbus-fuzz: {args.mode}: {summary["error_names"]}')
    print(f'dbus-fuzz: findings and summary in {findings_path}')
    print(summary_line([summary]))
    return 1 if fuzzer.findings else 0


if __name__ == '__main__':
    sys.exit(main())
