"""What the local engine's fork server does once, so that every worker forked from it starts warm.

Why: a `spawn` worker is a fresh interpreter. Before its first partition it pays about 0.8 s of CPU importing
NumPy, pandas, Arrow, Numba and the auditor, and its first partition costs about 0.9 s more than the others,
half of it loading the kernels from Numba's on-disk cache (Numba then registered its lowering modules once per
process, with SciPy's `scipy.linalg` when installed; now a load sets up Numba's runtime only:
`model.compiled.njit`). `local.Workers` therefore starts its processes from a `forkserver` whose preload is this
module: the server imports it once, and each worker is then an `os.fork()` of an interpreter that has imported
everything a partition runs and loaded the cached kernels of the replay and of the run's readers (below; 22
overloads, ~0.4 s, when first measured). Measured (2026-12-01, 1,000,000 hands from Parquet): a worker starts in
0.015 s of CPU instead of 0.8, and its first partition costs ~0.65 s more than the others instead of ~0.9 (what
is left is the first partition of any process: ~30,000 more page faults growing its heap, ~0.4 s of system time,
and the first reads of the files); the server costs ~1.2-1.4 s of CPU once. Forked workers audit a partition at
the same speed as spawned ones (the same 8 partitions alternately in each: 8.06 s and 7.91 s of CPU).

The readers' kernels are loaded the same way for a run whose inputs need them: `local.start` passes the
reader modules of the inputs (`ingest.compiled.reader_modules`: the PHH scanner and converter, the JSON Lines
scanner, the columnar validator) to a server it starts, which imports them before this module, so the load
below finds them (each worker of a PHH run used to load the scanner's kernels itself, ~0.5 s). Only those and
the replay's are loaded: importing the worker's modules imports the JSON Lines, OHH and PokerStars scanners,
and loading all their cached kernels (111 of 147 overloads on a machine that had run them) made a Parquet run's
workers wait ~0.35 s more for kernels they never call. A worker loads any other it needs itself, on first use,
as it always could.

Importing this module is the warm-up (`multiprocessing.forkserver` can only import modules by name), and
it never raises: the fork server ignores only an ImportError in its preload, and a warm-up is an
optimisation. Whatever fails here (Numba's internal cache API changed shape, a cache file is torn) leaves
that kernel to load, or compile, in each worker on first use, as a spawn worker always did.

What it never does is compile a kernel: it loads only the signatures the cache's index holds for this very
source and this machine (`Cache._index_key`). The command line compiles a first run's kernels before the audit
starts the server (`precompile.first_run`: two processes at once), so the server finds them cached; the
pipeline called from Python on an empty cache has the workers compile on first use, as spawn workers did
(compiling here would hold every worker until the server had compiled all of it, and a server started
while something else compiles would compile the same kernels twice at once). A torn or missing entry is
a miss, never an error: Numba writes its cache files by renaming them into place.

The fork server forks while its main thread is idle in `select`: no Arrow compute has run in it (so no
Arrow thread pool is mid-task), the only other threads are OpenBLAS's and jemalloc's background threads,
which both reinitialise in a forked child (their `pthread_atfork` handlers), and Numba's compiled code is
plain executable memory the child inherits.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import sys
from collections.abc import Collection

#: modules a partition imports lazily (inside functions) on its first batch: imported here so a worker
#: forked from the server finds them loaded, and their kernels are seen by `load_cached_kernels`
LAZY_MODULES = ("auditor.replay.showdown", "auditor.replay.evaluate", "auditor.replay.fact_frames")
#: the reader modules imported before this module: in the fork server, those `server.worker_context` named for
#: the run's inputs (the preload imports them first), with what they import
READERS = tuple(name for name in sys.modules if name.startswith("auditor.ingest."))


def load_cached_kernels(prefix: str = "auditor.", modules: Collection[str] | None = None) -> int:
    """Load from Numba's on-disk cache every overload it holds of the kernels defined by the imported modules
    under `prefix` (only those of `modules`, when given); the number loaded. Nothing is compiled: a signature not
    in the index for this source and machine is skipped (it compiles on first use, where it always would have)."""
    from numba.core.registry import CPUDispatcher

    loaded = 0
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(prefix) or (modules is not None and name not in modules):
            continue
        for value in list(vars(module).values()):
            if not isinstance(value, CPUDispatcher) or value.__module__ != name:
                continue
            with contextlib.suppress(Exception):  # internal API: a change of shape only loses the warm-up
                cache = value._cache
                codegen = value.targetctx.codegen()
                for key in list(cache._cache_file._load_index()):
                    # the key also holds the machine's magic tuple and the source's bytecode hash: a key that
                    # is not exactly the one Numba would look up for this signature would be a miss, i.e. a
                    # compilation, so it is left alone
                    if key[0] not in value.overloads and cache._index_key(key[0], codegen) == key:
                        value.compile(key[0])
                        loaded += 1
    return loaded


def warm_up() -> int:
    """Import what a worker runs and load every cached kernel; the number of kernels loaded (0 when anything
    went wrong: never raises). The garbage collector is off meanwhile and what was made is frozen afterwards
    (`gc.freeze`), as the command line does for its own imports (`cli._machinery`): collecting while modules are
    made frees nothing, and a frozen object is never walked again, in the server or in a worker forked from it
    (whose collections would otherwise touch, and so copy, every page of the server's heap)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        import auditor.engines.local  # noqa: F401  (the worker's own module, with `partition` and the packs)
        from auditor.replay.kernel import KERNEL_MODULES

        for name in (*KERNEL_MODULES, *LAZY_MODULES):
            importlib.import_module(name)
        return load_cached_kernels(modules={*KERNEL_MODULES, *LAZY_MODULES, *READERS})
    except Exception:  # an optimisation only: the workers load or compile what they need themselves
        return 0
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


KERNELS_LOADED = warm_up()
