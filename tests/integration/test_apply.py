# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""hugepagesd --apply on fake kernel trees: the configuration (main file and
drop-ins below the service root) is applied once, every line of the report
says what was asked and what the kernel gave, and the exit status is
non-zero when anything failed or fell short, while the rest still applies."""

import subprocess

import pytest

CONF = 'etc/hugepagesd/hugepagesd.conf'
ADMIN = 'etc/hugepagesd/hugepagesd.conf.d'
VENDOR = 'usr/lib/hugepagesd/hugepagesd.conf.d'
H2 = 'sys/kernel/mm/hugepages/hugepages-2048kB'
H1G = 'sys/kernel/mm/hugepages/hugepages-1048576kB'
NODE1_2M = 'sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages'
THP = 'sys/kernel/mm/transparent_hugepage'



def apply(hugepagesd, fk):
    proc = subprocess.run([hugepagesd, '--kernel-root', fk.root, '--apply'],
                          capture_output=True, text=True, timeout=60)
    return proc.returncode, proc.stdout.splitlines(), proc.stderr


def test_nothing_to_apply(hugepagesd, fake_kernel):
    before = fake_kernel.snapshot()
    status, lines, _ = apply(hugepagesd, fake_kernel)
    assert status == 0
    assert lines == ['Nothing to apply: no configuration found']
    assert fake_kernel.changes_since(before) == {}


def test_pools_nodes_and_tunables(hugepagesd, fake_kernel):
    fake_kernel.write(CONF, '[pool 2MB]\nminimum = 8\nmaximum = 16\nnode1 = 3\n'
                           '[tunables]\nmin-free-kbytes = 70000\n'
                           '[thp]\nkhugepaged/pages_to_scan = 1024\n')
    status, lines, err = apply(hugepagesd, fake_kernel)
    assert status == 0, '\n'.join(lines) + err
    assert 'ok      pool 2MB minimum: requested 8, achieved 8' in lines
    assert 'ok      pool 2MB maximum: requested 16, achieved 16' in lines
    assert 'ok      pool 2MB node 1: requested 3, achieved 3' in lines
    assert fake_kernel.read(f'{H2}/nr_hugepages') == '8\n'
    assert fake_kernel.read(f'{H2}/nr_overcommit_hugepages') == '8\n'
    assert fake_kernel.read(NODE1_2M) == '3\n'
    assert fake_kernel.read('proc/sys/vm/min_free_kbytes') == '70000\n'
    assert fake_kernel.read(f'{THP}/khugepaged/pages_to_scan') == '1024\n'


def test_thp_choice_read_back_by_the_simulated_kernel(hugepagesd, fake_kernel):
    if not fake_kernel.simulating:
        pytest.skip('the fake kernel simulator could not start')
    fake_kernel.write(CONF, '[thp]\nenabled = never\n')
    status, lines, err = apply(hugepagesd, fake_kernel)
    assert status == 0, '\n'.join(lines) + err
    assert lines == ['ok      THP enabled: requested never, achieved never']
    assert fake_kernel.read(f'{THP}/enabled') == 'always madvise [never]\n'


def test_drop_ins_later_names_win_and_etc_masks_usr_lib(hugepagesd, fake_kernel):
    fake_kernel.write(CONF, '[pool 2MB]\nminimum = 2\n')
    fake_kernel.write(f'{VENDOR}/10-vendor.conf', '[pool 2MB]\nminimum = 4\n')
    fake_kernel.write(f'{VENDOR}/50-masked.conf', '[pool 2MB]\nminimum = 40\n')
    fake_kernel.write(f'{ADMIN}/30-admin.conf', '[pool 2MB]\nminimum = 6\n')
    fake_kernel.write(f'{ADMIN}/50-masked.conf', '# nothing\n')
    status, lines, err = apply(hugepagesd, fake_kernel)
    assert status == 0, '\n'.join(lines) + err
    assert lines == ['ok      pool 2MB minimum: requested 6, achieved 6']
    assert fake_kernel.read(f'{H2}/nr_hugepages') == '6\n'


def test_bad_lines_fail_but_the_rest_applies(hugepagesd, fake_kernel):
    fake_kernel.write(CONF, '[pool 2MB]\nminimum = 1M\nmaximum = 4\n[bogus]\n'
                           '[tunables]\nmin-free-kbytes = 70000\n')
    status, lines, _ = apply(hugepagesd, fake_kernel)
    assert status == 1
    failed = [l for l in lines if l.startswith('FAILED')]
    assert any(f'{CONF}:2:' in l for l in failed), lines
    assert any(f'{CONF}:4:' in l for l in failed), lines
    assert 'ok      pool 2MB maximum: requested 4, achieved 4' in lines
    assert fake_kernel.read('proc/sys/vm/min_free_kbytes') == '70000\n'


def test_what_the_kernel_cannot_do_is_a_failure(hugepagesd, fake_kernel):
    # no overcommit for gigantic pages, no zone movable sysctl, no 16 GB pages
    fake_kernel.write(CONF, '[pool 1GB]\nminimum = 1\nmaximum = 2\n'
                           '[pool 16GB]\nminimum = 1\n'
                           '[tunables]\nzone-movable = yes\n')
    before = fake_kernel.snapshot()
    status, lines, _ = apply(hugepagesd, fake_kernel)
    assert status == 1
    assert len(lines) == 3 and all(l.startswith('FAILED') for l in lines), lines
    assert any('cannot overcommit 1GB pages' in l for l in lines)
    assert any('pool 16GB: this kernel has no such page size' in l for l in lines)
    assert any('zone movable: this kernel has no such setting' in l for l in lines)
    assert fake_kernel.changes_since(before) == {}


def test_a_short_pool_is_a_failure(hugepagesd, fake_kernel):
    if not fake_kernel.simulating:
        pytest.skip('the fake kernel simulator could not start')
    fake_kernel.limit_pool(2048, 5)
    fake_kernel.write(CONF, '[pool 2MB]\nminimum = 8\n')
    status, lines, _ = apply(hugepagesd, fake_kernel)
    assert status == 1
    assert 'FAILED  pool 2MB minimum: requested 8, achieved 5' in lines


def test_over_the_memory_limit_is_refused(hugepagesd, fake_kernel):
    fake_kernel.write(CONF, '[pool 2MB]\nminimum = 1000000\n')
    before = fake_kernel.snapshot()
    status, lines, _ = apply(hugepagesd, fake_kernel)
    assert status == 1
    assert len(lines) == 1 and lines[0].startswith('FAILED  pool 2MB:') and 'limit' in lines[0]
    assert fake_kernel.changes_since(before) == {}


@pytest.mark.parametrize('rel,text,place', [
    (CONF, '[pool 2MB]\nnode1 = 1000000\n', 'pool 2MB node 1'),
    ('etc/hugepagesd/claims.d/vm.conf', '[2MB]\npages = 1000000\n', 'claims on the 2MB pool'),
    ('etc/hugepagesd/claims.d/vm.conf', '[2MB node1]\npages = 1000000\n',
     'claims on the 2MB pool on node 1'),
])
def test_every_growth_keeps_the_memory_limit(hugepagesd, fake_kernel, rel, text, place):
    """A configured node and a claim, on the pool or on a node, grow only
    within PoolMemoryLimit: a claim checked when made can ask too much of a
    machine that has less memory now."""
    fake_kernel.write(rel, text)
    before = fake_kernel.snapshot()
    status, lines, _ = apply(hugepagesd, fake_kernel)
    assert status == 1
    failed = [line for line in lines if line.startswith('FAILED')]
    # a node's claim is one of the pool's claims too: both are refused
    assert any(line.startswith(f'FAILED  {place}:') for line in failed), lines
    assert all('would exceed the limit' in line for line in failed), lines
    assert fake_kernel.changes_since(before) == {}
