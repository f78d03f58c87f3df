# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""security.md cases 11 and 12, the names test_mounts.py does not already
try: an option string smuggled into the owner, a right-to-left override, a
name of a million characters, and what reaches the log.

The mount "name" of security.md is, in this API, the owner of a user or
group mount (the scope is one of four keywords): it becomes a directory
below /var/lib/hugetlbfs/{user,group}/ and a log line, never a mount
option (ownership goes to the kernel as the numeric uid/gid)."""

import re

import pytest

import hpdtest
from hpdtest import (ERR_INVALID_ARGS, ERR_NO_SUCH_GROUP, MANAGER_IFACE, MANAGER_PATH, BusError)
from fakekernel import Pool
from gi.repository import GLib

POOLS = {2048: Pool(total=10, free=10), 1048576: Pool()}
NAMES = [
    'a,uid=0,mode=0777',           # case 11
    'nobody,mode=0777',
    'a\u202eb',                    # right-to-left override
    '\u202enobody',
    'a\u200bb',                    # zero-width space
    'x' * 1000000,
    'a\x1b]0;title\x07',     # a terminal escape
    '..\u2215etc',                 # a division slash that looks like /
]


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('scope', ['user', 'group'])
def test_injected_and_deceptive_names_are_refused_before_authorization(service, conn, fake_kernel,
                                                                       polkit, scope):
    polkit.allow_unknown(True)
    polkit.allow(*hpdtest.ALL_ACTIONS)
    before = fake_kernel.snapshot()
    log_before = len(service.log())
    for name in NAMES:
        with pytest.raises(BusError) as e:
            hpdtest.call(conn, MANAGER_PATH, MANAGER_IFACE, 'CreateMounts',
                         GLib.Variant('(ssa{sv})', (scope, name, {})), '(as)')
        assert e.value.name == ERR_INVALID_ARGS, (name[:40], e.value)
        assert name not in e.value.message
    assert polkit.checks() == []
    assert fake_kernel.snapshot() == before
    assert not fake_kernel.exists('var')
    # nothing of the names reached the log, raw or otherwise
    log = service.log()[log_before:]
    assert not re.search(r'[\x00-\x08\x0b-\x1f\x7f\u200b\u202e\u2215]', log), log[-2000:]
    assert 'uid=0' not in log and 'mode=0777' not in log


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('gid', ['2147483648', '4294967295', '-1'])
def test_group_ids_out_of_range(service, conn, fake_kernel, polkit, gid):
    """case 16: gid 2^31, (gid_t)-1 and a negative number name no group."""
    polkit.allow_unknown(True)
    with pytest.raises(BusError) as e:
        hpdtest.call(conn, MANAGER_PATH, MANAGER_IFACE, 'CreateMounts',
                     GLib.Variant('(ssa{sv})', ('group', gid, {})), '(as)')
    assert e.value.name in (ERR_INVALID_ARGS, ERR_NO_SUCH_GROUP)
    assert polkit.checks() == []
    assert not fake_kernel.exists('var')
