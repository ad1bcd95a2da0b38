"""What a run returns: the result every report reads, the progress a bar shows, and the caps both count.

The pipeline fills an `AuditResult` from the engines' partition results; the reports only read it. Being
in the model, it lets a report name a run's result without importing the pipeline or the engines
(layers one way: model < ingest < replay < check < report, orchestrated by engines and the pipeline).
Two of its fields hold objects of higher stages (`Pack` from check, `HandView` from report); they are
named for type hints only (`TYPE_CHECKING`), never imported when the program runs.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from auditor.model.inputs import InputFile
from auditor.model.periods import Period
from auditor.model.records import QUARANTINE_CODES, Quarantined, ReaderNote

if TYPE_CHECKING:
    from auditor.check.packs import Pack
    from auditor.report.hands import HandView

#: findings of one rule in one hand kept and listed; the rest are counted per rule, not kept (hostile
#: input: a hand of 2,000 checks facing a bet gave 2,000 findings of one rule, and a 768 KB gzip of
#: such hands 3.48 million findings held until the end, about 5 GB). A hundred say all a reviewer needs
#: of one rule broken over and over in one hand; how many more there were is in the summary.
MAX_FINDINGS_PER_HAND_RULE = 100

#: hands with findings whose view a run keeps (the first, in the findings' order): the HTML page
#: replays the findings of these hands, and `auditor explain` may ask for as many hands of one id
MAX_VIEWS = 500

#: where a hand is: (file as findings name it, line)
HandKey = tuple[str, int]

#: a rule is *partly assessed* when more than this share of the hands it applies to lack a fact it needs
PARTLY_ASSESSED_SHARE = 0.5


def partly_assessed(coverage: pd.DataFrame) -> pd.DataFrame:
    """Coverage rows of the rules not assessable on most of the hands they apply to (more than
    PARTLY_ASSESSED_SHARE of them): reports show these as partly assessed, never as "no violation"."""
    if not len(coverage):
        return coverage
    scope = coverage["hands_in_scope"]
    return coverage[(scope > 0) & (coverage["hands_not_assessable"] > scope * PARTLY_ASSESSED_SHARE)]


@dataclass(frozen=True)
class Progress:
    """Where a run is, for a progress bar: reported after every file and every batch."""

    files_done: int
    files_total: int
    hands_read: int
    seconds: float


@dataclass
class AuditResult:
    findings: pd.DataFrame
    coverage: pd.DataFrame
    quarantined: list[Quarantined]
    hands_read: int
    hands_audited: int
    inputs: list[InputFile]
    packs: dict[str, Pack]
    seconds: float
    skipped_files: list[Path] = field(default_factory=list)
    #: hands read per input file (archive members as `archive!member`), so each file reconciles too
    read_per_file: Counter = field(default_factory=Counter)
    #: hands not covered (their pack has no rule for their game), by (pack, variant, structure)
    not_covered: Counter = field(default_factory=Counter)
    #: the same hands by file
    not_covered_per_file: Counter = field(default_factory=Counter)
    #: what readers said about files (a room convention applied), one per (file, code), in input order
    notes: list[ReaderNote] = field(default_factory=list)
    #: skipped files that are recognisably hand histories of a room this auditor cannot read: path -> what
    #: they are (`detect.recognise_other`: "888poker hand history: no reader for this room")
    skipped_hand_histories: dict[Path, str] = field(default_factory=dict)
    #: skipped files that are a room's other documents, no hand history (`detect.recognise_document`): path ->
    #: what they are ("Winamax tournament summary"); listed with the files that are no hand logs, never unaudited
    skipped_documents: dict[Path, str] = field(default_factory=dict)
    #: skipped entries of a folder that are not regular files, never opened: path -> why (`not_regular`:
    #: "a FIFO (named pipe)", "a link to a device", "a link to nothing")
    skipped_not_regular: dict[Path, str] = field(default_factory=dict)
    #: findings left out of the listing because one rule already had `MAX_FINDINGS_PER_HAND_RULE` of them
    #: in the same hand, by (pack, rule id); counted in every total, so the summary still reconciles
    findings_not_listed: Counter = field(default_factory=Counter)
    #: the evidence manifest's record (`report.manifest`): when the run started and ended (UTC)
    started_at: datetime | None = None
    ended_at: datetime | None = None
    #: the command line as typed (None when called as a library) and the directory it ran in
    command: tuple[str, ...] | None = None
    working_directory: str | None = None
    #: per input (in `inputs` order), the size and SHA-256 of the bytes its readers read
    #: (`manifest.fingerprint_input`, taken once before the run)
    input_digests: list[dict[str, Any]] = field(default_factory=list)
    #: per file read (archive members as `archive!member`), the first and last hand start (`engines.periods`)
    hand_periods: dict[str, Period] = field(default_factory=dict)
    #: indices of inputs whose size, modification time or inode changed between hashing and the run's end
    changed_during_audit: list[int] = field(default_factory=list)
    #: per pack name, its manifest entry (`manifest.pack_entry`: files and digests), taken when it was loaded
    pack_records: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: the paths the run was given (files, folders, `-`), as given: `check-manifest` looks in them for files
    #: added since
    paths_given: list[str] = field(default_factory=list)
    #: what the reports show of the hands, kept while they were audited (a report never reads a log again,
    #: nor replays a hand): hands replayed per table id (findings per 1,000 hands by table) ...
    table_hands: Counter = field(default_factory=Counter)
    #: ... file, line and start time of every hand with findings (findings over time) ...
    finding_hands: pd.DataFrame | None = None
    #: ... the views (`report.hands.HandView`, the hand and the table state at every event) of the first
    #: `view_limit` hands with findings, by (file, line) in the findings' order ...
    views: dict[HandKey, HandView] = field(default_factory=dict)
    #: ... and of the hands asked for by id (`audit(keep_hands=...)`, for `auditor explain`)
    asked_views: dict[HandKey, HandView] = field(default_factory=dict)
    view_limit: int = MAX_VIEWS

    @property
    def findings_total(self) -> int:
        """Findings listed plus those left out by the per-hand cap."""
        return len(self.findings) + sum(self.findings_not_listed.values())

    @property
    def hands_quarantined(self) -> int:
        return len(self.quarantined)

    @property
    def hands_not_covered(self) -> int:
        return sum(self.not_covered.values())

    @property
    def unaudited(self) -> bool:
        """Something went unaudited: a hand quarantined or not covered, or a hand-history file skipped."""
        return bool(self.quarantined or self.hands_not_covered or self.skipped_hand_histories)

    def quarantined_by_code(self) -> dict[str, int]:
        """Quarantined hands per code (`QUARANTINE_CODES`), in that list's order, codes with none left out."""
        counts = Counter(q.code for q in self.quarantined)
        return {code: counts[code] for code in QUARANTINE_CODES if counts[code]}

    def partly_assessed(self) -> pd.DataFrame:
        """Coverage rows of the rules not assessable on most of the hands they apply to."""
        return partly_assessed(self.coverage)

    def per_file(self) -> pd.DataFrame:
        """One row per file: hands read = audited + not covered + quarantined, and findings."""
        files = list(self.read_per_file)
        quarantined = Counter(q.file for q in self.quarantined)
        found = Counter(self.findings["file"]) if len(self.findings) else Counter()
        read = [self.read_per_file[f] for f in files]
        held = [quarantined.get(f, 0) for f in files]
        outside = [self.not_covered_per_file.get(f, 0) for f in files]
        return pd.DataFrame({"file": files, "hands_read": read,
                             "hands_audited": [r - q - o for r, q, o in zip(read, held, outside, strict=True)],
                             "hands_not_covered": outside, "hands_quarantined": held,
                             "findings": [found.get(f, 0) for f in files]})
