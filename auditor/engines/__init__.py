"""Running one audit over many workers: partitions, the local and Dask engines, the run-wide ledger.

`auditor.pipeline.audit` plans the run (`partition.plan`), hands the partitions to an engine
(`local.run` in this process or a process pool, `dask_cluster.run` on a dask.distributed cluster),
gathers each partition's findings, coverage and quarantines in partition order, and resolves what
only the whole run can know, duplicate hand ids, in a final pass (`ledger`).

Why the results do not depend on the number of workers, the engine or the order of the inputs:

- the inputs are sorted (by path) before anything else, and the partition plan is a function of
  the sorted inputs and the batch size only, never of the number of workers;
- a partition is a run of whole inputs (or of hand rows of one Parquet dataset) that never splits a
  table: cross-hand state (previous button and big blind, blinds owed) stays inside one partition,
  which replays in order with its own state, exactly as a single process would;
- partition results are merged in partition order, whatever order they finish in;
- hand ids are judged run-wide after gathering: the first hand in (file, line) order keeps its id,
  every later one is the duplicate.
"""
