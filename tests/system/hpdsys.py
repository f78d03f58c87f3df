# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Shared helpers of the hugepagesd system tests (see conftest.py).

A module of its own, with a name no other tier uses, so that the test files
can import it even when several tiers run in one pytest session.
"""

import json
import os
import pwd
import re
import subprocess
import sys
import time
from pathlib import Path

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

# The flood scripts of both tiers count their replies alike, and both run
# the service with its unit's umask (hpdtest.py, the integration tests'
# helpers); appended, so that no module of this folder is shadowed.
sys.path.append(str(REPO / "tests" / "integration"))
from hpdtest import PipeLines, flood_script, unit_environment, unit_umask  # noqa: E402,F401

HUGEPAGES = Path("/sys/kernel/mm/hugepages")
NODES = Path("/sys/devices/system/node")
SYSCTL = Path("/proc/sys")
SHMMAX = SYSCTL / "kernel/shmmax"
SHMALL = SYSCTL / "kernel/shmall"
SHM_GROUP = SYSCTL / "vm/hugetlb_shm_group"
MIN_FREE = SYSCTL / "vm/min_free_kbytes"
THP = Path("/sys/kernel/mm/transparent_hugepage")
KB_2M = 2048
KB_1G = 1048576
MAX_2M_PAGES = 64          # the most 2 MiB pages a test may add
MAX_1G_PAGES = 1           # the most 1 GiB pages a test may add

BUS_NAME = "org.hugepages.Manager"
MANAGER_PATH = "/org/hugepages/Manager"
MANAGER_IFACE = "org.hugepages.Manager"
PAGE_SIZE_IFACE = "org.hugepages.Manager.PageSize"
ERROR_PREFIX = "org.hugepages.Manager.Error."
POLKIT_NAME = "org.freedesktop.PolicyKit1"

ALLOWED_USER = "hpd-test-allowed"
DENIED_USER = "hpd-test-denied"

POLKITD = "/usr/lib/polkit-1/polkitd"
PYTHON = "/usr/bin/python3"   # Debian's: it has python3-gi


def builddir():
    value = os.environ.get("HUGEPAGESD_BUILDDIR")
    return Path(os.path.abspath(value)) if value else REPO / "build"


def page_size_path(kb):
    return "%s/PageSize/%dkB" % (MANAGER_PATH, kb)


# --------------------------------------------------------------------------
# Where the tests may run

def _root_mount_id(pid):
    """The mount ID of / as seen by @pid. Mount IDs are unique machine-wide,
    and unshare(CLONE_NEWNS) copies every mount with a new ID."""
    for line in Path("/proc/%s/mountinfo" % pid).read_text().splitlines():
        fields = line.split()
        if fields[4] == "/":
            return fields[0]
    raise OSError("no / in /proc/%s/mountinfo" % pid)


def _same_mount_namespace_as_init():
    try:
        return os.readlink("/proc/self/ns/mnt") == os.readlink("/proc/1/ns/mnt")
    except PermissionError:
        # Some VMs' init is out of ptrace reach even for root (here: PID 1
        # holds CAP_SYS_RESOURCE, which we lack); its mountinfo is readable.
        return _root_mount_id("self") == _root_mount_id(1)


def _skip_reason():
    if os.geteuid() != 0:
        return "the system tests need root (they drive the real kernel and start polkitd)"
    try:
        same = _same_mount_namespace_as_init()
    except OSError as e:
        return "cannot compare mount namespaces with PID 1: %s" % e
    if same:
        return ("not in a private mount namespace (same as PID 1's); run: "
                "unshare -m --propagation private /usr/bin/python3 -m pytest tests/system")
    return None


SKIP_REASON = _skip_reason()



# --------------------------------------------------------------------------
# The kernel, read and written directly

def read_counter(path):
    return int(Path(path).read_text().strip())


def write_counter(path, value):
    """One "%d\\n" write, as the service does; raises OSError."""
    data = b"%d\n" % value
    fd = os.open(str(path), os.O_WRONLY)
    try:
        if os.write(fd, data) != len(data):
            raise OSError("short write to %s" % path)
    finally:
        os.close(fd)


def pool_dir(kb):
    return HUGEPAGES / ("hugepages-%dkB" % kb)


def has_pool(kb):
    return pool_dir(kb).is_dir()


def pool_sizes_kb():
    sizes = []
    if not HUGEPAGES.is_dir():
        return sizes
    for d in HUGEPAGES.iterdir():
        name = d.name
        if name.startswith("hugepages-") and name.endswith("kB"):
            sizes.append(int(name[len("hugepages-"):-2]))
    return sorted(sizes)


# The keys of the API's records (aa{sv}), in the order tests compare them.
NODE_KEYS = ("node", "total", "free", "surplus", "minimum")
EXPLAIN_KEYS = ("severity", "id", "message", "fix")
DRIFT_KEYS = ("key", "configured", "actual", "message")
STATE_KEYS = ("key", "value", "origin")
CLAIM_KEYS = ("consumer", "page-size", "pages", "node")


def rows(records, keys):
    """Records (dictionaries) as tuples of keys' values, None where missing."""
    return [tuple(r.get(k) for k in keys) for r in records]


def node_counters(kb):
    """[(node, total, free, surplus, minimum)] from the per-node files."""
    out = []
    for d in NODES.glob("node[0-9]*"):
        p = d / "hugepages" / ("hugepages-%dkB" % kb)
        if not (p / "nr_hugepages").exists():
            continue
        total = read_counter(p / "nr_hugepages")
        free = read_counter(p / "free_hugepages")
        surplus = read_counter(p / "surplus_hugepages")
        out.append((int(d.name[4:]), total, free, surplus, max(total - surplus, 0)))
    return sorted(out)


def counters(kb):
    """The pool as the kernel shows it, with the service's derived values."""
    d = pool_dir(kb)
    c = {
        "Total": read_counter(d / "nr_hugepages"),
        "Free": read_counter(d / "free_hugepages"),
        "Reserved": read_counter(d / "resv_hugepages"),
        "Surplus": read_counter(d / "surplus_hugepages"),
    }
    try:
        c["Overcommit"] = read_counter(d / "nr_overcommit_hugepages")
    except OSError:
        c["Overcommit"] = 0
    c["Minimum"] = max(c["Total"] - c["Surplus"], 0)
    c["Maximum"] = c["Minimum"] + c["Overcommit"]
    c["Nodes"] = node_counters(kb)
    return c


def stable_counters(kb, tries=20):
    """Counters read twice in a row with the same result."""
    last = counters(kb)
    for _ in range(tries):
        now = counters(kb)
        if now == last:
            return now
        last = now
        time.sleep(0.05)
    return last


def tree_snapshot():
    """Every readable file under /sys/kernel/mm/hugepages and the node pools."""
    snap = {}
    roots = [HUGEPAGES] + [d / "hugepages" for d in NODES.glob("node[0-9]*")]
    for root in roots:
        if not root.is_dir():
            continue
        for f in sorted(root.rglob("*")):
            if f.is_file():
                try:
                    snap[str(f)] = f.read_text()
                except OSError:
                    pass   # demote is write-only
    return snap


def meminfo_kb(key):
    for line in Path("/proc/meminfo").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name == key:
            return int(rest.split()[0])
    raise KeyError(key)


def can_overcommit_kernel(kb):
    """Writes back the current overcommit value: the kernel's own answer."""
    path = pool_dir(kb) / "nr_overcommit_hugepages"
    try:
        write_counter(path, read_counter(path))
    except OSError:
        return False
    return True


def pools_snapshot():
    """{kb: (minimum, overcommit)}: what a restore puts back."""
    snap = {}
    for kb in pool_sizes_kb():
        c = counters(kb)
        snap[kb] = (c["Minimum"], c["Overcommit"])
    return snap


def restore_pools(snap):
    """Puts every pool back to @snap; returns a list of what did not work."""
    problems = []
    for kb, (minimum, overcommit) in snap.items():
        d = pool_dir(kb)
        try:
            c = counters(kb)
            if c["Minimum"] != minimum:
                write_counter(d / "nr_hugepages", minimum)
            if read_counter(d / "nr_overcommit_hugepages") != overcommit:
                write_counter(d / "nr_overcommit_hugepages", overcommit)
            c = counters(kb)
            if (c["Minimum"], c["Overcommit"]) != (minimum, overcommit):
                problems.append("%dkB pool is minimum %d overcommit %d, wanted %d, %d"
                                % (kb, c["Minimum"], c["Overcommit"], minimum, overcommit))
        except OSError as e:
            problems.append("restoring the %dkB pool: %s" % (kb, e))
    return problems


# --------------------------------------------------------------------------
# Helper processes that hold huge pages

_helpers = []

MAPPER = r"""
import mmap, sys
n = int(sys.argv[1])
size = 2 << 20
# MAP_HUGETLB | MAP_HUGE_2MB (21 << MAP_HUGE_SHIFT)
flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x40000 | (21 << 26)
try:
    m = mmap.mmap(-1, n * size, flags=flags)
    for i in range(n):
        m[i * size] = 1
except OSError as e:
    print("error", e, flush=True)
    sys.exit(1)
print("ready", flush=True)
sys.stdin.read()
"""


class Mapper:
    """A child process that maps and touches @n 2 MiB huge pages until released."""

    def __init__(self, n):
        self.proc = subprocess.Popen(["setpriv", "--pdeathsig", "KILL", PYTHON, "-c", MAPPER, str(n)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        _helpers.append(self.proc)
        line = self.proc.stdout.readline().strip()
        if line != "ready":
            self.release()
            raise RuntimeError("could not map %d huge pages: %r" % (n, line))

    def release(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
                self.proc.wait(10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        if self.proc in _helpers:
            _helpers.remove(self.proc)


def kill_helpers():
    while _helpers:
        p = _helpers.pop()
        if p.poll() is None:
            p.kill()
            p.wait()


# --------------------------------------------------------------------------
# The private bus, polkitd and the service

BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
    <deny send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"
          send_member="UpdateActivationEnvironment"/>
    <deny send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Debug.Stats"/>
  </policy>
  <policy user="root">
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Monitoring"/>
  </policy>
  <!-- polkit's own policy -->
  <includedir>/usr/share/dbus-1/system.d</includedir>
  <!-- the project's real policy -->
  <includedir>{policy_dir}</includedir>
</busconfig>
"""

TEST_RULES = """// hugepagesd system tests: only this user is allowed without a password.
polkit.addRule(function(action, subject) {
    if (action.id.indexOf("org.hugepages.manager.") == 0 &&
        subject.user == "%s")
        return polkit.Result.YES;
    return polkit.Result.NOT_HANDLED;
});
""" % ALLOWED_USER


def run(argv, **kwargs):
    return subprocess.run(argv, check=True, **kwargs)


# --------------------------------------------------------------------------
# Sanitizer builds (tests/run-all --tier asan)

SANITIZER_ENV = ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "G_SLICE")

# What AddressSanitizer, LeakSanitizer and UBSan print for an error or a leak.
MEMORY_ERROR = re.compile(r"ERROR: (AddressSanitizer|LeakSanitizer)"
                          r"|^\S+:\d+:\d+: runtime error: |SUMMARY: UndefinedBehaviorSanitizer")


def memory_errors(text):
    """The lines of @text (a log) that report a memory error or leak."""
    return [line for line in text.splitlines() if MEMORY_ERROR.search(line)]


# The service's debug line for a check polkitd answered 250 ms or more
# after it was asked (src/bus/hpd-auth.c).
LATE_POLKIT_ANSWER = re.compile(r"polkitd answered check \S+ \(uid (\d+), [^)]*\) after (\d+) ms")


def late_polkit_answers(log, uid):
    """Seconds polkitd took for each of @uid's checks it answered late, by
    the service's @log."""
    return [int(ms) / 1000 for who, ms in LATE_POLKIT_ANSWER.findall(log) if int(who) == uid]


def open_files(pid):
    """{descriptor: what it is open on} of @pid, from /proc/PID/fd (a
    descriptor closed while listed is left out)."""
    found = {}
    for name in os.listdir("/proc/%d/fd" % pid):
        try:
            found[int(name)] = os.readlink("/proc/%d/fd/%s" % (pid, name))
        except OSError:
            pass
    return found


def connect(address):
    flags = (Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT
             | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION)
    return Gio.DBusConnection.new_for_address_sync(address, flags, None, None)


class PropertiesWatch:
    """PropertiesChanged of @interface at @path sent by @owner (a unique
    name) on @bus, kept in order as (changed, invalidated)."""

    def __init__(self, bus, owner, path, interface):
        self.bus = bus
        self.events = []
        self.id = bus.signal_subscribe(owner, "org.freedesktop.DBus.Properties",
                                       "PropertiesChanged", path, interface,
                                       Gio.DBusSignalFlags.NONE, self._on_signal)

    def _on_signal(self, conn, sender, path, iface, member, params):
        _iface, changed, invalidated = params.unpack()
        self.events.append((changed, invalidated))

    def wait_for(self, predicate, prop="Mounts", timeout=10):
        """The first announced value of @prop that @predicate accepts,
        dispatching the default main context until then."""
        ctx = GLib.MainContext.default()
        deadline = time.monotonic() + timeout
        while True:
            for changed, _ in self.events:
                if prop in changed and predicate(changed[prop]):
                    return changed[prop]
            if time.monotonic() > deadline:
                raise AssertionError("no PropertiesChanged with such %s in %d s: %s"
                                     % (prop, timeout, self.events))
            if not ctx.iteration(False):
                time.sleep(0.01)

    def close(self):
        self.bus.signal_unsubscribe(self.id)


class System:
    """Everything a test needs from the harness."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.address = None
        self.bus = None           # root's connection
        self.procs = {}           # name -> Popen
        self.logs = {}            # name -> Path
        self.users = {}           # name -> pwd entry
        self.session_snapshot = None
        self.client_source = (HERE / "hpd_client.py").read_text()

    # processes ------------------------------------------------------------

    def spawn(self, name, argv, env=None, umask=-1):
        log = self.tmp / ("%s.log" % name)
        out = open(log, "wb")
        proc = subprocess.Popen(["setpriv", "--pdeathsig", "TERM"] + argv, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT, env=env or self.env(),
                                umask=umask)
        out.close()
        self.procs[name] = proc
        self.logs[name] = log
        return proc

    def stop(self, name, timeout=10):
        proc = self.procs.get(name)
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def log(self, name):
        try:
            return self.logs[name].read_text(errors="replace")
        except (KeyError, OSError):
            return ""

    def env(self, **extra):
        env = {
            "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
            "LC_ALL": "C.UTF-8",
            "HOME": "/",
        }
        if self.address:
            env["DBUS_SYSTEM_BUS_ADDRESS"] = self.address
        # the asan tier's settings reach the service and hugepagesctl
        for name in SANITIZER_ENV:
            if name in os.environ:
                env[name] = os.environ[name]
        env.update(extra)
        return env

    # the bus --------------------------------------------------------------

    def name_owner(self, name):
        try:
            reply = self.bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "GetNameOwner",
                                       GLib.Variant("(s)", (name,)), None,
                                       Gio.DBusCallFlags.NONE, 5000, None)
        except GLib.Error:
            return None
        return reply.unpack()[0]

    def name_pid(self, name):
        reply = self.bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus",
                                   "org.freedesktop.DBus", "GetConnectionUnixProcessID",
                                   GLib.Variant("(s)", (name,)), None,
                                   Gio.DBusCallFlags.NONE, 5000, None)
        return reply.unpack()[0]

    def service_calls(self, monitor):
        """The calls a bus monitor saw from the service, from any connection
        of its process (one, but a new one after a reconnect)."""
        pid = self.name_pid(BUS_NAME)
        pids = {}
        found = []
        for call in monitor.calls:
            sender = call["sender"]
            if sender not in pids:
                try:
                    pids[sender] = self.name_pid(sender)
                except GLib.Error:
                    pids[sender] = None
            if pids[sender] == pid:
                found.append(call)
        return found

    def wait_for_name(self, name, proc_name, timeout=15):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.name_owner(name):
                return
            proc = self.procs[proc_name]
            if proc.poll() is not None:
                raise RuntimeError("%s exited with %s before owning %s:\n%s"
                                   % (proc_name, proc.returncode, name, self.log(proc_name)))
            time.sleep(0.05)
        raise RuntimeError("%s did not own %s within %d s:\n%s"
                           % (proc_name, name, timeout, self.log(proc_name)))

    # root's calls -----------------------------------------------------------

    def call(self, path, interface, method, signature="", args=(), reply_type=None,
             interactive=False, timeout_ms=60000):
        """A call as root; returns the unpacked reply or raises GLib.Error."""
        flags = Gio.DBusCallFlags.NONE
        if interactive:
            flags |= Gio.DBusCallFlags.ALLOW_INTERACTIVE_AUTHORIZATION
        params = GLib.Variant("(%s)" % signature, tuple(args)) if signature else None
        reply = self.bus.call_sync(BUS_NAME, path, interface, method, params,
                                   GLib.VariantType(reply_type) if reply_type else None,
                                   flags, timeout_ms, None)
        return reply.unpack()

    def get_all(self, path, interface):
        return self.call(path, "org.freedesktop.DBus.Properties", "GetAll", "s", (interface,))[0]

    def get(self, path, interface, name):
        return self.call(path, "org.freedesktop.DBus.Properties", "Get", "ss", (interface, name))[0]

    def pool_props(self, kb):
        return self.get_all(page_size_path(kb), PAGE_SIZE_IFACE)

    def pool_call(self, kb, method, *args):
        """SetMinimum/SetMaximum/Demote(pages) or SetNodePages(node, pages) as root."""
        signature = "uta{sv}" if method == "SetNodePages" else "ta{sv}"
        return self.call(page_size_path(kb), PAGE_SIZE_IFACE, method, signature,
                         tuple(args) + ({},), "(t)")[0]

    # unprivileged clients ---------------------------------------------------

    def as_user(self, user, steps, timeout=120):
        """Runs hpd_client.py's steps as @user; returns its JSON output."""
        pw = self.users[user]
        proc = subprocess.run(
            ["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid, "--clear-groups",
             "--pdeathsig", "KILL", PYTHON, "-c", self.client_source, json.dumps(steps)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.env(),
            cwd="/", timeout=timeout)
        if proc.returncode != 0:
            raise RuntimeError("client as %s failed (%d):\n%s" % (user, proc.returncode, proc.stderr))
        out = json.loads(proc.stdout)
        assert out["uid"] == pw.pw_uid
        return out

    def user_call(self, user, kb, method, *args, interactive=False, timeout_ms=60000):
        """One PageSize method call as @user; returns {"value": ...} or {"error": ...}."""
        signature = "uta{sv}" if method == "SetNodePages" else "ta{sv}"
        step = {"op": "call", "path": page_size_path(kb), "interface": PAGE_SIZE_IFACE,
                "method": method, "signature": signature, "args": list(args) + [{}],
                "interactive": interactive, "timeout_ms": timeout_ms}
        return self.as_user(user, [step])["results"][0]

    def ctl(self, user, *args, timeout=60):
        """Runs <builddir>/client/hugepagesctl as @user (None: root), without a
        terminal; returns the CompletedProcess."""
        client = builddir() / "client" / "hugepagesctl"
        assert client.exists(), "%s is not built" % client
        argv = [str(client)] + list(args)
        if user is not None:
            pw = self.users[user]
            argv = ["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid,
                    "--clear-groups", "--pdeathsig", "KILL"] + argv
        return subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=self.env(), cwd="/",
                              timeout=timeout)

    # the service ------------------------------------------------------------

    @property
    def service(self):
        return self.procs["hugepagesd"]

    def assert_service_alive(self):
        assert self.service.poll() is None, \
            "hugepagesd exited with %s:\n%s" % (self.service.returncode, self.log("hugepagesd"))
        assert self.name_pid(BUS_NAME) == self.service.pid, "another process owns " + BUS_NAME
        version = self.get(MANAGER_PATH, MANAGER_IFACE, "Version")
        assert isinstance(version, str) and version


def ensure_user(name):
    try:
        return pwd.getpwnam(name)
    except KeyError:
        pass
    proc = subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
                           name], stderr=subprocess.PIPE, text=True)
    try:
        return pwd.getpwnam(name)
    except KeyError:
        raise RuntimeError("useradd %s failed: %s" % (name, proc.stderr))


# polkitd 122 (Debian 12) runs the rules in a thread of the moment and waits
# for its end for at most 15 s (RUNAWAY_KILLER_TIMEOUT), holding everything
# else up meanwhile. The thread signals its end without taking the mutex the
# wait uses, so when it ends before the wait begins the signal is lost:
# polkitd then waits the whole 15 s and answers rightly, late, with every
# check that came meanwhile behind it. Fixed upstream by 5615ed0
# ("duktape: prevent wrongful termination of runaway thread", polkit 123).
POLKITD_RULES_TIMEOUT_S = 15.0


def polkitd_stalls(answer_seconds):
    """Of PolkitMonitor.answer_seconds(): the answers that waited out
    polkitd's whole rules timeout, the lost signal above (the monitor may
    see a call a little after polkitd has it)."""
    return [s for s in answer_seconds if s >= POLKITD_RULES_TIMEOUT_S - 0.1]


class PolkitMonitor:
    """Records CheckAuthorization calls and polkitd's answers on the private
    bus, as a bus monitor."""

    def __init__(self, address):
        self.calls = []          # {"sender", "serial", "body", "at"}
        self.replies = {}        # (destination, reply serial) -> body or error name
        self.answered_at = {}    # (destination, reply serial) -> time.monotonic()
        self.conn = connect(address)
        self.conn.add_filter(self._filter)
        self.conn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus",
                            "org.freedesktop.DBus.Monitoring", "BecomeMonitor",
                            GLib.Variant("(asu)", ([
                                "type='method_call',interface='org.freedesktop.PolicyKit1.Authority',"
                                "member='CheckAuthorization'",
                                "type='method_return',sender='%s'" % POLKIT_NAME,
                                "type='error',sender='%s'" % POLKIT_NAME], 0)),
                            None, Gio.DBusCallFlags.NONE, 5000, None)

    def _filter(self, connection, message, incoming):
        # A monitor must never send anything: record the copies and drop
        # them, so that GDBus neither answers nor matches them to its calls.
        if not incoming or message.get_sender() == "org.freedesktop.DBus":
            return message
        kind = message.get_message_type()
        if kind == Gio.DBusMessageType.METHOD_CALL:
            self.calls.append({"sender": message.get_sender(), "serial": message.get_serial(),
                               "body": message.get_body().unpack(), "at": time.monotonic()})
        elif kind == Gio.DBusMessageType.METHOD_RETURN:
            body = message.get_body()
            key = (message.get_destination(), message.get_reply_serial())
            self.replies[key] = body.unpack() if body is not None else ()
            self.answered_at[key] = time.monotonic()
        elif kind == Gio.DBusMessageType.ERROR:
            key = (message.get_destination(), message.get_reply_serial())
            self.replies[key] = message.get_error_name()
            self.answered_at[key] = time.monotonic()
        return None

    def answer_seconds(self):
        """How long polkitd took to answer each recorded call it answered,
        as this monitor saw the call and the answer pass: sorted."""
        return sorted(self.answered_at[key] - call["at"] for call in self.calls
                      for key in [(call["sender"], call["serial"])] if key in self.answered_at)

    def reply_to(self, call, timeout=5):
        """polkitd's answer to a recorded call: the (bba{ss}) result or an error name."""
        deadline = time.monotonic() + timeout
        key = (call["sender"], call["serial"])
        while key not in self.replies and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.replies.get(key)

    def clear(self):
        del self.calls[:]
        self.replies.clear()
        self.answered_at.clear()

    def close(self):
        self.conn.close_sync(None)


# --------------------------------------------------------------------------
# hugetlbfs mounts and the directories below /var/lib/hugetlbfs
#
# The service mounts in this test's private mount namespace, but the
# directories it makes below /var/lib/hugetlbfs are on the real file system.
# MountArea records what was there before a test and takes back exactly what
# appeared during it: first every mount made since (in this namespace
# only), then every new file, link or directory, deepest first.

MOUNT_BASE = Path("/var/lib/hugetlbfs")
TEST_GROUP = "hpd-test-group"        # ALLOWED_USER is a member, DENIED_USER is not

_MNT_DETACH = 2
_UMOUNT_NOFOLLOW = 8


def size_name(kb):
    """hugeadm's directory suffix: "2MB", "1GB", "64KB"."""
    if kb >= 1024 * 1024:
        return "%dGB" % (kb // (1024 * 1024))
    if kb >= 1024:
        return "%dMB" % (kb // 1024)
    return "%dKB" % kb


def _unescape_mountinfo(field):
    out, i = bytearray(), 0
    raw = field.encode("utf-8", "surrogateescape")
    while i < len(raw):
        if raw[i:i + 1] == b"\\" and len(raw) >= i + 4:
            out.append(int(raw[i + 1:i + 4], 8))
            i += 4
        else:
            out.append(raw[i])
            i += 1
    return out.decode("utf-8", "surrogateescape")


def mountinfo():
    """Every mount of this namespace, in /proc/self/mountinfo order, as dicts:
    id, parent, path, flags (per-mount, a list), fstype, source and super
    (the superblock options, key -> value or None)."""
    mounts = []
    for line in Path("/proc/self/mountinfo").read_text(errors="surrogateescape").splitlines():
        fields = line.split(" ")
        sep = fields.index("-", 6)
        supers = {}
        for opt in fields[sep + 3].split(","):
            key, eq, value = opt.partition("=")
            supers[key] = value if eq else None
        mounts.append({"id": int(fields[0]), "parent": int(fields[1]),
                       "path": _unescape_mountinfo(fields[4]), "flags": fields[5].split(","),
                       "fstype": fields[sep + 1], "source": _unescape_mountinfo(fields[sep + 2]),
                       "super": supers})
    return mounts


def mounts_at(path):
    return [m for m in mountinfo() if m["path"] == str(path)]


def hugetlbfs_mounts():
    return [m for m in mountinfo() if m["fstype"] == "hugetlbfs"]


def umount(path, lazy=False):
    """umount2(@path, UMOUNT_NOFOLLOW[|MNT_DETACH]); raises OSError."""
    import ctypes
    import ctypes.util
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    flags = _UMOUNT_NOFOLLOW | (_MNT_DETACH if lazy else 0)
    if libc.umount2(os.fsencode(str(path)), flags) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), str(path))


def path_tree(top):
    """{path: (kind, mode, uid, gid, link target)} for @top and everything
    below it, without following links (not even @top)."""
    import stat as st
    top = str(top)
    out = {}

    def add(path):
        s = os.lstat(path)
        kind = ("link" if st.S_ISLNK(s.st_mode) else "dir" if st.S_ISDIR(s.st_mode) else "file")
        out[path] = (kind, st.S_IMODE(s.st_mode), s.st_uid, s.st_gid,
                     os.readlink(path) if kind == "link" else None)
        return kind

    if not os.path.lexists(top):
        return out
    if add(top) != "dir":
        return out
    for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
        for name in dirnames + filenames:
            add(os.path.join(dirpath, name))
    return out


def ensure_group(name, members):
    """Creates system group @name if missing and makes @members members."""
    import grp
    try:
        grp.getgrnam(name)
    except KeyError:
        proc = subprocess.run(["groupadd", "--system", name], stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            raise RuntimeError("groupadd %s failed: %s" % (name, proc.stderr))
    for user in members:
        if user not in grp.getgrnam(name).gr_mem:
            run(["usermod", "--append", "--groups", name, user])
    return grp.getgrnam(name)


def groups_of(user):
    """The supplementary group ids the group database gives @user."""
    import grp
    return sorted(g.gr_gid for g in grp.getgrall() if user in g.gr_mem)


def run_as(pw, argv, groups=(), timeout=60, **kwargs):
    """Runs @argv as the pwd entry @pw with exactly the supplementary @groups."""
    groups_arg = ("--groups=" + ",".join(str(g) for g in groups)) if groups else "--clear-groups"
    return subprocess.run(["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid, groups_arg,
                           "--pdeathsig", "KILL"] + list(argv),
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, cwd="/", env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
                                                   "LC_ALL": "C.UTF-8", "HOME": "/"},
                          timeout=timeout, **kwargs)


class MountArea:
    """What a mount test may change, recorded before and put back after."""

    def __init__(self):
        self.base_existed = os.path.lexists(MOUNT_BASE)
        self.tree = path_tree(MOUNT_BASE)
        self.mount_ids = {m["id"] for m in mountinfo()}
        self.tmpdirs = []

    def new_mounts(self):
        return [m for m in mountinfo() if m["id"] not in self.mount_ids]

    def new_hugetlbfs_mounts(self):
        return [m for m in self.new_mounts() if m["fstype"] == "hugetlbfs"]

    def mkdtemp(self, mode=0o755, **kwargs):
        """A directory below /tmp that the cleanup removes."""
        import tempfile
        d = Path(tempfile.mkdtemp(prefix="hpd-mount-test-", **kwargs))
        os.chmod(d, mode)
        self.tmpdirs.append(d)
        return d

    def cleanup(self):
        """Takes back the mounts and files that appeared; returns problems."""
        import shutil
        problems = []
        # mounts first, newest first: the directories below hold them
        for _ in range(20):
            new = self.new_mounts()
            if not new:
                break
            for m in sorted(new, key=lambda m: m["id"], reverse=True):
                try:
                    umount(m["path"])
                except OSError:
                    try:
                        umount(m["path"], lazy=True)
                    except OSError as e:
                        problems.append("cannot unmount %s: %s" % (m["path"], e))
        else:
            problems.append("mounts left: %s" % [m["path"] for m in self.new_mounts()])

        now = path_tree(MOUNT_BASE)
        for path in sorted(set(now) - set(self.tree), key=lambda p: p.count("/"), reverse=True):
            try:
                if now[path][0] == "dir":
                    os.rmdir(path)
                else:
                    os.unlink(path)
            except OSError as e:
                problems.append("cannot remove %s: %s" % (path, e))
        now = path_tree(MOUNT_BASE)
        for path, before in self.tree.items():
            if now.get(path) != before:
                problems.append("%s was %s, is %s" % (path, before, now.get(path)))
        if os.path.lexists(MOUNT_BASE) != self.base_existed:
            problems.append("%s existence changed" % MOUNT_BASE)

        for d in self.tmpdirs:
            shutil.rmtree(d, ignore_errors=True)
        return problems


# --------------------------------------------------------------------------
# A second service, for tests that stop, kill or restart it

class ExtraService:
    """hugepagesd on a private bus of its own (the same bus policy, but no
    polkitd there: by the documented fallback only root may change
    anything), started and stopped by the test, so that the session's
    instance is never disturbed. @prefix goes before the daemon's argv (for
    example unshare -m); @args after it."""

    def __init__(self, tmp, name="extra"):
        import tempfile
        self.dir = Path(tempfile.mkdtemp(prefix=name + "-", dir=str(tmp)))
        os.chmod(self.dir, 0o755)
        socket = self.dir / "system_bus_socket"
        config = self.dir / "bus.conf"
        config.write_text(BUS_CONFIG.format(socket=socket, policy_dir=REPO / "data" / "dbus"))
        self.bus_log = self.dir / "dbus-daemon.log"
        with open(self.bus_log, "wb") as out:
            self.bus_proc = subprocess.Popen(
                ["setpriv", "--pdeathsig", "TERM", "dbus-daemon", "--nofork", "--nosyslog",
                 "--config-file=%s" % config], stdin=subprocess.DEVNULL, stdout=out,
                stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while not socket.exists():
            if self.bus_proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the extra dbus-daemon did not start")
            time.sleep(0.02)
        self.address = "unix:path=%s" % socket
        while True:   # the socket exists a moment before the bus listens
            try:
                self.conn = connect(self.address)
                break
            except GLib.Error:
                if self.bus_proc.poll() is not None or time.monotonic() > deadline:
                    raise
                time.sleep(0.02)
        self.proc = None
        self.log_path = self.dir / "hugepagesd.log"
        self.runs = 0

    def start(self, args=(), prefix=(), timeout=15):
        assert self.proc is None or self.proc.poll() is not None
        self.runs += 1
        daemon = builddir() / "src" / "hugepagesd"
        env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C.UTF-8", "HOME": "/",
               "DBUS_SYSTEM_BUS_ADDRESS": self.address, "G_DEBUG": "fatal-criticals"}
        with open(self.log_path, "ab") as out:
            out.write(b"=== run %d\n" % self.runs)
            out.flush()
            self.proc = subprocess.Popen(
                ["setpriv", "--pdeathsig", "TERM"] + list(prefix) + [str(daemon), "-v"] + list(args),
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + timeout
        while self.owner_pid() != self.proc.pid:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the extra hugepagesd did not start (%s):\n%s"
                                   % (self.proc.poll(), self.log()))
            time.sleep(0.01)
        return self.proc

    def owner_pid(self):
        try:
            reply = self.conn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus",
                                        "org.freedesktop.DBus", "GetConnectionUnixProcessID",
                                        GLib.Variant("(s)", (BUS_NAME,)), None,
                                        Gio.DBusCallFlags.NONE, 5000, None)
        except GLib.Error:
            return None
        return reply.unpack()[0]

    def call(self, path, interface, method, signature="", args=(), reply_type=None,
             timeout_ms=60000):
        """As root; {"value": [...]} or {"error": name, "message": text}."""
        params = GLib.Variant("(%s)" % signature, tuple(args)) if signature else None
        try:
            reply = self.conn.call_sync(BUS_NAME, path, interface, method, params,
                                        GLib.VariantType(reply_type) if reply_type else None,
                                        Gio.DBusCallFlags.NONE, timeout_ms, None)
        except GLib.Error as e:
            name = Gio.DBusError.get_remote_error(e)
            prefix = "GDBus.Error:%s: " % name
            message = e.message[len(prefix):] if e.message.startswith(prefix) else e.message
            return {"error": name, "message": message}
        return {"value": list(reply.unpack())}

    def get(self, path, interface, name):
        return self.call(path, "org.freedesktop.DBus.Properties", "Get", "ss",
                         (interface, name))["value"][0]

    def log(self):
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def signal(self, signum, timeout=10):
        """Sends @signum and returns the exit status (None: still running)."""
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        self.proc.send_signal(signum)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.conn.close_sync(None)
        if self.bus_proc.poll() is None:
            self.bus_proc.terminate()
            try:
                self.bus_proc.wait(5)
            except subprocess.TimeoutExpired:
                self.bus_proc.kill()
                self.bus_proc.wait()
