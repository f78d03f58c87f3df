# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Fixtures of the fleet tier: the Ansible collection and the metrics on the
integration tier's setup (private system bus with the real policy, polkitd
mock, hugepagesd on a fake kernel), whose fixtures are shared, not copied.

  collections     a directory where hugepages.manager was built with
                  `ansible-galaxy collection build` and installed with
                  `ansible-galaxy collection install --offline` (session).
"""

import importlib.util
import os
import subprocess
import sys
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
COLLECTION = os.path.join(REPO, 'ansible', 'ansible_collections', 'hugepages', 'manager')

_spec = importlib.util.spec_from_file_location(
    'hpd_integration_conftest', os.path.join(REPO, 'tests', 'integration', 'conftest.py'))
integration = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(integration)
hpdtest = integration.hpdtest
# test_client_remote's sshd, test_client's client fixtures
sys.path.insert(0, os.path.join(REPO, 'tests', 'integration'))

pytest_configure = integration.pytest_configure
pytest_collection_modifyitems = integration.pytest_collection_modifyitems
pytest_report_header = integration.pytest_report_header
pytest_terminal_summary = integration.pytest_terminal_summary
pytest_runtest_makereport = integration.pytest_runtest_makereport
builddir = integration.builddir
hugepagesd = integration.hugepagesd
_session_dir = integration._session_dir
bus = integration.bus
conn = integration.conn
_polkit_mock = integration._polkit_mock
polkit = integration.polkit
fake_kernel = integration.fake_kernel
start_service = integration.start_service
service = integration.service
run_as = integration.run_as
NOBODY = integration.NOBODY
attach_log = integration.attach_log
wait_for = integration.wait_for


@pytest.fixture(scope='session')
def collections():
    with tempfile.TemporaryDirectory(prefix='hpd-ansible-') as top:
        subprocess.run(['ansible-galaxy', 'collection', 'build', COLLECTION, '--output-path', top],
                       check=True, capture_output=True, text=True, timeout=120)
        subprocess.run(['ansible-galaxy', 'collection', 'install', '--offline', '--force',
                        os.path.join(top, 'hugepages-manager-1.0.0.tar.gz'),
                        '-p', os.path.join(top, 'collections')],
                       check=True, capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, ANSIBLE_HOME=top))
        yield os.path.join(top, 'collections')
