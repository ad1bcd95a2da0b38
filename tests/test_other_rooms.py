"""`detect.recognise_other` on every sample of `../shared/corpus/other-rooms/`: room exports we have no
reader for are named by room, so the summary lists them as hand histories not audited (#13), not as
files "not recognised".

The room is decided by the file's content, never its folder. Where the two disagree the folder is
wrong (hhsmithy's parser-test folders hold some other rooms' files, empty files and fragments); each
such file is listed below with what its content is.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from auditor.ingest.detect import NOT_HAND_HISTORIES, SNIFF_BYTES, detect, other_room, read_file, recognise_other
from auditor.model.records import Quarantined

ROOT = Path(__file__).resolve().parents[1]
OTHER_ROOMS = ROOT.parent / "shared" / "corpus" / "other-rooms"
needs_corpus = pytest.mark.skipif(not OTHER_ROOMS.is_dir(), reason=f"the shared corpus is not at {OTHER_ROOMS}")

FOLDER_ROOM = {
    "888poker": "888poker", "bossmedia": "Boss Media", "entraction": "Entraction", "fulltilt": "Full Tilt Poker",
    "ipoker": "iPoker", "merge": "Merge Gaming", "microgaming": "MicroGaming", "ongame": "OnGame",
    "partypoker": "PartyPoker", "pokernow_csv": "PokerNow", "winamax": "Winamax",
    "winning_wpn": "Winning Poker Network",
}
_EMPTY = "only a byte-order mark"
_FRAGMENT = "a fragment of a hand (parser-test snippet without a header line)"
#: the rooms whose exports (in the shape of `ROOM_HEADERS`) have a dialect: read by it, not skipped; and the
#: folders of other-rooms/ whose files that dialect reads (WPN's there are its older layout, not read)
READ_BY = {"GGPoker": "ggpoker", "Winning Poker Network": "wpn", "Winamax": "winamax", "888poker": "888poker",
           "iPoker": "ipoker", "PartyPoker": "partypoker", "Full Tilt Poker": "fulltilt", "PokerNow": "pokernow",
           "Merge Gaming": "merge", "MicroGaming": "microgaming", "OnGame": "ongame", "Bovada": "bovada",
           "Ignition": "ignition", "Boss Media": "bossmedia",
           "Entraction": "entraction"}
READ_FOLDERS = {"winamax": "winamax", "888poker": "888poker", "ipoker": "ipoker", "partypoker": "partypoker",
                "fulltilt": "fulltilt", "pokernow_csv": "pokernow", "merge": "merge", "microgaming": "microgaming",
                "ongame": "ongame", "bossmedia": "bossmedia", "entraction": "entraction"}
#: file (relative to other-rooms/) -> (what its content is recognised as: a room, "pokerstars" for a file our
#: PokerStars reader reads, or None), and why it differs from its folder
NOT_THE_FOLDERS_ROOM: dict[str, tuple[str | None, str]] = {
    "888poker/hhsmithy/Pacific/CashGame/GameTypeTests/PotLimitHoldem.txt": ("PartyPoker", "a PartyPoker hand"),
    "888poker/hhsmithy/Pacific/CashGame/PlayerTests/WithSittingOut.txt": ("PartyPoker", "a PartyPoker hand"),
    "microgaming/hhsmithy/MicroGaming/CashGame/Seats/HeadsUp.txt": ("888poker", "a Cassava (888) hand"),
    "ongame/hhsmithy/OnGame/CashGame/PlayerTests/WithSittingOut.txt": ("PartyPoker", "a PartyPoker hand"),
    "winamax/hhsmithy/Winamax/CashGame/HandActionTests/OmahaHiLo.txt": ("MicroGaming", "a MicroGaming XML hand"),
    "entraction/hhsmithy/Entraction/CashGame/PlayerTests/WithSittingOut.txt": ("pokerstars", "a PokerStars hand"),
    "entraction/hhsmithy/Entraction/CashGame/Seats/Full Ring (10 Handed).txt": ("pokerstars", "a PokerStars hand"),
    "ongame/hhsmithy/OnGame/CashGame/GameTypeTests/CapNoLimitHoldem.txt": ("pokerstars", "a PokerStars hand"),
    "ongame/hhsmithy/OnGame/CashGame/GameTypeTests/PotLimitHoldem.txt": ("pokerstars", "a PokerStars hand"),
    "winamax/hhsmithy/Winamax/CashGame/ValidHandTests/InValidHand.txt": (None, "'Winaax Poker': damaged on purpose"),
    "fulltilt/hhsmithy/FullTilt/CashGame/BlindActionTests/Ante.txt": (None, _FRAGMENT),
    "fulltilt/hhsmithy/FullTilt/CashGame/BlindActionTests/ChatNumber.txt": (None, _FRAGMENT),
    "fulltilt/hhsmithy/FullTilt/CashGame/BlindActionTests/Ignore.txt": (None, _FRAGMENT),
    "fulltilt/hhsmithy/FullTilt/CashGame/BlindActionTests/Posting.txt": (None, _FRAGMENT),
    "fulltilt/hhsmithy/FullTilt/CashGame/ShowDownActionTests/Ignore.txt": (None, _FRAGMENT),
    **{f"{folder}/hhsmithy/{name}/CashGame/Seats/{seats}.txt": (None, _EMPTY)
       for folder, name in (("888poker", "Pacific"), ("fulltilt", "FullTilt"), ("microgaming", "MicroGaming"),
                            ("ongame", "OnGame"), ("partypoker", "PartyPoker"))
       for seats in ("4 Max", "Full Ring (10 Handed)")},
    "entraction/hhsmithy/Entraction/CashGame/Seats/4 Max.txt": (None, _EMPTY),
}


def _samples() -> list[Path]:
    return sorted(p for p in OTHER_ROOMS.rglob("*") if p.is_file()) if OTHER_ROOMS.is_dir() else []


@needs_corpus
def test_every_other_room_sample_is_named_by_its_room():
    named = 0
    for path in _samples():
        rel = path.relative_to(OTHER_ROOMS).as_posix()
        found = other_room(path.read_bytes()[:SNIFF_BYTES], path.name)
        if rel in NOT_THE_FOLDERS_ROOM:
            want = NOT_THE_FOLDERS_ROOM[rel][0]
            if want == "pokerstars":  # we read it: never called a room without a reader
                assert found is None and detect(path).name == "pokerstars", rel
            else:
                assert (found[0] if found else None) == want, rel
            continue
        assert found is not None and found[0] == FOLDER_ROOM[rel.split("/")[0]], (rel, found)
        # no reader of ours claims it, unless its format has a dialect, which reads its hand histories
        reader = READ_FOLDERS.get(rel.split("/")[0]) if found[1] not in NOT_HAND_HISTORIES else None
        assert getattr(detect(path), "name", None) == reader, rel
        named += 1
    assert named == len(_samples()) - len(NOT_THE_FOLDERS_ROOM) == 405
    assert all(Path(OTHER_ROOMS, rel).is_file() for rel in NOT_THE_FOLDERS_ROOM)  # the list is not stale


@needs_corpus
def test_each_room_has_a_sample():
    rooms = {other_room(p.read_bytes()[:SNIFF_BYTES]) for p in _samples()}
    assert {r[0] for r in rooms if r} == set(FOLDER_ROOM.values())
    assert ("888poker", "tournament summary") in rooms


def test_the_message_and_what_is_not_a_room():
    assert recognise_other(b"\xef\xbb\xbfWinamax Poker - CashGame - HandId: #1-2-3 - Holdem no limit") == \
        "Winamax hand history: no reader for this room"
    assert recognise_other("***** Hand history for game #75065769 *****".encode("utf-16")) == \
        "Everleaf hand history: no reader for this room"
    for head in (b"", b"\xef\xbb\xbf", b"# README\nhand histories of 888poker", b"PokerStars Hand #1: Hold'em",
                 b'{"ohh": {}}', b"entry,at,order,extra\n"):
        assert recognise_other(head, "x.txt") is None, head


def test_a_room_file_read_directly_or_in_an_archive_is_quarantined_with_its_room(tmp_path):
    text = b"Game started at: 2013/1/2 10:11:12\nGame ID: 123456789 1/2 Baryte (Hold'em)\n"
    path = tmp_path / "wpn.txt"
    path.write_bytes(text)
    (item,) = read_file(path)
    assert isinstance(item, Quarantined)
    assert (item.code, item.reason) == ("unsupported-format",
                                        "Winning Poker Network hand history: no reader for this room")
    archive = tmp_path / "logs.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("a/wpn.txt", text)
        z.writestr("b/notes.txt", b"nothing here")
    items = list(read_file(archive))
    assert [(i.file.rsplit("!", 1)[1], i.code) for i in items] == [("a/wpn.txt", "unsupported-format"),
                                                                    ("b/notes.txt", "unsupported-format")]


# -- every room a regulator receives is named, with or without a sample in the corpus ------------------------

#: room -> the opening lines of one of its hand histories, as the room writes them (learnt from the corpus's
#: samples and from the header shapes fpdb-3 recognises each room's exports by: see `detect._OTHER_ROOMS`)
ROOM_HEADERS = {
    "888poker": "#Game No : 499222502\n***** 888poker Hand History for Game 499222502 *****\n"
                "$0.01/$0.02 Blinds No Limit Holdem - *** 01 07 2018 12:32:18\n",
    "PartyPoker": "Game #11969240244 starts.\n\n#Game No : 11969240244\n"
                  "***** Hand History for Game 11969240244 *****\n",
    "Betfair Poker": "***** Betfair Poker Hand History for Game 123456789 *****\n"
                     "NL $0.05/$0.10 Texas Hold'em - Monday, January 04, 12:00:00 GMT 2010\n",
    "Everleaf": "***** Hand history for game #75065769 *****\nBlinds $0.05/$0.10 NL Hold'em - 2009/02/21 - 11:21:57\n",
    "Partouche Poker": "Partouche Poker Partie #75065769\n",
    "Full Tilt Poker": "Full Tilt Poker Game #33566745000: Table Mach 10 (6 max) - $0.10/$0.25 - No Limit Hold'em - "
                       "12:15:06 ET - 2011/09/27\n",
    "Hive Poker": "Hive Poker Hand #123456: Hold'em No Limit ($0.01/$0.02) - 2021/01/01 12:00:00\n",
    "Run It Once Poker": "Run It Once Poker Hand #123456: Omaha Pot Limit ($0.05/$0.10) - 2019/01/01 12:00:00\n",
    "PokerMaster": "PokerMaster Hand #123456: Hold'em No Limit (1/2) - 2019/01/01 12:00:00\n",
    "PokerBros": "PokerBros Hand #123456: Hold'em No Limit (1/2) - 2020/01/01 12:00:00\n",
    "MPL Poker": "MPLPoker Hand #123456: Hold'em No Limit (1/2) - 2022/01/01 12:00:00\n",
    "Suprema Poker": "SupremaPoker Hand #123456: Hold'em No Limit (1/2) - 2022/01/01 12:00:00\n",
    "BetOnline": "BetOnline Poker Game #123456789: Hold'em No Limit ($0.05/$0.10) - 2014/01/01 12:00:00 ET\n",
    "Seals With Clubs": "SwCPoker Hand #123456: Cashgame (Foo)#1, 0+0 Hold'em NL (5/10) - 2017-01-01 12:00:00\n",
    "GGPoker": "Poker Hand #RC3877234115: Hold'em No Limit ($0.01/$0.02) - 2025/09/11 05:33:42\n"
               "Table 'RushAndCash17757988' 6-max Seat #1 is the button\n",
    "Bovada": "Bovada Hand #3760569439 TBL#18310494 HOLDEM No Limit - 2019-04-14 22:14:33\n",
    "Ignition": "Ignition Hand #4805099984 TBL#35103450 HOLDEM No Limit - 2025-07-16 21:18:47\n",
    "Bodog": "Bodog Hand #2956834742 TBL#14212734 HOLDEM No Limit - 2013-05-12 12:00:00\n",
    "Unibet": "Unibet Hand #1558006027 - 0.03/0.05 - Pot Limit Omaha - UTC 21:59:40 2026/06/05\n"
              "Table \"86113818\" 6-max\n",
    "Winning Poker Network": "Game Hand #673950146 - Tournament #23889488 - Holdem(No Limit) - Level 1 (250.00/500.00)"
                             "- 2021/01/22 12:00:00 UTC\nTable '1' 9-max Seat #3 is the button\n",
    "Cake Poker": "Hand#ABC123 - Table Foo 1 -- $0.05/$0.10 NL Hold'em -- 2012/01/01 - 12:00:00\n",
    "PKR": "Table #5 - Foo\nStarting Hand #123456\nStart time of hand: 11 Jun 2012 21:38:10\n",
    "Absolute Poker / UltimateBet": "Stage #1571362962: Holdem  No Limit $0.02 - 2009-08-05 15:24:06 (ET)\n"
                                    "Table: TORONTO AVE (Real Money) Seat #6 is the dealer\n",
    "iPoker": '<?xml version="1.0" encoding="utf-8"?>\n<session sessioncode="1234">\n<general>\n',
    "Everest Poker": '<SESSION time="1291155932" tableName="Foo" id="1.2" type="ring" money="$"/>\n'
                     '<HAND time="1291155932" id="123" index="1" blinds="$0.05/$0.10">\n',
    "Boss Media": '<HISTORY ID="123" SESSION="session456.xml" TABLE="Foo" GAME="GAME_THM">\n',
    "Merge Gaming": '<game id="46154255-645" starttime="20111230232051" numholecards="2" gametype="1" seats="9">\n',
    "MicroGaming": '<Game hhversion="4" id="123456" date="2011-02-19 18:56:53" unicodetablename="Foo">\n',
    "Winamax": "Winamax Poker - CashGame - HandId: #123-45-678 - Holdem no limit (0.01€/0.02€) - "
               "2010/09/21 03:10:51 UTC\n",
    "OnGame": "***** History for hand R5-75443872-57 *****\nStart hand: Wed Aug 18 19:45:30 GMT+0100 2010\n",
    "Entraction": "Game # 123456789 - Texas Hold'em No Limit EUR 0.50/1 - Table \"Foo\"\n",
    "Enet": "Game #123456: Hold'em ($0.05/$0.10) - 12:00:00 1.1.2012\n"
            "Table 'Foo - No Limit' 6-max Seat #1 is the button\n",
    "KingsClub": "#123456: No Limit Holdem - 0.50/1.00 - 2020-01-01 12:00:00\n"
                 "Table 'Foo' 9-max Seat #1 is the button\n",
    "PokerNow": "entry,at,order\n",
}
#: the same room's exports in another shape: (room, opening lines)
MORE_HEADERS = [
    ("Unibet", "Game #123456: Table €10 PL - 0.05/0.10 - Pot Limit Omaha - 12:00:00 2020/01/01\n"),
    ("Winning Poker Network", "Hand #68217077 - Holdem(No Limit) - $0.05/$0.10 - 2019/06/28 02:38:17 UTC\n"),
    ("Winning Poker Network", "Game started at: 2016/1/1 12:00:00\nGame ID: 123456789 0.05/0.10 Foo (Hold'em)\n"),
    ("Full Tilt Poker", "Full Tilt Hand #123456: Hold'em No Limit ($0.05/$0.10) - 2013/01/01 12:00:00 ET\n"),
    ("Seals With Clubs", "Hand #1234-56 - 2013-01-31 05:55:42\nGame: No Limit Hold'em (20 - 200) - Blinds 1/2\n"
                         "Site: Seals With Clubs\n"),
    ("iPoker", '<game gamecode="1234567890">\n'),
    ("iPoker", "GAME #1234567890 Version:1.0 Uncalled:Y Texas Hold'em NL $0.05/$0.10 2012-01-01 12:00:00\n"),
    ("Everest Poker", "EverestPoker Game #1234: Table Foo - $0.05/$0.10 - No Limit Hold'em - 2012/01/01 12:00:00\n"),
    ("Merge Gaming", "MERGE_GAME #1234: Table Foo - $0.05/$0.10 - No Limit Hold'em\n"),
    ("MicroGaming", "** Game ID 1234 starting - 2012-01-01 12:00:00\n"),
    ("PayNoRake", "PayNoRake Game #123456789: Hold'em No Limit ($0.05/$0.10) - 2014/01/01 12:00:00 ET\n"),
]


@pytest.mark.parametrize(("room", "text", "read_by"),
                         [*((room, text, READ_BY.get(room)) for room, text in ROOM_HEADERS.items()),
                          *((room, text, None) for room, text in MORE_HEADERS)])
def test_every_room_a_regulator_receives_is_named(room, text, read_by):
    """One header of each room the open-source trackers read (fpdb-3's list: PokerStars' format clones, GGPoker,
    Winamax, iPoker and its skins, PartyPoker, 888, WPN/ACR, Bovada/Ignition, Unibet, Merge, MicroGaming, Boss,
    OnGame, Full Tilt, Cake, PKR, Absolute, Everest, Everleaf, Entraction, Enet, BetOnline, KingsClub, Seals With
    Clubs and PokerTracker's exports): a file of a room the auditor cannot read yet is named in the summary, never
    "not recognised"; a room with a dialect is read by it. With a byte-order mark or CR LF line ends too."""
    for head in (text, "\ufeff" + text, text.replace("\n", "\r\n")):
        assert other_room(head.encode("utf-8")) is not None and other_room(head.encode("utf-8"))[0] == room, head
        assert detect_bytes(head) == read_by  # no other reader of ours takes it (the other shapes: none)


def detect_bytes(text: str):
    from auditor.ingest.detect import FORMATS

    return next((f.name for f in FORMATS if f.sniff(text.encode("utf-8"))), None)


def test_no_header_of_one_room_is_taken_for_another_s():
    """The headers that end alike (PokerStars' format under other brands, GGPoker's "Poker Hand #") and those that
    begin alike ("Hand #" of WPN and of Seals With Clubs' old export, "Game #" of Enet, Unibet and Entraction) name
    their own room: the table is ordered and anchored for it."""
    named = {room: other_room(text.encode("utf-8"))[0] for room, text in ROOM_HEADERS.items()}
    assert named == {room: room for room in ROOM_HEADERS}
    # PokerStars' own files are read, never named as another room's
    stars = "PokerStars Hand #78407803350:  Hold'em No Limit ($0.08/$0.16 USD) - 2012/04/06 4:02:16 ET\n"
    assert detect_bytes(stars) == "pokerstars"


ROOMS_2 = OTHER_ROOMS.parent / "rooms-2"


@pytest.mark.skipif(not ROOMS_2.is_dir(), reason=f"the shared corpus is not at {ROOMS_2}")
def test_every_hand_history_of_the_newer_rooms_is_named():
    """rooms-2/: every file a hand history read by its room's dialect (GGPoker, WPN, Winamax, 888, iPoker,
    PartyPoker, Bovada, Ignition), PokerNow's logs (CSV, and the one saved as text) by the PokerNow reader."""
    folder_rooms: dict[str, set[str]] = {}
    named: dict[str, set[str]] = {}
    for path in sorted(p for p in ROOMS_2.rglob("*") if p.is_file() and p.suffix != ".tsv"):
        folder = path.relative_to(ROOMS_2).parts[0]
        if folder == "pokernow":  # the CSV logs and the one saved as `.txt`, all read by content
            assert detect(path).name == "pokernow", path
            continue
        if "summary" in path.name:  # Winamax tournament summaries: not hand histories
            continue
        with path.open("rb") as stream:
            head = stream.read(SNIFF_BYTES)
        found = other_room(head, path.name)
        if found is not None and found[0] in READ_BY:
            assert detect(path).name == READ_BY[found[0]], path
            continue
        assert found is not None, path
        named.setdefault(folder, set()).add(found[0])
    assert named == folder_rooms


def test_an_audit_names_every_room_s_skipped_file_in_its_summary(tmp_path):
    """A folder holding one file of each room (as a room's export is named: `.txt`, `.xml`, `.csv`) beside a log we
    read: each is skipped as a hand history not audited, named by its room in the result and the text summary, and
    the run exits 3 (something went unaudited), never passing them over as files that are no hand logs."""
    from click.testing import CliRunner

    from auditor.cli import main
    from auditor.pipeline import audit

    logs = tmp_path / "logs"
    logs.mkdir()
    suffix = {"iPoker": ".xml", "Everest Poker": ".xml", "Boss Media": ".xml", "Merge Gaming": ".xml",
              "MicroGaming": ".xml", "PokerNow": ".csv"}
    unread = {room: text for room, text in ROOM_HEADERS.items() if room not in READ_BY}
    for k, (room, text) in enumerate(unread.items()):
        (logs / f"export-{k:02d}{suffix.get(room, '.txt')}").write_text(text, encoding="utf-8")
    (logs / "holdem.jsonl").write_bytes((ROOT / "sample_logs" / "holdem.jsonl").read_bytes())
    result = audit([logs])
    named = {what.split(" hand history")[0].split(" XML")[0].split(" CSV")[0]
             for what in result.skipped_hand_histories.values()}
    assert named == set(unread)
    assert len(result.skipped_hand_histories) == len(unread)
    run = CliRunner().invoke(main, ["audit", str(logs), "--quiet"])
    assert run.exit_code == 3, run.output
    assert f"{len(unread)} hand-history file(s) skipped" in run.output


def test_a_tournament_summary_is_named_and_not_counted_as_hands_unaudited(tmp_path):
    """A room's tournament summary holds no hands: skipped and named as what it is, beside the files that are no
    hand logs, and the run is not failed for it (an audit of a folder holding one passes with exit 0)."""
    from click.testing import CliRunner

    from auditor.cli import main
    from auditor.pipeline import audit

    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "summary.txt").write_text("Winamax Poker - Tournament summary : Expresso(112456330)\n"
                                      "Player : tc1591\nBuy-In : 0.46€ + 0.04€\n", encoding="utf-8")
    (logs / "888.txt").write_text("***** 888poker Tournament Summary *****\nTournament ID: 1\n", encoding="utf-8")
    (logs / "holdem.jsonl").write_bytes((ROOT / "sample_logs" / "holdem.jsonl").read_bytes())
    result = audit([logs])
    assert result.skipped_hand_histories == {}
    assert result.skipped_documents == {logs / "summary.txt": "Winamax tournament summary",
                                        logs / "888.txt": "888poker tournament summary"}
    run = CliRunner().invoke(main, ["audit", str(logs), "--quiet"])
    assert run.exit_code == (1 if len(result.findings) else 0), run.output  # never 3 (unaudited) for a summary
    text = CliRunner().invoke(main, ["audit", str(logs)]).output
    assert "summary.txt: a Winamax tournament summary" in text
    alone = CliRunner().invoke(main, ["audit", str(logs / "summary.txt")])
    assert alone.exit_code == 2 and "a Winamax tournament summary, not a hand history" in alone.output
