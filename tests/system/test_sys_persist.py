# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Persisted changes on the real kernel with the real polkitd: an allowed
user saves a pool change with `hugepagesctl --persist`, the pool is reset
behind the service's back (as by a reboot), Drift shows it, `hugepagesd
--apply` brings it back, and Drift is empty again; a denied user saves
nothing. /etc/hugepagesd is a private temporary directory (etc_config); the
pools guard puts the pools back."""

import os
import subprocess

from hpdsys import (DRIFT_KEYS, rows, ALLOWED_USER, DENIED_USER, KB_2M, MANAGER_IFACE, MANAGER_PATH, builddir,
                    pool_dir, stable_counters, write_counter)

OWN = "hugepagesd.conf.d/90-persisted.conf"


def saved(etc):
    path = os.path.join(etc, OWN)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return f.read().split("\n\n", 1)[1]


def drift(system):
    return {key: (configured, actual)
            for key, configured, actual, _m in rows(system.get(MANAGER_PATH, MANAGER_IFACE, "Drift"),
                                                    DRIFT_KEYS)}


def test_persisted_pool_survives_a_reset_through_apply(system, etc_config):
    minimum = stable_counters(KB_2M)["Minimum"]
    want = minimum + 2
    result = system.ctl(ALLOWED_USER, "set-min", "2M", str(want), "--persist")
    assert result.returncode == 0, result.stderr
    assert saved(etc_config) == f"[pool 2MB]\nminimum = {want}\n"
    assert drift(system) == {}

    # as after a reboot
    write_counter(pool_dir(KB_2M) / "nr_hugepages", minimum)
    assert drift(system)["pool 2MB minimum"] == (str(want), str(minimum))
    proc = subprocess.run([str(builddir() / "src" / "hugepagesd"), "--apply"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert stable_counters(KB_2M)["Minimum"] == want
    assert drift(system) == {}


def test_denied_user_saves_nothing(system, etc_config):
    before = stable_counters(KB_2M)
    result = system.ctl(DENIED_USER, "set-min", "2M", str(before["Minimum"] + 1), "--persist")
    assert result.returncode == 1
    assert saved(etc_config) is None
    assert stable_counters(KB_2M)["Minimum"] == before["Minimum"]
