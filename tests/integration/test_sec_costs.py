# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""No unbounded cost per call (tests/SECURITY.md, "Cost of one call"): a
Manager property read costs the same with 1,024 consumers as with one, as
counted by the kernel (read syscalls of every thread of the service,
/proc/PID/io), and the cached claims still follow every change."""

import os
import time

import pytest

import hpdtest
from hpdtest import MANAGER_IFACE, MANAGER_PATH
from gi.repository import Gio, GLib

RUNTIME = 'run/hugepagesd/claims.d'
SETTLE_S = 3.5        # HPD_CONFIG_SETTLE_US and a margin
GETS = 20


def read_syscalls(pid):
    with open(f'/proc/{pid}/io') as f:
        return int(next(line for line in f if line.startswith('syscr:')).split()[1])


def write_claim(fk, consumer, pages):
    d = fk.path(RUNTIME)
    os.makedirs(d, exist_ok=True)
    tmp = os.path.join(d, f'.{consumer}.tmp')
    with open(tmp, 'w') as f:
        f.write(f'[1GB]\npages = {pages}\nuid = 0\n')
    os.rename(tmp, os.path.join(d, f'{consumer}.conf'))


def claims(conn):
    return hpdtest.rows(hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'Claims'), hpdtest.CLAIM_KEYS)


def reads_per_get(service, conn):
    claims(conn)      # loads what changed
    before = read_syscalls(service.pid)
    for _ in range(GETS):
        hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'MemTotal')
    return (read_syscalls(service.pid) - before) / GETS


def test_property_read_costs_the_same_with_1024_consumers(service, conn, fake_kernel):
    fk = fake_kernel
    write_claim(fk, 'one', 1)
    time.sleep(SETTLE_S)
    one = reads_per_get(service, conn)
    assert len(claims(conn)) == 1

    for i in range(1023):
        write_claim(fk, f'c{i}', 1)
    time.sleep(SETTLE_S)
    many = reads_per_get(service, conn)
    assert len(claims(conn)) == 1024
    # reading the claims again would cost at least two reads per file, over
    # 2,000 per Get; a Get reads the kernel files afresh (about 60 on the
    # fake tree), and a refresh of the watched properties landing inside
    # the measurement adds a few of those. Under valgrind the count holds
    # its thread switches too, as many as the service's own reads.
    if not hpdtest.under_valgrind():
        assert many <= one + 16, (one, many)

    # the cache follows a file replaced, added and removed
    write_claim(fk, 'c0', 5)
    assert [c[2] for c in claims(conn) if c[0] == 'c0'] == [5]
    os.unlink(fk.path(f'{RUNTIME}/c1.conf'))
    assert 'c1' not in {c[0] for c in claims(conn)}
    time.sleep(SETTLE_S)
    write_claim(fk, 'c1', 7)
    assert [c[2] for c in claims(conn) if c[0] == 'c1'] == [7]


# --- the largest message a local user can send -------------------------------------

BUS_MAX_MESSAGE = 32 * 1024 * 1024     # dbus-daemon's default max_message_size


def status_kb(pid, field):
    with open(f'/proc/{pid}/status') as f:
        return int(next(line for line in f if line.startswith(field + ':')).split()[1])


def memory_max_bytes(builddir):
    """MemoryMax= of the unit the build installs."""
    value = hpdtest.unit_settings(os.path.join(builddir, 'data', 'hugepagesd.service'))['MemoryMax'][-1]
    units = {'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30}
    return int(value[:-1]) * units[value[-1]] if value[-1] in units else int(value)


def maximal_dict():
    """An a{sv} of small entries just under the bus's limit: the costliest
    message for GDBus to build, one GVariant per key, variant and value."""
    entries = 1370000      # 24 bytes each on the wire
    text = '{' + ', '.join(f'"{i:06x}": <true>' for i in range(entries)) + '}'
    return GLib.Variant.parse(GLib.VariantType('a{sv}'), text, None, None)


def test_a_maximal_message_fits_the_units_memory_max(service, bus, fake_kernel, builddir,
                                                     hugepagesd):
    """GDBus builds the whole message as GVariants (one per key, variant and
    value) in its worker thread before any handler sees it: the service
    cannot refuse it earlier. The unit's MemoryMax must hold that peak, or
    any local user gets the service killed by the kernel at will."""
    if not hpdtest.plain_build(hugepagesd):
        pytest.skip('the bound is the plain build\'s: under ASan or valgrind the memory is the tool\'s')
    conn = bus.connect()
    big = maximal_dict()
    message = Gio.DBusMessage.new_method_call(hpdtest.BUS_NAME, MANAGER_PATH, MANAGER_IFACE,
                                              'GetClaims')
    message.set_body(GLib.Variant.new_tuple(big))
    size = len(message.to_blob(Gio.DBusCapabilityFlags.NONE))
    assert BUS_MAX_MESSAGE * 0.95 < size < BUS_MAX_MESSAGE, size
    with open(f'/proc/{service.pid}/clear_refs', 'w') as f:
        f.write('5')      # VmHWM from now on
    baseline = status_kb(service.pid, 'VmHWM')
    started = time.monotonic()
    try:
        hpdtest.call(conn, MANAGER_PATH, MANAGER_IFACE, 'GetClaims',
                     GLib.Variant.new_tuple(big), '(aa{sv})', timeout_ms=120000)
        raise AssertionError('a 1.37 million entry options dict was taken')
    except hpdtest.BusError as e:
        assert e.name == hpdtest.ERR_INVALID_ARGS, e
    peak = status_kb(service.pid, 'VmHWM')
    print(f'{size} byte a{{sv}}: peak RSS {peak} kB (from {baseline} kB), '
          f'{time.monotonic() - started:.1f} s; MemoryMax {memory_max_bytes(builddir)} bytes')
    conn.close_sync(None)
    assert peak * 1024 < memory_max_bytes(builddir), (peak, memory_max_bytes(builddir))
