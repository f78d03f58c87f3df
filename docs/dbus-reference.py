#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Generates the D-Bus API reference (reStructuredText) from the interface XML.

    dbus-reference.py GDBUS_CODEGEN XML OUTDIR PREFIX

writes OUTDIR/PREFIX-INTERFACE.rst for each interface, with gdbus-codegen
--generate-rst. gdbus-codegen reads gtk-doc markup in the doc comments, where
"%NAME" is a constant: the percent signs of the prose ("90% of MemTotal",
"max-size=50%") would come out as empty literals. The comments are written
for people, so the percent signs are hidden from gdbus-codegen and put back
in its output.
"""

import os
import subprocess
import sys
import tempfile

# a private-use character: not in the XML, and not a gtk-doc sigil
PERCENT_STANDIN = "\ue025"


def main():
    codegen, xml, outdir, prefix = sys.argv[1:5]
    with open(xml, encoding="utf-8") as f:
        text = f.read()
    if PERCENT_STANDIN in text:
        sys.exit(f"{xml} holds U+E025, which stands in for '%' here")

    env = dict(os.environ, PYTHONUTF8="1")
    with tempfile.TemporaryDirectory() as tmp:
        hidden = os.path.join(tmp, os.path.basename(xml))
        with open(hidden, "w", encoding="utf-8") as f:
            f.write(text.replace("%", PERCENT_STANDIN))
        subprocess.run([codegen, "--interface-prefix", "org.hugepages.",
                        "--generate-rst", os.path.join(tmp, prefix), hidden],
                       check=True, env=env)
        made = sorted(n for n in os.listdir(tmp) if n.endswith(".rst"))
        if not made:
            sys.exit("gdbus-codegen wrote no reference")
        os.makedirs(outdir, exist_ok=True)
        for name in made:
            with open(os.path.join(tmp, name), encoding="utf-8") as f:
                rst = f.read()
            with open(os.path.join(outdir, name), "w", encoding="utf-8") as f:
                f.write(rst.replace(PERCENT_STANDIN, "%"))


if __name__ == "__main__":
    main()
