"""A Parquet dataset whose tables are not exactly the canonical schema is not streamed in ranges
(which read columns as they are) but read whole by `read_parquet`, which quarantines it naming the
column. Found by scripts/fuzz.py: a dropped or retyped column crashed audit() in the range reader."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from auditor.cli import main
from auditor.pipeline import audit

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ds") / "dataset"
    result = CliRunner().invoke(main, ["convert", str(ROOT / "sample_logs" / "holdem.jsonl"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


def _damaged(dataset: Path, tmp_path: Path, table: str, column: str, retype: bool) -> Path:
    copy = tmp_path / "damaged"
    copy.mkdir()
    for name in ("hands", "seats", "events"):
        data = pq.read_table(dataset / f"{name}.parquet")
        if name == table:
            i = data.column_names.index(column)
            # retyped: text that is no number, so no cast can bring the column back
            data = data.set_column(i, column, pa.array(["x"] * data.num_rows)) if retype else data.remove_column(i)
        pq.write_table(data, copy / f"{name}.parquet")
    return copy


@pytest.mark.parametrize(("table", "column", "retype"), [("hands", "blinds", False), ("hands", "chip_unit", True),
                                                          ("seats", "seat", True), ("events", "seq", False),
                                                          ("hands", "file", False)])
def test_non_canonical_dataset_is_quarantined_not_crashed(dataset, tmp_path, table, column, retype):
    damaged = _damaged(dataset, tmp_path, table, column, retype)
    result = audit([damaged], pack="tda-2024")
    assert result.hands_read == result.hands_audited + result.hands_quarantined
    if column == "file":  # an optional column: the dataset is still read, whole
        assert result.hands_audited == audit([dataset], pack="tda-2024").hands_audited
    else:
        assert result.hands_audited == 0
        assert any(column in q.reason for q in result.quarantined), [q.reason for q in result.quarantined]


def _with_column_twice(dataset: Path, tmp_path: Path, table: str, column: str, rows: int | None = None) -> Path:
    copy = tmp_path / f"twice-{column}"
    copy.mkdir()
    for name in ("hands", "seats", "events"):
        data = pq.read_table(dataset / f"{name}.parquet")
        if name == table:
            data = data.slice(0, rows) if rows is not None else data
            extra = data[column] if column in data.column_names else pa.array([0.5] * data.num_rows)
            data = data.append_column(column, extra).append_column(column, extra) \
                if column not in data.column_names else data.append_column(column, extra)
        pq.write_table(data, copy / f"{name}.parquet")
    return copy


@pytest.mark.parametrize("rows", [None, 0])
def test_an_unknown_column_stored_twice_is_ignored_by_both_readers(dataset, tmp_path, rows):
    """Found by scripts/fuzz.py (seed 2026, input 70,461): a hands table with a column 'extra' written
    twice was streamed (two hands audited) but refused whole by read_parquet, so audit() and the reader
    disagreed on how many hands the dataset held; with no rows the reader alone failed."""
    from auditor.ingest.parquet import read_parquet
    from auditor.model.records import SourceHand

    twice = _with_column_twice(dataset, tmp_path, "hands", "extra", rows)
    assert len(pq.read_schema(twice / "hands.parquet").get_all_field_indices("extra")) == 2
    items = list(read_parquet(twice))
    result = audit([twice], pack="tda-2024")
    assert result.hands_read == len(items) == audit([dataset], pack="tda-2024").hands_read
    if rows is None:
        assert result.hands_audited == len(items) and all(isinstance(i, SourceHand) for i in items)
    else:  # every hands row cut: each hand's seats and events are left without it, each one quarantined
        assert result.hands_quarantined == len(items) and not any(isinstance(i, SourceHand) for i in items)
        assert all("no row in hands.parquet" in q.reason and q.code == "invalid-record" for q in result.quarantined)


def test_a_canonical_column_stored_twice_is_refused_by_name(dataset, tmp_path):
    twice = _with_column_twice(dataset, tmp_path, "hands", "chip_unit")
    result = audit([twice], pack="tda-2024")
    assert result.hands_audited == 0 and result.hands_read == result.hands_quarantined == 1
    assert "column chip_unit appears more than once" in result.quarantined[0].reason
    assert result.quarantined[0].code == "invalid-record"


def test_text_that_is_not_utf8_is_quarantined_in_the_range_reader_too():
    """Found by scripts/fuzz.py (seed 2026, input 563,973): a byte-damaged hands.parquet whose pages still
    decompress, with a string that is not UTF-8. Arrow reads it; turning it into Python text fails.
    read_parquet quarantined the dataset, but the range reader (what audit() streams canonical datasets
    with) let the UnicodeDecodeError out of audit()."""
    from auditor.ingest.parquet import read_parquet

    fixture = ROOT / "tests" / "fixtures" / "parquet" / "text-not-utf8"
    alone = list(read_parquet(fixture))
    result = audit([fixture], pack="tda-2024")
    assert result.hands_read == result.hands_audited + result.hands_quarantined == len(alone) == 1
    assert "'utf-8' codec can't decode" in result.quarantined[0].reason
    assert result.quarantined[0].reason.startswith("unreadable Parquet dataset: ")
    assert result.quarantined[0].code == "damaged"


def test_a_range_reader_that_fails_anyway_is_contained(dataset, monkeypatch):
    """The last line of defence every reader has (ingest.detect.contained) covers Parquet ranges too."""
    import auditor.engines.partition as partition

    def broken(*args, **kwargs):
        yield from ()
        raise RuntimeError("a bug")

    monkeypatch.setattr(partition, "read_range_tables", broken)
    result = audit([dataset], pack="tda-2024")
    assert result.hands_read == result.hands_quarantined == 1
    assert result.quarantined[0].reason == "reader error, the rest of the file is not read: RuntimeError: a bug"
    assert result.quarantined[0].code == "internal-error"


def _one_hand_row_removed(dataset: Path, tmp_path: Path) -> tuple[Path, int]:
    copy = tmp_path / "missing-row"
    copy.mkdir()
    hands = pq.read_table(dataset / "hands.parquet")
    gone = hands["hand"][3].as_py()
    pq.write_table(hands.filter(pa.compute.not_equal(hands["hand"], gone)), copy / "hands.parquet")
    for name in ("seats", "events"):
        pq.write_table(pq.read_table(dataset / f"{name}.parquet"), copy / f"{name}.parquet")
    return copy, gone


def test_a_hand_whose_own_row_is_missing_is_quarantined_not_lost(dataset, tmp_path):
    """Deleting a hand's row from hands.parquet (its seats and events left behind) must not make the
    hand vanish: the range reader scanned past its rows unseen, read_parquet ignored them. Found by
    scripts/fuzz.py (seed 2026, input 158,621: every hands row cut, seats and events kept)."""
    from auditor.ingest.parquet import read_parquet
    from auditor.model.records import Quarantined

    copy, gone = _one_hand_row_removed(dataset, tmp_path)
    whole = audit([dataset], pack="tda-2024")
    result = audit([copy], pack="tda-2024")
    alone = list(read_parquet(copy))
    assert result.hands_read == len(alone) == whole.hands_read
    assert result.hands_audited == whole.hands_audited - 1
    orphans = [q for q in result.quarantined if q.reason.startswith(f"hand number {gone}:")]
    assert len(orphans) == 1 and "no row in hands.parquet" in orphans[0].reason
    assert [q.reason for q in alone if isinstance(q, Quarantined)] == [q.reason for q in result.quarantined]


@pytest.mark.parametrize(("fixture", "reason"), [
    # Arrow's iter_batches gave no batch at all for this damaged hands.parquet, where read() raises
    ("batches-end-quietly", "unreadable Parquet dataset: "),
    # no hands rows, and seats rows that cannot be decoded
    ("orphan-rows-damaged", "unreadable Parquet dataset: "),
])
def test_damaged_datasets_found_by_fuzzing_give_the_same_count_whichever_reader(fixture, reason):
    """Found by scripts/fuzz.py (seed 2026, inputs 178,619 and 158,621): audit() reported 0 hands read
    and nothing quarantined, the dataset's hand gone without a word."""
    from auditor.ingest.parquet import read_parquet

    path = ROOT / "tests" / "fixtures" / "parquet" / fixture
    alone = list(read_parquet(path))
    result = audit([path], pack="tda-2024")
    assert result.hands_read == result.hands_audited + result.hands_quarantined == len(alone) == 1
    assert result.quarantined[0].reason.startswith(reason)


def test_a_footer_whose_row_counts_disagree_is_refused_by_both_readers():
    """Found by scripts/fuzz.py (seed 2026, input 804,892): seats.parquet's footer counts 2 rows, its
    row group 6. Arrow reads 2 and says nothing; the hands whose seats went missing were quarantined one
    by one by read_parquet while the range reader refused the range, so the two disagreed."""
    from auditor.ingest.parquet import read_parquet

    fixture = ROOT / "tests" / "fixtures" / "parquet" / "footer-row-counts-disagree"
    alone = list(read_parquet(fixture))
    result = audit([fixture], pack="tda-2024")
    assert result.hands_read == result.hands_quarantined == len(alone) == 1
    assert result.quarantined[0].reason == ("refused Parquet dataset: seats.parquet is damaged: its footer counts "
                                            "2 rows, its row groups 6")
    assert result.quarantined[0].code == alone[0].code == "damaged"


def test_limits_apply_to_a_streamed_dataset_as_to_one_read_whole(dataset):
    """The range reader used to skip the size and decompression checks read_parquet makes."""
    from auditor.ingest.limits import Limits

    result = audit([dataset], pack="tda-2024", limits=Limits(max_file_bytes=1000))
    assert result.hands_audited == 0 and result.hands_read == result.hands_quarantined == 1
    assert "limit max_file_bytes" in result.quarantined[0].reason and result.quarantined[0].code == "limit"
