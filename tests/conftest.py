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

# Property tests draw the same examples on every run, so a CI result is reproducible and a red run is not a
# lottery ticket; the fuzz scripts (scripts/fuzz.py) and `AUDITOR_HYPOTHESIS=explore` draw fresh ones.
from hypothesis import settings

settings.register_profile("suite", derandomize=True, print_blob=True)
settings.register_profile("explore", print_blob=True)
settings.load_profile("explore" if os.environ.get("AUDITOR_HYPOTHESIS") == "explore" else "suite")
