# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""malloc's settings (src/bus/hpd-allocators.c): every thread of the service
allocates from the one main arena, unless the administrator's environment
sets the number of arenas itself; the unit's own GLIBC_TUNABLES, which
turns off the per-thread cache, is not such a setting."""

import pytest

import hpdtest
from gi.repository import Gio

# The heap of an arena other than the main one: glibc reserves this much,
# aligned to its size, for each (64-bit).
ARENA_HEAP = 64 << 20


def arena_heaps(pid):
    """How many heaps of arenas other than the main one @pid maps: runs of
    anonymous mappings that start aligned to ARENA_HEAP and span it."""
    maps = []
    with open(f'/proc/{pid}/maps') as f:
        for line in f:
            fields = line.split()
            start, end = (int(x, 16) for x in fields[0].split('-'))
            maps.append((start, end, fields[5] if len(fields) > 5 else ''))
    heaps = 0
    for i, (start, _end, path) in enumerate(maps):
        if path or start % ARENA_HEAP:
            continue
        stop = start
        for next_start, next_end, next_path in maps[i:]:
            if next_start != stop or next_path:
                break
            stop = next_end
            if stop == start + ARENA_HEAP:
                heaps += 1
                break
    return heaps


def busy(conn):
    """Calls that make GDBus's worker thread and the main thread allocate."""
    for _ in range(20):
        conn.call_sync(hpdtest.BUS_NAME, hpdtest.MANAGER_PATH, hpdtest.OM_IFACE,
                       'GetManagedObjects', None, None, Gio.DBusCallFlags.NONE, 10000, None)


@pytest.fixture
def plain(hugepagesd):
    if not hpdtest.plain_build(hugepagesd):
        pytest.skip('valgrind and AddressSanitizer bring their own allocator')


def test_one_arena_as_the_unit_starts_it(plain, start_service, fake_kernel, conn, polkit):
    assert 'GLIBC_TUNABLES' in hpdtest.unit_environment(), 'the unit no longer sets malloc tunables'
    svc = start_service(fake_kernel.root, check=True)
    busy(conn)
    assert arena_heaps(svc.pid) == 0


@pytest.mark.parametrize('name, value', [('GLIBC_TUNABLES', 'glibc.malloc.arena_max=4'),
                                         ('MALLOC_ARENA_MAX', '4')])
def test_the_administrators_arena_setting_wins(plain, start_service, fake_kernel, conn, polkit,
                                               name, value):
    svc = start_service(fake_kernel.root, check=True, env={name: value})
    busy(conn)
    assert arena_heaps(svc.pid) >= 1
