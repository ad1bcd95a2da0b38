"""The Dask engine: partitions audited on a dask.distributed cluster (`--engine dask`).

Each partition is one task (`partition.run_partition`); its result — findings and coverage as pandas,
quarantines, counts, the run-wide rows — is gathered back to this process as soon as it finishes and
merged in partition order, exactly as the local engine's are, so the findings are the same.

`scheduler` is the address of a running scheduler (`tcp://host:8786`), or a `distributed.Client`
already connected (library use, tests); with neither, a `LocalCluster` of `jobs` single-threaded
worker processes is started for the run and closed after it. Workers must be able to import
`auditor` (the same version) and read the input paths and any rule-pack file under the same names
as this process: on a cluster, a shared filesystem.

A partition whose workers keep dying (Dask retries a task on another worker, then gives up with
`KilledWorker`) comes back as `lost-worker` quarantine entries (`partition.lost_partition`): on
record, never silence, and the rest of the run is still audited.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from auditor.engines.partition import (
    Partition,
    PartitionFailure,
    PartitionResult,
    RunOptions,
    lost_partition,
    run_partition,
)


class EngineUnavailable(RuntimeError):
    """dask[distributed] is not installed, or the scheduler cannot be reached."""


def run(partitions: Sequence[Partition], options: RunOptions, jobs: int,
        scheduler: Any = None) -> Iterator[PartitionResult | PartitionFailure]:
    """Each partition's result as it finishes on the cluster."""
    try:
        from distributed import Client, LocalCluster, as_completed
        from distributed.scheduler import KilledWorker
    except ImportError as exc:
        raise EngineUnavailable("the dask engine needs dask[distributed]: pip install 'poker-auditor[dask]'") from exc
    cluster = None
    if isinstance(scheduler, Client):
        client = scheduler
    else:
        try:
            if scheduler:
                client = Client(scheduler, timeout="30s")
            else:
                cluster = LocalCluster(n_workers=max(1, jobs), threads_per_worker=1, processes=True,
                                       dashboard_address=None)
                client = Client(cluster)
        except (OSError, TimeoutError) as exc:
            raise EngineUnavailable(f"cannot reach the Dask scheduler {scheduler or '(local)'}: {exc}") from exc
    try:
        if not partitions:
            return
        futures = client.map(run_partition, list(partitions), options=options, pure=False)
        of_future = {future.key: partition for future, partition in zip(futures, partitions, strict=True)}
        try:
            for future, result in as_completed(futures, with_results=True, raise_errors=False):
                if isinstance(result, KilledWorker):
                    result = lost_partition(of_future[future.key], str(result))
                elif isinstance(result, BaseException):
                    raise result
                yield result
                if isinstance(result, PartitionFailure):
                    return
        finally:
            client.cancel(futures)
    finally:
        if client is not scheduler:
            client.close()
        if cluster is not None:
            cluster.close()
