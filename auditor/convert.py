"""`auditor convert`: hand logs in, a Parquet dataset out, in memory bounded by a batch whatever the input.

The inputs are found as an audit finds them (`pipeline.discover`) and read by the readers an audit reads them with
(`engines.partition.read_pieces`: column-wise where the audit is column-wise), so the dataset holds exactly the
hands an audit of the logs would replay, and the hands it could not read as quarantine entries (file, line, code,
reason): auditing the dataset reports them again and counts the same hands read as the logs. Hands are gathered
into batches of `batch_size` (fewer when their events fill a batch: `engines.partition.batch_is_full`) and each batch is
appended to the dataset as soon as it is full (`ingest.parquet.DatasetWriter`): a batch is all a convert holds,
so ten million hands convert in the memory of twenty thousand. Quarantine entries are written, and told, as they
come. The dataset appears only once whole (`DatasetWriter`): an interrupted convert leaves none that looks
complete.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from auditor.engines.parquet_ranges import HandBatch
from auditor.engines.partition import Piece, batch_is_full, read_pieces
from auditor.ingest.parquet import QUARANTINE_FILE, TABLE_FILES, DatasetWriter, TableChunk
from auditor.model.inputs import UsageError, shown_text
from auditor.model.records import Quarantined, ReaderNote, SourceHand
from auditor.model.results import Progress
from auditor.pipeline import discover

if TYPE_CHECKING:
    from auditor.ingest.limits import Limits


@dataclass(frozen=True)
class Converted:
    """What a convert wrote: hands into the dataset, entries into its quarantine table, from how many inputs."""

    hands: int
    quarantined: int
    files: int


def existing_dataset(output: Path) -> list[str]:
    """The dataset files already in `output` (what `--overwrite` would replace)."""
    return [f"{name}.parquet" for name in (*TABLE_FILES, QUARANTINE_FILE) if (output / f"{name}.parquet").exists()]


def convert(paths: Iterable[Path], output: Path, *, overwrite: bool = False, batch_size: int = 20_000,
            limits: Limits | None = None, progress: Callable[[Progress], None] | None = None,
            quarantined: Callable[[Quarantined], None] | None = None) -> Converted:
    """Convert the hand logs under `paths` into a Parquet dataset in `output` (see the module docstring).

    `progress` is called after every batch and file; `quarantined` with each quarantine entry as it is written.
    Raises UsageError for inputs that cannot be found, an output that is not a directory, or a dataset already
    there without `overwrite` (nothing is written then)."""
    if output.exists() and not output.is_dir():
        raise UsageError(f"{shown_text(str(output))} is not a directory")
    existing = existing_dataset(output)
    if existing and not overwrite:
        raise UsageError(f"{shown_text(str(output))} already holds a Parquet dataset ({', '.join(existing)}); "
                         "pass --overwrite to replace it")
    inputs, _ = discover(paths, limits=limits)
    started = time.perf_counter()
    with DatasetWriter(output) as writer:
        batch = _Batch(writer, batch_size)
        pieces = [Piece(i, item) for i, item in enumerate(inputs)]
        for done, (_piece, items) in enumerate(read_pieces(pieces, limits), start=1):
            for item in items:
                if isinstance(item, ReaderNote):
                    continue  # a note about a file, not a hand
                if isinstance(item, Quarantined):
                    _quarantine(writer, [item], quarantined)
                    continue
                if isinstance(item, TableChunk) and item.quarantined:
                    _quarantine(writer, item.quarantined, quarantined)
                if batch.add(item) and progress is not None:
                    progress(Progress(done - 1, len(inputs), writer.hands + writer.quarantined,
                                      time.perf_counter() - started))
            if progress is not None:
                progress(Progress(done, len(inputs), writer.hands + len(batch.hands) + writer.quarantined,
                                  time.perf_counter() - started))
        batch.flush()
        return Converted(writer.hands, writer.quarantined, len(inputs))


def _quarantine(writer: DatasetWriter, entries: Sequence[Quarantined],
                told: Callable[[Quarantined], None] | None) -> None:
    writer.quarantine(entries)
    if told is not None:
        for entry in entries:
            told(entry)


class _Batch:
    """The hands read since the last batch was written, full as an audit's batch is (`batch_is_full`; a column-wise
    reader's chunk is taken whole: it holds at most a thousand hands)."""

    def __init__(self, writer: DatasetWriter, batch_size: int) -> None:
        self.writer = writer
        self.batch_size = max(1, batch_size)
        self.hands = HandBatch()
        self.events = 0

    def add(self, item: SourceHand | TableChunk) -> bool:
        """Add a hand or a chunk of them; whether the batch was full and is written."""
        self.hands.append(item)
        if isinstance(item, TableChunk):
            self.events += item.tables.events.num_rows
        else:
            events = item.hand.get("events")
            self.events += len(events) if isinstance(events, list) else 0
        if not batch_is_full(len(self.hands), self.events, self.batch_size):
            return False
        self.flush()
        return True

    def flush(self) -> None:
        if len(self.hands):
            self.writer.write(self.hands.tables())
        self.hands = HandBatch()
        self.events = 0
