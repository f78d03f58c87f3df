# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""security.md case 6 against the real polkitd: 1,000 callers, one after the
other, each sending SetMinimum as the denied user and vanishing 0-5 ms
later, while their authorization is being checked (about 25 s)."""

import os
import time

from hpdsys import (BUS_NAME, DENIED_USER, ERROR_PREFIX, KB_2M, POLKIT_NAME, counters,
                      page_size_path, pools_snapshot, tree_snapshot)

ITERATIONS = 1000


def fd_count(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def test_early_disconnect(system, rng, polkit_monitor):
    service_pid = system.service.pid
    polkit_pid = system.name_pid(POLKIT_NAME)
    system.assert_service_alive()
    fds_before = fd_count(service_pid)
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

    # The service still answers the denied user, correctly. Checks of
    # vanished callers may still be queued in polkitd (the service keeps at
    # most 64 in flight and says Busy beyond, by design): they drain, and
    # then the answer is the right one, each call in time.
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
    assert fd_count(service_pid) <= fds_before + 4, "the service leaks file descriptors"
    log = system.log("hugepagesd")[log_start:]
    assert "CRITICAL" not in log
    assert " set the " not in log, "a change was applied"
    vanished = log.count("NameHasNoOwner")
    print("%d early disconnects in %.1f s: %d reached polkitd, %d were gone before polkitd "
          "or the service looked them up; answering again %.1f s later"
          % (ITERATIONS, flood_seconds, checked, vanished, drained))
    assert checked >= ITERATIONS // 2
    assert system.name_owner(BUS_NAME)
