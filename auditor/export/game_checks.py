"""What every room's writer checks first: that the room deals the hand's game and can state its stakes.

Shared by the text rooms' writer (`text_room`) and the XML rooms' (`xml_room`), each then checking what its own
format cannot say."""

from __future__ import annotations

from collections.abc import Container, Iterable

from auditor.ingest.jsonl import consistency_error

__all__ = ["game_problem"]


def game_problem(room: str, medium: str, hand: dict, variants: Iterable[str] | Container[str],
                 structures: Container[str], places: int) -> str | None:
    """Why `room`'s `medium` ("text", "XML") cannot hold `hand`'s game or stakes, or None: a hand that cannot be
    replayed, a variant or structure the room does not deal (`variants`, `structures`: what it deals), stakes
    with words the room lacks or other than two blinds, a cash game not counted in the room's `places`."""
    unplaced = consistency_error(hand)
    if unplaced:  # the writer would have no player to put the event on
        return f"the hand cannot be replayed: {unplaced}"
    variant, structure = hand.get("variant"), hand.get("structure")
    if variant not in variants:
        return f"{room} deals no {variant} (it has {', '.join(variants)})"
    if structure not in structures:
        return f"{room} has no {structure} games"
    stakes = hand["stakes"]
    extra = sorted(set(stakes) - {"blinds", "chip_unit", "bet_units", "ante"})
    if extra:
        return f"{room} {medium} has no words for stakes {', '.join(extra)}"
    if len(stakes.get("blinds", [])) != 2:
        return f"{room} tables have two blinds, this one {len(stakes.get('blinds', []))}"
    if hand.get("currency") is not None and (hand.get("money_scale", 1) != 10 ** places or stakes["chip_unit"] != 1):
        units = "cents" if places == 2 else f"units of 1/{10 ** places}"
        return (f"a {room} cash game counts in {units} with a chip of one; this hand has money_scale "
                f"{hand.get('money_scale', 1)} and chip unit {stakes['chip_unit']}")
    return None
