# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""The five sections of bench/run. Each takes the run's Context and a
benchlib.Section to fill with figures, baselines, targets and notes."""

import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import (BUS_NAME, MANAGER_PATH, MIB, PAGE_SIZE_IFACE, FakeKernel, GLib, Gio,
                      MemoryCgroup, bus_error_name, context_switches, fmt_ms, fmt_us, free_2m_blocks, hpdsys,
                      median, meminfo, messages_sent, percentile, pool_minimum,
                      proc_status, syscall_time_during, syscalls_during)

KB_2M = hpdsys.KB_2M
PATH_2M = hpdsys.page_size_path(KB_2M)
PEER = "org.freedesktop.DBus.Peer"
OM = "org.freedesktop.DBus.ObjectManager"
PROPS = "org.freedesktop.DBus.Properties"
FRAGMENT_SEED = 20261203
READ_INSTANCES = 3      # service instances (each with a new floor) the in-process reads are spread over


def ratio_text(value, baseline):
    return "%.2f×" % (value / baseline) if baseline > 0 else "n/a"


def _timed(fn):
    t0 = time.perf_counter()
    result = fn()
    return time.perf_counter() - t0, result


def _pool_total():
    return hpdsys.counters(KB_2M)["Total"]


def _reset_pool(total, overcommit=None):
    """Puts nr_hugepages of the 2 MiB pool back to @total (and
    nr_overcommit_hugepages to @overcommit: hugeadm turns a shortfall into
    overcommit) and waits until it reads back so (freeing is immediate
    unless pages are in use)."""
    d = hpdsys.pool_dir(KB_2M)
    hpdsys.write_counter(d / "nr_hugepages", total)
    if overcommit is not None and hpdsys.read_counter(d / "nr_overcommit_hugepages") != overcommit:
        hpdsys.write_counter(d / "nr_overcommit_hugepages", overcommit)
    deadline = time.monotonic() + 10
    while _pool_total() != total and time.monotonic() < deadline:
        time.sleep(0.05)


def _set_minimum(stack, pages, options=None, timeout_ms=700000):
    reply = stack.call(PATH_2M, PAGE_SIZE_IFACE, "SetMinimum",
                       GLib.Variant("(ta{sv})", (pages, options or {})), "(t)",
                       timeout_ms=timeout_ms)
    return reply.unpack()[0]


def _polkit_round_trip(stack, count):
    """CheckAuthorization on the polkitd mock, as the service makes it."""
    subject = ("unix-process", {"pid": GLib.Variant("u", os.getpid()),
                                "start-time": GLib.Variant("t", 0)})
    params = GLib.Variant("((sa{sv})sa{ss}us)",
                          (subject, "org.hugepages.manager.configure-pools", {}, 0, ""))
    times = []
    for _ in range(count):
        t0 = time.perf_counter()
        stack.conn.call_sync("org.freedesktop.PolicyKit1", "/org/freedesktop/PolicyKit1/Authority",
                             "org.freedesktop.PolicyKit1.Authority", "CheckAuthorization", params,
                             None, Gio.DBusCallFlags.NONE, 10000, None)
        times.append(time.perf_counter() - t0)
    return median(times)


def _ping(stack, conn=None):
    stack.call(MANAGER_PATH, PEER, "Ping", conn=conn, timeout_ms=10000)


# --------------------------------------------------------------------------
# 1. the read path

def section_read(ctx, sec):
    calls = 200 if ctx.quick else 5000
    block = 100
    stack = ctx.real_stack()
    runs = 10 if ctx.quick else 200
    env = stack.env()
    commands = [
        ("hugepagesctl pools", [str(stack.client), "pools"]),
        ("gdbus call … Peer.Ping", ["gdbus", "call", "--system", "-d", BUS_NAME, "-o", MANAGER_PATH,
                                    "-m", PEER + ".Ping"]),
        ("hugeadm --pool-list", ["hugeadm", "--pool-list"]),
    ]
    outputs = {}
    for name, argv in commands:       # one run each first: checks, and warm caches
        proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=30)
        if proc.returncode != 0:
            raise RuntimeError("%s exited %d: %s" % (name, proc.returncode, proc.stderr.strip()))
        outputs[name] = proc.stdout
    times = {name: [] for name, _ in commands}
    for i in range(runs):
        for name, argv in commands[i % 3:] + commands[:i % 3]:   # rotate the order
            t0 = time.perf_counter()
            subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[name].append(time.perf_counter() - t0)
    client = median(times["hugepagesctl pools"])
    gdbus = median(times["gdbus call … Peer.Ping"])
    hugeadm = median(times["hugeadm --pool-list"])
    client_messages = _messages_why(commands, env)
    process_notes = []
    process_notes.append("Whole-process times are wall clock from fork to exit, measured from Python "
             "(subprocess.run); the three commands run in rotating order, %d times each. p90: "
             "hugepagesctl %s, gdbus %s, hugeadm %s."
             % (runs, fmt_ms(percentile(times["hugepagesctl pools"], 90)), fmt_ms(percentile(times["gdbus call … Peer.Ping"], 90)),
                fmt_ms(percentile(times["hugeadm --pool-list"], 90))))
    same = outputs["hugepagesctl pools"] == outputs["hugeadm --pool-list"]
    process_notes.append("`hugepagesctl pools` output %s `hugeadm --pool-list` output."
             % ("is byte for byte the same as" if same else "differs from"))

    # in-process: one connection, GDBus through python gi, on several
    # instances of the service (the shared one, then new ones) and as many
    # floors: with 2 CPUs, where one instance's threads land moves its round
    # trips by as much as a third
    instances = 1 if ctx.quick else READ_INSTANCES
    lat, fl, ratios = {}, {}, []
    for i in range(instances):
        if i > 0:
            ctx.stop_shared_service()
            stack = ctx.real_stack()
        one, reply_size, bodies = _service_reads(stack, calls, block)
        floor = _floor_reads(ctx, stack, bodies, calls, block)
        for into, got in ((lat, one), (fl, floor)):
            for key, times in got.items():
                into.setdefault(key, []).extend(times)
        ratios.append(tuple(median(got[key]) / median(got["ping"])
                            for got, key in ((one, "gmo"), (one, "getall"),
                                             (floor, "gmo"), (floor, "getall"))))
    g, p, a = median(lat["gmo"]), median(lat["ping"]), median(lat["getall"])
    v = median(lat["version"])
    fg, fa, fp = median(fl["gmo"]), median(fl["getall"]), median(fl["ping"])
    # the client's one call (hpctl_connect_page_sizes: GetManagedObjects)
    # against gdbus's one Ping, measured in-process
    sec.row("`hugepagesctl pools`, whole process (median of %d)" % runs, fmt_ms(client),
            "bare `gdbus call` Ping: %s" % fmt_ms(gdbus), ratio_text(client, gdbus), "≤ 1.2×",
            client <= 1.2 * gdbus,
            "the client takes %s more than a bare gdbus Ping%s; its one call to the service, "
            "GetManagedObjects (%s in-process), takes %s more than a Ping (%s): the service "
            "reads every pool's counters afresh from sysfs, which gives no change notification "
            "to cache on, and its reply body is some kB where a Ping's is empty" % (
                fmt_ms(client - gdbus), client_messages, fmt_us(g), fmt_us(g - p), fmt_us(p)))
    sec.row("`hugeadm --pool-list`, whole process (median of %d)" % runs, fmt_ms(hugeadm),
            "bare `gdbus call` Ping: %s" % fmt_ms(gdbus), ratio_text(hugeadm, gdbus), "(for comparison)")
    for note in process_notes:
        sec.note(note)

    now_counts = {key: _syscalls_per_call(ctx.shared_service.pid, fn)
                  for key, fn in _read_calls(stack).items()}
    # after the build's own, as the build's last instances were timed; the next section
    # starts the build's service again
    before = _before_reads(ctx, max(block, calls // 5 * 2), block)
    sec.row("GetManagedObjects round trip, in-process (median of %d)" % len(lat["gmo"]), fmt_us(g),
            "Peer.Ping: %s" % fmt_us(p), ratio_text(g, p), "≤ 1.5×", g <= 1.5 * p,
            "GetManagedObjects sends every page size object's properties (%d bytes of reply "
            "body) where Ping sends an empty reply. It is answered in GDBus's worker thread from "
            "the read snapshot (src/bus/hpd-read-snapshot.h) once the service has re-read every "
            "kernel file the snapshot was made from and polled one inotify watch of the "
            "configuration's and the claims' files and the way to them (src/kernel/hpd-path-watch.h); "
            "the main thread only makes the snapshot again after a change. A GDBus service "
            "that answers with the same body from its worker thread and reads nothing "
            "(bench/floor.c) takes %s, %s its own Ping: the body's marshalling, its way through "
            "the bus and the client's reading of it %s the target by themselves; the "
            "difference, %s beyond Ping here against %s there, is the service's checks%s" % (
                reply_size, fmt_us(fg), ratio_text(fg, fp),
                "exceed" if fg > 1.5 * fp else "stay within",
                fmt_us(g - p), fmt_us(fg - fp),
                _io_per_call(now_counts["gmo"],
                             "sysfs and procfs files stay open and are read with one pread64 "
                             "each, and mountinfo is read again only when poll() on it says the "
                             "mount table changed (src/kernel/hpd-kernel.c, src/bus/hpd-fresh.h)")))
    sec.row("Manager GetAll round trip, in-process (median of %d)" % len(lat["getall"]), fmt_us(a),
            "Peer.Ping: %s" % fmt_us(p), ratio_text(a, p), "≤ 1.5×", a <= 1.5 * p,
            "GetAll of org.hugepages.Manager sends its %d properties (ThpSettings, Drift and "
            "the boot state among them) where Ping sends an empty reply. It is answered in "
            "GDBus's worker thread from its read snapshot (src/bus/hpd-read-snapshot.h) once the "
            "service has re-read every kernel file it was made from (meminfo and buddyinfo as "
            "the part it uses, the sysctls, every THP file, mountinfo when poll() says it "
            "changed) and polled one inotify watch of the configuration's and the claims' "
            "files, the boot hook's units and links, the GRUB drop-in and each mount's root "
            "(src/kernel/hpd-path-watch.h); the main thread only "
            "makes it again after a change, and a configuration that names a user or group "
            "(looked up at each use) is answered by the main thread every time, as a Get of the "
            "constant Version is (%s, %s Ping). A GDBus service answering the same body from its "
            "worker thread, reading nothing (bench/floor.c), takes %s, %s its own Ping; the "
            "difference, %s beyond Ping here against %s there, is the service's checks%s" % (
                _manager_properties(), fmt_us(v), ratio_text(v, p), fmt_us(fa),
                ratio_text(fa, fp), fmt_us(a - p), fmt_us(fa - fp),
                _io_per_call(now_counts["getall"],
                             "the THP files are most of the preads: one per mTHP size and "
                             "setting")))
    sec.row("Get of the constant Version, in-process (median of %d)" % len(lat["version"]),
            fmt_us(v), "Peer.Ping: %s" % fmt_us(p), ratio_text(v, p), "(for comparison)")
    sec.row("Floor: the same GetManagedObjects body from a GDBus service's worker thread, "
            "nothing read (bench/floor.c; median of %d)" % len(fl["gmo"]), fmt_us(fg),
            "its Peer.Ping: %s" % fmt_us(fp), ratio_text(fg, fp), "(for comparison)")
    sec.row("Floor: the same Manager GetAll body from a GDBus service's worker thread, "
            "nothing read (bench/floor.c; median of %d)" % len(fl["getall"]), fmt_us(fa),
            "its Peer.Ping: %s" % fmt_us(fp), ratio_text(fa, fp), "(for comparison)")
    _before_rows(ctx, sec, before, now_counts, {"reply_size": reply_size, "ping": p})
    sec.note("In-process figures: GDBus through python gi (Gio.DBusConnection.call_sync, the "
             "reply not unpacked), one private connection, %d calls of each in alternating blocks "
             "of %d on each of %d instances of the service (the one the other figures use, "
             "then new ones) and as many new floors, every instance's calls counted in the "
             "medians; p99 GetManagedObjects %s, Ping %s, "
             "Manager GetAll %s (median %s). GetManagedObjects reply body: %d bytes."
             % (calls, block, instances, fmt_us(percentile(lat["gmo"], 99)),
                fmt_us(percentile(lat["ping"], 99)), fmt_us(percentile(lat["getall"], 99)),
                fmt_us(a), reply_size))
    sec.note("Each instance's own ratios to its Ping (GetManagedObjects, Manager GetAll; the "
             "floor's two): %s. With 2 CPUs for the client, the bus and the service's threads, "
             "the same build's ratios move from one instance to the next; the verdicts take "
             "all instances' calls together." % "; ".join(
                 "%.2f×, %.2f× (floor %.2f×, %.2f×)" % r for r in ratios))


def _service_reads(stack, calls, block):
    """Round trips to the service of @stack on one private connection:
    ({key: [seconds]}, the GetManagedObjects reply's size, the reply bodies
    as GVariant text for bench/floor.c)."""
    conn = hpdsys.connect(stack.address)
    try:
        def gmo():
            return conn.call_sync(BUS_NAME, MANAGER_PATH, OM, "GetManagedObjects", None, None,
                                  Gio.DBusCallFlags.NONE, 10000, None)

        def ping():
            return conn.call_sync(BUS_NAME, MANAGER_PATH, PEER, "Ping", None, None,
                                  Gio.DBusCallFlags.NONE, 10000, None)

        def getall():
            return conn.call_sync(BUS_NAME, MANAGER_PATH, "org.freedesktop.DBus.Properties", "GetAll",
                                  GLib.Variant("(s)", ("org.hugepages.Manager",)), None,
                                  Gio.DBusCallFlags.NONE, 10000, None)

        def version():
            # a constant property: no refresh, only the way through the main thread
            return conn.call_sync(BUS_NAME, MANAGER_PATH, "org.freedesktop.DBus.Properties", "Get",
                                  GLib.Variant("(ss)", ("org.hugepages.Manager", "Version")), None,
                                  Gio.DBusCallFlags.NONE, 10000, None)
        reply = gmo()
        reply_size = len(reply.get_data_as_bytes().get_data())
        bodies = {"GetManagedObjects": reply.print_(True), "GetAll": getall().print_(True)}
        for _ in range(50):
            gmo()
            ping()
            getall()
            version()
        lat = _rotate([("gmo", gmo), ("ping", ping), ("getall", getall), ("version", version)],
                      calls, block)
    finally:
        conn.close_sync(None)
    return lat, reply_size, bodies


def _rotate(order, calls, block):
    """{key: [seconds]}: @calls round trips of each (key, fn) of @order, in
    blocks of @block, the order rotating from block to block so that no
    call always follows the same other."""
    lat = {key: [] for key, _ in order}
    for b in range(calls // block):
        k = b % len(order)
        for key, fn in order[k:] + order[:k]:
            for _ in range(block):
                t0 = time.perf_counter()
                fn()
                lat[key].append(time.perf_counter() - t0)
    return lat


def _floor_on_own_bus(ctx, stack, bodies):
    """bench/floor.c answering each of @bodies (member: reply body as
    GVariant text) from GDBus's worker thread, in the service's
    environment, on a bus of its own with the same policy, which lets only
    the service's name be owned, while the service keeps its own. Returns
    the ExtraService, its .proc the floor once it owns the name; the caller
    closes it."""
    extra = hpdsys.ExtraService(stack.dir, "floor")
    try:
        args = [str(Path(ctx.builddir) / "bench" / "floor"), BUS_NAME]
        for member, text in bodies.items():
            path = extra.dir / ("%s.gvariant" % member)
            path.write_text(text)
            args.append("%s=%s" % (member, path))
        with open(extra.dir / "floor.log", "w") as f:
            extra.proc = subprocess.Popen(args, stdout=f, stderr=subprocess.STDOUT,
                                          stdin=subprocess.DEVNULL,
                                          env=stack.env(DBUS_SYSTEM_BUS_ADDRESS=extra.address))
        deadline = time.monotonic() + 15
        while extra.owner_pid() != extra.proc.pid:
            if extra.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("bench/floor did not own %s: %s" % (
                    BUS_NAME, (extra.dir / "floor.log").read_text(errors="replace")))
            time.sleep(0.01)
        return extra
    except BaseException:
        extra.close()
        raise


def _floor_reads(ctx, stack, bodies, calls, block):
    """Round trips to bench/floor.c answering each of @bodies (member: reply
    body as GVariant text) and its Ping, timed as the service's are."""
    extra = _floor_on_own_bus(ctx, stack, bodies)
    try:
        conn = hpdsys.connect(extra.address)
        try:
            def call(iface, member, params):
                return lambda: conn.call_sync(BUS_NAME, MANAGER_PATH, iface, member, params, None,
                                              Gio.DBusCallFlags.NONE, 10000, None)
            calls_of = {"GetManagedObjects": ("gmo", OM, None),
                        "GetAll": ("getall", PROPS, GLib.Variant("(s)", ("org.hugepages.Manager",)))}
            order = [(calls_of[member][0], call(calls_of[member][1], member, calls_of[member][2]))
                     for member in bodies] + [("ping", call(PEER, "Ping", None))]
            for _ in range(50):
                for _key, fn in order:
                    fn()
            lat = _rotate(order, calls, block)
        finally:
            conn.close_sync(None)
        return lat
    finally:
        extra.close()


def _manager_properties():
    from benchlib import REPO
    xml = (REPO / "data" / "dbus" / "org.hugepages.Manager.xml").read_text()
    return xml.count("<property ")


def _messages_why(commands, env):
    sent = {name: messages_sent(argv, env) for name, argv in commands[:2]}
    if None in sent.values():
        return ""
    return ("; it sends %d D-Bus messages where `gdbus call` sends %d (strace, sendmsg)"
            % (sent["hugepagesctl pools"], sent["gdbus call … Peer.Ping"]))


SYSCALL_CALLS = 20      # calls per strace -f -c count of the read path


def _syscalls_per_call(pid, fn, calls=SYSCALL_CALLS):
    """{system call: how many per call} that every thread of @pid made over
    @calls calls of @fn, from strace -f -c; None without strace."""
    counts = syscalls_during(pid, lambda: [fn() for _ in range(calls)])
    if not counts:
        return None
    return {name: n / calls for name, n in counts.items()}


def _syscalls_text(per_call):
    """"N (openat a, read b, pread64 c, close d)": the total and the file
    calls the read path is judged by."""
    return "%.1f (%s)" % (sum(per_call.values()), ", ".join(
        "%s %.1f" % (name, per_call.get(name, 0)) for name in ("openat", "read", "pread64", "close")))


def _io_per_call(per_call, how):
    """", and each call makes N system calls, of which ..." for the report:
    opens and reads of files (read, pread64) apart, as the read path is
    judged by them; @how says how the files are read."""
    if not per_call:
        return ""
    return ("; each call makes %.1f system calls in the service (strace -f -c over %d calls, "
            "with the refresh a watching client gets every second), of which %.1f openat, "
            "%.1f pread64 and %.1f read (kernel files, the main loop's wakeups): %s"
            % (sum(per_call.values()), SYSCALL_CALLS, per_call.get("openat", 0),
               per_call.get("pread64", 0), per_call.get("read", 0), how))


def _read_calls(stack):
    """GetManagedObjects and the Manager's GetAll on @stack's connection."""
    def gmo():
        stack.call(MANAGER_PATH, OM, "GetManagedObjects", timeout_ms=10000)

    def getall():
        stack.call(MANAGER_PATH, PROPS, "GetAll", GLib.Variant("(s)", ("org.hugepages.Manager",)),
                   timeout_ms=10000)
    return {"gmo": gmo, "getall": getall}


def _before_reads(ctx, calls, block):
    """The service of ctx.before_rev on the real kernel, on a bus of its own,
    with /run/hugepagesd on a fresh tmpfs over the run's while it runs (the
    two builds' run state apart; the run's own service is stopped first,
    and started again by the next section that needs it):
    {"gmo"/"getall": system calls per call}, and the round trips
    as _service_reads times them, with the GetManagedObjects reply's size.
    None when there is no such build."""
    if ctx.before_daemon is None:
        return None
    ctx.stop_shared_service()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=0755,size=1m,nosuid,nodev",
                    "hpd-bench-before", "/run/hugepagesd"], check=True)
    try:
        stack = ctx.new_stack()
        stack.daemon = Path(ctx.before_daemon)
        svc = stack.start_service()
        try:
            fns = _read_calls(stack)
            for fn in fns.values():
                fn()
            counts = {key: _syscalls_per_call(svc.pid, fn) for key, fn in fns.items()}
            lat, reply_size, _ = _service_reads(stack, calls, block)
        finally:
            stack.stop_service(svc)
            stack.close()
            ctx.stacks.remove(stack)
    finally:
        subprocess.run(["umount", "/run/hugepagesd"], check=True)
    return {"counts": counts, "lat": lat, "reply_size": reply_size}


def _before_rows(ctx, sec, before, now_counts, lat):
    """The read path before issue 22's work on it and now: system calls per
    call of each read, and the earlier build's round trips against its Ping."""
    rev = ctx.before_rev[:12]
    if before is None:
        sec.note("The service of %s (bench/run --before) was not measured: %s."
                 % (rev, ctx.before_why))
        return
    for key, name in (("gmo", "GetManagedObjects"), ("getall", "Manager GetAll")):
        then, now = before["counts"][key], now_counts[key]
        if not then or not now:
            continue
        sec.row("System calls in the service per %s (strace -f -c over %d calls)"
                % (name, SYSCALL_CALLS), _syscalls_text(now),
                "%s: %s" % (rev, _syscalls_text(then)),
                ratio_text(sum(now.values()), sum(then.values())), "(for comparison)")
    b = before["lat"]
    bp = median(b["ping"])
    sec.row("The service of %s: GetManagedObjects / Manager GetAll round trips, in-process "
            "(median of %d)" % (rev, len(b["gmo"])),
            "%s / %s" % (fmt_us(median(b["gmo"])), fmt_us(median(b["getall"]))),
            "its Peer.Ping: %s" % fmt_us(bp),
            "%s / %s" % (ratio_text(median(b["gmo"]), bp), ratio_text(median(b["getall"]), bp)),
            "(for comparison)")
    sec.note("%s (bench/run --before; by default the last commit before the read path's work "
             "of issue 22): built by bench/run from `git archive` with the build's buildtype, "
             "run on a bus of its own on the real kernel with a run state of its own, and "
             "timed as the build is (%d calls of each, "
             "one instance). Its replies are not the build's: its GetManagedObjects body was %d "
             "bytes (the build's %d), and the Manager has gained properties since. Its round "
             "trips were timed right after the build's, %s."
             % (rev, len(b["gmo"]), before["reply_size"], lat["reply_size"],
                "with the same Ping" if abs(bp - lat["ping"]) < 0.2 * lat["ping"]
                else "with a Ping %s the build's" % ratio_text(bp, lat["ping"])))


# --------------------------------------------------------------------------
# 2. allocation

def _cpu_ns(pid):
    """CPU time of every thread of @pid so far (schedstat: nanoseconds)."""
    total = 0
    for task in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, task)) as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return total


def _last_allocation(stack):
    """The service's LastAllocation of the 2 MiB pool, {} where it has none
    (a build from before the property)."""
    try:
        reply = stack.call(PATH_2M, PROPS, "Get",
                           GLib.Variant("(ss)", (PAGE_SIZE_IFACE, "LastAllocation")), "(v)")
    except GLib.Error:
        return {}
    return reply.unpack()[0]


# issue 22, point 2: a change through the service at most this times the raw write
ALLOC_TARGET = 1.10


def section_alloc(ctx, sec):
    stack = ctx.real_stack()
    pid = ctx.shared_service.pid
    pages = 16 if ctx.quick else 2048
    reps = 3 if ctx.quick else 9
    avail_kb = meminfo()["MemAvailable"]
    most = max(0, (avail_kb * 1024 - 2 * 1024 * MIB) // (2 * MIB))
    if pages > most:
        sec.note("Only %d pages fit while leaving 2 GiB available (asked for %d)." % (most, pages))
        pages = most
    start_total = _pool_total()
    start_min = pool_minimum()
    start_oc = hpdsys.counters(KB_2M)["Overcommit"]
    target = start_min + pages
    nr_file = hpdsys.pool_dir(KB_2M) / "nr_hugepages"
    # SetNodePages on the first node with a 2 MiB pool
    node_dirs = sorted(Path("/sys/devices/system/node").glob("node*/hugepages/hugepages-%dkB" % KB_2M),
                       key=lambda p: int(p.parent.parent.name[4:]))
    node = int(node_dirs[0].parent.parent.name[4:]) if node_dirs else None

    def node_counter(name):
        return int((node_dirs[0] / name).read_text())

    def write(path, value):
        fd = os.open(str(path), os.O_WRONLY)
        try:
            os.write(fd, b"%d\n" % value)
        finally:
            os.close(fd)

    def raw():
        write(nr_file, start_total + pages)

    def service():
        _set_minimum(stack, target)

    def hugeadm():
        subprocess.run(["hugeadm", "--pool-pages-min", "2MB:+%d" % pages],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300, check=True)

    methods = [("raw write", raw), ("service", service), ("hugeadm", hugeadm)]
    if node is not None:
        node_total = node_counter("nr_hugepages")
        node_min = node_total - node_counter("surplus_hugepages")

        def raw_node():
            write(node_dirs[0] / "nr_hugepages", node_total + pages)

        def service_node():
            stack.call(PATH_2M, PAGE_SIZE_IFACE, "SetNodePages",
                       GLib.Variant("(uta{sv})", (node, node_min + pages, {})), "(t)",
                       timeout_ms=700000)
        methods += [("raw node write", raw_node), ("service node", service_node)]
    in_service = {"service", "service node"}

    def main_thread():
        # Size is constant: nothing is read, the call only goes through the
        # bus and the service's main loop and back, as every method does
        stack.call(PATH_2M, PROPS, "Get", GLib.Variant("(ss)", (PAGE_SIZE_IFACE, "Size")), "(v)")
    # timed in the same rotation, after the same reset of the pool as the
    # changes: a round trip right after 4 GiB were freed costs more than
    # one in a loop of round trips
    timed = methods + [("main thread", main_thread)]
    # one untimed run: this kernel may initialise struct pages lazily
    # (deferred_init=lazy), which the first big allocation pays for
    raw()
    _reset_pool(start_total)
    times = {m: [] for m, _ in timed}
    cpu = {m: [] for m, _ in methods}
    got = {m: [] for m, _ in methods}
    outside = {m: [] for m in in_service}
    writes = {m: [] for m in in_service}
    for r in range(reps):
        order = timed[r % len(timed):] + timed[:r % len(timed)]
        for name, fn in order:
            c0 = _cpu_ns(pid) if name in in_service else time.thread_time_ns()
            elapsed, _ = _timed(fn)
            c1 = _cpu_ns(pid) if name in in_service else time.thread_time_ns()
            times[name].append(elapsed)
            if name == "main thread":
                _reset_pool(start_total, start_oc)
                continue
            if name != "hugeadm":
                cpu[name].append((c1 - c0) / 1e9)
            got[name].append(pool_minimum() - start_min)
            if name in in_service:
                last = _last_allocation(stack)
                if "duration-usec" in last:
                    outside[name].append(elapsed - last["duration-usec"] / 1e6)
                    writes[name].append(last["writes"])
            _reset_pool(start_total, start_oc)
    med = {m: median(t) for m, t in times.items()}
    raw_t, svc_t, hg_t = med["raw write"], med["service"], med["hugeadm"]
    main_t = med["main thread"]
    ping = median([_timed(lambda: _ping(stack))[0] for _ in range(200)])

    def traced():
        for _ in range(3):
            service()
            _reset_pool(start_total, start_oc)
    top = syscall_time_during(pid, traced)
    breakdown = ""
    if top:
        breakdown = ("; where the service's threads spent their system-call time over 3 traced "
                     "runs, leaving out the calls that sleep (poll, futex, read of the wakeup "
                     "eventfd...; strace -f -c -w, which slows every call; a write of "
                     "nr_hugepages is the allocation itself): %s"
                     % ", ".join("%s %s in %d calls" % (name, fmt_ms(sec_), calls)
                                 for name, sec_, calls in top))
    polkit = _polkit_round_trip(stack, 50)

    def engine_text(name):
        if not outside[name]:
            return ""
        return ("; outside the allocation engine (the call less LastAllocation's duration-usec, "
                "paired per call) %s; nr_hugepages written %s time(s) per call"
                % (fmt_ms(median(outside[name])), "/".join(str(w) for w in sorted(set(writes[name])))))

    def change_floor(write_t):
        """What a change through any D-Bus service that asks polkit costs at
        least: the write, one round trip and one polkit check."""
        return write_t + ping + polkit

    def floor_text(write_t):
        """Said when a change through any D-Bus service could not meet the
        target on this machine: the write is short enough that the bus and
        the polkit check alone cost more than the target allows."""
        floor_t = change_floor(write_t)
        if floor_t <= ALLOC_TARGET * write_t:
            return ""
        return ("; the floor alone, that write plus one round trip and one polkit check, is "
                "%s (%s), above the target on this machine: any D-Bus service that asks polkit "
                "would miss it" % (fmt_ms(floor_t), ratio_text(floor_t, write_t)))

    sec.row("Grow the 2 MiB pool by %d pages: service `SetMinimum` (median of %d)" % (pages, reps),
            fmt_ms(svc_t), "raw sysfs write: %s" % fmt_ms(raw_t), ratio_text(svc_t, raw_t),
            "≤ %.2f×" % ALLOC_TARGET, svc_t <= ALLOC_TARGET * raw_t,
            "the service spends %s beyond the write; a D-Bus round trip costs %s (Ping), "
            "one through the service's main loop %s (a Get of the constant Size, timed "
            "in the same rotation after the same reset) and the polkit check %s "
            "(python-dbusmock's polkitd, measured alone)%s%s%s"
            % (fmt_ms(svc_t - raw_t), fmt_ms(ping), fmt_ms(main_t), fmt_ms(polkit),
               floor_text(raw_t), engine_text("service"), breakdown))
    if node is not None:
        sn, rn = med["service node"], med["raw node write"]
        sec.row("Grow node %d's 2 MiB pool by %d pages: service `SetNodePages` (median of %d)"
                % (node, pages, reps),
                fmt_ms(sn), "raw write of node%d's nr_hugepages: %s" % (node, fmt_ms(rn)),
                ratio_text(sn, rn), "≤ %.2f×" % ALLOC_TARGET, sn <= ALLOC_TARGET * rn,
                "the service spends %s beyond the write%s%s"
                % (fmt_ms(sn - rn), floor_text(rn), engine_text("service node")))
    for name, baseline in (("service", "raw write"), ("service node", "raw node write")):
        if name in cpu:
            sec.row("CPU time: the service's threads during `%s` against the writing thread's "
                    "(median of %d)" % ("SetMinimum" if name == "service" else "SetNodePages", reps),
                    fmt_ms(median(cpu[name])), "%s: %s" % (baseline, fmt_ms(median(cpu[baseline]))),
                    ratio_text(median(cpu[name]), median(cpu[baseline])), "(for comparison)")
    floor = change_floor(raw_t)
    sec.row("Floor of a change through any D-Bus service: raw write + Peer.Ping + the polkit "
            "check alone", fmt_ms(floor), "raw sysfs write: %s" % fmt_ms(raw_t),
            ratio_text(floor, raw_t), "(for comparison)")
    own_floor = raw_t + main_t + polkit
    sec.row("Floor of a change through a service whose methods run on its main loop (as "
            "GDBus dispatches them): raw write + the Get through the main loop + the polkit "
            "check", fmt_ms(own_floor), "raw sysfs write: %s" % fmt_ms(raw_t),
            ratio_text(own_floor, raw_t), "(for comparison)")
    sec.note("The floor is what any service on this bus pays at least: the write, one round "
             "trip to it (Peer.Ping, which GDBus answers in its own thread: %s) and one polkit "
             "CheckAuthorization (%s). A method of this service runs on its main loop, which "
             "costs %s for a Get that does nothing else, timed like the changes right after the "
             "pool was put back. SetMinimum spends %s beyond the write plus that round trip and "
             "the check: its handler's reads (the pool, the other pools' totals for the memory "
             "limit, meminfo, the claims' directories), the hop to the queue's worker thread "
             "and back, the worker's reads before and after the write, saving the requested "
             "minimum in /run/hugepagesd (the next change and a read after the reply depend on "
             "it) and the change's log line. The reply goes out before the properties are "
             "refreshed, PropertiesChanged is sent and LastAllocation is saved in /run (a "
             "change whose progress was shown still sends its properties and \"done\" first). "
             "The bus is asked who the caller is once per connection (src/bus/hpd-auth.c), not "
             "once per call, and a change that ends within HPD_ALLOC_PROGRESS_GRACE_MS "
             "(src/pools/hpd-alloc.h) sends no AllocationProgress: the signals' way through the "
             "threads and the bus while the kernel allocates made such a call about 1.5× the "
             "write." % (fmt_ms(ping), fmt_ms(polkit), fmt_ms(main_t),
                         fmt_ms(svc_t - own_floor)))
    sec.row("Grow by %d pages: `hugeadm --pool-pages-min 2MB:+%d`, whole process" % (pages, pages),
            fmt_ms(hg_t), "raw sysfs write: %s" % fmt_ms(raw_t), ratio_text(hg_t, raw_t),
            "(for comparison)")
    sec.row("Pages obtained per run (%s)" % " / ".join(m for m, _ in methods),
            " / ".join(str(got[m]) for m, _ in methods), "asked %d" % pages)
    sec.note("Start: 2 MiB pool minimum %d (nr_hugepages %d), put back after every run. "
             "Times: %s. The service times are the round trips seen by an in-process GDBus "
             "client (python gi), polkitd being python-dbusmock's template allowing everything; "
             "the raw writes are open+write+close of nr_hugepages from the same process. CPU "
             "time is /proc/PID/task/*/schedstat of the service over the call, and the writing "
             "thread's CLOCK_THREAD_CPUTIME_ID for a raw write: on a loaded machine the wall "
             "times carry the other programs' time slices, the CPU times do not."
             % (start_min, start_total,
                "; ".join("%s %s" % (m, [fmt_ms(t) for t in times[m]]) for m, _ in timed)))


# --------------------------------------------------------------------------
# 3. fragmentation

def _fs_type(path):
    return subprocess.run(["stat", "-f", "-c", "%T", str(path)], capture_output=True,
                          text=True).stdout.strip()


class Fragmenter:
    def __init__(self, binary, path, file_mib, anon_mib, pipe_mib, files_dir, nfiles, seed):
        self.proc = subprocess.Popen([str(binary), str(path), str(file_mib), str(anon_mib),
                                      str(pipe_mib), str(files_dir), str(nfiles), str(seed)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().split()
        if not line or line[0] != "ready":
            self.release()
            raise RuntimeError("fragment did not get ready (exit %s)" % self.proc.returncode)
        self.stats = dict(item.split("=") for item in line[1:])

    def release(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
                self.proc.wait(60)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()


def _watermark_kib(name="high"):
    """The kernel's own reserve: the sum of every zone's @name watermark,
    which no allocation of a huge page dips below."""
    pages = 0
    for line in Path("/proc/zoneinfo").read_text().splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[0] == name:
            pages += int(fields[1])
    return pages * 4


def _files_tmpfs(ctx):
    """A tmpfs of this mount namespace for the fragmenter's files: their
    inodes and dentries are what it wants, and the mount takes whatever a
    killed fragmenter left with it."""
    d = Path(ctx.workdir) / "fragment-files"
    d.mkdir(exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=0700,size=16m", "hpd-bench-fragment",
                    str(d)], check=True)
    ctx.cleanup_mounts.append(d)
    return d


def section_frag(ctx, sec):
    stack = ctx.real_stack()
    mi = meminfo()
    avail_mib = mi["MemAvailable"] // 1024
    if ctx.quick:
        fill_mib = 256
        nfiles = 20000
    else:
        # a large share of this machine's memory, leaving room for others
        fill_mib = max(256, min(avail_mib * 3 // 4, avail_mib - 4096))
        nfiles = 400000
    pipe_mib = max(8, fill_mib // 32)
    file_mib = (fill_mib - pipe_mib) // 2
    anon_mib = fill_mib - pipe_mib - file_mib
    margin_pages = 256          # 512 MiB left free beside the kernel's reserve
    data_dir = Path("/var/tmp/hpd-bench")
    data_dir.mkdir(exist_ok=True)
    fs = _fs_type(data_dir)
    if fs in ("tmpfs", "ramfs"):
        raise RuntimeError("%s is on %s: the page cache must come from a disk file system" % (data_dir, fs))
    path = data_dir / ("fragment-%dMiB.dat" % file_mib)
    ctx.cleanup_paths.append(path)
    t_write, _ = _timed(lambda: _write_file(path, file_mib))
    files_dir = _files_tmpfs(ctx)

    # the methods; each is given the absolute target
    def plain(target):
        hpdsys.write_counter(hpdsys.pool_dir(KB_2M) / "nr_hugepages", target + surplus)
        return ""

    hugeadm_timeout = 60 if ctx.quick else 300

    def hugeadm_hard(target):
        try:
            subprocess.run(["hugeadm", "--pool-pages-min", "2MB:%d" % target, "--hard"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=hugeadm_timeout)
        except subprocess.TimeoutExpired:
            return "stopped after %d s (hugeadm retries without limit while it progresses)" % hugeadm_timeout
        return ""

    def service(options):
        def run(target):
            try:
                _set_minimum(stack, target, options)
            except GLib.Error as e:
                return "error %s" % bus_error_name(e)
            return ""
        return run

    hard_name = "service `SetMinimum` {hard: true}"
    methods = [("plain write of nr_hugepages", plain),
               ("`hugeadm --pool-pages-min 2MB:N --hard`", hugeadm_hard),
               (hard_name, service({"hard": GLib.Variant("b", True)}))]
    drop = {"hard": GLib.Variant("b", True), "drop-caches": GLib.Variant("b", True)}
    try:
        _set_minimum(stack, pool_minimum(), dict(drop, **{"dry-run": GLib.Variant("b", True)}))
        methods.append(("service `SetMinimum` {hard: true, drop-caches: true}", service(drop)))
    except GLib.Error as e:
        sec.note("The service does not accept the `drop-caches` option (a dry run with it "
                 "answered %s: %s), so that variant is skipped." % (bus_error_name(e), e.message))

    start_total = _pool_total()
    start_min = pool_minimum()
    start_oc = hpdsys.counters(KB_2M)["Overcommit"]
    surplus = start_total - start_min
    reserve_kib = _watermark_kib()

    def fragmented():
        frag = Fragmenter(ctx.fragment_bin, path, file_mib, anon_mib, pipe_mib, files_dir, nfiles,
                          FRAGMENT_SEED)
        ctx.fragmenters.append(frag)
        return frag

    def release(frag):
        frag.release()
        ctx.fragmenters.remove(frag)

    # the physical bound, measured: fragment once more, drop every clean
    # cache and compact all memory, then count what is free; the fragmenter
    # is deterministic (its seed), so each method meets the same memory
    _reset_pool(start_total, start_oc)
    frag = fragmented()
    try:
        before_blocks = free_2m_blocks()
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
        Path("/proc/sys/vm/compact_memory").write_text("1\n")
        m = meminfo()
        bound = max(0, (m["MemFree"] - reserve_kib) // 2048)
        compacted_blocks = free_2m_blocks()
    finally:
        release(frag)
    asked = 128 if ctx.quick else max(0, bound - margin_pages)

    results = {}
    for name, fn in methods:
        _reset_pool(start_total, start_oc)
        frag = fragmented()
        try:
            m = meminfo()
            free_kib = m["MemFree"]
            blocks = free_2m_blocks()
            elapsed, remark = _timed(lambda: fn(start_min + asked))
            obtained = pool_minimum() - start_min
        finally:
            release(frag)
            _reset_pool(start_total, start_oc)
        results[name] = dict(time=elapsed, pages=obtained, bound=bound, asked=asked,
                             free=(free_kib - reserve_kib) // 2048, blocks=blocks,
                             remark=remark, stats=frag.stats)

    def share(r):
        return 100.0 * r["pages"] / max(r["bound"], 1)

    for name, r in results.items():
        sec.row("%s: pages obtained / time" % name,
                "%d pages (%.1f%% of the bound) / %s" % (r["pages"], share(r), fmt_ms(r["time"])),
                "asked %d of the bound %d; before: %d pages' worth free, %d free 2 MiB blocks"
                % (r["asked"], r["bound"], r["free"], r["blocks"]))
    hg = results["`hugeadm --pool-pages-min 2MB:N --hard`"]
    hard = results[hard_name]
    sec.row("Service {hard: true}: pages as a share of the physical bound",
            "%.1f%% (%d of %d)" % (share(hard), hard["pages"], hard["bound"]), "", "",
            "≥ 95%", share(hard) >= 95.0,
            "it asked %d pages (the bound less %d of margin) and obtained %d in %s; the "
            "fragmenter's unmovable pages (pipe buffers and tmpfs inodes, which compaction can "
            "neither move nor reclaim) hold free 4 KiB pages in blocks no method can empty"
            % (hard["asked"], margin_pages, hard["pages"], fmt_ms(hard["time"])))
    sec.row("Service {hard: true}: share of the bound vs hugeadm --hard",
            "%.1f%%" % share(hard), "%.1f%%" % share(hg), ratio_text(share(hard), share(hg)),
            "≥ 1×", share(hard) >= share(hg),
            "hugeadm --hard obtained %.1f%% of its bound in %s: it writes the target again every "
            "6 s for as long as the pool grows, while the service stopped after %s"
            % (share(hg), fmt_ms(hg["time"]), fmt_ms(hard["time"])))
    sec.row("Service {hard: true} time vs hugeadm --hard", fmt_ms(hard["time"]), fmt_ms(hg["time"]),
            ratio_text(hard["time"], hg["time"]), "< 1×", hard["time"] < hg["time"],
            "one run each on memory fragmented the same way: the service took %s for %d pages, "
            "hugeadm --hard %s for %d" % (fmt_ms(hard["time"]), hard["pages"], fmt_ms(hg["time"]),
                                          hg["pages"]))
    for name, r in results.items():
        if r["remark"]:
            sec.note("%s: %s." % (name, r["remark"]))
    st = hard["stats"]
    sec.note("Fragmentation (bench/fragment.c, seed %d), in 64 KiB steps of each kind: %d MiB of "
             "page cache read from %s (%s, written once in %.1f s), %d MiB of touched anonymous "
             "memory (THP off for it), %d MiB of pipe buffers (kernel pages without "
             "__GFP_MOVABLE) and %d empty files on a tmpfs (inodes and dentries: slab); then 3 "
             "anonymous pages in 4, every other 64 KiB of the file's cache, every other pipe and "
             "every other file freed. Kept: %d MiB anonymous, %d MiB page cache, %d MiB of pipe "
             "buffers, %s files. Held while each method ran, freed after it; the pool was put back "
             "to %d pages and memory fragmented again before every method."
             % (FRAGMENT_SEED, file_mib, path, fs, t_write, anon_mib, pipe_mib, nfiles,
                int(st.get("anon_kept_kib", 0)) // 1024, int(st.get("file_kept_kib", 0)) // 1024,
                int(st.get("pipe_kept_kib", 0)) // 1024, st.get("files_kept", "?"), start_total))
    sec.note("The physical bound, measured: memory fragmented the same way once more, then "
             "every clean cache dropped (drop_caches 3) and all memory compacted (compact_memory): "
             "MemFree less the zones' high watermarks (%d MiB, the kernel's reserve) held %d 2 MiB "
             "pages' worth; /proc/buddyinfo then showed %d free 2 MiB blocks (%d before dropping "
             "and compacting). Every method asked the bound less %d pages (%d MiB) of margin, so "
             "the machine stays usable: it must drop page cache and compact to come near it, and "
             "the unmovable pages keep some blocks from it whatever it does."
             % (reserve_kib // 1024, bound, compacted_blocks, before_blocks, margin_pages,
                margin_pages * 2))
    if ctx.quick:
        sec.note("--quick: %d MiB filled and %d pages asked, far below free memory, so every "
                 "method gets everything: the targets are not meaningful at this size."
                 % (fill_mib, hard["asked"]))
    else:
        sec.note("Sized to this machine: %d MiB filled (the smaller of ¾ of MemAvailable, "
                 "%d MiB, and MemAvailable − 4 GiB)." % (fill_mib, avail_mib))


def _write_file(path, mib):
    """FILE of @mib MiB on disk, kept between runs (its content does not matter)."""
    try:
        if path.stat().st_size >= mib * MIB:
            return
    except FileNotFoundError:
        pass
    chunk = random.Random(FRAGMENT_SEED).randbytes(MIB)
    with open(path, "wb") as f:
        for _ in range(mib):
            f.write(chunk)
        f.flush()
        os.fsync(f.fileno())


# --------------------------------------------------------------------------
# 4. scale on a fake kernel

SCALE_NODES = 64
SCALE_SIZES = (64, 2048, 32768, 1048576, 16777216)

LOAD_CLIENT = r'''
import json, random, sys, time
import gi
gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib
address, index, seconds, nodes = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
paths = sys.argv[5].split(",")
conn = Gio.DBusConnection.new_for_address_sync(address,
    Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
    None, None)
rng = random.Random(index)
print("ready", flush=True)
sys.stdin.readline()
lat = {"read": [], "mutation": []}
errors = {}
end = time.monotonic() + seconds
i = index
while time.monotonic() < end:
    i += 1
    t0 = time.perf_counter()
    try:
        if i % 10 == 0:
            kind = "mutation"
            conn.call_sync("org.hugepages.Manager", paths[1], "org.hugepages.Manager.PageSize",
                           "SetNodePages", GLib.Variant("(uta{sv})", (rng.randrange(nodes), rng.randrange(8), {})),
                           None, Gio.DBusCallFlags.NONE, 30000, None)
        elif i % 2:
            kind = "read"
            conn.call_sync("org.hugepages.Manager", "/org/hugepages/Manager",
                           "org.freedesktop.DBus.ObjectManager", "GetManagedObjects", None, None,
                           Gio.DBusCallFlags.NONE, 30000, None)
        else:
            kind = "read"
            conn.call_sync("org.hugepages.Manager", rng.choice(paths), "org.freedesktop.DBus.Properties",
                           "GetAll", GLib.Variant("(s)", ("org.hugepages.Manager.PageSize",)), None,
                           Gio.DBusCallFlags.NONE, 30000, None)
    except GLib.Error as e:
        name = Gio.DBusError.get_remote_error(e) or e.message
        count, first = errors.get(name, (0, e.message))
        errors[name] = (count + 1, first)
        continue
    lat[kind].append(time.perf_counter() - t0)
print(json.dumps({"lat": lat, "errors": errors}))
'''


def section_scale(ctx, sec):
    root = Path(tempfile.mkdtemp(prefix="fake-kernel-", dir=ctx.workdir))
    FakeKernel(root, nodes=SCALE_NODES, sizes=SCALE_SIZES, default_size=2048,
               mem_total_kb=1 << 30)
    stack = ctx.new_stack()
    svc = stack.start_service(kernel_root=root)
    paths = [hpdsys.page_size_path(kb) for kb in SCALE_SIZES]
    conn = hpdsys.connect(stack.address)
    try:
        n = 50 if ctx.quick else 1000

        def gmo():
            return conn.call_sync(BUS_NAME, MANAGER_PATH, OM, "GetManagedObjects", None, None,
                                  Gio.DBusCallFlags.NONE, 10000, None)
        reply = gmo()
        size = len(reply.get_data_as_bytes().get_data())
        bodies = {"GetManagedObjects": reply.print_(True)}
        for _ in range(20):
            gmo()
        lat = [_timed(gmo)[0] for _ in range(n)]
        g = median(lat)
        floor = _floor_reads(ctx, stack, bodies, n, 10 if ctx.quick else 100)
        fg = median(floor["gmo"])
        sec.row("GetManagedObjects round trip, %d nodes × %d sizes (median of %d)"
                % (SCALE_NODES, len(SCALE_SIZES), n), fmt_ms(g), "", "", "≤ 2 ms", g <= 0.002,
                "the reply holds %d bytes (every PageSize object with its %d-entry Nodes "
                "array); a GDBus service answering the same body from its worker thread, "
                "reading nothing (bench/floor.c), takes %s%s, so %s of the call is the service's "
                "reads and checks%s" % (size, SCALE_NODES, fmt_ms(fg),
                                        ", above the target by itself: the body's marshalling "
                                        "and parsing through GDBus" if fg > 0.002 else "",
                                        fmt_ms(g - fg), _io_per_call(
                    _syscalls_per_call(svc.pid, gmo),
                    "a fake tree's counters are plain files, opened, read and closed for each "
                    "read, as they can be renamed over and tests/fakekernel.py's simulator "
                    "answers on open; %d node counter files (%d nodes × %d sizes × 3) and the "
                    "pools' own make a call, so exact freshness costs at least three system "
                    "calls per file on this tree" % (SCALE_NODES * len(SCALE_SIZES) * 3,
                                                      SCALE_NODES, len(SCALE_SIZES)))))
        sec.row("Floor: the same %d-node GetManagedObjects body from a GDBus service's worker "
                "thread, nothing read (bench/floor.c; median of %d)" % (SCALE_NODES, len(floor["gmo"])),
                fmt_ms(fg), "its Peer.Ping: %s" % fmt_us(median(floor["ping"])), "",
                "(for comparison)")
        sec.note("GetManagedObjects: p99 %s, reply body %d bytes; in-process GDBus client "
                 "(python gi), service with --kernel-root on a tests/fakekernel.py tree "
                 "(%d nodes, sizes %s kB, 1 TiB MemTotal). On a real kernel of as many nodes and "
                 "sizes the service would keep at most MAX_KEPT_OPEN (384) sysfs files open for "
                 "its reads (src/kernel/hpd-kernel.c), fewer than its %d node counter files: the "
                 "rest would be opened for each read, as every file is here."
                 % (fmt_ms(percentile(lat, 99)), size, SCALE_NODES,
                    ", ".join(str(s) for s in SCALE_SIZES), SCALE_NODES * len(SCALE_SIZES) * 3))

        m = 10 if ctx.quick else 200
        set_lat, dry_lat = [], []
        for i in range(m):
            args = GLib.Variant("(uta{sv})", (i % SCALE_NODES, 1 + i % 7, {}))
            set_lat.append(_timed(lambda: conn.call_sync(
                BUS_NAME, paths[1], PAGE_SIZE_IFACE, "SetNodePages", args, None,
                Gio.DBusCallFlags.NONE, 30000, None))[0])
            dry = GLib.Variant("(uta{sv})", (i % SCALE_NODES, 1 + i % 7,
                                             {"dry-run": GLib.Variant("b", True)}))
            dry_lat.append(_timed(lambda: conn.call_sync(
                BUS_NAME, paths[1], PAGE_SIZE_IFACE, "SetNodePages", dry, None,
                Gio.DBusCallFlags.NONE, 30000, None))[0])
        sec.row("SetNodePages service time, 2 MiB pool on one of %d nodes (median of %d)"
                % (SCALE_NODES, m), fmt_ms(median(set_lat)), "dry run: %s" % fmt_ms(median(dry_lat)),
                ratio_text(median(set_lat), median(dry_lat)), "(reported)")
        sec.note("SetNodePages: p99 %s; it includes the polkit check (python-dbusmock's polkitd, "
                 "allowing everything) and the worker thread; the dry run needs no authorization "
                 "and writes nothing." % fmt_ms(percentile(set_lat, 99)))
    finally:
        conn.close_sync(None)

    clients = 10 if ctx.quick else 50
    seconds = 2.0 if ctx.quick else 10.0
    procs = []
    try:
        for i in range(clients):
            procs.append(subprocess.Popen(
                [sys.executable, "-c", LOAD_CLIENT, stack.address, str(i), str(seconds),
                 str(SCALE_NODES), ",".join(paths)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
        for p in procs:
            if p.stdout.readline().strip() != "ready":
                raise RuntimeError("a load client did not start")
        cs0 = context_switches(svc.pid)
        t0 = time.perf_counter()
        for p in procs:
            p.stdin.write("go\n")
            p.stdin.flush()
        outs = [json.loads(p.stdout.readline()) for p in procs]
        wall = time.perf_counter() - t0
        for p in procs:
            p.wait(30)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    reads = [x for o in outs for x in o["lat"]["read"]]
    muts = [x for o in outs for x in o["lat"]["mutation"]]
    errors = {}
    for o in outs:
        for k, (count, first) in o["errors"].items():
            errors[k] = (errors.get(k, (0, first))[0] + count, first)
    total = len(reads) + len(muts)
    sec.row("%d concurrent clients, %.0f s: throughput" % (clients, seconds),
            "%.0f calls/s" % (total / wall), "", "", "(reported)")
    sec.row("%d concurrent clients: read latency p50 / p99" % clients,
            "%s / %s" % (fmt_ms(median(reads)), fmt_ms(percentile(reads, 99))), "", "", "(reported)")
    sec.row("%d concurrent clients: mutation latency p50 / p99" % clients,
            "%s / %s" % (fmt_ms(median(muts)), fmt_ms(percentile(muts, 99))), "", "", "(reported)")
    if any("malformed counter" in first for _c, first in errors.values()):
        sec.note("The Failed errors name a node file read as malformed: under --kernel-root the "
                 "files are plain files, which read back empty between the service's own "
                 "O_TRUNC and write, and src/kernel/hpd-kernel.c looks again only 3 times, 1 ms apart; "
                 "with 50 clients on 2 CPUs the writing thread can be off the CPU for longer. "
                 "sysfs never reads back empty, so this concerns the fake kernel only.")
    sec.note("Concurrency: %d client processes (python gi, one connection each) started together; "
             "each loops for %.0f s: GetManagedObjects and PageSize GetAll alternately, every "
             "tenth call a SetNodePages (random node, 0-7 pages). %d reads and %d mutations "
             "completed; errors: %s. All of them, the service, dbus-daemon and the polkitd mock "
             "share this machine's %d CPUs, so the figures bound the whole stack, not the "
             "service alone (service context switches during the run: %d)."
             % (clients, seconds, len(reads), len(muts),
                "; ".join("%d × %s (e.g. \"%s\")" % (c, k, first) for k, (c, first) in errors.items())
                or "none", os.cpu_count(),
                context_switches(svc.pid) - cs0))
    status = stack.stop_service(svc)
    if status != 0:
        sec.note("hugepagesd exited %s on SIGTERM after the run." % status)


# --------------------------------------------------------------------------
# 5. footprint

class _NameOwnerWatch:
    """Waits on @stack's connection for NameOwnerChanged giving BUS_NAME an
    owner; when: the time it was dispatched. Made before the start it
    waits for, so that the signal cannot come first."""

    def __init__(self, stack):
        self.conn, self.when = stack.conn, None
        self.id = self.conn.signal_subscribe(
            "org.freedesktop.DBus", "org.freedesktop.DBus", "NameOwnerChanged",
            "/org/freedesktop/DBus", BUS_NAME, Gio.DBusSignalFlags.NONE, self._changed)
        # GDBus sends the AddMatch without waiting: a round trip behind it
        # means the bus has the match before anything is started
        stack.owner_pid()

    def _changed(self, conn, sender, path, iface, member, params):
        if self.when is None and params.unpack()[2]:
            self.when = time.perf_counter()

    def wait(self, timeout=15):
        """Blocks in the main context (no polling to take CPU from the
        start) until the signal or @timeout."""
        expired = []
        timer = GLib.timeout_add_seconds(timeout, lambda: expired.append(True) or False)
        context = GLib.MainContext.default()
        while self.when is None and not expired:
            context.iteration(True)
        if not expired:
            GLib.source_remove(timer)
        if self.when is None:
            raise RuntimeError("%s got no owner in %d s" % (BUS_NAME, timeout))

    def close(self):
        self.conn.signal_unsubscribe(self.id)


def _thread_switches(pid):
    out = {}
    for task in Path("/proc/%d/task" % pid).iterdir():
        try:
            name = (task / "comm").read_text().strip()
            n = 0
            for line in (task / "status").read_text().splitlines():
                if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                    n += int(line.split()[1])
            out["main thread" if task.name == str(pid) else "%s/%s" % (name, task.name)] = n
        except OSError:
            pass
    return out


def _per_file(pid, field="Rss"):
    """{mapped file: kB of @field} from /proc/PID/smaps; the anonymous
    mappings (heap, stacks, libraries' written data) under ""."""
    per_file = {}
    current = ""
    for line in Path("/proc/%d/smaps" % pid).read_text().splitlines():
        fields = line.split()
        if not fields[0].endswith(":"):
            current = fields[5] if len(fields) >= 6 and fields[5].startswith("/") else ""
        elif fields[0] == field + ":":
            per_file[current] = per_file.get(current, 0) + int(fields[1])
    return per_file


def _file_rss(pid, top=5):
    """"libglib-2.0.so.0.7400.6 1234 kB, ..." from /proc/PID/smaps."""
    per_file = {f: kb for f, kb in _per_file(pid).items() if f}
    largest = sorted(per_file.items(), key=lambda kv: -kv[1])[:top]
    return ", ".join("%s %d kB" % (os.path.basename(f), kb) for f, kb in largest)


def _idle_figures(pid):
    """What an idle process costs: its status lines, Pss, and Pss and Rss
    per mapped file."""
    st = proc_status(pid)
    return {"status": st, "pss": _pss_kb(pid), "file_pss": _per_file(pid, "Pss"),
            "file_rss": _per_file(pid, "Rss"), "threads": st["Threads"]}


def _floor_figures(ctx, stack, cgroup=None):
    """bench/floor.c (a GDBus service that owns the name, exports one
    object and idles) on the same bus, measured as the service is; in
    @cgroup (a MemoryCgroup) from its start, its kernel memory under
    "kernel_kb"."""
    floor = Path(ctx.builddir) / "bench" / "floor"
    log = stack.dir / "floor.log"
    with open(log, "w") as f:
        proc = subprocess.Popen([str(floor), BUS_NAME], stdout=f, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=stack.env(),
                                preexec_fn=cgroup.join if cgroup is not None else None)
    proc.log_path = log
    try:
        stack.wait_owned(proc)
        time.sleep(3)          # as long as the service is left before it is measured
        figures = _idle_figures(proc.pid)
        if cgroup is not None:
            figures["kernel_kb"] = cgroup.kernel_kb()
        return figures
    finally:
        stack.stop_service(proc)


def _kernel_files(pid):
    """How many descriptors of @pid are of sysfs and of procfs files."""
    targets = hpdsys.open_files(pid).values()
    found = {kind: sum(1 for t in targets if t.startswith("/%s/" % kind)) for kind in ("sys", "proc")}
    return "%d sysfs and %d procfs descriptors" % (found["sys"], found["proc"])


def _kernel_memory_reads(stack, svc, cgroup, rounds=20):
    """The kernel memory charged to @svc right after @rounds of
    GetManagedObjects and Manager GetAll from one caller (the read
    snapshots and their checkers live), and once that caller has left and
    the calls have stopped."""
    conn = stack.bus.connect()
    try:
        for _ in range(rounds):
            conn.call_sync(BUS_NAME, MANAGER_PATH, OM, "GetManagedObjects", None, None,
                           Gio.DBusCallFlags.NONE, 10000, None)
            conn.call_sync(BUS_NAME, MANAGER_PATH, PROPS, "GetAll",
                           GLib.Variant("(s)", ("org.hugepages.Manager",)), None,
                           Gio.DBusCallFlags.NONE, 10000, None)
        during = (cgroup.kernel_kb(), _kernel_files(svc.pid))
    finally:
        conn.close_sync(None)
    time.sleep(3)              # past the check 2 s after the calls (hpd-memory.h)
    return during, (cgroup.kernel_kb(), _kernel_files(svc.pid))


def _kernel_memory_rows(sec, idle, floor, reads):
    """The kernel memory charged to the service (its memory cgroup) idle,
    while reads come and after, against the floor's idle."""
    if reads is None:
        sec.row("Kernel memory charged to the service, idle", "not measured", "", "",
                "(for comparison)")
        sec.note("Kernel memory not measured: %s." % MemoryCgroup.why_not)
        return
    (during_kb, during_files), (after_kb, after_files) = reads
    sec.row("Kernel memory charged to the service, idle after start (its memory cgroup)",
            "%d kB" % idle["kernel_kb"], "minimal GDBus service: %d kB" % floor["kernel_kb"],
            ratio_text(idle["kernel_kb"], floor["kernel_kb"]), "(for comparison)")
    sec.row("Kernel memory charged to the service right after 20 GetManagedObjects and Manager "
            "GetAll from one caller", "%d kB" % during_kb,
            "idle: %d kB" % idle["kernel_kb"], ratio_text(during_kb, idle["kernel_kb"]),
            "(for comparison)")
    sec.row("Kernel memory charged to the service 3 s after that caller left",
            "%d kB" % after_kb, "idle: %d kB" % idle["kernel_kb"],
            ratio_text(after_kb, idle["kernel_kb"]), "(for comparison)")
    sec.note("Kernel memory: each process (the service, then bench/floor.c) in a memory cgroup "
             "of its own from its fork (%s), which counts what the kernel holds for it: open "
             "files and what they buffer, sockets, thread stacks, page tables; none of it is in "
             "Pss or RssAnon. An open sysfs file holds a page from its first read to its close "
             "(the seq_file buffer of its reads), so the kernel files kept open for reads "
             "(src/kernel/hpd-kernel.c) are kept only while someone reads: closed once the calls "
             "have stopped and nobody watches, and the read snapshots' checkers read through "
             "the service's open files (duplicated descriptors), not files of their own. "
             "Descriptors: idle %s; with the caller %s; after %s."
             % (idle["kernel_how"], idle["kernel_files"], during_files, after_files))


def _pss_split(fig, binary):
    """Pss in kB: anonymous, the program's own file, the libraries."""
    anon = fig["file_pss"].get("", 0)
    own = sum(kb for f, kb in fig["file_pss"].items() if f and os.path.basename(f) == binary)
    return anon, own, fig["pss"] - anon - own


def _footprint_why(svc, floor):
    """The service against the floor: where its excess Pss lies."""
    s_anon, s_own, s_libs = _pss_split(svc, "hugepagesd")
    f_anon, f_own, f_libs = _pss_split(floor, "floor")
    floor_libs = {os.path.basename(f) for f in floor["file_rss"] if f}
    extra = {os.path.basename(f): svc["file_pss"].get(f, 0) for f in svc["file_rss"]
             if f and ".so" in os.path.basename(f) and os.path.basename(f) not in floor_libs}
    extra_pss = sum(extra.values())
    extra_named = ", ".join("%s %d kB" % (k, v) for k, v in sorted(extra.items(),
                                                                  key=lambda kv: -kv[1]))
    return ("a minimal GDBus service (bench/floor.c: the same GLib, GIO and libc, connected to "
            "the same bus, owning the name and exporting one object, idle) has Pss %d kB here; "
            "the service adds %d kB to it: anonymous memory %+d kB (%d against %d kB), its "
            "program file %+d kB (hugepagesd %d kB against floor %d kB), libraries the floor "
            "does not load %d kB (%s), and %+d kB more of the shared libraries' pages touched. "
            "The floor alone is %s 2 MiB"
            % (floor["pss"], svc["pss"] - floor["pss"], s_anon - f_anon, s_anon, f_anon,
               s_own - f_own, s_own, f_own, extra_pss, extra_named or "none",
               s_libs - extra_pss - f_libs,
               "above" if floor["pss"] > 2048 else "within"))


def _library_count(binary):
    out = subprocess.run(["ldd", str(binary)], capture_output=True, text=True).stdout
    return sum(1 for line in out.splitlines() if "=>" in line)


def _pss_kb(pid):
    """Pss of @pid from /proc/PID/smaps_rollup: its own pages in full, each
    shared page divided among the processes mapping it."""
    for line in Path("/proc/%d/smaps_rollup" % pid).read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1])
    raise RuntimeError("no Pss in smaps_rollup")


def _load_clients(address, clients, seconds, nodes, paths, during=None):
    """Runs LOAD_CLIENT in @clients processes for @seconds; during() is
    called every 0.2 s meanwhile. Returns their outputs (JSON)."""
    procs = []
    try:
        for i in range(clients):
            procs.append(subprocess.Popen(
                [sys.executable, "-c", LOAD_CLIENT, address, str(i), str(seconds),
                 str(nodes), ",".join(paths)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
        for p in procs:
            if p.stdout.readline().strip() != "ready":
                raise RuntimeError("a load client did not start")
        for p in procs:
            p.stdin.write("go\n")
            p.stdin.flush()
        end = time.monotonic() + seconds
        while during is not None and time.monotonic() < end:
            during()
            time.sleep(0.2)
        outs = [json.loads(p.stdout.readline()) for p in procs]
        for p in procs:
            p.wait(30)
        return outs
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()


def _heap(pid):
    """The main arena's [heap] mapping in kB: its Rss, and its Size (how far
    it ever grew, less what malloc_trim gave back from its top)."""
    kb, current = {"Rss:": 0, "Size:": 0}, None
    for line in Path("/proc/%d/smaps" % pid).read_text().splitlines():
        fields = line.split()
        if not fields[0].endswith(":"):
            current = fields[5] if len(fields) >= 6 else None
        elif fields[0] in kb and current == "[heap]":
            kb[fields[0]] += int(fields[1])
    return {"rss": kb["Rss:"], "size": kb["Size:"]}


def _load_residue(ctx, clients, seconds, during=None, again=0, floor=False):
    """A fresh instance on the scale section's fake kernel (64 nodes × 5
    sizes) under @clients clients for @seconds: RssAnon idle before, right
    after, when it first came back within the slack of idle (None: not
    within 20 s), and 3 s after (the trim 2 s after the calls is done) with
    the heap's Rss and size then. Then @again more of the same loads on the
    same instance, each with RssAnon and the heap's size 3 s after it:
    whether what stays grows with use. With @floor, the same of
    bench/floor.c answering the load's calls with the instance's bodies
    (under "floor")."""
    root = Path(tempfile.mkdtemp(prefix="fake-kernel-", dir=ctx.workdir))
    FakeKernel(root, nodes=SCALE_NODES, sizes=SCALE_SIZES, default_size=2048,
               mem_total_kb=1 << 30)
    paths = [hpdsys.page_size_path(kb) for kb in SCALE_SIZES]
    stack = ctx.new_stack()
    svc = stack.start_service(kernel_root=root)
    try:
        time.sleep(3)          # past the trim after start-up
        idle = proc_status(svc.pid)["RssAnon"]
        _load_clients(stack.address, clients, seconds, SCALE_NODES, paths,
                      during=(lambda: during(svc.pid)) if during else None)
        ended = time.monotonic()
        after = proc_status(svc.pid)["RssAnon"]
        # back to idle: within 10 % of the figure before (src/bus/hpd-memory.c
        # returns every whole free page 2 s after the calls)
        slack = idle // 10
        back = settled = heap = None
        while True:
            since = time.monotonic() - ended
            rss = proc_status(svc.pid)["RssAnon"]
            if back is None and rss <= idle + slack:
                back = since
            # what the trim 2 s after the calls left
            if settled is None and since >= 3:
                settled, heap = rss, _heap(svc.pid)
            if settled is not None and (back is not None or since >= 20):
                break
            time.sleep(0.1)
        rounds = []
        for _ in range(again):
            _load_clients(stack.address, clients, seconds, SCALE_NODES, paths)
            time.sleep(3)
            rounds.append({"rss": proc_status(svc.pid)["RssAnon"],
                           "heap_size": _heap(svc.pid)["size"]})
        bodies = _load_bodies(stack, paths) if floor else None
    finally:
        stack.stop_service(svc)
    return {"idle": idle, "after": after, "slack": slack, "back": back, "settled": settled,
            "heap": heap["rss"], "heap_size": heap["size"], "again": rounds,
            "floor": _floor_residue(ctx, stack, bodies, clients, seconds, paths) if floor else None}


def _load_bodies(stack, paths):
    """The replies' bodies of the load's three calls (LOAD_CLIENT), as
    GVariant text for bench/floor.c."""
    gmo = stack.call(MANAGER_PATH, OM, "GetManagedObjects")
    getall = stack.call(paths[1], PROPS, "GetAll", GLib.Variant("(s)", (PAGE_SIZE_IFACE,)))
    return {"GetManagedObjects": gmo.print_(True), "GetAll": getall.print_(True),
            "SetNodePages": GLib.Variant("(t)", (0,)).print_(True)}


def _floor_residue(ctx, stack, bodies, clients, seconds, paths):
    """bench/floor.c answering the load's calls with @bodies from its worker
    thread: RssAnon idle and 3 s after the same load, each after it was
    told to trim (SIGUSR1) as the service trims itself once the calls have
    stopped: 2 s after start-up and after the load."""
    extra = _floor_on_own_bus(ctx, stack, bodies)
    try:
        pid = extra.proc.pid

        def trimmed():
            os.kill(pid, signal.SIGUSR1)
            time.sleep(1)
            return proc_status(pid)["RssAnon"]
        time.sleep(2)
        idle = trimmed()
        _load_clients(extra.address, clients, seconds, SCALE_NODES, paths)
        time.sleep(2)
        return {"idle": idle, "settled": trimmed()}
    finally:
        extra.close()


def _footprint_under_load(ctx, sec):
    """The scale section's load on a fresh instance: RssAnon before, at its
    peak, right after, and how long until it is back to idle; beside it the
    same on another fresh instance after a light load, which tells what any
    first calls leave from what the load leaves."""
    clients = 10 if ctx.quick else 50
    seconds = 2.0 if ctx.quick else 10.0
    again = 1 if ctx.quick else 4
    peak = []
    heavy = _load_residue(ctx, clients, seconds,
                          during=lambda pid: peak.append(proc_status(pid)["RssAnon"]), again=again,
                          floor=True)
    light = _load_residue(ctx, 2, 1.0)
    idle, slack = heavy["idle"], heavy["slack"]
    peak_kb = max(peak + [heavy["after"]])
    sec.row("RssAnon right after %d concurrent clients for %.0f s (the scale section's load)"
            % (clients, seconds), "%d kB" % heavy["after"], "idle before: %d kB" % idle, "",
            "≤ 2 MiB", heavy["after"] <= 2048,
            "the peak during the load was %d kB, and right after it the heap is still as large "
            "as the load made it: glibc keeps what was freed until src/bus/hpd-memory.c's "
            "malloc_trim 2 s after the calls stop (%d kB then). The heap's size is its "
            "high-water mark, and the same build's runs differ by more than a MiB: by heaptrack, "
            "run by hand, the memory live at the peak is about 1.4 MB, most of it replies and "
            "calls waiting in GDBus's queues (each GetManagedObjects reply a blob of some 50 kB "
            "grown by doubling, beside its body) while dbus-daemon serves 50 clients on the "
            "same 2 CPUs, and the kernel values of the main loop's turn; which blocks are "
            "live when the heap must grow decides how far it grows"
            % (peak_kb, heavy["settled"]))
    light_text = ("%d kB (idle before: %d kB)" % (light["settled"], light["idle"]))
    rounds = heavy["again"]
    rounds_rss = ", ".join("%d" % r["rss"] for r in rounds)
    rounds_heap = ", ".join("%d" % r["heap_size"] for r in rounds)
    most = max(r["rss"] for r in rounds)
    largest_heap = max(r["heap_size"] for r in rounds)
    again_text = ("The same instance under %d more of the same load: RssAnon 3 s after each "
                  "%s kB, at most %+d kB from the first %d kB; the heap's size after each %s kB "
                  "(%d kB after the first): %s." %
                  (len(rounds), rounds_rss, most - heavy["settled"], heavy["settled"],
                   rounds_heap, heavy["heap_size"],
                   "the heap never grew past what the first load made it, so what stays is "
                   "that burst's layout, not growth with use"
                   if largest_heap <= heavy["heap_size"] else
                   "the heap grew %d kB past what the first load made it" %
                   (largest_heap - heavy["heap_size"])))
    floor = heavy["floor"]
    floor_left = floor["settled"] - floor["idle"]
    sec.row("RssAnon back to idle after the load (within %d kB of %d kB)" % (slack, idle),
            "%.1f s" % heavy["back"] if heavy["back"] is not None else "not within 20 s",
            "", "", "≤ 10 s", heavy["back"] is not None and heavy["back"] <= 10,
            "RssAnon was %d kB 3 s after the load (%+d kB), %d kB of it the heap, after "
            "malloc_trim returned every whole free page and the read snapshots were let go "
            "(src/bus/hpd-daemon.c). A GDBus service answering the same calls with the same "
            "bodies from its worker thread, run and trimmed the same way (bench/floor.c), was "
            "%+d kB from its idle 3 s after the same load: what stays is the service's own. "
            "Another fresh instance of the service, after 2 clients for 1 s, was at %s: values "
            "that the first calls make and that then live on (the Manager's properties and "
            "their serialised forms, a pool's LastAllocation, GLib's types and GDBus's state "
            "for the first callers). %s The rest is blocks made during the calls that live on, "
            "each keeping its page of the heap from the trim: by an allocation tracer run by "
            "hand (LD_PRELOAD, recording what was allocated during the load and still live 3 s "
            "after it), some 180 blocks, 30 kB in all, on about 100 pages: most of them a few "
            "each, from GHashTable's new arrays as the tables shrink after 50 callers left "
            "(the callers' name watches, credentials and slots in src/bus/hpd-auth.c, "
            "hpd-watchers.c and hpd-traffic.c, and GDBus's own), the sources of what still "
            "waits (hpd-auth.c's linger of its departures watch, GDBus's next read), and the "
            "last values of what the load changed (a pool's Nodes and LastAllocation). Made "
            "once (the ThpSettings texts, now one block) or updated in place (LastAllocation's "
            "record in /run) where the service could; the unit's "
            "GLIBC_TUNABLES (no per-thread cache of freed blocks, src/bus/hpd-allocators.c) "
            "took some 200 kB off what stays, by hand, in runs before and after it" %
            (heavy["settled"], heavy["settled"] - idle, heavy["heap"], floor_left, light_text,
             again_text))
    sec.row("Floor: RssAnon of a minimal GDBus service answering the same calls from its "
            "worker thread, 3 s after the same load (bench/floor.c, told to trim 2 s after it)",
            "%+d kB" % floor_left, "its idle: %d kB" % floor["idle"], "", "(for comparison)",
            None)
    sec.row("RssAnon 3 s after each of %d more of the same load (the same instance)" % again,
            "%s kB" % rounds_rss, "3 s after the first: %d kB" % heavy["settled"], "",
            "(for comparison)", None)
    sec.row("RssAnon 3 s after a light load (2 clients for 1 s, another fresh instance)",
            "%d kB" % light["settled"], "idle before: %d kB" % light["idle"], "",
            "(for comparison)", None)
    sec.note("Load: %d client processes (python gi, one connection each) on a fresh instance "
             "with --kernel-root on a %d-node, %d-size fake kernel, as in the scale section; "
             "RssAnon sampled every 0.2 s during it (peak %d kB) and every 0.1 s after; %d kB "
             "3 s after it." % (clients, SCALE_NODES, len(SCALE_SIZES),
                                peak_kb, heavy["settled"]))


def section_footprint(ctx, sec):
    stack = ctx.real_stack(start=False)
    if ctx.shared_service is not None:
        st = proc_status(ctx.shared_service.pid)
        sec.note("The instance that served the sections before (thousands of calls) had VmRSS "
                 "%d kB, RssAnon %d kB when stopped." % (st["VmRSS"], st["RssAnon"]))
        ctx.stop_shared_service()
    svc_cgroup = MemoryCgroup.made("service")
    reads_kernel = None
    svc = stack.start_service(cgroup=svc_cgroup)
    try:
        time.sleep(3)          # past the malloc_trim 2 s after start-up (hpd-memory.h)
        st = proc_status(svc.pid)
        idle = _idle_figures(svc.pid)
        if svc_cgroup is not None:
            idle.update(kernel_kb=svc_cgroup.kernel_kb(), kernel_files=_kernel_files(svc.pid),
                        kernel_how=svc_cgroup.how)
        largest = _file_rss(svc.pid)
        window = 5.0 if ctx.quick else 60.0
        before = _thread_switches(svc.pid)
        time.sleep(window)
        after = _thread_switches(svc.pid)
        comm = Path("/proc/%d/comm" % svc.pid).read_text().strip()
        if svc_cgroup is not None:
            reads_kernel = _kernel_memory_reads(stack, svc, svc_cgroup)
    finally:
        stack.stop_service(svc)
        if svc_cgroup is not None:
            svc_cgroup.close()
    floor_cgroup = MemoryCgroup.made("floor") if svc_cgroup is not None else None
    try:
        floor = _floor_figures(ctx, stack, floor_cgroup)
    finally:
        if floor_cgroup is not None:
            floor_cgroup.close()
    fst = floor["status"]

    pss = idle["pss"]
    sec.row("Idle Pss after start (smaps_rollup)", "%d kB" % pss,
            "minimal GDBus service: %d kB" % floor["pss"], ratio_text(pss, floor["pss"]),
            "≤ 2 MiB", pss <= 2048,
            "Pss counts the service's own pages (RssAnon %d kB) and its share of the "
            "mapped files' pages (RssFile %d kB in all; the largest: %s); %s"
            % (st["RssAnon"], st["RssFile"], largest, _footprint_why(idle, floor)))
    sec.row("Idle RSS after start (RssAnon)", "%d kB" % st["RssAnon"],
            "minimal GDBus service: %d kB" % fst["RssAnon"],
            ratio_text(st["RssAnon"], fst["RssAnon"]), "≤ 1 MiB", st["RssAnon"] <= 1024,
            "RssAnon is the heap (GDBus's and GIO's types, the objects, the kernel files' "
            "buffers), the stacks of %d threads touched so far and libraries' written data; "
            "the service adds %+d kB to the minimal GDBus service's"
            % (st["Threads"], st["RssAnon"] - fst["RssAnon"]))
    sec.row("Idle RSS after start (VmRSS)", "%d kB" % st["VmRSS"],
            "minimal GDBus service: %d kB" % fst["VmRSS"], "", "(for comparison)")
    _kernel_memory_rows(sec, idle, floor, reads_kernel)
    sec.note("Baseline: bench/floor.c, built with the service (bench/meson.build) against "
             "the same GLib and GIO, run with the unit's Environment= and its allocators set "
             "up by the service's own code (src/bus/hpd-allocators.c: GSlice on malloc, one "
             "arena, the same mmap threshold), connects to the same private system bus, "
             "exports one object with one method, owns %s and idles; measured 3 s after it "
             "owns the name, as the service, right after the service stopped (the benchmark's "
             "own python process maps GLib and GIO for both). Pss divides each shared page "
             "among the processes that map it, so both figures fall when more GLib programs "
             "run (a test suite beside the benchmark is enough to move them by hundreds of "
             "kB): the floor measured a minute apart is the comparison. Floor: Pss %d kB, "
             "RssAnon %d kB, RssFile %d kB, %d threads."
             % (BUS_NAME, floor["pss"], fst["RssAnon"], fst["RssFile"], fst["Threads"]))
    delta = {k: after.get(k, 0) - before.get(k, 0) for k in after}
    woke = sum(delta.values())
    per_min = woke * 60.0 / window
    busy = ", ".join("%s %d" % (k, v) for k, v in sorted(delta.items()) if v) or "none"
    sec.row("Wakeups while idle, nobody watching (%.0f s window)" % window,
            "%.1f / min" % per_min, "", "", "none periodic (< 1 / min)", per_min < 1,
            "context switches by thread: %s." % busy)
    sec.note("Wakeups: voluntary + nonvoluntary context switches summed over "
             "/proc/PID/task/*/status, before and after the window; %d threads; "
             "per thread: %s.%s" % (st["Threads"], busy, "" if comm == "hugepagesd" else
             " The process calls itself \"%s\" in /proc/PID/comm (what ps and top show): "
             "its re-exec goes through /proc/self/exe." % comm))

    starts = 3 if ctx.quick else 10
    times, bare = [], []
    for _ in range(starts):
        owned = _NameOwnerWatch(stack)
        try:
            t0 = time.perf_counter()
            proc = stack.start_service(wait=False)
            owned.wait()
        finally:
            owned.close()
        times.append(owned.when - t0)
        stack.wait_owned(proc)        # and it was this process that took the name
        stack.stop_service(proc)
        # the part no service work can shorten: exec, the libraries and
        # GLib's constructors, as `hugepagesd --version` pays them
        t0 = time.perf_counter()
        subprocess.run([str(stack.daemon), "--version"], stdout=subprocess.DEVNULL,
                       env=stack.env(), check=True)
        bare.append(time.perf_counter() - t0)
    start = median(times)
    sec.row("Exec to name on the bus (median of %d starts)" % starts, fmt_ms(start),
            "`hugepagesd --version`: %s" % fmt_ms(median(bare)),
            ratio_text(start, median(bare)), "≤ 20 ms", start <= 0.020,
            "%s of it is the exec of the program, the loading of its %d libraries and GLib's "
            "constructors (`hugepagesd --version`, run alternately); the rest is reading the "
            "configuration, the claims and the page sizes' counters, connecting and "
            "authenticating to the bus and the name request. The Manager's kernel values "
            "(proc/pagetypeinfo's ~15 ms walk of every zone among them) are not read before "
            "the name: they wait for the first read. GSlice is set to malloc from the "
            ".preinit_array (src/main.c), with no second exec"
            % (fmt_ms(median(bare)), _library_count(stack.daemon)))
    sec.note("`hugepagesd --version` times %s." % [fmt_ms(t) for t in bare])
    sec.note("Start times %s: from Popen to the bus's NameOwnerChanged giving %s an owner, "
             "as a unit of Type=dbus waits for it (asking the bus for the owner in a loop would "
             "take a CPU and the bus's time from the start it measures); one exec: on GLib < "
             "2.76 GSlice is set to malloc before GLib's constructor runs "
             "(src/bus/hpd-allocators.h), not by executing the program again with G_SLICE."
             % ([fmt_ms(t) for t in times], BUS_NAME))

    _footprint_under_load(ctx, sec)
