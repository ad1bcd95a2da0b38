"""Parquet straight to tables: the readers' TableChunks against the dict path they replace.

`read_parquet_tables` / `read_range_tables` give the valid hands of a dataset as canonical tables taken
from the dataset's own rows; the reference is `build_tables` of the hands `read_parquet` rebuilds one dict
at a time. Held equal here on grammar hands with hostile cells (so that refused hands, per-kind columns,
spreads and seat draws cut to their pairs, defaults and renumbering all occur), and an audit through the
chunks is held equal to one through the dicts in everything it reports.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from auditor.engines import parquet_ranges
from auditor.engines.parquet_ranges import HandBatch, plan_ranges, read_range, read_range_tables
from auditor.ingest import columnar_validate, parquet
from auditor.ingest.tables import build_tables, concat_tables
from auditor.model.records import Quarantined, SourceHand

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "scripts"))
import fuzz  # noqa: E402
from test_columnar_validate import _batch, _value  # noqa: E402


def _write(directory: Path, tables: list[pa.Table], row_group_size: int | None = None) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for table, name in zip(tables, parquet.TABLE_FILES, strict=True):
        pq.write_table(table, directory / f"{name}.parquet", row_group_size=row_group_size)
    return directory


def _hostile_dataset(directory: Path, hands: int, cells: int, seed: int = 5) -> Path:
    """Grammar hands in hand order (streamable, cut between its tables of 50 hands), with `cells` cells set to
    hostile values."""
    rng = random.Random(seed)
    drawn = [fuzz.grammar_hand(rng, j, f"T{j // 50}") for j in range(hands)]  # tables one after another
    built = build_tables([SourceHand(h, "g.jsonl", i) for i, h in enumerate(drawn, start=1)])
    tables = [built.hands, built.seats, built.events]
    for _ in range(cells):
        k = rng.randrange(3)
        name = rng.choice([c for c in tables[k].column_names if c not in ("hand", "seq")])
        i = tables[k].schema.get_field_index(name)
        values = tables[k].column(i).to_pylist()
        values[rng.randrange(len(values))] = _value(rng, tables[k].schema.field(i).type)
        tables[k] = tables[k].set_column(i, name, pa.array(values, tables[k].schema.field(i).type))
    return _write(directory, tables, row_group_size=97)


def _split(items: list) -> tuple[list[parquet.TableChunk], list[Quarantined]]:
    chunks = [i for i in items if isinstance(i, parquet.TableChunk)]
    entries = [q for i in items for q in (i.quarantined if isinstance(i, parquet.TableChunk) else [i])]
    return chunks, entries


def _assert_same(chunks: list[parquet.TableChunk], reference: list) -> None:
    good = [i for i in reference if isinstance(i, SourceHand)]
    want = build_tables(good)
    got = concat_tables([c.tables for c in chunks]) if chunks else build_tables([])
    for name in parquet.TABLE_FILES:
        assert getattr(got, name).equals(getattr(want, name)), name
    assert [s for c in chunks for s in c.sources()] == good


@pytest.mark.parametrize("seed", range(60))
def test_tables_equal_build_tables_of_the_rebuilt_hands(seed: int, tmp_path: Path) -> None:
    directory = _write(tmp_path / "d", _batch(seed))
    reference = list(parquet.read_parquet(directory))
    chunks, entries = _split(list(parquet.read_parquet_tables(directory)))
    assert entries == [i for i in reference if isinstance(i, Quarantined)]
    _assert_same(chunks, reference)


def test_ranges_give_the_same_tables_and_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parquet_ranges, "CHUNK_HANDS", 50)  # many chunks, cut inside row groups
    directory = _hostile_dataset(tmp_path / "d", 400, 60)
    planned = plan_ranges(directory, 120)
    assert planned is not None
    layout, ranges = planned
    assert len(ranges) > 1
    reference = [i for a, b in ranges for i in read_range(directory, layout, a, b)]
    chunks, entries = _split([i for a, b in ranges for i in read_range_tables(directory, layout, a, b)])
    assert entries == [i for i in reference if isinstance(i, Quarantined)]
    assert entries and len(chunks) > 4
    _assert_same(chunks, reference)


def test_a_resumed_scan_gives_what_a_fresh_one_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ranges read in order resume the previous range's scan (`_cursor`); in any other order, or after the
    file changed, a fresh scan starts. Each range gives the same items whichever happened."""
    monkeypatch.setattr(parquet_ranges, "CHUNK_HANDS", 50)
    monkeypatch.setattr(parquet_ranges, "_suspended", {})
    directory = _hostile_dataset(tmp_path / "d", 400, 60)
    layout, ranges = plan_ranges(directory, 40)  # tables of 50 hands: a range each
    assert len(ranges) > 4

    def fresh(a: int, b: int) -> list:
        parquet_ranges._suspended.clear()
        return list(read_range_tables(directory, layout, a, b))

    want = {r: fresh(*r) for r in ranges}
    resumed = 0
    for order in (ranges, ranges[::-1], ranges[::2] + ranges[1::2]):
        parquet_ranges._suspended.clear()
        for r in order:
            before = parquet_ranges._suspended.get(str(directory / "events.parquet"))
            got = list(read_range_tables(directory, layout, *r))
            resumed += before is not None and parquet_ranges._suspended.get(str(directory / "events.parquet")) is before
            chunks, entries = _split(got)
            want_chunks, want_entries = _split(want[r])
            assert entries == want_entries
            assert [list(c.sources()) for c in chunks] == [list(c.sources()) for c in want_chunks]
            assert all(getattr(c.tables, t).equals(getattr(w.tables, t)) for c, w in zip(chunks, want_chunks,
                       strict=True) for t in parquet.TABLE_FILES)
    assert resumed >= len(ranges) - 1  # the in-order pass resumed each range after the first
    # the same path rewritten: its suspended scan is not resumed
    list(read_range_tables(directory, layout, *ranges[0]))
    suspended = parquet_ranges._suspended[str(directory / "events.parquet")]
    path = directory / "events.parquet"
    pq.write_table(pq.read_table(path), path, row_group_size=97)
    list(read_range_tables(directory, layout, *ranges[1]))
    assert parquet_ranges._suspended.get(str(path)) is not suspended


def test_split_without_and_batch_cut(tmp_path: Path) -> None:
    directory = _hostile_dataset(tmp_path / "d", 60, 0)
    (chunk,) = [i for i in parquet.read_parquet_tables(directory) if isinstance(i, parquet.TableChunk)]
    sources = list(chunk.sources())
    head, rest = chunk.split(25)
    assert head.num_hands == 25 and rest is not None and rest.num_hands == chunk.num_hands - 25
    assert list(head.sources()) + list(rest.sources()) == sources
    assert concat_tables([head.tables, rest.tables]).events.equals(chunk.tables.events)
    drop = np.arange(chunk.num_hands) % 3 == 0
    left = chunk.without(drop)
    assert left is not None and list(left.sources()) == [s for s, d in zip(sources, drop, strict=True) if not d]
    assert left.tables.hands["hand"].to_pylist() == list(range(left.num_hands))
    assert chunk.without(np.ones(chunk.num_hands, bool)) is None
    events = [len(s.hand["events"]) for s in sources]
    cut, total, full = chunk.batch_cut(10, 7, 20, 10**9)
    assert (cut, total, full) == (10, 7 + sum(events[:10]), True)
    cut, total, full = chunk.batch_cut(0, 0, 10**6, sum(events[:5]))
    assert (cut, full) == (5, True) and total == sum(events[:5])
    assert chunk.batch_cut(0, 0, 10**6, 10**9) == (chunk.num_hands, sum(events), False)



def test_batch_cut_of_dense_hands_is_the_cut_hand_by_hand(tmp_path: Path) -> None:
    # a chunk is cut where hands added one by one would be: the dense rule (a batch of hands averaging more
    # than `per_hand` events is full at `dense_events`) judged on the hands so far, the same way
    directory = _hostile_dataset(tmp_path / "d", 60, 0)
    (chunk,) = [i for i in parquet.read_parquet_tables(directory) if isinstance(i, parquet.TableChunk)]
    events = [len(s.hand["events"]) for s in chunk.sources()]
    for batched, before, dense_events, per_hand in [(0, 0, sum(events[:7]), 1), (4, 100, sum(events[:9]), 3),
                                                    (0, 0, sum(events[:7]), 10**6), (2, 0, 1, 0)]:
        hands, total, expected = batched, before, None
        for i, n in enumerate(events):
            hands, total = hands + 1, total + n
            if total >= dense_events and total > per_hand * hands:
                expected = (i + 1, total, True)
                break
        got = chunk.batch_cut(batched, before, 10**6, 10**9, (dense_events, per_hand))
        assert got == (expected or (chunk.num_hands, before + sum(events), False))


def test_a_batch_of_dense_hands_is_cut_sooner() -> None:
    from auditor.engines.partition import batch_is_full
    assert not batch_is_full(16_200, 502_000, 20_000)   # simulated hands, ~31 events each: up to 650,000
    assert batch_is_full(20_000, 620_000, 20_000)       # full by hands
    assert batch_is_full(16_000, 650_000, 20_000)       # full by events
    assert batch_is_full(255, 500_000, 20_000)          # ~1,960 events a hand: cut at 500,000
    assert not batch_is_full(255, 499_999, 20_000)


def test_hand_batch_mixes_hands_and_chunks(tmp_path: Path) -> None:
    directory = _hostile_dataset(tmp_path / "d", 30, 0)
    (chunk,) = [i for i in parquet.read_parquet_tables(directory) if isinstance(i, parquet.TableChunk)]
    alone = [i for i in parquet.read_parquet(directory) if isinstance(i, SourceHand)]
    batch = HandBatch()
    batch.append(alone[0])
    batch.append(chunk)
    batch.append(alone[1])
    assert len(batch) == 2 + chunk.num_hands
    assert batch[0] == alone[0] and batch[1] == alone[0] and batch[-1] == alone[1]
    assert batch.tables().events.equals(build_tables([alone[0], *alone, alone[1]]).events)
    assert batch.files() == [alone[0].file] * len(batch)
    assert batch.started_at() == [h.hand.get("started_at") for h in [alone[0], *alone, alone[1]]]


@pytest.mark.parametrize("batch_size", [20_000, 37])
def test_an_audit_through_tables_reports_what_one_through_dicts_does(tmp_path: Path, batch_size: int,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Findings, coverage, quarantine (order too), counts, views and hand periods: the same."""
    import auditor.engines.partition as partition
    from auditor.pipeline import audit

    directory = _hostile_dataset(tmp_path / "d", 700, 40)

    def seen(result) -> tuple:
        views = {k: (v.hand, v.file, v.line) for k, v in result.views.items()}
        starts = None if result.finding_hands is None else result.finding_hands.to_csv()
        entries = [(q.one_line(), q.code) for q in result.quarantined]
        return (result.findings.to_csv(), result.coverage.to_csv(), entries, result.hands_read, result.hands_audited,
                dict(result.read_per_file), dict(result.not_covered), dict(result.table_hands), starts, views,
                repr(result.hand_periods))

    through_tables = seen(audit([directory], batch_size=batch_size))
    monkeypatch.setattr(partition, "read_range_tables", read_range)  # the dict path, same partition code
    through_dicts = seen(audit([directory], batch_size=batch_size))
    assert through_tables == through_dicts
    assert through_tables[3] == 700 and len(through_tables[2]) > 10 and through_tables[0].count("\n") > 10


def test_the_validator_never_falls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The one-by-one judging behind the columnar validator is a safety net, not a path: mutated batches and
    a hostile dataset never make the validator itself fail."""
    monkeypatch.setattr(parquet, "VALIDATOR_FAILURES", [])
    read = 0
    for seed in range(100, 140):
        read += len(list(parquet.read_parquet_tables(_write(tmp_path / f"d{seed}", _batch(seed)))))
    read += len(list(parquet.read_parquet_tables(_hostile_dataset(tmp_path / "h", 200, 80))))
    assert read >= 41 and parquet.VALIDATOR_FAILURES == []


def test_a_validator_failure_falls_back_to_jsonschema(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    directory = _write(tmp_path / "d", _batch(3))
    reference = list(parquet.read_parquet(directory))

    def broken(*args):
        raise RuntimeError("a bug")

    monkeypatch.setattr(columnar_validate, "validate", broken)
    monkeypatch.setattr(parquet, "VALIDATOR_FAILURES", [])
    assert list(parquet.read_parquet(directory)) == reference
    chunks, entries = _split(list(parquet.read_parquet_tables(directory)))
    assert entries == [i for i in reference if isinstance(i, Quarantined)]
    _assert_same(chunks, reference)
    assert parquet.VALIDATOR_FAILURES == ["RuntimeError: a bug"] * 2
