"""Write the hand-written examples of rules about who sits and posts where (new players, blind seats,
the button across hands): a few hands in which everybody folds to the big blind, so that the only
thing a hand says is who sat where, who was dealt in and who posted.

    python scripts/make_session_examples.py

The simulator never seats new players, so these examples are written out seat by seat here rather
than planted by a mutator; each file is checked by tests/test_rule_examples.py like every other
example. Deterministic.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "rules" / "examples"
SB, BB = 50, 100
PLAYERS = {1: "ann", 2: "bob", 3: "cat", 4: "dan", 5: "eve", 6: "fay"}


@dataclass(frozen=True)
class Game:
    pack: str
    variant: str
    structure: str
    hole_cards: int
    stakes: dict


DRAW = Game("online-five-card-draw", "five-card-draw", "fixed-limit", 5,
            {"blinds": [SB, BB], "chip_unit": 25, "bet_units": [BB, 2 * BB]})
HOLDEM = Game("tda-2024", "holdem", "no-limit", 2, {"blinds": [SB, BB], "chip_unit": 25})
DECK = [r + s for s in "cdhs" for r in "23456789TJQKA"]


@dataclass(frozen=True)
class HandPlan:
    """One hand: the seats taken (seat -> status), the button, and every post (seat, kind, blind no)."""

    seats: dict[int, str]
    button: int
    posts: tuple[tuple[int, str, int | None], ...]
    game: Game = DRAW


def hand(table: str, number: int, plan: HandPlan) -> dict:
    game = plan.game
    dealt = [s for s in sorted(plan.seats) if plan.seats[s] == "active"]
    events: list[dict] = [{"kind": "button", "seat": plan.button}]
    put: dict[int, int] = dict.fromkeys(dealt, 0)
    big_blind = None
    for seat, kind, blind in plan.posts:
        amount = SB if blind == 1 else BB
        event = {"kind": "post", "seat": seat, "post": kind, "amount": amount}
        if blind is not None:
            event["blind"] = blind
            if blind == 2:
                big_blind = seat
        events.append(event)
        put[seat] += amount
    order = sorted(dealt, key=lambda s: (s - plan.button - 1) % 10)  # clockwise from the button's left
    cards = iter(DECK)
    for seat in order:
        events.append({"kind": "deal", "to": "hole", "seat": seat,
                       "cards": [next(cards) for _ in range(game.hole_cards)]})
    after_bb = order[order.index(big_blind) + 1:] + order[:order.index(big_blind)]
    events += [{"kind": "action", "seat": s, "action": "fold"} for s in after_bb]
    uncalled = put[big_blind] - max((v for s, v in put.items() if s != big_blind), default=0)
    if uncalled > 0:
        events.append({"kind": "return", "seat": big_blind, "amount": uncalled})
    paid = sum(put.values()) - max(uncalled, 0)
    if paid:
        events.append({"kind": "award", "pot": 0, "seat": big_blind, "amount": paid})
    return {
        "hand_id": f"{table}-{number}", "table_id": table, "room": "Example room",
        "started_at": f"2026-01-05T20:{number:02d}:00Z", "variant": game.variant, "structure": game.structure,
        "stakes": game.stakes, "max_seats": 6, "rule_pack": game.pack,
        "seats": [{"seat": s, "player": PLAYERS[s], "stack": 5000, **({} if st == "active" else {"status": st})}
                  for s, st in sorted(plan.seats.items())],
        "events": events,
    }


FOUR = {1: "active", 2: "active", 4: "active", 5: "active"}


def with_cat(status: str) -> dict[int, str]:
    return {**FOUR, 3: status}


def blinds(sb: int, bb: int) -> tuple[tuple[int, str, int], ...]:
    return ((sb, "blind", 1), (bb, "blind", 2))


def holdem(seats: tuple[int, ...], button: int, *posts: tuple[int, int]) -> HandPlan:
    return HandPlan(dict.fromkeys(seats, "active"), button, tuple((s, "blind", n) for s, n in posts), HOLDEM)


#: file under rules/examples/ -> the table's hands
SESSIONS: dict[str, list[HandPlan]] = {
    # cat sits down in the small blind's seat and waits (status new) until the big blind reaches seat 3
    "online-five-card-draw/ONL5CD-new/clean.jsonl": [
        HandPlan(FOUR, 1, blinds(2, 4)),
        HandPlan(with_cat("new"), 2, blinds(4, 5)),
        HandPlan(with_cat("new"), 4, blinds(5, 1)),
        HandPlan(with_cat("new"), 5, blinds(1, 2)),
        HandPlan(with_cat("active"), 1, blinds(2, 3)),
    ],
    # cat sits down left of the blinds and posts a big blind live (post kind "missed") to play at once
    "online-five-card-draw/ONL5CD-new/clean-post.jsonl": [
        HandPlan(FOUR, 2, blinds(4, 5)),
        HandPlan(with_cat("active"), 4, (*blinds(5, 1), (3, "missed", None))),
    ],
    # cat sits down in the small blind's seat and is dealt in at once, posting the small blind
    "online-five-card-draw/ONL5CD-new/violating.jsonl": [
        HandPlan(FOUR, 1, blinds(2, 4)),
        HandPlan(with_cat("active"), 2, blinds(3, 4)),
    ],
    # cat sits down left of the blinds and is dealt in without posting
    "online-five-card-draw/ONL5CD-new/violating-no-post.jsonl": [
        HandPlan(FOUR, 2, blinds(4, 5)),
        HandPlan(with_cat("active"), 4, blinds(5, 1)),
    ],
    # seat 2 emptied (its player busted in the big blind): the small blind is dead, seat 3 posts the big
    "tda-2024/TDA-32/dead-small-blind.jsonl": [holdem((1, 3, 5, 6), 1, (3, 2))],
    "tda-2024/TDA-32/heads-up.jsonl": [holdem((1, 5), 5, (5, 1), (1, 2))],
    "tda-2024/TDA-32/heads-up-wrong.jsonl": [holdem((1, 5), 5, (1, 1), (5, 2))],
    # seat 5 owed the big blind; seat 6 posted it
    "tda-2024/TDA-32/skipped-seat.jsonl": [holdem((1, 3, 5, 6), 1, (3, 1), (6, 2))],
}


HOUSE_PACK = """\
# A house that plays the TDA rules with a posted rake: the pack the TDA-HOUSE-rake examples run under.
pack: example-house-rake
version: 1.0.0
title: Example house — TDA rules, 5 % rake to 300, no flop no drop
extends: tda-2024
parameters:
  rake_schedule: {percent: 5, cap: 300, increment: 50, no_flop_no_drop: true}
  # the rake comes from the main pot only: a rake the log states for the whole hand (PokerStars text)
  # leaves every side pot to be paid out in full
  hand_rake_from: main
"""


def raked(hand_: dict, rake: int) -> dict:
    """The hand with `rake` taken from its single pot before the award."""
    out = json.loads(json.dumps(hand_))
    award = next(e for e in out["events"] if e["kind"] == "award")
    award["amount"] -= rake
    if rake:
        out["events"].insert(out["events"].index(award), {"kind": "rake", "pot": 0, "amount": rake})
    return out


def rake_examples() -> dict[str, dict]:
    """A showdown hand of 8,100 contested (TDA-39A's clean example) and a hand won preflop."""
    big = json.loads((EXAMPLES / "tda-2024" / "TDA-39A" / "clean.jsonl").read_text(encoding="utf-8"))
    small = hand("RAKE-PREFLOP", 1, holdem((1, 5), 5, (5, 1), (1, 2)))
    return {"clean.jsonl": raked(big, 300), "over-cap.jsonl": raked(big, 400),
            "no-flop.jsonl": raked(small, 50), "no-flop-clean.jsonl": raked(small, 0)}


def tie_broken_by_suit(source: str, to_seat: int) -> dict:
    """A split-pot example hand with the whole tied pot paid to one of the equal hands (EVAL-03)."""
    out = json.loads((EXAMPLES / source).read_text(encoding="utf-8").splitlines()[0])
    awards = [e for e in out["events"] if e["kind"] == "award" and e["pot"] == 0]
    kept = next(e for e in awards if e["seat"] == to_seat)
    kept["amount"] = sum(e["amount"] for e in awards)
    out["events"] = [e for e in out["events"] if e is kept or not (e["kind"] == "award" and e["pot"] == 0)]
    return out


#: file under rules/examples/ -> (split example it comes from, seat given the whole pot: the higher suit)
TIES = {
    "nz-casino-1999/NZ17-5d/tie-broken-by-suit.jsonl": ("nz-casino-1999/NZ17-5e-odd/odd-chip-by-suit.jsonl", 5),
    "tda-2024/TDA-12/tie-broken-by-suit.jsonl": ("tda-2024/TDA-20A/odd-chip-left-of-button.jsonl", 3),
}


def table_name(name: str) -> str:
    return name.split("/")[-2] + "-" + name.split("/")[-1].removesuffix(".jsonl").upper()


def main() -> None:
    for name, plans in SESSIONS.items():
        table = table_name(name)
        path = EXAMPLES / name
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [json.dumps(hand(table, i + 1, plan), separators=(",", ":")) for i, plan in enumerate(plans)]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)} ({len(lines)} hands)")
    for name, (source, seat) in TIES.items():
        (EXAMPLES / name).write_text(json.dumps(tie_broken_by_suit(source, seat), separators=(",", ":")) + "\n",
                                     encoding="utf-8")
        print(f"wrote rules/examples/{name}")
    folder = EXAMPLES / "tda-2024" / "TDA-HOUSE-rake"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "house-pack.yaml").write_text(HOUSE_PACK, encoding="utf-8")
    for name, hand_ in rake_examples().items():
        (folder / name).write_text(json.dumps(hand_, separators=(",", ":")) + "\n", encoding="utf-8")
        print(f"wrote {(folder / name).relative_to(ROOT)}")


if __name__ == "__main__":
    main()
