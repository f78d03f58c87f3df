# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: GPL-3.0-or-later

# -*- coding: utf-8 -*-
# Copyright: hugepagesd developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What every module of hugepages.manager shares: running hugepagesctl on
the managed host, reading its --json documents, and the sizes and amounts
the modules accept. Nothing here touches sysfs: hugepagesd does, after its
polkit check, and reads the kernel back."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import json
import re

# hugepagesctl's documented exit statuses
EXIT_SHORTFALL = 3

JSON_FORMAT_VERSION = 1

_UNITS = {'': 1, 'k': 1 << 10, 'm': 1 << 20, 'g': 1 << 30, 't': 1 << 40}
_SIZE = re.compile(r'^([0-9]+)\s*([kmgt]?)(?:i?b)?$', re.IGNORECASE)

COMMON_ARGS = dict(hugepagesctl=dict(type='path'))


class HugepagesError(Exception):
    def __init__(self, msg, **figures):
        super(HugepagesError, self).__init__(msg)
        self.msg = msg
        self.figures = figures


def parse_size(value):
    """Bytes of a page size or amount of memory: 2097152, '2M', '2MB',
    '2MiB', '1G', '2048kB'. Binary units, as hugepagesctl."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise HugepagesError('a size cannot be negative: %d' % value)
        return value
    match = _SIZE.match(str(value).strip())
    if not match:
        raise HugepagesError("'%s' is not a size (2M, 1G, 2097152)" % value)
    return int(match.group(1)) * _UNITS[match.group(2).lower()]


def parse_pages(value, page_size, what):
    """Pages of an absolute amount: a number of pages (512, '512') or memory
    ('1G') that is a whole number of pages. Relative amounts ('+4', '-1G')
    are refused: a task must say what it wants, so that a second run
    changes nothing."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise HugepagesError('%s: expected pages or a size, not a boolean' % what)
    if isinstance(value, int):
        if value < 0:
            raise HugepagesError('%s: relative amounts are refused, give the pages wanted: %d'
                                 % (what, value))
        return value
    text = str(value).strip()
    if text[:1] in ('+', '-'):
        raise HugepagesError("%s: relative amounts are refused, give the pages wanted: '%s'"
                             % (what, text))
    if text.isdigit():
        return int(text)
    nbytes = parse_size(text)
    if nbytes % page_size:
        raise HugepagesError("%s: '%s' is not a whole number of %d-byte pages"
                             % (what, text, page_size))
    return nbytes // page_size


def size_name(page_size):
    """'2MB', '1GB': the pool names hugepagesd uses in its configuration."""
    for unit, shift in (('GB', 30), ('MB', 20), ('KB', 10)):
        if page_size >= (1 << shift) and page_size % (1 << shift) == 0:
            return '%d%s' % (page_size >> shift, unit)
    return '%dB' % page_size


class Hugepagesctl(object):
    """hugepagesctl on the managed host, through AnsibleModule.run_command
    (an argument list: no shell)."""

    def __init__(self, module):
        self.module = module
        self.path = module.params.get('hugepagesctl') or module.get_bin_path('hugepagesctl',
                                                                             required=True)

    def run(self, *args):
        """(rc, stdout, stderr) of a command, never asking for a password."""
        args = [str(a) for a in args]
        argv = [self.path, '--no-ask-password'] + list(args)
        return self.module.run_command(argv, environ_update={'LC_ALL': 'C.UTF-8'})

    def read(self, *args):
        """A reading command's --json document."""
        rc, out, err = self.run(*(args + ('--json',)))
        if rc != 0:
            raise HugepagesError('hugepagesctl %s failed: %s' % (' '.join(args), error_line(err)),
                                 rc=rc, stderr=err)
        try:
            doc = json.loads(out)
        except ValueError as e:
            raise HugepagesError('hugepagesctl %s printed no JSON: %s' % (' '.join(args), e))
        if doc.get('format_version') != JSON_FORMAT_VERSION:
            raise HugepagesError('hugepagesctl %s: JSON format_version %s, this collection reads %d'
                                 % (' '.join(args), doc.get('format_version'), JSON_FORMAT_VERSION))
        return doc

    def change(self, *args):
        """Runs a changing command; (shortfall, stdout, stderr). A refusal
        or any other error raises with hugepagesd's message."""
        args = tuple(str(a) for a in args)
        rc, out, err = self.run(*args)
        if rc == EXIT_SHORTFALL:
            return True, out, err
        if rc != 0:
            raise HugepagesError('hugepagesctl %s failed: %s' % (' '.join(args), error_line(err)),
                                 rc=rc, stderr=err)
        return False, out, err

    def status(self):
        return self.read('status')

    def pool(self, page_size):
        """The pool object of status --json for a size given as bytes or text."""
        wanted = parse_size(page_size)
        for pool in self.status()['pools']:
            if pool['page_size'] == wanted:
                return pool
        raise HugepagesError('this host has no pool of %s pages' % page_size)

    def claims(self):
        return self.read('claims')['claims']

    def settings(self):
        """ConfiguredState as a dict key -> value (config --json)."""
        return dict((s['key'], s['value']) for s in self.read('config')['settings'])


def error_line(text):
    """The client's own error line ("hugepagesctl: ..."): a refusal goes on
    with advice (ways forward, a polkit rule), which stays in stderr."""
    lines = [line for line in (text or '').splitlines() if line.strip()]
    for line in lines:
        if line.startswith('hugepagesctl: ') and not line.startswith('hugepagesctl: warning'):
            return line[len('hugepagesctl: '):]
    return lines[-1] if lines else '(no message)'


def fail(module, error, **result):
    result.update(error.figures)
    module.fail_json(msg=error.msg, **result)
