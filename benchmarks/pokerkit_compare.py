"""Our pipeline against PokerKit 0.7.7 on the same real PHH hands, in one run. Run by hand, not in CI:

    python benchmarks/pokerkit_compare.py [--corpus ../shared/corpus/phh] [--repeat 5]

Ours: `audit([corpus], pack="tda-2024")`, the whole pipeline (discovery and format detection, PHH read,
schema validation, canonical tables, replay, all rule checks), hands audited per second; and the stages
one by one (`read_phh` alone, tables, replay, checks) on the same hands.
PokerKit: for every hand our reader supports (NT, FT, PO: 5,062 of the corpus's 5,123), `HandHistory.load`
of the `.phh` file and iteration over its states (`for state in history`), its normal parse + replay.
Both in one process, one core, files read from disk each time; each timing is the best of `--repeat`
runs (the two headline timings interleaved, so both meet the same machine load; their runs are
printed). Ours also reads the 61 files it quarantines (unsupported variants); PokerKit is given only
the supported ones.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

from pokerkit import HandHistory

from auditor.check.packs import resolve_pack
from auditor.check.run import check
from auditor.ingest.phh import read_phh
from auditor.ingest.records import SourceHand
from auditor.ingest.tables import build_tables
from auditor.pipeline import audit
from auditor.replay.engine import replay

PACK = "tda-2024"
DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "phh"


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, list[float], object]:
    """Best of `repeat` wall-clock runs, all runs, and the last result."""
    runs = []
    result = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        runs.append(time.perf_counter() - t0)
    return min(runs), runs, result


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="PHH corpus folder (default: %(default)s)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per timing; the best is reported")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        parser.error(f"{args.corpus}: no such folder")

    files = sorted(args.corpus.rglob("*.phh"))
    supported = [p for p in files if all(isinstance(item, SourceHand) for item in read_phh(p))]
    n = len(supported)
    print(f"machine: {platform.machine()}, {cpu_name()}, {os.cpu_count()} CPU(s) (1 process used), "
          f"{platform.system()} {platform.release()}")
    print(f"python {platform.python_version()} ({platform.python_implementation()}), "
          f"pokerkit {version('pokerkit')}, poker-auditor {version('poker-auditor')}")
    print(f"corpus: {args.corpus}: {len(files):,} .phh files, {n:,} hands our reader supports (NT, FT, PO)")
    print(f"each timing: best of {args.repeat}\n")

    def ours() -> object:
        return audit([args.corpus], pack=PACK)

    def pokerkit_parse() -> list[HandHistory]:
        histories = []
        for path in supported:
            with path.open("rb") as fp:
                histories.append(HandHistory.load(fp))
        return histories

    def pokerkit_parse_and_replay() -> int:
        states = 0
        for path in supported:
            with path.open("rb") as fp:
                history = HandHistory.load(fp)
            for _state in history:
                states += 1
        return states

    # -- the two headline timings, interleaved so that both meet the same machine load ---------------
    runs_ours: list[float] = []
    runs_pk: list[float] = []
    for _ in range(args.repeat):
        t_ours, _, result = timed(ours, 1)
        runs_ours.append(t_ours)
        t_pk, _, states = timed(pokerkit_parse_and_replay, 1)
        runs_pk.append(t_pk)
    t_ours, t_pk = min(runs_ours), min(runs_pk)
    assert result.hands_audited == n, (result.hands_audited, n)

    # -- ours, stage by stage; PokerKit's parse alone ------------------------------------------------
    t_read, runs_read, items = timed(lambda: [x for p in files for x in read_phh(p)], args.repeat)
    good = [x for x in items if isinstance(x, SourceHand)]
    t_tables, _, tables = timed(lambda: build_tables(good), args.repeat)
    hands_df = tables.hands.to_pandas()
    hands_df["rule_pack"] = PACK
    pack = resolve_pack(PACK)
    houses = [pack.house] * len(hands_df)
    t_replay, _, replayed = timed(lambda: replay(tables, houses), args.repeat)
    facts, failures = replayed
    t_check, _, _ = timed(lambda: check(facts, hands_df, {PACK: pack}), args.repeat)
    t_pk_parse, _, _ = timed(pokerkit_parse, args.repeat)

    ours_rate, pk_rate = n / t_ours, n / t_pk
    print(f"{'':<52}{'seconds':>9}{'hands/s':>11}")
    rows = [
        ("ours: audit() end to end (tda-2024)", t_ours),
        ("  read_phh alone (all files, incl. quarantined)", t_read),
        ("  canonical Arrow tables", t_tables),
        ("  replay (facts)", t_replay),
        ("  checks (all rules)", t_check),
        ("PokerKit: HandHistory.load + iterate states", t_pk),
        ("  HandHistory.load alone", t_pk_parse),
    ]
    for name, seconds in rows:
        print(f"{name:<52}{seconds:>9.2f}{n / seconds:>11,.0f}")
    print()
    print(f"ours end to end: {ours_rate:,.0f} hands/s; PokerKit parse + replay: {pk_rate:,.0f} hands/s; "
          f"ratio ours/PokerKit: {ours_rate / pk_rate:.2f}x")
    def listed(runs: list[float]) -> str:
        return ", ".join(f"{r:.2f}" for r in runs)

    print(f"runs (s): ours {listed(runs_ours)}; PokerKit {listed(runs_pk)}; read_phh {listed(runs_read)}")
    print(f"ours: {result.hands_audited:,} hands audited, {result.hands_quarantined} quarantined, "
          f"{len(result.findings)} findings, {len(failures)} replay failures; "
          f"PokerKit: {states:,} states over {n:,} hands ({states / n:.1f} per hand)")


if __name__ == "__main__":
    main()
