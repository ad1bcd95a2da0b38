"""`auditor convert` carries its quarantine forward (issue #15): the dataset stores the hands it could not
convert, auditing the dataset reports them again with the same codes, so hands read equals the hands of
the original logs; an existing dataset is replaced only with --overwrite."""

from __future__ import annotations

import collections
import itertools
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from auditor.cli import main
from auditor.engines import local
from auditor.engines.parquet_ranges import plan_ranges, read_range
from auditor.ingest.parquet import QUARANTINE_SCHEMA, TABLE_FILES, read_parquet
from auditor.model.records import Quarantined, SourceHand
from auditor.pipeline import audit

SAMPLES = Path(__file__).resolve().parents[1] / "sample_logs"


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
