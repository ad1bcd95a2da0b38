"""The kernel replay engine: Numba kernels over flat integer columns from Arrow.

`replay` is the one replay engine. It was ported from the Python engine and shown identical to it (every
facts table and every failure: sample_logs, the rule examples, the corpus, 1,000,000 simulated and hostile
hands), which was then deleted; the golden facts snapshots and `auditor verify` hold it there.

Kernels are compiled on first use and cached on disk (`cache=True`). `uncached_kernels` tells, before a
run, whether that first compilation is still to come, so the command line can say why the first run
after an install waits; `warm.compile_kernels` then compiles them on two processes at once (the command
line and the suite's warm-up both use it).
"""

from __future__ import annotations

from auditor.model.compiled import uncached
from auditor.replay.kernel.replay import replay

#: the modules holding the kernels every audit runs: the replay's. The readers' kernels (the PHH scanner and
#: converter, the JSON Lines scanner, the columnar validator: together up to ~15 s of CPU to compile) run only
#: for some inputs, so the pipeline asks about them once it knows the inputs (`ingest.compiled`).
KERNEL_MODULES = ("auditor.replay.kernel.hand", "auditor.replay.kernel.table", "auditor.replay.kernel.pots",
                  "auditor.replay.kernel.blinds", "auditor.replay.kernel.showdown")


def uncached_kernels() -> list[str]:
    """Kernels of `KERNEL_MODULES` with no entry in Numba's on-disk cache (they compile on first use)."""
    return uncached(KERNEL_MODULES)


__all__ = ["KERNEL_MODULES", "replay", "uncached_kernels"]
