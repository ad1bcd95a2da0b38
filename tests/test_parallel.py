"""`--jobs`: worker processes give exactly what one process gives; partitions never split a table.

The sample logs are audited in small batches so that they make several partitions (one per file),
and the process pool is forced on for them (it is normally kept for runs of 10,000 hands or more).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from auditor.engines import local
from auditor.engines.parquet_ranges import plan_ranges, read_range
from auditor.engines.partition import plan
from auditor.ingest.parquet import TABLE_FILES, read_parquet
from auditor.ingest.tables import build_tables
from auditor.model.inputs import InputFile
from auditor.model.records import SourceHand
from auditor.model.results import AuditResult
from auditor.pipeline import audit, discover, read_inputs

SAMPLES = Path(__file__).resolve().parents[1] / "sample_logs"
BATCH = 300  # below a sample file's size: each file is a partition of its own


def assert_same(a: AuditResult, b: AuditResult) -> None:
    """Everything a report shows is equal, in the same order and with the same dtypes."""
    assert a.findings.equals(b.findings)
    assert list(a.findings.dtypes) == list(b.findings.dtypes)
    assert a.coverage.equals(b.coverage)
    assert [q.one_line() for q in a.quarantined] == [q.one_line() for q in b.quarantined]
    assert (a.hands_read, a.hands_audited, a.hands_not_covered) == (b.hands_read, b.hands_audited, b.hands_not_covered)
    assert list(a.not_covered.items()) == list(b.not_covered.items())
    assert a.per_file().equals(b.per_file())
    assert a.notes == b.notes
    assert list(a.read_per_file.items()) == list(b.read_per_file.items())
    assert list(a.packs) == list(b.packs)
    assert [i.path for i in a.inputs] == [i.path for i in b.inputs]


@pytest.fixture(scope="module")
def one_process() -> AuditResult:
    return audit([SAMPLES], batch_size=BATCH, jobs=1)


def test_worker_processes_give_the_result_of_one_process(one_process, monkeypatch):
    monkeypatch.setattr(local, "POOL_MIN_HANDS", 0)
    inputs, _ = discover([SAMPLES])
    assert len(plan(inputs, BATCH)) >= 5
    seen = []
    spread = audit([SAMPLES], batch_size=BATCH, jobs=2, progress=seen.append)
    assert_same(one_process, spread)
    assert len(spread.findings) == 28
    # progress: never backwards, and ends at every file and every hand
    assert [p.hands_read for p in seen] == sorted(p.hands_read for p in seen)
    assert seen[-1].files_done == seen[-1].files_total == len(spread.inputs)
    assert seen[-1].hands_read == spread.hands_read


def test_small_batches_and_partitions_find_what_one_batch_finds(one_process):
    whole = audit([SAMPLES], batch_size=20_000)
    assert whole.findings.equals(one_process.findings)
    assert whole.coverage.equals(one_process.coverage)


def test_a_phh_folder_stays_in_one_partition_in_order(tmp_path):
    inputs = []
    for folder in ("a", "a/inner", "b"):
        for n in range(3):
            inputs.append(InputFile(tmp_path / folder / f"{n}.phh", "phh", f"{folder}/{n}.phh"))
    inputs.append(InputFile(tmp_path / "log.jsonl", "jsonl", "log.jsonl"))
    inputs.sort(key=lambda i: i.path.as_posix())
    partitions = plan(inputs, batch_size=1)  # every unit would be a partition of its own
    where = {piece.input.path: p.index for p in partitions for piece in p.pieces}
    for folder in ("a", "a/inner", "b"):
        members = [i.path for i in inputs if i.path.parent == tmp_path / folder]
        assert len({where[m] for m in members}) == 1, folder
        pieces = next(p for p in partitions if p.index == where[members[0]]).pieces
        assert [piece.input.path for piece in pieces] == members  # in the sorted order
    assert len(partitions) == 4
    assert sorted(piece.input_index for p in partitions for piece in p.pieces) == list(range(len(inputs)))


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    """sample_logs converted to a Parquet dataset with small row groups (several per table file)."""
    inputs, _ = discover([SAMPLES])
    good = [x for x in read_inputs(inputs) if isinstance(x, SourceHand)]
    tables = build_tables(good)
    directory = tmp_path_factory.mktemp("dataset")
    for name in TABLE_FILES:
        pq.write_table(getattr(tables, name), directory / f"{name}.parquet", row_group_size=777)
    return directory


def test_parquet_ranges_read_what_read_parquet_reads_and_never_split_a_table(dataset):
    layout, ranges = plan_ranges(dataset, 150)
    assert len(ranges) > 5
    assert ranges[0][0] == 0 and all(a[1] == b[0] for a, b in itertools.pairwise(ranges))
    in_ranges = [item for start, stop in ranges for item in read_range(dataset, layout, start, stop)]
    assert in_ranges == list(read_parquet(dataset))
    hands = pq.read_table(dataset / "hands.parquet", columns=["file", "table_id"]).to_pylist()
    tables = [(h["file"], h["table_id"]) for h in hands]
    for start, _ in ranges[1:]:
        assert not set(tables[:start]) & set(tables[start:])


def test_a_dataset_in_ranges_gives_the_findings_of_its_logs(dataset, one_process, monkeypatch):
    monkeypatch.setattr(local, "POOL_MIN_HANDS", 0)
    from_dataset = audit([dataset], batch_size=BATCH, jobs=2)
    assert len(plan(discover([dataset])[0], BATCH)) > 3
    # the findings are the logs' own; they point at the dataset's rows (the file and line a dataset stores
    # are only claimed provenance)
    same = [c for c in one_process.findings.columns if c not in ("file", "line")]
    assert from_dataset.findings[same].equals(one_process.findings[same])
    assert set(from_dataset.findings["file"]) == {str(dataset)}
    assert from_dataset.coverage.equals(one_process.coverage)
    assert from_dataset.hands_audited == one_process.hands_audited
