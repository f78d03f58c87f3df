"""No unbounded cost per call (tests/SECURITY.md, "Cost of one call"): a
Manager property read costs the same with 1,024 consumers as with one, as
counted by the kernel (read syscalls of every thread of the service,
/proc/PID/io), and the cached claims still follow every change."""

import os
import time

import hpdtest
from hpdtest import MANAGER_IFACE, MANAGER_PATH

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
    return hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'Claims')


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
    # a claim file costs at least two reads when it is read
    assert many <= one + 2, (one, many)

    # the cache follows a file replaced, added and removed
    write_claim(fk, 'c0', 5)
    assert [c[2] for c in claims(conn) if c[0] == 'c0'] == [5]
    os.unlink(fk.path(f'{RUNTIME}/c1.conf'))
    assert 'c1' not in {c[0] for c in claims(conn)}
    time.sleep(SETTLE_S)
    write_claim(fk, 'c1', 7)
    assert [c[2] for c in claims(conn) if c[0] == 'c1'] == [7]
