"""Writers from canonical hands to the rooms' formats: each text room's dialect, Open Hand History, PHH.

They exist to prove the readers: `auditor verify --via FORMAT` writes every simulated and mutated
hand in FORMAT, reads it back with that format's reader and audits what comes back, so a reader is
measured on exactly the hands the canonical log holds (one planted violation each).

A text room's writer is its dialect run backwards (`auditor.export.text_room`, from `rooms/<room>.yaml`), and so
is an XML room's (`auditor.export.xml_room`, from `rooms/xml/<room>.yaml`); OHH and PHH have writer modules of their
own. Each writer exposes:

- `cannot_express(hand) -> str | None`: why this format cannot hold `hand` (a variant or event the
  format has no words for, e.g. PHH has no seat draw), or None when it can. Verify lists the
  categories a format cannot express with these reasons instead of counting them as misses.
- `write_hands(hands, path) -> int`: write the hands (canonical dicts, in table order) to one file
  of the format at `path`, following the format's own conventions; returns how many were written.

A writer may also expose these; verify (:class:`auditor.simulate.verify._Via`) uses each one it finds
and assumes the default otherwise:

- `SUFFIX: str`: the file suffix to write, when it is not the format's entry in `SUFFIXES` (the
  reader detects the format by it, as `auditor audit` would).
- `HIDDEN_CATEGORIES: dict[str, str]`: finding category -> why the format cannot show that kind of
  fault at all (burn cards in PokerStars text, OHH and PHH; hand ids and round totals in PHH).
  `cannot_express` judges a hand, and a planted fault can leave a hand that is still expressible
  while the fault itself disappears in the text (a missing burn is not printed, so it reads back as
  a clean hand): naming the category keeps verify from counting that as a miss. Default: none.
- `cannot_express_together(hands) -> str | None`: why several hands cannot share one file although
  each is expressible alone (PHH has no hand id, its reader names hands by file and table key, so
  a repeated hand id cannot be written; OHH's answers None, each object carrying its own number).
  Called on a unit of two or more hands. Default: every set of expressible hands can.
- `event_index(hand) -> list[int | None]`: for each canonical event, its index in the hand the
  reader gives back (None for an event the format does not write, e.g. a burn), so a finding the
  rule reports at a planted event is matched at the event's new place. Default: the same index. A
  fault planted at an event mapped to None is counted as not expressible.
- `IMPLIED_CHIP_UNIT: int`: for a format that does not state the chip unit (all three), the unit its
  reader takes, in the log's integer amounts. Split pots with odd chips and rake are judged in the
  chip unit, so a hand in another unit that splits a pot unevenly (OHH, PHH) or rakes (all three;
  PokerStars counts chips in the hand's own unit, which keeps split pots but moves the rake against
  the schedule) cannot be written; verify therefore plays a share of its tables in this unit
  (`IMPLIED_UNIT_SHARE`), so that odd-chip and rake are measured. Default: the format states its
  unit, every table keeps the simulator's chips of 50.
- `NEWEST_FIRST: bool`: the format writes a file's last hand first (PokerNow's log), so its hands read back in
  reverse line order. Default: False.
- `carried(hand) -> dict`: the canonical hand as the reader should give it back (what the format
  normalises: ids, times, room, the chip unit). Not used by verify, which compares audits, not
  hands; the writer's round-trip tests compare the reader's hand with it (PokerStars).

A writer never judges: an illegal action in the canonical hand is written as the room would have
printed it, so the reader records it and a rule reports it.
"""

from __future__ import annotations

import importlib
from typing import Any

from auditor.resources import room_names, room_suffix, xml_room_names, xml_room_suffix

#: format name -> module holding its writer (imported on first use); a room with a dialect has none of its own
WRITERS: dict[str, str] = {
    "ohh": "auditor.export.ohh",
    "phh": "auditor.export.phh",
    "pokernow": "auditor.export.pokernow",
}
#: the file suffix each format's reader recognises
SUFFIXES: dict[str, str] = {**{room: room_suffix(room) for room in room_names()},
                            **{room: xml_room_suffix(room) for room in xml_room_names()}, "ohh": ".ohh", "phh": ".phhs",
                            "pokernow": ".csv"}


def writer(name: str) -> Any:
    """The writer of format `name`: a room's dialect writer or a writer module (KeyError for a format with no
    writer)."""
    if name in WRITERS:
        return importlib.import_module(WRITERS[name])
    if name in xml_room_names():
        from auditor.export.xml_room import xml_room_writer
        return xml_room_writer(name)
    from auditor.export.text_room import room_writer
    return room_writer(name)


def burns_left_out(hand: dict) -> list[int | None]:
    """`event_index` of a format that gives a hand's events back in their order but prints no burn card: each
    event's index in the hand read back, None for a burn."""
    out: list[int | None] = []
    k = 0
    for e in hand["events"]:
        if e["kind"] == "deal" and e["to"] == "burn":
            out.append(None)
        else:
            out.append(k)
            k += 1
    return out
