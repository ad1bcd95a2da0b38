"""The local engine: partitions audited in this process, or in a pool of worker processes.

One worker, one partition or a small run (`POOL_MIN_HANDS`) runs in this process. Otherwise a
`ProcessPoolExecutor` audits one partition per task in `jobs` worker processes, one task in flight per worker,
each worker going on to the partition after its last while nobody has taken it (`streams`: consecutive
Parquet ranges share row groups); their results come back in the order they finish, and the caller puts
them back in partition order. Workers report progress through a
queue given to them when they start.

Workers start warm. Where the platform has it (POSIX), they are forked from a `forkserver`
whose preload, `auditor.engines.preload`, has imported everything a partition runs and loaded every kernel
Numba has cached: a worker then starts in milliseconds (0.015 s of CPU) instead of a fresh interpreter's
~0.8 s of imports, and its first partition skips the kernel loading (measured figures in `preload`). The
server itself is one fresh interpreter (never a fork of this process, whose threads, Arrow's pools among
them, a fork could catch mid-task), started by `start` as soon as the inputs are known, so its ~1.1-1.4 s of
warm-up overlaps the driver's hashing and planning; the first task waits for what is left of it. Its
life (one per process, restarted when the environment changed, reaped at exit) is `auditor.engines.server`'s.
Elsewhere (Windows) workers are `spawn`ed, as before.

A worker that dies (the kernel's OOM killer, a crash in native code) breaks the whole pool, and every
partition not yet finished fails with it, most of them innocent. Those partitions are run again one
at a time in a pool of one process, so each death is pinned on the partition that caused it; a
partition whose worker dies again comes back as `lost-worker` quarantine entries
(`partition.lost_partition`), never as silence and never as a crash of the whole run.

When the run is done the pool is let go without waiting for the
workers to exit (their teardown overlaps the ledger and the reports).
"""

from __future__ import annotations

import multiprocessing
import queue as queue_module
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
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
from auditor.engines.server import worker_context
from auditor.engines.streams import Streams

#: below this many hands (estimated) a run stays in this process whatever `jobs` says: starting the
#: workers costs about two seconds (the fork server's fresh interpreter importing pandas, Arrow, Numba and
#: the packs and loading the kernels; a spawn worker's, each), more than a second core saves on a small run;
#: the results are the same either way
POOL_MIN_HANDS = 10_000

_progress_queue: multiprocessing.Queue | None = None


def _start_worker(progress: multiprocessing.Queue) -> None:
    global _progress_queue
    _progress_queue = progress


def _notify_queue(kind: str, partition: int, value: int) -> None:
    if _progress_queue is not None:
        _progress_queue.put((kind, partition, value))


def _work(partition: Partition, options: RunOptions) -> PartitionResult | PartitionFailure:
    return run_partition(partition, options, _notify_queue)


def _ready() -> None:
    """A spawn worker's first task: nothing to do but exist (unpickling it imported this module, and with it
    the auditor, NumPy, pandas, Arrow and Numba), so every worker is started while the run is still planned."""


class Workers:
    """A pool of `jobs` workers, started at once (`start`) and used by `run`."""

    def __init__(self, jobs: int, readers: Sequence[str] = ()) -> None:
        self.context = worker_context(readers)
        self.progress = self.context.Queue()
        self.jobs = jobs
        self.pool = ProcessPoolExecutor(max_workers=jobs, mp_context=self.context, initializer=_start_worker,
                                        initargs=(self.progress,))
        if self.context.get_start_method() == "spawn":
            # each submit to an idle pool starts one more process, and a spawn worker needs its two seconds
            # now; a forked one is ready in milliseconds, started by the run's first tasks (a submit now
            # would wait here for the server's warm-up instead of letting it overlap the planning)
            for _ in range(jobs):
                self.pool.submit(_ready)

    def close(self) -> None:
        """Let the workers go without waiting for them to exit (an interpreter's teardown takes a second or
        two; the driver's ledger and reports need not wait for it). Python joins them at its own exit."""
        self.pool.shutdown(wait=False, cancel_futures=True)


def start(jobs: int, estimated_hands: int, readers: Sequence[str] = ()) -> Workers | None:
    """The workers a run of about `estimated_hands` hands with `jobs` jobs will use, started now; None when
    it runs in this process (one job, or a run too small to pay for starting workers). `readers`: the reader
    modules the inputs need, whose cached kernels the workers then start with (`server.worker_context`)."""
    if jobs <= 1 or estimated_hands < POOL_MIN_HANDS:
        return None
    return Workers(jobs, readers)


def run(partitions: Sequence[Partition], options: RunOptions, jobs: int,
        notify: Notify | None = None, workers: Workers | None = None) -> Iterator[PartitionResult | PartitionFailure]:
    """Each partition's result as it finishes (a PackError in a partition comes back as a failure).

    `workers`: a pool already started (`start`); it is closed when the run ends, used or not."""
    try:
        yield from _run(partitions, options, jobs, notify, workers)
    finally:
        if workers is not None:
            workers.close()


def _run(partitions: Sequence[Partition], options: RunOptions, jobs: int, notify: Notify | None,
         workers: Workers | None) -> Iterator[PartitionResult | PartitionFailure]:
    if jobs <= 1 or len(partitions) <= 1 or sum(p.estimated_hands for p in partitions) < POOL_MIN_HANDS:
        for partition in partitions:
            result = run_partition(partition, options, notify)
            yield result
            if isinstance(result, PartitionFailure):
                return
        return
    if workers is None:
        workers = Workers(min(jobs, len(partitions)))
        try:
            yield from _run(partitions, options, jobs, notify, workers)
        finally:
            workers.close()
        return
    context, progress, pool = workers.context, workers.progress, workers.pool
    broken: list[Partition] = []
    # one partition in flight per worker, so the worker that finished one is the only one idle and takes
    # the next its stream gives (`streams`: each worker reads a stretch of the inputs in order)
    order = Streams([p.estimated_hands for p in partitions])
    pending: dict[Future, int] = {}

    def submit(finished: int | None) -> None:
        position = order.next(finished)
        if position is None:
            return
        try:
            pending[pool.submit(_work, partitions[position], options)] = position
        except BrokenProcessPool:  # a worker died before its future said so
            broken.append(partitions[position])

    try:
        for _ in range(min(workers.jobs, len(partitions))):
            submit(None)
        while pending:
            done, _ = wait(pending, timeout=0.25, return_when=FIRST_COMPLETED)
            _drain(progress, notify)
            for future in sorted(done, key=lambda f: pending[f]):
                position = pending.pop(future)
                try:
                    result = future.result()
                except BrokenProcessPool:
                    broken.append(partitions[position])
                    continue
                if not broken:
                    submit(position)
                yield result
                if isinstance(result, PartitionFailure):
                    return
        if broken:  # a broken pool takes no more work: what it never got is run one by one too
            broken.extend(partitions[i] for i, taken in enumerate(order.taken) if not taken)
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
