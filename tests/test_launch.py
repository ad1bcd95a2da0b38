"""The `auditor` entry point's guess (`auditor.launch`): the fork server is started before the command's
imports only for `auditor audit` of a large Parquet dataset on the local engine with more than one job and
the replay compiled, and the guess's lists stay those of the command and of the readers."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from auditor import launch
from auditor.cli import audit
from auditor.ingest.compiled import FORMAT_MODULES

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    folder = tmp_path / "dataset"
    folder.mkdir()
    for name in ("hands", "seats", "events"):
        (folder / f"{name}.parquet").write_bytes(b"")
    with open(folder / "hands.parquet", "wb") as f:  # only its size is looked at
        f.truncate(launch.PARQUET_HANDS_BYTES)
    return folder


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(launch, "replay_cached", lambda: True)


def test_a_large_dataset_audited_with_two_jobs_starts_the_server_early(dataset, compiled):
    assert launch.early_readers(["audit", str(dataset), "--jobs", "2"]) == launch.PARQUET_READERS
    assert launch.early_readers(["audit", "--quiet", "--jobs=4", "--format", "jsonl", "--output", "/dev/null",
                                 "--", str(dataset)]) == launch.PARQUET_READERS
    assert launch.early_readers(["audit", str(dataset)], cores=2) == launch.PARQUET_READERS  # default: every core


@pytest.mark.parametrize("argv", [
    ["audit", "{d}", "--jobs", "1"],
    ["audit", "{d}", "-j1"],  # an option spelling the guess does not parse: left to the pipeline
    ["audit", "{d}", "--jobs", "two"],
    ["audit", "{d}", "--engine", "dask"],
    ["audit", "{d}", "--input-format", "jsonl"],
    ["audit", "{d}", "--help"],
    ["audit", "{d}", "--jobs"],
    ["audit", "-", "--jobs", "2"],
    ["audit", "{d}/hands.parquet", "--jobs", "2"],  # not a dataset folder
    ["explain", "{d}", "--jobs", "2"],
    ["compile"],
    [],
])
def test_anything_else_leaves_the_server_to_the_pipeline(dataset, compiled, argv):
    assert launch.early_readers([a.replace("{d}", str(dataset)) for a in argv]) is None


def test_one_core_a_small_dataset_or_no_compiled_replay_leave_it_too(dataset, compiled, monkeypatch):
    assert launch.early_readers(["audit", str(dataset)], cores=1) is None
    with open(dataset / "hands.parquet", "wb") as f:
        f.truncate(launch.PARQUET_HANDS_BYTES - 1)
    assert launch.early_readers(["audit", str(dataset), "--jobs", "2"]) is None
    with open(dataset / "hands.parquet", "wb") as f:
        f.truncate(launch.PARQUET_HANDS_BYTES)
    monkeypatch.setattr(launch, "replay_cached", lambda: False)
    assert launch.early_readers(["audit", str(dataset), "--jobs", "2"]) is None


def test_the_guess_knows_every_option_of_audit_and_the_readers_of_parquet():
    options = [param for param in audit.params if isinstance(param, click.Option)]
    takes_value = {name for param in options if not param.is_flag for name in param.opts}
    flags = {name for param in options if param.is_flag for name in param.opts}
    assert set(launch.VALUE_OPTIONS) == takes_value
    assert set(launch.FLAG_OPTIONS) == flags
    assert FORMAT_MODULES["parquet"] == launch.PARQUET_READERS


def test_the_replay_index_is_looked_for_where_numba_keeps_it(tmp_path, monkeypatch):
    import numba.core.caching as caching

    source = ROOT / "auditor" / "replay" / "kernel" / "hand.py"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert not launch.replay_cached()
    folder = tmp_path / caching.UserProvidedCacheLocator.get_suitable_cache_subpath(str(source))
    folder.mkdir()
    (folder / "hand.replay_hands-338.py311.nbi").write_bytes(b"")
    assert launch.replay_cached()
    digest = hashlib.sha1(os.path.dirname(os.path.abspath(source)).encode()).hexdigest()
    assert folder.name == f"kernel_{digest}"


def test_python_m_auditor_runs_the_command():
    done = subprocess.run([sys.executable, "-m", "auditor", "--version"], capture_output=True, text=True,
                          check=False, cwd=ROOT)
    assert done.returncode == 0 and "poker-auditor" in done.stdout.lower() + done.stderr.lower()


def test_a_server_started_early_is_stopped_once_by_a_first_run_that_compiles(monkeypatch):
    from auditor import precompile
    from auditor.engines import server
    from auditor.pipeline import discover

    stopped: list[bool] = []
    monkeypatch.setattr(server, "stop", lambda: stopped.append(True))
    monkeypatch.setattr(server, "worker_context", lambda readers=(): None)
    server.start_early(launch.PARQUET_READERS)
    inputs, _ = discover([ROOT / "sample_logs" / "holdem.jsonl"])
    monkeypatch.setattr(precompile, "missing_modules", lambda modules: [])
    precompile.first_run(None)(inputs, "local")
    assert stopped == []  # nothing to compile: the server holds every kernel
    monkeypatch.setattr(precompile, "missing_modules", lambda modules: list(modules)[:1])
    monkeypatch.setattr(precompile, "start_background", lambda modules: False)
    precompile.first_run(None)(inputs, "local")
    server.stop_early()
    assert stopped == [True]
