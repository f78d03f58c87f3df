# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""security.md case 6 against the real polkitd: 1,000 callers, one after the
other, each sending SetMinimum as the denied user and vanishing 0-5 ms
later, while their authorization is being checked (about 25 s). Then root,
while polkitd still works through the checks of the callers that left."""

import re
import time

import pytest

from hpdsys import (BUS_NAME, DENIED_USER, ERROR_PREFIX, KB_2M, MANAGER_IFACE, MANAGER_PATH,
                    POLKIT_NAME, POLKITD_RULES_TIMEOUT_S, counters, late_polkit_answers,
                    open_files, page_size_path, polkitd_stalls, pool_sizes_kb, pools_snapshot,
                    tree_snapshot)

ITERATIONS = 1000


def test_early_disconnect(system, rng, polkit_monitor):
    service_pid = system.service.pid
    polkit_pid = system.name_pid(POLKIT_NAME)
    system.assert_service_alive()
    # every property read once: the kernel files the service keeps open
    # for its reads are open before the count
    system.get_all(MANAGER_PATH, MANAGER_IFACE)
    for kb in pool_sizes_kb():
        system.pool_props(kb)
    system.call(MANAGER_PATH, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects")
    fds_before = len(open_files(service_pid))
    pools_before = pools_snapshot()
    files_before = tree_snapshot()
    target = counters(KB_2M)["Minimum"] + 1
    log_start = len(system.log("hugepagesd"))

    started = time.monotonic()
    out = system.as_user(DENIED_USER, [{
        "op": "flood", "iterations": ITERATIONS, "path": page_size_path(KB_2M),
        "method": "SetMinimum", "pages": target, "max_delay_ms": 5,
        "seed": rng.randrange(1 << 30)}], timeout=600)
    sent, failed = out["results"][0]["value"]
    flood_seconds = time.monotonic() - started
    assert failed == 0 and sent == ITERATIONS, out
    # most calls must have reached polkit, or the race was not exercised
    checked = len(polkit_monitor.calls)

    # Root is not locked out while polkitd works through the checks of the
    # callers that left: they hold the denied user's own places only, each
    # until polkitd's answer, so the service never has more calls pending
    # at the bus than it allows, and root's change is checked and made.
    maximum = counters(KB_2M)["Maximum"]
    root_started = time.monotonic()
    assert system.pool_call(KB_2M, "SetMaximum", maximum + 1) == maximum + 1
    assert system.pool_call(KB_2M, "SetMaximum", maximum) == maximum
    root_seconds = time.monotonic() - root_started
    assert pools_snapshot() == pools_before

    # The service still answers the denied user, correctly. Its checks of
    # vanished callers may still be waiting for polkitd's answers (they keep
    # their places until then, and the user gets Busy beyond its share, by
    # design): they drain, and then the answer is the right one, each call
    # in time.
    deadline = time.monotonic() + 60
    while True:
        result = system.user_call(DENIED_USER, KB_2M, "SetMinimum", target)
        assert result["seconds"] < 10, result
        if result.get("error") != ERROR_PREFIX + "Busy" or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    drained = time.monotonic() - started - flood_seconds
    assert result.get("error") == ERROR_PREFIX + "NotAuthorized", result

    # nothing was applied, now or a moment later
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        assert pools_snapshot() == pools_before
        time.sleep(0.1)
    assert tree_snapshot() == files_before

    # same process, still serving; polkitd too
    system.assert_service_alive()
    assert system.service.pid == service_pid
    assert system.name_pid(POLKIT_NAME) == polkit_pid
    assert len(open_files(service_pid)) <= fds_before + 4, "the service leaks file descriptors"
    log = system.log("hugepagesd")[log_start:]
    assert "CRITICAL" not in log
    denied_uid = system.users[DENIED_USER].pw_uid
    assert not re.search(r"uid %d \(pid \d+\) set the " % denied_uid, log), "a change was applied"
    # the bus never refused a check: the service stayed within its limit
    assert "LimitsExceeded" not in log
    assert system.name_owner(BUS_NAME)
    vanished = log.count("NameHasNoOwner")
    answers = polkit_monitor.answer_seconds()
    late = late_polkit_answers(log, denied_uid) + late_polkit_answers(log, 0)
    stalls = polkitd_stalls(answers)
    print("%d early disconnects in %.1f s: %d reached polkitd, %d were gone before polkitd "
          "or the service looked them up; root's two changes took %.1f s; answering the user "
          "again %.1f s later; polkitd answered %d checks, in %s s (median, slowest), %d of them "
          "0.25 s or more after the service asked, %.1f s in all; %d waited out polkitd's "
          "%.0f s rules timeout"
          % (ITERATIONS, flood_seconds, checked, vanished, root_seconds, drained, len(answers),
             "%.3f, %.3f" % (answers[len(answers) // 2], answers[-1]) if answers else "-",
             len(late), sum(late), len(stalls), POLKITD_RULES_TIMEOUT_S))
    # A polkitd that answers slowly holds the user's places longer, and the
    # flood's later calls are then answered Busy without reaching it. When
    # that came from polkitd 122's lost signal (hpdsys.POLKITD_RULES_TIMEOUT_S),
    # the service's part was checked above and only the race went unexercised.
    if checked < ITERATIONS // 2 and stalls:
        pytest.skip("the race was exercised by only %d of %d calls: polkitd held its checks "
                    "for its whole %.0f s rules timeout %d time(s), polkit 122's lost signal, "
                    "fixed upstream by 5615ed0 (polkit 123)"
                    % (checked, ITERATIONS, POLKITD_RULES_TIMEOUT_S, len(stalls)))
    assert checked >= ITERATIONS // 2, "polkitd's log:\n" + system.log("polkitd")[-3000:]
