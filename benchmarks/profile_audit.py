"""Where an audit spends its time: cProfile of one `audit()` call, by module and by function. By hand:

    python benchmarks/profile_audit.py PATH... [--pack tda-2024] [--top 25] [--batch-size 20000]

One process (`jobs=1`), so every function is seen. Prints own time (tottime) summed per module, then
the functions with the most own time, then the stages (cumulative time of read, tables, replay,
checks). cProfile slows Python code about 1.5-2x, unevenly: use the shares, not the seconds.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
from collections import defaultdict
from pathlib import Path

from auditor.pipeline import audit

STAGES = {
    "read + validate (readers)": ("engines/partition.py", "read_piece"),
    "canonical tables": ("ingest/tables.py", "build_tables"),
    "replay": ("replay/kernel/replay.py", "replay"),
    "checks": ("check/run.py", "check"),
    "run-wide ledger": ("engines/ledger.py", "resolve"),
}


def _module(filename: str) -> str:
    path = filename.replace("\\", "/")
    if "/auditor/" in path:
        return "auditor/" + path.split("/auditor/", 1)[1]
    if "site-packages/" in path:
        return path.split("site-packages/", 1)[1].split("/", 1)[0]
    if path.startswith("<") or "/lib/python" in path:
        return "python (stdlib, builtins)"
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--pack")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--batch-size", type=int, default=20_000)
    args = parser.parse_args()
    profile = cProfile.Profile()
    profile.enable()
    result = audit(args.paths, pack=args.pack, batch_size=args.batch_size, jobs=1)
    profile.disable()
    stats = pstats.Stats(profile)
    total = sum(row[2] for row in stats.stats.values())  # type: ignore[attr-defined]
    print(f"{result.hands_read:,} hands read, {result.hands_audited:,} audited, {len(result.findings):,} findings; "
          f"profiled own time {total:.1f} s\n")
    by_module: dict[str, float] = defaultdict(float)
    for (filename, _, _), (_, _, tottime, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        by_module[_module(filename)] += tottime
    print(f"{'own time by module':<60}{'s':>8}{'share':>8}")
    for module, seconds in sorted(by_module.items(), key=lambda kv: -kv[1])[: args.top]:
        print(f"{module:<60}{seconds:>8.2f}{seconds / total:>8.1%}")
    print(f"\n{'own time by function':<60}{'s':>8}{'share':>8}{'calls':>12}")
    rows = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])  # type: ignore[attr-defined]
    for (filename, line, name), (_, calls, tottime, _, _) in rows[: args.top]:
        label = f"{_module(filename)}:{line} {name}"
        print(f"{label[:60]:<60}{tottime:>8.2f}{tottime / total:>8.1%}{calls:>12,}")
    print(f"\n{'stage (cumulative)':<60}{'s':>8}{'share':>8}")
    for stage, (file_end, function) in STAGES.items():
        cumulative = sum(row[3] for (filename, _, name), row in stats.stats.items()  # type: ignore[attr-defined]
                         if name == function and filename.replace("\\", "/").endswith(file_end))
        print(f"{stage:<60}{cumulative:>8.2f}{cumulative / total:>8.1%}")


if __name__ == "__main__":
    main()
