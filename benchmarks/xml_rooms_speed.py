"""How fast the XML dialect engine reads a room's XML, and how fast a whole audit of it runs. Run by hand:

    python benchmarks/xml_rooms_speed.py [--room ipoker|merge|microgaming|bossmedia] [--hands 20000] [--repeat 3]

A file of simulated hands (no-limit and pot-limit hold'em and Omaha, fixed-limit hold'em) is written once by
the room's writer (`auditor/export/xml_room.py`, the dialect run backwards) into a temporary folder; the room's
real exports in the shared corpus (`REAL`: every file there detected as the room's) are timed too when they are
beside the project. For each it prints hands/s
and microseconds a hand of CPU time (the wall clock of a shared machine is noise), the best of `--repeat`:

- read: `read_xml_room`'s items, to a list, in this process (streaming parse, hand conversion, validation);
- audit: `auditor.pipeline.audit` of the file under tda-2024, one process (`jobs=1`), replay and rules
  included, after one warm-up audit (Numba's kernels compiled or loaded from its cache before timing).
"""

from __future__ import annotations

import argparse
import platform
import tempfile
import time
from pathlib import Path

from auditor.check.packs import resolve_pack
from auditor.export import writer
from auditor.ingest.detect import detect
from auditor.ingest.xml_rooms import read_xml_room
from auditor.model.records import SourceHand
from auditor.pipeline import audit
from auditor.simulate import simulate_hands

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
#: room -> the corpus folders holding its real exports
REAL = {"ipoker": [CORPUS / "rooms-2" / "ipoker", CORPUS / "other-rooms" / "ipoker"],
        "merge": [CORPUS / "other-rooms" / "merge"], "microgaming": [CORPUS / "other-rooms" / "microgaming"],
        "bossmedia": [CORPUS / "other-rooms" / "bossmedia"]}
GAMES = [("holdem", "no-limit"), ("holdem", "pot-limit"), ("holdem", "fixed-limit"), ("omaha", "pot-limit"),
         ("omaha", "no-limit")]


def simulated(room: str, hands: int, folder: Path) -> Path:
    """A file of about `hands` simulated hands the room's XML can hold, written by the room's writer."""
    pack = resolve_pack("tda-2024")
    out = writer(room)
    written: list[dict] = []
    per = hands // len(GAMES) + 1
    for k, (variant, structure) in enumerate(GAMES):
        for hand in simulate_hands(variant, structure, per, k, house=pack.house, rule_pack=pack.name,
                                   table_prefix=f"G{k}-"):
            if out.cannot_express(hand) is None:
                written.append(hand)
    path = folder / f"simulated{out.SUFFIX}"
    out.write_hands(written[:hands], path)
    return path


def cpu_best(work, repeat: int) -> tuple[float, int]:
    best, count = float("inf"), 0
    for _ in range(repeat):
        started = time.process_time()
        count = work()
        best = min(best, time.process_time() - started)
    return best, count


def line(what: str, seconds: float, hands: int) -> str:
    rate = hands / seconds if seconds else float("inf")
    per = 1e6 * seconds / hands
    return f"  {what:<8} {hands:>7} hands  {seconds:7.3f} s CPU  {rate:>9,.0f} hands/s  {per:7.1f} µs/hand"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--room", default="ipoker")
    parser.add_argument("--hands", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{platform.processor() or platform.machine()}, Python {platform.python_version()}")
    with tempfile.TemporaryDirectory() as tmp:
        inputs = [simulated(args.room, args.hands, Path(tmp))]
        inputs += sorted(p for folder in REAL.get(args.room, []) if folder.is_dir() for p in folder.rglob("*")
                         if p.suffix in (".xml", ".txt") and getattr(detect(p), "name", None) == args.room)
        audit([inputs[0]], pack="tda-2024", jobs=1)  # warm-up: the kernels compiled or loaded
        size = sum(p.stat().st_size for p in inputs)
        print(f"{len(inputs)} file(s), {size / 1e6:.1f} MB; the first is simulated")

        def read_all(paths=inputs) -> int:
            return sum(isinstance(i, SourceHand) for p in paths for i in read_xml_room(p, args.room))

        print(f"simulated ({inputs[0].stat().st_size / 1e6:.1f} MB):")
        print(line("read", *cpu_best(lambda: read_all(inputs[:1]), args.repeat)))
        print(line("audit", *cpu_best(lambda: audit(inputs[:1], pack="tda-2024", jobs=1).hands_audited,
                                      args.repeat)))
        if len(inputs) > 1:
            print(f"the corpus's real exports ({len(inputs) - 1} files):")
            print(line("read", *cpu_best(lambda: read_all(inputs[1:]), args.repeat)))


if __name__ == "__main__":
    main()
