#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Checks the D-Bus API reference and the doc comments it is made from.

    check-dbus-docs.py GDBUS_CODEGEN XML REFERENCE.rst...

Reads the interface XML with gdbus-codegen's own parser, so that what is
checked is what the generator sees: every interface, method, property and
signal has a description, and every argument one (gdbus-codegen takes an
"@arg: text" only on one line; continuation lines fall into the body and
lose the arguments after them). The reference must have a section for every
member and no empty literal, which gtk-doc markup (a stray "%" or "@")
would leave.
"""

import os
import sys


def load_parser(codegen):
    # gdbus-codegen is a script in BINDIR; its modules are in
    # DATADIR/glib-2.0/codegen (as the script itself finds them)
    prefix = os.path.dirname(os.path.dirname(os.path.realpath(codegen)))
    sys.path.insert(0, os.path.join(prefix, "share", "glib-2.0"))
    from codegen import parser  # noqa: E402
    return parser


def main():
    codegen, xml, references = sys.argv[1], sys.argv[2], sys.argv[3:]
    parser = load_parser(codegen)
    with open(xml, "rb") as f:
        interfaces = parser.parse_dbus_xml(f.read(), False)
    problems = []
    members = []

    def documented(what, doc):
        if not doc.strip():
            problems.append(f"{what} has no description")

    if not interfaces:
        problems.append(f"{xml}: no interface")
    for iface in interfaces:
        documented(iface.name, iface.doc_string)
        for method in iface.methods:
            members.append(f"{iface.name}.{method.name}")
            documented(f"method {iface.name}.{method.name}", method.doc_string)
            for arg in method.in_args + method.out_args:
                documented(f"argument {arg.name} of {iface.name}.{method.name}", arg.doc_string)
        for prop in iface.properties:
            members.append(f"{iface.name}:{prop.name}")
            documented(f"property {iface.name}:{prop.name}", prop.doc_string)
        for signal in iface.signals:
            members.append(f"{iface.name}::{signal.name}")
            documented(f"signal {iface.name}::{signal.name}", signal.doc_string)
            for arg in signal.args:
                documented(f"argument {arg.name} of {iface.name}::{signal.name}", arg.doc_string)

    text = ""
    for reference in references:
        with open(reference, encoding="utf-8") as f:
            text += f.read()
    for member in members:
        if f"\n{member}\n" not in text:
            problems.append(f"the reference has no section for {member}")
    if "````" in text:
        problems.append("the reference has an empty literal (````): a stray % or @ "
                        "in a doc comment")

    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{len(members)} members, {len(problems)} problem(s)")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
