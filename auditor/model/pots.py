"""Main pot and side pots from what each seat put in.

Shared by the replay engine, the PHH reader, the exporters and the simulator (so it sits in the model, below
all of them): pots are layers of contribution, and a player is
eligible only for the layers they matched in full (catalogue POT-01).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Pot:
    amount: int
    eligible: tuple[int, ...]  # seats, ascending


def build_pots(contributed: dict[int, int], folded: set[int] | frozenset[int], dead: int = 0,
               split_at: set[int] | frozenset[int] = frozenset()) -> list[Pot]:
    """Pots in the order they formed: main pot first, then each side pot.

    `contributed` is each seat's live chips in the pot after uncalled bets were returned;
    `dead` is dead money (dead blinds, antes treated as dead) that belongs to the main pot.
    Layers with the same eligible players are merged, so a pot id means the same thing to us as
    to a dealer: a new pot exists only where someone is all-in for less.

    `split_at` are levels where a pot is closed even though nobody still contending stops there:
    the all-in level of a player who then folded or whose hand was killed. Rooms build the side pot
    when the player goes all-in and keep it when the player drops out, so the awards name those pots.
    """
    contenders = sorted(s for s, c in contributed.items() if s not in folded and c > 0)
    levels = sorted({contributed[s] for s in contenders})
    if split_at and levels:
        levels = sorted(set(levels) | {x for x in split_at if 0 < x < levels[-1]})
    pots: list[Pot] = []
    previous = 0
    for level in levels:
        layer = sum(min(c, level) - min(c, previous) for c in contributed.values())
        eligible = tuple(s for s in contenders if contributed[s] >= level)
        if pots and pots[-1].eligible == eligible and previous not in split_at:
            pots[-1] = Pot(pots[-1].amount + layer, eligible)
        else:
            pots.append(Pot(layer, eligible))
        previous = level
    # Chips above every contender's level (a folded player's over-contribution) stay in the last pot.
    rest = sum(max(0, c - previous) for c in contributed.values())
    if pots:
        pots[0] = Pot(pots[0].amount + dead, pots[0].eligible)
        if rest:
            pots[-1] = Pot(pots[-1].amount + rest, pots[-1].eligible)
    elif dead or rest:
        pots.append(Pot(dead + rest, ()))
    return pots
