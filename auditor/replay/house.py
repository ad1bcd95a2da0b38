"""House settings: the choices a rule book leaves to the room, read from the rule pack.

A pack's settings come in two parts, so that the replay's input says exactly what shapes the facts:

* `ReplayRules`, what the replay engine reads: the suit order, the limit reopening fraction, the hole
  cards a showdown uses, the rake schedule and where a hand's rake comes from, and which blind gives
  the next button. A pack changes what is computed as "expected" without any code knowing which pack
  it is.
* `HouseRules` (a `ReplayRules`), the pack's whole house: the above and what only the simulator plays
  by, the raise cap (`max_raises`, `heads_up_uncapped`) and the odd-chip method. The replay never reads
  those: the packs' predicates read the same parameters (TDA-48: `raises_before >= max_raises and not
  (heads_up_uncapped and heads_up)`, per rule if a house overrides them), and the odd-chip rule of a pack
  reads the fact of its method (`odd_chip_seats_by_suit` or `..._by_position`, both always written).
  So the pack's parameters are the one source: the simulator's copy is built from them by
  `packs.house_rules`, the replay's facts do not depend on them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from auditor.replay.variants import VARIANTS, Variant

SUITS_HIGH_TO_LOW = ("s", "h", "d", "c")
#: the house settings of `HouseRules.hand_rake_from`
HAND_RAKE_FROM = ("any", "main", "pro-rata")
#: the blinds `HouseRules.button_heir` may name
BUTTON_HEIRS = ("small-blind", "big-blind")


@dataclass(frozen=True)
class RakeSchedule:
    """The house's posted rake: percent of the contested pot, rounded down to `increment`, capped."""

    percent: Fraction
    cap: int | None = None
    increment: int | None = None  # default: the table's smallest chip
    no_flop_no_drop: bool = True

    def allowed(self, contested: int, chip_unit: int, flop_game: bool, flop_seen: bool) -> int:
        if contested <= 0 or (self.no_flop_no_drop and flop_game and not flop_seen):
            return 0
        step = self.increment or chip_unit or 1
        rake = math.floor(contested * self.percent / 100 / step) * step
        return rake if self.cap is None else min(rake, self.cap)


@dataclass(frozen=True)
class ReplayRules:
    """The house settings the replay engine reads (see the module docstring): nothing else reaches it."""

    #: suits from highest to lowest, for seat draws and odd chips
    suit_order: tuple[str, ...] = SUITS_HIGH_TO_LOW
    #: fixed limit: an all-in raise of at least this fraction of the unit counts as a full raise
    limit_reopen_fraction: float = 0.5
    #: per-variant override of how many hole cards a showdown hand uses, e.g. NZ §15's game
    hole_use: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: the posted rake; None when the pack sets none (the rake rule is then not assessable)
    rake: RakeSchedule | None = None
    #: which pots a rake the log states for the whole hand (no pot named, as PokerStars writes it) may
    #: have come from: "any" (each pot may be short by all of it: the room does not say, and real
    #: PokerStars hands spread it neither wholly on the main pot nor exactly pro rata), "main" (the main
    #: pot only: every side pot pays out in full) or "pro-rata" (each pot its share of it by size,
    #: rounded up to the chip unit)
    hand_rake_from: str = "any"
    #: which of a hand's blinds gives the next hand's button (the fact button_by_blinds), in order: the first
    #: listed ("small-blind", "big-blind") that was posted by a player other than the button; empty: the pack
    #: names no heir (seed 004 lists both: the small blind, or the big blind when it "catches a break")
    button_heir: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.hand_rake_from not in HAND_RAKE_FROM:
            raise ValueError(f"hand_rake_from must be one of {', '.join(HAND_RAKE_FROM)}, not {self.hand_rake_from!r}")
        if not set(self.button_heir) <= set(BUTTON_HEIRS):
            raise ValueError(f"button_heir lists only {', '.join(BUTTON_HEIRS)}, not {list(self.button_heir)!r}")

    def variant(self, name: str) -> Variant:
        base = VARIANTS[name]
        override = self.hole_use.get(name)
        return base.with_hole_use(override) if override else base

    def suit_rank(self, suit: str) -> int:
        """0 for the lowest suit, 3 for the highest."""
        return len(self.suit_order) - 1 - self.suit_order.index(suit)

    def card_key(self, code: int) -> int:
        """A card code (rank*4 + suit, suits "cdhs") ordered by rank, then by this house's suit order:
        how seat draws and odd chips by suit compare single cards."""
        return (code // 4) * 4 + self.suit_rank("cdhs"[code % 4])


@dataclass(frozen=True)
class HouseRules(ReplayRules):
    """A pack's whole house: what the replay reads, and what only the simulator plays by (its rules read the
    same pack parameters in their predicates). The replay takes it as the `ReplayRules` it is."""

    #: who receives odd chips of a split pot: "suit" (highest card by suit among the hole cards
    #: used, NZ §17.5(e)) or "position" (first winner clockwise from the button, TDA #20)
    odd_chip_method: str = "suit"
    #: raises allowed per betting round in fixed and spread limit after the opening bet
    #: (the forced blind counts as the opening bet); None means no cap
    max_raises: int | None = 3
    #: the cap does not apply while only two players can still bet
    heads_up_uncapped: bool = True
