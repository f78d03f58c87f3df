#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Writes a JUnit XML report with one test case, for a tier that is a single
check rather than a test suite (tests/run-all's analyze and package tiers), so that
junit-summary.py counts it:

    junit-case.py REPORT SUITE NAME STATUS SECONDS [LOG]

STATUS 0 is a pass; anything else a failure whose text is LOG (its last
100,000 characters)."""

import sys
import xml.etree.ElementTree as ET


def main(report, suite, name, status, seconds, log=None):
    failed = status != '0'
    text = ''
    if log is not None:
        try:
            with open(log, errors='replace') as f:
                text = f.read()[-100000:]
        except OSError as e:
            text = f'(cannot read {log}: {e})'
    suites = ET.Element('testsuites')
    ts = ET.SubElement(suites, 'testsuite', name=suite, tests='1', failures=str(int(failed)),
                       errors='0', skipped='0', time=seconds)
    case = ET.SubElement(ts, 'testcase', classname=suite, name=name, time=seconds)
    if failed:
        failure = ET.SubElement(case, 'failure', message=f'exit status {status}')
        failure.text = text
    else:
        ET.SubElement(case, 'system-out').text = text
    ET.ElementTree(suites).write(report, encoding='utf-8', xml_declaration=True)
    return 0


if __name__ == '__main__':
    if len(sys.argv) not in (6, 7):
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
