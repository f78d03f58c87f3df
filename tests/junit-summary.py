#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Adds up JUnit XML reports (meson test, pytest) into one closing line:
"N passed, N failed[, N skipped]". Exits 1 if anything failed or a report
is missing, unreadable or empty, so a tier that crashed or ran nothing
cannot pass unnoticed."""

import sys
import xml.etree.ElementTree as ET


def count(path):
    passed = failed = skipped = 0
    root = ET.parse(path).getroot()
    for case in root.iter('testcase'):
        outcome = {child.tag for child in case}
        if outcome & {'failure', 'error'}:
            failed += 1
        elif 'skipped' in outcome:
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped


def main(paths):
    total = [0, 0, 0]
    broken = False
    for path in paths:
        try:
            p, f, s = count(path)
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
    line = f'{total[0]} passed, {total[1]} failed'
    if total[2]:
        line += f', {total[2]} skipped'
    print(line)
    return 1 if total[1] or broken else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
