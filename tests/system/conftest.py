# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""System tests: the real service on the real kernel, with a real polkitd.

Run as root inside a private mount namespace:

    unshare -m --propagation private /usr/bin/python3 -m pytest tests/system

The build directory comes from HUGEPAGESD_BUILDDIR (default <repo>/build).

The session harness
  * makes every mount in this namespace private, then bind-mounts a
    temporary directory holding the project's polkit actions (as built in
    <builddir>/data, translations merged) over
    /usr/share/polkit-1/actions and one holding the test rules over
    /etc/polkit-1/rules.d (and a copy of polkit's stock 50-default.rules
    only over /usr/share/polkit-1/rules.d, so host .pkla grants cannot
    change the result); nothing of it is visible outside the namespace;
  * creates the unprivileged users hpd-test-allowed (polkit says YES to
    org.hugepages.manager.*) and hpd-test-denied (falls to the defaults:
    auth_admin, so a challenge, and there is no agent) if they are missing;
  * starts a private dbus-daemon of type system with the stock
    deny-by-default policy, polkit's own policy and the project's real bus
    policy, the real polkitd on it, and <builddir>/src/hugepagesd -v
    --allow-private-mount-namespace on the real kernel (the option: this
    namespace is not PID 1's, and its mounts are meant to stay in it);
  * records nr_hugepages and nr_overcommit_hugepages of every pool and puts
    them back after every test and at the end of the session, even after a
    failure.

The kernel is shared with other work: nothing assumes that pools start
empty, and a test adds at most 64 x 2 MiB and 1 x 1 GiB pages (the Demote
test turns its one 1 GiB page into 512 x 2 MiB: the same memory).

SIGTERM and SIGHUP end the run through the same teardown; an atexit hook
restores the pools if the teardown could not run. Every helper process dies
with the test process (PR_SET_PDEATHSIG). The logs of dbus-daemon, polkitd
and hugepagesd are kept in <builddir>/meson-logs/system-tests/.
Clients run hpd_client.py as the test users; shared helpers are in hpdsys.py.
"""

import atexit
import contextlib
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from hpdsys import (ALLOWED_USER, BUS_NAME, DENIED_USER, HERE, KB_2M, MAX_2M_PAGES, POLKIT_NAME,
                    POLKITD, REPO, SKIP_REASON, BUS_CONFIG, TEST_RULES, ExtraService, Mapper,
                    PolkitMonitor, System, builddir, connect, ensure_user, has_pool, kill_helpers,
                    memory_errors, unit_environment, unit_umask,
                    pools_snapshot, restore_pools, run)


def _is_system_item(item):
    return Path(str(item.fspath)).resolve().is_relative_to(HERE)


def pytest_report_header(config):
    if SKIP_REASON:
        return "system tests: SKIPPED: " + SKIP_REASON
    return "system tests: builddir %s, kernel %s" % (builddir(), os.uname().release)


def pytest_collection_modifyitems(config, items):
    if not SKIP_REASON:
        return
    marker = pytest.mark.skip(reason="SYSTEM TESTS SKIPPED: " + SKIP_REASON)
    for item in items:
        if _is_system_item(item):
            item.add_marker(marker)
    sys.stderr.write("\n*** SYSTEM TESTS SKIPPED: %s ***\n" % SKIP_REASON)


def pytest_terminal_summary(terminalreporter):
    if SKIP_REASON:
        terminalreporter.write_sep("!", "SYSTEM TESTS SKIPPED: " + SKIP_REASON, red=True, bold=True)


def _bind(stack, source, target):
    run(["mount", "--bind", str(source), str(target)])
    stack.callback(run, ["umount", "--lazy", str(target)])


def _keep_logs(system):
    """Copies the logs of the bus, polkitd and the service to
    <builddir>/meson-logs/system-tests/ for a look after the run."""
    dest = builddir() / "meson-logs" / "system-tests"
    try:
        dest.mkdir(parents=True, exist_ok=True)
        for name, log in system.logs.items():
            if log.exists():
                shutil.copy(log, dest / log.name)
    except OSError as e:
        sys.stderr.write("could not keep the system test logs in %s: %s\n" % (dest, e))


def _hide_host_mount_base(stack, tmp):
    """When the host has /var/lib/hugetlbfs (hugeadm's, or an earlier
    run's), puts a fresh root-owned tmpfs over /var/lib in this private mount
    namespace, holding everything else of /var/lib (bound, or the same
    links) but not hugetlbfs: the mount tests start as on a host without
    it, and never see or change the host's."""
    base = Path("/var/lib/hugetlbfs")
    if not os.path.lexists(base):
        return
    parent = base.parent
    shadow = tmp / "var-lib"
    shadow.mkdir()
    st = os.stat(parent)
    run(["mount", "-t", "tmpfs", "-o", "mode=%o,uid=%d,gid=%d" % (st.st_mode & 0o7777, st.st_uid,
                                                                   st.st_gid),
         "hpd-var-lib", str(shadow)])
    for entry in os.scandir(parent):
        if entry.name == base.name:
            continue
        target = shadow / entry.name
        if entry.is_symlink():
            os.symlink(os.readlink(entry.path), target)
            continue
        if entry.is_dir(follow_symlinks=False):
            target.mkdir()
        else:
            target.touch()
        run(["mount", "--rbind", entry.path, str(target)])
    run(["mount", "--move", str(shadow), str(parent)])
    stack.callback(run, ["umount", "--lazy", "--recursive", str(parent)])
    assert not os.path.lexists(base)


# The last line of defence when the session teardown cannot run normally.
_emergency = {"snapshot": None, "system": None}


def _emergency_cleanup():
    kill_helpers()
    system = _emergency["system"]
    if system is not None:
        for name in ("hugepagesd", "polkitd", "dbus-daemon"):
            system.stop(name, timeout=3)
    if _emergency["snapshot"] is not None:
        problems = restore_pools(_emergency["snapshot"])
        if problems:
            sys.stderr.write("hugepagesd system tests: could not restore pools: %s\n" % problems)
        _emergency["snapshot"] = None


def _terminate(signum, frame):
    raise KeyboardInterrupt("signal %d" % signum)


@pytest.fixture(scope="session")
def system():
    if SKIP_REASON:
        pytest.skip("SYSTEM TESTS SKIPPED: " + SKIP_REASON)

    daemon = builddir() / "src" / "hugepagesd"
    for tool in (daemon, Path(POLKITD), Path("/usr/bin/dbus-daemon"), Path("/usr/bin/setpriv"),
                 Path("/usr/sbin/useradd")):
        assert os.access(tool, os.X_OK), "%s is missing (build first, or set HUGEPAGESD_BUILDDIR)" % tool
    assert has_pool(KB_2M), "the kernel has no 2 MiB huge pages"

    atexit.register(_emergency_cleanup)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _terminate)

    with contextlib.ExitStack() as stack:
        tmp = Path(tempfile.mkdtemp(prefix="hpd-system-"))
        stack.callback(shutil.rmtree, tmp, ignore_errors=True)
        os.chmod(tmp, 0o755)      # polkitd and the test users reach the bus socket here
        system = System(tmp)
        stack.callback(_keep_logs, system)

        # the service's runtime state (/run/hugepagesd) stays in this
        # namespace: a private directory bound over it, and the mount point
        # removed again if the host had none
        run_state = tmp / "run-hugepagesd"
        run_state.mkdir()
        if not os.path.exists("/run/hugepagesd"):
            os.mkdir("/run/hugepagesd")
            stack.callback(os.rmdir, "/run/hugepagesd")
        _bind(stack, str(run_state), "/run/hugepagesd")
        _emergency["system"] = system

        # pools: put back whatever happens
        system.session_snapshot = pools_snapshot()
        _emergency["snapshot"] = system.session_snapshot

        def restore_session_pools():
            kill_helpers()
            problems = restore_pools(system.session_snapshot)
            _emergency["snapshot"] = None
            assert not problems, problems
        stack.callback(restore_session_pools)

        # users
        for user in (ALLOWED_USER, DENIED_USER):
            system.users[user] = ensure_user(user)

        # polkit's directories, inside this namespace only
        run(["mount", "--make-rprivate", "/"])
        _hide_host_mount_base(stack, tmp)
        actions = tmp / "polkit-actions"
        rules = tmp / "polkit-rules"
        stock_rules = tmp / "polkit-stock-rules"
        for d in (actions, rules, stock_rules):
            d.mkdir()
            os.chmod(d, 0o755)
        # the policy as built: with the translations merged in, as installed
        shutil.copy(builddir() / "data" / "org.hugepages.manager.policy", actions)
        (rules / "10-hugepagesd-tests.rules").write_text(TEST_RULES)
        default_rules = Path("/usr/share/polkit-1/rules.d/50-default.rules")
        if default_rules.exists():
            shutil.copy(default_rules, stock_rules)
        for f in list(actions.iterdir()) + list(rules.iterdir()) + list(stock_rules.iterdir()):
            os.chmod(f, 0o644)
        _bind(stack, actions, "/usr/share/polkit-1/actions")
        _bind(stack, rules, "/etc/polkit-1/rules.d")
        if Path("/usr/share/polkit-1/rules.d").is_dir():
            _bind(stack, stock_rules, "/usr/share/polkit-1/rules.d")

        # the bus
        socket = tmp / "system_bus_socket"
        config = tmp / "bus.conf"
        config.write_text(BUS_CONFIG.format(socket=socket, policy_dir=REPO / "data" / "dbus"))
        system.spawn("dbus-daemon", ["dbus-daemon", "--nofork", "--nosyslog",
                                     "--config-file=%s" % config])
        stack.callback(system.stop, "dbus-daemon")
        deadline = time.monotonic() + 10
        while not socket.exists():
            if system.procs["dbus-daemon"].poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("dbus-daemon did not start:\n" + system.log("dbus-daemon"))
            time.sleep(0.02)
        system.address = "unix:path=%s" % socket
        os.environ["DBUS_SYSTEM_BUS_ADDRESS"] = system.address
        system.bus = connect(system.address)
        stack.callback(system.bus.close_sync, None)

        # polkitd: it drops to its own user by itself
        system.spawn("polkitd", [POLKITD, "--no-debug"])
        stack.callback(system.stop, "polkitd")
        system.wait_for_name(POLKIT_NAME, "polkitd")

        # the service, on the real kernel, in this private mount namespace:
        # its mounts are meant to stay here, which it must be told (without
        # the option it refuses them: test_sys_namespace.py)
        system.spawn("hugepagesd", [str(daemon), "-v", "--allow-private-mount-namespace"],
                     env=system.env(**unit_environment(), G_DEBUG="fatal-criticals"),
                     umask=unit_umask())

        def stop_service():
            system.stop("hugepagesd")
            sys.stderr.write("\n----- hugepagesd log (last 40 lines) -----\n%s\n"
                             % "\n".join(system.log("hugepagesd").splitlines()[-40:]))
            # SIGTERM is a clean exit
            assert system.service.returncode == 0, \
                "hugepagesd exited with %s on SIGTERM" % system.service.returncode
            # and, in a sanitizer build, without a report (asan tier)
            reports = memory_errors(system.log("hugepagesd"))
            assert not reports, "hugepagesd reported memory errors:\n%s" % "\n".join(reports)
        stack.callback(stop_service)
        system.wait_for_name(BUS_NAME, "hugepagesd")

        yield system

    _emergency["system"] = None


@pytest.fixture(autouse=True)
def pools_guard(request):
    """Puts every pool back after each test, pass or fail."""
    if SKIP_REASON or not _is_system_item(request.node):
        yield None
        return
    snap = pools_snapshot()
    yield snap
    kill_helpers()
    problems = restore_pools(snap)
    assert not problems, "could not restore the pools: %s" % problems


@pytest.fixture
def etc_config():
    """A private, empty /etc/hugepagesd for this test only (a temporary
    directory bind-mounted there, seen by the service in this namespace)."""
    etc = "/etc/hugepagesd"
    created = not os.path.exists(etc)
    if created:
        os.mkdir(etc)
    tmp = tempfile.mkdtemp(prefix="hpd-etc-")
    subprocess.run(["mount", "--bind", tmp, etc], check=True)
    try:
        yield tmp
    finally:
        subprocess.run(["umount", etc], check=True)
        subprocess.run(["rm", "-rf", tmp], check=True)
        if created:
            os.rmdir(etc)


@pytest.fixture
def mapper():
    """mapper(n) maps n 2 MiB huge pages in a helper process; released after the test."""
    made = []

    def make(n):
        assert n <= MAX_2M_PAGES
        m = Mapper(n)
        made.append(m)
        return m
    yield make
    for m in made:
        m.release()


@pytest.fixture
def rng():
    seed = int(os.environ.get("HPD_TEST_SEED", random.randrange(1 << 30)))
    print("random seed %d (set HPD_TEST_SEED to repeat)" % seed)
    return random.Random(seed)


@pytest.fixture
def extra_service(system):
    """extra_service() -> hpdsys.ExtraService: a bus of its own, without
    polkitd, for a hugepagesd the test starts and stops (.start(args,
    prefix)); closed, and its instance killed, after the test."""
    made = []

    def make(name="extra"):
        e = ExtraService(system.tmp, name)
        made.append(e)
        return e
    yield make
    for e in made:
        e.close()
        dest = builddir() / "meson-logs" / "system-tests"
        try:
            dest.mkdir(parents=True, exist_ok=True)
            shutil.copy(e.log_path, dest / ("%s-hugepagesd.log" % e.dir.name))
        except OSError:
            pass


@pytest.fixture
def polkit_monitor(system):
    mon = PolkitMonitor(system.address)
    yield mon
    mon.close()
