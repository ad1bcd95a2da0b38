"""The replay engine (`auditor.replay.kernel`): cuts into batches, hostile hands, hands it refuses.

The kernel engine was shown identical to the Python engine it replaced (which is deleted) on
sample_logs, every rule example, the corpus and 1,000,000 simulated hands; the golden snapshots
(tests/test_facts_snapshots.py) and the simulator oracle (`auditor verify`, tests/test_verify.py) hold
it there now. These tests hold what those do not: the facts do not depend on where a run is cut into
batches (cross-hand state carried in `TableState`), schema-valid hostile hands never crash a kernel (the
suite compiles them with bounds checks, conftest), and a hand outside what the kernels accept fails alone,
with words naming what is out of range, while the rest of its batch replays as if it were not there.
The batch comparison is `scripts/compare_batches.py`'s, so a failure prints the first differing rows.
"""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import pandas as pd
import pytest

from auditor.ingest.tables import build_tables
from auditor.ingest.validate import schema_error
from auditor.model.records import SourceHand
from auditor.replay import kernel
from auditor.replay.facts import FACT_COLUMNS
from auditor.replay.house import HouseRules
from auditor.replay.state import TableState

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("compare_batches", ROOT / "scripts/compare_batches.py")
compare_batches = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(compare_batches)


def test_simulated_hands_same_in_any_batches():
    """Every game of every built-in pack, sit-outs, seat draws and rake on; one batch against batches of 61
    hands, so tables run on across batch boundaries through the TableState."""
    problems, _, total = compare_batches.compare(compare_batches.simulated(900, 7), 61)
    assert problems == [], "\n".join(problems[:40])
    assert total == 900


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
def test_hostile_schema_valid_hands_do_not_crash(seed, heir):
    """Schema-valid nonsense in batches of 50: every hand is replayed or reported, never a crash. Besides a
    seat holding more cards than the kernel's scratch, the one failure a schema-valid hand can reach is the
    button heir looked up among the seats dealt in (a seat dealt cards that nobody sits in: KeyError), so
    without a heir there is none of those."""
    rng = random.Random(seed)
    hands = [h for h in (_hostile_hand(rng, k) for k in range(300)) if schema_error(h) is None]
    assert len(hands) > 250
    sources = [SourceHand(h, "hostile.jsonl", i + 1) for i, h in enumerate(hands)]
    state = TableState()
    replayed = failed = 0
    for lo in range(0, len(sources), 50):
        chunk = sources[lo:lo + 50]
        facts, failures = kernel.replay(build_tables(chunk), [HouseRules(button_heir=heir)] * len(chunk), state)
        done = set(facts["hands"]["hand"].tolist())
        assert done.isdisjoint(h for h, _ in failures)
        assert done | {h for h, _ in failures} == set(range(len(chunk)))
        keyerrors = [why for _, why in failures if why.startswith("replay failed: KeyError: ")]
        assert {why for _, why in failures} - set(keyerrors) <= {SPOILED["scratch"][1]}
        replayed, failed = replayed + len(done), failed + len(keyerrors)
    assert replayed > 200
    assert (failed > 0) == bool(heir)


def _hand(hand_id: str, table: str = "T", minute: int = 0) -> dict:
    """A heads-up hand: ann posts 1 and folds, bob's 1 returned and 2 awarded."""
    return {"hand_id": hand_id, "table_id": table, "variant": "holdem", "structure": "no-limit",
            "stakes": {"blinds": [1, 2], "chip_unit": 1}, "max_seats": 10, "rule_pack": "tda-2024",
            "started_at": f"2024-01-01T00:{minute:02d}:00Z",
            "seats": [{"seat": 1, "player": "ann", "stack": 100}, {"seat": 2, "player": "bob", "stack": 100}],
            "events": [{"kind": "button", "seat": 1},
                       {"kind": "post", "seat": 1, "post": "blind", "blind": 1, "amount": 1},
                       {"kind": "post", "seat": 2, "post": "blind", "blind": 2, "amount": 2},
                       {"kind": "deal", "to": "hole", "seat": 1, "cards": ["As", "Kd"]},
                       {"kind": "deal", "to": "hole", "seat": 2, "cards": ["7h", "2c"]},
                       {"kind": "action", "seat": 1, "action": "fold"},
                       {"kind": "return", "seat": 2, "amount": 1},
                       {"kind": "award", "seat": 2, "pot": 0, "amount": 2}]}


def _spoil_seat(h: dict) -> None:
    h["seats"].append({"seat": 11, "player": "cy", "stack": 5})


def _spoil_card(h: dict) -> None:
    h["events"][3]["cards"] = ["Zz", "Kd"]


def _spoil_event_seat(h: dict) -> None:
    h["events"][5]["seat"] = 12


def _spoil_variant(h: dict) -> None:
    h["variant"] = "razz"


def _spoil_kind(h: dict) -> None:
    h["events"].append({"kind": "bogus", "seat": 1})


def _spoil_seat_draw(h: dict) -> None:
    """A seat draw's cards are ranked for the highest (`card_key`): one that is not a card cannot be."""
    h["events"].append({"kind": "seat_draw", "seat": 3, "draws": [{"player": "cy", "card": "7s"},
                                                                  {"player": "dee", "card": "X1"}],
                        "awarded_to": "cy"})


def _spoil_scratch(h: dict) -> None:
    """Schema-valid: five deals of 16 cards to one seat, more than the kernel's 64 a seat."""
    h["events"][3:3] = [{"kind": "deal", "to": "hole", "seat": 1, "cards": ["2c"] * 16}] * 5


SPOILED = {
    "seat": (_spoil_seat, "replay failed: seat 11 is outside the kernel's 1-10"),
    "card": (_spoil_card, "replay failed: card 'Zz' is not a card"),
    "event seat": (_spoil_event_seat, "replay failed: seat 12 is outside the kernel's 1-10"),
    "seat draw card": (_spoil_seat_draw, "replay failed: card 'X1' is not a card"),
    "variant": (_spoil_variant, "replay failed: variant 'razz' is not one the kernels replay"),
    "event kind": (_spoil_kind, "replay failed: event kind 'bogus' is not one the kernel replays"),
    "scratch": (_spoil_scratch, "replay failed: a seat's cards outrun the per-hand kernel's scratch (more than 64 "
                                "held or shown)"),
}


def _replay(hands: list[dict], state: TableState | None = None):
    sources = [SourceHand(h, "f.jsonl", i + 1) for i, h in enumerate(hands)]
    return kernel.replay(build_tables(sources), [HouseRules()] * len(hands), state or TableState())


def _rows_of(facts, hand_map: dict[int, int]) -> dict:
    """Each facts table with its hand rows renumbered by `hand_map` (rows of other hands dropped)."""
    out = {}
    for name in FACT_COLUMNS:
        frame = facts[name]
        frame = frame[frame["hand"].isin(list(hand_map))].copy()
        frame["hand"] = frame["hand"].map(hand_map).astype("Int64")
        out[name] = frame.reset_index(drop=True)
    return out


@pytest.mark.parametrize("kind", sorted(SPOILED))
def test_a_refused_hand_fails_alone(kind):
    """One hand outside the kernels' range (on its own table U) among good hands of tables T and V: it comes
    back as a failure naming what is out of range, and every other hand's facts are exactly those of the
    batch without it. Built straight from dicts (the readers would refuse most of these), so the kernels
    meet them; the suite compiles with bounds checks, so an index past an array would raise."""
    spoil, words = SPOILED[kind]
    good = [_hand("a"), _hand("b", minute=1), _hand("v1", "V"), _hand("c", minute=2), _hand("v2", "V", 3)]
    bad = _hand("u", "U", 1)
    spoil(bad)
    if kind == "scratch":
        assert schema_error(bad) is None  # a valid log reaches this one
    facts, failures = _replay([*good[:2], bad, *good[2:]])
    assert failures == [(2, words)]
    alone, alone_failures = _replay(good)
    assert alone_failures == []
    ours = _rows_of(facts, {0: 0, 1: 1, 3: 2, 4: 3, 5: 4})
    theirs = _rows_of(alone, {i: i for i in range(len(good))})
    for name in FACT_COLUMNS:
        assert compare_batches.diff_frames(name, theirs[name], ours[name]) == []
    assert len(ours["hands"]) == len(good) and len(ours["actions"]) == len(good)


def _long_hand(hand_id: str, table: str, minute: int) -> dict:
    """A hand of 1,301 actions and 701 rounds (a check, then an empty board deal past its rounds, 700 times,
    and 600 checks more, as logged): more of each than the kernel stages between flushes (`hand.FLUSH_ROWS`)."""
    h = _hand(hand_id, table, minute)
    head, tail = h["events"][:5], h["events"][5:]
    middle: list[dict] = []
    for k in range(700):
        middle += [{"kind": "action", "seat": 1 + k % 2, "action": "check"},
                   {"kind": "deal", "to": "board", "cards": []}]
    middle += [{"kind": "action", "seat": 1 + k % 2, "action": "check"} for k in range(600)]
    h["events"] = head + middle + tail
    return h


def test_a_hand_longer_than_the_row_stage():
    """The kernel writes actions and rounds rows into a stage it copies out between hands, never within one
    (a round's row is completed when the round closes): hands with more rows than a flush takes, among and
    after ordinary ones, give every hand the facts it has alone (each on a table of its own: nothing crosses)."""
    hands = [_hand("a", "A"), _long_hand("l", "L", 1), _hand("b", "B", 1),
             *[_hand(f"c{k}", f"C{k}", k) for k in range(20)], _long_hand("m", "M", 2)]
    facts, failures = _replay(hands)
    assert failures == []
    assert (facts["actions"]["hand"] == 1).sum() == 1301 and (facts["rounds"]["hand"] == 1).sum() == 701
    for row, hand in enumerate(hands):
        alone, alone_failures = _replay([hand])
        assert alone_failures == []
        ours, theirs = _rows_of(facts, {row: 0}), _rows_of(alone, {0: 0})
        for name in FACT_COLUMNS:
            assert compare_batches.diff_frames(name, theirs[name], ours[name]) == [], (row, name)


def test_a_refused_hand_breaks_its_table_chain():
    """As for any failure: the table's next hand is judged like a first (no previous hand or button), and a
    table whose last hand of the batch is refused is forgotten, so the next batch does not judge against an
    older hand either."""
    middle = _hand("b", minute=1)
    _spoil_card(middle)
    last = _hand("v2", "V", 3)
    _spoil_seat(last)
    state = TableState()
    facts, failures = _replay([_hand("a"), middle, _hand("c", minute=2), _hand("v1", "V"), last], state)
    assert [h for h, _ in failures] == [1, 4]
    hands = facts["hands"].set_index("hand")
    assert hands.loc[2, "previous_hand"] is pd.NA and hands.loc[2, "previous_button"] is pd.NA
    assert hands.loc[0, "previous_hand"] is pd.NA
    assert set(state.last_hand.values()) == {"c"}  # table V forgotten, T remembers c
    after, _ = _replay([_hand("v3", "V", 4)], state)
    assert after["hands"]["previous_hand"].isna().all()


def test_only_refused_hands():
    """A batch of refused hands only: empty facts of every table and one failure each, in walk order."""
    first, second = _hand("a"), _hand("b", minute=1)
    _spoil_variant(first)
    _spoil_kind(second)
    facts, failures = _replay([second, first])
    assert failures == [(1, SPOILED["variant"][1]), (0, SPOILED["event kind"][1])]
    assert all(len(facts[name]) == 0 for name in FACT_COLUMNS)
    assert all(list(facts[name].columns) == [c for c, _, _ in FACT_COLUMNS[name]] for name in FACT_COLUMNS)


def test_unseated_seat_dealt_in_fails_and_breaks_the_chain():
    """The heir (cat, seat 3: the small blind of hand a) is looked for among the seats dealt in, and seat 2,
    dealt cards in hand b but seated by nobody, comes first: b fails (KeyError, as the Python engine worded
    it) and c, the table's next hand, has no previous hand."""
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
    facts, failures = kernel.replay(build_tables(sources), houses, TableState())
    assert failures == [(1, "replay failed: KeyError: 2")]
    hands = facts["hands"].set_index("hand")
    assert list(hands.index) == [0, 2]
    assert hands.loc[2, "previous_hand"] is pd.NA


def test_empty_batch():
    facts, failures = kernel.replay(build_tables([]), [], TableState())
    assert failures == []
    assert all(len(facts[name]) == 0 for name in facts.tables)
    assert all(list(facts[name].columns) == [c for c, _, _ in FACT_COLUMNS[name]] for name in FACT_COLUMNS)


def test_set_order_of_seats_dealt_in():
    """Seats 1 and 8 dealt in, then seat 7 (seated by nobody) dealt cards: the Python engine's set {1, 8, 7}
    was walked 8, 1, 7 (CPython's layout of a small set) and found the heir in seat 8 before reaching seat 7;
    the kernels walk the same emulated layout (hand._set_add), not seat order, which would fail on seat 7."""
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
    facts, failures = kernel.replay(build_tables(sources), [HouseRules(button_heir=("small-blind", "big-blind"))] * 2,
                                    TableState())
    assert failures == []
    assert facts["hands"].set_index("hand").loc[1, "button_by_blinds"] == 8


def test_the_compiling_notice_is_silent_once_an_audit_has_run(tmp_path):
    """After one audit of JSON Lines, no kernel the notice asks about is still uncached: a JSON Lines or PHH
    run never compiles the columnar validator, so a notice that asked about it announced a compilation on
    every run. The suite's kernel cache (tests/conftest.py) is copied without the validator's entries (as
    a machine that never read Parquet has it), so this compiles nothing the suite has not compiled."""
    import os
    import shutil
    import subprocess
    import sys

    log = ROOT / "sample_logs" / "holdem.jsonl"
    run = [sys.executable, "-c", "from auditor.cli import main; main()", "audit", str(log),  # not --quiet
           "--format", "jsonl", "--output", str(tmp_path / "out.jsonl")]
    first = subprocess.run(run, capture_output=True, text=True, cwd=ROOT)  # fills the suite's cache if need be
    cache = tmp_path / "cache"
    shutil.copytree(os.environ["NUMBA_CACHE_DIR"], cache, ignore=shutil.ignore_patterns("columnar_validate.*"))
    second = subprocess.run(run, capture_output=True, text=True, cwd=ROOT,
                            env={**os.environ, "NUMBA_CACHE_DIR": str(cache)})
    assert "compiling" not in second.stderr, second.stderr
    assert second.returncode == first.returncode == 0  # holdem.jsonl is clean play: exit 0, no findings
