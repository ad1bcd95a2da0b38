"""Kernels load from Numba's cache without Numba's compile-time set-up (`model.compiled.njit`).

Numba `refresh()`es its contexts before every load from its cache, importing and registering every lowering and
typing module it has; only a compile needs that. The auditor's kernels load with the runtime set up alone, which
took 0.3-0.45 s off every run's start. What must hold: every kernel is made that way; a fresh process audits
from the cache without the set-up and gives the same findings; a compile after such a load (a new kernel, a new
signature) still works, because Numba's compiler refreshes first; and a Numba whose cache is not the shape this
overrides keeps its own loading.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from auditor.ingest.compiled import FORMAT_MODULES
from auditor.model import compiled
from auditor.replay.kernel import KERNEL_MODULES

ROOT = Path(__file__).resolve().parent.parent
HOLDEM = ROOT / "sample_logs" / "holdem.jsonl"
#: modules only Numba's `refresh()` imports (its lowering registries): absent after a lean start
REGISTRY_MODULES = ("numba.np.linalg", "numba.np.polynomial.polynomial_functions", "numba.np.random.generator_methods")

pytestmark = pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="kernels are plain Python")


def _kernels(module_name: str) -> dict:
    from numba.core.registry import CPUDispatcher

    module = importlib.import_module(module_name)
    return {name: value for name, value in vars(module).items()
            if isinstance(value, CPUDispatcher) and value.__module__ == module_name}


def test_every_kernel_is_made_by_the_auditors_njit():
    modules = sorted({*KERNEL_MODULES, *(m for ms in FORMAT_MODULES.values() for m in ms)})
    lean = compiled._lean_cache_class()
    assert lean is not None  # the Numba this suite runs is the shape the lean loading was written for
    found = 0
    for name in modules:
        kernels = _kernels(name)
        assert kernels, name
        for attr, kernel in kernels.items():
            if kernel.targetoptions.get("no_cpython_wrapper"):  # a `compiled.callee`: cached with its callers
                assert type(kernel._cache).__name__ == "NullCache" and not kernel.targetoptions["_nrt"], attr
            else:
                assert type(kernel._cache) is lean, f"{name}.{attr}"
            found += 1
    assert found > 100
    # and no module of the package makes a kernel with Numba's own decorator (it would load with the set-up)
    for path in (ROOT / "auditor").rglob("*.py"):
        if path.name == "compiled.py" and path.parent.name == "model":
            continue
        text = path.read_text(encoding="utf-8")
        assert "from numba import njit" not in text and "numba.njit(" not in text, path


_SCRIPT = """
import json, sys
from auditor.cli import main
try:
    main(["audit", sys.argv[1], "--jobs", "1", "--quiet", "--pack", "tda-2024", "--format", "jsonl",
          "--output", sys.argv[2], "--fail-on", "never"], standalone_mode=False)
except SystemExit:
    pass
from numba.core.runtime.nrt import rtsys
print(json.dumps({"registries": [m for m in sys.argv[3:] if m in sys.modules], "runtime": bool(rtsys._init)}))
"""


def test_a_fresh_process_audits_from_the_cache_without_the_set_up(tmp_path):
    """With the replay's kernels in the cache, a fresh process loads them without `refresh()` and writes the
    findings this process makes of the same hands (a planted short raise among clean hands)."""
    from auditor.pipeline import audit
    from auditor.replay.kernel import warm

    warm.compile_kernels()  # into the cache (the suite's controller did it already, unless -n 0)
    log = tmp_path / "hands.jsonl"
    lines = HOLDEM.read_text(encoding="utf-8").splitlines(keepends=True)[:20]
    hand = json.loads(lines[3])
    raise_ = next(e for e in hand["events"] if e.get("kind") == "action" and e.get("action") == "raise")
    raise_["amount"] = raise_["amount"] - 50  # below the minimum raise: a finding the audit must still make
    lines[3] = json.dumps(hand) + "\n"
    log.write_text("".join(lines), encoding="utf-8")
    here = audit([log], pack="tda-2024", jobs=1).findings
    out = tmp_path / "findings.jsonl"
    done = subprocess.run([sys.executable, "-c", _SCRIPT, str(log), str(out), *REGISTRY_MODULES], capture_output=True,
                          text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"registries": [], "runtime": True}
    there = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(here) >= 1
    assert sorted((f["rule_id"], f["hand_id"]) for f in there) == sorted(zip(here["rule_id"], here["hand_id"],
                                                                             strict=True))


def test_a_compile_after_a_lean_load_sets_numba_up_first(tmp_path):
    """In a process whose kernels loaded lean, a new kernel (NumPy sorting and polynomials: lowering that only
    `refresh()` registers; not linear algebra, which needs SciPy, not a dependency) and a loaded kernel called with
    a new signature both compile and run correctly."""
    script = """
import json
import numpy as np
from auditor.model.compiled import njit
from auditor.replay.kernel import warm
from auditor.ingest import columnar_kernels
warm._replay_one_hand()  # the replay's kernels, loaded from the cache
@njit(cache=False)
def fresh(a):
    return np.sort(a).cumsum(), np.polynomial.polynomial.polyadd(a.astype(np.float64), a.astype(np.float64))
sums, doubled = fresh(np.array([3, 1, 2], np.int64))
print(json.dumps({"sums": sums.tolist(), "doubled": doubled.tolist()}))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["sums"] == [1, 3, 6] and got["doubled"] == [6.0, 2.0, 4.0]


def test_a_numba_of_another_shape_keeps_its_own_loading(monkeypatch):
    from numba.core import caching

    monkeypatch.setattr(caching.Cache, "_guard_against_spurious_io_errors", None)
    assert compiled._lean_cache_class.__wrapped__() is None
    monkeypatch.undo()  # Numba's own loading calls it too
    monkeypatch.setattr(compiled, "_lean_cache_class", lambda: None)  # as it answers for such a Numba
    kernel = compiled.njit(cache=True)(_twice)
    assert type(kernel._cache) is caching.FunctionCache
    assert kernel(21) == 42
    _KEPT.append(kernel)  # kept, as every real kernel is: a compiled kernel let go leaves Numba's weak proxy dead


def _twice(x):
    return 2 * x


_KEPT: list = []
