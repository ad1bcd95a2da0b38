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

from auditor.ingest.detect import SNIFF_BYTES, detect, other_room, read_file, recognise_other
from auditor.model.records import Quarantined

OTHER_ROOMS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "other-rooms"
needs_corpus = pytest.mark.skipif(not OTHER_ROOMS.is_dir(), reason=f"the shared corpus is not at {OTHER_ROOMS}")

FOLDER_ROOM = {
    "888poker": "888poker", "bossmedia": "Boss Media", "entraction": "Entraction", "fulltilt": "Full Tilt Poker",
    "ipoker": "iPoker", "merge": "Merge Gaming", "microgaming": "MicroGaming", "ongame": "OnGame",
    "partypoker": "PartyPoker", "pokernow_csv": "PokerNow", "winamax": "Winamax",
    "winning_wpn": "Winning Poker Network",
}
_EMPTY = "only a byte-order mark"
_FRAGMENT = "a fragment of a hand (parser-test snippet without a header line)"
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
        assert detect(path) is None, rel  # and no reader of ours claims it
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
    assert recognise_other("Full Tilt Poker Game #1: Table X".encode("utf-16")) == \
        "Full Tilt Poker hand history: no reader for this room"
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
