"""How fast the PokerStars text, OHH and PokerNow readers are, alone and under a whole `auditor audit`. Run by hand:

    python benchmarks/readers_speed.py [--hands 20000] [--repeat 3] [--profile pokerstars|ohh] [--snapshot FILE]
                                       [--vs CHECKOUT]
    python benchmarks/readers_speed.py --target [--scale 1000000] [--formats pokerstars,ohh] [--vs CHECKOUT]

Large files of simulated hands are written once with OUR writers (PokerStars by its dialect,
rooms/pokerstars.yaml; auditor/export/ohh.py; the games each format holds) and cached under /tmp/readers_speed
(delete it to write them again); the
corpus's own files (/work/shared/corpus/pokerstars, /ohh) are timed too. For each input it prints, in hands/s
and microseconds a hand, CPU time (what the machine spent; the wall clock of a shared machine is noise):

- read: the reader's items (PokerStars by the dialect engine, `rooms.read_room`, its hands as TableChunks; OHH by
  `read_ohh`, to a list), in this process;
- the OHH read of the large file stage by stage (the reader's own steps, one after the other);
- PokerNow (`--formats pokernow`): its log of simulated hands and, in the same minutes, PokerStars text of the very
  same hands (those both can hold: the same hand count), and the corpus's PokerNow logs;
- audit: `auditor audit FILE --format jsonl --output /dev/null --quiet --jobs 1` in a child process (its CPU,
  start-up and Numba's cache load included: what a user waits for; about 2.5 s of CPU before the first hand);
  with `--vs CHECKOUT`, the same audit by that checkout's code (another version: `git worktree add`), the two
  run in turn, so both are measured in the same minutes;
- `--compile`: the PokerStars kernels' compile CPU (a child process with an empty NUMBA_CACHE_DIR) and their
  load from the cache (a second child), the columnar validator's included;
- OHH column-wise (`auditor/ingest/ohh_tables.py`): the read through `read_ohh_tables` (how many
  hands its fast path took), and the audit twice: object by object (the path's threshold out of reach, every
  file through `read_ohh`) and as `auditor audit` reads it (the large file column-wise; the corpus's files are
  under `ingest.compiled.MIN_FILE_BYTES["ohh"]`, so both audit lines of the corpus read it object by object).

`--target` measures the target for PokerStars text and OHH (>= 1,000,000 hands per minute per core at 1,000,000
hands, whole process): `auditor audit FILE --jobs 1 --format jsonl --output /dev/null --quiet` of a `--scale`-hand
file (1,000,000 unless given; written once by our writer, ~1.1 GB of PokerStars text, ~2.6 GB of OHH) in a child
process, its CPU and peak memory (the process tree sampled every 0.2 s), the median of `--repeat` runs, and
`auditor convert` of the same file (its peak memory: under 1 GB).

`--profile FORMAT` prints cProfile's top functions of one read of the large file (shares, not truth: the
profiler slows small functions most). `--snapshot FILE` pickles every input's items (hands, quarantines,
notes) for comparing a changed reader with this one (tests/test_reader_identity.py does it on the files
the test suite can rebuild).
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import gc
import os
import pickle
import platform
import pstats
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's auditor, not the installed one

from process import measure  # noqa: E402

from auditor.check.packs import resolve_pack  # noqa: E402
from auditor.export import writer  # noqa: E402
from auditor.ingest.ohh import read_ohh  # noqa: E402
from auditor.ingest.parquet import TableChunk  # noqa: E402
from auditor.ingest.pokernow import read_pokernow  # noqa: E402
from auditor.ingest.rooms import read_room  # noqa: E402
from auditor.model.records import SourceHand  # noqa: E402
from auditor.resources import room_names, room_suffix  # noqa: E402
from auditor.simulate import simulate_mixed  # noqa: E402

CACHE = Path("/tmp/readers_speed")
CORPUS = Path("/work/shared/corpus")
#: (pack, games) each format's writer can hold: PokerStars text has hold'em, Omaha and five-card draw; OHH
#: hold'em and Omaha; every structure but spread limit
GAMES = {
    "pokerstars": [("tda-2024", [("holdem", "no-limit"), ("holdem", "pot-limit"), ("holdem", "fixed-limit"),
                                 ("omaha", "pot-limit"), ("omaha", "no-limit")]),
                   ("online-five-card-draw", [("five-card-draw", "fixed-limit")])],
    "ohh": [("tda-2024", [("holdem", "no-limit"), ("holdem", "pot-limit"), ("holdem", "fixed-limit"),
                          ("omaha", "pot-limit"), ("omaha", "no-limit")])],
}
#: every other room: PokerStars' games that its dialect writes
GAMES |= {room: [(pack, [g for g in games if g[0] in writer(room).games]) for pack, games in GAMES["pokerstars"]
                 if any(g[0] in writer(room).games for g in games)]
          for room in room_names() if room != "pokerstars"}
#: PokerNow's log: hold'em and Omaha, no limit and pot limit; timed beside PokerStars text of the very same hands
GAMES["pokernow"] = [("tda-2024", [("holdem", "no-limit"), ("holdem", "pot-limit"), ("omaha", "pot-limit"),
                                   ("omaha", "no-limit")])]
SUFFIX = {**{room: room_suffix(room) for room in room_names()}, "ohh": ".ohh", "pokernow": ".csv"}
READERS: dict[str, Callable[[Path], Iterator]] = {**{room: partial(read_room, room_name=room) for room in room_names()},
                                                  "ohh": read_ohh, "pokernow": read_pokernow}
#: where the corpus keeps each format's real files
CORPUS_FOLDERS = {"pokerstars": "pokerstars", "ggpoker": "rooms-2/ggpoker", "wpn": "rooms-2/wpn",
                  "winamax": "rooms-2/winamax", "888poker": "rooms-2/888", "ohh": "ohh", "pokernow": "rooms-2/pokernow"}


def simulated(fmt: str, hands: int, seed: int = 7) -> Path:
    """The cached file of about `hands` simulated hands in `fmt` (those the writer cannot express left out)."""
    path = CACHE / f"{fmt}-{hands}-{seed}{SUFFIX[fmt]}"
    if path.exists():
        return path
    CACHE.mkdir(parents=True, exist_ok=True)
    module = writer(fmt)
    groups = GAMES[fmt]

    #: PokerNow's hands are those both it and PokerStars can hold, so its twin (`twin`) is the same hands
    also = writer("pokerstars") if fmt == "pokernow" else None

    def stream() -> Iterator[dict]:
        for i, (pack_name, games) in enumerate(groups):
            pack = resolve_pack(pack_name)
            share = hands * len(games) // sum(len(g) for _, g in groups)
            for hand in simulate_mixed(games, share, seed + i, house=pack.house, rule_pack=pack.name,
                                       table_size=(2, 9), sit_outs=True, rake=pack.house.rake,
                                       table_prefix=f"R{i}-", chip_unit_mix=(0.3, 1)):
                if module.cannot_express(hand) is None and (also is None or also.cannot_express(hand) is None):
                    yield hand

    tmp = path.with_suffix(".tmp" + SUFFIX[fmt])
    if also is None:
        module.write_hands(stream(), tmp)
    else:
        kept = list(stream())
        module.write_hands(kept, tmp)
        also.write_hands(kept, twin(path))
    tmp.rename(path)
    return path


def twin(path: Path) -> Path:
    """The PokerStars text of the very hands of a simulated PokerNow log (the same hand count), for comparison."""
    return path.with_name(path.stem + "-as-pokerstars.txt")


def corpus_files(fmt: str) -> list[Path]:
    folder = CORPUS / CORPUS_FOLDERS.get(fmt, fmt)
    suffixes = {"ohh": (".ohh", ".json"), "pokernow": (".csv", ".txt")}.get(fmt, (".txt",))
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.name.lower().endswith(suffixes))


def read_items(fmt: str, paths: list[Path]) -> list:
    reader = READERS[fmt]
    return [x for p in paths for x in reader(p)]


def cpu_timed(fn: Callable[[], object], repeat: int) -> tuple[float, float, object]:
    """(best CPU seconds, best wall seconds, the last result) over `repeat` runs in this process, the garbage
    collector off as the audit runs a partition (`partition.collect_between_batches`): with it on, its passes
    over the items kept so far cost a third more and say nothing of the reader."""
    best_cpu = best_wall = float("inf")
    result: object = None
    for _ in range(repeat):
        result = None
        gc.collect()
        gc.disable()
        try:
            c0, w0 = time.process_time(), time.perf_counter()
            result = fn()
            best_cpu = min(best_cpu, time.process_time() - c0)
            best_wall = min(best_wall, time.perf_counter() - w0)
        finally:
            gc.enable()
    return best_cpu, best_wall, result


def audit_cpu(paths: list[Path], repeat: int, prelude: str = "", checkout: Path = ROOT) -> tuple[float, float]:
    """(best CPU seconds, best wall seconds) of `auditor audit PATHS` in a child process, one job (`prelude`: Python
    run first in the child; `checkout`: whose code the child runs)."""
    command = [sys.executable, "-c", prelude + "from auditor.cli import main; main()", "audit", *map(str, paths),
               "--format", "jsonl", "--output", os.devnull, "--quiet", "--jobs", "1", "--allow-unaudited",
               "--fail-on", "never"]
    best_cpu = best_wall = float("inf")
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        w0 = time.perf_counter()
        subprocess.run(command, cwd=checkout, env={**os.environ, "PYTHONPATH": str(checkout)}, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - w0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best_cpu, best_wall = min(best_cpu, cpu), min(best_wall, wall)
    return best_cpu, best_wall


#: what the child process runs first to audit OHH object by object (the column-wise path's threshold out of reach)
OHH_REFERENCE = "import auditor.ingest.compiled as t; t.MIN_FILE_BYTES[\"ohh\"] = 1 << 62; "


def ohh_columnwise(paths: list[Path]) -> tuple[int, int, int]:
    """(hands, of which the column-wise path took, other items) of `read_ohh_tables` over `paths` (whatever
    their size: the threshold is `ingest.compiled.takes_column_wise`'s, not the reader's)."""
    from auditor.ingest.ohh_tables import read_ohh_tables
    from auditor.ingest.parquet import TableChunk

    hands = taken = other = 0
    for path in paths:
        for item in read_ohh_tables(path):
            if isinstance(item, TableChunk):
                hands += item.num_hands
                taken += item.num_hands
            elif isinstance(item, SourceHand):
                hands += 1
            else:
                other += 1
    return hands, taken, other


def stages(fmt: str, path: Path) -> list[tuple[str, float, int]]:
    """(stage, CPU seconds, hands) of one OHH read of `path`, stage by stage (the reader's own steps, called one
    after the other as the reader calls them hand by hand; the collector off)."""
    from auditor.ingest import ohh
    from auditor.ingest.jsonl import consistency_error
    from auditor.ingest.validate import schema_error

    clock = time.process_time
    gc.collect()
    gc.disable()
    try:
        t0 = clock()
        with path.open("rb") as stream:
            objects = [obj for _, obj, error in ohh._json_objects(stream) if error is None]
        t1 = clock()
        for obj in objects:
            ohh.ohh_schema_error(obj)
        t2 = clock()
        hands = [ohh._Hand(obj["ohh"], "tda-2024").canonical() for obj in objects]
        t3 = clock()
        steps = [("  JSON objects (json, Decimal floats)", t1 - t0), ("  OHH schema (jsonschema-rs)", t2 - t1),
                 ("  mapped to the canonical hand", t3 - t2)]
        t3 = clock()
        for hand in hands:
            schema_error(hand)
        t4 = clock()
        for hand in hands:
            consistency_error(hand)
        t5 = clock()
    finally:
        gc.enable()
    steps += [("  canonical schema (jsonschema-rs)", t4 - t3), ("  consistency_error", t5 - t4)]
    return [(label, seconds, len(hands)) for label, seconds in steps]


def compile_cpu() -> tuple[float, float]:
    """(CPU seconds to compile the PokerStars kernels and the columnar validator's, CPU seconds to load them from
    the cache): a child reading a small file column-wise with an empty NUMBA_CACHE_DIR, then a second child with
    that cache, each less the same child's start without the read."""
    import tempfile

    sample = simulated("pokerstars", 200)
    body = ("import time; from pathlib import Path; t0 = time.process_time(); "
            "from auditor.ingest.rooms import read_room; "
            f"list(read_room(Path({str(sample)!r}), 'pokerstars')); print(time.process_time() - t0)")
    bare = ("import time; t0 = time.process_time(); import auditor.ingest.rooms; "
            "print(time.process_time() - t0)")
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        env.pop("NUMBA_BOUNDSCHECK", None)

        def child(code: str) -> float:
            out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True, capture_output=True,
                                 text=True).stdout
            return float(out.strip().splitlines()[-1])

        first = child(body)
        again = child(body)
        imports = child(bare)
    # the read of 200 hands itself is ~0.05 s; what is left is compiling (first) and loading (again)
    return first - imports, again - imports


def target(fmt: str, hands: int, repeat: int, vs: Path | None = None) -> None:
    """The target line of one format: whole audits of a `hands`-hand file and its convert, measured as a user runs
    them (`process.measure`); with `vs`, that checkout's audits of the same file too, run in turn with these."""
    path = simulated(fmt, hands)
    command = [sys.executable, "-m", "auditor", "audit", str(path), "--jobs", "1", "--format", "jsonl",
               "--output", os.devnull, "--quiet", "--fail-on", "never"]
    runs, theirs = [], []
    for _ in range(repeat):
        runs.append(measure(command, "audit"))
        if vs is not None:
            theirs.append(measure(command, "audit", checkout=vs))
    if theirs:
        print(f"{fmt} {hands:,} hands, auditor audit --jobs 1 by {vs}: CPU "
              + " / ".join(f"{r['cpu']:.1f}" for r in theirs) + " s (median "
              f"{statistics.median(r['cpu'] for r in theirs):.1f} s)", flush=True)
    cpu = statistics.median(r["cpu"] for r in runs)
    peak = max(r["peak"] for r in runs)
    read = next((line for line in runs[0]["summary"].splitlines() if "hands read" in line), "").strip()
    found = re.search(r"hands read: (\d+)", read)
    hands = int(found[1]) if found else hands  # the writer leaves out the few hands its format cannot hold
    per_core = hands / cpu * 60
    cpus = " / ".join(f"{r['cpu']:.1f}" for r in runs)
    walls = " / ".join(f"{r['seconds']:.1f}" for r in runs)
    print(f"{fmt} {hands:,} hands ({path.stat().st_size / 1e9:.2f} GB), auditor audit --jobs 1: CPU {cpus} s, "
          f"wall {walls} s, peak RSS {peak / 2**20:,.0f} MB -> {per_core:,.0f} hands/min per core: target >= 1,000,000 "
          f"{'met' if per_core >= 1_000_000 else 'NOT met'} ({read})", flush=True)
    with tempfile.TemporaryDirectory(prefix="readers-speed-") as scratch:
        r = measure([sys.executable, "-m", "auditor", "convert", str(path), "-o", str(Path(scratch) / "dataset"),
                     "--quiet"], "convert")
    print(f"{fmt} {hands:,} hands, auditor convert: {r['seconds']:.1f} s, CPU {r['cpu']:.1f} s, peak RSS "
          f"{r['peak'] / 2**20:,.0f} MB: target < 1 GB {'met' if r['peak'] < 1 << 30 else 'NOT met'}", flush=True)


def line(label: str, seconds: float, wall: float, hands: int) -> str:
    if not hands:
        return f"{label:<46}{seconds:>8.2f} s cpu (no hands)"
    return (f"{label:<46}{seconds:>8.2f} s cpu {wall:>7.2f} s wall {hands / seconds:>10,.0f} hands/s "
            f"{seconds / hands * 1e6:>8.1f} us/hand")


def plain(item: object) -> object:
    """An item as plain data (dataclass fields), for pickling and comparing."""
    return (type(item).__name__, dataclasses.asdict(item)) if dataclasses.is_dataclass(item) else item


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--formats", default="pokerstars,ohh")
    parser.add_argument("--no-audit", action="store_true", help="time the readers only")
    parser.add_argument("--profile", choices=sorted(READERS), help="cProfile one read of FORMAT's large file")
    parser.add_argument("--snapshot", type=Path, help="pickle every input's items to this file")
    parser.add_argument("--compile", action="store_true", help="time the PokerStars kernels' compile and load")
    parser.add_argument("--target", action="store_true",
                        help="whole audits and converts of a --scale-hand file: hands/min per core, memory")
    parser.add_argument("--scale", type=int, default=1_000_000, help="the file's hands for --target")
    parser.add_argument("--vs", type=Path, help="another checkout whose audits are timed in turn with these")
    args = parser.parse_args()
    formats = args.formats.split(",")
    if args.target:
        print(f"{platform.node()}: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, load "
              f"{os.getloadavg()[0]:.2f}", flush=True)
        for fmt in formats:
            target(fmt, args.scale, args.repeat, args.vs)
        return
    inputs = {fmt: {"simulated": [simulated(fmt, args.hands)], "corpus": corpus_files(fmt)} for fmt in formats}
    #: what the audit is given: the corpus as its folder (the audit skips what it does not recognise)
    audited = {fmt: {"simulated": inputs[fmt]["simulated"], "corpus": [CORPUS / CORPUS_FOLDERS.get(fmt, fmt)]}
               for fmt in formats}

    if args.compile:
        compiled, loaded = compile_cpu()
        print(f"pokerstars kernels (and the columnar validator's): compile {compiled:.2f} s cpu, "
              f"load from the cache {loaded:.2f} s cpu (each less the imports)")
        return

    if args.profile:
        path = inputs[args.profile]["simulated"]
        profile = cProfile.Profile()
        profile.enable()
        read_items(args.profile, path)
        profile.disable()
        pstats.Stats(profile).sort_stats("tottime").print_stats(30)
        return

    snapshot: dict[str, list] = {}
    for fmt in formats:
        for kind, paths in inputs[fmt].items():
            if not paths:
                continue
            size = sum(p.stat().st_size for p in paths)
            cpu, wall, items = cpu_timed(lambda fmt=fmt, paths=paths: read_items(fmt, paths), args.repeat)
            assert isinstance(items, list)
            hands = sum(x.num_hands if isinstance(x, TableChunk) else isinstance(x, SourceHand) for x in items)
            others = sum(not isinstance(x, TableChunk | SourceHand) for x in items)
            snapshot.update({f"{fmt}:{p}": [plain(x) for x in read_items(fmt, [p])] for p in paths} if args.snapshot
                            else {})
            print(f"{fmt} {kind}: {len(paths)} file(s), {size / 1e6:.1f} MB, {hands:,} hands, "
                  f"{others:,} other items")
            print(line("  read (the reader's items)", cpu, wall, hands))
            if kind == "simulated" and fmt == "pokernow":  # PokerStars text of the same hands, in the same minutes
                same = [twin(paths[0])]
                cpu2, wall2, items2 = cpu_timed(lambda same=same: read_items("pokerstars", same), args.repeat)
                assert isinstance(items2, list)
                hands2 = sum(x.num_hands if isinstance(x, TableChunk) else isinstance(x, SourceHand) for x in items2)
                print(line("  PokerStars text of the same hands (read)", cpu2, wall2, hands2))
                print(f"  {'':<44}PokerNow's read takes {cpu / cpu2:.1f}x the CPU of PokerStars text's")
            if kind == "simulated" and fmt == "ohh":
                for label, seconds, count in stages(fmt, paths[0]):
                    print(line("  " + label, seconds, seconds, count))
            if fmt == "ohh":  # the column-wise path, in the same minutes
                ohh_columnwise(paths)  # the kernels loaded (their load is timed in the audit's lines)
                cpu, wall, counted = cpu_timed(lambda paths=paths: ohh_columnwise(paths), args.repeat)
                assert isinstance(counted, tuple)
                print(line("  read column-wise (read_ohh_tables)", cpu, wall, counted[0]))
                print(f"  {'':<44}{counted[1]:,} of {counted[0]:,} hands taken by the column-wise path, "
                      f"{counted[2]:,} other items")
            if not args.no_audit and fmt == "ohh":
                for label, reference in (("object by object", True), ("column-wise", False)):
                    cpu, wall = audit_cpu(audited[fmt][kind], args.repeat, OHH_REFERENCE if reference else "")
                    print(line(f"  auditor audit --jobs 1 ({label})", cpu, wall, hands))
            elif not args.no_audit:
                cpu, wall = audit_cpu(audited[fmt][kind], args.repeat)
                print(line("  auditor audit --jobs 1 (child process)", cpu, wall, hands))
                if kind == "simulated" and fmt == "pokernow":
                    cpu, wall = audit_cpu([twin(paths[0])], args.repeat)
                    print(line("  the same hands as PokerStars text, audited", cpu, wall, hands))
                if args.vs:
                    cpu, wall = audit_cpu(audited[fmt][kind], args.repeat, checkout=args.vs)
                    print(line(f"  the same audit by {args.vs}", cpu, wall, hands))
            sys.stdout.flush()
    if args.snapshot:
        with args.snapshot.open("wb") as out:
            pickle.dump(snapshot, out)
        print(f"snapshot of {len(snapshot)} files' items: {args.snapshot}")


if __name__ == "__main__":
    main()
