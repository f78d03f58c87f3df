# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""security.md case 22: shrinking a pool while its pages are in use."""

from hpdsys import KB_2M, counters, pool_dir, stable_counters, write_counter


def test_shrink_to_zero_reports_pages_still_held(system, mapper):
    base = stable_counters(KB_2M)
    # two free pages of our own in the persistent pool, then use them
    write_counter(pool_dir(KB_2M) / "nr_hugepages", base["Minimum"] + 2)
    holder = mapper(2)
    in_use = counters(KB_2M)
    assert in_use["Total"] - in_use["Free"] >= 2

    achieved = system.pool_call(KB_2M, "SetMinimum", 0)

    after = counters(KB_2M)
    # the kernel cannot free mapped pages: they stay, as surplus
    assert after["Total"] >= 2
    assert after["Surplus"] >= 2
    # the reply says so instead of claiming a pool of 0: at least our two
    # pages (more if other work had pages of the pool in use too)
    assert achieved > 0, ("SetMinimum(0) answered 0 while %d pages are still allocated "
                          "(kernel: %s)" % (after["Total"], after))
    assert 2 <= achieved <= after["Total"], (achieved, after)
    props = system.pool_props(KB_2M)
    assert props["Total"] == after["Total"]
    assert props["Surplus"] == after["Surplus"]

    # once released, surplus pages go back to the kernel
    holder.release()
    released = counters(KB_2M)
    assert released["Total"] == after["Total"] - 2
    assert system.pool_props(KB_2M)["Total"] == released["Total"]
