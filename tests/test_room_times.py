"""A room header's time, read through the hour's cached shift (`rooms._hour_shift`), is the time the exact zone
conversion gives (`rooms._stamp_time`: the stamp's zone, then the room's written zone, by zoneinfo): for every zone
the PokerStars dialect names, at every hour around each change of offset (the hours before, across and after,
their first and last seconds), in years of other rules, at the calendar's edges and for dates and hours that do
not exist. The cache must change only the time a header costs, never what it says."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from auditor.ingest import rooms

ROOM = rooms.room("pokerstars")
ZONES = sorted(ROOM.zones)


def _started(stamp: str) -> str | None:
    return rooms._started_at(ROOM, list(ROOM.stamp.finditer(stamp)))


def _exact(y: int, mo: int, d: int, h: int, mi: int, s: int, zone: str) -> str | None:
    return rooms._stamp_time(ROOM, y, mo, d, h, mi, s, zone)


def _changes(zone: ZoneInfo, year: int) -> list[datetime]:
    """The days of `year` whose noon offset differs from the day before's."""
    days, previous = [], None
    day = datetime(year, 1, 1, 12)
    while day.year == year:
        offset = day.replace(tzinfo=zone).utcoffset()
        if previous is not None and offset != previous:
            days.append(day)
        previous = offset
        day += timedelta(days=1)
    return days


@pytest.mark.parametrize("zone_name", ZONES)
def test_every_hour_around_each_change_of_offset(zone_name):
    rng = random.Random(zone_name)
    zone = ZoneInfo(ROOM.zones[zone_name])
    checked = 0
    for year in (1911, 1942, 1970, 1996, 2007, 2014, 2023, 2037):
        ordinary = [datetime(year, 1, 1, 12) + timedelta(days=rng.randrange(365)) for _ in range(3)]
        for noon in _changes(zone, year) + ordinary:
            for day in (noon - timedelta(days=1), noon):
                for hour in range(24):
                    for minute, second in ((0, 0), (59, 59), (30, 0), (rng.randrange(60), rng.randrange(60))):
                        stamp = f"{day.year:04d}/{day.month:02d}/{day.day:02d} {hour}:{minute:02d}:{second:02d}"
                        expected = _exact(day.year, day.month, day.day, hour, minute, second, zone_name)
                        assert _started(f"{stamp} {zone_name}") == expected, (stamp, zone_name)
                        checked += 1
    assert checked >= 8 * 3 * 2 * 24 * 4


def test_impossible_and_edge_times():
    for y, mo, d, h, mi, s in ((2023, 2, 29, 10, 0, 0), (2024, 2, 29, 10, 0, 0), (2023, 13, 1, 0, 0, 0),
                               (2023, 0, 1, 0, 0, 0), (2023, 1, 0, 0, 0, 0), (2023, 1, 32, 0, 0, 0),
                               (2023, 1, 1, 24, 0, 0), (2023, 1, 1, 23, 60, 0), (2023, 1, 1, 23, 59, 60),
                               (2023, 1, 1, 99, 99, 99), (1, 1, 1, 0, 0, 0), (1, 1, 1, 4, 56, 1),
                               (9999, 12, 31, 23, 59, 59), (9999, 12, 31, 20, 0, 0)):
        for zone in ("ET", "PT", "JST", "NZT", "UTC", "AET", "IST", "ACST"):
            stamp = f"{y:04d}/{mo:02d}/{d:02d} {h:02d}:{mi:02d}:{s:02d} {zone}"
            assert _started(stamp) == _exact(y, mo, d, h, mi, s, zone), stamp


def test_a_stamp_with_no_zone_is_in_the_room_s_own_and_an_unknown_zone_is_skipped():
    assert _started("2024/03/10 10:11:12") == _exact(2024, 3, 10, 10, 11, 12, "ET")
    assert _started("2024/03/10 10:11:12 XYZ [2024/03/10 16:11:12 CET]") == _exact(2024, 3, 10, 16, 11, 12, "CET")
    assert _started("2024/03/10 10:11:12 XYZ") is None
