"""The PokerStars text and OHH readers give the items they gave before they were made faster.

Speeding a reader up must not change one item: a hand's dict, a quarantine entry (file, line, reason,
hand id, code, table) or a reader note. `tests/snapshots/readers/identity.json` holds a digest of every
item the readers gave, at the commit before the speed work, for:

- every PokerStars and OHH file under tests/fixtures (hands of real exports, the room conventions, the
  illegal plays the readers record, the refusals), and `tests/fixtures/readers/simulated.*`: hands our
  writers wrote (auditor/export) of every game each format holds, sitting out and rake included;
- mutants of those files, made here with a seeded generator: lines dropped, doubled, swapped, cut short,
  a digit or a word changed, a known line put in; JSON keys dropped, values changed, list entries
  dropped, doubled or swapped. Most are refused, so every refusal and its wording is held too.

A digest differs when anything in the items does: rerun the old reader on the case to see what (the
module's `__main__` rewrites the digests, for a change that means to change what a reader gives).
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest
from reader_items import read_pokerstars

from auditor.ingest.ohh import read_ohh
from auditor.model.records import Quarantined, ReaderNote, SourceHand

FIXTURES = Path(__file__).parent / "fixtures"
GOLDEN = Path(__file__).parent / "snapshots" / "readers" / "identity.json"
PS_MUTANTS = 400
OHH_MUTANTS = 200


def sources(fmt: str) -> list[Path]:
    """The committed files of one format, in a fixed order."""
    suffixes = (".txt",) if fmt == "pokerstars" else (".ohh", ".json")
    folders = [FIXTURES / "pokerstars", FIXTURES / "readers", FIXTURES / "fuzz"] if fmt == "pokerstars" else \
        [FIXTURES / "ohh", FIXTURES / "readers"]
    return sorted((p for folder in folders for p in folder.rglob("*") if p.is_file() and p.suffix in suffixes),
                  key=lambda p: str(p.relative_to(FIXTURES)))


def _ps_hands(text: str) -> list[list[str]]:
    hands: list[list[str]] = []
    for line in text.split("\n"):
        if line.startswith("PokerStars Hand #") or not hands:
            hands.append([])
        hands[-1].append(line)
    return hands


_WORDS = ["folds", "calls", "raises", "bets", "checks", "is", "all-in", "and", "$1.005", "1,000", "collected",
          "[Ah]", "[Ah Kd Qs]", "sits", "out", "posts", "0", "1e5", "Omaha", "Limit", "Hi/Lo", "(", ")", "Seat",
          "timed", "\u0661\u0662", "P\u00e9", "**"]
_LINES = ["{p}: sits out", "Uncalled bet (5) returned to {p}", "{p} has timed out", "*** SHOW DOWN ***",
          "*** FLOP *** [2c 3c 4c]", "Hand cancelled", "Total pot 10 | Rake 0", "{p} has returned",
          'x said, "hi"', "{p}: is sitting out", "{p}: doesn't show hand", "{p} collected 3 from side pot-2",
          "*********** # 2 **************", "{p}: posts small & big blinds 3", "{p}: raises 1 to 2 and is all-in"]


def _mutate_lines(lines: list[str], rng: random.Random) -> list[str]:
    lines = list(lines)
    player = next((line.split(": ", 1)[1].split(" (")[0] for line in lines if line.startswith("Seat ")), "p")
    for _ in range(rng.randint(1, 3)):
        if not lines:
            break
        i = rng.randrange(len(lines))
        line = lines[i]
        op = rng.randrange(9)
        if op == 0:
            del lines[i]
        elif op == 1:
            lines.insert(i, line)
        elif op == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 3:
            digits = [k for k, c in enumerate(line) if c.isdigit()]
            if digits:
                k = rng.choice(digits)
                lines[i] = line[:k] + str(rng.randrange(10)) + line[k + 1:]
        elif op == 4:
            k = rng.randrange(len(line) + 1)
            lines[i] = line[:k] + rng.choice(" .,:[]$#*x0") + line[k:]
        elif op == 5:
            lines[i] = line[:rng.randrange(len(line) + 1)]
        elif op == 6:
            words = line.split(" ")
            words[rng.randrange(len(words))] = rng.choice(_WORDS)
            lines[i] = " ".join(words)
        elif op == 7:
            lines.insert(i, rng.choice(_LINES).format(p=player))
        else:
            lines = lines[:i]
    return lines


_ACTIONS = ["Fold", "Check", "Call", "Bet", "Raise", "Post SB", "Post BB", "Post Ante", "Post Dead", "Straddle",
            "Post Extra Blind", "Shows Cards", "Mucks Cards", "Dealt Cards", "Sits Down", "Stands Up", "Added Chips",
            "Add to Pot", "Payout"]
_STREETS = ["Preflop", "Flop", "Turn", "River", "Showdown"]


def _mutate_json(value: Any, rng: random.Random) -> Any:
    """Mostly changes the OHH schema allows (other amounts, actions, streets; list entries dropped, doubled or
    swapped), so that the mapping's own refusals are reached; sometimes a key dropped or a null."""
    def walk(o: Any) -> None:
        if isinstance(o, dict) and o:
            key = rng.choice(sorted(o))
            v = o[key]
            r = rng.random()
            if r < 0.06:
                del o[key]
            elif r < 0.08:
                o[key] = None
            elif isinstance(v, int | float) and not isinstance(v, bool) and r < 0.6:
                o[key] = rng.choice([0, 1, 3, v * 2, v + 1, int(v) // 2, 0.5, 1.25, 10**16, 1.0000001])
            elif key == "action" and r < 0.6:
                o[key] = rng.choice(_ACTIONS)
            elif key == "street" and r < 0.6:
                o[key] = rng.choice(_STREETS)
            else:
                walk(v)
        elif isinstance(o, list) and o:
            i = rng.randrange(len(o))
            r = rng.random()
            if r < 0.2:
                del o[i]
            elif r < 0.35:
                o.insert(i, json.loads(json.dumps(o[i])))
            elif r < 0.45:
                j = rng.randrange(len(o))
                o[i], o[j] = o[j], o[i]
            else:
                walk(o[i])

    for _ in range(rng.randint(1, 3)):
        walk(value)
    return value


def _ohh_objects(text: str) -> list[Any]:
    decoder = json.JSONDecoder()
    out: list[Any] = []
    pos = 0
    while True:
        while pos < len(text) and text[pos] in " \r\n\t":
            pos += 1
        if pos >= len(text):
            return out
        try:
            value, pos = decoder.raw_decode(text, pos)
        except ValueError:
            return out
        out.extend(value if isinstance(value, list) else [value])


def cases(fmt: str) -> list[tuple[str, str]]:
    """(name, text) of every case of one format: each committed file whole, then the mutants."""
    files = sources(fmt)
    out = [(str(p.relative_to(FIXTURES)), p.read_text(encoding="utf-8", errors="surrogateescape")) for p in files]
    rng = random.Random(16)
    if fmt == "pokerstars":
        hands = [h for _, text in out for h in _ps_hands(text.replace("\r\n", "\n")) if h and h[0].startswith("P")]
        for k in range(PS_MUTANTS):
            mutant = [_mutate_lines(rng.choice(hands), rng) for _ in range(rng.choice((1, 1, 1, 2, 3)))]
            out.append((f"pokerstars-mutant-{k}", "\n\n".join("\n".join(h) for h in mutant) + "\n"))
    else:
        objects = [o for _, text in out for o in _ohh_objects(text)]
        for k in range(OHH_MUTANTS):
            mutant = _mutate_json(json.loads(json.dumps(rng.choice(objects))), rng)
            text = json.dumps(mutant, indent=rng.choice((None, 2))) + "\n"
            if k % 10 == 9:  # the text itself damaged: cut short, or a character put in
                at = rng.randrange(len(text))
                text = text[:at] if k % 20 == 9 else text[:at] + rng.choice('}]",:x\\') + text[at:]
            out.append((f"ohh-mutant-{k}", text))
    return out


def _plain(item: Any, folder: str) -> list[Any]:
    """An item as plain data, with the folder it was read from taken out of every text."""
    def text(value: str | None) -> str | None:
        return None if value is None else value.replace(folder, "<dir>")

    if isinstance(item, SourceHand):
        return ["hand", item.hand, text(item.file), item.line, item.claimed_file, item.claimed_line]
    if isinstance(item, Quarantined):
        return ["quarantined", text(item.file), item.line, text(item.reason), item.hand_id, item.code, item.table_id]
    assert isinstance(item, ReaderNote)
    return ["note", text(item.file), item.line, item.code, text(item.text)]


def digest(fmt: str, name: str, text: str, folder: Path) -> str:
    """The digest of what the reader of `fmt` gives for `text`, written to a file in `folder`."""
    path = folder / ("case.txt" if fmt == "pokerstars" else "case.ohh")
    path.write_bytes(text.encode("utf-8", errors="surrogateescape"))
    reader = read_pokerstars if fmt == "pokerstars" else read_ohh
    items = [_plain(x, str(folder)) for x in reader(path)]
    blob = json.dumps(items, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def _golden() -> dict[str, dict[str, str]]:
    return json.loads(GOLDEN.read_text())


@pytest.mark.parametrize("fmt", ["pokerstars", "ohh"])
def test_the_readers_give_the_items_they_gave_before(fmt, tmp_path):
    golden = _golden()[fmt]
    all_cases = cases(fmt)
    assert len(all_cases) == len(golden), "the cases changed: regenerate the digests with the old reader"
    differ = [name for name, text in all_cases if digest(fmt, name, text, tmp_path) != golden[name]]
    assert not differ, f"{len(differ)} of {len(all_cases)} cases give other items than before: {differ[:10]}"


def test_the_cases_cover_hands_and_refusals(tmp_path):
    """The cases are worth holding: most mutants are refused, with many codes, and many hands are read."""
    seen: dict[str, set[str]] = {}
    for fmt in ("pokerstars", "ohh"):
        reader = read_pokerstars if fmt == "pokerstars" else read_ohh
        kinds: set[str] = set()
        for _, text in cases(fmt):
            path = tmp_path / ("case.txt" if fmt == "pokerstars" else "case.ohh")
            path.write_bytes(text.encode("utf-8", errors="surrogateescape"))
            for item in reader(path):
                kinds.add(f"code:{item.code}" if isinstance(item, Quarantined) else type(item).__name__)
        seen[fmt] = kinds
    assert {"SourceHand", "code:damaged", "code:truncated", "code:inconsistent-amounts"} <= seen["pokerstars"]
    assert {"SourceHand", "code:invalid-record", "code:damaged", "code:inconsistent-amounts"} <= seen["ohh"]


if __name__ == "__main__":  # rewrite the digests (run with the readers whose items are the reference)
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        out = {fmt: {name: digest(fmt, name, text, Path(tmp)) for name, text in cases(fmt)}
               for fmt in ("pokerstars", "ohh")}
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_text(json.dumps(out, indent=0, sort_keys=True) + "\n")
    print(f"{sum(map(len, out.values()))} digests written to {GOLDEN}")
