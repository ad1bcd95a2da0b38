"""Every JSON Lines quarantine carries the code of its cause (records.QUARANTINE_CODES), and the table id
when the record names one, so reports group causes alike across readers and the table's next hand
knows its previous hand is missing from the audit."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from auditor.ingest.jsonl import read_jsonl
from auditor.ingest.limits import Limits
from auditor.model.records import QUARANTINE_CODES, Quarantined, SourceHand

HAND = {
    "hand_id": "h1", "table_id": "T1", "variant": "holdem", "structure": "no-limit",
    "stakes": {"blinds": [50, 100], "chip_unit": 1}, "max_seats": 6, "rule_pack": "tda-2024",
    "seats": [{"seat": 1, "player": "ann", "stack": 5000}, {"seat": 2, "player": "bob", "stack": 5000}],
    "events": [{"kind": "button", "seat": 1}, {"kind": "post", "seat": 1, "post": "blind", "blind": 1, "amount": 50},
               {"kind": "post", "seat": 2, "post": "blind", "blind": 2, "amount": 100},
               {"kind": "action", "seat": 1, "action": "fold"}, {"kind": "return", "seat": 2, "amount": 50},
               {"kind": "award", "pot": 0, "seat": 2, "amount": 100}],
}


def _with(**changes) -> str:
    hand = json.loads(json.dumps(HAND))
    hand.update(changes)
    return json.dumps(hand)


def _read(path: Path, lines: list[bytes], limits: Limits | None = None) -> list:
    path.write_bytes(b"\n".join(lines) + b"\n")
    return list(read_jsonl(path, limits) if limits else read_jsonl(path))


@pytest.mark.parametrize(("line", "code", "table_id", "reason"), [
    (b'{"hand_id": "h1", ', "damaged", None, "invalid JSON"),
    (b"[" * 100_000, "damaged", None, "invalid JSON"),
    (b'{"hand_id": "h\xff"}', "damaged", None, "not UTF-8"),
    (_with(variant="razz").encode(), "invalid-record", "T1", ""),
    (_with(max_seats=2, seats=[{"seat": 3, "player": "ann", "stack": 1}]).encode(), "invalid-record", "T1",
     "beyond max_seats"),
    (_with(events=[{"kind": "muck", "seat": 5}]).encode(), "invalid-record", "T1", "where nobody sits"),
])
def test_each_cause_has_its_code(tmp_path, line, code, table_id, reason):
    items = _read(tmp_path / "h.jsonl", [line])
    assert len(items) == 1 and isinstance(items[0], Quarantined)
    q = items[0]
    assert (q.code, q.table_id) == (code, table_id)
    assert reason in q.reason
    assert f"[{code}]" in q.one_line()


def test_an_overlong_line_is_a_limit(tmp_path):
    items = _read(tmp_path / "h.jsonl", [b'{"x": "' + b"a" * 200 + b'"}', json.dumps(HAND).encode()],
                  Limits(jsonl_max_line_bytes=100))
    assert [type(i).__name__ for i in items] == ["Quarantined", "Quarantined"]
    assert {i.code for i in items} == {"limit"}


def test_a_gzip_stream_cut_short_is_damaged_like_in_every_reader(tmp_path):
    data = gzip.compress((json.dumps(HAND) + "\n").encode() * 50)
    path = tmp_path / "h.jsonl.gz"
    path.write_bytes(data[: len(data) // 2])
    items = list(read_jsonl(path))
    assert isinstance(items[-1], Quarantined) and items[-1].code == "damaged"
    assert "unreadable from here on" in items[-1].reason


def test_unpacking_past_the_limit_is_a_limit(tmp_path):
    path = tmp_path / "h.jsonl.gz"
    path.write_bytes(gzip.compress((json.dumps(HAND) + "\n").encode() * 2000))
    items = list(read_jsonl(path, Limits(max_unpacked_bytes=50_000)))
    assert isinstance(items[-1], Quarantined) and items[-1].code == "limit"


def test_a_file_that_cannot_be_opened_is_damaged(tmp_path):
    items = list(read_jsonl(tmp_path / "missing.jsonl"))
    assert len(items) == 1 and items[0].code == "damaged" and "cannot open" in items[0].reason


def test_a_seat_listed_twice_is_read_not_refused(tmp_path):
    seats = [*HAND["seats"], {"seat": 2, "player": "eve", "stack": 10}]
    items = _read(tmp_path / "h.jsonl", [_with(seats=seats).encode()])
    assert [type(i) for i in items] == [SourceHand]


def test_every_code_used_is_a_known_code(tmp_path):
    lines = [b"{", _with(variant="razz").encode(), json.dumps(HAND).encode()]
    items = _read(tmp_path / "h.jsonl", lines)
    assert all(i.code in QUARANTINE_CODES for i in items if isinstance(i, Quarantined))
    assert isinstance(items[-1], SourceHand)


def test_a_file_with_no_json_line_is_one_unsupported_format_entry(tmp_path):
    """A misnamed binary or text file is not a hand log: one entry for the file, not one per line."""
    items = _read(tmp_path / "h.jsonl", [b"\x00\x01\x02 binary", b"plain text", b"\xff\xfe\xfd", b"", b"more"])
    assert len(items) == 1 and isinstance(items[0], Quarantined)
    assert items[0].code == "unsupported-format" and items[0].line == 0
    assert "4 non-blank line(s)" in items[0].reason


def test_a_file_with_hands_keeps_its_per_line_quarantines(tmp_path):
    items = _read(tmp_path / "h.jsonl", [b"plain text", json.dumps(HAND).encode(), b"\xff\xfe", b'{"cut": '])
    assert [(type(i).__name__, i.line) for i in items] == [("Quarantined", 1), ("SourceHand", 2),
                                                           ("Quarantined", 3), ("Quarantined", 4)]
    assert [i.code for i in items if isinstance(i, Quarantined)] == ["damaged", "damaged", "damaged"]


def test_a_lone_truncated_hand_is_damaged_not_unsupported(tmp_path):
    items = _read(tmp_path / "h.jsonl", [b'{"hand_id": "h1", "seats": ['])
    assert [i.code for i in items] == ["damaged"]


def test_runs_of_blank_lines_are_skipped_fast_with_the_same_line_numbers(tmp_path):
    import time
    path = tmp_path / "h.jsonl"
    hand = json.dumps(HAND).encode()
    path.write_bytes(b"\n" * (8 << 20) + hand + b"\n\n\n" + hand + b"\n" + b"\n" * 1000)
    started = time.perf_counter()
    items = list(read_jsonl(path))
    elapsed = time.perf_counter() - started
    assert [(type(i).__name__, i.line) for i in items] == [("SourceHand", (8 << 20) + 1), ("SourceHand", (8 << 20) + 4)]
    assert elapsed < 1.0, f"{elapsed:.2f} s for 8 MiB of blank lines"


def test_random_binary_is_one_entry_even_where_a_line_starts_with_a_brace(tmp_path):
    import random

    data = random.Random(7).randbytes(40_000)
    path = tmp_path / "blob.jsonl"
    path.write_bytes(data + b"\n{" + random.Random(8).randbytes(300) + b"\n")
    items = list(read_jsonl(path))
    assert [(i.code, i.line) for i in items] == [("unsupported-format", 0)]
