#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Adds up JUnit XML reports (meson test, pytest) into one closing line:
"N passed, N failed[, N skipped]". Exits 1 if anything failed or a report
is missing, unreadable or empty, so a tier that crashed or ran nothing
cannot pass unnoticed.

Each failed test is named just before that line, the first ACCOUNTS of them
with the end of their account: a CI log is often read from its end only, and a
rare failure must be diagnosable from that part alone, while a run where
everything broke must not bury the closing line under thousands of lines."""

import sys
import xml.etree.ElementTree as ET


# lines of each failure's account shown at the end
ACCOUNT_LINES = 12
# failures shown with their account; the later ones are only named
ACCOUNTS = 5


def account(case, with_lines):
    """The test's name and, if with_lines, the last lines of what it failed with."""
    name = f"{case.get('classname', '')}::{case.get('name', '')}"
    lines = []
    if not with_lines:
        return [f'FAILED {name}']
    for child in case:
        if child.tag in ('failure', 'error'):
            lines += (child.get('message') or '').splitlines()[:1]
            lines += (child.text or '').rstrip().splitlines()[-ACCOUNT_LINES:]
    return [f'FAILED {name}'] + [f'  | {line[:300]}' for line in lines]


def count(path, failures):
    passed = failed = skipped = 0
    root = ET.parse(path).getroot()
    for case in root.iter('testcase'):
        outcome = {child.tag for child in case}
        if outcome & {'failure', 'error'}:
            failed += 1
            failures.append(account(case, len(failures) < ACCOUNTS))
        elif 'skipped' in outcome:
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped


def main(paths):
    total = [0, 0, 0]
    broken = False
    failures = []
    for path in paths:
        try:
            p, f, s = count(path, failures)
        except (OSError, ET.ParseError) as e:
            print(f'{path}: unreadable report: {e}')
            broken = True
            continue
        print(f'{path}: {p} passed, {f} failed, {s} skipped')
        if p + f + s == 0:
            print(f'{path}: no test ran')
            broken = True
        total = [a + b for a, b in zip(total, (p, f, s))]
    if not paths:
        print('no test reports found')
        broken = True
    if broken:
        total[1] += 1
    for lines in failures:
        print('\n'.join(lines))
    if len(failures) > ACCOUNTS:
        print(f'(the {len(failures) - ACCOUNTS} failures after the first {ACCOUNTS} are named only)')
    line = f'{total[0]} passed, {total[1]} failed'
    if total[2]:
        line += f', {total[2]} skipped'
    print(line)
    return 1 if total[1] or broken else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
