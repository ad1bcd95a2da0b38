"""A room's writer (its dialect run backwards): canonical hand -> the room's text -> the real reader gives the
same hand back; then PokerStars' own ways.

The property, for every room with a dialect (`rooms/`): for any simulated hand the format can hold (any of its
games and structures, table sizes, players sitting out, one planted fault or none, player names of any characters
the room's lines keep, names made of the room's own words), the reader's hand equals the canonical hand after the
normalisation `carried()` states (hand number, room, time in the room's zone, chips counted in the chip unit, no
burns), and the audit reports the same findings on both.
"""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st
from reader_items import one_by_one

from auditor.check.packs import builtin_pack_paths, load_pack
from auditor.export import writer as writer_of
from auditor.export.text_room import room_writer
from auditor.ingest.detect import read_file
from auditor.ingest.dialect import Lit, dialect
from auditor.ingest.tables import build_tables
from auditor.model.records import Quarantined, ReaderNote, SourceHand
from auditor.replay.state import TableState
from auditor.resources import room_names, xml_room_names
from auditor.simulate import simulate_hands
from auditor.simulate.mutate import REGISTRY, prime, register_pack
from auditor.simulate.verify import _audit, applicable_mutators

ps = room_writer("pokerstars")
PACKS = {name: load_pack(path) for name, path in builtin_pack_paths().items()}
PACK_OF = {"holdem": "tda-2024", "omaha": "tda-2024", "five-card-draw": "online-five-card-draw"}
CORPUS = Path("/work/shared/corpus/pokerstars/hhsmithy")
#: player names: any printable text the room's lines keep (no line breaks, no trailing blank); with names made of
#: the room's own words (`_names`)
NAMES = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=14)


def _hands(variant: str, structure: str, n: int, seed: int, **options) -> list[dict]:
    pack = PACKS[PACK_OF[variant]]
    return list(simulate_hands(variant, structure, n, seed, house=pack.house, rule_pack=pack.name, **options))


def _read(tmp: Path, hands: list[dict], name: str = "a.txt", room=ps) -> list:
    path = tmp / name
    assert room.write_hands(hands, path) == len(hands)
    # detected as an audit detects it; a room's convention notes (once per file) are not hands
    return [i for i in one_by_one(read_file(path, name="x")) if not isinstance(i, ReaderNote)]


def _findings(pack, hands: list[dict], mapped: bool, room=ps) -> set[tuple]:
    """(line, category, rule, seq) of every finding on `hands` audited in order; with `mapped`, the seq of
    the canonical event as the text's reader numbers it."""
    findings, failed = _audit(build_tables([SourceHand(h, "x", k) for k, h in enumerate(hands, 1)]), pack, TableState())
    assert not failed
    out = set()
    for r in findings.itertuples():
        seq = None if pd.isna(r.seq) else int(r.seq)
        if mapped and seq is not None:
            seq = room.event_index(hands[int(r.line) - 1])[seq]
        out.add((int(r.line), r.category, r.rule_id, seq))
    return out


def _room_words(room: str) -> list[str]:
    """Words of the room's own lines (its templates' literal text), which a reader must not take for its lines
    when a player is named with them."""
    spoken = dialect(room)
    texts = [part.text.strip() for t in (*spoken.every, *spoken.header.values()) for part in t.parts
             if isinstance(part, Lit) and part.text.strip()]
    return [*sorted(set(texts)), "(1)", "calls 2", "(5 in chips)", "shows [Ah Kd]", '"hi"', "[]"]


def _names(room: str) -> st.SearchStrategy[str]:
    return st.one_of(NAMES, st.lists(st.sampled_from(_room_words(room)), min_size=1, max_size=3).map(" ".join))


def _games(room: str) -> list[str]:
    """The games of `PACK_OF` the room deals (its dialect's game words)."""
    dealt = {game.get("variant") for game in dialect(room).syntax["games"]}
    return sorted(v for v in PACK_OF if v in dealt)


@pytest.mark.parametrize("room_name", room_names())
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
          phases=(Phase.explicit, Phase.reuse, Phase.generate))
@given(game=st.integers(0, 99), structure=st.sampled_from(["fixed-limit", "pot-limit", "no-limit"]),
       seed=st.integers(0, 2**31 - 1), high=st.integers(2, 9), data=st.data(), fault=st.integers(0, 200))
def test_text_reads_back_as_the_same_hand_with_the_same_findings(tmp_path_factory, room_name, game, structure, seed,
                                                                  high, data, fault):
    room = room_writer(room_name)
    variant = _games(room_name)[game % len(_games(room_name))]
    names = data.draw(st.lists(_names(room_name), min_size=9, max_size=9))
    pack = PACKS[PACK_OF[variant]]
    register_pack(pack)
    hands = _hands(variant, structure, 8, seed, table_size=(2, min(high, 7 if variant == "five-card-draw" else 9)),
                   sit_outs=True, session_hands=(8, 8))
    rename = {}
    for h in hands:
        for s in h["seats"]:
            rename.setdefault(s["player"], names[len(rename) % len(names)] + ("" if len(rename) < 9 else
                                                                              f" {len(rename)}"))
            s["player"] = rename[s["player"]]
    mutators = applicable_mutators(pack, variant, structure)
    last = pickle.loads(pickle.dumps(hands[-1]))
    alone = [m for m in mutators if not m.needs_history and m.category not in room.HIDDEN_CATEGORIES]
    mutator = alone[fault % len(alone)] if fault < 100 and alone else None
    if mutator is not None and mutator.plant(last) is not None:
        hands[-1] = last
    why = next((r for h in hands if (r := room.cannot_express(h))), None)
    assume(why is None)
    back = _read(tmp_path_factory.mktemp("room"), hands, "a" + room.SUFFIX, room)
    assert len(back) == len(hands)
    for h, item in zip(hands, back, strict=True):
        assert isinstance(item, SourceHand), item.one_line()
        got = dict(item.hand, rule_pack=h["rule_pack"])
        assert got == room.carried(h)
    assert _findings(pack, [i.hand for i in back], mapped=False) == \
        _findings(pack, hands, mapped=True, room=room)


def test_the_text_follows_the_rooms_conventions(tmp_path):
    hand = next(h for h in _hands("holdem", "no-limit", 40, 5) if sum(e["kind"] == "show" for e in h["events"]) > 1)
    lines = ps.format_hand(hand)
    assert re.fullmatch(r"PokerStars Hand #\d+:  Hold'em No Limit \(1/2\) - \d{4}/\d\d/\d\d \d{1,2}:\d\d:\d\d ET",
                        lines[0])
    assert re.fullmatch(r"Table '.+' \d+-max Seat #\d+ is the button", lines[1])
    assert "*** HOLE CARDS ***" in lines and "*** SHOW DOWN ***" in lines and "*** SUMMARY ***" in lines
    assert any(line.startswith("Total pot ") for line in lines) and any(line.startswith("Board [") for line in lines)
    assert not any("burn" in line.lower() for line in lines)
    # the same words as the room's own files
    if CORPUS.is_dir():
        room = "\n".join(p.read_text(encoding="utf-8-sig", errors="replace") for p in CORPUS.rglob("*.txt"))
        for line in lines:
            verb = re.sub(r"^.*?: (\w+).*$", r"\1", line) if ": " in line else None
            if verb in ("posts", "calls", "raises", "bets", "checks", "folds", "shows"):
                assert f": {verb} " in room or f": {verb}\n" in room or f": {verb} \n" in room


def test_draw_text_and_a_discard_with_nothing_received(tmp_path):
    hand = next(h for h in _hands("five-card-draw", "fixed-limit", 40, 3)
                if any(e["kind"] == "draw" and e["discard"] for e in h["events"]))
    text = "\n".join(ps.format_hand(hand))
    assert "5 Card Draw Limit (2/4)" in text and "*** FIRST DRAW ***" in text
    assert re.search(r": discards \d cards? \[", text) and re.search(r"Dealt to .+ \[.*\] \[.+\]", text)
    draw = next(e for e in hand["events"] if e["kind"] == "draw" and e["discard"])
    draw["receive"] = draw["receive"][:-1]  # a card short: written as it happened, the reader keeps it
    (item,) = _read(tmp_path, [hand])
    assert dict(item.hand, rule_pack=hand["rule_pack"]) == ps.carried(hand)


def test_hand_numbers_keep_ids_equal_or_apart():
    assert ps.hand_number("123456") == "123456"
    assert ps.hand_number("T1-000001") == ps.hand_number("T1-000001") != ps.hand_number("T1-000002")
    assert ps.hand_number("T1-000001").isdigit()


def test_burns_are_not_written_and_events_are_renumbered():
    hand = _hands("holdem", "no-limit", 20, 1)[0]
    burns = [i for i, e in enumerate(hand["events"]) if e["kind"] == "deal" and e["to"] == "burn"]
    index = ps.event_index(hand)
    assert burns and all(index[i] is None for i in burns)
    assert sorted(i for i in index if i is not None) == list(range(len(hand["events"]) - len(burns)))
    assert "burn" in ps.HIDDEN_CATEGORIES


@pytest.mark.parametrize(("change", "reason"), [
    (lambda h: h.update(structure="spread-limit"), "spread-limit"),
    (lambda h: h.update(variant="omaha-nz"), "omaha-nz"),
    (lambda h: h["events"].insert(0, {"kind": "seat_draw", "seat": 1, "draws": [], "awarded_to": "x"}),
     "draw for seats"),
    (lambda h: h["seats"][0].update(status="away"), "only as sitting out"),
    (lambda h: h["stakes"].update(blinds=[25, 50, 100]), "two blinds"),
    (lambda h: h["stakes"].update(table_min=100), "table_min"),
    (lambda h: h.update(currency="USD", money_scale=100), "cents"),
    (lambda h: h["events"].append({"kind": "rake", "amount": h["stakes"]["chip_unit"]}), "raked hand in chips"),
    (lambda h: h["seats"][0].update(player="two\nlines"), "line break"),
    (lambda h: h["seats"][0].update(player="blank "), "starts or ends in a blank"),
    (lambda h: h["seats"][0].update(player=" blank"), "starts or ends in a blank"),
    (lambda h: h["seats"][0].update(player=h["seats"][1]["player"]), "two seats"),
    (lambda h: next(e for e in h["events"] if e["kind"] == "action" and e["action"] == "call").update(
        to=10**9), "round total"),
])
def test_what_the_text_has_no_words_for(change, reason):
    hand = next(h for h in _hands("holdem", "no-limit", 30, 2)
                if any(e["kind"] == "action" and e["action"] == "call" for e in h["events"]))
    assert ps.cannot_express(hand) is None
    change(hand)
    why = ps.cannot_express(hand)
    assert why is not None and reason in why
    with pytest.raises(ValueError, match="cannot be written"):
        ps.write_hands([hand], Path("/dev/null"))


def test_a_hand_the_house_killed_is_the_rooms_timed_out_fold(tmp_path):
    hand = next(h for h in _hands("holdem", "no-limit", 30, 2) if any(e.get("action") == "fold" for e in h["events"]))
    at = next(i for i, e in enumerate(hand["events"]) if e.get("action") == "fold")
    seat = hand["events"][at]["seat"]
    hand["events"][at] = {"kind": "kill", "seat": seat}
    assert ps.cannot_express(hand) is None
    player = next(s["player"] for s in hand["seats"] if s["seat"] == seat)
    text = "\n".join(ps.format_hand(hand))
    assert f"{player} has timed out\n{player}: folds" in text
    (item,) = _read(tmp_path, [hand])
    assert dict(item.hand, rule_pack=hand["rule_pack"]) == ps.carried(hand)
    # a fold of the player's own after it, or by a seat with nothing behind, the text cannot tell from a kill
    later = next((i for i, e in enumerate(hand["events"]) if i > at and e.get("action") == "fold"), None)
    if later is not None:
        hand["events"][later]["seat"] = seat
        assert "killing the hand" in ps.cannot_express(hand)


@pytest.mark.parametrize("structure", ["no-limit", "fixed-limit"])
def test_antes_read_back(tmp_path, structure):
    hands = _hands("holdem", structure, 12, 8, stakes={"blinds": [50, 100], "chip_unit": 50, "ante": 50},
                   table_size=(3, 6))
    assert any(e.get("post") == "ante" for h in hands for e in h["events"])
    for h, item in zip(hands, _read(tmp_path, hands), strict=True):
        assert dict(item.hand, rule_pack=h["rule_pack"]) == ps.carried(h)


def test_a_cash_game_in_cents(tmp_path):
    hand = _hands("holdem", "no-limit", 5, 4)[0]
    unit = hand["stakes"]["chip_unit"]
    for key in ("blinds",):
        hand["stakes"][key] = [x // unit for x in hand["stakes"][key]]
    for s in hand["seats"]:
        s["stack"] //= unit
    for e in hand["events"]:
        for key in ("amount", "to") if e["kind"] == "action" else ("amount",):
            if key in e:
                e[key] //= unit
    hand["stakes"]["chip_unit"] = 1
    hand.update(currency="USD", money_scale=100)
    # raked from the main pot, before the award (as the simulator writes it): the room states it once, in the summary
    award = next(i for i, e in enumerate(hand["events"]) if e["kind"] == "award")
    hand["events"][award]["amount"] -= 1
    hand["events"].insert(award, {"kind": "rake", "pot": 0, "amount": 1})
    assert ps.cannot_express(hand) is None
    assert "($0.01/$0.02 USD)" in ps.format_hand(hand)[0]
    assert any(line.endswith("| Rake $0.01") for line in ps.format_hand(hand))
    assert ps.event_index(hand)[award] == max(i for i in ps.event_index(hand) if i is not None)  # read back last
    (item,) = _read(tmp_path, [hand])
    assert dict(item.hand, rule_pack=hand["rule_pack"]) == ps.carried(hand)


def test_every_writer_mutation_it_can_express_is_read_back(tmp_path):
    """Each mutator the two packs name, planted once where it fits: the text the writer gives reads back
    as the mutated hand (an illegal action is written, not judged)."""
    seen = set()
    for variant, structure in [("holdem", "no-limit"), ("omaha", "pot-limit"), ("holdem", "fixed-limit"),
                               ("five-card-draw", "no-limit")]:
        pack = PACKS[PACK_OF[variant]]
        register_pack(pack)
        hands = _hands(variant, structure, 80, 7, table_size=(2, 6), sit_outs=True)
        prime(hands)  # the mutators' facts from one replay of them all
        for m in applicable_mutators(pack, variant, structure):
            if m.needs_history or m.name in seen:
                continue
            for hand in hands:
                work = pickle.loads(pickle.dumps(hand))
                if m.plant(work) is not None and ps.cannot_express(work) is None:
                    (item,) = _read(tmp_path, [work], f"{m.name}.txt")
                    assert isinstance(item, SourceHand), f"{m.name}: {item.one_line()}"
                    assert dict(item.hand, rule_pack=work["rule_pack"]) == ps.carried(work), m.name
                    seen.add(m.name)
                    break
    assert {"check_facing_bet", "act_after_fold", "undercall", "short_hole", "extra_board_card"} <= seen
    assert set(REGISTRY) >= seen


def test_reader_refuses_a_name_with_a_leading_blank_instead_of_reading_another_seats_fold(tmp_path):
    """Lines are read without their edge blanks, so ' 0: folds' would silently be the fold of player '0'
    in another seat: such a name cannot be placed and the hand is refused (PokerStars names have none)."""
    hand = next(h for h in _hands("holdem", "no-limit", 40, 1, table_size=(2, 2))
                if next(e for e in h["events"] if e["kind"] == "action")["action"] == "fold"
                and not any(e["kind"] == "seat_draw" for e in h["events"]))
    folder = next(e for e in hand["events"] if e["kind"] == "action")["seat"]
    for s in hand["seats"]:
        s["player"] = " 0" if s["seat"] == folder else "0"
    path = tmp_path / "blank.txt"
    path.write_text("\n".join(ps.format_hand(hand)) + "\n", encoding="utf-8")
    (item,) = one_by_one(read_file(path))
    assert isinstance(item, Quarantined) and item.code == "damaged"
    assert "starts or ends with a blank" in item.reason


@pytest.mark.parametrize("name", ["PokerStars Hand #1: collected", "x PokerStars Game #77: folds"])
def test_a_player_name_holding_a_header_does_not_cut_the_hand_in_two(tmp_path, name):
    """Found by the round-trip property: the reader splits a concatenated export where a header starts
    mid-line, and an attacker-chosen name began a 'hand' there. Only a whole header, date included, counts."""
    hands = _hands("holdem", "no-limit", 3, 7)
    for h in hands:
        h["seats"][0]["player"] = name
    assert ps.cannot_express(hands[0]) is None
    back = _read(tmp_path, hands)
    assert [type(item).__name__ for item in back] == ["SourceHand"] * len(hands)
    assert [item.hand["seats"][0]["player"] for item in back] == [name] * len(hands)


def _no_hole_cards(hand: dict) -> dict:
    return {**hand, "events": [{**e, "cards": None} if e["kind"] == "deal" and e["to"] == "hole" else e
                               for e in hand["events"]]}


@pytest.mark.parametrize(("variant", "structure", "seed"), [("holdem", "no-limit", 3), ("omaha", "pot-limit", 5),
                                                            ("holdem", "fixed-limit", 8)])
def test_the_same_hands_written_by_every_room_read_back_as_the_same_hands(tmp_path, variant, structure, seed):
    """One table's hands written by each room's writer (the hands every room can express) and read back give the
    same canonical hands, but for what names the room (its title, its hand number, its zone's clock): the same
    seats, stakes and events, whatever each room's conventions (returns at the showdown or paid with the pot,
    awards in the summary, blinds after the marker, no return or rake written) made of the text, and iPoker's
    XML too; a room that names its players by seat (Bovada's) gives each seat's player that name. The table's
    size is compared where the room writes it (888 numbers every table's seats as a ten-seat one's)."""
    hands = _hands(variant, structure, 40, seed, table_size=(2, 6), session_hands=(40, 40))
    writers = {**{name: room_writer(name) for name in room_names()},
               **{name: writer_of(name) for name in xml_room_names()}}
    # (the rooms that deal the structure: Bovada's text, which states no bet sizes, has no fixed limit)
    writers = {name: w for name, w in writers.items() if any(w.cannot_express(h) is None for h in hands)}
    hands = [h for h in hands if all(w.cannot_express(h) is None for w in writers.values())]
    assert len(hands) >= 10
    read = {}
    blind: set[str] = set()
    for name, writer in writers.items():
        back = _read(tmp_path, hands, name + writer.SUFFIX, writer)
        assert all(isinstance(i, SourceHand) for i in back), name
        table = writer.dialect.header["table"] if hasattr(writer, "dialect") else None  # (the XML states the size)
        carries_size = table is None or "max_seats" in table.pattern.groupindex
        read[name] = [{k: v for k, v in i.hand.items() if k not in ("hand_id", "room", "started_at", "money_scale")
                       and (carries_size or k != "max_seats")} for i in back]
        if hasattr(writer, "dialect") and "dealt" not in writer.dialect.lines:  # a room printing no hole cards
            blind.add(name)
    first, *others = read
    for name in others:
        by_seat = getattr(writers[name], "names_by_seat", False)  # a room naming players by seat (Bovada's)
        for one, other in zip(read[first], read[name], strict=True):
            if by_seat:
                one = {**one, "seats": [{**s, "player": f"Seat {s['seat']}"} for s in one["seats"]]}
            if name in blind:  # (only the cards shown come back: the hole cards dealt are not compared)
                one, other = _no_hole_cards(one), _no_hole_cards(other)
            assert {k: v for k, v in one.items() if k in other} == {k: v for k, v in other.items() if k in one}, \
                (first, name)
        assert len(read[name]) == len(read[first])
