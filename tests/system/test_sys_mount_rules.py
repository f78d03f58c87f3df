# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""security.md case 5 with the real polkitd: a mount for another user.

security.md imagines two actions, "mount owned by the caller" and "mount
owned by another uid". hugepagesd has one, org.hugepages.manager.manage-
mounts, and tells polkit whom the mount is for (details scope, owner-uid,
owner-gid, mode, paths) before anything is made, so that a rule can draw
that line (the udisks CVE-2026-7867 lesson: the owner is checked on every
path, first). Here a rule lets the denied user make only a user mount for
itself: the same call for somebody else, or a group or global mount, is
refused by polkitd, and nothing is made.
"""

import os
import time

import pytest

from hpdsys import DENIED_USER, ALLOWED_USER, ERROR_PREFIX, MOUNT_BASE, MountArea, path_tree
from test_sys_mounts import create_mounts, ok, unmount

RULES = "/etc/polkit-1/rules.d/05-hpd-test-own-mounts.rules"
RULE = """// hugepagesd system tests: %(user)s may make user mounts for itself only.
polkit.addRule(function(action, subject) {
    if (action.id == "org.hugepages.manager.manage-mounts" && subject.user == "%(user)s") {
        if (action.lookup("scope") == "user" && action.lookup("owner-uid") == "%(uid)d")
            return polkit.Result.YES;
        return polkit.Result.NO;
    }
    return polkit.Result.NOT_HANDLED;
});
"""
NOT_AUTHORIZED = ERROR_PREFIX + "NotAuthorized"


@pytest.fixture
def own_mounts_rule(system):
    pw = system.users[DENIED_USER]
    with open(RULES, "w") as f:
        f.write(RULE % {"user": DENIED_USER, "uid": pw.pw_uid})
    os.chmod(RULES, 0o644)
    yield pw
    os.unlink(RULES)


def eventually(what, timeout=15):
    """polkitd notices rule files by inotify, a moment later."""
    deadline = time.monotonic() + timeout
    while True:
        result = what()
        if "error" not in result or time.monotonic() > deadline:
            return result
        time.sleep(0.2)


def test_a_rule_can_tell_own_mounts_from_others(system, own_mounts_rule):
    area = MountArea()
    try:
        pw = own_mounts_rule
        # polkitd picks the rule up: the user's own mount is allowed
        paths = ok(eventually(lambda: create_mounts(system, DENIED_USER, "user", DENIED_USER)))[0]
        assert all(p.startswith("%s/user/%s/" % (MOUNT_BASE, DENIED_USER)) for p in paths)
        before = path_tree(MOUNT_BASE)
        # the same call for somebody else, by name or by uid, and other scopes: no
        other = system.users[ALLOWED_USER]
        for scope, owner in (("user", ALLOWED_USER), ("user", str(other.pw_uid)),
                             ("user", "root"), ("global", ""), ("system", "")):
            result = create_mounts(system, DENIED_USER, scope, owner)
            assert result.get("error") == NOT_AUTHORIZED, (scope, owner, result)
        assert path_tree(MOUNT_BASE) == before
        assert len(area.new_hugetlbfs_mounts()) == len(paths)
        for p in paths:
            ok(unmount(system, None, p))
    finally:
        problems = area.cleanup()
    assert not problems, problems
    assert pw.pw_uid != other.pw_uid


def test_without_the_rule_the_denied_user_is_denied_again(system):
    """The rule is gone (the fixture removed it): wait until polkitd has
    dropped it too, so that the tests after this one see the stock rules."""
    area = MountArea()
    try:
        deadline = time.monotonic() + 15
        while True:
            result = create_mounts(system, DENIED_USER, "user", DENIED_USER)
            if result.get("error") == NOT_AUTHORIZED:
                break
            for p in result["value"][0]:
                ok(unmount(system, None, p))
            assert time.monotonic() < deadline, "polkitd keeps the removed rule"
            time.sleep(0.2)
    finally:
        problems = area.cleanup()
    assert not problems, problems
