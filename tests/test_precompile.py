"""Compiling ahead, and a small first run's kernels run as Python (`auditor.precompile`, the first-run target).

What must hold: inside `interpreted` no compiled kernel is called at all (every name of every kernel is its
Python function), and an audit there is the same audit as with the compiled kernels, through every reader's
paths (the readers' size gates waived too, so their column-wise kernels run as Python); the command line's
`prepare` interprets only a small local run, starts the background compile for it and says so, and compiles
a larger run first as before; the background compile and `auditor compile` take one lock per installation; the
background process refuses what is not a kernel module or another installation's.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from numba.core.registry import CPUDispatcher

from auditor import precompile
from auditor.cli import main
from auditor.ingest import compiled
from auditor.model.inputs import InputFile
from auditor.pipeline import audit
from tests.paths_agree import assert_audits_agree

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_logs"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
CORPUS_PHH = ROOT.parent / "shared" / "corpus" / "phh" / "data"


@contextlib.contextmanager
def _kernel_calls():
    """The names of the compiled kernels called from Python within the block (each call, in order)."""
    calls: list[str] = []
    base = CPUDispatcher.__mro__[1]  # the C dispatcher type that defines the call

    def trap(self, *args, **kwargs):
        calls.append(f"{self.py_func.__module__}.{self.py_func.__qualname__}")
        return base.__call__(self, *args, **kwargs)

    CPUDispatcher.__call__ = trap
    try:
        yield calls
    finally:
        del CPUDispatcher.__call__


def _interpreted_and_compiled(paths: list[Path], **options):
    with _kernel_calls() as calls:
        compiled = audit(paths, **options)
    assert calls, "the trap saw no compiled kernel in a compiled audit: it would prove nothing below"
    with _kernel_calls() as calls, precompile.interpreted():
        interpreted = audit(paths, **options)
    assert calls == [], f"compiled kernels called inside `interpreted`: {sorted(set(calls))}"
    return interpreted, compiled


def test_an_interpreted_audit_calls_no_kernel_and_is_the_compiled_audit():
    paths = [SAMPLES, FIXTURES / "phh" / "side-pots.phhs", FIXTURES / "pokerstars" / "sitting_out.txt",
             FIXTURES / "ohh" / "side-pot.ohh"]
    interpreted, compiled = _interpreted_and_compiled(paths, jobs=1)
    assert_audits_agree(interpreted, compiled, 1_000)


@pytest.mark.skipif(not CORPUS_PHH.is_dir(), reason="needs ../shared/corpus: its PHH inputs are the corpus's")
def test_the_readers_column_wise_kernels_run_as_python_too(tmp_path):
    """With the size gates waived every reader's kernels run (the PHH scanner and converter, the JSON Lines,
    PokerStars and OHH scanners, the columnar validator on a Parquet dataset): the same audit, no kernel called."""
    from auditor.ingest.parquet import write_parquet
    from auditor.ingest.tables import build_tables
    from auditor.pipeline import discover, read_inputs

    phh = tmp_path / "phh"
    phh.mkdir()
    for path in sorted(CORPUS_PHH.rglob("*.phh"))[:40]:
        (phh / path.name).write_bytes(path.read_bytes())
    planted = SAMPLES / "holdem-planted.jsonl"
    dataset = tmp_path / "dataset"
    dataset.mkdir()
    inputs, _ = discover([SAMPLES / "nz-omaha-planted.jsonl"])
    write_parquet(build_tables([item for item in read_inputs(inputs)]), dataset)
    paths = [phh, planted, dataset, FIXTURES / "pokerstars" / "sitting_out.txt", FIXTURES / "ohh" / "side-pot.ohh"]
    with precompile._gates_waived():
        interpreted, compiled = _interpreted_and_compiled(paths, jobs=1)
    assert_audits_agree(interpreted, compiled, 50)


def test_the_swap_is_undone_after_the_block():
    from auditor.ingest import phh_scan
    from auditor.replay.kernel import hand

    kernel, scanner = hand.replay_hands, phh_scan._scan_all
    with precompile.interpreted():
        assert hand.replay_hands is kernel.py_func and phh_scan._scan_all is scanner.py_func
    assert hand.replay_hands is kernel and phh_scan._scan_all is scanner


def _inputs(tmp_path: Path, hands: int, size: int | None = None) -> list[InputFile]:
    """One JSON Lines input of about `hands` hands by its size (the estimate `prepare` goes by), or of `size` bytes
    (a sparse file: no disk is written)."""
    from auditor.engines.partition import BYTES_PER_HAND

    path = tmp_path / "log.jsonl"
    with open(path, "wb") as out:
        out.truncate(hands * BYTES_PER_HAND if size is None else size)
    return [InputFile(path=path, format="jsonl")]


@pytest.fixture
def cold(monkeypatch):
    """`prepare` as on a first run: every kernel module missing, with the compile and the background start
    recorded instead of done."""
    done: dict[str, list] = {"background": [], "compiled": [], "helper": []}
    monkeypatch.setattr(precompile, "missing_modules", lambda modules: list(modules))
    monkeypatch.setattr(precompile, "start_background", lambda modules: done["background"].append(modules) or True)
    from auditor.replay.kernel import warm

    monkeypatch.setattr(warm, "compile_kernels", lambda *a, **k: done["compiled"].append(True))
    monkeypatch.setattr(warm, "busy", lambda: False)
    monkeypatch.setattr(warm, "start_detached", lambda module, modules: done["helper"].append((module, list(modules))))
    return done


def test_a_small_first_run_is_interpreted_while_a_background_process_compiles(cold, tmp_path):
    said: list[str] = []
    context, in_process, _ = precompile.first_run(said.append)(_inputs(tmp_path, 1_000), "local")
    assert in_process and cold["background"] and not cold["compiled"]
    assert "runs them as plain Python" in said[0] and "background process compiles them" in said[0]
    with context:
        from auditor.replay.kernel import hand

        assert hand.replay_hands is getattr(hand.replay_hands, "py_func", hand.replay_hands)
        assert not isinstance(hand.replay_hands, CPUDispatcher)


def _too_large_to_read_the_reference_way() -> int:
    """Bytes of JSON Lines whose reference read costs more than compiling the column-wise path's kernels."""
    from auditor.ingest import compiled

    seconds = sum(compiled.COMPILE_S[name] for name in compiled.OPTIONAL_PATHS["jsonl"])
    return int(seconds / compiled.REFERENCE_EXTRA_S_PER_BYTE["jsonl"]) + (1 << 20)


def test_a_large_first_run_compiles_first_and_says_so(cold, tmp_path):
    said: list[str] = []
    size = _too_large_to_read_the_reference_way()
    context, in_process, reference = precompile.first_run(said.append)(_inputs(tmp_path, 0, size), "local")
    assert not in_process and cold["compiled"] and not cold["background"] and reference == frozenset()
    assert isinstance(context, contextlib.nullcontext)
    assert said[0].startswith("auditor: compiling the replay kernels and those of the JSON Lines reader")
    # the readers' kernels compile in a helper beside the replay's (`compile_beside_replay`)
    assert cold["helper"] == [("auditor.precompile", ["auditor.ingest.jsonl_scan", "auditor.ingest.columnar_kernels",
                                                      "auditor.ingest.columnar_validate"])]


def test_a_first_run_reads_the_reference_way_when_that_is_quicker_than_compiling(cold, tmp_path):
    """A JSON Lines file too large to run as Python but whose reference read costs less than compiling the
    column-wise path's kernels: the replay's compile now, the reader's in the background afterwards, and the run
    reads the file the reference way (`RunOptions.reference_formats`), said on the terminal."""
    said: list[str] = []
    size = _too_large_to_read_the_reference_way() // 4
    assert precompile.interpreted_seconds(_inputs(tmp_path, 0, size)) > precompile.BUDGET_S
    _, in_process, reference = precompile.first_run(said.append)(_inputs(tmp_path, 0, size), "local")
    assert not in_process and cold["compiled"] and reference == frozenset({"jsonl"})
    assert said[0] == ("auditor: compiling the replay kernels (first run after an install; cached on disk for later "
                       "runs)...")
    assert "this run reads JSON Lines the reference way" in said[1] and "a background process compiles them" in said[1]
    assert cold["helper"] == []
    assert cold["background"] == [["auditor.ingest.jsonl_scan", "auditor.ingest.columnar_kernels",
                                   "auditor.ingest.columnar_validate"]]


def test_a_format_read_the_reference_way_keeps_the_kernels_another_input_needs(cold, tmp_path):
    """The columnar validator serves Parquet too: with a dataset among the inputs it still compiles beside the
    replay, and only the JSON Lines scanner waits for the background."""
    from auditor.ingest.parquet import write_parquet
    from auditor.ingest.tables import build_tables
    from auditor.model.records import SourceHand

    dataset = tmp_path / "dataset"
    dataset.mkdir()
    write_parquet(build_tables([SourceHand(precompile.sample_hand(), "<sample>", 1)]), dataset)
    inputs = [*_inputs(tmp_path, 0, _too_large_to_read_the_reference_way() // 4),
              InputFile(path=dataset, format="parquet")]
    _, _, reference = precompile.first_run(None)(inputs, "local")
    assert reference == frozenset({"jsonl"})
    assert cold["helper"] == [("auditor.precompile", ["auditor.ingest.columnar_kernels",
                                                      "auditor.ingest.columnar_validate"])]
    assert cold["background"] == [["auditor.ingest.jsonl_scan"]]


def test_the_formats_read_the_reference_way_skip_their_column_wise_path(tmp_path):
    """`RunOptions.reference_formats` reaches the readers: the same hands, none of them as a TableChunk."""
    from auditor.engines.partition import Piece, read_piece
    from auditor.ingest import jsonl_tables
    from auditor.ingest.parquet import TableChunk
    from auditor.model.records import SourceHand

    path = tmp_path / "two.jsonl"
    hand = precompile.sample_hand()
    path.write_text("".join(json.dumps({**hand, "hand_id": f"h{k}"}) + "\n" for k in range(2)), encoding="utf-8")
    piece = Piece(0, InputFile(path=path, format="jsonl"))
    saved = compiled.MIN_FILE_BYTES["jsonl"], jsonl_tables.MIN_LINES
    compiled.MIN_FILE_BYTES["jsonl"], jsonl_tables.MIN_LINES = 0, 1
    try:
        column = list(read_piece(piece))
        reference = list(read_piece(piece, reference=frozenset({"jsonl"})))
    finally:
        compiled.MIN_FILE_BYTES["jsonl"], jsonl_tables.MIN_LINES = saved
    assert [type(item) for item in column] == [TableChunk]
    assert [type(item) for item in reference] == [SourceHand, SourceHand]
    assert [item.hand["hand_id"] for item in reference] == ["h0", "h1"]


def test_the_readers_samples_run_the_replay_kernels_still_compiling_as_python(monkeypatch):
    """The helper `compile_beside_replay` starts compiles the readers' kernels alone: while the replay's are not
    compiled yet (another process is compiling them), its sample audits run them as Python."""
    import auditor.pipeline
    from auditor.replay.kernel import KERNEL_MODULES, hand

    seen: list[bool] = []

    def sample_audit(*args, **kwargs):
        seen.append(not isinstance(hand.replay_hands, CPUDispatcher))

    monkeypatch.setattr(auditor.pipeline, "audit", sample_audit)
    pending = {"now": list(KERNEL_MODULES)}
    monkeypatch.setattr(precompile, "missing_modules",
                        lambda modules: [m for m in modules if m in pending["now"] or m.startswith("auditor.ingest")])
    precompile.compile_modules(["auditor.ingest.jsonl_scan"])
    assert seen == [True]
    assert isinstance(hand.replay_hands, CPUDispatcher)  # restored
    pending["now"] = []  # the replay's compiled: the samples call them compiled
    precompile.compile_modules(["auditor.ingest.jsonl_scan"])
    assert seen == [True, False]
    # asked for the replay's too, this process compiles them itself first; a part that failed there compiles in
    # the samples (not run as Python)
    from auditor.replay.kernel import warm

    monkeypatch.setattr(warm, "compile_kernels", lambda *a, **k: None)
    pending["now"] = list(KERNEL_MODULES)
    precompile.compile_modules([KERNEL_MODULES[0], "auditor.ingest.jsonl_scan"])
    assert seen == [True, False, False]


def test_a_small_run_on_dask_is_compiled_not_interpreted(cold, tmp_path):
    """The interpreted kernels exist in this process only: a cluster's workers would compile anyway."""
    _, in_process, _ = precompile.first_run(None)(_inputs(tmp_path, 10), "dask")
    assert not in_process and cold["compiled"]


def test_with_everything_cached_prepare_does_nothing(monkeypatch, tmp_path):
    monkeypatch.setattr(precompile, "missing_modules", lambda modules: [])
    monkeypatch.setattr(precompile, "start_background", lambda modules: pytest.fail("nothing to compile"))
    said: list[str] = []
    context, in_process, reference = precompile.first_run(said.append)(_inputs(tmp_path, 10), "local")
    assert (said, in_process, reference) == ([], False, frozenset()) and isinstance(context, contextlib.nullcontext)


def test_the_command_line_audit_goes_through_prepare(cold):
    """`auditor audit` on a first run: the notice on standard error, the same findings as a warm run."""
    runner = CliRunner()
    first = runner.invoke(main, ["audit", str(SAMPLES / "holdem-planted.jsonl"), "--format", "jsonl"])
    assert first.exit_code == 1 and "runs them as plain Python" in first.stderr
    assert cold["background"]
    cold["background"].clear()


def test_one_compile_at_a_time_per_installation(monkeypatch, tmp_path):
    monkeypatch.setattr(precompile, "_lock_path", lambda: tmp_path / "compile.lock")
    assert not precompile.compiling_elsewhere()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, sys, time; f = open(sys.argv[1], 'a+b'); "
         "fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)", str(tmp_path / "compile.lock")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert precompile.compiling_elsewhere()
        assert precompile.start_background(["auditor.replay.kernel.blinds"]) is False
        assert precompile._main(["auditor.replay.kernel.blinds"]) == 0  # another is compiling: nothing to do
    finally:
        holder.kill()
        holder.wait()
    assert not precompile.compiling_elsewhere()


def test_the_background_process_refuses_what_is_not_a_kernel_module_or_another_installation():
    assert precompile._main(["os"]) == 1
    assert precompile._main([]) == 1
    assert precompile._main(["--root", "/nonexistent", "auditor.replay.kernel.blinds"]) == 1


def test_every_kernel_module_is_named_once():
    """A new kernel module must be listed (`precompile._SAMPLES` or `KERNEL_MODULES`), or `interpreted` would leave
    its kernels compiled and the background compile would not compile them."""
    defined = sorted(p.relative_to(ROOT).with_suffix("").as_posix().replace("/", ".")
                     for p in (ROOT / "auditor").rglob("*.py")
                     if re.search(r"^@(njit|callee)\b", p.read_text(encoding="utf-8"), re.MULTILINE))
    assert sorted(precompile.kernel_modules()) == defined
    assert len(set(precompile.kernel_modules())) == len(precompile.kernel_modules())
    from auditor.replay.kernel import KERNEL_MODULES

    assert set(precompile._SAMPLES) == set(precompile.kernel_modules()) - set(KERNEL_MODULES)  # each has its sample


def _cache_without(tmp_path: Path, *modules: str) -> Path:
    """A copy of the suite's Numba cache with `modules`' kernels left out (as if never compiled)."""
    import shutil

    from auditor.replay.kernel import hand

    cache = Path(hand.replay_hands._cache._cache_path)
    top = Path(os.environ["NUMBA_CACHE_DIR"])
    copy = tmp_path / "cache"
    shutil.copytree(top, copy, ignore=shutil.ignore_patterns(*(f"{name.rsplit('.', 1)[1]}.*" for name in modules)))
    assert (copy / cache.relative_to(top)).is_dir()
    return copy


@pytest.mark.skipif("NUMBA_CACHE_DIR" not in os.environ, reason="needs the suite's own Numba cache folder")
def test_auditor_compile_compiles_what_is_missing(tmp_path):
    """`auditor compile --format parquet` in a cache without the columnar validator's kernels (the smallest reader
    to compile, a few seconds): they compile, by the built-in sample hand written as a Parquet dataset, and a
    second run finds nothing to do. (The replay's part, `warm.compile_kernels`, is tested in test_kernel_warm.py.)"""
    cache = _cache_without(tmp_path, "auditor.ingest.columnar_kernels", "auditor.ingest.columnar_validate")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    command = [sys.executable, "-m", "auditor.cli", "compile", "--format", "parquet"]
    first = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert "auditor.ingest.columnar_kernels, auditor.ingest.columnar_validate" in first.stdout
    assert "all compiled" in first.stdout and first.stderr == ""
    again = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert "nothing to compile" in again.stdout


def test_the_command_lines_formats_are_the_modules():
    from auditor import cli

    assert cli.COMPILE_FORMATS == precompile.FORMATS
    assert set(precompile.FORMAT_MODULES) == set(precompile.FORMATS)


@pytest.mark.parametrize("fmt", precompile.FORMATS)
def test_the_sample_hand_reads_back_clean_in_every_format(fmt, tmp_path):
    """What `auditor compile` audits is a real, clean hand in each format, read by the column-wise path: its
    hands read and audited (PHH: two files, as only a run of files takes the converter), nothing quarantined,
    no finding, and a kernel of every module that format's reader has called (the PHH converter was once left
    out: a lone `.phh` file is read by itself, and `auditor compile` said it was "still not compiled")."""
    with _kernel_calls() as calls, precompile._gates_waived():
        result = audit([precompile._write_sample(fmt, tmp_path)], input_format=fmt, jobs=1)
    hands = 2 if fmt == "phh" else 1
    assert (result.hands_read, result.hands_audited, len(result.findings), result.quarantined) == \
        (hands, hands, 0, [])
    called = {name.rsplit(".", 1)[0] for name in calls}
    # a module whose kernels only other kernels call (the dialect engine's matcher) is compiled with its callers
    from auditor.model.compiled import uncached

    reached = called | {m for m in precompile.FORMAT_MODULES[fmt] if m not in called and not uncached([m])}
    assert set(precompile.FORMAT_MODULES[fmt]) - reached == set()


def test_a_phh_folder_whose_scanner_would_take_longer_to_compile_is_read_the_reference_way(cold, tmp_path):
    """PHH's byte scanner and converter only save time too: a folder of `.phh` files whose reference read costs
    less than compiling them is read the reference way, and a folder larger than that is scanned."""
    from auditor.ingest import compiled

    def folder(name: str, files: int, size: int) -> list[InputFile]:
        root = tmp_path / name
        root.mkdir()
        inputs = []
        for k in range(files):
            path = root / f"{k}.phh"
            with open(path, "wb") as out:
                out.truncate(size)
            inputs.append(InputFile(path=path, format="phh"))
        return inputs

    small = folder("small", 2_000, 2_000)  # 4 MB: ~2 s read the reference way, against ~15 s to compile
    assert precompile.interpreted_seconds(small) > precompile.BUDGET_S
    assert precompile.first_run(None)(small, "local").reference_formats == frozenset({"phh"})
    seconds = sum(compiled.COMPILE_S[name] for name in compiled.OPTIONAL_PATHS["phh"])
    large = folder("large", 600, int(seconds / compiled.REFERENCE_EXTRA_S_PER_BYTE["phh"] / 600) + 4096)
    assert precompile.first_run(None)(large, "local").reference_formats == frozenset()
