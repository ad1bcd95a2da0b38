"""Reader for the canonical hand log as JSON Lines (plain or gzip): one hand per line."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

from auditor.ingest.files import open_binary
from auditor.ingest.records import Quarantined, SourceHand
from auditor.ingest.validate import schema_error

MAX_LINE_BYTES = 8 * 1024 * 1024


def _open_text(path: Path) -> io.TextIOBase:
    return io.TextIOWrapper(open_binary(path), encoding="utf-8-sig", errors="strict")


def read_jsonl(path: Path) -> Iterator[SourceHand | Quarantined]:
    """Yield every non-blank line as a valid hand or as a quarantine entry; never stop early on bad data."""
    name = str(path)
    try:
        stream = _open_text(path)
    except OSError as exc:
        yield Quarantined(name, 0, f"cannot open: {exc.strerror or exc}")
        return
    with stream:
        line_no = 0
        while True:
            line_no += 1
            try:
                line = stream.readline(MAX_LINE_BYTES + 1)
            except (UnicodeDecodeError, OSError, EOFError) as exc:
                yield Quarantined(name, line_no, f"unreadable from here on: {exc}")
                return
            if not line:
                return
            if len(line) > MAX_LINE_BYTES:
                yield Quarantined(name, line_no, f"line longer than {MAX_LINE_BYTES} bytes")
                # skip the rest of this overlong line
                while line and not line.endswith("\n"):
                    line = stream.readline(MAX_LINE_BYTES)
                continue
            if not line.strip():
                continue
            yield parse_hand_line(line, name, line_no)


def parse_hand_line(line: str, file: str, line_no: int) -> SourceHand | Quarantined:
    try:
        hand = json.loads(line)
    except json.JSONDecodeError as exc:
        return Quarantined(file, line_no, f"invalid JSON at column {exc.colno}: {exc.msg.removesuffix(' at')}")
    except RecursionError:
        return Quarantined(file, line_no, "invalid JSON: nested too deeply")
    hand_id = hand.get("hand_id") if isinstance(hand, dict) else None
    hand_id = hand_id if isinstance(hand_id, str) else None
    error = schema_error(hand)
    if error:
        return Quarantined(file, line_no, error, hand_id)
    problem = consistency_error(hand)
    if problem:
        return Quarantined(file, line_no, problem, hand_id)
    return SourceHand(hand, file, line_no)


def consistency_error(hand: dict) -> str | None:
    """Faults the schema cannot express that make a hand impossible to replay at all.

    Anything the replay *can* follow is left to the rules, so it becomes a finding with evidence
    rather than a hand nobody audits.
    """
    max_seats = hand["max_seats"]
    seen: set[int] = set()
    for s in hand["seats"]:
        if s["seat"] > max_seats:
            return f"seat {s['seat']} is beyond max_seats {max_seats}"
        if s["seat"] in seen:
            return f"seat {s['seat']} is listed twice"
        seen.add(s["seat"])
    for i, ev in enumerate(hand["events"]):
        seat = ev.get("seat")
        # the button may sit on an empty seat (dead button); nothing else may
        if seat is not None and ev["kind"] not in ("seat_draw", "seat_request", "seat_fill", "button") \
                and seat not in seen:
            return f"event {i} ({ev['kind']}) names seat {seat}, where nobody sits"
    return None
