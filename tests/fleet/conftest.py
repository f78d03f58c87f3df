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

# Every fixture and hook of the integration tier's conftest, taken over
# whole rather than name by name. Not pytest_plugins: a plugin whose file is
# a conftest.py has its fixtures scoped to its own directory, so
# tests/integration's would not reach the tests here.
_spec = importlib.util.spec_from_file_location(
    'hpd_integration_conftest', os.path.join(REPO, 'tests', 'integration', 'conftest.py'))
_integration = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_integration)
globals().update((name, value) for name, value in vars(_integration).items()
                 if not name.startswith('__') and name not in globals())
# test_client_remote's sshd, test_client's client fixtures
sys.path.insert(0, os.path.join(REPO, 'tests', 'integration'))


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
