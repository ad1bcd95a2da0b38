"""Suite-wide settings, applied before any test module imports the auditor.

The replay kernels are compiled with Numba's bounds checks for the whole suite: a kernel index that a
hostile or malformed log pushes out of range raises IndexError in a test instead of reading stray memory
silently. Numba's on-disk cache does not key on that flag (a kernel cached unchecked would be loaded
unchecked), so checked kernels are cached in a folder of their own. Both can be overridden from the
environment.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

os.environ.setdefault("NUMBA_BOUNDSCHECK", "1")
os.environ.setdefault("NUMBA_CACHE_DIR", str(Path(tempfile.gettempdir()) / "poker-auditor-numba-boundscheck"))
