"""The simulator's hands are legal: every fact is re-derived here from the events with plain loops."""

from __future__ import annotations

import collections
import functools
import gzip
import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from jsonschema import Draft202012Validator

from auditor.model.pots import build_pots
from auditor.replay.evaluate import best_hands, parse_card
from auditor.replay.house import HouseRules
from auditor.replay.variants import VARIANTS
from auditor.simulate import simulate_hands, simulate_mixed, write_format, write_jsonl

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "schemas" / "hand-log.schema.json"
STRUCTURES = ("fixed-limit", "spread-limit", "pot-limit", "no-limit")
HOUSE = HouseRules()


@functools.cache
def schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text())


@functools.cache
def validator() -> Draft202012Validator:
    """The whole canonical schema, as written (about 9 ms a hand)."""
    return Draft202012Validator(schema())


def _inline(node, defs):
    if isinstance(node, dict):
        if set(node) == {"$ref"}:
            return _inline(defs[node["$ref"].removeprefix("#/$defs/")], defs)
        return {k: _inline(v, defs) for k, v in node.items() if k != "$defs"}
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    return node


@functools.cache
def fast_validators() -> tuple[Draft202012Validator, dict[str, Draft202012Validator]]:
    """The same schema split the way it dispatches: the hand without its events, and each event
    against the definition its `kind` selects (refs inlined). Five times faster, same verdicts."""
    defs = schema()["$defs"]
    header = _inline(schema(), defs)
    header["properties"]["events"] = {"type": "array", "maxItems": 2000}
    kinds = defs["event"]["properties"]["kind"]["enum"]
    return Draft202012Validator(header), {
        k: Draft202012Validator(_inline(defs[k.replace("-", "_")], defs)) for k in kinds
    }


_valid_events: set[str] = set()


def fast_errors(hand: dict) -> list[str]:
    header, by_kind = fast_validators()
    errors = [e.message for e in header.iter_errors(hand)]
    for event in hand.get("events", ()):
        key = json.dumps(event, sort_keys=True)
        if key in _valid_events:
            continue
        v = by_kind.get(event.get("kind"))
        found = ["unknown kind"] if v is None else [e.message for e in v.iter_errors(event)]
        if not found:
            _valid_events.add(key)
        errors += found
    return errors


def card_order(card: str, house: HouseRules) -> int:
    return "23456789TJQKA".index(card[0]) * 4 + house.suit_rank(card[1])


def audit(hand: dict, house: HouseRules, stats: collections.Counter) -> None:
    """Re-derive the rules from the events of one hand; count the situations that occurred."""
    variant = house.variant(hand["variant"])
    structure = hand["structure"]
    stakes = hand["stakes"]
    unit = stakes["chip_unit"]
    blinds = stakes["blinds"]
    seats = [s["seat"] for s in hand["seats"]]
    assert seats == sorted(seats) and len(set(seats)) == len(seats)
    assert all(1 <= s <= hand["max_seats"] for s in seats)
    stack = {s["seat"]: s["stack"] for s in hand["seats"]}
    start_total = sum(stack.values())
    assert all(x > 0 and x % unit == 0 for x in stack.values())
    events = hand["events"]

    # seat draws, then the button
    k = 0
    while events[k]["kind"] == "seat_draw":
        e = events[k]
        cards = [d["card"] for d in e["draws"]]
        assert len(set(cards)) == len(cards)
        best = max(e["draws"], key=lambda d: card_order(d["card"], house))
        assert e["awarded_to"] == best["player"]
        player = {s["seat"]: s["player"] for s in hand["seats"]}
        assert player[e["seat"]] == e["awarded_to"]
        ranks = sorted((c[0] for c in cards), key="23456789TJQKA".index, reverse=True)
        stats["seat_draws"] += 1
        stats["seat_draw_rank_ties"] += ranks[0] == ranks[1]
        k += 1
    assert events[k]["kind"] == "button"
    button = events[k]["seat"]
    assert button in seats
    i = seats.index(button)
    clockwise = seats[i + 1 :] + seats[: i + 1]  # left of the button first, button last

    # blinds by the right seats
    posts = [e for e in events if e["kind"] == "post" and e["post"] == "blind"]
    heads_up = len(seats) == 2 and len(blinds) == 2
    expected = [button, clockwise[0]] if heads_up else clockwise[: len(blinds)]
    for e in posts:  # (a blind is missing only when its poster went all-in on the ante)
        assert e["seat"] == expected[e["blind"] - 1]
    assert [e["blind"] for e in posts] == sorted(e["blind"] for e in posts)
    for e in posts:
        nominal = blinds[e["blind"] - 1]
        assert e["amount"] == nominal or (e["all_in"] and e["amount"] < nominal)

    # every card unique within the hand (the seat draw used its own deck)
    dealt: list[str] = []
    holding: dict[int, list[str]] = {}
    for e in events:
        if e["kind"] == "deal" and e["to"] != "burn":
            dealt += e["cards"]
            if e["to"] == "hole":
                assert len(e["cards"]) == variant.hole_cards
                holding[e["seat"]] = list(e["cards"])
        elif e["kind"] == "draw":
            assert len(e["discard"]) == len(e["receive"])
            assert set(e["discard"]) <= set(holding[e["seat"]])
            holding[e["seat"]] = [c for c in holding[e["seat"]] if c not in e["discard"]] + e["receive"]
            dealt += e["receive"]
    assert "??" not in dealt
    assert len(dealt) == len(set(dealt)), "a card was dealt twice"
    assert [e["seat"] for e in events if e["kind"] == "deal" and e["to"] == "hole"] == clockwise

    # betting
    cum = list(itertools.accumulate(variant.board_schedule))
    board: list[str] = []
    folded: set[int] = set()
    allin: set[int] = set()
    contributed = dict.fromkeys(seats, 0)
    returned = 0
    awarded = 0
    raked = 0
    drew = False

    round_in = dict.fromkeys(seats, 0)
    raises = 0
    round_no = 0
    cur = max(blinds)  # the blinds open round 0: the largest is the bet, the last the increment
    inc = blinds[-1]
    opened = True
    # preflop action starts left of the last blind, later rounds left of the button
    last_actor = expected[-1]
    acted_at: dict[int, int] = {}  # when each player last acted in this round
    full_at = -1  # when the last full bet or raise of this round was made
    for n_event, e in enumerate(events):
        kind = e["kind"]
        if kind == "post":
            assert e["amount"] % unit == 0 and e["amount"] <= stack[e["seat"]]
            stack[e["seat"]] -= e["amount"]
            contributed[e["seat"]] += e["amount"]
            assert e["all_in"] == (stack[e["seat"]] == 0)
            if e["all_in"]:
                allin.add(e["seat"])
            if e["post"] == "blind":
                round_in[e["seat"]] += e["amount"]
            continue
        if (kind == "deal" and e["to"] == "board") or kind == "draw":
            if kind == "draw":
                drew = True
            else:
                board += e["cards"]
            new_round = cum.index(len(board))
            if drew:
                new_round = max(new_round, variant.draw_before.index(True))
            if new_round != round_no:
                assert new_round == round_no + 1
                round_no = new_round
                last_actor = button
                acted_at = {}
                full_at = -1
                round_in = dict.fromkeys(seats, 0)
                cur = raises = 0
                opened = False
                if structure == "fixed-limit":
                    inc = stakes["bet_units"][round_no]
                elif structure == "spread-limit":
                    inc = stakes["spread"][round_no]["min"]
                else:
                    inc = blinds[-1]
            continue
        if kind == "action":
            s = e["seat"]
            assert s not in folded and s not in allin, "a folded or all-in player acted"
            k = seats.index(last_actor)
            turn = next(p for p in seats[k + 1 :] + seats[: k + 1] if p not in folded and p not in allin)
            assert s == turn, f"seat {s} acted out of turn (seat {turn} was next)"
            last_actor = s
            previous_act = acted_at.get(s)
            acted_at[s] = n_event
            act = e["action"]
            owed = max(0, cur - round_in[s])
            if act == "fold":
                assert owed > 0, "folded facing no bet"
                folded.add(s)
                continue
            if act == "check":
                assert owed == 0
                continue
            amount = e["amount"]
            assert amount % unit == 0 and 0 < amount <= stack[s]
            assert e["to"] == round_in[s] + amount
            all_in = amount == stack[s]
            assert e["all_in"] == all_in
            pot_before = sum(contributed.values())
            live_not_allin = len(seats) - len(folded) - len(allin)
            if act == "call":
                assert owed > 0
                assert amount == owed or (all_in and amount < owed), "short call without all-in"
            else:
                to = e["to"]
                assert to > cur
                assert (act == "bet") == (not opened)
                d = to - cur
                # only a full bet or raise reopens the betting for a player who already acted
                assert previous_act is None or full_at > previous_act, "re-raise after a short all-in"
                unit_r = stakes["bet_units"][round_no] if structure == "fixed-limit" else 0
                if d >= (house.limit_reopen_fraction * unit_r if unit_r else inc):
                    full_at = n_event
                if act == "bet":
                    if structure == "fixed-limit":
                        assert d == inc or (all_in and d < inc)
                    elif structure == "spread-limit":
                        spread = stakes["spread"][round_no]
                        assert (spread["min"] <= d or all_in) and d <= spread["max"]
                    else:
                        assert d >= blinds[-1] or all_in
                        if structure == "pot-limit":
                            assert to <= pot_before, "pot-limit bet above the pot"
                else:
                    if structure == "fixed-limit":
                        assert d == unit_r or (all_in and d < unit_r), "fixed-limit raise not one unit"
                        counts = d >= house.limit_reopen_fraction * unit_r
                    else:
                        assert d >= inc or all_in, f"raise increment {d} below minimum {inc}"
                        counts = True
                        if d < inc:
                            stats["short_all_in_raises"] += 1
                        if d == inc and not all_in:
                            stats["min_raises"] += 1
                        if structure == "spread-limit":
                            assert d <= stakes["spread"][round_no]["max"]
                        if structure == "pot-limit":
                            max_to = cur + pot_before + owed
                            assert to <= max_to, "pot-limit raise above the pot"
                            stats["pot_max_raises"] += to == max_to
                    if counts:
                        raises += 1
                    if structure in ("fixed-limit", "spread-limit") and house.max_raises is not None:
                        if raises > house.max_raises:
                            assert house.heads_up_uncapped and live_not_allin == 2, "raise over the cap"
                            stats["raises_past_cap"] += 1
                        elif raises == house.max_raises:
                            stats["rounds_at_cap"] += 1
                if structure != "fixed-limit" and d > inc:
                    inc = d
                cur = to
                opened = True
            stack[s] -= amount
            round_in[s] += amount
            contributed[s] += amount
            if all_in:
                allin.add(s)
                stats["all_ins"] += 1
            continue
        if kind == "return":
            s = e["seat"]
            others = max(v for p, v in round_in.items() if p != s)
            assert round_in[s] - e["amount"] == others, "return is not the uncalled part"
            round_in[s] -= e["amount"]
            contributed[s] -= e["amount"]
            stack[s] += e["amount"]
            returned += e["amount"]
            stats["returns"] += 1
        elif kind == "rake":
            raked += e["amount"]
        elif kind == "award":
            awarded += e["amount"]
            stack[e["seat"]] += e["amount"]
    # chip conservation
    assert awarded + raked == sum(contributed.values())
    assert sum(stack.values()) + raked == start_total
    assert all(x >= 0 for x in stack.values())
    live = [s for s in seats if s not in folded]
    assert len(board) == (variant.board_cards if len(live) > 1 else len(board))
    check_awards(hand, house, variant, board, holding, contributed, folded, clockwise, stats)


def check_awards(hand, house, variant, board, holding, contributed, folded, clockwise, stats) -> None:
    unit = hand["stakes"]["chip_unit"]
    events = hand["events"]
    shows = {e["seat"]: e["cards"] for e in events if e["kind"] == "show"}
    live = [s for s in clockwise if s not in folded]
    pots = build_pots(contributed, folded)
    rake = sum(e["amount"] for e in events if e["kind"] == "rake")
    awards = collections.defaultdict(list)
    for e in events:
        if e["kind"] == "award":
            awards[e["pot"]].append((e["seat"], e["amount"]))
    if len(live) == 1:
        assert not shows
        assert {s for a in awards.values() for s, _ in a} == set(live)
        return
    assert set(shows) == set(live)
    for s, cards in shows.items():
        assert sorted(cards) == sorted(holding[s])
    seats = sorted(shows)
    hole = np.array([[parse_card(c) for c in shows[s]] for s in seats], dtype=np.int8)
    brd = np.array([[parse_card(c) for c in board]] * len(seats), dtype=np.int8).reshape(len(seats), len(board))
    res = best_hands(hole, brd, variant.hole_use, variant.board_use)
    value = dict(zip(seats, res.value.tolist(), strict=True))
    top = dict(zip(seats, res.top_hole_used.tolist(), strict=True))
    for pid, pot in enumerate(pots):
        amount = pot.amount - (rake if pid == 0 else 0)
        best = max(value[s] for s in pot.eligible)
        winners = [s for s in pot.eligible if value[s] == best]
        got = dict(awards.get(pid, []))
        assert set(got) <= set(winners)
        assert sum(got.values()) == amount
        if len(winners) == 1:
            continue
        stats["split_pots"] += 1
        share = amount // unit // len(winners) * unit
        odd = amount // unit % len(winners)
        if house.odd_chip_method == "suit":

            def key(s: int) -> tuple[int, int]:
                t = top[s]
                rank = -1 if t < 0 else (t >> 2) * 4 + house.suit_rank("cdhs"[t & 3])
                return (-rank, clockwise.index(s))

            ordered = sorted(winners, key=key)
        else:
            ordered = sorted(winners, key=clockwise.index)
        for n, s in enumerate(ordered):
            assert got.get(s, 0) == share + (unit if n < odd else 0), "odd chip to the wrong winner"
        if odd:
            stats["odd_chip_splits"] += 1
            stats[f"splits_{len(winners)}way"] += 1


def run(variant, structure, hands, seed, house=HOUSE, **kw) -> tuple[list[dict], collections.Counter]:
    out = list(simulate_hands(variant, structure, hands, seed, house=house, rule_pack="test-pack", **kw))
    stats: collections.Counter = collections.Counter()
    for h in out:
        audit(h, house, stats)
    return out, stats


@pytest.mark.parametrize("structure", STRUCTURES)
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_valid_and_legal(variant: str, structure: str) -> None:
    hands, stats = run(variant, structure, 200, 7, seat_draws=True)
    assert len(hands) == 200
    for h in hands:
        errors = fast_errors(h)
        assert not errors, errors[0]
    for h in hands[:: 200 // 8]:  # and the schema as written, on a sample
        errors = list(validator().iter_errors(h))
        assert not errors, errors[0].message
    ids = [h["hand_id"] for h in hands]
    assert len(set(ids)) == len(ids)
    by_table = collections.defaultdict(list)
    for h in hands:
        by_table[h["table_id"]].append(h)
    for table in by_table.values():
        assert [h["hand_id"] for h in table] == sorted(h["hand_id"] for h in table)
        stamps = [h["started_at"] for h in table]
        assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)
        assert all(s.endswith("Z") for s in stamps)
        # button moves one occupied seat clockwise
        for a, b in itertools.pairwise(table):
            seats = [s["seat"] for s in a["seats"]]
            ba = next(e["seat"] for e in a["events"] if e["kind"] == "button")
            bb = next(e["seat"] for e in b["events"] if e["kind"] == "button")
            assert bb == seats[(seats.index(ba) + 1) % len(seats)]
    assert stats["all_ins"] > 0
    assert stats["returns"] > 0


def test_determinism() -> None:
    a = list(simulate_hands("holdem", "no-limit", 300, 11, house=HOUSE, rule_pack="p"))
    b = list(simulate_hands("holdem", "no-limit", 300, 11, house=HOUSE, rule_pack="p"))
    c = list(simulate_hands("holdem", "no-limit", 300, 12, house=HOUSE, rule_pack="p"))
    assert json.dumps(a) == json.dumps(b)
    assert json.dumps(a) != json.dumps(c)
    # a shorter run is a prefix of a longer one
    d = list(simulate_hands("holdem", "no-limit", 100, 11, house=HOUSE, rule_pack="p"))
    assert json.dumps(d) == json.dumps(a[:100])


def test_stacks_carry_over_and_rebuy() -> None:
    hands = list(simulate_hands("holdem", "no-limit", 400, 3, house=HOUSE, rule_pack="p"))
    rebuys = 0
    for a, b in itertools.pairwise(hands):
        if a["table_id"] != b["table_id"]:
            continue
        end = {s["seat"]: s["stack"] for s in a["seats"]}
        for e in a["events"]:
            if e["kind"] in ("post", "action") and "amount" in e:
                end[e["seat"]] -= e["amount"]
            elif e["kind"] in ("return", "award"):
                end[e["seat"]] += e["amount"]
        start = {s["seat"]: s["stack"] for s in b["seats"]}
        assert set(start) == set(end)
        for seat, x in end.items():
            if x == 0:
                rebuys += 1
                assert start[seat] > 0
            else:
                assert start[seat] == x
    assert rebuys > 0
    bb = 100
    first = [s["stack"] for h in hands if h["hand_id"].endswith("-000001") for s in h["seats"]]
    assert any(x <= 15 * bb for x in first) and any(x >= 50 * bb for x in first)


@pytest.mark.parametrize("method", ["suit", "position"])
def test_split_pots_and_odd_chips(method: str) -> None:
    house = HouseRules(odd_chip_method=method)
    _, stats = run("holdem", "no-limit", 2000, 5, house=house)
    assert stats["split_pots"] >= 10
    assert stats["odd_chip_splits"] >= 5
    assert stats["splits_2way"] > 0


def test_odd_chip_with_other_suit_order() -> None:
    house = HouseRules(suit_order=("h", "c", "s", "d"))
    _, stats = run("omaha", "pot-limit", 1500, 8, house=house, seat_draws=True)
    assert stats["odd_chip_splits"] >= 1
    assert stats["seat_draws"] > 10


def test_limit_caps_and_heads_up() -> None:
    _, stats = run("three-card-nz", "fixed-limit", 1500, 9)
    assert stats["rounds_at_cap"] >= 20
    assert stats["raises_past_cap"] >= 5
    house = HouseRules(heads_up_uncapped=False)
    _, stats = run("three-card-nz", "fixed-limit", 1500, 9, house=house)
    assert stats["rounds_at_cap"] >= 20
    assert stats["raises_past_cap"] == 0  # audit() asserts no raise over the cap
    _, stats = run("holdem", "spread-limit", 800, 4, house=HouseRules(max_raises=2))
    assert stats["rounds_at_cap"] > 0


def test_sizes_occur() -> None:
    _, stats = run("omaha-nz", "pot-limit", 800, 2)
    assert stats["pot_max_raises"] >= 10
    assert stats["min_raises"] >= 10
    _, stats = run("holdem", "no-limit", 800, 2)
    assert stats["short_all_in_raises"] >= 1
    assert stats["min_raises"] >= 10


def test_seat_draws() -> None:
    _, stats = run("holdem", "no-limit", 3000, 1, seat_draws=True, session_hands=(20, 40))
    assert stats["seat_draws"] >= 50
    assert 0.15 <= stats["seat_draw_rank_ties"] / stats["seat_draws"] <= 0.5


def test_nz_blinds_and_deals() -> None:
    stakes = {"blinds": [50, 100, 200], "chip_unit": 50}
    hands, _ = run("three-card-nz", "no-limit", 300, 6, stakes=stakes, table_size=(3, 10))
    for h in hands:
        assert not fast_errors(h)
        assert [e["blind"] for e in h["events"] if e["kind"] == "post"] == [1, 2, 3]
        kinds = [(e["kind"], e.get("to")) for e in h["events"] if e["kind"] == "deal"]
        boards = [k for k in kinds if k[1] in ("board", "burn")]
        # up card right after the hole cards without a burn, then burn-and-one
        if boards:
            assert boards[0] == ("deal", "board")
            assert all(boards[i] == ("deal", "burn") for i in range(1, len(boards), 2))
    single, _ = run("holdem", "fixed-limit", 200, 6, stakes={"blinds": [100], "chip_unit": 50})
    assert not any(fast_errors(h) for h in single)


def test_rake() -> None:
    hands, _ = run("holdem", "no-limit", 300, 4, rake=(0.05, 300))
    rakes = [e for h in hands for e in h["events"] if e["kind"] == "rake"]
    assert rakes and all(e["amount"] % 50 == 0 and e["amount"] <= 300 and e["pot"] == 0 for e in rakes)


def test_mixed_and_writer(tmp_path: Path) -> None:
    games = [("holdem", "no-limit"), ("five-card-draw", "fixed-limit"), ("omaha-nz", "pot-limit")]
    hands = list(simulate_mixed(games, 500, 3, house=HOUSE, rule_pack="p"))
    assert {(h["variant"], h["structure"]) for h in hands} == set(games)
    stats: collections.Counter = collections.Counter()
    for h in hands:
        audit(h, HOUSE, stats)
    plain = tmp_path / "h.jsonl"
    gz1 = tmp_path / "a.jsonl.gz"
    gz2 = tmp_path / "b.jsonl.gz"
    assert write_jsonl(iter(hands), plain) == 500
    assert write_jsonl(hands, gz1) == 500
    assert write_jsonl(hands, gz2) == 500
    assert gz1.read_bytes() == gz2.read_bytes()
    lines = plain.read_text().splitlines()
    assert len(lines) == 500 and json.loads(lines[7]) == hands[7]
    assert gzip.decompress(gz1.read_bytes()) == plain.read_bytes()
    assert ": " not in lines[0] and ", " not in lines[0]


def test_fast_validation_agrees_with_the_schema() -> None:
    hand = next(iter(simulate_hands("five-card-draw", "spread-limit", 1, 1, house=HOUSE, rule_pack="p")))
    assert validator().is_valid(hand) and not fast_errors(hand)
    broken = [
        ("events", 0, "seat", 11),
        ("events", 1, "post", "bring-in"),
        ("events", 3, "cards", ["Xx"]),
        ("events", 2, "kind", "shuffle"),
    ]
    for _, index, field, value in broken:
        bad = json.loads(json.dumps(hand))
        bad["events"][index][field] = value
        assert not validator().is_valid(bad)
        assert fast_errors(bad)
    bad = json.loads(json.dumps(hand))
    bad["stakes"]["chip_unit"] = 0
    assert not validator().is_valid(bad) and fast_errors(bad)


@pytest.mark.parametrize("structure", ["pot-limit", "fixed-limit"])
def test_antes(structure: str) -> None:
    stakes = {"blinds": [50, 100], "chip_unit": 50, "ante": 50}
    hands, stats = run("omaha-nz", structure, 300, 12, stakes=stakes)
    for h in hands:
        antes = [e["seat"] for e in h["events"] if e["kind"] == "post" and e["post"] == "ante"]
        assert sorted(antes) == [s["seat"] for s in h["seats"]]
        assert not fast_errors(h)
    assert stats["returns"] > 0


def test_write_format_leaves_out_what_a_format_cannot_express(tmp_path: Path) -> None:
    """JSON Lines holds every hand; a room's format writes those it can and counts the rest by reason."""
    hands = [*simulate_hands("holdem", "no-limit", 25, 3, house=HOUSE, rule_pack="tda-2024"),
             *simulate_hands("holdem", "spread-limit", 5, 3, house=HOUSE, rule_pack="tda-2024")]
    count, skipped = write_format(hands, tmp_path / "all.jsonl")
    assert count == 30 and not skipped
    count, skipped = write_format(iter(hands), tmp_path / "some.txt", "pokerstars")
    assert count == 25 and dict(skipped) == {"PokerStars has no spread-limit games": 5}
    assert (tmp_path / "some.txt").read_text(encoding="utf-8").count("PokerStars Hand #") == count
