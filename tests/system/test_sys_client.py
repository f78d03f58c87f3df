# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""hugepagesctl as an unprivileged user against the real polkitd.

The client runs without a terminal (stdin is /dev/null), so it must not wait
for a password: a user polkit does not allow fails at once."""

import time

from hpdsys import ALLOWED_USER, DENIED_USER, KB_2M, counters, stable_counters, tree_snapshot


def test_allowed_user_sets_the_minimum(system):
    before = stable_counters(KB_2M)
    result = system.ctl(ALLOWED_USER, "set-min", "2M", "+4")
    assert result.returncode == 0, result.stderr
    assert counters(KB_2M)["Minimum"] == before["Minimum"] + 4
    assert system.pool_props(KB_2M)["Minimum"] == before["Minimum"] + 4

    result = system.ctl(ALLOWED_USER, "set-min", "2M", str(before["Minimum"]))
    assert result.returncode == 0, result.stderr
    assert counters(KB_2M)["Minimum"] == before["Minimum"]


def test_denied_user_fails_without_waiting(system):
    before = tree_snapshot()
    c = counters(KB_2M)
    for args in (["--no-ask-password", "set-min", "2M", "+1"],
                 ["set-min", "2M", "+1"],
                 ["set-max", "2M", str(c["Maximum"] + 1)],
                 ["set-node", "0", "2M", "+1"]):
        started = time.monotonic()
        result = system.ctl(DENIED_USER, *args, timeout=60)
        elapsed = time.monotonic() - started
        assert result.returncode == 1, (args, result.returncode, result.stdout, result.stderr)
        assert result.stderr.strip(), "no error message for %s" % args
        assert elapsed < 10, "%s took %.1f s" % (args, elapsed)
    assert tree_snapshot() == before
    system.assert_service_alive()


def test_anyone_reads_status(system):
    result = system.ctl(DENIED_USER, "status")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()
