"""Hands per second and peak memory of `auditor audit` on simulated hands from Parquet. Run by hand:

    python benchmarks/scale.py [--hands 100000 1000000] [--jobs 1 2] [--data /tmp/auditor-bench]
    python benchmarks/scale.py --hands 10000000 --jobs 1 --copies-of 1000000

For each size, makes once (cached under --data) a Parquet dataset of simulated hands of the four
games under their packs: `simulate_mixed` to JSON Lines (what `auditor simulate` writes), then the
tables `auditor convert` writes, converted 20,000 hands at a time (convert holds a whole input in
memory, which a million hands do not fit). With `--copies-of M`, a dataset
larger than M hands is instead made of copies of the M-hand one, each copy's hand ids and table ids
prefixed with its number so that no id repeats and every copy is its own tables (simulating ten
million hands takes an hour here; copying takes a minute, and memory does not care where hands came
from). Then, for each --jobs, runs

    python -m auditor audit DATASET --jobs J --format jsonl --output /dev/null --quiet

as a child process, sampling every 0.2 s the resident memory of it and its worker processes, and
prints wall time, hands/s, the CPU time of the audit and its workers and hands per minute per
core from it (what one fully used core does: on a shared machine wall time also counts waiting for
a core), that CPU time by process (the driver, each worker: where `--jobs N` loses against N times
`--jobs 1`), peak memory of the whole process tree and of the largest process, and the tree's memory at
each quarter of the run (flat memory: the later quarters are no higher than the first), and the
machine's load before and after (CPU time still rises on a busy machine). Audits of legal simulated play
have no findings. The audit runs from the checkout this file is in, whichever `auditor` is installed.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

#: the checkout this file is in: it is what is measured (the audit runs from here), not an installed copy
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from auditor.check.packs import resolve_pack  # noqa: E402
from auditor.ingest.jsonl import read_jsonl  # noqa: E402
from auditor.ingest.parquet import TABLE_FILES  # noqa: E402
from auditor.ingest.tables import build_tables  # noqa: E402
from auditor.model.records import SourceHand  # noqa: E402
from auditor.model.tables import EVENTS_SCHEMA, HANDS_SCHEMA, SEATS_SCHEMA  # noqa: E402
from auditor.simulate import simulate_mixed, write_jsonl  # noqa: E402

MIX = [
    ("nz-casino-1999", [("omaha-nz", "fixed-limit"), ("omaha-nz", "pot-limit"), ("three-card-nz", "fixed-limit")]),
    ("online-five-card-draw", [("five-card-draw", "fixed-limit")]),
    ("tda-2024", [("holdem", "no-limit"), ("holdem", "fixed-limit")]),
]
SCHEMAS = {"hands": HANDS_SCHEMA, "seats": SEATS_SCHEMA, "events": EVENTS_SCHEMA}
CHUNK = 20_000


def make_dataset(hands: int, root: Path, seed: int = 1) -> Path:
    """A Parquet dataset of `hands` simulated hands (made once; the JSON Lines beside it is kept)."""
    folder = root / f"sim-{hands}"
    dataset = folder / "dataset"
    if all((dataset / f"{name}.parquet").is_file() for name in TABLE_FILES):
        return dataset
    folder.mkdir(parents=True, exist_ok=True)
    jsonl = folder / "hands.jsonl"
    t0 = time.perf_counter()
    per_pack = hands // len(MIX)

    def simulated():
        for i, (pack_name, games) in enumerate(MIX):
            pack = resolve_pack(pack_name)
            count = per_pack if i < len(MIX) - 1 else hands - per_pack * (len(MIX) - 1)
            yield from simulate_mixed(games, count, seed + i, house=pack.house, rule_pack=pack.name,
                                      table_prefix=f"B{i}")
    n = write_jsonl(simulated(), jsonl)
    print(f"simulated {n:,} hands in {time.perf_counter() - t0:.0f} s -> {jsonl}", flush=True)
    t0 = time.perf_counter()
    dataset.mkdir(exist_ok=True)
    writers = {name: pq.ParquetWriter(dataset / f"{name}.parquet", SCHEMAS[name], compression="zstd")
               for name in TABLE_FILES}
    offset = 0
    batch: list[SourceHand] = []

    def flush() -> None:
        nonlocal offset
        tables = build_tables(batch)
        shift = pa.scalar(offset, pa.int32())
        for name in TABLE_FILES:
            table = getattr(tables, name)
            writers[name].write_table(table.set_column(0, "hand", pc.add(table["hand"], shift)))
        offset += len(batch)
        batch.clear()

    for item in read_jsonl(jsonl):
        if isinstance(item, SourceHand):
            batch.append(item)
            if len(batch) >= CHUNK:
                flush()
    if batch:
        flush()
    for writer in writers.values():
        writer.close()
    print(f"converted {offset:,} hands to Parquet in {time.perf_counter() - t0:.0f} s -> {dataset}", flush=True)
    return dataset


def copied_dataset(hands: int, source: Path, root: Path) -> Path:
    """A dataset of `hands` hands made of copies of `source` (see the module docstring)."""
    per_copy = pq.ParquetFile(source / "hands.parquet").metadata.num_rows
    copies = -(-hands // per_copy)
    dataset = root / f"copies-{copies}x{per_copy}" / "dataset"
    if all((dataset / f"{name}.parquet").is_file() for name in TABLE_FILES):
        return dataset
    dataset.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    for name in TABLE_FILES:
        source_file = pq.ParquetFile(source / f"{name}.parquet")
        with pq.ParquetWriter(dataset / f"{name}.parquet", SCHEMAS[name], compression="zstd") as writer:
            for k in range(copies):
                prefix = pa.scalar(f"c{k}:")
                shift = pa.scalar(k * per_copy, pa.int32())
                for i in range(source_file.num_row_groups):
                    table = source_file.read_row_group(i)
                    table = table.set_column(0, "hand", pc.add(table["hand"], shift))
                    for column in ("hand_id", "table_id"):
                        if column in table.column_names:
                            j = table.column_names.index(column)
                            table = table.set_column(j, column, pc.binary_join_element_wise(prefix, table[column], ""))
                    writer.write_table(table)
    print(f"copied {per_copy:,} hands {copies} times in {time.perf_counter() - t0:.0f} s -> {dataset}", flush=True)
    return dataset


def tree_rss(process: psutil.Process, cpu: dict[int, float] | None = None) -> tuple[int, int]:
    """(resident bytes of the process and all its descendants, of the largest one); `cpu`, if given, gets
    each process's CPU seconds so far by pid (the last sample of a process is its CPU time, give or take
    the 0.2 s between samples)."""
    total = largest = 0
    for p in [process, *process.children(recursive=True)]:
        try:
            rss = p.memory_info().rss
            if cpu is not None:
                times = p.cpu_times()
                cpu[p.pid] = times.user + times.system
        except psutil.Error:
            continue
        total += rss
        largest = max(largest, rss)
    return total, largest


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_audit(dataset: Path, jobs: int) -> dict:
    command = [sys.executable, "-m", "auditor", "audit", str(dataset.resolve()), "--jobs", str(jobs), "--format",
               "jsonl", "--output", os.devnull, "--quiet", "--fail-on", "never"]
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    cpu0 = _children_cpu()
    child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    process = psutil.Process(child.pid)
    samples: list[tuple[float, int]] = []
    peak_largest = 0
    by_process: dict[int, float] = {}
    while child.poll() is None:
        total, largest = tree_rss(process, by_process)
        samples.append((time.perf_counter() - t0, total))
        peak_largest = max(peak_largest, largest)
        time.sleep(0.2)
    seconds = time.perf_counter() - t0
    cpu = _children_cpu() - cpu0  # the audit and its workers, once they have been waited for
    stderr = child.stderr.read() if child.stderr else ""
    if child.returncode not in (0, 1):
        raise SystemExit(f"audit failed ({child.returncode}):\n{stderr}")
    quarters = []
    for q in (0.25, 0.5, 0.75, 1.0):
        window = [rss for t, rss in samples if (q - 0.25) * seconds <= t < q * seconds + 0.2]
        quarters.append(max(window, default=0))
    driver = by_process.pop(child.pid, 0.0)
    return {"seconds": seconds, "cpu": cpu, "peak": max((s for _, s in samples), default=0), "largest": peak_largest,
            "quarters": quarters, "summary": stderr, "load": (load, os.getloadavg()[0]),
            "driver_cpu": driver, "worker_cpu": sorted(by_process.values(), reverse=True)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--data", type=Path, default=Path("/tmp/auditor-bench"))
    parser.add_argument("--copies-of", type=int, metavar="M",
                        help="make datasets larger than M hands from copies of an M-hand one")
    args = parser.parse_args()
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() else ""
    print(f"machine: {platform.machine()} {cpu}, {os.cpu_count()} CPU(s), "
          f"{psutil.virtual_memory().total / 2**30:.0f} GiB; Python {platform.python_version()}", flush=True)
    mb = 2**20
    rows = []
    for hands in args.hands:
        if args.copies_of and hands > args.copies_of:
            dataset = copied_dataset(hands, make_dataset(args.copies_of, args.data), args.data)
        else:
            dataset = make_dataset(hands, args.data)
        for jobs in args.jobs:
            r = run_audit(dataset, jobs)
            rate = hands / r["seconds"]
            rows.append((hands, jobs, r))
            print(f"{hands:>10,} hands  --jobs {jobs}: {r['seconds']:7.1f} s  {rate:8,.0f} hands/s  "
                  f"CPU {r['cpu']:7.1f} s = {hands / r['cpu'] * 60:9,.0f} hands/min per core  "
                  f"peak RSS {r['peak'] / mb:6,.0f} MB "
                  f"(largest process {r['largest'] / mb:,.0f} MB); by quarter: "
                  + " / ".join(f"{q / mb:,.0f}" for q in r["quarters"]), flush=True)
            last = [line for line in r["summary"].splitlines() if "hands read" in line or "findings" in line]
            print("    " + "; ".join(line.strip() for line in last[:2]), flush=True)
            # where the CPU went: the driver (planning, hashing, the ledger, reports) and each worker; the
            # parts do not add up exactly to the total (last samples, 0.2 s apart)
            workers = r["worker_cpu"]
            shown = f", {len(workers)} worker(s) " + " / ".join(f"{w:.1f}" for w in workers) + " s" if workers else ""
            print(f"    CPU by process (last sample): driver {r['driver_cpu']:.1f} s{shown}", flush=True)
            # CPU time is not wall time, but a busy machine still slows a core (shared caches, hyperthreads)
            print(f"    machine load (1-minute average) before / after: {r['load'][0]:.1f} / {r['load'][1]:.1f} "
                  f"on {os.cpu_count()} CPU(s)", flush=True)
            per_core = hands / r["cpu"] * 60
            print(f"    issue 16's target, >= 2,000,000 hands/min per core (CPU time): "
                  f"{'met' if per_core >= 2_000_000 else 'NOT met'} ({per_core / 2_000_000:.0%} of it)", flush=True)


if __name__ == "__main__":
    main()
