"""Main pot and side pots from what each seat put in.

Shared by the replay engine, the PHH reader, the room engine, the exporters and the simulator (so it sits in the
model, below all of them): pots are layers of contribution, and a player is eligible only for the layers they
matched in full (catalogue POT-01).
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


def attribute_winnings(pots: list[Pot], won: dict[int, int], order: list[int],
                       rake: int = 0) -> tuple[list[tuple[int, int, int]], dict[int, int], int]:
    """Each player's winnings (`won`, seat -> chips) paid out of the pots they are eligible for, for a record
    that says what each player won but not from which pot (PHH's winnings, a room's award lines naming no pot):
    (pot, seat, amount) in pot order, then seats in `order` (the first seat left of the button first); the
    winnings no pot could pay (paid from the main pot) and the pot chips nobody won.

    Pots are settled from the last side pot to the main pot: a side pot goes to the players eligible for it who
    won anything (with correct showdowns a player eligible for an inner pot who wins an outer pot also wins the
    inner one), shared as equally as their winnings allow (`share_winnings`); the main pot pays `rake` first.
    """
    position = {seat: p for p, seat in enumerate(order)}
    if len(pots) == 1:  # the common case, one pot and one winner of all of it
        winners = [(s, w) for s, w in won.items() if w != 0]
        if (len(winners) == 1 and winners[0][1] > 0 and winners[0][1] == pots[0].amount - rake
                and winners[0][0] in pots[0].eligible):
            return [(0, winners[0][0], winners[0][1])], {}, 0
    remaining = {s: w for s, w in won.items() if w > 0}
    paid: list[dict[int, int]] = [{} for _ in pots]
    unpaid = 0
    for p in range(len(pots) - 1, -1, -1):
        amount = pots[p].amount - (rake if p == 0 else 0)
        takers = sorted((s for s in pots[p].eligible if remaining.get(s, 0) > 0), key=position.__getitem__)
        shares = share_winnings(amount, takers, remaining)
        for s, a in shares.items():
            remaining[s] -= a
            paid[p][s] = paid[p].get(s, 0) + a
        unpaid += amount - sum(shares.values())
    leftover = {s: w for s, w in remaining.items() if w > 0}
    for s, w in leftover.items():
        if paid:
            paid[0][s] = paid[0].get(s, 0) + w
    return ([(p, s, shares[s]) for p, shares in enumerate(paid) for s in sorted(shares, key=position.__getitem__)
             if shares[s] > 0], leftover, unpaid)


def share_winnings(amount: int, takers: list[int], caps: dict[int, int]) -> dict[int, int]:
    """Share `amount` among `takers` (in position order) as equally as their caps allow; chips that
    cannot be shared equally go to the takers with the most cap left, ties in position order. The PHH
    writer uses it too, so it predicts exactly what its reader will attribute."""
    shares = dict.fromkeys(takers, 0)
    left = amount
    open_ = list(takers)
    while left > 0 and open_:
        base = left // len(open_)
        capped = [s for s in open_ if caps[s] - shares[s] <= base]
        if capped:
            for s in capped:
                give = caps[s] - shares[s]
                shares[s] += give
                left -= give
                open_.remove(s)
            continue
        for s in open_:
            shares[s] += base
        left -= base * len(open_)
        by_room = sorted(open_, key=lambda s: -(caps[s] - shares[s]))
        for s in by_room[:left]:
            shares[s] += 1
        left -= min(left, len(by_room))
        break
    return shares
