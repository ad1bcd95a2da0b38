"""Compiling the kernels ahead of the audits that need them: `auditor compile`, and a first run's background compile.

Why: Numba compiles a kernel the first time a process calls it and caches it on disk (`cache=True`). On an empty
cache the replay's kernels cost ~20-60 s of CPU (24-33 s of wall time on two idle cores on the host of 2026-12-02,
11.7 s on that of 2026-12-03: fresh machines of this project's kind), the readers' up to ~60 s more, and the target is
that a first run wait at most 10 s for it. A small audit does not need compiled code to finish quickly: the same kernels
run as plain Python (their `py_func`, the very source Numba compiles; ~2 ms a hand, `INTERPRETED_S_PER_HAND`) finish
the README's `auditor audit sample_logs` in a few seconds. So the command line decides, once the inputs are found
(`first_run`, called by `pipeline.audit` before any hand is read):

- nothing to compile: the audit runs as always;
- kernels still to compile and a small run (its estimated hands run as Python within `BUDGET_S`, on the local
  engine): a background process compiles them into the cache (`start_background`) while this audit runs them as
  Python in this process (`interpreted`), and says so; the next audit finds them cached;
- a larger run: the replay's kernels compile now on two processes (`warm.compile_kernels`, as before this
  module) and the readers' those inputs need in a third beside them (`compile_beside_replay`), announced; what
  that helper leaves uncompiled compiles on first use, announced too.

The interpreted kernels are the same functions, so the findings are the same (`tests/test_precompile.py` holds an
audit as Python equal to the compiled one in everything a report shows, on the sample logs, files of each room's
format and corpus PHH files, through every reader's paths, and checks that no compiled kernel is called inside
`interpreted`). Everything here is an optimisation: the background process
failing, being killed or finding the cache unwritable only leaves a later run to compile in line.

`auditor compile` does the compilation in the foreground (for an image build or a CI cache): the replay's
kernels through `warm.compile_kernels`, each reader's by auditing a built-in hand written in its format with
the readers' size gates waived (`_gates_waived`), so each kernel compiles for exactly the argument types an
audit gives it. One compile at a time per installation: a lock file (`_lock`) that the background process holds
while it works and `auditor compile` waits for.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from auditor.ingest.compiled import FORMAT_MODULES
from auditor.model.compiled import Prepared
from auditor.model.inputs import InputFile
from auditor.replay.kernel import warm
from auditor.resources import room_names

#: interpreted seconds a small first run may spend instead of waiting for compilation (the target: at most 10 s
#: extra for a first run; the rest of the budget is what the interpreted run's start-up and noise take)
BUDGET_S = 6.0
#: CPU seconds a hand costs with the kernels run as Python, by input format (measured on the 2-core machine
#: against the compiled run of the same inputs, 2026-12-02: the sample logs' JSON Lines 1.8 ms, the PHH
#: corpus 4.2 ms with the scanner, converter and validator interpreted too); rounded up
INTERPRETED_S_PER_HAND = {"phh": 0.005, "parquet": 0.004}
DEFAULT_S_PER_HAND = 0.0025

#: the readers' kernel modules, by the built-in sample that compiles them: the format written, and whether
#: the readers' size gates must be waived for a file that small to take the kernels' path
_SAMPLES = {
    "auditor.ingest.phh_scan": ("phh", False),
    "auditor.ingest.phh_kernel": ("phh", True),
    "auditor.ingest.jsonl_scan": ("jsonl", True),
    "auditor.ingest.ohh_kernel": ("ohh", True),
    # any room's sample compiles the engine's kernels: every dialect gives them tables of the same types
    "auditor.ingest.room_match": (room_names()[0], False),
    "auditor.ingest.room_ledger": (room_names()[0], False),
    "auditor.ingest.columnar_kernels": ("parquet", False),
    "auditor.ingest.columnar_validate": ("parquet", False),
}
#: the formats `reference_first` can choose, as the first-run notice names them
_FORMAT_WORDS = {"jsonl": "JSON Lines", "ohh": "OHH", "phh": "PHH"}
#: `auditor compile --format` choices
FORMATS = tuple(FORMAT_MODULES)



def kernel_modules() -> tuple[str, ...]:
    """Every module that defines kernels: the replay's, then the readers'."""
    from auditor.replay.kernel import KERNEL_MODULES

    return (*KERNEL_MODULES, *dict.fromkeys(name for names in FORMAT_MODULES.values() for name in names))


def _lock_path() -> Path:
    """One lock file per installation (its package folder) and Numba cache folder, in the temporary folder."""
    where = f"{warm.package_root()}\0{os.environ.get('NUMBA_CACHE_DIR', '')}"
    digest = hashlib.sha256(where.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"poker-auditor-compile-{digest}.lock"


@contextlib.contextmanager
def _lock(wait: bool) -> Iterator[bool]:
    """Hold this installation's compile lock within the block; yields whether it is held (False: another
    process holds it and `wait` is false, or no lock file can be made, in which case nothing is serialised)."""
    try:
        import fcntl  # POSIX: elsewhere nothing is serialised
        handle = open(_lock_path(), "a+b")  # noqa: SIM115 (held across the yield)
    except (ImportError, OSError):
        yield not wait  # no lock to be had: a waiter goes on, a background compile does not start
        return
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except OSError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def compiling_elsewhere() -> bool:
    """Whether another process holds the compile lock now (a background compile is running)."""
    with _lock(wait=False) as held:
        return not held


def missing_modules(modules: Sequence[str]) -> list[str]:
    """Those of `modules` not compiled yet (none of their kernels in Numba's cache: `model.compiled.never_run`)."""
    from auditor.model.compiled import never_run

    return never_run(modules)


#: modules that name kernels of other modules at import (`from ... import kernel`): imported before a swap so
#: that none binds a swapped function at import inside the block and keeps it after (the trap test finds any
#: name the swap misses); `engines.preload` is not one of them, as importing it loads the cached kernels
_DRIVER_PACKAGES = ("auditor.ingest", "auditor.replay")
_DRIVER_MODULES = ("auditor.engines.partition", "auditor.engines.parquet_ranges", "auditor.pipeline")


@contextlib.contextmanager
def interpreted() -> Iterator[None]:
    """Within the block, every kernel is its plain-Python function wherever a module of the package names it
    (`warm.as_python`); restored afterwards. All of them, cached or not: a kernel calls kernels of other
    modules (the OHH scanner the JSON Lines scanner's), and a compiled one called from Python would be loaded
    or compiled on the spot."""
    with _as_python(kernel_modules()):
        yield


@contextlib.contextmanager
def _as_python(modules: Sequence[str]) -> Iterator[None]:
    """`warm.as_python(modules)`, once every module that names kernels at import is imported (see
    `_DRIVER_PACKAGES`)."""
    import importlib
    import pkgutil

    for package in _DRIVER_PACKAGES:
        for info in pkgutil.walk_packages(importlib.import_module(package).__path__, package + "."):
            importlib.import_module(info.name)
    for name in _DRIVER_MODULES:
        importlib.import_module(name)
    with warm.as_python(modules):
        yield


def interpreted_seconds(inputs: Sequence[InputFile]) -> float:
    """About how long the inputs take to audit with the kernels run as Python."""
    from auditor.engines.partition import estimated_hands

    return sum(estimated_hands([item]) * INTERPRETED_S_PER_HAND.get(item.format, DEFAULT_S_PER_HAND)
               for item in inputs)


def first_run(notice: Callable[[str], None] | None) -> Callable[[Sequence[InputFile], str], Prepared]:
    """The command line's `prepare` for `pipeline.audit` (see the module docstring); `notice` is told what
    happens in one line (None: --quiet)."""

    def say(line: str) -> None:
        if notice is not None:
            notice(line)

    def prepare(inputs: Sequence[InputFile], engine: str) -> Prepared:
        from auditor.ingest.compiled import reader_kernels, reader_modules, reader_words, reference_first
        from auditor.replay.kernel import KERNEL_MODULES

        try:
            missing = missing_modules([*KERNEL_MODULES, *reader_modules(inputs)])
        except Exception:  # an optimisation only: never in the audit's way
            return Prepared(contextlib.nullcontext(), False)
        if not missing:
            return Prepared(contextlib.nullcontext(), False)
        replay = [name for name in missing if name in KERNEL_MODULES]
        readers = [name for name in missing if name not in KERNEL_MODULES]
        readers_named = reader_words([f"{name}." for name in readers]) if readers else ""
        if engine == "local" and interpreted_seconds(inputs) <= BUDGET_S:
            started = start_background(missing)
            where = ("a background process compiles them for later runs" if started else
                     "another process is compiling them" if compiling_elsewhere() else
                     "a later audit compiles them")
            whose = ["the replay"] if replay else []
            whose += [readers_named] if readers else []
            say(f"auditor: the kernels of {' and '.join(whose)} are not compiled yet (first run after an install): "
                f"this small audit runs them as plain Python, the same code, while {where}")
            return Prepared(interpreted(), True)
        try:
            reference = reference_first(inputs, missing)
        except Exception:  # an optimisation only: the column-wise paths as always
            reference = frozenset()
        later: list[str] = []
        if reference:  # their kernels compile in the background for later runs, once the replay's have
            needed = set(reader_modules(inputs, reference))
            later = [name for name in readers if name not in needed]
            readers = [name for name in readers if name in needed]
            readers_named = reader_words([f"{name}." for name in readers]) if readers else ""
        if replay:
            whose = f"the replay kernels and those of {readers_named}" if readers else "the replay kernels"
            say(f"auditor: compiling {whose} (first run after an install; cached on disk for later runs)...")
            compile_beside_replay(readers)
        if later:
            started = start_background(later)
            formats = " and ".join(_FORMAT_WORDS.get(fmt, fmt) for fmt in sorted(reference))
            where = "a background process compiles them" if started else "a later audit compiles them"
            say(f"auditor: this run reads {formats} the reference way, the same hands, because compiling "
                f"{reader_words([f'{name}.' for name in later])} would take longer than that reading saves "
                f"(first run after an install); {where} for later runs")
        kernels = reader_kernels(inputs, reference) if readers else []
        if kernels:
            say(f"auditor: compiling {len(kernels)} kernels of {reader_words(kernels)} on first use (first run "
                "after an install; cached on disk for later runs)...")
        return Prepared(contextlib.nullcontext(), False, reference)

    return prepare


def compile_beside_replay(readers: Sequence[str]) -> None:
    """Compile the replay's kernels on two processes (`warm.compile_kernels`) and, at the same time, the reader
    modules `readers` in a third (this module's `_main`, as a background compile, under the lock), then wait
    for it. A large first run used to compile the readers' kernels only on first use, after the replay's, in
    this process alone: the replay's two parts keep two cores busy for different lengths (~11 and ~10 s here),
    and the readers' compile in between (~3 s for Parquet's validator, ~10 s for the JSON Lines scanner, more
    for OHH's). Whatever the helper leaves uncompiled (it failed, was not started, another compile held the
    lock) compiles on first use as before."""
    helper = None
    if readers and not warm.busy():
        helper = warm.start_detached("auditor.precompile", readers)
    start = time.perf_counter()
    warm.compile_kernels()
    if helper is not None:
        own = time.perf_counter() - start
        with contextlib.suppress(subprocess.TimeoutExpired):  # still going: it goes on detached, as a
            helper.wait(timeout=warm.helper_wait(own))  # background compile does


def start_background(modules: Sequence[str]) -> bool:
    """Start `python -m auditor.precompile --root ROOT MODULE...` detached (`warm.start_detached`: a session of its
    own, no terminal, outliving this process); False when it cannot start or another compile holds the lock."""
    return not compiling_elsewhere() and warm.start_detached("auditor.precompile", modules) is not None


@contextlib.contextmanager
def _gates_waived() -> Iterator[None]:
    """Within the block, a file of any size takes its reader's column-wise path (restored afterwards): the size
    gates of the JSON Lines, OHH and PokerStars files, the JSON Lines batch's least lines, the PHH run's files."""
    from auditor.ingest import jsonl_tables, phh_tables
    from auditor.ingest.compiled import MIN_FILE_BYTES

    saved = dict(MIN_FILE_BYTES), jsonl_tables.MIN_LINES, phh_tables.MIN_FILES
    MIN_FILE_BYTES.update(dict.fromkeys(MIN_FILE_BYTES, 0))
    jsonl_tables.MIN_LINES = phh_tables.MIN_FILES = 1
    try:
        yield
    finally:
        MIN_FILE_BYTES.update(saved[0])
        jsonl_tables.MIN_LINES, phh_tables.MIN_FILES = saved[1:]


def sample_hand() -> dict:
    """The replay's built-in warm-up hand (`warm._HAND`: blinds, a raise, a fold, a board, a showdown of two
    hands), without its rake and with the pot awarded whole, which every room's format can write."""
    import copy

    from auditor.replay.kernel.warm import _HAND

    hand = copy.deepcopy(_HAND)
    events = [event for event in hand["events"] if event["kind"] != "rake"]
    pot = sum(event.get("amount", 0) for event in events if event["kind"] in ("post", "action"))
    for event in events:
        if event["kind"] == "award":
            event["amount"] = pot
    hand["events"] = events
    return hand


def _write_sample(fmt: str, folder: Path) -> Path:
    """`sample_hand` written in `fmt` under `folder` (PHH: as two hands in two files); the path to audit."""
    hand = sample_hand()
    if fmt == "phh":
        from auditor.export.phh import to_phh

        # two files in a folder: only a run of several `.phh` files is read by one scanner call and converted by
        # `phh_kernel` (`partition.read_pieces`); a lone file is read by itself and never compiles the converter
        path = folder / "sample-phh"
        path.mkdir()
        for number in (1, 2):
            text = "\n".join(to_phh(hand, number, 1)) + "\n"  # tables 1 and 2: no cross-hand rules
            (path / f"sample-{number}.phh").write_text(text, encoding="utf-8", newline="\n")
        return path
    if fmt == "parquet":
        from auditor.ingest.parquet import write_parquet
        from auditor.ingest.tables import build_tables
        from auditor.model.records import SourceHand

        path = folder / "sample-dataset"
        path.mkdir()
        write_parquet(build_tables([SourceHand(hand, "<built-in sample hand>", 1)]), path)
        return path
    from auditor.export import SUFFIXES
    from auditor.simulate.writer import write_format

    path = folder / f"sample{SUFFIXES.get(fmt, '.jsonl')}"
    write_format([hand], path, fmt)
    return path


def compile_modules(modules: Sequence[str]) -> list[str]:
    """Compile into the cache the kernels of `modules` that are not there yet; the modules still missing
    afterwards (empty when all compiled). The replay's on two processes (`warm.compile_kernels`), in the
    background too: measured on the 2-core machine, the small first run beside it took no longer (7.04 s against
    7.30 s with a one-process compile) and the cache was ready 32 s after the run started instead of 53."""
    from auditor.pipeline import audit
    from auditor.replay.kernel import KERNEL_MODULES

    missing = missing_modules(modules)
    replay = [name for name in missing if name in KERNEL_MODULES]
    if replay:
        warm.compile_kernels()
    samples = dict.fromkeys(_SAMPLES[name] for name in missing if name in _SAMPLES)
    if samples:
        # asked for the readers' alone (a large first run's helper, `compile_beside_replay`), the replay's kernels
        # not compiled yet are being compiled by another process: the samples run them as Python, so this process
        # does not compile them a second time (having compiled the replay's itself, a part that failed there
        # compiles in the samples, as before)
        pending = [] if replay else missing_modules(KERNEL_MODULES)
        with _as_python(pending) if pending else contextlib.nullcontext(), \
                tempfile.TemporaryDirectory(prefix="auditor-compile-") as folder:
            for k, (fmt, waived) in enumerate(samples):
                with contextlib.suppress(Exception), _gates_waived() if waived else contextlib.nullcontext():
                    target = Path(folder) / str(k)  # a sample that fails leaves its kernels to a later run
                    target.mkdir()
                    audit([_write_sample(fmt, target)], input_format=fmt, jobs=1)
    return missing_modules(modules)


def compile_formats(formats: Sequence[str], wait: Callable[[], None] | None = None) -> tuple[list[str], list[str]]:
    """`auditor compile`: the kernel modules the audits of `formats` need that were missing, and those still
    missing afterwards. Waits first for a compile another process is running (`wait` is called if it must)."""
    from auditor.replay.kernel import KERNEL_MODULES

    modules = list(dict.fromkeys([*KERNEL_MODULES, *(m for fmt in formats for m in FORMAT_MODULES[fmt])]))
    if wait is not None and compiling_elsewhere():
        wait()
    with _lock(wait=True):
        before = missing_modules(modules)
        return before, compile_modules(before) if before else []


def _main(argv: Sequence[str]) -> int:
    """The background compile: `--root ROOT MODULE...`; 0 when everything compiled (or another process is
    compiling), 1 otherwise. Prints nothing (it has no terminal)."""
    modules = warm.helper_modules(argv, kernel_modules())
    if modules is None:
        return 1
    with _lock(wait=False) as held:
        if not held:
            return 0
        return 1 if compile_modules(modules) else 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
