"""Golden facts snapshots of every rule example hand (ruff-style snapshot tests).

For each example hand under `rules/examples/<pack>/<rule>/` (found from the packs, as in
`tests/test_rule_examples.py`), the facts tables the replay writes are kept as text in
`tests/snapshots/facts/<pack>/<rule>/<example>.txt`: one line per value, `table[row].column = value`,
tables and columns in contract order (`auditor/replay/facts.py`), nulls written `null`, text quoted
(so "" and null differ), tables without rows left out. A list column is written as the text messages show
it (`money.lists_as_text`, `fact_frames.list_text`: its items joined by its declared separator, `"1,3"`, `""` for an
empty list), so the snapshots read as they did when the engine wrote joined strings. A swapped, renamed or
changed column then fails here with a unified diff whose lines name the table, the row and the column.

Regenerate after an intended change of the facts, and read the diff before committing it:

    AUDITOR_UPDATE_SNAPSHOTS=1 python3 -m pytest -q tests/test_facts_snapshots.py

The snapshots were written by the Python engine, the oracle until the kernel engine
(`auditor.replay.kernel.replay`) was shown identical to it; that engine is deleted (one engine),
and these files, with the simulator oracle of `auditor verify`, are what holds the kernel to what it was.
Regenerating them is therefore a change of the facts, never a way to make this test pass: read the diff.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib
import json
import os
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from auditor.check.money import lists_as_text
from auditor.check.packs import builtin_pack_paths, load_pack, resolve_pack
from auditor.ingest.tables import build_tables
from auditor.model.records import SourceHand
from auditor.paths import ROOT
from auditor.pipeline import discover, read_inputs
from auditor.replay.fact_frames import Facts
from auditor.replay.facts import FACT_TABLES

EXAMPLES = ROOT / "rules" / "examples"
SNAPSHOTS = Path(__file__).parent / "snapshots" / "facts"
UPDATE = os.environ.get("AUDITOR_UPDATE_SNAPSHOTS", "") not in ("", "0")
REFERENCE = "kernel"
#: engine name -> (module, attribute) of a `replay(tables, houses, state=None) -> (Facts, failures)`: the one
ENGINES = {"kernel": ("auditor.replay.kernel", "replay")}
#: a diff longer than this is cut (the first lines say what changed; the rest is the same change again)
MAX_DIFF_LINES = 200


def _examples() -> dict[Path, Path]:
    """Example file -> the pack file it is audited under, for every example of every built-in pack.
    An example named by two rules is one snapshot (the same hand replays to the same facts)."""
    found: dict[Path, Path] = {}
    for pack_path in builtin_pack_paths().values():
        pack = load_pack(pack_path)
        for rule in pack.rules:
            for example in (*rule.violating, *rule.clean):
                found.setdefault(example.path.resolve(), Path(example.pack or pack.path))
    return dict(sorted(found.items()))


EXAMPLE_PACKS = _examples()


def snapshot_path(example: Path) -> Path:
    return SNAPSHOTS / example.relative_to(EXAMPLES.resolve()).with_suffix(".txt")


def engine(name: str) -> Callable:
    """The replay function of engine `name`; skips the test when that engine does not exist yet."""
    module, attribute = ENGINES[name]
    try:
        return getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError) as exc:
        pytest.skip(f"engine {name!r} not available: {exc}")


def replay_example(example: Path, pack_file: Path, replay: Callable) -> tuple[Facts, list[tuple[int, str]]]:
    """The example's facts as `audit(example, pack=...)` replays them: every hand under the one pack.
    Read by its path relative to the checkout, so facts that quote the file (`duplicate_of`) are the same
    on every machine."""
    with contextlib.chdir(ROOT):
        inputs, _ = discover([example.relative_to(ROOT.resolve())])
        hands = [read for read in read_inputs(inputs) if isinstance(read, SourceHand)]
    tables = build_tables(hands)
    house = resolve_pack(str(pack_file)).house
    return replay(tables, [house] * tables.hands.num_rows)


def _value(value: object) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def render(facts: Facts, failures: list[tuple[int, str]]) -> str:
    """The facts as stable text: contract order, one `table[row].column = value` line per value.

    A column the engine writes that the contract does not declare is shown after the declared ones
    (marked) and a declared one it leaves out is shown as missing, so the snapshot diff says so too."""
    lines: list[str] = [f"replay failed: hand {h}: {reason}" for h, reason in failures]
    for name, table in FACT_TABLES.items():
        frame = facts.tables.get(name)
        if frame is None or not len(frame):
            continue
        declared = [c for c in table.names if c in frame.columns]
        extra = [c for c in frame.columns if c not in table.names]
        lines.append(f"## {name}: {len(frame)} rows")
        lines += [f"{name}.{c} MISSING (declared, not written)" for c in table.names if c not in frame.columns]
        frame = lists_as_text(frame, frame.columns)
        values = frame[declared + extra].astype(object).to_numpy()
        for i, row in enumerate(values):
            lines += [f"{name}[{i}].{c}{' (undeclared)' if c in extra else ''} = {_value(v)}"
                      for c, v in zip(declared + extra, row, strict=True)]
    return "\n".join(lines) + "\n"


def diff(expected: str, actual: str, where: str, engine_name: str) -> str:
    lines = list(difflib.unified_diff(expected.splitlines(), actual.splitlines(), fromfile=where,
                                      tofile=f"replay by the {engine_name} engine", lineterm=""))
    if len(lines) > MAX_DIFF_LINES:
        lines = [*lines[:MAX_DIFF_LINES], f"... {len(lines) - MAX_DIFF_LINES} more diff lines"]
    return "\n".join(lines)


CASES = [pytest.param(example, pack, id=example.relative_to(EXAMPLES.resolve()).as_posix())
         for example, pack in EXAMPLE_PACKS.items()]


@pytest.fixture(params=list(ENGINES))
def engine_name(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.mark.parametrize(("example", "pack_file"), CASES)
def test_facts_match_snapshot(example: Path, pack_file: Path, engine_name: str) -> None:
    replay = engine(engine_name)
    path = snapshot_path(example)
    where = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
    if UPDATE and engine_name != REFERENCE:
        pytest.skip("snapshots are written from the reference engine only")
    actual = render(*replay_example(example, pack_file, replay))
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text(encoding="utf-8") != actual:
            path.write_text(actual, encoding="utf-8")
        return
    assert path.is_file(), f"no snapshot {where}: run AUDITOR_UPDATE_SNAPSHOTS=1 python3 -m pytest " \
                           f"tests/test_facts_snapshots.py and review the new file"
    expected = path.read_text(encoding="utf-8")
    assert actual == expected, f"facts differ from {where}:\n{diff(expected, actual, where, engine_name)}"


def test_every_snapshot_has_an_example() -> None:
    """A snapshot left behind by a removed or renamed example is stale, not a test: it fails here (and is
    deleted when regenerating)."""
    wanted = {snapshot_path(example) for example in EXAMPLE_PACKS}
    assert len(wanted) == len(EXAMPLE_PACKS) >= 100
    stale = sorted(p for p in SNAPSHOTS.rglob("*.txt") if p not in wanted)
    if UPDATE:
        for path in stale:
            path.unlink()
        return
    assert not stale, f"snapshots without an example: {[p.relative_to(SNAPSHOTS).as_posix() for p in stale]}"


def test_a_changed_fact_shows_table_row_and_column() -> None:
    """The diff a reader gets names where the change is: swapping two values of one row is visible as
    the two lines `table[row].column = value` that changed, not as a bare inequality."""
    example, pack_file = next(iter(EXAMPLE_PACKS.items()))
    facts, failures = replay_example(example, pack_file, engine(REFERENCE))
    before = render(facts, failures)
    actions = facts["actions"].copy()
    assert len(actions) >= 1
    actions.loc[0, ["seat", "expected_seat"]] = [actions.loc[0, "seat"] + 1, -1]
    after = render(Facts({**facts.tables, "actions": actions}), failures)
    shown = diff(before, after, "before", "test")
    assert f"+actions[0].seat = {int(facts['actions'].loc[0, 'seat']) + 1}" in shown
    assert "+actions[0].expected_seat = -1" in shown
    assert sum(line.startswith("+actions") for line in shown.splitlines()) == 2
