"""Hands per minute per core and peak memory of `auditor audit` from Parquet, and of `auditor convert` into it.
Run by hand:

    python benchmarks/scale.py [--hands 100000 1000000] [--jobs 1 2] [--data /tmp/auditor-bench]
    python benchmarks/scale.py --hands 10000000 --jobs 1 --copies-of 1000000 [--convert]

For each size, makes once (cached under --data) a Parquet dataset of simulated hands of the four games under their
packs: `simulate_mixed` to JSON Lines (what `auditor simulate` writes), then `auditor convert` of that file into
the dataset, in a child process whose time and peak memory (the whole process tree, sampled every 0.2 s) are
printed against the target (under 1 GB at 1,000,000 hands, under 2 GB at 10,000,000); `--convert` measures that
convert at every size, even when the dataset is already made. With `--copies-of M`, a size
larger than M is made of copies of the M-hand one instead of simulated anew (simulating ten million hands takes an
hour here): the dataset audited is the M-hand dataset copied, each copy's hand ids and table ids prefixed with its
number so that no id repeats and every copy is its own tables (memory does not care where hands came from); the
convert measured is of the M-hand JSON Lines file named as many times as the size needs (hard links), so it reads
and writes every hand. Then, for each --jobs, runs

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
import shutil
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

from process import measure  # noqa: E402

from auditor.check.packs import resolve_pack  # noqa: E402
from auditor.ingest.parquet import TABLE_FILES  # noqa: E402
from auditor.model.tables import EVENTS_SCHEMA, HANDS_SCHEMA, SEATS_SCHEMA  # noqa: E402
from auditor.simulate import simulate_mixed, write_jsonl  # noqa: E402

MIX = [
    ("nz-casino-1999", [("omaha-nz", "fixed-limit"), ("omaha-nz", "pot-limit"), ("three-card-nz", "fixed-limit")]),
    ("online-five-card-draw", [("five-card-draw", "fixed-limit")]),
    ("tda-2024", [("holdem", "no-limit"), ("holdem", "fixed-limit")]),
]
SCHEMAS = {"hands": HANDS_SCHEMA, "seats": SEATS_SCHEMA, "events": EVENTS_SCHEMA}


def simulated_jsonl(hands: int, root: Path, seed: int = 1) -> Path:
    """A JSON Lines file of `hands` simulated hands of the mix (made once)."""
    folder = root / f"sim-{hands}"
    jsonl = folder / "hands.jsonl"
    if jsonl.is_file():
        return jsonl
    folder.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    per_pack = hands // len(MIX)

    def simulated():
        for i, (pack_name, games) in enumerate(MIX):
            pack = resolve_pack(pack_name)
            count = per_pack if i < len(MIX) - 1 else hands - per_pack * (len(MIX) - 1)
            yield from simulate_mixed(games, count, seed + i, house=pack.house, rule_pack=pack.name,
                                      table_prefix=f"B{i}")
    partial = jsonl.with_suffix(".partial")
    n = write_jsonl(simulated(), partial)
    partial.rename(jsonl)
    print(f"simulated {n:,} hands in {time.perf_counter() - t0:.0f} s -> {jsonl}", flush=True)
    return jsonl


def make_dataset(hands: int, root: Path) -> Path:
    """The Parquet dataset of `hands` simulated hands: `auditor convert` of their JSON Lines (made once)."""
    dataset = root / f"sim-{hands}" / "dataset"
    if all((dataset / f"{name}.parquet").is_file() for name in TABLE_FILES):
        return dataset
    run_convert([simulated_jsonl(hands, root)], dataset, hands)
    return dataset


def run_convert(sources: list[Path], dataset: Path, hands: int) -> dict:
    """`auditor convert SOURCES -o DATASET` in a child process, measured and printed."""
    command = [sys.executable, "-m", "auditor", "convert", *map(str, sources), "-o", str(dataset), "--quiet",
               "--overwrite"]
    r = measure(command, "convert")
    target = 1 << 30 if hands <= 1_000_000 else 2 << 30
    print(f"{hands:>10,} hands  convert: {r['seconds']:7.1f} s  CPU {r['cpu']:7.1f} s = "
          f"{hands / r['cpu'] * 60:9,.0f} hands/min per core  peak RSS {r['peak'] / 2**20:6,.0f} MB (target "
          f"< {target >> 30} GB: {'met' if r['peak'] < target else 'NOT met'}); by quarter: "
          + " / ".join(f"{q / 2**20:,.0f}" for q in r["quarters"]), flush=True)
    return r


def converted_copies(hands: int, source_hands: int, root: Path) -> dict:
    """`auditor convert` of the `source_hands`-hand JSON Lines file named as often as `hands` needs (hard links, so
    the disk holds it once), into a scratch dataset deleted afterwards."""
    jsonl = simulated_jsonl(source_hands, root)
    folder = root / f"convert-{hands}"
    folder.mkdir(parents=True, exist_ok=True)
    copies = -(-hands // source_hands)
    sources = []
    for k in range(copies):
        link = folder / f"copy-{k}.jsonl"
        if not link.exists():
            os.link(jsonl, link)
        sources.append(link)
    try:
        return run_convert(sources, folder / "dataset", copies * source_hands)
    finally:
        shutil.rmtree(folder / "dataset", ignore_errors=True)


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


def run_audit(dataset: Path, jobs: int) -> dict:
    return measure([sys.executable, "-m", "auditor", "audit", str(dataset.resolve()), "--jobs", str(jobs),
                    "--format", "jsonl", "--output", os.devnull, "--quiet", "--fail-on", "never"], "audit")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--data", type=Path, default=Path("/tmp/auditor-bench"))
    parser.add_argument("--copies-of", type=int, metavar="M",
                        help="make datasets larger than M hands from copies of an M-hand one")
    parser.add_argument("--convert", action="store_true",
                        help="also measure `auditor convert` at each size (into a scratch dataset)")
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
        if args.convert:
            converted_copies(hands, min(hands, args.copies_of or hands), args.data)
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
            print(f"    target, >= 2,000,000 hands/min per core (CPU time): "
                  f"{'met' if per_core >= 2_000_000 else 'NOT met'} ({per_core / 2_000_000:.0%} of it)", flush=True)


if __name__ == "__main__":
    main()
