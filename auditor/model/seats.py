"""Seat order around the table: the one helper readers, exporters, the mutators and the simulator share.

Seats are numbered clockwise, so "clockwise after a seat" is the higher-numbered seats in turn, then
around past the top seat to the lowest. It was written four times; this is the one copy.
The replay kernels keep their own compiled form of it (they run on arrays, not lists).
"""

from __future__ import annotations

from collections.abc import Iterable


def clockwise_after(seats: Iterable[int], start: int) -> list[int]:
    """`seats` in clockwise order beginning with the first seat after `start` (`start` itself last, if held).

    `seats` need not be sorted; `start` need not be one of them (a dead button, an empty seat).
    """
    ordered = sorted(seats)
    return [s for s in ordered if s > start] + [s for s in ordered if s <= start]
