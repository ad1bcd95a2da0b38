"""Merge Gaming XML, read and written by the XML dialect engine (`rooms/xml/merge.yaml`).

The real exports are the shared corpus's other-rooms/merge (HHSmithy's samples of 2012: a `<description>` naming
the game, then `<game>` documents; players named by their seat number, counted from 0). The hands under
tests/fixtures/merge/ were written for these tests in the room's style, learnt from those exports: `cash.xml`
(a player marked `dealtin="false"`, a chat line repeating an event's number, a show and a muck with the mucked
cards, a hand won by folds whose uncalled bet is in the win, an all-in whose uncalled part is a winner line
marked `uncalled="true"`, a second description naming a fixed-limit game, a rabbit hunt after the last fold, the
house's chips not written). `illegal/` holds a real violation under each convention, still reported; `refused/`
each refusal.
"""

from __future__ import annotations

import copy
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from reader_items import actions, assert_written_back, findings, money
from reader_items import file_hands as hands_of
from reader_items import file_items as items

from auditor.check.packs import resolve_pack
from auditor.export import writer
from auditor.ingest.detect import detect, other_room
from auditor.ingest.xml_rooms import sniff
from auditor.model.records import Quarantined, ReaderNote, SourceHand
from auditor.pipeline import audit
from auditor.simulate.verify import verify_pack

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "merge"
CORPUS = ROOT.parent / "shared" / "corpus"
MERGE = CORPUS / "other-rooms" / "merge"
needs_corpus = pytest.mark.skipif(not MERGE.is_dir(), reason="the shared corpus is not beside the project")
merge = writer("merge")




# -- the real exports ------------------------------------------------------------------------------------------

SAMPLES = "other-rooms/merge/hhsmithy/Merge/CashGame/"
#: the two hands refused: a hand the room cancelled before dealing, and a sample cut short inside its preflop
REFUSED = [(SAMPLES + "HandActionTests/CancelledHand.txt", 2, "cancelled",
            "the room cancelled the hand before it was dealt (line 10)"),
           (SAMPLES + "ValidHandTests/InValidHand.txt", 2, "truncated",
            "the file ends inside the hand (line 22, column 73)")]


@pytest.fixture(scope="module")
def corpus_result():
    return audit([MERGE], pack="tda-2024")


@needs_corpus
def test_every_real_file_is_recognised_and_read():
    files = sorted(p for p in MERGE.rglob("*.txt"))
    assert len(files) == 32
    read = {}
    for path in files:
        assert detect(path).name == "merge", path  # by content: `.txt` files of Merge XML
        read[path.name] = sum(isinstance(i, SourceHand) for i in items(path))
    assert read == {name: {"10MultipleHands.txt": 10, "CancelledHand.txt": 0, "InValidHand.txt": 0}.get(name, 1)
                    for name in read}


@needs_corpus
def test_the_corpus_audit_is_its_hands_its_refusals_and_its_true_deviations(corpus_result):
    """The findings are the samples' own faults, each listed with its reason in tests/expected/
    corpus-findings.tsv: one hand copied into several files (its id reported on each later copy), NoHoleCards.txt
    (WithSittingOut.txt's hand with two sitting-out players' `dealtin` edited to true: the first of them never
    acts, so everyone after the big blind acts out of turn) and HeadsUp.txt (a description of Limit $10/$20 over
    a no-limit $1/$2 hand)."""
    r = corpus_result
    assert r.hands_read == 41 and r.hands_audited == 39 and r.hands_not_covered == 0
    assert [(Path(q.file).relative_to(CORPUS).as_posix(), q.line, q.code, q.reason) for q in r.quarantined] == REFUSED
    rules = Counter((Path(f).name, rule) for f, rule in r.findings[["file", "rule_id"]].itertuples(index=False))
    assert rules == Counter({("NoHoleCards.txt", "TDA-53"): 8, ("HeadsUp.txt", "TDA-43A"): 1,
                             ("HeadsUp.txt", "TDA-51"): 1, ("HeadsUp.txt", "TDA-52A"): 1}) + Counter(
        (name, "TDA-INT-id") for name in ("AllInHandWithShowdown.txt", "Limit2.txt", "Limit4.txt", "NoHoleCards.txt",
                                          "WithShowdown.txt", "WithSittingOut.txt", "Flop.txt", "Preflop.txt",
                                          "River.txt", "Turn.txt", "Table1.txt", "Table2.txt", "Table3.txt",
                                          "Table4.txt", "ValidHand.txt"))
    notes = Counter((Path(n.file).name, n.code) for n in r.notes)
    assert max(notes.values()) == 1
    assert {code for _name, code in notes} == {"uncalled-return-in-the-win", "rake-the-chips-not-paid"}


@needs_corpus
def test_real_amounts_balance_with_the_winner_lines():
    """The codes read as the dialect says (RAISE a round total counting the blinds; CALL, BET, ALL_IN the chips
    added) put in no more than each player has, and the chips put in are the winner lines and the rake to the
    cent in every real hand, the rake at most 8.2 % of the pot and only after a flop."""
    raked = 0
    for path in sorted(MERGE.rglob("*.txt")):
        for item in items(path):
            if not isinstance(item, SourceHand):
                continue
            hand = item.hand
            put: Counter = Counter()
            for e in hand["events"]:
                if e["kind"] in ("post", "action") and "amount" in e:
                    put[e["seat"]] += e["amount"]
                elif e["kind"] == "return":
                    put[e["seat"]] -= e["amount"]
            assert all(put[seat] <= s["stack"] for s in hand["seats"] for seat in put if seat == s["seat"])
            paid = sum(e["amount"] for e in hand["events"] if e["kind"] in ("award", "rake"))
            assert paid == sum(put.values()), (path.name, hand["hand_id"])
            rake = sum(e["amount"] for e in hand["events"] if e["kind"] == "rake")
            if rake:
                raked += 1
                assert any(e["kind"] == "deal" and e["to"] == "board" for e in hand["events"])
                assert rake * 1000 <= 82 * sum(put.values()), hand["hand_id"]
    assert raked == 25


@needs_corpus
def test_a_showdown_writes_the_uncalled_bet_as_a_winner_line():
    (hand,) = hands_of(MERGE / "hhsmithy/Merge/CashGame/PlayerTests/WithShowdown.txt")
    # dugaly (seat 5, the log's 6) is all in for $222.84 against $201.10: $21.74 comes back, written as such
    assert money(hand, "return", "award", "rake") == [("return", 6, 2174), ("award", 6, 40770, 0), ("rake", None, 350)]
    assert [(e["seat"], e["cards"]) for e in hand["events"] if e["kind"] == "show"] == \
        [(6, ["Ad", "Ah"]), (2, ["Kc", "Kh"])]


# -- the room's ways, on hands written in its style --------------------------------------------------------------


def test_cash_hands_read_as_the_room_dealt_them():
    shown, folded, all_in, limit = hands_of(FIXTURES / "cash.xml")
    assert (shown["hand_id"], shown["room"], shown["currency"], shown["money_scale"], shown["table_id"]) == \
        ("70000001-1", "Merge Gaming", "USD", 100, "Alcatraz (70000001)")
    assert shown["stakes"] == {"blinds": [50, 100], "chip_unit": 1} and shown["max_seats"] == 6
    assert shown["started_at"] == "2012-06-01T12:00:00+00:00"
    # seats counted from 0 in the file; Dot is marked dealtin="false"
    assert [(s["seat"], s["player"], s.get("status", "active")) for s in shown["seats"]] == [
        (1, "Ada", "active"), (2, "Ben", "active"), (4, "Cy", "active"), (6, "Dot", "sitting_out")]
    assert shown["events"][0] == {"kind": "button", "seat": 1}
    # the chat line (repeating event 3's number) is not an action
    assert actions(shown) == [(1, "raise", 300, 300), (2, "fold", None, None), (4, "call", 200, 300),
                              (4, "check", None, None), (1, "bet", 400, 400), (4, "call", 400, 400),
                              (4, "check", None, None), (1, "check", None, None), (4, "bet", 1000, 1000),
                              (1, "call", 1000, 1000)]
    # each round's COMMUNITY cards are the whole board so far: the cards it adds are dealt
    assert [e["cards"] for e in shown["events"] if e["kind"] == "deal" and e["to"] == "board"] == \
        [["Ah", "7d", "2c"], ["9s"], ["Kd"]]
    # Cy, the river's bettor, shows first; Ada's MUCKED cards are a muck
    assert [(e["kind"], e["seat"]) for e in shown["events"] if e["kind"] in ("show", "muck")] == \
        [("show", 4), ("muck", 1)]
    assert money(shown, "award", "rake") == [("award", 4, 3300, 0), ("rake", None, 150)]
    # won by folds: Ben's $4.50 holds his uncalled $2 (no winner line says so)
    assert money(folded, "return", "award") == [("return", 2, 200), ("award", 2, 250, 0)]
    # at a showdown the uncalled part is a winner line of its own
    assert money(all_in, "return", "award", "rake") == [("return", 1, 1650), ("award", 4, 12900, 0),
                                                         ("rake", None, 300)]
    assert [e.get("all_in", False) for e in all_in["events"] if e["kind"] == "action"] == [True, True, False]
    # a second description: fixed limit $2/$4; the COMMUNITY cards after the last fold are a rabbit hunt
    assert (limit["structure"], limit["stakes"]) == ("fixed-limit", {"blinds": [100, 200], "bet_units": [
        200, 200, 400, 400], "chip_unit": 1})
    assert [e["cards"] for e in limit["events"] if e["kind"] == "deal" and e["to"] == "board"] == [["Ts", "4h", "4c"]]


def test_clean_hands_give_no_finding_and_each_convention_is_said_once_per_file():
    result = audit([FIXTURES / "cash.xml"], pack="tda-2024")
    assert result.quarantined == [] and result.hands_audited == result.hands_read == 4
    assert result.findings.empty
    assert sorted(n.code for n in result.notes) == ["rake-the-chips-not-paid", "uncalled-return-in-the-win"]
    texts = {n.code: n.text for n in result.notes}
    assert texts["uncalled-return-in-the-win"].startswith("Merge Gaming: A hand that reaches a showdown writes")


@pytest.mark.parametrize(("name", "expected"), [
    # in_the_win: Ben's win ($1.50) is short of his uncalled $2, so no return can be read out of it
    ("win_short_of_the_uncalled_bet.xml", [("79000000-1", "TDA-INT-chips", "chip-conservation")]),
    # the_chips_not_paid: $0.10 missing from a pot no flop was dealt to is not rake
    ("chips_missing_without_a_flop.xml", [("79000000-1", "TDA-INT-chips", "chip-conservation")]),
    # the_chips_not_paid: $0.40 missing from a pot of $3 is past the 10 % read as rake
    ("chips_missing_past_the_rake_share.xml", [("79000000-1", "TDA-INT-chips", "chip-conservation")]),
    # dealtin="false": Dot, sitting out, is paid $0.20 of the pot
    ("sitting_out_seat_paid.xml", [("79000000-1", "TDA-12", "winner"), ("79000000-1", "TDA-20", "split-pot")]),
    # as_written: Cy folds on the flop, then checks
    ("acts_after_folding.xml", [("79000000-1", "TDA-50", "illegal-action")]),
    ("check_facing_a_bet.xml", [("79000000-1", "TDA-55", "illegal-action")]),
])
def test_a_violation_under_each_convention_is_still_reported(name, expected):
    assert findings(FIXTURES / "illegal" / name, hands=1) == expected


def test_a_written_return_is_read_as_it_stands(tmp_path):
    """A winner line marked uncalled is read as written: one that returns more than the bet left unmatched
    ($17 of Ada's $16.50) is reported, not trimmed."""
    text = (FIXTURES / "cash.xml").read_text("utf-8")
    start = text.index('<game id="70000001-3"')
    hand = text[:text.index("\n") + 1] + text[start:text.index("</game>", start)] + "</game>\n"
    hand = hand.replace('"129.00" uncalled="false"', '"128.50" uncalled="false"').replace(
        '"16.50" uncalled="true"', '"17.00" uncalled="true"')
    (tmp_path / "over.xml").write_text(hand, "utf-8")
    assert [rule for _h, rule, _c in findings(tmp_path / "over.xml", hands=1)] == ["TDA-15B"]


@pytest.mark.parametrize(("name", "code", "reason"), [
    ("cancelled.xml", "cancelled", "the room cancelled the hand before it was dealt (line 14)"),
    ("omaha_hi_lo.xml", "unsupported-game", "unsupported variant: OmahaHiLo (a game this room's dialect does not "
                                            "name)"),
    ("unknown_event_type.xml", "damaged", "action type 'STRADDLE' not understood (line 14)"),
    ("player_with_no_seat.xml", "damaged", "a player acting who has no seat: '7' (line 15)"),
    ("amount_that_is_no_number.xml", "damaged", "an amount that is no number: '3.O0' (line 14)"),
    ("board_that_does_not_go_on.xml", "damaged", "the board Ts 4h 5c 9d does not go on from Ts 4h 4c"),
    ("malformed.xml", "damaged", "XML not well-formed: mismatched tag (line 17, column 4); the rest of the file is "
                                 "not read"),
    ("truncated.xml", "truncated", "the file ends inside the hand (line 16, column 3)"),
    # Ben has $99.50 behind and raises to $99.60
    ("puts_in_more_than_behind.xml", "inconsistent-amounts", "line 14: seat 2 puts in 9960 with 9950 behind"),
    ("entity_bomb.xml", "damaged", "a document type declaration (<!DOCTYPE ...>): refused, its entities are never "
                                   "expanded; the rest of the file is not read"),
])
def test_each_hand_the_log_cannot_hold_is_refused_with_its_reason(name, code, reason):
    (item,) = [i for i in items(FIXTURES / "refused" / name) if not isinstance(i, ReaderNote)]
    assert isinstance(item, Quarantined)
    assert (item.line, item.code, item.reason) == (2, code, reason)
    assert item.hand_id == (None if name == "entity_bomb.xml" else "79000000-1")


def test_detection_by_content():
    head = (FIXTURES / "cash.xml").read_bytes()[:4096]
    assert sniff("merge", head) and sniff("merge", b"\xef\xbb\xbf" + head)
    assert sniff("merge", head[head.index(b"<game"):])  # a file opening on a hand
    assert not sniff("ipoker", head) and not sniff("merge", b'<session sessioncode="1"><general>')
    assert not sniff("merge", b'<description lang="en">notes</description>\n')
    assert other_room(head)[0] == "Merge Gaming"


# -- the writer: the dialect run backwards ------------------------------------------------------------------------

PACK = resolve_pack("tda-2024")
GAMES = [("holdem", "no-limit"), ("holdem", "pot-limit"), ("holdem", "fixed-limit"), ("omaha", "pot-limit")]



@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])  # each example audits twice: no shrinking
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 2**31 - 1), low=st.integers(2, 6), cents=st.booleans(),
       pick=st.integers(0, 50))
def test_written_hands_read_back_the_same_with_the_same_findings(tmp_path_factory, game, seed, low, cents, pick):
    assert_written_back("merge", tmp_path_factory.mktemp("merge"), *game, seed, low, pick,
                        currency="USD" if cents else None)


def test_what_the_xml_cannot_say_is_refused_with_the_reason():
    shown = hands_of(FIXTURES / "cash.xml")[0]
    assert merge.cannot_express(shown) is None
    assert "no symbol for EUR" in merge.cannot_express({**shown, "currency": "EUR"})
    ante = copy.deepcopy(shown)
    ante["events"].insert(1, {"kind": "post", "seat": 1, "post": "ante", "amount": 10})
    assert "no action code for a post of kind 'ante'" in merge.cannot_express(ante)
    unknown = copy.deepcopy(shown)  # a muck whose cards the log does not know: Merge says a muck by its cards
    for e in unknown["events"]:
        if e["kind"] == "deal" and e["to"] == "hole" and e["seat"] == 1:
            e["cards"] = ["??", "??"]
    assert "muck" in merge.cannot_express(unknown)
    assert "burn" in merge.HIDDEN_CATEGORIES


def test_verify_via_merge_measures_every_category_it_can_express_at_100_percent():
    report = verify_pack("tda-2024", 300, 1, via="merge")
    assert not report.problems, "\n".join(q.one_line() for q in report.problems[:10])
    table = report.table
    assert len(table) >= 10 and (table["expected"] > 0).all()
    assert (table["found"] == table["expected"]).all() and (table["false"] == 0).all()
    assert report.ok
    assert "burn" in report.unexpressed and "seating" not in report.unexpressed


def test_a_table_size_of_thousands_of_digits_is_no_size(tmp_path):
    """`seats="999…"` (5,000 digits, which Python will not read as a number): the table's size is not stated, and
    the hand is read with the dialect's default size, as for any size the log cannot hold (found by fuzzing)."""
    path = tmp_path / "huge-size.xml"
    path.write_text((FIXTURES / "cash.xml").read_text("utf-8").replace('seats="6"', f'seats="{"9" * 5000}"', 1),
                    "utf-8")
    from auditor.ingest.xml_dialect import xml_dialect

    (hand, *_) = hands_of(path)
    (stated, *_) = hands_of(FIXTURES / "cash.xml")
    assert stated["max_seats"] == 6
    assert hand["max_seats"] == xml_dialect("merge").data["game"]["default_max_seats"]
    assert {**hand, "max_seats": 6} == stated
