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
from pathlib import Path


def uncached(modules: Iterable[str]) -> list[str]:
    """The kernels defined by `modules` with no entry in Numba's on-disk cache (they compile on first use), as
    `module.name`.

    A kernel is cached when its cache index file exists where Numba looks for it (beside the source, a
    user-wide folder, or NUMBA_CACHE_DIR). Numba's cache object is internal API: if it changes shape, the answer
    is "unknown", reported as nothing uncached, so a wrong guess only loses the notice.
    """
    from numba.core.registry import CPUDispatcher

    missing = []
    for name in modules:
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if not isinstance(value, CPUDispatcher) or value.__module__ != name:
                continue
            try:
                index = Path(value._cache._cache_file._index_path)
            except AttributeError:
                continue
            if not index.exists():
                missing.append(f"{name}.{attr}")
    return missing
