"""Card texts as evaluator codes, and seat lists as the facts write them.

What is left of the Python engine's showdown module (that engine is deleted; the batch evaluation of
contested pots is the kernel `auditor.replay.kernel.showdown`): the two small helpers the replay's Python
finishing code still needs for the rare hands it words itself (seat draws, seating conflicts).
"""

from __future__ import annotations

from collections.abc import Sequence

from auditor.replay.evaluate import parse_card

_CODES = {"??": -1}


def code(card: str) -> int:
    """Card text to code, -1 for a card the log does not show (memoised: the same 53 strings recur)."""
    value = _CODES.get(card)
    if value is None:
        value = _CODES[card] = parse_card(card)
    return value


def seat_list(seats: Sequence[int]) -> str:
    return ",".join(str(s) for s in seats)
