"""What a reader yields: a hand with its source position, or a quarantine entry saying why not.

Every hand a reader meets ends as exactly one of these, so the summary can reconcile
hands read = hands audited + hands quarantined.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class SourceHand:
    hand: dict[str, Any]
    file: str
    line: int


@dataclass(frozen=True, slots=True)
class Quarantined:
    file: str
    line: int
    reason: str
    hand_id: str | None = None

    def one_line(self) -> str:
        """file:line: reason — the form compilers use, so editors and CI can jump to it."""
        where = f"{self.file}:{self.line}"
        hand = f" (hand {self.hand_id})" if self.hand_id else ""
        reason = " ".join(self.reason.split())
        return f"{where}{hand}: {reason}"
