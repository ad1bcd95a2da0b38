"""The dialect engine against another checkout's PokerStars reader: the same items for the same files.

    python scripts/compare_room_reader.py --reference CHECKOUT [FILE_OR_FOLDER ...] [--simulate N]

CHECKOUT is a checkout of a version whose PokerStars reader is to be compared (the hand-written reader this
engine replaced lives in the versions before 0.3.0: `git worktree add /tmp/old <commit>`); it is run in a child
process with that checkout first on the import path, and its items come back as canonical tables and plain rows.
For each file, both readers' items are compared: the hands (as canonical tables: what the audit reads), the
quarantine entries (line, code, reason, hand id, table id) and the notes, in order. Prints each difference and a
summary; exits 1 when any file differs. With --simulate N, N hands of each game our writer writes are read too.
"""

from __future__ import annotations

import argparse
import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

from auditor.ingest.parquet import TableChunk
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


#: run in the reference checkout: its reader's items of each file, pickled (the records are the same classes in
#: both versions, `auditor.model.records`)
_CHILD = """
import pickle, sys
from pathlib import Path
import auditor
assert auditor.__file__.startswith(sys.argv[1]), auditor.__file__
from auditor.ingest.pokerstars import read_pokerstars
for path, out in zip(sys.argv[2::2], sys.argv[3::2]):
    Path(out).write_bytes(pickle.dumps(list(read_pokerstars(Path(path)))))
"""


def reference_items(checkout: Path, files: list[Path], folder: Path) -> list[list]:
    """The reference checkout's items of each file."""
    outs = [str(folder / f"ref{i}") for i in range(len(files))]
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    pairs = [x for pair in zip(map(str, files), outs, strict=True) for x in pair]
    subprocess.run([sys.executable, "-c", _CHILD, str(checkout), *pairs], env=env, check=True, cwd=folder)
    return [pickle.loads(Path(out).read_bytes()) for out in outs]


def compare(path: Path, reference: list) -> list[str]:
    ref_hands, _, ref_other = _split(reference)
    _, new_tables, new_other = _split(read_room(path, "pokerstars"))
    problems = []
    for a, b in zip(ref_other, new_other, strict=False):
        if a != b:
            problems.append(f"{path}: item differs:\n  reference {a}\n  dialect   {b}")
    if len(ref_other) != len(new_other):
        problems.append(f"{path}: {len(ref_other)} quarantines/notes by the reference, {len(new_other)} by the dialect")
        extra = set(ref_other) ^ set(new_other)
        problems += [f"  only in one: {x}" for x in sorted(extra, key=str)[:5]]
    ref = build_tables(ref_hands)
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
    parser.add_argument("--reference", type=Path, required=True, help="a checkout with ingest/pokerstars.py")
    parser.add_argument("--simulate", type=int, default=0)
    args = parser.parse_args()
    files = []
    for p in args.paths:
        files += sorted(x.resolve() for x in p.rglob("*.txt") if x.is_file()) if p.is_dir() else [p.resolve()]
    with tempfile.TemporaryDirectory() as tmp:
        if args.simulate:
            files += _simulated(Path(tmp), args.simulate)
        bad = 0
        for f, reference in zip(files, reference_items(args.reference.resolve(), files, Path(tmp)), strict=True):
            problems = compare(f, reference)
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
