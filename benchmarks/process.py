"""A child process measured as a user meets it: wall time, the CPU of its whole process tree and the peak of its
resident memory (every 0.2 s), for the benchmark scripts (`scale.py`, `readers_speed.py`)."""

from __future__ import annotations

import os
import resource
import subprocess
import time
from pathlib import Path

import psutil

#: the checkout the benchmarks run from
ROOT = Path(__file__).resolve().parents[1]


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


def measure(command: list[str], what: str, checkout: Path = ROOT) -> dict:
    """Run `command` from `checkout` (this one unless given: another version's code, for side by side), sampling
    the memory and CPU of its process tree every 0.2 s."""
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    cpu0 = _children_cpu()
    # as a user's installation: Python's bytecode cache on (with PYTHONDONTWRITEBYTECODE every start compiles the
    # auditor's modules again)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(checkout)
    child = subprocess.Popen(command, cwd=checkout, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             env=env)
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
    if child.returncode not in (0, 1, 3):  # findings (1) and hands not audited (3) are answers, not failures
        raise SystemExit(f"{what} failed ({child.returncode}):\n{stderr}")
    quarters = []
    for q in (0.25, 0.5, 0.75, 1.0):
        window = [rss for t, rss in samples if (q - 0.25) * seconds <= t < q * seconds + 0.2]
        quarters.append(max(window, default=0))
    driver = by_process.pop(child.pid, 0.0)
    return {"seconds": seconds, "cpu": cpu, "peak": max((s for _, s in samples), default=0), "largest": peak_largest,
            "quarters": quarters, "summary": stderr, "load": (load, os.getloadavg()[0]),
            "driver_cpu": driver, "worker_cpu": sorted(by_process.values(), reverse=True)}
