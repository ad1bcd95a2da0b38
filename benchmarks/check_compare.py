"""`check()` now against `check()` at an earlier revision, on the same facts: identical findings and coverage,
and µs a hand of each. Run by hand, not in CI:

    python benchmarks/check_compare.py [--rev a1c4c24^] [--hands 20000] [--seed 7] [--repeat 3] [--mutated 2000]

The earlier revision's `auditor/check/{run,expr,money,words}.py` are taken with `git show` into a temporary
package and given the same packs (their predicates and templates compiled again by that revision's
`expr.py`), so only the checks differ: each call gets the packs the pipeline gave it (a worker's batch
rules, the ledger's run-wide ones), simulated hands the batch rules, as a worker checks them. Inputs, per
built-in pack: the rule examples, `sample_logs/` (under the packs its hands declare), `--hands` simulated
hands of the pack's games replayed once, and, with `--mutated`, the hands `auditor verify` plants one
violation in (clean and mutated batches as verify audits them). Each timing is the best CPU time of
`--repeat` runs, old and new interleaved (the machine is shared). Any
difference is printed row by row: the kernel engine made predicates three-valued, so a `when` or `violation` that
is missing on a row now counts the hand as not assessable where the old checks passed it silently.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pandas as pd

import auditor.engines.ledger as ledger
import auditor.engines.partition as partition
import auditor.simulate.verify as verify
from auditor.check.packs import Pack, builtin_pack_paths, resolve_pack
from auditor.check.run import check
from auditor.engines.ledger import without_run_wide
from auditor.ingest.tables import build_tables
from auditor.model.records import SourceHand
from auditor.paths import ROOT
from auditor.pipeline import audit
from auditor.replay.kernel import replay
from auditor.simulate import simulate_mixed
from auditor.simulate.verify import pack_games

MODULES = ("run", "expr", "money", "words")


def old_checks(rev: str, folder: Path) -> tuple[Callable, object]:
    """The revision's check() and expr module, imported from `folder` as package `check_at_rev`."""
    package = folder / "check_at_rev"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name in MODULES:
        text = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:auditor/check/{name}.py"], check=True,
                              capture_output=True, text=True).stdout
        for other in MODULES:
            text = text.replace(f"from auditor.check import {other}\n", f"from check_at_rev import {other}\n")
            text = text.replace(f"from auditor.check.{other} import", f"from check_at_rev.{other} import")
        (package / f"{name}.py").write_text(text)
    sys.path.insert(0, str(folder))
    return importlib.import_module("check_at_rev.run").check, importlib.import_module("check_at_rev.expr")


def recompiled(pack: Pack, expr: object) -> Pack:
    """`pack` with its predicates and templates compiled by the old revision's expr module."""
    def template(t):
        return None if t is None else expr.compile_template(t.text)  # type: ignore[attr-defined]

    rules = tuple(dataclasses.replace(
        r, when=None if r.when is None else expr.compile_expression(r.when.text),  # type: ignore[attr-defined]
        violation=expr.compile_expression(r.violation.text),  # type: ignore[attr-defined]
        message=template(r.message), expected=template(r.expected), actual=template(r.actual)) for r in pack.rules)
    return dataclasses.replace(pack, rules=rules)


def captured(run: Callable[[], object]) -> list[tuple]:
    """The (facts, hands, packs) of every check() call `run` makes through the pipeline or verify."""
    calls: list[tuple] = []

    def spy(facts, hands, packs):
        calls.append((facts, hands.copy(), dict(packs)))
        return check(facts, hands, packs)

    # the modules that call check(): the workers' batches, the ledger (verify audits through it)
    callers = [m for m in (partition, ledger, verify) if hasattr(m, "check")]
    saved = [m.check for m in callers]  # type: ignore[attr-defined]
    for module in callers:
        module.check = spy  # type: ignore[attr-defined]
    try:
        run()
    finally:
        for module, original in zip(callers, saved, strict=True):
            module.check = original  # type: ignore[attr-defined]
    return calls


def inputs(args: argparse.Namespace) -> Iterator[tuple[str, list[tuple]]]:
    names = list(builtin_pack_paths())
    yield "sample_logs", captured(lambda: audit([ROOT / "sample_logs"], jobs=1))
    for name in names:
        yield f"examples {name}", captured(lambda name=name: audit([ROOT / "rules" / "examples" / name], pack=name,
                                                                   jobs=1))
    for name in names:
        pack = resolve_pack(name)
        hands = simulate_mixed(pack_games(pack), args.hands, args.seed, house=pack.house, rule_pack=pack.name)
        tables = build_tables([SourceHand(h, "sim.jsonl", i + 1) for i, h in enumerate(hands)])
        frame = tables.hands.to_pandas()
        facts, failures = replay(tables, [pack.house] * len(frame))
        frame = frame[~frame["hand"].isin({h for h, _ in failures})]
        yield f"simulated {name}", [(facts, frame, {name: without_run_wide(pack)})]
    if args.mutated:
        for name in names:
            yield f"mutated {name}", captured(lambda name=name: verify.verify_pack(name, args.mutated, seed=args.seed))


def best(run: Callable, repeat: int, *call: object) -> tuple[object, float]:
    """`run(*call)` and its best CPU time of `repeat` runs."""
    seconds = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        out = run(*call)
        seconds = min(seconds, time.process_time() - start)
    return out, seconds


def differences(old: tuple[pd.DataFrame, pd.DataFrame], new: tuple[pd.DataFrame, pd.DataFrame]) -> list[str]:
    lines = []
    try:
        pd.testing.assert_frame_equal(old[0], new[0])
    except AssertionError as exc:
        lines.append(f"  findings differ: {len(old[0])} before, {len(new[0])} now: {str(exc).splitlines()[0]}")
    merged = old[1].merge(new[1], on=["pack", "rule_id"], how="outer", suffixes=("_before", "_now"))
    counts = [c for c in old[1].columns if c.startswith("hands_") or c == "violations"]
    for _, row in merged.iterrows():
        changed = [f"{c} {row[c + '_before']} -> {row[c + '_now']}" for c in counts
                   if row[c + "_before"] != row[c + "_now"]]
        if changed:
            lines.append(f"  coverage {row['pack']} {row['rule_id']}: " + ", ".join(changed))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rev", default="a1c4c24^",
                        help="the revision to compare with (default: before the kernel engine)")
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--mutated", type=int, default=0, help="hands per pack for verify's planted violations")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        old_check, old_expr = old_checks(args.rev, Path(folder))
        old_packs: dict[int, Pack] = {}  # the packs of the calls, compiled again by the old revision
        print(f"{'input':<34}{'hands':>8}{'findings':>10}{'before µs/hand':>16}{'now µs/hand':>13}  identical")
        for label, calls in inputs(args):
            hands = findings = 0
            before = now = 0.0
            report: list[str] = []
            for facts, frame, packs in calls:
                repeat = args.repeat if len(frame) >= 5_000 else 1
                old = {n: old_packs.setdefault(id(p), recompiled(p, old_expr)) for n, p in packs.items()}
                old, t_old = best(old_check, repeat, facts, frame, old)
                new, t_new = best(check, repeat, facts, frame, packs)
                hands, findings, before, now = hands + len(frame), findings + len(new[0]), before + t_old, now + t_new
                report += differences(old, new)
            per = max(hands, 1) / 1e6
            print(f"{label:<34}{hands:>8,}{findings:>10,}{before / per:>16.1f}{now / per:>13.1f}  "
                  f"{'yes' if not report else 'NO'}", flush=True)
            for line in report:
                print(line)


if __name__ == "__main__":
    main()
