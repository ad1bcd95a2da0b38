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

and the first run after an install: `auditor audit sample_logs` with an empty Numba cache (NUMBA_CACHE_DIR a new
folder; its kernels run as Python while a background process compiles them) against the same audit once everything
is compiled (`auditor compile` first, which also waits for that background compile): at most 3 s extra, and never
silent (the notice it prints is shown).

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


def run(checkout: Path, arguments: list[str], cache: str | None = None) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, standard error) of one `python -m auditor ARGUMENTS` from `checkout` (`cache`: the
    Numba cache folder to use, else Numba's own beside the sources)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(checkout)
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = cache
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "auditor", *arguments], cwd=checkout, env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1, 3):
        raise SystemExit(f"{checkout}: auditor {' '.join(arguments)} failed ({done.returncode}):\n{done.stderr}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stderr


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
                    times[checkout].append(run(checkout, arguments)[:2])
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
        first_run(tmp)
        print(f"load after: {os.getloadavg()[0]:.2f}")


def first_run(tmp: str) -> None:
    """The first audit of the sample logs after an install (an empty Numba cache) against a warm one."""
    cache = str(Path(tmp) / "numba-cache")
    audit = ["audit", "sample_logs", "--output", os.devnull]
    cold, _, said = run(ROOT, audit, cache)
    run(ROOT, ["compile"], cache)  # waits for the background compile the first run started, compiles the rest
    warm = statistics.median(run(ROOT, audit, cache)[0] for _ in range(3))
    notice = " / ".join(line for line in said.splitlines() if "compil" in line) or "NOTHING SAID"
    print(f"first run after an install (auditor audit sample_logs, empty Numba cache): {cold:.2f} s against "
          f"{warm:.2f} s warm: {cold - warm:+.2f} s (target <= 3 s extra: {'met' if cold - warm <= 3 else 'NOT met'})")
    print(f"  it said: {notice}")


if __name__ == "__main__":
    main()
