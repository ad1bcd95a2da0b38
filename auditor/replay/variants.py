"""Game variants as data.

The engine has no per-game branches: a variant is how many hole cards each player gets, how many
community cards come before each betting round, whether a draw precedes a round, and how a
showdown hand is composed. Adding a game is adding a row here, not a code path.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Variant:
    name: str
    hole_cards: int
    #: community cards dealt before each betting round; its length is the number of rounds
    board_schedule: tuple[int, ...]
    #: True where a draw (discard and replace) precedes that betting round
    draw_before: tuple[bool, ...]
    #: (fewest, most) hole cards a showdown hand may use
    hole_use: tuple[int, int]
    #: (fewest, most) community cards a showdown hand may use
    board_use: tuple[int, int]
    max_draw: int = 0
    deck_size: int = 52

    @property
    def rounds(self) -> int:
        return len(self.board_schedule)

    @property
    def board_cards(self) -> int:
        return sum(self.board_schedule)

    def with_hole_use(self, hole_use: tuple[int, int]) -> Variant:
        """A house may fix how many hole cards count (NZ §15 leaves it to the pack)."""
        low, high = hole_use
        return Variant(self.name, self.hole_cards, self.board_schedule, self.draw_before,
                       (low, high), (max(0, 5 - high), min(self.board_cards, 5 - low)),
                       self.max_draw, self.deck_size)


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant("holdem", 2, (0, 3, 1, 1), (False,) * 4, (0, 2), (3, 5)),
        Variant("omaha", 4, (0, 3, 1, 1), (False,) * 4, (2, 2), (3, 3)),
        # NZ casino rules, Schedule §17: four hole cards, exactly two with three of the board.
        Variant("omaha-nz", 4, (0, 3, 1, 1), (False,) * 4, (2, 2), (3, 3)),
        # NZ Gazette 1999 No 11 p.285 §15: three hole cards and one up card, then four rounds of
        # burn-and-one; five betting rounds. Hole use defaults to exactly two (pack parameter).
        Variant("three-card-nz", 3, (1, 1, 1, 1, 1), (False,) * 5, (2, 2), (3, 3)),
        # Online room five-card draw: five cards, one betting round, a draw of 0-5, another round.
        Variant("five-card-draw", 5, (0, 0), (False, True), (5, 5), (0, 0), max_draw=5),
    )
}
