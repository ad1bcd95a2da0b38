"""The local engine's workers start warm: forked from a fork server that imported the auditor and loaded the
cached kernels (`auditor.engines.preload`), restarted when the environment changed, reaped at exit.

What the results are (the same for any number of workers, a dead worker's partition quarantined) is held by
tests/test_parallel.py, test_unaudited.py and test_determinism.py, which run through these workers too.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import pytest

from auditor.engines import local, server

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif("forkserver" not in multiprocessing.get_all_start_methods(),
                                reason="no fork server on this platform: workers are spawned")


def _probe() -> dict:
    """Run in a worker: where it came from and what it has before doing any work."""
    from auditor.replay.kernel import hand

    return {"pid": os.getpid(), "parent": os.getppid(), "env": os.environ.get("AUDITOR_TEST_PROBE"),
            "replay_hands_loaded": len(hand.replay_hands.overloads),
            "imported": "numba" in sys.modules and "auditor.engines.partition" in sys.modules}


def _in_a_worker(probe=_probe) -> dict:
    workers = local.Workers(1)
    try:
        return workers.pool.submit(probe).result(timeout=300)
    finally:
        workers.close()


def test_a_worker_is_forked_from_the_server_with_the_auditor_imported_and_the_kernels_loaded():
    probe = _in_a_worker()
    assert probe["parent"] != os.getpid()  # a child of the fork server, not of this process
    assert probe["parent"] == multiprocessing.forkserver._forkserver._forkserver_pid
    assert probe["imported"]
    # the per-hand kernel is in the suite's Numba cache (tests/conftest.py compiles it first): the server loaded
    # it, so the worker has it before its first replay
    assert probe["replay_hands_loaded"] >= 1


def test_workers_see_the_environment_of_the_moment_they_start(monkeypatch):
    """A forked worker has the server's environment; the server is started again when it changed, so a worker
    sees what a spawned one would."""
    monkeypatch.setenv("AUDITOR_TEST_PROBE", "first")
    first = _in_a_worker()
    monkeypatch.setenv("AUDITOR_TEST_PROBE", "second")
    second = _in_a_worker()
    assert (first["env"], second["env"]) == ("first", "second")
    assert first["parent"] != second["parent"]
    third = _in_a_worker()  # unchanged environment: the same server
    assert third["parent"] == second["parent"]


def test_stopping_reaps_the_server_and_a_later_pool_starts_another():
    parent = _in_a_worker()["parent"]
    server.stop()
    with pytest.raises(ProcessLookupError):  # gone and reaped (a zombie would still answer signal 0)
        os.kill(parent, 0)
    assert _in_a_worker()["parent"] not in (parent, os.getpid())


def _readers_probe() -> dict:
    """Run in a worker: which reader modules it has before reading anything, and the PHH scanner's kernels."""
    return {"parent": os.getppid(), "phh_tables": "auditor.ingest.phh_tables" in sys.modules,
            "scanner_loaded": sum(len(getattr(sys.modules.get("auditor.ingest.phh_scan"), name).overloads)
                                  for name in ("_scan_all",) if "auditor.ingest.phh_scan" in sys.modules)}


def test_a_server_started_for_phh_inputs_starts_its_workers_with_the_phh_readers_loaded(tmp_path):
    """The run's reader modules (`ingest.compiled.reader_modules`) are imported by a server started for it, so
    its workers find the readers imported and their cached kernels loaded, as the replay's are."""
    from auditor.ingest import phh_scan

    phh_scan.scan_texts(["variant = 'NT'\n"])  # the scanner compiled or loaded here: in the cache for the server
    server.stop()
    workers = local.Workers(1, ("auditor.ingest.phh_scan", "auditor.ingest.phh_tables", "not.a.reader"))
    try:
        probe = workers.pool.submit(_readers_probe).result(timeout=300)
    finally:
        workers.close()
    assert probe["phh_tables"] and probe["scanner_loaded"] >= 1
    server.stop()  # the next tests' servers start with the default preload
    assert not _in_a_worker(_readers_probe)["phh_tables"]


_LOAD = """
import json, sys
from numba.core.registry import CPUDispatcher
import auditor.engines.preload as preload
kernels = [v for name, m in list(sys.modules.items()) if name.startswith("auditor.") and m is not None
           for v in vars(m).values() if isinstance(v, CPUDispatcher) and v.__module__ == name]
print(json.dumps({"loaded": preload.KERNELS_LOADED, "kernels": len(kernels),
                  "overloads": sum(len(k.overloads) for k in kernels),
                  "misses": sum(sum(k._cache_misses.values()) for k in kernels)}))
"""


def _preload_in(cache: Path) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", _LOAD], capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_the_preload_loads_what_is_cached_and_compiles_nothing(tmp_path):
    """With the suite's cache every replay kernel is loaded; with an empty cache nothing is compiled (a
    compilation in the server would hold every worker behind it, or repeat the command line's)."""
    warm = _preload_in(Path(os.environ["NUMBA_CACHE_DIR"]))
    assert warm["loaded"] >= 5 and warm["overloads"] == warm["loaded"] and warm["misses"] == 0
    cold = _preload_in(tmp_path / "empty-cache")
    assert cold["kernels"] == warm["kernels"] > 0
    assert (cold["loaded"], cold["overloads"], cold["misses"]) == (0, 0, 0)


_NAMED = """
import json, sys
for name in sys.argv[1:]:
    __import__(name)
import auditor.engines.preload as preload
from numba.core.registry import CPUDispatcher
from auditor.ingest import jsonl_scan
from auditor.replay.kernel import hand
print(json.dumps({"scanner": sum(len(v.overloads) for v in vars(jsonl_scan).values() if isinstance(v, CPUDispatcher)),
                  "replay": len(hand.replay_hands.overloads), "loaded": preload.KERNELS_LOADED}))
"""


def test_the_preload_loads_only_the_replays_and_the_named_readers_kernels(tmp_path):
    """The server imports every reader (the worker's modules import the JSON Lines, OHH and PokerStars scanners),
    but loads the cached kernels of the replay and of the readers it was started with only: a Parquet run's server
    no longer waits for the text scanners' kernels."""
    from auditor.pipeline import audit
    from auditor.precompile import _gates_waived

    log = tmp_path / "hands.jsonl"
    log.write_text("".join((ROOT / "sample_logs" / "holdem.jsonl").read_text(encoding="utf-8")
                           .splitlines(keepends=True)[:3]), encoding="utf-8")
    with _gates_waived():  # the JSON Lines scanner in the cache, so there is something to leave alone
        audit([log], jobs=1)

    def probe(*first: str) -> dict:
        done = subprocess.run([sys.executable, "-c", _NAMED, *first], capture_output=True, text=True, cwd=ROOT,
                              timeout=300)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.splitlines()[-1])

    parquet = probe("auditor.ingest.columnar_validate")
    assert parquet["replay"] >= 1 and parquet["scanner"] == 0
    text = probe("auditor.ingest.jsonl_scan", "auditor.ingest.columnar_validate")
    assert text["replay"] >= 1 and text["scanner"] >= 1 and text["loaded"] > parquet["loaded"]
