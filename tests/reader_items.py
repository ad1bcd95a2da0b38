"""Reader items as the tests look at them: every hand a SourceHand, whether the reader gave it alone or in a
TableChunk (a text room's reader gives its hands as chunks, each hand's dict rebuilt from its rows on request)."""

from __future__ import annotations

from collections.abc import Iterable

from auditor.ingest.parquet import TableChunk


def one_by_one(items: Iterable) -> list:
    """The items with each TableChunk replaced by its quarantine entries then its hands, as SourceHands."""
    out: list = []
    for item in items:
        if isinstance(item, TableChunk):
            out.extend(item.quarantined)
            out.extend(item.sources())
        else:
            out.append(item)
    return out


def read_pokerstars(path, **options) -> list:
    """A PokerStars text file's items as the dialect engine gives them, one by one (`one_by_one`)."""
    from auditor.ingest.rooms import read_room

    return one_by_one(read_room(path, "pokerstars", **options))


def sniff_pokerstars(head: bytes) -> bool:
    from auditor.ingest.rooms import sniff

    return sniff("pokerstars", head)
