#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""scripts/check-layers passes the tree and finds what breaks the layers'
order in a copy of src/: an include circle between two domains (pools/
including config/, which includes pools/), a domain including bus/, and
kernel/ including a domain.

    test-check-layers.py SCRIPT SRC
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SCRIPT, SRC = sys.argv[1], sys.argv[2]
del sys.argv[1:3]


def run(src=None):
    argv = [sys.executable, SCRIPT] + (['--src', src] if src else [])
    return subprocess.run(argv, capture_output=True, text=True, timeout=60)


class CheckLayers(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='check-layers-')
        self.src = os.path.join(self.tmp, 'src')
        shutil.copytree(SRC, self.src,
                        ignore=lambda d, names: [n for n in names
                                                 if not n.endswith(('.c', '.h'))
                                                 and not os.path.isdir(os.path.join(d, n))])

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def add_include(self, relative, header):
        path = os.path.join(self.src, relative)
        with open(path, encoding='utf-8') as f:
            lines = f.readlines()
        at = next(i for i, line in enumerate(lines) if line.startswith('#include "'))
        lines.insert(at, '#include "%s"\n' % header)
        with open(path, 'w', encoding='utf-8') as f:
            f.writelines(lines)
        return at + 1

    def test_the_tree_keeps_the_order(self):
        proc = run()
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        proc = run(self.src)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)

    def assert_found(self, relative, header, layer, target):
        """@relative including @header, a header of @target, is reported."""
        line = self.add_include(relative, header)
        proc = run(self.src)
        self.assertEqual(proc.returncode, 1, proc.stdout)
        self.assertIn('src/%s:%d: %s/ includes %s/%s' % (relative, line, layer, target, header),
                      proc.stdout)

    def test_a_circle_between_domains_is_found(self):
        # config/ includes pools/ already: pools/ including config/ closes a circle
        self.assert_found('pools/hpd-pool-model.h', 'hpd-config.h', 'pools', 'config')

    def test_a_domain_including_the_bus_is_found(self):
        self.assert_found('usage/hpd-usage.c', 'hpd-daemon.h', 'usage', 'bus')

    def test_the_kernel_layer_includes_no_domain(self):
        self.assert_found('kernel/hpd-kernel.c', 'hpd-pool.h', 'kernel', 'pools')

if __name__ == '__main__':
    unittest.main(verbosity=2)
