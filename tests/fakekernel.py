#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""A fake kernel tree for hugepagesd: the sysfs and procfs files it reads,
below a root directory that the service is pointed at with --kernel-root.

Importable (tests, simulations) and runnable as a script:

    fakekernel.py DIR [--nodes 4] [--sizes 2048,1048576] [--default-size 2048]
                      [--mem-total KB] [--max-order 10] [--no-tunables]
                      [--pool 2048:total=8,free=6,overcommit=5 ...]
                      [--overcommit-file 1048576=yes ...] [--memoryless 2 ...]
                      [--cmdline 'hugepagesz=1G hugepages=2']

Sizes are in kB, as in the kernel's directory names (hugepages-<N>kB).

The tree is static: it does not simulate the kernel. A write to a file just
stores what was written; nothing else changes (writing nr_hugepages does not
move free_hugepages or the per-node files). Tests use that to see exactly
which files the service wrote, with snapshot() and diff().

Files written (below ROOT):

    sys/kernel/mm/hugepages/hugepages-<N>kB/
        nr_hugepages free_hugepages resv_hugepages surplus_hugepages
        nr_hugepages_mempolicy
        nr_overcommit_hugepages   (per size; by default omitted for gigantic
                                   sizes, as kernels <= 6.18 refuse gigantic
                                   overcommit and the service treats a missing
                                   file as "cannot overcommit")
        demote demote_size        (on sizes that have a smaller size)
    sys/devices/system/node/online
    sys/devices/system/node/node<N>/compact
    sys/devices/system/node/node<N>/hugepages/hugepages-<N>kB/
        nr_hugepages free_hugepages surplus_hugepages
    proc/meminfo proc/buddyinfo proc/sys/vm/compact_memory proc/sys/vm/drop_caches

Tunables (tunables=Tunables(...); tunables=None writes none of them; each
field set to None leaves its file out, as a kernel without it would):

    proc/sys/kernel/shmmax shmall         (the kernel's ULONG_MAX - 2^24)
    proc/sys/vm/hugetlb_shm_group min_free_kbytes
    proc/sys/vm/hugepages_treat_as_movable (absent by default: gone in 4.16)
    proc/sys/vm/movable_gigantic_pages     (absent by default: >= 6.19)
    proc/zoneinfo proc/pagetypeinfo        (zones consistent with the nodes:
                                            DMA, DMA32 and Normal on the first
                                            node, Normal on the others, empty
                                            Movable and Device zones everywhere)
    sys/kernel/mm/transparent_hugepage/
        enabled defrag shmem_enabled      ("always [madvise] never\\n")
        hpage_pmd_size use_zero_page shrink_underused anon_beside_full
        khugepaged/{pages_to_scan,scan_sleep_millisecs,alloc_sleep_millisecs,
                    defrag,max_ptes_none,max_ptes_swap,max_ptes_shared,
                    pages_collapsed,full_scans}
        hugepages-<N>kB/enabled shmem_enabled stats/  (mTHP sizes; 8 kB has
                                           shmem_enabled only, as on 6.18)

proc/<pid>/limits is never written by default: write_limits(pid, ...) adds it
for one pid (the service reads it for the real caller pid below the root).

A plain directory cannot act like a THP file, which shows the written
keyword in brackets among the others: after the service writes "never",
a read must give "always madvise [never]". simulate() starts a small kernel
simulator for that (fanotify permission events, root only; the integration
fixture starts it): whenever a THP choice file is opened and holds a single
bare keyword, it is rewritten the way the kernel would show it, or put back
to the previous value if the kernel would have refused the keyword.
limit_pool(size_kb, pages) makes nr_hugepages of a size read back at most
pages, as when memory is short. AllocationModel(fk, size_kb, ...) goes
further: per-node capacities that compaction raises (see its docstring).
stop() (or close()) ends the simulator.
    proc/cmdline              (only when cmdline is given: the kernel command
                               line, a newline added as the kernel does;
                               without it the service sees a kernel booted
                               without huge page parameters)
    proc/self/mountinfo       (only when mounts are given: a few other file
                               systems and one line per hugetlbfs Mount, in
                               the kernel's format; the service reads its
                               Mounts properties from it)
    proc/self/ns/mnt          (symbolic links, by default both to the same
    proc/1/ns/mnt              "mnt:[4026531840]": the service runs in PID
                               1's mount namespace, so its mounts would be
                               seen system-wide; mount_ns=(own, pid1) sets
                               other targets, None leaves a link out)
"""

import argparse
import ctypes
import os
import select
import shutil
import struct
import sys
import threading
from dataclasses import dataclass, field, replace
from typing import Callable, Dict, List, Optional, Sequence, Tuple

BASE_PAGE_SIZE = 4096
HUGEPAGES_DIR = 'sys/kernel/mm/hugepages'
NODE_DIR = 'sys/devices/system/node'
DEFAULT_MEM_TOTAL_KB = 16 * 1024 * 1024  # 16 GiB
MOUNTINFO = 'proc/self/mountinfo'
OWN_MOUNT_NS = 'proc/self/ns/mnt'
INIT_MOUNT_NS = 'proc/1/ns/mnt'
HOST_MOUNT_NS = 'mnt:[4026531840]'
CMDLINE = 'proc/cmdline'
HUGETLBFS_FLAGS = 'rw,nosuid,nodev,relatime'
# Mount table lines around the hugetlbfs ones, as on a real machine.
OTHER_MOUNTS_BEFORE = [
    '22 27 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw',
    '27 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,errors=remount-ro',
    '28 27 0:5 / /dev rw,nosuid,relatime shared:2 - devtmpfs udev rw,size=8160000k,nr_inodes=2040000,mode=755',
]
OTHER_MOUNTS_AFTER = [
    '99 27 0:99 / /tmp rw,nosuid,nodev shared:40 - tmpfs tmpfs rw,size=1048576k,nr_inodes=409600',
]

# --- tunables ----------------------------------------------------------------
SHMMAX = 'proc/sys/kernel/shmmax'
SHMALL = 'proc/sys/kernel/shmall'
SHM_GROUP = 'proc/sys/vm/hugetlb_shm_group'
MIN_FREE_KBYTES = 'proc/sys/vm/min_free_kbytes'
TREAT_AS_MOVABLE = 'proc/sys/vm/hugepages_treat_as_movable'
MOVABLE_GIGANTIC = 'proc/sys/vm/movable_gigantic_pages'
ZONEINFO = 'proc/zoneinfo'
PAGETYPEINFO = 'proc/pagetypeinfo'
THP_DIR = 'sys/kernel/mm/transparent_hugepage'
KERNEL_SHMMAX = 2**64 - 1 - 2**24   # the default since 3.16: ULONG_MAX - 2^24
# The values each THP choice file offers on 6.18 (kernel.md section 4).
THP_CHOICES = {
    'enabled': ('always', 'madvise', 'never'),
    'defrag': ('always', 'defer', 'defer+madvise', 'madvise', 'never'),
    'shmem_enabled': ('always', 'within_size', 'advise', 'never', 'deny', 'force'),
}
MTHP_ENABLED_CHOICES = ('always', 'inherit', 'madvise', 'never')
MTHP_SHMEM_CHOICES = ('always', 'inherit', 'within_size', 'advise', 'never')
MTHP_SIZES = (8, 16, 32, 64, 128, 256, 512, 1024, 2048)   # x86-64, 4 KiB pages
KHUGEPAGED = {'pages_to_scan': 4096, 'scan_sleep_millisecs': 10000,
              'alloc_sleep_millisecs': 60000, 'defrag': 1, 'max_ptes_none': 511,
              'max_ptes_swap': 64, 'max_ptes_shared': 256, 'pages_collapsed': 0,
              'full_scans': 0}


@dataclass
class NodePool:
    """One size's counters on one NUMA node."""
    total: int = 0
    free: int = 0
    surplus: int = 0


@dataclass
class Pool:
    """One huge page size's counters.

    nodes: per-node counters; None splits total/free/surplus over the nodes
    (the remainder goes to the lowest nodes).
    overcommit_file: None means "present unless gigantic".
    """
    total: int = 0
    free: int = 0
    resv: int = 0
    surplus: int = 0
    overcommit: int = 0
    overcommit_file: Optional[bool] = None
    nodes: Optional[Dict[int, NodePool]] = None


@dataclass
class Tunables:
    """The kernel settings around huge pages. None leaves a file out.

    min_free_kbytes: None is what the kernel sets with THP on: its own
    recommendation (FakeKernel.recommended_min_free_kbytes()).
    zones: zoneinfo's zones as [(node, name, managed pages)]; None derives
    them from the nodes (see the module docstring).
    thp: False leaves out the whole transparent_hugepage directory.
    mthp_enabled, mthp_shmem: {size_kb: current} over the defaults (inherit
    for the PMD size, never for the others).
    khugepaged: {name: value} over KHUGEPAGED; a None value leaves it out.
    """
    shmmax: Optional[int] = KERNEL_SHMMAX
    shmall: Optional[int] = KERNEL_SHMMAX
    shm_group: Optional[int] = 0
    min_free_kbytes: Optional[int] = None
    treat_as_movable: Optional[int] = None
    movable_gigantic_pages: Optional[int] = None
    zoneinfo: bool = True
    zones: Optional[List[Tuple[int, str, int]]] = None
    pagetypeinfo: bool = True
    pageblock_order: int = 9
    thp: bool = True
    thp_enabled: Optional[str] = 'madvise'
    thp_defrag: Optional[str] = 'madvise'
    thp_shmem_enabled: Optional[str] = 'never'
    hpage_pmd_size: Optional[int] = 2 << 20
    mthp_sizes: Sequence[int] = MTHP_SIZES
    mthp_enabled: Dict[int, str] = field(default_factory=dict)
    mthp_shmem: Dict[int, str] = field(default_factory=dict)
    khugepaged: Dict[str, Optional[int]] = field(default_factory=dict)


def choice_text(choices: Sequence[str], current: str) -> str:
    """'always [madvise] never\\n' as the kernel shows a THP choice."""
    if current not in choices:
        raise ValueError(f'{current!r} is not one of {choices}')
    return ' '.join(f'[{c}]' if c == current else c for c in choices) + '\n'


def parse_choice(text: str):
    """(current, choices) of a THP choice file's text, None if malformed."""
    words = text.split()
    marked = [w for w in words if w.startswith('[') and w.endswith(']') and len(w) > 2]
    if len(marked) != 1 or len(words) < 2:
        return None
    choices = tuple(w[1:-1] if w in marked else w for w in words)
    if any(not c.replace('_', '').replace('-', '').replace('+', '').isalnum() for c in choices):
        return None
    return marked[0][1:-1], choices


@dataclass
class Mount:
    """One hugetlbfs mount as /proc/self/mountinfo lists it.

    path: the mount point, unescaped (the line escapes space, tab, newline
    and backslash as the kernel does). A relative path is below the fake
    root: Mount('var/lib/hugetlbfs/pagesize-2MB') is ROOT/var/lib/....
    page_size_kb: None leaves out pagesize= (as kernels before 4.13 could).
    size, min_size: bytes; nr_inodes: a count; None leaves them out, as the
    kernel does for a mount without that limit. uid, gid and mode are left
    out at their defaults (0, 0, 0755), as the kernel does.
    """
    path: str
    page_size_kb: Optional[int] = 2048
    uid: int = 0
    gid: int = 0
    mode: int = 0o755
    size: Optional[int] = None
    min_size: Optional[int] = None
    nr_inodes: Optional[int] = None
    flags: str = HUGETLBFS_FLAGS
    optional: str = ''  # optional fields, such as "shared:30"
    source: str = 'none'

    def super_options(self) -> str:
        """hugetlbfs_show_options(): the order and formats of the kernel."""
        opts = ['rw']
        if self.uid != 0:
            opts.append(f'uid={self.uid}')
        if self.gid != 0:
            opts.append(f'gid={self.gid}')
        if self.mode != 0o755:
            opts.append(f'mode={self.mode:o}')
        if self.nr_inodes is not None:
            opts.append(f'nr_inodes={self.nr_inodes}')
        if self.page_size_kb is not None:
            kb = self.page_size_kb
            opts.append(f'pagesize={kb // 1024}M' if kb >= 1024 else f'pagesize={kb}K')
        if self.size is not None:
            opts.append(f'size={self.size}')
        if self.min_size is not None:
            opts.append(f'min_size={self.min_size}')
        return ','.join(opts)

    def line(self, mount_id: int, parent_id: int = 27) -> str:
        optional = f' {self.optional}' if self.optional else ''
        return (f'{mount_id} {parent_id} 0:{mount_id - 10} / {mountinfo_escape(self.path)} '
                f'{self.flags}{optional} - hugetlbfs {mountinfo_escape(self.source)} '
                f'{self.super_options()}')


def mountinfo_escape(text: str) -> str:
    """The kernel's escaping of mountinfo fields: space, tab, newline and
    backslash as three-digit octal."""
    return ''.join(f'\\{ord(c):03o}' if c in ' \t\n\\' else c for c in text)


def split(value: int, parts: int) -> List[int]:
    if parts == 0:
        return []
    return [value // parts + (1 if i < value % parts else 0) for i in range(parts)]


def size_dir(size_kb: int) -> str:
    return f'{HUGEPAGES_DIR}/hugepages-{size_kb}kB'


def node_size_dir(node: int, size_kb: int) -> str:
    return f'{NODE_DIR}/node{node}/hugepages/hugepages-{size_kb}kB'


def node_list_text(nodes: Sequence[int]) -> str:
    """[0, 1, 2, 5] -> '0-2,5' as in sys/devices/system/node/online."""
    ranges = []
    for n in sorted(set(nodes)):
        if ranges and ranges[-1][1] == n - 1:
            ranges[-1][1] = n
        else:
            ranges.append([n, n])
    return ','.join(str(a) if a == b else f'{a}-{b}' for a, b in ranges)


class FakeKernel:
    """Writes a fake kernel tree below root and reads it back.

    nodes: a count (nodes 0..N-1) or a list of node numbers; all are online.
    memoryless: online nodes without huge page directories.
    sizes: huge page sizes in kB.
    pools: {size_kb: Pool}; sizes not given get an empty Pool.
    boot_hook: what applies the configuration at boot (write_boot_hook).
    """

    def __init__(self, root, nodes=1, sizes=(2048, 1048576), default_size=None,
                 mem_total_kb=DEFAULT_MEM_TOTAL_KB, max_order=10, pools=None,
                 memoryless=(), demote=True, tunables=Tunables(), mounts=None, cmdline=None,
                 mount_ns=(HOST_MOUNT_NS, HOST_MOUNT_NS), boot_hook='systemd-enabled'):
        self.root = os.path.abspath(str(root))
        if os.path.realpath(self.root) == '/':
            raise ValueError('refusing to write a fake kernel tree over /')
        self.nodes = list(range(nodes)) if isinstance(nodes, int) else sorted(nodes)
        self.memoryless = sorted(memoryless)
        self.sizes = sorted(sizes)
        self.default_size = self.sizes[0] if default_size is None and self.sizes else default_size
        self.mem_total_kb = mem_total_kb
        self.max_order = max_order
        self.tunables = tunables
        self._simulator = None
        self._stopped_simulator = None   # for simulator_state() after stop()
        self.pools = {s: Pool() for s in self.sizes}
        self.pools.update(pools or {})
        self.demote = demote
        self.mounts: Optional[List] = None
        self.generate()
        if mounts is not None:
            self.write_mountinfo(mounts)
        if cmdline is not None:
            self.write_cmdline(cmdline)
        if mount_ns is not None:
            self.write_mount_namespaces(*mount_ns)
        self.write_boot_hook(boot_hook)

    # --- facts the service should derive from the tree -------------------

    @property
    def pool_nodes(self) -> List[int]:
        """Nodes with huge page pools (online and not memoryless)."""
        return [n for n in self.nodes if n not in self.memoryless]

    def gigantic(self, size_kb: int) -> bool:
        return size_kb * 1024 > BASE_PAGE_SIZE << self.max_order

    def has_overcommit_file(self, size_kb: int) -> bool:
        pool = self.pools[size_kb]
        if pool.overcommit_file is None:
            return not self.gigantic(size_kb)
        return pool.overcommit_file

    def demote_size_kb(self, size_kb: int) -> int:
        """The next smaller size, 0 if none (or demotion is off)."""
        smaller = [s for s in self.sizes if s < size_kb]
        return max(smaller) if smaller and self.demote else 0

    def node_pools(self, size_kb: int) -> Dict[int, NodePool]:
        pool = self.pools[size_kb]
        if pool.nodes is not None:
            return {n: pool.nodes.get(n, NodePool()) for n in self.pool_nodes}
        n = len(self.pool_nodes)
        return {node: NodePool(t, f, s) for node, t, f, s in
                zip(self.pool_nodes, split(pool.total, n), split(pool.free, n),
                    split(pool.surplus, n))}

    # --- writing the tree ---------------------------------------------------

    BOOT_HOOK_PATHS = ('run/systemd/system', 'lib/systemd/system', 'etc/systemd/system',
                       'etc/init.d', 'etc/rcS.d')

    def write_boot_hook(self, kind):
        """What applies the configuration at boot, as the service looks for it:
        'systemd-enabled' (systemd is PID 1, hugepages.target enabled as the
        package does), 'systemd-disabled' (units installed, not enabled),
        'systemd-missing' (no apply unit), 'sysvinit-enabled' (no systemd;
        the init script and its rcS.d link), 'sysvinit-disabled' (the script
        without links), None (neither systemd nor the script)."""
        for rel in self.BOOT_HOOK_PATHS:
            shutil.rmtree(self.path(rel), ignore_errors=True)
        if kind is None:
            return
        init, state = kind.split('-')
        if init == 'systemd':
            os.makedirs(self.path('run/systemd/system'))
            units = self.path('lib/systemd/system')
            os.makedirs(units)
            if state != 'missing':
                for unit in ('hugepagesd-apply.service', 'hugepages.target'):
                    with open(os.path.join(units, unit), 'w') as f:
                        f.write('[Unit]\n')
            if state == 'enabled':
                wants = self.path('etc/systemd/system/multi-user.target.wants')
                os.makedirs(wants)
                # relative, as the tree is not /: the link resolves inside it
                os.symlink('../../../../lib/systemd/system/hugepages.target',
                           os.path.join(wants, 'hugepages.target'))
        else:
            script = self.path('etc/init.d/hugepagesd-apply')
            os.makedirs(os.path.dirname(script))
            with open(script, 'w') as f:
                f.write('#!/bin/sh\n')
            os.chmod(script, 0o755)
            if state == 'enabled':
                os.makedirs(self.path('etc/rcS.d'))
                os.symlink('../init.d/hugepagesd-apply', self.path('etc/rcS.d/S02hugepagesd-apply'))

    def path(self, rel: str) -> str:
        rel = rel.lstrip('/')
        full = os.path.normpath(os.path.join(self.root, rel))
        if not full.startswith(self.root + os.sep):
            raise ValueError(f'{rel} is outside the fake tree')
        return full

    def write(self, rel: str, value) -> None:
        """Stores value (int -> "N\\n", str or bytes as is), replacing the file."""
        if isinstance(value, int):
            data = f'{value}\n'.encode()
        elif isinstance(value, str):
            data = value.encode()
        else:
            data = bytes(value)
        full = self.path(rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, 'wb') as f:
            f.write(data)

    def read(self, rel: str) -> str:
        with open(self.path(rel), 'r') as f:
            return f.read()

    def read_int(self, rel: str) -> int:
        return int(self.read(rel))

    def exists(self, rel: str) -> bool:
        return os.path.lexists(self.path(rel))

    def remove(self, rel: str) -> None:
        os.unlink(self.path(rel))

    def generate(self) -> None:
        for size in self.sizes:
            pool = self.pools[size]
            d = size_dir(size)
            self.write(f'{d}/nr_hugepages', pool.total)
            self.write(f'{d}/nr_hugepages_mempolicy', pool.total)
            self.write(f'{d}/free_hugepages', pool.free)
            self.write(f'{d}/resv_hugepages', pool.resv)
            self.write(f'{d}/surplus_hugepages', pool.surplus)
            if self.has_overcommit_file(size):
                self.write(f'{d}/nr_overcommit_hugepages', pool.overcommit)
            demote_to = self.demote_size_kb(size)
            if demote_to:
                self.write(f'{d}/demote', 0)
                self.write(f'{d}/demote_size', f'{demote_to}kB\n')
            for node, np in self.node_pools(size).items():
                nd = node_size_dir(node, size)
                self.write(f'{nd}/nr_hugepages', np.total)
                self.write(f'{nd}/free_hugepages', np.free)
                self.write(f'{nd}/surplus_hugepages', np.surplus)
        if not self.sizes:
            os.makedirs(self.path(HUGEPAGES_DIR), exist_ok=True)

        self.write(f'{NODE_DIR}/online', node_list_text(self.nodes) + '\n')
        for node in self.nodes:
            self.write(f'{NODE_DIR}/node{node}/compact', '')
            if node in self.memoryless:
                continue
            os.makedirs(self.path(f'{NODE_DIR}/node{node}/hugepages'), exist_ok=True)

        self.write('proc/meminfo', self.meminfo_text())
        self.write('proc/buddyinfo', self.buddyinfo_text())
        self.write('proc/sys/vm/compact_memory', '')
        self.write('proc/sys/vm/drop_caches', '')
        if self.tunables is not None:
            self.write_tunables()

    def meminfo_text(self) -> str:
        total_kb = self.mem_total_kb
        hugetlb_kb = sum(self.pools[s].total * s for s in self.sizes)
        d = self.pools.get(self.default_size, Pool())
        rows = [
            ('MemTotal', f'{total_kb} kB'),
            ('MemFree', f'{max(total_kb - hugetlb_kb, 0) // 2} kB'),
            ('MemAvailable', f'{max(total_kb - hugetlb_kb, 0) * 3 // 4} kB'),
            ('Buffers', '1024 kB'),
            ('Cached', '65536 kB'),
            ('SwapTotal', '0 kB'),
            ('SwapFree', '0 kB'),
            ('ShmemHugePages', '0 kB'),
            ('HugePages_Total', str(d.total)),
            ('HugePages_Free', str(d.free)),
            ('HugePages_Rsvd', str(d.resv)),
            ('HugePages_Surp', str(d.surplus)),
            ('Hugepagesize', f'{self.default_size or 0} kB'),
            ('Hugetlb', f'{hugetlb_kb} kB'),
        ]
        return ''.join(f'{(k + ":"):<16}{v:>16}\n' for k, v in rows)

    def buddyinfo_text(self) -> str:
        columns = self.max_order + 1
        lines = []
        for node in self.nodes:
            zones = ['DMA', 'DMA32', 'Normal'] if node == self.nodes[0] else ['Normal']
            for zone in zones:
                counts = ' '.join(f'{(i * 37 + node) % 500:6d}' for i in range(columns))
                lines.append(f'Node {node}, zone {zone:>8} {counts}\n')
        return ''.join(lines)

    def write_mountinfo(self, mounts, before=OTHER_MOUNTS_BEFORE, after=OTHER_MOUNTS_AFTER) -> None:
        """Writes proc/self/mountinfo: the lines of before, one line per
        entry of mounts (a Mount, or a str taken as a ready line), then the
        lines of after. Mount ids count up from 50 in list order, so later
        entries are on top of earlier ones at the same path."""
        self.mounts = [m if isinstance(m, str) or m.path.startswith('/')
                       else replace(m, path=os.path.join(self.root, m.path))
                       for m in mounts]
        lines = list(before)
        for i, m in enumerate(self.mounts):
            lines.append(m if isinstance(m, str) else m.line(50 + i))
        lines.extend(after)
        self.write(MOUNTINFO, ''.join(line + '\n' for line in lines))

    def write_mount_namespaces(self, own: Optional[str], init: Optional[str]) -> None:
        """Makes proc/self/ns/mnt and proc/1/ns/mnt links to own and init
        (as readlink shows a namespace: "mnt:[4026531840]"); None removes
        that link."""
        for rel, target in ((OWN_MOUNT_NS, own), (INIT_MOUNT_NS, init)):
            full = self.path(rel)
            if os.path.lexists(full):
                os.unlink(full)
            if target is not None:
                os.makedirs(os.path.dirname(full), exist_ok=True)
                os.symlink(target, full)

    def write_cmdline(self, cmdline: str) -> None:
        """Writes proc/cmdline: cmdline and the newline the kernel ends it with."""
        self.write(CMDLINE, cmdline + '\n')

    # --- inspecting ---------------------------------------------------------

    def snapshot(self) -> Dict[str, bytes]:
        """Every file below root, by relative path, with its bytes."""
        result = {}
        for dirpath, _dirs, files in os.walk(self.root):
            for name in files:
                full = os.path.join(dirpath, name)
                if os.path.islink(full):   # the namespace links point nowhere
                    result[os.path.relpath(full, self.root)] = b'-> ' + os.fsencode(os.readlink(full))
                    continue
                with open(full, 'rb') as f:
                    result[os.path.relpath(full, self.root)] = f.read()
        return result

    @staticmethod
    def diff(before: Dict[str, bytes], after: Dict[str, bytes]) -> Dict[str, Tuple[Optional[bytes], Optional[bytes]]]:
        """{path: (old, new)} for every file added, removed or changed."""
        return {p: (before.get(p), after.get(p))
                for p in sorted(set(before) | set(after))
                if before.get(p) != after.get(p)}

    def changes_since(self, before: Dict[str, bytes]):
        return self.diff(before, self.snapshot())

    # the service's own files below the root: its runtime state and its
    # configuration, which are not kernel state
    SERVICE_STATE = ('run/hugepagesd/', 'etc/hugepagesd/')

    def kernel_changes_since(self, before: Dict[str, bytes]):
        """changes_since() without the service's own state files."""
        return {p: c for p, c in self.changes_since(before).items()
                if not p.startswith(self.SERVICE_STATE)}

    # convenience accessors for one size

    def pool_file(self, size_kb: int, name: str) -> str:
        return f'{size_dir(size_kb)}/{name}'

    def node_file(self, node: int, size_kb: int, name: str) -> str:
        return f'{node_size_dir(node, size_kb)}/{name}'

    # --- tunables -----------------------------------------------------------

    def zones(self) -> List[Tuple[int, str, int]]:
        """zoneinfo's zones as [(node, name, managed pages)], empty ones too."""
        t = self.tunables
        if t is not None and t.zones is not None:
            return list(t.zones)
        pages = self.mem_total_kb * 1024 // BASE_PAGE_SIZE
        populated = self.pool_nodes or self.nodes[:1]
        per_node = pages // max(len(populated), 1)
        result = []
        for node in self.nodes:
            has = node in populated
            first = node == self.nodes[0]
            dma = 3840 if first and has else 0
            dma32 = min(per_node // 4, 772794) if first and has else 0
            result += [(node, 'DMA', dma), (node, 'DMA32', dma32),
                       (node, 'Normal', per_node - dma - dma32 if has else 0),
                       (node, 'Movable', 0), (node, 'Device', 0)]
        return result

    def populated_zones(self) -> int:
        """The zones the kernel's min_free_kbytes advice counts."""
        return sum(1 for _node, name, managed in self.zones()
                   if name in ('DMA', 'DMA32', 'Normal') and managed > 0)

    def pageblock_kb(self) -> int:
        order = self.tunables.pageblock_order if self.tunables else 9
        return (BASE_PAGE_SIZE << order) // 1024

    def recommended_min_free_kbytes(self) -> int:
        """11 pageblocks per populated zone, at most 5% of MemTotal."""
        return min(11 * self.pageblock_kb() * self.populated_zones(), self.mem_total_kb // 20)

    def zoneinfo_text(self) -> str:
        out = []
        for i, (node, name, managed) in enumerate(self.zones()):
            out.append(f'Node {node}, zone {name:>8}\n')
            if i == 0 or node != self.zones()[i - 1][0]:
                out.append('  per-node stats\n      nr_inactive_anon 12538\n'
                           '      nr_active_anon 390\n      nr_hugetlb   0\n')
            out.append(f'  pages free     {managed // 3}\n        boost    0\n'
                       f'        min      {managed // 600}\n        low      {managed // 500}\n'
                       f'        high     {managed // 400}\n        promo    {managed // 300}\n'
                       f'        spanned  {managed + managed // 20}\n'
                       f'        present  {managed + managed // 40}\n'
                       f'        managed  {managed}\n        cma      0\n'
                       '        protection: (0, 3018, 4170, 4170, 4170)\n')
            if managed:
                out.append(f'      nr_free_pages {managed // 3}\n      numa_hit     12\n'
                           '  pagesets\n    cpu: 0\n              count:    16\n'
                           '  vm stats threshold: 20\n  node_unreclaimable:  0\n'
                           '  start_pfn:           4096\n')
        return ''.join(out)

    def pagetypeinfo_text(self) -> str:
        order = self.tunables.pageblock_order if self.tunables else 9
        columns = ' '.join(f'{o:6d}' for o in range(self.max_order + 1))
        lines = [f'Page block order: {order}\n', f'Pages per block:  {1 << order}\n', '\n',
                 f'Free pages count per migrate type at order {columns} \n']
        for node, name, managed in self.zones():
            if managed:
                for kind in ('Unmovable', 'Movable', 'Reclaimable', 'HighAtomic', 'Isolate'):
                    counts = ' '.join(f'{0:6d}' for _ in range(self.max_order + 1))
                    lines.append(f'Node {node:4d}, zone {name:>8}, type {kind:>12} {counts} \n')
        return ''.join(lines)

    def thp_files(self) -> Dict[str, Tuple[Sequence[str], str]]:
        """{relative path: (choices, current)} of every THP choice file."""
        t = self.tunables
        if t is None or not t.thp:
            return {}
        files = {}
        for name, current in (('enabled', t.thp_enabled), ('defrag', t.thp_defrag),
                              ('shmem_enabled', t.thp_shmem_enabled)):
            if current is not None:
                files[f'{THP_DIR}/{name}'] = (THP_CHOICES[name], current)
        pmd_kb = (t.hpage_pmd_size or (2 << 20)) // 1024
        for size in t.mthp_sizes:
            default = 'inherit' if size == pmd_kb else 'never'
            d = f'{THP_DIR}/hugepages-{size}kB'
            if size > 8:   # no anonymous order-1 THP
                files[f'{d}/enabled'] = (MTHP_ENABLED_CHOICES, t.mthp_enabled.get(size, default))
            files[f'{d}/shmem_enabled'] = (MTHP_SHMEM_CHOICES, t.mthp_shmem.get(size, default))
        return files

    def write_tunables(self) -> None:
        t = self.tunables
        for rel, value in ((SHMMAX, t.shmmax), (SHMALL, t.shmall), (SHM_GROUP, t.shm_group),
                           (MIN_FREE_KBYTES, t.min_free_kbytes if t.min_free_kbytes is not None
                            else self.recommended_min_free_kbytes()),
                           (TREAT_AS_MOVABLE, t.treat_as_movable),
                           (MOVABLE_GIGANTIC, t.movable_gigantic_pages)):
            if value is not None:
                self.write(rel, value)
        if t.zoneinfo:
            self.write(ZONEINFO, self.zoneinfo_text())
        if t.pagetypeinfo:
            self.write(PAGETYPEINFO, self.pagetypeinfo_text())
        if not t.thp:
            return
        for rel, (choices, current) in self.thp_files().items():
            self.write(rel, choice_text(choices, current))
        if t.hpage_pmd_size is not None:
            self.write(f'{THP_DIR}/hpage_pmd_size', t.hpage_pmd_size)
        self.write(f'{THP_DIR}/use_zero_page', 1)
        self.write(f'{THP_DIR}/shrink_underused', 1)
        self.write(f'{THP_DIR}/anon_beside_full', 0)   # a vendor file, as on the test machine
        for name, value in {**KHUGEPAGED, **t.khugepaged}.items():
            if value is not None:
                self.write(f'{THP_DIR}/khugepaged/{name}', value)
        for size in t.mthp_sizes:
            self.write(f'{THP_DIR}/hugepages-{size}kB/stats/nr_anon', 0)
            self.write(f'{THP_DIR}/hugepages-{size}kB/stats/split', 0)

    def thp_choice(self, rel: str):
        """(current, choices) of a THP choice file as it reads now."""
        return parse_choice(self.read(rel))

    def write_limits(self, pid: int, memlock_soft, memlock_hard=None) -> str:
        """Writes proc/<pid>/limits in the kernel's layout with the given
        "Max locked memory" (bytes, or 'unlimited'); returns its path."""
        hard = memlock_soft if memlock_hard is None else memlock_hard
        rows = [('Max cpu time', 'unlimited', 'unlimited', 'seconds'),
                ('Max file size', 'unlimited', 'unlimited', 'bytes'),
                ('Max stack size', '8388608', 'unlimited', 'bytes'),
                ('Max open files', '1024', '524288', 'files'),
                ('Max locked memory', str(memlock_soft), str(hard), 'bytes'),
                ('Max address space', 'unlimited', 'unlimited', 'bytes'),
                ('Max nice priority', '0', '0', '')]
        text = f"{'Limit':<26}{'Soft Limit':<21}{'Hard Limit':<21}{'Units':<10}\n"
        text += ''.join(f'{a:<26}{b:<21}{c:<21}{d:<10}\n' for a, b, c, d in rows)
        rel = f'proc/{pid}/limits'
        self.write(rel, text)
        return rel

    # --- the simulator --------------------------------------------------------

    @property
    def simulating(self) -> bool:
        return self._simulator is not None and self._simulator.alive()

    def simulator_state(self) -> str:
        """One line for a failing test's report: whether the simulator's
        thread still answers opens (or, once stopped, whether it ended),
        the open it is answering, and what went wrong in its rules."""
        sim = self._simulator or self._stopped_simulator
        if sim is None:
            return 'simulator: not started'
        return 'simulator%s: thread %s%s; %d rewrites; errors in rules: %s' % (
            ' (stopped)' if self._simulator is None else '',
            'alive' if sim.alive() else 'ended',
            ', answering the open of %s' % sim.handling if sim.handling else '',
            len(sim.rewrites), sim.errors or 'none')

    def simulate(self) -> 'FakeKernel':
        """Starts the kernel simulator (see the module docstring), or marks
        directories added since. Raises OSError where fanotify is refused."""
        if self._simulator is None:
            self._simulator = Simulator()
        sim = self._simulator
        thp = os.path.realpath(self.path(THP_DIR))
        for rel in self.thp_files():
            full = os.path.realpath(self.path(rel))
            try:
                with open(full) as f:
                    sim.remember(full, f.read())
            except OSError:
                pass
        sim.add_rule(f'thp:{thp}', lambda path: path.startswith(thp + os.sep) and
                     os.path.basename(path) in ('enabled', 'defrag', 'shmem_enabled'),
                     sim.thp_choice)
        if os.path.isdir(thp):
            sim.mark(thp)
            for name in sorted(os.listdir(thp)):
                if name.startswith('hugepages-') and os.path.isdir(os.path.join(thp, name)):
                    sim.mark(os.path.join(thp, name))
        return self

    def on_open(self, rel: str, transform) -> None:
        """Before every open of rel, transform(text) may return new contents
        (None leaves them); transform=None removes it. Needs simulate()."""
        assert self._simulator is not None, 'on_open() needs simulate() first'
        target = os.path.realpath(self.path(rel))
        key = f'file:{target}'
        if transform is None:
            self._simulator.remove_rule(key)
            return
        self._simulator.add_rule(key, lambda path: path == target,
                                 lambda _path, text: transform(text))
        self._simulator.mark(os.path.dirname(target))

    def limit_pool(self, size_kb: int, pages: Optional[int]) -> None:
        """nr_hugepages of size_kb reads back at most pages (None: no limit),
        as when the kernel runs short of memory. Needs simulate()."""
        def cap(text):
            try:
                value = int(text)
            except ValueError:
                return None
            return f'{pages}\n' if value > pages else None

        self.on_open(self.pool_file(size_kb, 'nr_hugepages'), None if pages is None else cap)

    def stop(self) -> None:
        if self._simulator is not None:
            self._simulator.stop()
            self._stopped_simulator, self._simulator = self._simulator, None

    close = stop


class AllocationModel:
    """A kernel that can give only so many pages of one size, per node,
    and finds more when memory is compacted (simulator rules, so it needs
    fk.simulate()).

    Per node: nr_hugepages reads back min(written, capacity) (a shrink is
    always granted); a write to the node's compact file raises its capacity
    by step pages, to at most ceiling; proc/sys/vm/compact_memory raises
    every node's, drop_caches every node's capacity and ceiling by drop_gain. The global
    nr_hugepages is the sum of the nodes, and a write to it is spread over
    the nodes round-robin, as the kernel does. Surplus stays 0.

    A write is seen when the file is opened next (the service reads back
    what it wrote), and every open of a compact or drop_caches file counts
    as a write: the service never reads them. So remove() the rules before
    a snapshot(), which opens every file.

    Records: compactions {node: count} ('all' for compact_memory),
    drops (count), requests [(where, pages)] with where 'global' or a node
    number, in the order the service wrote them.
    """

    def __init__(self, fk: 'FakeKernel', size_kb: int, capacity: Dict[int, int],
                 step: int = 1, ceiling: Optional[Dict[int, int]] = None, drop_gain: int = 0):
        self.fk = fk
        self.size_kb = size_kb
        self.nodes = sorted(capacity)
        self.capacity = dict(capacity)
        self.step = step
        self.ceiling = dict(ceiling) if ceiling is not None else dict(capacity)
        self.drop_gain = drop_gain
        self.pages = {n: fk.read_int(fk.node_file(n, size_kb, 'nr_hugepages')) for n in self.nodes}
        self.compactions: Dict = {}
        self.drops = 0
        self.requests: List[Tuple] = []
        self._lock = threading.Lock()
        self._last: Dict[str, str] = {}
        self._rules: List[str] = []

    # --- the kernel's answers -------------------------------------------

    def total(self) -> int:
        return sum(self.pages.values())

    def _raise(self, nodes, pages):
        for n in nodes:
            self.capacity[n] = min(self.capacity[n] + pages, self.ceiling[n])

    def _set_node(self, node, wanted):
        have = self.pages[node]
        self.pages[node] = wanted if wanted <= have else max(have, min(wanted, self.capacity[node]))

    def _set_total(self, wanted):
        total = self.total()
        if wanted < total:
            for n in reversed(self.nodes):
                take = min(self.pages[n], total - wanted)
                self.pages[n] -= take
                total -= take
            return
        progress = True
        while total < wanted and progress:
            progress = False
            for n in self.nodes:
                if total < wanted and self.pages[n] < self.capacity[n]:
                    self.pages[n] += 1
                    total += 1
                    progress = True

    def _counter(self, rel, current, apply, where):
        """A counter file's rule: text that differs from what the model last
        left there was written by the service."""
        def transform(text):
            with self._lock:
                stripped = text.strip()
                if stripped != self._last.get(rel) and stripped.isdigit():
                    self.requests.append((where, int(stripped)))
                    apply(int(stripped))
                value = str(current())
                self._last[rel] = value
                return value + '\n'
        return transform

    def _compact(self, key, nodes, pages):
        def transform(_text):
            with self._lock:
                self.compactions[key] = self.compactions.get(key, 0) + 1
                self._raise(nodes, pages)
            return None
        return transform

    def _drop(self, _text):
        with self._lock:
            self.drops += 1
            # freed page cache is memory compaction could not have found
            for n in self.nodes:
                self.ceiling[n] += self.drop_gain
                self.capacity[n] += self.drop_gain
        return None

    # --- rules ------------------------------------------------------------

    def _add(self, rel, transform):
        self.fk.on_open(rel, transform)
        self._rules.append(rel)

    def install(self) -> 'AllocationModel':
        fk = self.fk
        glob = fk.pool_file(self.size_kb, 'nr_hugepages')
        self._last[glob] = fk.read(glob).strip()
        self._add(glob, self._counter(glob, self.total, self._set_total, 'global'))
        for n in self.nodes:
            rel = fk.node_file(n, self.size_kb, 'nr_hugepages')
            self._last[rel] = fk.read(rel).strip()
            self._add(rel, self._counter(rel, lambda n=n: self.pages[n],
                                         lambda v, n=n: self._set_node(n, v), n))
            if fk.exists(f'{NODE_DIR}/node{n}/compact'):
                self._add(f'{NODE_DIR}/node{n}/compact', self._compact(n, [n], self.step))
        self._add('proc/sys/vm/compact_memory', self._compact('all', self.nodes, self.step))
        if fk.exists('proc/sys/vm/drop_caches'):
            self._add('proc/sys/vm/drop_caches', self._drop)
        return self

    def remove(self) -> None:
        for rel in self._rules:
            self.fk.on_open(rel, None)
        self._rules = []

    def node_requests(self) -> List[Tuple]:
        return [r for r in self.requests if r[0] != 'global']


class Simulator:
    """Makes a plain directory answer like the kernel where it must: before
    a file in a marked directory is opened, the first rule that matches its
    path may rewrite its contents. fanotify permission events (root only),
    handled in a thread; every open is let through, whatever happens."""

    FAN_CLOEXEC = 0x1
    FAN_CLASS_CONTENT = 0x4
    FAN_MARK_ADD = 0x1
    FAN_OPEN_PERM = 0x10000
    FAN_EVENT_ON_CHILD = 0x08000000
    FAN_ALLOW = 0x1
    AT_FDCWD = -100
    METADATA = struct.Struct('=IBBHQii')
    RESPONSE = struct.Struct('=iI')

    def __init__(self):
        libc = ctypes.CDLL(None, use_errno=True)
        init = libc.fanotify_init
        init.argtypes = [ctypes.c_uint, ctypes.c_uint]
        self._fanotify_mark = libc.fanotify_mark
        self._fanotify_mark.argtypes = [ctypes.c_int, ctypes.c_uint, ctypes.c_uint64, ctypes.c_int,
                                        ctypes.c_char_p]
        fd = init(self.FAN_CLASS_CONTENT | self.FAN_CLOEXEC, os.O_RDWR | os.O_CLOEXEC)
        if fd < 0:
            err = ctypes.get_errno()
            raise OSError(err, f'fanotify_init: {os.strerror(err)}')
        self.fd = fd
        self._wake_r, self._wake_w = os.pipe2(os.O_CLOEXEC)
        self._rules: Dict[str, Tuple[Callable[[str], bool], Callable[[str, str], Optional[str]]]] = {}
        self.choices: Dict[str, Tuple[str, Tuple[str, ...]]] = {}   # path -> (current, choices)
        self.marked = set()
        self.errors: List[str] = []       # what went wrong in a rule, for a failing test
        self.rewrites: List[Tuple[str, str, str]] = []   # (path, before, after)
        self.handling: Optional[str] = None   # the path whose open waits for the rules
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name='fakekernel-simulator', daemon=True)
        self._thread.start()

    def alive(self) -> bool:
        return self._thread.is_alive()

    def mark(self, directory: str) -> None:
        """Watches the files directly in directory (not below it)."""
        if directory in self.marked:
            return
        if self._fanotify_mark(self.fd, self.FAN_MARK_ADD,
                               self.FAN_OPEN_PERM | self.FAN_EVENT_ON_CHILD,
                               self.AT_FDCWD, directory.encode()) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f'fanotify_mark {directory}: {os.strerror(err)}')
        self.marked.add(directory)

    def add_rule(self, key: str, match, transform) -> None:
        """transform(path, text) -> new text, or None to leave it."""
        with self._lock:
            self._rules[key] = (match, transform)

    def remove_rule(self, key: str) -> None:
        with self._lock:
            self._rules.pop(key, None)

    def remember(self, path: str, text: str) -> None:
        parsed = parse_choice(text)
        if parsed is not None:
            with self._lock:
                self.choices[path] = parsed

    def thp_choice(self, path: str, text: str) -> Optional[str]:
        """A THP choice file after a write: the keyword written becomes the
        bracketed one; a keyword the file does not offer leaves the old
        value, as the kernel's EINVAL would."""
        parsed = parse_choice(text)
        if parsed is not None:
            with self._lock:
                self.choices[path] = parsed
            return None
        word = text.strip()
        with self._lock:
            known = self.choices.get(path)
        if known is None or not word or any(c in word for c in ' \t\n[]'):
            return None    # garbage a test wrote: leave it for the service to refuse
        current, choices = known
        if word in choices:
            current = word
            with self._lock:
                self.choices[path] = (current, choices)
        return choice_text(choices, current)

    def _handle(self, event_fd: int) -> None:
        path = self.handling = os.readlink(f'/proc/self/fd/{event_fd}')
        with self._lock:   # rules for one file before rules for many
            rules = [rule for key, rule in sorted(self._rules.items(),
                                                  key=lambda kv: not kv[0].startswith('file:'))]
        for match, transform in rules:
            if not match(path):
                continue
            text = os.pread(event_fd, 1 << 16, 0).decode(errors='replace')
            new = transform(path, text)
            if new is not None and new != text:
                os.ftruncate(event_fd, 0)
                os.pwrite(event_fd, new.encode(), 0)
                self.rewrites.append((path, text, new))
            return

    def _run(self) -> None:
        poller = select.poll()
        poller.register(self.fd, select.POLLIN)
        poller.register(self._wake_r, select.POLLIN)
        try:
            while True:
                ready = [fd for fd, _ev in poller.poll()]
                if self._wake_r in ready:
                    return
                try:
                    data = os.read(self.fd, 16 * 1024)
                except (BlockingIOError, InterruptedError):
                    continue
                offset = 0
                while offset + self.METADATA.size <= len(data):
                    length, _vers, _res, _mlen, _mask, event_fd, _pid = \
                        self.METADATA.unpack_from(data, offset)
                    offset += max(length, self.METADATA.size)
                    if event_fd < 0:
                        continue
                    try:
                        self._handle(event_fd)
                    except Exception as e:  # noqa: BLE001 (never leave an open hanging)
                        self.errors.append(f'{type(e).__name__}: {e}')
                    finally:
                        os.write(self.fd, self.RESPONSE.pack(event_fd, self.FAN_ALLOW))
                        os.close(event_fd)
                        self.handling = None
        finally:
            # closing the group lets every open through from now on
            os.close(self.fd)

    def stop(self) -> None:
        if self._thread.is_alive():
            os.write(self._wake_w, b'x')
            self._thread.join(10)
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass


def parse_pool(text: str) -> Tuple[int, Dict[str, int]]:
    """'2048:total=8,free=6' -> (2048, {'total': 8, 'free': 6})"""
    size, _, rest = text.partition(':')
    values = {}
    for item in filter(None, rest.split(',')):
        key, _, value = item.partition('=')
        if key not in ('total', 'free', 'resv', 'surplus', 'overcommit'):
            raise argparse.ArgumentTypeError(f'unknown pool field {key!r}')
        values[key] = int(value)
    return int(size), values


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('root', help='directory to write the tree into')
    parser.add_argument('--nodes', type=int, default=1, help='online NUMA nodes (0..N-1)')
    parser.add_argument('--memoryless', type=int, action='append', default=[],
                        help='an online node without huge pages (repeatable)')
    parser.add_argument('--sizes', default='2048,1048576', help='page sizes in kB, comma-separated')
    parser.add_argument('--default-size', type=int, help='Hugepagesize in kB (default: the smallest)')
    parser.add_argument('--mem-total', type=int, default=DEFAULT_MEM_TOTAL_KB, help='MemTotal in kB')
    parser.add_argument('--max-order', type=int, default=10,
                        help='buddy allocator max order (sizes above 4 KiB << order are gigantic)')
    parser.add_argument('--pool', type=parse_pool, action='append', default=[],
                        metavar='KB:field=N,...',
                        help='counters of one size: total, free, resv, surplus, overcommit')
    parser.add_argument('--overcommit-file', action='append', default=[], metavar='KB=yes|no',
                        help='whether nr_overcommit_hugepages exists for a size')
    parser.add_argument('--no-demote', action='store_true', help='no demote files')
    parser.add_argument('--no-tunables', action='store_true',
                        help='no shm, min_free_kbytes, zoneinfo, pagetypeinfo or THP files')
    parser.add_argument('--cmdline', help='the kernel command line (proc/cmdline)')
    args = parser.parse_args(argv)

    sizes = [int(s) for s in args.sizes.split(',') if s]
    pools = {s: Pool() for s in sizes}
    for size, values in args.pool:
        if size not in pools:
            parser.error(f'--pool {size}: not one of --sizes')
        for key, value in values.items():
            setattr(pools[size], key, value)
    for item in args.overcommit_file:
        size, _, flag = item.partition('=')
        if int(size) not in pools or flag not in ('yes', 'no'):
            parser.error(f'--overcommit-file {item}: expected KB=yes|no with KB one of --sizes')
        pools[int(size)].overcommit_file = flag == 'yes'

    FakeKernel(args.root, nodes=args.nodes, sizes=sizes, default_size=args.default_size,
               mem_total_kb=args.mem_total, max_order=args.max_order, pools=pools,
               memoryless=args.memoryless, demote=not args.no_demote,
               tunables=None if args.no_tunables else Tunables(), cmdline=args.cmdline)
    return 0


if __name__ == '__main__':
    sys.exit(main())
