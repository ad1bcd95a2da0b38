"""The columnar JSON Lines path (`jsonl_tables.read_jsonl_tables`) against the reference (`read_jsonl`).

The property held: for any file, the columnar path gives the same hands (the same dicts, files and lines),
the same quarantine entries (code, file, line, message, hand and table ids) and, for every hand, the same
canonical tables as `build_tables` makes of the reference's hands. Files are the sample logs, hostile
corners written by hand and lines mutated by hypothesis (values of another type, nulls, floats, huge
integers, unknown and duplicate keys, escapes and surrogates, bytes that are not UTF-8, cut lines). The
Python `jsonschema` package stays the reference for the schema: every line the columnar path takes is
valid under it.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.ingest import compiled, jsonl_scan
from auditor.ingest.compiled import takes_column_wise
from auditor.ingest.jsonl import consistency_error, read_jsonl
from auditor.ingest.jsonl_tables import SCAN_FAILURES, read_jsonl_tables
from auditor.ingest.limits import DEFAULT_LIMITS, Limits
from auditor.ingest.parquet import TableChunk
from auditor.ingest.tables import build_tables, concat_tables
from auditor.model.records import Quarantined, SourceHand
from auditor.resources import schema_path

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "sample_logs").glob("*.jsonl"))
SCHEMA = json.loads(schema_path("hand-log.schema.json").read_text(encoding="utf-8"))
REFERENCE = jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def _sample_hands() -> list[dict]:
    hands = []
    for path in SAMPLES:
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                hand = json.loads(line)
            except ValueError:
                continue
            if isinstance(hand, dict) and not consistency_error(hand) and REFERENCE.is_valid(hand):
                hands.append(hand)
    return hands


HANDS = _sample_hands()
#: a few hands of each kind of game, the smallest first (mutated lines stay short)
SMALL = sorted(HANDS, key=lambda h: len(json.dumps(h)))[:40] + [h for h in HANDS if any(
    e.get("kind") in ("seat_draw", "draw", "seat_request", "seat_fill", "rake") for e in h["events"])][:40]


def expand(items: list) -> tuple[list[SourceHand], list[Quarantined], object, int]:
    """Hands (chunks' rebuilt from their lines), quarantine entries, the tables in order, and how many hands
    the chunks carried."""
    hands: list[SourceHand] = []
    refused: list[Quarantined] = []
    parts, run = [], []
    chunked = 0
    for item in items:
        if isinstance(item, TableChunk):
            if run:
                parts.append(build_tables(run))
                run = []
            refused.extend(item.quarantined)
            hands.extend(item.sources())
            parts.append(item.tables)
            chunked += item.num_hands
        elif isinstance(item, SourceHand):
            hands.append(item)
            run.append(item)
        else:
            refused.append(item)
    if run:
        parts.append(build_tables(run))
    return hands, refused, concat_tables(parts) if parts else build_tables([]), chunked


def assert_same(path: Path, limits: Limits = DEFAULT_LIMITS, **sizes: int) -> int:
    """read_jsonl_tables == read_jsonl on `path`; how many hands the columnar path took."""
    failures = len(SCAN_FAILURES)
    reference = list(read_jsonl(path, limits))
    items = list(read_jsonl_tables(path, limits, **{"min_lines": 1, **sizes}))
    hands, refused, tables, chunked = expand(items)
    assert hands == [h for h in reference if isinstance(h, SourceHand)]
    assert refused == [q for q in reference if isinstance(q, Quarantined)]
    expected = build_tables([h for h in reference if isinstance(h, SourceHand)])
    for name in ("hands", "seats", "events"):
        assert getattr(tables, name).equals(getattr(expected, name)), name
    # every item comes in line order, a chunk's entries before its hands' lines are passed
    lines = [q.line for q in refused]
    assert [q.line for q in refused if q.line] == sorted(q.line for q in refused if q.line), lines
    assert len(SCAN_FAILURES) == failures, SCAN_FAILURES[-1:]
    # the schema's own reference agrees with every hand the columnar path took
    for item in items:
        if isinstance(item, TableChunk):
            for hand in item.sources()[:3]:
                assert REFERENCE.is_valid(hand.hand)
    return chunked


def write(tmp_path: Path, lines: list[bytes], name: str = "x.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_sample_logs_same_as_reference(path: Path) -> None:
    taken = assert_same(path)
    good = sum(isinstance(i, SourceHand) for i in read_jsonl(path))
    assert taken == good  # every valid sample hand is read column-wise


@pytest.mark.parametrize("path", SAMPLES[:3], ids=lambda p: p.name)
def test_small_batches_and_chunks(path: Path) -> None:
    assert_same(path, batch_bytes=3000, chunk_hands=3)


def _line(hand: object) -> bytes:
    return json.dumps(hand, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


HOSTILE = [
    b'{"hand_id": 1.0}',
    b"not json at all",
    b"\xff\xfe binary",
    b'{"hand_id":"a","hand_id":"b"}',
    b"[1, 2, 3]",
    b"{",
    b"   ",
    b"\x0c",
    b'{"ohh": {}}',
    b"\xef\xbb\xbf{}",
    b"{}",
]


def _variants(hand: dict) -> list[bytes]:
    """Lines near `hand`: each a corner the scanner must leave to the reference or read exactly."""
    out = [_line(hand), json.dumps(hand).encode("ascii"), json.dumps(hand, indent=None).encode("ascii")]
    text = _line(hand)
    out.append(text.replace(b'"stakes":', b'"hand_id":"dup","stakes":', 1))  # a duplicate key
    out.append(text.replace(b'"stakes":', b'"extra":1,"stakes":', 1))  # an unknown key
    out.append(text[:-1] + b',"room":null}')
    out.append(text.replace(b'"max_seats":', b'"max_seats":1.0e0,"x":', 1))
    out.append(text + b" x")
    out.append(text[: len(text) // 2])
    out.append(b"  \t" + text + b" \t")
    for key, value in (("max_seats", 6.0), ("max_seats", True), ("max_seats", 10**20), ("max_seats", -3),
                       ("max_seats", "6"), ("room", 5), ("room", "\ud800"), ("room", "caf\u00e9 \U0001f0a1"),
                       ("room", "a\"b\\c\n\t\u0001"), ("room", ""), ("started_at", "2024-02-30T00:00:00Z"),
                       ("money_scale", 100), ("money_scale", 0), ("currency", "x" * 17), ("variant", "stud")):
        h = copy.deepcopy(hand)
        h[key] = value
        try:
            out.append(json.dumps(h, ensure_ascii=False).encode("utf-8", "surrogatepass"))
            out.append(json.dumps(h).encode("ascii"))
        except UnicodeEncodeError:
            pass
    for field in ("stakes", "seats", "events", "hand_id"):
        h = copy.deepcopy(hand)
        del h[field]
        out.append(_line(h))
    return out


def test_hostile_corners(tmp_path: Path) -> None:
    lines = list(HOSTILE)
    for hand in SMALL[::10]:
        lines.extend(_variants(hand))
    taken = assert_same(write(tmp_path, lines))
    assert taken >= len(SMALL[::10])


def test_no_json_line_is_one_unsupported_entry(tmp_path: Path) -> None:
    path = write(tmp_path, [b"hello world this is text", b"\x00\x01\x02\x03\x04\x05\x06\x07\x08"] * 5)
    assert_same(path)
    items = list(read_jsonl_tables(path))
    assert [q.code for q in items] == ["unsupported-format"]


def test_hands_after_strangers_keep_the_entries(tmp_path: Path) -> None:
    path = write(tmp_path, [b"plain text here", b"more text, not json", _line(SMALL[0]), b"again text"])
    assert_same(path, batch_bytes=10)


def test_cr_lines_bom_and_blank_runs(tmp_path: Path) -> None:
    a, b = _line(SMALL[0]), _line(SMALL[1])
    path = tmp_path / "cr.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + a + b"\r" + b + b"\r\n\n\n\n" + a + b"\n\n")
    assert_same(path)


def test_overlong_line_and_limits(tmp_path: Path) -> None:
    a = _line(SMALL[0])
    big = _line(max(HANDS, key=lambda h: len(json.dumps(h))))
    path = write(tmp_path, [a, big, a])
    assert_same(path, Limits(jsonl_max_line_bytes=len(big) - 1))


def test_gzip_cut_short(tmp_path: Path) -> None:
    import gzip

    data = gzip.compress(b"\n".join(_line(h) for h in SMALL[:20]) + b"\n")
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(data[: len(data) * 2 // 3])
    assert_same(path, batch_bytes=2000)


def test_kinds_with_keys_of_other_kinds(tmp_path: Path) -> None:
    """A key another kind allows would vanish in the columns (`parquet._event` keeps only the kind's): the
    reference refuses it, so must the columnar path."""
    lines = []
    hand = next(h for h in HANDS if any(e["kind"] == "deal" for e in h["events"]))
    for kind, key, value in (("deal", "amount", 5), ("deal", "to", 5), ("action", "to", "hole"),
                             ("action", "discard", []), ("show", "receive", []), ("button", "draws", []),
                             ("deal", "player", "x"), ("post", "cards", ["As"]), ("action", "awarded_to", "p")):
        h = copy.deepcopy(hand)
        event = next((e for e in h["events"] if e["kind"] == kind), None)
        if event is None:
            continue
        event[key] = value
        lines.append(_line(h))
    assert_same(write(tmp_path, lines))


def test_takes_tables_only_plain_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, [_line(SMALL[0])])

    assert not takes_column_wise(path, "jsonl", str(path))  # a small file: loading the kernels costs more
    monkeypatch.setitem(compiled.MIN_FILE_BYTES, "jsonl", 0)
    assert takes_column_wise(path, "jsonl", str(path))
    assert not takes_column_wise(path, "jsonl", "<stdin>")
    assert not takes_column_wise(path, "phh", str(path))
    assert not takes_column_wise(tmp_path / "a.zip", "jsonl", str(tmp_path / "a.zip"))


def _paths(value: object, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out.extend(_paths(v, (*prefix, k)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.extend(_paths(v, (*prefix, i)))
    return out


REPLACEMENTS = [None, 0, 1, -1, 1.0, 2.5, True, False, 10**18, 10**19, 2**63, "", "x", "As", "??", "hole", "call",
                "blind", "seat_draw", "deal", "draw", "\ud800", "\u00e9", "a\\b", [], ["As"], [1], {}, {"min": 1},
                {"player": "p", "card": "As"}, 1001, 11, 3, 2000, "2024-01-01T00:00:00Z", "x" * 129]


def _mutate(hand: dict, rnd: random.Random) -> bytes:
    """One mutation of `hand` as a line: a value replaced, a key removed or added, the keys shuffled, the
    text cut or a byte changed."""
    h = copy.deepcopy(hand)
    what = rnd.randrange(7)
    paths = _paths(h)[1:]
    path = paths[rnd.randrange(len(paths))]
    parent = h
    for part in path[:-1]:
        parent = parent[part]
    if what == 0:
        parent[path[-1]] = copy.deepcopy(rnd.choice(REPLACEMENTS))
    elif what == 1 and isinstance(parent, dict):
        del parent[path[-1]]
    elif what == 1:
        parent.pop(path[-1])
    elif what == 2 and isinstance(parent, dict):
        parent[rnd.choice(["x", "kind", "to", "cards", "seat", "draws", "pot", "t", "amount"])] = \
            copy.deepcopy(rnd.choice(REPLACEMENTS))
    elif what == 3:
        items = list(h.items())
        rnd.shuffle(items)
        h = dict(items)
        for ev in h.get("events", []) if isinstance(h.get("events"), list) else []:
            if isinstance(ev, dict):
                keys = list(ev.items())
                rnd.shuffle(keys)
                ev.clear()
                ev.update(keys)
    text = json.dumps(h, ensure_ascii=rnd.random() < 0.3, separators=rnd.choice([(",", ":"), (", ", ": ")]))
    data = text.encode("utf-8", "surrogatepass")
    if what == 4:
        data = data[: rnd.randrange(len(data))]
    elif what == 5:
        at = rnd.randrange(len(data))
        data = data[:at] + bytes([rnd.randrange(256)]) + data[at + 1:]
    elif what == 6:
        at = rnd.randrange(len(data))
        data = data[:at] + rnd.choice([b'"', b"\\", b",", b"{", b"]", b" ", b"\xc3", b"\\u00", b"null"]) + data[at:]
    return data


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 12))
def test_mutated_lines_same_as_reference(tmp_path: Path, seed: int, count: int) -> None:
    """The equality property over fuzzed files: a line is refused by the columnar path iff by the reference,
    with the same entry, and accepted hands give identical tables."""
    rnd = random.Random(seed)
    lines = [_mutate(rnd.choice(SMALL), rnd) if rnd.random() < 0.7 else _line(rnd.choice(SMALL))
             for _ in range(count)]
    assert_same(write(tmp_path, lines, f"m{seed}.jsonl"), batch_bytes=rnd.choice([1, 5000, 1 << 20]),
                chunk_hands=rnd.choice([1, 2, 1000]))


def test_scanner_reads_the_samples_whole() -> None:
    """Every sample line the reference accepts is read by the scanner itself (no silent fall-back that would
    leave the fast path unused)."""
    raws = [_line(h) for h in HANDS]
    buf = b"\n".join(raws)
    lengths = np.array([len(r) for r in raws], dtype=np.int64)
    starts = np.zeros(len(raws), np.int64)
    np.cumsum(lengths[:-1] + 1, out=starts[1:])
    sc = jsonl_scan.scan(buf, starts, starts + lengths)
    assert jsonl_scan.readable_lines(sc).all()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.binary(max_size=300) | st.sampled_from([b"{", b"[", b'{"', b'{"events":[{', b"\\u",
                                                                 b'{"hand_id":"\\ud800"}']), max_size=8))
def test_arbitrary_bytes_same_as_reference(tmp_path: Path, lines: list[bytes]) -> None:
    """Bytes of any kind (the scanner must neither crash, read past a line, nor take what is not a hand)."""
    assert_same(write(tmp_path, [*lines, _line(SMALL[0])], "b.jsonl"), batch_bytes=64)


def test_rows_past_the_capacity_take_the_reference_path(tmp_path: Path) -> None:
    """A line of a hundred thousand empty events fills the scanner's rows: it and the hands after it in the
    batch are judged as the reference judges them (the hands are read, the line refused)."""
    hand = copy.deepcopy(SMALL[0])
    flood = _line(hand).replace(b'"events":[', b'"events":[' + b"{}," * 100_000, 1)
    path = write(tmp_path, [flood, *(_line(h) for h in SMALL[:5]), b"[" * 50_000, b"{" * 50_000, _line(SMALL[5])])
    assert_same(path)


def test_deeply_nested_and_long_values(tmp_path: Path) -> None:
    hand = copy.deepcopy(SMALL[0])
    lines = [_line({**hand, "room": "x" * 100_000}), _line({**hand, "max_seats": int("9" * 40)}),
             _line(hand).replace(b'"max_seats":', b'"max_seats":' + b"0" * 3 + b"6,\"y\":", 1),
             _line({**hand, "events": [[[[[[]]]]]]}), _line({**hand, "seats": [{"seat": [1]}]})]
    assert_same(write(tmp_path, lines))


def test_a_scanner_that_fails_costs_speed_not_a_verdict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_args: object) -> None:
        raise RuntimeError("a scanner bug")

    monkeypatch.setattr(jsonl_scan, "scan", broken)
    before = len(SCAN_FAILURES)
    path = write(tmp_path, [_line(h) for h in SMALL[:4]])
    items = list(read_jsonl_tables(path, min_lines=1))
    assert items == list(read_jsonl(path))  # every line took the reference path
    assert len(SCAN_FAILURES) == before + 1 and "a scanner bug" in SCAN_FAILURES[-1]


def test_a_reader_that_fails_is_contained_in_an_audit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit's columnar path has the same last line of defence as every reader (`detect.contained`)."""
    from auditor.ingest import jsonl_tables
    from auditor.pipeline import audit

    real = jsonl_tables._chunk
    calls = []

    def failing(*args: object) -> TableChunk:
        calls.append(1)
        if len(calls) > 1:
            raise RuntimeError("a reader bug")
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(jsonl_tables, "_chunk", failing)
    monkeypatch.setattr(jsonl_tables, "CHUNK_HANDS", 2)
    monkeypatch.setattr(jsonl_tables, "MIN_LINES", 1)
    monkeypatch.setitem(compiled.MIN_FILE_BYTES, "jsonl", 0)
    for name in ("a.jsonl", "b.jsonl"):
        write(tmp_path, [_line(h) for h in SMALL[:4]], name)
    result = audit([tmp_path], jobs=1)
    internal = [q for q in result.quarantined if q.code == "internal-error"]
    assert len(internal) == 2 and all("a reader bug" in q.reason for q in internal)
    assert result.hands_read == result.hands_audited + result.hands_quarantined


def test_small_files_take_the_reference_path(tmp_path: Path) -> None:
    """Under MIN_LINES lines a batch costs more column-wise than hand by hand: the same items, as read_jsonl's."""
    path = write(tmp_path, [_line(h) for h in SMALL[:5]])
    assert list(read_jsonl_tables(path)) == list(read_jsonl(path))


def test_an_audit_is_the_same_through_either_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small files take the reference path (MIN_FILE_BYTES); forced through the columnar path, the audit of
    sample_logs (clean, planted and damaged hands) gives the same findings, coverage, quarantine and counts."""
    from auditor.ingest import jsonl_tables
    from auditor.pipeline import audit

    logs = Path(__file__).resolve().parents[1] / "sample_logs"
    reference = audit([logs], jobs=1)
    monkeypatch.setitem(compiled.MIN_FILE_BYTES, "jsonl", 0)
    real, chunks = jsonl_tables._chunk, []
    monkeypatch.setattr(jsonl_tables, "_chunk", lambda *a: chunks.append(1) or real(*a))
    columnar = audit([logs], jobs=1)
    assert chunks  # the hands did come through the columnar path
    pd.testing.assert_frame_equal(columnar.findings, reference.findings)
    pd.testing.assert_frame_equal(columnar.coverage, reference.coverage)
    assert [q.one_line() for q in columnar.quarantined] == [q.one_line() for q in reference.quarantined]
    assert (columnar.hands_read, columnar.hands_audited, columnar.read_per_file) == \
        (reference.hands_read, reference.hands_audited, reference.read_per_file)
    assert reference.hands_read > 1000 and len(reference.findings) > 0
