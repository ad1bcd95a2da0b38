"""Deterministic legal-play simulator: canonical hand logs for testing the auditor.

``simulate_hands(variant, structure, hands, seed, house=..., rule_pack=...)`` yields hand dicts
that validate against ``schemas/hand-log.schema.json``; ``simulate_mixed`` draws a game per table;
``write_jsonl`` writes them as JSON Lines (``.jsonl.gz`` compressed), ``write_format`` in any format
with a writer (PokerStars text, OHH, PHH). About 8,600 hands/s on one
core (``auditor.simulate.tables.benchmark()``).
"""

from auditor.simulate.play import (
    CARD_TEXT,
    STRUCTURES,
    Game,
    Hand,
    complete_stakes,
    default_stakes,
    evaluate_showdowns,
    play_hand,
)
from auditor.simulate.tables import SEAT_DRAW_RANK_TIE, simulate_hands, simulate_mixed
from auditor.simulate.writer import write_format, write_jsonl

__all__ = [
    "CARD_TEXT",
    "SEAT_DRAW_RANK_TIE",
    "STRUCTURES",
    "Game",
    "Hand",
    "complete_stakes",
    "default_stakes",
    "evaluate_showdowns",
    "play_hand",
    "simulate_hands",
    "simulate_mixed",
    "write_format",
    "write_jsonl",
]
