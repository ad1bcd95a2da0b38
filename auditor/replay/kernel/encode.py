"""Canonical Arrow tables -> flat NumPy arrays the replay kernels read.

Why: a Numba kernel takes plain integer arrays, never Python objects. Every string column the replay
branches on (event kind, action verb, post kind, deal target, seat status, variant, structure) becomes a
small int code through one Arrow `index_in` per column; players become dictionary codes of the batch;
cards become evaluator codes (`auditor.replay.evaluate.parse_card`, -1 for "??"); list columns become
offsets + values taken from the Arrow list buffers. Nothing here walks the events one by one in Python.

Null integers become sentinels (`NULL` for int64, -1 for small codes), with the few masks the replay needs
to tell a null from a zero.

What the kernels index with is checked here, before any kernel runs: a variant the kernels do not know,
seats outside 1..`MAX_SEAT`, an event kind not listed, a card text that is not a card, or an event
without the seat, amount or pot its kind needs mark the hand `unsupported`, with the words of the first
such input in `reasons` (the canonical schema admits none of these). Such a hand is never handed to a
kernel: the orchestration reports it as a hand that could not be replayed and replays the rest.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.model.tables import CanonicalTables
from auditor.replay.evaluate import parse_card

#: the null of an int64 column in the kernels' arrays
NULL = np.iinfo(np.int64).min
#: seats are numbered 1..10 by the schema; the kernels' per-seat arrays are this wide (index = seat number)
MAX_SEAT = 10
WIDTH = MAX_SEAT + 1

KINDS = ("action", "post", "deal", "draw", "button", "show", "muck", "kill", "return", "award", "rake",
         "seat_request", "seat_fill", "seat_draw")
K_ACTION, K_POST, K_DEAL, K_DRAW, K_BUTTON, K_SHOW, K_MUCK, K_KILL, K_RETURN, K_AWARD, K_RAKE, \
    K_SEAT_REQUEST, K_SEAT_FILL, K_SEAT_DRAW = range(len(KINDS))
VERBS = ("fold", "check", "call", "bet", "raise")
V_FOLD, V_CHECK, V_CALL, V_BET, V_RAISE = range(len(VERBS))
POSTS = ("blind", "ante", "straddle", "dead", "missed")
P_BLIND, P_ANTE, P_STRADDLE, P_DEAD, P_MISSED = range(len(POSTS))
TARGETS = ("hole", "board", "burn")
T_HOLE, T_BOARD, T_BURN = range(len(TARGETS))
STATUSES = ("active", "sitting_out", "new", "away")
S_ACTIVE, S_SITTING_OUT, S_NEW, S_AWAY = range(len(STATUSES))
STRUCTURES = ("fixed-limit", "spread-limit", "pot-limit", "no-limit")
ST_FIXED, ST_SPREAD, ST_POT, ST_NO = range(len(STRUCTURES))


def codes(column: pa.ChunkedArray | pa.Array, values: tuple[str, ...], dtype=np.int8) -> np.ndarray:
    """A string column as indexes into `values` (-1 for a null or a value not listed)."""
    index = pc.index_in(column, value_set=pa.array(values, pa.string()))
    return pc.fill_null(index, -1).to_numpy(zero_copy_only=False).astype(dtype)


def byte_codes(column: pa.ChunkedArray | pa.Array, values: tuple[str, ...]) -> np.ndarray:
    """`codes` (int8), read from the column's own buffers by the columnar validator's compiled pass
    (`columnar_kernels.codes`) when this process has already run it (a Parquet or large JSON Lines run, whose
    validator screens the batch first), which costs about two thirds of `index_in` + `fill_null` on the event
    columns that are mostly null; else `codes`, so that a run whose reader never loads that pass (small files
    read hand by hand) neither imports, loads nor compiles it for the replay. The same codes either way."""
    kernels = sys.modules.get("auditor.ingest.columnar_kernels")  # not imported: certainly not run
    if kernels is None or not pa.types.is_string(column.type) or not getattr(kernels._codes_kernel, "signatures", ()):
        return codes(column, values)
    return np.maximum(kernels.codes(kernels.strings(column), values), -1).astype(np.int8)


def ints(column: pa.ChunkedArray | pa.Array, null: int = NULL, dtype=np.int64) -> np.ndarray:
    """An integer column as a writable NumPy array (the kernels are compiled for writable arrays), nulls as
    `null`: copied once, not again when Arrow's conversion already made a new array of that dtype. A narrow
    column whose type holds `null` is filled and joined in its own type and widened once at the end (three
    int64 copies of an int8 column of every event were a fifth of the encoding)."""
    kind = column.type
    if pa.types.is_integer(kind) and kind.bit_width < 64 and _fits(null, kind):
        narrow = column if not column.null_count else pc.fill_null(column, pa.scalar(null, kind))
        return narrow.to_numpy(zero_copy_only=False).astype(dtype)
    array = pc.fill_null(pc.cast(column, pa.int64()), null).to_numpy(zero_copy_only=False)
    return array if array.dtype == dtype and array.flags.writeable else array.astype(dtype)


def _fits(value: int, kind: pa.DataType) -> bool:
    """Whether the integer type `kind` can hold `value`."""
    info = np.iinfo(kind.to_pandas_dtype())
    return info.min <= value <= info.max


def bools(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """A boolean column as int8: 1 true, 0 false, -1 null."""
    as_int = pc.cast(column, pa.int8())
    return pc.fill_null(as_int, -1).to_numpy(zero_copy_only=False).astype(np.int8)


def lists(column: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Offsets (n + 1, int64) and the flattened values of a list column (a null list is empty).

    Read from the list's own offsets when no null list spans values (what Arrow and Parquet write: the format
    allows a null list to span some, which `list_flatten` leaves out, so such a column takes that path)."""
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if isinstance(array, pa.ListArray | pa.LargeListArray) and len(array):
        own = array.offsets.to_numpy(zero_copy_only=False).astype(np.int64)
        span = int(own[-1] - own[0])
        # the valid lists' lengths sum to the span exactly when the null lists span nothing (two passes in
        # Arrow's C over the offsets, instead of a NumPy mask of the nulls and a gather of their lengths)
        if not array.null_count or (pc.sum(pc.list_value_length(array)).as_py() or 0) == span:
            return own - own[0], array.values.slice(int(own[0]), span)
    lengths = pc.fill_null(pc.list_value_length(array), 0).to_numpy(zero_copy_only=False).astype(np.int64)
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets, pc.list_flatten(array)


def int_lists(column: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, np.ndarray]:
    offsets, values = lists(column)
    return offsets, ints(values, 0)


_CARD_CODES: dict[str, int] = {"??": -1}


def _two_byte_codes() -> np.ndarray:
    """Card code by the two bytes of a card text read as one little-endian uint16 (first | (second << 8)): -1 for
    "??", -2 for any other pair, which is not a card."""
    table = np.full(1 << 16, -2, np.int64)
    for rank in "23456789TJQKA":
        for suit in "cdhs":
            table[ord(rank) | (ord(suit) << 8)] = parse_card(rank + suit)
    table[ord("?") | (ord("?") << 8)] = -1
    return table


_TWO_BYTE_CODES = _two_byte_codes()


def _card_codes_fast(values: pa.Array) -> np.ndarray | None:
    """Codes of a column of two-byte texts without nulls, read from its bytes at once (`_TWO_BYTE_CODES`; -2 not a
    card); None for any other column, which the dictionary path handles."""
    if not pa.types.is_string(values.type) or values.null_count:
        return None
    _, offsets_buffer, data = values.buffers()
    offsets = np.frombuffer(offsets_buffer, np.int32, len(values) + 1, values.offset * 4)
    if data is None or offsets[-1] - offsets[0] != 2 * len(values) or (np.diff(offsets) != 2).any():
        return None
    return _TWO_BYTE_CODES[np.frombuffer(data, "<u2", len(values), int(offsets[0]))]  # one gather, no widening


def card_codes(values: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Card texts as evaluator codes (-1 for "??") and a flag per value that the text is not a card.

    Two-byte texts are read from the column's bytes (the usual case: every card of a valid log); otherwise the
    dictionary of distinct texts is parsed once (at most 53 in a valid log). A text `parse_card` refuses is
    flagged, and its hand is not replayed."""
    if len(values) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.bool_)
    fast = _card_codes_fast(values)
    if fast is not None:
        bad = fast == -2
        return np.where(bad, -1, fast), bad
    encoded = pc.dictionary_encode(values)
    dictionary = encoded.dictionary.to_pylist()
    table = np.empty(len(dictionary) + 1, np.int64)
    bad = np.zeros(len(dictionary) + 1, np.bool_)
    for i, text in enumerate(dictionary):
        code = _CARD_CODES.get(text)
        if code is None:
            try:
                code = parse_card(text)
                if text != "??" and not (len(text) == 2 and text[0] in "23456789TJQKA" and text[1] in "cdhs"):
                    raise ValueError(text)
                _CARD_CODES[text] = code
            except ValueError:
                code, bad[i] = -1, True
        table[i] = code
    table[-1], bad[-1] = -1, True  # a null card
    index = pc.fill_null(encoded.indices, len(dictionary)).to_numpy(zero_copy_only=False).astype(np.int64)
    return table[index], bad[index]


def _quoted(text: object) -> str:
    """Untrusted text for a failure's words: quoted (repr, so nothing in it reads as words of ours) and cut
    to 40 characters; a null as "null"."""
    if text is None:
        return "null"
    text = str(text)
    return repr(text if len(text) <= 40 else text[:40] + "...")


def _number(value: int, null: int) -> str:
    return "null" if value == null else str(int(value))


def _kinds_in(kind: np.ndarray, wanted: tuple[int, ...]) -> np.ndarray:
    """Per event, whether its kind code is one of `wanted` (a table look-up: `np.isin` sorts for a handful)."""
    bits = sum(1 << k for k in wanted)
    # one bit per kind in an int32 (14 kinds), shifted by the code; code -1 (not listed) is never wanted
    return ((np.right_shift(np.int32(bits), np.maximum(kind, 0).astype(np.int32)) & 1) == 1) & (kind >= 0)


def _value_rows(offsets: np.ndarray) -> np.ndarray:
    """The row of each value of a list column given by its offsets."""
    return np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))


def starts(hand_col: np.ndarray, n: int) -> np.ndarray:
    """Row offsets of each hand in a table sorted by hand."""
    return np.searchsorted(hand_col, np.arange(n + 1)).astype(np.int64)


@dataclass
class Encoded:
    """The batch as flat arrays (see the module docstring). Per hand, per seat row, per event."""

    n: int
    # hands
    variant: np.ndarray  # int8 index into `variant_names`
    variant_names: list[str]
    structure: np.ndarray
    chip_unit: np.ndarray
    max_seats: np.ndarray
    blinds_off: np.ndarray
    blinds: np.ndarray
    units_off: np.ndarray
    units: np.ndarray
    smin_off: np.ndarray
    smin: np.ndarray
    smax_off: np.ndarray
    smax: np.ndarray
    # seats
    seat_start: np.ndarray
    s_seat: np.ndarray
    s_player: np.ndarray  # code into `players`
    players: pa.Array
    s_stack: np.ndarray
    s_status: np.ndarray
    # events
    event_start: np.ndarray
    e_kind: np.ndarray
    e_seat: np.ndarray
    e_verb: np.ndarray
    e_post: np.ndarray
    e_blind: np.ndarray
    e_amount: np.ndarray
    e_target: np.ndarray
    e_pot: np.ndarray
    cards_off: np.ndarray
    cards: np.ndarray
    receive_off: np.ndarray
    receive: np.ndarray
    #: hands the kernels must not replay (see the module docstring)
    unsupported: np.ndarray
    #: hand row -> why it is unsupported (the first input found out of the kernels' range)
    reasons: dict[int, str]


def encode(tables: CanonicalTables) -> Encoded:
    """The batch's columns as arrays: one Arrow compute call per column, no Python per event."""
    H, S, E = tables.hands, tables.seats, tables.events
    n = H.num_rows
    variant_col = H.column("variant")
    variant_names = sorted(set(pc.unique(variant_col).to_pylist()) - {None})
    blinds_off, blinds = int_lists(H.column("blinds"))
    units_off, units = int_lists(H.column("bet_units"))
    smin_off, smin = int_lists(H.column("spread_min"))
    smax_off, smax = int_lists(H.column("spread_max"))

    s_hand = ints(S.column("hand"), -1)
    players_enc = pc.dictionary_encode(S.column("player").combine_chunks())
    s_seat = ints(S.column("seat"), -1)
    e_hand = ints(E.column("hand"), -1)
    e_seat = ints(E.column("seat"), -1)
    cards_off, cards_values = lists(E.column("cards"))
    receive_off, receive_values = lists(E.column("receive"))
    cards, cards_bad = card_codes(cards_values)
    receive, receive_bad = card_codes(receive_values)
    kind = codes(E.column("kind"), KINDS)

    from auditor.replay.variants import VARIANTS

    variant = codes(variant_col, tuple(name for name in variant_names if name in VARIANTS))
    variant_text = variant_col.to_numpy(zero_copy_only=False) if (variant < 0).any() else None
    variant_names = [name for name in variant_names if name in VARIANTS]
    e_blind = ints(E.column("blind"), -1)
    e_amount = ints(E.column("amount"), NULL)
    e_pot = ints(E.column("pot"), -1)
    needs_seat = _kinds_in(kind, (K_ACTION, K_POST, K_DRAW, K_BUTTON, K_SHOW, K_MUCK, K_KILL, K_RETURN, K_AWARD))
    needs_amount = _kinds_in(kind, (K_POST, K_RETURN, K_AWARD, K_RAKE))
    kind_text = E.column("kind")

    def kind_of(i: int) -> str:
        return _quoted(kind_text[i].as_py())

    # (rows out of range, the hand of each row, the words of row i): the first check a hand fails names it
    checks = (
        (variant < 0, np.arange(n), lambda i: f"variant {_quoted(variant_text[i])} is not one the kernels replay"),
        ((s_seat < 1) | (s_seat > MAX_SEAT), s_hand,
         lambda i: f"seat {_number(s_seat[i], -1)} is outside the kernel's 1-{MAX_SEAT}"),
        (kind == -1, e_hand, lambda i: f"event kind {kind_of(i)} is not one the kernel replays"),
        ((e_seat != -1) & ((e_seat < 1) | (e_seat > MAX_SEAT)), e_hand,
         lambda i: f"seat {e_seat[i]} is outside the kernel's 1-{MAX_SEAT}"),
        ((e_blind != -1) & (e_blind < 1), e_hand, lambda i: f"blind number {e_blind[i]} is below 1"),
        (needs_seat & (e_seat == -1), e_hand, lambda i: f"a {kind_of(i)} event names no seat"),
        (needs_amount & (e_amount == NULL), e_hand, lambda i: f"a {kind_of(i)} event states no amount"),
        ((kind == K_AWARD) & (e_pot == -1), e_hand, lambda i: "an award names no pot"),
        # a seat draw's cards too: the replay ranks them (`HouseRules.card_key`) for the highest card
        (cards_bad, lambda: e_hand[_value_rows(cards_off)],
         lambda i: f"card {_quoted(cards_values[i].as_py())} is not a card"),
        (receive_bad, lambda: e_hand[_value_rows(receive_off)],
         lambda i: f"card {_quoted(receive_values[i].as_py())} is not a card"),
    )
    unsupported = np.zeros(n, np.bool_)
    reasons: dict[int, str] = {}
    for bad, hand_of, words in checks:
        if not bad.any():  # the usual case: no row of the batch fails this check
            continue
        hand_of = hand_of() if callable(hand_of) else hand_of
        rows = np.flatnonzero(bad & (hand_of >= 0) & (hand_of < n))
        if not len(rows):
            continue
        hands, first = np.unique(hand_of[rows], return_index=True)  # the first bad row of each hand
        for h, i in zip(hands.tolist(), rows[first].tolist(), strict=True):  # refused hands only
            reasons.setdefault(h, words(i))
        unsupported[hands] = True
    # a refused hand reads variant 0 (never an index past the variant table); no kernel replays it
    variant = np.where(variant < 0, 0, variant).astype(np.int8)

    return Encoded(
        n=n,
        variant=variant,
        variant_names=variant_names,
        structure=codes(H.column("structure"), STRUCTURES),
        chip_unit=ints(H.column("chip_unit"), 0),
        max_seats=ints(H.column("max_seats"), 0),
        blinds_off=blinds_off, blinds=blinds, units_off=units_off, units=units,
        smin_off=smin_off, smin=smin, smax_off=smax_off, smax=smax,
        seat_start=starts(s_hand, n),
        s_seat=s_seat,
        s_player=pc.fill_null(players_enc.indices, -1).to_numpy(zero_copy_only=False).astype(np.int64),
        players=players_enc.dictionary,
        s_stack=ints(S.column("stack"), 0),
        s_status=codes(S.column("status"), STATUSES),
        event_start=starts(e_hand, n),
        e_kind=kind,
        e_seat=e_seat,
        e_verb=byte_codes(E.column("action"), VERBS),
        e_post=byte_codes(E.column("post"), POSTS),
        e_blind=e_blind,
        e_amount=e_amount,
        e_target=byte_codes(E.column("target"), TARGETS),
        e_pot=e_pot,
        cards_off=cards_off, cards=cards, receive_off=receive_off, receive=receive,
        unsupported=unsupported,
        reasons=reasons,
    )


#: most betting rounds a variant has (the width of `variant_table`'s per-round columns)
BOARD_MAX_ROUNDS = 8


def variant_table(names: list[str]) -> tuple[np.ndarray, ...]:
    """The variants of the batch as rows of arrays (variants are data): hole cards, rounds, board cards
    before each round, draw before each round, most cards drawn, board cards in all."""
    from auditor.replay.variants import VARIANTS

    k = max(len(names), 1)
    hole = np.zeros(k, np.int64)
    rounds = np.zeros(k, np.int64)
    schedule = np.zeros((k, BOARD_MAX_ROUNDS), np.int64)
    draw_before = np.zeros((k, BOARD_MAX_ROUNDS), np.bool_)
    max_draw = np.zeros(k, np.int64)
    board_cards = np.zeros(k, np.int64)
    for i, name in enumerate(names):
        v = VARIANTS[name]
        hole[i], rounds[i], max_draw[i], board_cards[i] = v.hole_cards, v.rounds, v.max_draw, v.board_cards
        schedule[i, :v.rounds] = v.board_schedule
        draw_before[i, :v.rounds] = v.draw_before
    return hole, rounds, schedule, draw_before, max_draw, board_cards
