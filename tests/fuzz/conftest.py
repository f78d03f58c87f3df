# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""The fuzz tier: tests/fuzz/ (run by `tests/run-all --tier fuzz`).

The fuzzers need root (the bus policy as root, fanotify for the fake
kernel, unshare), like the integration tier: without it every test is
skipped, loudly.

Fixture:
  fuzz_report   fuzz_report(key, line): a line for the end of the session's
                terminal summary, whatever -s or -q say, so that CI logs show
                the figures (a later line with the same key replaces it).
"""

import os

import pytest

NOT_ROOT = 'the fuzz tests need root (bus policy as root, fanotify, unshare)'
_REPORT = pytest.StashKey[dict]()


def pytest_configure(config):
    config.stash[_REPORT] = {}


def pytest_collection_modifyitems(config, items):
    if os.geteuid() != 0:
        skip = pytest.mark.skip(reason=NOT_ROOT)
        for item in items:
            item.add_marker(skip)


def pytest_terminal_summary(terminalreporter, config):
    if os.geteuid() != 0:
        terminalreporter.write_sep('!', f'SKIPPED: {NOT_ROOT}', red=True, bold=True)
    lines = config.stash.get(_REPORT, {})
    if lines:
        terminalreporter.write_sep('=', 'fuzzing')
        for line in lines.values():
            terminalreporter.write_line(line)


@pytest.fixture
def fuzz_report(request):
    lines = request.config.stash[_REPORT]

    def report(key, line):
        lines[key] = line
    return report
