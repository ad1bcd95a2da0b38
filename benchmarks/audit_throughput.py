"""Hands per second of `auditor audit` on simulated hands, stage by stage. Run by hand, not in CI:

    python benchmarks/audit_throughput.py [--hands 100000] [--seed 1]

Simulates a mix of the four games under their packs into a temporary JSONL file, then times read +
validate, canonical tables, replay, checks and the whole `audit()` call, and reports peak memory.
"""

from __future__ import annotations

import argparse
import platform
import resource
import tempfile
import time
from pathlib import Path

from auditor.check.packs import resolve_pack
from auditor.check.run import check
from auditor.ingest.jsonl import read_jsonl
from auditor.ingest.tables import build_tables
from auditor.model.records import SourceHand
from auditor.pipeline import audit
from auditor.replay.kernel import replay
from auditor.simulate import simulate_mixed, write_jsonl

MIX = [
    ("nz-casino-1999", [("omaha-nz", "fixed-limit"), ("omaha-nz", "pot-limit"), ("three-card-nz", "fixed-limit")]),
    ("online-five-card-draw", [("five-card-draw", "fixed-limit")]),
    ("tda-2024", [("holdem", "no-limit"), ("holdem", "fixed-limit")]),
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.jsonl"
        t0 = time.perf_counter()
        per_pack = args.hands // len(MIX)

        def hands():
            for i, (pack_name, games) in enumerate(MIX):
                pack = resolve_pack(pack_name)
                yield from simulate_mixed(games, per_pack, args.seed + i, house=pack.house, rule_pack=pack.name,
                                          table_prefix=f"B{i}")
        n = write_jsonl(hands(), path)
        t_sim = time.perf_counter() - t0
        size = path.stat().st_size

        t0 = time.perf_counter()
        items = list(read_jsonl(path))
        t_read = time.perf_counter() - t0
        good = [x for x in items if isinstance(x, SourceHand)]
        t0 = time.perf_counter()
        tables = build_tables(good)
        t_tables = time.perf_counter() - t0
        hands_df = tables.hands.to_pandas()
        packs = {name: resolve_pack(name) for name in hands_df["rule_pack"].unique()}
        t0 = time.perf_counter()
        facts, failures = replay(tables, [packs[p].house for p in hands_df["rule_pack"]])
        t_replay = time.perf_counter() - t0
        t0 = time.perf_counter()
        check(facts, hands_df, packs)
        t_check = time.perf_counter() - t0
        del items, good, tables, facts

        t0 = time.perf_counter()
        result = audit([path])
        t_all = time.perf_counter() - t0
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}, 1 process")
    print(f"hands: {n:,} ({size / n:,.0f} bytes/hand of JSONL); simulated at {n / t_sim:,.0f} hands/s")
    print(f"{'stage':<28}{'seconds':>9}{'hands/s':>12}")
    for name, secs in [("read + JSON + schema", t_read), ("canonical Arrow tables", t_tables),
                       ("replay (facts)", t_replay), ("checks (all rules)", t_check),
                       ("audit() end to end", t_all)]:
        print(f"{name:<28}{secs:>9.2f}{n / secs:>12,.0f}")
    print(f"findings: {len(result.findings)} (expected 0: legal play); quarantined: {result.hands_quarantined}; "
          f"replay failures: {len(failures)}")
    print(f"peak memory (max RSS): {peak_mb:,.0f} MB")


if __name__ == "__main__":
    main()
