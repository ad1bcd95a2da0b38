"""Room dialects (`rooms/*.yaml`): each validates, compiles, and each of its templates reads back what it writes.

The engine and the dialect writer are room-neutral: no room's name appears in their code (a room is data).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from auditor.export import SUFFIXES, writer
from auditor.ingest.dialect import FIELD_TYPES, DialectError, Field, Maybe, Money, dialect, load
from auditor.resources import room_names, rooms_dir

ROOMS = room_names()
#: code that must speak of no room by name: the dialect engine and the dialect writer
ROOM_NEUTRAL = ["auditor/ingest/dialect.py", "auditor/export/text_room.py", "auditor/ingest/rooms.py",
                "auditor/ingest/room_match.py", "auditor/ingest/room_ledger.py", "auditor/ingest/text_blocks.py"]
#: the rooms detection names (ingest.detect); none may be named in room-neutral code
ROOM_WORDS = ("pokerstars", "stars", "ggpoker", "winamax", "ipoker", "partypoker", "888", "pacific", "acr", "wpn",
              "bovada", "ignition", "unibet", "merge", "microgaming", "full tilt", "ongame", "cake", "pkr",
              "everest", "everleaf", "entraction", "betonline", "kingsclub")


def test_rooms_are_found():
    assert "pokerstars" in ROOMS


@pytest.mark.parametrize("room", ROOMS)
def test_dialect_compiles_and_names_its_suffix(room):
    spoken = dialect(room)
    assert spoken.room == room
    assert SUFFIXES[room] == spoken.data["suffix"]
    for name, convention in spoken.data["conventions"].items():
        assert convention["doc"].strip(), name


def _sample(part: Field, money: Money):
    """A value of each type. Names are plain here: a template's pattern alone cannot tell a name that holds the
    room's words from the words, which is why the engine matches names against the hand's seats."""
    return {"int": 7, "amount": 1250, "cards": ["Ah", "Td"], "player": "Bob", "name": "Bo b", "rest": "the rest",
            "text": "some text",
            "word": "USD", "words": "Zoom ", "code": "EUR", "zone": "ET", "time_sep": " ", "hand_word": "Hand",
            "pot_list": "", "roles": " (button)", "bracketless": "$2 bounty",
            "time": "2024/01/02 10:11:12 ET", "offset_zone": "GMT+01:00", "blanks": ""}.get(part.type)


def _values(parts, money, spoken, values):
    for part in parts:
        if isinstance(part, Maybe):
            values[part.name] = True
            _values(part.parts, money, spoken, values)
        elif isinstance(part, Field):
            value = _sample(part, money) if part.type != "stake" else 1250
            if part.type == "time":  # a time as the room writes it
                value = spoken.time.write(_values(spoken.time.parts, money, spoken, {}), money)
            if value is None:  # the room's own words
                own = {"street": spoken.syntax["streets"][0], "draw": (spoken.syntax["draws"] or ["Draw"])[0],
                       "pot": spoken.syntax["pots"]["main"],
                       "seat_status": next(iter(spoken.syntax["seat_status"].values()), " is sitting out"),
                       "brand": (spoken.syntax.get("brands") or ["?"])[0],
                       "month": (spoken.syntax["time"].get("months") or ["07"])[0]}
                value = own[part.type]
            values[part.name] = value
    return values


def _text(part: Field, value, money: Money, card_separator: str = " ") -> str:
    if part.type in ("amount", "stake"):
        return money(value)
    return card_separator.join(value) if part.type == "cards" else str(value)


@pytest.mark.parametrize("room", ROOMS)
def test_every_template_reads_back_what_it_writes(room):
    spoken = dialect(room)
    money = spoken.money("USD", 2)  # as the room writes dollars: the symbol before or after the number
    templates = [*spoken.lines.values(), *spoken.quiet, *spoken.header.values(), *spoken.results.values(),
                 spoken.time]
    for template in templates:
        values = _values(template.parts, money, spoken, {})
        line = template.write(values, money)
        read = template.read(line)
        assert read is not None, (template.kind, line, template.pattern.pattern)
        # (a `blanks` field is written as the room pads its columns, and read as any run of blanks)
        fields = [p for p in _walk(template.parts) if isinstance(p, Field) and p.type != "blanks"]
        if template.kind == "next_board" and spoken.convention("board_lines") == "whole_board":
            # (the whole board as one run of cards: which of them are new, the board so far tells the reader)
            assert read["board"] + template.card_separator + read["cards"] == template.card_separator.join(
                values["board"] + values["cards"])
            fields = [p for p in fields if p.name not in ("board", "cards")]
        for part in fields:
            assert read[part.name] == _text(part, values[part.name], money, template.card_separator), \
                (template.kind, part.name, line)


def _walk(parts):
    for part in parts:
        yield part
        if isinstance(part, Maybe):
            yield from _walk(part.parts)


def test_optional_parts_are_left_out_unless_flagged():
    template = dialect("pokerstars").lines["call"]
    assert template.write({"player": "P", "amount": 5}, Money("", 0)) == "P: calls 5"
    assert template.read("P: calls 5") == {"player": "P", "amount": "5", "all_in": None, "capped": None,
                                           "cap": None}


def test_every_field_type_is_known():
    for room in ROOMS:
        for template in dialect(room).lines.values():
            for part in _walk(template.parts):
                assert not isinstance(part, Field) or part.type in FIELD_TYPES


@pytest.mark.parametrize(("change", "message"), [
    (lambda text: text.replace("room: pokerstars", "room: 7"), "room"),
    (lambda text: text.replace('check: "{player:player}: checks"', 'check: "{player:nonsense}: checks"'),
     "unknown type 'nonsense'"),
    (lambda text: text.replace('check: "{player:player}: checks"', 'check: "{player:player: checks"'),
     "unknown type"),
    (lambda text: text + "\nunknown_key: 1\n", "Additional properties"),
    (lambda text: text.replace("room: pokerstars", "room: [unclosed"), "cannot read the dialect"),
    # the engine finds a hand by the literal text its first line begins with
    (lambda text: text.replace('hand_start: "PokerStars {brand:words}', 'hand_start: "{brand:words}'),
     "must begin with literal text"),
])
def test_a_broken_dialect_is_refused_naming_its_file(tmp_path, change, message):
    path = tmp_path / "broken.yaml"
    path.write_text(change((rooms_dir() / "pokerstars.yaml").read_text("utf-8")), "utf-8")
    with pytest.raises(DialectError, match=re.escape(message)) as caught:
        load(path)
    assert str(path) in str(caught.value)


def test_a_dialect_on_a_base_says_only_what_differs(tmp_path):
    """A room exporting another room's format (`base: pokerstars`) inherits every line, table and convention it
    does not restate; a mapping it restates is combined key by key, a list or a text replaces the base's."""
    (tmp_path / "pokerstars.yaml").write_text((rooms_dir() / "pokerstars.yaml").read_text("utf-8"), "utf-8")
    (tmp_path / "clone.yaml").write_text(
        'base: pokerstars\nroom: clone\ntitle: Clone\nsuffix: .txt\n'
        'recognise: {hand_start: "Clone Hand #{hand_id:int}:"}\n'
        'lines: {check: "{player:player} checks", ignored: ["Nothing to see"]}\n', "utf-8")
    clone, base = load(tmp_path / "clone.yaml"), dialect("pokerstars")
    assert (clone.room, clone.title) == ("clone", "Clone")
    assert clone.header["hand_start"].read("Clone Hand #12:") == {"hand_id": "12"}
    assert clone.lines["check"].source == "{player:player} checks"
    assert clone.lines["raise"].source == base.lines["raise"].source  # inherited
    assert clone.data["recognise"]["separator"] == base.data["recognise"]["separator"]
    assert clone.data["lines"]["ignored"] == ["Nothing to see"]  # a list replaced whole
    assert clone.data["conventions"] == base.data["conventions"]


@pytest.mark.parametrize("base", ["clone", "missing", "../pokerstars"])
def test_a_base_that_cannot_be_built_on_is_refused(tmp_path, base):
    """A base that is the file itself (a loop), no dialect, or a path outside the rooms' folder."""
    path = tmp_path / "clone.yaml"
    path.write_text(f"base: {base}\nroom: clone\n", "utf-8")
    with pytest.raises(DialectError) as caught:
        load(path)
    assert str(path) in str(caught.value) or "missing.yaml" in str(caught.value)


@pytest.mark.parametrize("source", ROOM_NEUTRAL)
def test_room_neutral_code_names_no_room(source):
    text = (Path(__file__).resolve().parent.parent / source).read_text("utf-8").lower()
    named = [word for word in ROOM_WORDS if re.search(rf"\b{re.escape(word)}\b", text)]
    assert not named, f"{source} names rooms {named}: a room's words belong in its dialect"


def test_writer_of_a_room_is_its_dialect():
    ps = writer("pokerstars")
    assert ps.dialect is dialect("pokerstars")
    assert ps.SUFFIX == ".txt" and "burn" in ps.HIDDEN_CATEGORIES
