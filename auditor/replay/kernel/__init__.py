"""The kernel replay engine (issue 16): Numba kernels over flat integer columns from Arrow.

`replay` has exactly the contract of `auditor.replay.engine.replay` (the reference oracle until the two are
shown identical by `scripts/compare_engines.py` and `tests/test_kernel_engine.py`). Not wired into the
pipeline yet.
"""

from auditor.replay.kernel.replay import replay

__all__ = ["replay"]
