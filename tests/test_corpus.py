"""The whole real corpus under tda-2024: exactly the expected findings, each with its reason written
down in tests/expected/corpus-findings.tsv, and every quarantine as listed in corpus-quarantine.tsv.

Real logs of real play must produce no finding except true deviations; this test is the list of
those deviations, decided one by one. A new finding or a lost one fails the test.
"""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest

from auditor.pipeline import audit

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
EXPECTED = Path(__file__).resolve().parent / "expected"
#: the folders of rooms-2/ and other-rooms/ whose room has a dialect: read whole
READ_ROOMS = [CORPUS / "rooms-2" / "ggpoker", CORPUS / "rooms-2" / "wpn", CORPUS / "rooms-2" / "winamax",
              CORPUS / "other-rooms" / "winamax", CORPUS / "rooms-2" / "888", CORPUS / "other-rooms" / "888poker",
              CORPUS / "rooms-2" / "ipoker", CORPUS / "other-rooms" / "ipoker", CORPUS / "rooms-2" / "partypoker",
              CORPUS / "other-rooms" / "partypoker", CORPUS / "other-rooms" / "fulltilt",
              CORPUS / "rooms-2" / "pokernow", CORPUS / "other-rooms" / "pokernow_csv",
              CORPUS / "other-rooms" / "merge", CORPUS / "other-rooms" / "microgaming",
              CORPUS / "other-rooms" / "ongame", CORPUS / "rooms-2" / "bovada", CORPUS / "other-rooms" / "bossmedia",
              CORPUS / "other-rooms" / "entraction"]
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus is not beside the project")


def _rows(name: str) -> list[dict[str, str]]:
    with (EXPECTED / name).open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


@pytest.fixture(scope="module")
def result():
    return audit([CORPUS / "phh", CORPUS / "pokerstars", CORPUS / "ohh", *READ_ROOMS], pack="tda-2024")


def test_corpus_findings_are_exactly_the_expected_deviations(result):
    got = Counter((str(Path(f).relative_to(CORPUS)), h, r) for f, h, r in
                  result.findings[["file", "hand_id", "rule_id"]].itertuples(index=False))
    expected = _rows("corpus-findings.tsv")
    assert all(row["reason"].strip() for row in expected)
    want = Counter((row["file"], row["hand_id"], row["rule_id"]) for row in expected)
    assert got == want


def test_corpus_quarantine_is_exactly_the_listed_unsupported_or_defective_hands(result):
    got = Counter((str(Path(q.file).relative_to(CORPUS)), q.line, q.code, q.reason) for q in result.quarantined)
    want = Counter((row["file"], int(row["line"]), row["code"], row["reason"])
                   for row in _rows("corpus-quarantine.tsv"))
    assert got == want
    assert result.hands_read == result.hands_audited + result.hands_not_covered + result.hands_quarantined
    assert result.hands_not_covered == 0  # tda-2024 covers every game the corpus's readers accept
    # PokerStars, PHH, OHH; GGPoker 91, WPN 51, Winamax 144, 888poker 159 (one misfiled under microgaming/),
    # iPoker 225, PartyPoker 357, Full Tilt 40, PokerNow 132, Merge 39, MicroGaming 39, OnGame 44 (and a PartyPoker
    # hand in its folder), Bovada and Ignition 61, Boss Media 29, Entraction 38 (and a PokerStars hand in its folder)
    assert result.hands_audited == 6805


#: Winamax files with an uncalled bet paid with its bettor's award (every file but the damaged one), and those
#: with a cash seat no line names (read as sitting out)
WINAMAX_IN_AWARD = ("10MultipleHands.txt", "20141116_Double or Nothing(100679030)_real_holdem_no-limit.txt",
                    "20150309_Colorado 1_real_holdem_no-limit.txt",
                    "20150309_Expresso(112456330)_real_holdem_no-limit.txt",
                    "20150309_SHORT TRACK 0,10€ 04_real_holdem_no-limit.txt",
                    "20150718_holdemTournament(123703551)_real_holdem_no-limit.txt", "3BetHand.txt", "6 Max.txt",
                    "BasicHand.txt", "FoldedPreflop.txt", "HeadsUp.txt", "HeroName.txt", "Limit1.txt", "Limit2.txt",
                    "Limit3.txt", "NoHoleCards.txt", "NoLimitHoldem.txt", "Preflop.txt", "Table1.txt", "Table2.txt",
                    "Table3.txt", "Table4.txt", "Turn.txt", "ValidHand.txt", "cashGame_HandWithoutAction.txt")
#: 888poker files with an uncalled bet it wrote no return for, and those with rake (888 writes neither): the
#: tournament files' name is long, the same but for the tournament number and day
_EIGHT_TOURNAMENT = "888poker2016{} Tournament ${} Step {} WSOP, 888Live & Major Tournaments ({}) No Limit Holdem.txt"
EIGHT_RETURNS = ("3BetHand.txt", "6 Max.txt", "AllInHandWithShowdown.txt", "BasicHand.txt", "Flop.txt",
                 "FoldedPreflop.txt", "GeneralHand.txt", "HeadsUp.txt", "HeroName.txt", "Limit1.txt", "Limit2.txt",
                 "Limit4.txt", "NoHoleCards.txt", "NoLimitHoldem.txt", "NoLimitOmaha.txt", "PotLimitOmaha.txt",
                 "Preflop.txt", "Table1.txt", "Table3.txt", "Table4.txt", "Table5.txt", "Turn.txt", "ValidHand.txt",
                 "hands.txt", "hands.txt", "hands.txt",
                 *(_EIGHT_TOURNAMENT.format(day, "0.01", 1, number) for day, number in
                   (("0327", 78669312), ("0327", 78669773), ("0327", 78670191), ("0328", 78670600))),
                 _EIGHT_TOURNAMENT.format("0328", "0.09 + $0.01", 2, 78678966))
EIGHT_RAKES = ("3BetHand.txt", "6 Max.txt", "AllInHandWithShowdown.txt", "BasicHand.txt", "FixedLimitHoldem.txt",
               "Flop.txt", "Full Ring (9 Handed).txt", "GeneralHand.txt", "HeadsUp.txt", "Limit2.txt", "Limit3.txt",
               "NoLimitHoldem.txt", "OmahaShowdown.txt", "PostingDead.txt", "PotLimitOmaha.txt", "River.txt",
               "Table2.txt", "Table3.txt", "Table4.txt", "Table5.txt", "Turn.txt", "ValidHand.txt", "WithShowdown.txt",
               "hands.txt", "hands.txt", "hands.txt")
#: the PartyPoker files among HHSmithy's 888 and OnGame samples (tests/test_other_rooms.py), read as PartyPoker's
PARTY_IN_888_FOLDER = (*(f"other-rooms/888poker/hhsmithy/Pacific/CashGame/{name}.txt"
                          for name in ("GameTypeTests/PotLimitHoldem", "PlayerTests/WithSittingOut")),
                       "other-rooms/ongame/hhsmithy/OnGame/CashGame/PlayerTests/WithSittingOut.txt")
#: PokerNow's conventions (docs/readers.md, "PokerNow"), each said once per file where it applied
POKERNOW_NOTES = [("poker_now_log_pglhTdT0g-V_oxxMaQxatNdFk.csv", "dead-button-from-last-hand"),
                  ("log4.csv", "dead-button-from-last-hand"), ("log4.csv", "all-in-capped-at-the-covered-stack"),
                  ("mwpot.csv", "repeated-show-read-once"), ("mwpot.csv", "stakes-from-posts"),
                  ("run-it-twice.csv", "stakes-from-posts"), ("Input_Log_002.csv", "stakes-from-posts"),
                  *((name, "owner-cards-from-your-hand") for name in ("Input_Log_002.csv", "log2.csv",
                                                                      "run-it-twice.csv", "log4.csv", "hu.csv"))]
WINAMAX_SILENT = ("10MultipleHands.txt", "20150309_SHORT TRACK 0,10€ 04_real_holdem_no-limit.txt", "3BetHand.txt",
                  "HeroName.txt")


def test_corpus_room_conventions_are_notes_not_findings(result):
    """The two older PokerStars exports that write no 'Uncalled bet' line are read with the implied return,
    Winamax's files with the uncalled bet paid in the award and its unmarked sitting-out seats, and 888's with the
    uncalled bet and the rake it never writes, and iPoker's actions taken by their numbers, uncalled bets in the
    win, rake and silent seats, each said once per file, instead of a chip-conservation or action-order finding on
    each such hand."""
    xml = {n for n in result.notes if "ipoker" in Path(n.file).parts}
    party = {n for n in result.notes if "partypoker" in Path(n.file).parts or str(Path(n.file).relative_to(CORPUS))
             in PARTY_IN_888_FOLDER}
    # Full Tilt's one: players sitting out named only in the summary, once per file
    tilt = {n for n in result.notes if "fulltilt" in Path(n.file).parts}
    assert Counter(n.code for n in tilt) == {"silent-seat-sitting-out": 5}
    # PartyPoker's (rooms/partypoker.yaml), each said at most once per file: the uncalled chips it pays as a pot
    # of their own, the rake it never writes, its unmarked sitting-out seats
    assert {n.code for n in party} == {"uncalled-bet-paid-as-pot", "rake-derived", "silent-seat-sitting-out"}
    assert len({(n.file, n.code) for n in party}) == len(party)
    pokernow = {n for n in result.notes if {"pokernow", "pokernow_csv"} & set(Path(n.file).parts)}
    assert Counter((Path(n.file).name, n.code) for n in pokernow) == Counter(POKERNOW_NOTES)
    # iPoker's four conventions (docs/xml-rooms.md), each said at most once per file
    assert Counter(n.code for n in xml) == {"action-order-by-number": 37, "uncalled-return-in-the-win": 36,
                                            "rake-the-chips-not-paid": 24, "silent-seats-sitting-out": 17}
    assert len({(n.file, n.code) for n in xml}) == len(xml)
    # Merge's two conventions: a hand won by folds writes its uncalled bet in the win; no rake is written
    merge = {n for n in result.notes if "merge" in Path(n.file).parts}
    assert Counter(n.code for n in merge) == {"uncalled-return-in-the-win": 18, "rake-the-chips-not-paid": 23}
    assert len({(n.file, n.code) for n in merge}) == len(merge)
    # MicroGaming's: its files without a byte-order mark in Windows-1252, the jackpot's drop off the stack, silent
    # seats, the uncalled bet in the win of a hand won by folds (its HeadsUp.txt is an 888 hand: 888's notes)
    micro = {n for n in result.notes if "microgaming" in Path(n.file).parts and Path(n.file).name != "HeadsUp.txt"}
    assert Counter(n.code for n in micro) == {"encoding-windows-1252": 8, "fees-from-the-stack": 7,
                                              "silent-seats-sitting-out": 13, "uncalled-return-in-the-win": 21}
    assert len({(n.file, n.code) for n in micro}) == len(micro)
    # OnGame's one: the uncalled bet it never writes, left out of the award, once per file (its WithSittingOut.txt
    # is a PartyPoker hand: PartyPoker's notes)
    ongame = {n for n in result.notes if "ongame" in Path(n.file).parts and n not in party}
    assert Counter(n.code for n in ongame) == {"uncalled-bet-derived": 24}
    assert len({(n.file, n.code) for n in ongame}) == len(ongame)
    # Boss Media's: the uncalled bet it never writes, left out of the wins; seats dealt nothing and silent
    boss = {n for n in result.notes if "bossmedia" in Path(n.file).parts}
    assert Counter(n.code for n in boss) == {"uncalled-return-not-written": 18, "silent-seats-sitting-out": 7}
    assert len({(n.file, n.code) for n in boss}) == len(boss)
    # Bovada's and Ignition's one: the rake they never write, once per file that took one
    bovada = {n for n in result.notes if "bovada" in Path(n.file).parts}
    assert Counter(n.code for n in bovada) == {"rake-derived": 6}
    assert len({(n.file, n.code) for n in bovada}) == len(bovada)
    xml |= merge | micro | ongame | bovada | boss
    notes = Counter((Path(n.file).name, n.code) for n in result.notes if n not in xml | party | tilt | pokernow)
    assert notes == Counter({("DateIssue1.txt", "implied-uncalled-return"): 1,
                             ("DateIssue2.txt", "implied-uncalled-return"): 1,
                             **{(name, "uncalled-bet-in-award"): 1 for name in WINAMAX_IN_AWARD},
                             **{(name, "silent-seat-sitting-out"): 1 for name in WINAMAX_SILENT}}) \
        + Counter((name, "uncalled-bet-derived") for name in (*EIGHT_RETURNS, "HeadsUp.txt")) \
        + Counter((name, "rake-derived") for name in EIGHT_RAKES)
