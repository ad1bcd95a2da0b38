"""Compile the replay kernels on two cores at once, so the first run after an install waits less.

Why: Numba compiles a kernel in the process that first calls it, one kernel after another, on one core;
the replay's kernels took about 20 s of CPU that way (the target is at most 10 s extra for the first
run). The kernels are independent compilations written to Numba's on-disk cache (`cache=True`), so
`compile_kernels` splits them into two parts: a helper process compiles one part while this process
compiles the other, and each writes its results to the cache; afterwards every kernel of both parts loads
from the cache (a fraction of a second) in this process and in any worker. The parts' compile CPU is about
equal (measured apart: 14.4 s and 13.5 s against 26.9 s for all in one process, at load ~9), so with a free
core the compile wall time is about halved; measured on the 2-core machine at load 2.4-3.7, the whole first
`auditor audit sample_logs` took 18.2 s (median of 3) against 22.1 s compiling in one process. Each part also
compiles lean (`_lean_compile`: no Numba rewrites, LLVM -O2 without loop vectorisation), which cut the
per-hand kernel's compile CPU from ~11.5 to ~9.7 s and the helper's part by ~0.5 s (measured on 2026-12-01).

Choosing a part for a new kernel module: a part is a set of modules whose kernels call only kernels of the
same part (a test holds it); put the module where the two parts' compile CPU stays closest to equal, counting
the helper's ~0.6 s later start (spawn and imports) against it; measure with an empty NUMBA_CACHE_DIR.

Each part compiles by replaying one small built-in hand through the real driver (`replay.replay`), so each
kernel is compiled for exactly the argument types an audit gives it; the other part's kernels run meanwhile
as plain Python (their `py_func`: the same code, uncompiled, over one hand), so nothing is compiled twice.

Safety: warming is an optimisation only. Anything that goes wrong here (the helper fails, is killed, hangs,
cannot be started, or the cache is not writable) leaves the audit to compile what is missing in process,
as it always could; this module never raises into the audit. The cache files themselves cannot be torn by
two processes: Numba writes each index and data file to a temporary name and renames it into place
(`numba.core.caching.IndexDataCacheFile._open_for_write`), and a reader that meets an index entry whose
data is not written yet compiles instead (`load` returns nothing on OSError).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

#: the two parts, each a set of kernel modules compiled together in one process (their kernels call only
#: kernels of their own part). The per-hand kernel is about half of all the compile time on its own, so
#: this process takes it (it is also the first the audit calls) and the helper takes the others. Together
#: they are `KERNEL_MODULES` (a test holds them equal).
HERE = ("auditor.replay.kernel.hand",)
HELPER = ("auditor.replay.kernel.table", "auditor.replay.kernel.pots", "auditor.replay.kernel.blinds",
          "auditor.replay.kernel.showdown")
#: however long this process's own part took, the helper is given at least this long, and this many
#: times as long, before it is taken for hung (killed; the audit then compiles the rest itself)
MIN_WAIT_S = 60.0
WAIT_FACTOR = 3.0
#: no helper when the machine is this busy (the 1-minute load average per usable core): then it only adds its
#: cost (its start-up and the few internal routines both processes compile, about 1.5 s of CPU). Linux shares
#: the CPU between sessions before processes (autogroup scheduling), so the helper runs in a session of its
#: own (`_start_helper`): in one session it gained nothing under others' load (measured on the 2-core machine at
#: load ~5: 38 s instead of 24); in its own it did, at load 3-4 (13.0, 16.2, 18.0 s against 21.4-21.8 s
#: compiling in one process), and at load ~5 it no longer did (25.3 s against 23.8)
BUSY_LOAD_PER_CORE = 2.0

#: a small hold'em hand that runs every kernel: blinds, a raise, a fold, a board, a showdown of two hands,
#: an award and a rake. Built in (not read from a file) so an installed package warms up as a checkout does.
_HAND = {
    "hand_id": "warm-1", "table_id": "warm", "started_at": "2024-01-01T00:00:00Z", "variant": "holdem",
    "structure": "no-limit", "stakes": {"blinds": [50, 100], "chip_unit": 1}, "max_seats": 6,
    "rule_pack": "tda-2024",
    "seats": [{"seat": 1, "player": "a", "stack": 5000}, {"seat": 2, "player": "b", "stack": 5000},
              {"seat": 3, "player": "c", "stack": 5000}],
    "events": [
        {"kind": "button", "seat": 3},
        {"kind": "post", "seat": 1, "post": "blind", "blind": 1, "amount": 50, "all_in": False},
        {"kind": "post", "seat": 2, "post": "blind", "blind": 2, "amount": 100, "all_in": False},
        {"kind": "deal", "to": "hole", "seat": 1, "cards": ["As", "Ad"]},
        {"kind": "deal", "to": "hole", "seat": 2, "cards": ["Kc", "Kd"]},
        {"kind": "deal", "to": "hole", "seat": 3, "cards": ["7h", "2s"]},
        {"kind": "action", "seat": 3, "action": "fold"},
        {"kind": "action", "seat": 1, "action": "raise", "amount": 250, "to": 300, "all_in": False},
        {"kind": "action", "seat": 2, "action": "call", "amount": 200, "to": 300, "all_in": False},
        {"kind": "deal", "to": "burn", "cards": ["??"]},
        {"kind": "deal", "to": "board", "cards": ["2c", "5d", "9h"]},
        {"kind": "action", "seat": 1, "action": "bet", "amount": 300, "to": 300, "all_in": False},
        {"kind": "action", "seat": 2, "action": "call", "amount": 300, "to": 300, "all_in": False},
        {"kind": "deal", "to": "burn", "cards": ["??"]},
        {"kind": "deal", "to": "board", "cards": ["Jc"]},
        {"kind": "action", "seat": 1, "action": "check"},
        {"kind": "action", "seat": 2, "action": "check"},
        {"kind": "deal", "to": "burn", "cards": ["??"]},
        {"kind": "deal", "to": "board", "cards": ["3s"]},
        {"kind": "action", "seat": 1, "action": "check"},
        {"kind": "action", "seat": 2, "action": "check"},
        {"kind": "show", "seat": 1, "cards": ["As", "Ad"]},
        {"kind": "show", "seat": 2, "cards": ["Kc", "Kd"]},
        {"kind": "rake", "pot": 0, "amount": 50},
        {"kind": "award", "pot": 0, "seat": 1, "amount": 1250},
    ],
}


def _dispatchers(module) -> dict[str, object]:
    """The Numba kernels a module defines, by attribute name (none under NUMBA_DISABLE_JIT)."""
    from numba.core.registry import CPUDispatcher

    return {name: value for name, value in vars(module).items()
            if isinstance(value, CPUDispatcher) and value.__module__ == module.__name__}


@contextlib.contextmanager
def as_python(modules: Sequence[str]) -> Iterator[None]:
    """Within the block, the kernels of `modules` are their plain-Python functions, wherever the kernel
    modules or the (non-kernel) driver modules name them; restored afterwards.

    A module of the other part keeps the compiled kernels it names (a kernel calls kernels, and Numba
    compiles only kernels), which is why a part is a set of modules that call nothing of the other part.
    """
    from auditor.replay.kernel import KERNEL_MODULES

    swapped: dict[int, object] = {}
    for name in modules:
        for dispatcher in _dispatchers(importlib.import_module(name)).values():
            swapped[id(dispatcher)] = dispatcher
    undo: list[tuple[object, str, object]] = []
    try:
        for module_name, module in list(sys.modules.items()):
            if module is None or not module_name.startswith("auditor."):
                continue
            if module_name in KERNEL_MODULES and module_name not in modules:
                continue
            for attr, value in list(vars(module).items()):
                if id(value) in swapped and swapped[id(value)] is value:
                    undo.append((module, attr, value))
                    setattr(module, attr, value.py_func)
        yield
    finally:
        for module, attr, value in reversed(undo):
            setattr(module, attr, value)


def _replay_one_hand() -> None:
    """The built-in hand through the driver, as an audit replays a batch (tables, houses, state)."""
    from auditor.ingest.tables import build_tables
    from auditor.model.records import SourceHand
    from auditor.replay.house import HouseRules
    from auditor.replay.kernel.replay import replay

    tables = build_tables([SourceHand(_HAND, "<built-in warm-up hand>", 1)])
    replay(tables, [HouseRules()], None)


#: compile settings while a part compiles (`_lean_compile`), for the replay's state-machine kernels (branchy
#: event loops over a few seats and int64 tables, with nothing for these optimisations to find): LLVM at
#: optimisation level 2 instead of Numba's 3, no loop vectorisation, and none of Numba's IR rewrite passes
#: (`no_rewrites`: semantic constants, dead-branch pruning, array expressions, constant getitems). Measured with
#: an empty cache: `replay_hands` ~11.5 -> ~9.7 s of compile CPU, the helper's part ~0.5 s less again; the replay's
#: run time within noise (`hand.py`'s docstring). A user's own NUMBA_OPT or NUMBA_LOOP_VECTORIZE is left as set.
LEAN_OPT = 2
LEAN_LOOP_VECTORIZE = 0


@contextlib.contextmanager
def _lean_compile(modules: Sequence[str]) -> Iterator[None]:
    """Within the block, the kernels of `modules` compile with the `LEAN_*` settings; restored afterwards.

    Numba reads `config.OPT` and `config.LOOP_VECTORIZE` each time it builds an LLVM pass manager (per function
    and per module, `CPUCodegen._pass_builder`), and a dispatcher's `targetoptions` (its `@njit` options) each time
    it compiles, so setting them around the compile applies them to these kernels only, whatever their module's
    decorators say: a kernel added to a part later is compiled lean without an edit here. The cache entry does
    not depend on them (its key is the signature, the CPU and the source file's stamp): a kernel compiled
    outside a part (the audit's fallback) is the same code at Numba's defaults, only slower to compile. The
    process's target machine is built once, at its first compile, with the `config.OPT` of that moment; it is
    built here first, outside the block, so that it keeps Numba's level for everything compiled later.
    """
    from numba.core import config
    from numba.core.registry import cpu_target

    saved = config.OPT, config.LOOP_VECTORIZE
    cpu_target.target_context.codegen()  # the target machine, at the unchanged level (see the docstring)
    options: list[tuple[dict, object]] = []
    for name in modules:
        for dispatcher in _dispatchers(importlib.import_module(name)).values():
            options.append((dispatcher.targetoptions, dispatcher.targetoptions.get("no_rewrites", _UNSET)))
            dispatcher.targetoptions["no_rewrites"] = True
    if "NUMBA_OPT" not in os.environ:
        config.OPT = type(saved[0])(LEAN_OPT)
    if "NUMBA_LOOP_VECTORIZE" not in os.environ:
        config.LOOP_VECTORIZE = LEAN_LOOP_VECTORIZE
    try:
        yield
    finally:
        config.OPT, config.LOOP_VECTORIZE = saved
        for targetoptions, value in options:
            if value is _UNSET:
                targetoptions.pop("no_rewrites", None)
            else:
                targetoptions["no_rewrites"] = value


_UNSET = object()


def compile_part(modules: Sequence[str]) -> None:
    """Compile (into the cache) every kernel of `modules` an audit calls, the other kernels running as Python."""
    from auditor.replay.kernel import KERNEL_MODULES

    for name in KERNEL_MODULES:
        importlib.import_module(name)  # every kernel module loaded, so `as_python` sees where each is named
    others = [name for name in KERNEL_MODULES if name not in modules]
    with as_python(others), _lean_compile(modules):
        _replay_one_hand()


def package_root() -> str:
    """The folder this `auditor` package is imported from (a helper must compile these very sources: the
    cache is keyed by the source file)."""
    return str(Path(__file__).resolve().parents[3])  # .../auditor/replay/kernel/warm.py


def start_detached(module: str, modules: Sequence[str]) -> subprocess.Popen | None:
    """Start `python -m MODULE --root ROOT MODULES...` on this package; None if it cannot start.

    In a session of its own: scheduled as a job of its own (see `BUSY_LOAD_PER_CORE`), and a terminal's Ctrl-C
    reaches only the caller (`compile_kernels` then stops its helper on the way out; the first run's background
    compile, `precompile.start_background`, goes on)."""
    env = dict(os.environ)
    root = package_root()
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    try:
        return subprocess.Popen([sys.executable, "-m", module, "--root", root, *modules],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                env=env, cwd=root, start_new_session=True)
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def helper_modules(argv: Sequence[str], known: Sequence[str]) -> list[str] | None:
    """The modules a helper started by `start_detached` is asked for (`--root ROOT MODULE...`), or None when it
    must refuse: another installation's sources (its cache would not be the caller's), none, or one not in
    `known`."""
    args = list(argv)
    root = None
    if args[:1] == ["--root"] and len(args) >= 2:
        root, args = args[1], args[2:]
    if root is not None and package_root() != str(Path(root).resolve()):
        return None
    if not args or any(name not in known for name in args):
        return None
    return args


def _start_helper(modules: Sequence[str]) -> subprocess.Popen | None:
    """Start `python -m auditor.replay.kernel.warm MODULES...` on this package (`start_detached`)."""
    return start_detached("auditor.replay.kernel.warm", modules)


def helper_wait(own: float) -> float:
    """How long a compile helper is given once this process's own part took `own` seconds (`MIN_WAIT_S`,
    `WAIT_FACTOR`) before it is taken for hung."""
    return max(MIN_WAIT_S, WAIT_FACTOR * own)


def busy() -> bool:
    """Whether no core is idle (`BUSY_LOAD_PER_CORE`); unknown counts as idle."""
    try:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        return os.getloadavg()[0] >= BUSY_LOAD_PER_CORE * cores
    except (AttributeError, OSError):  # no load average (Windows) or none readable
        return False


def compile_kernels(missing: Sequence[str] | None = None) -> dict[str, object]:
    """Compile the replay kernels that have no cache entry, on two processes; what happened, for reporting.

    `missing` is `uncached_kernels()` when the caller already asked. Returns {"helper": exit status of the
    helper or None if it was not started or was stopped, "seconds": wall time}. Never raises (see the module
    docstring): an error in either part leaves its kernels to compile in the audit itself.
    """
    from auditor.replay.kernel import uncached_kernels

    start = time.perf_counter()
    report: dict[str, object] = {"helper": None, "seconds": 0.0}
    try:
        missing = uncached_kernels() if missing is None else missing
    except Exception:  # an optimisation only: never in the audit's way
        return report
    if not missing:
        return report
    helper_part = [name for name in HELPER if any(kernel.startswith(name + ".") for kernel in missing)]
    own_part = [name for name in HERE if any(kernel.startswith(name + ".") for kernel in missing)]
    helper = _start_helper(helper_part) if helper_part and not busy() else None
    try:
        if own_part:
            with contextlib.suppress(Exception):
                compile_part(own_part if helper is not None else own_part + helper_part)
        elif helper is None and helper_part:
            with contextlib.suppress(Exception):
                compile_part(helper_part)
        if helper is not None:
            own = time.perf_counter() - start
            with contextlib.suppress(subprocess.TimeoutExpired):  # hung: killed below
                report["helper"] = helper.wait(timeout=helper_wait(own))
    finally:
        if helper is not None and helper.poll() is None:
            helper.kill()
            helper.wait()
    report["seconds"] = time.perf_counter() - start
    return report


def _main(argv: Sequence[str]) -> int:
    """The helper: `--root ROOT MODULE...`; exit 0 when the part compiled, 1 otherwise (nothing printed)."""
    from auditor.replay.kernel import KERNEL_MODULES

    modules = helper_modules(argv, KERNEL_MODULES)
    if modules is None:
        return 1
    compile_part(modules)
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
