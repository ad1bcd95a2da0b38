"""List-valued facts (real list columns, not joined strings) through the predicate language and the
message templates: equality of two lists, a list against text (its written form), membership, len(), truth,
three-valued missing, refusals, rows taken by position, and messages that read exactly as the joined strings
did. The engine's list columns themselves are held by the facts snapshots and `test_facts_contract.py`."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.check import money
from auditor.check.expr import ExpressionError, compile_expression, compile_template, prepare_column
from auditor.replay.fact_frames import LIST_TYPES, list_text
from auditor.replay.facts import LIST_INT, LIST_STR

T, F, N = True, False, None  # N: the outcome is missing


def _list(rows: list, dtype: str) -> pd.arrays.ArrowExtensionArray:
    return pd.arrays.ArrowExtensionArray(pa.array(rows, LIST_TYPES[dtype]))


@pytest.fixture
def pots() -> pd.DataFrame:
    return pd.DataFrame({
        "odd_chip_seats": _list([[1, 3], [], None, [2], [1, 3], [5]], LIST_INT),
        "odd_chip_seats_by_suit": _list([[1, 3], [], [1], None, [3, 1], [5, 6]], LIST_INT),
        "owed": _list([["bb", "sb"], [], None, ["sb"], ["bb"], []], LIST_STR),
        "pots_misawarded": _list([["pot 0: held 3, paid 2", "pot 1: held 1, paid 0"], [], None, [], [], []],
                                 LIST_STR),
        "seat": pd.array([3, 1, 1, 2, None, 6], dtype="Int64"),
        "player": pd.array(["bb", "x", "y", "sb", "z", None], dtype="string"),
    })


def judge(text: str, frame: pd.DataFrame, params: dict | None = None) -> list[bool | None]:
    holds, missing, overflow = compile_expression(text).judge(frame, params or {}, len(frame))
    assert not overflow.any()
    return [None if m else bool(h) for h, m in zip(holds, missing, strict=True)]


@pytest.mark.parametrize(("text", "expected"), [
    # two lists: item by item, in order; a missing list makes the comparison missing
    ("odd_chip_seats != odd_chip_seats_by_suit", [F, F, N, N, T, T]),
    ("odd_chip_seats == odd_chip_seats_by_suit", [T, T, N, N, F, F]),
    # a list against text: its written form ("1,3"; "" when empty)
    ('odd_chip_seats != ""', [T, F, N, T, T, T]),
    ('odd_chip_seats == "1,3"', [T, F, N, F, T, F]),
    ('owed != "" or isnull(owed)', [T, F, T, T, T, F]),
    ('pots_misawarded == "pot 0: held 3, paid 2; pot 1: held 1, paid 0"', [T, F, N, F, F, F]),
    ('odd_chip_seats in ["1,3", ""]', [T, T, N, F, T, F]),
    ('startswith(owed, "bb")', [T, F, N, F, T, F]),
    # membership, row by row, of a literal or a column
    ("3 in odd_chip_seats", [T, F, N, F, T, F]),
    ("seat in odd_chip_seats", [T, F, N, T, N, F]),
    ("seat not in odd_chip_seats", [F, T, N, F, N, T]),
    ('"sb" in owed', [T, F, N, T, F, F]),
    ("player in owed", [T, F, N, T, F, N]),
    ("3 in owed", [F, F, N, F, F, F]),  # a number is never in a list of text
    # len and truth
    ("len(odd_chip_seats) == 2", [T, F, N, F, T, F]),
    ("odd_chip_seats", [T, F, N, T, T, T]),
    ("not owed", [F, T, N, F, F, T]),
    ("isnull(odd_chip_seats_by_suit)", [F, F, F, T, F, F]),
    ("notnull(odd_chip_seats) and odd_chip_seats != odd_chip_seats_by_suit", [F, F, F, N, T, T]),
    # a list of numbers equals a list of text only when both are empty
    ("owed == odd_chip_seats", [F, T, N, F, F, F]),
])
def test_list_predicates(pots: pd.DataFrame, text: str, expected: list) -> None:
    assert judge(text, pots) == expected


@pytest.mark.parametrize(("text", "message"), [
    ("odd_chip_seats < odd_chip_seats_by_suit", "only be compared with '==' or '!='"),
    ("odd_chip_seats == 3", "cannot compare a list with a number.*'x in list'"),
    ("odd_chip_seats + 1", "needs numbers, not list column"),
    ("len(seat) > 0", r"len\(\) needs a list column"),
    ("odd_chip_seats in odd_chip_seats_by_suit", "a list in a list column"),
])
def test_list_misuse_is_refused_with_the_way_to_say_it(pots: pd.DataFrame, text: str, message: str) -> None:
    with pytest.raises(ExpressionError, match=message):
        judge(text, pots)


def test_prepared_list_columns_and_their_rows_evaluate_as_the_frame_does(pots: pd.DataFrame) -> None:
    """A check converts a column once (`prepare_column`) and takes rows by position: the list's offsets and
    items are gathered, so a taken column judges exactly like the frame's rows."""
    texts = ["odd_chip_seats != odd_chip_seats_by_suit", "seat in odd_chip_seats", 'owed != ""',
             "len(pots_misawarded) > 1"]
    columns = {name: prepare_column(name, pots[name], len(pots)) for name in pots.columns}
    positions = np.array([5, 0, 3, 3, 2], dtype=np.int64)
    taken = {name: column.take(positions) for name, column in columns.items()}
    for text in texts:
        whole = judge(text, pots)
        assert judge(text, columns) == whole
        holds, missing, _ = compile_expression(text).judge(taken, {}, len(positions))
        assert [None if m else bool(h) for h, m in zip(holds, missing, strict=True)] == [whole[p] for p in positions]


def test_list_columns_render_as_their_joined_text(pots: pd.DataFrame) -> None:
    """Templates write a list with its declared separator, a missing one as n/a: the text the engine's joined
    strings gave, so every finding reads as it did."""
    template = compile_template("{odd_chip_seats} | {owed} | {pots_misawarded}")
    assert template.render(pots, {}, len(pots))[:3] == [
        "1,3 | bb,sb | pot 0: held 3, paid 2; pot 1: held 1, paid 0", " |  | ", "n/a | n/a | n/a"]
    # through money.render (floor words: seat lists, blind codes, pots by name)
    words = compile_template("to {odd_chip_seats}; owed {owed}; {pots_misawarded}")
    assert money.render(words, pots, {}, len(pots), None)[0] == \
        "to seats 1 and 3; owed big blind and small blind; main pot: held 3, paid 2; side pot 1: held 1, paid 0"
    assert money.lists_as_text(pots, ["odd_chip_seats"])["odd_chip_seats"].tolist()[:3] == ["1,3", "", pd.NA]


def test_list_text_of_an_empty_and_an_all_null_column() -> None:
    assert list_text(_list([], LIST_INT)).to_pylist() == []
    assert list_text(_list([None, None], LIST_STR), "; ").to_pylist() == [None, None]
    frame = pd.DataFrame({"killed_seats": _list([None, None], LIST_INT)})
    assert judge("3 in killed_seats", frame) == [N, N]
    assert judge("killed_seats == killed_seats", frame) == [N, N]


_seats = st.lists(st.integers(1, 10), max_size=4)
_rows = st.lists(st.tuples(st.none() | _seats, st.none() | _seats, st.none() | st.integers(0, 11)), min_size=1,
                 max_size=30)


@settings(max_examples=150, deadline=None)
@given(rows=_rows, picks=st.lists(st.integers(0, 29), max_size=12))
def test_list_predicates_agree_with_python_lists(rows: list, picks: list) -> None:
    """On random lists with nulls, the vectorised list operations say what Python's lists say, row by row, on
    the whole frame and on rows taken by position (a check's gathered view)."""
    a, b, x = (list(c) for c in zip(*rows, strict=True))
    frame = pd.DataFrame({"a": _list(a, LIST_INT), "b": _list(b, LIST_INT), "x": pd.array(x, dtype="Int64")})
    reference = {
        "a == b": lambda i: None if a[i] is None or b[i] is None else a[i] == b[i],
        "a != b": lambda i: None if a[i] is None or b[i] is None else a[i] != b[i],
        "x in a": lambda i: None if a[i] is None or x[i] is None else x[i] in a[i],
        "len(a) >= 2": lambda i: None if a[i] is None else len(a[i]) >= 2,
        'a != ""': lambda i: None if a[i] is None else bool(a[i]),
        'a == "1,2"': lambda i: None if a[i] is None else a[i] == [1, 2],
        "isnull(a) or a == b": lambda i: True if a[i] is None else (None if b[i] is None else a[i] == b[i]),
    }
    positions = np.array([p for p in picks if p < len(rows)], dtype=np.int64)
    columns = {name: prepare_column(name, frame[name], len(frame)).take(positions) for name in frame.columns}
    for text, want in reference.items():
        assert judge(text, frame) == [want(i) for i in range(len(rows))], text
        holds, missing, _ = compile_expression(text).judge(columns, {}, len(positions))
        assert [None if m else bool(h) for h, m in zip(holds, missing, strict=True)] == \
            [want(int(p)) for p in positions], text
