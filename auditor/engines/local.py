"""The local engine: partitions audited in this process, or in a pool of worker processes.

One worker, one partition or a small run (`POOL_MIN_HANDS`) runs in this process. Otherwise a
`ProcessPoolExecutor` audits one partition per task in `jobs` worker processes; their results come back in
the order they finish, and the caller puts them back in partition order. Workers report progress through a
queue given to them when they start.

Workers start warm (session 9). Where the platform has it (POSIX), they are forked from a `forkserver`
whose preload, `auditor.engines.preload`, has imported everything a partition runs and loaded every kernel
Numba has cached: a worker then costs a fork (milliseconds) instead of a fresh interpreter's ~0.8 s of
imports and ~0.9 s of kernel loading on its first partition (measured per process; each worker paid both,
and `--jobs 1` pays them once). The server itself is one fresh interpreter (never a fork of this process,
whose threads, Arrow's pools among them, a fork could catch mid-task), started by `start` as soon as the
inputs are known, so its ~1.6 s of warm-up overlaps the driver's hashing and planning; the first task
waits for what is left of it. One server serves every pool of the process (a test session's audits, the
pools of `_one_by_one`); it is started again when the environment changed since it started (a worker must
see the environment a spawned one would), and stopped and reaped when this process exits, so the CPU it and
its workers used is counted in this process's children's (`resource.RUSAGE_CHILDREN`, what the benchmark
reads). Elsewhere (Windows, macOS without forkserver) workers are `spawn`ed, as before.

A worker that dies (the kernel's OOM killer, a crash in native code) breaks the whole pool, and every
partition not yet finished fails with it, most of them innocent. Those partitions are run again one
at a time in a pool of one process, so each death is pinned on the partition that caused it; a
partition whose worker dies again comes back as `lost-worker` quarantine entries
(`partition.lost_partition`), never as silence and never as a crash of the whole run.

When the run is done the pool is let go without waiting for the
workers to exit (their teardown overlaps the ledger and the reports).
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import os
import queue as queue_module
import signal
import threading
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

#: below this many hands (estimated) a run stays in this process whatever `jobs` says: starting the
#: workers costs about two seconds (the fork server's fresh interpreter importing pandas, Arrow, Numba and
#: the packs and loading the kernels; a spawn worker's, each), more than a second core saves on a small run;
#: the results are the same either way
POOL_MIN_HANDS = 10_000
#: the fork server's preload (see `auditor.engines.preload`)
PRELOAD = "auditor.engines.preload"

_server_lock = threading.Lock()
#: the environment the running fork server was started with (None: not started by this module)
_server_env: dict[str, str] | None = None
_stop_registered = threading.Event()

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


def worker_context() -> BaseContext:
    """The context workers start from: a fork server preloaded with `PRELOAD` where the platform has one
    (started now if it is not running, without waiting for its warm-up), else spawn."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    _ensure_server(context)
    return context


def _ensure_server(context: BaseContext) -> None:
    """Start the fork server if it is not running, or again if the environment changed since it started (a
    worker forked from it has the server's environment, not this process's). Returns at once: the server
    warms up on its own, and the first worker started waits for it (`Process.start` reads the child's pid)."""
    global _server_env
    from multiprocessing import forkserver

    with _server_lock:
        env = dict(os.environ)
        if _server_env is not None and env != _server_env:
            _stop_server()
        if _server_env is None:
            context.set_forkserver_preload([PRELOAD])
        if not _stop_registered.is_set():
            _stop_registered.set()
            atexit.register(_stop_server)
        forkserver.ensure_running()  # a no-op while it runs; starts it again if it died
        _server_env = env


def _stop_server() -> None:
    """Stop the fork server and reap it, so its CPU time and its reaped workers' is counted in this process's
    children's. Terminated (it keeps no state worth a clean exit: its interpreter's teardown would only add
    wall time here); at exit the pools' workers have been joined already (concurrent.futures joins them first),
    so the server has reaped them. Never raises: it is the fork server's private state, which may change."""
    global _server_env
    _server_env = None
    with contextlib.suppress(Exception):
        from multiprocessing import forkserver, util

        server = forkserver._forkserver
        pid = server._forkserver_pid
        if pid is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        with contextlib.suppress(OSError):
            os.close(server._forkserver_alive_fd)
        address = server._forkserver_address
        server._forkserver_pid = server._forkserver_alive_fd = server._forkserver_address = None
        if address and not util.is_abstract_socket_namespace(address):
            with contextlib.suppress(OSError):
                os.unlink(address)


class Workers:
    """A pool of `jobs` workers, started at once (`start`) and used by `run`."""

    def __init__(self, jobs: int) -> None:
        self.context = worker_context()
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


def start(jobs: int, estimated_hands: int) -> Workers | None:
    """The workers a run of about `estimated_hands` hands with `jobs` jobs will use, started now; None when
    it runs in this process (one job, or a run too small to pay for starting workers)."""
    if jobs <= 1 or estimated_hands < POOL_MIN_HANDS:
        return None
    return Workers(jobs)


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
