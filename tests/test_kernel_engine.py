"""The kernel replay engine (`auditor.replay.kernel`) against the reference engine (`auditor.replay.engine`).

Issue 16: the kernel engine replaces the Python one only when every facts table is identical (rows, order,
dtypes, values) and the failures are the same, with cross-hand state carried across batches. These tests
hold that on sample_logs, every rule example, simulated hands of every pack's games and hostile but
schema-valid hands (which must not crash a kernel: the suite compiles them with bounds checks, conftest).
The comparison is `scripts/compare_engines.py`'s, so a failure prints the first differing rows.
"""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import pytest

from auditor.ingest.tables import build_tables
from auditor.ingest.validate import schema_error
from auditor.model.records import SourceHand
from auditor.replay import kernel
from auditor.replay.house import HouseRules
from auditor.replay.state import TableState

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("compare_engines", ROOT / "scripts/compare_engines.py")
compare_engines = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(compare_engines)


def _identical(batches, batch_size: int = 10_000) -> int:
    problems, _, total = compare_engines.compare(batches, batch_size)
    assert problems == [], "\n".join(problems[:40])
    return total


def test_sample_logs_identical():
    assert _identical(compare_engines.read_inputs([ROOT / "sample_logs"])) > 1000


def test_rule_examples_identical():
    assert _identical(compare_engines.read_inputs([ROOT / "rules/examples"])) > 100


def test_simulated_hands_identical_across_batches():
    """Every game of every built-in pack, sit-outs, seat draws and rake on; batches of 61 hands, so tables
    run on across batch boundaries through the TableState."""
    assert _identical(compare_engines.simulated(900, 7), batch_size=61) == 900


def _hostile_hand(rng: random.Random, k: int) -> dict:
    """A schema-valid hand of random events: seats nobody sits in, actions after folding, board deals past
    the variant's rounds, draws of cards never dealt, returns and awards of any size."""
    variant = rng.choice(["holdem", "omaha", "omaha-nz", "three-card-nz", "five-card-draw"])
    structure = rng.choice(["fixed-limit", "spread-limit", "pot-limit", "no-limit"])
    n_seats = rng.randint(1, 10)
    seats = [{"seat": s, "player": rng.choice("abcdefg"), "stack": rng.choice([0, 1, 50, 1000, 10**15]),
              "status": rng.choice(["active", "active", "sitting_out", "new", "away"])}
             for s in rng.sample(range(1, 11), n_seats)]
    cards = [r + s for r in "23456789TJQKA" for s in "cdhs"] + ["??"]
    events: list[dict] = []
    for _ in range(rng.randint(0, 60)):
        seat = rng.randint(1, 10)
        kind = rng.choice(["action", "action", "action", "post", "deal", "deal", "draw", "button", "show", "muck",
                           "kill", "return", "award", "rake"])
        amount = rng.choice([0, 1, 2, 5, 100, 10**15])
        if kind == "action":
            verb = rng.choice(["fold", "check", "call", "bet", "raise"])
            ev = {"kind": "action", "seat": seat, "action": verb}
            if verb in ("call", "bet", "raise") or rng.random() < 0.2:
                ev.update(amount=amount, to=rng.choice([amount, 0, 7]))
            if rng.random() < 0.3:
                ev["all_in"] = rng.random() < 0.5
        elif kind == "post":
            post = rng.choice(["blind", "ante", "straddle", "dead", "missed"])
            ev = {"kind": "post", "seat": seat, "post": post, "amount": amount}
            if post == "blind":
                ev["blind"] = rng.randint(1, 3)
        elif kind == "deal":
            to = rng.choice(["hole", "board", "burn"])
            ev = {"kind": "deal", "to": to, "cards": rng.choices(cards, k=rng.randint(0, 16))}
            if to == "hole":
                ev["seat"] = seat
        elif kind == "draw":
            ev = {"kind": "draw", "seat": seat, "discard": rng.choices(cards, k=rng.randint(0, 5)),
                  "receive": rng.choices(cards, k=rng.randint(0, 5))}
        elif kind in ("button", "muck", "kill"):
            ev = {"kind": kind, "seat": seat}
        elif kind == "show":
            ev = {"kind": "show", "seat": seat, "cards": rng.choices(cards, k=rng.randint(0, 16))}
        elif kind == "return":
            ev = {"kind": "return", "seat": seat, "amount": amount}
        elif kind == "award":
            ev = {"kind": "award", "seat": seat, "pot": rng.randint(0, 10), "amount": amount}
        else:
            ev = {"kind": "rake", "amount": amount}
            if rng.random() < 0.5:
                ev["pot"] = rng.randint(0, 3)
        events.append(ev)
    stakes: dict = {"blinds": sorted(rng.choices([1, 2, 5, 10], k=rng.randint(0, 3))), "chip_unit": 1}
    if rng.random() < 0.5:
        stakes["bet_units"] = [rng.choice([2, 4]) for _ in range(rng.randint(0, 8))]
    if rng.random() < 0.5:
        stakes["spread"] = [{"min": 1, "max": 10} for _ in range(rng.randint(0, 8))]
    return {"hand_id": f"x{k % 7}", "table_id": rng.choice(["A", "B"]), "variant": variant,
            "structure": structure, "stakes": stakes, "max_seats": 10, "rule_pack": "tda-2024", "seats": seats,
            "events": events, "started_at": f"2024-01-01T00:00:{k % 60:02d}Z"}


@pytest.mark.parametrize(("seed", "heir"), [(1, ()), (2, ("small-blind", "big-blind"))])
def test_hostile_schema_valid_hands_do_not_crash_and_are_identical(seed, heir):
    """With a button heir the reference fails a hand dealing cards to a seat nobody sits in (KeyError): the
    kernel engine fails the same hands, with the same words, and forgets the table as the reference does."""
    rng = random.Random(seed)
    hands = [h for h in (_hostile_hand(rng, k) for k in range(300)) if schema_error(h) is None]
    assert len(hands) > 250
    sources = [SourceHand(h, "hostile.jsonl", i + 1) for i, h in enumerate(hands)]
    houses = [HouseRules(button_heir=heir)] * len(sources)
    _identical(iter([(sources, houses, [])]), batch_size=50)


def test_unseated_seat_dealt_in_fails_as_the_reference():
    """The heir (cat, seat 3: the small blind of hand a) is looked for among the seats dealt in, and seat 2,
    dealt cards in hand b but seated by nobody, comes first."""
    blind = {"kind": "post", "seat": 3, "post": "blind", "blind": 1, "amount": 1}
    first = {"hand_id": "a", "table_id": "T", "variant": "holdem", "structure": "no-limit",
             "stakes": {"blinds": [1, 2], "chip_unit": 1}, "max_seats": 10, "rule_pack": "tda-2024",
             "started_at": "2024-01-01T00:00:00Z",
             "seats": [{"seat": 1, "player": "ann", "stack": 100}, {"seat": 3, "player": "cat", "stack": 100}],
             "events": [{"kind": "button", "seat": 1}, blind,
                        {"kind": "post", "seat": 1, "post": "blind", "blind": 2, "amount": 2}]}
    second = dict(first, hand_id="b", started_at="2024-01-01T00:01:00Z",
                  events=[{"kind": "deal", "to": "hole", "seat": 2, "cards": ["As", "Kd"]}])
    third = dict(first, hand_id="c", started_at="2024-01-01T00:02:00Z")
    sources = [SourceHand(h, "f.jsonl", i + 1) for i, h in enumerate((first, second, third))]
    houses = [HouseRules(button_heir=("small-blind", "big-blind"))] * 3
    _, failures = kernel.replay(build_tables(sources), houses, TableState())
    assert failures == [(1, "replay failed: KeyError: 2")]
    _identical(iter([(sources, houses, [])]))


def test_input_outside_the_schema_goes_to_the_reference_engine():
    """A seat number the schema refuses (here 42, written straight into the Arrow table) is never indexed by
    a kernel: the batch is replayed by the reference engine."""
    import pyarrow as pa

    hand = {"hand_id": "a", "table_id": "T", "variant": "holdem", "structure": "no-limit",
            "stakes": {"blinds": [1, 2], "chip_unit": 1}, "max_seats": 10, "rule_pack": "tda-2024",
            "seats": [{"seat": 1, "player": "ann", "stack": 100}, {"seat": 2, "player": "bob", "stack": 100}],
            "events": [{"kind": "action", "seat": 2, "action": "fold"}]}
    tables = build_tables([SourceHand(hand, "f.jsonl", 1)])
    seats = tables.seats.set_column(1, "seat", pa.array([1, 42], pa.int8()))
    tables = type(tables)(tables.hands, seats, tables.events)
    from auditor.replay import engine

    ours, _ = kernel.replay(tables, [HouseRules()], TableState())
    theirs, _ = engine.replay(tables, [HouseRules()], TableState())
    for name in ours.tables:
        assert compare_engines.diff_frames(name, theirs[name], ours[name]) == []


def test_empty_batch():
    facts, failures = kernel.replay(build_tables([]), [], TableState())
    assert failures == []
    assert all(len(facts[name]) == 0 for name in facts.tables)


def test_set_order_of_seats_dealt_in():
    """Seats 1 and 8 dealt in, then seat 7 (seated by nobody) dealt cards: the reference's set {1, 8, 7} is
    walked 8, 1, 7 (CPython's layout of a small set) and finds the heir in seat 8 before reaching seat 7; the
    kernels walk the same emulated layout (hand._set_add), not seat order, which would fail on seat 7."""
    blind = {"kind": "post", "seat": 8, "post": "blind", "blind": 1, "amount": 1}
    first = {"hand_id": "a", "table_id": "T", "variant": "holdem", "structure": "no-limit",
             "stakes": {"blinds": [1, 2], "chip_unit": 1}, "max_seats": 10, "rule_pack": "tda-2024",
             "started_at": "2024-01-01T00:00:00Z",
             "seats": [{"seat": 1, "player": "ann", "stack": 100}, {"seat": 8, "player": "cat", "stack": 100}],
             "events": [{"kind": "button", "seat": 1}, blind,
                        {"kind": "post", "seat": 1, "post": "blind", "blind": 2, "amount": 2}]}
    second = dict(first, hand_id="b", started_at="2024-01-01T00:01:00Z",
                  events=[{"kind": "deal", "to": "hole", "seat": 7, "cards": ["As", "Kd"]}])
    sources = [SourceHand(h, "f.jsonl", i + 1) for i, h in enumerate((first, second))]
    _identical(iter([(sources, [HouseRules(button_heir=("small-blind", "big-blind"))] * 2, [])]))
