# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""D-Bus client for the system tests, run as an unprivileged user.

conftest.py runs this file's text with
  setpriv --reuid=U --regid=G --clear-groups /usr/bin/python3 -c <this file> <request json>
so it needs no access to the source tree. The bus address comes from
DBUS_SYSTEM_BUS_ADDRESS. It prints one JSON object on stdout:
  {"unique_name": ":1.N", "uid": U, "results": [...]}
with one result per request step, each {"value": [...]} or
{"error": "<D-Bus error name>", "message": "...", "seconds": t}.

Request steps (a JSON list):
  {"op": "call", "path": P, "interface": I, "method": M, "signature": S,
   "args": [...], "interactive": bool, "timeout_ms": N}
      a{sv} arguments are written as {"key": ["<type>", value]}.
  {"op": "get_all", "path": P, "interface": I}
  {"op": "request_name", "name": N}
  {"op": "flood", "iterations": N, "path": P, "method": M, "pages": X,
   "max_delay_ms": D, "seed": S}
      forks N children one after the other; each opens its own bus
      connection, sends PageSize.M(X, {}) without waiting for the reply and
      exits after a random 0..D ms. Reports how many messages went out.
"""

import json
import os
import random
import sys
import time

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

BUS_NAME = "org.hugepages.Manager"


def connect():
    address = os.environ["DBUS_SYSTEM_BUS_ADDRESS"]
    flags = (Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT
             | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION)
    return Gio.DBusConnection.new_for_address_sync(address, flags, None, None)


def to_variant_args(signature, args):
    """Turns JSON arguments into a GVariant tuple; a{sv} values are [type, value]."""
    converted = []
    for sig, arg in zip(split_signature(signature), args):
        if sig == "a{sv}":
            arg = {k: GLib.Variant(t, v) for k, (t, v) in arg.items()}
        converted.append(arg)
    return GLib.Variant("(" + signature + ")", tuple(converted))


def split_signature(signature):
    """Splits a D-Bus signature into its complete types."""
    out, i = [], 0
    while i < len(signature):
        j = i
        depth = 0
        while True:
            c = signature[j]
            if c in "({":
                depth += 1
            elif c in ")}":
                depth -= 1
            j += 1
            if depth == 0 and c != "a":
                break
        out.append(signature[i:j])
        i = j
    return out


def error_result(e, started):
    name = Gio.DBusError.get_remote_error(e) or "%s:%d" % (GLib.quark_to_string(e.domain), e.code)
    if Gio.DBusError.is_remote_error(e):
        Gio.DBusError.strip_remote_error(e)
    return {"error": name, "message": e.message, "seconds": time.monotonic() - started}


def do_call(conn, step):
    flags = Gio.DBusCallFlags.NONE
    if step.get("interactive"):
        flags |= Gio.DBusCallFlags.ALLOW_INTERACTIVE_AUTHORIZATION
    started = time.monotonic()
    try:
        reply = conn.call_sync(BUS_NAME, step["path"], step["interface"], step["method"],
                               to_variant_args(step.get("signature", ""), step.get("args", [])),
                               None, flags, step.get("timeout_ms", 60000), None)
    except GLib.Error as e:
        return error_result(e, started)
    return {"value": reply.unpack(), "seconds": time.monotonic() - started}


def do_get_all(conn, step):
    started = time.monotonic()
    try:
        reply = conn.call_sync(BUS_NAME, step["path"], "org.freedesktop.DBus.Properties", "GetAll",
                               GLib.Variant("(s)", (step["interface"],)), None,
                               Gio.DBusCallFlags.NONE, 30000, None)
    except GLib.Error as e:
        return error_result(e, started)
    return {"value": reply.unpack()[0], "seconds": time.monotonic() - started}


def do_request_name(conn, step):
    started = time.monotonic()
    try:
        reply = conn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus",
                               "org.freedesktop.DBus", "RequestName",
                               GLib.Variant("(su)", (step["name"], 4)), None,
                               Gio.DBusCallFlags.NONE, 30000, None)
    except GLib.Error as e:
        return error_result(e, started)
    return {"value": reply.unpack(), "seconds": time.monotonic() - started}


def do_flood(step):
    """Early disconnects: each child sends a call and vanishes 0..D ms later.

    The parent never opens a bus connection, so it has no GDBus worker
    thread when it forks."""
    rng = random.Random(step.get("seed", 0))
    sent = failed = 0
    started = time.monotonic()
    for _ in range(step["iterations"]):
        delay = rng.uniform(0, step["max_delay_ms"]) / 1000.0
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                conn = connect()
                msg = Gio.DBusMessage.new_method_call(BUS_NAME, step["path"],
                                                      "org.hugepages.Manager.PageSize",
                                                      step["method"])
                msg.set_body(GLib.Variant("(ta{sv})", (step["pages"], {})))
                conn.send_message(msg, Gio.DBusSendMessageFlags.NONE)
                conn.flush_sync(None)
                time.sleep(delay)
                code = 0
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
            sent += 1
        else:
            failed += 1
    return {"value": [sent, failed], "seconds": time.monotonic() - started}


def main():
    steps = json.loads(sys.argv[1])
    out = {"uid": os.getuid(), "unique_name": None, "results": []}
    conn = None
    for step in steps:
        if step["op"] == "flood":
            out["results"].append(do_flood(step))
            continue
        if conn is None:
            conn = connect()
            out["unique_name"] = conn.get_unique_name()
        op = {"call": do_call, "get_all": do_get_all, "request_name": do_request_name}[step["op"]]
        out["results"].append(op(conn, step))
    print(json.dumps(out))


main()
