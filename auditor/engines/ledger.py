"""Rules only the whole run can judge: a hand id used twice, whichever partitions the two hands are in.

A rule is *run-wide* when its pack says `scope: run` (the record-integrity rules TDA-INT-id, NZ-INT-id,
ONL5CD-INT-id, or any user rule: the loader requires it of a rule reading `duplicate_hand_id` or `duplicate_of`,
`packs.RUN_FACTS`). The replay does not judge hand ids at all (those facts are null in a batch's facts:
a partition, let alone a batch, cannot know the run), and workers do not check run-wide rules: for
every hand they audit they hand back the few columns such a rule reads (`rows`), and the driver
keeps them in a `Ledger`. Once every partition is in, `Ledger.resolve` decides which hands repeat an
id — the first hand in (file, line) order keeps it, every later one is the duplicate, whatever order
the inputs were named or the workers finished in, and names the file and line of that first hand
(`duplicate_of`, the evidence a reader can follow) — and checks the run-wide rules over all the rows,
giving their findings and coverage exactly as if one process had seen every hand.

Work: the driver is the one serial part of a run, so the workers do every per-hand step they can
(`batch_rows`): they hash the ids, and judge the run-wide rules over their rows as if no id repeated (the
*baseline*: findings and coverage of hands whose id is their own, which is nearly every hand). The driver
only adds the baselines up, finds the repeated hashes, and judges again, the old way, just the batches
holding a hand that repeats an id (at 1,000,000 hands: 6.3 s of the driver's time before, none now when
no id repeats). The findings and coverage are the same as one judgment of every row: a batch is judged
whole, by the same rules, either way.

Memory: what the ledger keeps in memory grows with the run by one small record a batch (a few hundred
bytes: where its rows and hashes are, its baseline's coverage counts), nothing a hand. The rows are kept
in memory up to `SPILL_ROWS` hands, then written to a temporary folder (about 190 bytes a hand on disk);
the 64-bit hash of each hand id (8 bytes a hand: 80 MB at ten million hands) is kept in memory up to
`HASHES_IN_MEMORY` hands, then written there too, once in arrival order (to find a batch's hashes again)
and once split by their top bits into `HASH_BUCKETS` files, so that finding the repeated hashes
(`first_uses`) sorts one bucket at a time: a few MB whatever the run, where sorting every hash at once
(`np.unique` over the concatenation) held about 39 bytes a hand at the end of the run, 390 MB at ten
million hands: the rise of the last quarter measured on 2026-12-01. The baselines' findings are kept only
when there are some, and their coverage is added up as it comes (`coverage.CoverageTotal`), a batch's
own counts kept as a few integers so that a batch judged again can replace them. Hash collisions cost
nothing but a look at the rows: ids are compared as text before a hand is called a duplicate.
"""

from __future__ import annotations

import dataclasses
import pickle
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from auditor.check.packs import RUN_FACTS, Pack, Rule
from auditor.check.run import check, with_hands
from auditor.engines.coverage import CoverageTotal
from auditor.replay.fact_frames import Facts
from auditor.replay.facts import FACT_COLUMNS, HAND_COLUMNS

#: facts a hand has only by comparison with every other hand of the run: the ledger writes them
RUN_WIDE_FACTS = RUN_FACTS
_HANDS_FACTS = frozenset(name for name, _, _ in FACT_COLUMNS["hands"])
#: hands of run-wide rows kept in memory before the rest go to disk
SPILL_ROWS = 200_000
_PARTITION, _POSITION = "__partition", "__position"


def is_run_wide(rule: Rule) -> bool:
    """Judged by the ledger over the whole run, never by a worker (the pack's `scope: run`)."""
    return rule.scope == "run"


def without_run_wide(pack: Pack) -> Pack:
    """The pack a worker checks: every rule but the run-wide ones."""
    kept = tuple(r for r in pack.rules if not is_run_wide(r))
    return pack if len(kept) == len(pack.rules) else dataclasses.replace(pack, rules=kept)


def only_run_wide(pack: Pack) -> Pack:
    return dataclasses.replace(pack, rules=tuple(r for r in pack.rules if is_run_wide(r)))


def columns(packs: Iterable[Pack]) -> list[str] | None:
    """The hand facts the run-wide rules of `packs` read, with the hand columns; None if there are none."""
    names: set[str] = set()
    found = False
    for pack in packs:
        for rule in pack.rules:
            if is_run_wide(rule):
                found = True
                names |= rule.reads | {"seq"}
    if not found:
        return None
    # the run-wide facts are the ledger's to write (null in the workers' facts)
    extra = sorted(n for n in names & _HANDS_FACTS if n != "hand" and n not in HAND_COLUMNS and n not in RUN_WIDE_FACTS)
    return ["hand", *HAND_COLUMNS, *extra]


def rows(facts: Facts, hands: pd.DataFrame, packs: Iterable[Pack]) -> pd.DataFrame | None:
    """One row per audited hand of a batch: what the run-wide rules of `packs` read (None: no such rule)."""
    wanted = columns(packs)
    if wanted is None:
        return None
    table = facts["hands"]
    labels = table["hand"].to_numpy(dtype=np.int64, na_value=-1)
    if not _in_order(hands.index, labels):  # hands the engine gave up on, or a caller's own tables
        joined = with_hands(table, hands)
        return joined[[c for c in wanted if c in joined.columns]].reset_index(drop=True)
    # one facts row per hand, in the hands' order (the engine's usual output): the columns side by side,
    # what `with_hands` + the selection give, without pandas' label lookup and concatenation (~10 ms a batch)
    own = set(table.columns)
    picked = {c: (table[c] if c in own else hands[c]).array for c in wanted if c in own or c in hands.columns}
    return pd.DataFrame(picked, index=pd.RangeIndex(len(labels)))


def _in_order(index: pd.Index, labels: np.ndarray) -> bool:
    """Whether `labels` (the facts rows' hands) are exactly the 0..n-1 RangeIndex `index`, row for row."""
    return (isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1 and len(index) == len(labels)
            and bool(np.array_equal(labels, np.arange(len(labels), dtype=np.int64))))


@dataclass
class Rows:
    """One batch's run-wide rows as a worker hands them to the driver (`batch_rows`)."""

    #: the rows (`rows`); None once the worker has written them to `path` (`spill`)
    frame: pd.DataFrame | None
    #: a 64-bit hash of each row's hand id
    hashes: np.ndarray
    #: the run-wide rules' findings and coverage over these rows if no id repeats (the baseline)
    findings: pd.DataFrame
    coverage: pd.DataFrame
    path: str | None = None


def spill(part: Rows, folder: str, name: str) -> Rows:
    """`part` with its rows written to `folder` by the worker itself (a folder of this machine the driver's
    ledger owns: `Ledger.folder`), so the driver neither unpickles nor writes them; it reads back only the
    rare batches holding a repeated id."""
    path = Path(folder) / f"{name}.pickle"
    with path.open("wb") as f:
        pickle.dump(part.frame, f, protocol=pickle.HIGHEST_PROTOCOL)
    return dataclasses.replace(part, frame=None, path=str(path))


def batch_rows(facts: Facts, hands: pd.DataFrame, packs: dict[str, Pack]) -> Rows | None:
    """What a worker hands the ledger for one batch (None: no pack has a run-wide rule): the rows, their ids'
    hashes and the baseline judgment, all made here, in parallel, so the driver does no per-hand work."""
    frame = rows(facts, hands, packs.values())
    if frame is None:
        return None
    hashes = pd.util.hash_array(frame["hand_id"].to_numpy(dtype=object), categorize=False)
    wide = {name: only_run_wide(pack) for name, pack in packs.items()}
    found, cov = _judge(frame, wide, np.zeros(len(frame), dtype=bool), {})
    return Rows(frame, hashes, found, cov)


def _judge(frame: pd.DataFrame, wide: dict[str, Pack], repeated: np.ndarray,
           origin: dict[str, str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The run-wide rules of `wide` over one batch's rows, `repeated` marking the hands whose id an earlier
    hand has and `origin` naming that earlier hand's place by id."""
    table = frame[[c for c in frame.columns if c in _HANDS_FACTS]].copy()
    table["duplicate_hand_id"] = pd.array(repeated, dtype="boolean")
    if origin and repeated.any():
        of = frame["hand_id"].map(origin)
        table["duplicate_of"] = pd.array(of.where(repeated, None).tolist(), dtype="string")
    else:  # the baseline, every batch: no hand repeats an id (a list of 20,000 Nones made text: ~9 ms)
        table["duplicate_of"] = pd.array(pa.nulls(len(frame), pa.large_string()), dtype="string")
    hands = frame[list(HAND_COLUMNS)].set_axis(frame["hand"].to_numpy(dtype=np.int64))
    return check(Facts({"hands": table}), hands, {name: p for name, p in wide.items() if p.rules})


@dataclass
class _Chunk:
    """One batch's rows, in memory or spilled to a file, where its ids' hashes are, and what its baseline
    judgment left: its findings if it had any, and its own coverage counts (to take away if judged again)."""

    partition: int
    #: position in its partition of its first row (the ledger's keys: partition << 40 | position)
    start: int
    #: its rows (= hashes); its hashes are the run's hashes [offset, offset + count) in arrival order
    count: int
    offset: int
    #: its hashes while they are still in memory (None once written to the ledger's hash file)
    hashes: np.ndarray | None
    findings: pd.DataFrame | None
    #: its baseline's coverage counts, one row of integers a run-wide rule
    coverage: CoverageTotal
    frame: pd.DataFrame | None
    path: Path | None = None

    def load(self) -> pd.DataFrame:
        if self.frame is not None:
            return self.frame
        with self.path.open("rb") as f:  # type: ignore[union-attr]
            return pickle.load(f)

    def keys(self, rows: np.ndarray | None = None) -> np.ndarray:
        """The keys of its rows (`rows`: positions in the chunk; None: every row)."""
        at = np.arange(self.count, dtype=np.int64) if rows is None else rows.astype(np.int64)
        return (np.int64(self.partition) << 40) | (self.start + at)


#: hands whose id hashes the ledger keeps in memory (8 MB) before writing them all to its folder
HASHES_IN_MEMORY = 1_000_000
#: files the hashes on disk are split into by their top bits, so finding repeats sorts one at a time
#: (1.25 MB each at ten million hands)
_BUCKET_BITS = 6
HASH_BUCKETS = 1 << _BUCKET_BITS
_BUCKET_SHIFT = np.uint64(64 - _BUCKET_BITS)
_HASH = np.dtype(np.uint64)


class Ledger:
    """Every audited hand's run-wide rows, gathered from the partitions (see the module docstring)."""

    def __init__(self, spill_rows: int | None = None, hashes_in_memory: int | None = None):
        self.spill_rows = SPILL_ROWS if spill_rows is None else spill_rows
        self.hashes_in_memory = HASHES_IN_MEMORY if hashes_in_memory is None else hashes_in_memory
        self.chunks: list[_Chunk] = []
        self.in_memory = 0
        #: hashes of the run so far, and how many of them are on disk (the first `on_disk`, in arrival order)
        self.hashed = 0
        self.on_disk = 0
        #: the baselines' coverage added up (batches judged again are corrected in `resolve`)
        self.coverage = CoverageTotal()
        self._waiting: list[_Chunk] = []  # chunks whose hashes are still in memory
        self._folder: tempfile.TemporaryDirectory | None = None

    def folder(self) -> str:
        """The temporary folder of this ledger's spilled rows (made on first use; removed by `close`), where
        workers of this machine may write theirs (`spill`)."""
        if self._folder is None:
            self._folder = tempfile.TemporaryDirectory(prefix="auditor-ledger-")
        return self._folder.name

    def add(self, partition: int, parts: Iterable[Rows]) -> None:
        """A partition's rows, batch by batch, in its order (that order breaks ties of file and line)."""
        position = 0
        for part in parts:
            frame = part.frame
            count = len(part.hashes)
            start, position = position, position + count
            self.coverage.add(part.coverage)
            findings = part.findings if len(part.findings) else None
            chunk = _Chunk(partition, start, count, self.hashed, part.hashes, findings, CoverageTotal([part.coverage]),
                           None, None)
            self.hashed += count
            self._waiting.append(chunk)
            if frame is None:  # written by the worker already
                chunk.path = Path(part.path)  # type: ignore[arg-type]
            elif self.in_memory + len(frame) <= self.spill_rows:
                chunk.frame = frame
                self.in_memory += len(frame)
            else:
                path = Path(self.folder()) / f"{len(self.chunks):08d}.pickle"
                with path.open("wb") as f:
                    pickle.dump(frame, f, protocol=pickle.HIGHEST_PROTOCOL)
                chunk.path = path
            self.chunks.append(chunk)
            if self.hashed - self.on_disk > self.hashes_in_memory:
                self._write_hashes()

    def _write_hashes(self) -> None:
        """The hashes still in memory, appended to the hash file (arrival order) and to their buckets."""
        waiting, self._waiting = self._waiting, []
        if not waiting:
            return
        hashes = np.concatenate([c.hashes for c in waiting]).astype(_HASH, copy=False)  # type: ignore[misc]
        folder = Path(self.folder())
        with (folder / "hashes.u64").open("ab") as f:
            hashes.tofile(f)
        ordered = np.sort(hashes)  # one batch's worth of hashes at most HASHES_IN_MEMORY: a few MB
        bounds = np.searchsorted(ordered >> _BUCKET_SHIFT, np.arange(HASH_BUCKETS + 1, dtype=np.uint64))
        for bucket in range(HASH_BUCKETS):
            if bounds[bucket + 1] > bounds[bucket]:
                with (folder / f"bucket-{bucket:03d}.u64").open("ab") as f:
                    ordered[bounds[bucket]:bounds[bucket + 1]].tofile(f)
        for chunk in waiting:
            chunk.hashes = None
        self.on_disk = self.hashed

    def hashes(self, chunk: _Chunk) -> np.ndarray:
        """A chunk's hashes, from memory or from the hash file."""
        if chunk.hashes is not None:
            return chunk.hashes
        return np.fromfile(Path(self.folder()) / "hashes.u64", dtype=_HASH, count=chunk.count,
                           offset=chunk.offset * _HASH.itemsize)

    def close(self) -> None:
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None

    def duplicates(self) -> np.ndarray:
        """Keys (partition << 40 | position) of the hands whose id an earlier hand in (file, line) order has."""
        return self.first_uses()[0]

    def repeated_hashes(self) -> np.ndarray:
        """The hashes that more than one hand has, sorted: found in memory while the run's hashes fit there,
        otherwise one bucket file at a time (memory of one bucket, not of the run)."""
        if self.on_disk:
            self._write_hashes()
            folder = Path(self.folder())
            found = [_repeats(np.fromfile(path, dtype=_HASH)) for bucket in range(HASH_BUCKETS)
                     if (path := folder / f"bucket-{bucket:03d}.u64").exists()]
            return np.concatenate(found) if found else np.empty(0, dtype=_HASH)
        held = [c.hashes for c in self._waiting if len(c.hashes)]  # type: ignore[arg-type]
        return _repeats(np.concatenate(held).astype(_HASH, copy=False)) if held else np.empty(0, dtype=_HASH)

    def first_uses(self) -> tuple[np.ndarray, dict[str, str]]:
        """`duplicates()`, and for each repeated id the "file:line" of the hand that used it first."""
        none = np.empty(0, dtype=np.int64), {}
        if not self.chunks:
            return none
        repeated = self.repeated_hashes()
        if not len(repeated):
            return none
        candidates = []
        for chunk in self.chunks:
            mask = np.isin(self.hashes(chunk).astype(_HASH, copy=False), repeated)
            if mask.any():
                rows = chunk.load().loc[mask, ["hand_id", "file", "line"]]
                candidates.append(rows.assign(**{_PARTITION: chunk.partition,
                                                 _POSITION: chunk.start + np.flatnonzero(mask)}))
        found = pd.concat(candidates, ignore_index=True).sort_values(["file", "line", _PARTITION, _POSITION],
                                                                      kind="stable")
        later_mask = found.duplicated("hand_id", keep="first")
        first = found[~later_mask & found["hand_id"].isin(found.loc[later_mask, "hand_id"])]
        origin = {str(i): f"{f}:{int(n)}" if pd.notna(n) else str(f)
                  for i, f, n in zip(first["hand_id"], first["file"], first["line"], strict=True)}
        return np.sort(_keys(found[later_mask])), origin

    def resolve(self, packs: dict[str, Pack]) -> tuple[list[pd.DataFrame], pd.DataFrame | None]:
        """Findings of the run-wide rules over every audited hand, one part per batch that has some, and
        their coverage added up (None: no batch): the workers' baseline for a batch where no hand repeats
        an id, a judgment of the whole batch again for one where some do (so a batch is always judged
        whole, as one pass over every row would)."""
        wide = {name: only_run_wide(pack) for name, pack in packs.items()}
        duplicate_keys, origin = self.first_uses()
        findings = []
        for chunk in self.chunks:
            repeated = np.isin(chunk.keys(), duplicate_keys) if len(duplicate_keys) else None
            if repeated is None or not repeated.any():
                if chunk.findings is not None:
                    findings.append(chunk.findings)
                continue
            found, cov = _judge(chunk.load(), wide, repeated, origin)
            self.coverage.add_total(chunk.coverage, -1)
            self.coverage.add(cov)
            findings.append(found)
        return findings, self.coverage.frame()


def _repeats(hashes: np.ndarray) -> np.ndarray:
    """The values that occur more than once in `hashes`, sorted (sorts `hashes` in place)."""
    hashes.sort()
    again = hashes[1:][hashes[1:] == hashes[:-1]]
    return np.unique(again)


def _keys(frame: pd.DataFrame) -> np.ndarray:
    return (frame[_PARTITION].to_numpy(dtype=np.int64) << 40) | frame[_POSITION].to_numpy(dtype=np.int64)


def check_whole(facts: Facts, hands: pd.DataFrame, packs: dict[str, Pack]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """`check` of one batch that is the whole run (`auditor verify`, a caller auditing one set of hands in one
    call): the batch's rules, then its `scope: run` rules by a ledger of this batch alone, findings and
    coverage together as the audit pipeline would give them for these hands."""
    found, cov = check(facts, hands, {name: without_run_wide(p) for name, p in packs.items()})
    wide = batch_rows(facts, hands, packs)
    if wide is None:
        return found, cov
    ledger = Ledger()
    try:
        ledger.add(0, [wide])
        wide_found, wide_cov = ledger.resolve(packs)
    finally:
        ledger.close()
    return pd.concat([found, *wide_found], ignore_index=True), pd.concat([cov, wide_cov], ignore_index=True)
