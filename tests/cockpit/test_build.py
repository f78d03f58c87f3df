# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""The committed bundle (cockpit/dist, what meson installs) is what
`npm run build` makes from cockpit/src with the pinned tools."""

import os
import subprocess

from conftest import REPO


def test_dist_is_built_from_the_sources(tools):
    build = subprocess.run(['node', os.path.join(REPO, 'cockpit', 'build.mjs'), '--check'],
                           capture_output=True, text=True, timeout=120)
    assert build.returncode == 0, build.stdout + build.stderr
    assert 'matches' in build.stdout


def test_fix_plans_and_error_texts(tools):
    """node --test fixes.test.mjs: Explain's fix texts to D-Bus calls, and
    the error sentences, without a browser."""
    test = os.path.join(REPO, 'tests', 'cockpit', 'fixes.test.mjs')
    run = subprocess.run(['node', '--test', test],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert '# fail 0' in run.stdout


def test_sizes_as_hugepagesd_reads_them(tools):
    """node --test units.test.mjs: the page's size parser against
    tests/units.json, the vectors of the C parser and the collection's."""
    test = os.path.join(REPO, 'tests', 'cockpit', 'units.test.mjs')
    run = subprocess.run(['node', '--test', test],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert '# fail 0' in run.stdout


def test_every_page_string_has_a_german_translation(tools):
    """Every string the page marks for translation (_() and ngettext() in
    cockpit/src) is in cockpit/po/de.po, and the .pot is current."""
    run = subprocess.run(['node', os.path.join(REPO, 'cockpit', 'build.mjs'), '--untranslated', 'de'],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip().endswith('0 untranslated')
