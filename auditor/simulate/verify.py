"""The accuracy report: precision and recall of the auditor, per finding category, per rule pack.

An auditor is only worth what its precision and recall are, so both are measured, not assumed:

1. For each pack, legal hands are simulated over the games the pack's rules cover (every variant
   with all four betting structures; 2 to 10 seats, heads-up tables, short stacks and all-ins with
   side pots, capped limit rounds, split pots with odd chips, seat draws, players sitting out and
   coming back to make up missed blinds, draws). Every finding on them is a false finding.
2. Each clean hand also gives one mutated copy: a mutator from :mod:`auditor.simulate.mutate` that
   the pack is expected to catch (one of the rules it names is in the pack and applies to the
   hand's game) plants exactly one violation. The mutator used is the one with the fewest planted
   so far that finds a place in the hand, so rare faults (an odd chip, a re-raise after a short
   all-in) are planted wherever the play allows them.
3. Each mutated hand is audited in isolation: it gets its own input name and hand ids, so no state
   from the clean sequence reaches it, preceded only by the table's earlier hands the mutator says
   the fault depends on (a skipped hand, a repeated id, the hands a returning player sat out).
   Its expected finding is found when the audit reports a finding of that category on that hand,
   at the event the mutator names when it names one; every other finding on the unit is a false
   finding.

Per category: hands planted, expected findings, found, missed, false findings (on clean hands and
extra on mutated ones), precision = found / (found + false), recall = found / expected. A category
the pack can report with no planted hand is not measured, and counts as a failure like any figure
below 100 %: the report proves nothing about it.

Hands go through the same code as ``auditor audit`` from the canonical tables on (schema and
consistency checks, :func:`~auditor.ingest.tables.build_tables`, :func:`~auditor.replay.kernel.replay`,
:func:`~auditor.check.run.check`), in memory and in large batches, without writing files. With a
`repro_dir`, each miss and false finding (the first few of each kind) is written there as a JSON
Lines file that ``auditor audit`` reproduces.

With `via` a format that has a writer (:mod:`auditor.export`: pokerstars, ohh, phh), every unit is
also carried through that format: the clean hands of a batch and each planted unit are written with
the format's writer to a file of their own in a temporary folder, read back with the real reader
(:func:`auditor.ingest.detect.read_file`, format detected as ``auditor audit`` does) and audited from
what the reader gave back. PHH, which an audit of a folder reads column-wise (``ingest.phh_tables``), is
written the other way in every other round trip too, one ``.phh`` file per hand, read back both hand by hand
and column-wise (:mod:`auditor.simulate.readback`); OHH, whose large files an audit reads column-wise
(``ingest.ohh_tables``), is read both ways in every other round trip: the column-wise tables are audited, and
a hand the two readers do not agree on is a problem, "not audited". A room's text (PokerStars) has one reader,
the dialect engine (``ingest.rooms``), and is read by it alone. The report says how many hands each gave.
A hand the writer cannot express is not written: it is counted as not
expressible, with the writer's reason, and so is every planted fault of a category the format cannot
show at all (the writer's ``HIDDEN_CATEGORIES``, e.g. burns in PokerStars text). A hand the reader
quarantines is a problem of kind "not audited", never dropped unsaid: a planted unit that loses a hand
counts as a miss, a clean hand lost makes the run fail. A format that states no chip unit (the writer's
``IMPLIED_CHIP_UNIT``: all three, whose readers take one chip) cannot write every hand in chips of 50, the
simulator's unit: OHH and PHH no pot split with odd chips, none a raked hand. Through it, half of the
tables (``IMPLIED_UNIT_SHARE``) are played in the unit its reader takes, so odd-chip and rake are measured
there; the other tables are the canonical run's own.
"""

from __future__ import annotations

import json
import pickle
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from auditor.check.packs import Pack, builtin_pack_paths, resolve_pack
from auditor.engines.ledger import check_whole
from auditor.export import SUFFIXES, writer
from auditor.ingest.detect import read_file
from auditor.ingest.jsonl import consistency_error
from auditor.ingest.tables import build_tables, concat_tables
from auditor.ingest.validate import schema_error
from auditor.model.records import ReaderNote, SourceHand
from auditor.model.tables import CanonicalTables
from auditor.replay.kernel import replay
from auditor.replay.state import TableState
from auditor.resources import room_names, xml_room_names
from auditor.simulate import readback
from auditor.simulate.mutate import REGISTRY, Hand, Mutator, Planted, primed, register_pack
from auditor.simulate.play import STRUCTURES
from auditor.simulate.tables import simulate_mixed

__all__ = ["TABLE_COLUMNS", "PackAccuracy", "Problem", "VerifyResult", "accuracy", "applicable_mutators",
           "audit_planted", "format_report", "pack_games", "verify", "verify_pack"]

TABLE_COLUMNS = ["pack", "category", "hands", "expected", "found", "missed", "false_clean", "false_extra", "false",
                 "precision", "recall"]
#: reproducers written per pack and kind of problem (miss, false finding) and category
REPRO_PER_KIND = 5
#: the formats `verify_pack(via=...)` can carry hands through; canonical is the in-memory path
VIA = ("canonical", *SUFFIXES)
#: why a clean hand is left out after an earlier hand of its table could not be written
GAP = "an earlier hand of its table could not be written, so the table's sequence of hands would have a gap"
#: hands per table session: short enough that a few thousand hands visit every game of a pack,
#: long enough for the cross-hand faults (a skipped hand, blinds missed and made up)
SESSION_HANDS = (10, 60)
#: share of the tables played in the chip its reader takes, carried through a format that states no chip unit
#: (the writer's IMPLIED_CHIP_UNIT): in chips of 50 such a format cannot write odd chips (OHH, PHH) or rake,
#: so without these tables odd-chip and rake would not be measured; the rest keep chips of 50, which the
#: format carries wherever no pot leaves an odd chip and nothing is raked
IMPLIED_UNIT_SHARE = 0.5


@dataclass(frozen=True)
class Problem:
    """One miss or false finding, with where to reproduce it."""

    pack: str
    kind: str  # "missed", "false on clean hand", "extra on mutated hand", "not audited"
    category: str
    rule_id: str | None
    mutator: str | None
    hand_id: str
    detail: str
    reproducer: Path | None = None

    def one_line(self) -> str:
        rule = f" [{self.rule_id}]" if self.rule_id else ""
        planted = f" (planted by {self.mutator})" if self.mutator else ""
        where = f"; reproducer {self.reproducer}" if self.reproducer else ""
        return f"{self.pack}: {self.kind} {self.category}{rule} on {self.hand_id}{planted}: {self.detail}{where}"


@dataclass
class PackAccuracy:
    pack: str
    version: str
    clean_hands: int
    mutated_hands: int
    seconds: float
    table: pd.DataFrame
    #: per mutator: planted and found
    mutators: pd.DataFrame
    problems: list[Problem]
    #: rules that reported a planted violation (the expected finding) at least once
    rules_caught: set[str]
    #: rules of the pack that can report a category no mutator planted here
    unmeasured: list[str]
    #: rules the pack's settings keep from ever reporting (rule id -> why), not measured
    idle: dict[str, str] = field(default_factory=dict)
    #: the format the hands were carried through ("canonical": in memory, no file)
    via: str = "canonical"
    #: planted faults the format cannot express: category -> reason -> units (not in the table)
    inexpressible: dict[str, Counter] = field(default_factory=dict)
    #: clean hands the format cannot express, by reason (not written, not audited)
    clean_inexpressible: Counter = field(default_factory=Counter)
    #: categories the format cannot express at all (no planted unit could be written): category -> reasons (the
    #: category's own when it has any, see `_verify_pack`)
    unexpressed: dict[str, list[str]] = field(default_factory=dict)
    #: hands read back through the format, and how many of them a column-wise reader gave (the tables audited;
    #: PHH's `.phh` files, `_Via.round_trip`)
    read_back: int = 0
    column_wise: int = 0

    @property
    def ok(self) -> bool:
        """Every measured category at 100 %; carried through a format, also no hand lost by its reader."""
        t = self.table
        if self.via != "canonical":
            if any(q.kind == "not audited" for q in self.problems):
                return False
            if not len(t) and self.unexpressed:  # the format can hold none of the pack's games or faults
                return not self.problems and not self.unmeasured
        return bool(len(t)) and bool(((t["precision"] == 1.0) & (t["recall"] == 1.0)).all())


@dataclass
class VerifyResult:
    packs: list[PackAccuracy] = field(default_factory=list)

    @property
    def table(self) -> pd.DataFrame:
        """The accuracy table of every pack, one row per (pack, category)."""
        return pd.concat([p.table for p in self.packs], ignore_index=True) if self.packs else \
            pd.DataFrame(columns=TABLE_COLUMNS)

    @property
    def problems(self) -> list[Problem]:
        return [q for p in self.packs for q in p.problems]

    @property
    def ok(self) -> bool:
        """Every category of every pack measured at 100 % precision and 100 % recall."""
        return bool(self.packs) and all(p.ok for p in self.packs)


def pack_games(pack: Pack) -> list[tuple[str, str]]:
    """(variant, structure) for every variant the pack's rules name, in all four betting structures."""
    variants = sorted({v for rule in pack.rules for v in rule.variants})
    return [(v, s) for v in variants for s in STRUCTURES]


def applicable_mutators(pack: Pack, variant: str, structure: str,
                        registry: dict[str, Mutator] | None = None) -> list[Mutator]:
    """The mutators whose fault `pack` must catch in this game: one of the rules they name is in the
    pack and applies to the variant and structure."""
    rules = {r.id: r for r in pack.rules}
    out = []
    for m in (registry or REGISTRY).values():
        if m.live(pack.house) and any(rid in rules and variant in rules[rid].variants
                                      and structure in rules[rid].structures for rid in m.rules):
            out.append(m)
    return out


def idle_rules(pack: Pack, registry: dict[str, Mutator] | None = None) -> dict[str, str]:
    """Rules of `pack` no mutator can break under its settings, with why (e.g. no posted rake schedule):
    the pack cannot report them, so they are not measured and not counted against it."""
    named: dict[str, list[Mutator]] = {}
    for m in (registry or REGISTRY).values():
        for rid in m.rules:
            named.setdefault(rid, []).append(m)
    out = {}
    for rule in pack.rules:
        mutators = named.get(rule.id, [])
        if mutators and not any(m.live(pack.house) for m in mutators):
            out[rule.id] = "; ".join(sorted({m.idle_reason for m in mutators}))
    return out


def _copy(hand: Hand) -> Hand:
    # hands are plain JSON-like data; pickling is three to four times faster than copy.deepcopy
    return pickle.loads(pickle.dumps(hand, pickle.HIGHEST_PROTOCOL))


def _rename(hands: Sequence[Hand], tag: str) -> list[Hand]:
    """Copies with hand ids made unique to this unit (a repeated id stays repeated within it)."""
    out = []
    for h in hands:
        c = _copy(h)
        c["hand_id"] = f"{c['hand_id']}~{tag}"
        out.append(c)
    return out


def _invalid(hand: Hand) -> str | None:
    """What would quarantine the hand when read from a log (schema, then replay-blocking faults)."""
    return schema_error(hand) or consistency_error(hand)


def _audit(tables: CanonicalTables, pack: Pack, state: TableState) -> tuple[pd.DataFrame, list[tuple[str, int, str]]]:
    """Findings of the hands of `tables` under `pack` (the audit pipeline from the canonical tables on), and the
    hands the replay could not follow as (file, line, reason)."""
    hands = tables.hands.to_pandas()
    hands["rule_pack"] = pack.name
    facts, failures = replay(tables, [pack.house] * len(hands), state)
    failed = []
    if failures:
        rows = {h for h, _ in failures}
        failed = [(hands.at[h, "file"], int(hands.at[h, "line"]), reason) for h, reason in failures]
        hands = hands[~hands["hand"].isin(rows)]
    findings, _ = check_whole(facts, hands, {pack.name: pack})  # scope: run rules too, over these hands
    return findings, failed


def _ohh_tables() -> Callable[[Path], Iterable]:
    from auditor.ingest.ohh_tables import read_ohh_tables

    return read_ohh_tables


#: per format whose large files an audit reads column-wise, that reader (as a maker, imported when used): called
#: on verify's small files directly, so its size threshold (`ingest.compiled.takes_column_wise`) is
#: waived
COLUMN_WISE: dict[str, Callable[[], Callable[[Path], Iterable]]] = {"ohh": _ohh_tables}


class _Via:
    """One format's round trip: hands written with its writer to a file, read back with the real reader."""

    def __init__(self, name: str, folder: Path):
        self.name = name
        self.writer = writer(name)
        self.suffix = getattr(self.writer, "SUFFIX", SUFFIXES[name])
        self.hidden: dict[str, str] = dict(getattr(self.writer, "HIDDEN_CATEGORIES", {}))
        self.folder = folder
        self.files = 0
        #: hands read back, and of them hands a column-wise reader gave (reported: what the proof went through)
        self.read_back = 0
        self.column_wise = 0
        implied = getattr(self.writer, "IMPLIED_CHIP_UNIT", None)
        #: (share, unit) of the tables simulated in the reader's chip, for a format that states no chip unit
        self.chip_unit_mix = None if implied is None else (IMPLIED_UNIT_SHARE, int(implied))

    def cannot(self, hands: Sequence[Hand], category: str | None = None) -> str | None:
        """Why the format cannot carry these hands in one file (or a fault of `category`), None when it can.
        Besides `cannot_express`, a writer may name `HIDDEN_CATEGORIES` (faults it cannot show at all) and
        `cannot_express_together(hands)` (what only several hands in one file show)."""
        if category in self.hidden:
            return self.hidden[category]
        for h in hands:
            reason = self.writer.cannot_express(h)
            if reason:
                return reason
        together = getattr(self.writer, "cannot_express_together", None)  # what only several hands show
        return together(hands) if together is not None and len(hands) > 1 else None

    def seq(self, hand: Hand, seq: int | None) -> int | None:
        """Where event `seq` of `hand` is in the hand read back (the writer's event_index; same by default)."""
        index = getattr(self.writer, "event_index", None)
        return seq if seq is None or index is None else index(hand)[seq]

    def round_trip(self, hands: Sequence[Hand], name: str, lines: Sequence[int]) -> readback.ReadBack:
        """Write `hands` and read them back as input `name`, hand k at line `lines[k]`: the tables of the
        hands read and, per hand written, the reader's quarantine entry or None (a reader that gives back more
        or fewer hands than were written has every hand counted as quarantined).

        PHH is written two ways in turn, because an audit reads it two ways: one `.phhs` file read hand by
        hand, and one `.phh` file per hand, read both hand by hand and column-wise (`readback.phh_files`:
        the tables audited are the column-wise reader's, which must agree with the other on every hand). A
        format whose large files are read column-wise (`COLUMN_WISE`) is read both ways in every other round
        trip likewise (`readback.one_file`)."""
        self.files += 1
        column_wise = COLUMN_WISE.get(self.name)
        if self.name == "phh" and self.files % 2 == 0:
            back = readback.phh_files(hands, self.folder, str(self.files))
            self.column_wise += back.column_wise
        elif column_wise is not None and self.files % 2 == 0:
            back = readback.one_file(hands, self.folder / f"{self.files}{self.suffix}", self.writer.write_hands,
                                     column_wise(), self.name)
            self.column_wise += back.column_wise
        else:
            back = self._one_file(hands, name, lines)
            self.column_wise += back.column_wise
        self.read_back += sum(q is None for q in back.lost)
        return readback.relabel(back, name, lines)

    def _one_file(self, hands: Sequence[Hand], name: str, lines: Sequence[int]) -> readback.ReadBack:
        """`hands` in one file of the format, read back hand by hand (`detect.read_file`, as a small input is)."""
        path = self.folder / f"{self.files}{self.suffix}"
        try:
            self.writer.write_hands(hands, path)
            items = [it for it in read_file(path, name=name) if not isinstance(it, ReaderNote)]
        finally:
            path.unlink(missing_ok=True)
        return readback.from_items(items, [str(path)], len(hands), getattr(self.writer, "NEWEST_FIRST", False))

    def write_copy(self, hands: Sequence[Hand], path: Path) -> None:
        """The format's file of `hands` beside a reproducer."""
        self.writer.write_hands(hands, path.with_suffix(self.suffix))


@dataclass
class _Unit:
    file: str
    planted: Planted
    hands: list[Hand]
    quarantined: str | None = None
    #: where the expected finding's event is in the hands audited (planted.seq unless a format moved it)
    seq: int | None = None
    #: the reader quarantined a hand of the unit (carried through a format)
    unread: bool = False

    def __post_init__(self) -> None:
        if self.seq is None:
            self.seq = self.planted.seq


@dataclass
class _Outcome:
    """What the audit said about one planted unit."""

    unit: _Unit
    found: dict | None  # the expected finding, if reported
    extra: list[dict]  # every other finding on the unit
    failure: str | None  # why the mutated hand was not audited (quarantined, replay failed)


_FINDING_KEYS = ["file", "line", "category", "seq", "rule_id", "hand_id", "message"]


def _records(findings: pd.DataFrame) -> list[dict]:
    """Findings as plain dicts (seq None when the finding names no event): matching them one unit
    at a time in pandas costs more than the audit."""
    if not len(findings):
        return []
    out = findings[_FINDING_KEYS].astype(object).to_dict("records")
    for r in out:
        r["seq"] = None if pd.isna(r["seq"]) else int(r["seq"])
        r["line"] = int(r["line"])
    return out


def audit_planted(pack: Pack, planted: Sequence[Planted], tag: str = "u") -> list[_Outcome]:
    """Audit each planted unit in isolation (its own input name and hand ids) and match its findings."""
    register_pack(pack)
    units = []
    for k, p in enumerate(planted):
        hands = _rename(p.hands, f"{tag}{k}")
        bad = next((f"{h['hand_id']}: {reason}" for h in hands if (reason := _invalid(h))), None)
        units.append(_Unit(f"verify/{pack.name}/{tag}{k}", p, hands, bad))
    return _match(pack, units)


def _carry(units: list[_Unit], via: _Via) -> CanonicalTables:
    """Each unit through the format, one file each (or one per hand: `_Via.round_trip`): the tables of the
    hands read back, in the units' order (line = place in the unit, so findings match as in memory); a unit
    with a hand the reader quarantined is not audited and says why."""
    parts = []
    for u in units:
        if u.quarantined is not None:
            continue
        back = via.round_trip(u.hands, u.file, range(1, len(u.hands) + 1))
        lost = next((q for q in back.lost if q is not None), None)
        if lost is not None:
            u.quarantined = f"the {via.name} reader quarantined {lost.one_line()}"
            u.unread = True
            continue
        parts.append(back.tables)
    return concat_tables(parts)


def _match(pack: Pack, units: list[_Unit], via: _Via | None = None) -> list[_Outcome]:
    if via is None:
        tables = build_tables([SourceHand(h, u.file, line) for u in units if u.quarantined is None
                               for line, h in enumerate(u.hands, 1)])
    else:
        tables = _carry(units, via)
    findings, failed = _audit(tables, pack, TableState()) if tables.num_hands else (pd.DataFrame(), [])
    failed_in: dict[str, str] = {}
    for f, line, reason in failed:
        failed_in.setdefault(f, f"line {line}: {reason}")
    by_file: dict[str, list[dict]] = {}
    for r in _records(findings):
        by_file.setdefault(r["file"], []).append(r)
    outcomes = []
    for u in units:
        target = len(u.hands)
        mine = by_file.get(u.file, [])
        p = u.planted
        found = next((r for r in mine if r["line"] == target and r["category"] == p.category
                      and (u.seq is None or r["seq"] == u.seq)), None)
        extra = [r for r in mine if r is not found]
        outcomes.append(_Outcome(u, found, extra, u.quarantined or failed_in.get(u.file)))
    return outcomes


class _Reproducers:
    """Writes the first few reproducers of each kind of problem under `root/<pack>/`."""

    def __init__(self, root: Path | None, via: _Via | None = None):
        self.root = root
        self.via = via
        self.written: Counter = Counter()

    def write(self, pack: str, kind: str, category: str, name: str, hands: Sequence[Hand]) -> Path | None:
        key = (pack, kind, category)
        if self.root is None or self.written[key] >= REPRO_PER_KIND:
            return None
        self.written[key] += 1
        folder = self.root / pack
        folder.mkdir(parents=True, exist_ok=True)
        slug = kind.split()[0]
        path = folder / f"{slug}-{category}-{self.written[key]}-{name}.jsonl"
        path.write_text("".join(json.dumps(h, separators=(",", ":")) + "\n" for h in hands), encoding="utf-8")
        if self.via is not None and self.via.cannot(hands) is None:  # and the file the reader was given
            self.via.write_copy(hands, path)
        return path


def verify_pack(pack: Pack | str, hands: int, seed: int = 0, *, batch_size: int = 10_000,
                repro_dir: Path | None = None, registry: dict[str, Mutator] | None = None,
                progress: Callable[[str], None] | None = None, via: str = "canonical") -> PackAccuracy:
    """Simulate `hands` legal hands of the pack's games, audit them, plant one violation in a copy of
    each where a mutator the pack must catch finds a place, audit those, and tally per category.

    `via`: "canonical" audits the hands in memory; a format name carries every unit through that
    format's writer and reader first (see the module docstring)."""
    if via not in VIA:
        raise ValueError(f"verify via {via!r}: not one of {', '.join(VIA)}")
    if via == "canonical":
        return _verify_pack(pack, hands, seed, batch_size, repro_dir, registry, progress, None)
    with tempfile.TemporaryDirectory(prefix=f"verify-{via}-") as folder:
        return _verify_pack(pack, hands, seed, batch_size, repro_dir, registry, progress, _Via(via, Path(folder)))


def _verify_pack(pack: Pack | str, hands: int, seed: int, batch_size: int, repro_dir: Path | None,
                 registry: dict[str, Mutator] | None, progress: Callable[[str], None] | None,
                 via: _Via | None) -> PackAccuracy:
    pack = resolve_pack(pack) if isinstance(pack, str) else pack
    register_pack(pack)  # the mutators read its cap and rake schedule by the name the hands declare
    registry = registry if registry is not None else REGISTRY
    started = time.perf_counter()
    games = pack_games(pack)
    order = {name: k for k, name in enumerate(registry)}
    usable = {g: applicable_mutators(pack, *g, registry) for g in games}
    planted_count: Counter = Counter()
    found_count: Counter = Counter()
    idle = idle_rules(pack, registry)
    categories = sorted({r.category for r in pack.rules if r.id not in idle})
    tally = {c: Counter() for c in categories}
    problems: list[Problem] = []
    caught: set[str] = set()
    repro = _Reproducers(repro_dir, via)
    inexpressible: dict[str, Counter] = {}
    clean_inexpressible: Counter = Counter()
    clean_why: Counter = Counter()  # every clean hand's own reason, also where its table was already left out
    tables_started: set[str] = set()  # tables with a clean hand written
    broken: set[str] = set()  # tables that lost a hand after that
    clean_state = TableState()
    clean: list[SourceHand] = []
    units: list[_Unit] = []
    clean_name = f"verify/{pack.name}/clean"
    n_clean = n_units = unit_hands = 0

    def count(category: str, key: str, n: int = 1) -> None:
        tally.setdefault(category, Counter())[key] += n

    def flush_clean() -> None:
        nonlocal clean
        if not clean:
            return
        by_line = {s.line: s.hand for s in clean}
        if via is None:
            tables = build_tables(clean)
        else:
            back = via.round_trip([s.hand for s in clean], clean_name, [s.line for s in clean])
            tables = back.tables
            for s, lost in zip(clean, back.lost, strict=True):
                if lost is not None:
                    problems.append(Problem(pack.name, "not audited", "-", None, None, s.hand["hand_id"],
                                            f"clean hand {s.line}: the {via.name} reader quarantined it: "
                                            f"[{lost.code}] {lost.reason}"))
        findings, failed = _audit(tables, pack, clean_state) if tables.num_hands else (pd.DataFrame(), [])
        for file, line, reason in failed:
            problems.append(Problem(pack.name, "not audited", "-", None, None, by_line[line]["hand_id"],
                                    f"clean hand {file}:{line}: {reason}"))
        for row in _records(findings):
            count(row["category"], "false_clean")
            hand = by_line[row["line"]]
            table = [s.hand for s in clean if s.hand["table_id"] == hand["table_id"] and s.line <= row["line"]]
            path = repro.write(pack.name, "false on clean hand", row["category"], row["rule_id"], table)
            problems.append(Problem(pack.name, "false on clean hand", row["category"], row["rule_id"], None,
                                    hand["hand_id"], f"event {row['seq']}: {row['message']}", path))
        clean = []

    def flush_units() -> None:
        nonlocal units, unit_hands
        if not units:
            return
        for o in _match(pack, units, via):
            p = o.unit.planted
            target = o.unit.hands[-1]
            if o.found is not None:
                count(p.category, "found")
                found_count[p.mutator] += 1
                caught.add(str(o.found["rule_id"]))
            else:
                count(p.category, "missed")
                at = "" if p.seq is None else f" at event {p.seq}"
                why = f"not audited: {o.failure}" if o.failure else \
                    f"no {p.category} finding{at} ({registry[p.mutator].what})"
                path = repro.write(pack.name, "missed", p.category, p.mutator, o.unit.hands)
                kind = "not audited" if o.unit.unread else "missed"
                problems.append(Problem(pack.name, kind, p.category, None, p.mutator, target["hand_id"], why,
                                        path))
            for row in o.extra:
                count(row["category"], "false_extra")
                path = repro.write(pack.name, "extra on mutated hand", row["category"], row["rule_id"], o.unit.hands)
                problems.append(Problem(pack.name, "extra on mutated hand", row["category"], row["rule_id"],
                                        p.mutator, o.unit.hands[row["line"] - 1]["hand_id"],
                                        f"line {row['line']} event {row['seq']}: "
                                        f"{row['message']}", path))
        units, unit_hands = [], 0

    stream = simulate_mixed(games, hands, seed, house=pack.house, rule_pack=pack.name, table_size=(2, 10),
                            seat_draws=True, sit_outs=True, rake=pack.house.rake, table_prefix=f"V{seed}-",
                            session_hands=SESSION_HANDS, chip_unit_mix=via.chip_unit_mix if via else None)
    history: list[Hand] = []
    for n, hand in enumerate(primed(stream), 1):  # the mutators read facts of a stretch replayed at once
        bad = _invalid(hand)
        cannot = via.cannot([hand]) if via is not None and not bad else None
        if cannot:
            clean_why[cannot] += 1
        if via is not None and not bad and hand["table_id"] in broken:
            cannot = GAP
        if bad:
            problems.append(Problem(pack.name, "not audited", "-", None, None, hand["hand_id"],
                                    f"the simulator wrote an invalid hand: {bad}"))
        elif cannot:
            # A table whose first hands cannot be written starts later; one that loses a hand after it
            # started would have a gap the cross-hand rules rightly report, so the rest of it is left out.
            clean_inexpressible[cannot] += 1
            if hand["table_id"] in tables_started:
                broken.add(hand["table_id"])
        else:
            tables_started.add(hand["table_id"])
            clean.append(SourceHand(hand, clean_name, n))
            n_clean += 1
        if history and history[-1]["table_id"] != hand["table_id"]:
            history = []
        candidates = sorted(usable[(hand["variant"], hand["structure"])],
                            key=lambda m: (planted_count[m.name], order[m.name]))
        work = _copy(hand)
        for m in candidates:
            planted = m.plant(work, history)
            if planted is not None:
                planted_count[m.name] += 1
                tag = f"m{n}"
                renamed = _rename(planted.hands, tag)
                quarantined = next((f"{h['hand_id']}: {r}" for h in renamed if (r := _invalid(h))), None)
                seq = planted.seq
                if via is not None and quarantined is None:
                    cannot = via.cannot(renamed, m.category)
                    seq = via.seq(renamed[-1], planted.seq) if cannot is None else None
                    if cannot is None and planted.seq is not None and seq is None:
                        cannot = f"the {via.name} writer does not write the event the fault is planted at"
                    if cannot is not None:
                        inexpressible.setdefault(m.category, Counter())[cannot] += 1
                        break
                count(m.category, "expected")
                n_units += 1
                units.append(_Unit(f"verify/{pack.name}/{tag}", planted, renamed, quarantined, seq))
                unit_hands += len(renamed)
                break
            if work != hand:
                raise AssertionError(f"mutator {m.name} changed hand {hand['hand_id']} and then declined it")
        history.append(hand)
        if len(clean) >= batch_size:
            flush_clean()
        if unit_hands >= batch_size:
            flush_units()
        if progress is not None and n % batch_size == 0:
            progress(f"{pack.name}: {n} of {hands} hands, {time.perf_counter() - started:.0f} s")
    flush_clean()
    flush_units()

    rows = []
    unexpressed: dict[str, list[str]] = {}
    for category in sorted(tally):
        t = tally[category]
        expected, found = t["expected"], t["found"]
        false = t["false_clean"] + t["false_extra"]
        # A category is the format's blind spot when no planted fault of it could be written for a reason of
        # its own (not merely because its few plantings fell in games the format has no words for, which
        # leaves it not measured), when the format hides it, or when none of the pack's games can be written.
        # A reason is the fault's own when it kept more of the category's planted faults out than it would have
        # kept clean hands out of the whole run (counted also where a table was already left out for a gap): a
        # game the format lacks loses clean hands in thousands, while a call one chip short, which PHH cannot
        # say, also turns up in a few clean hands of odd shape.
        lost = inexpressible.get(category, Counter())
        own = [why for why, n in lost.most_common() if n > clean_why[why]]
        nothing_written = not n_clean and not n_units
        if via is not None and not expected and not false and (own or category in via.hidden or nothing_written):
            reasons = lost or Counter({via.hidden[category]: 0} if category in via.hidden else clean_inexpressible)
            unexpressed[category] = own or [why for why, _ in reasons.most_common()]
            continue
        rows.append({"pack": pack.name, "category": category, "hands": expected, "expected": expected,
                     "found": found, "missed": t["missed"], "false_clean": t["false_clean"],
                     "false_extra": t["false_extra"], "false": false,
                     "precision": found / (found + false) if found + false else float("nan"),
                     "recall": found / expected if expected else float("nan")})
    table = pd.DataFrame(rows, columns=TABLE_COLUMNS)
    mutators = pd.DataFrame([{"mutator": name, "category": registry[name].category, "planted": planted_count[name],
                              "found": found_count[name]} for name in registry if planted_count[name]],
                            columns=["mutator", "category", "planted", "found"])
    unmeasured = [r.id for r in pack.rules if r.id not in idle and r.category not in unexpressed
                  and not tally.get(r.category, Counter())["expected"]]
    return PackAccuracy(pack.name, pack.version, n_clean, n_units, time.perf_counter() - started, table, mutators,
                        problems, caught, unmeasured, idle, via.name if via else "canonical", inexpressible,
                        clean_inexpressible, unexpressed, via.read_back if via else 0, via.column_wise if via else 0)


def verify(hands: int, seed: int = 0, packs: Iterable[str | Pack] | None = None, *, batch_size: int = 10_000,
           repro_dir: Path | None = None, progress: Callable[[str], None] | None = None,
           via: str = "canonical") -> VerifyResult:
    """The accuracy report of the given packs (names, files or loaded packs; default: every built-in
    pack), `hands` clean hands each, in memory or carried through format `via`."""
    names = list(packs) if packs else list(builtin_pack_paths())
    result = VerifyResult()
    for name in names:
        result.packs.append(verify_pack(name, hands, seed, batch_size=batch_size, repro_dir=repro_dir,
                                        progress=progress, via=via))
    return result


def accuracy(hands: int, seed: int = 0, packs: Iterable[str | Pack] | None = None) -> pd.DataFrame:
    """The accuracy table alone: one row per (pack, category) with precision and recall."""
    return verify(hands, seed, packs).table


def _percent(x: float) -> str:
    return "n/a" if x != x else f"{100 * x:.1f} %" if x < 1 else "100 %"


def _inexpressible_lines(p: PackAccuracy) -> Iterator[str]:
    """What the format could not carry: the categories it cannot show at all (with the reasons only they
    have), then every hand left out, by reason, clean and mutated."""
    clean = set(p.clean_inexpressible)
    if p.unexpressed and not len(p.table):
        yield (f"  nothing of this pack can be written in {p.via}: {'; '.join(sorted(clean)) or 'see below'}; "
               f"categories not measured: {', '.join(p.unexpressed)}")
    else:
        for category, reasons in p.unexpressed.items():  # the reasons of the category's own, when it has any
            yield f"  {category}: not expressible in {p.via}, not measured: {'; '.join(reasons)}"
    by_reason: dict[str, list] = {}
    for why, n in p.clean_inexpressible.items():
        by_reason.setdefault(why, [0, Counter()])[0] += n
    for category, reasons in p.inexpressible.items():
        for why, n in reasons.items():
            by_reason.setdefault(why, [0, Counter()])[1][category] += n
    if not by_reason:
        return
    units = sum(sum(n.values()) for n in p.inexpressible.values())
    yield (f"  not expressible in {p.via} (not written, not audited): {sum(p.clean_inexpressible.values())} clean "
           f"hands, {units} mutated hands:")
    for why, (n_clean, categories) in sorted(by_reason.items(), key=lambda kv: -kv[1][0] - kv[1][1].total()):
        mutated = categories.total()
        which = f" ({', '.join(sorted(categories))})" if categories and len(categories) <= 3 else ""
        yield f"    {n_clean} clean, {mutated} mutated{which}: {why}"


def format_report(result: VerifyResult) -> Iterator[str]:
    """The report as lines of text: per pack, the category table, then every problem."""
    for p in result.packs:
        rate = p.clean_hands / p.seconds if p.seconds else 0.0
        through = "" if p.via == "canonical" else f" via {p.via}"
        yield (f"{p.pack} {p.version}{through}: {p.clean_hands} clean hands, {p.mutated_hands} mutated hands, "
               f"{p.seconds:.1f} s ({rate:.0f} clean hands/s)")
        if p.via in room_names() or p.via in xml_room_names():
            yield f"  read back through {p.via}: {p.read_back} hands, by the room's dialect (its one reader)"
        elif p.via != "canonical":
            yield (f"  read back through {p.via}: {p.read_back} hands, {p.column_wise} of them by its column-wise "
                   f"reader (the tables audited)")
        if len(p.table) or p.via == "canonical":
            yield (f"  {'category':<18} {'hands':>7} {'expected':>8} {'found':>7} {'missed':>6} {'false':>6} "
                   f"{'precision':>9} {'recall':>7}")
        for row in p.table.itertuples(index=False):
            flag = "" if row.precision == 1.0 and row.recall == 1.0 else "   <-- below 100 %" \
                if row.expected else "   <-- not measured"
            yield (f"  {row.category:<18} {row.hands:>7} {row.expected:>8} {row.found:>7} {row.missed:>6} "
                   f"{row.false:>6} {_percent(row.precision):>9} {_percent(row.recall):>7}{flag}")
        if p.unmeasured:
            yield f"  not measured (no planted hand in their category): {', '.join(p.unmeasured)}"
        yield from _inexpressible_lines(p)
        for rule_id, why in p.idle.items():
            yield f"  {rule_id} cannot report anything under this pack's settings, not measured: {why}"
        shown = Counter()
        for q in p.problems:
            key = (q.kind, q.category, q.rule_id, q.mutator)
            shown[key] += 1
            if shown[key] <= 3:
                yield "  " + q.one_line()
        hidden = sum(n - 3 for n in shown.values() if n > 3)
        if hidden:
            yield f"  ... and {hidden} more problems of the kinds above"
    vias = sorted({p.via for p in result.packs} - {"canonical"})
    every = f"every category {' and '.join(vias)} can express" if vias else "every category"
    verdict = f"{every} at 100 % precision and recall" if result.ok else \
        "some categories below 100 % or not measured" + (" or hands not read back" if vias else "")
    yield f"verify: {verdict}"
