# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Helpers for the integration tests: bus names, a tiny GDBus client, typed
bus errors. Plain functions on a Gio.DBusConnection, so they work for any
connection a test opens (root, a second client, a client on another bus)."""

import inspect
import json
import os
import random
import select
import shlex
import signal
import socket
import subprocess
import time
import xml.etree.ElementTree as ET

import gi

gi.require_version('Gio', '2.0')
from gi.repository import Gio, GLib  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TESTS_DIR = os.path.join(REPO, 'tests')
INTERFACE_XML = os.path.join(REPO, 'data', 'dbus', 'org.hugepages.Manager.xml')
POLICY_DIR = os.path.join(REPO, 'data', 'dbus')
UNIT_TEMPLATE = os.path.join(REPO, 'data', 'systemd', 'hugepagesd.service.in')


def unit_settings(unit=UNIT_TEMPLATE):
    """The service unit's assignments, each key with its values in the
    order the unit gives them (a key such as Environment= may come more
    than once). Comments and section headers are left out."""
    settings = {}
    with open(unit) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith(('#', ';', '[')) and '=' in line:
                key, _, value = line.partition('=')
                settings.setdefault(key.strip(), []).append(value.strip())
    return settings


def unit_umask(unit=UNIT_TEMPLATE):
    """The service unit's UMask=: the tests run the service with it, so that
    every file and directory others must read shows it was given its mode."""
    values = unit_settings(unit).get('UMask')
    if not values:
        raise AssertionError(f'{unit} sets no UMask=')
    return int(values[-1], 8)


def unit_environment(unit=UNIT_TEMPLATE):
    """The service unit's Environment= assignments: the tests and bench/run
    run the service with them, as systemd does."""
    env = {}
    for value in unit_settings(unit).get('Environment', []):
        for assignment in shlex.split(value):
            name, _, assigned = assignment.partition('=')
            env[name] = assigned
    return env


BUS_NAME = 'org.hugepages.Manager'
MANAGER_PATH = '/org/hugepages/Manager'
PAGE_SIZE_PREFIX = MANAGER_PATH + '/PageSize/'
MANAGER_IFACE = 'org.hugepages.Manager'
PAGE_SIZE_IFACE = 'org.hugepages.Manager.PageSize'
PROPS_IFACE = 'org.freedesktop.DBus.Properties'
OM_IFACE = 'org.freedesktop.DBus.ObjectManager'

ACTION_POOLS = 'org.hugepages.manager.configure-pools'
ACTION_MOUNTS = 'org.hugepages.manager.manage-mounts'
ALL_ACTIONS = [
    'org.hugepages.manager.configure-pools',
    'org.hugepages.manager.manage-mounts',
    'org.hugepages.manager.configure-tunables',
    'org.hugepages.manager.configure-boot',
    'org.hugepages.manager.inspect-usage',
]

ERR = 'org.hugepages.Manager.Error.'
ERR_NOT_AUTHORIZED = ERR + 'NotAuthorized'
ERR_INVALID_ARGS = ERR + 'InvalidArgs'
ERR_NOT_SUPPORTED = ERR + 'NotSupported'
ERR_LIMIT_EXCEEDED = ERR + 'LimitExceeded'
ERR_FAILED = ERR + 'Failed'
ERR_BUSY = ERR + 'Busy'
ERR_NO_SUCH_USER = ERR + 'NoSuchUser'
ERR_NO_SUCH_GROUP = ERR + 'NoSuchGroup'
ERR_NOT_MOUNTED = ERR + 'NotMounted'
DBUS_INVALID_ARGS = 'org.freedesktop.DBus.Error.InvalidArgs'
DBUS_UNKNOWN_METHOD = 'org.freedesktop.DBus.Error.UnknownMethod'
DBUS_UNKNOWN_OBJECT = 'org.freedesktop.DBus.Error.UnknownObject'
DBUS_UNKNOWN_INTERFACE = 'org.freedesktop.DBus.Error.UnknownInterface'
DBUS_ACCESS_DENIED = 'org.freedesktop.DBus.Error.AccessDenied'
DBUS_PROPERTY_READ_ONLY = 'org.freedesktop.DBus.Error.PropertyReadOnly'

# The pool methods: name -> input signature (the trailing a{sv} included).
POOL_METHODS = {
    'SetMinimum': '(ta{sv})',
    'SetMaximum': '(ta{sv})',
    'SetNodePages': '(uta{sv})',
    'Demote': '(ta{sv})',
}

UINT64_MAX = 2**64 - 1

# The keys of the API's records (aa{sv}), in the order tests compare them.
NODE_KEYS = ('node', 'total', 'free', 'surplus', 'minimum')
STATE_KEYS = ('key', 'value', 'origin')
DRIFT_KEYS = ('key', 'configured', 'actual', 'message')
OVERRIDE_KEYS = ('key', 'value', 'origin', 'overridden', 'overridden-origin')
EXPLAIN_KEYS = ('severity', 'id', 'message', 'fix')
CLAIM_KEYS = ('consumer', 'page-size', 'pages', 'node')


def rows(records, keys):
    """Records (dictionaries) as tuples of keys' values, None where a key is
    missing (a claim's node, say)."""
    result = []
    for record in records:
        assert isinstance(record, dict), record
        result.append(tuple(record.get(k) for k in keys))
    return result


def under_valgrind():
    """Whether the service runs under HUGEPAGESD_WRAPPER (valgrind in
    tests/run-all). valgrind runs one thread at a time, some 20 to 50 times
    slower, so the service's own real-time bounds (the 5 s it waits for the
    bus to say who a caller is, polkit's) are outrun by a flood a plain
    build keeps up with, and its handover from one thread to the next is a
    read() of a pipe, counted with the service's own reads."""
    return bool(os.environ.get('HUGEPAGESD_WRAPPER'))


# Why a test of a flood against the service's real-time bounds skips under
# valgrind (pytest.mark.skipif(under_valgrind(), reason=OUTRUN_UNDER_VALGRIND))
OUTRUN_UNDER_VALGRIND = ('a flood outruns the service under valgrind: the bus answers about '
                         'callers later than the service waits, and refusals come too slowly '
                         'to outrun the log bound')


def plain_build(binary):
    """False under valgrind (HUGEPAGESD_WRAPPER) or for an AddressSanitizer
    build: the service is then many times slower and its memory is the
    tool's, so bounds on time and RSS hold for the plain build only."""
    if under_valgrind():
        return False
    with open(binary, 'rb') as f:
        return b'__asan_init' not in f.read()


class BusError(Exception):
    """A D-Bus error reply: .name is the remote error name."""

    def __init__(self, name, message):
        super().__init__(f'{name}: {message}')
        self.name = name
        self.message = message


def free_port():
    """A loopback TCP port nothing listens on, for a server a test starts.

    Not one the kernel hands out by itself (bind to port 0): those come from
    the ephemeral range, where any outgoing connection (the browser's, the
    bus's, ssh's) may take the same port as its source before the server
    binds it. A port below that range is only ever taken on purpose."""
    with open('/proc/sys/net/ipv4/ip_local_port_range') as f:
        first_ephemeral = int(f.read().split()[0])
    ports = list(range(10000, first_ephemeral))
    random.shuffle(ports)
    for port in ports[:200]:
        with socket.socket() as s:
            try:
                s.bind(('127.0.0.1', port))
            except OSError:
                continue
            return port
    raise RuntimeError(f'no free loopback port in 10000-{first_ephemeral - 1}')


def stop_process(proc, timeout=5):
    """SIGTERM, then SIGKILL if proc has not exited within timeout seconds."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def iterate_until(predicate, timeout=5.0):
    """Runs the default main context (the replies of asynchronous calls)
    until predicate() holds; AssertionError after timeout seconds."""
    ctx = GLib.MainContext.default()
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError('timed out')
        if not ctx.iteration(False):
            time.sleep(0.002)


def daemon_refuses(hugepagesd, kernel_root, option, value):
    """Whether hugepagesd refuses --OPTION=VALUE at start, naming the option."""
    proc = subprocess.run([hugepagesd, '--kernel-root', kernel_root, f'--{option}={value}'],
                          capture_output=True, text=True, timeout=10)
    return proc.returncode != 0 and option in proc.stderr


def in_private_mount_namespace():
    """Whether this process has a mount namespace of its own, as
    `unshare -m ... python3` gives it (PID 1's namespace may be unreadable
    in a container, the parent's is not)."""
    try:
        return os.readlink('/proc/self/ns/mnt') != os.readlink(f'/proc/{os.getppid()}/ns/mnt')
    except OSError:
        return False


def page_size_path(size_kb):
    return f'{PAGE_SIZE_PREFIX}{size_kb}kB'


def connect(address):
    """A new private connection to the bus at address."""
    return Gio.DBusConnection.new_for_address_sync(
        address,
        Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
        Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
        None, None)


def _bus_error(error):
    name = Gio.DBusError.get_remote_error(error)
    if name is None:
        raise error
    message = error.message
    prefix = f'GDBus.Error:{name}: '
    if message.startswith(prefix):
        message = message[len(prefix):]
    return BusError(name, message)


def call(conn, path, iface, method, params=None, reply_type=None, interactive=False,
         timeout_ms=10000, dest=BUS_NAME):
    """Calls and returns the unpacked reply tuple; raises BusError."""
    flags = Gio.DBusCallFlags.NONE
    if interactive:
        flags |= Gio.DBusCallFlags.ALLOW_INTERACTIVE_AUTHORIZATION
    try:
        reply = conn.call_sync(dest, path, iface, method, params,
                               GLib.VariantType(reply_type) if reply_type else None,
                               flags, timeout_ms, None)
    except GLib.Error as e:
        raise _bus_error(e) from None
    return reply.unpack() if reply is not None else None


def options(**kwargs):
    """options(dry_run=True, timeout_ms=5) -> a{sv} with 'dry-run' and
    'timeout-ms'; values must already be GLib.Variant or bool (-> b)."""
    result = {}
    for key, value in kwargs.items():
        if isinstance(value, bool):
            value = GLib.Variant('b', value)
        result[key.replace('_', '-')] = value
    return result


def pool_call(conn, size_kb, method, *args, options=None, interactive=False, timeout_ms=10000):
    """Calls a PageSize method; returns its single 't' result."""
    sig = POOL_METHODS[method]
    params = GLib.Variant(sig, (*args, options or {}))
    return call(conn, page_size_path(size_kb), PAGE_SIZE_IFACE, method, params, '(t)',
                interactive=interactive, timeout_ms=timeout_ms)[0]


def raw_pool_call(conn, size_kb, method, params, **kwargs):
    """Calls a PageSize method with a prebuilt GLib.Variant (any signature)."""
    return call(conn, page_size_path(size_kb), PAGE_SIZE_IFACE, method, params, **kwargs)


def get(conn, path, iface, name):
    return call(conn, path, PROPS_IFACE, 'Get', GLib.Variant('(ss)', (iface, name)), '(v)')[0]


def get_all(conn, path, iface):
    return call(conn, path, PROPS_IFACE, 'GetAll', GLib.Variant('(s)', (iface,)), '(a{sv})')[0]


def manager_props(conn):
    return get_all(conn, MANAGER_PATH, MANAGER_IFACE)


def page_size_props(conn, size_kb):
    return get_all(conn, page_size_path(size_kb), PAGE_SIZE_IFACE)


def managed_objects(conn):
    return call(conn, MANAGER_PATH, OM_IFACE, 'GetManagedObjects', None, '(a{oa{sa{sv}}})')[0]


def introspect(conn, path):
    xml = call(conn, path, 'org.freedesktop.DBus.Introspectable', 'Introspect', None, '(s)')[0]
    return ET.fromstring(xml)


def introspected_properties(conn, path, iface):
    """{name: (type, access)} of iface at path, from the live service."""
    node = introspect(conn, path)
    for i in node.findall('interface'):
        if i.get('name') == iface:
            return {p.get('name'): (p.get('type'), p.get('access')) for p in i.findall('property')}
    return {}


def xml_properties(iface):
    """{name: (type, access)} of iface from the project's interface XML."""
    root = ET.parse(INTERFACE_XML).getroot()
    for i in root.findall('interface'):
        if i.get('name') == iface:
            return {p.get('name'): (p.get('type'), p.get('access')) for p in i.findall('property')}
    raise KeyError(iface)


def name_owner(conn, name=BUS_NAME):
    try:
        return call(conn, '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'GetNameOwner',
                    GLib.Variant('(s)', (name,)), '(s)', dest='org.freedesktop.DBus')[0]
    except BusError:
        return None


def owner_pid(conn, name=BUS_NAME):
    try:
        return call(conn, '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                    'GetConnectionUnixProcessID', GLib.Variant('(s)', (name,)), '(u)',
                    dest='org.freedesktop.DBus')[0]
    except BusError:
        return None


def has_owner(conn, name):
    return call(conn, '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'NameHasOwner',
                GLib.Variant('(s)', (name,)), '(b)', dest='org.freedesktop.DBus')[0]


# A client for running as another user (see the run_python_as fixture): it
# reads one JSON request from argv[1], runs the listed operations on the
# system bus ($DBUS_SYSTEM_BUS_ADDRESS), and prints one JSON result per
# operation: {"ok": value} or {"error": name}.
CLIENT_SCRIPT = r'''
import json, os, sys
sys.path.insert(0, %(here)r)
import hpdtest
from gi.repository import GLib

conn = hpdtest.connect(os.environ["DBUS_SYSTEM_BUS_ADDRESS"])
results = []
for op in json.loads(sys.argv[1]):
    kind = op[0]
    try:
        if kind == "unique_name":
            value = conn.get_unique_name()
        elif kind == "get":
            _, path, iface, name = op
            value = hpdtest.get(conn, path, iface, name)
        elif kind == "get_all":
            _, path, iface = op
            value = hpdtest.get_all(conn, path, iface)
        elif kind == "set":
            _, path, iface, name, text = op  # the value in GVariant text format
            hpdtest.call(conn, path, hpdtest.PROPS_IFACE, "Set",
                         GLib.Variant("(ssv)", (iface, name, GLib.Variant.parse(None, text, None, None))))
            value = None
        elif kind == "pool":
            _, size_kb, method, args, interactive = op
            value = hpdtest.pool_call(conn, size_kb, method, *args, interactive=interactive)
        elif kind == "call":
            # any method; the arguments in GVariant text format
            _, path, iface, method, sig, text, reply_type, interactive = op
            value = hpdtest.call(conn, path, iface, method,
                                 GLib.Variant.parse(GLib.VariantType(sig), text, None, None),
                                 reply_type, interactive=interactive)
        elif kind == "request_name":
            _, name = op
            value = hpdtest.call(conn, "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                 "RequestName", GLib.Variant("(su)", (name, 4)), "(u)",
                                 dest="org.freedesktop.DBus")[0]
        else:
            raise ValueError(kind)
        results.append({"ok": value})
    except hpdtest.BusError as e:
        results.append({"error": e.name, "message": e.message})
print(json.dumps(results))
''' % {'here': os.path.dirname(os.path.abspath(__file__))}


def client_command(ops):
    """argv running CLIENT_SCRIPT for ops under Debian's python."""
    return ['/usr/bin/python3', '-c', CLIENT_SCRIPT, json.dumps(ops)]


def parse_client_output(proc):
    if proc.returncode != 0:
        raise AssertionError(f'client failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}')
    return json.loads(proc.stdout.strip().splitlines()[-1])


def count_reply(outcomes, conn, result, prefix='', by_message=False):
    """Finishes an asynchronous call on conn and counts its outcome in the
    dict outcomes, behind prefix: 'ok', or the remote error's name (the
    error's text where there is none: a timeout, a closed connection); with
    by_message the whole text, 'GDBus.Error:NAME: message', for a test that
    checks the message too."""
    try:
        conn.call_finish(result)
        key = 'ok'
    except GLib.Error as e:
        key = e.message if by_message else Gio.DBusError.get_remote_error(e) or e.message
    key = prefix + key
    outcomes[key] = outcomes.get(key, 0) + 1


class PipeLines:
    """The lines a process writes to its stdout pipe, read from the pipe
    itself: a buffered readline() may take several lines off the pipe, and
    select() would then wait for more while the next one sits unread in the
    buffer. One reader per pipe, kept across waits, so that lines read
    along with an earlier one are not lost."""

    def __init__(self, proc):
        self.fd = proc.stdout.fileno()
        self.pending = b''

    def next(self, deadline):
        """The next line as text, or None once time.monotonic() passed
        @deadline; EOFError when the process closed its end."""
        while b'\n' not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                chunk = os.read(self.fd, 65536)
                if not chunk:
                    raise EOFError
                self.pending += chunk
        line, self.pending = self.pending.split(b'\n', 1)
        return line.decode()


def report_on_sigusr1(outcomes):
    """From now on, SIGUSR1 prints outcomes as one line of JSON: how a
    flood that runs until killed tells the test its answers so far."""
    def report():
        print(json.dumps(outcomes), flush=True)
        return True
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, report)


def flood_script(body):
    """The script body for `python3 -c`, run as another user, with
    count_reply and report_on_sigusr1 defined ahead of it: the script reads
    no file of the tests, which that user may not be allowed to read."""
    return ('import json, signal\nfrom gi.repository import Gio, GLib\n' +
            inspect.getsource(count_reply) + inspect.getsource(report_on_sigusr1) + body)


# Run as the flooding user: argv[1] connections keep argv[2] changes each in
# flight, sending another as soon as one is answered, until killed; prints
# the answers so far when asked (SIGUSR1).
SUSTAINED_FLOOD = flood_script(r'''
import json, os, sys
from gi.repository import Gio, GLib
conns, per = int(sys.argv[1]), int(sys.argv[2])
address = os.environ["DBUS_SYSTEM_BUS_ADDRESS"]
flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
opened = [Gio.DBusConnection.new_for_address_sync(address, flags, None, None) for _ in range(conns)]
outcomes = {}
def send(c):
    c.call("org.hugepages.Manager", "/org/hugepages/Manager/PageSize/2048kB",
           "org.hugepages.Manager.PageSize", "SetMinimum", GLib.Variant("(ta{sv})", (10, {})),
           None, Gio.DBusCallFlags.NONE, 120000, None, done, None)
def done(c, res, _):
    count_reply(outcomes, c, res)
    send(c)
for c in opened:
    for _ in range(per):
        send(c)
report_on_sigusr1(outcomes)
print(json.dumps({"connections": len(opened)}), flush=True)
GLib.MainLoop().run()
''')
