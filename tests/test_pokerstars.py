"""PokerStars text reader: hands checked event by event, the whole corpus, encodings, and an audit of it.

The corpus is read where it lives (`../shared/corpus/pokerstars/`, beside the project); hand-made
samples for what the corpus lacks (five-card draw, "small & big blinds", a capped limit round, a
tournament with antes, seated players sitting out, hostile names) are in tests/fixtures/pokerstars/.
"""

from __future__ import annotations

import codecs
import json
import re
from collections import Counter
from pathlib import Path

import pytest
from reader_items import read_pokerstars, sniff_pokerstars

from auditor.ingest.jsonl import consistency_error
from auditor.ingest.validate import schema_error
from auditor.model.records import Quarantined, ReaderNote, SourceHand
from auditor.pipeline import audit

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
PS = CORPUS / "pokerstars"
HHS = PS / "hhsmithy" / "PokerStars" / "CashGame"
POKERDF = PS / "pokerdf-tests" / "input"
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "pokerstars"

needs_corpus = pytest.mark.skipif(not PS.is_dir(), reason=f"the shared hand-history corpus is not at {PS}")


def read_all(path: Path) -> list[SourceHand | Quarantined]:
    """The hands of a file, read or quarantined (the reader's notes about the file left out)."""
    return [i for i in read_pokerstars(path) if not isinstance(i, ReaderNote)]


def only_hand(path: Path) -> dict:
    items = read_all(path)
    assert len(items) == 1, items
    assert isinstance(items[0], SourceHand), items[0]
    return items[0].hand


def corpus_files() -> list[Path]:
    return sorted(p for p in PS.rglob("*.txt"))


def chips_in_minus_out(hand: dict) -> tuple[int, int]:
    """(chips put in by posts and actions less returns, awards plus rake)."""
    events = hand["events"]
    put = sum(e["amount"] for e in events if e["kind"] in ("post", "action") and "amount" in e)
    back = sum(e["amount"] for e in events if e["kind"] == "return")
    paid = sum(e["amount"] for e in events if e["kind"] in ("award", "rake"))
    return put - back, paid


def post(seat, kind, amount, blind=None, all_in=False):
    e = {"kind": "post", "seat": seat, "post": kind}
    if blind:
        e["blind"] = blind
    e["amount"] = amount
    if all_in:
        e["all_in"] = True
    return e


def act(seat, verb, amount=None, to=None, all_in=False):
    e = {"kind": "action", "seat": seat, "action": verb}
    if amount is not None:
        e.update(amount=amount, to=to)
    if all_in:
        e["all_in"] = True
    return e


def hole(seat, cards):
    return {"kind": "deal", "to": "hole", "seat": seat, "cards": cards.split() if isinstance(cards, str) else cards}


def board(cards):
    return {"kind": "deal", "to": "board", "cards": cards.split()}


UNKNOWN2 = ["??", "??"]


# -- hands read event by event against the text -------------------------------------------------------

@needs_corpus
def test_no_limit_hand_with_side_pots_and_an_uncalled_bet():
    hand = only_hand(HHS / "ExtraHands" / "SidePot.txt")
    assert {k: hand[k] for k in ("hand_id", "table_id", "room", "started_at", "variant", "structure", "currency",
                                 "stakes", "max_seats", "rule_pack")} == {
        "hand_id": "85998509763", "table_id": "Rarahu IV Fast,40-100 bb", "room": "PokerStars",
        "started_at": "2012-09-10T19:43:58-04:00", "variant": "holdem", "structure": "no-limit",
        "currency": "EUR", "stakes": {"blinds": [5, 10], "chip_unit": 1}, "max_seats": 9, "rule_pack": "tda-2024"}
    assert [(s["seat"], s["player"], s["stack"]) for s in hand["seats"]] == [
        (1, "mofdis", 718), (2, "metra1977", 845), (3, "CrSilva.11", 138), (4, "danystorm", 1230),
        (5, "Lenorina", 400), (7, "soplak", 2085), (8, "VodkinFirst", 410), (9, "templargio", 3894)]
    assert hand["events"] == [
        {"kind": "button", "seat": 9},
        post(1, "blind", 5, blind=1), post(2, "blind", 10, blind=2),
        # dealt clockwise from the button's left; cards shown at the showdown fill the hole deals
        hole(1, "As Kd"), hole(2, UNKNOWN2), hole(3, "Jh Ad"), hole(4, UNKNOWN2), hole(5, "Qc Qd"),
        hole(7, UNKNOWN2), hole(8, UNKNOWN2), hole(9, "9d Jd"),
        act(3, "raise", 20, 20),                     # CrSilva.11: raises €0.10 to €0.20
        act(4, "fold"),
        act(5, "raise", 60, 60),                     # Lenorina: raises €0.40 to €0.60
        act(7, "fold"), act(8, "fold"),
        act(9, "call", 60, 60),
        act(1, "call", 55, 60),                      # the small blind completes: €0.55 on top of €0.05
        act(2, "fold"),
        act(3, "raise", 118, 138, all_in=True),      # raises €0.78 to €1.38 and is all-in
        act(5, "call", 78, 138), act(9, "call", 78, 138), act(1, "call", 78, 138),
        board("8s Qh Ks"),
        act(1, "check"),
        act(5, "bet", 262, 262, all_in=True),
        act(9, "call", 262, 262), act(1, "call", 262, 262),
        board("9s"),
        act(1, "check"), act(9, "check"),
        board("Tc"),
        act(1, "check"),
        act(9, "bet", 1287, 1287),
        act(1, "call", 318, 318, all_in=True),
        {"kind": "return", "seat": 9, "amount": 969},   # Uncalled bet (€9.69) returned to templargio
        {"kind": "show", "seat": 9, "cards": ["9d", "Jd"]},
        {"kind": "show", "seat": 1, "cards": ["As", "Kd"]},
        {"kind": "award", "pot": 2, "seat": 9, "amount": 608},   # from side pot-2
        {"kind": "show", "seat": 5, "cards": ["Qc", "Qd"]},
        {"kind": "award", "pot": 1, "seat": 9, "amount": 750},   # from side pot-1
        {"kind": "show", "seat": 3, "cards": ["Jh", "Ad"]},
        {"kind": "award", "pot": 0, "seat": 3, "amount": 537},   # from main pot
        {"kind": "rake", "amount": 89},
    ]
    assert chips_in_minus_out(hand) == (1984 - 0, 608 + 750 + 537 + 89)


def test_fixed_limit_hand_with_a_capped_round():
    hand = only_hand(FIXTURES / "fixed_limit_capped.txt")
    assert hand["structure"] == "fixed-limit"
    # "Hold'em Limit ($2/$4 USD)": the header gives the bets; the blinds are $1 and $2
    assert hand["stakes"] == {"blinds": [100, 200], "bet_units": [200, 200, 400, 400], "chip_unit": 1}
    assert hand["events"] == [
        {"kind": "button", "seat": 3},
        post(5, "blind", 100, blind=1), post(8, "blind", 200, blind=2),
        hole(5, UNKNOWN2), hole(8, "Ad Qd"), hole(1, "As Jc"), hole(3, UNKNOWN2),   # Ann's from "mucked [As Jc]"
        act(1, "raise", 400, 400), act(3, "call", 400, 400), act(5, "fold"), act(8, "call", 200, 400),
        board("Ah 9c 4d"),
        act(8, "bet", 200, 200),
        act(1, "raise", 400, 400),
        act(3, "raise", 600, 600),
        act(8, "raise", 600, 800),                   # the bet and three raises: the round is capped
        act(1, "call", 400, 800), act(3, "call", 200, 800),
        board("Ks"),
        act(8, "check"), act(1, "bet", 400, 400), act(3, "fold"), act(8, "call", 400, 400),
        board("2c"),
        act(8, "check"), act(1, "check"),
        {"kind": "show", "seat": 8, "cards": ["Ad", "Qd"]},
        {"kind": "muck", "seat": 1},
        {"kind": "award", "pot": 0, "seat": 8, "amount": 4400},
        {"kind": "rake", "amount": 100},
    ]
    assert chips_in_minus_out(hand) == (4500, 4500)


def test_tournament_hand_with_antes_and_a_side_pot():
    hand = only_hand(FIXTURES / "tournament_antes.txt")
    assert "currency" not in hand                    # tournament chips: the buy-in's USD is not the table's
    assert hand["table_id"] == "3000000001 7"
    # "18:00:00 CET [12:00:00 ET]" in June: the first stamp is summer time in Paris, 16:00 UTC
    assert hand["started_at"] == "2019-06-01T12:00:00-04:00"
    assert hand["stakes"] == {"blinds": [100, 200], "ante": 25, "chip_unit": 1}
    # "Mo (8,000 in chips) is sitting out" posts and is folded by the room: dealt in, so active
    assert [(s["seat"], s["stack"], s.get("status", "active")) for s in hand["seats"]] == [
        (2, 4250, "active"), (5, 1200, "active"), (7, 180, "active"), (9, 8000, "active")]
    assert hand["events"] == [
        {"kind": "button", "seat": 5},
        post(2, "ante", 25), post(5, "ante", 25), post(7, "ante", 25), post(9, "ante", 25),
        post(7, "blind", 100, blind=1), post(9, "blind", 200, blind=2),
        hole(7, "8h 8d"), hole(9, UNKNOWN2), hole(2, "Ac Kd"), hole(5, "9h 9s"),
        act(2, "raise", 600, 600), act(5, "call", 600, 600),
        act(7, "call", 55, 155, all_in=True),        # the ante is not part of the round's bet
        {"kind": "kill", "seat": 9},                 # "Mo: folds" while sitting out: the room's doing
        board("Kh 8s 3d"),
        act(2, "bet", 1000, 1000),                   # "bets 1,000"
        act(5, "call", 575, 575, all_in=True),
        {"kind": "return", "seat": 2, "amount": 425},
        board("5c"), board("Jd"),
        {"kind": "show", "seat": 2, "cards": ["Ac", "Kd"]},
        {"kind": "show", "seat": 5, "cards": ["9h", "9s"]},
        {"kind": "award", "pot": 1, "seat": 2, "amount": 2085},
        {"kind": "show", "seat": 7, "cards": ["8h", "8d"]},
        {"kind": "award", "pot": 0, "seat": 7, "amount": 720},
        {"kind": "rake", "amount": 0},
    ]
    assert chips_in_minus_out(hand) == (2805, 2805)


@needs_corpus
def test_tournament_hand_from_the_corpus():
    items = read_all(POKERDF / "HH20250517 T88888 Bounty Hold_em US$ 0,98 + US$ 0,25 + US$ 0,16.txt")
    assert [type(i).__name__ for i in items] == ["SourceHand"] * 4
    hand = items[1].hand                             # PokerStars Hand #22220
    assert hand["hand_id"] == "22220" and hand["table_id"] == "88888 1" and "currency" not in hand
    assert hand["stakes"] == {"blinds": [10, 20], "chip_unit": 1}
    assert hand["started_at"] == "2025-05-17T08:58:30-04:00"     # 9:58:30 BRT = 8:58:30 ET
    events = hand["events"]
    assert events[6:9] == [act(3, "raise", 100, 100), act(1, "call", 90, 100, all_in=True),
                           act(2, "call", 80, 100)]
    assert [e for e in events if e["kind"] == "award"] == [
        {"kind": "award", "pot": 1, "seat": 2, "amount": 400}, {"kind": "award", "pot": 0, "seat": 1, "amount": 300}]
    # "VillainB (button) mucked [Qc Jc]" in the summary: the mucked cards are known
    assert hole(3, "Qc Jc") in events


def test_five_card_draw():
    hand = only_hand(FIXTURES / "five_card_draw.txt")
    assert (hand["variant"], hand["structure"]) == ("five-card-draw", "fixed-limit")
    assert hand["stakes"] == {"blinds": [5, 10], "bet_units": [10, 20], "chip_unit": 1}
    unknown5 = ["??"] * 5
    assert hand["events"] == [
        {"kind": "button", "seat": 1},
        post(2, "blind", 5, blind=1), post(4, "blind", 10, blind=2),
        hole(2, unknown5), hole(4, unknown5), hole(1, "Ah Kd 7c 7d 2s"),
        act(1, "raise", 20, 20), act(2, "call", 15, 20), act(4, "call", 10, 20),
        {"kind": "draw", "seat": 2, "discard": ["??"] * 3, "receive": ["??"] * 3},
        {"kind": "draw", "seat": 4, "discard": [], "receive": []},                    # stands pat
        {"kind": "draw", "seat": 1, "discard": ["Ah", "Kd", "2s"], "receive": ["7h", "Qs", "3c"]},
        act(2, "check"), act(4, "bet", 20, 20), act(1, "raise", 40, 40), act(2, "fold"), act(4, "call", 20, 40),
        {"kind": "show", "seat": 1, "cards": ["7c", "7d", "7h", "Qs", "3c"]},
        {"kind": "show", "seat": 4, "cards": ["9c", "9h", "5d", "5s", "2h"]},
        {"kind": "award", "pot": 0, "seat": 1, "amount": 137},
        {"kind": "rake", "amount": 3},
    ]


def test_small_and_big_blinds_post():
    hand = only_hand(FIXTURES / "small_and_big_blinds.txt")
    assert hand["seats"][-1] == {"seat": 6, "player": "Ida", "stack": 100050}     # "$1,000.50"
    events = hand["events"]
    assert events[:5] == [
        {"kind": "button", "seat": 2},
        post(3, "blind", 5, blind=1), post(4, "blind", 10, blind=2),
        post(6, "missed", 10),                       # the big-blind part plays live
        post(6, "dead", 5),                          # the small-blind part is dead money
    ]
    # Ida's live $0.10 counts in the round: she checks, then calls $0.20 to $0.30
    assert act(6, "check") in events and act(6, "call", 20, 30) in events
    assert chips_in_minus_out(hand) == (100, 100)


def test_seated_players_sitting_out_are_not_dealt_in():
    hand = only_hand(FIXTURES / "sitting_out.txt")
    assert [(s["seat"], s.get("status", "active")) for s in hand["seats"]] == [
        (1, "active"), (2, "active"), (3, "sitting_out"),  # "Rae ($50 in chips) is sitting out"
        (4, "active"), (5, "sitting_out")]                  # "Tia: sits out" before the deal
    # "Uma: sits out": Uma has no seat and is ignored
    assert [e["seat"] for e in hand["events"] if e.get("to") == "hole"] == [2, 4, 1]
    assert hand["events"][-3:] == [{"kind": "return", "seat": 1, "amount": 100},
                                   {"kind": "award", "pot": 0, "seat": 1, "amount": 125},
                                   {"kind": "rake", "amount": 0}]


@needs_corpus
def test_sitting_out_lines_from_players_without_a_seat():
    # "Locik11: sits out" and "Eisnova: sits out": neither is in the seat list, so the hand is dealt
    # to the eight seated players
    hand = only_hand(HHS / "Seats" / "Full Ring (10 Handed).txt")
    assert hand["max_seats"] == 10 and hand["structure"] == "fixed-limit"
    assert [s["seat"] for s in hand["seats"]] == [3, 4, 5, 6, 7, 8, 9, 10]
    assert all("status" not in s for s in hand["seats"])
    assert [e["seat"] for e in hand["events"] if e.get("to") == "hole"] == [5, 6, 7, 8, 9, 10, 3, 4]


def test_player_names_are_read_by_position_and_kept_verbatim():
    items = read_all(FIXTURES / "strange_names.txt")
    assert len(items) == 1                           # "PokerStars Hand #42:" is a player, not a new hand
    hand = items[0].hand
    assert [s["player"] for s in hand["seats"]] == [
        "Bob", "Bob: calls $2", "<script>alert(1)</script>", "[Ah Kh] x: y", "PokerStars Hand #42:",
        "a (b) ($100 in chips) c"]
    assert [s["stack"] for s in hand["seats"]] == [20000] * 6
    assert hand["events"][1:3] == [post(2, "blind", 100, blind=1), post(3, "blind", 200, blind=2)]
    actions = [(e["seat"], e["action"], e.get("amount")) for e in hand["events"] if e["kind"] == "action"]
    assert actions == [(4, "raise", 600), (5, "call", 600), (6, "fold", None), (1, "fold", None),
                       (2, "call", 500), (3, "fold", None), (2, "check", None), (4, "bet", 1000),
                       (5, "fold", None), (2, "fold", None)]
    assert hand["events"][-3:-1] == [{"kind": "return", "seat": 4, "amount": 1000},
                                     {"kind": "award", "pot": 0, "seat": 4, "amount": 2000}]


def test_unsupported_games_are_quarantined_with_the_game_named():
    items = read_all(FIXTURES / "unsupported.txt")
    assert all(isinstance(i, Quarantined) for i in items)
    assert [(i.line, i.hand_id) for i in items] == [(1, "200000000011"), (10, "200000000012"),
                                                   (16, "200000000013"), (22, "200000000014"),
                                                   (27, "200000000015"), (32, "200000000016")]
    names = ["razz", "triple draw", "five-card Omaha", "seven-card stud", "hi/lo", "badugi"]
    for item, name in zip(items, names, strict=True):
        assert item.reason.startswith("unsupported variant:") and name in item.reason, item.reason


@needs_corpus
@pytest.mark.parametrize(("relative", "reason"), [
    ("PlayerTests/RunItTwice.txt", "run it twice: the hand has '*** FIRST RIVER ***'"),
    ("RunItTwiceTests/RunItTwice2.txt", "run it twice: the hand has '*** FIRST FLOP ***'"),
    ("ValidHandTests/CancelledHand.txt", "hand cancelled"),
    ("ValidHandTests/InValidHand.txt", "truncated: no *** SUMMARY *** section"),
    ("HandActionTests/OmahaHiLo.txt", "unsupported variant: Omaha Hi/Lo Pot Limit is a hi/lo split-pot game"),
    # the seat list says "Blahdi:42eblah" and "neverJa(1)ger", the actions "Blahdieblah" and "neverJager"
    ("PlayerTests/WithSittingOut.txt", "line 8: 'Blahdieblah' acts but has no seat in this hand"),
    ("ShowDownActionTests/Wins.txt", "not a whole hand: text before the first 'PokerStars Hand #' header"),
])
def test_corpus_hands_that_cannot_be_audited_are_quarantined(relative, reason):
    items = read_all(HHS / relative)
    assert len(items) == 1 and isinstance(items[0], Quarantined)
    assert items[0].reason.startswith(reason), items[0].reason
    assert items[0].line == 1


# -- the whole corpus -----------------------------------------------------------------------------------

HAND_START = re.compile(r"^PokerStars (?:Zoom )?(?:Hand|Game) #\d+:", re.MULTILINE)

#: the 21 hands of the corpus that cannot be audited, by reason
EXPECTED_QUARANTINE = {
    "not a whole hand: text before the first 'PokerStars Hand #' header (a fragment of a hand)": 6,
    "unsupported variant: Omaha Hi/Lo Pot Limit is a hi/lo split-pot game, which the engine does not have": 7,
    "unsupported variant: Omaha Hi/Lo No Limit is a hi/lo split-pot game, which the engine does not have": 1,
    "unsupported variant: Omaha Hi/Lo Limit is a hi/lo split-pot game, which the engine does not have": 1,
    "run it twice: the hand has '*** FIRST RIVER ***', two boards, which the engine does not have": 2,
    "run it twice: the hand has '*** FIRST FLOP ***', two boards, which the engine does not have": 1,
    "line 8: 'Blahdieblah' acts but has no seat in this hand": 1,
    "hand cancelled": 1,
    "truncated: no *** SUMMARY *** section": 1,
}


def independent_hand_count(path: Path) -> int:
    """Hand headers counted in the raw text, plus one for text before the first header (a fragment)."""
    raw = path.read_bytes()
    text = raw[3:].decode("utf-8") if raw.startswith(codecs.BOM_UTF8) else raw.decode("utf-8")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    starts = [m.start() for m in HAND_START.finditer(text)]
    before = text[: starts[0]] if starts else text
    return len(starts) + (1 if before.strip() else 0)


@pytest.fixture(scope="module")
def corpus_items() -> list[SourceHand | Quarantined]:
    if not PS.is_dir():
        pytest.skip(f"the shared hand-history corpus is not at {PS}")
    return [item for path in corpus_files() for item in read_all(path)]


@needs_corpus
def test_every_corpus_hand_is_converted_or_quarantined(corpus_items):
    expected = sum(independent_hand_count(p) for p in corpus_files())
    ok = [i for i in corpus_items if isinstance(i, SourceHand)]
    quarantined = [i for i in corpus_items if isinstance(i, Quarantined)]
    assert len(corpus_items) == len(ok) + len(quarantined) == expected == 233
    assert len(ok) == 212
    for item in ok:
        assert schema_error(item.hand) is None, (item.file, item.line)
        assert consistency_error(item.hand) is None, (item.file, item.line)
        assert item.hand["room"] == "PokerStars" and item.hand["rule_pack"] == "tda-2024"
    for item in quarantined:
        assert item.reason and "\n" not in item.reason and "\r" not in item.reason
        assert item.line >= 1
    reasons = Counter(q.reason for q in quarantined)
    print(f"\nPokerStars corpus: {len(corpus_items)} hands read, {len(ok)} converted, {len(quarantined)} quarantined")
    for reason, count in reasons.most_common():
        print(f"  {count:3d}  {reason}")
    assert dict(reasons) == EXPECTED_QUARANTINE


#: Hands whose chips do not add up, each a defect of the log itself (these HHSmithy samples were
#: edited by hand for parser tests). DateIssue1.txt and DateIssue2.txt are not here: they are in the
#: older export style that writes no "Uncalled bet" line (test_older_exports_without_uncalled_lines).
CHIPS_DO_NOT_ADD_UP = {
    # six antes of $0.05 are posted, but "Total pot $0.50" and "collected $0.50" leave them out: the
    # ante lines were added to a hand that had none.
    ("AnteTable.txt", "109715173634"): (90, 50),
}


@needs_corpus
def test_chips_put_in_equal_chips_paid_out(corpus_items):
    failing = {}
    for item in corpus_items:
        if isinstance(item, SourceHand):
            put, paid = chips_in_minus_out(item.hand)
            if put != paid:
                failing[(Path(item.file).name, item.hand["hand_id"])] = (put, paid)
    for (name, hand_id), (put, paid) in sorted(failing.items()):
        print(f"chips do not add up: {name} hand {hand_id}: in {put} - returned = {put}, paid {paid}")
    assert failing == CHIPS_DO_NOT_ADD_UP


#: What the audit of the converted corpus finds, rule by rule. Each one is a true deviation in the logs,
#: not a reader mistake. A rule of the pack that is not listed here must find nothing.
TRUE_FINDINGS = {
    # PokerStars' software enforces the minimum raise (TDA-43A) and the limit cap (TDA-48), and no
    # converted hand has a split pot (TDA-20, TDA-20A): the corpus's split pots are all in hi/lo or
    # run-it-twice hands, which are quarantined. So the rule-book rules find nothing.
    #
    # Record-integrity rules (where the pack has them):
    # the three hands whose chips do not balance, see CHIPS_DO_NOT_ADD_UP
    "TDA-INT-chips": Counter({hand_id: 1 for _, hand_id in CHIPS_DO_NOT_ADD_UP}),
    # (pokerdf-tests hand 33332, "VillainF: posts big blind 20 and is all-in", then "VillainF: folds":
    # a player with no chips behind has no decision to make, so the fold is the room killing the hand,
    # a `kill` event, and TDA-50 about acting does not apply.)
    # pokerdf-tests hand 22222: VillainA busts in hand 22221 (VillainB big blind), and going heads-up
    # VillainB posts the big blind again; TDA Rule 34-B moves the button so that cannot happen.
    "TDA-34B": Counter({"22222": 1}),
    # StreetTests/River.txt: the board is [5d Ks 7c Jc 7d] and "Fishmax3: shows [5d Kd]" (an edited sample)
    "TDA-INT-cards": Counter({"109687480274": 1}),
    # "TDA-INT-id" is computed below: the corpus holds the same hand in several sample files
    # (10MultipleHands.txt and NoNewLinesMultipleHands.txt are the same ten hands, some of which are
    # also single-hand samples), so every repeat of a hand id is a true repeat in this audit's input.
}


@needs_corpus
def test_audit_of_the_converted_corpus(corpus_items, tmp_path):
    hands = [i.hand for i in corpus_items if isinstance(i, SourceHand)]
    # one JSONL file per source file: a table's hands are consecutive only within one input file
    by_file: dict[str, list[dict]] = {}
    for item in corpus_items:
        if isinstance(item, SourceHand):
            by_file.setdefault(item.file, []).append(item.hand)
    for number, file_hands in enumerate(by_file.values()):
        with (tmp_path / f"{number:03d}.jsonl").open("w", encoding="utf-8") as out:
            for hand in file_hands:
                out.write(json.dumps(hand, ensure_ascii=False) + "\n")
    result = audit([tmp_path], pack="tda-2024")
    assert result.hands_read == result.hands_audited == len(hands)
    assert result.quarantined == []
    coverage = result.coverage.set_index("rule_id")
    assert coverage.loc["TDA-43A", "hands_checked"] == len(hands)

    ids = Counter(h["hand_id"] for h in hands)
    expected = dict(TRUE_FINDINGS)
    expected["TDA-INT-id"] = Counter({hand_id: n - 1 for hand_id, n in ids.items() if n > 1})
    found: dict[str, Counter] = {}
    for rule_id, hand_id, message in zip(result.findings["rule_id"], result.findings["hand_id"],
                                         result.findings["message"], strict=True):
        print(f"finding {rule_id} hand {hand_id}: {message}")
        found.setdefault(rule_id, Counter())[hand_id] += 1
    rules = {rule.id for rule in result.packs["tda-2024"].rules}
    assert set(found) <= rules
    for rule_id in sorted(rules):
        assert found.get(rule_id, Counter()) == expected.get(rule_id, Counter()), rule_id


def test_hand_made_samples_audit_clean(tmp_path):
    hands = [i.hand for p in sorted(FIXTURES.glob("*.txt")) for i in read_pokerstars(p) if isinstance(i, SourceHand)]
    assert len(hands) == 6
    # each under the pack for its game: tda-2024 has no rule for five-card draw
    for pack, game in (("tda-2024", lambda h: h["variant"] != "five-card-draw"),
                       ("online-five-card-draw", lambda h: h["variant"] == "five-card-draw")):
        path = tmp_path / f"{pack}.jsonl"
        mine = [h for h in hands if game(h)]
        path.write_text("".join(json.dumps(h) + "\n" for h in mine), encoding="utf-8")
        result = audit([path], pack=pack)
        assert result.hands_audited == len(mine) > 0, pack
        assert result.findings.empty, pack           # the capped limit round is exactly the bet and 3 raises


# -- encodings, sniffing, robustness ----------------------------------------------------------------------

@needs_corpus
@pytest.mark.parametrize(("sample", "rename"), [
    ("ExtraHands/SidePot.txt", None),                       # € amounts
    ("Limits/EuroTable.txt", None),                         # € amounts, blank lines between lines
    # a name with letters outside ASCII. (The corpus's own such names are mojibake, "SW_KaiZâ‚¬R",
    # whose cp1252 bytes are valid UTF-8 for "SW_KaiZ€R": no reader can tell those two apart.)
    ("ExtraHands/SidePot.txt", ("templargio", "Jürgen Ñandú ©")),
])
def test_the_same_hand_reads_identically_in_every_encoding(sample, rename, tmp_path):
    text = (HHS / sample).read_bytes().decode("utf-8-sig")
    if rename:
        text = text.replace(*rename)
    assert any(ord(c) > 127 for c in text)           # € or a non-ASCII name: the encodings differ
    (tmp_path / "reference.txt").write_text(text, encoding="utf-8")
    reference = [i.hand for i in read_pokerstars(tmp_path / "reference.txt")]
    assert reference and all(isinstance(h, dict) for h in reference)
    if rename:
        assert rename[1] in [s["player"] for s in reference[0]["seats"]]
    encodings = {
        "utf-8": text.encode("utf-8"),
        "utf-8-bom": codecs.BOM_UTF8 + text.encode("utf-8"),
        "utf-16-le-bom": codecs.BOM_UTF16_LE + text.encode("utf-16-le"),
        "utf-16-be-bom": codecs.BOM_UTF16_BE + text.encode("utf-16-be"),
        "utf-16-le": text.encode("utf-16-le"),
        "cp1252": text.encode("cp1252"),
        "cp1252-crlf": text.replace("\n", "\r\n").encode("cp1252"),
        "cp1252-cr": text.replace("\n", "\r").encode("cp1252"),
    }
    for name, data in encodings.items():
        path = tmp_path / f"{name}.txt"
        path.write_bytes(data)
        items = read_all(path)
        assert [i.hand if isinstance(i, SourceHand) else i for i in items] == reference, name
        assert sniff_pokerstars(data[:4096]), name


@needs_corpus
def test_sniff():
    assert sniff_pokerstars((HHS / "Limits" / "GbpTable.txt").read_bytes()[:4096])       # CR line ends
    assert sniff_pokerstars((POKERDF / "HH20250518 T77777 Satellite Hold_em US$ 0,89 + US$ 0,11.txt").read_bytes())
    assert not sniff_pokerstars((HHS / "ShowDownActionTests" / "Wins.txt").read_bytes())  # a fragment
    assert not sniff_pokerstars(b'{"hand_id": "1", "table_id": "t"}\n')
    assert not sniff_pokerstars(b"")
    assert not sniff_pokerstars(b"\xff\xfe\x00")
    other = sorted((CORPUS / "other-rooms").rglob("*.txt"))[:20] if (CORPUS / "other-rooms").is_dir() else []
    for path in other:
        assert not sniff_pokerstars(path.read_bytes()[:4096]), path


@needs_corpus
def test_timestamps(tmp_path):
    text = (HHS / "ExtraHands" / "DateIssue1.txt").read_bytes().decode("utf-8-sig")
    # "2011/05/06 20:51:38 PT [2011/05/06 23:51:38 ET]": the first stamp, in Pacific time
    assert only_hand(HHS / "ExtraHands" / "DateIssue1.txt")["started_at"] == "2011-05-06T23:51:38-04:00"
    header = text.splitlines()[0]
    for broken in (header.split(" - ")[0], header.replace("2011/05/06 20:51:38", "2011/13/45 20:51:38")):
        path = tmp_path / "stamp.txt"
        path.write_text(text.replace(header, broken.replace(" [2011/05/06 23:51:38 ET]", "")), encoding="utf-8")
        hand = only_hand(path)
        assert "started_at" not in hand and hand["hand_id"] == "61777648755"


@needs_corpus
def test_damaged_hands_never_raise(tmp_path):
    """Every prefix of a hand, and the hand with any one line removed, reads without an exception."""
    lines = (HHS / "ExtraHands" / "SidePot.txt").read_bytes().decode("utf-8-sig").splitlines()
    variants = [lines[:k] for k in range(1, len(lines))] + [lines[:k] + lines[k + 1:] for k in range(len(lines))]
    converted = 0
    for i, variant in enumerate(variants):
        path = tmp_path / f"v{i}.txt"
        path.write_text("\n".join(variant), encoding="utf-8")
        for item in read_pokerstars(path):
            assert isinstance(item, SourceHand | Quarantined | ReaderNote)
            if isinstance(item, SourceHand):
                converted += 1
                assert schema_error(item.hand) is None and consistency_error(item.hand) is None
            elif isinstance(item, Quarantined):
                assert "\n" not in item.reason and item.code
    assert converted < len(variants) // 2             # most damage is noticed
    garbage = tmp_path / "garbage.txt"
    garbage.write_bytes(bytes(range(256)) * 8 + b"\nPokerStars Hand #1: \x00\x81\n*** SUMMARY ***\n")
    items = read_all(garbage)
    assert all(isinstance(i, Quarantined) for i in items) and len(items) == 2


def test_a_missing_file_is_quarantined(tmp_path):
    items = read_all(tmp_path / "nope.txt")
    assert len(items) == 1 and items[0].reason.startswith("cannot open")


def test_a_file_named_with_undecodable_bytes_is_audited_under_its_shown_name(tmp_path):
    """A room's hands come as tables; a file whose name is no valid text (a byte that is not UTF-8) is shown with
    the byte escaped, in every hand and quarantine entry, as any other format's file is."""
    import os

    name = os.fsdecode(b"stars-\xff.txt")
    path = tmp_path / name
    path.write_bytes((FIXTURES / "small_and_big_blinds.txt").read_bytes() + b"\n\nPokerStars Hand #1: cut\n")
    result = audit([path])
    assert (result.hands_read, result.hands_audited) == (2, 1)
    (refused,) = result.quarantined
    assert refused.code == "damaged" and refused.file == str(tmp_path / "stars-\\xff.txt")
    assert list(result.read_per_file) == [refused.file]
