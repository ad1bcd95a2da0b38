"""Where the project's data files live.

The schemas and built-in rule packs sit at the top of the repository (they are documents users
read and edit, not package internals); the package finds them relative to itself, which holds
for a checkout and for the editable install the README uses.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_DIR = ROOT / "schemas"
RULES_DIR = ROOT / "rules"
