"""The kernel replay engine (issue 16): Numba kernels over flat integer columns from Arrow.

`replay` is the one replay engine. It was ported from the Python engine and shown identical to it (every
facts table and every failure: sample_logs, the rule examples, the corpus, 1,000,000 simulated and hostile
hands), which was then deleted (issue 16); the golden facts snapshots and `auditor verify` hold it there.

Kernels are compiled on first use and cached on disk (`cache=True`). `uncached_kernels` tells, before a
run, whether that first compilation is still to come, so the command line can say why the first run
after an install waits; `warm.compile_kernels` then compiles them on two processes at once (the command
line and the suite's warm-up both use it).
"""

from __future__ import annotations

import importlib
from pathlib import Path

from auditor.replay.kernel.replay import replay

#: the modules holding the kernels every audit runs: the replay's. The notice asks only about these: the
#: PHH scanner and the columnar validator compile on the first PHH or Parquet input (under a second each),
#: and a run that never reads one would otherwise announce, every time, a compilation that never happens.
KERNEL_MODULES = ("auditor.replay.kernel.hand", "auditor.replay.kernel.table", "auditor.replay.kernel.pots",
                  "auditor.replay.kernel.blinds", "auditor.replay.kernel.showdown")


def uncached_kernels() -> list[str]:
    """Kernels of `KERNEL_MODULES` with no entry in Numba's on-disk cache (they compile on first use).

    A kernel is cached when its cache index file exists where Numba looks for it (beside the source,
    a user-wide folder, or NUMBA_CACHE_DIR). Numba's cache object is internal API: if it changes shape,
    the answer is "unknown", reported as nothing uncached, so a wrong guess only loses the notice.
    """
    from numba.core.registry import CPUDispatcher

    missing = []
    for name in KERNEL_MODULES:
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


__all__ = ["KERNEL_MODULES", "replay", "uncached_kernels"]
