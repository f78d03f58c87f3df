# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Named claims on the real kernel with the real polkitd: two consumers
claim 2 MiB pages through `hugepagesctl claim` as an allowed user, the pool
grows by the sum on top of whatever it held (never assumed empty), one
release leaves the other's pages, a direct write to nr_hugepages below the
sum shows in Explain, and a denied user changes nothing. At most 12 pages
are added (the tier's cap is 64); the claims are released and the pools
guard puts the pools back whatever happens. /etc/hugepagesd is a private
temporary directory (etc_config); the runtime claims live in the session's
private /run/hugepagesd."""

import pytest

from hpdsys import (CLAIM_KEYS, EXPLAIN_KEYS, rows, ALLOWED_USER, DENIED_USER, KB_2M, MANAGER_IFACE, MANAGER_PATH,
                    pool_dir, stable_counters, write_counter)

SIZE_2M = 2048 * 1024
ALL = None   # a claim on the whole pool has no node
CONSUMERS = ("hpd-sys-db", "hpd-sys-vm")


def claims(system):
    return sorted((c for c in rows(system.get(MANAGER_PATH, MANAGER_IFACE, "Claims"), CLAIM_KEYS)
                   if c[0] in CONSUMERS), key=repr)


def explain_ids(system):
    entries = system.call(MANAGER_PATH, MANAGER_IFACE, "Explain", "a{sv}", ({},), "(aa{sv})")[0]
    return {id_: message for _severity, id_, message, _fix in rows(entries, EXPLAIN_KEYS)}


@pytest.fixture
def released(system):
    """Releases the test's claims afterwards, whatever happened."""
    yield
    for consumer in CONSUMERS:
        system.ctl(ALLOWED_USER, "release", consumer, "2M")
    assert claims(system) == []


def claim(system, consumer, pages):
    result = system.ctl(ALLOWED_USER, "claim", consumer, "2M", str(pages))
    if result.returncode == 3:
        pytest.skip("the kernel could not allocate %d 2 MiB pages: %s" % (pages, result.stderr))
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def test_two_claims_share_the_pool(system, etc_config, released):
    base = stable_counters(KB_2M)["Minimum"]
    uid = system.users[ALLOWED_USER].pw_uid

    claim(system, "hpd-sys-db", 8)
    assert stable_counters(KB_2M)["Minimum"] == base + 8
    claim(system, "hpd-sys-vm", 4)
    assert stable_counters(KB_2M)["Minimum"] == base + 12
    assert claims(system) == [("hpd-sys-db", SIZE_2M, 8, ALL), ("hpd-sys-vm", SIZE_2M, 4, ALL)]
    got = {c["consumer"]: c for c in
           system.call(MANAGER_PATH, MANAGER_IFACE, "GetClaims", "a{sv}", ({},))[0]}
    assert got["hpd-sys-db"]["uid"] == uid and got["hpd-sys-db"]["persisted"] is False
    listing = system.ctl(DENIED_USER, "claims")      # reading is open to everyone
    assert listing.returncode == 0 and "hpd-sys-vm" in listing.stdout

    # someone writes sysfs below the sum: drift
    write_counter(pool_dir(KB_2M) / "nr_hugepages", base + 9)
    message = explain_ids(system)["claims-drift-2MB"]
    assert "holds %d pages, 3 fewer" % (base + 9) in message

    # one consumer leaves: only its share goes, the other's pages stay
    result = system.ctl(ALLOWED_USER, "release", "hpd-sys-db", "2M")
    assert result.returncode == 0, result.stderr
    assert stable_counters(KB_2M)["Minimum"] == base + 4
    assert "claims-drift-2MB" not in explain_ids(system)
    assert claims(system) == [("hpd-sys-vm", SIZE_2M, 4, ALL)]

    result = system.ctl(ALLOWED_USER, "release", "hpd-sys-vm", "2M")
    assert result.returncode == 0, result.stderr
    assert stable_counters(KB_2M)["Minimum"] == base


def test_denied_user_claims_nothing(system, etc_config, released):
    before = stable_counters(KB_2M)["Minimum"]
    result = system.ctl(DENIED_USER, "claim", "hpd-sys-db", "2M", "2")
    assert result.returncode == 1
    assert "Not authorized" in result.stderr
    assert claims(system) == []
    assert stable_counters(KB_2M)["Minimum"] == before
