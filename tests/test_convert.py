"""`auditor convert`: the dataset holds the hands the logs hold, written a batch at a time; it carries its
quarantine forward (the dataset stores the hands it could not convert, auditing the dataset reports them again
with the same codes, so hands read equals the hands of the original logs); an existing dataset is replaced only
with --overwrite; an interrupted convert leaves no dataset that looks complete."""

from __future__ import annotations

import collections
import itertools
import os
import signal
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from reader_items import one_by_one

from auditor import convert as converting
from auditor.cli import main
from auditor.engines import local
from auditor.engines.parquet_ranges import plan_ranges, read_range
from auditor.ingest import parquet, phh_tables
from auditor.ingest.parquet import QUARANTINE_SCHEMA, TABLE_FILES, read_parquet
from auditor.ingest.tables import build_tables
from auditor.model.records import Quarantined, SourceHand
from auditor.pipeline import audit, discover, read_inputs

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_logs"
CORPUS = ROOT.parent / "shared" / "corpus"


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("convert") / "dataset"
    result = CliRunner().invoke(main, ["convert", str(SAMPLES), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "2 quarantined" in result.output
    return out


def _codes(quarantined: list[Quarantined]) -> collections.Counter:
    return collections.Counter(q.code for q in quarantined)


def test_auditing_the_dataset_counts_what_auditing_the_logs_counts(dataset, monkeypatch):
    logs = audit([SAMPLES], jobs=1)
    monkeypatch.setattr(local, "POOL_MIN_HANDS", 0)
    for jobs in (1, 2):
        converted = audit([dataset], jobs=jobs, batch_size=300)
        assert (converted.hands_read, converted.hands_audited) == (logs.hands_read, logs.hands_audited) == (1427, 1425)
        assert _codes(converted.quarantined) == _codes(logs.quarantined) == {"damaged": 1, "invalid-record": 1}
        assert len(converted.findings) == len(logs.findings) == 28
        # each entry says where convert met it
        assert all("damaged.jsonl:" in q.reason and q.file.endswith("quarantined.parquet")
                   for q in converted.quarantined)
    hand_ids = {q.hand_id for q in converted.quarantined}
    assert hand_ids == {q.hand_id for q in logs.quarantined}


def test_both_readers_give_the_stored_quarantine_once(dataset):
    whole = list(read_parquet(dataset))
    layout, ranges = plan_ranges(dataset, 150)
    assert len(ranges) > 1
    in_ranges = [item for start, stop in ranges for item in read_range(dataset, layout, start, stop)]
    assert in_ranges == whole
    assert sum(isinstance(i, SourceHand) for i in whole) == 1425
    assert _codes([i for i in whole if isinstance(i, Quarantined)]) == {"damaged": 1, "invalid-record": 1}


def test_a_dataset_without_a_quarantine_file_still_reads(dataset, tmp_path):
    old = tmp_path / "old"
    old.mkdir()
    for name in TABLE_FILES:
        (old / f"{name}.parquet").write_bytes((dataset / f"{name}.parquet").read_bytes())
    items = list(read_parquet(old))
    assert len(items) == 1425 and all(isinstance(i, SourceHand) for i in items)


def test_stored_text_is_escaped_and_an_unknown_code_is_not_trusted(dataset, tmp_path):
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in TABLE_FILES:
        (copy / f"{name}.parquet").write_bytes((dataset / f"{name}.parquet").read_bytes())
    rows = {"file": ["evil\x1b[31m.jsonl", "x.jsonl"], "line": [1, 2], "code": ["damaged", "rm -rf /"],
            "reason": ["bad\nline", "whatever"], "hand_id": ["h\u202e1", None], "table_id": [None, None]}
    pq.write_table(pa.table(rows, schema=QUARANTINE_SCHEMA), copy / "quarantined.parquet")
    stored = [i for i in read_parquet(copy) if isinstance(i, Quarantined)]
    assert [q.code for q in stored] == ["damaged", "invalid-record"]
    assert "\x1b" not in stored[0].reason and "\n" not in stored[0].reason and "\\x1b" in stored[0].reason
    assert stored[0].hand_id == "h\\u202e1"
    assert "is not a quarantine code" in stored[1].reason


def test_convert_refuses_to_overwrite_a_dataset_without_the_flag(dataset, tmp_path):
    out = tmp_path / "again"
    runner = CliRunner()
    first = runner.invoke(main, ["convert", str(SAMPLES / "holdem.jsonl"), "-o", str(out)])
    assert first.exit_code == 0, first.output
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    refused = runner.invoke(main, ["convert", str(SAMPLES), "-o", str(out)])
    assert refused.exit_code == 2
    assert "already holds a Parquet dataset" in refused.output and "--overwrite" in refused.output
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # untouched
    replaced = runner.invoke(main, ["convert", str(SAMPLES), "-o", str(out), "--overwrite"])
    assert replaced.exit_code == 0, replaced.output
    assert pq.read_metadata(out / "quarantined.parquet").num_rows == 2
    assert pq.read_metadata(out / "hands.parquet").num_rows == 1425


def test_a_garbage_file_converted_is_one_entry(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "junk.jsonl").write_bytes(bytes(itertools.islice(itertools.cycle(range(256)), 50_000)))
    (logs / "holdem.jsonl").write_bytes((SAMPLES / "holdem.jsonl").read_bytes())
    out = tmp_path / "ds"
    result = CliRunner().invoke(main, ["convert", str(logs), "-o", str(out)])
    assert result.exit_code == 0, result.output
    stored = pq.read_table(out / "quarantined.parquet").to_pylist()
    assert [row["code"] for row in stored] == ["unsupported-format"]


def _dataset_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize("source", ["sample_logs", "pokerstars", "ohh", "phh/data/wsop", "phh/data/pluribus/30"])
def test_the_dataset_holds_what_reading_the_logs_hand_by_hand_gives(source, tmp_path, monkeypatch):
    """Streamed through the audit's readers (column-wise where the audit is: a folder of `.phh` files through the
    PHH scanner), batch by batch: the tables are those the hands read one by one give as one table (as the dataset
    of a convert that held every hand was), and the quarantine table lists the same entries in the same order."""
    folder = SAMPLES if source == "sample_logs" else CORPUS / source
    if not folder.is_dir():
        pytest.skip(f"{folder} is not beside the project")
    monkeypatch.setattr(phh_tables, "MIN_FILES", 2)  # a folder of a few dozen files read as thousands are
    out = tmp_path / "ds"
    done = converting.convert([folder], out, batch_size=70)
    inputs, _ = discover([folder])
    items = one_by_one(read_inputs(inputs))
    hands = [i for i in items if isinstance(i, SourceHand)]
    quarantined = [i for i in items if isinstance(i, Quarantined)]
    assert (done.hands, done.quarantined) == (len(hands), len(quarantined))
    expected = build_tables(hands)
    for name in TABLE_FILES:
        got = pq.read_table(out / f"{name}.parquet")
        assert got.equals(getattr(expected, name)), name
    if len(hands) > 70:
        assert pq.ParquetFile(out / "hands.parquet").num_row_groups >= len(hands) // 70  # written as it went
    stored = pq.read_table(out / "quarantined.parquet").to_pylist()
    assert [(r["file"], r["line"], r["code"], r["reason"]) for r in stored] == [
        (q.file, q.line, q.code, q.reason) for q in quarantined]
    assert _dataset_files(out) == ["events.parquet", "hands.parquet", "quarantined.parquet", "seats.parquet"]


def test_an_interrupted_convert_leaves_no_dataset_and_keeps_the_one_it_was_replacing(tmp_path, monkeypatch):
    out = tmp_path / "ds"
    real = parquet.DatasetWriter.write
    calls = []

    def failing(self, tables):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt  # Ctrl-C in the middle of the input
        real(self, tables)

    monkeypatch.setattr(parquet.DatasetWriter, "write", failing)
    with pytest.raises(KeyboardInterrupt):
        converting.convert([SAMPLES], out, batch_size=100)
    assert _dataset_files(out) == []  # no dataset, and no half-written file left behind
    monkeypatch.setattr(parquet.DatasetWriter, "write", real)
    converting.convert([SAMPLES / "holdem.jsonl"], out)
    before = {name: (out / name).read_bytes() for name in _dataset_files(out)}
    calls.clear()
    monkeypatch.setattr(parquet.DatasetWriter, "write", failing)
    with pytest.raises(KeyboardInterrupt):
        converting.convert([SAMPLES], out, overwrite=True, batch_size=100)
    assert {name: (out / name).read_bytes() for name in _dataset_files(out)} == before


def test_a_killed_convert_leaves_no_dataset(tmp_path):
    """SIGTERM while converting: the command unwinds (exit 143), its half-written files are removed, and what is
    left in the output folder is not a dataset."""
    lines = (SAMPLES / "holdem.jsonl").read_bytes()
    big = tmp_path / "big.jsonl"
    with big.open("wb") as out:
        out.write(b"{not json\n")  # a quarantine line on stderr at once: the convert has started
        for _ in range(40):
            out.write(lines)
    output = tmp_path / "ds"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, "-m", "auditor", "convert", str(big), "-o", str(output)],
                             stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env, cwd=tmp_path)
    assert child.stderr is not None
    first = child.stderr.readline()
    assert first.startswith(b"quarantined:"), first
    child.send_signal(signal.SIGTERM)
    child.wait(timeout=120)
    if child.returncode == 0:
        pytest.skip("the convert finished before the signal came")
    assert child.returncode == 128 + signal.SIGTERM
    assert not parquet.is_parquet_dataset(output) and _dataset_files(output) == []


def test_quarantine_lines_name_the_file_escaped(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "evil\x1b[31m.jsonl").write_bytes(b"{not json\n" + (SAMPLES / "holdem.jsonl").read_bytes())
    result = CliRunner().invoke(main, ["convert", str(logs), "-o", str(tmp_path / "ds")])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "evil\\x1b[31m.jsonl:1: [damaged]" in result.output


def test_progress_is_told_after_each_batch_and_file(tmp_path):
    seen = []
    done = converting.convert([SAMPLES], tmp_path / "ds", batch_size=200, progress=seen.append)
    assert len(seen) > 9  # every batch of 200 hands and every file
    assert [p.hands_read for p in seen] == sorted(p.hands_read for p in seen)  # never backwards
    assert seen[-1].files_done == seen[-1].files_total == done.files
    assert seen[-1].hands_read == done.hands + done.quarantined == 1427
