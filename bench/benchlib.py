# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Shared pieces of bench/run: statistics, the kernel facts read and put back,
the private bus with the polkitd mock and hugepagesd, and the report.

The bus, the polkitd mock and the fake kernel tree are the test suite's own
(tests/integration/conftest.py: Bus, Polkit, wait_for; tests/fakekernel.py;
tests/system/hpdsys.py for the pool snapshot and restore), so the benchmark
measures the service the tests run."""

import importlib.util
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "tests" / "integration"))
sys.path.insert(0, str(REPO / "tests" / "system"))

import gi  # noqa: E402

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

import hpdsys  # noqa: E402
import hpdtest  # noqa: E402
from fakekernel import FakeKernel  # noqa: E402,F401 (used by the sections)


def _load_integration_conftest():
    """tests/integration/conftest.py as a plain module (its fixtures are
    not used; its Bus, Polkit and wait_for are)."""
    spec = importlib.util.spec_from_file_location(
        "hpd_integration_conftest", REPO / "tests" / "integration" / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


itconf = _load_integration_conftest()

BUS_NAME = hpdtest.BUS_NAME
MANAGER_PATH = hpdtest.MANAGER_PATH
PAGE_SIZE_IFACE = hpdtest.PAGE_SIZE_IFACE
MIB = 1 << 20


# --------------------------------------------------------------------------
# statistics

def median(values):
    return statistics.median(values) if values else float("nan")


def percentile(values, p):
    """Nearest-rank percentile."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, int(-(-p * len(ordered) // 100)))
    return ordered[min(rank, len(ordered)) - 1]


def fmt_ms(seconds):
    return "%.3f ms" % (seconds * 1000.0) if seconds < 1 else "%.2f s" % seconds


def fmt_us(seconds):
    return "%.1f µs" % (seconds * 1e6)


# --------------------------------------------------------------------------
# the kernel

def meminfo():
    out = {}
    for line in Path("/proc/meminfo").read_text().splitlines():
        name, _, rest = line.partition(":")
        out[name] = int(rest.split()[0])
    return out


def free_2m_blocks():
    """Free blocks of order >= 9 (2 MiB with 4 KiB pages) in /proc/buddyinfo,
    counted in 2 MiB units."""
    total = 0
    for line in Path("/proc/buddyinfo").read_text().splitlines():
        counts = [int(x) for x in line.split()[4:]]
        for order, n in enumerate(counts):
            if order >= 9:
                total += n << (order - 9)
    return total


def pool_minimum(kb=hpdsys.KB_2M):
    c = hpdsys.counters(kb)
    return c["Minimum"]


def set_pool_total(value, kb=hpdsys.KB_2M):
    hpdsys.write_counter(hpdsys.pool_dir(kb) / "nr_hugepages", value)


# Tunables the benchmark never means to change; checked and put back at the
# end in case a method under test (hugeadm, the service) did.
WATCHED_TUNABLES = [
    "/proc/sys/vm/min_free_kbytes",
    "/proc/sys/vm/compact_unevictable_allowed",
    "/proc/sys/vm/extfrag_threshold",
    "/proc/sys/kernel/shmmax",
    "/proc/sys/kernel/shmall",
    "/proc/sys/vm/hugetlb_shm_group",
    "/sys/kernel/mm/transparent_hugepage/enabled",
    "/sys/kernel/mm/transparent_hugepage/defrag",
]


def _tunable_value(path):
    text = Path(path).read_text().strip()
    if "[" in text:       # THP choice files: the bracketed word is the value
        return text[text.index("[") + 1:text.index("]")]
    return text


class KernelGuard:
    """Records every pool and the watched tunables; restore() puts back what
    differs and says what it had to put back."""

    def __init__(self):
        self.pools = hpdsys.pools_snapshot()
        self.tunables = {}
        for path in WATCHED_TUNABLES:
            try:
                self.tunables[path] = _tunable_value(path)
            except OSError:
                pass

    def restore(self):
        notes = []
        problems = hpdsys.restore_pools(self.pools)
        for path, value in self.tunables.items():
            try:
                if _tunable_value(path) != value:
                    Path(path).write_text(value + "\n")
                    notes.append("%s was changed; put back to %s" % (path, value))
            except OSError as e:
                problems.append("%s: %s" % (path, e))
        return notes, problems

    def pools_text(self):
        return ", ".join("%d kB: minimum %d overcommit %d" % (kb, m, o)
                         for kb, (m, o) in sorted(self.pools.items()))


# --------------------------------------------------------------------------
# the bus, polkitd and the service

def _terminate(proc, timeout=10):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


class Stack:
    """A private system-type dbus-daemon with the project's bus policy and
    python-dbusmock's polkitd allowing everything; hugepagesd instances are
    started on it with start_service()."""

    def __init__(self, builddir, workdir):
        self.builddir = Path(builddir)
        self.daemon = self.builddir / "src" / "hugepagesd"
        self.client = self.builddir / "client" / "hugepagesctl"
        self.dir = Path(tempfile.mkdtemp(prefix="bus-", dir=workdir))
        self.bus = itconf.Bus(str(self.dir))
        self.address = self.bus.address
        self.polkit = None
        self.services = []
        try:
            self.polkit = itconf.Polkit(self.bus, str(self.dir / "polkitd-mock.log"))
            self.polkit.reset()
            self.polkit.allow_unknown(True)
            self.conn = self.bus.connect()
        except BaseException:
            self.close()
            raise

    def env(self, **extra):
        # the unit's Environment= (GLIBC_TUNABLES), as systemd starts it
        env = dict(os.environ, **hpdtest.unit_environment(), DBUS_SYSTEM_BUS_ADDRESS=self.address)
        env.pop("G_SLICE", None)      # the service decides, as in production
        env.pop("G_MESSAGES_DEBUG", None)
        env.update(extra)
        return env

    def owner_pid(self):
        return hpdtest.owner_pid(self.conn)

    def start_service(self, kernel_root=None, wait=True, cgroup=None):
        """hugepagesd from the build dir, as in production (no -v): on the
        real kernel, or with --kernel-root on a fake tree; in @cgroup (a
        MemoryCgroup) from its start."""
        args = [str(self.daemon)]
        if kernel_root is not None:
            args += ["--kernel-root", str(kernel_root)]
        log = self.dir / ("hugepagesd-%d.log" % len(self.services))
        with open(log, "w") as f:
            proc = subprocess.Popen(args, stdout=f, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, env=self.env(),
                                    preexec_fn=cgroup.join if cgroup is not None else None)
        proc.log_path = log
        self.services.append(proc)
        if wait:
            self.wait_owned(proc)
        return proc

    def wait_owned(self, proc, timeout=15):
        itconf.wait_for(lambda: proc.poll() is not None or self.owner_pid() == proc.pid,
                        timeout, "hugepagesd to own " + BUS_NAME, interval=0.0005)
        if proc.poll() is not None:
            raise RuntimeError("hugepagesd exited with %s:\n%s"
                               % (proc.returncode, proc.log_path.read_text(errors="replace")))

    def stop_service(self, proc):
        status = _terminate(proc)
        # the bus must have dropped the name before another instance starts
        itconf.wait_for(lambda: self.owner_pid() != proc.pid, 5, "the name to be released")
        return status

    def call(self, path, iface, method, params=None, reply_type=None, timeout_ms=600000,
             conn=None):
        reply = (conn or self.conn).call_sync(
            BUS_NAME, path, iface, method, params,
            GLib.VariantType(reply_type) if reply_type else None,
            Gio.DBusCallFlags.NONE, timeout_ms, None)
        return reply

    def close(self):
        for proc in self.services:
            _terminate(proc)
        if getattr(self, "conn", None) is not None:
            self.conn.close_sync(None)
            self.conn = None
        if self.polkit is not None:
            self.polkit.stop()
            self.polkit = None
        self.bus.stop()


class MemoryCgroup:
    """A memory cgroup of its own below this process's, for one process,
    joined in the child before the exec (join() as a preexec_fn), so that
    all the kernel memory the process makes the kernel hold (open files
    and what they buffer, sockets, thread stacks, page tables) is charged
    to it from the start. None of it is in Pss or RssAnon. cgroup v1's
    memory.kmem.usage_in_bytes, or cgroup v2's memory.stat "kernel".
    made() returns None and sets why_not when no such cgroup can be made
    here (no memory controller, or one not delegated to this cgroup)."""

    why_not = None

    def __init__(self, directory, kernel_kb, how):
        self.dir = directory
        self._kernel_kb = kernel_kb
        self.how = how

    @classmethod
    def made(cls, name):
        own = {}
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            own[controllers] = path
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            fields = line.split()
            dash = fields.index("-")
            fstype, options = fields[dash + 1], fields[dash + 3].split(",")
            point = fields[4]
            if fstype == "cgroup" and "memory" in options:
                controllers = next((c for c in own if "memory" in c.split(",")), None)
                if controllers is None:
                    continue
                v1 = True
            elif fstype == "cgroup2" and "" in own:
                controllers, v1 = "", False
            else:
                continue
            directory = Path(point + own[controllers]) / ("hpd-bench-%s-%d" % (name, os.getpid()))
            try:
                directory.mkdir()
            except OSError as e:
                cls.why_not = "no cgroup could be made in %s: %s" % (directory.parent, e.strerror)
                continue
            if v1 and (directory / "memory.kmem.usage_in_bytes").exists():
                return cls(directory, lambda d=directory: int(
                    (d / "memory.kmem.usage_in_bytes").read_text()) // 1024,
                    "cgroup v1, memory.kmem.usage_in_bytes")
            if not v1 and (directory / "memory.stat").exists():
                return cls(directory, lambda d=directory: next(
                    int(line.split()[1]) // 1024 for line in (d / "memory.stat").read_text()
                    .splitlines() if line.startswith("kernel ")),
                    "cgroup v2, memory.stat's kernel")
            directory.rmdir()
            cls.why_not = ("%s has no kernel memory count (the memory controller is not "
                           "enabled for it)" % directory.parent)
        if cls.why_not is None:
            cls.why_not = "no memory cgroup is mounted"
        return None

    def join(self):
        """In the child, before the exec."""
        (self.dir / "cgroup.procs").write_text(str(os.getpid()))

    def kernel_kb(self):
        return self._kernel_kb()

    def close(self):
        """After its process ended: what it left charged goes to the parent."""
        for _ in range(50):
            try:
                self.dir.rmdir()
                return
            except OSError:
                time.sleep(0.02)       # the ended process is still being reaped


def bus_error_name(error):
    return Gio.DBusError.get_remote_error(error) or str(error)


def proc_status(pid, keys=("VmRSS", "RssAnon", "RssFile", "Threads")):
    out = {}
    for line in Path("/proc/%d/status" % pid).read_text().splitlines():
        name, _, rest = line.partition(":")
        if name in keys:
            out[name] = int(rest.split()[0])
    return out


def context_switches(pid):
    """Voluntary plus involuntary context switches of every thread of pid."""
    total = 0
    for task in Path("/proc/%d/task" % pid).iterdir():
        try:
            for line in (task / "status").read_text().splitlines():
                if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                    total += int(line.split()[1])
        except OSError:
            pass     # a thread that ended meanwhile
    return total


# --------------------------------------------------------------------------
# machine facts

def _first_line(argv):
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=10)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return "unknown"


def machine_facts(builddir):
    mi = meminfo()
    cpu = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    distro = "unknown"
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                distro = line.split("=", 1)[1].strip('"')
    except OSError:
        pass
    cmdline = Path("/proc/cmdline").read_text().split()
    notable = [w for w in cmdline if w.split("=")[0] in
               ("deferred_init", "page_reporting.page_reporting_order", "hugepages",
                "hugepagesz", "default_hugepagesz", "transparent_hugepage")]
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--", "src", "client"],
                           capture_output=True, text=True).stdout.strip()
    return [
        ("Date", time.strftime("%Y-%m-%d %H:%M:%S %Z")),
        ("Host CPU", "%s, %d CPUs" % (cpu, os.cpu_count())),
        ("Memory", "MemTotal %.1f GiB, MemFree %.1f GiB at start, swap %d kB"
         % (mi["MemTotal"] / MIB, mi["MemFree"] / MIB, mi.get("SwapTotal", 0))),
        ("Kernel", "%s (%s)" % (platform.release(), platform.version())),
        ("Kernel parameters that matter here", " ".join(notable) or "none"),
        ("Distribution", distro),
        ("GLib", _first_line(["pkg-config", "--modversion", "glib-2.0"])),
        ("dbus-daemon", _first_line(["dbus-daemon", "--version"])),
        ("hugeadm", _first_line(["dpkg-query", "-W", "-f", "${Package} ${Version}",
                                 "libhugetlbfs-bin"])),
        ("Python", "%s (%s)" % (platform.python_version(), sys.executable)),
        ("Service", "%s, commit %s%s" % (Path(builddir) / "src" / "hugepagesd", head,
                                         " + uncommitted changes in src/ or client/" if dirty else "")),
    ]


# --------------------------------------------------------------------------
# the report

class Section:
    """One section of the report: rows of figures and free-text notes."""

    def __init__(self, key, title):
        self.key = key
        self.title = title
        self.rows = []      # (figure, value, baseline, ratio, target, met, why)
        self.notes = []
        self.error = None
        self.seconds = 0.0

    def row(self, figure, value, baseline="", ratio="", target="", met=None, why=""):
        self.rows.append((figure, value, baseline, ratio, target, met, why))

    def note(self, text):
        self.notes.append(text)

    def verdicts(self):
        return [(r[0], r[5], r[6]) for r in self.rows if r[5] is not None]


def verdict_text(met):
    return {True: "met", False: "**MISSED**", None: ""}[met]


def render(facts, sections, preface, epilogue):
    out = ["# hugepagesd benchmarks", "",
           "Generated by `bench/run` %s; do not edit by hand." % preface, "",
           "## Machine", "", "| | |", "|---|---|"]
    out += ["| %s | %s |" % (k, v.replace("|", "\\|")) for k, v in facts]
    out.append("")
    summary = []
    for s in sections:
        out += ["## %s" % s.title, ""]
        if s.error:
            if s.error.startswith("not run:"):
                out += ["**Not run:** %s" % s.error[len("not run:"):].strip(), ""]
            else:
                out += ["**The section failed:** %s" % s.error, ""]
        if s.rows:
            out += ["| Figure | Measured | Baseline (same run) | Ratio | Target | Result |",
                    "|---|---|---|---|---|---|"]
            for figure, value, baseline, ratio, target, met, why in s.rows:
                result = verdict_text(met)
                out.append("| %s | %s | %s | %s | %s | %s |"
                           % (figure, value, baseline, ratio, target, result))
            out.append("")
        missed = [(f, w) for f, m, w in s.verdicts() if m is False]
        for figure, why in missed:
            out.append("- Missed: **%s**. Why: %s" % (figure, why or "see the notes below."))
        if missed:
            out.append("")
        for n in s.notes:
            out.append("- " + n)
        out += ["", "(section took %.0f s)" % s.seconds, ""]
        for figure, met, _why in s.verdicts():
            summary.append((s.title, figure, met))
    out += ["## Summary", "", "| Section | Target | Result |", "|---|---|---|"]
    out += ["| %s | %s | %s |" % (t, f, verdict_text(m)) for t, f, m in summary]
    met = sum(1 for _, _, m in summary if m)
    out += ["", "%d of %d targets met." % (met, len(summary)), ""]
    out += epilogue
    return "\n".join(out) + "\n"


def which(name):
    return shutil.which(name, path="/usr/sbin:/usr/bin:/sbin:/bin")


def _strace_summary_rows(text):
    """(syscall, seconds, calls) of each row of an `strace -c` summary."""
    for row in text.splitlines():
        fields = row.split()
        if len(fields) >= 5 and fields[3].isdigit() and fields[-1] != "total":
            yield fields[-1], float(fields[1]), int(fields[3])


def _strace_attached(pid, fn, options):
    """The `strace -f -c OPTIONS` summary of every thread of pid while fn()
    ran, as rows (see _strace_summary_rows); None without strace or when it
    could not attach."""
    strace = which("strace")
    if strace is None:
        return None
    out = tempfile.NamedTemporaryFile(prefix="strace-", suffix=".txt", delete=False).name
    proc = subprocess.Popen([strace, "-f", "-c"] + options + ["-o", out, "-p", str(pid)],
                            stderr=subprocess.PIPE, text=True)
    try:
        if "attached" not in proc.stderr.readline():
            return None
        time.sleep(0.3)        # the other threads
        fn()
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    try:
        return list(_strace_summary_rows(Path(out).read_text()))
    finally:
        os.unlink(out)


def syscalls_during(pid, fn):
    """{syscall: count} of every system call that every thread of pid made
    while fn() ran, from `strace -f -c`; None without strace."""
    rows = _strace_attached(pid, fn, [])
    if rows is None:
        return None
    return {name: calls for name, _, calls in rows}


def messages_sent(argv, env):
    """sendmsg calls (GDBus sends one message per call) of a whole command,
    from `strace -f -c`; None without strace."""
    strace = which("strace")
    if strace is None:
        return None
    out = tempfile.NamedTemporaryFile(prefix="strace-", suffix=".txt", delete=False).name
    try:
        subprocess.run([strace, "-f", "-c", "-e", "trace=sendmsg", "-o", out] + list(argv),
                       env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
        return next((calls for name, _, calls in _strace_summary_rows(Path(out).read_text())
                     if name == "sendmsg"), 0)
    finally:
        os.unlink(out)


# where a thread sleeps until something happens: their time is mostly idle
BLOCKING_WAITS = ("poll", "ppoll", "futex", "epoll_wait", "epoll_pwait", "restart_syscall",
                  "select", "pselect6", "nanosleep", "clock_nanosleep", "read")


def syscall_time_during(pid, fn, top=4):
    """[(syscall, seconds, calls)] of the largest wall-clock totals that the
    threads of pid spent in system calls while fn() ran (`strace -f -c -w`;
    strace slows every call, so only the proportions mean much); None
    without strace."""
    rows = _strace_attached(pid, fn, ["-w"])
    if rows is None:
        return None
    rows = [row for row in rows if row[0] not in BLOCKING_WAITS]
    return sorted(rows, key=lambda r: -r[1])[:top]
