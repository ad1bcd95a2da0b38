"""Writers from canonical hands to the rooms' formats: PokerStars text, Open Hand History, PHH.

They exist to prove the readers: `auditor verify --via FORMAT` writes every simulated and mutated
hand in FORMAT, reads it back with that format's reader and audits what comes back, so a reader is
measured on exactly the hands the canonical log holds (one planted violation each).

Each writer module exposes:

- `cannot_express(hand) -> str | None`: why this format cannot hold `hand` (a variant or event the
  format has no words for, e.g. PHH has no seat draw), or None when it can. Verify lists the
  categories a format cannot express with these reasons instead of counting them as misses.
- `write_hands(hands, path) -> int`: write the hands (canonical dicts, in table order) to one file
  of the format at `path`, following the format's own conventions; returns how many were written.

A writer never judges: an illegal action in the canonical hand is written as the room would have
printed it, so the reader records it and a rule reports it.
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: format name -> module holding its writer (imported on first use)
WRITERS: dict[str, str] = {
    "pokerstars": "auditor.export.pokerstars",
    "ohh": "auditor.export.ohh",
    "phh": "auditor.export.phh",
}
#: the file suffix each format's reader recognises
SUFFIXES: dict[str, str] = {"pokerstars": ".txt", "ohh": ".ohh", "phh": ".phhs"}


def writer(name: str) -> ModuleType:
    """The writer module of format `name` (KeyError for a format with no writer)."""
    return importlib.import_module(WRITERS[name])
