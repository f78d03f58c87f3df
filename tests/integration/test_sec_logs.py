# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Logs cannot be forged (tests/SECURITY.md, "Log injection"): names and
contents of files the service reads, and text callers send, reach the log
escaped. A line separator, a bidirectional control or a byte that is not
UTF-8 shows as an escape; no log line starts with text from outside."""

import os

import hpdtest
from hpdtest import MANAGER_IFACE, MANAGER_PATH

RUNTIME = 'run/hugepagesd/claims.d'
FORGED = 'hugepagesd[1]: uid 0 (pid 1) set the 2MB minimum to 0 pages'
HOSTILE = ['\n', '\r', '\u2028', '\u2029', '\u202e', '\u2066', '\u200f', '\x85', '\x1b']


def claims(conn):
    return hpdtest.rows(hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'Claims'), hpdtest.CLAIM_KEYS)


def check_log(raw):
    text = raw.decode('utf-8')      # no byte that is not UTF-8
    for ch in HOSTILE[2:]:
        assert ch not in text, (repr(ch), text[-2000:])
    for line in text.splitlines():
        assert not line.startswith(FORGED), line
        assert not line.startswith('FORGED'), line
    return text


def test_file_names_and_contents_are_escaped(service, conn, fake_kernel):
    d = fake_kernel.path(RUNTIME)
    os.makedirs(d, exist_ok=True)
    # file names: any bytes but '/' and NUL
    names = [b'x\n' + FORGED.encode() + b'.conf',
             b'y\xe2\x80\xa8FORGED\xe2\x80\xae.conf',
             b'z\xff\xfe\x1b[2J.conf']
    for name in names:
        with open(os.path.join(os.fsencode(d), name), 'w') as f:
            f.write('[2MB]\npages = 1\n')
    # contents: groups and keys of a claim file
    with open(os.path.join(d, 'db.conf'), 'w', encoding='utf-8') as f:
        f.write('[2MB\u2028FORGED\u202e\u2066]\npages = 1\n'
                '[1GB]\npages = 1\nk\u2029FORGED\u200f = 2\n')
    assert [c[0] for c in claims(conn)] == []

    text = check_log(open(service.log_path, 'rb').read())
    assert '\\u2028FORGED\\u202e\\u2066' in text
    assert '\\u2029FORGED\\u200f' in text
    assert 'x\\u000a' + FORGED in text
    assert 'z\\xff\\xfe\\u001b[2J' in text

