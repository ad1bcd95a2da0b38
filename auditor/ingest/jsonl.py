"""Reader for the canonical hand log as JSON Lines (plain or gzip): one hand per line.

`read_jsonl` is the reference: each line parsed by `json.loads` and judged by jsonschema-rs and
`consistency_error`. An audit reads a plain file column-wise instead (`auditor.ingest.jsonl_tables`: the
same lines, hands and quarantine entries, batches scanned into canonical tables), which falls back on this
module's `_one_line` for every line it does not take.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO, TypeVar

from auditor.ingest.files import open_binary, read_line
from auditor.ingest.limits import DEFAULT_LIMITS, LimitExceeded, Limits
from auditor.ingest.validate import lone_surrogate_error, schema_error
from auditor.model.records import Quarantined, SourceHand

#: the default longest line (one line is one hand); `Limits.jsonl_max_line_bytes` sets it per run
MAX_LINE_BYTES = DEFAULT_LIMITS.jsonl_max_line_bytes

_T = TypeVar("_T")


def read_jsonl(path: Path, limits: Limits = DEFAULT_LIMITS) -> Iterator[SourceHand | Quarantined]:
    """Yield every non-blank line as a valid hand or as a quarantine entry; never stop early on bad data.

    Lines are read as bytes and decoded one by one, so a byte that is not UTF-8 costs only its own
    line, and a line longer than `limits.jsonl_max_line_bytes` is skipped without being held in memory.
    Quarantine codes: `damaged` for a file or line that cannot be read or parsed (not UTF-8, invalid
    JSON, a gzip stream cut short, as every reader has it), `limit` for an overlong line or another
    input limit passed, `invalid-record` for JSON that breaks the hand-log schema or `consistency_error`,
    and one `unsupported-format` entry (line 0) for a file that is no hand log at all (no line is JSON or
    looks like it).
    """
    name = str(path)
    stream = open_lines(path, name, limits)
    if isinstance(stream, Quarantined):
        yield stream
        return
    watch = _Watch()
    yield from _held_back(_read_lines(stream, name, limits.jsonl_max_line_bytes, watch), name, watch)


def open_lines(path: Path, name: str, limits: Limits) -> BinaryIO | Quarantined:
    """The file's byte stream (plain or gzip), or the one quarantine entry of a file that cannot be opened
    (`limit` when an input limit refused it, else `damaged`): both JSON Lines paths open a file this way."""
    try:
        return open_binary(path, limits)
    except OSError as exc:
        return Quarantined(name, 0, f"cannot open: {exc.strerror or exc}",
                           code="limit" if isinstance(exc, LimitExceeded) else "damaged")


def _held_back(items: Iterable[_T], name: str, watch: _Watch) -> Iterator[_T | Quarantined]:
    """The items of a file with its per-line quarantines held back until a line parses as JSON or looks like
    it (`_json_like`: a hand cut short), or another entry comes: a file named like a log in which no line is
    JSON or looks like it (binary, a text file misnamed) is one `unsupported-format` entry, not one
    quarantine per line. At most HOLD_BACK are held; past that the file keeps its per-line
    entries. Any item that is not such a quarantine (a hand, a line the columnar path took) ends the wait."""
    held: list[Quarantined] | None = []
    bad_lines = 0
    for item in items:
        if held is None:
            yield item
            continue
        not_json = isinstance(item, Quarantined) and item.code == "damaged" and item.line in watch.strangers
        if not_json:
            assert isinstance(item, Quarantined)
            bad_lines += 1
            held.append(item)
            watch.strangers.discard(item.line)
            if len(held) < HOLD_BACK:
                continue
        yield from held
        held = None
        watch.active = False  # the file is a log (or too long to hold back): no line is looked at again
        if not not_json:
            yield item
    if held:
        yield Quarantined(name, 0, f"not a hand log: none of its {bad_lines} non-blank line(s) parses as JSON "
                                   f"(first: line {held[0].line}, {held[0].reason})", code="unsupported-format")


#: per-line quarantines held back while no line of a file has parsed as JSON (bounded memory)
HOLD_BACK = 10_000


class _Watch:
    """While `active`, the numbers of the lines read that do not look like JSON (`_json_like`)."""

    def __init__(self) -> None:
        self.active = True
        self.strangers: set[int] = set()


def _json_like(raw: bytes) -> bool:
    """Whether a line looks like JSON text, parsed or not: eight bytes or more, starting with `{` or `[`,
    and at most one byte in 16 not text (not UTF-8, or a control character JSON never holds raw). A hand
    cut short or with one bad byte still looks like JSON and keeps its own quarantine; a line of binary
    data that happens to start with `{` does not."""
    line = raw.strip()
    if len(line) < 8 or line[:1] not in (b"{", b"["):  # a lone `[` in binary data is no hand cut short
        return False
    strange = len(line) - len(line.translate(None, _CONTROLS))
    if not line.isascii():
        strange += line.decode("utf-8", "replace").count("\ufffd")
    return strange <= len(line) // 16


#: the control bytes JSON text never holds raw (a tab is whitespace)
_CONTROLS = bytes(c for c in range(32) if c != 9) + b"\x7f"


def _read_lines(stream: BinaryIO, name: str, cap: int, watch: _Watch) -> Iterator[SourceHand | Quarantined]:
    """Every non-blank line of an open stream as a hand or a quarantine entry (`_lines`, each judged by
    `_one_line`)."""
    for item in _lines(stream, name, cap, watch):
        if isinstance(item, Quarantined):
            yield item
            continue
        judged = _one_line(item[1], name, item[0])
        if judged is not None:
            yield judged


def _lines(stream: BinaryIO, name: str, cap: int, watch: _Watch) -> Iterator[tuple[int, bytes] | Quarantined]:
    """Every line of an open stream that is not a bare newline, as (line number, bytes), or the quarantine
    entry of a line that cannot be read (too long, or the stream failed). While `watch` is active, the
    number of each line that does not look like JSON is added to its strangers before the line is given."""
    with stream:
        line_no = 0
        while True:
            line_no += 1
            try:
                raw, overlong = read_line(stream, cap)
                if raw == b"\n":
                    # a run of blank lines is skipped a buffer at a time: one readline per empty line cost
                    # 4 s per 8 MiB of newlines
                    line_no += _skip_newlines(stream)
                    continue
            except (OSError, EOFError) as exc:
                # as every reader words it (files.open_failure): a limit passed is `limit`; anything else,
                # a gzip stream cut short included, is `damaged`
                yield Quarantined(name, line_no, f"unreadable from here on: {exc}",
                                  code="limit" if isinstance(exc, LimitExceeded) else "damaged")
                return
            if not raw:
                return
            if overlong:
                yield Quarantined(name, line_no, f"line longer than {cap} bytes (limit jsonl_max_line_bytes)",
                                  code="limit")
                continue
            if line_no == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            if b"\r" not in raw:
                if watch.active and not _json_like(raw):
                    watch.strangers.add(line_no)
                yield line_no, raw
                continue
            # a lone CR ends a line too (as in universal-newline text mode), so old Mac files keep their lines
            for k, part in enumerate(raw.replace(b"\r\n", b"\n").split(b"\r")):
                line_no += 1 if k else 0
                if watch.active and not _json_like(part):
                    watch.strangers.add(line_no)
                yield line_no, part


def _skip_newlines(stream: BinaryIO) -> int:
    """Consume the newline bytes at the stream's position (peeked a buffer at a time); how many."""
    peek = getattr(stream, "peek", None)
    if peek is None:
        return 0
    skipped = 0
    while True:
        buf = peek(1 << 16)
        if not buf:
            return skipped
        run = len(buf) - len(buf.lstrip(b"\n"))
        if run:
            stream.read(run)
            skipped += run
        if run < len(buf):
            return skipped


def _one_line(raw: bytes, name: str, line_no: int) -> SourceHand | Quarantined | None:
    """One line's hand or quarantine entry; None for a blank line."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Quarantined(name, line_no, f"not UTF-8: byte {raw[exc.start]:#04x} at column {exc.start + 1}",
                           code="damaged")
    return parse_hand_line(line, name, line_no) if line.strip() else None


def parse_hand_line(line: str, file: str, line_no: int) -> SourceHand | Quarantined:
    """One line of text as a valid hand, or the one-line reason it is quarantined (never raises)."""
    try:
        hand = json.loads(line)
    except json.JSONDecodeError as exc:
        return Quarantined(file, line_no, f"invalid JSON at column {exc.colno}: {exc.msg.removesuffix(' at')}",
                           code="damaged")
    except RecursionError:
        return Quarantined(file, line_no, "invalid JSON: nested too deeply", code="damaged")
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits, which Python refuses to convert
        return Quarantined(file, line_no, f"invalid JSON: {exc}", code="damaged")
    hand_id = hand.get("hand_id") if isinstance(hand, dict) else None
    hand_id = hand_id if isinstance(hand_id, str) else None
    # the table, when the record names one: its next hand then knows this one is missing from the audit
    table_id = hand.get("table_id") if isinstance(hand, dict) else None
    table_id = table_id if isinstance(table_id, str) else None
    bad_text = lone_surrogate_error(line, hand)
    if bad_text:
        return Quarantined(file, line_no, bad_text, code="damaged", table_id=table_id)
    error = schema_error(hand)
    if error:
        return Quarantined(file, line_no, error, hand_id, code="invalid-record", table_id=table_id)
    problem = consistency_error(hand)
    if problem:
        return Quarantined(file, line_no, problem, hand_id, code="invalid-record", table_id=table_id)
    return SourceHand(hand, file, line_no)


def consistency_error(hand: dict) -> str | None:
    """Faults the schema cannot express that make a hand impossible to replay at all.

    Anything the replay *can* follow is left to the rules, so it becomes a finding with evidence
    rather than a hand nobody audits. Refused, because no replay can place them:

    - a seat beyond `max_seats`: the table has no such position, so turn order, the blinds and the
      button cannot be worked out around it;
    - an event naming a seat where nobody sits (other than the button, which may be dead, and the
      seating events, which are about empty seats): there is no stack or player to put it on.

    Not refused, because they are illegal, not unrepresentable: a seat listed twice (two players in
    one seat; the replay plays the seat as the first player listed, and the seating rules report the
    conflict from `seating_conflicts`), a player in two seats, a card dealt twice (`duplicate_cards`,
    the deal rules), and every illegal action.
    """
    max_seats = hand["max_seats"]
    seen: set[int] = set()
    for s in hand["seats"]:
        if s["seat"] > max_seats:
            return f"seat {s['seat']} is beyond max_seats {max_seats}"
        seen.add(s["seat"])
    for i, ev in enumerate(hand["events"]):
        seat = ev.get("seat")
        # the button may sit on an empty seat (dead button); nothing else may
        if seat is not None and ev["kind"] not in ("seat_draw", "seat_request", "seat_fill", "button") \
                and seat not in seen:
            return f"event {i} ({ev['kind']}) names seat {seat}, where nobody sits"
    return None
