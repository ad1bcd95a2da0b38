"""How long the `auditor` command takes to start and answer, as a user waits for it. Run by hand:

    python benchmarks/startup.py [--against CHECKOUT] [--repeat 9]

Times whole processes with a warm cache (Python's bytecode and Numba's kernels already on disk: each command
runs once, uncounted, first), one after the other, `--repeat` times each, and prints the median and the
fastest wall time and the median CPU (user + system) of each command against its target:

    auditor --version                       <= 0.15 s
    auditor --help                          <= 0.15 s
    auditor rules list                      <= 0.6 s
    auditor rules show TDA-43A              <= 0.6 s
    auditor audit ONE-HAND.jsonl            <= 1.0 s   (the first hand of sample_logs/holdem.jsonl)

Each command is `python -m auditor ...` with PYTHONPATH set to the checkout measured (this file's unless
`--against`), so an installed copy is never what is timed. With `--against CHECKOUT` (e.g. `git worktree add
/tmp/before <commit>`) every command also runs from CHECKOUT, alternating with this checkout's run (so drift of
the machine's speed hits both alike), and the ratio of the medians is printed.

PYTHONDONTWRITEBYTECODE is removed from the children's environment: with it, Python compiles every module of
the auditor from source at every start (~0.45 s here), which a user's installation never does.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: (label, arguments, target seconds)
COMMANDS = [
    ("--version", ["--version"], 0.15),
    ("--help", ["--help"], 0.15),
    ("rules list", ["rules", "list"], 0.6),
    ("rules show TDA-43A", ["rules", "show", "TDA-43A"], 0.6),
    ("audit one hand", ["audit", "{one}", "--output", os.devnull], 1.0),
]


def run(checkout: Path, arguments: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one `python -m auditor ARGUMENTS` from `checkout`."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(checkout)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "auditor", *arguments], cwd=checkout, env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1, 3):
        raise SystemExit(f"{checkout}: auditor {' '.join(arguments)} failed ({done.returncode}):\n{done.stderr}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", type=Path, help="another checkout, timed alternately with this one")
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    checkouts = [ROOT] + ([args.against.resolve()] if args.against else [])
    with tempfile.TemporaryDirectory(prefix="auditor-startup-") as tmp:
        one = Path(tmp) / "one-hand.jsonl"
        first = (ROOT / "sample_logs" / "holdem.jsonl").read_text(encoding="utf-8").splitlines()[0]
        one.write_text(first + "\n", encoding="utf-8")
        print(f"{os.uname().nodename}: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; Python "
              f"{sys.version.split()[0]}; {args.repeat} runs each, warm caches")
        header = f"{'command':<22} {'target':>7} {'median':>7} {'best':>6} {'cpu':>6}  met"
        if args.against:
            header += f"   {'before':>7} {'cpu':>6}  ratio"
        print(header)
        for label, arguments, target in COMMANDS:
            arguments = [a.replace("{one}", str(one)) for a in arguments]
            for checkout in checkouts:  # the warm-up: bytecode written, kernels loaded into the cache
                run(checkout, arguments)
            times: dict[Path, list[tuple[float, float]]] = {c: [] for c in checkouts}
            for _ in range(args.repeat):
                for checkout in checkouts:
                    times[checkout].append(run(checkout, arguments))
            wall = statistics.median(w for w, _ in times[ROOT])
            best = min(w for w, _ in times[ROOT])
            cpu = statistics.median(c for _, c in times[ROOT])
            line = (f"{label:<22} {target:>6.2f}s {wall:>6.3f}s {best:>5.3f}s {cpu:>5.3f}s  "
                    f"{'yes' if wall <= target else 'NO '}")
            if args.against:
                old = statistics.median(w for w, _ in times[args.against.resolve()])
                old_cpu = statistics.median(c for _, c in times[args.against.resolve()])
                line += f"   {old:>6.3f}s {old_cpu:>5.3f}s  {old / wall:>4.1f}x"
            print(line, flush=True)
        print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
