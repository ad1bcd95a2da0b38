"""Regenerate sample_logs/: clean simulated tables for each game, and files with planted violations.

    python scripts/make_sample_logs.py

Clean logs come straight from the legal-play simulator under each pack's house rules. Planted
violations are made two ways, each recorded in sample_logs/planted.json and the README table:
- played wrong: the simulator plays a table under a deviating house (a cap of five raises, odd chips
  by the other method) and we keep hands where that deviation happened exactly once;
- edited: a clean hand is changed in one place (blind posts swapped in order, the button recorded one
  seat early, a raise shrunk below the minimum with its uncalled return adjusted, a seat-draw card
  swapped, one chip moved between split-pot winners).
The expected findings are fixed by construction; the test suite checks the auditor finds exactly them.
"""

from __future__ import annotations

import copy
import json
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

from auditor.check.packs import resolve_pack
from auditor.pipeline import audit
from auditor.simulate import simulate_mixed, write_jsonl

OUT = Path(__file__).resolve().parents[1] / "sample_logs"

#: game -> (variant/structure mix, pack, clean hands, seat draws, seed: chosen so every structure appears)
GAMES = {
    "nz-omaha": ([("omaha-nz", "fixed-limit"), ("omaha-nz", "spread-limit"), ("omaha-nz", "pot-limit")],
                 "nz-casino-1999", 400, True, 1),
    "nz-three-card": ([("three-card-nz", "fixed-limit"), ("three-card-nz", "pot-limit")], "nz-casino-1999", 300, False, 2),
    "online-draw": ([("five-card-draw", "fixed-limit")], "online-five-card-draw", 300, False, 3),
    "holdem": ([("holdem", "no-limit"), ("holdem", "fixed-limit"), ("holdem", "pot-limit")], "tda-2024", 400, False, 6),
}


def simulate(game: str, hands: int, seed: int, prefix: str, **house_changes) -> list[dict]:
    games, pack_name, _, seat_draws, _ = GAMES[game]
    pack = resolve_pack(pack_name)
    house = replace(pack.house, **house_changes) if house_changes else pack.house
    return list(simulate_mixed(games, hands, seed, house=house, rule_pack=pack.name, table_prefix=prefix,
                               room="Sample casino", seat_draws=seat_draws, table_size=(3, 9),
                               session_hands=(15, 60)))


def findings_of(hands: list[dict]) -> dict[str, list[tuple[str, str]]]:
    """hand_id -> [(rule_id, category)] under each hand's declared pack."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "hands.jsonl"
        write_jsonl(hands, path)
        result = audit([path])
    assert not result.quarantined, [q.one_line() for q in result.quarantined]
    found: dict[str, list[tuple[str, str]]] = {}
    for row in result.findings.itertuples():
        found.setdefault(row.hand_id, []).append((row.rule_id, row.category))
    return found


def played_wrong(game: str, seed: int, prefix: str, rule_id: str, want: int, **house_changes) -> list[dict]:
    """Hands played under a deviating house whose only findings are exactly one of `rule_id`."""
    hands = simulate(game, 3000, seed, prefix, **house_changes)
    found = findings_of(hands)
    chosen = [h for h in hands if [r for r, _ in found.get(h["hand_id"], [])] == [rule_id]]
    assert len(chosen) >= want, f"{game}: only {len(chosen)} hands with one {rule_id}"
    return chosen[:want]


def events_of(hand: dict, kind: str) -> Iterator[tuple[int, dict]]:
    return ((i, e) for i, e in enumerate(hand["events"]) if e["kind"] == kind)


def swap_blind_order(hand: dict) -> bool:
    posts = [i for i, e in events_of(hand, "post") if e["post"] == "blind"]
    if len(posts) < 2:
        return False
    ev = hand["events"]
    ev[posts[0]], ev[posts[1]] = ev[posts[1]], ev[posts[0]]
    return True


def button_one_seat_early(hand: dict) -> bool:
    seats = sorted(s["seat"] for s in hand["seats"])
    if len(seats) < 3:
        return False
    i, button = next(events_of(hand, "button"))
    hand["events"][i] = {**button, "seat": seats[seats.index(button["seat"]) - 1]}
    return True


def shrink_raise(hand: dict) -> bool:
    """A raise answered only by folds, then returned: make it a short raise, return adjusted."""
    if hand["structure"] not in ("no-limit", "pot-limit"):
        return False
    ev = hand["events"]
    for i, e in enumerate(ev):
        if e["kind"] != "action" or e["action"] != "raise" or e.get("all_in"):
            continue
        j = i + 1
        while j < len(ev) and ev[j]["kind"] == "action" and ev[j]["action"] == "fold":
            j += 1
        if j >= len(ev):
            return False
        folds, nxt = j - i - 1, ev[j]
        if folds == 0 or nxt["kind"] != "return" or nxt["seat"] != e["seat"]:
            continue
        # the bet it faced: the highest round total before it in this betting round
        start = max((k for k, x in enumerate(ev[:i]) if x["kind"] == "deal" and x["to"] == "board"), default=-1)
        preflop = start < 0 or (hand["variant"] == "three-card-nz" and sum(
            len(x["cards"]) for x in ev[:i] if x["kind"] == "deal" and x["to"] == "board") == 1)
        faced = max((x["to"] for x in ev[start + 1:i] if x["kind"] == "action" and x.get("to")), default=0)
        if preflop:
            faced = max(faced, hand["stakes"]["blinds"][-1])
        unit = hand["stakes"]["chip_unit"]
        new_to = faced + unit  # a raise of one chip unit: below any minimum
        cut = e["to"] - new_to
        if cut <= 0 or nxt["amount"] - cut <= 0 or new_to - faced >= hand["stakes"]["blinds"][-1]:
            continue
        e.update(to=new_to, amount=e["amount"] - cut)
        nxt["amount"] -= cut
        return True
    return False


def swap_seat_draw(hand: dict) -> bool:
    for _, e in events_of(hand, "seat_draw"):
        cards = [d["card"] for d in e["draws"]]
        won = next(k for k, d in enumerate(e["draws"]) if d["player"] == e["awarded_to"])
        other = next(k for k in range(len(cards)) if k != won)
        cards[won], cards[other] = cards[other], cards[won]
        for d, c in zip(e["draws"], cards, strict=True):
            d["card"] = c
        return True
    return False


def unequal_split(hand: dict) -> bool:
    awards: dict[int, list[dict]] = {}
    for _, e in events_of(hand, "award"):
        awards.setdefault(e["pot"], []).append(e)
    for paid in awards.values():
        if len(paid) == 2:
            unit = hand["stakes"]["chip_unit"]
            paid[0]["amount"] += 2 * unit
            paid[1]["amount"] -= 2 * unit
            return paid[1]["amount"] > 0
    return False


def edited(game: str, seed: int, prefix: str, edit: Callable[[dict], bool], rule_id: str, want: int) -> list[dict]:
    """Clean hands with one edit each, kept where the edit yields findings of `rule_id` only."""
    hands = simulate(game, 1500, seed, prefix)
    out = []
    for hand in hands:
        changed = copy.deepcopy(hand)
        if edit(changed):
            out.append(changed)
        if len(out) == want * 3:
            break
    found = findings_of(out)
    kept = [h for h in out if found.get(h["hand_id"]) and {r for r, _ in found[h["hand_id"]]} == {rule_id}]
    assert len(kept) >= want, f"{game}/{edit.__name__}: {len(kept)} usable"
    return kept[:want]


PLANTS = {
    "nz-omaha": [
        ("seat draw lost by the higher card", lambda: edited("nz-omaha", 11, "NZO-SD", swap_seat_draw, "NZ17-1a", 2)),
        ("blinds posted out of order", lambda: edited("nz-omaha", 12, "NZO-BO", swap_blind_order, "NZ17-1c", 1)),
        ("button recorded a seat early, so the blinds came from the wrong seats",
         lambda: edited("nz-omaha", 13, "NZO-BS", button_one_seat_early, "NZ17-1c", 1)),
        ("raise below the previous raise, not all-in", lambda: edited("nz-omaha", 14, "NZO-MR", shrink_raise, "NZ17-6c", 2)),
        ("table played a cap of five raises", lambda: played_wrong("nz-omaha", 15, "NZO-RC", "NZ17-6f", 2, max_raises=5)),
        ("odd chip given by position instead of suit",
         lambda: played_wrong("nz-omaha", 16, "NZO-OC", "NZ17-5e-odd", 2, odd_chip_method="position")),
        ("tied pot paid two chips unequally", lambda: edited("nz-omaha", 17, "NZO-SP", unequal_split, "NZ17-5e-split", 1)),
    ],
    "nz-three-card": [
        ("blinds posted out of order", lambda: edited("nz-three-card", 21, "N3C-BO", swap_blind_order, "NZ15-1c", 1)),
        ("button recorded a seat early", lambda: edited("nz-three-card", 22, "N3C-BS", button_one_seat_early, "NZ15-1c", 1)),
    ],
    "online-draw": [
        ("blinds posted out of order", lambda: edited("online-draw", 31, "D-BO", swap_blind_order, "ONL5CD-blinds", 1)),
        ("button recorded a seat early", lambda: edited("online-draw", 32, "D-BS", button_one_seat_early, "ONL5CD-blinds", 1)),
        ("heads-up raising past the cap", lambda: played_wrong("online-draw", 33, "D-RC", "ONL5CD-cap", 2,
                                                               heads_up_uncapped=True, max_raises=4)),
    ],
    "holdem": [
        ("raise below the previous raise, not all-in", lambda: edited("holdem", 41, "HE-MR", shrink_raise, "TDA-43A", 2)),
        ("limit table played a cap of five raises", lambda: played_wrong("holdem", 42, "HE-RC", "TDA-48", 2, max_raises=5)),
        ("odd chip given by suit instead of position",
         lambda: played_wrong("holdem", 43, "HE-OC", "TDA-20A", 2, odd_chip_method="suit")),
        ("tied pot paid two chips unequally", lambda: edited("holdem", 44, "HE-SP", unequal_split, "TDA-20", 1)),
    ],
}


def damaged_file() -> tuple[list[str], list[dict]]:
    """Lines for damaged.jsonl: a good hand, a truncated line, a hand with an impossible amount."""
    good, broken = simulate("holdem", 2, 51, "DMG")
    text = json.dumps(good, separators=(",", ":"))
    broken = copy.deepcopy(broken)
    action = next(e for _, e in events_of(broken, "action"))
    action["amount"] = -100
    lines = [text, text[: len(text) // 2], json.dumps(broken, separators=(",", ":"))]
    expected = [{"line": 2, "reason": "invalid JSON (the line was cut off)"},
                {"line": 3, "reason": "schema: a negative amount", "hand_id": broken["hand_id"]}]
    return lines, expected


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for old in OUT.glob("*.jsonl"):
        old.unlink()
    planted = []
    for game, (_, _, count, _, seed) in GAMES.items():
        hands = simulate(game, count, seed, game.upper().replace("-", ""))
        write_jsonl(hands, OUT / f"{game}.jsonl")
        assert not findings_of(hands), f"{game}: clean simulation produced findings"
    for game, plants in PLANTS.items():
        hands = []
        for about, make in plants:
            chosen = make()
            found = findings_of(chosen)
            for hand in chosen:
                for rule_id, category in found[hand["hand_id"]]:
                    planted.append({"file": f"{game}-planted.jsonl", "line": len(hands) + 1,
                                    "hand_id": hand["hand_id"], "rule_id": rule_id, "category": category,
                                    "what": about})
                hands.append(hand)
        write_jsonl(hands, OUT / f"{game}-planted.jsonl")
    lines, quarantined = damaged_file()
    (OUT / "damaged.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (OUT / "planted.json").write_text(json.dumps({"findings": planted, "quarantined": [
        {"file": "damaged.jsonl", **q} for q in quarantined]}, indent=1) + "\n", encoding="utf-8")
    write_readme(planted, quarantined)


def write_readme(planted: list[dict], quarantined: list[dict]) -> None:
    rows = "\n".join(f"| `{p['file']}` | {p['line']} | `{p['hand_id']}` | `{p['rule_id']}` | `{p['category']}` | "
                     f"{p['what']} |" for p in planted)
    counts = {g: sum(1 for _ in (OUT / f"{g}.jsonl").open()) for g in GAMES}
    clean = "\n".join(f"| `{g}.jsonl` | {counts[g]} | {', '.join(f'{v} {s}' for v, s in GAMES[g][0])} | `{GAMES[g][1]}` |"
                      for g in GAMES)
    q_rows = "\n".join(f"| `damaged.jsonl` | {q['line']} | {q['reason']} |" for q in quarantined)
    (OUT / "README.md").write_text(f"""# Sample logs

Canonical hand logs (`schemas/hand-log.schema.json`, one hand per line) for `auditor audit sample_logs`.
Everything here is generated by `python scripts/make_sample_logs.py` (deterministic); do not edit by hand.

## Clean tables: no finding expected

| file | hands | games | pack |
| --- | --- | --- | --- |
{clean}

## Planted violations: exactly these findings expected

`planted.json` holds the same list for the test suite (`tests/test_sample_logs.py`).

| file | line | hand | rule | category | what was planted |
| --- | --- | --- | --- | --- | --- |
{rows}

## Damaged input: quarantined, the run goes on

| file | line | reason |
| --- | --- | --- |
{q_rows}

Line 1 of `damaged.jsonl` is a good hand and is audited.
""", encoding="utf-8")


if __name__ == "__main__":
    main()
