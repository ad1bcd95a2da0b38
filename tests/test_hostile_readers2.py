"""Hostile input, round two, reader side: hostile inputs built here (in tmp_path), each a real malicious sample.

- a Parquet dataset whose `room` column is one 1 MiB dictionary value shared by every row: a
  15 KB file that decodes to gigabytes, refused from its footer and dictionary before any row is built;
  a reader's Rust panic (a BaseException) is contained like any other reader error;
- a FIFO given to `read_file` is read once (spooled), so no hand is lost to detection;
- zip members each just under the ratio grace: the ratio is judged over the whole archive;
- a `.phhs` file is read table by table as it streams;
- a dataset claiming its hands come from `real.jsonl` counts them as its own rows;
- a zip entry named like a folder that holds data is quarantined, not skipped unsaid.

Each test states the time bound it runs in; none ends in a traceback.
"""

from __future__ import annotations

import gzip
import os
import threading
import time
import zipfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from auditor.ingest import detect
from auditor.ingest.detect import contained, read_file
from auditor.ingest.files import spool_if_unseekable
from auditor.ingest.jsonl import read_jsonl
from auditor.ingest.limits import LimitExceeded, MiB
from auditor.ingest.parquet import write_parquet
from auditor.ingest.tables import build_tables
from auditor.model.records import Quarantined, SourceHand
from auditor.pipeline import audit

ROOT = Path(__file__).resolve().parents[1]
HOLDEM = ROOT / "sample_logs" / "holdem.jsonl"


def _hands(n: int) -> list[SourceHand]:
    return [h for h in read_jsonl(HOLDEM) if isinstance(h, SourceHand)][:n]


# ----------------------------------------------------------------------------------- dictionary bomb


def _dictionary_bomb(directory: Path, rows: int, value_bytes: int = 1 << 20) -> Path:
    """A dataset whose hands.parquet repeats one hand `rows` times with `room` one shared dictionary value
    of `value_bytes` (Arrow's schema not stored, so the column reads back as plain strings)."""
    tables = build_tables(_hands(1))
    write_parquet(tables, directory)
    one = tables.hands
    columns = {}
    for name in one.column_names:
        if name == "hand":
            columns[name] = pa.array(range(rows), pa.int32())
        elif name == "room":
            columns[name] = pa.DictionaryArray.from_arrays(pa.array([0] * rows, pa.int32()),
                                                           pa.array(["R" * value_bytes]))
        else:
            columns[name] = pa.repeat(one[name][0], rows)
    pq.write_table(pa.table(columns), directory / "hands.parquet", compression="zstd",
                   dictionary_pagesize_limit=value_bytes * 4, store_schema=False)
    return directory


def test_dictionary_bomb_is_refused_before_decoding(tmp_path):
    dataset = _dictionary_bomb(tmp_path / "bomb", rows=3000)  # 3 GiB of room names, decoded
    assert (dataset / "hands.parquet").stat().st_size < 100_000
    meta = pq.ParquetFile(dataset / "hands.parquet").metadata
    assert meta.row_group(0).total_byte_size < 200 * (dataset / "hands.parquet").stat().st_size  # footer passes
    started = time.monotonic()
    items = list(read_file(dataset))
    assert time.monotonic() - started < 10  # bound: no row decoded
    assert len(items) == 1 and isinstance(items[0], Quarantined) and items[0].code == "limit"
    assert "hands.parquet (its columns decoded)" in items[0].reason and "max_compression_ratio" in items[0].reason


def test_a_small_shared_dictionary_value_is_read(tmp_path):
    """Just under: the same shape with a 100-byte room name is an ordinary dataset."""
    dataset = _dictionary_bomb(tmp_path / "fine", rows=3000, value_bytes=100)
    items = list(read_file(dataset))
    assert len(items) == 3000 and isinstance(items[0], SourceHand) and items[0].hand["room"] == "R" * 100
    # the copies have no seats of their own (hand numbers 1...): each is its own invalid record, none a limit
    assert {i.code for i in items[1:]} == {"invalid-record"}


def test_dictionary_bomb_in_a_list_column_is_refused(tmp_path):
    """The cards of every deal one shared 1 MiB dictionary value: measured through the list."""
    tables = build_tables(_hands(1))
    dataset = tmp_path / "cards"
    write_parquet(tables, dataset)
    events = tables.events
    rows = 4000
    columns = {}
    for name in events.column_names:
        column = pa.concat_arrays([events[name].combine_chunks()] * (rows // events.num_rows + 1))[:rows]
        columns[name] = column
    big = pa.DictionaryArray.from_arrays(pa.array([0] * rows, pa.int32()), pa.array(["c" * (1 << 20)]))
    columns["cards"] = pa.ListArray.from_arrays(pa.array(range(rows + 1), pa.int32()), big)
    columns["hand"] = pa.array([0] * rows, pa.int32())
    pq.write_table(pa.table(columns), dataset / "events.parquet", compression="zstd",
                   dictionary_pagesize_limit=8 << 20, store_schema=False)
    items = list(read_file(dataset))
    assert len(items) == 1 and items[0].code == "limit" and "events.parquet" in items[0].reason


class PanicException(BaseException):
    """What pyo3 raises from a Rust panic (jsonschema-rs on a failed allocation): not an Exception."""


def test_a_panic_in_a_reader_is_contained_as_internal_error():
    def reader():
        yield Quarantined("f.jsonl", 1, "bad", code="damaged")
        raise PanicException("called `Result::unwrap()` on an `Err` value: capacity overflow")

    items = list(contained(reader(), "f.jsonl"))
    assert [i.code for i in items] == ["damaged", "internal-error"]
    assert "PanicException" in items[1].reason and items[1].line == 2


@pytest.mark.parametrize("stop", [KeyboardInterrupt, SystemExit])
def test_contained_lets_interrupts_through(stop):
    def reader():
        raise stop()
        yield  # pragma: no cover

    with pytest.raises(stop):
        list(contained(reader(), "f.jsonl"))


# ----------------------------------------------------------------------------------- forged provenance


def test_forged_file_and_line_columns_are_claimed_provenance_only(tmp_path):
    real = tmp_path / "real.jsonl"
    real.write_bytes(b"".join(HOLDEM.read_bytes().splitlines(keepends=True)[:2]))
    forged = build_tables(_hands(5))
    hands = forged.hands.set_column(forged.hands.schema.get_field_index("file"), "file",
                                    pa.array([str(real)] * 5))
    hands = hands.set_column(hands.schema.get_field_index("line"), "line", pa.array([1] * 5, pa.int64()))
    dataset = tmp_path / "claims.parquet"
    write_parquet(type(forged)(hands, forged.seats, forged.events), dataset)
    items = list(read_file(dataset))
    assert [(i.file, i.line) for i in items] == [(str(dataset), n) for n in range(1, 6)]
    assert {(i.claimed_file, i.claimed_line) for i in items} == {(str(real), 1)}
    result = audit([real, dataset])
    per_file = result.per_file().set_index("file")["hands_read"].to_dict()
    assert per_file[str(real)] == 2  # not inflated by the dataset's claims
    assert per_file[str(dataset)] == 5


# ----------------------------------------------------------------------------------- a pipe read once


def test_a_fifo_given_to_read_file_loses_no_hand(tmp_path):
    """400 hands (far more than detection's first bytes) through a FIFO: all read, named by the FIFO."""
    fifo = tmp_path / "hands.pipe"
    os.mkfifo(fifo)
    data = b"".join(HOLDEM.read_bytes().splitlines(keepends=True)[:400])
    writer = threading.Thread(target=fifo.write_bytes, args=(data,), daemon=True)
    writer.start()
    started = time.monotonic()
    items = list(read_file(fifo))
    writer.join(5)
    assert time.monotonic() - started < 30
    assert len(data) > 64 * 1024
    assert len(items) == 400 and all(isinstance(i, SourceHand) for i in items)
    assert {i.file for i in items} == {str(fifo)} and [i.line for i in items] == list(range(1, 401))


def test_a_fifo_nobody_writes_to_is_refused_not_waited_on(tmp_path):
    fifo = tmp_path / "silent.pipe"
    os.mkfifo(fifo)
    started = time.monotonic()
    with pytest.raises(LimitExceeded, match="nothing was written"), spool_if_unseekable(fifo, idle_seconds=0.5):
        pass
    assert time.monotonic() - started < 5


# ----------------------------------------------------------------------------------- ratio over the archive


def test_members_just_under_the_grace_are_judged_over_the_whole_archive(tmp_path):
    archive = tmp_path / "newlines.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        for i in range(200):
            z.writestr(f"m{i}.jsonl", b"\n" * (8 * MiB - 1))
    assert archive.stat().st_size < 2_000_000
    started = time.monotonic()
    items = list(read_file(archive))
    assert time.monotonic() - started < 10  # was over ten minutes
    assert len(items) == 1 and items[0].code == "limit" and "max_compression_ratio" in items[0].reason
    assert "whole archive" in items[0].reason and items[0].file.endswith("!m1.jsonl")


def test_gzip_members_count_toward_the_archive(tmp_path):
    """Nested: gzip members of 8 MiB - 1 blanks each, inside a stored zip: unpacked while copied, so their
    bytes are the archive's and the second one passes the archive's ratio."""
    archive = tmp_path / "nested.zip"
    member = gzip.compress(b" " * (8 * MiB - 1))
    with zipfile.ZipFile(archive, "w") as z:
        for i in range(50):
            z.writestr(f"m{i}.jsonl.gz", member)
        z.writestr("hands.jsonl.gz", gzip.compress(HOLDEM.read_bytes().splitlines(keepends=True)[0]))
    started = time.monotonic()
    items = list(read_file(archive))
    assert time.monotonic() - started < 10
    assert len(items) == 1 and items[0].code == "limit" and "whole archive" in items[0].reason


def test_a_gzip_member_of_a_zip_is_read(tmp_path):
    archive = tmp_path / "logs.zip"
    lines = HOLDEM.read_bytes().splitlines(keepends=True)[:3]
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("day1/x.jsonl.gz", gzip.compress(b"".join(lines)))
    items = list(read_file(archive))
    assert [(i.file, i.line) for i in items] == [(f"{archive}!day1/x.jsonl.gz", n) for n in (1, 2, 3)]


def test_a_file_of_only_blank_lines_costs_no_reader_time(tmp_path):
    """8 MiB - 1 newlines (just under the grace) in every format: nothing read, in well under a second
    each (the JSONL reader took four seconds walking them line by line). A `.phh` is one hand by
    definition, so a blank one is still its reader's to refuse (one quarantine, as before)."""
    for suffix in (".jsonl", ".ohh", ".phhs"):
        path = tmp_path / f"blank{suffix}"
        path.write_bytes(b"\n" * (8 * MiB - 1))
        started = time.monotonic()
        assert list(read_file(path)) == []
        assert time.monotonic() - started < 1, suffix
    path = tmp_path / "blank.phh"
    path.write_bytes(b"\n\n")
    items = list(read_file(path))
    assert len(items) == 1 and items[0].code == "invalid-record"


# ------------------------------------------------------------------------------------ a folder entry with data


def test_a_folder_entry_that_holds_data_is_quarantined(tmp_path):
    archive = tmp_path / "folder.zip"
    line = HOLDEM.read_bytes().splitlines(keepends=True)[0]
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("x.jsonl/", line)
        z.writestr("empty/", b"")
        z.writestr("real.jsonl", line)
    items = list(read_file(archive))
    assert isinstance(items[0], Quarantined) and items[0].code == "unsupported-format"
    assert items[0].file == f"{archive}!x.jsonl/" and f"holds {len(line)} bytes" in items[0].reason
    assert len(items) == 2 and isinstance(items[1], SourceHand)  # the empty folder is just a folder


def test_a_zip_inside_a_zip_is_said_not_read(tmp_path):
    inner = tmp_path / "inner.zip"
    with zipfile.ZipFile(inner, "w") as z:
        z.writestr("a.jsonl", HOLDEM.read_bytes().splitlines(keepends=True)[0])
    outer = tmp_path / "outer.zip"
    with zipfile.ZipFile(outer, "w") as z:
        z.write(inner, "inner.zip")
    items = list(read_file(outer))
    assert len(items) == 1 and items[0].code == "unsupported-format" and "inside a zip" in items[0].reason


def test_a_string_column_whose_decoded_size_cannot_be_bounded_is_refused(tmp_path):
    """DELTA_BYTE_ARRAY writes each string as a prefix of the one before: a few bytes stand for any length."""
    tables = build_tables(_hands(3))
    dataset = tmp_path / "delta"
    write_parquet(tables, dataset)
    pq.write_table(tables.hands, dataset / "hands.parquet", use_dictionary=False,
                   column_encoding={"room": "DELTA_BYTE_ARRAY"})
    items = list(read_file(dataset))
    assert len(items) == 1 and items[0].code == "limit" and "DELTA_BYTE_ARRAY" in items[0].reason
    # the same table with plain strings reads
    pq.write_table(tables.hands, dataset / "hands.parquet", use_dictionary=False)
    assert [type(i) for i in read_file(dataset)] == [SourceHand] * 3


def test_detect_never_reads_a_fifo(tmp_path):
    """Detection of a FIFO goes by its suffix only: nothing is taken from the pipe before its reader."""
    fifo = tmp_path / "hands.jsonl"
    os.mkfifo(fifo)
    data = b"".join(HOLDEM.read_bytes().splitlines(keepends=True)[:5])
    writer = threading.Thread(target=fifo.write_bytes, args=(data,), daemon=True)
    writer.start()
    assert detect.detect(fifo).name == "jsonl"
    assert len([i for i in read_file(fifo) if isinstance(i, SourceHand)]) == 5
    writer.join(5)


def test_gzip_layers_inside_a_member_all_count_toward_the_archive(tmp_path):
    """A .gz of a .gz of 8 MiB - 1 newlines with a hand on top, 100 times: every layer is undone while
    copying, so the archive's ratio stops it (a layer left to the reader had a grace of its own and
    a reader walking eight million empty lines per member); more than four layers are refused."""
    line = HOLDEM.read_bytes().splitlines(keepends=True)[0]
    member = gzip.compress(gzip.compress(line + b"\n" * (8 * MiB - 1 - len(line))))
    archive = tmp_path / "layers.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for i in range(100):
            z.writestr(f"m{i}.jsonl.gz", member)
    started = time.monotonic()
    items = list(read_file(archive))
    assert time.monotonic() - started < 20
    assert isinstance(items[0], SourceHand) and items[-1].code == "limit" and "whole archive" in items[-1].reason
    assert len(items) == 2
    deep = line
    for _ in range(6):
        deep = gzip.compress(deep)
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("deep.jsonl.gz", deep)
    items = list(read_file(archive))
    assert len(items) == 1 and items[0].code == "damaged" and "gzip layers" in items[0].reason


def test_running_out_of_memory_on_a_dataset_is_a_limit_not_damage(tmp_path, monkeypatch):
    from auditor.ingest import parquet

    dataset = tmp_path / "ds"
    write_parquet(build_tables(_hands(2)), dataset)

    def exhausted(*_args, **_kwargs):
        raise pa.ArrowMemoryError("realloc of size 536870912 failed")

    monkeypatch.setattr(parquet, "read_canonical_columns", exhausted)
    items = list(read_file(dataset))
    assert len(items) == 1 and items[0].code == "limit" and "realloc" in items[0].reason
