#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Checks the polkit policy as built (translations merged in by msgfmt).

    check-policy.py BUILT.policy SOURCE.policy.in LINGUAS MO_DIR

- The built policy has exactly the source's actions, each with the same
  defaults and the same English description and message: merging the
  translations changes nothing else.
- For every language of LINGUAS (German at least), every action has a
  description and a message in that language (xml:lang), which are the
  catalog's translations (MO_DIR/LANG/LC_MESSAGES/hugepagesd.mo) of the
  English ones, and differ from them.
"""

import gettext
import os
import sys
import xml.etree.ElementTree as ET

LANG_ATTR = "{http://www.w3.org/XML/1998/namespace}lang"
REQUIRED_LANGUAGES = {"de"}


def actions(path):
    return {a.get("id"): a for a in ET.parse(path).getroot().findall("action")}


def untranslated(action, tag):
    found = [e.text for e in action.findall(tag) if LANG_ATTR not in e.attrib]
    return found[0] if len(found) == 1 else None


def main():
    built_path, source_path, linguas_path, mo_dir = sys.argv[1:5]
    problems = []
    built, source = actions(built_path), actions(source_path)

    if not source:
        problems.append(f"{source_path} has no action")
    if set(built) != set(source):
        problems.append(f"actions differ: built {sorted(built)}, source {sorted(source)}")

    with open(linguas_path, encoding="utf-8") as f:
        languages = [w for line in f if not line.startswith("#") for w in line.split()]
    for missing in REQUIRED_LANGUAGES - set(languages):
        problems.append(f"{linguas_path} lacks {missing}")

    catalogs = {}
    for lang in languages:
        mo = os.path.join(mo_dir, lang, "LC_MESSAGES", "hugepagesd.mo")
        with open(mo, "rb") as f:
            catalogs[lang] = gettext.GNUTranslations(f)

    for action_id, src in source.items():
        action = built.get(action_id)
        if action is None:
            continue
        defaults = [(e.tag, e.text) for e in action.find("defaults")]
        if defaults != [(e.tag, e.text) for e in src.find("defaults")]:
            problems.append(f"{action_id}: defaults changed: {defaults}")
        for tag in ("description", "message"):
            english = untranslated(src, tag)
            if untranslated(action, tag) != english or not english:
                problems.append(f"{action_id}: the English {tag} changed or is missing")
                continue
            for lang in languages:
                texts = [e.text for e in action.findall(tag) if e.get(LANG_ATTR) == lang]
                expected = catalogs[lang].gettext(english)
                if len(texts) != 1:
                    problems.append(f"{action_id}: {len(texts)} {tag}s in {lang}")
                elif expected == english:
                    problems.append(f"{action_id}: the {lang} catalog does not translate "
                                    f"the {tag} {english!r}")
                elif texts[0] != expected:
                    problems.append(f"{action_id}: {tag} in {lang} is {texts[0]!r}, "
                                    f"the catalog says {expected!r}")

    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{len(source)} actions, languages {' '.join(languages)}, {len(problems)} problem(s)")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
