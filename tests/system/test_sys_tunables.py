# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""The tunables on the real kernel, through the service as the allowed
user: each one is changed, read back from its file and from the property,
then put back exactly as it was (the guard below restores every file after
each test, pass or fail, and once more at exit; min_free_kbytes last, as the
kernel raises it by itself when THP is switched on)."""

import atexit
import grp
import os
import re
import subprocess
from pathlib import Path

import pytest

from hpdsys import (EXPLAIN_KEYS, rows, ALLOWED_USER, DENIED_USER, ERROR_PREFIX, MANAGER_IFACE, MANAGER_PATH, MIN_FREE,
                    SHM_GROUP, SHMALL, SHMMAX, SYSCTL, THP, meminfo_kb)

NOT_AUTHORIZED = ERROR_PREFIX + "NotAuthorized"
NOT_SUPPORTED = ERROR_PREFIX + "NotSupported"
INVALID_ARGS = ERROR_PREFIX + "InvalidArgs"
TEST_GROUP = "hpd-test-shm"

ZONE_MOVABLE_FILES = [SYSCTL / "vm/hugepages_treat_as_movable",
                      SYSCTL / "vm/movable_gigantic_pages"]
NUMERIC_THP = ["khugepaged/pages_to_scan", "khugepaged/scan_sleep_millisecs",
               "khugepaged/alloc_sleep_millisecs"]
MTHP = "hugepages-64kB"
ID = re.compile(r"^[a-z]+(-[a-z]+)*(-[0-9]+(KB|MB|GB))?$")


# --------------------------------------------------------------------------
# The kernel's files, read and written directly

def read_int(path):
    return int(Path(path).read_text().strip())


def write_text(path, text):
    """One write, as the service does; raises OSError."""
    data = (text + "\n").encode()
    fd = os.open(str(path), os.O_WRONLY)
    try:
        if os.write(fd, data) != len(data):
            raise OSError("short write to %s" % path)
    finally:
        os.close(fd)


def choice(path):
    """(current, [choices]) of a THP choice file."""
    words = Path(path).read_text().split()
    current = [w[1:-1] for w in words if w.startswith("[") and w.endswith("]")]
    assert len(current) == 1, "%s: %r" % (path, words)
    return current[0], [w.strip("[]") for w in words]


def thp_choice_files():
    names = ["enabled", "defrag", "shmem_enabled"]
    if THP.is_dir():
        for d in sorted(THP.iterdir()):
            if re.fullmatch(r"hugepages-[0-9]+kB", d.name) and d.is_dir():
                names += ["%s/enabled" % d.name, "%s/shmem_enabled" % d.name]
    return [n for n in names if (THP / n).is_file()]


def snapshot():
    """Every file the tests may change: {path: text to write back}."""
    snap = {}
    for path in (SHMMAX, SHMALL, SHM_GROUP):
        snap[path] = Path(path).read_text().strip()
    for name in thp_choice_files():
        snap[THP / name] = choice(THP / name)[0]
    for name in NUMERIC_THP:
        if (THP / name).exists():
            snap[THP / name] = (THP / name).read_text().strip()
    snap[MIN_FREE] = MIN_FREE.read_text().strip()      # last: THP changes move it
    return snap


def restore(snap):
    """Writes back whatever differs; returns what could not be put back."""
    problems = []
    for path, value in snap.items():
        try:
            now = choice(path)[0] if str(path).startswith(str(THP)) and \
                not str(path).endswith(tuple(NUMERIC_THP)) else Path(path).read_text().strip()
            if now != value:
                write_text(path, value)
            now = choice(path)[0] if str(path).startswith(str(THP)) and \
                not str(path).endswith(tuple(NUMERIC_THP)) else Path(path).read_text().strip()
            if now != value:
                problems.append("%s is %s, wanted %s" % (path, now, value))
        except OSError as e:
            problems.append("%s: %s" % (path, e))
    return problems


_session_snapshot = {}


def _restore_at_exit():
    if _session_snapshot:
        problems = restore(_session_snapshot)
        if problems:
            print("test_sys_tunables: could not restore: %s" % problems)


atexit.register(_restore_at_exit)


@pytest.fixture(autouse=True)
def tunables_guard(system):
    snap = snapshot()
    if not _session_snapshot:
        _session_snapshot.update(snap)
    yield snap
    problems = restore(snap)
    assert not problems, "could not restore the tunables: %s" % problems


# --------------------------------------------------------------------------
# Calls through the service

def call(system, method, signature, *args, user=ALLOWED_USER):
    """A Manager method as @user: {"value": [...]} or {"error": name}."""
    step = {"op": "call", "path": MANAGER_PATH, "interface": MANAGER_IFACE, "method": method,
            "signature": signature, "args": list(args), "timeout_ms": 60000}
    return system.as_user(user, [step])["results"][0]


def ok(result):
    assert "error" not in result, result
    return result["value"]


def prop(system, name):
    return system.get(MANAGER_PATH, MANAGER_IFACE, name)


def set_thp(system, settings, user=ALLOWED_USER, **opts):
    """settings: {name: str or int}; ints go as u."""
    typed = {k: ["u", v] if isinstance(v, int) else ["s", v] for k, v in settings.items()}
    return call(system, "SetThp", "a{sv}a{sv}", typed,
                {k.replace("_", "-"): ["b", v] for k, v in opts.items()}, user=user)


def dry(**opts):
    return {k.replace("_", "-"): ["b", v] for k, v in opts.items()}


# --------------------------------------------------------------------------
# The recommendation, worked out here from the kernel's files

def populated_zones():
    count, zone = 0, None
    for line in (Path("/proc/zoneinfo")).read_text().splitlines():
        if line.startswith("Node "):
            zone = line.split("zone", 1)[1].strip()
            continue
        words = line.split()
        if zone in ("DMA", "DMA32", "Normal") and len(words) == 2 and words[0] == "managed":
            count += int(words[1]) > 0
            zone = None
    return count


def pageblock_kb():
    for line in (Path("/proc/pagetypeinfo")).read_text().splitlines():
        if line.startswith("Pages per block:"):
            return int(line.split(":")[1]) * os.sysconf("SC_PAGE_SIZE") // 1024
    return read_int(THP / "hpage_pmd_size") // 1024


def recommended_min_free_kbytes():
    return min(11 * pageblock_kb() * populated_zones(), meminfo_kb("MemTotal") // 20)


# --------------------------------------------------------------------------

def test_properties_match_the_kernel(system):
    props = system.get_all(MANAGER_PATH, MANAGER_IFACE)
    assert props["ShmMax"] == read_int(SHMMAX)
    assert props["ShmAllPages"] == read_int(SHMALL)
    assert props["ShmGroup"] == read_int(SHM_GROUP)
    assert props["MinFreeKbytes"] == read_int(MIN_FREE)
    assert props["RecommendedMinFreeKbytes"] == recommended_min_free_kbytes()
    assert props["ZoneMovableSupported"] == any(f.exists() for f in ZONE_MOVABLE_FILES)
    assert props["KhugepagedPagesToScan"] == read_int(THP / "khugepaged/pages_to_scan")
    assert props["KhugepagedScanSleepMillisecs"] == read_int(THP / "khugepaged/scan_sleep_millisecs")
    assert props["KhugepagedAllocSleepMillisecs"] == read_int(THP / "khugepaged/alloc_sleep_millisecs")
    expected = {name: choice(THP / name) for name in thp_choice_files()}
    assert {k: (cur, list(ch)) for k, (cur, ch) in props["ThpSettings"].items()} == \
        {k: (cur, ch) for k, (cur, ch) in expected.items()}
    # the per-size controls this kernel has, 8 kB with shmem_enabled only
    if (THP / "hugepages-8kB").is_dir():
        assert "hugepages-8kB/enabled" not in props["ThpSettings"]
        assert "hugepages-8kB/shmem_enabled" in props["ThpSettings"]
    assert props["RecommendedShmAllPages"] == -(-props["RecommendedShmMax"] // os.sysconf("SC_PAGE_SIZE"))


def test_shmmax(system, tunables_guard):
    original = read_int(SHMMAX)
    value = 64 << 30 if original != 64 << 30 else 32 << 30
    # the reply is the value the kernel holds afterwards
    assert ok(call(system, "SetShmMax", "ta{sv}", value, {})) == [value]
    assert read_int(SHMMAX) == value
    assert prop(system, "ShmMax") == value
    # shmall is kept when it is large enough
    assert read_int(SHMALL) == int(tunables_guard[SHMALL])


def test_shmall_raised_with_shmmax(system):
    write_text(SHMALL, str(1 << 20))                # 4 GiB of base pages
    value = (8 << 30) + 1                           # not a whole number of pages
    ok(call(system, "SetShmMax", "ta{sv}", value, {}))
    assert read_int(SHMMAX) == value
    assert read_int(SHMALL) == (8 << 30) // os.sysconf("SC_PAGE_SIZE") + 1
    assert prop(system, "ShmAllPages") == read_int(SHMALL)
    # lowering shmmax keeps shmall
    ok(call(system, "SetShmMax", "ta{sv}", 1 << 30, {}))
    assert read_int(SHMMAX) == 1 << 30
    assert read_int(SHMALL) == (8 << 30) // os.sysconf("SC_PAGE_SIZE") + 1


def test_shmmax_dry_run_and_denied_user(system, tunables_guard):
    before = snapshot()
    assert ok(call(system, "SetShmMax", "ta{sv}", 1 << 30, dry(dry_run=True), user=DENIED_USER)) == [1 << 30]
    result = call(system, "SetShmMax", "ta{sv}", 1 << 30, {}, user=DENIED_USER)
    assert result.get("error") == NOT_AUTHORIZED, result
    assert snapshot() == before


def test_recommended_shmmax(system):
    recommended = prop(system, "RecommendedShmMax")
    current = read_int(SHMMAX)
    if recommended == 0:
        assert call(system, "SetRecommendedShmMax", "a{sv}", {}).get("error") == NOT_SUPPORTED
        return
    # the kernel's default is larger: kept unless asked
    expected = max(current, recommended)
    assert ok(call(system, "SetRecommendedShmMax", "a{sv}", dry(dry_run=True))) == [expected]
    assert ok(call(system, "SetRecommendedShmMax", "a{sv}", dry(dry_run=True, allow_lower=True))) \
        == [recommended]
    assert read_int(SHMMAX) == current


@pytest.fixture(scope="module")
def test_group():
    try:
        return grp.getgrnam(TEST_GROUP).gr_gid
    except KeyError:
        subprocess.run(["groupadd", "--system", TEST_GROUP], check=True)
        return grp.getgrnam(TEST_GROUP).gr_gid


def test_shm_group(system, test_group):
    ok(call(system, "SetShmGroup", "sa{sv}", TEST_GROUP, {}))
    assert read_int(SHM_GROUP) == test_group
    assert prop(system, "ShmGroup") == test_group
    ok(call(system, "SetShmGroup", "sa{sv}", "0", {}))
    assert read_int(SHM_GROUP) == 0
    ok(call(system, "SetShmGroup", "sa{sv}", str(test_group), {}))
    assert read_int(SHM_GROUP) == test_group
    assert prop(system, "ShmGroup") == test_group


@pytest.mark.parametrize("group", ["-1", "4294967295", "no-such-group-hpd"])
def test_shm_group_refused(system, group):
    before = read_int(SHM_GROUP)
    result = call(system, "SetShmGroup", "sa{sv}", group, {})
    assert result.get("error") in (INVALID_ARGS, ERROR_PREFIX + "NoSuchGroup"), result
    assert read_int(SHM_GROUP) == before


def test_min_free_kbytes(system, tunables_guard):
    original = read_int(MIN_FREE)
    cap = meminfo_kb("MemTotal") // 20
    value = original + 4096 if original + 4096 <= cap else original - 4096
    ok(call(system, "SetMinFreeKbytes", "ta{sv}", value, {}))
    assert read_int(MIN_FREE) == value
    assert prop(system, "MinFreeKbytes") == value
    for bad, error in ((512, INVALID_ARGS), (cap + 1, ERROR_PREFIX + "LimitExceeded")):
        assert call(system, "SetMinFreeKbytes", "ta{sv}", bad, {}).get("error") == error
        assert read_int(MIN_FREE) == value


def test_recommended_min_free_kbytes(system):
    """The recommendation is the kernel's own khugepaged formula: on the test
    machine (3 populated zones, 512-page pageblocks) 67584, where hugeadm
    says 112640."""
    recommended = recommended_min_free_kbytes()
    if populated_zones() == 3 and pageblock_kb() == 2048:
        assert recommended == 67584
    assert prop(system, "RecommendedMinFreeKbytes") == recommended
    current = read_int(MIN_FREE)
    assert ok(call(system, "SetRecommendedMinFreeKbytes", "a{sv}", dry(dry_run=True))) == \
        [max(current, recommended)]
    assert ok(call(system, "SetRecommendedMinFreeKbytes", "a{sv}",
                   dry(dry_run=True, allow_lower=True))) == [recommended]
    assert read_int(MIN_FREE) == current
    # from below: raised to it
    write_text(MIN_FREE, str(recommended - 2048))
    assert ok(call(system, "SetRecommendedMinFreeKbytes", "a{sv}", {})) == [recommended]
    assert read_int(MIN_FREE) == recommended
    # from above: kept, lowered only when asked
    write_text(MIN_FREE, str(recommended + 2048))
    assert ok(call(system, "SetRecommendedMinFreeKbytes", "a{sv}", {})) == [recommended + 2048]
    assert read_int(MIN_FREE) == recommended + 2048
    assert ok(call(system, "SetRecommendedMinFreeKbytes", "a{sv}", dry(allow_lower=True))) == \
        [recommended]
    assert read_int(MIN_FREE) == recommended


def test_zone_movable_not_supported(system):
    if any(f.exists() for f in ZONE_MOVABLE_FILES):
        pytest.skip("this kernel has a zone movable sysctl")
    assert prop(system, "ZoneMovableSupported") is False
    assert prop(system, "ZoneMovable") is False
    for args in ((True, {}), (False, {}), (True, dry(dry_run=True))):
        assert call(system, "SetZoneMovable", "ba{sv}", *args).get("error") == NOT_SUPPORTED


@pytest.mark.parametrize("name", ["enabled", "defrag", "shmem_enabled", MTHP + "/enabled",
                                  MTHP + "/shmem_enabled"])
def test_thp_choice(system, name):
    path = THP / name
    if not path.exists():
        pytest.skip("%s is not on this kernel" % path)
    original, choices = choice(path)
    # every other value the kernel offers, then the original again
    for value in [c for c in choices if c != original] + [original]:
        ok(set_thp(system, {name: value}))
        assert choice(path) == (value, choices)
        settings = prop(system, "ThpSettings")
        assert tuple(settings[name]) == (value, choices)


def test_thp_numbers(system, tunables_guard):
    originals = {n: read_int(THP / n) for n in NUMERIC_THP}
    wanted = {"khugepaged/pages_to_scan": originals["khugepaged/pages_to_scan"] // 2 or 1,
              "khugepaged/scan_sleep_millisecs": originals["khugepaged/scan_sleep_millisecs"] + 1000,
              "khugepaged/alloc_sleep_millisecs": originals["khugepaged/alloc_sleep_millisecs"] + 1000}
    ok(set_thp(system, wanted))
    assert {n: read_int(THP / n) for n in NUMERIC_THP} == wanted
    assert prop(system, "KhugepagedPagesToScan") == wanted["khugepaged/pages_to_scan"]
    assert prop(system, "KhugepagedScanSleepMillisecs") == wanted["khugepaged/scan_sleep_millisecs"]
    assert prop(system, "KhugepagedAllocSleepMillisecs") == wanted["khugepaged/alloc_sleep_millisecs"]
    ok(set_thp(system, originals))
    assert {n: read_int(THP / n) for n in NUMERIC_THP} == originals


def test_thp_several_at_once_and_refusals(system):
    before = snapshot()
    enabled, _ = choice(THP / "enabled")
    other = "never" if enabled != "never" else "madvise"
    # one bad value: nothing is written
    for settings in ({"enabled": other, MTHP + "/enabled": "deny"},
                     {"enabled": other, "khugepaged/pages_to_scan": 0},
                     {"enabled": "inherit"}):
        result = set_thp(system, settings)
        assert result.get("error") == INVALID_ARGS, (settings, result)
        assert snapshot() == before
    # dry run and the denied user: nothing written either
    # a dry run replies the settings as asked
    assert ok(set_thp(system, {"enabled": other}, dry_run=True)) == [{"enabled": other}]
    assert set_thp(system, {"enabled": other}, user=DENIED_USER).get("error") == NOT_AUTHORIZED
    assert snapshot() == before
    ok(set_thp(system, {"enabled": other, "khugepaged/pages_to_scan": 1234}))
    assert choice(THP / "enabled")[0] == other
    assert read_int(THP / "khugepaged/pages_to_scan") == 1234


def test_explain(system, tunables_guard):
    for user in (ALLOWED_USER, DENIED_USER):
        entries = rows(ok(call(system, "Explain", "a{sv}", {}, user=user))[0], EXPLAIN_KEYS)
        ids = [e[1] for e in entries]
        assert len(ids) == len(set(ids))
        assert ids[0] == "memory-total"
        for severity, id_, message, fix in entries:
            assert severity in ("info", "warning", "error"), id_
            assert ID.match(id_), id_
            assert message and "\n" not in message and "\n" not in fix, id_
        # the facts of this machine
        assert ("no-swap" in ids) == (meminfo_kb("SwapTotal") == 0)
        assert ("min-free-kbytes-low" in ids) == (read_int(MIN_FREE) < recommended_min_free_kbytes())
        assert ("thp-enabled-always" in ids) == (choice(THP / "enabled")[0] == "always")
        assert ("thp-defrag-always" in ids) == (choice(THP / "defrag")[0] == "always")
        group = read_int(SHM_GROUP)
        assert ("shm-group-unset" in ids) == (group == 0)
        # the client inherits this process's memlock limit
        memlock = Path("/proc/self/limits").read_text().split("Max locked memory")[1].split()[0]
        assert ("memlock-limit" in ids) == (memlock != "unlimited")
        assert not any(i.startswith("pool-short-") for i in ids)


def test_explain_after_thp_always(system):
    ok(set_thp(system, {"enabled": "always", "defrag": "always"}))
    ids = [e["id"] for e in ok(call(system, "Explain", "a{sv}", {}))[0]]
    assert "thp-enabled-always" in ids and "thp-defrag-always" in ids
