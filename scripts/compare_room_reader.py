"""The dialect engine against the PokerStars reader it replaces: the same items for the same files.

    python scripts/compare_room_reader.py [FILE_OR_FOLDER ...] [--simulate N]

For each file, both readers' items are compared: the hands (as canonical tables: what the audit reads), the
quarantine entries (line, code, reason, hand id, table id) and the notes, in order. Prints each difference and a
summary; exits 1 when any file differs. With --simulate N, N hands of each game our writer writes are read too.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from auditor.ingest.parquet import TableChunk
from auditor.ingest.pokerstars import read_pokerstars
from auditor.ingest.rooms import read_room
from auditor.ingest.tables import build_tables, concat_tables
from auditor.model.records import Quarantined, ReaderNote, SourceHand


def _split(items):
    hands, tables, others = [], [], []
    for item in items:
        if isinstance(item, TableChunk):
            tables.append(item.tables)
            hands.extend([None] * item.num_hands)
            others.extend(("quarantine", q.line, q.code, q.reason, q.hand_id, q.table_id) for q in item.quarantined)
        elif isinstance(item, SourceHand):
            hands.append(item)
        elif isinstance(item, Quarantined):
            others.append(("quarantine", item.line, item.code, item.reason, item.hand_id, item.table_id))
        elif isinstance(item, ReaderNote):
            others.append(("note", item.line, item.code))
    return hands, tables, others


def compare(path: Path) -> list[str]:
    ref_hands, _, ref_other = _split(read_pokerstars(path))
    _, new_tables, new_other = _split(read_room(path, "pokerstars"))
    problems = []
    for a, b in zip(ref_other, new_other, strict=False):
        if a != b:
            problems.append(f"{path}: item differs:\n  reference {a}\n  dialect   {b}")
    if len(ref_other) != len(new_other):
        problems.append(f"{path}: {len(ref_other)} quarantines/notes by the reference, {len(new_other)} by the dialect")
        extra = set(ref_other) ^ set(new_other)
        problems += [f"  only in one: {x}" for x in sorted(extra, key=str)[:5]]
    ref = build_tables([h for h in ref_hands if h is not None])
    new = concat_tables(new_tables) if new_tables else build_tables([])
    if ref.num_hands != new.num_hands:
        problems.append(f"{path}: {ref.num_hands} hands by the reference, {new.num_hands} by the dialect")
        return problems
    for name in ("hands", "seats", "events"):
        a, b = getattr(ref, name), getattr(new, name)
        for column in a.column_names:
            x, y = a[column].to_pylist(), b[column].to_pylist()
            if x != y:
                at = next((i for i, (p, q) in enumerate(zip(x, y, strict=False)) if p != q), min(len(x), len(y)))
                hand = (a["hand"][at].as_py() if at < len(a) else "?")
                problems.append(f"{path}: {name}.{column} differs at row {at} (hand {hand}): "
                                f"{x[at] if at < len(x) else None!r} vs {y[at] if at < len(y) else None!r}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--simulate", type=int, default=0)
    args = parser.parse_args()
    files = []
    for p in args.paths:
        files += sorted(x for x in p.rglob("*") if x.is_file()) if p.is_dir() else [p]
    with tempfile.TemporaryDirectory() as tmp:
        if args.simulate:
            files += _simulated(Path(tmp), args.simulate)
        bad = 0
        for f in files:
            problems = compare(f)
            bad += bool(problems)
            for line in problems[:8]:
                print(line)
        print(f"{len(files)} files, {len(files) - bad} identical, {bad} differ")
    return 1 if bad else 0


def _simulated(folder: Path, count: int) -> list[Path]:
    from auditor.check.packs import builtin_pack_paths, load_pack
    from auditor.export import writer
    from auditor.simulate import simulate_hands

    packs = {name: load_pack(path) for name, path in builtin_pack_paths().items()}
    room = writer("pokerstars")
    out = []
    for variant, pack in (("holdem", "tda-2024"), ("omaha", "tda-2024"), ("five-card-draw", "online-five-card-draw")):
        for structure in ("no-limit", "pot-limit", "fixed-limit"):
            hands = [h for h in simulate_hands(variant, structure, count, 5, house=packs[pack].house, rule_pack=pack,
                                               sit_outs=True) if room.cannot_express(h) is None]
            path = folder / f"{variant}-{structure}.txt"
            room.write_hands(hands, path)
            out.append(path)
    return out


if __name__ == "__main__":
    sys.exit(main())
