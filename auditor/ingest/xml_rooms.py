"""The XML dialect engine's reader: a room's XML hand histories read by the room's dialect
(`rooms/xml/<room>.yaml`), with no room named in the code.

API, as every reader (docs/readers.md): `read_xml_room(path, room, rule_pack=, limits=)` yields one SourceHand
or Quarantined per hand element, and a ReaderNote once per file for each convention it applied; `sniff(room,
head)` recognises the room from a file's first 4 KiB. It never raises on bad input.

What it refuses, each with its code (docs/xml-rooms.md): a game or structure the engine lacks
(`unsupported-game`: hi/lo, stud, short deck...); an action code the dialect marks unsupported, a seat past 10
(`unsupported-feature`); XML that is not well-formed, a document type or entity declaration (refused, never
expanded), an action code it does not know, a player acting who has no seat, an amount or card that is none
(`damaged`); a file that ends inside a hand (`truncated`); nesting, a hand or a tag past its limit (`limit`); a
canonical hand the schema or consistency check refuses (`invalid-record`). Streaming and limits:
`xml_stream`; the hand itself: `xml_hand`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from auditor.ingest.files import open_binary, open_failure
from auditor.ingest.jsonl import consistency_error
from auditor.ingest.limits import DEFAULT_LIMITS, Limits
from auditor.ingest.validate import schema_error
from auditor.ingest.xml_dialect import XmlDialect, xml_dialect
from auditor.ingest.xml_hand import Refusal, convert
from auditor.ingest.xml_stream import Broken, Game, games
from auditor.model.records import Quarantined, ReaderNote, SourceHand

__all__ = ["note_code", "read_xml_room", "sniff"]

Item = SourceHand | Quarantined | ReaderNote


def sniff(room: str, head: bytes) -> bool:
    """The room's XML: a document opening on its root element (after an XML declaration, or a document type
    declaration the reader will refuse), with one of the dialect's marks in the opening bytes."""
    spoken = xml_dialect(room)
    rec = spoken.data["recognise"]
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 with its byte-order mark, which expat reads too
        head = head.decode("utf-16", "replace").encode("utf-8")
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    roots = [rec["root"]] if isinstance(rec["root"], str) else rec["root"]
    return any(_opens_on(text, b"<" + root.encode()) for root in roots) and any(
        mark.encode() in head for mark in rec["any_of"])


def _opens_on(text: bytes, root: bytes) -> bool:
    """The document opens on the element `root` (`<session`), after an XML declaration or a document type."""
    if not text.startswith((root + b" ", root + b">", b"<?xml", b"<!DOCTYPE")):
        return False
    at = text.find(root)
    return at >= 0 and text[at + len(root):at + len(root) + 1] in (b" ", b">", b"\t", b"\r", b"\n")


def note_code(convention: str, value: str) -> str:
    """The note a convention applied is said with: `uncalled_return: in_the_win` -> `uncalled-return-in-the-win`."""
    return f"{convention}-{value}".replace("_", "-")


def read_xml_room(path: Path | str, room: str, *, rule_pack: str = "tda-2024",
                  limits: Limits = DEFAULT_LIMITS) -> Iterator[Item]:
    """Every hand of an XML export of `room` (see the module)."""
    spoken = xml_dialect(room)
    name = str(path)
    doc = spoken.doc
    try:
        stream = open_binary(Path(path), limits)
    except OSError as exc:
        reason, code = open_failure(exc)
        yield Quarantined(name, 1, reason, code=code)
        return
    noted: set[str] = set()
    with stream:
        try:
            for item in games(stream, doc["session"], doc["header"], doc["hand"], doc["hand_id"], limits,
                              doc.get("encoding_without_mark"), doc.get("wrapper")):
                yield from _item(spoken, item, name, rule_pack, noted)
        except OSError as exc:  # a gzip that breaks or passes a limit while read
            reason, code = open_failure(exc)
            yield Quarantined(name, 1, f"{reason}; the rest of the file is not read", code=code)


def _item(spoken: XmlDialect, item: Game | Broken, name: str, rule_pack: str, noted: set[str]) -> Iterator[Item]:
    if isinstance(item, Broken):
        yield Quarantined(name, item.line, item.reason, item.hand_id, code=item.code)
        return
    node = item.node
    hand_id = node.attrs.get(spoken.doc["hand_id"]) or None
    field = spoken.doc["header_fields"]["table"]
    table = item.header.get(field) or node.attrs.get(field) or None
    try:
        read = convert(item, spoken, rule_pack)
    except Refusal as refusal:
        yield Quarantined(name, node.line, refusal.reason, hand_id, code=refusal.code, table_id=table)
        return
    except Exception as exc:  # a bug of ours, not the file's fault: this hand only, the file reads on
        yield Quarantined(name, node.line, f"the reader failed on this hand: {type(exc).__name__}: {exc}",
                          hand_id, code="internal-error", table_id=table)
        return
    problem = schema_error(read.hand) or consistency_error(read.hand)
    if problem:
        yield Quarantined(name, node.line, problem, hand_id, code="invalid-record", table_id=table)
        return
    if item.encoding is not None and "encoding" not in noted:  # said once per file, as a convention is
        noted.add("encoding")
        yield ReaderNote(name, node.line, f"encoding-{item.encoding.lower()}",
                         f"{spoken.title}: a file with no byte-order mark and no XML declaration is read in "
                         f"{item.encoding}, as the room writes such a file")
    for convention in dict.fromkeys(read.applied):
        value = spoken.convention(convention)
        code = note_code(convention, value)
        if code not in noted:
            noted.add(code)
            text = " ".join(spoken.conventions[convention]["doc"].split())
            yield ReaderNote(name, node.line, code, f"{spoken.title}: {text}")
    yield SourceHand(read.hand, name, node.line)
