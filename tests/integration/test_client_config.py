# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""hugepagesctl --persist on the changing commands and `hugepagesctl config`:
the option reaches the service (the saved file shows it), and `config`
lists the configured settings with their origin, marks drift, shows bad
lines, and with --check says so in its exit status."""

import pytest

import hpdtest
from hpdtunables import ACTION_TUNABLES
from test_client import ctl, hugepagesctl, ok, usage_error  # noqa: F401

OWN = 'etc/hugepagesd/hugepagesd.conf.d/90-persisted.conf'
CONF = 'etc/hugepagesd/hugepagesd.conf'
H2 = 'sys/kernel/mm/hugepages/hugepages-2048kB'



def saved(fk):
    return fk.read(OWN).split('\n\n', 1)[1] if fk.exists(OWN) else None


@pytest.mark.valgrind
def test_set_min_persist(service, fake_kernel, polkit, ctl):
    polkit.allow(hpdtest.ACTION_POOLS)
    ok(ctl('set-min', '2MB', '6', '--persist'))
    assert saved(fake_kernel) == '[pool 2MB]\nminimum = 6\n'
    ok(ctl('set-node', '1', '2MB', '2', '--persist'))
    assert saved(fake_kernel) == '[pool 2MB]\nnode1 = 2\n'


@pytest.mark.valgrind
def test_tunable_persist(service, fake_kernel, polkit, ctl):
    polkit.allow(ACTION_TUNABLES)
    ok(ctl('min-free-kbytes', 'recommended', '--persist'))
    assert saved(fake_kernel) == '[tunables]\nmin-free-kbytes = recommended\n'
    ok(ctl('thp', 'defrag=never', '--persist'))
    assert saved(fake_kernel).endswith('[thp]\ndefrag = never\n')


def test_persist_without_a_change_is_a_usage_error(service, fake_kernel, ctl):
    usage_error(ctl('min-free-kbytes', '--persist'), '--persist only applies to a change')
    assert not fake_kernel.exists(OWN)


@pytest.mark.valgrind
def test_config_lists_origins_drift_and_errors(service, fake_kernel, ctl):
    fake_kernel.write(CONF, '[pool 2MB]\nminimum = 4\n[tunables]\nzone-movable = maybe\n')
    conf = fake_kernel.path(CONF)
    proc = ctl('config')
    out = ok(proc)
    lines = out.splitlines()
    assert lines[0].split() == ['pool', '2MB', 'minimum', '4', f'{conf}:2']
    assert lines[1] == '  ! Pages in the 2MB pool: 0, the configuration asks for 4'
    assert lines[2].startswith(f'error: {conf}:4: ')
    assert ctl('config', '--check').returncode == 1


@pytest.mark.valgrind
def test_config_check_reports_drift_only_when_there_is_some(service, fake_kernel, ctl):
    assert ok(ctl('config')) == 'Nothing is configured.\n'
    fake_kernel.write(CONF, '[pool 2MB]\nminimum = 4\n')
    assert ctl('config', '--check').returncode == 3
    fake_kernel.write(f'{H2}/nr_hugepages', 4)
    proc = ctl('config', '--check')
    assert proc.returncode == 0
    assert '!' not in proc.stdout
