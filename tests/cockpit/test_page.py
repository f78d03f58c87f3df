# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""The Cockpit page in a real browser: cockpit-ws and cockpit-bridge on
loopback, the private system bus with the real policy, the polkitd mock and
hugepagesd on a fake kernel tree; chromium runs the scenarios of browser.mjs
(which assert what the page shows) and this side checks what reached the
(fake) kernel. Screenshots: BUILDDIR/test-results/cockpit/."""

import importlib.util
import os
import shutil

import pytest

import hpdtest
from conftest import REPO, in_private_mount_namespace
from fakekernel import Pool, Tunables

# the usage tests' fake processes, shared rather than copied
_spec = importlib.util.spec_from_file_location(
    'hpd_test_usage', os.path.join(REPO, 'tests', 'integration', 'test_usage.py'))
usage = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(usage)
# the boot tests' Debian tree with GRUB and the drop-in it gets
_spec = importlib.util.spec_from_file_location(
    'hpd_test_boot', os.path.join(REPO, 'tests', 'integration', 'test_boot.py'))
boot = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(boot)

H2 = 'sys/kernel/mm/hugepages/hugepages-2048kB'
CONF = 'etc/hugepagesd/hugepagesd.conf'
PERSISTED = 'etc/hugepagesd/hugepagesd.conf.d/90-persisted.conf'
ACTION_TUNABLES = 'org.hugepages.manager.configure-tunables'


@pytest.fixture
def service(start_service, fake_kernel, polkit):
    return start_service(fake_kernel.root, check=True)


@pytest.mark.fake_kernel(pools={2048: Pool(total=4, free=3)})
def test_pools_resize_progress_and_live_updates(service, fake_kernel, polkit, browser):
    polkit.allow(hpdtest.ACTION_POOLS)
    fake_kernel.limit_pool(2048, 12)
    fake_kernel.write(CONF, '[pool 2MB]\nnode0 = 2\n')
    seen = browser('pools', total=4, free=3, grant=6, ask=20, limit=12, behind=3, node1=5,
                   node0=4)
    assert seen['pools'] == ['2MB', '1GB']
    # node 0's configured pages beside its pages; node 1 has no target
    assert seen['nodeTargets'] == [['0', 'target 2'], ['1', None]]
    assert seen['bar'] == '2MB pool: 1 in use, 0 reserved, 3 free, 0 surplus'
    assert len(seen['nodeBars']) == 2
    assert all(b.startswith('2MB pages on node ') and b.endswith(' surplus') for b in seen['nodeBars'])
    assert 'whole number' in seen['nodeInvalid']
    assert seen['granted'] == '6'
    # the progress bar showed the call under way, against the target asked
    assert ' of 20 pages' in seen['progress']
    assert fake_kernel.read_int(f'{H2}/nr_hugepages') == 3
    assert seen['phase'] in ('allocating', 'compacting', 'node 0', 'node 1', 'done')
    assert fake_kernel.read_int(fake_kernel.node_file(1, 2048, 'nr_hugepages')) == 5
    assert [c.action for c in polkit.checks()] == [hpdtest.ACTION_POOLS] * 3
    # the chart: the pool's totals as they came (4, 6, 12, 3 at least), now 3
    assert seen['chartSamples'] >= 4
    assert 'now 3 pages' in seen['chartLabel']
    assert seen['chartPath'].startswith('M') and seen['chartPath'].count('H') >= 4


def test_denied_change_shows_the_reason_and_turns_read_only(service, fake_kernel, polkit, browser):
    before = fake_kernel.snapshot()
    seen = browser('denied')
    assert 'org.hugepages.Manager.Error' not in seen['notice']
    assert fake_kernel.kernel_changes_since(before) == {}
    assert [c.action for c in polkit.checks()] == [hpdtest.ACTION_POOLS]


@pytest.mark.cockpit_user(65534)
def test_limited_session_is_read_only_with_the_reason(service, fake_kernel, polkit, browser):
    # no administrative access and no polkit rule for this user: the page
    # asks polkit about itself and is read only before anything is tried
    before = fake_kernel.snapshot()
    seen = browser('limited')
    assert 'Administrative access is off' in seen['readonly']
    assert 'Administrative access is off' in seen['bootReadonly']
    assert fake_kernel.kernel_changes_since(before) == {}
    assert [(c.subject[0], c.action) for c in polkit.checks()] == [
        ('unix-process', hpdtest.ACTION_POOLS)]


def test_missing_service_is_explained(fake_kernel, polkit, browser):
    seen = browser('missing')
    assert 'org.freedesktop.DBus' not in seen['unavailable']


def test_service_error_is_explained(service, fake_kernel, polkit, browser):
    polkit.allow(hpdtest.ACTION_POOLS)
    before = fake_kernel.snapshot()
    # 16 GiB of memory: a million 2 MiB pages is far beyond the pool limit
    seen = browser('limit', pages=1000000)
    assert 'org.hugepages.Manager.Error' not in seen['notice']
    assert fake_kernel.kernel_changes_since(before) == {}


@pytest.mark.fake_kernel(tunables=Tunables(thp_enabled='always'))
def test_explain_fix_button_applies_the_fix(service, fake_kernel, polkit, browser):
    polkit.allow(ACTION_TUNABLES)
    seen = browser('explain')
    assert 'madvise' in seen['finding']
    assert seen['thp'] == 'always [madvise] never'


@pytest.mark.fake_kernel(tunables=Tunables(min_free_kbytes=1024))
def test_configuration_drift_tunables_and_usage(service, fake_kernel, polkit, browser):
    polkit.allow(ACTION_TUNABLES, 'org.hugepages.manager.inspect-usage')
    fake_kernel.write(CONF, '[pool 2MB]\nminimum = 4\n[thp]\nenabled = madvise\n')
    recommended = fake_kernel.recommended_min_free_kbytes()
    # two processes with anonymous huge pages (3 and 1), one cgroup holding 4 MiB
    for pid, pages in ((4343, 3), (4444, 1)):
        usage.add_process(fake_kernel, pid, 0, f'loader{pid}',
                          usage.vma(0x7f2000000000, 0x7f2000000000 + pages * usage.MiB * 2, '00:10', 37,
                                    '/anon_hugepage (deleted)', 2048, private_kb=pages * 2048,
                                    flags='rd wr mr mw me ac ht'))
    fake_kernel.write('sys/fs/cgroup/cgroup.controllers', 'cpu memory hugetlb\n')
    fake_kernel.write('sys/fs/cgroup/db.slice/hugetlb.2MB.current', f'{4 * usage.MiB}\n')
    fake_kernel.write('sys/fs/cgroup/db.slice/hugetlb.2MB.max', f'{8 * usage.MiB}\n')
    seen = browser('config', minFree=1024, configured=4, recommendedMinFree=recommended)
    assert 'asks for 4' in seen['drift']
    assert fake_kernel.read_int('proc/sys/vm/min_free_kbytes') == recommended
    # "Keep changes after reboot" was ticked: saved as the keyword
    assert fake_kernel.read(PERSISTED).endswith('\n[tunables]\nmin-free-kbytes = recommended\n')
    assert 'recommended' in seen['saved']
    assert seen['usageTables'] >= 3
    # drawn: the larger process fills its bar, the other a third of it
    assert sorted(seen['processBars']) == [['2 MiB of huge pages', '33.3%'], ['6 MiB of huge pages', '100%']]
    assert seen['cgroupBars'] == [['4 MiB of huge pages', '100%']]


@pytest.mark.fake_kernel(boot_hook='systemd-disabled')
def test_configuration_card_says_what_is_silent_elsewhere(service, fake_kernel, polkit, browser):
    fake_kernel.write(CONF, '[pool 2MB]\nminimum = 4\n[thp]\nenabled = sometimes\n')
    fake_kernel.write('etc/hugepagesd/hugepagesd.conf.d/50-site.conf', '[pool 2MB]\nminimum = 8\n')
    seen = browser('configTruth')
    assert 'systemctl enable hugepagesd-apply.service hugepages.target' in seen['hook']
    assert f'overrides 4 ({fake_kernel.path(CONF)}:2)' in seen['override']
    assert any(f'{fake_kernel.path(CONF)}:4: ' in e and 'sometimes' in e for e in seen['errors'])


@pytest.mark.skipif(not in_private_mount_namespace(),
                    reason='mounts for real: run in a private mount namespace (tests/run-all does)')
def test_create_and_unmount_a_mount(start_service, fake_kernel, polkit, browser):
    polkit.allow(hpdtest.ACTION_MOUNTS)
    # The service's proc/self is the real one (this private namespace's mount
    # table, unlike a file of the fake tree it follows the mount it makes
    # below the fake tree); PID 1's namespace link in the tree says the same
    # namespace, so the service takes it as the system's.
    own_ns = os.readlink('/proc/self/ns/mnt')
    fake_kernel.write_mount_namespaces(own_ns, own_ns)
    shutil.rmtree(fake_kernel.path('proc/self'))
    os.symlink('/proc/self', fake_kernel.path('proc/self'))
    os.makedirs(fake_kernel.path('var/lib'))
    start_service(fake_kernel.root, check=True)
    path = fake_kernel.path('var/lib/hugetlbfs/pagesize-2MB')
    seen = browser('mounts', path=path)
    assert 'size limit must be' in seen['badLimit']
    assert path in seen['row']
    assert not os.path.ismount(path)


@pytest.mark.fake_kernel(pools={2048: Pool(total=2, free=2)})
def test_claim_and_release(service, fake_kernel, polkit, browser):
    polkit.allow(hpdtest.ACTION_POOLS)
    seen = browser('claims', pages=4)
    assert 'consumer name' in seen['refused']
    assert seen['claimed'].endswith('postgresql holds its 4 2MB pages.')
    assert seen['pages'] == '4'
    # the pool as it stood is the base; the claim comes on top, and goes
    assert seen['poolAfterClaim'] == '6'
    assert seen['poolAfterRelease'] == '2'
    assert fake_kernel.read_int(f'{H2}/nr_hugepages') == 2
    # the refused name never reached polkit
    assert [c.action for c in polkit.checks()] == [hpdtest.ACTION_POOLS] * 2


def test_german_locale_shows_the_german_catalog(service, fake_kernel, polkit, browser):
    seen = browser('german', locale='de-DE')
    assert seen['claims'] == 'Anforderungen'
    assert seen['persist'].startswith('Änderungen nach einem Neustart behalten')
    assert seen['summary'].endswith('0 Anforderungen')
    assert 'Seitengröße' in seen['headers']
    assert seen['back'] == 'Huge Pages'


@pytest.mark.fake_kernel(pools={2048: Pool(total=0, free=0), 1048576: Pool(total=2, free=2)})
def test_demote_splits_free_pages_from_the_pool_menu(service, fake_kernel, polkit, browser):
    polkit.allow(hpdtest.ACTION_POOLS)
    seen = browser('demote', pages=1)
    # the kernel's demote file got the count (the fake kernel demotes
    # nothing, so the page reports the shortfall as a warning)
    assert fake_kernel.read('sys/kernel/mm/hugepages/hugepages-1048576kB/demote').strip() == '1'
    assert seen['severity'] == 'warning'
    assert 'of the 1 1GB pages asked for were split into 2MB pages' in seen['notice']
    assert [c.action for c in polkit.checks()] == [hpdtest.ACTION_POOLS]


@pytest.mark.fake_kernel(mounts=usage.MOUNTS, pools={2048: Pool(total=8, free=3, resv=2)})
def test_remove_orphan_from_the_usage_scan(service, fake_kernel, polkit, browser):
    polkit.allow(hpdtest.ACTION_MOUNTS, 'org.hugepages.manager.inspect-usage')
    tree = usage.Tree(fake_kernel)
    seen = browser('orphan', path=tree.orphan, mapped=tree.data)
    assert 'orphan' in seen['row']
    assert seen['mappedActions'] == 0
    assert 'Removed ' + tree.orphan in seen['notice']
    assert not os.path.exists(tree.orphan)
    assert os.path.exists(tree.data)


def test_write_boot_configuration_from_the_config_card(service, fake_kernel, polkit, browser):
    polkit.allow(boot.ACTION_BOOT)
    boot.debian(fake_kernel)
    fake_kernel.write(CONF, boot.NODES)
    before = fake_kernel.snapshot()
    seen = browser('boot', params=boot.NODES_PARAMS, path=fake_kernel.path(boot.DROPIN))
    # the dialog previewed with a dry run (no polkit) and wrote on the click
    assert seen['dialogParams'] == boot.NODES_PARAMS
    assert fake_kernel.path(boot.DROPIN) in seen['dialogPath']
    assert fake_kernel.changes_since(before) == {
        boot.DROPIN: (None, boot.dropin(boot.NODES_PARAMS).encode())}
    assert [c.action for c in polkit.checks()] == [boot.ACTION_BOOT]
    assert f'Wrote {boot.NODES_PARAMS} to {fake_kernel.path(boot.DROPIN)}.' in seen['notice']
    assert 'Reboot required' in seen['notice']
    assert seen['severity'] == 'success'


def test_write_boot_configuration_says_why_not_here(service, fake_kernel, polkit, browser):
    # no Debian GRUB tree: NotSupported from the dialog's dry run, with the
    # parameters to add by hand; nothing written, polkit never asked
    polkit.allow(boot.ACTION_BOOT)
    fake_kernel.write(CONF, boot.NODES)
    before = fake_kernel.snapshot()
    seen = browser('bootUnsupported')
    assert 'does not support' in seen['error']
    assert boot.NODES_PARAMS in seen['error']
    assert fake_kernel.changes_since(before) == {}
    assert polkit.checks() == []


def test_boot_drop_in_state_and_contents_in_the_config_card(service, fake_kernel, polkit, browser):
    polkit.allow(boot.ACTION_BOOT)
    boot.debian(fake_kernel)
    fake_kernel.write(CONF, boot.NODES)
    path = fake_kernel.path(boot.DROPIN)
    hand = 'GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX default_hugepagesz=1G"\n'
    seen = browser('bootDropIn', path=path, handLine=hand)
    # no file yet: said on the summary and the card, Write is the primary action
    assert seen['summary'] == 'boot loader file not up to date'
    assert seen['path'] == path
    assert seen['stale'] == 'not up to date'
    assert 'the file is missing' in seen['missing']
    assert seen['none'] == 'no file'
    assert (seen['primaryWhenStale'], seen['primaryWhenFresh']) == (1, 0)
    # written: the file as ConfigureBoot wrote it, as the service showed it
    assert seen['fresh'] == 'up to date'
    assert seen['written'] == boot.dropin(boot.NODES_PARAMS)
    # edited by hand behind the service's back: shown, and no longer up to date
    assert seen['edited'] == boot.dropin(boot.NODES_PARAMS) + hand
    assert 'does not hold' in seen['differs']
    assert seen['primaryWhenEdited'] == 1
    # not readable by every account: the service does not show it, nor the page
    assert seen['hidden'].startswith('Not shown')
    assert fake_kernel.read(boot.DROPIN) == boot.dropin(boot.NODES_PARAMS) + hand
    assert [c.action for c in polkit.checks()] == [boot.ACTION_BOOT]
