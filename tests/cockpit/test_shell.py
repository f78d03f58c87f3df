# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""The page inside Cockpit's real shell (Debian's cockpit-system on
cockpit-ws, password logins through PAM as throw-away users): found in the
navigation and by the search, read only with the reason, changes through
administrative access (sudo) or a polkit rule, nothing for a user without
rights. This side checks what reached the (fake) kernel and who polkit was
asked about. Screenshots: BUILDDIR/test-results/cockpit/test_shell_*."""

import pytest

import hpdtest
from fakekernel import Pool

H2 = 'sys/kernel/mm/hugepages/hugepages-2048kB'
READ_ONLY = 'Administrative access is off'


@pytest.mark.fake_kernel(pools={2048: Pool(total=2, free=2)})
def test_admin_access_through_sudo_changes_a_pool(shell_service, shell_bus, shell_users,
                                                  fake_kernel, shell_browser):
    shell_bus.polkit.rules({})
    # the login page and the search are screenshot once, here
    seen = shell_browser('admin', 'admin', pages=6, shellViews=True)
    assert seen['nav'].endswith('/hugepages')
    assert 'Huge pages' in seen['search']
    assert READ_ONLY in seen['readonly']
    assert 'now has 6 pages, as requested' in seen['notice']
    assert fake_kernel.read_int(f'{H2}/nr_hugepages') == 6
    # the change came from root (the privileged bridge), which polkit allows
    assert ('system-bus-name', hpdtest.ACTION_POOLS) in shell_bus.polkit.checks()


@pytest.mark.fake_kernel(pools={2048: Pool(total=2, free=2)})
def test_user_a_polkit_rule_allows_changes_a_pool(shell_service, shell_bus, shell_users,
                                                  fake_kernel, shell_browser):
    shell_bus.polkit.rules({shell_users['polkit'].uid: [hpdtest.ACTION_POOLS]})
    seen = shell_browser('polkit', 'polkit', pages=5)
    # done with the keyboard alone: Tab from the navigation to the field
    assert seen['tabs'] > 0
    assert 'now has 5 pages, as requested' in seen['notice']
    assert fake_kernel.read_int(f'{H2}/nr_hugepages') == 5
    checks = shell_bus.polkit.checks()
    # the page asked for itself first, then the service asked about the call
    assert ('unix-process', hpdtest.ACTION_POOLS) in checks
    assert ('system-bus-name', hpdtest.ACTION_POOLS) in checks


@pytest.mark.fake_kernel(pools={2048: Pool(total=2, free=2)})
def test_user_without_rights_cannot_change_and_is_told_why(shell_service, shell_bus, shell_users,
                                                           fake_kernel, shell_browser):
    # a rule for somebody else changes nothing for this user
    shell_bus.polkit.rules({shell_users['polkit'].uid: list(hpdtest.ALL_ACTIONS)})
    before = fake_kernel.snapshot()
    seen = shell_browser('nobody', 'nobody')
    assert READ_ONLY in seen['readonly']
    assert 'not allowed' in seen['readonly']
    assert seen['enabledChanges'] == 0
    assert seen['disabled'] > 0
    assert fake_kernel.kernel_changes_since(before) == {}
    # only the page's own question; the service was never asked to change
    assert all(kind == 'unix-process' for kind, _action in shell_bus.polkit.checks())
