"""iPoker XML, read and written by the XML dialect engine (`rooms/xml/ipoker.yaml`).

The real exports are the shared corpus's other-rooms/ipoker (HHSmithy's samples, 2012-2014) and rooms-2/ipoker
(two 2018 session files). The hands under tests/fixtures/ipoker/ were written for these tests in the room's style,
learnt from those exports: `cash.xml` (EUR, actions written grouped by player, an uncalled bet in its bettor's
win, a seat with no cards and no action, the house's chips not written), `tournament.xml` (chips grouped by `,`,
antes, an all-in for less and a side pot, `tablesize`), `flagged.xml` (`<uncalled_bet_enabled>true`, amounts
written `1.000,50 €`). `illegal/` holds a real violation under each convention, still reported; `refused/` each
refusal.
"""

from __future__ import annotations

import copy
import gzip
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
from auditor.export import SUFFIXES, writer
from auditor.ingest.detect import detect, other_room
from auditor.ingest.limits import Limits
from auditor.ingest.xml_dialect import xml_dialect
from auditor.ingest.xml_rooms import read_xml_room, sniff
from auditor.model.records import Quarantined, ReaderNote, SourceHand
from auditor.pipeline import audit
from auditor.simulate.verify import verify_pack

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "ipoker"
CORPUS = ROOT.parent / "shared" / "corpus"
IPOKER = [CORPUS / "other-rooms" / "ipoker", CORPUS / "rooms-2" / "ipoker"]
needs_corpus = pytest.mark.skipif(not IPOKER[0].is_dir(), reason="the shared corpus is not beside the project")
ipoker = writer("ipoker")




# -- the real exports ------------------------------------------------------------------------------------------

#: hands read from each real file (by name: the samples' names are unique); every other file holds one
MANY = {"10MultipleHands.txt": 10, "20MultipleHands.txt": 20, "MinerFormat.txt": 4, "InValidHand.txt": 0,
        "cash.hhsmithy.eur.NLHE.hu.2018.xml": 19, "cash.hhsmithy.gbp.NLHE.6max.2018.xml": 133}
#: the one hand refused: its big blind is posted and folded by `nawu`, whom <players> does not list
REFUSED = [("other-rooms/ipoker/hhsmithy/IPoker/CashGame/ValidHandTests/InValidHand.txt", 21, "damaged",
            "a player acting who has no seat: 'nawu' (line 30)")]
SAMPLES = "other-rooms/ipoker/hhsmithy/IPoker/CashGame/"
#: (file, hand id, rule) -> how many times; each is a true deviation of the log as the files hold it
EXPECTED_FINDINGS = Counter({
    # HHSmithy's samples copy one hand into several files: the same gamecode is a second hand of the audit. The
    # first file to hold it (FixedLimitHoldem.txt, PotLimitOmaha.txt, Limit5.txt, NoHoleCards.txt) is not
    # reported, each later copy is: a regulator would be shown two different records under one id.
    (SAMPLES + "GeneralHands/GeneralHand.txt", "5383708755", "TDA-INT-id"): 1,
    (SAMPLES + "GeneralHands/HeroName.txt", "5383708755", "TDA-INT-id"): 1,
    (SAMPLES + "MultipleHandsTests/10MultipleHands.txt", "5383652813", "TDA-INT-id"): 1,
    # 20MultipleHands.txt is twenty sessions of the very hand Limit5.txt holds
    (SAMPLES + "MultipleHandsTests/20MultipleHands.txt", "3302883310", "TDA-INT-id"): 20,
    (SAMPLES + "PlayerTests/WithSittingOut.txt", "5384035083", "TDA-INT-id"): 1,
    # this sample lists a tenth player, TrapistBeer in seat 7, whose row copies seat 6's (TrappistBeer: the same
    # chips, bet and win of $2.44) though the player is dealt nothing and never acts. Both wins are paid: $4.88
    # from a pot of $2.50, of which $1.20 is seat 6's uncalled bet. The chips do not balance, and the pot goes
    # to a seat that never played it, as a split the hands cannot make.
    (SAMPLES + "Seats/Full Ring (10 Handed).txt", "3302721610", "TDA-INT-chips"): 1,
    (SAMPLES + "Seats/Full Ring (10 Handed).txt", "3302721610", "TDA-12"): 1,
    (SAMPLES + "Seats/Full Ring (10 Handed).txt", "3302721610", "TDA-20"): 1,
})


@pytest.fixture(scope="module")
def corpus_result():
    return audit(IPOKER, pack="tda-2024")


def _files() -> list[Path]:
    return sorted(p for folder in IPOKER for p in folder.rglob("*") if p.suffix in (".txt", ".xml"))


@needs_corpus
def test_every_real_file_is_recognised_and_read():
    files = _files()
    assert len(files) == 45  # 43 samples of 2012-2014 (text files holding XML) and the two 2018 session files
    read = {}
    for path in files:
        assert detect(path).name == "ipoker", path  # by content: a `.txt` of iPoker XML too
        got = items(path)
        read[path.name] = sum(isinstance(i, SourceHand) for i in got)
    assert read == {name: MANY.get(name, 1) for name in read}
    assert sum(read.values()) == 225


@needs_corpus
def test_the_corpus_audit_is_its_hands_its_refusal_and_its_true_deviations(corpus_result):
    r = corpus_result
    assert r.hands_read == 226 and r.hands_audited == 225 and r.hands_not_covered == 0
    assert [(Path(q.file).relative_to(CORPUS).as_posix(), q.line, q.code, q.reason) for q in r.quarantined] == REFUSED
    got = Counter((Path(f).relative_to(CORPUS).as_posix(), h, rule) for f, h, rule in
                  r.findings[["file", "hand_id", "rule_id"]].itertuples(index=False))
    assert got == EXPECTED_FINDINGS
    assert r.skipped_hand_histories == {}


@needs_corpus
def test_the_corpus_conventions_are_notes_once_per_file(corpus_result):
    notes = Counter((Path(n.file).name, n.code) for n in corpus_result.notes)
    assert max(notes.values()) == 1
    codes = Counter(code for _name, code in notes)
    # the 2018 files state their uncalled bets apart (`uncalled_bet_enabled`) and write actions in order
    assert {code for name, code in notes if name.endswith(".xml")} == {"rake-the-chips-not-paid"}
    assert set(codes) == {"action-order-by-number", "uncalled-return-in-the-win", "rake-the-chips-not-paid",
                          "silent-seats-sitting-out"}


@needs_corpus
def test_real_amounts_balance_with_the_players_wins():
    """The action codes read as the dialect says (23 a raise to a round total counting the blinds, 7 an all-in
    adding chips, 3 and 5 a call and a bet adding chips, 15 an ante) put in no more than each player has, and
    the chips put in are the wins and the rake to the chip in every real hand but the Full Ring sample's (see
    EXPECTED_FINDINGS), with at most a few per cent kept, and only after a flop."""
    unbalanced, raked = [], 0
    for path in _files():
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
            stacks = {s["seat"]: s["stack"] for s in hand["seats"]}
            assert all(put[seat] <= stacks[seat] for seat in put), hand["hand_id"]
            paid = sum(e["amount"] for e in hand["events"] if e["kind"] in ("award", "rake"))
            if paid != sum(put.values()):
                unbalanced.append(hand["hand_id"])
            rake = sum(e["amount"] for e in hand["events"] if e["kind"] == "rake")
            if rake:
                raked += 1
                assert any(e["kind"] == "deal" and e["to"] == "board" for e in hand["events"])
                assert rake * 100 <= 7 * sum(put.values()) + hand["money_scale"], hand["hand_id"]
    assert unbalanced == ["3302721610"]
    assert raked >= 60


# -- the room's ways, on hands written in its style --------------------------------------------------------------


def test_cash_hands_read_as_the_room_dealt_them():
    returned, shown = hands_of(FIXTURES / "cash.xml")
    assert (returned["hand_id"], returned["room"], returned["currency"], returned["money_scale"]) == \
        ("9000000001", "iPoker", "EUR", 100)
    assert returned["stakes"] == {"blinds": [5, 10], "chip_unit": 1}
    assert returned["started_at"] == "2014-01-06T11:45:10+00:00"
    assert [s.get("status", "active") for s in returned["seats"]] == ["active", "active", "sitting_out"]
    assert returned["seats"][1]["player"] == "Bruno & Co"  # an entity of the file, read as text
    # written grouped by player (Bruno's call before Alba's raise), taken in the order of their numbers
    assert actions(returned) == [(2, "raise", 25, 30), (4, "call", 20, 30), (4, "check", None, None),
                                 (2, "bet", 40, 40), (4, "fold", None, None)]
    # Alba's win of €0.97 holds her uncalled €0.40: a return, an award of the pot less the €0.03 kept
    assert money(returned, "return", "award", "rake") == [("return", 2, 40), ("award", 2, 57, 0), ("rake", None, 3)]
    kinds = [e["kind"] for e in returned["events"]]
    assert kinds.index("return") == max(i for i, k in enumerate(kinds) if k == "action") + 1
    # the cards the file shows of players still in at the end are their shows (Bruno's, hidden, are not)
    assert [(e["seat"], e["cards"]) for e in shown["events"] if e["kind"] == "show"] == \
        [(7, ["Kh", "9d"]), (2, ["Ac", "Jc"])]
    holes = {e["seat"]: e["cards"] for e in shown["events"] if e["kind"] == "deal" and e["to"] == "hole"}
    assert holes == {7: ["Kh", "9d"], 2: ["Ac", "Jc"], 4: ["??", "??"]}


def test_tournament_chips_antes_all_ins_and_side_pots():
    (hand,) = hands_of(FIXTURES / "tournament.xml")
    assert "currency" not in hand and "money_scale" not in hand and hand["max_seats"] == 6
    assert hand["stakes"] == {"blinds": [50, 100], "ante": 10, "chip_unit": 1}
    assert [s["stack"] for s in hand["seats"]] == [1500, 800, 3000]  # `1,500`: thousands grouped
    assert money(hand, "post") == [("post", 1, 10), ("post", 3, 10), ("post", 5, 10), ("post", 3, 50),
                                   ("post", 5, 100)]
    # type 7 adds chips: Quim's 740 raise him to 790, all in; Pedro's 700 calls the 1,000 bet all in
    assert actions(hand) == [(1, "raise", 300, 300), (3, "raise", 740, 790), (5, "call", 690, 790),
                             (1, "call", 490, 790), (5, "bet", 1000, 1000), (1, "call", 700, 700)]
    assert [e.get("all_in", False) for e in hand["events"] if e["kind"] == "action"] == \
        [False, True, False, False, False, True]
    # Rosa's win of 300 is her unmatched bet; the main pot to Quim, the side pot to Pedro
    assert money(hand, "return", "award") == [("return", 5, 300), ("award", 3, 2400, 0), ("award", 1, 1400, 1)]
    assert [e["seat"] for e in hand["events"] if e["kind"] == "show"] == [5, 1, 3]  # the flop's bettor first


def test_flagged_files_write_the_win_apart_from_the_returned_bet_and_locale_amounts_read():
    (hand,) = hands_of(FIXTURES / "flagged.xml")
    assert hand["stakes"] == {"blinds": [50, 100], "chip_unit": 1}  # `0,50 €/1 €`
    assert hand["seats"][0]["stack"] == 100050  # `1.000,50 €`
    assert money(hand, "return", "award", "rake") == [("return", 1, 200), ("award", 1, 250, 0)]


def test_clean_hands_give_no_finding_and_each_convention_is_said_once_per_file():
    result = audit([FIXTURES / "cash.xml", FIXTURES / "tournament.xml", FIXTURES / "flagged.xml"], pack="tda-2024")
    assert result.quarantined == [] and result.hands_audited == result.hands_read == 4
    assert result.findings.empty
    assert sorted((Path(n.file).name, n.code) for n in result.notes) == [
        ("cash.xml", "action-order-by-number"), ("cash.xml", "rake-the-chips-not-paid"),
        ("cash.xml", "silent-seats-sitting-out"), ("cash.xml", "uncalled-return-in-the-win"),
        ("tournament.xml", "action-order-by-number"), ("tournament.xml", "uncalled-return-in-the-win")]
    texts = {n.code: n.text for n in result.notes}
    assert texts["uncalled-return-in-the-win"].startswith("iPoker: A file without `<uncalled_bet_enabled>true`")


@pytest.mark.parametrize(("name", "expected"), [
    # in_the_win: the win (€0.30) is short of the uncalled €0.40, so no return can be read out of it
    ("win_short_of_the_uncalled_bet.xml", [("9000000001", "TDA-INT-chips", "chip-conservation")]),
    # the_chips_not_paid: €0.10 missing from a pot no flop was dealt to is not rake
    ("chips_missing_without_a_flop.xml", [("7900000001", "TDA-INT-chips", "chip-conservation")]),
    # the_chips_not_paid: €0.05 missing from a pot of €0.30 is past the 10 % read as rake
    ("chips_missing_past_the_rake_share.xml", [("9000000002", "TDA-INT-chips", "chip-conservation")]),
    # silent_seats: Carla, read as sitting out, is paid €0.20 of the pot
    ("sitting_out_seat_paid.xml", [("9000000001", "TDA-12", "winner"), ("9000000001", "TDA-20", "split-pot")]),
    # action_order: the numbers say Bruno folded, Alba bet out of turn, then Bruno checked
    ("acts_after_folding.xml", [("9000000001", "TDA-53", "action-order"), ("9000000001", "TDA-50", "illegal-action")]),
    ("check_facing_a_bet.xml", [("9000000001", "TDA-55", "illegal-action")]),
    # Carla listed in Bruno's seat: recorded as listed, and the seating rule reports it
    ("seat_listed_twice.xml", [("9000000001", "TDA-INT-seat", "seating")]),
])
def test_a_violation_under_each_convention_is_still_reported(name, expected):
    assert findings(FIXTURES / "illegal" / name, hands=1) == expected


@pytest.mark.parametrize(("name", "code", "reason"), [
    ("omaha_hi_lo.xml", "unsupported-game", "unsupported variant: Omaha Hi-Lo (a hi/lo split-pot game)"),
    ("seven_card_stud.xml", "unsupported-game", "unsupported variant: 7 Card Stud (seven-card stud)"),
    ("bring_in.xml", "unsupported-feature", "a bring-in (stud) (line 24)"),
    ("unknown_action_code.xml", "damaged", "action type '99' not understood (line 37)"),
    ("player_with_no_seat.xml", "damaged", "a player acting who has no seat: 'Dora' (line 37)"),
    ("amount_that_is_no_number.xml", "damaged", "an amount that is no number: '€0.4O' (line 37)"),
    ("malformed.xml", "damaged", "XML not well-formed: mismatched tag (line 34, column 47); the rest of the file is "
                                 "not read"),
    ("truncated.xml", "truncated", "the file ends inside the hand (line 35, column 7)"),
    # Bruno has €8.40 behind after his big blind and calls €9: no stack can be written that makes it true
    ("puts_in_more_than_behind.xml", "inconsistent-amounts", "line 29: seat 4 puts in 900 with 840 behind"),
])
def test_each_hand_the_log_cannot_hold_is_refused_with_its_reason(name, code, reason):
    (item,) = [i for i in items(FIXTURES / "refused" / name) if not isinstance(i, ReaderNote)]
    assert isinstance(item, Quarantined)
    assert (item.line, item.hand_id, item.code, item.reason) == (14, "9000000001", code, reason)


def test_a_document_type_is_refused_and_never_expanded():
    """An entity bomb: nine levels of ten entities each would expand to 20 GB of text."""
    (item,) = items(FIXTURES / "refused" / "entity_bomb.xml")
    assert (item.line, item.code) == (2, "damaged")
    assert item.reason == ("a document type declaration (<!DOCTYPE ...>): refused, its entities are never expanded; "
                           "the rest of the file is not read")


def test_nesting_and_size_past_their_limits(tmp_path):
    (deep,) = items(FIXTURES / "refused" / "deep_nesting.xml")
    assert (deep.line, deep.code, deep.reason) == (
        4, "limit", "elements nested past xml_max_depth (32); the rest of the file is not read")
    huge = (FIXTURES / "cash.xml").read_text("utf-8").replace('name="Alba"', 'name="' + "A" * 70_000 + '"', 1)
    (tmp_path / "huge.xml").write_text(huge, "utf-8")
    (item,) = items(tmp_path / "huge.xml")
    assert item.code == "limit" and "xml_max_token_bytes (65536)" in item.reason
    # a hand limit between the two hands' sizes (1,328 and 2,024 bytes) refuses the second hand alone
    got = list(read_xml_room(FIXTURES / "cash.xml", "ipoker", limits=Limits(xml_max_hand_bytes=1500)))
    assert [(type(i).__name__, getattr(i, "code", None), getattr(i, "hand_id", None)) for i in got
            if not isinstance(i, ReaderNote)] == [("SourceHand", None, None), ("Quarantined", "limit", "9000000002")]


def test_an_encoding_that_cannot_be_read_is_one_damaged_line(tmp_path):
    text = (FIXTURES / "cash.xml").read_text("utf-8").replace('encoding="utf-8"', 'encoding="utV-8"')
    (tmp_path / "a.xml").write_text(text, "utf-8")
    (item,) = items(tmp_path / "a.xml")
    assert (item.line, item.code) == (1, "damaged") and "unknown encoding: utV-8" in item.reason


def test_bad_files_are_one_line_each_and_the_batch_goes_on(tmp_path):
    """A folder of every refused file, a gzipped clean file and a clean one: each bad file one line, the clean
    hands audited."""
    logs = tmp_path / "logs"
    logs.mkdir()
    for path in sorted((FIXTURES / "refused").iterdir()):
        (logs / path.name).write_bytes(path.read_bytes())
    (logs / "clean.xml.gz").write_bytes(gzip.compress((FIXTURES / "cash.xml").read_bytes()))
    (logs / "tournament.xml").write_bytes((FIXTURES / "tournament.xml").read_bytes())
    result = audit([logs], pack="tda-2024")
    assert result.hands_audited == 3
    assert Counter(q.code for q in result.quarantined) == {"damaged": 5, "unsupported-game": 2, "limit": 1,
                                                          "unsupported-feature": 1, "truncated": 1,
                                                          "inconsistent-amounts": 1}
    assert all("\n" not in q.one_line() for q in result.quarantined)


def test_detection_by_content_and_the_other_xml_rooms_stay_named():
    head = (FIXTURES / "cash.xml").read_bytes()[:4096]
    assert sniff("ipoker", head) and sniff("ipoker", b"\xef\xbb\xbf" + head)
    assert not sniff("ipoker", b'<?xml version="1.0"?>\n<sessions><game gamecode="1">')
    assert not sniff("ipoker", b"<session>\n<general>\n</general>\n")  # the root alone is not iPoker's
    merge = b'<game id="46154255-645" starttime="20111230232051" numholecards="2" gametype="1" seats="9">\n'
    micro = b'<Game hhversion="4" id="123456" date="2011-02-19 18:56:53" unicodetablename="Foo">\n'
    for other, room in ((merge, "Merge Gaming"), (micro, "MicroGaming")):
        assert not sniff("ipoker", other) and other_room(other)[0] == room
    assert SUFFIXES["ipoker"] == ".xml"


def test_a_utf16_export_is_read_as_its_utf8_twin(tmp_path):
    text = (FIXTURES / "cash.xml").read_text("utf-8").replace('encoding="utf-8"', 'encoding="utf-16"')
    (tmp_path / "a.xml").write_bytes(text.encode("utf-16"))
    assert detect(tmp_path / "a.xml").name == "ipoker"
    assert hands_of(tmp_path / "a.xml") == hands_of(FIXTURES / "cash.xml")


def test_the_engine_names_no_room():
    """The XML engine's code speaks of elements, codes and conventions; the room is its dialect file."""
    words = ("ipoker", "gamecode", "tablename", "uncalled_bet_enabled", "merge", "microgaming", "pokerstars",
             # Merge's elements, attributes and codes
             "nickname", "dealtin", "numholecards", "potnumber", "postflop", "small_blind", "end_of_game",
             # MicroGaming's
             "gameplay", "sittingout", "endbalance", "moneyreturned", "dealflop", "badbeatcontribution",
             # Boss Media's
             "bossmedia", "gamekind", "tablecurrency", "hand_blinds", "hand_deal", "hand_board", "hand_sb",
             "action_allin", "state_sitout", "state_empty", "str_g_muck", "wintype")
    for module in ("ingest/xml_dialect.py", "ingest/xml_stream.py", "ingest/xml_hand.py", "ingest/xml_rooms.py",
                   "export/xml_room.py"):
        code = "\n".join(line for line in (ROOT / "auditor" / module).read_text("utf-8").splitlines())
        found = [w for w in words if re.search(rf"\b{w}\b", code, re.IGNORECASE)]
        assert found == [], (module, found)


def test_money_is_read_in_every_way_the_room_writes_it():
    d = xml_dialect("ipoker")
    cases = {"£1,000.50": (100050, "GBP"), "1.000,50 €": (100050, "EUR"), "$5": (500, "USD"), "€0.05": (5, "EUR"),
             "$5,753.50": (575350, "USD"), "1,500": (150000, None), "0,5": (50, None), "€1 000,50": (100050, "EUR")}
    for text, (value, currency) in cases.items():
        got = d.amount(text)
        assert got is not None and (got.value, got.currency) == (value, currency), text
    for text in ("1.2.3", "abc", "€1$", "", "1,0000", "12,34,56"):
        assert d.amount(text) is None, text
    assert [d.card(t) for t in ("S10", "HA", "d2", "X")] == ["Ts", "Ah", "2d", "??"]
    assert d.card("Z9") is None


# -- the writer: the dialect run backwards ------------------------------------------------------------------------

PACK = resolve_pack("tda-2024")
GAMES = [("holdem", "no-limit"), ("holdem", "pot-limit"), ("holdem", "fixed-limit"), ("omaha", "pot-limit"),
         ("omaha", "no-limit")]



@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])  # each example audits twice: no shrinking
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 2**31 - 1), low=st.integers(2, 6),
       unit=st.sampled_from([1, 50]), cents=st.booleans(), pick=st.integers(0, 50))
def test_written_hands_read_back_the_same_with_the_same_findings(tmp_path_factory, game, seed, low, unit, cents,
                                                                 pick):
    assert_written_back("ipoker", tmp_path_factory.mktemp("ipoker"), *game, seed, low, pick,
                        currency="EUR" if cents else None, unit=unit)


def test_what_the_xml_cannot_say_is_refused_with_the_reason():
    (hand,) = hands_of(FIXTURES / "tournament.xml")
    assert ipoker.cannot_express(hand) is None
    kept = copy.deepcopy(hand)  # the uncalled bet kept in the pot: the XML writes no return, its reader derives one
    kept["events"] = [e for e in kept["events"] if e["kind"] != "return"]
    next(e for e in kept["events"] if e["kind"] == "award" and e["pot"] == 1)["amount"] += 300
    assert "uncalled bet returned otherwise" in ipoker.cannot_express(kept)
    shuffled = copy.deepcopy(hand)  # a show out of order: the XML says who showed, not when
    shows = [i for i, e in enumerate(shuffled["events"]) if e["kind"] == "show"]
    shuffled["events"][shows[0]], shuffled["events"][shows[1]] = shuffled["events"][shows[1]], \
        shuffled["events"][shows[0]]
    assert "shows the XML cannot say" in ipoker.cannot_express(shuffled)
    assert "burn" in ipoker.HIDDEN_CATEGORIES
    # stakes the XML's game line cannot name are refused with the reason, not a crash (found by fuzzing)
    assert "two blinds" in ipoker.cannot_express({**hand, "stakes": {**hand["stakes"], "blinds": [10]}})
    fixed = {**hand, "structure": "fixed-limit", "stakes": {**hand["stakes"], "bet_units": []}}
    assert "no bet units" in ipoker.cannot_express(fixed)


def test_verify_via_ipoker_measures_every_category_it_can_express_at_100_percent():
    report = verify_pack("tda-2024", 300, 1, via="ipoker")  # a seed that plants every category it can
    assert not report.problems, "\n".join(q.one_line() for q in report.problems[:10])
    table = report.table
    assert len(table) >= 10 and (table["expected"] > 0).all()
    assert (table["found"] == table["expected"]).all() and (table["false"] == 0).all()
    assert report.ok
    assert "burn" in report.unexpressed and "seating" in report.unexpressed
