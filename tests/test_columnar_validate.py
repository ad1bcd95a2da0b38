"""The columnar validator against its reference: jsonschema-rs + consistency_error on the rebuilt hand.

`auditor.ingest.columnar_validate.validate` judges whole Arrow tables; the reference rebuilds each hand
as `auditor.ingest.parquet` always did (one dict per hand and event) and asks jsonschema-rs, then
`consistency_error`. The property: on the fuzzer's grammar hands (`scripts/fuzz.py`, every event kind),
written to tables and then mutated cell by cell (nulls, bounds, bad enums, cards and times, long strings
and lists) and row by row (duplicated, shuffled, repeated past a list limit), every hand row gets the same
verdict and the same reason, path and message included.
"""

from __future__ import annotations

import random
import sys
from collections import defaultdict
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.ingest import columnar_kernels, parquet
from auditor.ingest.columnar_validate import event_order, validate
from auditor.ingest.tables import build_tables
from auditor.model.records import SourceHand

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import fuzz  # noqa: E402


def reference(hands: pa.Table, seats: pa.Table, events: pa.Table) -> list[str | None]:
    """Each hands row's reason as read_parquet gave it before the columnar validator (None: valid)."""
    seats_by_hand: dict = defaultdict(list)
    for row in seats.to_pylist():
        seats_by_hand[row["hand"]].append(parquet._strip({k: row[k] for k in ("seat", "player", "stack", "status")}))
    events_by_hand: dict = defaultdict(list)
    for row in sorted(events.to_pylist(), key=lambda r: (parquet._order(r["hand"]), parquet._order(r["seq"]))):
        events_by_hand[row["hand"]].append(parquet._event(row))
    out: list[str | None] = []
    for number, h in enumerate(hands.to_pylist(), start=1):
        item = parquet._rebuild(h, number, "d", seats_by_hand, events_by_hand)
        out.append(None if isinstance(item, SourceHand) else item.reason)
    return out


_STRINGS = ["", "x" * 17, "x" * 65, "x" * 129, "x" * 257, "zz", "hole", "board", "burn", "blind", "ante", "call",
            "raise", "fold", "bet", "check", "Ah", "Xx", "??", "Ah\n", "away", "new", "active", "2024-02-30T00:00:00Z",
            "2024-01-01T23:59:60Z", "2024-01-01t00:00:00z", "1998-12-31T15:59:60.123-08:00", "2023-02-29T01:00:00Z",
            "\u2028a b", "a\x1b[31m", "\u00e9\U0001f0a1", *fuzz._KINDS, *fuzz._VARIANTS, *fuzz._STRUCTURES]
_INTS = [-1, 0, 1, 2, 3, 10, 11, 127, -128, 10**6, 10**6 + 1, 10**9 + 1, 10**15, 10**15 + 1, 2**62]


def _value(rng: random.Random, typ: pa.DataType) -> object:
    if rng.random() < 0.25:
        return None
    if pa.types.is_list(typ):
        pool = [None, "Ah", "Xx", "??", "", "x" * 129, "Kd"] if pa.types.is_string(typ.value_type) else \
            [None, -1, 0, 5, 10**15 + 1]
        return [rng.choice(pool) for _ in range(rng.choice((0, 1, 2, 3, 4, 9, 11, 17)))]
    if pa.types.is_string(typ):
        return rng.choice(_STRINGS)
    if pa.types.is_boolean(typ):
        return rng.random() < 0.5
    value = rng.choice(_INTS)
    half = 1 << (typ.bit_width - 1)
    return value if -half <= value < half else rng.choice((-1, 0, 11, 127, -128))


def mutated(tables: list[pa.Table], rng: random.Random) -> list[pa.Table]:
    """Cells set to hostile values, and sometimes rows duplicated, shuffled or repeated past a limit."""
    out = list(tables)
    for _ in range(rng.choice((0, 1, 1, 2, 3, 5))):
        k = rng.randrange(3)
        table = out[k]
        if not table.num_rows:
            continue
        name = rng.choice([c for c in table.column_names if c != "hand" or rng.random() < 0.1])
        i = table.schema.get_field_index(name)
        values = table.column(i).to_pylist()
        values[rng.randrange(len(values))] = _value(rng, table.schema.field(i).type)
        out[k] = table.set_column(i, name, pa.array(values, table.schema.field(i).type))
    if rng.random() < 0.3:
        k = rng.randrange(3)
        n = out[k].num_rows
        if n:
            rows = rng.choice((
                [rng.randrange(n) for _ in range(n + rng.randrange(3))], rng.sample(range(n), n),
                [rng.randrange(n)] * rng.choice((11, 2001)), list(range(n)) * 2))
            out[k] = out[k].take(rows)
    return out


def _batch(seed: int) -> list[pa.Table]:
    rng = random.Random(seed)
    hands = [fuzz.grammar_hand(rng, j, rng.choice(("T1", "T2"))) for j in range(rng.randrange(1, 5))]
    built = build_tables([SourceHand(h, "g.jsonl", i) for i, h in enumerate(hands, start=1)])
    tables = mutated([built.hands, built.seats, built.events], rng)
    return [parquet.conform_table(t, name) for t, name in zip(tables, parquet.TABLE_FILES, strict=True)]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32))
def test_columnar_reasons_equal_jsonschema(seed: int) -> None:
    tables = _batch(seed)
    assert validate(*tables).reasons == reference(*tables)


def test_many_batches_agree_and_refuse_for_many_reasons() -> None:
    """A fixed sweep (the property above shrinks; this one says the sweep covers the schema's checks)."""
    reasons: set[str] = set()
    refused = valid = 0
    for seed in range(400):
        tables = _batch(seed)
        expected = reference(*tables)
        assert validate(*tables).reasons == expected, seed
        for reason in expected:
            if reason is None:
                valid += 1
            else:
                refused += 1
                reasons.add(reason.split(": ")[0] + ": " + reason.split(": ")[1].split("/")[0] if
                            reason.startswith("schema") else reason.split(" ")[0])
    assert valid > 50 and refused > 200
    # hand keys, stakes, seats, events, and both consistency faults among the first failures
    for where in ("schema: at events", "schema: at seats", "schema: at stakes", "seat", "event"):
        assert where in reasons, (where, sorted(reasons))


@pytest.mark.parametrize(("change", "path"), [
    (lambda h: h["events"].append({"kind": "action", "seat": 1, "action": "raise"}), "events/0"),
    (lambda h: h["events"].append({"kind": "rake", "amount": 1, "seat": 0}), "events/0"),
    (lambda h: h["events"].append({"kind": "deal", "to": "hole", "cards": ["Ah", "Xx"]}), "events/0/cards/1"),
    (lambda h: h["events"].append({"kind": "seat_draw", "seat": 1, "awarded_to": "A",
                                   "draws": [{"player": "A", "card": "Ah"}]}), "events/0/draws"),
    (lambda h: h.__setitem__("started_at", "2023-02-29T00:00:00Z"), "started_at"),
    (lambda h: h["stakes"].__setitem__("spread", [{"min": 1, "max": 10**15 + 1}]), "stakes/spread/0/max"),
    (lambda h: h["seats"][0].__setitem__("status", "gone"), "seats/0/status"),
])
def test_named_faults(change, path: str) -> None:
    hand = {"hand_id": "H", "table_id": "T", "variant": "holdem", "structure": "no-limit", "max_seats": 6,
            "rule_pack": "tda-2024", "stakes": {"blinds": [1, 2], "chip_unit": 1},
            "seats": [{"seat": 1, "player": "A", "stack": 100}], "events": []}
    change(hand)
    built = build_tables([SourceHand(hand, "g.jsonl", 1)])
    tables = [parquet.conform_table(getattr(built, n), n) for n in parquet.TABLE_FILES]
    got = validate(*tables).reasons
    assert got == reference(*tables)
    assert got[0] is not None and got[0].startswith(f"schema: at {path}: ")


def test_event_order_is_the_readers() -> None:
    """Events by hand, then seq, nulls first, ties in file order (what read_parquet sorted by)."""
    events = pa.table({"hand": pa.array([2, None, 1, 1, 2], pa.int32()),
                       "seq": pa.array([0, 5, None, 0, 0], pa.int32())})
    assert event_order(events).tolist() == [1, 2, 3, 0, 4]


def test_date_time_equals_jsonschema_rs() -> None:
    """started_at's format: the buffer-read usual form and the regex for the rest, against jsonschema-rs
    on strings mutated around valid and edge date-times (leap days and seconds, offsets, case)."""
    import jsonschema_rs

    from auditor.ingest.columnar_validate import _date_time_ok

    reference = jsonschema_rs.validator_for({"format": "date-time"}, validate_formats=True)
    rng = random.Random(3)
    seeds = ["1998-12-31T23:59:60Z", "1998-12-31T15:59:60.123-08:00", "2024-02-29T23:59:59Z", "2023-02-29T00:00:00Z",
             "2024-01-01t00:00:00z", "1900-02-29T00:00:00Z", "2024-12-31T23:59:60z", "2024-01-01T00:00:00+23:59"]
    cases = list(seeds)
    for _ in range(5000):
        text = list(rng.choice(seeds))
        for _ in range(rng.choice((0, 1, 1, 2, 3))):
            at = rng.randrange(len(text) + 1)
            op = rng.randrange(3)
            if op == 0 and text:
                text[min(at, len(text) - 1)] = rng.choice("0123456789-:TtZz+.x \u00e9")
            elif op == 1:
                text.insert(at, rng.choice("0123456789-:TtZz+.x \u00e9"))
            elif text:
                del text[min(at, len(text) - 1)]
        cases.append("".join(text))
    got = _date_time_ok(pa.chunked_array([pa.array(cases)])).tolist()
    assert got == [reference.is_valid(c) for c in cases]
    assert 200 < sum(got) < len(cases) - 200
    # the screen's compiled check of the usual form passes only what jsonschema-rs passes, and every valid
    # string of that form (the others, an offset, a fraction or a leap second, it leaves to _date_time_ok)
    usual = columnar_kernels.utc_times_ok(columnar_kernels.strings(pa.array(cases))).tolist()
    for text, fast, valid in zip(cases, usual, got, strict=True):
        assert valid or not fast, text
        plain = len(text) == 20 and text[19] in "Zz" and text[17:19] != "60"
        assert fast == (valid and plain), text


def test_string_codes_equal_index_in() -> None:
    """`columnar_kernels.codes` (a byte lookup by length, first and last byte) gives what Arrow's index_in
    gives, on words, their prefixes, extensions and one-byte changes, multi-byte text, empty strings and nulls,
    in sliced and chunked columns."""
    import pyarrow.compute as pc

    from auditor.ingest.columnar_validate import ACTIONS, KINDS, STATUSES

    rng = random.Random(5)
    for words in (KINDS, ACTIONS, STATUSES, ("a", "ab", "ba", "")):
        pool = [*words, "", "\u00e9", "seat_draw\u00e9", None]
        for w in words:
            pool += [w[:-1], w + "s", w.upper(), w[:1] + "x" * max(len(w) - 2, 0) + w[-1:]]
        values = [rng.choice(pool) for _ in range(3000)]
        column = pa.chunked_array([pa.array(values[:1000]), pa.array(values[1000:]).slice(7)])
        index = pc.fill_null(pc.index_in(column, value_set=pa.array(words)), -1).to_numpy(zero_copy_only=False)
        expected = [-2 if v is None else int(i) for v, i in zip(values[:1000] + values[1007:], index, strict=True)]
        assert columnar_kernels.codes(columnar_kernels.strings(column), words).tolist() == expected


@pytest.mark.parametrize("listed", ["seats", "events"])
def test_a_refused_list_is_shown_from_its_first_items_only(listed: str) -> None:
    """A hand refused for the length of its seats or events shows the list's JSON cut to 200 characters:
    the reason is made from the first items only, the same as jsonschema-rs's over the whole list, and
    thousands of such hands cost their own rows (a 28 KB fuzzed dataset of 5,000 of them took 17-57 s)."""
    hands = []
    for j in range(300):
        seats = [{"seat": 1 + s % 10, "player": (" " * 40 + "x") * (25 if listed == "seats" else 1) + str(s),
                  "stack": 100} for s in range(12 if listed == "seats" else 2)]
        events = [{"kind": "muck", "seat": 1}] * (2001 if listed == "events" else 0)
        hands.append({"hand_id": f"H{j}", "table_id": "T", "variant": "holdem", "structure": "no-limit",
                      "max_seats": 10, "rule_pack": "tda-2024", "stakes": {"blinds": [1, 2], "chip_unit": 1},
                      "seats": seats, "events": events})
    built = build_tables([SourceHand(h, "g.jsonl", i) for i, h in enumerate(hands, start=1)])
    tables = [parquet.conform_table(getattr(built, n), n) for n in parquet.TABLE_FILES]
    got = validate(*tables).reasons
    assert got == reference(*tables)
    assert all(r is not None and r.startswith(f"schema: at {listed}: ") for r in got)


def _doubted(tables: list[pa.Table]) -> list[bool]:
    """The screen's doubt per hands row (`columnar_validate._screen`), on the tables as `validate` sees them."""
    from auditor.ingest import columnar_validate as cv

    try:
        hands = cv._Columns(tables[0])
        return cv._screen(hands, tables[1], cv._layout(hands, cv._Columns(tables[1]), tables[2]))[0].tolist()
    finally:
        cv._memo.clear()


def test_the_screen_passes_valid_hands_and_never_a_refused_one() -> None:
    """The screen (`_screen`) lets through only hands the reference finds valid (a looser screen would pass a
    refused hand unworded; the property above would then fail too, this says why), and it doubts no valid
    grammar hand of any kind, so the compiled path is the one valid datasets take, not the wording one."""
    passed = doubted_valid = 0
    for seed in range(200):
        rng = random.Random(seed)
        hands = [fuzz.grammar_hand(rng, j, rng.choice(("T1", "T2"))) for j in range(rng.randrange(1, 5))]
        built = build_tables([SourceHand(h, "g.jsonl", i) for i, h in enumerate(hands, start=1)])
        clean = [parquet.conform_table(t, name) for t, name in
                 zip([built.hands, built.seats, built.events], parquet.TABLE_FILES, strict=True)]
        for tables in (clean, _batch(seed)):
            expected = reference(*tables)
            for doubt, reason in zip(_doubted(tables), expected, strict=True):
                assert doubt or reason is None, (seed, reason)
                passed += not doubt
                doubted_valid += doubt and reason is None and tables is clean
    assert passed > 300 and doubted_valid == 0
