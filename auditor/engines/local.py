"""The local engine: partitions audited in this process, or in a pool of worker processes.

One worker, one partition or a small run (`POOL_MIN_HANDS`) runs in this process. Otherwise a
`ProcessPoolExecutor` with `spawn` workers (a fresh interpreter each: forking a process that already
runs Arrow's thread pools can deadlock the child) audits one partition per task. Workers report
progress through a queue given to them when they start; their results come back in the order they
finish, and the caller puts them back in partition order.

A worker that dies (the kernel's OOM killer, a crash in native code) breaks the whole pool, and every
partition not yet finished fails with it, most of them innocent. Those partitions are run again one
at a time in a pool of one process, so each death is pinned on the partition that caused it; a
partition whose worker dies again comes back as `lost-worker` quarantine entries
(`partition.lost_partition`), never as silence and never as a crash of the whole run.
"""

from __future__ import annotations

import gc
import multiprocessing
import queue as queue_module
from collections.abc import Generator, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from multiprocessing.context import BaseContext

from auditor.engines.partition import (
    Notify,
    Partition,
    PartitionFailure,
    PartitionResult,
    RunOptions,
    lost_partition,
    run_partition,
)

#: below this many hands (estimated) a run stays in this process whatever `jobs` says: starting a
#: worker costs about two seconds (a fresh interpreter importing pandas, Arrow and the packs), more
#: than a second core saves on a small run; the results are the same either way
POOL_MIN_HANDS = 10_000

_progress_queue: multiprocessing.Queue | None = None


def _start_worker(progress: multiprocessing.Queue) -> None:
    global _progress_queue
    _progress_queue = progress


def _notify_queue(kind: str, partition: int, value: int) -> None:
    if _progress_queue is not None:
        _progress_queue.put((kind, partition, value))


@contextmanager
def _heap_frozen() -> Generator[None, None, None]:
    """What is alive before the partitions run (modules, Numba's dispatchers, pandas, the packs: about
    160,000 objects) moved out of the garbage collector's sight while they run (`gc.freeze`).

    A partition collects after each batch (`partition.collect_between_batches`), and each full collection
    walked all of those long-lived objects again although none of them can become garbage during the run:
    on the PHH corpus (5,062 hands) about a sixth of `audit()`'s time (5.25-6.49 s against 4.46-5.74 s,
    measured on a loaded machine).
    Frozen, a collection looks only at what the run itself made. Unfrozen afterwards, unless the caller
    had frozen objects already (their freeze is theirs to undo).
    """
    already = gc.get_freeze_count() > 0
    gc.freeze()
    try:
        yield
    finally:
        if not already:
            gc.unfreeze()


def _work(partition: Partition, options: RunOptions) -> PartitionResult | PartitionFailure:
    with _heap_frozen():
        return run_partition(partition, options, _notify_queue)


def run(partitions: Sequence[Partition], options: RunOptions, jobs: int,
        notify: Notify | None = None) -> Iterator[PartitionResult | PartitionFailure]:
    """Each partition's result as it finishes (a PackError in a partition comes back as a failure)."""
    if jobs <= 1 or len(partitions) <= 1 or sum(p.estimated_hands for p in partitions) < POOL_MIN_HANDS:
        for partition in partitions:
            with _heap_frozen():  # not across the yield: the caller's objects are the caller's
                result = run_partition(partition, options, notify)
            yield result
            if isinstance(result, PartitionFailure):
                return
        return
    context = multiprocessing.get_context("spawn")
    progress = context.Queue()
    workers = min(jobs, len(partitions))
    broken: list[Partition] = []
    with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_start_worker,
                             initargs=(progress,)) as pool:
        pending: dict[Future, Partition] = {pool.submit(_work, p, options): p for p in partitions}
        try:
            while pending:
                done, _ = wait(pending, timeout=0.25, return_when=FIRST_COMPLETED)
                _drain(progress, notify)
                for future in sorted(done, key=lambda f: pending[f].index):
                    partition = pending.pop(future)
                    try:
                        result = future.result()
                    except BrokenProcessPool:
                        broken.append(partition)
                        continue
                    yield result
                    if isinstance(result, PartitionFailure):
                        return
        finally:
            for future in pending:
                future.cancel()
            _drain(progress, notify)
    if broken:
        yield from _one_by_one(sorted(broken, key=lambda p: p.index), options, context, progress, notify)


def _one_by_one(partitions: Sequence[Partition], options: RunOptions, context: BaseContext,
                progress: multiprocessing.Queue, notify: Notify | None) -> Iterator[PartitionResult | PartitionFailure]:
    """Partitions of a broken pool again, one at a time in a pool of one process (a new pool after each
    death), so a worker that dies now died of its own partition: that one is lost, the others audited."""
    pool: ProcessPoolExecutor | None = None
    try:
        for partition in partitions:
            if pool is None:
                pool = ProcessPoolExecutor(max_workers=1, mp_context=context, initializer=_start_worker,
                                           initargs=(progress,))
            future = pool.submit(_work, partition, options)
            while not future.done():
                wait([future], timeout=0.25)
                _drain(progress, notify)
            try:
                result = future.result()
            except BrokenProcessPool as exc:
                pool.shutdown(wait=True)
                pool = None
                result = lost_partition(partition, str(exc) or "the process ended abruptly")
            _drain(progress, notify)
            yield result
            if isinstance(result, PartitionFailure):
                return
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def _drain(progress: multiprocessing.Queue, notify: Notify | None) -> None:
    while True:
        try:
            kind, partition, value = progress.get_nowait()
        except queue_module.Empty:
            return
        if notify is not None:
            notify(kind, partition, value)
