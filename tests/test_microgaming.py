"""MicroGaming XML, read and written by the XML dialect engine (`rooms/xml/microgaming.yaml`).

The real exports are the shared corpus's other-rooms/microgaming (HHSmithy's samples of 2013: one `<Game>`
document per hand, its attributes the table's fields, every event in its `<Gameplay>`), and one more misfiled
under other-rooms/winamax. The hands under tests/fixtures/microgaming/ were written for these tests in the room's
style, learnt from those exports: `cash.xml` (a byte-order mark; a seat marked `sittingout`, a silent seat, the
bad-beat jackpot's drop, the owner's cards dealt, an all-in for less and its `MoneyReturned`, a muck with its
cards and a show, the `rake` attribute; an Omaha hand won by folds whose uncalled bet is in the win),
`windows-1252.txt` (no byte-order mark: the euro sign is byte 0x80; fixed limit). `illegal/` holds a real
violation under each convention, still reported; `refused/` each refusal.
"""

from __future__ import annotations

import copy
import re
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
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "microgaming"
CORPUS = ROOT.parent / "shared" / "corpus"
MICRO = CORPUS / "other-rooms" / "microgaming"
needs_corpus = pytest.mark.skipif(not MICRO.is_dir(), reason="the shared corpus is not beside the project")
micro = writer("microgaming")




# -- the real exports ------------------------------------------------------------------------------------------

SAMPLES = "other-rooms/microgaming/hhsmithy/MicroGaming/CashGame/"
HI_LO = "unsupported variant: Omaha H/L (a hi/lo split-pot game)"
#: the files of the folder that are not MicroGaming's: an 888 hand, and two holding only a byte-order mark
NOT_MICRO = ("HeadsUp.txt", "4 Max.txt", "Full Ring (10 Handed).txt")


@pytest.fixture(scope="module")
def corpus_result():
    return audit([MICRO], pack="tda-2024")


def _files() -> list[Path]:
    return sorted(p for p in MICRO.rglob("*.txt") if p.name not in NOT_MICRO)


@needs_corpus
def test_every_real_file_is_recognised_and_read():
    files = _files()
    assert len(files) == 33
    read = {}
    for path in files:
        assert detect(path).name == "microgaming", path  # by content, a `.txt` in UTF-8 or Windows-1252
        read[path.name] = sum(isinstance(i, SourceHand) for i in items(path))
    hi_lo = ("OmahaHiLo.txt", "PotLimitOmahaHiLo.txt", "OmahaHiLoShowdown.txt")
    assert read == {name: 0 if name in hi_lo else 10 if name == "10MultipleHands.txt" else 1 for name in read}
    misfiled = CORPUS / "other-rooms/winamax/hhsmithy/Winamax/CashGame/HandActionTests/OmahaHiLo.txt"
    (item,) = items(misfiled)
    assert (item.code, item.reason) == ("unsupported-game", HI_LO)


@needs_corpus
def test_the_corpus_audit_is_its_hands_its_refusals_and_its_true_deviations(corpus_result):
    """The findings are the samples' own faults, each listed with its reason in tests/expected/
    corpus-findings.tsv: one hand copied into several files, River.txt (a copy whose flop was edited to deal
    the Ks a player shows) and HeroName.txt (stakes of 3|6 over €1/€2 blinds)."""
    r = corpus_result
    assert r.hands_read == 43 and r.hands_audited == 40  # 39 MicroGaming hands and the 888 one
    assert sorted((Path(q.file).name, q.line, q.code, q.reason) for q in r.quarantined) == [
        ("OmahaHiLo.txt", 1, "unsupported-game", HI_LO), ("OmahaHiLoShowdown.txt", 1, "unsupported-game", HI_LO),
        ("PotLimitOmahaHiLo.txt", 1, "unsupported-game", HI_LO)]
    rules = Counter((Path(f).name, rule) for f, rule in r.findings[["file", "rule_id"]].itertuples(index=False))
    assert rules == Counter({("HeroName.txt", "TDA-43A"): 1, ("River.txt", "TDA-INT-cards"): 1,
                             **{(name, "TDA-INT-id"): 1 for name in ("Preflop.txt", "River.txt", "Table1.txt",
                                                                    "InValidHand.txt", "ValidHand.txt")}})


@needs_corpus
def test_real_amounts_balance_with_the_wins_the_rake_and_the_end_balances():
    """Read with the dialect's codes (`Raise`, `Call`, `Bet`, `AllIn` all the chips added), each seat's chips at
    the end of the hand (its balance less the jackpot's drop, less what it put in, plus its return and its win)
    are the `endbalance` the file writes, for every seat dealt in (a seat sitting out may top up between hands),
    and the chips put in are the wins and the written rake to the cent."""
    seats = 0
    for path in _files():
        raw = path.read_bytes()
        text = raw.decode("utf-8-sig") if raw.startswith(b"\xef\xbb\xbf") else raw.decode("cp1252")
        for item in items(path):
            if not isinstance(item, SourceHand):
                continue
            hand = item.hand
            game = re.search(rf'<Game [^>]*?id="{hand["hand_id"]}".*?</Game>', text, re.S)[0]
            ends = {int(n): v for n, v in re.findall(r'<Seat num="(\d+)"[^>]*endbalance="([\d.]+)"', game)}
            chips = {s["seat"]: s["stack"] for s in hand["seats"]}
            for e in hand["events"]:
                if e["kind"] in ("post", "action") and "amount" in e:
                    chips[e["seat"]] -= e["amount"]
                elif e["kind"] in ("return", "award"):
                    chips[e["seat"]] += e["amount"]
            for s in hand["seats"]:
                if s.get("status") != "sitting_out":
                    seats += 1
                    assert chips[s["seat"]] == round(float(ends[s["seat"]]) * 100), (path.name, s)
            put = sum(e["amount"] for e in hand["events"] if e["kind"] in ("post", "action") and "amount" in e)
            back = sum(e["amount"] for e in hand["events"] if e["kind"] in ("return", "award", "rake"))
            assert put == back, (path.name, hand["hand_id"])
    assert seats == 225


# -- the room's ways, on hands written in its style --------------------------------------------------------------


def test_cash_hands_read_as_the_room_dealt_them():
    showdown, folded = hands_of(FIXTURES / "cash.xml")
    assert (showdown["hand_id"], showdown["room"], showdown["currency"], showdown["money_scale"]) == \
        ("6000000001", "MicroGaming", "EUR", 100)  # currencysymbol="rCA=": the euro sign's UTF-16, in base64
    assert (showdown["table_id"], showdown["started_at"], showdown["max_seats"]) == \
        ("Turbo: Hijack 7 - €100 Max", "2013-09-23T15:00:00+00:00", 6)
    assert showdown["stakes"] == {"blinds": [50, 100], "chip_unit": 1}
    # Napper is marked sitting out, Quiet is silent; Cleo's 2 cents to the jackpot come off her 20.02
    assert [(s["seat"], s["stack"], s.get("status", "active")) for s in showdown["seats"]] == [
        (1, 10000, "active"), (2, 8000, "sitting_out"), (3, 2000, "active"), (4, 15000, "active"),
        (5, 6000, "sitting_out"), (6, 10000, "active")]
    assert actions(showdown) == [(6, "fold", None, None), (1, "raise", 300, 300), (3, "call", 250, 300),
                                 (4, "call", 200, 300), (3, "check", None, None), (4, "bet", 2500, 2500),
                                 (1, "fold", None, None), (3, "call", 1700, 1700)]
    # the boards are the DealFlop, DealTurn and DealRiver events; the owner's cards are dealt, known
    assert [e["cards"] for e in showdown["events"] if e["kind"] == "deal" and e["to"] == "board"] == \
        [["Kc", "7h", "2s"], ["9d"], ["4c"]]
    holes = {e["seat"]: e["cards"] for e in showdown["events"] if e["kind"] == "deal" and e["to"] == "hole"}
    assert holes == {1: ["Ah", "Kd"], 3: ["Qs", "Qh"], 4: ["Jc", "Tc"], 6: ["??", "??"]}
    # Dmitri, the flop's bettor, mucks (his cards given); Cleo shows
    assert [(e["kind"], e["seat"]) for e in showdown["events"] if e["kind"] in ("show", "muck")] == \
        [("muck", 4), ("show", 3)]
    # MoneyReturned is the return; rake="60" the rake, in cents
    assert money(showdown, "return", "award", "rake") == [("return", 4, 800), ("award", 3, 4240, 0),
                                                          ("rake", None, 60)]
    assert (folded["variant"], folded["structure"]) == ("omaha", "pot-limit")
    # won by folds: Ann's €5 holds her uncalled €2.50 (no MoneyReturned says so)
    assert money(folded, "return", "award") == [("return", 1, 250), ("award", 1, 250, 0)]


def test_a_file_without_a_byte_order_mark_is_read_in_windows_1252():
    (hand,) = hands_of(FIXTURES / "windows-1252.txt")
    assert hand["table_id"] == "Gutshot 3 - €200 Min"  # byte 0x80
    assert (hand["structure"], hand["stakes"]) == ("fixed-limit", {"blinds": [100, 200], "bet_units": [
        200, 200, 400, 400], "chip_unit": 1})
    notes = [i for i in items(FIXTURES / "windows-1252.txt") if isinstance(i, ReaderNote)]
    assert [n.code for n in notes] == ["encoding-windows-1252", "uncalled-return-in-the-win"]
    # the same bytes after a byte-order mark are UTF-8's: 0x80 is no character of it
    text = (FIXTURES / "windows-1252.txt").read_bytes()
    assert hands_of(FIXTURES / "cash.xml")[0]["table_id"].endswith("€100 Max")
    assert "€" in text.decode("cp1252") and b"\xe2\x82\xac" not in text


def test_clean_hands_give_no_finding_and_each_convention_is_said_once_per_file():
    result = audit([FIXTURES / "cash.xml", FIXTURES / "windows-1252.txt"], pack="tda-2024")
    assert result.quarantined == [] and result.hands_audited == result.hands_read == 3
    assert result.findings.empty
    assert sorted((Path(n.file).name, n.code) for n in result.notes) == [
        ("cash.xml", "fees-from-the-stack"), ("cash.xml", "silent-seats-sitting-out"),
        ("cash.xml", "uncalled-return-in-the-win"), ("windows-1252.txt", "encoding-windows-1252"),
        ("windows-1252.txt", "uncalled-return-in-the-win")]


@pytest.mark.parametrize(("name", "expected"), [
    # in_the_win: Ann's win (€2) is short of her uncalled €2.50, so no return can be read out of it
    ("win_short_of_the_uncalled_bet.xml", [("6000000002", "TDA-INT-chips", "chip-conservation")]),
    # rake written: rake="100" where €0.60 is not paid out; nothing derived hides the difference
    ("chips_apart_from_the_written_rake.xml", [("6000000001", "TDA-INT-chips", "chip-conservation")]),
    # silent_seats: Dozy, read as sitting out, is paid €0.20 of the pot
    ("silent_seat_paid.xml", [("6000000002", "TDA-12", "winner"), ("6000000002", "TDA-20", "split-pot")]),
    # action_order: written in turn, numbered with Cid's fold before Bob's
    ("numbers_say_out_of_turn.xml", [("6000000002", "TDA-53", "action-order")]),
    # Windows-1252 read: Eve checks facing Flo's river bet
    ("check_facing_a_bet.txt", [("6000000003", "TDA-55", "illegal-action")]),
])
def test_a_violation_under_each_convention_is_still_reported(name, expected):
    assert findings(FIXTURES / "illegal" / name, hands=1) == expected


@pytest.mark.parametrize(("name", "code", "reason"), [
    ("omaha_hi_lo.xml", "unsupported-game", HI_LO),
    ("unknown_action.xml", "damaged", "action type 'Straddle' not understood (line 10)"),
    ("player_with_no_seat.xml", "damaged", "a player acting who has no seat: '7' (line 11)"),
    ("amount_that_is_no_number.xml", "damaged", "an amount that is no number: '3.5O' (line 10)"),
    # thousands of digits, which Python will not read as a number at all: refused, not a reader error
    ("amount_too_large.xml", "damaged", f"an amount too large for the log: '{'9' * 30}' (line 10)"),
    ("action_numbered_past_any.xml", "damaged", "an action numbered 999999999999... past any hand's actions (line "
                                                "10)"),
    ("rake_that_is_no_number.xml", "damaged", "a rake that is no number: '0.6'"),
    # fees: Cleo's jackpot drop of €25 is more than her €20.02: no stack can be written that makes it true
    ("fee_past_the_stack.xml", "inconsistent-amounts", "seat 3 pays a fee of 2500 with 2002"),
    ("puts_in_more_than_behind.xml", "inconsistent-amounts", "line 10: seat 1 puts in 5350 with 5000 behind"),
    ("malformed.xml", "damaged", "XML not well-formed: mismatched tag (line 6, column 6); the rest of the file is "
                                 "not read"),
    ("truncated.xml", "truncated", "the file ends inside the hand (line 13, column 7)"),
])
def test_each_hand_the_log_cannot_hold_is_refused_with_its_reason(name, code, reason):
    (item,) = [i for i in items(FIXTURES / "refused" / name) if not isinstance(i, ReaderNote)]
    assert isinstance(item, Quarantined)
    assert (item.line, item.hand_id, item.code, item.reason) == (1, item.hand_id, code, reason)
    assert item.hand_id in ("6000000001", "6000000002")


def test_a_document_type_is_refused_and_never_expanded():
    (item,) = items(FIXTURES / "refused" / "entity_bomb.xml")
    assert (item.line, item.code) == (2, "damaged")
    assert item.reason.startswith("a document type declaration (<!DOCTYPE ...>): refused")


def test_detection_by_content():
    head = (FIXTURES / "cash.xml").read_bytes()[:4096]
    assert sniff("microgaming", head) and sniff("microgaming", (FIXTURES / "windows-1252.txt").read_bytes()[:4096])
    assert not sniff("ipoker", head) and not sniff("merge", head)
    assert not sniff("microgaming", b'<Game id="1"><Board/></Game>')  # the root alone is not MicroGaming's
    assert other_room(head)[0] == "MicroGaming"


# -- the writer: the dialect run backwards ------------------------------------------------------------------------

PACK = resolve_pack("tda-2024")
GAMES = [("holdem", "no-limit"), ("holdem", "pot-limit"), ("holdem", "fixed-limit"), ("omaha", "pot-limit")]



@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])  # each example audits twice: no shrinking
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 2**31 - 1), low=st.integers(2, 6), cents=st.booleans(),
       pick=st.integers(0, 50))
def test_written_hands_read_back_the_same_with_the_same_findings(tmp_path_factory, game, seed, low, cents, pick):
    assert_written_back("microgaming", tmp_path_factory.mktemp("microgaming"), *game, seed, low, pick,
                        currency="GBP" if cents else None)


def test_what_the_xml_cannot_say_is_refused_with_the_reason():
    showdown = hands_of(FIXTURES / "cash.xml")[0]
    assert micro.cannot_express(showdown) is None
    assert "no symbol for CAD" in micro.cannot_express({**showdown, "currency": "CAD"})
    ante = copy.deepcopy(showdown)
    ante["events"].insert(1, {"kind": "post", "seat": 1, "post": "ante", "amount": 10})
    assert "no action code for a post of kind 'ante'" in micro.cannot_express(ante)
    assert "burn" in micro.HIDDEN_CATEGORIES


def test_verify_via_microgaming_measures_every_category_it_can_express_at_100_percent():
    report = verify_pack("tda-2024", 300, 1, via="microgaming")
    assert not report.problems, "\n".join(q.one_line() for q in report.problems[:10])
    table = report.table
    assert len(table) >= 10 and (table["expected"] > 0).all()
    assert (table["found"] == table["expected"]).all() and (table["false"] == 0).all()
    assert report.ok
    assert "burn" in report.unexpressed and "seating" not in report.unexpressed
