# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Nothing silent in the configuration (issue 18, points 3 and 4): whether
anything applies it at boot (ApplyAtBoot, `config`, `--persist`, Explain),
values that a later line sets again (ConfigurationOverrides, `config`,
`config --check`), lines this kernel cannot follow (ConfigurationErrors with
FILE:LINE, `config --check` exits 1), and mounts whose limit is a
percentage of an empty pool (Drift)."""

import pytest

import hpdtest
from hpdtunables import explain
from test_client import ctl, hugepagesctl, ok  # noqa: F401

CONF = 'etc/hugepagesd/hugepagesd.conf'
DROPIN = 'etc/hugepagesd/hugepagesd.conf.d/50-site.conf'
OWN = 'etc/hugepagesd/hugepagesd.conf.d/90-persisted.conf'


def props(conn):
    return hpdtest.manager_props(conn)


def findings(conn):
    """Explain's entries by id: (severity, message, fix)."""
    return {id_: (severity, message, fix) for severity, id_, message, fix in explain(conn)}


# ---- apply at boot ----

@pytest.mark.parametrize('kind, enabled, mechanism, fix', [
    ('systemd-enabled', True, 'systemd', ''),
    ('systemd-disabled', False, 'systemd',
     'systemctl enable hugepagesd-apply.service hugepages.target'),
    ('sysvinit-enabled', True, 'sysvinit', ''),
    ('sysvinit-disabled', False, 'sysvinit', 'update-rc.d hugepagesd-apply defaults'),
])
def test_apply_at_boot_property(service, fake_kernel, conn, kind, enabled, mechanism, fix):
    fake_kernel.write_boot_hook(kind)
    hook = props(conn)['ApplyAtBoot']
    assert hook['enabled'] is enabled
    assert hook['mechanism'] == mechanism
    assert hook['fix'] == fix
    assert (hook['message'] == '') is enabled


def test_apply_at_boot_openrc(service, fake_kernel, conn):
    """OpenRC's runlevels are no sysv-rc links: its own command."""
    fake_kernel.write_boot_hook('sysvinit-disabled')
    fake_kernel.write('run/openrc/softlevel', 'default')
    hook = props(conn)['ApplyAtBoot']
    assert (hook['enabled'], hook['fix']) == (False, 'rc-update add hugepagesd-apply boot')
    fake_kernel.write('etc/runlevels/boot/hugepagesd-apply', '')
    assert props(conn)['ApplyAtBoot']['enabled']


def test_apply_at_boot_missing_hook(service, fake_kernel, conn):
    fake_kernel.write_boot_hook(None)
    hook = props(conn)['ApplyAtBoot']
    assert not hook['enabled'] and hook['mechanism'] == 'none'
    # the script comes from the install (data/init.d holds only its template)
    assert hook['fix'].endswith('then enable its init script (update-rc.d hugepagesd-apply defaults)')
    assert 'data/init.d' not in hook['fix']
    assert 'hugepagesd --apply at boot' in hook['message']
    fake_kernel.write_boot_hook('systemd-missing')
    hook = props(conn)['ApplyAtBoot']
    assert not hook['enabled'] and hook['mechanism'] == 'systemd'
    assert 'not installed' in hook['message']


@pytest.mark.valgrind
def test_persist_warns_when_nothing_applies_at_boot(service, fake_kernel, polkit, ctl):
    polkit.allow(hpdtest.ACTION_POOLS)
    fake_kernel.write_boot_hook('systemd-disabled')
    proc = ctl('set-min', '2MB', '2', '--persist')
    assert proc.returncode == 0, proc.stderr
    assert 'hugepagesd-apply.service is not enabled' in proc.stderr
    assert 'systemctl enable hugepagesd-apply.service hugepages.target' in proc.stderr
    assert fake_kernel.exists(OWN)
    # the same in `config`, which has a setting now
    proc = ctl('config')
    assert 'systemctl enable hugepagesd-apply.service hugepages.target' in proc.stderr
    fake_kernel.write_boot_hook('systemd-enabled')
    ok(ctl('set-min', '2MB', '3', '--persist'))


def test_explain_names_the_boot_path_of_the_machine(service, fake_kernel, conn):
    fake_kernel.write(CONF, '[pool 2MB]\nminimum = 4\n')
    fake_kernel.write_boot_hook('sysvinit-disabled')
    found = findings(conn)
    assert found['apply-at-boot'][2] == 'update-rc.d hugepagesd-apply defaults'
    assert found['config-drift'][2] == '/etc/init.d/hugepagesd-apply start'
    fake_kernel.write_boot_hook('systemd-enabled')
    found = findings(conn)
    assert 'apply-at-boot' not in found
    assert found['config-drift'][2] == 'systemctl restart hugepagesd-apply.service'


# ---- overrides ----

@pytest.mark.valgrind
def test_dropin_overrides_main_file(service, fake_kernel, conn, ctl):
    fake_kernel.write(CONF, '[pool 2MB]\nminimum = 4\nmaximum = 10\n')
    fake_kernel.write(DROPIN, '[pool 2MB]\nminimum = 8\n')
    conf, dropin = fake_kernel.path(CONF), fake_kernel.path(DROPIN)
    assert props(conn)['ConfigurationOverrides'] == [
        {'key': 'pool 2MB minimum', 'value': '8', 'origin': f'{dropin}:2', 'overridden': '4',
         'overridden-origin': f'{conf}:2'}]
    out = ok(ctl('config'))
    lines = out.splitlines()
    i = next(n for n, line in enumerate(lines) if line.startswith('pool 2MB minimum'))
    assert lines[i].split() == ['pool', '2MB', 'minimum', '8', f'{dropin}:2']
    assert lines[i + 1] == f'  overrides 4 at {conf}:2 ({dropin}:2 here)'
    proc = ctl('config', '--check')
    assert (f'warning: {dropin}:2: pool 2MB minimum = 8 overrides 4 from {conf}:2'
            in proc.stderr)


def test_persisted_dropin_override_is_shown(service, fake_kernel, conn, polkit, ctl):
    polkit.allow(hpdtest.ACTION_POOLS)
    fake_kernel.write(CONF, '[pool 2MB]\nminimum = 4\n')
    ok(ctl('set-min', '2MB', '6', '--persist'))
    own = fake_kernel.path(OWN)
    overrides = props(conn)['ConfigurationOverrides']
    assert len(overrides) == 1
    key, value, origin, old, old_origin = hpdtest.rows(overrides, hpdtest.OVERRIDE_KEYS)[0]
    assert (key, value, old, old_origin) == ('pool 2MB minimum', '6', '4',
                                             f'{fake_kernel.path(CONF)}:2')
    assert origin.startswith(f'{own}:')
    assert 'overrides 4 at' in ok(ctl('config'))


def test_mount_and_thp_overrides(service, fake_kernel, conn):
    fake_kernel.write(CONF, '[mount system]\nmax-size = 50%\n[thp]\ndefrag = never\n')
    fake_kernel.write(DROPIN, '[mount system]\nmax-size = 25%\n[thp]\ndefrag = madvise\n')
    keys = sorted(o['key'] for o in props(conn)['ConfigurationOverrides'])
    assert keys == ['mount system max-size', 'thp defrag']


# ---- errors this kernel gives the lines ----

def errors_of(conn):
    return props(conn)['ConfigurationErrors']


@pytest.mark.fake_kernel(sizes=(2048,))
def test_boot_page_size_the_kernel_lacks(service, fake_kernel, conn, ctl):
    fake_kernel.write(CONF, '[boot]\n\ndefault-page-size = 1G\n')
    conf = fake_kernel.path(CONF)
    errors = errors_of(conn)
    assert len(errors) == 1 and errors[0].startswith(f'{conf}:3: ')
    assert 'no 1GB huge pages' in errors[0]
    assert ctl('config', '--check').returncode == 1


@pytest.mark.fake_kernel(sizes=(2048,))
def test_mount_page_size_the_kernel_lacks(service, fake_kernel, conn, ctl):
    fake_kernel.write(CONF, '[mount system]\npage-size = 1GB\n')
    errors = errors_of(conn)
    assert len(errors) == 1 and errors[0].startswith(f'{fake_kernel.path(CONF)}:2: ')
    assert ctl('config', '--check').returncode == 1


@pytest.mark.fake_kernel(sizes=(2048,))
def test_pool_page_size_the_kernel_lacks(service, fake_kernel, conn, ctl):
    fake_kernel.write(DROPIN, '[pool 2MB]\nmaximum = 0\n\n[pool 1GB]\nminimum = 1\n')
    errors = errors_of(conn)
    assert len(errors) == 1 and errors[0].startswith(f'{fake_kernel.path(DROPIN)}:4: ')
    assert 'no 1GB huge pages (it has 2MB)' in errors[0]
    # an error of the line, not drift; the setting is still listed
    assert [d['key'] for d in props(conn)['Drift']] == []
    assert 'pool 1GB minimum' in [s['key'] for s in props(conn)['ConfiguredState']]
    proc = ctl('config', '--check')
    assert proc.returncode == 1
    assert f'error: {fake_kernel.path(DROPIN)}:4: ' in proc.stdout


@pytest.mark.valgrind
def test_thp_values_that_are_no_keywords(service, fake_kernel, conn, ctl):
    fake_kernel.write(CONF, '[thp]\nenabled = sometimes\ndefrag = lots\nshmem_enabled = never\n')
    conf = fake_kernel.path(CONF)
    errors = errors_of(conn)
    assert [e.split(' ', 1)[0] for e in errors] == [f'{conf}:3:', f'{conf}:2:']  \
        or sorted(e.split(' ', 1)[0] for e in errors) == [f'{conf}:2:', f'{conf}:3:']
    assert any("'sometimes' is not a value of THP enabled" in e for e in errors)
    # configuration errors, not drift
    assert [d['key'] for d in props(conn)['Drift']] == []
    proc = ctl('config', '--check')
    assert proc.returncode == 1
    assert f'error: {conf}:2: ' in proc.stdout


@pytest.mark.fake_kernel(sizes=(2048,))
def test_overridden_lines_the_kernel_cannot_follow(service, fake_kernel, conn, ctl):
    """A bad line stays an error when a later line sets the key again."""
    fake_kernel.write(CONF, '[thp]\nenabled = sometimes\n[boot]\ndefault-page-size = 1G\n'
                      '[mount system]\npage-size = 1G\n')
    fake_kernel.write(DROPIN, '[thp]\nenabled = never\n[boot]\ndefault-page-size = 2M\n'
                      '[mount system]\npage-size = 2M\n')
    conf = fake_kernel.path(CONF)
    errors = errors_of(conn)
    assert sorted(e.split(' ', 1)[0] for e in errors) == [f'{conf}:2:', f'{conf}:4:', f'{conf}:6:']
    assert any("'sometimes' is not a value of THP enabled" in e for e in errors)
    assert len(props(conn)['ConfigurationOverrides']) == 3
    assert ctl('config', '--check').returncode == 1


def test_unknown_group_is_an_error_with_its_line(service, fake_kernel, conn, ctl):
    fake_kernel.write(DROPIN, '[pool 2MB]\nminimum = 0\n[pools]\nminimum = 2\n')
    errors = errors_of(conn)
    assert len(errors) == 1 and errors[0].startswith(f'{fake_kernel.path(DROPIN)}:3: ')
    assert 'unknown section' in errors[0]
    proc = ctl('config', '--check')
    assert proc.returncode == 1
    # and the drop-in's other lines are still shown
    assert 'pool 2MB minimum 0' in ' '.join(proc.stdout.split())


# ---- drift ----

@pytest.mark.valgrind
def test_percentage_of_an_empty_pool_is_drift(service, fake_kernel, conn, ctl):
    fake_kernel.write(CONF, '[mount system]\npage-size = 2MB\nmax-size = 50%\n')
    drift = props(conn)['Drift']
    assert len(drift) == 1
    key, configured, actual, message = hpdtest.rows(drift, hpdtest.DRIFT_KEYS)[0]
    assert key == 'mount system' and 'No 2MB mount' in message
    assert ctl('config', '--check').returncode == 3
