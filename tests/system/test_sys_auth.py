# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Authorization against the real polkitd, with clients as unprivileged users."""

import os
import time

from hpdsys import (ALLOWED_USER, DENIED_USER, ERROR_PREFIX, KB_1G, KB_2M, BUS_NAME,
                      counters, has_pool, page_size_path, pool_dir, read_counter,
                      tree_snapshot, stable_counters)

import pytest

NOT_AUTHORIZED = ERROR_PREFIX + "NotAuthorized"


def test_allowed_user_resizes_2m_pool(system):
    before = stable_counters(KB_2M)
    target = before["Minimum"] + 4

    result = system.user_call(ALLOWED_USER, KB_2M, "SetMinimum", target)
    assert "error" not in result, result
    achieved = result["value"][0]

    # the reply is what the kernel holds now
    after = counters(KB_2M)
    assert achieved == target, "24 GiB and 4 x 2 MiB: the kernel should not fall short"
    assert achieved == after["Minimum"]
    assert read_counter(pool_dir(KB_2M) / "nr_hugepages") == after["Total"]
    props = system.pool_props(KB_2M)
    assert props["Minimum"] == after["Minimum"] == achieved
    assert props["Total"] == after["Total"]
    # hugeadm's pool-pages-min: the Maximum is kept, raised to the new minimum
    assert props["Maximum"] == max(before["Maximum"], target)
    assert after["Maximum"] == props["Maximum"]

    # and back, through the service
    result = system.user_call(ALLOWED_USER, KB_2M, "SetMinimum", before["Minimum"])
    assert result.get("value") == [before["Minimum"]], result
    assert counters(KB_2M)["Minimum"] == before["Minimum"]


def _mutating_calls(node):
    calls = [
        (KB_2M, "SetMinimum", lambda c: (c["Minimum"] + 1,)),
        (KB_2M, "SetMaximum", lambda c: (c["Maximum"] + 1,)),
        (KB_2M, "SetNodePages", lambda c: (node, c["Nodes"][0][4] + 1)),
    ]
    if has_pool(KB_1G):
        calls += [
            (KB_1G, "SetMinimum", lambda c: (c["Minimum"] + 1,)),
            (KB_1G, "SetNodePages", lambda c: (node, c["Nodes"][0][4] + 1)),
            (KB_1G, "Demote", lambda c: (1,)),
        ]
    return calls


@pytest.mark.parametrize("interactive", [False, True], ids=["plain", "interactive"])
def test_denied_user_changes_nothing(system, interactive):
    node = counters(KB_2M)["Nodes"][0][0]
    assert node == 0, "the brief says node 0; this kernel's first node is %d" % node
    before = tree_snapshot()

    for kb, method, args in _mutating_calls(node):
        started = time.monotonic()
        result = system.user_call(DENIED_USER, kb, method, *args(counters(kb)),
                                  interactive=interactive)
        elapsed = time.monotonic() - started
        assert result.get("error") == NOT_AUTHORIZED, (kb, method, result)
        # no agent: polkit answers with a challenge at once, the service does
        # not wait for anybody to type a password
        assert elapsed < 10, "%s took %.1f s" % (method, elapsed)
        if not interactive:
            # polkit returned a challenge (auth_admin), not a plain no
            assert "did not allow interactive authorization" in result["message"], result

    assert tree_snapshot() == before
    system.assert_service_alive()


def test_denied_user_may_still_read(system):
    out = system.as_user(DENIED_USER, [{"op": "get_all", "path": page_size_path(KB_2M),
                                        "interface": "org.hugepages.Manager.PageSize"}])
    props = out["results"][0]["value"]
    assert props["Total"] == counters(KB_2M)["Total"]


def test_dry_run_needs_no_authorization(system):
    before = tree_snapshot()
    c = counters(KB_2M)
    result = system.as_user(DENIED_USER, [{
        "op": "call", "path": page_size_path(KB_2M), "interface": "org.hugepages.Manager.PageSize",
        "method": "SetMinimum", "signature": "ta{sv}",
        "args": [c["Minimum"] + 3, {"dry-run": ["b", True]}]}])["results"][0]
    assert result.get("value") == [c["Minimum"] + 3], result
    assert tree_snapshot() == before


def test_root_is_allowed_without_rules(system):
    before = stable_counters(KB_2M)
    achieved = system.pool_call(KB_2M, "SetMinimum", before["Minimum"] + 1)
    assert achieved == before["Minimum"] + 1 == counters(KB_2M)["Minimum"]
    assert "uid 0 (pid %d) set the 2MB minimum" % os.getpid() in system.log("hugepagesd")


def _checks_by_service(system, monitor):
    return system.service_calls(monitor)


@pytest.mark.parametrize("interactive", [False, True], ids=["plain", "interactive"])
def test_polkit_subject_is_the_bus_name(system, polkit_monitor, interactive):
    """security.md cases 3 and 9 against the real polkitd: the service asks
    about the caller's unique bus name, asks for interaction only when the
    message allows it, and denies when polkitd answers with a challenge."""
    c = counters(KB_2M)
    out = system.as_user(DENIED_USER, [{
        "op": "call", "path": page_size_path(KB_2M), "interface": "org.hugepages.Manager.PageSize",
        "method": "SetMinimum", "signature": "ta{sv}", "args": [c["Minimum"] + 1, {}],
        "interactive": interactive}])
    assert out["results"][0].get("error") == NOT_AUTHORIZED

    checks = _checks_by_service(system, polkit_monitor)
    assert len(checks) == 1, polkit_monitor.calls
    (kind, details), action, polkit_details, flags, _cancel = checks[0]["body"]
    assert kind == "system-bus-name"
    assert details == {"name": out["unique_name"]}
    assert action == "org.hugepages.manager.configure-pools"
    assert polkit_details["pages"] == str(c["Minimum"] + 1)
    assert polkit_details["page-size"] == str(2 << 20)
    assert flags == (1 if interactive else 0)
    # auth_admin and no agent: not authorized, but a challenge
    (is_authorized, is_challenge, _), = polkit_monitor.reply_to(checks[0])
    assert (is_authorized, is_challenge) == (False, True)


@pytest.mark.parametrize("who", ["allowed-user", "root"])
def test_polkit_says_yes(system, polkit_monitor, who):
    """The YES that made a change really came from polkitd (rules for the
    allowed user, uid 0 for root)."""
    c = stable_counters(KB_2M)
    if who == "root":
        assert system.pool_call(KB_2M, "SetMinimum", c["Minimum"] + 1) == c["Minimum"] + 1
        subject = system.bus.get_unique_name()
    else:
        out = system.as_user(ALLOWED_USER, [{
            "op": "call", "path": page_size_path(KB_2M), "interface": "org.hugepages.Manager.PageSize",
            "method": "SetMinimum", "signature": "ta{sv}", "args": [c["Minimum"] + 1, {}]}])
        assert out["results"][0].get("value") == [c["Minimum"] + 1], out
        subject = out["unique_name"]
    checks = _checks_by_service(system, polkit_monitor)
    assert len(checks) == 1, polkit_monitor.calls
    assert checks[0]["body"][0] == ("system-bus-name", {"name": subject})
    (is_authorized, is_challenge, _), = polkit_monitor.reply_to(checks[0])
    assert (is_authorized, is_challenge) == (True, False)


def test_only_root_may_own_the_name(system):
    """security.md case 10: the bus, with the project's policy, refuses."""
    for user in (ALLOWED_USER, DENIED_USER):
        out = system.as_user(user, [{"op": "request_name", "name": BUS_NAME},
                                    {"op": "request_name", "name": "org.hugepages.Other"}])
        for result in out["results"]:
            assert result.get("error") == "org.freedesktop.DBus.Error.AccessDenied", result
    system.assert_service_alive()
