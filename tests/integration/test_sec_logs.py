# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Logs cannot be forged (tests/SECURITY.md, "Log injection"): names and
contents of files the service reads, and text callers send, reach the log
escaped. A line separator, a bidirectional control or a byte that is not
UTF-8 shows as an escape; no log line starts with text from outside."""

import json
import os
import re
import signal
import subprocess
import time

import pytest

import hpdtest
from conftest import wait_for
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



# --- a bound on the lines one user's refusals take -------------------------------------

ACTION_TUNABLES = 'org.hugepages.manager.configure-tunables'
MiB = 1024 * 1024
OTHER_USER = 1
# hpd-auth.c: 10 lines at once and 2 a second per uid; one summary per uid
# 10 s after the first line held back
REFUSAL_BURST, REFUSALS_PER_SECOND, SUMMARY_S = 10, 2, 10


def refusal_counts(log, uid):
    lines = len(re.findall(rf'^.*uid {uid} \(pid \d+\) was refused ', log, re.M))
    held = sum(int(n.replace(',', '')) for n in
               re.findall(rf'^.*uid {uid}: (\d+) more refusals not logged in the last', log, re.M))
    return lines, held


@pytest.mark.skipif(hpdtest.under_valgrind(), reason=hpdtest.OUTRUN_UNDER_VALGRIND)
def test_one_users_refusals_take_a_bounded_number_of_lines(service, conn, polkit, run_python_as,
                                                           NOBODY):
    """A user without rights keeps 16 SetMinimum calls in flight on each of
    10 connections for 4 s (polkit's mock refuses at once: hundreds of
    refusals a second under ASan, thousands without). Its refusal lines
    stay within 10 plus 2 a second, one line later counts the rest (lines
    and count together at least the refusals the user was answered), and
    an allowed admin's change made during the flood is in the log. Without
    the bound every refusal is a line: the share of journald's per-unit
    budget that would hide the admin's record."""
    polkit.allow(ACTION_TUNABLES)
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=service.bus.address)
    started = time.monotonic()
    flood = subprocess.Popen(['setpriv', f'--reuid={NOBODY}', f'--regid={NOBODY}', '--clear-groups',
                              '/usr/bin/python3', '-c', hpdtest.SUSTAINED_FLOOD, '10', '16'],
                             stdout=subprocess.PIPE, text=True, env=env, cwd='/')
    try:
        assert json.loads(flood.stdout.readline())['connections'] == 10
        time.sleep(2)
        [result] = run_python_as(OTHER_USER, [[
            'call', MANAGER_PATH, MANAGER_IFACE, 'SetShmMax', '(ta{sv})',
            f'({65 * MiB}, @a{{sv}} {{}})', None, False]], timeout=60)
        assert result == {'ok': [65 * MiB]}, result
        time.sleep(2)
        flood.send_signal(signal.SIGUSR1)
        answered = json.loads(flood.stdout.readline())
    finally:
        flood.kill()
        flood.wait()
    refused = answered.get(hpdtest.ERR + 'NotAuthorized', 0)
    # the summary comes SUMMARY_S after the first line held back, another
    # one for refusals of calls still in flight when the flood ended
    wait_for(lambda: sum(refusal_counts(service.log(), NOBODY)) >= refused, 3 * SUMMARY_S,
             'the count of the refusals held back')
    time.sleep(1)
    log = service.log()
    elapsed = time.monotonic() - started
    lines, held = refusal_counts(log, NOBODY)
    print(f'{refused} refusals answered in {elapsed:.1f} s: {lines} lines, {held} counted in '
          f'summary lines; {answered}')
    allowed = REFUSAL_BURST + REFUSALS_PER_SECOND * elapsed
    # the flood must outrun the bound by far, or a line per refusal would pass
    assert refused > 5 * allowed, (answered, allowed)
    assert lines <= allowed, lines
    # every refusal accounted for; at most the 160 calls in flight at the end
    # were refused after the flood's count
    assert refused <= lines + held <= refused + 10 * 16, (lines, held, refused)
    assert re.search(rf'^.*uid {OTHER_USER} \(pid \d+\) set ', log, re.M), log[-3000:]
