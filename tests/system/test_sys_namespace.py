# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""security.md case 40 on the real kernel: a service started in a mount
namespace of its own (what ProtectSystem=, PrivateTmp= and friends do to a
unit) finds out at startup and refuses to make mounts nobody else would see.

This whole tier runs inside `unshare -m`, so every hugepagesd here is in a
namespace other than PID 1's. The session's instance is started with
--allow-private-mount-namespace (its mounts are meant to stay in the
test's namespace); the instance below is not, and is started under one more
`unshare -m`, exactly like a misconfigured unit.
"""

import os
import signal

from hpdsys import (EXPLAIN_KEYS, rows, ERROR_PREFIX, KB_2M, MANAGER_IFACE, MANAGER_PATH, MOUNT_BASE, PAGE_SIZE_IFACE,
                    MountArea, page_size_path, path_tree)

NOT_SUPPORTED = ERROR_PREFIX + "NotSupported"
REFUSAL = ("hugepagesd runs in a private mount namespace (a unit with ProtectSystem=, "
           "PrivateTmp=, ReadWritePaths=...?): its mounts would be invisible to the rest "
           "of the system")


def hugetlbfs_lines(pid):
    with open("/proc/%d/mountinfo" % pid) as f:
        return [line for line in f if " - hugetlbfs " in line]


def explain_entry(call, id_):
    result = call(MANAGER_PATH, MANAGER_IFACE, "Explain", "a{sv}", ({},), "(aa{sv})")
    found = [e for e in rows(result["value"][0], EXPLAIN_KEYS) if e[1] == id_]
    return found[0] if found else None


def test_service_in_a_private_namespace_refuses_mounts(system, extra_service):
    area = MountArea()
    tree_before = path_tree(MOUNT_BASE)
    extra = extra_service("private-ns")
    proc = extra.start(prefix=["unshare", "-m", "--propagation", "private"])
    try:
        # it really runs in a namespace of its own, neither ours nor PID 1's
        assert os.readlink("/proc/%d/ns/mnt" % proc.pid) != os.readlink("/proc/self/ns/mnt")
        its_mounts = hugetlbfs_lines(proc.pid)

        # root may change anything on this bus (no polkitd): only the check refuses
        calls = [
            (MANAGER_PATH, MANAGER_IFACE, "CreateMounts", "ssa{sv}", ("global", "", {}), "(as)"),
            (page_size_path(KB_2M), PAGE_SIZE_IFACE, "CreateMount", "ssa{sv}", ("system", "", {}),
             "(s)"),
            (MANAGER_PATH, MANAGER_IFACE, "Unmount", "sa{sv}",
             ("%s/pagesize-2MB" % MOUNT_BASE, {}), None),
        ]
        for path, iface, method, sig, args, reply in calls:
            result = extra.call(path, iface, method, sig, args, reply)
            assert result.get("error") == NOT_SUPPORTED, (method, result)
            assert result["message"].startswith(REFUSAL), result["message"]
            assert "for PID 1" in result["message"]

        severity, _id, message, fix = explain_entry(extra.call, "private-mount-namespace")
        assert severity == "error" and message.startswith(REFUSAL), message
        # the fix fits the machine: a unit to edit under systemd, else a
        # start in PID 1's namespace
        if os.path.isdir("/run/systemd/system"):
            assert fix.startswith("systemctl edit hugepagesd.service") and "ProtectSystem=" in fix
        else:
            assert fix.startswith("nsenter --mount=/proc/1/ns/mnt ") and "systemctl" not in fix
        assert REFUSAL in extra.log() and "hugetlbfs mounts are refused" in extra.log()

        # nothing was made: not in our namespace, not in its own, not on disk
        assert area.new_mounts() == []
        assert hugetlbfs_lines(proc.pid) == its_mounts
        assert path_tree(MOUNT_BASE) == tree_before

        # and otherwise it serves as usual
        size = extra.get(page_size_path(KB_2M), PAGE_SIZE_IFACE, "Size")
        assert size == KB_2M * 1024
    finally:
        status = extra.signal(signal.SIGTERM)
    assert status == 0, extra.log()


def test_session_service_runs_with_the_namespace_acknowledged(system):
    """The session's instance sees the same namespace difference, and says
    in Explain (as info) that its mounts stay in this namespace."""
    entries = system.call(MANAGER_PATH, MANAGER_IFACE, "Explain", "a{sv}", ({},))[0]
    found = [e for e in rows(entries, EXPLAIN_KEYS) if e[1] == "private-mount-namespace"]
    assert len(found) == 1, entries
    severity, _id, message, fix = found[0]
    assert (severity, fix) == ("info", "")
    assert "its mounts are seen only there" in message
    assert ("Mounts are made in this mount namespace only, as --allow-private-mount-namespace asks"
            in system.log("hugepagesd"))
