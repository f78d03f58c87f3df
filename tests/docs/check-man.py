#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Checks the man pages against the programs they document.

    check-man.py render PAGE...
        Each page renders with groff (as man does: preconv, the man macros,
        UTF-8) without a single warning (-ww).

    check-man.py client PAGE HUGEPAGESCTL
        Every command of `hugepagesctl --help-all` has an entry in the
        COMMANDS section, and the man page documents no command the client
        lacks; every option of `hugepagesctl COMMAND --help-all` is in that
        command's entry (or, when the client itself takes it too, in
        OPTIONS); every option of `hugepagesctl --help-all` is in OPTIONS.

    check-man.py daemon PAGE HUGEPAGESD
        Every option of `hugepagesd --help-all` is in OPTIONS.

The programs' help is read in the C locale (its headings are parsed); the
page is read as rendered, so what is checked is what a reader sees.
"""

import os
import re
import subprocess
import sys

ENV = dict(os.environ, LC_ALL="C.UTF-8", LANGUAGE="")
ENTRY_INDENT = 7        # groff's man macros: an entry's tag in a section
failures = []


def fail(message):
    failures.append(message)


def render(page, width="250n"):
    """The page as plain text: no hyphenation, lines long enough that an
    option never wraps, no overstriking."""
    result = subprocess.run(["groff", "-k", "-man", "-Tutf8", "-rHY=0", "-rLL=" + width,
                             "-P-cbou", page],
                            capture_output=True, text=True, env=ENV, check=True)
    # groff may draw "-" as a hyphen or minus sign
    return re.sub("[\u2010\u2011\u2212]", "-", result.stdout)


def sections(text):
    """Section name -> its lines (a section starts at an unindented line)."""
    result = {}
    name = None
    for line in text.splitlines():
        if line and not line[0].isspace():
            name = line.strip()
            result.setdefault(name, [])
        elif name is not None:
            result[name].append(line)
    return result


def entries(lines):
    """Entries of a section: first word of a tag line -> the entry's text
    (the tag line and everything indented deeper, up to the next tag)."""
    result = {}
    current = None

    def indent_of(line):
        return len(line) - len(line.lstrip(" "))

    def is_tag(i):
        """A tag is followed by its entry, indented deeper; a paragraph of
        the section is not."""
        if indent_of(lines[i]) != ENTRY_INDENT or not lines[i].strip():
            return False
        following = [line for line in lines[i + 1:] if line.strip()]
        return bool(following) and indent_of(following[0]) > ENTRY_INDENT

    for i, line in enumerate(lines):
        indent = indent_of(line)
        if is_tag(i):
            current = line.split()[0]
            result[current] = [line]
        elif line.strip() and indent <= ENTRY_INDENT:
            current = None          # a subsection heading or a paragraph
        elif current is not None:
            result[current].append(line)
    return {k: "\n".join(v) for k, v in result.items()}


def mentions(text, option):
    return re.search(r"(?<![\w-])" + re.escape(option) + r"(?![\w-])", text) is not None


def help_text(program, *args):
    result = subprocess.run([program, *args, "--help-all"], capture_output=True, text=True,
                            env=ENV)
    if result.returncode != 0:
        sys.exit(f"{program} {' '.join(args)} --help-all failed: {result.stderr}")
    return result.stdout


def help_options(text, skip_help=False):
    """Every -x and --name of the option lists of a --help-all output."""
    options = []
    group = None
    for line in text.splitlines():
        if re.match(r"^\S.*Options:$", line):
            group = line
            continue
        if not line.strip():
            group = None
            continue
        if group is None or not line.startswith("  ") or not line.lstrip().startswith("-"):
            continue
        if skip_help and group == "Help Options:":
            continue
        for word in line.split():
            word = word.rstrip(",")
            if not word.startswith("-"):
                break
            options.append(word.split("=")[0])
    return options


def help_commands(text):
    commands = []
    listing = False
    for line in text.splitlines():
        if line.startswith("Commands:"):
            listing = True
        elif listing and not line.strip():
            break
        elif listing and line.startswith("  ") and line.strip():
            commands.append(line.split()[0])
    return commands


def check_render(pages):
    for page in pages:
        result = subprocess.run(["groff", "-k", "-man", "-Tutf8", "-ww", "-z", page],
                                capture_output=True, text=True, env=ENV)
        if result.returncode != 0 or result.stderr.strip():
            fail(f"{page}: groff warns:\n{result.stderr}")
        # as man shows it on an ordinary terminal, too
        text = render(page, "78n")
        if len(text.strip().splitlines()) < 20:
            fail(f"{page}: renders to almost nothing")


def check_options(page, where, options, text):
    for option in options:
        if not mentions(text, option):
            fail(f"{page}: {option} is not documented in {where}")


def check_client(page, program):
    text = sections(render(page))
    if "COMMANDS" not in text or "OPTIONS" not in text:
        sys.exit(f"{page}: no COMMANDS or OPTIONS section")
    documented = entries(text["COMMANDS"])
    options_section = "\n".join(text["OPTIONS"])

    main_help = help_text(program)
    global_options = help_options(main_help)
    commands = help_commands(main_help)
    if not commands:
        sys.exit(f"{program} --help-all lists no commands")
    check_options(page, "OPTIONS", global_options, options_section)

    for command in commands:
        if command not in documented:
            fail(f"{page}: command {command} has no entry in COMMANDS")
            continue
        for option in help_options(help_text(program, command), skip_help=True):
            if mentions(documented[command], option):
                continue
            if option in global_options and mentions(options_section, option):
                continue
            fail(f"{page}: {command} {option} is not documented in its entry")
    for command in documented:
        if command not in commands:
            fail(f"{page}: COMMANDS documents {command}, which hugepagesctl does not have")


def check_daemon(page, program):
    text = sections(render(page))
    if "OPTIONS" not in text:
        sys.exit(f"{page}: no OPTIONS section")
    options = help_options(help_text(program))
    if not options:
        sys.exit(f"{program} --help-all lists no options")
    check_options(page, "OPTIONS", options, "\n".join(text["OPTIONS"]))


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "render":
        check_render(args)
    elif mode == "client":
        check_client(*args)
    elif mode == "daemon":
        check_daemon(*args)
    else:
        sys.exit(f"unknown mode {mode}")
    for message in failures:
        print(message, file=sys.stderr)
    print(f"{mode}: {len(failures)} problem(s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
