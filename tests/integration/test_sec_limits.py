# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Limits under concurrency (tests/SECURITY.md, "Limits under concurrent
calls"): many SetMinimum, SetNodePages and Claim calls sent at once, while
the worker is slowed down so that all of them are checked on arrival before
the first one is applied. Afterwards the pools are within PoolMemoryLimit,
every claim file on disk is one the service lists, and the pool holds
exactly the pages the listed claims account for."""

import os
import time

import hpdtest
from hpdtest import (ACTION_POOLS, ERR_LIMIT_EXCEEDED, MANAGER_IFACE, MANAGER_PATH,
                     PAGE_SIZE_IFACE, page_size_path)
from gi.repository import Gio, GLib

H2 = 'sys/kernel/mm/hugepages/hugepages-2048kB'
RUNTIME = 'run/hugepagesd/claims.d'
SIZE_2M = 2048 * 1024
SIZE_1G = 1024 * 1024 * 1024
MAX_CONSUMERS = 1024


def slow_pool_writes(fk, size_kb, seconds):
    """Every open of the pool's nr_hugepages waits: the queue fills up while
    the calls behind the first one are validated."""
    def wait(_text):
        time.sleep(seconds)
        return None
    fk.on_open(fk.pool_file(size_kb, 'nr_hugepages'), wait)


class Calls:
    """Asynchronous calls on several connections; replies collected."""

    def __init__(self, conns):
        self.conns = conns
        self.replies = []
        self.sent = 0

    def send(self, path, iface, method, params):
        tag = (method, self.sent)

        def done(c, result):
            try:
                self.replies.append((tag, 'ok', c.call_finish(result).unpack()))
            except GLib.Error as e:
                self.replies.append((tag, 'error', Gio.DBusError.get_remote_error(e)))

        conn = self.conns[self.sent % len(self.conns)]
        self.sent += 1
        conn.call(hpdtest.BUS_NAME, path, iface, method, params, None,
                  Gio.DBusCallFlags.NONE, 120000, None, done)

    def wait(self, timeout=90):
        ctx = GLib.MainContext.default()
        deadline = time.monotonic() + timeout
        while len(self.replies) < self.sent:
            assert time.monotonic() < deadline, f'{len(self.replies)} of {self.sent} replies'
            if not ctx.iteration(False):
                time.sleep(0.002)
        return self.replies


def claim_params(consumer, pages):
    return GLib.Variant('(sta{sv})', (consumer, pages, {}))


def pool_bytes(fk):
    return sum(fk.read_int(fk.pool_file(kb, 'nr_hugepages')) * kb * 1024 for kb in fk.sizes)


def listed_consumers(conn):
    claims = hpdtest.rows(hpdtest.get(conn, MANAGER_PATH, MANAGER_IFACE, 'Claims'), hpdtest.CLAIM_KEYS)
    return {c[0] for c in claims}, claims


def files_on_disk(fk):
    d = fk.path(RUNTIME)
    return {n[:-len('.conf')] for n in os.listdir(d) if n.endswith('.conf')} \
        if os.path.isdir(d) else set()


def test_concurrent_changes_stay_within_the_memory_limit(service, bus, conn, fake_kernel, polkit):
    polkit.allow(ACTION_POOLS)
    fk = fake_kernel
    limit = hpdtest.manager_props(conn)['PoolMemoryLimit']
    conns = [bus.connect() for _ in range(4)]
    slow_pool_writes(fk, 2048, 0.05)
    calls = Calls(conns)
    # each alone fits in the limit; any two together do not
    big_2m = limit * 6 // 10 // SIZE_2M
    big_1g = limit * 6 // 10 // SIZE_1G
    calls.send(page_size_path(2048), PAGE_SIZE_IFACE, 'SetMinimum',
               GLib.Variant('(ta{sv})', (big_2m, {})))
    calls.send(page_size_path(1048576), PAGE_SIZE_IFACE, 'SetMinimum',
               GLib.Variant('(ta{sv})', (big_1g, {})))
    calls.send(page_size_path(2048), PAGE_SIZE_IFACE, 'SetNodePages',
               GLib.Variant('(uta{sv})', (1, big_2m, {})))
    # ten claims of a tenth of the limit each
    for i in range(10):
        calls.send(page_size_path(2048), PAGE_SIZE_IFACE, 'Claim',
                   claim_params(f'db{i}', limit // 10 // SIZE_2M))
    replies = calls.wait()
    fk.on_open(fk.pool_file(2048, 'nr_hugepages'), None)

    errors = [r for r in replies if r[1] == 'error']
    assert all(r[2] == ERR_LIMIT_EXCEEDED for r in errors), replies
    assert pool_bytes(fk) <= limit, (pool_bytes(fk), limit, replies)
    # the listed claims are all in the pool
    consumers, claims = listed_consumers(conn)
    assert consumers == files_on_disk(fk)
    claimed = sum(c[2] for c in claims if c[1] == SIZE_2M)
    assert fk.read_int(fk.pool_file(2048, 'nr_hugepages')) >= claimed
    for c in conns:
        c.close_sync(None)


def test_concurrent_claims_respect_the_consumer_cap(service, bus, conn, fake_kernel, polkit):
    polkit.allow(ACTION_POOLS)
    fk = fake_kernel
    # consumers on the 1 GiB size (files only): room for ten more
    d = fk.path(RUNTIME)
    os.makedirs(d, exist_ok=True)
    for i in range(MAX_CONSUMERS - 10):
        with open(os.path.join(d, f'old{i}.conf'), 'w') as f:
            f.write('[1GB]\npages = 1\nuid = 0\n')
    conns = [bus.connect() for _ in range(4)]
    slow_pool_writes(fk, 2048, 0.05)
    calls = Calls(conns)
    for i in range(30):
        calls.send(page_size_path(2048), PAGE_SIZE_IFACE, 'Claim', claim_params(f'new{i}', 2))
    replies = calls.wait()
    fk.on_open(fk.pool_file(2048, 'nr_hugepages'), None)

    ok = [r for r in replies if r[1] == 'ok']
    refused = [r for r in replies if r[1] == 'error']
    assert all(r[2] == ERR_LIMIT_EXCEEDED for r in refused), replies
    assert len(ok) == 10, replies
    consumers, claims = listed_consumers(conn)
    assert len(consumers) == MAX_CONSUMERS
    assert files_on_disk(fk) == consumers
    # every page of the pool belongs to a listed claim (the base was 0)
    claimed = sum(c[2] for c in claims if c[1] == SIZE_2M)
    assert claimed == 20
    assert fk.read_int(fk.pool_file(2048, 'nr_hugepages')) == claimed
    for c in conns:
        c.close_sync(None)
