"""Reader for the Poker Hand History format (PHH, uoftcprg `phh-std`): `.phh` and `.phhs` files.

A `.phh` file is one TOML document describing one hand; a `.phhs` file holds several, each under a
table header `[1]`, `[2]`, ... Every hand becomes one canonical hand (`schemas/hand-log.schema.json`)
or one quarantine entry, following `docs/readers.md`.

A `.phhs` that starts with a table header is streamed: split on its `[key]` headers while it is read,
each table parsed as a TOML document of its own, so memory is one table whatever the file's size and
`max_file_bytes` does not apply to it (a damaged or oversized table costs only itself). A `.phhs` with
keys before its first table, and every `.phh`, is read whole (under `max_file_bytes`) and parsed as one
document, as TOML means it.

A plain `.phh` is read through the byte scanner (`phh_scan`): `read_phh_files` reads a batch of files'
bytes, one compiled call reads their flat TOML fields and tokenizes their action strings, and only a file
the scanner does not read exactly as `tomllib` would (comments, tables, escapes, multi-line arrays...),
or whose actions it does not tokenize exactly as `_parse_actions` would, takes the reference path
(`_read_phh_reference`: `phh_toml`, `_parse_actions`), which also words every refusal. Either way the
items are the same (`tests/test_phh_scan.py`). An audit reads a folder's `.phh` inputs the same way, many
per scanner call (`read_plain_phh_batch`, through `detect.read_plain_phh` and `partition.read_pieces`),
and there the common case is converted by a compiled call straight into canonical tables (`phh_tables`,
`phh_kernel`: no dict per hand or event), every other hand by `_convert` below, the reference. `_convert`
is Python, a dict per hand and event, its betting bookkeeping in one function (`_phh_betting`), which
`phh_kernel._forced`/`_actions`/`_settle` follow step for step (`tests/test_phh_tables.py` holds them
equal).

How PHH maps onto the canonical log
-----------------------------------
- Players. PHH lists players by position, not by seat: in button games the small blind first and
  the button last (heads-up: the big blind first, the button last; the button posts the small
  blind, so `blinds_or_straddles` and `antes` apply reversed). Seats come from `seats` when the
  file gives them, otherwise players sit in seats 1..n in position order; the button is always the
  last player, and `max_seats` is `seat_count`, else n. Without `seats` the seat numbers are only
  positions, so such a hand gets a table id of its own (nothing is claimed across hands).
- Forced bets. `blinds_or_straddles`: first entry the small blind (blind 1), second the big blind
  (blind 2), any further non-zero entry a straddle. `antes`: when two or more players ante it is a
  per-player ante (`post: ante`); when exactly one player antes for the table (big-blind ante,
  button ante) it is dead money for the main pot, written `post: dead`, because an `ante` post
  counts as the poster's own live contribution and would make the poster a side pot of their own.
  Antes are posted before blinds; a forced bet larger than the stack is posted all-in.
- Actions. `cbr X` (complete, bet or raise to X in the round) is "bet" when nobody has bet in the
  round (in the first round the blinds count as the bet), otherwise "raise", and "call" when X
  does not exceed the bet faced; `cc` is a check or call (capped at the stack); `f` a fold;
  `sm cards` a show (`sm -` shows the cards dealt, bare `sm` is a muck); `d dh pN cards` a hole
  deal (`??` for unknown cards); `d db cards` a board deal.
- Money. PHH amounts may be floats. Each hand gets one integer scale: the least common multiple of
  the denominators of all its amounts (stacks, antes, blinds, bet sizes, bets, finishing stacks)
  and of the smallest real chip. The smallest real chip is 1 chip, or one cent when the file names
  a currency (one unit for currencies without minor units); `chip_unit` is the scale times that
  chip, and `money_scale` is the scale itself (100 for cents, 2 for half chips), so reports show
  money as the file wrote it. So Pluribus hands whose finishing stacks end in .5 are written in half chips with
  `chip_unit` 2, and the split that produced the half chips stays visible to the split-pot rules.
- Awards. PHH records no pot awards. When `finishing_stacks` (or else `winnings`) are given, each
  player's winnings are finishing - (starting - chips put in + chips returned). The uncalled bet is
  computed from the betting: at the end of the hand the largest contribution of a player still in
  exceeds the second largest contribution of anyone (folded or not) only by chips nobody matched;
  that excess is a `return` event, written after the last betting action. Pots are then built with
  `build_pots` from the contributions after the return (the same call the replay engine makes, so
  pot numbers agree), and the winnings are attributed to pots from the last side pot to the main
  pot: a side pot goes to the players eligible for it who won anything (with correct showdowns a
  player eligible for an inner pot who wins an outer pot also wins the inner one), shared as
  equally as their winnings allow; a remainder that cannot be shared equally goes to the player with
  most winnings still unattributed, ties to the first such player clockwise from the button. When
  the winnings cannot be attributed this way (a winner eligible for no pot, more winnings than
  pots, negative winnings), the awards are still written as near to it as the totals allow
  (winnings no pot can pay are paid from the main pot, pot chips nobody won stay unpaid) and a
  warning naming the hand is logged on this module's logger; the hand's chip balance then shows
  the difference. A `rake` field (not in phh-std 0.0.1, written by some converters) becomes a
  `rake` event on the main pot.
- When neither `finishing_stacks` nor `winnings` is given there are no awards (the pot rules then
  find the hand not assessable); the uncalled bet is still returned when the actions show the hand
  is over (one player left, or a showdown).

Readers record; rules judge (auditor/ingest/__init__.py)
---------------------------------------------------------
Illegal play is written as the file says and left to the rules: more hole cards than the game
deals, a card dealt twice, a board of the wrong size or dealt out of schedule, a show of cards
other than those dealt (`sm -` with no deal recorded shows `??` cards), a draw (`pN sd cards`, then
`d dh pN` for the replacements: one `draw` event, however many cards each side has) in a game
without draws, a `cbr` to no more than the player already has in (a bet or raise of nothing), a fold
or any action by a player who has folded or is all-in, out of turn, a seat listed twice. PHH
writes no check facing a bet (`cc` is "check or call"), so none can be recorded.

Still refused, with the quarantine code (docs/readers.md, "PHH"):

- `unsupported-game`: variants the canonical log has no engine for (short-deck, Omaha hi/lo,
  stud, stud hi/lo, razz, deuce-to-seven single and triple draw, badugi), and unknown variant
  codes; worded "unsupported variant: <game> (PHH variant <code>)".
- `unsupported-feature`: more than 10 players or a seat above 10 (the log numbers seats 1..10); an
  unknown stack (`inf`); an amount above the log's largest or needing a unit finer than 1/10^6; a
  bring-in (`pb`: stud only).
- `inconsistent-amounts`: a `cbr` to more than the player's chips, or to less than they already
  have in the round (chips cannot be taken back): no stack can be written that makes it true.
- `invalid-record`: a required field missing or of the wrong type, arrays whose length is not the
  number of players, an action naming a player the hand does not have, a negative amount; and a
  converted hand that breaks the hand-log schema or its consistency check.
- `damaged`: TOML that does not parse, text that is not UTF-8 (in a streamed `.phhs`: that table
  only), an action or card not understood, a number of more than 30 digits; an unreadable file.
- `limit`: a file, hand or line past `limits.Limits` (the message names the limit).
- `internal-error`: the reader itself failed on the hand.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
import os
import re
import stat
import tomllib
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from auditor.ingest import phh_toml
from auditor.ingest.files import GZIP_MAGIC, open_binary, open_failure, read_all, read_line, utf8_mask
from auditor.ingest.jsonl import consistency_error
from auditor.ingest.limits import DEFAULT_LIMITS, Limits
from auditor.ingest.validate import schema_error
from auditor.model.pots import attribute_winnings, build_pots
from auditor.model.records import Quarantined, SourceHand

__all__ = ["PHH_SUFFIXES", "read_phh", "read_phh_files", "read_plain_phh_batch", "sniff_phh"]

log = logging.getLogger(__name__)

PHH_SUFFIXES = (".phh", ".phhs", ".phh.gz", ".phhs.gz")

#: PHH variant code -> (canonical variant, structure, hole cards)
SUPPORTED: dict[str, tuple[str, str, int]] = {
    "NT": ("holdem", "no-limit", 2),
    "FT": ("holdem", "fixed-limit", 2),
    "PO": ("omaha", "pot-limit", 4),
    # Not in phh-std 0.0.1; fixed-limit Omaha high, accepted should a file use it.
    "FO": ("omaha", "fixed-limit", 4),
}
#: PHH variant code -> the game's name, for "unsupported variant: <name> (PHH variant <code>)"
UNSUPPORTED: dict[str, str] = {
    "NS": "short-deck hold'em",
    "FO/8": "Omaha hi/lo",
    "F7S": "seven-card stud",
    "F7S/8": "seven-card stud hi/lo",
    "FR": "razz",
    "N2L1D": "deuce-to-seven lowball single draw",
    "F2L3D": "deuce-to-seven lowball triple draw",
    "FB": "badugi",
}
MAX_SCALE = 10**6
MAX_MONEY = 10**15
MAX_TEXT = 128
#: integers are refused beyond this many digits anywhere in a hand (amounts are checked against MAX_MONEY)
MAX_DIGITS = 30
HUGE = 10**MAX_DIGITS
#: ISO 4217 currencies without minor units; any other named currency is counted in cents
ZERO_DECIMAL_CURRENCIES = frozenset({"JPY", "KRW", "VND", "CLP", "ISK", "PYG", "UGX", "XAF", "XOF", "RWF"})

_HEADER = re.compile(r"""^[ \t]*\[[ \t]*("[^"]*"|'[^']*'|[A-Za-z0-9_-]+)[ \t]*\][ \t]*(?:#.*)?$""")
_NUMBER = re.compile(r"^[0-9]+(?:\.[0-9]+)?$")
_PLAYER = re.compile(r"^p([0-9]+)$")
_RANKS = "23456789TJQKA"
_SUITS = "cdhs"
_TOML_LINE = re.compile(r"\(at line (\d+), column (\d+)\)")


class _Reject(Exception):
    """The hand cannot be written as a canonical hand: the message is the one-line quarantine reason and
    `code` its entry of QUARANTINE_CODES. Never raised because an action is illegal (rules judge those)."""

    def __init__(self, reason: str, code: str):
        super().__init__(reason)
        self.code = code


# --------------------------------------------------------------------------- sniffing


_SNIFF_VARIANT = re.compile(rb"""^[ \t]*variant[ \t]*=[ \t]*["']([A-Za-z0-9/]+)["']""", re.MULTILINE)
_SNIFF_FIELD = re.compile(
    rb"^[ \t]*(antes|blinds_or_straddles|bring_in|starting_stacks|actions|min_bet|small_bet)[ \t]*=", re.MULTILINE)


def sniff_phh(head: bytes) -> bool:
    """True if the first bytes of a file (decompressed) look like PHH: TOML with a `variant` code and
    another PHH field. JSON, CSV and room text exports never have a `variant = "..."` line."""
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if not text or text[:1] in (b"{", b"<"):
        return False
    variant = _SNIFF_VARIANT.search(head)
    if not variant:
        return False
    code = variant.group(1).decode("ascii", "replace")
    return code in SUPPORTED or code in UNSUPPORTED or _SNIFF_FIELD.search(head) is not None


# --------------------------------------------------------------------------- reading


def read_phh(path: Path, *, rule_pack: str = "tda-2024", root: Path | None = None,
             label: str | None = None, limits: Limits = DEFAULT_LIMITS,
             scanner: bool = True) -> Iterator[SourceHand | Quarantined]:
    """Yield every hand of a `.phh` or `.phhs` file (plain or gzip) as a hand or a quarantine entry.

    Hand ids are built from `label` if given, else the path (relative to `root` when given, else as
    passed), so they are
    unique across a corpus: `<path>#<hand>` for a `.phh`, `<path>[<table key>]#<hand>` for a `.phhs`.
    A hand longer than `limits.phh_max_hand_bytes`, or holding a line longer than
    `limits.phh_max_line_bytes`, is quarantined without being parsed.

    A plain `.phh` is read through the byte scanner (`read_phh_files` of one file: about a quarter
    faster even one file per call); many files are faster still in one `read_phh_files` call. Without the
    `scanner` (a first run whose scanner is not compiled yet: `ingest.compiled.reference_first`), every file
    takes the reference path, the same items in plain Python.
    """
    if scanner and path.name.lower().endswith(".phh"):
        yield from read_phh_files([path], rule_pack=rule_pack, root=root,
                                  labels=[label] if label is not None else None, limits=limits)
    else:
        yield from _read_phh_reference(path, rule_pack=rule_pack, root=root, label=label, limits=limits)


def _read_phh_reference(path: Path, *, rule_pack: str = "tda-2024", root: Path | None = None,
                        label: str | None = None,
                        limits: Limits = DEFAULT_LIMITS) -> Iterator[SourceHand | Quarantined]:
    """`read_phh` without the byte scanner: TOML by `phh_toml`, actions by `_parse_actions`. Every file the
    scanner does not read goes here, and the tests hold the scanner's path equal to it."""
    name = str(path)
    label = label if label is not None else _label(path, root)
    suffix = path.name.removesuffix(".gz").rsplit(".", 1)[-1].lower()
    for line, key, fields, error in _read_documents(path, suffix == "phhs", limits):
        if key is _FAILED:  # the file itself could not be read: one entry, no hand id
            yield Quarantined(name, line, error[1], code=error[0])
            return
        hand_id = table_id = None
        try:
            if error:
                raise _Reject(error[1], error[0])
            if _has_huge_integer(fields):
                raise _Reject(f"a number of more than {MAX_DIGITS} digits (no amount, seat or hand number is)",
                              "damaged")
            hand_id, table_id = _ids(label, key, fields)
            hand = _convert(fields, hand_id, table_id, rule_pack)
        except _Reject as exc:
            yield Quarantined(name, line, _one_line(str(exc)), hand_id, code=exc.code, table_id=table_id)
            continue
        except Exception as exc:  # a reader never raises on bad input
            yield Quarantined(name, line, _one_line(f"reader error: {type(exc).__name__}: {exc}"), hand_id,
                              code="internal-error", table_id=table_id)
            continue
        problem = schema_error(hand) or consistency_error(hand)
        if problem:
            yield Quarantined(name, line, problem, hand_id, code="invalid-record", table_id=table_id)
        else:
            yield SourceHand(hand, name, line)


def read_phh_files(paths: Sequence[Path], *, rule_pack: str = "tda-2024", root: Path | None = None,
                   labels: Sequence[str] | None = None,
                   limits: Limits = DEFAULT_LIMITS) -> Iterator[SourceHand | Quarantined]:
    """What `read_phh` yields for each of `paths` in turn (`labels[k]` the label of `paths[k]`), the same
    items, with the `.phh` files' TOML and actions read by one `phh_scan` kernel call over all their bytes.

    A file the scanner does not read exactly as `tomllib` would (comments, tables, escapes...), one it
    cannot open, that is not UTF-8, near a size limit, or a `.phhs` goes through `_read_phh_reference`, so
    every refusal keeps its one wording; `tests/test_phh_scan.py` holds the two paths equal on the corpus.
    """
    if labels is not None and len(labels) != len(paths):
        raise ValueError("one label per path")
    cap = min(limits.phh_max_line_bytes, limits.phh_max_hand_bytes, limits.max_file_bytes)
    pending: list[tuple[Path, str | None, bytes | None]] = []
    size = 0
    for k, path in enumerate(paths):
        raw = _plain_bytes(path, cap)
        pending.append((path, labels[k] if labels is not None else None, raw))
        size += len(raw) if raw is not None else 0
        if size >= _BATCH_BYTES or len(pending) >= _BATCH_FILES:
            yield from _read_batch(pending, rule_pack, root, limits)
            pending, size = [], 0
    yield from _read_batch(pending, rule_pack, root, limits)


#: a kernel call of `read_phh_files` scans at most this many files or bytes (then the next): memory is one
#: batch (the scanner's tables are bounded by a small multiple of the bytes), and the call's fixed cost,
#: ~10 µs, is shared by hundreds of files
_BATCH_FILES = 2048
_BATCH_BYTES = 1 << 20


def _plain_bytes(path: Path, cap: int, given: bytes | None = None) -> bytes | None:
    """The bytes of a plain `.phh` regular file shorter than `cap` - 1, else None (read_phh then reads it:
    gzip, a FIFO or device, a `.phhs`, an unreadable file, or one near a limit, where read_phh words which
    one; a line or the hand counts at most the file's bytes and one newline). Opened without blocking, so
    a FIFO is seen for what it is before anything waits on it. `given`: the file's bytes as discovery read
    them whole (`model.inputs.Seen.content`: what the manifest hashed), judged here without opening it."""
    if not path.name.lower().endswith(".phh"):
        return None
    if given is not None:
        return None if len(given) + 1 >= cap or given[:2] == GZIP_MAGIC else given
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError):
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        chunks = []
        size = 0
        while size < cap:
            chunk = os.read(fd, cap - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size == st.st_size:  # the whole file as it was opened: one read more would only find its end
                break
    except OSError:
        return None
    finally:
        os.close(fd)
    raw = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    return None if len(raw) + 1 >= cap or raw[:2] == GZIP_MAGIC else raw


def _read_batch(pending: list[tuple[Path, str | None, bytes | None]], rule_pack: str, root: Path | None,
                limits: Limits) -> Iterator[SourceHand | Quarantined]:
    """The items of (path, label, its bytes or None) in order: bytes scanned in one call, None by the
    reference reader."""
    for (path, label, _raw), items in zip(pending, _scanned_batch(pending, rule_pack, root), strict=True):
        if items is None:
            yield from _read_phh_reference(path, rule_pack=rule_pack, root=root, label=label, limits=limits)
        else:
            yield items


def read_plain_phh_batch(paths: Sequence[Path], labels: Sequence[str], *, rule_pack: str,
                         limits: Limits = DEFAULT_LIMITS, tables: bool | None = None,
                         contents: Sequence[bytes | None] | None = None) -> list[tuple | None]:
    """For many `.phh` files at once, the items `read_phh(paths[k], label=labels[k])` gives for each file
    the byte scanner reads (one kernel call over all their bytes), or None for a file it does not take
    (not a plain regular `.phh` under the limits, not UTF-8, TOML beyond the scanner's flat subset): the
    caller reads that one the ordinary way (`detect.read_file`), which also spools, refuses and words.
    Only the first files up to `_BATCH_BYTES` or `_BATCH_FILES` are read (at least one): the list is theirs,
    and the caller asks again for the rest, so memory is one batch whatever the files.

    `contents`: per path, the file's bytes as discovery read them whole (`model.inputs.Seen.content`), or None
    (the file is read here).

    With `tables` (by default when `phh_tables.worth_it(len(paths))`), the hands the columnar path converts
    come as canonical tables (`phh_tables.read_batch`): a run of consecutive such files is one `TableChunk`,
    the item of the run's first file, and the run's other files have none (an empty tuple); every other file
    has its one item, or None, as without. Without, each file has its one item (a 1-tuple) or None.

    Why: a run reads a folder of PHH files one input at a time, and each `read_phh` of one file paid the
    whole stack of per-file calls and a kernel dispatch, about as much as the hand's own conversion.
    """
    if len(labels) != len(paths) or (contents is not None and len(contents) != len(paths)):
        raise ValueError("one label (and content, if any) per path")
    cap = min(limits.phh_max_line_bytes, limits.phh_max_hand_bytes, limits.max_file_bytes)
    pending: list[tuple[Path, str | None, bytes | None]] = []
    size = 0
    for k, (path, label) in enumerate(zip(paths, labels, strict=True)):
        raw = _plain_bytes(path, cap, contents[k] if contents is not None else None)
        pending.append((path, label, raw))
        size += len(raw) if raw is not None else 0
        if size >= _BATCH_BYTES or len(pending) >= _BATCH_FILES:
            break
    from auditor.ingest import phh_tables  # imports the kernels: only when there are PHH files

    if tables if tables is not None else phh_tables.worth_it(len(paths)):
        return phh_tables.read_batch(pending, rule_pack)
    return [(item,) if item is not None else None for item in _scanned_batch(pending, rule_pack, None)]


def _scanned_batch(pending: list[tuple[Path, str | None, bytes | None]], rule_pack: str,
                   root: Path | None) -> list[SourceHand | Quarantined | None]:
    """Each of (path, label, its bytes or None) as the one item the scanner's path gives, or None where the
    reference reader must read the file (no bytes, not UTF-8, or TOML the scanner leaves to tomllib)."""
    raws = [raw for _path, _label, raw in pending]
    batch = [k for k, raw in enumerate(raws) if raw is not None]
    out: list[SourceHand | Quarantined | None] = [None] * len(pending)
    if not batch:
        return out
    from auditor.ingest import phh_scan  # imports Numba: only when there are PHH bytes to scan

    texts: list[bytes] = [raws[k] for k in batch]  # type: ignore[misc]
    buf, starts, ends = phh_scan.join(texts)
    utf8 = utf8_mask(buf, texts)
    if not utf8.all():  # the files that are not UTF-8: read_phh words their refusal
        batch = [k for k, good in zip(batch, utf8.tolist(), strict=True) if good]
        if not batch:
            return out
        buf, starts, ends = phh_scan.join([raws[k] for k in batch])  # type: ignore[misc]
    docs = phh_scan.Documents(phh_scan.scan(buf, starts, ends, skip_bom=True))
    for d, k in enumerate(batch):
        fields = docs.fields(d, without_actions=True)
        if fields is None:
            continue
        path, label, _raw = pending[k]
        out[k] = _scanned_hand(str(path), label if label is not None else _label(path, root), fields, rule_pack,
                               lambda n, d=d: _scanned_actions(docs, d, n))  # type: ignore[misc]
    return out


def _scanned_actions(docs: Any, d: int, n: int) -> list[tuple]:
    """Document `d`'s actions from the scanner's tokens, or (tokens naming a player the hand does not have)
    `_parse_actions` of the strings, which words the refusal."""
    tokens = docs.actions(d, n)
    if tokens is not None:
        return tokens
    from auditor.ingest.phh_scan import KEY_ACTIONS

    return _parse_actions(docs.value(d, KEY_ACTIONS), n)


def _scanned_hand(name: str, label: str, fields: dict, rule_pack: str,
                  actions_of: Callable[[int], list[tuple]]) -> SourceHand | Quarantined:
    """`read_phh`'s item for a `.phh` whose TOML the scanner read (one flat document, line 1; its integers
    have at most 18 digits, so `_has_huge_integer` has nothing to find)."""
    hand_id = table_id = None
    try:
        hand_id, table_id = _ids(label, None, fields)
        hand = _convert(fields, hand_id, table_id, rule_pack, actions_of)
    except _Reject as exc:
        return Quarantined(name, 1, _one_line(str(exc)), hand_id, code=exc.code, table_id=table_id)
    except Exception as exc:  # a reader never raises on bad input
        return Quarantined(name, 1, _one_line(f"reader error: {type(exc).__name__}: {exc}"), hand_id,
                           code="internal-error", table_id=table_id)
    problem = schema_error(hand) or consistency_error(hand)
    if problem:
        return Quarantined(name, 1, problem, hand_id, code="invalid-record", table_id=table_id)
    return SourceHand(hand, name, 1)


#: the "table key" of the one entry `_read_documents` yields for a file that cannot be read at all
_FAILED = "\x00failed"


def _read_documents(path: Path, many: bool,
                    limits: Limits) -> Iterator[tuple[int, str | None, dict, tuple[str, str] | None]]:
    """`_documents` of the file: a `.phhs` that starts with a table header streamed table by table
    (`_streamed_tables`), anything else read whole (a `.phh` is one hand, under `max_file_bytes`)."""
    if many:
        streamed = _streamed_tables(path, limits)
        try:
            first = next(streamed)
        except StopIteration:
            return
        except OSError as exc:
            reason, code = open_failure(exc)
            yield 0, _FAILED, {}, (code, reason)
            return
        if first is None:
            streamed.close()
        else:
            yield first
            try:
                yield from streamed
            except OSError as exc:  # a gzip that ends early or passes a limit half-way
                reason, code = open_failure(exc)
                yield 0, _FAILED, {}, (code, reason)
            return
    try:
        raw = read_all(path, limits)
    except OSError as exc:
        reason, code = open_failure(exc)
        yield 0, _FAILED, {}, (code, reason)
        return
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        yield 1, _FAILED, {}, ("damaged", f"not UTF-8 text: byte {exc.start}: {exc.reason}")
        return
    yield from _documents(text, many=many, limits=limits)


def _streamed_tables(path: Path,
                     limits: Limits) -> Iterator[tuple[int, str | None, dict, tuple[str, str] | None] | None]:
    """The tables of a `.phhs` as it is read, each parsed on its own: memory is one table, whatever the
    file's size (parsed whole, a 512 MB file needed about 20 GB).

    Yields None first, and nothing else, when the file does not start with a table header (blank and
    comment lines aside): keys before the first table change what the whole document means (a `.phh`
    written with the other suffix), so such a file is read whole by `_documents`. A table longer than
    `phh_max_hand_bytes` or with a line longer than `phh_max_line_bytes` stops being kept as soon as it
    passes the limit and is refused alone; a table that is not UTF-8 or not TOML is refused alone
    (`damaged`). Raises OSError when the file cannot be read (or passes a decompression limit).
    """
    cap_line, cap_hand = limits.phh_max_line_bytes, limits.phh_max_hand_bytes
    with open_binary(path, limits) as stream:
        number = 0
        start, key = 0, None
        body: list[bytes] = []
        size = 0
        problem: tuple[str, str] | None = None

        def table() -> tuple[int, str | None, dict, tuple[str, str] | None]:
            if problem:
                return start, key, {}, problem
            try:
                text = b"".join(body).decode("utf-8")
            except UnicodeDecodeError as exc:
                at = start + 1 + b"".join(body)[:exc.start].count(b"\n")
                return start, key, {}, ("damaged", f"not UTF-8 text (line {at}): {exc.reason}")
            try:
                return start, key, phh_toml.loads(text), None
            except (ValueError, RecursionError) as exc:
                return start, key, {}, ("damaged", _toml_reason(exc, start))

        while True:
            raw, long = read_line(stream, cap_line)
            if not raw:
                break
            number += 1
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            header = (None if long or raw.lstrip(b" \t")[:1] != b"["
                      else _HEADER.match(raw.decode("utf-8", "replace").rstrip("\r\n")))
            if header:
                if key is not None:
                    yield table()
                elif number > 1 and any(_content(line) for line in body):
                    yield None  # keys before the first table: the whole document decides
                    return
                start, key = number, header.group(1).strip("\"'")
                body, size, problem = [], len(raw), None
                continue
            size += len(raw)
            if problem:
                continue
            if long:
                problem = ("limit", f"line {number} is longer than {cap_line} bytes (limit phh_max_line_bytes); "
                                    "the hand is not parsed")
            elif key is not None and size > cap_hand:
                problem = ("limit", f"hand is longer than {cap_hand} bytes (limit phh_max_hand_bytes); not parsed")
            if problem and key is None:
                yield None  # before any table: the whole document's reading says it
                return
            if problem:
                body = []
            elif key is not None or len(body) < 1000:  # before any table: only enough lines to judge
                body.append(raw)
            elif any(_content(line) for line in body):
                yield None
                return
        if key is None:
            yield None  # no table at all: one document (or nothing), read whole
            return
        yield table()


def _content(line: bytes) -> bool:
    """A line that says something in TOML (not blank, not a comment)."""
    text = line.strip()
    return bool(text) and not text.startswith(b"#")


def _has_huge_integer(value: Any) -> bool:
    """True if the parsed TOML holds an integer of more than MAX_DIGITS digits anywhere.

    tomllib reads integers of any length, but Python cannot even print one of more than 4,300 digits
    (str() raises ValueError), and every message that quotes a field would fail on it.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, int) and not -HUGE < item < HUGE:
            return True
    return False


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _label(path: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return path.as_posix()


def _clip(text: str) -> str:
    """Ids are at most 128 characters; keep the specific (right) end."""
    return text if len(text) <= MAX_TEXT else "…" + text[-(MAX_TEXT - 1):]


def _ids(label: str, key: str | None, fields: dict) -> tuple[str, str]:
    hand_no = fields.get("hand")
    hand_no = None if hand_no is None or isinstance(hand_no, dict | list) else str(hand_no)
    table = fields.get("table")
    table = None if table is None or isinstance(table, dict | list) else str(table)
    if key is None:
        hand_id = f"{label}#{hand_no}" if hand_no is not None else label
        own = label
        folder = label.rsplit("/", 1)[0] if "/" in label else "."
        # Files of one folder with hand numbers or a table name are one session; a file with
        # neither is a hand of its own.
        shared = folder if hand_no is not None or table is not None else label
    else:
        hand_id = f"{label}[{key}]" + (f"#{hand_no}" if hand_no is not None else "")
        own = f"{label}[{key}]"
        shared = label
    # Without `seats` the seat numbers are positions (the button is always the last seat), so nothing
    # carries from one hand to the next: each hand is its own table and cross-hand facts (button
    # movement) stay unknown instead of being judged on made-up seats.
    container = shared if isinstance(fields.get("seats"), list) else own
    table_id = f"{container}:{table}" if table is not None else container
    return _clip(hand_id), _clip(table_id)


def _too_big(lines: list[str], first: int, limits: Limits) -> tuple[str, str] | None:
    """(code, reason) why the hand written on `lines` (the first of them is line `first` of the file) is not
    parsed, or None.

    Sizes are UTF-8 bytes; a line counts its newline.
    """
    cap = limits.phh_max_line_bytes
    for number, line in enumerate(lines, first):
        if len(line) * 4 > cap and len(line.encode("utf-8", "surrogatepass")) + 1 > cap:
            return "limit", (f"line {number} is longer than {cap} bytes (limit phh_max_line_bytes); the hand is "
                             "not parsed")
    chars = sum(len(line) + 1 for line in lines)
    if chars * 4 > limits.phh_max_hand_bytes:  # else even four-byte characters would fit
        size = sum(len(line.encode("utf-8", "surrogatepass")) + 1 for line in lines)
        if size > limits.phh_max_hand_bytes:
            return "limit", (f"hand is longer than {limits.phh_max_hand_bytes} bytes (limit phh_max_hand_bytes); "
                             "not parsed")
    return None


def _documents(text: str, many: bool,
               limits: Limits = DEFAULT_LIMITS) -> Iterator[tuple[int, str | None, dict, tuple[str, str] | None]]:
    """(line, table key, fields, (code, reason) of a refusal) per hand in the file; never raises.

    A `.phhs` with a table too big to parse is read table by table (the others are still read);
    otherwise the file is parsed whole, as TOML means it to be.
    """
    lines = text.splitlines()
    starts = _table_starts(text) if many else []
    spans = [(start, starts[i + 1][0] - 1 if i + 1 < len(starts) else len(lines))
             for i, (start, _) in enumerate(starts)]
    if any(_too_big(lines[a - 1:b], a, limits) for a, b in spans):
        yield from _chunks(text, limits)
        return
    problem = None if starts else _too_big(lines, 1, limits)
    if problem:
        yield 1, None, {}, problem
        return
    try:
        doc = phh_toml.loads(text)
    except (ValueError, RecursionError) as exc:  # TOMLDecodeError; a 5,000-digit integer; [[[[...]]]]
        if not many:
            yield 1, None, {}, ("damaged", _toml_reason(exc))
            return
        yield from _chunks(text, limits)
        return
    tables = [(k, v) for k, v in doc.items() if isinstance(v, dict)]
    if "variant" in doc or not tables:  # one hand, whatever the suffix says
        yield 1, None, doc, None
        return
    lines = _header_lines(text)
    for key, fields in tables:
        yield lines.get(key, 1), key, fields, None


def _header_lines(text: str) -> dict[str, int]:
    lines: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        match = _HEADER.match(line)
        if match:
            lines.setdefault(match.group(1).strip("\"'"), number)
    return lines


def _toml_reason(exc: BaseException, at: int = 0) -> str:
    """One line saying why TOML text (whose first line is line `at` + 1 of the file) does not parse."""
    if isinstance(exc, RecursionError):
        return "invalid TOML: nested too deeply"
    if not isinstance(exc, tomllib.TOMLDecodeError):  # int() refusing a 5,000-digit number
        return f"invalid TOML: {exc}"
    message = _TOML_LINE.sub(lambda m: f"(at line {int(m.group(1)) + at}, column {m.group(2)})", str(exc))
    return f"invalid TOML: {message}"


def _table_starts(text: str) -> list[tuple[int, str]]:
    """(line number, key) of each `[key]` table header: where each hand of a `.phhs` begins."""
    return [(n, m.group(1).strip("\"'")) for n, line in enumerate(text.splitlines(), 1)
            if (m := _HEADER.match(line))]


def _chunks(text: str,
            limits: Limits = DEFAULT_LIMITS) -> Iterator[tuple[int, str | None, dict, tuple[str, str] | None]]:
    """A `.phhs` whose TOML does not parse as a whole: parse table by table, so one damaged hand
    does not take the rest of the file with it."""
    starts = _table_starts(text)
    lines = text.splitlines(keepends=True)
    if not starts:
        problem = _too_big(lines, 1, limits)
        if problem:
            yield 1, None, {}, problem
            return
        try:
            tomllib.loads(text)
        except (ValueError, RecursionError) as exc:
            yield 1, None, {}, ("damaged", _toml_reason(exc))
        return
    for i, (start, key) in enumerate(starts):
        end = starts[i + 1][0] - 1 if i + 1 < len(starts) else len(lines)
        problem = _too_big(lines[start - 1:end], start, limits)
        if problem:
            yield start, key, {}, problem
            continue
        body = "".join(lines[start:end])
        try:
            fields = phh_toml.loads(body)
        except (ValueError, RecursionError) as exc:
            yield start, key, {}, ("damaged", _toml_reason(exc, start))
            continue
        yield start, key, fields, None


# --------------------------------------------------------------------------- conversion


def _money(value: Any, what: str) -> int | Fraction:
    """An amount as an exact number: int when whole (the fast, common case), else a Fraction of the
    decimal the file wrote (10112.5 -> 20225/2, never the binary float)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise _Reject(f"{what} is not a number: {value!r}", "invalid-record")
    if isinstance(value, int):
        amount: int | Fraction = value
    elif isinstance(value, str):
        if not _NUMBER.match(value):
            raise _Reject(f"{what} is not a number: {value!r}", "invalid-record")
        if len(value) > 40:  # far beyond any stack, and int() refuses more than 4,300 digits
            raise _Reject(f"{what} is too large: {value[:20]}...", "unsupported-feature")
        amount = int(value) if value.isdigit() else Fraction(value)
    elif math.isinf(value):
        raise _Reject(f"{what} is unknown (inf)", "unsupported-feature")
    elif math.isnan(value):
        raise _Reject(f"{what} is not a number (nan)", "invalid-record")
    else:
        amount = int(value) if value.is_integer() else Fraction(repr(value))
    if amount < 0:
        raise _Reject(f"{what} is negative: {value}", "invalid-record")
    return amount


_INT_ONLY = {int}


def _money_list(fields: dict, key: str, n: int) -> list[int | Fraction]:
    values = fields.get(key)
    if values is None:
        raise _Reject(f"missing required field {key}", "invalid-record")
    if not isinstance(values, list):
        raise _Reject(f"{key} is not an array", "invalid-record")
    if len(values) != n:
        raise _Reject(f"{key} has {len(values)} entries for {n} players", "invalid-record")
    # the common case, what _money returns for each: only ints (a bool is not), none negative
    if values and set(map(type, values)) == _INT_ONLY and min(values) >= 0:
        return list(values)
    return [_money(v, f"{key}[{i}]") for i, v in enumerate(values)]


def _cards(text: str, where: str) -> list[str]:
    if len(text) % 2:
        raise _Reject(f"{where}: bad card text {text!r}", "damaged")
    out = []
    for i in range(0, len(text), 2):
        rank, suit = text[i].upper(), text[i + 1].lower()
        if "?" in (rank, suit):
            out.append("??")
        elif rank in _RANKS and suit in _SUITS:
            out.append(rank + suit)
        else:
            raise _Reject(f"{where}: bad card {text[i:i + 2]!r}", "damaged")
    return out


def _player(token: str, n: int, where: str) -> int:
    match = _PLAYER.match(token)
    if not match or len(match.group(1)) > 3 or not 1 <= int(match.group(1)) <= n:
        raise _Reject(f"{where}: unknown player {token!r} ({n} players)", "invalid-record")
    return int(match.group(1)) - 1


def _parse_actions(actions: Any, n: int) -> list[tuple]:
    """Each action as a tuple: ("dh", i, cards) ("db", cards) ("f", i) ("cc", i) ("cbr", i, amount)
    ("sm", i, cards | None | "-") ("sd", i, cards) ("pb", i)."""
    if not isinstance(actions, list):
        raise _Reject("missing required field actions" if actions is None else "actions is not an array",
                      "invalid-record")
    parsed: list[tuple] = []
    for k, raw in enumerate(actions):
        where = f"action {k + 1}"
        if not isinstance(raw, str):
            raise _Reject(f"{where} is not a string: {raw!r}", "invalid-record")
        words = raw.split("#", 1)[0].split()
        if not words:
            continue  # no-op or commentary
        where = f"action {k + 1} {' '.join(words)!r}"
        if words[0] == "d":
            if len(words) == 4 and words[1] == "dh":
                parsed.append(("dh", _player(words[2], n, where), _cards(words[3], where)))
            elif len(words) == 3 and words[1] == "db":
                parsed.append(("db", _cards(words[2], where)))
            else:
                raise _Reject(f"{where}: unknown dealer action", "damaged")
            continue
        i = _player(words[0], n, where)
        verb, args = (words[1] if len(words) > 1 else ""), words[2:]
        if verb in ("f", "cc", "pb") and not args:
            parsed.append((verb, i))
        elif verb == "cbr" and len(args) == 1:
            parsed.append(("cbr", i, _money(args[0], where)))
        elif verb == "sm" and len(args) <= 1:
            parsed.append(("sm", i, None if not args else "-" if args[0] == "-" else _cards(args[0], where)))
        elif verb == "sd" and len(args) <= 1:
            parsed.append(("sd", i, _cards(args[0], where) if args else []))
        else:
            raise _Reject(f"{where}: unknown action", "damaged")
    return parsed


def _scale(amounts: list[int | Fraction], chips_per_unit: int) -> int:
    """The least common multiple of the amounts' denominators and `chips_per_unit` (the smallest chip's)."""
    scale = chips_per_unit
    for amount in amounts:
        if amount.denominator == 1:
            continue
        scale = math.lcm(scale, amount.denominator)
        if scale > MAX_SCALE:
            raise _Reject(f"amount {float(amount)} needs a unit finer than 1/{MAX_SCALE} (the finest money "
                          "scale the canonical log holds)", "unsupported-feature")
    return scale


def _started_at(fields: dict) -> str | None:
    """ISO date-time of the hand's start, only when the file gives a time and a date and the time
    zone is known (phh-std: `time_zone`, else UTC unless the venue's location implies local time)."""
    value = fields.get("time")
    if isinstance(value, dt.datetime):
        moment = value
    elif isinstance(value, dt.time):
        try:
            moment = dt.datetime.combine(dt.date(fields["year"], fields["month"], fields["day"]), value)
        except (KeyError, TypeError, ValueError):
            return None
    else:
        return None
    if moment.tzinfo is None:
        zone = fields.get("time_zone")
        abbreviation = fields.get("time_zone_abbreviation")
        if isinstance(zone, str):
            try:
                moment = moment.replace(tzinfo=ZoneInfo(zone))
            except (KeyError, ValueError, OSError):
                return None
        elif abbreviation in ("UTC", "GMT", "Z") or not any(fields.get(k) for k in ("city", "region", "country")):
            moment = moment.replace(tzinfo=dt.UTC)
        else:
            return None
    return moment.replace(microsecond=0).isoformat()


def _convert(fields: dict, hand_id: str, table_id: str, rule_pack: str,
             actions_of: Callable[[int], list[tuple]] | None = None) -> dict:
    """The canonical hand of one PHH document's fields (raises _Reject). `actions_of(n)`, when given, gives
    the document's actions (read by the byte scanner: `fields` then has no "actions"); else they are read
    from `fields["actions"]` here; either way as `_parse_actions`' tuples."""
    code = fields.get("variant")
    if not isinstance(code, str):
        raise _Reject("missing required field variant", "invalid-record")
    if code in UNSUPPORTED:
        raise _Reject(f"unsupported variant: {UNSUPPORTED[code]} (PHH variant {code})", "unsupported-game")
    if code not in SUPPORTED:
        raise _Reject(f"unsupported variant: unknown PHH variant {code[:MAX_TEXT]!r}", "unsupported-game")
    variant, structure, hole_cards = SUPPORTED[code]

    stacks_in = fields.get("starting_stacks")
    if not isinstance(stacks_in, list):
        raise _Reject("missing required field starting_stacks", "invalid-record")
    n = len(stacks_in)
    if n < 2:
        raise _Reject(f"{n} player(s): a hand needs at least 2", "invalid-record")
    if n > 10:
        raise _Reject(f"{n} players: the canonical log allows at most 10 seats", "unsupported-feature")
    starting = _money_list(fields, "starting_stacks", n)
    antes = _money_list(fields, "antes", n)
    forced = _money_list(fields, "blinds_or_straddles", n)
    bets: list[int | Fraction] = []
    if structure == "fixed-limit":
        for key in ("small_bet", "big_bet"):
            if key not in fields:
                raise _Reject(f"missing required field {key} for fixed limit", "invalid-record")
            bets.append(_money(fields[key], key))
    finishing = _money_list(fields, "finishing_stacks", n) if fields.get("finishing_stacks") is not None else None
    winnings = _money_list(fields, "winnings", n) if fields.get("winnings") is not None else None
    rake = _money(fields["rake"], "rake") if fields.get("rake") is not None else None
    actions = actions_of(n) if actions_of is not None else _parse_actions(fields.get("actions"), n)

    currency = fields.get("currency") if isinstance(fields.get("currency"), str) else None
    # the smallest real chip is 1/chips_per_unit of the currency's unit: one chip, or one cent
    chips_per_unit = 1 if currency is None or currency.upper() in ZERO_DECIMAL_CURRENCIES else 100
    everything = [*starting, *antes, *forced, *bets, *(finishing or []), *(winnings or []),
                  *([rake] if rake is not None else []), *(a[2] for a in actions if a[0] == "cbr")]
    scale = _scale(everything, chips_per_unit)
    chip_unit = scale // chips_per_unit  # scale is a multiple of it

    def units(amount: int | Fraction) -> int:
        value = int(amount * scale)
        if value > MAX_MONEY:
            raise _Reject(f"amount {amount} is too large (the canonical log holds at most {MAX_MONEY})",
                          "unsupported-feature")
        return value

    # -- seats ------------------------------------------------------------------------------
    seats = fields.get("seats")
    if seats is None:
        seat_of = list(range(1, n + 1))
    else:
        if not isinstance(seats, list) or len(seats) != n or not all(
                isinstance(s, int) and not isinstance(s, bool) for s in seats):
            raise _Reject(f"seats must be {n} integers", "invalid-record")
        # A seat listed twice is left to the canonical consistency check, like every reader's.
        if not all(s >= 1 for s in seats):
            raise _Reject(f"seats {seats}: seats are numbered from 1", "invalid-record")
        if not all(s <= 10 for s in seats):
            raise _Reject(f"seats {seats}: the canonical log numbers seats 1..10", "unsupported-feature")
        seat_of = list(seats)
    seat_count = fields.get("seat_count")
    if seat_count is not None and (not isinstance(seat_count, int) or isinstance(seat_count, bool)):
        raise _Reject(f"seat_count is not an integer: {seat_count!r}", "invalid-record")
    max_seats = seat_count or max(n, max(seat_of))
    if max_seats > 10:
        raise _Reject(f"seat_count {max_seats}: the canonical log allows at most 10 seats", "unsupported-feature")
    # a seat beyond seat_count is left to the canonical consistency check ("seat N is beyond max_seats M")
    names = fields.get("players")
    if names is not None and (not isinstance(names, list) or len(names) != n):
        raise _Reject(f"players must list {n} names", "invalid-record")
    players = [(str(names[i]).strip()[:MAX_TEXT] if names and str(names[i]).strip() else f"p{i + 1}")
               for i in range(n)]

    # -- forced bets --------------------------------------------------------------------------
    # Heads-up, the button (last player) posts the small blind: the arrays apply reversed.
    ante_units = [units(a) for a in (antes[::-1] if n == 2 else antes)]
    blind_of = [units(b) for b in (forced[::-1] if n == 2 else forced)]
    blind_values = [units(b) for b in forced]  # in posting order: small blind, big blind, straddles
    stakes: dict[str, Any] = {"blinds": _trim(blind_values[:2]), "chip_unit": chip_unit}
    payers = [i for i in range(n) if ante_units[i] > 0]
    if len(payers) >= 2 and len(set(ante_units)) == 1:
        stakes["ante"] = ante_units[0]
    if structure == "fixed-limit":
        small, big = (units(b) for b in bets)
        stakes["bet_units"] = [small, small, big, big]

    stack = [units(s) for s in starting]
    start_stack = list(stack)
    paid_out = finishing is not None or winnings is not None
    events, live, folded, dead, returned = _phh_betting(n, seat_of, stack, ante_units, blind_of, payers, actions,
                                                        units, scale, hole_cards, paid_out)
    if paid_out:
        if finishing is not None:
            won = [units(finishing[i]) - stack[i] for i in range(n)]
            if winnings is not None and won != [units(w) for w in winnings]:
                log.warning("%s: winnings disagree with finishing stacks; finishing stacks used", hand_id)
        else:
            won = [units(w) for w in winnings or []]
        contributed = {seat_of[i]: live[i] - returned[i] for i in range(n)}
        pots = build_pots(contributed, {seat_of[i] for i in folded}, dead)
        rake_units = units(rake) if rake is not None else 0
        if rake_units and pots:
            events.append({"kind": "rake", "pot": 0, "amount": rake_units})
        events.extend(_awards(pots, {seat_of[i]: w for i, w in enumerate(won)}, seat_of, rake_units, hand_id))

    hand: dict[str, Any] = {
        "hand_id": hand_id,
        "table_id": table_id,
        "variant": variant,
        "structure": structure,
        "stakes": stakes,
        "max_seats": max_seats,
        "rule_pack": rule_pack,
        "seats": [{"seat": seat_of[i], "player": players[i], "stack": start_stack[i]} for i in range(n)],
        "events": events,
    }
    started = _started_at(fields)
    if started:
        hand["started_at"] = started
    room = fields.get("venue") or fields.get("event")
    if isinstance(room, str) and room.strip():
        hand["room"] = room.strip()[:256]
    if currency:
        hand["currency"] = currency[:16]
    if scale != 1:  # cents of a named currency, or half chips (Pluribus' split pots)
        hand["money_scale"] = scale
    return hand


def _phh_betting(n: int, seat_of: list[int], stack: list[int], ante_units: list[int], blind_of: list[int],
                 payers: list[int], actions: list[tuple], units: Callable[[int | Fraction], int], scale: int,
                 hole_cards: int, paid_out: bool) -> tuple[list[dict], list[int], set[int], int, list[int]]:
    """The PHH reader's betting bookkeeping, in one place (to be replaced by the replay kernel's
    one betting state machine): the button, ante and blind posts, each action as a canonical event, and the
    uncalled bet returned. Returns (events, live contributions, folded players, dead money, returned chips);
    `stack` (chips behind, by player in position order) is updated in place.

    PHH writes `cc` (check or call) and `cbr X` (complete, bet or raise *to* X in the round), so turning them
    into canonical actions needs, per player: chips behind, chips put in this round (the bet faced is the
    largest of them; the blinds count in the first round), live contribution to the pots, folded or not;
    per hand: dead money, the hole cards dealt (for `sm -`), whether there was a showdown, and where the
    last betting event is (the return goes right after it). Raises _Reject for a `cbr` below what the
    player has in the round or above their chips.
    """
    # Chips each player put in (dead money included) are never read: `stack` says what is behind, `live`
    # what counts toward the pots. `current` is the bet faced in the round (the largest of `round_bet`),
    # kept as the actions go rather than recomputed per action: this loop runs once per event of the corpus.
    live = [0] * n  # contribution toward pots (dead money excluded)
    dead = 0
    round_bet = [0] * n
    current = 0
    folded: set[int] = set()
    events: list[dict] = [{"kind": "button", "seat": seat_of[n - 1]}]
    append = events.append

    for i in payers:
        amount = min(ante_units[i], stack[i])
        stack[i] -= amount
        if len(payers) == 1:
            dead += amount
            append(_post(seat_of[i], "dead", None, amount, stack[i] == 0))
        else:
            live[i] += amount
            append(_post(seat_of[i], "ante", None, amount, stack[i] == 0))
    # blind k (1-based, posting order) is blinds_or_straddles[k-1]; heads-up the button posts blind 1
    order = [n - 1, 0] if n == 2 else range(n)
    for k, i in enumerate(order, 1):
        if blind_of[i] <= 0:
            continue
        amount = min(blind_of[i], stack[i])
        stack[i] -= amount
        live[i] += amount
        round_bet[i] += amount
        if round_bet[i] > current:
            current = round_bet[i]
        if k <= 2:
            append(_post(seat_of[i], "blind", k, amount, stack[i] == 0))
        else:
            append(_post(seat_of[i], "straddle", None, amount, stack[i] == 0))

    # -- actions ------------------------------------------------------------------------------
    # Recorded as written, legal or not: more hole cards than the game deals, a card dealt twice, a
    # board of the wrong size, a show of other cards than were dealt, a draw in a game without draws,
    # an action out of turn or by a player who folded or is all-in. The replay and the rules judge them.
    hole: dict[int, list[str]] = {}
    showdown = False
    last_bet_event = len(events)
    #: player -> the draw event whose replacement cards the next `d dh` to that player deals
    drawing: dict[int, dict] = {}

    for k, act in enumerate(actions, 1):
        verb = act[0]
        if verb == "cc":
            i = act[1]
            owed = current - round_bet[i]
            if owed <= 0 or stack[i] == 0:
                append({"kind": "action", "seat": seat_of[i], "action": "check"})
            else:
                amount = owed if owed < stack[i] else stack[i]
                stack[i] -= amount
                live[i] += amount
                round_bet[i] += amount
                append({"kind": "action", "seat": seat_of[i], "action": "call", "amount": amount,
                        "to": round_bet[i], "all_in": stack[i] == 0})
            last_bet_event = len(events)
        elif verb == "f":
            i = act[1]
            folded.add(i)
            append({"kind": "action", "seat": seat_of[i], "action": "fold"})
            last_bet_event = len(events)
        elif verb == "cbr":
            i = act[1]
            target = units(act[2])
            amount = target - round_bet[i]
            if amount < 0:
                raise _Reject(f"action {k}: p{i + 1} bets or raises to {_show(target, scale)}, below the "
                              f"{_show(round_bet[i], scale)} already in this round (chips cannot be taken "
                              "back)", "inconsistent-amounts")
            if amount > stack[i]:
                raise _Reject(f"action {k}: p{i + 1} bets or raises to {_show(target, scale)} with only "
                              f"{_show(stack[i], scale)} behind", "inconsistent-amounts")
            stack[i] -= amount
            live[i] += amount
            round_bet[i] = target
            # A `cbr` to no more than the player already has in is a raise of nothing (the min-raise
            # and min-bet rules judge it); one that only reaches the bet faced is an all-in call.
            if amount == 0:
                name = "raise" if current > 0 else "bet"
            else:
                name = "call" if target <= current else "raise" if current > 0 else "bet"
            if target > current:
                current = target
            append({"kind": "action", "seat": seat_of[i], "action": name, "amount": amount, "to": target,
                    "all_in": stack[i] == 0})
            last_bet_event = len(events)
        elif verb == "dh":
            _, i, cards = act
            if i in drawing:  # phh-std: `pN sd cards` then `d dh pN replacements`
                drawing.pop(i)["receive"].extend(cards)
                continue
            hole.setdefault(i, []).extend(cards)
            append({"kind": "deal", "to": "hole", "seat": seat_of[i], "cards": cards})
        elif verb == "db":
            round_bet = [0] * n
            current = 0
            append({"kind": "deal", "to": "board", "cards": act[1]})
        elif verb == "sm":
            _, i, cards = act
            showdown = True
            if cards is None:
                append({"kind": "muck", "seat": seat_of[i]})
                continue
            if cards == "-":
                # "shows the cards dealt": with no deal recorded, the faces are unknown to the log
                cards = list(hole.get(i, [])) or ["??"] * hole_cards
            append({"kind": "show", "seat": seat_of[i], "cards": cards})
        elif verb == "sd":
            _, i, cards = act
            draw = {"kind": "draw", "seat": seat_of[i], "discard": cards, "receive": []}
            drawing[i] = draw
            append(draw)
        else:  # pb
            raise _Reject(f"action {k}: a bring-in (pb), which only stud games have; the canonical log has no "
                          "bring-in", "unsupported-feature")

    # -- the end: uncalled bet, awards ----------------------------------------------------------
    over = paid_out or showdown or n - len(folded) <= 1
    returned = [0] * n
    if over:
        in_hand = [i for i in range(n) if i not in folded]
        if in_hand:
            top = max(in_hand, key=live.__getitem__)
            second = max((live[i] for i in range(n) if i != top), default=0)
            if live[top] > second:
                returned[top] = live[top] - second
                stack[top] += returned[top]
                events.insert(last_bet_event, {"kind": "return", "seat": seat_of[top], "amount": returned[top]})
    return events, live, folded, dead, returned


def _trim(values: list[int]) -> list[int]:
    while values and values[-1] == 0:
        values = values[:-1]
    return values


def _show(value: int, scale: int) -> str:
    amount = Fraction(value, scale)
    return str(amount.numerator) if amount.denominator == 1 else f"{float(amount):g}"


def _post(seat: int, kind: str, blind: int | None, amount: int, all_in: bool) -> dict:
    event: dict[str, Any] = {"kind": "post", "seat": seat, "post": kind}
    if blind is not None:
        event["blind"] = blind
    event["amount"] = amount
    if all_in:
        event["all_in"] = True
    return event


def _awards(pots: list, won: dict[int, int], seat_of: list[int], rake: int, hand_id: str) -> list[dict]:
    """Award events that pay each player's winnings out of the pots they are eligible for
    (`model.pots.attribute_winnings`; see the module docstring), with a warning where they cannot be."""
    losers = {s: w for s, w in won.items() if w < 0}
    if losers:
        log.warning("%s: finishing stacks below what the actions leave for seat(s) %s", hand_id,
                    ", ".join(f"{s} ({w})" for s, w in sorted(losers.items())))
    paid, leftover, unpaid = attribute_winnings(pots, won, seat_of, rake)
    if leftover or unpaid:
        log.warning("%s: winnings cannot be attributed to pots consistently (unattributed winnings %s, "
                    "pot chips nobody won %d); the rest is paid from the main pot", hand_id, leftover, unpaid)
    return [{"kind": "award", "pot": p, "seat": s, "amount": a} for p, s, a in paid]


