# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""What the Manager's tunable properties should say, worked out from the
fake kernel tree's files as they are now (not from the FakeKernel's
arguments, and not with the service's code), plus small helpers that the
tunable and Explain tests share."""

import grp
import os

import hpdtest
from hpdtest import MANAGER_IFACE, MANAGER_PATH
from fakekernel import (MIN_FREE_KBYTES, MOVABLE_GIGANTIC, PAGETYPEINFO, SHM_GROUP, SHMALL, SHMMAX,
                        THP_DIR, TREAT_AS_MOVABLE, ZONEINFO, parse_choice)
from gi.repository import GLib

BASE_PAGE = os.sysconf('SC_PAGE_SIZE')
ACTION_TUNABLES = 'org.hugepages.manager.configure-tunables'
ERR_NO_SUCH_GROUP = hpdtest.ERR + 'NoSuchGroup'
COUNTED_ZONES = ('DMA', 'DMA32', 'Normal')
NUMERIC_THP = ('khugepaged/pages_to_scan', 'khugepaged/scan_sleep_millisecs',
               'khugepaged/alloc_sleep_millisecs')

TUNABLE_PROPERTIES = (
    'ShmMax', 'ShmAllPages', 'ShmGroup', 'MinFreeKbytes', 'RecommendedShmMax', 'RecommendedShmAllPages',
    'RecommendedMinFreeKbytes', 'ZoneMovableSupported', 'ZoneMovable', 'KhugepagedPagesToScan', 'KhugepagedScanSleepMillisecs',
    'KhugepagedAllocSleepMillisecs', 'ThpSettings')


def unused_gid():
    """A gid no group has on this machine (the service looks groups up here)."""
    for gid in range(54321, 60000):
        try:
            grp.getgrgid(gid)
        except KeyError:
            return gid
    raise AssertionError('no unused gid')


def _int(fk, rel):
    """The file's number, None when absent or not a number."""
    try:
        return int(fk.read(rel).strip())
    except (OSError, ValueError):
        return None


def _meminfo_kb(fk, key):
    try:
        text = fk.read('proc/meminfo')
    except OSError:
        return 0
    for line in text.splitlines():
        name, _, value = line.partition(':')
        if name == key:
            return int(value.split()[0])
    return 0


def populated_zones(fk):
    """DMA, DMA32 and Normal zones with managed pages in proc/zoneinfo."""
    try:
        text = fk.read(ZONEINFO)
    except OSError:
        return 0
    count, zone = 0, None
    for line in text.splitlines():
        if line.startswith('Node '):
            zone = line.split('zone', 1)[1].strip() if 'zone' in line else None
            continue
        words = line.split()
        if zone in COUNTED_ZONES and len(words) == 2 and words[0] == 'managed':
            if words[1].isdigit() and int(words[1]) > 0:
                count += 1
            zone = None
    return count


def pageblock_kb(fk):
    """pagetypeinfo's pageblock, else THP's PMD size, else 2 MiB."""
    try:
        for line in fk.read(PAGETYPEINFO).splitlines():
            if line.startswith('Pages per block:'):
                pages = line.split(':', 1)[1].strip()
                if pages.isdigit() and 0 < int(pages) < 1 << 40:
                    return int(pages) * BASE_PAGE // 1024
    except OSError:
        pass
    pmd = _int(fk, f'{THP_DIR}/hpage_pmd_size')
    return pmd // 1024 if pmd is not None and pmd >= 1024 else 2048


def recommended_min_free_kbytes(fk):
    return min(11 * pageblock_kb(fk) * populated_zones(fk), _meminfo_kb(fk, 'MemTotal') // 20)


def recommended_shmmax(fk):
    """Σ over the pools of Maximum × page size (hugeadm's formula)."""
    total = 0
    for size_kb in fk.sizes:
        nr = _int(fk, fk.pool_file(size_kb, 'nr_hugepages')) or 0
        surplus = _int(fk, fk.pool_file(size_kb, 'surplus_hugepages')) or 0
        overcommit = _int(fk, fk.pool_file(size_kb, 'nr_overcommit_hugepages')) or 0
        total += (max(nr - surplus, 0) + overcommit) * size_kb * 1024
    return min(total, 2**64 - 1)


def ceil_pages(nbytes):
    return -(-nbytes // BASE_PAGE)


def thp_settings(fk):
    """{name: (current, [choices])} of every THP choice file that parses."""
    result = {}
    top = fk.path(THP_DIR)
    names = ['enabled', 'defrag', 'shmem_enabled']
    if os.path.isdir(top):
        for d in sorted(os.listdir(top)):
            if d.startswith('hugepages-') and d.endswith('kB') and d[10:-2].isdigit() \
                    and int(d[10:-2]) > 0:
                names += [f'{d}/enabled', f'{d}/shmem_enabled']
    for name in names:
        try:
            parsed = parse_choice(fk.read(f'{THP_DIR}/{name}'))
        except OSError:
            continue
        if parsed is not None:
            result[name] = (parsed[0], list(parsed[1]))
    return result


def expected_tunables(fk):
    """The tunable properties of the Manager, from the tree as it is now."""
    def number(rel, limit=2**64 - 1):
        v = _int(fk, rel)
        return v if v is not None and 0 <= v <= limit else 0

    shmmax = recommended_shmmax(fk)
    movable = [rel for rel in (TREAT_AS_MOVABLE, MOVABLE_GIGANTIC) if fk.exists(rel)]
    thp = thp_settings(fk)
    return {
        'ShmMax': number(SHMMAX),
        'ShmAllPages': number(SHMALL),
        'ShmGroup': number(SHM_GROUP, 2**31 - 1),
        'MinFreeKbytes': number(MIN_FREE_KBYTES),
        'RecommendedShmMax': shmmax,
        'RecommendedShmAllPages': ceil_pages(shmmax),
        'RecommendedMinFreeKbytes': recommended_min_free_kbytes(fk),
        'ZoneMovableSupported': bool(movable),
        'ZoneMovable': bool(movable) and (_int(fk, movable[0]) or 0) != 0,
        'KhugepagedPagesToScan': number(f'{THP_DIR}/khugepaged/pages_to_scan', 2**32 - 1),
        'KhugepagedScanSleepMillisecs': number(f'{THP_DIR}/khugepaged/scan_sleep_millisecs', 2**32 - 1),
        'KhugepagedAllocSleepMillisecs': number(f'{THP_DIR}/khugepaged/alloc_sleep_millisecs', 2**32 - 1),
        'ThpSettings': thp,
    }


def normalize(name, value):
    """A property value as unpacked from the bus, comparable with the above."""
    if name == 'ThpSettings':
        return {k: (cur, list(choices)) for k, (cur, choices) in value.items()}
    return value


def tunable_props(conn, how='GetAll'):
    if how == 'GetAll':
        props = hpdtest.manager_props(conn)
        return {n: normalize(n, props[n]) for n in TUNABLE_PROPERTIES}
    return {n: normalize(n, hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, n))
            for n in TUNABLE_PROPERTIES}


def manager_call(conn, method, sig, args, reply=None, **kwargs):
    """A Manager method; returns the unpacked reply tuple."""
    return hpdtest.call(conn, MANAGER_PATH, MANAGER_IFACE, method,
                        GLib.Variant(f'({sig})', tuple(args)), reply, **kwargs)


def explain(conn, options=None):
    """Explain() as [(severity, id, message, fix)]."""
    return hpdtest.rows(manager_call(conn, 'Explain', 'a{sv}', (options or {},), '(aa{sv})')[0],
                        hpdtest.EXPLAIN_KEYS)


def set_meminfo(fk, key, kb):
    """Rewrites one meminfo line (kB) in place, adding it if missing."""
    lines = fk.read('proc/meminfo').splitlines(keepends=True)
    row = f'{(key + ":"):<16}{f"{kb} kB":>16}\n'
    if any(line.startswith(key + ':') for line in lines):
        lines = [row if line.startswith(key + ':') else line for line in lines]
    else:
        lines.append(row)
    fk.write('proc/meminfo', ''.join(lines))


def hugetlbfs_line(mount_id, path, page_size=None):
    """One /proc/self/mountinfo line of a hugetlbfs mount."""
    opts = 'rw' + (f',pagesize={page_size}' if page_size else '')
    return f'{mount_id} 27 0:{mount_id} / {path} rw,relatime shared:30 - hugetlbfs hugetlbfs {opts}\n'


def write_mountinfo(fk, hugetlbfs_lines=()):
    """proc/self/mountinfo with / and /proc and the given hugetlbfs lines."""
    fk.write('proc/self/mountinfo',
             '27 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n'
             '22 27 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw\n'
             + ''.join(hugetlbfs_lines))
