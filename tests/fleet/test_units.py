# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""The collection's sizes and page amounts (module_utils/hugepagesctl.py)
against tests/units.json, the vectors the C parser (src/common/hp-units.c,
tests/unit/test-units.c) and the Cockpit page's (tests/cockpit/units.test.mjs)
are checked against too: a task takes exactly the sizes hugepagesctl takes,
and says why not in the same words."""

import importlib.util
import json
import os

import pytest

from conftest import COLLECTION, REPO

_spec = importlib.util.spec_from_file_location(
    'hpd_module_utils', os.path.join(COLLECTION, 'plugins', 'module_utils', 'hugepagesctl.py'))
utils = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(utils)

with open(os.path.join(REPO, 'tests', 'units.json')) as _f:
    VECTORS = json.load(_f)


@pytest.mark.parametrize('vector', VECTORS['size'], ids=lambda v: repr(v['text']))
def test_size_as_hugepagesd_reads_it(vector):
    if 'bytes' in vector:
        assert utils.parse_size(vector['text']) == int(vector['bytes'])
    else:
        with pytest.raises(utils.HugepagesError) as e:
            utils.parse_size(vector['text'])
        assert vector['error'] in e.value.msg


@pytest.mark.parametrize('vector', VECTORS['amount'], ids=lambda v: f"{v['text']!r}@{v['page-size']}")
def test_amount_as_hugepagesd_reads_it(vector):
    page_size = int(vector['page-size'])
    if vector.get('kind', 'set') != 'set':
        # a task says what it wants: hugepagesd's relative amounts are refused
        with pytest.raises(utils.HugepagesError) as e:
            utils.parse_pages(vector['text'], page_size, 'pages')
        assert 'relative amounts are refused' in e.value.msg
    elif 'pages' in vector:
        assert utils.parse_pages(vector['text'], page_size, 'pages') == int(vector['pages'])
    else:
        with pytest.raises(utils.HugepagesError) as e:
            utils.parse_pages(vector['text'], page_size, 'pages')
        assert e.value.msg.startswith('pages: ')
        if vector['text'][:1] not in ('+', '-'):
            assert vector['error'] in e.value.msg


def test_numbers_from_yaml():
    """YAML integers are not text; they follow the same rules."""
    assert utils.parse_size(2097152) == 2097152
    for bad in (0, -1, 1 << 64, True):
        with pytest.raises(utils.HugepagesError):
            utils.parse_size(bad)
    assert utils.parse_pages(0, 2097152, 'pages') == 0
    assert utils.parse_pages((1 << 64) - 1, 2097152, 'pages') == (1 << 64) - 1
    for bad in (-1, 1 << 64, False):
        with pytest.raises(utils.HugepagesError):
            utils.parse_pages(bad, 2097152, 'pages')


def test_a_number_is_ascii_digits():
    """Node numbers, gids, uids and min_free_kbytes: hugepagesctl reads
    ASCII digits; str.isdigit() takes '²' (int() then fails) and '٣' (int()
    reads it as 3)."""
    for ok in ('0', '42', '0010', '18446744073709551615'):
        assert utils.is_decimal(ok)
    for bad in ('', '\u00b2', '\u0663', '4\u00b2', '\uff14', ' 4', '4 ', '+4', '-4', '4.0', '0x4', '4k'):
        assert not utils.is_decimal(bad), repr(bad)
