"""Memory that must not grow with the number of partitions a process audits.

A 10-million-hand run is hundreds of partitions in one worker. Each partition used to load its packs
again, and the checks cached each rule's columns keyed by `id(rule)`, holding every copy alive: about
85 compiled rules more per partition, found by watching the live objects of a long run.
"""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import auditor.engines.partition as partition
from auditor.check.packs import Rule
from auditor.engines.partition import plan
from auditor.pipeline import audit, discover

SAMPLES = Path(__file__).resolve().parents[1] / "sample_logs"
BATCH = 300  # below a sample file's size: each file is a partition of its own


def _live_rules() -> int:
    gc.collect()
    # a weak proxy whose object is gone (Numba leaves one on each compiled kernel let go) raises on isinstance;
    # it is not a Rule whatever it pointed to
    return sum(not isinstance(o, weakref.ProxyTypes) and isinstance(o, Rule) for o in gc.get_objects())


def test_each_pack_is_loaded_once_per_run_whatever_the_partitions(monkeypatch):
    loads: list[str] = []
    real = partition.declared_pack

    def counting(name: str):
        loads.append(name)
        return real(name)

    monkeypatch.setattr(partition, "declared_pack", counting)
    partitions = plan(discover([SAMPLES], "auto")[0], BATCH)
    assert len(partitions) >= 5
    result = audit([SAMPLES], batch_size=BATCH, jobs=1)
    assert sorted(loads) == sorted(set(loads)) == sorted(result.packs)
    # a second run loads its packs afresh (a pack file may have changed between runs), once again
    audit([SAMPLES], batch_size=BATCH, jobs=1)
    assert len(loads) == 2 * len(result.packs)


def test_live_rules_do_not_grow_with_runs_or_partitions():
    audit([SAMPLES], batch_size=BATCH, jobs=1)
    after_one = _live_rules()
    audit([SAMPLES], batch_size=BATCH, jobs=1)  # a copy kept per run or per partition shows after one more run
    assert _live_rules() <= after_one
