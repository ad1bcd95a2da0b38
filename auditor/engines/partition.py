"""Partitions: what one worker audits on its own, how a run is cut into them, and the audit of one.

A partition is a list of pieces — whole input files, or ranges of hand rows of a Parquet dataset —
replayed in order with its own table state, in batches of `batch_size` hands. Cutting a run into
partitions must not change any fact, so a cut never falls inside a table (the engine's unit of
cross-hand state: previous button and big blind, blinds owed):

- an input file is never split (the engine keys a table by its file and table id);
- the `.phh` files of one folder stay together, in order: PHH has one hand per file and names a
  folder's files one session (`auditor.ingest.phh._ids`), so if the engine ever follows a session
  across its files, its hands are still in one worker, in order;
- a Parquet dataset is cut into hand-row ranges only where no table (source file, table id) has
  hands on both sides (`parquet_ranges.plan_ranges`); one whose hands are not sorted is one piece.

The plan depends only on the sorted inputs and the batch size, never on the number of workers or the
engine, so batches, and therefore every fact and finding, are the same however the run is spread.
"""

from __future__ import annotations

import dataclasses
import gc
import importlib
import math
import time
import uuid
from collections import Counter
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from auditor.check.packs import Pack, PackError, declared_pack, resolve_pack
from auditor.check.run import check, not_covered
from auditor.engines import ledger
from auditor.engines.coverage import CoverageTotal
from auditor.engines.parquet_ranges import HandBatch, Layout, hand_count, plan_ranges, read_range_tables
from auditor.engines.periods import add_batch, add_columns
from auditor.ingest.compiled import takes_column_wise
from auditor.ingest.detect import DEFAULT_PACK, contained, read_file, read_plain_phh
from auditor.ingest.files import unseekable_kind
from auditor.ingest.limits import DEFAULT_LIMITS
from auditor.ingest.parquet import TableChunk
from auditor.ingest.tables import build_tables
from auditor.model.inputs import shown_text
from auditor.model.periods import Period
from auditor.model.records import Quarantined, ReaderNote, SourceHand
from auditor.model.results import MAX_FINDINGS_PER_HAND_RULE, MAX_VIEWS
from auditor.replay.kernel import replay
from auditor.replay.state import TableState
from auditor.report.hands import KeptViews, hand_views, wanted_rows

if TYPE_CHECKING:
    from auditor.model.inputs import InputFile

#: rough size of one hand in a text log, to weigh files against each other when planning (only
#: balance depends on it, never a result)
BYTES_PER_HAND = 2_000
#: compressed inputs unpack to about this many times their size
COMPRESSION = 5
#: a partition is at most one batch, and at least this many hands unless the run is smaller: every
#: batch pays a fixed cost for the checks (about 0.3 s for the three built-in packs)
MIN_PARTITION_HANDS = 2_000
#: runs smaller than this many batches are cut into about this many partitions, so that even a
#: modest run keeps a few workers busy (a run too small for workers, `local.POOL_MIN_HANDS`, is not: `plan`)
PARTITIONS_WANTED = 16

#: a batch is also cut once its hands hold this many events, so a run of hands of thousands of events each
#: (2,000 checks facing a bet, the schema's most) keeps memory flat too: replay facts and findings grow
#: with events, not hands (1,000 such hands in one batch peaked at 4.8 GB; 1.4 GB
#: at 500,000 events). Real hands average about 25 events (the sample logs: 24, at most 80), simulated ones
#: 31, so a batch of 20,000 of them is not cut: at 500,000 events every 20,000-hand partition of the
#: simulated million was two batches (16,200 hands, then 3,800), each paying the batch's fixed costs; at
#: 650,000 a batch holds ~80 MB more at its peak (measured). Where a batch is cut never changes a fact
#: (table state is carried across)
MAX_BATCH_EVENTS = 650_000
#: ...but a batch of hands averaging more than `DENSE_EVENTS_PER_HAND` events is cut at `DENSE_BATCH_EVENTS`:
#: such hands carry findings by the thousand (1,000 hands of 1,964 checks each peaked at 2.03 GB in batches of
#: 650,000 events, 1.74 GB at 500,000), ordinary ones a few. Judged on the hands so far, so a batch is cut at
#: the same hand whether its hands are read one by one or in Parquet chunks (`TableChunk.batch_cut`)
DENSE_BATCH_EVENTS = 500_000
DENSE_EVENTS_PER_HAND = 100


def batch_is_full(hands: int, events: int, batch_size: int) -> bool:
    """Whether a batch of `hands` hands holding `events` events is full (the rule `TableChunk.batch_cut`
    applies to a chunk's hands at once)."""
    return hands >= batch_size or events >= MAX_BATCH_EVENTS or (
        events >= DENSE_BATCH_EVENTS and events > DENSE_EVENTS_PER_HAND * hands)

#: hand ids a partition remembers to find the hands repeating one (their views kept for the reports:
#: `_ForReports`); about 100 bytes an id, so at most about 100 MB a worker
MAX_IDS_REMEMBERED = 1_000_000

#: notify(kind, partition index, value): "hands" (value = hands read since the last notice) or
#: "piece" (value = input index of a piece finished)
Notify = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Piece:
    """One input of a partition, or hand rows [start, stop) of a Parquet dataset."""

    input_index: int  # position in the run's sorted inputs
    input: InputFile
    rows: tuple[int, int] | None = None
    layout: Layout | None = None


@dataclass(frozen=True)
class Partition:
    index: int
    pieces: tuple[Piece, ...]
    estimated_hands: int


@dataclass(frozen=True)
class RunOptions:
    """What every worker needs besides its partition (picklable: it travels to other processes)."""

    pack: str | None = None
    batch_size: int = 20_000
    #: `auditor.ingest.limits.Limits`, or None for the readers' defaults
    limits: Any = None
    #: names the run, so that a process auditing several of its partitions loads each pack once
    run_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    #: hand ids whose view (`report.hands.HandView`) is kept whether or not they have findings, for
    #: `auditor explain` (at most `max_views` hands of them)
    keep_hand_ids: frozenset[str] = frozenset()
    #: how many hands with findings keep their view (the first, in the findings' order)
    max_views: int = MAX_VIEWS
    #: a folder of this machine where the partitions write their run-wide rows (`ledger.spill`; the local
    #: engine), so results carry only the ids' hashes and the baseline; None: rows travel in results (dask)
    ledger_folder: str | None = None
    #: write every batch's rows there (a pool's workers: nothing to pickle back), not only those past
    #: `ledger.SPILL_ROWS` hands of one partition (this process: a one-file partition of millions of hands
    #: would otherwise hold all its rows, about 190 bytes a hand, until it ends)
    spill_all_rows: bool = True
    #: input formats read the reference way this run, not column-wise (`ingest.compiled.reference_first`: a
    #: first run after an install whose column-wise kernels would take longer to compile than the reading saves)
    reference_formats: frozenset[str] = frozenset()


#: the packs this process has loaded for the run it works on: (run id, {key: Pack or the PackError})
_run_packs: tuple[str, dict[tuple[str, str], Pack | PackError]] = ("", {})


def _pack_for_run(options: RunOptions, kind: str, name: str) -> Pack:
    """`resolve_pack` (kind "given") or `declared_pack` (kind "declared") of `name`, loaded once per run
    and process. Packs hold compiled predicates that do not pickle, so each process loads its own; it
    used to load them again for every partition (20-30 ms a pack), and the checks' cache of each rule's
    columns, keyed by object id, kept every copy alive: memory that grew with the number of partitions.
    Within a run every partition sees the same pack even if its file changes meanwhile; a PackError is
    remembered and raised again."""
    global _run_packs
    if _run_packs[0] != options.run_id:
        _run_packs = (options.run_id, {})
    loaded = _run_packs[1]
    key = (kind, name)
    if key not in loaded:
        try:
            loaded[key] = resolve_pack(name) if kind == "given" else declared_pack(name)
        except PackError as exc:
            loaded[key] = exc
    found = loaded[key]
    if isinstance(found, PackError):
        raise found
    return found


@dataclass
class PartitionResult:
    index: int
    findings: pd.DataFrame
    #: summed over the partition's batches; None if it had no batch
    coverage: pd.DataFrame | None
    quarantined: list[Quarantined]
    hands_read: int
    read_per_file: Counter
    #: names of the packs its hands were audited under, in the order first met
    pack_names: list[str]
    #: per batch, the rows the run-wide rules need, their ids' hashes and the rules' baseline judgment
    #: (`ledger.batch_rows`); empty if no pack has such a rule
    ledger: list[ledger.Rows] = field(default_factory=list)
    seconds: float = 0.0
    #: hands read but not covered: their pack has no rule for their game, by (pack, variant, structure)
    not_covered: Counter = field(default_factory=Counter)
    #: the same hands by file, so each file reconciles: read = audited + not covered + quarantined
    not_covered_per_file: Counter = field(default_factory=Counter)
    #: what the readers told about the files (ReaderNote), the first of each (file, code), in reading order
    notes: list[ReaderNote] = field(default_factory=list)
    #: findings beyond `MAX_FINDINGS_PER_HAND_RULE` of one rule in one hand, not kept, by (pack, rule id)
    findings_not_listed: Counter = field(default_factory=Counter)
    #: per file, the first and last hand start of the hands read (`engines.periods`; the evidence manifest)
    hand_periods: dict[str, Period] = field(default_factory=dict)
    #: hands replayed per table id (the base of the HTML report's findings per 1,000 hands), counted here
    #: so that no report reads the logs again
    table_hands: Counter = field(default_factory=Counter)
    #: one row per hand with findings: file, line, started_at (the HTML report's findings over time)
    finding_hands: pd.DataFrame | None = None
    #: the views of the first hands with findings (`report.hands.KeptViews`), made from this replay's facts
    views: KeptViews = field(default_factory=KeptViews)
    #: the views of the hands asked for by id (`RunOptions.keep_hand_ids`)
    asked_views: KeptViews = field(default_factory=KeptViews)
    #: the views of the first hands repeating an id seen before in the partition (run-wide findings likely)
    repeat_views: KeptViews = field(default_factory=KeptViews)

    @property
    def hands_not_covered(self) -> int:
        return sum(self.not_covered.values())


@dataclass(frozen=True)
class PartitionFailure:
    """A pack that failed while checking (e.g. a user predicate comparing text with a number).

    PackError does not survive pickling (its constructor takes three arguments), so a worker in
    another process returns this and the driver raises the PackError again.
    """

    index: int
    file: str
    line: int | None
    message: str

    def error(self) -> PackError:
        return PackError(self.file, self.line, self.message)


def lost_partition(partition: Partition, why: str) -> PartitionResult:
    """The result of a partition whose worker process died (killed for memory, a crash in native code):
    one `lost-worker` quarantine entry per piece, so the loss is on record and the run cannot pass as
    if those hands had been audited. Each entry counts as one hand read, like an unreadable file: how
    many hands the piece held is not known without reading it, which is what failed."""
    quarantined = []
    for piece in partition.pieces:
        name = piece.input.name or piece.input.path.as_posix()
        rows = f" (hand rows {piece.rows[0]}-{piece.rows[1]})" if piece.rows is not None else ""
        quarantined.append(Quarantined(name, 0, f"not audited{rows}: the worker process auditing it died ({why})",
                                       code="lost-worker"))
    findings = check(*empty_batch({}))[0]
    return PartitionResult(partition.index, findings, None, quarantined, len(quarantined),
                           Counter(q.file for q in quarantined), [])


def plan(inputs: Sequence[InputFile], batch_size: int, limits: Any = None) -> list[Partition]:
    """Cut the (sorted) inputs into partitions; see the module docstring for where cuts may fall.
    `limits` (None: the defaults) decide, as for reading, whether a Parquet dataset may be streamed."""
    from auditor.engines import local  # (local imports this module)

    estimates = [_estimate(item) for item in inputs]
    total = sum(estimates)
    # A run too small for workers runs in one process whatever --jobs says (`local.POOL_MIN_HANDS`), so spreading
    # it over partitions would only pay each batch's fixed costs again (the checks' rules, the replay's calls):
    # the PHH corpus's 5,123 hands audited in 1.28-1.40 s as three partitions, 1.03-1.12 s as one. The plan still
    # depends on the inputs alone, never on --jobs or the engine, so every engine's report stays the same.
    spread = total >= local.POOL_MIN_HANDS
    target = min(batch_size, max(MIN_PARTITION_HANDS, math.ceil(total / PARTITIONS_WANTED))) if spread else batch_size
    units: list[list[Piece]] = []
    sizes: list[int] = []
    folders: dict[str, int] = {}
    for i, (item, estimate) in enumerate(zip(inputs, estimates, strict=True)):
        if item.format == "parquet":
            planned = plan_ranges(item.path, _range_target(item.path, target),
                                  DEFAULT_LIMITS if limits is None else limits)
            if planned is None:
                units.append([Piece(i, item)])
                sizes.append(estimate)
                continue
            layout, ranges = planned
            for start, stop in ranges or [(0, 0)]:
                units.append([Piece(i, item, (start, stop), layout)])
                sizes.append(stop - start)
        elif item.format == "phh":
            folder = item.path.parent.as_posix()
            if folder in folders:
                units[folders[folder]].append(Piece(i, item))
                sizes[folders[folder]] += estimate
            else:
                folders[folder] = len(units)
                units.append([Piece(i, item)])
                sizes.append(estimate)
        else:
            units.append([Piece(i, item)])
            sizes.append(estimate)
    partitions: list[Partition] = []
    pieces: list[Piece] = []
    size = 0
    for unit, unit_size in zip(units, sizes, strict=True):
        if pieces and size + unit_size > target:
            partitions.append(Partition(len(partitions), tuple(pieces), size))
            pieces, size = [], 0
        pieces.extend(unit)
        size += unit_size
    if pieces:
        partitions.append(Partition(len(partitions), tuple(pieces), size))
    return partitions


def _range_target(directory: Path, target: int) -> int:
    """Hands per range of a Parquet dataset: `target`, or fewer when the dataset's hands average so many events
    that `target` of them would pass `MAX_BATCH_EVENTS` (its footers say: events rows / hands rows).

    A partition whose hands hold more events than that is cut in two batches, the second a remainder (hands
    of 40 events: 16,250 of 20,000 hands, then 3,750), and every batch pays the same fixed costs (the checks'
    ~26 rules a pack, the run-wide rows, a collection), so ranges are planned to fit one batch (`_FILL` of
    the cap, for the spread of events between ranges): fewer batches at the same memory. Hands of up to ~27
    events (the simulated million: 25 on average) keep `target`. Depends only on the dataset, never on the
    workers (see the module docstring)."""
    try:
        hands = pq.ParquetFile(directory / "hands.parquet").metadata.num_rows
        events = pq.ParquetFile(directory / "events.parquet").metadata.num_rows
    except Exception:  # unreadable footers: plan_ranges will refuse the dataset, or the reader say why
        return target
    if hands <= 0 or events * target <= MAX_BATCH_EVENTS * _FILL * hands:
        return target
    return max(MIN_PARTITION_HANDS, int(MAX_BATCH_EVENTS * _FILL * hands / events))


#: the share of `MAX_BATCH_EVENTS` a planned range's hands are meant to hold on average
_FILL = 0.85


def estimated_hands(inputs: Sequence[InputFile]) -> int:
    """Hands the inputs probably hold, before they are planned (whether a run is worth starting workers for)."""
    return sum(_estimate(item) for item in inputs)


def _estimate(item: InputFile) -> int:
    """Hands an input probably holds: exact for a Parquet dataset (its footer), from the size otherwise."""
    try:
        if item.format == "parquet":
            return hand_count(item.path)
        size = item.seen.state[0] if item.seen is not None else item.path.stat().st_size
    except Exception:  # unreadable: the reader will say why; weigh it as one hand
        return 1
    if item.path.name.lower().endswith((".gz", ".zip")):
        size *= COMPRESSION
    return max(1, size // BYTES_PER_HAND)


def read_input(item: InputFile, limits: Any = None) -> Iterator[SourceHand | Quarantined | ReaderNote | TableChunk]:
    """Every item of one input, positions named as the run shows them: what the reader labels with the
    path it opened (`str(path)`, or `path!member` for an archive member) is relabelled `item.label` (the
    path with undecodable bytes escaped, or `<stdin>` for a spooled stream), so no surrogate reaches a
    table or report, and a temporary copy's name never shows. The path opened stays the real one."""
    if limits is None:
        items = read_file(item.path, item.format, item.name or None)
    else:
        items = read_file(item.path, item.format, item.name or None, limits=limits)
    real = str(item.path)
    shown = item.label
    if shown != real:
        for read in items:
            yield _relabelled(read, real, shown)
        return
    valid = real  # the common case: the path is valid text; each other label is looked at once in a row
    for read in items:
        if read.file != valid:
            if shown_text(read.file) != read.file:
                read = _relabelled(read, real, shown)
            else:
                valid = read.file
        yield read


def _relabelled(read: SourceHand | Quarantined | ReaderNote | TableChunk, real: str,
                shown: str) -> SourceHand | Quarantined | ReaderNote | TableChunk:
    file = read.file
    file = shown + file[len(real):] if file.startswith(real) else file
    file = shown_text(file)
    if isinstance(read, TableChunk):  # a room's hands, read as tables
        return read.renamed(file, lambda reason: shown_text(reason.replace(real, shown)))
    # dataclasses.replace keeps every other field as the reader set it
    if isinstance(read, SourceHand):
        return dataclasses.replace(read, file=file)
    if isinstance(read, ReaderNote):
        return dataclasses.replace(read, file=file, text=shown_text(read.text.replace(real, shown)))
    hand_id = None if read.hand_id is None else shown_text(read.hand_id)
    table_id = None if read.table_id is None else shown_text(read.table_id)
    return dataclasses.replace(read, file=file, reason=shown_text(read.reason.replace(real, shown)), hand_id=hand_id,
                               table_id=table_id)


def read_piece(piece: Piece, limits: Any = None, reference: frozenset[str] = frozenset()
               ) -> Iterator[SourceHand | Quarantined | ReaderNote | TableChunk]:
    """A piece's items, by the column-wise path its format has for a file like it, unless its format is in
    `reference` (`RunOptions.reference_formats`), else by its reference reader."""
    item = piece.input
    if piece.rows is not None and piece.layout is not None:
        # the same last line of defence as every other reader (read_file wraps them all); the range's hands
        # come as TableChunks, canonical tables already
        yield from contained(read_range_tables(item.path, piece.layout, *piece.rows), item.label)  # type: ignore[arg-type]
    elif "phh" in reference and _plain_phh(piece) and unseekable_kind(item.path) is None:
        # as `read_input` reads it (`detect.read_file`), without the byte scanner
        from auditor.ingest.phh import read_phh

        yield from contained(read_phh(item.path, rule_pack=DEFAULT_PACK, label=item.name or item.path.as_posix(),
                                      limits=limits or DEFAULT_LIMITS, scanner=False), str(item.path))
    elif item.format not in reference and takes_column_wise(item.path, item.format, item.label):
        # JSON Lines and OHH scanned and validated column-wise (imported here: a small run never
        # loads these kernels)
        module, read = _COLUMN_WISE[item.format]
        reader = getattr(importlib.import_module(module), read)
        yield from contained(reader(item.path, limits or DEFAULT_LIMITS), item.label)
    else:
        yield from read_input(item, limits)


#: format -> (the column-wise reader's module, its reader), for the files `takes_column_wise` takes
_COLUMN_WISE = {
    "jsonl": ("auditor.ingest.jsonl_tables", "read_jsonl_tables"),
    "ohh": ("auditor.ingest.ohh_tables", "read_ohh_tables"),
}


def read_pieces(pieces: Sequence[Piece], limits: Any = None, reference: frozenset[str] = frozenset()
                ) -> Iterator[tuple[Piece, Iterable[Any]]]:
    """Each piece with its items (`read_piece`'s), runs of consecutive `.phh` inputs (a folder's files) read
    together by one call of the PHH scanner (`detect.read_plain_phh`: the same items, without the per-file
    cost of one read and one kernel call each); a file that call does not take goes through `read_piece`
    (`reference` as there)."""
    k = 0
    while k < len(pieces):
        end = k
        while end < len(pieces) and end - k < 4096 and "phh" not in reference and _plain_phh(pieces[end]):
            end += 1
        if end - k < 2:
            yield pieces[k], read_piece(pieces[k], limits, reference)
            k += 1
            continue
        run = pieces[k:end]
        got = read_plain_phh([p.input.path for p in run], [p.input.name or None for p in run], limits,
                             [p.input.seen.content if p.input.seen is not None else None for p in run])
        for piece in run[:len(got)]:  # read: discovery's bytes of them are not needed again
            if piece.input.seen is not None:
                piece.input.seen.forget()
        for piece, items in zip(run, got, strict=False):  # the first len(got) of the run
            yield piece, items if items is not None else read_piece(piece, limits, reference)
        k += len(got)


def _plain_phh(piece: Piece) -> bool:
    """A `.phh` input read as PHH under its own path's name (no label for `read_input` to put in)."""
    item = piece.input
    return (piece.rows is None and item.format == "phh" and item.path.name.lower().endswith(".phh")
            and item.label == str(item.path))


def partition_batch_size(partition: Partition, batch_size: int) -> int:
    """The batch size a partition is audited in: `batch_size`, or the partition's own hands when it is
    Parquet ranges only a little larger (the planner cuts ranges only between tables, so a 20,000-hand
    target gives ranges of 20,000-20,200 hands, which would otherwise end in a batch of a few dozen hands
    paying a whole batch's fixed costs). A range's hand count is exact (its rows), so this depends only on
    the plan, never on the workers."""
    if all(piece.rows is not None for piece in partition.pieces) and \
            batch_size < partition.estimated_hands <= batch_size + batch_size // _RANGE_SLACK:
        return partition.estimated_hands
    return batch_size


#: a partition of Parquet ranges up to 1/_RANGE_SLACK over the batch size is one batch (`partition_batch_size`)
_RANGE_SLACK = 16


def run_partition(partition: Partition, options: RunOptions,
                  notify: Notify | None = None) -> PartitionResult | PartitionFailure:
    """`audit_partition` for an engine: a PackError comes back as a value (it would not unpickle)."""
    try:
        return audit_partition(partition, options, notify)
    except PackError as exc:
        return PartitionFailure(partition.index, exc.file, exc.line, exc.message)


@contextmanager
def collect_between_batches() -> Generator[None, None, None]:
    """Automatic garbage collection off while a partition runs, a collection after each batch instead, and
    everything alive before the partition out of the collector's sight meanwhile.

    A batch holds millions of live objects (hand dicts, column lists, fact rows), and every automatic
    collection of the oldest generation walks all of them again: a quarter to a third of the run time.
    Nearly all of a batch is freed by reference counting as soon as it is done; the few reference
    cycles (pandas keeps some) are collected once per batch (`collect_batch`), so memory stays flat.
    What was alive before the partition (modules, Numba's dispatchers, pandas, the packs: about 160,000
    objects) cannot become a batch's garbage, yet each full collection walked it again: 90 ms a batch,
    12 % of a worker's CPU on 20,000-hand batches, a sixth of `audit()` on the PHH corpus (measured).
    `gc.freeze()` moves it aside for the partition (O(1)); it is moved back afterwards unless the caller
    had frozen objects already (their freeze is theirs to undo). One place for every engine: the local
    pool, one process and dask workers all run partitions through here.
    """
    was_enabled = gc.isenabled()
    already_frozen = gc.get_freeze_count() > 0
    gc.disable()
    gc.freeze()
    try:
        yield
    finally:
        if not already_frozen:
            gc.unfreeze()
        if was_enabled:
            gc.enable()


def collect_batch() -> None:
    """The reference cycles a batch left, collected (see `collect_between_batches`: only what the run made
    is walked)."""
    gc.collect()


def audit_partition(partition: Partition, options: RunOptions, notify: Notify | None = None) -> PartitionResult:
    """Read, replay and check one partition, in batches of `options.batch_size` hands.

    Every hand is audited under `options.pack` if given, else under the pack its table declares; a
    hand declaring a pack that cannot be loaded is quarantined. The run-wide rules (duplicate hand
    ids) are not checked here: their rows go to the ledger, judged once the whole run is gathered.
    """
    with collect_between_batches():
        return _audit_partition(partition, options, notify)


def _audit_partition(partition: Partition, options: RunOptions, notify: Notify | None) -> PartitionResult:
    started = time.perf_counter()
    forced = _pack_for_run(options, "given", options.pack) if options.pack else None
    packs: dict[str, Pack] = {forced.name: forced} if forced else {}
    local = {name: ledger.without_run_wide(p) for name, p in packs.items()}
    unknown_packs: dict[str, str] = {}

    def load_pack(name: str) -> None:
        """The pack a hand declares, loaded once per run and process (or remembered as unusable, with why)."""
        if name not in packs and name not in unknown_packs:
            try:
                packs[name] = _pack_for_run(options, "declared", name)
                local[name] = ledger.without_run_wide(packs[name])
            except PackError as exc:
                unknown_packs[name] = exc.message
    quarantined: list[Quarantined] = []
    # what a partition keeps of its batches does not grow with them: findings only where there are some (the
    # first batch's table kept for its columns), coverage added up as it comes (`CoverageTotal`), and the
    # run-wide rows written to the ledger's folder past `ledger.SPILL_ROWS` hands (`_keep_rows`)
    findings: list[pd.DataFrame] = []
    coverage = CoverageTotal()
    ledger_rows: list[ledger.Rows] = []
    rows_in_memory = 0
    # Hand ids are judged run-wide by the ledger (rules with scope: run), never by the replay.
    state = TableState()
    hands_read = 0
    unreported = 0
    read_per_file: Counter = Counter()
    batch = HandBatch()  # hands read one by one and Parquet TableChunks, in order
    uncovered: Counter = Counter()
    uncovered_per_file: Counter = Counter()
    notes: dict[tuple[str, str], ReaderNote] = {}

    not_listed: Counter = Counter()
    batch_events = 0
    hand_periods: dict[str, Period] = {}
    kept = _ForReports(partition.index, options)
    batch_size = partition_batch_size(partition, options.batch_size)

    def flush() -> None:
        nonlocal rows_in_memory
        if batch:
            _add_periods(hand_periods, batch)
            found, cov, failed, rows, games, files = _audit_batch(batch, packs, local, forced, state, kept)
            found, dropped = cap_findings(found)
            not_listed.update(dropped)
            if len(found) or not findings:
                findings.append(found)  # Arrow-backed text columns (pandas' default string dtype): compact
            coverage.add(cov)
            quarantined.extend(failed)
            uncovered.update(games)
            uncovered_per_file.update(files)
            if rows is not None:
                if options.ledger_folder is not None and (options.spill_all_rows or
                                                          rows_in_memory + len(rows.hashes) > ledger.SPILL_ROWS):
                    rows = ledger.spill(rows, options.ledger_folder, f"{partition.index:08d}-{len(ledger_rows):06d}")
                else:
                    rows_in_memory += len(rows.hashes)
                ledger_rows.append(rows)
            batch.clear()
            collect_batch()

    for piece, items in read_pieces(partition.pieces, options.limits, options.reference_formats):
        for item in items:
            if isinstance(item, ReaderNote):  # about the file, not a hand: said once per (file, code)
                notes.setdefault((item.file, item.code), item)
                continue
            if isinstance(item, TableChunk):
                count = item.num_hands + len(item.quarantined)
                hands_read += count
                unreported += count
                if item.hand_files is None:
                    read_per_file[item.file] += count
                else:  # hands of many inputs (a run of `.phh` files: `ingest.phh_tables`)
                    read_per_file.update(item.hand_files)
                    read_per_file.update(q.file for q in item.quarantined)
                refused = list(item.quarantined)
                for q in refused:  # recorded before the chunk's hands replay, as a hand-by-hand reader's
                    if q.table_id is not None:
                        state.break_chain(q.file, q.table_id, q.line)
                declared = item.tables.hands["rule_pack"].to_pylist()
                for name in [forced.name] if forced else dict.fromkeys(declared):  # loaded in the hands' order
                    load_pack(name)
                drop = np.array([not forced and name in unknown_packs for name in declared], dtype=bool)
                if drop.any():  # as for a hand read alone that declares a pack that cannot be used
                    hands, files = item.tables.hands, item.files()
                    for row in np.flatnonzero(drop).tolist():
                        line, table_id = int(hands["line"][row].as_py()), hands["table_id"][row].as_py()
                        state.break_chain(files[row], table_id, line)
                        refused.append(Quarantined(files[row], line, f"declares rule pack '{declared[row]}', which "
                                                   f"cannot be used: {unknown_packs[declared[row]]}",
                                                   hands["hand_id"][row].as_py(), code="invalid-record",
                                                   table_id=table_id))
                    refused.sort(key=lambda q: q.line)
                quarantined.extend(refused)
                chunk = item.without(drop)
                while chunk is not None and chunk.num_hands:  # cut where hands read one by one would be cut
                    cut, batch_events, full = chunk.batch_cut(len(batch), batch_events, batch_size,
                                                              MAX_BATCH_EVENTS,
                                                              (DENSE_BATCH_EVENTS, DENSE_EVENTS_PER_HAND))
                    head, chunk = chunk.split(cut)
                    batch.append(head)
                    if full:
                        flush()
                        batch_events = 0
                if notify is not None and unreported >= 1000:
                    notify("hands", partition.index, unreported)
                    unreported = 0
                continue
            hands_read += 1
            unreported += 1
            read_per_file[item.file] += 1
            if notify is not None and unreported == 1000:
                notify("hands", partition.index, unreported)
                unreported = 0
            if isinstance(item, Quarantined):
                if item.table_id is not None:  # the table's next hand has no known previous hand
                    state.break_chain(item.file, item.table_id, item.line)
                quarantined.append(item)
                continue
            name = forced.name if forced else item.hand["rule_pack"]
            load_pack(name)
            if name in unknown_packs:
                # the record names a rule book that does not exist: the hand cannot be judged under it
                table_id = item.hand.get("table_id")
                if table_id is not None:  # as for a reader's quarantine: the table's chain is broken here
                    state.break_chain(item.file, table_id, item.line)
                quarantined.append(Quarantined(item.file, item.line, f"declares rule pack '{name}', which cannot be "
                                               f"used: {unknown_packs[name]}", item.hand["hand_id"],
                                               code="invalid-record", table_id=table_id))
                continue
            batch.append(item)
            events = item.hand.get("events")
            batch_events += len(events) if isinstance(events, list) else 0
            if batch_is_full(len(batch), batch_events, batch_size):
                flush()
                batch_events = 0
        if notify is not None:
            notify("hands", partition.index, unreported)
            notify("piece", partition.index, piece.input_index)
            unreported = 0
    flush()
    return PartitionResult(
        partition.index, _concat(findings) if findings else check(*empty_batch(local))[0],
        coverage.frame(), quarantined, hands_read, read_per_file, list(packs),
        ledger_rows, time.perf_counter() - started, uncovered, uncovered_per_file, list(notes.values()), not_listed,
        hand_periods, kept.table_hands, kept.finding_hands(), kept.views, kept.asked, kept.repeats)


class _ForReports:
    """What a partition keeps for the reports while it audits, so that no report reads or replays a log
    again: hands per table, the start of every hand with findings, and the views of the hands shown
    (`report.hands`), all made from the batch's own tables and facts, vectorised but for the few views.

    A hand whose only finding is run-wide (its id used before: `engines.ledger`, judged once the whole
    run is in) has no finding here; so when a pack has such a rule, the hands repeating an id seen
    earlier in this partition keep their view too (`repeats`), and the driver keeps those the ledger
    did flag, and their start times (for the findings over time). At most `MAX_IDS_REMEMBERED` ids are
    remembered; a repeat of a hand in another partition, or past that, has no replay (the page says so)
    and no start time."""

    def __init__(self, partition: int, options: RunOptions) -> None:
        self.partition = partition
        self.wanted_ids = options.keep_hand_ids
        self.views = KeptViews(options.max_views)
        self.asked = KeptViews(options.max_views)
        self.repeats = KeptViews(options.max_views)
        self.ids: set[str] | None = set()  # None: no longer remembered
        #: the last batch's ids, put into `ids` only when a later batch asks (a partition is usually one batch:
        #: a set of its 20,000 ids, never looked up, cost ~2 ms)
        self._unset: np.ndarray | None = None
        self.table_hands: Counter = Counter()
        self.starts: list[pd.DataFrame] = []
        self.read = 0  # hands of earlier batches, so (partition, read + row) orders every hand of the run

    def add(self, batch: list[SourceHand], hands: pd.DataFrame, facts: dict[str, pd.DataFrame],
            findings: pd.DataFrame, run_wide: bool = False) -> None:
        """Take what the reports need from one checked batch (`hands`: its replayed hands; `run_wide`: a
        pack of the batch has a run-wide rule)."""
        self.table_hands.update({str(t): int(c) for t, c in hands["table_id"].value_counts(sort=False).items()})
        shown: list[int] = []
        if len(findings):
            keys = findings[["file", "line"]].drop_duplicates()
            found = hands[["file", "line", "started_at"]].merge(keys, on=["file", "line"])
            self.starts.append(found.drop_duplicates(["file", "line"], ignore_index=True))
            shown = wanted_rows(hands, keys, self.views)
        asked: list[int] = []
        if self.wanted_ids:
            named = hands[hands["hand_id"].isin(self.wanted_ids)]
            asked = wanted_rows(hands, named[["file", "line"]], self.asked)
        repeated = self._repeats(hands) if run_wide else []
        views = hand_views(batch, hands, facts, shown + asked + repeated)
        for rows, store in ((shown, self.views), (asked, self.asked), (repeated, self.repeats)):
            for row in rows:
                view = views[row]
                store.offer((view.file, view.line), (self.partition, self.read + row), view)
        self.read += len(batch)

    def _repeats(self, hands: pd.DataFrame) -> list[int]:
        """Rows of the hands whose id came earlier in this partition (the ledger's likely duplicates)."""
        if self.ids is None or not len(hands):
            return []
        ids = hands["hand_id"].astype(object).to_numpy()
        self._remember()
        seen = self.ids
        before = np.fromiter((i in seen for i in ids), dtype=bool, count=len(ids)) if seen else \
            np.zeros(len(ids), dtype=bool)
        again = before | hands["hand_id"].duplicated(keep="first").to_numpy()
        picked = []
        if again.any():
            repeats = hands.loc[again, ["file", "line", "started_at"]]
            self.starts.append(repeats.drop_duplicates(["file", "line"], ignore_index=True))
            picked = wanted_rows(hands, repeats[["file", "line"]], self.repeats)
        if len(self.ids) + len(ids) > MAX_IDS_REMEMBERED:
            self.ids = None  # too many to remember: memory stays bounded
        else:
            self._unset = ids
        return picked

    def _remember(self) -> None:
        """The ids held back (`_unset`) put into `ids`."""
        if self._unset is not None and self.ids is not None:
            self.ids.update(self._unset)
        self._unset = None

    def finding_hands(self) -> pd.DataFrame | None:
        if not self.starts:
            return None
        return pd.concat(self.starts, ignore_index=True).drop_duplicates(["file", "line"], ignore_index=True)


def cap_findings(findings: pd.DataFrame, cap: int = MAX_FINDINGS_PER_HAND_RULE) -> tuple[pd.DataFrame, Counter]:
    """The findings with at most `cap` of one rule in one hand (the first, in event order), and how many
    were left out, by (pack, rule id). A hand is its (file, line): ids may repeat, positions do not."""
    if len(findings) <= cap:
        return findings, Counter()
    keys = ["file", "line", "pack", "rule_id"]
    rank = findings.groupby(keys, sort=False, dropna=False).cumcount()
    over = rank.to_numpy() >= cap
    if not over.any():
        return findings, Counter()
    dropped = findings.loc[over].groupby(["pack", "rule_id"], sort=False).size()
    return findings.loc[~over].reset_index(drop=True), Counter({key: int(n) for key, n in dropped.items()})


def _audit_batch(batch: HandBatch, packs: dict[str, Pack], local: dict[str, Pack], forced: Pack | None,
                 state: TableState, kept: _ForReports | None = None
                 ) -> tuple[pd.DataFrame, pd.DataFrame, list[Quarantined], ledger.Rows | None, Counter, Counter]:
    """Replay and check one batch: findings, coverage, hands the engine could not replay, run-wide rows,
    and the hands not covered by their pack, by (pack, variant, structure) and by file.

    Not-covered hands are replayed and checked like the others (their table's state must run on through
    them, and no rule selects them anyway); they are only counted apart, never as audited.
    """
    tables = batch.tables()
    hands = hands_frame(tables.hands)
    if forced:
        hands["rule_pack"] = forced.name
    houses = _houses(hands["rule_pack"], packs)
    facts, failures = replay(tables, houses, state)
    failed_hands = []
    if failures:
        failed = {h for h, _ in failures}
        # the engine raised on the hand: a bug of ours (an illegal action is recorded, never an exception)
        failed_hands = [Quarantined(hands.at[h, "file"], int(hands.at[h, "line"]), reason, hands.at[h, "hand_id"],
                                    code="internal-error", table_id=_text(hands.at[h, "table_id"]))
                        for h, reason in failures]
        hands = hands[~hands["hand"].isin(failed)]
    findings, coverage = check(facts, hands, local)
    run_wide = ledger.batch_rows(facts, hands, packs)
    if kept is not None:
        kept.add(batch, hands, facts, findings, run_wide is not None)
    outside = hands[not_covered(hands, packs)]
    games: Counter = Counter()
    files: Counter = Counter()
    if len(outside):
        games.update({key: int(n) for key, n in
                      outside.groupby(["rule_pack", "variant", "structure"], sort=False, dropna=False).size().items()})
        files.update({key: int(n) for key, n in outside["file"].value_counts(sort=False, dropna=False).items()})
    return findings, coverage, failed_hands, run_wide, games, files


def _add_periods(into: dict[str, Period], batch: HandBatch) -> None:
    """The batch's hand periods (`engines.periods`): from the Arrow columns when the batch is Parquet chunks."""
    parts = batch.parts
    if parts and all(isinstance(part, TableChunk) and part.hand_files is None for part in parts):
        add_columns(into, [part.file for part in parts], [part.tables.hands["started_at"] for part in parts])
    else:
        add_batch(into, batch.files(), batch.started_at())


def _houses(names: pd.Series, packs: dict[str, Pack]) -> list:
    """Each hand's house settings, from the pack it is audited under: one look-up per distinct pack, spread
    over the hands by code (iterating a text column's 20,000 values costs ~10 ms)."""
    codes, uniques = pd.factorize(names, use_na_sentinel=True)
    if (codes < 0).any():  # a hand without a pack: the KeyError a look-up of it gives
        raise KeyError(names[codes < 0].iloc[0])
    houses = np.empty(len(uniques), dtype=object)
    for k, name in enumerate(uniques):
        houses[k] = packs[name].house
    return houses[codes].tolist()


def _text(value: object) -> str | None:
    return None if value is None or pd.isna(value) else str(value)


def empty_batch(packs: dict[str, Pack]) -> tuple:
    """An empty batch, so a run with no readable hand still has well-formed findings and coverage."""
    tables = build_tables([])
    facts, _ = replay(tables, [])
    return facts, hands_frame(tables.hands), packs


def hands_frame(hands: pa.Table) -> pd.DataFrame:
    """The canonical hands table as the pandas frame the checks and reports read, its list columns (the
    stakes: blinds, bet units, spread limits) left Arrow-backed (`pd.ArrowDtype`): no rule or report reads
    them from here (rules read the facts and `HAND_COLUMNS`; a view reads its hand's own record), and
    making them Python lists was most of the conversion (13-20 ms of 14-21 for 20,000 hands; 1-1.5 now)."""
    return hands.to_pandas(types_mapper=_arrow_lists)


def _arrow_lists(arrow_type: pa.DataType) -> pd.ArrowDtype | None:
    return pd.ArrowDtype(arrow_type) if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type) else None




def sum_coverage(parts: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Coverage rows added up by rule, in the order the rules first appear."""
    return CoverageTotal(parts).frame()  # type: ignore[return-value]


def _concat(findings: list[pd.DataFrame]) -> pd.DataFrame:
    return findings[0] if len(findings) == 1 else pd.concat(findings, ignore_index=True)
