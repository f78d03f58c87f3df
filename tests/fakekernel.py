#!/usr/bin/python3
"""A fake kernel tree for hugepagesd: the sysfs and procfs files it reads,
below a root directory that the service is pointed at with --kernel-root.

Importable (tests, simulations) and runnable as a script:

    fakekernel.py DIR [--nodes 4] [--sizes 2048,1048576] [--default-size 2048]
                      [--mem-total KB] [--max-order 10]
                      [--pool 2048:total=8,free=6,overcommit=5 ...]
                      [--overcommit-file 1048576=yes ...] [--memoryless 2 ...]

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
    proc/meminfo proc/buddyinfo proc/sys/vm/compact_memory
    proc/self/mountinfo       (only when mounts are given: a few other file
                               systems and one line per hugetlbfs Mount, in
                               the kernel's format; the service reads its
                               Mounts properties from it)
"""

import argparse
import os
import sys
from dataclasses import dataclass, replace
from typing import Dict, List, Optional, Sequence, Tuple

BASE_PAGE_SIZE = 4096
HUGEPAGES_DIR = 'sys/kernel/mm/hugepages'
NODE_DIR = 'sys/devices/system/node'
DEFAULT_MEM_TOTAL_KB = 16 * 1024 * 1024  # 16 GiB
MOUNTINFO = 'proc/self/mountinfo'
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
    """

    def __init__(self, root, nodes=1, sizes=(2048, 1048576), default_size=None,
                 mem_total_kb=DEFAULT_MEM_TOTAL_KB, max_order=10, pools=None,
                 memoryless=(), demote=True, mounts=None):
        self.root = os.path.abspath(str(root))
        if os.path.realpath(self.root) == '/':
            raise ValueError('refusing to write a fake kernel tree over /')
        self.nodes = list(range(nodes)) if isinstance(nodes, int) else sorted(nodes)
        self.memoryless = sorted(memoryless)
        self.sizes = sorted(sizes)
        self.default_size = self.sizes[0] if default_size is None and self.sizes else default_size
        self.mem_total_kb = mem_total_kb
        self.max_order = max_order
        self.pools = {s: Pool() for s in self.sizes}
        self.pools.update(pools or {})
        self.demote = demote
        self.mounts: Optional[List] = None
        self.generate()
        if mounts is not None:
            self.write_mountinfo(mounts)

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

    # --- inspecting ---------------------------------------------------------

    def snapshot(self) -> Dict[str, bytes]:
        """Every file below root, by relative path, with its bytes."""
        result = {}
        for dirpath, _dirs, files in os.walk(self.root):
            for name in files:
                full = os.path.join(dirpath, name)
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

    # convenience accessors for one size
    def pool_file(self, size_kb: int, name: str) -> str:
        return f'{size_dir(size_kb)}/{name}'

    def node_file(self, node: int, size_kb: int, name: str) -> str:
        return f'{node_size_dir(node, size_kb)}/{name}'


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
               memoryless=args.memoryless, demote=not args.no_demote)
    return 0


if __name__ == '__main__':
    sys.exit(main())
