"""The replay kernel's reused output tables (`auditor.replay.kernel.buffers`).

A batch's facts are views of the tables the kernel wrote; the next batch may write into the same memory only
when nothing can read the last. These tests hold the pool to that: a view alive means new memory, and facts
kept from one replay are still exactly themselves after later replays of other hands in the same process.
"""

from __future__ import annotations

import importlib.util
import weakref
from pathlib import Path

import numpy as np

from auditor.replay import kernel
from auditor.replay.facts import FACT_COLUMNS
from auditor.replay.kernel import buffers
from auditor.replay.state import TableState

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("compare_batches", ROOT / "scripts/compare_batches.py")
compare_batches = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(compare_batches)


def test_a_table_nothing_reads_is_handed_out_again():
    pool = buffers.Reused()
    first = pool.table("t", 3, 10)
    address = first.__array_interface__["data"][0]
    del first
    again = pool.table("t", 3, 8)  # smaller fits the same buffer
    assert again.__array_interface__["data"][0] == address
    assert again.shape == (3, 8) and again.flags.c_contiguous and again.dtype == np.int64


def test_a_table_still_read_is_never_handed_out_again():
    pool = buffers.Reused()
    first = pool.table("t", 3, 10)
    first[:] = 7
    column = first[1, :4]  # as the facts keep a kernel column: a view of a view
    del first
    second = pool.table("t", 3, 10)
    second[:] = -1
    assert (column == 7).all()
    assert not np.shares_memory(column, second)
    del column
    third = pool.table("t", 3, 10)  # second is still alive: new memory again
    assert not np.shares_memory(second, third)


def test_a_larger_table_grows_the_buffer():
    pool = buffers.Reused()
    small = pool.table("t", 2, 5)
    address = small.__array_interface__["data"][0]
    del small
    large = pool.table("t", 2, 50)
    assert large.shape == (2, 50)
    assert large.__array_interface__["data"][0] != address
    del large
    assert pool.table("t", 2, 55).size == 110  # within the quarter grown: the same buffer serves


def test_no_reuse_where_counts_do_not_show_views(monkeypatch):
    """The count of "nothing reads it" is measured, not assumed: a Python whose reference counts did not move
    with a view (here, a count that never moves) turns reuse off, and every table is new memory."""
    monkeypatch.setattr(buffers.Reused, "_references", lambda self, name: 2)
    pool = buffers.Reused()
    assert not pool.reuses
    pool.table("t", 2, 4)  # read by nothing once this returns
    before = weakref.ref(pool._buffers["t"])
    pool.table("t", 2, 4)
    assert before() is None  # replaced by a new buffer (the old one, read by nothing, is gone)
    monkeypatch.undo()
    live = buffers.Reused()
    assert live.reuses
    live.table("t", 2, 4)
    before = weakref.ref(live._buffers["t"])
    live.table("t", 2, 4)
    assert before() is live._buffers["t"]  # with counts that show views: the same buffer again


def _pooled() -> int:
    """The identity of the pool's actions buffer (no reference kept: one would make it read)."""
    return id(buffers.TABLES._buffers["actions"])


def test_facts_kept_from_a_replay_survive_later_replays():
    """Replay a batch and keep its facts; replay other hands: they get new memory, and the kept facts are
    unchanged (equal to a deep copy taken before). Once those later facts are dropped, the next replay writes
    into their memory, and a replay of the first batch again in reused memory gives the same facts."""
    from auditor.ingest.tables import build_tables

    (hands_a, houses_a, _), (hands_b, houses_b, _), *_ = compare_batches.simulated(240, 3)
    tables_a, tables_b = build_tables(hands_a), build_tables(hands_b)
    kept, failures = kernel.replay(tables_a, houses_a, TableState())
    assert failures == []
    copies = {name: kept[name].copy(deep=True) for name in FACT_COLUMNS}
    first = _pooled()
    other, _ = kernel.replay(tables_b, houses_b, TableState())
    second = _pooled()
    assert second != first  # the kept facts read the first buffer
    copies_b = {name: other[name].copy(deep=True) for name in FACT_COLUMNS}
    del other
    other, _ = kernel.replay(tables_b, houses_b, TableState())
    assert _pooled() == second  # nothing read the second one any more: reused
    for name in FACT_COLUMNS:
        assert compare_batches.diff_frames(name, copies_b[name], other[name]) == [], name
        assert compare_batches.diff_frames(name, copies[name], kept[name]) == [], name
    del kept, other
    again, _ = kernel.replay(tables_a, houses_a, TableState())  # reused, or grown when the batch is larger
    for name in FACT_COLUMNS:
        assert compare_batches.diff_frames(name, copies[name], again[name]) == [], name


def test_replays_in_two_threads_at_once_each_get_their_own_memory():
    """Two threads replaying at once (a dask worker's threads): whichever takes the kept buffer holds a view of
    it until its facts are dropped, so the other gets new memory; every replay gives the facts it gives alone."""
    import threading

    from auditor.ingest.tables import build_tables

    batches = [(build_tables(hands), houses) for hands, houses, _ in compare_batches.simulated(240, 5)][:2]
    alone = [kernel.replay(tables, houses, TableState())[0] for tables, houses in batches]
    expected = [{name: facts[name].copy(deep=True) for name in FACT_COLUMNS} for facts in alone]
    del alone
    problems: list[str] = []

    def work(k: int) -> None:
        tables, houses = batches[k]
        try:
            for _ in range(4):
                facts, _ = kernel.replay(tables, houses, TableState())
                for name in FACT_COLUMNS:
                    problems.extend(compare_batches.diff_frames(name, expected[k][name], facts[name]))
        except Exception as exc:  # a thread's failure fails the test, not only a warning
            problems.append(f"thread {k}: {exc!r}")

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert problems == []
