"""What a reader yields: a hand with its source position, or a quarantine entry saying why not.

Every hand a reader meets ends as exactly one of these, so the summary can reconcile
hands read = hands audited + hands quarantined.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

#: characters that must never reach a terminal or a log line as they are: C0 and C1 controls (ESC
#: starts ANSI sequences, CR and LF forge lines), DEL, Unicode line separators and the bidirectional
#: overrides that make text display in another order than it reads
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """`text` with every unprintable character written as a visible escape (`\\x1b`, `\\u202e`).

    File names, hand ids and reasons quote attacker-chosen text (archive member names, player names);
    escaping rather than dropping keeps the evidence while making it harmless.
    """
    return _UNPRINTABLE.sub(lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100 else f"\\u{ord(m[0]):04x}", text)


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
        """file:line: reason — the form compilers use, so editors and CI can jump to it.

        Always one line of printable text, whatever the file name, hand id or reason hold.
        """
        where = f"{printable(self.file)}:{self.line}"
        hand = f" (hand {printable(self.hand_id)})" if self.hand_id else ""
        reason = printable(" ".join(self.reason.split()))
        return f"{where}{hand}: {reason}"
