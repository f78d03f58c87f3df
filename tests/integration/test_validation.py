# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Bad input to every method: a typed error, nothing written, polkit never
asked. polkit ALLOWS everything here, so a request that slipped through
validation would be applied and show in the snapshot."""

import pytest

import hpdtest
from hpdtest import (ERR_INVALID_ARGS, ERR_LIMIT_EXCEEDED, PAGE_SIZE_IFACE, UINT64_MAX, BusError,
                     page_size_path, pool_call, raw_pool_call)
from fakekernel import Pool
from gi.repository import GLib

SMALL = 2048
GIANT = 1048576
POOLS = {SMALL: Pool(total=4, free=4, overcommit=2), GIANT: Pool(total=3, free=3)}

# A method with arguments that would change something if accepted.
CALLS = {
    'SetMinimum': (SMALL, (5,)),
    'SetMaximum': (SMALL, (9,)),
    'SetNodePages': (SMALL, (1, 5)),
    'Demote': (GIANT, (1,)),
}
HARD_METHODS = ['SetMinimum', 'SetNodePages']
SOFT_METHODS = ['SetMaximum', 'Demote']


def b(value):
    return GLib.Variant('b', value)


def u(value):
    return GLib.Variant('u', value)


def dup_options(*pairs):
    """An a{sv} that may repeat keys (a Python dict cannot)."""
    entries = [GLib.Variant.new_dict_entry(GLib.Variant('s', k), GLib.Variant.new_variant(v))
               for k, v in pairs]
    return GLib.Variant.new_array(GLib.VariantType('{sv}'), entries)


def params_with_options(method, args, opts_variant):
    sig = hpdtest.POOL_METHODS[method]
    leading = [GLib.Variant(t, a) for t, a in zip(sig[1:-6], args)]
    return GLib.Variant.new_tuple(*leading, opts_variant)


@pytest.fixture
def allow_all(polkit):
    polkit.allow_unknown(True)
    polkit.allow(*hpdtest.ALL_ACTIONS)
    return polkit


def expect_error(conn, fk, polkit, name, fn):
    before = fk.snapshot()
    with pytest.raises(BusError) as e:
        fn()
    assert e.value.name == name, e.value
    assert fk.snapshot() == before
    assert polkit.checks() == []
    return e.value


def many_keys(n):
    """An a{sv} with n distinct unknown keys, built fast (GVariant text)."""
    return GLib.Variant.parse(GLib.VariantType('a{sv}'),
                              '{' + ', '.join(f'"key-{i}": <true>' for i in range(n)) + '}',
                              None, None)


# name -> (methods it applies to, options: a dict or a prebuilt a{sv})
BAD_OPTIONS = {
    'unknown key': (list(CALLS), lambda: {'bogus': b(True)}),
    'unknown key with a valid one': (list(CALLS), lambda: {'dry-run': b(False), 'force': b(True)}),
    'case differs': (list(CALLS), lambda: {'Dry-Run': b(True)}),
    'empty key': (list(CALLS), lambda: {'': b(True)}),
    'dry-run not b': (list(CALLS), lambda: {'dry-run': u(1)}),
    'dry-run as string': (list(CALLS), lambda: {'dry-run': GLib.Variant('s', 'true')}),
    'hard on a method without it': (SOFT_METHODS, lambda: {'hard': b(True)}),
    'hard not b': (HARD_METHODS, lambda: {'hard': u(1)}),
    'timeout-ms on a method without it': (SOFT_METHODS, lambda: {'timeout-ms': u(5)}),
    'timeout-ms not u': (HARD_METHODS, lambda: {'timeout-ms': GLib.Variant('t', 5)}),
    'timeout-ms too big': (HARD_METHODS, lambda: {'timeout-ms': u(600001)}),
    'timeout-ms max u32': (HARD_METHODS, lambda: {'timeout-ms': u(2**32 - 1)}),
    'too many keys': (list(CALLS), lambda: {f'k{i}': b(True) for i in range(33)}),
    '100000 keys': (list(CALLS), lambda: many_keys(100000)),
}


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('case,method', [(c, m) for c, (methods, _) in BAD_OPTIONS.items()
                                         for m in methods])
def test_bad_options(service, conn, fake_kernel, allow_all, method, case):
    opts = BAD_OPTIONS[case][1]()
    size_kb, args = CALLS[method]
    if isinstance(opts, GLib.Variant):
        params = params_with_options(method, args, opts)
        call = lambda: raw_pool_call(conn, size_kb, method, params)  # noqa: E731
    else:
        call = lambda: pool_call(conn, size_kb, method, *args, options=opts)  # noqa: E731
    expect_error(conn, fake_kernel, allow_all, ERR_INVALID_ARGS, call)


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('method,key,value', [(m, 'dry-run', True) for m in CALLS]
                         + [(m, 'dry-run', False) for m in CALLS]
                         + [(m, 'hard', False) for m in HARD_METHODS])
@pytest.mark.valgrind(first=2)
def test_duplicate_option_key(service, conn, fake_kernel, allow_all, method, key, value):
    size_kb, args = CALLS[method]
    params = params_with_options(method, args, dup_options((key, b(value)), (key, b(value))))
    expect_error(conn, fake_kernel, allow_all, ERR_INVALID_ARGS,
                 lambda: raw_pool_call(conn, size_kb, method, params))


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('method', HARD_METHODS)
@pytest.mark.valgrind(first=1)
def test_timeout_ms_boundary_accepted(service, conn, fake_kernel, allow_all, method):
    size_kb, args = CALLS[method]
    before = fake_kernel.snapshot()
    opts = {'timeout-ms': u(600000), 'hard': b(True), 'dry-run': b(True)}
    assert pool_call(conn, size_kb, method, *args, options=opts) == args[-1]
    assert fake_kernel.snapshot() == before


HUGE_COUNTS = [
    ('SetMinimum', (UINT64_MAX,), ERR_INVALID_ARGS),
    ('SetMaximum', (UINT64_MAX,), ERR_INVALID_ARGS),
    ('SetNodePages', (0, UINT64_MAX), ERR_INVALID_ARGS),
    ('SetMinimum', (2**63,), ERR_INVALID_ARGS),
    ('SetMaximum', (2**63,), ERR_INVALID_ARGS),
    ('SetNodePages', (1, 2**63), ERR_INVALID_ARGS),
    # the first count whose bytes overflow 64 bits, and the last that does not
    ('SetMinimum', (2**43,), ERR_INVALID_ARGS),
    ('SetMinimum', (2**43 - 1,), ERR_LIMIT_EXCEEDED),
    ('SetMaximum', (2**43 - 1,), ERR_LIMIT_EXCEEDED),
    ('SetNodePages', (0, 2**43 - 3), ERR_LIMIT_EXCEEDED),  # + node 1's 2 pages
    ('SetNodePages', (0, 2**43 - 2), ERR_INVALID_ARGS),
    # just over 90 % of 16 GiB
    ('SetMinimum', (7373,), ERR_LIMIT_EXCEEDED),
    ('SetMaximum', (7373,), ERR_LIMIT_EXCEEDED),
    ('SetNodePages', (0, 7373 - 2), ERR_LIMIT_EXCEEDED),  # node 1 holds 2 more
]


@pytest.mark.fake_kernel(pools={SMALL: Pool(total=4, free=4, overcommit=2)})
@pytest.mark.parametrize('dry_run', [False, True], ids=['apply', 'dry-run'])
@pytest.mark.parametrize('method,args,error', HUGE_COUNTS)
def test_impossible_counts(service, conn, fake_kernel, allow_all, method, args, error, dry_run):
    opts = {'dry-run': b(True)} if dry_run else {}
    expect_error(conn, fake_kernel, allow_all, error,
                 lambda: pool_call(conn, SMALL, method, *args, options=opts))


@pytest.mark.fake_kernel(pools={GIANT: Pool(total=3, free=3)})
@pytest.mark.parametrize('method,pages', [('SetMinimum', 2**34), ('SetMaximum', 2**34),
                                          ('SetMinimum', 15), ('SetMaximum', 15)])
@pytest.mark.valgrind(first=2)
def test_impossible_counts_gigantic(service, conn, fake_kernel, allow_all, method, pages):
    # 2^34 GiB overflows 64 bits of bytes; 15 GiB is over 90 % of 16 GiB
    error = ERR_INVALID_ARGS if pages == 2**34 else ERR_LIMIT_EXCEEDED
    expect_error(conn, fake_kernel, allow_all, error,
                 lambda: pool_call(conn, GIANT, method, pages))


WRONG_SIGNATURES = {
    'SetMinimum': [('(ua{sv})', (5, {})), ('(t)', (5,)), ('(ta{ss})', (5, {})), ('()', ()),
                   ('(ta{sv}s)', (5, {}, 'x')), ('(st)', ('5', 5))],
    'SetMaximum': [('(ia{sv})', (5, {})), ('(a{sv})', ({},))],
    'SetNodePages': [('(tta{sv})', (0, 5, {})), ('(ta{sv})', (5, {})), ('(uta{sv}b)', (0, 5, {}, True))],
    'Demote': [('(da{sv})', (1.0, {})), ('(ta{su})', (1, {}))],
}


@pytest.mark.fake_kernel(pools=POOLS)
@pytest.mark.parametrize('method,sig,args', [(m, s, a) for m, cases in WRONG_SIGNATURES.items()
                                             for s, a in cases])
def test_wrong_signature(service, conn, fake_kernel, allow_all, method, sig, args):
    size_kb = CALLS[method][0]
    params = GLib.Variant(sig, args) if sig != '()' else None
    expect_error(conn, fake_kernel, allow_all, hpdtest.DBUS_INVALID_ARGS,
                 lambda: raw_pool_call(conn, size_kb, method, params))


UNKNOWN_NAMES = {'org.freedesktop.DBus.Error.UnknownMethod', 'org.freedesktop.DBus.Error.UnknownObject',
                 'org.freedesktop.DBus.Error.UnknownInterface'}


@pytest.mark.parametrize('path,iface,method', [
    (page_size_path(2048), PAGE_SIZE_IFACE, 'SetEverything'),
    (page_size_path(2048), PAGE_SIZE_IFACE, 'setminimum'),
    (hpdtest.MANAGER_PATH, hpdtest.MANAGER_IFACE, 'SetMinimum'),
    (hpdtest.MANAGER_PATH, PAGE_SIZE_IFACE, 'SetMinimum'),
    (page_size_path(3072), PAGE_SIZE_IFACE, 'SetMinimum'),
    (page_size_path(4096), PAGE_SIZE_IFACE, 'SetMinimum'),
    (hpdtest.PAGE_SIZE_PREFIX + '2048kB/x', PAGE_SIZE_IFACE, 'SetMinimum'),
    ('/org/hugepages/Manager/PageSize', PAGE_SIZE_IFACE, 'SetMinimum'),
    ('/' + 'a' * 65536, PAGE_SIZE_IFACE, 'SetMinimum'),
    (page_size_path(2048), 'org.hugepages.Manager.Evil', 'SetMinimum'),
])
@pytest.mark.valgrind(first=3)
def test_unknown_method_or_object(service, conn, fake_kernel, polkit, path, iface, method):
    polkit.allow_unknown(True)
    before = fake_kernel.snapshot()
    with pytest.raises(BusError) as e:
        hpdtest.call(conn, path, iface, method, GLib.Variant('(ta{sv})', (5, {})))
    # a foreign interface is refused by the bus policy before it reaches us
    expected = UNKNOWN_NAMES | ({hpdtest.DBUS_ACCESS_DENIED} if iface.endswith('Evil') else set())
    assert e.value.name in expected
    assert fake_kernel.snapshot() == before
    assert polkit.checks() == []
