"""What a reader yields: a hand with its source position, a quarantine entry saying why not, or a note.

Every hand a reader meets ends as exactly one SourceHand or Quarantined, so the summary can reconcile
hands read = hands audited + hands not covered + hands quarantined. A ReaderNote is not a hand: it is
something the reader wants the user to know about a file (a room's export convention it applied), said
once per file and kind, never a finding and never counted as a hand.

Quarantine codes are a fixed, stable list (QUARANTINE_CODES): reports group quarantines by code, so
the same cause must get the same code from every reader. A reader refuses a hand only when the
canonical log cannot represent what the text says (see auditor/ingest/__init__.py); an *illegal*
action is never a reason to quarantine.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
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


#: code -> what it means. Stable: scripts and dashboards group on these names.
QUARANTINE_CODES: dict[str, str] = {
    "unsupported-game": "a game, variant or betting structure the canonical log and engine do not have",
    "unsupported-feature": "a feature of the hand the canonical log cannot hold (run it twice, cash-out, "
                           "more seats or pots than the log numbers)",
    "unsupported-format": "a file in a format (a room's export) the auditor has no reader for, or not a hand log",
    "truncated": "the hand's text or record stops before it is complete",
    "cancelled": "the room cancelled the hand",
    "damaged": "text or data that cannot be parsed (bad JSON, bad TOML, unreadable file, lines not understood)",
    "invalid-record": "a canonical record that breaks the hand-log schema or its own consistency",
    "inconsistent-amounts": "amounts that cannot be placed consistently (stacks, totals, returns that contradict "
                            "each other)",
    "limit": "an input limit was passed (sizes, counts, decompression ratio); see auditor/ingest/limits.py",
    "internal-error": "the reader itself failed (a bug, not the file's fault); the rest of the file is not read",
    "lost-worker": "the process auditing this part of the run died; its hands were not audited",
}


@dataclass(frozen=True, slots=True)
class SourceHand:
    hand: dict[str, Any]
    file: str
    line: int
    #: where the input says the hand came from, when that is not `file`:`line` itself (a Parquet dataset's
    #: stored `file`/`line` columns). Shown as provenance, never used to count, group or find the hand.
    claimed_file: str | None = None
    claimed_line: int | None = None


@dataclass(frozen=True, slots=True)
class Quarantined:
    file: str
    line: int
    reason: str
    hand_id: str | None = None
    #: one of QUARANTINE_CODES: required, so that no quarantine is ever filed under a guessed cause
    code: str = field(kw_only=True)
    #: the table the hand was at, when the reader could tell: the table's next hand then knows that
    #: the hand before it is missing from the audit (rules about the previous hand are not assessable)
    table_id: str | None = None

    def __post_init__(self) -> None:
        if self.code not in QUARANTINE_CODES:
            raise ValueError(f"unknown quarantine code {self.code!r}")

    def one_line(self) -> str:
        """file:line: reason — the form compilers use, so editors and CI can jump to it.

        Always one line of printable text, whatever the file name, hand id or reason hold.
        """
        where = f"{printable(self.file)}:{self.line}"
        hand = f" (hand {printable(self.hand_id)})" if self.hand_id else ""
        reason = printable(" ".join(self.reason.split()))
        return f"{where}{hand}: [{self.code}] {reason}"


@dataclass(frozen=True, slots=True)
class ReaderNote:
    """Something a reader tells the user about a file: a room's convention it applied (for example an
    older PokerStars export that writes no `Uncalled bet` line). Shown once per (file, code) in the
    summary and reports; never a finding, never a hand."""

    file: str
    line: int
    code: str
    text: str

    def one_line(self) -> str:
        return f"{printable(self.file)}:{self.line}: [{printable(self.code)}] {printable(' '.join(self.text.split()))}"
