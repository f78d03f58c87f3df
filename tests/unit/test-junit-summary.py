#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""tests/junit-summary.py: the closing line adds up every report; a failed
test is named with the end of its account before that line; a missing or
empty report fails the run.

    test-junit-summary.py SCRIPT
"""

import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv[1]
del sys.argv[1:2]

PASSING = '<testsuite><testcase classname="t.a" name="one"/>' \
          '<testcase classname="t.a" name="two"><skipped/></testcase></testsuite>'
FAILING = ('<testsuites><testsuite><testcase classname="t.b" name="ok"/>'
           '<testcase classname="t.b" name="bad"><failure message="scenario pools failed">'
           + '\n'.join(f'noise {i}' for i in range(40)) +
           '\nError: waited 10000 ms for 3, last saw "12"</failure></testcase>'
           '<testcase classname="t.b" name="crashed"><error message="fixture broke"/></testcase>'
           '</testsuite></testsuites>')


class JunitSummary(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix='junit-summary-')

    def tearDown(self):
        self.tmp.cleanup()

    def report(self, name, text):
        path = os.path.join(self.tmp.name, name)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def run_summary(self, *paths):
        proc = subprocess.run([sys.executable, SCRIPT, *paths],
                              capture_output=True, text=True, timeout=60)
        return proc.returncode, proc.stdout.splitlines()

    def test_all_passing(self):
        rc, lines = self.run_summary(self.report('a.xml', PASSING))
        self.assertEqual(rc, 0)
        self.assertEqual(lines[-1], '1 passed, 0 failed, 1 skipped')
        self.assertFalse([line for line in lines if line.startswith('FAILED')])

    def test_failures_are_named_with_their_end_before_the_closing_line(self):
        rc, lines = self.run_summary(self.report('a.xml', PASSING), self.report('b.xml', FAILING))
        self.assertEqual(rc, 1)
        self.assertEqual(lines[-1], '2 passed, 2 failed, 1 skipped')
        failed = [line for line in lines if line.startswith('FAILED')]
        self.assertEqual(failed, ['FAILED t.b::bad', 'FAILED t.b::crashed'])
        bad = lines.index('FAILED t.b::bad')
        account = lines[bad + 1:lines.index('FAILED t.b::crashed')]
        self.assertEqual(account[0], '  | scenario pools failed')
        self.assertEqual(account[-1], '  | Error: waited 10000 ms for 3, last saw "12"')
        self.assertNotIn('  | noise 0', account, 'only the end of a long account')
        self.assertIn('  | fixture broke', lines)

    def test_only_the_first_failures_carry_their_account(self):
        cases = ''.join(f'<testcase classname="t.c" name="f{i}"><failure message="m{i}">'
                        f'end of f{i}</failure></testcase>' for i in range(8))
        rc, lines = self.run_summary(self.report('c.xml', f'<testsuite>{cases}</testsuite>'))
        self.assertEqual(rc, 1)
        self.assertEqual(lines[-1], '0 passed, 8 failed')
        self.assertEqual([line for line in lines if line.startswith('FAILED')],
                         [f'FAILED t.c::f{i}' for i in range(8)])
        self.assertEqual([line for line in lines if line.startswith('  | end of')],
                         [f'  | end of f{i}' for i in range(5)])
        self.assertIn('(the 3 failures after the first 5 are named only)', lines)

    def test_a_missing_or_empty_report_fails(self):
        rc, lines = self.run_summary(os.path.join(self.tmp.name, 'none.xml'))
        self.assertEqual(rc, 1)
        self.assertEqual(lines[-1], '0 passed, 1 failed')
        rc, lines = self.run_summary(self.report('e.xml', '<testsuite/>'))
        self.assertEqual(rc, 1)
        self.assertIn('no test ran', lines[1])


if __name__ == '__main__':
    unittest.main()
