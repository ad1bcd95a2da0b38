"""Replay the same hands in one batch and in small batches and show every difference in facts or failures.

Why: there is one replay engine (`auditor.replay.kernel`; the Python engine was deleted once the two
were shown identical). What the golden snapshots (tests/snapshots/facts) and the simulator oracle
(`auditor verify`) do not see is the cross-hand state carried from one batch to the next (`TableState`:
previous button, blinds owed, quarantine breaks, failures breaking a table's chain): the pipeline and the
workers cut a run into batches anywhere, so every cut must give the facts one batch gives. This script is
how that is shown, and where a difference is found.

    python3 scripts/compare_batches.py sample_logs rules/examples          # folders or files, via the readers
    python3 scripts/compare_batches.py --simulate 2000 --seed 3 --batch 61  # simulated hands of every pack
    python3 scripts/compare_batches.py --simulate 20000 --time             # also µs per hand of each run

Prints, per facts table, the first differing rows and columns; exit 1 on any difference.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd

from auditor.check.packs import Pack, PackError, declared_pack, load_pack
from auditor.ingest.detect import read_file
from auditor.ingest.tables import build_tables
from auditor.model.records import Quarantined, SourceHand
from auditor.pipeline import discover
from auditor.replay import kernel
from auditor.replay.fact_frames import is_list, list_text
from auditor.replay.facts import FACT_COLUMNS
from auditor.replay.house import HouseRules
from auditor.replay.state import TableState

PACKS = ("tda-2024", "nz-casino-1999", "online-five-card-draw")


def _house(name: str, local: Pack | None, cache: dict[str, HouseRules]) -> HouseRules:
    if local is not None:
        return local.house
    if name not in cache:
        try:
            cache[name] = declared_pack(name).house
        except PackError:
            cache[name] = HouseRules()
    return cache[name]


def read_inputs(paths: list[Path]) -> Iterator[tuple[list[SourceHand], list[HouseRules], list[Quarantined]]]:
    """Batches of input files: their hands, each hand's house (a pack file beside the log wins, as in the rule
    examples), and its quarantined entries (which break the table chain as in the pipeline)."""
    inputs, _ = discover(paths)
    cache: dict[str, HouseRules] = {}
    # files are gathered into batches of up to 20,000 hands, as the pipeline batches them (state is kept per
    # file and table, so a batch of many files replays each file's tables as a batch of one would)
    batch: tuple[list[SourceHand], list[HouseRules], list[Quarantined]] = ([], [], [])
    for item in inputs:
        path = Path(item.path)
        local = None
        for pack_file in sorted(path.parent.glob("*pack*.yaml")):
            try:
                local = load_pack(pack_file)
            except PackError:
                local = None
        hands, quarantined = [], []
        for read in read_file(path, name=item.name):
            if isinstance(read, SourceHand):
                hands.append(read)
            elif isinstance(read, Quarantined):
                quarantined.append(read)
        batch[0].extend(hands)
        batch[1].extend(_house(h.hand["rule_pack"], local, cache) for h in hands)
        batch[2].extend(quarantined)
        if len(batch[0]) >= 20_000:
            yield batch
            batch = ([], [], [])
    if batch[0] or batch[2]:
        yield batch


def simulated(n: int, seed: int) -> Iterator[tuple[list[SourceHand], list[HouseRules], list[Quarantined]]]:
    """`n` simulated hands spread over the built-in packs and every game each covers (sit-outs, seat draws,
    rake on), as `auditor verify` plays them."""
    from auditor.simulate.play import STRUCTURES
    from auditor.simulate.tables import simulate_mixed

    for k, name in enumerate(PACKS):
        pack = declared_pack(name)
        # every variant the pack's rules name, in every betting structure (as `auditor verify` plays them)
        variants = sorted({v for rule in pack.rules for v in rule.variants})
        games = [(v, s) for v in variants for s in STRUCTURES]
        count = n // len(PACKS) + (1 if k < n % len(PACKS) else 0)
        stream = simulate_mixed(games, count, seed + k, house=pack.house, rule_pack=pack.name,
                                table_size=(2, 10), seat_draws=True, sit_outs=True, rake=pack.house.rake,
                                table_prefix=f"S{seed}-{k}-")
        hands = [SourceHand(h, f"sim-{name}.jsonl", i + 1) for i, h in enumerate(stream)]
        yield hands, [pack.house] * len(hands), []


def diff_frames(name: str, ref: pd.DataFrame, new: pd.DataFrame, limit: int = 5) -> list[str]:
    """Words for the first differences between two facts tables (empty: identical)."""
    out = []
    if list(ref.columns) != list(new.columns):
        return [f"{name}: columns differ: {list(ref.columns)} vs {list(new.columns)}"]
    for col in ref.columns:
        if str(ref[col].dtype) != str(new[col].dtype):
            out.append(f"{name}.{col}: dtype {ref[col].dtype} vs {new[col].dtype}")
    if len(ref) != len(new):
        out.append(f"{name}: {len(ref)} rows vs {len(new)} rows")
    n = min(len(ref), len(new))
    bad_rows: dict[int, list[str]] = {}
    for col in ref.columns:
        a = ref[col].iloc[:n].astype(object).reset_index(drop=True)
        b = new[col].iloc[:n].astype(object).reset_index(drop=True)
        if is_list(ref[col]) and is_list(new[col]):  # list facts compared as their items (unit separator)
            a, b = (pd.Series(list_text(f[col].iloc[:n], "\x1f").to_pylist(), dtype=object) for f in (ref, new))
        a_na, b_na = a.isna(), b.isna()
        same = (a_na & b_na) | (~a_na & ~b_na & (a.where(~a_na, 0) == b.where(~b_na, 0)))
        for row in same.index[~same.to_numpy(dtype=bool)][:limit]:
            bad_rows.setdefault(int(row), []).append(f"{col}: {a[row]!r} vs {b[row]!r}")
    for row in sorted(bad_rows)[:limit]:
        key = f"hand {ref['hand'].iloc[row]}" + (f" seq {ref['seq'].iloc[row]}" if "seq" in ref else "")
        out.append(f"{name} row {row} ({key}): " + "; ".join(bad_rows[row]))
    if len(bad_rows) > limit:
        out.append(f"{name}: {len(bad_rows)} differing rows in the first {n} (first {limit} shown)")
    return out


def compare(batches: Iterator[tuple[list[SourceHand], list[HouseRules], list[Quarantined]]], batch_size: int,
            timing: bool = False) -> tuple[list[str], dict[str, float], int]:
    """Each input batch replayed whole and in chunks of `batch_size` (each run with its own TableState); the
    differences, seconds per run, hands. The chunks' facts are concatenated with their hand rows shifted
    back to the whole batch's."""
    whole_state, cut_state = TableState(), TableState()
    problems: list[str] = []
    seconds = {"one batch": 0.0, "batches": 0.0}
    total = 0
    for hands, houses, quarantined in batches:
        for q in quarantined:
            if q.table_id:
                whole_state.break_chain(q.file, q.table_id, q.line)
                cut_state.break_chain(q.file, q.table_id, q.line)
        t0 = time.perf_counter()
        whole, whole_fail = kernel.replay(build_tables(hands), houses, whole_state)
        t1 = time.perf_counter()
        parts: dict[str, list[pd.DataFrame]] = {name: [] for name in FACT_COLUMNS}
        cut_fail: list[tuple[int, str]] = []
        for lo in range(0, len(hands), batch_size):
            facts, failures = kernel.replay(build_tables(hands[lo:lo + batch_size]), houses[lo:lo + batch_size],
                                            cut_state)
            cut_fail += [(h + lo, why) for h, why in failures]
            for name in FACT_COLUMNS:
                frame = facts[name].copy()
                frame["hand"] = frame["hand"] + lo
                parts[name].append(frame)
        seconds["one batch"] += t1 - t0
        seconds["batches"] += time.perf_counter() - t1
        total += len(hands)
        where = hands[0].file if hands else "?"
        if sorted(whole_fail) != sorted(cut_fail):
            problems.append(f"{where}: failures differ: {whole_fail[:3]} vs {cut_fail[:3]}")
        for name in FACT_COLUMNS:
            cut = pd.concat(parts[name], ignore_index=True) if parts[name] else whole[name].iloc[:0]
            # a batch walks its tables in replay order: put both in (hand, seq) order before comparing rows
            keys = [k for k in ("hand", "seq", "pot", "seat") if k in cut.columns]
            a = whole[name].sort_values(keys, kind="stable").reset_index(drop=True)
            b = cut.sort_values(keys, kind="stable").reset_index(drop=True)
            problems.extend(f"{where}: {line}" for line in diff_frames(name, a, b))
    return problems, seconds, total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--simulate", type=int, default=0, help="simulated hands over the built-in packs")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch", type=int, default=500, help="hands per replay call of the cut run (state "
                        "carried across)")
    parser.add_argument("--time", action="store_true", help="print seconds and µs per hand of each run")
    args = parser.parse_args(argv)
    problems: list[str] = []
    seconds = {"one batch": 0.0, "batches": 0.0}
    total = 0
    runs = []
    if args.paths:
        runs.append(read_inputs(args.paths))
    if args.simulate:
        runs.append(simulated(args.simulate, args.seed))
    for run in runs:
        p, s, n = compare(run, args.batch, args.time)
        problems += p
        total += n
        for k in seconds:
            seconds[k] += s[k]
    for line in problems[:200]:
        print(line)
    print(f"{total} hands compared, {len(problems)} difference(s)")
    if args.time and total:
        for k, v in seconds.items():
            print(f"{k}: {v:.3f} s, {v / total * 1e6:.1f} µs/hand")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
