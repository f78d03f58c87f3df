#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Generates the D-Bus API reference (reStructuredText) from the interface XML.

    dbus-reference.py GDBUS_CODEGEN XML OUTDIR PREFIX [CHANGES]

writes OUTDIR/PREFIX-INTERFACE.rst for each interface, with gdbus-codegen
--generate-rst. gdbus-codegen reads gtk-doc markup in the doc comments, where
"%NAME" is a constant: the percent signs of the prose ("90% of MemTotal",
"max-size=50%") would come out as empty literals. The comments are written
for people, so the percent signs are hidden from gdbus-codegen and put back
in its output.

CHANGES (docs/api-changes-0.1.0.md), when given, ends the reference of the
main interface as a section of its own, as written (a literal block: its
tables are Markdown).
"""

import os
import subprocess
import sys
import tempfile

# a private-use character: not in the XML, and not a gtk-doc sigil
PERCENT_STANDIN = "\ue025"


def changes_section(text):
    """The changes against 0.1.0 as a section of the reference."""
    title = "Changes since 0.1.0"
    lines = [line for line in text.splitlines(True) if not line.startswith("<!--")]
    body = "".join("   " + line if line.strip() else "\n" for line in lines).lstrip("\n")
    return f"\n\n{title}\n{'=' * len(title)}\n\n::\n\n{body}\n"


def main():
    codegen, xml, outdir, prefix = sys.argv[1:5]
    changes = None
    if len(sys.argv) > 5:
        with open(sys.argv[5], encoding="utf-8") as f:
            changes = f.read()
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
            rst = rst.replace(PERCENT_STANDIN, "%")
            if changes is not None and name == f"{prefix}-org.hugepages.Manager.rst":
                rst += changes_section(changes)
            with open(os.path.join(outdir, name), "w", encoding="utf-8") as f:
                f.write(rst)


if __name__ == "__main__":
    main()
