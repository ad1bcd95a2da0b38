"""PokerStars headers read a template at a time (`auditor.ingest.pokerstars_headers`) against the reference.

The contract: for every header line, `read_headers` either gives no template (the caller then runs
`_HandReader.header` itself, as before) or a template and a time that set on a reader exactly what
`_HandReader.header` of that line sets (hand id, tournament, game, hole cards, structure, stakes, currency,
decimals, time), and only for a line the reference reads without refusing it. Held over generated headers: the
header forms and games the reader knows, tournaments, amounts with thousands and decimals, one or two stamps,
every zone of `pokerstars.ZONES` at each of its changes of offset (hours before, across and after, their first
and last seconds), dates and hours that do not exist, the calendar's edges, stamps run into the stakes or
beside other digits, non-ASCII and over-long headers. And the ordinary headers must take templates, so the
comparison is not vacuous.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from auditor.ingest import pokerstars, pokerstars_headers
from auditor.ingest.pokerstars_headers import Headers, read_headers

FIELDS = ("hand_id", "tournament", "variant", "hole_cards", "structure", "small", "big", "currency", "started_at",
          "places")
PREFIXES = ("PokerStars Hand #", "PokerStars Game #", "PokerStars Zoom Hand #", "POKERSTARS GAME #",
            "PokerStars Home Game Hand #")
GAMES = ("Hold'em No Limit", "Hold'em Pot Limit", "Hold'em Limit", "Omaha Pot Limit", "Omaha No Limit",
         "5 Card Draw Limit", "Omaha Hi/Lo Pot Limit", "Razz Limit", "6+ Hold'em No Limit", "Hold'em Fixed Limit",
         "Triple Draw 2-7 Lowball Limit", "Hold'em Spread Limit", "Badugi", "HOLD'EM NO LIMIT")
STAKES = ("($0.01/$0.02 USD)", "(1/2)", "(€5/€10 EUR)", "($1,000/$2,000)", "(£0.05/£0.10 GBP)", "($0.005/$0.01)",
          "(10/20)", "($1/$2 CAD)", "(0.25/0.50)", "")


def reference(line: str, rule_pack: str = "tda-2024") -> tuple | None:
    """What `_HandReader.header` sets, or None when it refuses the line."""
    reader = pokerstars._HandReader([], 0, rule_pack)
    try:
        reader.header(line)
    except Exception:
        return None
    return tuple(getattr(reader, name) for name in FIELDS)


@pytest.fixture(autouse=True)
def every_key_a_template(monkeypatch):
    """The generated headers hold far more distinct keys than an export: let them all take templates (the
    share that sends a batch to the reference is tested on its own below)."""
    monkeypatch.setattr(pokerstars_headers, "MAX_NEW_SHARE", 1.0)


def fast(lines: list[str], rule_pack: str = "tda-2024") -> list[tuple | None]:
    """Per line, the fields its template and time give (None: no template; the reference reads the line)."""
    data, rest_lo, line_hi = bytearray(), [], []
    ids = []
    for line in lines:
        raw = line.encode()
        m = pokerstars.HEADER.match(line)
        assert m, line
        rest_lo.append(len(data) + len(line[:m.start("rest")].encode()))
        ids.append(m["id"])
        data += raw
        line_hi.append(len(data))
        data += b"\n"
    buf = np.frombuffer(bytes(data), dtype=np.uint8)
    templates, times = read_headers(buf, np.array(rest_lo, dtype=np.int64), np.array(line_hi, dtype=np.int64),
                                    Headers.new(), rule_pack)
    out: list[tuple | None] = []
    for template, started, hand_id in zip(templates, times, ids, strict=True):
        if template is None:
            out.append(None)
            continue
        out.append((hand_id, template.tournament, template.variant, template.hole_cards, template.structure,
                    template.small, template.big, template.currency, started, template.places))
    return out


def assert_same(lines: list[str], most: float = 0.0) -> int:
    """Every template's fields equal the reference's, and at least the share `most` of the lines the reference
    reads took a template; returns how many did."""
    taken = readable = 0
    for line, got in zip(lines, fast(lines), strict=True):
        expected = reference(line)
        readable += expected is not None
        if got is None:
            continue
        taken += 1
        assert got == expected, line
    assert taken >= most * readable, (taken, readable)
    return taken


def _stamp(rng: random.Random, when: datetime | None = None) -> str:
    if when is None:
        when = datetime(rng.choice((2009, 2016, 2023, 2024)), 1, 1) + timedelta(seconds=rng.randrange(366 * 86400))
    y, mo, d, h, mi, s = when.year, when.month, when.day, when.hour, when.minute, when.second
    month = f"{mo:02d}" if rng.random() < 0.8 else str(mo)
    day = f"{d:02d}" if rng.random() < 0.8 else str(d)
    hour = f"{h:02d}" if rng.random() < 0.5 else str(h)
    sep = " " if rng.random() < 0.8 else " - "
    return f"{y:04d}/{month}/{day}{sep}{hour}:{mi:02d}:{s:02d}"


def _zone_text(rng: random.Random, zone: str | None = None) -> str:
    zone = zone or rng.choice((*pokerstars.ZONES, "XYZ", "ABCDEFG", "Z"))
    form = rng.random()
    return "" if form < 0.1 else f" ({zone})" if form < 0.2 else f" {zone}"


def _line(rng: random.Random, stamp: str, rest_after: str = "") -> str:
    game, stakes = rng.choice(GAMES), rng.choice(STAKES)
    number = rng.randrange(1, 10 ** rng.randint(1, 19))
    if rng.random() < 0.25:
        level = rng.choice(("I", "II", "XV"))
        small = rng.choice((10, 15, 100, 1000))
        head = f"Tournament #{rng.randrange(10 ** 9)}, $1.84+$0.16 USD {game} - Level {level} ({small}/{small * 2})"
    else:
        head = f"{game} {stakes}".rstrip()
    return f"{rng.choice(PREFIXES)}{number}:  {head} - {stamp}{rest_after}"


def ordinary(rng: random.Random, count: int) -> list[str]:
    lines = []
    for _ in range(count):
        first = _stamp(rng) + _zone_text(rng)
        if rng.random() < 0.3:  # the two-stamp form: local time, then Eastern
            first += f" [{_stamp(rng)} ET]"
        lines.append(_line(rng, first))
    return lines


def test_ordinary_headers_take_templates_and_read_as_the_reference_does():
    rng = random.Random(16)
    lines = ordinary(rng, 3000)
    assert assert_same(lines, most=1.0) > 1000  # every ordinary header the reference reads takes a template


def _changes(zone: ZoneInfo, year: int) -> list[datetime]:
    """Local noon of the days on which `zone`'s offset changed in `year` (and the day after)."""
    days = []
    start = datetime(year, 1, 1, 12, tzinfo=zone)
    previous = start.utcoffset()
    for n in range(1, 366):
        day = start + timedelta(days=n)
        offset = day.utcoffset()
        if offset != previous:
            days += [day - timedelta(days=1), day]
        previous = offset
    return days


@pytest.mark.parametrize("zone_name", sorted(pokerstars.ZONES))
def test_every_hour_around_each_change_of_offset(zone_name):
    rng = random.Random(zone_name)
    zone = ZoneInfo(pokerstars.ZONES[zone_name])
    lines = []
    for year in (1883, 1911, 1918, 1942, 1945, 1970, 1985, 1996, 2007, 2011, 2014, 2023, 2037):
        for noon in _changes(zone, year):
            for hour in range(24):
                for minute, second in ((0, 0), (59, 59), (rng.randrange(60), rng.randrange(60)), (30, 0)):
                    when = datetime(noon.year, noon.month, noon.day, hour, minute, second)
                    lines.append(_line(rng, _stamp(rng, when) + f" {zone_name}"))
    # Eastern time's own changes, seen from this zone: the hours that land on them
    et = ZoneInfo("America/New_York")
    for noon in _changes(et, 2023) + _changes(et, 1970):
        instant = datetime(noon.year, noon.month, noon.day, tzinfo=et)
        for hours in range(-30, 30):
            local = (instant + timedelta(hours=hours)).astimezone(zone).replace(tzinfo=None)
            lines.append(_line(rng, _stamp(rng, local.replace(second=59)) + f" {zone_name}"))
    assert assert_same(lines, most=0.9) > 100


def test_impossible_and_edge_times():
    rng = random.Random(3)
    lines = []
    for y, mo, d, h, mi, s in ((2023, 2, 29, 10, 0, 0), (2024, 2, 29, 10, 0, 0), (2023, 13, 1, 0, 0, 0),
                               (2023, 0, 1, 0, 0, 0), (2023, 1, 0, 0, 0, 0), (2023, 1, 32, 0, 0, 0),
                               (2023, 1, 1, 24, 0, 0), (2023, 1, 1, 23, 60, 0), (2023, 1, 1, 23, 59, 60),
                               (2023, 1, 1, 99, 99, 99), (0, 1, 1, 0, 0, 0), (1, 1, 1, 0, 0, 0),
                               (9999, 12, 31, 23, 59, 59), (9999, 12, 31, 20, 0, 0), (1, 1, 1, 4, 56, 1)):
        for zone in ("ET", "PT", "JST", "NZT", "UTC", "AET"):
            for _ in range(3):
                stamp = f"{y:04d}/{mo:02d}/{d:02d} {h:02d}:{mi:02d}:{s:02d}"
                lines.append(_line(rng, stamp + _zone_text(rng, zone)))
    assert_same(lines)
    assert any(reference(line) is not None and reference(line)[8] is None for line in lines)


def test_stamps_beside_and_inside_other_digits():
    """A stamp run into the stakes (`10:00:59/3`: STAKES reads `59/3`), beside amounts, digits and signs, a
    third stamp and a fifth, a zone of many capitals: a digit of a stamp never changes what a template says."""
    rng = random.Random(5)
    lines = []
    for _ in range(1500):
        stamp = _stamp(rng)
        before = rng.choice(("", "$", "/", ",", ".", "1", "A-", "2-", "6", "(", "#"))
        after = rng.choice(("", "/3", "/$2", ",5", ".5", "+", " Card Draw", "-7", " or Better", "/", ")",
                            " ET", " (CET)", " ETX", " [2023/01/01 10:00:00 ET]"))
        game = rng.choice(GAMES)
        layout = rng.random()
        if layout < 0.4:
            rest = f"{game} - {before}{stamp}{after} ($1/$2 USD)"
        elif layout < 0.7:
            rest = f"{game} ({before}{stamp}{after}/2)"
        else:
            rest = f"{game} ($1/$2) - {before}{stamp}{after}" + (f" {stamp}" * rng.randint(0, 5))
        lines.append(f"PokerStars Hand #{rng.randrange(10 ** 12)}: {rest}")
    lines.append("PokerStars Hand #1: Hold'em No Limit - 2023/01/01 10:00:59/3 ET")
    lines.append("PokerStars Hand #2: Hold'em No Limit - 2023/01/01 10:00:58/3 ET")
    assert_same(lines)
    # the stakes read from a stamp's digits differ from hand to hand: those take no template
    got = fast(lines[-2:])
    assert got == [None, None] and reference(lines[-1])[5] == 58


def test_non_ascii_headers_and_other_digits():
    """Text beyond ASCII takes templates (the kernel's byte spans are the reference's character spans); a stamp in
    other digits (Python's `\\d` reads them, the kernel does not) and an over-long header go to the reference."""
    taken = ["PokerStars Hand #1: Hold'em No Limit (€1/€2 EUR) - 2023/01/01 10:00:00 CET",
             "PokerStars Zöom Hand #3: Hold'em No Limit ($1/$2) - 2023/01/01 10:00:00 ET",
             "PokerStars Hand #6: Hold'em No Limit (£1/£2) - 2023/07/01 10:00:00 CET [2023/07/01 4:00:00 ET]",
             "PokerStars Hand #7: Hold'em ☃ No Limit (1/2) - 2023/07/01 10:00:00 CET [2023/07/01 4:00:00 ET]"]
    assert fast(taken) == [reference(line) for line in taken]
    declined = ["PokerStars Hand #2: Hold'em No Limit ($1/$2) - ٢٠٢٣/01/01 10:00:00 ET",
                "PokerStars Hand #8: Hold'em No Limit ($1/$2) - 2023/01/01 1٠:00:00 ET",
                "PokerStars Hand #4: Hold'em No Limit ($1/$2) - 2023/01/01 10:00:00 ET" + " x" * 200]
    assert fast(declined) == [None] * 3
    assert all(reference(line) is not None for line in declined)


def test_templates_are_kept_bounded(monkeypatch):
    monkeypatch.setattr(pokerstars_headers, "KEPT", 8)
    rng = random.Random(9)
    lines = [f"PokerStars Hand #{i}: Hold'em No Limit ({i}/{2 * i}) - {_stamp(rng)} ET" for i in range(1, 60)]
    headers = Headers.new()
    data = "\n".join(lines).encode()
    lo, hi, at = [], [], 0
    for line in lines:
        lo.append(at + pokerstars.HEADER.match(line).start("rest"))
        at += len(line)
        hi.append(at)
        at += 1
    templates, _ = read_headers(np.frombuffer(data, dtype=np.uint8), np.array(lo), np.array(hi), headers,
                                "tda-2024")
    assert all(t is not None for t in templates)
    assert len(headers.templates) <= 8 and len(headers.hours) <= 8


def test_the_same_with_the_kernel_run_as_python():
    """A first run reads with the kernels as Python while they compile (`precompile.interpreted`): the stamps'
    numbers must not wrap in NumPy's uint8 arithmetic there (a year read as 2023 % 256 would be another time)."""
    from auditor import precompile

    rng = random.Random(12)
    lines = [*ordinary(rng, 200), "PokerStars Hand #9: Hold'em No Limit ($1,000/$2,000) - 2023/12/31 23:59:59 PT"]
    compiled = fast(lines)
    with precompile.interpreted():
        assert fast(lines) == compiled
    assert sum(got is not None for got in compiled) > 50


def test_a_batch_of_mostly_new_keys_is_the_references(monkeypatch):
    """Headers that all differ (every stake another) cost a template each, ~3 reads of the reference: such a
    batch is read by the reference instead; one whose keys repeat takes templates."""
    monkeypatch.setattr(pokerstars_headers, "MAX_NEW_SHARE", 0.5)
    distinct = [f"PokerStars Hand #{i}: Hold'em No Limit ({i}/{2 * i}) - 2023/01/01 10:00:00 ET" for i in range(1, 200)]
    assert fast(distinct) == [None] * len(distinct)
    repeating = [f"PokerStars Hand #{i}: Hold'em No Limit ({i % 5 + 1}/{2 * (i % 5 + 1)}) - "
                 f"2023/01/01 10:{i % 60:02d}:00 ET" for i in range(1, 200)]
    assert fast(repeating) == [reference(line) for line in repeating]
