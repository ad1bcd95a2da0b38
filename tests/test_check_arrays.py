"""Checks over arrays: three-valued predicates end to end, and the NumPy check path.

Each case of the predicate reference (the docstring of auditor/check/expr.py) has a test here: a null in
a comparison, in `and` / `or`, in arithmetic, under `not`, and `isnull()` being two-valued; then the same
outcomes through `check()`, where a missing `when` or `violation` makes the row not assessable whether
or not the rule's `needs:` lists the fact.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from auditor.check.expr import compile_expression, compile_template, prepare_column
from auditor.check.packs import resolve_pack
from auditor.check.run import check
from auditor.replay.fact_frames import Facts

# x: a nullable integer column; y: a nullable boolean; s: a nullable text column
FRAME = pd.DataFrame({
    "x": pd.array([2, 0, None, 5], dtype="Int64"),
    "y": pd.array([True, None, False, None], dtype="boolean"),
    "s": pd.array(["a", "b", None, "a"], dtype="string"),
    "zero": pd.array([0, 0, 0, 0], dtype="Int64"),
    "big": pd.array([2**62, 1, None, 1], dtype="Int64"),
})


def outcomes(text: str, frame: pd.DataFrame = FRAME) -> str:
    """One letter per row: T holds, F does not, ? missing, O overflowed."""
    holds, missing, overflow = compile_expression(text).judge(frame, {}, len(frame))
    assert not (holds & missing).any() and not (holds & overflow).any() and not (missing & overflow).any()
    letters = zip(holds, missing, overflow, strict=True)
    return "".join("T" if h else "?" if m else "O" if o else "F" for h, m, o in letters)


@pytest.mark.parametrize(("text", "expected"), [
    ("x > 1", "TF?T"),
    ("x != 2", "FT?T"),  # != with a missing side is missing, not True
    ("x == 2", "TF?F"),
    ('s == "a"', "TF?T"),
    ('s != "a"', "FT?F"),
    ('s in ["a"]', "TF?T"),
    ('s not in ["a"]', "FT?F"),  # not in with a missing side is missing, not True
    ("0 <= x < 3", "TT?F"),  # a chain is an `and` of its links
    ("y", "T?F?"),  # a missing condition is missing
    ('startswith(s, "a")', "TF?T"),
])
def test_a_null_in_a_comparison_is_missing(text, expected):
    assert outcomes(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("notnull(x) and x > 1", "TFFT"),  # a known False decides an `and`
    ("isnull(x) or x > 1", "TFTT"),  # a known True decides an `or`
    ("x > 1 and y", "TFF?"),  # row 1: x > 1 is a known False, row 2: y is; row 3: nothing decides
    ("x > 1 or y", "T??T"),
    ("x > 10 and y", "FFFF"),  # a known False on every row, whatever is missing
    ("y or s == \"a\"", "T??T"),
    ("not (x > 1)", "FT?F"),  # `not` of missing is missing
    ("not y", "F?T?"),
])
def test_and_or_not_are_three_valued(text, expected):
    assert outcomes(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("x + 1 > 0", "TT?T"),
    ("x * 2 - x == x", "TT?T"),
    ("abs(x - 3) >= 1", "TT?T"),
    ("min(x, 3) == 2", "TF?F"),
    ("x / zero > 0", "????"),  # division by zero is missing
    ("x // zero == 0", "????"),
    ("isnull(x / zero)", "TTTT"),
])
def test_arithmetic_on_a_null_is_missing(text, expected):
    assert outcomes(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("isnull(x)", "FFTF"),
    ("notnull(x)", "TTFT"),
    ("isnull(y)", "FTFT"),
    ("not isnull(s)", "TTFT"),
    ("isnull(x + 1)", "FFTF"),
])
def test_isnull_and_notnull_are_two_valued(text, expected):
    assert outcomes(text) == expected


def test_missing_wins_over_overflow_and_overflow_stays_its_own_outcome():
    assert outcomes("big * 4 > 0") == "OT?T"
    assert outcomes("x > 100 and big * 4 > 0") == "FF?F"  # row 0: x > 100 is a known False
    assert outcomes("isnull(x) or big * 4 > 0") == "OTTT"
    # evaluate() is True only where the predicate is known to hold; assess() keeps (holds, overflowed)
    expression = compile_expression("big * 4 > 0")
    assert expression.evaluate(FRAME, {}, 4).tolist() == [False, True, False, True]
    holds, overflowed = expression.assess(FRAME, {}, 4)
    assert holds.tolist() == [False, True, False, True] and overflowed.tolist() == [True, False, False, False]


@pytest.mark.parametrize("text", [
    "x > 1", "x != 2 or y", "not (x > 1) and s == \"a\"", "isnull(s) or startswith(s, \"b\")", "big * 4 > x",
    "s in [\"a\", \"b\"] and x / zero > 1", "abs(x - big) >= 0",
])
def test_prepared_columns_and_their_rows_evaluate_as_the_pandas_columns_do(text):
    """A column converted once (and rows taken from it by position) gives the same three outcomes as the
    pandas column it came from: the check path and the reference path cannot drift apart."""
    expression = compile_expression(text)
    prepared = {name: prepare_column(name, FRAME[name], len(FRAME)) for name in FRAME.columns}
    assert all(np.array_equal(a, b) for a, b in
               zip(expression.judge(prepared, {}, 4), expression.judge(FRAME, {}, 4), strict=True))
    rows = np.array([3, 1, 1, 0], dtype=np.int64)
    taken = {name: column.take(rows) for name, column in prepared.items()}
    reference = FRAME.iloc[rows].reset_index(drop=True)
    assert all(np.array_equal(a, b) for a, b in
               zip(expression.judge(taken, {}, 4), expression.judge(reference, {}, 4), strict=True))


# ------------------------------------------------------------------------------------ through check()


def _batch(x: list, y: list) -> tuple[Facts, pd.DataFrame]:
    """Four holdem no-limit hands under tda-2024 with a one-row-per-hand facts table holding x and y."""
    n = len(x)
    hands = pd.DataFrame({
        "hand": np.arange(n), "hand_id": [f"H{i}" for i in range(n)], "table_id": "T", "variant": "holdem",
        "structure": "no-limit", "file": "f.jsonl", "line": np.arange(1, n + 1), "rule_pack": "tda-2024",
        "chip_unit": 1, "table_min": pd.NA, "table_max": pd.NA, "max_seats": 9,
    })
    table = pd.DataFrame({
        "hand": pd.array(range(n), dtype="Int64"), "seq": pd.array([pd.NA] * n, dtype="Int64"),
        "seat": pd.array([1] * n, dtype="Int64"), "player": pd.array(["p"] * n, dtype="string"),
        "x": pd.array(x, dtype="Int64"), "y": pd.array(y, dtype="boolean"),
    })
    return Facts({"hands": table}), hands


def _pack(violation: str, when: str | None = None, needs: tuple[str, ...] = ()):
    pack = resolve_pack("tda-2024")
    base = next(r for r in pack.rules if r.facts == "hands")
    rule = dataclasses.replace(
        base, id="T-ARRAYS", facts="hands", variants=("holdem",), structures=("no-limit",), needs=needs,
        when=None if when is None else compile_expression(when), violation=compile_expression(violation),
        message=compile_template("x is {x}"), expected=None, actual=None, seat_column="seat",
        player_column="player", parameters=None)
    return {pack.name: dataclasses.replace(pack, rules=(rule,))}


def _coverage(packs, facts, hands) -> dict:
    findings, coverage = check(facts, hands, packs)
    row = coverage.iloc[0]
    return {"findings": findings["hand_id"].tolist(), "checked": int(row["hands_checked"]),
            "not_assessable": int(row["hands_not_assessable"]), "violations": int(row["violations"]),
            "overflow": int(row["hands_overflow"])}


@pytest.mark.parametrize("needs", [(), ("x",)])
def test_a_missing_violation_is_not_assessable_whether_or_not_needs_lists_the_fact(needs):
    facts, hands = _batch([2, 0, None, 5], [True, True, True, True])
    assert _coverage(_pack("x > 1", needs=needs), facts, hands) == {
        "findings": ["H0", "H3"], "checked": 3, "not_assessable": 1, "violations": 2, "overflow": 0}
    # `not` does not turn the missing row into a violation (it did before the kernel engine)
    assert _coverage(_pack("not (x < 1)", needs=needs), facts, hands) == {
        "findings": ["H0", "H3"], "checked": 3, "not_assessable": 1, "violations": 2, "overflow": 0}


def test_a_missing_when_is_not_assessable_and_a_false_when_is_simply_out():
    facts, hands = _batch([2, 2, 2, 2], [True, None, False, True])
    assert _coverage(_pack("x > 1", when="y"), facts, hands) == {
        "findings": ["H0", "H3"], "checked": 3, "not_assessable": 1, "violations": 2, "overflow": 0}


def test_isnull_lets_a_rule_judge_the_missing_row_itself():
    facts, hands = _batch([2, 0, None, 5], [True, True, True, True])
    assert _coverage(_pack("isnull(x)"), facts, hands) == {
        "findings": ["H2"], "checked": 4, "not_assessable": 0, "violations": 1, "overflow": 0}
    assert _coverage(_pack("isnull(x) or x > 4"), facts, hands) == {
        "findings": ["H2", "H3"], "checked": 4, "not_assessable": 0, "violations": 2, "overflow": 0}


def test_overflow_is_counted_apart_from_missing():
    facts, hands = _batch([2**62, 0, None, 5], [True, True, True, True])
    assert _coverage(_pack("x * 4 > 1"), facts, hands) == {
        "findings": ["H3"], "checked": 2, "not_assessable": 2, "violations": 1, "overflow": 1}


def test_rows_of_hands_outside_the_batch_and_other_packs_are_out_of_scope():
    facts, hands = _batch([2, 2, 2, 2], [True, True, True, True])
    hands.loc[1, "rule_pack"] = "nz-casino-1999"
    hands = hands.drop(index=3)  # e.g. a hand the replay could not follow
    found = _coverage(_pack("x > 1"), facts, hands)
    assert found == {"findings": ["H0", "H2"], "checked": 2, "not_assessable": 0, "violations": 2, "overflow": 0}
