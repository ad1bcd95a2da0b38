"""Which compiled kernels are still to compile: the first run after an install waits for Numba, and says so.

Kernels are compiled on first use and cached on disk (`@njit(cache=True)`). The command line asks, before a
run, whether that first compilation is still to come for the kernels the run will use (the replay's:
`replay.kernel.uncached_kernels`; the readers' for the inputs found: `ingest.compiled.reader_kernels`), so a
wait of seconds is announced rather than taken for a hang. Here, at the bottom of the layers, so both ask
the same way.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable


def uncached(modules: Iterable[str]) -> list[str]:
    """The kernels defined by `modules` with no entry in Numba's on-disk cache (they compile on first use), as
    `module.name`.

    A kernel is cached when its cache index, where Numba looks for it (beside the source, a user-wide folder,
    or NUMBA_CACHE_DIR), lists a compiled version for this Numba and this very source: an index left by an
    older source (an upgrade over an old cache, an edited checkout) is obsolete, and Numba compiles again
    (its own index load, which answers nothing for a missing, foreign or stale index). Numba's cache object is
    internal API: if it changes shape, the answer is "unknown", reported as nothing uncached, so a wrong guess
    only loses the notice.
    """
    from numba.core.registry import CPUDispatcher

    missing = []
    for name in modules:
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if not isinstance(value, CPUDispatcher) or value.__module__ != name:
                continue
            try:
                load_index = value._cache._cache_file._load_index
            except AttributeError:
                continue
            try:
                listed = load_index()
            except Exception:  # a damaged index: Numba compiles again, as for a missing one
                listed = {}
            if not listed:
                missing.append(f"{name}.{attr}")
    return missing


def never_run(modules: Iterable[str]) -> list[str]:
    """Those of `modules` (in the order given) none of whose kernels is in Numba's cache: kernel modules not yet
    run since an install or since their source changed (which drops all of a module's entries at once).

    Why by module and not by kernel: some kernels run only for some data (the PHH scanner's `_count` only on
    buffers of several files, the JSON Lines scanner's on large files), so a module that has run can still
    have kernels no audit so far needed; they compile when one does, in a fraction of a second. A module with
    none cached is a first compile of seconds, which is what the first-run notices and the command line's
    first-run plan (`precompile.first_run`) are about.
    """
    modules = list(modules)
    missing = set(uncached(modules))
    return [name for name in modules if (kernels := _kernels_of(name)) and missing.issuperset(kernels)]


def _kernels_of(module_name: str) -> list[str]:
    """The kernels a module defines, as `module.name`."""
    from numba.core.registry import CPUDispatcher

    module = importlib.import_module(module_name)
    return [f"{module_name}.{attr}" for attr, value in vars(module).items()
            if isinstance(value, CPUDispatcher) and value.__module__ == module_name]
