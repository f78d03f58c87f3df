# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""The kernel files the service keeps open between reads
(src/kernel/hpd-kernel.c). An open sysfs file holds a page of kernel
memory, charged to the service, from its first read to its close. So the
read snapshots' checkers read through the service's own open files
(duplicated descriptors, one open file each), and the files are closed
once the calls have stopped and nobody watches. A watcher's refresh every
second keeps them open, and they stay open for a quiet period after the
last watcher left. Real sysfs only: the files of a fake tree are
opened for each read."""

import ctypes
import errno
import platform
import re
import time

import pytest
from gi.repository import Gio, GLib

from hpdsys import BUS_NAME, MANAGER_PATH, connect, open_files

OM_IFACE = "org.freedesktop.DBus.ObjectManager"
PROPS_IFACE = "org.freedesktop.DBus.Properties"
MANAGER_IFACE = "org.hugepages.Manager"
QUIET_LINE = "Calls stopped:"              # src/bus/hpd-memory.c
NOBODY_LINE = "Nobody watches any more"    # src/bus/hpd-daemon.c
KCMP_FILE = 0
KCMP_SYSCALL = {"x86_64": 312, "aarch64": 272}


def reads(conn, rounds=20):
    """GetManagedObjects and the Manager's GetAll, so that both snapshots
    are made and then checked by the calls after."""
    for _ in range(rounds):
        conn.call_sync(BUS_NAME, MANAGER_PATH, OM_IFACE, "GetManagedObjects", None, None,
                       Gio.DBusCallFlags.NONE, 10000, None)
        conn.call_sync(BUS_NAME, MANAGER_PATH, PROPS_IFACE, "GetAll",
                       GLib.Variant("(s)", (MANAGER_IFACE,)), None, Gio.DBusCallFlags.NONE,
                       10000, None)


def sysfs_descriptors(pid):
    """{path below /sys: [descriptor numbers]} of @pid."""
    found = {}
    for fd, target in sorted(open_files(pid).items()):
        if target.startswith("/sys/"):
            found.setdefault(target, []).append(fd)
    return found


def same_open_file(pid, fd_a, fd_b):
    """kcmp(2): whether two descriptors of @pid are one open file."""
    number = KCMP_SYSCALL.get(platform.machine())
    if number is None:
        pytest.skip("kcmp's system call number is not known here for %s" % platform.machine())
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    result = libc.syscall(ctypes.c_long(number), ctypes.c_int(pid), ctypes.c_int(pid),
                          ctypes.c_int(KCMP_FILE), ctypes.c_ulong(fd_a), ctypes.c_ulong(fd_b))
    if result < 0:
        err = ctypes.get_errno()
        if err == errno.ENOSYS:
            pytest.skip("no kcmp: a kernel without CONFIG_KCMP")
        if err == errno.EBADF:
            return None    # closed since it was listed
        raise OSError(err, "kcmp of descriptors %d and %d" % (fd_a, fd_b))
    return result == 0


def files_apart(pid):
    """The sysfs files @pid holds through more than one open file, and the
    descriptors of each path, listed again when one closed meanwhile (a
    snapshot made anew)."""
    for _ in range(5):
        found = sysfs_descriptors(pid)
        shared = {path: fds for path, fds in found.items() if len(fds) > 1}
        same = {path: [same_open_file(pid, fds[0], fd) for fd in fds[1:]]
                for path, fds in shared.items()}
        if not any(None in answers for answers in same.values()):
            return found, shared, ["%s (%s)" % (path, ", ".join(map(str, shared[path])))
                                   for path, answers in sorted(same.items()) if not all(answers)]
    raise AssertionError("the service's descriptors kept changing while listed")


def wait_for_log(extra, line, after, timeout=10):
    deadline = time.monotonic() + timeout
    while extra.log().count(line) <= after:
        assert time.monotonic() < deadline, "no %r in the log:\n%s" % (line, extra.log()[-3000:])
        time.sleep(0.05)


def test_checkers_read_through_the_services_open_files(extra_service):
    extra = extra_service("kept")
    proc = extra.start()
    conn = connect(extra.address)
    try:
        reads(conn)
        # within the quiet period, and the caller still there: the
        # snapshots, their checkers and the service's open files live
        found, shared, apart = files_apart(proc.pid)
    finally:
        conn.close_sync(None)
    assert shared, "no kernel file read by both the service and a checker: %r" % found
    assert not apart, ("files opened again by a checker instead of read through the service's "
                       "open file: %s" % "; ".join(apart))
    print("%d sysfs files, %d of them read by checkers too, %d descriptors"
          % (len(found), len(shared), sum(len(fds) for fds in found.values())))


def test_kept_files_closed_when_nobody_reads(extra_service):
    extra = extra_service("kept")
    proc = extra.start()
    conn = connect(extra.address)
    try:
        quiet = extra.log().count(QUIET_LINE)
        reads(conn)
        # the caller watches until it leaves the bus: its refresh every
        # second reads the files, which stay open past the quiet check
        wait_for_log(extra, QUIET_LINE, quiet)
        assert sysfs_descriptors(proc.pid), "closed although a watcher's refresh reads them"
        nobody = extra.log().count(NOBODY_LINE)
    finally:
        conn.close_sync(None)
    wait_for_log(extra, NOBODY_LINE, nobody)
    # still open for a quiet period: a script's next one-shot client
    # finds them so
    quiet = extra.log().count(QUIET_LINE)
    assert sysfs_descriptors(proc.pid), "closed at once when the last watcher left"
    wait_for_log(extra, QUIET_LINE, quiet)
    left = sysfs_descriptors(proc.pid)
    assert not left, "sysfs files still open with nobody reading: %s" % ", ".join(sorted(left))

    # and again after a burst of calls from a caller that leaves at once
    quiet = extra.log().count(QUIET_LINE)
    conn = connect(extra.address)
    reads(conn, rounds=3)
    conn.close_sync(None)
    wait_for_log(extra, QUIET_LINE, quiet)
    left = sysfs_descriptors(proc.pid)
    assert not left, "sysfs files still open after the calls stopped: %s" % ", ".join(sorted(left))
    assert re.search(r"GetManagedObjects snapshot made", extra.log())
