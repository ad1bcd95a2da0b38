"""The first run's notice for the readers' kernels (`ingest.compiled`, said by `precompile.first_run`).

The replay's kernels are announced before every first run; the readers' (PHH scanner and converter, JSON Lines
scanner, columnar validator) compile only for the inputs that need them, up to ~15 s of CPU on a first PHH
run, which used to pass in silence. These tests hold which inputs need which kernels to the readers' own
choices, and the command line to saying so (unless --quiet) only when one of them is still to compile.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from auditor.cli import main
from auditor.ingest import compiled, phh_tables
from auditor.pipeline import discover

ROOT = Path(__file__).resolve().parents[1]
PHH = "variant = 'NT'\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nmin_bet = 2\nstarting_stacks = [100, 100]\n" \
      "actions = ['d dh p1 AsAd', 'd dh p2 KsKd', 'p2 f']\nfinishing_stacks = [101, 99]\n"


def _modules(*paths: Path) -> tuple[str, ...]:
    inputs, _ = discover(list(paths))
    return compiled.reader_modules(inputs)


def test_which_kernels_each_kind_of_input_needs(tmp_path, monkeypatch):
    (tmp_path / "a.phh").write_text(PHH)
    assert _modules(tmp_path / "a.phh") == ("auditor.ingest.phh_scan",)  # one file: the scanner, the dict path
    for i in range(3):
        (tmp_path / f"h{i}.phh").write_text(PHH)
    monkeypatch.setattr(phh_tables, "MIN_FILES", 3)  # a run this long takes the converter and the validator
    assert set(_modules(tmp_path)) == {"auditor.ingest.phh_scan", "auditor.ingest.phh_kernel",
                                       "auditor.ingest.columnar_kernels", "auditor.ingest.columnar_validate"}
    assert _modules(ROOT / "sample_logs" / "holdem.jsonl") == ()  # a small JSON Lines file is read hand by hand
    dataset = tmp_path / "set"
    result = CliRunner().invoke(main, ["convert", str(ROOT / "sample_logs" / "holdem.jsonl"), "--output", str(dataset)])
    assert result.exit_code == 0, result.output
    assert _modules(dataset) == ("auditor.ingest.columnar_kernels", "auditor.ingest.columnar_validate")


@pytest.fixture
def fresh_install(monkeypatch):
    """Every kernel uncached, as on a fresh install; the replay's compile and the background start recorded."""
    from auditor import precompile
    from auditor.model import compiled as cache
    from auditor.replay.kernel import warm

    done: list[str] = []
    monkeypatch.setattr(cache, "in_cache", lambda name, kernel: False)
    monkeypatch.setattr(warm, "compile_kernels", lambda *a, **k: done.append("compiled"))
    monkeypatch.setattr(precompile, "start_background", lambda modules: done.append("background") or True)
    monkeypatch.setattr(warm, "busy", lambda: False)
    # the readers' compile beside the replay's: recorded, and not started (so they still compile on first use)
    monkeypatch.setattr(warm, "start_detached", lambda module, modules: done.append(f"{module} {' '.join(modules)}"))
    return done


@pytest.mark.parametrize("quiet", [False, True])
def test_the_command_line_says_when_reader_kernels_are_still_to_compile(tmp_path, monkeypatch, quiet, fresh_install):
    """A run too large to run as Python: the replay's kernels compile, the readers' in a helper beside them, both
    said; here the helper does not start, so the readers' compile on first use, and that is said too."""
    from auditor import precompile

    monkeypatch.setattr(precompile, "BUDGET_S", 0.0)
    # as for a folder too large to read the reference way meanwhile (`compiled.reference_first`)
    monkeypatch.setitem(compiled.REFERENCE_EXTRA_S_PER_BYTE, "phh", 1.0)
    shutil.copy(ROOT / "sample_logs" / "holdem.jsonl", tmp_path / "h.jsonl")
    (tmp_path / "a.phh").write_text(PHH)
    args = ["audit", str(tmp_path), "--format", "jsonl", "--output", str(tmp_path / "out.jsonl")]
    result = CliRunner().invoke(main, args + (["--quiet"] if quiet else []))
    assert result.exit_code in (0, 1), result.output
    assert fresh_install == ["auditor.precompile auditor.ingest.phh_scan", "compiled"]  # quiet or not
    said = [line for line in result.stderr.splitlines() if line.startswith("auditor: compiling")]
    assert said == ([] if quiet else [
        "auditor: compiling the replay kernels and those of the PHH reader (first run after an install; cached on "
        "disk for later runs)...",
        f"auditor: compiling {len(compiled.cache._kernels('auditor.ingest.phh_scan'))} kernels of the PHH reader "
        "on first use (first run after an install; cached on disk for later runs)..."])


def test_a_small_first_run_names_whose_kernels_run_as_python(tmp_path, fresh_install):
    (tmp_path / "a.phh").write_text(PHH)
    result = CliRunner().invoke(main, ["audit", str(tmp_path), "--format", "jsonl", "--output", str(tmp_path / "o")])
    assert result.exit_code in (0, 1), result.output
    assert fresh_install == ["background"]
    assert result.stderr.splitlines()[0] == (
        "auditor: the kernels of the replay and the PHH reader are not compiled yet (first run after an install): "
        "this small audit runs them as plain Python, the same code, while a background process compiles them for "
        "later runs")


def test_nothing_is_said_when_every_reader_kernel_is_cached(tmp_path, monkeypatch):
    from auditor.model import compiled as cache

    (tmp_path / "a.phh").write_text(PHH)
    monkeypatch.setattr(cache, "in_cache", lambda name, kernel: True)
    result = CliRunner().invoke(main, ["audit", str(tmp_path), "--format", "jsonl", "--output", str(tmp_path / "o")])
    assert "kernels of" not in result.stderr and "compiling" not in result.stderr, result.stderr


def test_a_module_that_has_run_is_not_announced_for_kernels_only_some_data_needs(monkeypatch):
    """The PHH scanner's `_count` compiles only for a buffer of several files: a scanner module with its other
    kernels cached is not announced again on every small PHH run (`model.compiled.never_run`)."""
    from auditor.model import compiled as cache

    monkeypatch.setattr(cache, "in_cache", lambda name, kernel: name != "auditor.ingest.phh_scan._count")
    assert cache.never_run(["auditor.ingest.phh_scan"]) == []
    monkeypatch.setattr(cache, "in_cache", lambda name, kernel: False)
    assert cache.never_run(["auditor.ingest.phh_scan"]) == ["auditor.ingest.phh_scan"]


def test_the_words_name_each_reader_once():
    assert compiled.reader_words(["auditor.ingest.phh_scan.scan", "auditor.ingest.phh_kernel.convert",
                                  "auditor.ingest.columnar_validate.screen"]) == \
        "the PHH reader and the columnar validator"
    assert compiled.reader_words(["auditor.ingest.jsonl_scan.scan", "auditor.ingest.phh_scan.scan",
                                  "auditor.ingest.columnar_kernels.ints"]) == \
        "the JSON Lines reader, the PHH reader and the columnar validator"


def test_a_cache_left_by_an_older_source_counts_as_uncached(tmp_path):
    """An upgrade (or an edited checkout) over an old cache leaves Numba's index beside a new source: Numba
    finds it obsolete and compiles again, so the notices must say so too (`model.compiled.uncached` asks
    Numba's own index load, not whether the index file exists). Each step in a fresh interpreter, as each run."""
    import os
    import subprocess
    import sys

    source = tmp_path / "probe_kernels.py"
    source.write_text("from numba import njit\n\n\n@njit(cache=True)\ndef twice(x):\n    return 2 * x\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    env.pop("NUMBA_DISABLE_JIT", None)

    def uncached_after(run: bool) -> list[str]:
        code = ("import json, probe_kernels\nfrom auditor.model.compiled import uncached\n"
                + ("probe_kernels.twice(2)\n" if run else "") + "print(json.dumps(uncached(['probe_kernels'])))")
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        return __import__("json").loads(out.stdout.strip().splitlines()[-1])

    assert uncached_after(run=False) == ["probe_kernels.twice"]
    assert uncached_after(run=True) == []  # compiled and cached in that run
    assert uncached_after(run=False) == []  # a later run finds it
    stat = source.stat()
    source.write_text(source.read_text().replace("2 * x", "x + x"))  # a new source, as after an upgrade
    os.utime(source, (stat.st_atime + 5, stat.st_mtime + 5))
    assert uncached_after(run=False) == ["probe_kernels.twice"]
