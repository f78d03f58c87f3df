#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""scripts/check-symbols passes the daemon's libraries, and finds a global
symbol without the hpd_/hp_ prefix in an object made for the purpose
(static functions and prefixed ones pass).

    CC=COMPILER test-check-symbols.py SCRIPT LIBRARY...
"""

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

SCRIPT, LIBRARIES = sys.argv[1], sys.argv[2:]
CC = shlex.split(os.environ.get('CC', 'cc'))
del sys.argv[1:]


def run(*paths):
    return subprocess.run([sys.executable, SCRIPT, *paths], capture_output=True, text=True,
                          timeout=60)


class CheckSymbols(unittest.TestCase):
    def test_the_libraries_have_only_prefixed_globals(self):
        proc = run(*LIBRARIES)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)

    def test_a_global_without_the_prefix_is_found(self):
        tmp = tempfile.mkdtemp(prefix='check-symbols-')
        try:
            source = os.path.join(tmp, 'x.c')
            obj = os.path.join(tmp, 'x.o')
            with open(source, 'w') as f:
                f.write('static int helper (void) { return 1; }\n'
                        'int hpd_fine (void) { return helper (); }\n'
                        'int hp_fine_too;\n'
                        'int read_at (void) { return 2; }\n'
                        'int vanished = 3;\n')
            subprocess.run([*CC, '-c', '-o', obj, source], check=True)
            proc = run(obj)
            self.assertEqual(proc.returncode, 1, proc.stdout)
            names = sorted(line.split(': ')[1].split()[0]
                           for line in proc.stdout.splitlines() if 'prefix' in line
                           and not line.startswith('check-symbols:'))
            self.assertEqual(names, ['read_at', 'vanished'], proc.stdout)
        finally:
            shutil.rmtree(tmp)


if __name__ == '__main__':
    unittest.main(verbosity=2)
