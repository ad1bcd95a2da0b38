"""Where the project's files live.

`ROOT` is the source checkout (the folder holding `pyproject.toml`), for development tools that write
into it (`python -m auditor.check.docs --write`); an installed package has no checkout, so nothing the
`auditor` command runs may depend on it. The schemas and built-in rule packs are package data, found
with `importlib.resources` by `auditor.resources`; `SCHEMA_DIR` and `RULES_DIR` are kept for callers
that want a folder, and are the same folders `auditor.resources` reads.
"""

from __future__ import annotations

from pathlib import Path

from auditor.resources import rules_dir, schema_dir

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_DIR = schema_dir()
RULES_DIR = rules_dir()
