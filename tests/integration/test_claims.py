# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Named claims (Claim, Release, GetClaims, the Claims property): several
consumers share a pool without overwriting each other. The pool's target is
the administrator's base (SetMinimum) plus every claim; a claim grows the
pool by what it adds, a release shrinks it by what it gave up and never
below the base plus the other claims; a direct write to nr_hugepages below
the sum shows in Explain; runtime claims live under run/ (kept across
restarts, gone at reboot), persisted ones under etc/ and usr/lib/, which
`hugepagesd --apply` honours."""

import json
import os
import shutil
import subprocess

import pytest

import hpdtest

from hpdtest import (ERR_INVALID_ARGS, ERR_LIMIT_EXCEEDED, ERR_NOT_AUTHORIZED, BusError,
                     MANAGER_IFACE, MANAGER_PATH, PAGE_SIZE_IFACE, page_size_path)
from gi.repository import GLib

H2 = 'sys/kernel/mm/hugepages/hugepages-2048kB'
NR = f'{H2}/nr_hugepages'
NODE1_2M = 'sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages'
RUNTIME = 'run/hugepagesd/claims.d'
ADMIN = 'etc/hugepagesd/claims.d'
VENDOR = 'usr/lib/hugepagesd/claims.d'
CONF = 'etc/hugepagesd/hugepagesd.conf'
SIZE_2M = 2048 * 1024
ALL = None   # a claim on the whole pool has no node
PERSIST = {'persist': GLib.Variant('b', True)}


def claim(conn, consumer, pages, size=SIZE_2M, **opts):
    """Claim on the pool's object; returns the pages the pool holds of it."""
    params = GLib.Variant('(sta{sv})', (consumer, pages, hpdtest.options(**opts)))
    return hpdtest.call(conn, page_size_path(size // 1024), PAGE_SIZE_IFACE, 'Claim', params,
                        '(t)')[0]


def release(conn, consumer, size=SIZE_2M, **opts):
    """Release on the pool's object; returns the pool's persistent pages."""
    params = GLib.Variant('(sa{sv})', (consumer, hpdtest.options(**opts)))
    return hpdtest.call(conn, page_size_path(size // 1024), PAGE_SIZE_IFACE, 'Release', params,
                        '(t)')[0]


def claims_prop(conn):
    return hpdtest.rows(hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'Claims'), hpdtest.CLAIM_KEYS)


def get_claims(conn):
    return hpdtest.call(conn, MANAGER_PATH, MANAGER_IFACE, 'GetClaims',
                        GLib.Variant('(a{sv})', ({},)), '(aa{sv})')[0]


def explain(conn):
    entries = hpdtest.call(conn, MANAGER_PATH, MANAGER_IFACE, 'Explain',
                           GLib.Variant('(a{sv})', ({},)), '(aa{sv})')[0]
    return {id_: (severity, message, fix)
            for severity, id_, message, fix in hpdtest.rows(entries, hpdtest.EXPLAIN_KEYS)}


def set_min(conn, pages):
    return hpdtest.pool_call(conn, 2048, 'SetMinimum', pages)


def pool(fk):
    return fk.read_int(NR)


def apply(hugepagesd, fk):
    proc = subprocess.run([hugepagesd, '--kernel-root', fk.root, '--apply'],
                          capture_output=True, text=True, timeout=60)
    return proc.returncode, proc.stdout.splitlines(), proc.stderr


def tree_files(fk, *dirs):
    """{relative path: contents} of every file below dirs."""
    result = {}
    for d in dirs:
        top = fk.path(d)
        for base, _subdirs, files in os.walk(top):
            for name in files:
                path = os.path.join(base, name)
                with open(path) as f:
                    result[os.path.relpath(path, fk.root)] = f.read()
    return result


@pytest.fixture
def allowed(polkit):
    polkit.allow(hpdtest.ACTION_POOLS)
    return polkit


@pytest.fixture
def base4(fake_kernel):
    """A pool of 4 pages that someone set before any claim."""
    fake_kernel.write(NR, '4\n')
    return fake_kernel


# ---- two consumers share a pool ----

@pytest.mark.valgrind
def test_two_claims_add_up_and_a_release_keeps_the_other(service, conn, base4, allowed):
    fk = base4
    assert claim(conn, 'postgresql', 10) == 10
    assert pool(fk) == 14
    assert claim(conn, 'libvirt-vm42', 6) == 6
    assert pool(fk) == 20        # base 4 + 10 + 6
    assert claims_prop(conn) == [('libvirt-vm42', SIZE_2M, 6, ALL), ('postgresql', SIZE_2M, 10, ALL)]

    assert release(conn, 'postgresql') == 10
    assert pool(fk) == 10        # the other consumer's 6 stay, and the base
    assert claims_prop(conn) == [('libvirt-vm42', SIZE_2M, 6, ALL)]
    assert release(conn, 'libvirt-vm42') == 4
    assert pool(fk) == 4
    assert claims_prop(conn) == []
    assert not os.listdir(fk.path(RUNTIME))


def test_a_second_claim_replaces_the_first(service, conn, base4, allowed):
    fk = base4
    claim(conn, 'postgresql', 10)
    claim(conn, 'redis', 2)
    assert claim(conn, 'postgresql', 16) == 16
    assert pool(fk) == 22
    assert claim(conn, 'postgresql', 3) == 3
    assert pool(fk) == 9         # 4 + 3 + 2
    assert claims_prop(conn) == [('postgresql', SIZE_2M, 3, ALL), ('redis', SIZE_2M, 2, ALL)]


def test_get_claims_records_the_uid(service, conn, base4, allowed):
    claim(conn, 'postgresql', 10)
    claim(conn, 'kubelet', 2, persist=True)
    got = get_claims(conn)
    assert got == [
        {'consumer': 'kubelet', 'page-size': SIZE_2M, 'pages': 2, 'uid': os.getuid(),
         'persisted': True},
        {'consumer': 'postgresql', 'page-size': SIZE_2M, 'pages': 10, 'uid': os.getuid(),
         'persisted': False},
    ]
    # one shape: the property is what GetClaims returns
    assert hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'Claims') == got
    info = explain(conn)['claims-2MB']
    assert info[0] == 'info'
    assert f'kubelet 2 (uid {os.getuid()}, persisted)' in info[1]
    assert f'postgresql 10 (uid {os.getuid()})' in info[1]
    assert 'target is 16' in info[1]


def test_set_minimum_sets_the_base_under_the_claims(service, conn, base4, allowed):
    fk = base4
    claim(conn, 'postgresql', 10)
    assert set_min(conn, 2) == 2          # the base, as asked
    assert pool(fk) == 12
    assert hpdtest.page_size_props(conn, 2048)['Minimum'] == 12   # the kernel's pool
    release(conn, 'postgresql')
    assert pool(fk) == 2


def test_the_first_claim_takes_the_pool_as_it_is_for_the_base(service, conn, fake_kernel,
                                                             allowed):
    fk = fake_kernel
    assert set_min(conn, 8) == 8
    fk.write(NR, '5\n')                   # another program since: its word is the last
    claim(conn, 'a', 3)
    assert pool(fk) == 8
    release(conn, 'a')
    assert pool(fk) == 5


def test_release_never_shrinks_below_base_and_other_claims(service, conn, base4, allowed):
    fk = base4
    claim(conn, 'a', 10)
    claim(conn, 'b', 6)
    fk.write(NR, '15\n')                  # someone shrank the pool by hand
    release(conn, 'b')                    # target now 14: give back 1, not 6
    assert pool(fk) == 14
    claim(conn, 'b', 6)
    fk.write(NR, '8\n')                   # below base + a (14)
    # already below the target: nothing changes, and the reply says so
    assert release(conn, 'b') == 8
    assert pool(fk) == 8
    release(conn, 'a')                    # above the base: back to it, no lower
    assert pool(fk) == 4


def test_release_leaves_pages_another_program_added(service, conn, base4, allowed):
    fk = base4
    claim(conn, 'a', 10)
    fk.write(NR, '30\n')                  # a program that writes sysfs itself added 16
    claim(conn, 'b', 5)                   # grows by what the claim adds
    assert pool(fk) == 35
    assert release(conn, 'a') == 25       # shrinks by what it gave up only
    assert pool(fk) == 25


# ---- drift and shortfall ----

@pytest.mark.valgrind
def test_direct_write_below_the_sum_is_drift(service, conn, base4, allowed):
    fk = base4
    claim(conn, 'postgresql', 10)
    claim(conn, 'libvirt', 6)
    assert 'claims-drift-2MB' not in explain(conn)
    fk.write(NR, '12\n')
    severity, message, fix = explain(conn)['claims-drift-2MB']
    assert severity == 'warning'
    assert 'holds 12 pages, 8 fewer than' in message and '(20)' in message
    assert fix == 'hugepagesctl set-min 2MB 4 --hard'
    # the fix works: the base again, the claims on top
    assert set_min(conn, 4) == 4
    assert pool(fk) == 20
    assert 'claims-drift-2MB' not in explain(conn)


def test_a_claim_the_kernel_cannot_fill_is_recorded_and_short(service, conn, fake_kernel,
                                                             allowed):
    fk = fake_kernel
    if not fk.simulating:
        pytest.skip('the fake kernel simulator could not start')
    fk.limit_pool(2048, 7)
    assert claim(conn, 'postgresql', 10) == 7
    assert claims_prop(conn) == [('postgresql', SIZE_2M, 10, ALL)]
    assert 'holds 7 pages, 3 fewer' in explain(conn)['claims-drift-2MB'][1]
    fk.limit_pool(2048, None)


def test_claims_above_the_memory_limit_change_nothing(service, conn, base4, allowed):
    fk = base4
    before = tree_files(fk, 'run', 'etc')
    with pytest.raises(BusError) as e:
        claim(conn, 'huge', 1 << 40)
    assert e.value.name == ERR_LIMIT_EXCEEDED
    assert pool(fk) == 4
    assert tree_files(fk, 'run', 'etc') == before


# ---- validation and authorization ----

@pytest.mark.parametrize('consumer', ['', 'Postgres', '-x', '.x', 'a/b', '../etc', 'a b',
                                      'x' * 65, 'caf\u00e9'])
def test_bad_consumer_names(service, conn, base4, allowed, consumer):
    with pytest.raises(BusError) as e:
        claim(conn, consumer, 1)
    assert e.value.name == ERR_INVALID_ARGS
    assert pool(base4) == 4
    assert not os.path.exists(base4.path(RUNTIME))


def test_good_consumer_names(service, conn, base4, allowed):
    for name in ('postgresql', 'libvirt-vm42', 'a', '0', 'x' * 64, 'ceph.osd_3'):
        claim(conn, name, 1)
    assert len(claims_prop(conn)) == 6


@pytest.mark.parametrize('size,pages,opts', [
    (SIZE_2M, 0, {}),                                 # Release removes claims
    (SIZE_2M, 1, {'node': GLib.Variant('u', 7)}),     # no such node
    (SIZE_2M, 1, {'node': GLib.Variant('s', '1')}),   # wrong type
    (SIZE_2M, 1, {'bogus': GLib.Variant('b', True)}),
    (SIZE_2M, 1, {'drop-caches': GLib.Variant('b', True)}),
])
def test_bad_claims_change_nothing(service, conn, base4, allowed, size, pages, opts):
    before = tree_files(base4, 'run', 'etc')
    with pytest.raises(BusError) as e:
        claim(conn, 'postgresql', pages, size=size, **opts)
    assert e.value.name == ERR_INVALID_ARGS
    assert pool(base4) == 4
    assert tree_files(base4, 'run', 'etc') == before


def test_a_pool_is_addressed_by_its_object(service, conn, base4, allowed):
    """Claim and Release are methods of the pool's PageSize object: the
    Manager takes no page size, and a size the kernel lacks has no object."""
    before = tree_files(base4, 'run', 'etc')
    for method, params in (('Claim', GLib.Variant('(stta{sv})', ('postgresql', SIZE_2M, 1, {}))),
                           ('Release', GLib.Variant('(sta{sv})', ('postgresql', SIZE_2M, {})))):
        with pytest.raises(BusError) as e:
            hpdtest.call(conn, MANAGER_PATH, MANAGER_IFACE, method, params)
        assert e.value.name == 'org.freedesktop.DBus.Error.UnknownMethod'
    with pytest.raises(BusError) as e:
        claim(conn, 'postgresql', 1, size=12345 * 1024)
    assert e.value.name == 'org.freedesktop.DBus.Error.UnknownMethod'
    assert pool(base4) == 4
    assert tree_files(base4, 'run', 'etc') == before


def test_release_of_no_claim(service, conn, base4, allowed):
    claim(conn, 'postgresql', 3)
    for consumer, opts in (('redis', {}), ('postgresql', {'node': GLib.Variant('u', 1)}),
                           ('postgresql', {'persist': GLib.Variant('b', True)})):
        with pytest.raises(BusError) as e:
            release(conn, consumer, **opts)
        assert e.value.name == ERR_INVALID_ARGS
    assert pool(base4) == 7


@pytest.mark.valgrind
def test_denied_claims_change_nothing(service, conn, base4, polkit):
    before = tree_files(base4, 'run', 'etc')
    with pytest.raises(BusError) as e:
        claim(conn, 'postgresql', 3)
    assert e.value.name == ERR_NOT_AUTHORIZED
    check = polkit.checks()[-1]
    assert check.action == hpdtest.ACTION_POOLS
    assert check.details['consumer'] == 'postgresql'
    assert check.details['pages'] == '3'
    assert pool(base4) == 4
    assert tree_files(base4, 'run', 'etc') == before

    polkit.allow(hpdtest.ACTION_POOLS)
    claim(conn, 'postgresql', 3)
    polkit.reset()
    with pytest.raises(BusError) as e:
        release(conn, 'postgresql')
    assert e.value.name == ERR_NOT_AUTHORIZED
    assert pool(base4) == 7


def test_dry_run_needs_no_authorization_and_changes_nothing(service, conn, base4, polkit):
    before = tree_files(base4, 'run', 'etc')
    assert claim(conn, 'postgresql', 3, dry_run=True) == 3
    assert polkit.checks() == []
    assert pool(base4) == 4
    assert tree_files(base4, 'run', 'etc') == before


# ---- per-node claims ----

def test_node_claims_grow_and_shrink_the_node(service, conn, fake_kernel, allowed):
    fk = fake_kernel
    fk.write(NODE1_2M, '2\n')
    assert claim(conn, 'vm1', 5, node=GLib.Variant('u', 1)) == 5
    assert fk.read_int(NODE1_2M) == 7
    assert claims_prop(conn) == [('vm1', SIZE_2M, 5, 1)]
    assert get_claims(conn)[0]['node'] == 1
    fk.write(NODE1_2M, '3\n')
    assert 'claims-drift-2MB-node1' in explain(conn)
    release(conn, 'vm1', node=GLib.Variant('u', 1))
    assert fk.read_int(NODE1_2M) == 3     # already below: nothing to give back


# ---- persistence, restarts and --apply ----

@pytest.mark.valgrind
def test_persisted_claims_survive_reboot_and_apply(start_service, conn, fake_kernel, allowed,
                                                   hugepagesd):
    fk = fake_kernel
    fk.write(CONF, '[pool 2MB]\nminimum = 4\n')
    fk.write(NR, '4\n')
    svc = start_service(fk.root)
    claim(conn, 'postgresql', 10, persist=True)
    claim(conn, 'scratch', 2)                        # runtime: gone at reboot
    assert pool(fk) == 16
    text = fk.read(f'{ADMIN}/postgresql.conf')
    assert '[2MB]\npages = 10\nuid = 0\n' in text
    assert os.stat(fk.path(f'{ADMIN}/postgresql.conf')).st_mode & 0o777 == 0o644
    assert hpdtest.manager_props(conn)['Drift'] == []   # claims on top of the minimum
    assert svc.terminate() == 0

    # a reboot: the kernel starts empty, /run is gone
    shutil.rmtree(fk.path('run'))
    fk.write(NR, '0\n')
    status, lines, err = apply(hugepagesd, fk)
    assert status == 0, '\n'.join(lines) + err
    assert 'ok      pool 2MB minimum: requested 4 plus 10 claimed, achieved 14' in lines
    assert pool(fk) == 14
    status, lines, err = apply(hugepagesd, fk)        # idempotent
    assert status == 0 and pool(fk) == 14

    start_service(fk.root)
    assert get_claims(conn) == [{'consumer': 'postgresql', 'page-size': SIZE_2M, 'pages': 10,
                                 'uid': 0, 'persisted': True}]
    release(conn, 'postgresql')
    assert pool(fk) == 4
    assert not fk.exists(f'{ADMIN}/postgresql.conf')


def test_runtime_claims_survive_a_restart(start_service, conn, fake_kernel, allowed):
    fk = fake_kernel
    svc = start_service(fk.root)
    claim(conn, 'postgresql', 10)
    assert svc.terminate() == 0
    start_service(fk.root)
    assert claims_prop(conn) == [('postgresql', SIZE_2M, 10, ALL)]
    claim(conn, 'redis', 2)
    assert pool(fk) == 12


def test_apply_without_a_configured_minimum_grows_to_the_claims(hugepagesd, fake_kernel):
    fk = fake_kernel
    fk.write(f'{VENDOR}/postgresql.conf', '[2MB]\npages = 6\n\n[2MB node1]\npages = 2\n')
    fk.write(f'{ADMIN}/libvirt.conf', '[2MB]\npages = 3\nuid = 1000\n')
    status, lines, err = apply(hugepagesd, fk)
    assert status == 0, '\n'.join(lines) + err
    assert 'ok      claims on the 2MB pool: requested at least 11, achieved 11' in lines
    assert 'ok      claims on the 2MB pool on node 1: requested at least 2, achieved 2' in lines
    assert pool(fk) == 11
    assert fk.read_int(NODE1_2M) == 2
    fk.write(NR, '20\n')                  # more than the claims: --apply never shrinks
    status, lines, err = apply(hugepagesd, fk)
    assert status == 0 and pool(fk) == 20


def test_apply_reports_a_claim_on_a_missing_node(hugepagesd, fake_kernel):
    fake_kernel.write(f'{ADMIN}/vm.conf', '[2MB node9]\npages = 2\n')
    status, lines, _ = apply(hugepagesd, fake_kernel)
    assert status != 0
    assert 'FAILED  claim of vm: the 2MB pool has no NUMA node 9' in lines


def test_shipped_claims_are_listed_and_release_masks_them(service, conn, fake_kernel, allowed):
    fk = fake_kernel
    fk.write(f'{VENDOR}/ceph-osd.conf', '[2MB]\npages = 4\n')
    fk.write(f'{VENDOR}/bad.conf', '[2MB]\npages = ten\n\n[2MB node]\npages = 1\n\n'
                                   '[1GB]\npages = 1\nowner = x\n\n[2MB node1]\n')
    fk.write(f'{VENDOR}/Bad-Name.conf', '[2MB]\npages = 1\n')
    assert claims_prop(conn) == [('ceph-osd', SIZE_2M, 4, ALL)]
    assert get_claims(conn)[0]['persisted'] is True
    fk.write(NR, '4\n')
    release(conn, 'ceph-osd')
    assert claims_prop(conn) == []
    assert fk.exists(f'{VENDOR}/ceph-osd.conf')      # the package's file stays
    assert '[2MB]' not in fk.read(f'{ADMIN}/ceph-osd.conf')   # masked
    assert pool(fk) == 0


def test_a_runtime_claim_overrides_a_persisted_one_until_reboot(service, conn, fake_kernel,
                                                                allowed):
    fk = fake_kernel
    claim(conn, 'postgresql', 10, persist=True)
    claim(conn, 'postgresql', 4)
    assert get_claims(conn) == [{'consumer': 'postgresql', 'page-size': SIZE_2M, 'pages': 4,
                                 'uid': 0, 'persisted': False}]
    assert pool(fk) == 4
    claim(conn, 'postgresql', 5, persist=True)       # and persisting drops the runtime one
    assert not fk.exists(f'{RUNTIME}/postgresql.conf')
    assert get_claims(conn)[0]['persisted'] is True
    assert pool(fk) == 5


# ---- the client ----

def ctl(hugepagesctl, bus, *args):
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus.address)
    return subprocess.run([hugepagesctl, *args], env=env, capture_output=True, text=True,
                          timeout=30, stdin=subprocess.DEVNULL)


@pytest.fixture
def hugepagesctl(builddir):
    return os.path.join(builddir, 'client', 'hugepagesctl')


@pytest.mark.valgrind
def test_client_claim_claims_release(service, bus, base4, allowed, hugepagesctl):
    fk = base4
    proc = ctl(hugepagesctl, bus, 'claim', 'postgresql', '2M', '20M', '--persist')
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == 'postgresql: 10 pages of 2MB (requested 10), saved for boot\n'
    proc = ctl(hugepagesctl, bus, 'claim', 'vm1', '2M', '2', '--node', '1')
    assert proc.returncode == 0, proc.stderr
    assert pool(fk) == 14
    proc = ctl(hugepagesctl, bus, 'claims')
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ['CONSUMER', 'SIZE', 'PAGES', 'NODE', 'UID', 'KIND']
    assert lines[1].split() == ['postgresql', '2MB', '10', 'all', 'root', 'persisted']
    assert lines[2].split() == ['vm1', '2MB', '2', '1', 'root', 'runtime']
    proc = ctl(hugepagesctl, bus, 'claims', '--json')
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc['format_version'] == 1
    assert [(c['consumer'], c['page_size'], c['pages'], c['node'], c['uid'], c['persisted'])
            for c in doc['claims']] == [('postgresql', 2 << 20, 10, None, 0, True),
                                        ('vm1', 2 << 20, 2, 1, 0, False)]
    proc = ctl(hugepagesctl, bus, 'release', 'postgresql', '2M')
    assert proc.returncode == 0, proc.stderr
    assert pool(fk) == 6              # the base and vm1's node claim
    proc = ctl(hugepagesctl, bus, 'release', 'postgresql', '2M')
    assert proc.returncode == 2 and 'holds no claim' in proc.stderr


@pytest.mark.parametrize('args', [
    ('claim', 'postgresql', '2M'),
    ('claim', 'postgresql', '2M', '+4'),
    ('claim', 'postgresql', '2M', '3M'),
    ('claim', 'postgresql', '2M', '4', '--node', 'x'),
    ('claim', 'postgresql', '2M', '4', '--drop-caches'),
    ('release', 'postgresql'),
    ('suggest', 'oracle'),
    ('suggest', 'jvm'),
    ('suggest', 'qemu', '--heap', '1G'),
    ('suggest', 'jvm', '--heap', '0'),
])
def test_client_usage_errors(service, bus, allowed, hugepagesctl, args):
    proc = ctl(hugepagesctl, bus, *args)
    assert proc.returncode == 2, proc.stdout + proc.stderr


def test_client_shortfall_exits_3(service, bus, fake_kernel, allowed, hugepagesctl):
    if not fake_kernel.simulating:
        pytest.skip('the fake kernel simulator could not start')
    fake_kernel.limit_pool(2048, 3)
    proc = ctl(hugepagesctl, bus, 'claim', 'postgresql', '2M', '5')
    assert proc.returncode == 3
    assert proc.stdout == 'postgresql: 3 pages of 2MB (requested 5)\n'
    assert 'holds only 3 of the 5' in proc.stderr
    fake_kernel.limit_pool(2048, None)


def test_client_suggest(service, bus, fake_kernel, hugepagesctl, tmp_path):
    proc = ctl(hugepagesctl, bus, 'suggest', 'jvm', '--heap', '8G')
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == 'hugepagesctl claim jvm 2MB 4096 --persist'
    proc = ctl(hugepagesctl, bus, 'suggest', 'qemu', '--memory', '16G', '--page-size', '1G',
               '--name', 'libvirt-vm42')
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == 'hugepagesctl claim libvirt-vm42 1GB 16 --persist'
    proc = ctl(hugepagesctl, bus, 'suggest', 'qemu', '--memory', '16G', '--page-size', '1G',
               '--name', 'libvirt-vm42', '--json')
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert (doc['consumer'], doc['page_size'], doc['pages']) == ('libvirt-vm42', 1 << 30, 16)
    assert doc['command'] == 'hugepagesctl claim libvirt-vm42 1GB 16 --persist'
    # a stand-in for postgres -C, which prints the count and exits 0
    fake = tmp_path / 'postgres'
    fake.write_text('#!/bin/sh\n[ "$1 $3 $4" = "-D -C shared_memory_size_in_huge_pages" ] '
                    '|| exit 1\necho 4213\n')
    fake.chmod(0o755)
    proc = ctl(hugepagesctl, bus, 'suggest', 'postgresql', '--postgres', str(fake),
               '--pgdata', str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == 'hugepagesctl claim postgresql 2MB 4213 --persist'
    proc = ctl(hugepagesctl, bus, 'suggest', 'postgresql', '--memory', '3G')
    assert proc.stdout.splitlines()[-1] == 'hugepagesctl claim postgresql 2MB 1536 --persist'


def test_apply_adds_node_claims_to_the_configured_node_count(hugepagesd, fake_kernel,
                                                              start_service, conn):
    fk = fake_kernel
    fk.write(CONF, '[pool 2MB]\nnode1 = 3\n')
    fk.write(f'{ADMIN}/vm.conf', '[2MB node1]\npages = 2\n')
    status, lines, err = apply(hugepagesd, fk)
    assert status == 0, '\n'.join(lines) + err
    assert 'ok      pool 2MB node 1: requested 3, achieved 3' in lines
    assert 'ok      claims on the 2MB pool on node 1: requested at least 5, achieved 5' in lines
    assert fk.read_int(NODE1_2M) == 5
    start_service(fk.root)
    # the node's configured count and its claims are no drift
    assert [d for d in hpdtest.manager_props(conn)['Drift'] if 'node1' in d['key']] == []


# ---- Release replies what the kernel holds ----

def test_release_replies_the_persistent_pages_read_back(service, conn, fake_kernel, allowed):
    fk = fake_kernel
    fk.write(NR, '4\n')
    claim(conn, 'postgresql', 10)
    claim(conn, 'libvirt-vm42', 6)
    assert release(conn, 'postgresql') == pool(fk) == 10
    # someone shrank the pool to 5: the release takes it to the base (4),
    # not 6 pages below; the reply is what the kernel holds
    fk.write(NR, '5\n')
    assert release(conn, 'libvirt-vm42') == pool(fk) == 4

    fk.write(NODE1_2M, '2\n')
    claim(conn, 'vm1', 5, node=GLib.Variant('u', 1))
    fk.write(NODE1_2M, '3\n')
    # a node release replies the node's pages
    assert release(conn, 'vm1', node=GLib.Variant('u', 1)) == fk.read_int(NODE1_2M) == 3


# ---- the pool model's Base and Target on the bus ----

def size_prop(conn, name):
    return hpdtest.get(conn, page_size_path(2048), PAGE_SIZE_IFACE, name)


def test_base_stays_and_target_adds_the_claims(service, conn, base4, allowed):
    fk = base4
    set_min(conn, 5)
    assert (size_prop(conn, 'Base'), size_prop(conn, 'Target'), size_prop(conn, 'Minimum')) == (5, 5, 5)
    assert claim(conn, 'postgresql', 10) == 10
    assert (size_prop(conn, 'Base'), size_prop(conn, 'Target'), size_prop(conn, 'Minimum')) == \
        (5, 15, pool(fk))
    assert pool(fk) == 15
    # SetMinimum takes the base: Target follows, the claim stays on top
    set_min(conn, 6)
    assert (size_prop(conn, 'Base'), size_prop(conn, 'Target'), size_prop(conn, 'Minimum')) == (6, 16, 16)
    release(conn, 'postgresql')
    assert (size_prop(conn, 'Base'), size_prop(conn, 'Target'), size_prop(conn, 'Minimum')) == (6, 6, 6)


def test_base_is_the_configured_minimum_without_a_set_minimum(service, conn, fake_kernel):
    fake_kernel.write(CONF, '[pool 2MB]\nminimum = 3\n')
    assert (size_prop(conn, 'Base'), size_prop(conn, 'Target')) == (3, 3)
