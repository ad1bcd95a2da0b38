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
from auditor.model.records import Quarantined
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
    # Arrow's iter_batches gave no batch at all for this damaged hands.parquet, where read() raises; our own
    # footer parse (auditor.ingest.parquet_footer) now refuses it first: a column chunk of negative size
    ("batches-end-quietly", "refused Parquet dataset: hands.parquet is damaged: row group 0 column 6 has a "
                            "negative value count or size"),
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


def test_a_streamed_dataset_is_held_to_the_limits_per_range_not_as_a_whole(dataset):
    """A streamed dataset holds in memory what one range reads: `max_file_bytes` (a file held whole) does not
    apply to it, while `read_parquet`, which does hold the files whole, stays as strict as before. The
    decoded-size limit still applies, to what each range reads."""
    from auditor.ingest.limits import Limits
    from auditor.ingest.parquet import read_parquet

    whole = audit([dataset], pack="tda-2024")
    small_files = Limits(max_file_bytes=1000)
    result = audit([dataset], pack="tda-2024", limits=small_files)
    assert result.hands_audited == whole.hands_audited > 0 and not result.quarantined
    (refused,) = list(read_parquet(dataset, small_files))
    assert "limit max_file_bytes" in refused.reason and refused.code == "limit"
    result = audit([dataset], pack="tda-2024", limits=Limits(max_unpacked_bytes=100_000))
    assert result.hands_audited == 0 and result.hands_read == result.hands_quarantined == 1
    (entry,) = result.quarantined  # a row group's footer already says it unpacks past the limit: refused whole
    assert entry.code == "limit" and "max_unpacked_bytes" in entry.reason and "hands.parquet" in entry.reason


def _bomb_in_one_row_group(dataset: Path, tmp_path: Path, group: int, rows_per_group: int = 1000) -> Path:
    """The dataset with events.parquet cut into row groups of `rows_per_group` rows, the `player` of every
    event of row group `group` one shared 1 MiB dictionary value: a few KB that decode to a gigabyte."""
    copy = tmp_path / "bomb"
    copy.mkdir()
    for name in ("hands", "seats"):
        (copy / f"{name}.parquet").write_bytes((dataset / f"{name}.parquet").read_bytes())
    events = pq.read_table(dataset / "events.parquet")
    a, b = group * rows_per_group, min((group + 1) * rows_per_group, events.num_rows)
    values = pa.array(["p" * (1 << 20)])
    players = events.column("player").combine_chunks().dictionary_encode()
    # one dictionary for the file: the original names and the big one; rows [a, b) point at the big one
    dictionary = pa.concat_arrays([players.dictionary, values])
    missing = players.indices.is_null().to_numpy(zero_copy_only=False).copy()
    indices = players.indices.fill_null(0).to_numpy(zero_copy_only=False).copy()
    indices[a:b], missing[a:b] = len(dictionary) - 1, False
    player = pa.DictionaryArray.from_arrays(pa.array(indices, pa.int32(), mask=missing), dictionary)
    events = events.set_column(events.schema.get_field_index("player"), "player", player)
    pq.write_table(events, copy / "events.parquet", row_group_size=rows_per_group, compression="zstd",
                   dictionary_pagesize_limit=8 << 20, store_schema=False)
    return copy


def test_a_bomb_in_one_row_group_costs_only_the_ranges_that_read_it(dataset, tmp_path, monkeypatch):
    """The decoded size is measured by the range reader over its own row groups (in the worker, not by the
    planner over the whole dataset): a range reading the bomb's row group is refused with the code `limit`
    and the file and row group named, before any of its rows is decoded, and the rest of the dataset audits.
    Read whole, the same dataset is refused whole, as before."""
    from auditor.engines import partition
    from auditor.engines.parquet_ranges import plan_ranges, read_range_tables
    from auditor.ingest.parquet import TableChunk, read_parquet

    bomb = _bomb_in_one_row_group(dataset, tmp_path, group=4)
    assert (bomb / "events.parquet").stat().st_size < 2 * (dataset / "events.parquet").stat().st_size + (1 << 20)
    (whole,) = list(read_parquet(bomb))
    assert whole.code == "limit" and "events.parquet (its columns decoded)" in whole.reason
    planned = plan_ranges(bomb, 40)
    assert planned is not None
    layout, ranges = planned
    refused, read = [], 0
    for r in ranges:
        items = list(read_range_tables(bomb, layout, *r))
        entries = [i for i in items if isinstance(i, Quarantined) and i.line == 0]
        if entries:
            assert len(entries) == 1 and entries[0].code == "limit", entries
            assert "events.parquet row group 4 (its columns decoded)" in entries[0].reason
            assert "max_compression_ratio" in entries[0].reason
            assert not any(isinstance(i, TableChunk) for i in items)
            refused.append(r)
        else:
            read += sum(i.num_hands + len(i.quarantined) for i in items if isinstance(i, TableChunk))
    assert 1 <= len(refused) < len(ranges)
    assert read == 400 - sum(b - a for a, b in refused)
    # through audit(): ranges small enough to cut this dataset, the counts reconciled
    monkeypatch.setattr(partition, "MIN_PARTITION_HANDS", 40)
    result = audit([bomb], pack="tda-2024", batch_size=40)
    assert result.hands_read == result.hands_audited + result.hands_not_covered + result.hands_quarantined
    limit = [q for q in result.quarantined if q.code == "limit"]
    assert len(limit) == len(refused) and all("events.parquet row group 4" in q.reason for q in limit)
    assert result.hands_audited > 0


def test_a_resumed_scan_does_not_read_through_a_refused_range(dataset, tmp_path, monkeypatch):
    """A worker reading the ranges either side of a refused one resumes its scan past it (`skip_to`) without
    decoding the refused row group: the measure is what says so, asked for no row group it did not read."""
    from auditor.engines import parquet_ranges
    from auditor.engines.parquet_ranges import plan_ranges, read_range_tables

    bomb = _bomb_in_one_row_group(dataset, tmp_path, group=4)
    layout, ranges = plan_ranges(bomb, 40)
    monkeypatch.setattr(parquet_ranges, "_suspended", {})
    seen: list[list[int]] = []
    real = parquet_ranges.groups_decoded

    def spy(path, groups, columns, together=False, read=None):
        if Path(path).name == "events.parquet":
            seen.append(list(groups))
        return real(path, groups, columns, together, read)

    monkeypatch.setattr(parquet_ranges, "groups_decoded", spy)
    started: set[int] = set()
    next_batch = parquet_ranges._Cursor._next_batch

    def watched(cursor, hi):
        batch = next_batch(cursor, hi)
        if cursor.path.name == "events.parquet" and cursor.batches is not None:
            started.add(cursor.group)
        return batch

    monkeypatch.setattr(parquet_ranges._Cursor, "_next_batch", watched)
    outcomes = []
    for r in ranges:  # in order: each range resumes the scan of the one before it that was read
        items = list(read_range_tables(bomb, layout, *r))
        outcomes.append(any(isinstance(i, Quarantined) and i.code == "limit" for i in items))
    assert any(outcomes) and not all(outcomes)
    assert sorted(g for groups in seen for g in groups) == sorted({g for groups in seen for g in groups})  # once each
    events = pq.ParquetFile(bomb / "events.parquet").num_row_groups
    assert 4 not in started and started == set(range(events)) - {4}  # every other row group read, the bomb never
