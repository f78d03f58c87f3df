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

# hugepagesctl's documented exit statuses
EXIT_SHORTFALL = 3

JSON_FORMAT_VERSION = 1

# hugepagesd's units (src/common/hp-units.c), in any ASCII case; "b" is
# bytes. tests/units.json holds the vectors this, the C parser and the
# Cockpit page's are all checked against.
_SHIFTS = {'': 0, 'b': 0,
           'k': 10, 'kb': 10, 'kib': 10,
           'm': 20, 'mb': 20, 'mib': 20,
           'g': 30, 'gb': 30, 'gib': 30,
           't': 40, 'tb': 40, 'tib': 40}
_DIGITS = '0123456789'
_UINT64_MAX = (1 << 64) - 1

COMMON_ARGS = dict(hugepagesctl=dict(type='path'))


class HugepagesError(Exception):
    def __init__(self, msg, **figures):
        super(HugepagesError, self).__init__(msg)
        self.msg = msg
        self.figures = figures


def is_decimal(text):
    """ASCII digits only, as hugepagesctl reads a number: str.isdigit()
    also takes '²' (which int() refuses) and '٣' (which int() reads as 3)."""
    return text != '' and text.strip(_DIGITS) == ''


def _number_with_unit(text, shown):
    """(bytes, whether a unit was given) of '123M', as hp-units.c reads it:
    ASCII digits, then nothing or one of the units, no space, no sign."""
    count = len(text) - len(text.lstrip(_DIGITS))
    if count == 0:
        raise HugepagesError("'%s' does not start with a decimal number" % shown)
    number = int(text[:count])
    suffix = text[count:]
    if number > _UINT64_MAX:
        raise HugepagesError("'%s' is too large" % shown)
    # str.lower() would make the Kelvin sign a 'k': units are ASCII only
    shift = _SHIFTS.get(suffix.lower()) if all(ord(c) < 128 for c in suffix) else None
    if shift is None:
        raise HugepagesError("'%s' has an unknown unit '%s' (use K, M, G or T)" % (shown, suffix))
    if number > _UINT64_MAX >> shift:
        raise HugepagesError("'%s' is too large" % shown)
    return number << shift, suffix != ''


def parse_size(value):
    """Bytes of a page size or amount of memory: 2097152, '2M', '2MB',
    '2MiB', '1G', '2048kB'. Binary units, read as hugepagesctl reads them
    (hp_parse_size): no spaces, no zero."""
    if isinstance(value, bool):
        raise HugepagesError("'%s' is not a size (2M, 1G, 2097152)" % value)
    text = str(value)
    if text == '':
        raise HugepagesError('empty size')
    nbytes = _number_with_unit(text, text)[0]
    if nbytes == 0:
        raise HugepagesError("size '%s' is zero" % text)
    return nbytes


def parse_pages(value, page_size, what):
    """Pages of an absolute amount: a number of pages (512, '512') or memory
    ('1G') that is a whole number of pages, as hp_parse_amount reads them.
    Relative amounts ('+4', '-1G') are refused: a task must say what it
    wants, so that a second run changes nothing."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise HugepagesError('%s: expected pages or a size, not a boolean' % what)
    if isinstance(value, int):
        if value < 0:
            raise HugepagesError('%s: relative amounts are refused, give the pages wanted: %d'
                                 % (what, value))
        if value > _UINT64_MAX:
            raise HugepagesError("%s: '%d' is too large" % (what, value))
        return value
    text = str(value)
    if text[:1] in ('+', '-'):
        raise HugepagesError("%s: relative amounts are refused, give the pages wanted: '%s'"
                             % (what, text))
    if text == '':
        raise HugepagesError('%s: empty amount' % what)
    try:
        number, has_unit = _number_with_unit(text, text)
    except HugepagesError as e:
        raise HugepagesError('%s: %s' % (what, e.msg))
    if not has_unit:
        return number
    if number % page_size:
        raise HugepagesError("%s: %s is not a whole number of %d-byte pages"
                             % (what, text, page_size))
    return number // page_size


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
