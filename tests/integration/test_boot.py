# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Boot parameters on fake kernel trees: BootParameters follows the
configuration files below the service's root (read afresh, no restart),
KernelCommandLine is the huge page part of the tree's proc/cmdline, and
RebootRequired compares the two by meaning. ConfigureBoot writes exactly one
file, etc/default/grub.d/hugepagesd.cfg, of a Debian tree (debian_version,
default/grub, update-grub), only when polkit allows
org.hugepages.manager.configure-boot, never runs the tree's update-grub,
leaves an identical file alone and removes it when there is nothing to ask
for; elsewhere it is NotSupported with the text to add. Then Explain's
reboot-required and `hugepagesctl boot`."""

import os
import stat

import pytest

import hpdtest
from hpdtest import (ERR_FAILED, ERR_INVALID_ARGS, ERR_NOT_AUTHORIZED, ERR_NOT_SUPPORTED,
                     MANAGER_IFACE, MANAGER_PATH, BusError)
from hpdtunables import explain
from gi.repository import GLib
# the command-line fixtures and checks of the client tests
from test_client import ctl, hugepagesctl, ok, refusal, usage_error  # noqa: F401

ACTION_BOOT = 'org.hugepages.manager.configure-boot'
CONF = 'etc/hugepagesd/hugepagesd.conf'
ADMIN = 'etc/hugepagesd/hugepagesd.conf.d'
GRUB = 'etc/default/grub'
GRUB_D = 'etc/default/grub.d'
DROPIN = 'etc/default/grub.d/hugepagesd.cfg'
UPDATE_GRUB = 'usr/sbin/update-grub'
MARKER = 'update-grub-ran'
GRUB_TEXT = 'GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX=""\n'
HEADER = ('# Huge pages at boot: written by hugepagesd (ConfigureBoot, as in\n'
          '# "hugepagesctl boot --write") from /etc/hugepagesd/hugepagesd.conf and its\n'
          '# drop-ins. Changes made here are lost: change the configuration and write\n'
          '# it again. update-grub puts it into grub.cfg.\n')
NODES = '[pool 1G]\nnode0 = 2\nnode1 = 2\n[pool 2MB]\nminimum = 512\n'
NODES_PARAMS = 'hugepagesz=1G hugepages=0:2,1:2'
FOUR = '[pool 1GB]\nminimum = 4G\n'
FOUR_PARAMS = 'hugepagesz=1G hugepages=4'


def put(fk, rel, text):
    path = fk.path(rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)


def debian(fk, grub_d=True, update_grub=True):
    """A Debian tree with GRUB. Its update-grub leaves a mark if run."""
    put(fk, 'etc/debian_version', '12.11\n')
    put(fk, GRUB, GRUB_TEXT)
    if grub_d:
        os.makedirs(fk.path(GRUB_D), exist_ok=True)
    if update_grub:
        put(fk, UPDATE_GRUB, f'#!/bin/sh\ntouch {fk.path(MARKER)}\n')
        os.chmod(fk.path(UPDATE_GRUB), 0o755)


def dropin(params):
    return f'{HEADER}GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX {params}"\n'


def prop(conn, name):
    return hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, name)


def boot_props(conn):
    return tuple(prop(conn, name) for name in ('BootParameters', 'KernelCommandLine',
                                               'RebootRequired'))


def configure_boot(conn, options=None, **opts):
    params = GLib.Variant('(a{sv})', (options if options is not None else hpdtest.options(**opts),))
    return hpdtest.call(conn, MANAGER_PATH, MANAGER_IFACE, 'ConfigureBoot', params, '(s)')[0]


def refused(conn, fk, polkit, error, **opts):
    """ConfigureBoot fails with error, changes no file and asks no polkit."""
    before = fk.snapshot()
    with pytest.raises(BusError) as e:
        configure_boot(conn, **opts)
    assert e.value.name == error, e.value
    assert fk.changes_since(before) == {}
    assert polkit.checks() == []
    return e.value


@pytest.fixture
def allowed(polkit):
    polkit.allow(ACTION_BOOT)
    return polkit


# --- the properties --------------------------------------------------------------

def test_nothing_configured_nothing_booted(service, conn, fake_kernel):
    assert boot_props(conn) == ('', '', False)


@pytest.mark.valgrind
def test_properties_follow_the_files(service, conn, fake_kernel):
    put(fake_kernel, CONF, NODES)
    # no proc/cmdline: a kernel booted without huge page parameters
    assert boot_props(conn) == (NODES_PARAMS, '', True)

    fake_kernel.write_cmdline('BOOT_IMAGE=/boot/vmlinuz-6.1.0-13-amd64 root=UUID=0f3c ro  '
                              'hugepagesz=1GB\t"hugepages=0:2,1:2" quiet -- hugepages=9')
    assert boot_props(conn) == (NODES_PARAMS, 'hugepagesz=1GB hugepages=0:2,1:2', False)

    # a drop-in wins key by key
    put(fake_kernel, f'{ADMIN}/50-boot.conf', '[pool 1G]\nnode1 = 3\n')
    assert boot_props(conn) == ('hugepagesz=1G hugepages=0:2,1:3',
                                'hugepagesz=1GB hugepages=0:2,1:2', True)

    # the configuration drops the gigantic pool: nothing to compare
    os.unlink(fake_kernel.path(CONF))
    os.unlink(fake_kernel.path(f'{ADMIN}/50-boot.conf'))
    assert boot_props(conn) == ('', 'hugepagesz=1GB hugepages=0:2,1:2', False)


@pytest.mark.fake_kernel(cmdline='ro default_hugepagesz=1G hugepages=4 hugetlb_free_vmemmap=on '
                                 'transparent_hugepage=madvise')
def test_default_page_size_and_the_default_pool(service, conn, fake_kernel):
    put(fake_kernel, CONF, '[boot]\ndefault-page-size = 1G\n[pool DEFAULT]\nminimum = 4G\n')
    assert boot_props(conn) == ('default_hugepagesz=1G hugepagesz=1G hugepages=4',
                                'default_hugepagesz=1G hugepages=4 hugetlb_free_vmemmap=on', False)
    put(fake_kernel, CONF, '[boot]\ndefault-page-size = 2M\n')
    assert boot_props(conn)[::2] == ('default_hugepagesz=2M', True)


@pytest.mark.fake_kernel(cmdline='hugepages=2')
def test_leading_hugepages_are_the_default_size(service, conn, fake_kernel):
    # the tree's default is 2 MB: these pages are not gigantic ones
    put(fake_kernel, CONF, '[pool 1G]\nminimum = 2\n')
    assert boot_props(conn) == ('hugepagesz=1G hugepages=2', 'hugepages=2', True)


def test_get_all_has_them(service, conn, fake_kernel):
    put(fake_kernel, CONF, FOUR)
    props = hpdtest.manager_props(conn)
    assert (props['BootParameters'], props['KernelCommandLine'], props['RebootRequired']) == \
        (FOUR_PARAMS, '', True)


def test_unprivileged_callers_read_them(service, conn, fake_kernel, run_python_as, NOBODY):
    put(fake_kernel, CONF, FOUR)
    fake_kernel.write_cmdline(FOUR_PARAMS)
    results = run_python_as(NOBODY, [['get', MANAGER_PATH, MANAGER_IFACE, name]
                                     for name in ('BootParameters', 'KernelCommandLine',
                                                  'RebootRequired')])
    assert [r['ok'] for r in results] == [FOUR_PARAMS, FOUR_PARAMS, False]


# --- ConfigureBoot ----------------------------------------------------------------

@pytest.mark.valgrind
def test_not_authorized_writes_nothing(service, conn, fake_kernel, polkit):
    debian(fake_kernel)
    put(fake_kernel, CONF, FOUR)
    before = fake_kernel.snapshot()
    with pytest.raises(BusError) as e:
        configure_boot(conn)
    assert e.value.name == ERR_NOT_AUTHORIZED
    assert 'boot configuration' in e.value.message
    assert fake_kernel.changes_since(before) == {}
    checks = polkit.checks()
    assert [c.action for c in checks] == [ACTION_BOOT]
    assert checks[0].details == {'boot-parameters': FOUR_PARAMS,
                                 'path': fake_kernel.path(DROPIN)}
    assert checks[0].subject[0] == 'system-bus-name'


def test_unprivileged_caller_not_authorized(service, conn, fake_kernel, polkit, run_python_as,
                                            NOBODY):
    debian(fake_kernel)
    put(fake_kernel, CONF, FOUR)
    before = fake_kernel.snapshot()
    results = run_python_as(NOBODY, [['call', MANAGER_PATH, MANAGER_IFACE, 'ConfigureBoot',
                                      '(a{sv})', '({},)', '(s)', False]])
    assert results[0]['error'] == ERR_NOT_AUTHORIZED
    assert fake_kernel.changes_since(before) == {}


@pytest.mark.valgrind
def test_writes_the_dropin_and_nothing_else(service, conn, fake_kernel, allowed):
    debian(fake_kernel)
    put(fake_kernel, CONF, NODES)
    before = fake_kernel.snapshot()
    path = configure_boot(conn)
    assert path == fake_kernel.path(DROPIN)
    assert fake_kernel.changes_since(before) == {
        DROPIN: (None, dropin(NODES_PARAMS).encode())}
    assert stat.S_IMODE(os.lstat(path).st_mode) == 0o644
    assert not fake_kernel.exists(MARKER)          # update-grub is not run under a fake root
    assert [c.action for c in allowed.checks()] == [ACTION_BOOT]
    # the running kernel is what it was
    assert boot_props(conn) == (NODES_PARAMS, '', True)

    # again: the same file, left alone
    inode = os.lstat(path).st_ino
    before = fake_kernel.snapshot()
    assert configure_boot(conn) == path
    assert fake_kernel.changes_since(before) == {}
    assert os.lstat(path).st_ino == inode

    # a changed configuration replaces it
    put(fake_kernel, CONF, FOUR + '[boot]\ndefault-page-size = 1G\n')
    before = fake_kernel.snapshot()
    assert configure_boot(conn) == path
    assert fake_kernel.changes_since(before) == {
        DROPIN: (dropin(NODES_PARAMS).encode(),
                 dropin('default_hugepagesz=1G ' + FOUR_PARAMS).encode())}


@pytest.mark.valgrind
def test_removes_the_dropin_when_nothing_is_asked(service, conn, fake_kernel, allowed):
    debian(fake_kernel)
    put(fake_kernel, CONF, FOUR)
    path = configure_boot(conn)
    written = fake_kernel.read(DROPIN)

    # no gigantic pool left: 2 MB pages are --apply's
    put(fake_kernel, CONF, '[pool 2MB]\nminimum = 8\n[pool 1G]\nmaximum = 4\n')
    assert prop(conn, 'BootParameters') == ''
    before = fake_kernel.snapshot()
    assert configure_boot(conn) == path
    assert fake_kernel.changes_since(before) == {DROPIN: (written.encode(), None)}
    assert os.path.isdir(fake_kernel.path(GRUB_D))

    before = fake_kernel.snapshot()
    assert configure_boot(conn) == path
    assert fake_kernel.changes_since(before) == {}
    assert not fake_kernel.exists(MARKER)


def test_makes_grub_d(service, conn, fake_kernel, allowed):
    debian(fake_kernel, grub_d=False)
    put(fake_kernel, CONF, FOUR)
    configure_boot(conn)
    assert stat.S_IMODE(os.lstat(fake_kernel.path(GRUB_D)).st_mode) == 0o755
    assert fake_kernel.read(DROPIN) == dropin(FOUR_PARAMS)
    assert fake_kernel.read(GRUB) == GRUB_TEXT


@pytest.mark.valgrind
def test_no_writing_through_a_linked_grub_d(service, conn, fake_kernel, allowed, tmp_path):
    debian(fake_kernel, grub_d=False)
    os.symlink(tmp_path, fake_kernel.path(GRUB_D))
    put(fake_kernel, CONF, FOUR)
    with pytest.raises(BusError) as e:
        configure_boot(conn)
    assert e.value.name == ERR_FAILED
    assert os.listdir(tmp_path) == []


def test_content_is_only_numbers(service, conn, fake_kernel, allowed):
    debian(fake_kernel)
    # lines that try to put text into the drop-in are configuration errors
    put(fake_kernel, CONF, '[pool 1G]\nminimum = 4"; reboot; "\nnode0 = $(reboot)\nminimum = 3\n'
                           '[boot]\ndefault-page-size = 1G" init=/bin/sh "\n')
    configure_boot(conn)
    assert fake_kernel.read(DROPIN) == dropin('hugepagesz=1G hugepages=3')


# --- BootDropIn -------------------------------------------------------------------

@pytest.mark.valgrind
def test_drop_in_is_compared_as_configure_boot_writes_it(service, conn, fake_kernel, allowed):
    debian(fake_kernel)
    path = fake_kernel.path(DROPIN)
    # nothing asked, no file: nothing to write
    assert prop(conn, 'BootDropIn') == {'path': path, 'text': '', 'up-to-date': True,
                                        'contents': ''}
    put(fake_kernel, CONF, FOUR)
    assert prop(conn, 'BootDropIn') == {'path': path, 'text': dropin(FOUR_PARAMS),
                                        'up-to-date': False, 'contents': ''}
    configure_boot(conn)
    assert prop(conn, 'BootDropIn') == {'path': path, 'text': dropin(FOUR_PARAMS),
                                        'up-to-date': True, 'contents': dropin(FOUR_PARAMS)}
    # the right line is not enough: a line added by hand is lost at the next write
    stale = dropin(FOUR_PARAMS) + 'GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX default_hugepagesz=1G"\n'
    put(fake_kernel, DROPIN, stale)
    assert prop(conn, 'BootDropIn') == {'path': path, 'text': dropin(FOUR_PARAMS),
                                        'up-to-date': False, 'contents': stale}
    configure_boot(conn)
    assert prop(conn, 'BootDropIn')['up-to-date'] is True
    # nothing asked any more: the file is to go
    put(fake_kernel, CONF, '')
    assert prop(conn, 'BootDropIn') == {'path': path, 'text': '', 'up-to-date': False,
                                        'contents': dropin(FOUR_PARAMS)}


def test_drop_in_contents_only_when_anybody_may_read_them(service, conn, fake_kernel):
    debian(fake_kernel)
    put(fake_kernel, CONF, FOUR)
    put(fake_kernel, DROPIN, dropin(FOUR_PARAMS))
    os.chmod(fake_kernel.path(DROPIN), 0o600)
    # the comparison is still made: ConfigureBoot would leave it alone
    assert prop(conn, 'BootDropIn') == {'path': fake_kernel.path(DROPIN),
                                        'text': dropin(FOUR_PARAMS), 'up-to-date': True}
    os.chmod(fake_kernel.path(DROPIN), 0o644)
    os.chmod(fake_kernel.path(GRUB_D), 0o700)
    try:
        assert 'contents' not in prop(conn, 'BootDropIn')
    finally:
        os.chmod(fake_kernel.path(GRUB_D), 0o755)
    # a link is not followed
    os.unlink(fake_kernel.path(DROPIN))
    os.symlink(fake_kernel.path(CONF), fake_kernel.path(DROPIN))
    drop_in = prop(conn, 'BootDropIn')
    assert 'contents' not in drop_in and drop_in['up-to-date'] is False


def test_drop_in_contents_are_a_bus_string(service, conn, fake_kernel):
    debian(fake_kernel)
    with open(fake_kernel.path(DROPIN), 'wb') as f:
        f.write(b'# caf\xe9\nGRUB_CMDLINE_LINUX="x"\n\0after the NUL\n')
    drop_in = prop(conn, 'BootDropIn')
    assert drop_in['contents'] == '# caf\ufffd\nGRUB_CMDLINE_LINUX="x"\n'
    with open(fake_kernel.path(DROPIN), 'w') as f:
        f.write('#' * (64 * 1024 + 1))
    assert 'contents' not in prop(conn, 'BootDropIn')


@pytest.mark.parametrize('missing', ['debian_version', 'grub', 'update-grub'])
@pytest.mark.valgrind(first=1)
def test_not_supported_says_what_to_add(service, conn, fake_kernel, allowed, missing):
    put(fake_kernel, CONF, NODES)
    if missing != 'debian_version':
        put(fake_kernel, 'etc/debian_version', '12.11\n')
    if missing != 'grub':
        put(fake_kernel, GRUB, GRUB_TEXT)
    if missing != 'update-grub':
        put(fake_kernel, UPDATE_GRUB, '#!/bin/sh\n')
    for opts in ({}, {'dry_run': True}):
        error = refused(conn, fake_kernel, allowed, ERR_NOT_SUPPORTED, **opts)
        assert f'Add "{NODES_PARAMS}" to the kernel command line' in error.message


def test_not_supported_with_nothing_to_add(service, conn, fake_kernel, allowed):
    error = refused(conn, fake_kernel, allowed, ERR_NOT_SUPPORTED)
    assert 'nothing to add' in error.message


@pytest.mark.valgrind
def test_dry_run_writes_nothing_and_needs_no_authorization(service, conn, fake_kernel, polkit):
    debian(fake_kernel, grub_d=False)
    put(fake_kernel, CONF, FOUR)
    before = fake_kernel.snapshot()
    assert configure_boot(conn, dry_run=True) == fake_kernel.path(DROPIN)
    assert fake_kernel.changes_since(before) == {}
    assert not fake_kernel.exists(GRUB_D)
    assert polkit.checks() == []
    # dry-run false is a real call, which polkit refuses here
    with pytest.raises(BusError) as e:
        configure_boot(conn, dry_run=False)
    assert e.value.name == ERR_NOT_AUTHORIZED


@pytest.mark.parametrize('options', [
    {'bogus': GLib.Variant('b', True)},
    {'dry-run': GLib.Variant('s', 'true')},
    {'dry-run': GLib.Variant('b', True), 'persist': GLib.Variant('b', True)},
])
@pytest.mark.valgrind(first=1)
def test_bad_options(service, conn, fake_kernel, allowed, options):
    debian(fake_kernel)
    put(fake_kernel, CONF, FOUR)
    before = fake_kernel.snapshot()
    with pytest.raises(BusError) as e:
        configure_boot(conn, options=options)
    assert e.value.name == ERR_INVALID_ARGS
    assert fake_kernel.changes_since(before) == {}
    assert allowed.checks() == []


@pytest.mark.valgrind
def test_configuration_that_cannot_be_used_is_refused(service, conn, fake_kernel, allowed):
    debian(fake_kernel)
    put(fake_kernel, CONF, '[pool 1G]\nnode0 = 1\nnode7 = 1\n[boot]\ndefault-page-size = 4M\n')
    # what can be used is shown
    assert prop(conn, 'BootParameters') == 'hugepagesz=1G hugepages=0:1'
    for opts in ({}, {'dry_run': True}):
        error = refused(conn, fake_kernel, allowed, ERR_FAILED, **opts)
        assert f'{fake_kernel.path(CONF)}:3: pool 1GB node 7: no such NUMA node' in error.message
        assert 'default-page-size 4MB is not a huge page size of this kernel' in error.message


# --- Explain ----------------------------------------------------------------------

@pytest.mark.valgrind
def test_explain_reboot_required(service, conn, fake_kernel):
    assert 'reboot-required' not in {e[1] for e in explain(conn)}
    put(fake_kernel, CONF, FOUR)
    entries = {e[1]: e for e in explain(conn)}
    severity, _id, message, fix = entries['reboot-required']
    assert severity == 'warning'
    assert fix == 'hugepagesctl boot --write, then reboot'
    assert message.startswith(f'The configuration asks for the boot parameters "{FOUR_PARAMS}", '
                              'but the kernel was booted without huge page parameters')
    fake_kernel.write_cmdline(f'ro {FOUR_PARAMS}')
    assert 'reboot-required' not in {e[1] for e in explain(conn)}
    # no gigantic pages wanted any more, but the kernel reserved some
    put(fake_kernel, CONF, '[pool 1G]\nminimum = 0\n')
    message = {e[1]: e for e in explain(conn)}['reboot-required'][2]
    assert message.startswith('The configuration asks for no gigantic pages at boot, but the '
                              f'kernel was booted with "{FOUR_PARAMS}"')


# --- hugepagesctl boot ------------------------------------------------------------

def test_client_shows_them(service, ctl, fake_kernel):
    assert ok(ctl('boot')) == ('Boot parameters:      none\n'
                               'Kernel command line:  none\n'
                               'Reboot required:      no\n')
    put(fake_kernel, CONF, FOUR)
    fake_kernel.write_cmdline('ro hugepagesz=1G hugepages=2 quiet')
    assert ok(ctl('boot')) == (f'Boot parameters:      {FOUR_PARAMS}\n'
                               'Kernel command line:  hugepagesz=1G hugepages=2\n'
                               'Reboot required:      yes\n'
                               '\n'
                               "Run 'hugepagesctl boot --write', then reboot.\n")


@pytest.mark.valgrind
def test_client_writes(service, ctl, fake_kernel, allowed):
    debian(fake_kernel)
    put(fake_kernel, CONF, FOUR)
    path = fake_kernel.path(DROPIN)
    assert ok(ctl('boot', '--write', '--dry-run')) == f'would write {path}: {FOUR_PARAMS}\n'
    assert not fake_kernel.exists(DROPIN)
    assert allowed.checks() == []
    assert ok(ctl('boot', '--write')) == (
        f'Wrote {path}: {FOUR_PARAMS}\n'
        'The running kernel is unchanged: reboot for the boot parameters to apply.\n')
    assert fake_kernel.read(DROPIN) == dropin(FOUR_PARAMS)
    put(fake_kernel, CONF, '')
    assert ok(ctl('boot', '--write')).startswith(
        f'Removed {path}: the configuration asks for no boot parameters\n')
    assert not fake_kernel.exists(DROPIN)


def test_client_not_supported_prints_what_to_add(service, ctl, fake_kernel, allowed):
    put(fake_kernel, CONF, NODES)
    proc = ctl('boot', '--write')
    assert proc.returncode == 1
    assert proc.stdout == f'Add to the kernel command line: {NODES_PARAMS}\n'
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith('hugepagesctl: ')
    assert f'"{NODES_PARAMS}"' in lines[0]


def test_client_not_authorized(service, ctl, fake_kernel, polkit):
    debian(fake_kernel)
    put(fake_kernel, CONF, FOUR)
    proc = ctl('boot', '--write')
    assert proc.returncode == 1
    assert refusal(proc.stderr) == 'hugepagesctl: Not authorized to change the boot configuration\n'
    assert not fake_kernel.exists(DROPIN)


@pytest.mark.parametrize('args,text', [
    (('boot', '--dry-run'), '--dry-run only applies to --write'),
    (('boot', 'now'), "boot takes no arguments, but got 'now'"),
    (('boot', '--bogus'), 'Unknown option --bogus'),
])
def test_client_usage(service, ctl, args, text):
    usage_error(ctl(*args), text)
