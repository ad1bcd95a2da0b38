"""PokerStars hand headers read a template at a time: the reference's own `_HandReader.header` once per distinct
header text, the timestamps by one compiled call and NumPy.

Why: `pokerstars_tables` read every header with `_HandReader.header`, ~12 µs a hand of the ~34 its read took,
two thirds of it the time (`STAMP.finditer` ~3.7 µs, then a datetime in the stamp's zone, `astimezone` and
`isoformat`). But the headers of a file differ from hand to hand only in the hand id and the stamps' digits
(`PokerStars Hand #N: Hold'em No Limit ($0.01/$0.02 USD) - 2024/01/02 10:11:12 ET`), so:

1. `pokerstars_kernel.stamps` finds each header's stamps as `STAMP.finditer` does (in ASCII digits), with
   their numbers, and writes the header's *key*: the text after the hand id (the reference's `rest`) with every
   digit inside a stamp made '0';
2. headers of one key share one *template*: what `_HandReader.header` reads from the key itself (game,
   structure, stakes, currency, decimals, which stamp gives the time). This is what it reads from the real text
   too: all its patterns (`LIMIT`, `STAKES`, the game words, the currency code, `STAMP`) see a digit only as a
   digit, so a digit changed for another moves no match; the game words that hold a digit ("2-7", "6+", "5 Card
   Draw"...) need that digit alone, which no stamp digit is (each has a digit or '/' or ':' beside it); and the
   stakes' values are the only values read from digits. A template is used only when the key's stakes are the
   same with those digits made '1' instead of '0' (a stamp digit inside the stakes would change their value), the
   reference's `STAMP` finds the same stamps in the key as the kernel (a stamp in other digits, which the kernel
   does not see, fails this), and the reference reads the key without refusing it. Any other header is read by
   `_HandReader.header` itself, as before;
3. the time: `pokerstars.stamp_time` (the reference's conversion) once per distinct hour and zone, at the hour's
   first and last second. When the two are a whole hour less a second apart in Eastern time, with one offset
   (no change of either zone's offset inside the hour: tz rules change an offset at most once in any hour), every
   valid second of that hour is the first plus its seconds, formatted by NumPy. Any other stamp (an hour with a
   change of offset, a day or hour that does not exist, a year that leaves the calendar) is converted by
   `stamp_time` alone.

`tests/test_pokerstars_headers.py` holds the result equal to `_HandReader.header` over generated headers:
every zone's changes of offset, invalid dates, both stamp forms, stamps beside and inside the stakes, non-ASCII
text; `tests/test_pokerstars_tables.py` holds the whole path equal to the reference.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from auditor.ingest import pokerstars
from auditor.ingest import pokerstars_kernel as _K

__all__ = ["KEY_BYTES", "Headers", "Template", "read_headers"]

#: the longest rest a key holds (a longer header is read by the reference, as a hostile one would be)
KEY_BYTES = 256
#: templates and hours kept per file (beyond, the oldest are let go: a file of ever-new headers stays bounded)
KEPT = 4096
#: a batch more of whose headers than this share are of keys not seen before is read by the reference, hand by
#: hand: a new key costs ~3 reads of the reference (30.6 µs a header when every header differs, against 8.8 µs
#: for the reference alone), so templates pay only where keys repeat, as in a room's export (1.9 µs a header)
MAX_NEW_SHARE = 0.5
_ZONE_NAMES = tuple(pokerstars.ZONES)
_ZONE_INDEX = {name: i for i, name in enumerate(_ZONE_NAMES)}
_HOUR = np.int64(3599)


@dataclass(frozen=True, slots=True)
class Template:
    """What `_HandReader.header` reads from a key: all but the hand id and the time (`stamp`: the index of the
    stamp that gives the time, -1 none; `zone`: its zone's name)."""

    tournament: bool
    variant: str
    hole_cards: int
    structure: str
    small: Decimal
    big: Decimal
    currency: str | None
    places: int
    stamp: int
    zone: str


@dataclass
class Headers:
    """A file's templates and hours, kept from batch to batch (both repeat from table to table)."""

    templates: dict[bytes, Template | None]
    hours: dict[tuple[int, int, int, int, int], tuple[np.datetime64, str] | None]

    @classmethod
    def new(cls) -> Headers:
        return cls({}, {})


def _fields(reader: pokerstars._HandReader) -> tuple:
    return (reader.tournament, reader.variant, reader.hole_cards, reader.structure, reader.small, reader.big,
            reader.currency, reader.places)


def _read_key(key: str, rule_pack: str) -> tuple | None:
    """`_HandReader.header`'s fields of a header whose rest is `key`, or None when it refuses it."""
    reader = pokerstars._HandReader([], 0, rule_pack)
    try:
        reader.header("PokerStars Hand #0: " + key)
    except Exception:  # the reference refuses it: each such header is read (and worded) by the reference
        return None
    return _fields(reader)


def template_of(blob: bytes, spans: list[tuple[int, int]], rule_pack: str) -> Template | None:
    """The template of the key `blob` (a rest's UTF-8 with its stamps' digits '0'), given the stamps' byte spans
    the kernel found; None when a header of this key must be read by the reference (see the module docstring)."""
    key = blob.decode("utf-8")
    if not key.isascii():  # the spans in characters
        spans = [(len(blob[:lo].decode("utf-8")), len(blob[:hi].decode("utf-8"))) for lo, hi in spans]
    found = list(pokerstars.STAMP.finditer(key))
    if [m.span() for m in found] != spans:
        return None
    ones = list(key)
    for lo, hi in spans:
        for i in range(lo, hi):
            if ones[i] == "0":
                ones[i] = "1"
    zeros = _read_key(key, rule_pack)
    if zeros is None or zeros != _read_key("".join(ones), rule_pack):
        return None
    chosen, zone = -1, ""
    for i, m in enumerate(found):
        name = m["zone"] or "ET"
        if name in pokerstars.ZONES:
            chosen, zone = i, name
            break
    return Template(*zeros, stamp=chosen, zone=zone)


def _hour(headers: Headers, key: tuple[int, int, int, int, int]) -> tuple[np.datetime64, str] | None:
    """(Eastern time of the hour's first second, its offset) when every second of the hour converts as that
    first second plus its seconds; None when the hour's stamps must each be converted by `stamp_time`."""
    if key in headers.hours:
        return headers.hours[key]
    zone, year, month, day, hour = key
    name = _ZONE_NAMES[zone]
    first = pokerstars.stamp_time(year, month, day, hour, 0, 0, name)
    last = pokerstars.stamp_time(year, month, day, hour, 59, 59, name)
    value = None
    if first is not None and last is not None and first[19:] == last[19:]:
        start = np.datetime64(first[:19], "s")
        if np.datetime64(last[:19], "s") - start == _HOUR:
            value = (start, first[19:])
    if len(headers.hours) >= KEPT:
        headers.hours.pop(next(iter(headers.hours)))
    headers.hours[key] = value
    return value


def read_headers(data: np.ndarray, rest_lo: np.ndarray, line_hi: np.ndarray, headers: Headers, rule_pack: str
                 ) -> tuple[list[Template | None], list[str | None]]:
    """Per header (its rest data[rest_lo[k]:line_hi[k]], UTF-8; rest_lo -1 for one not to read here): its
    template, or None when the reference must read it; and its time where it has a template."""
    count = len(rest_lo)
    out = np.zeros((count, _K.MAX_STAMPS, len(_K.T_COLUMNS)), dtype=np.int64)
    counts = np.empty(count, dtype=np.int64)
    keys = np.zeros((count, KEY_BYTES + 2), dtype=np.uint8)
    _K.stamps(data, rest_lo, line_hi, out, counts, keys)
    templates: list[Template | None] = [None] * count
    times: list[str | None] = [None] * count
    read = np.flatnonzero(counts >= 0)
    if not len(read):
        return templates, times
    rows = np.ascontiguousarray(keys[read]).view(f"V{KEY_BYTES + 2}").ravel()
    distinct, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    blobs = [row[2:2 + (row[0] | row[1] << 8)] for row in distinct.tolist()]
    if sum(blob not in headers.templates for blob in blobs) > max(16, MAX_NEW_SHARE * len(read)):
        return templates, times
    of_key: list[Template | None] = []
    for i, blob in enumerate(blobs):
        if blob in headers.templates:
            of_key.append(headers.templates[blob])
            continue
        k = int(read[first[i]])
        spans = [(int(out[k, s, _K.T_START]), int(out[k, s, _K.T_END])) for s in range(int(counts[k]))]
        template = template_of(blob, spans, rule_pack)
        if len(headers.templates) >= KEPT:
            headers.templates.pop(next(iter(headers.templates)))
        headers.templates[blob] = template
        of_key.append(template)
    inverse = inverse.ravel()
    if len(read) == count:
        templates = [of_key[t] for t in inverse.tolist()]
    else:
        for j, t in zip(read.tolist(), inverse.tolist(), strict=True):
            templates[j] = of_key[t]
    stamp_of_key = np.array([-1 if t is None else t.stamp for t in of_key], dtype=np.int64)
    zone_of_key = np.array([0 if t is None else _ZONE_INDEX.get(t.zone, 0) for t in of_key], dtype=np.int64)
    stamp = stamp_of_key[inverse]
    timed = stamp >= 0
    if timed.any():
        hands = read[timed]
        _times(headers, zone_of_key[inverse[timed]], hands, out[hands, stamp[timed]], times)
    return templates, times


def _times(headers: Headers, zone: np.ndarray, hands: np.ndarray, stamp: np.ndarray, times: list[str | None]
           ) -> None:
    """Each hand's time from its template's stamp (hand hands[i]: stamp[i] the T_* row, zone[i] its zone's index
    in ZONES)."""
    year, month, day = stamp[:, _K.T_YEAR], stamp[:, _K.T_MONTH], stamp[:, _K.T_DAY]
    hour, minute, second = stamp[:, _K.T_HOUR], stamp[:, _K.T_MINUTE], stamp[:, _K.T_SECOND]
    code = (((zone * 10000 + year) * 100 + month) * 100 + day) * 100 + hour
    distinct, inverse = np.unique(code, return_inverse=True)
    starts = np.zeros(len(distinct), dtype="datetime64[s]")
    offsets: list[str] = []
    regular = np.zeros(len(distinct), dtype=bool)
    for i, c in enumerate(distinct.tolist()):
        c, h = divmod(c, 100)
        c, d = divmod(c, 100)
        c, mo = divmod(c, 100)
        z, y = divmod(c, 10000)
        value = _hour(headers, (z, y, mo, d, h))
        if value is None:
            offsets.append("")
            continue
        starts[i], offset = value
        offsets.append(offset)
        regular[i] = True
    inverse = inverse.ravel()
    fast = regular[inverse] & (minute <= 59) & (second <= 59)
    if fast.any():
        at = starts[inverse[fast]] + (minute[fast] * 60 + second[fast])
        text = np.datetime_as_string(at, unit="s").tolist()
        offset_of = [offsets[i] for i in inverse[fast].tolist()]
        for j, t, o in zip(hands[fast].tolist(), text, offset_of, strict=True):
            times[j] = t + o
    for i in np.flatnonzero(~fast).tolist():
        j = int(hands[i])
        times[j] = pokerstars.stamp_time(int(year[i]), int(month[i]), int(day[i]), int(hour[i]), int(minute[i]),
                                         int(second[i]), _ZONE_NAMES[int(zone[i])])
