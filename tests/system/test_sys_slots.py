# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Shared slots per user, against the real polkitd (issue 17, point 2).

The denied user registers a polkit authentication agent for its own
process that never answers BeginAuthentication, then sends interactive
SetMinimum calls over several connections: polkitd hands each check to
that agent, and the check waits (up to the service's 300 s for interactive
checks). Before per-uid slots, 64 such checks took every place and every
other caller, root included, got Busy."""

import json
import signal
import subprocess
import time

from hpdsys import (ALLOWED_USER, DENIED_USER, ERROR_PREFIX, KB_2M, PYTHON, PipeLines, counters,
                    flood_script, page_size_path, stable_counters)

BUSY = ERROR_PREFIX + "Busy"

# Run as the denied user: argv[1] connections, argv[2] calls on each.
HANGING_AGENT_FLOOD = flood_script(r'''
import json, os, sys, time
from gi.repository import Gio, GLib

AGENT_XML = """<node><interface name="org.freedesktop.PolicyKit1.AuthenticationAgent">
  <method name="BeginAuthentication"><arg type="s" direction="in"/><arg type="s" direction="in"/>
    <arg type="s" direction="in"/><arg type="a{ss}" direction="in"/><arg type="s" direction="in"/>
    <arg type="a(sa{sv})" direction="in"/></method>
  <method name="CancelAuthentication"><arg type="s" direction="in"/></method>
</interface></node>"""
conns, per, path, pages = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
address = os.environ["DBUS_SYSTEM_BUS_ADDRESS"]
flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
agent_conn = Gio.DBusConnection.new_for_address_sync(address, flags, None, None)
held = []           # BeginAuthentication calls, never answered
cancelled = [0]

def agent_call(conn, sender, path, iface, method, params, invocation):
    if method == "BeginAuthentication":
        held.append(invocation)
    else:
        cancelled[0] += 1
        invocation.return_value(None)

node = Gio.DBusNodeInfo.new_for_xml(AGENT_XML)
agent_conn.register_object("/hpd/test/agent", node.interfaces[0], agent_call, None, None)
with open("/proc/self/stat") as f:
    start_time = int(f.read().rsplit(")", 1)[1].split()[19])
subject = ("unix-process", {"pid": GLib.Variant("u", os.getpid()),
                            "start-time": GLib.Variant("t", start_time),
                            "uid": GLib.Variant("i", os.getuid())})
agent_conn.call_sync("org.freedesktop.PolicyKit1", "/org/freedesktop/PolicyKit1/Authority",
                     "org.freedesktop.PolicyKit1.Authority", "RegisterAuthenticationAgent",
                     GLib.Variant("((sa{sv})ss)", (subject, "C", "/hpd/test/agent")),
                     None, Gio.DBusCallFlags.NONE, 10000, None)

outcomes = {}
def done(c, res, _):
    count_reply(outcomes, c, res)

def send(opened):
    for c in opened:
        for j in range(per):
            c.call("org.hugepages.Manager", path, "org.hugepages.Manager.PageSize", "SetMinimum",
                   GLib.Variant("(ta{sv})", (pages, {})), None,
                   Gio.DBusCallFlags.ALLOW_INTERACTIVE_AUTHORIZATION, 600000, None, done, None)
    return len(opened) * per

# SIGUSR1: the calling connections leave the bus (the agent stays);
# SIGUSR2: a new one sends as many calls again
def leave():
    global opened
    for c in opened:
        c.close_sync(None)
    outcomes.clear()
    opened = []
    return True

def again():
    global opened, sent
    opened = [Gio.DBusConnection.new_for_address_sync(address, flags, None, None)]
    sent = send(opened)
    return True

import signal
GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, leave)
GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR2, again)
opened = [Gio.DBusConnection.new_for_address_sync(address, flags, None, None) for _ in range(conns)]
sent = send(opened)
ctx = GLib.MainContext.default()
last = None
while True:
    ctx.iteration(False) or time.sleep(0.02)
    state = {"sent": sent, "answered": dict((k, v) for k, v in outcomes.items()
                                            if "closed" not in k and "Closed" not in k),
             "agent_asked": len(held),
             "agent_cancelled": cancelled[0]}
    if state != last:
        print(json.dumps(state), flush=True)
        last = state
''')


class Flood:
    def __init__(self, system, conns, per, pages):
        pw = system.users[DENIED_USER]
        self.proc = subprocess.Popen(
            ["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid, "--clear-groups",
             "--pdeathsig", "KILL", PYTHON, "-c", HANGING_AGENT_FLOOD, str(conns), str(per),
             page_size_path(KB_2M), str(pages)],
            stdout=subprocess.PIPE, env=system.env(), cwd="/")
        self.lines = PipeLines(self.proc)
        self.state = None

    def wait_for(self, predicate, timeout=60):
        """The flood prints its state whenever it changes."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.next(deadline)
            except EOFError:
                raise AssertionError("the flood ended")
            if line is None:
                raise AssertionError("the flood never reached the state; last %s" % self.state)
            self.state = json.loads(line)
            if predicate(self.state):
                return self.state

    def settle(self, seconds=2):
        """The state once nothing has changed for @seconds."""
        try:
            while True:
                self.wait_for(lambda s: True, timeout=seconds)
        except AssertionError:
            return self.state

    def kill(self):
        self.proc.kill()
        self.proc.wait()


def test_a_user_with_a_hanging_agent_leaves_others_their_changes(system):
    before = stable_counters(KB_2M)
    log_start = len(system.log("hugepagesd"))
    # 5 connections x 16: before per-uid slots, 64 of them took every place
    flood = Flood(system, 5, 16, before["Minimum"] + 7)
    try:
        started = time.monotonic()
        held = flood.wait_for(lambda s: s["answered"].get(BUSY, 0) >= 64 and s["agent_asked"] > 0,
                              timeout=120)
        held = flood.settle()   # nothing more is answered: the rest wait on the agent
        print("flood: %s after %.1f s" % (held, time.monotonic() - started))
        # the denied user holds its share (16), each check waiting for polkitd,
        # which waits on the agent; the rest are Busy
        assert held["answered"] == {BUSY: 64}, held

        # an allowed admin completes 5 changes of 5, root one more
        times = []
        for i in range(5):
            target = before["Minimum"] + 1 + i % 2
            t = time.monotonic()
            result = system.user_call(ALLOWED_USER, KB_2M, "SetMinimum", target)
            times.append(time.monotonic() - t)
            assert result.get("value") == [target], (i, result)
        t = time.monotonic()
        assert system.pool_call(KB_2M, "SetMinimum", before["Minimum"]) == before["Minimum"]
        times.append(time.monotonic() - t)
        print("admin's 5 changes and root's 1 while the flood is held: %s s"
              % ", ".join("%.2f" % x for x in times))
        assert max(times) < 5
        assert counters(KB_2M)["Minimum"] == before["Minimum"]

        # the callers leave the bus (their agent stays): the service asks
        # polkitd to cancel their checks, and each keeps its place until
        # polkitd's answer (the bus counts the check against the service
        # until then), or for 10 s at most; then the same user's next 16
        # changes get places again, not Busy
        t = time.monotonic()
        flood.proc.send_signal(signal.SIGUSR1)

        def freed():
            log = system.log("hugepagesd")[log_start:]
            return (log.count("given up before"),
                    log.count("after it was cancelled: its slot is free"))
        deadline = time.monotonic() + 30
        while sum(freed()) < 16 and time.monotonic() < deadline:
            time.sleep(0.05)
        answered, unanswered = freed()
        if answered + unanswered < 16:
            print(system.log("hugepagesd")[log_start:][-8000:])
        assert answered + unanswered >= 16, (answered, unanswered)
        seconds = time.monotonic() - t
        flood.proc.send_signal(signal.SIGUSR2)
        again = flood.wait_for(lambda s: s["agent_asked"] >= 32, timeout=30)
        print("the places were free %.2f s after the callers left (%d answered by polkitd "
              "after the cancel, %d not within 10 s); then %s"
              % (seconds, answered, unanswered, again))
        assert flood.settle()["answered"] == {}, flood.state
        assert "left the bus: dropping its" in system.log("hugepagesd")[log_start:]
    finally:
        flood.kill()
    assert counters(KB_2M)["Minimum"] == before["Minimum"]
    system.assert_service_alive()
