# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Smoke test of the benchmarks: `bench/run --quick` runs every section on
this machine, the report has each section's figures, and the pools are back
where they were.

The system tier already runs under `flock /tmp/hpd-kernel.lock`, so the
benchmark is told not to take the lock itself (--no-lock); its report goes
to a temporary file, never over bench/REPORT.md."""

import re
import subprocess
import sys

import pytest

from hpdsys import REPO, builddir, pools_snapshot

sys.path.insert(0, str(REPO / "bench"))
from benchlib import MemoryCgroup  # noqa: E402

BENCH = REPO / "bench" / "run"
# the commit bench/run measures beside the build by default, and whether this
# tree's history has it (a shallow clone or an unpacked tarball may not)
BEFORE = "af13f6cae5a94732c5c51f831c8dde5798250c63"
HAS_BEFORE = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--verify", "--quiet",
                             BEFORE + "^{commit}"], capture_output=True).returncode == 0

# each section's heading and the figures it must report, with a number
FIGURES = {
    "read": ("## 1. Read path", [
        r"\| `hugepagesctl pools`, whole process \(median of \d+\) \| [\d.]+ ms \| bare `gdbus call` Ping: [\d.]+ ms \| [\d.]+× \| ≤ 1\.2× \|",
        r"\| `hugeadm --pool-list`, whole process \(median of \d+\) \| [\d.]+ ms \|",
        r"\| GetManagedObjects round trip, in-process \(median of \d+\) \| [\d.]+ µs \| Peer\.Ping: [\d.]+ µs \| [\d.]+× \| ≤ 1\.5× \|",
        r"\| Manager GetAll round trip, in-process \(median of \d+\) \| [\d.]+ µs \| Peer\.Ping: [\d.]+ µs \| [\d.]+× \| ≤ 1\.5× \|",
    ]),
    "alloc": ("## 2. Allocation", [
        r"\| Grow the 2 MiB pool by \d+ pages: service `SetMinimum` \(median of \d+\) \| [\d.]+ m?s \| raw sysfs write: [\d.]+ m?s \| [\d.]+× \| ≤ 1\.10× \|",
        r"\| Grow by \d+ pages: `hugeadm --pool-pages-min 2MB:\+\d+`, whole process \| [\d.]+ m?s \|",
        r"\| Pages obtained per run \(raw write / service / hugeadm / raw node write / service node\) \| \[[\d, ]+\] / \[[\d, ]+\] / \[[\d, ]+\] / \[[\d, ]+\] / \[[\d, ]+\] \|",
    ]),
    "frag": ("## 3. Fragmentation", [
        r"\| plain write of nr_hugepages: pages obtained / time \| \d+ pages \([\d.]+% of the bound\) / [\d.]+ m?s \| asked \d+ of the bound \d+; before: \d+ pages' worth free, \d+ free 2 MiB blocks \|",
        r"\| `hugeadm --pool-pages-min 2MB:N --hard`: pages obtained / time \| \d+ pages \([\d.]+% of the bound\) / [\d.]+ m?s \|",
        r"\| Service \{hard: true\}: pages as a share of the physical bound \| [\d.]+% \(\d+ of \d+\) \|",
        r"\| Service \{hard: true\}: share of the bound vs hugeadm --hard \| [\d.]+% \| [\d.]+% \|",
        r"\| Service \{hard: true\} time vs hugeadm --hard \| [\d.]+ m?s \| [\d.]+ m?s \|",
        r"Kept: \d+ MiB anonymous, \d+ MiB page cache, \d+ MiB of pipe buffers, \d+ files",
    ]),
    "scale": ("## 4. Scale", [
        r"\| GetManagedObjects round trip, 64 nodes × 5 sizes \(median of \d+\) \| [\d.]+ ms \|",
        r"\| SetNodePages service time, 2 MiB pool on one of 64 nodes \(median of \d+\) \| [\d.]+ ms \|",
        r"\| \d+ concurrent clients, \d+ s: throughput \| \d+ calls/s \|",
        r"\| \d+ concurrent clients: read latency p50 / p99 \| [\d.]+ ms / [\d.]+ ms \|",
    ]),
    "footprint": ("## 5. Footprint", [
        r"\| Idle Pss after start \(smaps_rollup\) \| \d+ kB \|",
        r"\| Idle RSS after start \(RssAnon\) \| \d+ kB \|",
        r"\| Idle RSS after start \(VmRSS\) \| \d+ kB \|",
        r"\| Wakeups while idle, nobody watching \(\d+ s window\) \| [\d.]+ / min \|",
        r"\| Exec to name on the bus \(median of \d+ starts\) \| [\d.]+ ms \| `hugepagesd --version`: [\d.]+ ms \|",
        r"\| RssAnon right after \d+ concurrent clients for \d+ s \(the scale section's load\) \| \d+ kB \|",
        r"\| RssAnon back to idle after the load \(within \d+ kB of \d+ kB\) \| ",
        r"\| Floor: RssAnon of a minimal GDBus service answering the same calls from its worker "
        r"thread, 3 s after the same load \(bench/floor.c, told to trim 2 s after it\) \| [+-]\d+ kB \| "
        r"its idle: \d+ kB \|",
        r"\| RssAnon 3 s after each of \d+ more of the same load \(the same instance\) \| [\d, ]+ kB \| 3 s after the first: \d+ kB \|",
        r"\| RssAnon 3 s after a light load \(2 clients for 1 s, another fresh instance\) \| \d+ kB \| idle before: \d+ kB \|",
    ]),
}


KERNEL_MEMORY = [
    r"\| Kernel memory charged to the service, idle after start \(its memory cgroup\) \| \d+ kB \| minimal GDBus service: \d+ kB \| [\d.]+× \|",
    r"\| Kernel memory charged to the service right after 20 GetManagedObjects and Manager GetAll from one caller \| \d+ kB \| idle: \d+ kB \|",
    r"\| Kernel memory charged to the service 3 s after that caller left \| \d+ kB \| idle: \d+ kB \|",
    r"Descriptors: idle \d+ sysfs and \d+ procfs descriptors; with the caller \d+ sysfs",
]


def memory_cgroup_here():
    """Whether the benchmark can make the memory cgroups it measures
    kernel memory with, by the benchmark's own helper."""
    cgroup = MemoryCgroup.made("probe")
    if cgroup is None:
        return False
    cgroup.close()
    return True


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    report = tmp_path_factory.mktemp("bench") / "REPORT.md"
    before = pools_snapshot()
    # --before: the earlier commit's service is built and measured too, which --quick
    # leaves out unless asked
    proc = subprocess.run([str(BENCH), "--quick", "--no-lock", "--builddir", str(builddir()),
                           "--report", str(report), "--before", BEFORE if HAS_BEFORE else "none"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=900)
    after = pools_snapshot()
    text = report.read_text() if report.exists() else ""
    return proc, text, before, after


def test_bench_quick_succeeds(quick_run):
    proc, text, _before, _after = quick_run
    assert proc.returncode == 0, "bench/run --quick exited %d:\n%s" % (proc.returncode,
                                                                      proc.stderr[-5000:])
    assert text, "no report written"
    assert proc.stdout == text, "the printed report differs from the written one"
    assert "The section failed" not in text


@pytest.mark.parametrize("section", sorted(FIGURES))
def test_bench_section_figures(quick_run, section):
    _proc, text, _before, _after = quick_run
    heading, patterns = FIGURES[section]
    assert heading in text, "no %r in the report" % heading
    body = text.split(heading, 1)[1].split("\n## ", 1)[0]
    for pattern in patterns:
        assert re.search(pattern, body), "%s: no line matches %s in:\n%s" % (section, pattern, body)


def test_bench_kernel_memory(quick_run):
    _proc, text, _before, _after = quick_run
    body = text.split("## 5. Footprint", 1)[1].split("\n## ", 1)[0]
    if not memory_cgroup_here():
        assert "Kernel memory not measured: %s." % MemoryCgroup.why_not in body
        pytest.skip("no memory cgroup here: %s" % MemoryCgroup.why_not)
    for pattern in KERNEL_MEMORY:
        assert re.search(pattern, body), "no line matches %s in:\n%s" % (pattern, body)


@pytest.mark.skipif(not HAS_BEFORE, reason="%s is not in this tree's git history" % BEFORE[:12])
def test_bench_read_before_and_after(quick_run):
    _proc, text, _before, _after = quick_run
    body = text.split("## 1. Read path", 1)[1].split("\n## ", 1)[0]
    for pattern in [
        r"\| System calls in the service per GetManagedObjects \(strace -f -c over \d+ calls\) \| [\d.]+ \(openat [\d.]+, read [\d.]+, pread64 [\d.]+, close [\d.]+\) \| [0-9a-f]{12}: [\d.]+ \(openat [\d.]+, read [\d.]+, pread64 [\d.]+, close [\d.]+\) \| [\d.]+× \|",
        r"\| System calls in the service per Manager GetAll \(strace -f -c over \d+ calls\) \| [\d.]+ \(",
        r"\| The service of [0-9a-f]{12}: GetManagedObjects / Manager GetAll round trips, in-process \(median of \d+\) \| [\d.]+ µs / [\d.]+ µs \| its Peer\.Ping: [\d.]+ µs \| [\d.]+× / [\d.]+× \|",
    ]:
        assert re.search(pattern, body), "no line matches %s in:\n%s" % (pattern, body)


def test_bench_restores_pools(quick_run):
    _proc, text, before, after = quick_run
    assert after == before, "pools before %s, after %s" % (before, after)
    assert "Could not restore" not in text
    assert "is back to its value before the run" in text
