"""Where the project's files live.

`ROOT` is the source checkout (the folder holding `pyproject.toml`), for development tools that write
into it (`python -m auditor.check.docs --write`); an installed package has no checkout (`IS_CHECKOUT`
is then false), so nothing the `auditor` command runs may depend on it. The schemas and built-in rule
packs are package data, found with `importlib.resources` by `auditor.resources`; `SCHEMA_DIR` and
`RULES_DIR` are kept for callers that want a folder, and are the same folders `auditor.resources` reads.
"""

from __future__ import annotations

from pathlib import Path

from auditor.resources import rules_dir, schema_dir

ROOT = Path(__file__).resolve().parent.parent
#: whether ROOT is a source checkout; for an installed package it is site-packages, and a path shown relative
#: to it (auditor/data/rules/...) would point nowhere a user can find from their directory
IS_CHECKOUT = (ROOT / "pyproject.toml").is_file() and (ROOT / "auditor" / "paths.py").is_file()
SCHEMA_DIR = schema_dir()
RULES_DIR = rules_dir()
