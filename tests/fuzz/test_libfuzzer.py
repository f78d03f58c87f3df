# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""A short run of every libFuzzer harness (tests/fuzz/libfuzzer), for CI.

    /usr/bin/python3 -m pytest tests/fuzz/test_libfuzzer.py -v -rs

Configures and builds the clang fuzzing build directory when it is missing
(HPD_FUZZ_BUILDDIR, default <repo>/build-fuzz: `CC=clang meson setup DIR
-Dfuzzing=true`, then `meson compile -C DIR fuzzers`; only skipped, with the
reason, when clang is not installed). Then runs each harness for
HPD_LIBFUZZER_SECONDS seconds (default 25), HPD_LIBFUZZER_JOBS harnesses at a
time (default 2), on a copy of its seed corpus (the repository's stays as it
is) with its dictionary. A harness fails on anything libFuzzer reports: a
crash or failed check, a sanitizer error, a leak, an input slower than
10 s, more than 2 GiB of memory, a non-zero exit, or an artifact left
behind. Its inputs are then kept in DIR/libfuzzer-artifacts/<harness>/
and the message says how to replay them. Each test prints its executions
(stat::number_of_executed_units) to the terminal, captured or not.

The canary tests run fuzz-canary, whose planted use-after-free, signed
overflow and leak must each fail a run: they show that the harnesses are
really built with the sanitizers and that this runner notices.
"""

import concurrent.futures
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional

import pytest

REPO = Path(__file__).resolve().parents[2]
SOURCES = REPO / 'tests' / 'fuzz' / 'libfuzzer'
BUILDDIR = Path(os.environ.get('HPD_FUZZ_BUILDDIR') or REPO / 'build-fuzz').resolve()
SECONDS = int(os.environ.get('HPD_LIBFUZZER_SECONDS') or 25)
JOBS = max(1, int(os.environ.get('HPD_LIBFUZZER_JOBS') or 2))
ARTIFACTS = BUILDDIR / 'libfuzzer-artifacts'

# One per parser family; the name after "fuzz-" names the corpus and dictionary.
HARNESSES = ['units', 'mountinfo', 'meminfo', 'buddyinfo', 'thp', 'config', 'cmdline', 'usage']
# Options beyond the common ones.
EXTRA_OPTIONS = {
    # lines longer than HPD_CONFIG_MAX_LINE are a case of their own
    'config': ['-max_len=10000'],
}

# libFuzzer writes what it finds to files named crash-, leak-, timeout-,
# oom- or slow-unit- and a hash: any of them fails the run.
ENV = {
    'G_SLICE': 'always-malloc',
    'G_DEBUG': 'fatal-criticals',
    # smaller quarantine: two harnesses at a time stay well below the RSS limit
    'ASAN_OPTIONS': 'detect_leaks=1:quarantine_size_mb=64',
    'UBSAN_OPTIONS': 'halt_on_error=1:print_stacktrace=1',
}


def _clang():
    return shutil.which('clang')


if _clang() is None:
    pytest.skip('clang is not installed (apt install clang): the libFuzzer harnesses '
                'cannot be built, so NOTHING was fuzzed', allow_module_level=True)


def _fuzzing_option(builddir: Path) -> Optional[bool]:
    try:
        options = json.loads((builddir / 'meson-info' / 'intro-buildoptions.json').read_text())
    except (OSError, ValueError):
        return None
    for option in options:
        if option.get('name') == 'fuzzing':
            return bool(option.get('value'))
    return None


@pytest.fixture(scope='module')
def fuzz_builddir() -> Path:
    """The fuzzing build directory, configured if missing and brought up to date."""
    if not (BUILDDIR / 'build.ninja').exists():
        env = dict(os.environ, CC=_clang())
        proc = subprocess.run(['meson', 'setup', str(BUILDDIR), str(REPO), '-Dfuzzing=true'],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)
        assert proc.returncode == 0, f'meson setup failed:\n{proc.stdout[-4000:]}'
    fuzzing = _fuzzing_option(BUILDDIR)
    assert fuzzing, (f'{BUILDDIR} is not a fuzzing build (fuzzing={fuzzing}); point '
                     'HPD_FUZZ_BUILDDIR elsewhere or set it up with '
                     f'`CC=clang meson setup {BUILDDIR} -Dfuzzing=true`')
    proc = subprocess.run(['meson', 'compile', '-C', str(BUILDDIR), 'fuzzers'],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.returncode == 0, f'building the harnesses failed:\n{proc.stdout[-6000:]}'
    return BUILDDIR


@dataclass
class Run:
    harness: str
    command: List[str]
    returncode: int
    output: str
    seconds: float
    artifacts: List[Path] = field(default_factory=list)
    seeds: int = 0
    corpus: int = 0

    def stat(self, name: str) -> Optional[int]:
        m = re.findall(rf'^stat::{name}:\s*(\d+)', self.output, re.M)
        return int(m[-1]) if m else None

    @property
    def failed(self) -> bool:
        return self.returncode != 0 or bool(self.artifacts)

    def summary(self) -> str:
        execs = self.stat('number_of_executed_units')
        rate = self.stat('average_exec_per_sec')
        rss = self.stat('peak_rss_mb')
        return (f'fuzz-{self.harness}: {execs} executions in {self.seconds:.0f} s '
                f'({rate}/s), corpus {self.seeds} -> {self.corpus} inputs, '
                f'peak RSS {rss} MB, exit {self.returncode}')


def run_harness(builddir: Path, harness: str, seconds: int, workdir: Path,
                seeds: Optional[Path] = None, keep_artifacts: bool = True) -> Run:
    """Runs fuzz-<harness> for @seconds on a copy of @seeds (default: its corpus)."""
    exe = builddir / 'tests' / 'fuzz' / 'libfuzzer' / f'fuzz-{harness}'
    seeds = seeds or SOURCES / 'corpus' / harness
    corpus = workdir / 'corpus'
    found = workdir / 'artifacts'
    shutil.rmtree(workdir, ignore_errors=True)
    shutil.copytree(seeds, corpus)
    found.mkdir(parents=True)
    n_seeds = len(list(corpus.iterdir()))

    command = [str(exe), f'-max_total_time={seconds}', '-print_final_stats=1',
               '-rss_limit_mb=2048', '-timeout=10', f'-artifact_prefix={found}/']
    dictionary = SOURCES / f'{harness}.dict'
    if dictionary.exists():
        command.append(f'-dict={dictionary}')
    command += EXTRA_OPTIONS.get(harness, [])
    command.append(str(corpus))

    start = time.monotonic()
    try:
        proc = subprocess.run(command, env=dict(os.environ, **ENV), cwd=workdir,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=2 * seconds + 120)
        returncode, output = proc.returncode, proc.stdout
    except subprocess.TimeoutExpired as e:
        returncode, output = -9, (e.stdout or b'') + b'\n(killed: libFuzzer did not stop)\n'
    run = Run(harness, command, returncode, output.decode('utf-8', 'replace'),
              time.monotonic() - start, seeds=n_seeds)
    run.corpus = len(list(corpus.iterdir()))
    run.artifacts = sorted(found.iterdir())

    if run.failed and keep_artifacts:
        kept = ARTIFACTS / harness
        kept.mkdir(parents=True, exist_ok=True)
        run.artifacts = [Path(shutil.copy2(a, kept)) for a in run.artifacts]
    return run


# The lines that say what went wrong, wherever they are in the output.
FINDINGS = re.compile(r'check failed|ERROR: |runtime error:|^SUMMARY:|Test unit written|'
                      r'Slowest unit|out-of-memory|deadly signal')


def failure_message(run: Run) -> str:
    lines = run.output.splitlines()
    findings = '\n'.join(line for line in lines if FINDINGS.search(line)) or '(none)'
    tail = '\n'.join(lines[-60:])
    replay = '\n'.join(f'  {shlex.quote(run.command[0])} {shlex.quote(str(a))}'
                       for a in run.artifacts) or '  (no artifact written)'
    return (f'{run.summary()}\n'
            f'--- what libFuzzer reported ---\n{findings}\n'
            f'--- artifacts (replay each: the harness, then the file) ---\n{replay}\n'
            f'--- command ---\n{shlex.join(run.command)}\n'
            f'--- last lines of its output ---\n{tail}')


def _selected(request) -> List[str]:
    """The harnesses this session runs (all, unless -k or node ids chose fewer)."""
    names = []
    for item in request.session.items:
        callspec = getattr(item, 'callspec', None)
        if item.module is request.module and callspec and 'harness' in callspec.params:
            names.append(callspec.params['harness'])
    return [h for h in HARNESSES if h in names]


@pytest.fixture(scope='module')
def fuzz_runs(request, fuzz_builddir, tmp_path_factory):
    """Starts every selected harness, JOBS at a time; harness -> Future of its Run."""
    base = tmp_path_factory.mktemp('libfuzzer')
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=JOBS)
    futures = {h: pool.submit(run_harness, fuzz_builddir, h, SECONDS, base / h)
               for h in _selected(request)}
    yield futures
    pool.shutdown(wait=True)


def _report(capsys, fuzz_report, harness, run: Run):
    # in the session's "fuzzing" summary, which CI logs show whatever -q says
    fuzz_report(f'libfuzzer-{harness}', f'libfuzzer {run.summary()}')
    with capsys.disabled():
        sys.stdout.write(f'\n  {run.summary()}\n')
        sys.stdout.flush()


@pytest.mark.parametrize('harness', HARNESSES)
def test_harness(harness, fuzz_runs, capsys, fuzz_report):
    run = fuzz_runs[harness].result()
    _report(capsys, fuzz_report, harness, run)
    if run.failed:
        pytest.fail(failure_message(run), pytrace=False)
    if not run.stat('number_of_executed_units'):
        pytest.fail(f'no executions reported:\n{failure_message(run)}', pytrace=False)
    assert run.seeds > 0, f'empty seed corpus tests/fuzz/libfuzzer/corpus/{harness}'


@pytest.mark.parametrize('bug, report', [
    ('ASAN', 'ERROR: AddressSanitizer: heap-use-after-free'),
    ('UBSAN', 'runtime error: signed integer overflow'),
    ('LEAK', 'ERROR: LeakSanitizer: detected memory leaks'),
])
def test_canary(bug, report, fuzz_builddir, tmp_path):
    """A planted bug fails the run: the sanitizers are in, and the runner notices."""
    seeds = tmp_path / 'seeds'
    seeds.mkdir()
    (seeds / 'harmless').write_bytes(b'nothing to see')
    (seeds / 'planted').write_bytes(f'CANARY-{bug}'.encode())
    run = run_harness(fuzz_builddir, 'canary', 10, tmp_path / 'run', seeds=seeds,
                      keep_artifacts=False)
    assert run.failed, f'the planted bug went unnoticed:\n{failure_message(run)}'
    assert report in run.output, failure_message(run)
    assert any(a.read_bytes() == f'CANARY-{bug}'.encode() for a in run.artifacts), \
        f'no artifact with the planted input:\n{failure_message(run)}'
