# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""GetUsage, RemoveOrphan, and the client's usage, remove-orphan and
monitor commands on a fake tree: hugetlbfs "mounts" are directories of the
tree, processes are proc/<pid> directories whose maps and smaps name the
fake files by their real device and inode, as the kernel would."""

import json
import os
import re
import subprocess
import time

import pytest

import hpdtest
from hpdtest import ERR, ERR_FAILED, ERR_INVALID_ARGS, ERR_NOT_AUTHORIZED, ERR_NOT_MOUNTED, BusError
from fakekernel import Mount, Pool
from gi.repository import GLib

MiB = 1 << 20
GiB = 1 << 30
ERR_BUSY = ERR + 'Busy'
ACTION_INSPECT = 'org.hugepages.manager.inspect-usage'
ACTION_MOUNTS = 'org.hugepages.manager.manage-mounts'
NOBODY = 65534
MOUNT_2M = 'var/lib/hugetlbfs/pagesize-2MB'
MOUNT_1G = 'mnt/huge-1G'
MOUNTS = [Mount(MOUNT_2M), Mount(MOUNT_1G, page_size_kb=1048576)]
SHM_HEADER = ('       key      shmid perms                  size  cpid  lpid nattch   uid   gid  cuid  cgid'
              '      atime      dtime      ctime                   rss                  swap\n')


def shm_row(key, shmid, size, cpid, nattch, uid, rss):
    return (f'{key:10d} {shmid:10d}  600 {size:21d} {cpid:5d} {cpid:5d} {nattch:6d} {uid:5d} {uid:5d} '
            f'{uid:5d} {uid:5d} 1764766001          0 1764766000 {rss:21d}                     0\n')


def vma(start, end, dev, inode, path, kps_kb, shared_kb=0, private_kb=0, flags='rd wr sh mr mw me ms de ht'):
    return (f'{start:08x}-{end:08x} rw-s 00000000 {dev} {inode:<10d}                 {path}\n'
            f'Size:           {(end - start) // 1024:8d} kB\nKernelPageSize: {kps_kb:8d} kB\n'
            f'MMUPageSize:    {kps_kb:8d} kB\nRss:                   0 kB\n'
            f'Shared_Hugetlb: {shared_kb:8d} kB\nPrivate_Hugetlb:{private_kb:8d} kB\n'
            f'THPeligible:           0\nVmFlags: {flags} \n')


def dev_of(st):
    return f'{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}'


def add_process(fk, pid, uid, comm, smaps, cmdline=None):
    """proc/<pid> with status, comm, cmdline, maps (smaps without fields),
    smaps and smaps_rollup (the sums)."""
    d = f'proc/{pid}'
    fk.write(f'{d}/status', f'Name:\t{comm}\nUid:\t{uid}\t{uid}\t{uid}\t{uid}\nGid:\t{uid}\t{uid}\t{uid}\t{uid}\n')
    fk.write(f'{d}/comm', comm + '\n')
    with open(fk.path(f'{d}/cmdline'), 'wb') as f:
        f.write(b'\0'.join(a.encode() for a in (cmdline or [comm])) + b'\0')
    fk.write(f'{d}/smaps', smaps)
    fk.write(f'{d}/maps', ''.join(line + '\n' for line in smaps.splitlines() if re.match(r'^[0-9a-f]+-', line)))
    shared = sum(int(m) for m in re.findall(r'^Shared_Hugetlb:\s*(\d+)', smaps, re.M))
    private = sum(int(m) for m in re.findall(r'^Private_Hugetlb:\s*(\d+)', smaps, re.M))
    fk.write(f'{d}/smaps_rollup',
             f'00400000-7fff0000 ---p 00000000 00:00 0      [rollup]\nRss:        100 kB\n'
             f'Shared_Hugetlb: {shared} kB\nPrivate_Hugetlb: {private} kB\n')


def write_file(path, size, owner=0):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'wb') as f:
        f.write(b'\1' * size)   # real blocks: st_blocks counts the "huge pages" held
        f.flush()
        os.fsync(f.fileno())
    os.chown(path, owner, owner)
    return os.stat(path)


class Tree:
    """The fake tree of the tests: two mounts with files, three processes,
    three SysV segments, two cgroups, a 2 MB pool with 4 pages in use."""

    def __init__(self, fk):
        self.fk = fk
        self.mount_2m = fk.path(MOUNT_2M)
        self.mount_1g = fk.path(MOUNT_1G)
        self.data = os.path.join(self.mount_2m, 'db', 'data')
        self.orphan = os.path.join(self.mount_2m, 'orphan')
        self.nobody_orphan = os.path.join(self.mount_1g, 'left-by-nobody')
        st_data = write_file(self.data, 4 * MiB, owner=NOBODY)
        write_file(self.orphan, 2 * MiB)
        write_file(self.nobody_orphan, 0, owner=NOBODY)
        os.symlink('/etc/passwd', os.path.join(self.mount_2m, 'link'))
        os.makedirs(os.path.join(self.mount_2m, 'empty-dir'))
        self.data_dev, self.data_ino = dev_of(st_data), st_data.st_ino

        # nobody's database maps the data file: 2 pages shared
        add_process(fk, 4242, NOBODY, 'postgres',
                    vma(0x7f0000000000, 0x7f0000400000, self.data_dev, self.data_ino, self.data, 2048,
                        shared_kb=4096)
                    + vma(0x7f1000000000, 0x7f1000001000, 'fe:00', 12, '/usr/bin/postgres', 4,
                          flags='rd mr mw me'),
                    cmdline=['postgres', '-D', '/srv/db'])
        # root's process: one private anonymous page, and an attached 1 GB SysV segment
        add_process(fk, 4343, 0, 'loader',
                    vma(0x7f2000000000, 0x7f2000400000, '00:10', 37, '/anon_hugepage (deleted)', 2048,
                        private_kb=2048, flags='rd wr mr mw me ac ht')
                    + vma(0x7f4000000000, 0x7f4040000000, '00:0f', 98307, '/SYSV0000abcd (deleted)',
                          1048576, private_kb=1048576))
        # a process with no huge pages at all
        add_process(fk, 4444, NOBODY, 'bash',
                    vma(0x00400000, 0x00452000, 'fe:00', 13, '/usr/bin/bash', 4, flags='rd mr mw me'))

        fk.write('proc/sysvipc/shm', SHM_HEADER
                 + shm_row(43981, 98307, 1 * GiB, 4343, 1, 0, 512 * GiB)
                 + shm_row(4660, 131076, 4 * MiB, 4444, 0, NOBODY, 4 * MiB * 512)
                 + shm_row(0, 163845, 8192, 4444, 0, NOBODY, 0))

        fk.write('sys/fs/cgroup/cgroup.controllers', 'cpu memory hugetlb\n')
        fk.write('sys/fs/cgroup/db.slice/hugetlb.2MB.current', f'{4 * MiB}\n')
        fk.write('sys/fs/cgroup/db.slice/hugetlb.2MB.max', f'{8 * MiB}\n')
        fk.write('sys/fs/cgroup/db.slice/hugetlb.2MB.events', 'max 3\n')
        fk.write('sys/fs/cgroup/db.slice/hugetlb.2MB.rsvd.current', f'{2 * MiB}\n')
        fk.write('sys/fs/cgroup/db.slice/hugetlb.1GB.current', '0\n')
        fk.write('sys/fs/cgroup/db.slice/hugetlb.1GB.max', '9223372036854771712\n')
        fk.write('sys/fs/cgroup/db.slice/hugetlb.1GB.events', 'max 0\n')
        fk.write('sys/fs/cgroup/idle.slice/hugetlb.2MB.current', '0\n')
        fk.write('sys/fs/cgroup/idle.slice/hugetlb.2MB.max', 'max\n')
        fk.write('sys/fs/cgroup/idle.slice/hugetlb.2MB.events', 'max 0\n')


@pytest.fixture
def tree(fake_kernel):
    return Tree(fake_kernel)


pytestmark = pytest.mark.fake_kernel(mounts=MOUNTS, pools={2048: Pool(total=8, free=3, resv=2)})


def get_usage(conn, opts=None, interactive=False):
    return hpdtest.call(conn, hpdtest.MANAGER_PATH, hpdtest.MANAGER_IFACE, 'GetUsage',
                        GLib.Variant('(a{sv})', (opts or {},)), '(a{sv})', interactive=interactive)[0]


def remove_orphan(conn, path, opts=None, interactive=False):
    return hpdtest.call(conn, hpdtest.MANAGER_PATH, hpdtest.MANAGER_IFACE, 'RemoveOrphan',
                        GLib.Variant('(sa{sv})', (path, opts or {})), '(t)',
                        interactive=interactive)[0]


def usage_as(run_python_as, uid):
    [result] = run_python_as(uid, [['call', hpdtest.MANAGER_PATH, hpdtest.MANAGER_IFACE, 'GetUsage',
                                    '(a{sv})', '({},)', '(a{sv})', False]])
    assert 'ok' in result, result
    return result['ok'][0]


def by(entries, key):
    return {e[key]: e for e in entries}


@pytest.mark.valgrind
def test_full_view(tree, service, conn, polkit):
    polkit.allow(ACTION_INSPECT)
    usage = get_usage(conn)
    assert usage['restricted'] is False
    assert [c.action for c in polkit.checks()] == [ACTION_INSPECT]

    processes = by(usage['processes'], 'pid')
    assert set(processes) == {4242, 4343}
    pg = processes[4242]
    assert (pg['command'], pg['cmdline'], pg['uid'], pg['user']) == \
        ('postgres', 'postgres -D /srv/db', NOBODY, 'nobody')
    assert pg['hugetlb'] == [{'page-size': 2 * MiB, 'shared': 2, 'private': 0}]
    loader = processes[4343]
    assert (loader['uid'], loader['user']) == (0, 'root')
    assert sorted(loader['hugetlb'], key=lambda s: s['page-size']) == [
        {'page-size': 2 * MiB, 'shared': 0, 'private': 1},
        {'page-size': GiB, 'shared': 0, 'private': 1}]

    files = by(usage['files'], 'path')
    assert set(files) == {tree.data, tree.orphan, tree.nobody_orphan}   # no link, no directory
    data = files[tree.data]
    assert data['mapped'] is True and data['pids'] == [4242]
    assert (data['size'], data['pages'], data['page-size'], data['uid'], data['user'], data['mount']) == \
        (4 * MiB, 2, 2 * MiB, NOBODY, 'nobody', tree.mount_2m)
    assert files[tree.orphan]['mapped'] is False and files[tree.orphan]['pids'] == []
    assert files[tree.orphan]['pages'] == 1
    assert files[tree.nobody_orphan]['page-size'] == GiB

    sysv = by(usage['sysv'], 'id')
    assert sysv[98307]['backing'] == 'hugetlb'
    assert (sysv[98307]['key'], sysv[98307]['page-size'], sysv[98307]['pages'], sysv[98307]['pids'],
            sysv[98307]['nattch'], sysv[98307]['size']) == (0xabcd, GiB, 1, [4343], 1, GiB)
    assert sysv[131076]['backing'] == 'probably-hugetlb' and sysv[131076]['pids'] == []
    assert sysv[163845]['backing'] == 'unknown'

    cgroups = by(usage['cgroups'], 'path')
    assert set(cgroups) == {'/db.slice'}     # idle.slice: nothing used, no limit
    sizes = by(cgroups['/db.slice']['hugetlb'], 'page-size')
    assert sizes[2 * MiB] == {'page-size': 2 * MiB, 'current': 4 * MiB, 'max': 8 * MiB,
                              'max-events': 3, 'reserved': 2 * MiB}
    assert 'max' not in sizes[GiB]          # 6.18's "unlimited" number

    pools = by(usage['unattributed'], 'page-size')
    p2m = pools[2 * MiB]
    # 5 in use: the data file's 2, the orphan's 1, loader's private 1; one
    # nobody accounts for
    assert (p2m['total'], p2m['free'], p2m['in-use'], p2m['in-use-attributed'],
            p2m['in-use-unattributed'], p2m['reserved']) == (8, 3, 5, 4, 1, 2)
    # the reservation estimate: loader's anonymous mapping is 4 MiB with 2 MiB
    # faulted, so it holds one; the data mapping is all faulted
    assert (p2m['reserved-attributed'], p2m['reserved-unattributed']) == (1, 1)
    assert usage['scanned-processes'] == 3
    assert usage['unreadable-processes'] == 0
    assert usage['truncated'] == []


def test_restricted_view(tree, service, polkit, run_python_as):
    """polkit says no: nobody sees its own process, file and segments, and
    no pid of root's; the reply says it is restricted."""
    usage = usage_as(run_python_as, NOBODY)
    assert usage['restricted'] is True and usage['uid'] == NOBODY
    assert [p['pid'] for p in usage['processes']] == [4242]
    assert {f['path'] for f in usage['files']} == {tree.data, tree.nobody_orphan}
    assert {s['id'] for s in usage['sysv']} == {131076, 163845}
    assert 'unattributed' not in usage
    assert [c.action for c in polkit.checks()] == [ACTION_INSPECT]


def test_restricted_pids_of_others_hidden(tree, fake_kernel, service, polkit, run_python_as):
    # root's loader maps nobody's data file too: nobody sees that it is
    # mapped, not by whom
    add_process(fake_kernel, 4545, 0, 'peek',
                vma(0x7f0000000000, 0x7f0000200000, tree.data_dev, tree.data_ino, tree.data, 2048,
                    shared_kb=2048))
    usage = usage_as(run_python_as, NOBODY)
    data = by(usage['files'], 'path')[tree.data]
    assert data['mapped'] is True and data['pids'] == [4242]


@pytest.mark.parametrize('opts', [{'dry-run': GLib.Variant('b', True)}, {'bogus': GLib.Variant('b', True)}])
def test_unknown_options(tree, service, conn, polkit, opts):
    with pytest.raises(BusError) as e:
        get_usage(conn, opts)
    assert e.value.name == ERR_INVALID_ARGS
    assert polkit.checks() == []


def test_process_vanishing_and_unreadable(tree, fake_kernel, service, conn, polkit):
    polkit.allow(ACTION_INSPECT)
    # a pid directory without files: gone between readdir and open, skipped silently
    os.makedirs(fake_kernel.path('proc/5000'))
    # maps that cannot be read (a directory): counted
    add_process(fake_kernel, 5001, 0, 'odd', '')
    os.remove(fake_kernel.path('proc/5001/maps'))
    os.makedirs(fake_kernel.path('proc/5001/maps'))
    # malformed smaps: counted as unreadable, not a failed call
    add_process(fake_kernel, 5002, 0, 'bad', vma(0x1000, 0x200000, '00:10', 9, '/anon_hugepage (deleted)',
                                                 2048, private_kb=2048))
    fake_kernel.write('proc/5002/smaps', 'garbage\n')
    usage = get_usage(conn)
    assert usage['unreadable-processes'] == 2
    assert usage['scanned-processes'] == 4
    assert {p['pid'] for p in usage['processes']} == {4242, 4343}


@pytest.mark.valgrind
def test_remove_orphan(tree, service, conn, polkit):
    # dry run or not, the same action is asked before the path is looked at
    for opts in ({'dry-run': GLib.Variant('b', True)}, {}):
        with pytest.raises(BusError) as e:
            remove_orphan(conn, tree.orphan, opts)
        assert e.value.name == ERR_NOT_AUTHORIZED
        assert os.path.exists(tree.orphan)
    dry, real = polkit.checks()
    assert dry.action == real.action == ACTION_MOUNTS
    assert dry.details == {'path': tree.orphan, 'dry-run': 'true'}
    assert real.details == {'path': tree.orphan}

    polkit.allow(ACTION_MOUNTS)
    remove_orphan(conn, tree.orphan, {'dry-run': GLib.Variant('b', True)})
    assert os.path.exists(tree.orphan)
    remove_orphan(conn, tree.orphan)
    assert not os.path.exists(tree.orphan)
    assert f'removed the orphan file {tree.orphan}' in service.log()


def test_remove_orphan_is_no_oracle(tree, service, polkit, run_python_as):
    """A user without manage-mounts gets the same answer, word for word,
    for a file in a directory it cannot read, a file that does not exist
    there, a file another user's process maps and an orphan, dry run or
    not: nothing about the path, and no process id."""
    private = os.path.join(tree.mount_2m, 'private')
    os.makedirs(private)
    os.chmod(private, 0o700)
    secret = os.path.join(private, 'secret')
    write_file(secret, 2 * MiB)
    paths = [secret, os.path.join(private, 'absent'), tree.data, tree.orphan]
    answers = set()
    for dry in ('true', 'false'):
        ops = [['call', hpdtest.MANAGER_PATH, hpdtest.MANAGER_IFACE, 'RemoveOrphan', '(sa{sv})',
                f"('{path}', {{'dry-run': <{dry}>}})", None, False] for path in paths]
        results = run_python_as(1, ops)
        answers |= {(r.get('error'), r.get('message')) for r in results}
    assert len(answers) == 1, answers
    [(name, message)] = answers
    assert name == ERR_NOT_AUTHORIZED
    assert '4242' not in message and 'secret' not in message
    assert os.path.exists(secret) and os.path.exists(tree.orphan)


def test_a_path_the_caller_sent_is_escaped_in_the_log(tree, service, conn, polkit):
    """Issue 17, point 6, for text a caller sends: the path of RemoveOrphan
    reaches the log once the file is removed, or with the reason it was
    not. U+2028 and U+202E (which a path may hold) and a line break and an
    escape sequence (which it may not) show escaped; no log line starts
    with what the caller wrote."""
    from test_sec_logs import FORGED, check_log
    polkit.allow(ACTION_MOUNTS)
    removed = os.path.join(tree.mount_2m, 'o\u2028FORGED\u202e')
    refused = os.path.join(tree.mount_2m, f'o\n{FORGED}\u2028FORGED\u202e\x1b[2J')
    for path in (removed, refused):
        write_file(path, 2 * MiB)
    hpdtest.call(conn, hpdtest.MANAGER_PATH, hpdtest.MANAGER_IFACE, 'RemoveOrphan',
                 GLib.Variant('(sa{sv})', (removed, {})))
    assert not os.path.exists(removed)
    with pytest.raises(BusError) as e:
        remove_orphan(conn, refused)
    assert e.value.name == ERR_INVALID_ARGS
    assert os.path.exists(refused)
    text = check_log(open(service.log_path, 'rb').read())
    assert 'o\\u2028FORGED\\u202e' in text
    assert f'o\\u000a{FORGED}\\u2028FORGED\\u202e\\u001b[2J failed' in text


def test_remove_orphan_replies_the_bytes_it_held(tree, service, conn, polkit):
    polkit.allow(ACTION_MOUNTS, ACTION_INSPECT)
    held = by(get_usage(conn)['files'], 'path')[tree.orphan]['size']
    assert held == 2 * MiB
    assert remove_orphan(conn, tree.orphan, {'dry-run': GLib.Variant('b', True)}) == held
    assert os.path.exists(tree.orphan)
    # grown since: the reply is what it held when unlinked
    write_file(tree.orphan, 4 * MiB)
    assert remove_orphan(conn, tree.orphan) == 4 * MiB
    assert not os.path.exists(tree.orphan)
    assert tree.orphan not in by(get_usage(conn)['files'], 'path')


def test_remove_mapped_refused(tree, service, conn, polkit):
    polkit.allow(ACTION_MOUNTS)
    for opts in ({}, {'dry-run': GLib.Variant('b', True)}):
        with pytest.raises(BusError) as e:
            remove_orphan(conn, tree.data, opts)
        assert e.value.name == ERR_BUSY
        # counted, not named: the caller may not see other users' processes
        assert 'mapped by 1 process;' in e.value.message and '4242' not in e.value.message
    assert os.path.exists(tree.data)


def test_remove_unreadable_process(tree, fake_kernel, service, conn, polkit):
    polkit.allow(ACTION_MOUNTS)
    add_process(fake_kernel, 5001, 0, 'odd', '')
    os.remove(fake_kernel.path('proc/5001/maps'))
    os.makedirs(fake_kernel.path('proc/5001/maps'))
    with pytest.raises(BusError) as e:
        remove_orphan(conn, tree.orphan)
    assert e.value.name == ERR_FAILED and 'of 1 process cannot be read' in e.value.message
    assert '5001' not in e.value.message
    assert os.path.exists(tree.orphan)
    remove_orphan(conn, tree.orphan, {'ignore-unreadable': GLib.Variant('b', True)})
    assert not os.path.exists(tree.orphan)


def bad_paths(tree, fk):
    os.symlink(tree.mount_2m + '/db', os.path.join(tree.mount_2m, 'dblink'))
    os.makedirs(fk.path('var/lib/elsewhere'))
    write_file(fk.path('var/lib/elsewhere/file'), 10)
    return [
        ('db/data', ERR_INVALID_ARGS),                               # relative
        (tree.mount_2m + '/db/../orphan', ERR_INVALID_ARGS),        # not normalized
        (tree.mount_2m + '//orphan', ERR_INVALID_ARGS),
        (tree.mount_2m + '/orphan/', ERR_INVALID_ARGS),
        (tree.mount_2m + '/missing', ERR_INVALID_ARGS),
        (tree.mount_2m + '/empty-dir', ERR_INVALID_ARGS),           # a directory
        (tree.mount_2m + '/link', ERR_INVALID_ARGS),                # a symlink
        (tree.mount_2m + '/dblink/data', ERR_INVALID_ARGS),         # through a symlink
        (tree.mount_2m, ERR_NOT_MOUNTED),                           # the mount itself
        (fk.path('var/lib/elsewhere/file'), ERR_NOT_MOUNTED),       # no mount holds it
        ('/etc/passwd', ERR_NOT_MOUNTED),
        (tree.mount_2m + '/orphan\n', ERR_INVALID_ARGS),
    ]


def test_remove_bad_paths(tree, fake_kernel, service, conn, polkit):
    polkit.allow(ACTION_MOUNTS)
    cases = bad_paths(tree, fake_kernel)
    before = fake_kernel.snapshot()
    for path, error in cases:
        with pytest.raises(BusError) as e:
            remove_orphan(conn, path)
        assert e.value.name == error, (path, e.value.message)
    assert fake_kernel.changes_since(before) == {}
    # authorized before the path is looked at
    assert [(c.action, c.details['path']) for c in polkit.checks()] == \
        [(ACTION_MOUNTS, path) for path, _ in cases]


def test_remove_outside_fake_root(tree, fake_kernel, service, conn, polkit, tmp_path):
    """A mount table naming a directory outside the fake tree never lets
    the service touch it."""
    outside = tmp_path / 'outside'
    outside.mkdir()
    (outside / 'victim').write_bytes(b'x')
    fake_kernel.write_mountinfo(MOUNTS + [Mount(str(outside))])
    polkit.allow(ACTION_MOUNTS, ACTION_INSPECT)
    with pytest.raises(BusError) as e:
        remove_orphan(conn, str(outside / 'victim'))
    assert e.value.name == ERR_NOT_MOUNTED
    assert (outside / 'victim').exists()
    assert str(outside / 'victim') not in {f['path'] for f in get_usage(conn)['files']}


# --- the client ------------------------------------------------------------------

@pytest.fixture
def ctl(builddir, bus):
    binary = os.path.join(builddir, 'client', 'hugepagesctl')

    def run(*args, **kwargs):
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus.address)
        return subprocess.run([binary, *args], env=env, capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL, **kwargs)
    return run


@pytest.mark.valgrind
def test_client_usage(tree, service, polkit, ctl):
    polkit.allow(ACTION_INSPECT)
    proc = ctl('usage')
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert re.search(r'^\s+4242\s+nobody\s+postgres\s+2MB\s+2\s+0\s+postgres -D /srv/db$', out, re.M), out
    assert re.search(rf'^\s+{re.escape(tree.orphan)}\s+2MB\s+{2 * MiB}\s+1\s+root\s+nobody: orphan$', out, re.M), out
    assert re.search(rf'^\s+{re.escape(tree.data)}\s+2MB\s+{4 * MiB}\s+2\s+nobody\s+4242$', out, re.M), out
    assert re.search(r'^\s+0x0000abcd\s+98307\s+root\s+1073741824\s+1\s+hugetlb\s+1GB\s+1\s+4343$', out, re.M), out
    assert re.search(r'^\s+/db\.slice\s+2MB\s+4194304\s+8388608\s+3$', out, re.M), out
    assert re.search(r'^\s+2MB\s+8\s+5\s+4\s+1\s+2\s+1$', out, re.M), out
    assert 'Only what uid' not in out

    proc = ctl('usage', '--json')
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert {p['pid'] for p in doc['processes']} == {4242, 4343}
    assert doc['restricted'] is False
    assert {f['path'] for f in doc['files']} == {tree.data, tree.orphan, tree.nobody_orphan}


def test_client_usage_restricted(tree, service, polkit, ctl):
    proc = ctl('usage', '--no-ask-password')
    assert proc.returncode == 0, proc.stderr
    assert 'Only what uid 0 owns is shown' in proc.stdout
    assert re.search(r'^\s+4343\s+root\s+loader', proc.stdout, re.M)
    assert '4242' not in proc.stdout
    assert ctl('usage', 'extra').returncode == 2


def test_client_remove_orphan(tree, service, polkit, ctl):
    polkit.allow(ACTION_MOUNTS)
    proc = ctl('remove-orphan', tree.data)
    assert proc.returncode == 1 and 'mapped by 1 process' in proc.stderr
    proc = ctl('remove-orphan', '--dry-run', tree.orphan)
    assert proc.returncode == 0 and 'would be removed, freeing 2.0 MiB' in proc.stdout
    assert os.path.exists(tree.orphan)
    proc = ctl('remove-orphan', tree.orphan)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f'removed {tree.orphan}, freeing 2.0 MiB\n'
    assert not os.path.exists(tree.orphan)
    assert ctl('remove-orphan', 'relative').returncode == 2


class Lines:
    """The lines of a process's stdout (hpdtest.PipeLines), each kept."""

    def __init__(self, proc):
        self.pipe = hpdtest.PipeLines(proc)
        self.seen = []

    def wait_for(self, pattern, timeout=15):
        deadline = time.monotonic() + timeout
        while True:
            try:
                text = self.pipe.next(deadline)
            except EOFError:
                raise AssertionError(f'monitor ended; got {self.seen!r}')
            if text is None:
                raise AssertionError(f'no line matching {pattern!r}; got {self.seen!r}')
            self.seen.append(text)
            if re.search(pattern, text):
                return text


def test_monitor(fake_kernel, start_service, polkit, conn, builddir, bus):
    first = start_service(fake_kernel.root)
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus.address)
    proc = subprocess.Popen([os.path.join(builddir, 'client', 'hugepagesctl'), 'monitor'], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines = Lines(proc)
    try:
        lines.wait_for(r'^\d\d:\d\d:\d\d hugepagesd is on the bus')
        # another program resizes the pool; a read makes the service notice
        fake_kernel.write(fake_kernel.pool_file(2048, 'nr_hugepages'), 6)
        fake_kernel.write(fake_kernel.pool_file(2048, 'free_hugepages'), 6)
        hpdtest.get(conn, hpdtest.page_size_path(2048), hpdtest.PAGE_SIZE_IFACE, 'Total')
        lines.wait_for(r'^\d\d:\d\d:\d\d 2MB (Total|Minimum|Maximum) 8 → 6$')

        first.terminate()
        lines.wait_for(r'^\d\d:\d\d:\d\d hugepagesd left the bus')
        start_service(fake_kernel.root)
        lines.wait_for(r'^\d\d:\d\d:\d\d hugepagesd is back on the bus')
        assert proc.poll() is None
    finally:
        proc.send_signal(2)
        assert proc.wait(10) == 0, proc.stderr.read()


# --- scans off the main loop, after authorization (issue 17, point 3) ------------------

SCAN_FLOOD = hpdtest.flood_script(r'''
import json, os, sys, time
from gi.repository import Gio, GLib
calls, path = int(sys.argv[1]), sys.argv[2]
conn = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
outcomes, started = {}, time.monotonic()
def done(c, res, _):
    count_reply(outcomes, c, res)
for i in range(calls):
    if i % 2:
        method, args = "GetUsage", GLib.Variant("(a{sv})", ({},))
    else:
        method, args = "RemoveOrphan", GLib.Variant("(sa{sv})", (path, {"dry-run": GLib.Variant("b", True)}))
    conn.call("org.hugepages.Manager", "/org/hugepages/Manager", "org.hugepages.Manager", method, args,
              None, Gio.DBusCallFlags.NONE, 120000, None, done, None)
print(json.dumps({"sent": calls}), flush=True)
ctx = GLib.MainContext.default()
while sum(outcomes.values()) < calls:
    ctx.iteration(True)
print(json.dumps({"answered": outcomes, "seconds": time.monotonic() - started}), flush=True)
''')

MANY_MAPPINGS = 30000


def test_scans_do_not_stall_the_service(tree, fake_kernel, service, conn, polkit, hugepagesd):
    """Ten processes of nobody with 30,000 mappings each; nobody sends 30
    RemoveOrphan dry runs and GetUsage calls at once, without any right.
    None of them may read a map before it is authorized, nor on the main
    loop, so root's SetMinimum meanwhile completes in under a second."""
    maps = ''.join(f'{0x7f0000000000 + i * 0x2000:x}-{0x7f0000001000 + i * 0x2000:x} '
                   f'{"rw-p" if i % 2 else "r--p"} 00000000 00:00 0 \n' for i in range(MANY_MAPPINGS))
    for pid in range(6000, 6010):
        add_process(fake_kernel, pid, NOBODY, 'mapper', '')
        fake_kernel.write(f'proc/{pid}/maps', maps)
    polkit.allow(hpdtest.ACTION_POOLS)
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=service.bus.address)
    flood = subprocess.Popen(['setpriv', f'--reuid={NOBODY}', f'--regid={NOBODY}', '--clear-groups',
                              '/usr/bin/python3', '-c', SCAN_FLOOD, '30', tree.orphan],
                             stdout=subprocess.PIPE, text=True, env=env, cwd='/')
    try:
        assert json.loads(flood.stdout.readline()) == {'sent': 30}
        times = []
        for pages in (5, 6, 5):
            t = time.monotonic()
            assert hpdtest.pool_call(conn, 2048, 'SetMinimum', pages) == pages
            times.append(time.monotonic() - t)
        last = json.loads(flood.stdout.readline())
        flood.wait(60)
    finally:
        flood.kill()
        flood.wait()
    print(f"root's SetMinimum while 30 scans are asked for: {', '.join(f'{x:.2f}' for x in times)} s; "
          f"the flood: {last}")
    assert max(times) < 1 or not hpdtest.plain_build(hugepagesd)
    # the dry runs are refused before the path is looked at, or Busy past
    # this user's share of the checks; its usage scans run one at a time
    assert last['answered'].get(ERR_NOT_AUTHORIZED, 0) >= 1, last
    assert set(last['answered']) <= {ERR_NOT_AUTHORIZED, 'ok', ERR + 'Busy'}, last
    assert os.path.exists(tree.orphan)


# Run as a user: argv[2] RemoveOrphan dry runs of argv[1] at once; prints
# {"ok" or the error: count} once all are answered.
DRY_RUNS = hpdtest.flood_script(r'''
import json, os, sys
from gi.repository import Gio, GLib
path, calls = sys.argv[1], int(sys.argv[2])
address = os.environ["DBUS_SYSTEM_BUS_ADDRESS"]
flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
conn = Gio.DBusConnection.new_for_address_sync(address, flags, None, None)
answers = {}
def done(c, res, _):
    count_reply(answers, c, res, by_message=True)
for _ in range(calls):
    conn.call("org.hugepages.Manager", "/org/hugepages/Manager", "org.hugepages.Manager",
              "RemoveOrphan", GLib.Variant("(sa{sv})", (path, {"dry-run": GLib.Variant("b", True)})),
              None, Gio.DBusCallFlags.NONE, 120000, None, done, None)
ctx = GLib.MainContext.default()
while sum(answers.values()) < calls:
    ctx.iteration(True)
print(json.dumps(answers), flush=True)
''')


def test_one_scan_at_a_time_per_user(tree, fake_kernel, service, polkit, NOBODY):
    """A user allowed to remove orphans sends 6 dry runs at once, each a
    scan of every process's maps (10 processes, 30,000 mappings each): one
    runs, the others are Busy at once (one scan per uid, 3 in all, the
    last for root), and another user's dry run runs meanwhile."""
    mappings = MANY_MAPPINGS
    maps = ''.join(f'{0x7f0000000000 + i * 0x2000:x}-{0x7f0000001000 + i * 0x2000:x} '
                   f'{"rw-p" if i % 2 else "r--p"} 00000000 00:00 0 \n' for i in range(mappings))
    for pid in range(6000, 6010):
        add_process(fake_kernel, pid, NOBODY, 'mapper', '')
        fake_kernel.write(f'proc/{pid}/maps', maps)
    polkit.allow(ACTION_MOUNTS)
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=service.bus.address)

    def dry_runs(uid, calls):
        return subprocess.Popen(['setpriv', f'--reuid={uid}', f'--regid={uid}', '--clear-groups',
                                 '/usr/bin/python3', '-c', DRY_RUNS, tree.orphan, str(calls)],
                                stdout=subprocess.PIPE, text=True, env=env, cwd='/')
    # all at once: the scans take far longer than the calls take to arrive
    started = time.monotonic()
    procs = {uid: dry_runs(uid, calls) for uid, calls in ((NOBODY, 6), (1, 1))}
    answers = {uid: json.loads(p.communicate(timeout=120)[0]) for uid, p in procs.items()}
    print(f'{answers} in {time.monotonic() - started:.2f} s')
    busy = f'GDBus.Error:{ERR_BUSY}: Too many scans of the processes\' mappings running for this ' \
        'user (1); try again later'
    assert answers[NOBODY] == {'ok': 1, busy: 5}, answers
    assert answers[1] == {'ok': 1}, answers
    assert os.path.exists(tree.orphan)
