"""The facts contract (`auditor/replay/facts.py`) is complete and enforced.

Complete: every column every engine writes is declared, in contract order and of its declared dtype,
on every rule example hand at once (all nine tables get rows there) and on an empty batch; and the
docs generator (`auditor/check/docs.py`) has a meaning for every declared column and every table.
Enforced: `facts_frame`, the one builder of facts tables, refuses a missing, undeclared or wrongly
typed column, and the rows Python writes (`FactRows`: the seat events' tuples and dicts) go through it.
"""

from __future__ import annotations

import contextlib
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from test_facts_snapshots import ENGINES, EXAMPLE_PACKS, engine

from auditor.check import docs
from auditor.check.packs import resolve_pack
from auditor.ingest.tables import build_tables
from auditor.model.records import SourceHand
from auditor.paths import ROOT
from auditor.pipeline import discover, read_inputs
from auditor.replay.fact_frames import LIST_TYPES, FactRows, Facts, allocate, facts_frame, list_column, list_text
from auditor.replay.facts import (
    BOOL,
    FACT_COLUMNS,
    FACT_TABLES,
    HAND_COLUMNS,
    INT,
    LIST_INT,
    LIST_SEPARATORS,
    LIST_STR,
    STR,
    Fact,
    FactContractError,
    _typed,
)

DTYPE_OF = {INT: pd.Int64Dtype(), BOOL: pd.BooleanDtype(), STR: pd.StringDtype(),
            LIST_INT: pd.ArrowDtype(LIST_TYPES[LIST_INT]), LIST_STR: pd.ArrowDtype(LIST_TYPES[LIST_STR])}


@pytest.fixture(scope="module")
def examples_batch():
    """Every rule example hand in one batch, each under the pack its example is audited with."""
    hands, houses = [], []
    houses_of = {pack: resolve_pack(str(pack)).house for pack in set(EXAMPLE_PACKS.values())}
    with contextlib.chdir(ROOT):
        inputs, _ = discover([example.relative_to(ROOT.resolve()) for example in EXAMPLE_PACKS])
        by_file = {example.relative_to(ROOT.resolve()).as_posix(): pack for example, pack in EXAMPLE_PACKS.items()}
        for read in read_inputs(inputs):
            if isinstance(read, SourceHand):
                hands.append(read)
    tables = build_tables(hands)
    files = tables.hands.column("file").to_pylist()
    houses = [houses_of[by_file[f]] for f in files]
    return tables, houses


def _assert_contract(facts: Facts, label: str) -> None:
    assert set(facts.tables) == set(FACT_TABLES), f"{label}: tables {sorted(facts.tables)}"
    for name, table in FACT_TABLES.items():
        frame = facts[name]
        assert list(frame.columns) == list(table.names), (
            f"{label}: {name} undeclared {sorted(set(frame.columns) - set(table.names))}, "
            f"missing {[c for c in table.names if c not in frame.columns]}, or out of contract order")
        wrong = {c.name: str(frame[c.name].dtype) for c in table.columns if frame[c.name].dtype != DTYPE_OF[c.dtype]}
        assert not wrong, f"{label}: {name} columns not of their declared dtype: {wrong}"


@pytest.mark.parametrize("engine_name", list(ENGINES))
def test_every_column_every_engine_writes_is_declared(engine_name, examples_batch):
    replay = engine(engine_name)
    tables, houses = examples_batch
    facts, failures = replay(tables, houses)
    assert failures == []
    _assert_contract(facts, engine_name)
    empty = [name for name in FACT_TABLES if not len(facts[name])]
    assert not empty, f"no rule example gives these tables rows, so their columns go unchecked: {empty}"


@pytest.mark.parametrize("engine_name", list(ENGINES))
def test_an_empty_batch_has_every_table_and_column(engine_name):
    facts, failures = engine(engine_name)(build_tables([]), [])
    assert failures == []
    _assert_contract(facts, f"{engine_name} (empty batch)")
    _assert_contract(Facts.empty(), "Facts.empty()")


def test_the_docs_generator_shows_every_fact_and_table():
    """`auditor rules show` and docs/rules.md list a rule's facts with their meaning: every declared
    column (and every hand column joined onto the tables) must have one, and every table must say what
    its rows are."""
    for name, table in FACT_TABLES.items():
        everything = SimpleNamespace(facts=name, reads=frozenset(table.names) | frozenset(HAND_COLUMNS))
        shown = dict(docs.facts_used(everything, SimpleNamespace(parameters={})))
        assert list(shown) == [*table.names, *(c for c in HAND_COLUMNS if c not in table.names)]
        for fact in table.columns:
            assert shown[fact.name] == fact.meaning and fact.meaning.strip()
        assert all(shown[c].strip() for c in HAND_COLUMNS if c not in table.names), name
        assert docs.TABLE_ROWS.get(name, "").strip(), f"docs say nothing of what a row of {name} is"


def test_declarations_are_typed_records_that_still_unpack():
    for columns in FACT_COLUMNS.values():
        for fact in columns:
            assert isinstance(fact, Fact)
            name, dtype, meaning = fact
            assert (name, dtype, meaning) == (fact.name, fact.dtype, fact.meaning)
    assert FACT_TABLES["actions"].fact("seat").dtype == INT
    with pytest.raises(FactContractError, match="did you mean seat"):
        FACT_TABLES["actions"].fact("saet")


def _columns(table: str, n: int = 2) -> dict[str, object]:
    """A valid column set for `table`: arrays of each declared kind."""
    out: dict[str, object] = {}
    for fact in FACT_TABLES[table].columns:
        out[fact.name] = (np.arange(n, dtype=np.int32) if fact.dtype == INT else np.zeros(n, dtype=bool)
                          if fact.dtype == BOOL else np.array([f"v{i}" for i in range(n)], dtype=object))
    return out


def test_facts_frame_builds_by_name_with_null_masks():
    columns = _columns("draws", 3)
    columns["seat"] = np.array([5, 1, 2], dtype=np.int64)
    columns["player"] = pa.array(["a", None, "c"])
    columns["actor_folded"] = [True, None, False]
    # given in another order than the contract's: placed by name
    shuffled = dict(reversed(list(columns.items())))
    frame = facts_frame("draws", shuffled, nulls={"seat": np.array([False, True, False]),
                                                  "discards": np.array([True, True, False])})
    assert list(frame.columns) == list(FACT_TABLES["draws"].names)
    assert frame["seat"].tolist() == [5, pd.NA, 2]
    assert frame["discards"].tolist() == [pd.NA, pd.NA, 2]
    assert frame["player"].tolist() == ["a", pd.NA, "c"]
    assert frame["actor_folded"].tolist() == [True, pd.NA, False]
    assert [str(frame[c].dtype) for c in frame.columns] == [c.dtype for c in FACT_TABLES["draws"].columns]


@pytest.mark.parametrize(("change", "message"), [
    (lambda c: c.pop("seat"), "missing column.*seat"),
    (lambda c: c.update(seet=np.zeros(2, dtype=np.int64)), "undeclared column.*seet"),
    (lambda c: c.update(seat=np.zeros(2)), r"draws\.seat: a float64 array where the contract declares integers"),
    (lambda c: c.update(seat=np.zeros(2, dtype=bool)), r"draws\.seat: a bool array"),
    (lambda c: c.update(actor_folded=np.zeros(2, dtype=np.int8)), r"draws\.actor_folded: a int8 array"),
    (lambda c: c.update(player=np.array([1, 2])), r"draws\.player: a int64 array where the contract declares text"),
    (lambda c: c.update(player=np.array(["a", 2], dtype=object)), r"draws\.player: .*text"),
    (lambda c: c.update(player=pa.array([1, 2])), r"draws\.player: an Arrow int64 array"),
    (lambda c: c.update(seat=pd.array([True, False], dtype="boolean")), r"draws\.seat: a boolean column"),
    (lambda c: c.update(seat=np.zeros(3, dtype=np.int64)), r"draws\.seat: 3 values where hand has 2"),
    (lambda c: c.update(seat=["x", 1]), r"draws\.seat \(Int64\)"),
    (lambda c: c.update(seat={1, 2}), r"draws\.seat: values of type set"),
])
def test_facts_frame_refuses_a_broken_column(change, message):
    columns = _columns("draws")
    change(columns)
    with pytest.raises(FactContractError, match=message):
        facts_frame("draws", columns)


def test_facts_frame_refuses_a_bad_mask_or_table():
    with pytest.raises(FactContractError, match="null mask for undeclared column"):
        facts_frame("draws", _columns("draws"), nulls={"nope": np.zeros(2, dtype=bool)})
    with pytest.raises(FactContractError, match=r"draws\.seat: the null mask must be 2 booleans"):
        facts_frame("draws", _columns("draws"), nulls={"seat": np.zeros(2, dtype=np.int64)})
    with pytest.raises(FactContractError, match="no facts table 'drawz'"):
        facts_frame("drawz", {})


def test_allocate_gives_named_arrays_all_null_until_written():
    values, masks = allocate("draws", 4)
    assert set(values) == set(masks) == {c.name for c in FACT_TABLES["draws"].columns if c.dtype != STR}
    values["seat"][:] = [1, 2, 3, 4]
    masks["seat"][:] = False
    columns = {**values, "player": ["a", "b", None, "d"]}
    frame = facts_frame("draws", columns, nulls=masks)
    assert frame["seat"].tolist() == [1, 2, 3, 4]
    assert frame["discards"].isna().all() and frame["actor_folded"].isna().all()


def test_fact_rows_go_through_the_named_builder():
    names = FACT_TABLES["seat_fills"].names
    row = (0, 3, 2, "p", True, [])
    rows = FactRows(seat_fills=[row])
    assert rows.to_facts()["seat_fills"].iloc[0].tolist() == list(row)
    as_dicts = FactRows(seat_fills=[dict(zip(names, row, strict=True))])
    assert as_dicts.to_facts()["seat_fills"].equals(rows.to_facts()["seat_fills"])
    with pytest.raises(FactContractError, match=r"seat_fills.*rows of \[5\] values.*declares 6 columns"):
        FactRows(seat_fills=[row[:5]]).to_facts()
    with pytest.raises(FactContractError, match=r"undeclared key.*form_seated"):
        FactRows(seat_fills=[{**dict(zip(names, row, strict=True)), "form_seated": True}]).to_facts()
    short = dict(zip(names, row, strict=True))
    del short["from_seated"]
    with pytest.raises(FactContractError, match="without the key 'from_seated'"):
        FactRows(seat_fills=[short]).to_facts()


def test_list_facts_are_list_columns_not_joined_text():
    """A list-valued fact is a typed list column (null: not known; []: known to be none), declared
    with the separator messages write it with; the seat lists are integers."""
    lists = {c.name: c.dtype for t in FACT_TABLES.values() for c in t.columns if c.dtype in LIST_TYPES}
    assert set(lists) == set(LIST_SEPARATORS) and len(lists) >= 19
    assert lists["odd_chip_seats"] == lists["killed_seats"] == lists["wrong_hole_counts"] == LIST_INT
    assert lists["shares"] == lists["pots_misawarded"] == lists["owed"] == LIST_STR
    assert FACT_TABLES["pots"].fact("best_hand").dtype == STR  # words, not a list
    assert LIST_SEPARATORS["pots_misawarded"] == "; " and LIST_SEPARATORS["winner_seats"] == ","


def test_list_column_from_offsets_and_its_text():
    column = list_column(np.array([0, 2, 2, 3, 4]), np.array([1, 3, 5, 9]), null=np.array([0, 0, 0, 1], bool))
    assert str(column.dtype) == LIST_INT
    assert column.isna().tolist() == [False, False, False, True]
    assert list(pd.Series(column).iloc[0]) == [1, 3] and len(pd.Series(column).iloc[1]) == 0
    assert list_text(column, ",").to_pylist() == ["1,3", "", "5", None]
    words = list_column(np.array([0, 2, 2]), pa.array(["pot 0: held 3, paid 2", "pot 1: held 1, paid 0"]))
    assert str(words.dtype) == LIST_STR
    assert list_text(words, "; ").to_pylist() == ["pot 0: held 3, paid 2; pot 1: held 1, paid 0", ""]


def test_facts_frame_builds_and_refuses_list_columns():
    names = FACT_TABLES["seat_fills"].names
    base = dict(zip(names, ([0, 1], [3, 4], [2, 2], ["p", "q"], [True, None]), strict=False))
    frame = facts_frame("seat_fills", {**base, "seated_requests_passed_over": [["Ann (seat 1)"], None]})
    assert str(frame["seated_requests_passed_over"].dtype) == LIST_STR
    assert frame["seated_requests_passed_over"].isna().tolist() == [False, True]
    masked = facts_frame("seat_fills", {**base, "seated_requests_passed_over": [[], []]},
                         nulls={"seated_requests_passed_over": np.array([True, False])})
    assert masked["seated_requests_passed_over"].isna().tolist() == [True, False]
    # text where a list belongs is refused (Arrow would split it into characters), and so are wrong items
    for bad, message in ((["Ann (seat 1)", None], "str value"), ([[1], None], "list of str"),
                         (np.array([1, 2]), "int64 array"), (pa.array(["a", "b"]), "Arrow string array"),
                         (pd.array(["a", "b"], dtype="string"), "a string column")):
        with pytest.raises(FactContractError, match=message):
            facts_frame("seat_fills", {**base, "seated_requests_passed_over": bad})
    pots = {c.name: [None, None] for c in FACT_TABLES["pots"].columns}
    for bad in ([[1.5], None], [[True], None], ["1,3", None]):
        with pytest.raises(FactContractError, match=r"pots\.winner_seats"):
            facts_frame("pots", {**pots, "winner_seats": bad})
    assert facts_frame("pots", {**pots, "winner_seats": [[1, np.int64(3)], []]})["winner_seats"].isna().sum() == 0


def test_a_list_column_declares_its_separator_and_only_it():
    with pytest.raises(FactContractError, match="only a list column, declares the separator"):
        _typed({"draws": [("hand", LIST_INT, "rows")]}, {})
    with pytest.raises(FactContractError, match="only a list column, declares the separator"):
        _typed({"draws": [("hand", INT, "rows", ",")]}, {})
    with pytest.raises(FactContractError, match="separator"):
        _typed({"draws": [("a", LIST_INT, "x", ",")], "pots": [("a", LIST_INT, "x", ";")]}, {})
