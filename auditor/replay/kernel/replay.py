"""Orchestration of the kernel engine: encode the batch, run the kernels, build the facts tables.

`replay(tables, houses, state)` is the one replay engine (the Python engine it was shown identical
to on sample_logs, every rule example, the corpus and 1,000,000 simulated hands is deleted; the golden
snapshots in tests/snapshots/facts and the independent simulator oracle `auditor.simulate.play`, through
`auditor verify`, now hold it to what it was). Facts columns are built from
the kernels' arrays with vectorised `take` on the Arrow columns (strings decoded from codes, nulls from
sentinels), never a Python loop per row.

Status: every facts table comes from the kernels. Actions, rounds and
draws from the per-hand kernel (`hand.replay_hands`); hands and seats from it and the cross-hand kernel
(`table.cross_hands`), which also carries `TableState` and decides the failures; blinds, pots and showdowns
from the end-of-hand kernels (`blinds.blind_facts`, `pots.pot_facts`, `showdown.showdown_facts`) fed with
the per-hand end state. Python finishes only the hands that need words or events no kernel handles
(duplicate cards, players in two seats or two players in a seat, seat requests/fills/draws: a mask, never
a loop over every hand) and converts the state once per table of the batch.

A hand the encoder, the per-hand kernel (`overflow`) or an end-of-hand kernel (`invalid`) finds outside
what the kernels accept (a seat outside 1-10, a text that is not a card, more cards than the scratch space,
...: mostly nothing the canonical schema admits) is not replayed: it comes back in the failures with words
naming what is out of range, like the one schema-valid failure the cross-hand kernel finds, and breaks its
table's chain the same way. The rest of the batch replays as if it were not there.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from auditor.model.tables import CanonicalTables
from auditor.replay.fact_frames import Facts, frame_of, list_column
from auditor.replay.facts import BOOL, FACT_COLUMNS, INT, LIST_INT, LIST_STR, STR
from auditor.replay.house import HouseRules
from auditor.replay.kernel import buffers
from auditor.replay.kernel.encode import NULL, VERBS, Encoded, encode, variant_table
from auditor.replay.kernel.hand import FLUSH_ROWS, HOLE_CAP, N_A, N_R, named, replay_hands
from auditor.replay.kernel.table import cross_hands
from auditor.replay.kernel.table import named as named_cross
from auditor.replay.state import TableState, walk


def _int(values: np.ndarray, null: int = NULL) -> pd.arrays.IntegerArray:
    """A kernel's int column as a nullable column, `null` marking nulls. The values are taken as they are when
    none is null (usually none is: a copy would be a pass over the column for nothing); `fact_frames.frame_of` copies
    any that overlap another column or cannot be written."""
    values = np.asarray(values, dtype=np.int64)
    mask = values == null
    return pd.arrays.IntegerArray(np.where(mask, 0, values) if mask.any() else values, mask)


def _bool(values: np.ndarray) -> pd.arrays.BooleanArray:
    """A kernel's bool column (taken as it is, like `_int`), or an int8 one with -1 for null."""
    values = np.asarray(values)
    if values.dtype == np.bool_:
        return pd.arrays.BooleanArray(values, np.zeros(len(values), np.bool_))
    return pd.arrays.BooleanArray(values == 1, values < 0)


def _str(values: pa.Array | pa.ChunkedArray) -> pd.api.extensions.ExtensionArray:
    """An Arrow string column as the facts' "string" dtype: zero copy when pandas keeps strings in Arrow (as
    pandas 3 does by default), else through Python objects."""
    if pd.StringDtype().storage == "pyarrow":
        chunked = values if isinstance(values, pa.ChunkedArray) else pa.chunked_array([values], values.type)
        return pd.arrays.ArrowStringArray(chunked.cast(pa.large_string()))
    return pd.array(values.to_numpy(zero_copy_only=False), dtype=STR)


def _texts(values: np.ndarray) -> pd.api.extensions.ExtensionArray:
    """Python strings or None (an object array) as the facts' "string" dtype; a column that is all null or all
    empty (the usual words of a clean batch: no duplicate, no conflict) is made in Arrow without reading each."""
    if not len(values) or (values[0] is None and (values == None).all()):  # noqa: E711 - elementwise
        return _str(pa.nulls(len(values), pa.string()))
    if values[0] == "" and (values == "").all():
        return _str(pa.repeat(pa.scalar("", pa.string()), len(values)))
    return pd.array(values, dtype=STR)


def _players(enc: Encoded, code: np.ndarray) -> pd.api.extensions.ExtensionArray:
    """Player names from batch dictionary codes (-1: null)."""
    index = pa.array(code, pa.int64(), mask=code < 0)
    return _str(pc.take(enc.players, index))


def _arrow_int(column: pa.ChunkedArray, rows: np.ndarray) -> pd.arrays.IntegerArray:
    taken = pc.take(column, pa.array(rows, pa.int64()))
    values = pc.fill_null(pc.cast(taken, pa.int64()), 0).to_numpy(zero_copy_only=False)
    mask = taken.is_null().to_numpy(zero_copy_only=False)
    return pd.arrays.IntegerArray(values.astype(np.int64), mask)


def _arrow_bool(column: pa.ChunkedArray, rows: np.ndarray) -> pd.arrays.BooleanArray:
    taken = pc.take(column, pa.array(rows, pa.int64()))
    values = pc.fill_null(taken, False).to_numpy(zero_copy_only=False)
    mask = taken.is_null().to_numpy(zero_copy_only=False)
    return pd.arrays.BooleanArray(values.astype(np.bool_), mask)


_DTYPE_NAMES = {INT: "Int64", BOOL: "boolean", STR: "string", LIST_INT: LIST_INT, LIST_STR: LIST_STR}


def _frame(name: str, columns: dict) -> pd.DataFrame:
    """A facts table in `FACT_COLUMNS` order and dtypes (a missing column is a bug: KeyError). Dtypes are
    checked on the arrays given (a frame keeps an extension array's dtype), not by making a Series of each
    column; the frame takes the arrays without copying them (`fact_frames.frame_of`)."""
    ordered = {}
    for col, dtype, _ in FACT_COLUMNS[name]:
        array = columns[col]
        assert str(getattr(array, "dtype", None)) == _DTYPE_NAMES[dtype], (name, col)
        ordered[col] = array
    return frame_of(ordered)


def run_kernel(tables: CanonicalTables, houses: Sequence[HouseRules], order: np.ndarray, enc: Encoded):
    """Run the per-hand kernel over the batch in `order`."""
    v_hole, v_rounds, v_schedule, v_draw_before, v_max_draw, v_board_cards = variant_table(enc.variant_names)
    fraction = np.zeros(enc.n, np.float64)
    for house, _, rows in house_groups(houses):
        fraction[rows] = house.limit_reopen_fraction
    from auditor.replay.kernel.encode import K_ACTION, K_AWARD, K_DEAL, K_DRAW, K_POST, K_RAKE

    count = np.bincount(enc.e_kind[enc.e_kind >= 0].astype(np.int64), minlength=16)
    kind = enc.e_kind
    stage_actions = FLUSH_ROWS + _most_in_a_hand(kind == K_ACTION, enc.event_start)
    stage_rounds = FLUSH_ROWS + _most_in_a_hand((kind == K_DEAL) | (kind == K_DRAW), enc.event_start) + 1
    caps = np.array([count[K_ACTION], count[K_DEAL] + count[K_DRAW] + enc.n, count[K_DRAW], count[K_POST],
                     count[K_AWARD], count[K_RAKE], stage_actions, stage_rounds], np.int64)
    actions = buffers.TABLES.table("actions", N_A, int(caps[0]))
    rounds = buffers.TABLES.table("rounds", N_R, int(caps[1]))
    return replay_hands(
        order, caps, actions, rounds,
        enc.variant, enc.structure, enc.blinds_off, enc.blinds, enc.units_off, enc.units, enc.smin_off, enc.smin,
        enc.smax_off, enc.smax,
        enc.seat_start, enc.s_seat, enc.s_player, enc.s_stack, enc.s_status,
        enc.event_start, enc.e_kind, enc.e_seat, enc.e_verb, enc.e_post, enc.e_blind, enc.e_amount, enc.e_target,
        enc.e_pot, enc.cards_off, enc.cards, enc.receive_off, enc.receive,
        v_hole, v_rounds, v_schedule, v_draw_before, v_max_draw, v_board_cards, fraction)


def _most_in_a_hand(events: np.ndarray, event_start: np.ndarray) -> int:
    """The most events flagged in `events` that one hand has (`event_start`: each hand's first event, and the
    end): what one hand can add to the kernel's row stages at most."""
    before = np.concatenate(([0], np.cumsum(events, dtype=np.int64)))
    per_hand = before[event_start[1:]] - before[event_start[:-1]]
    return int(per_hand.max()) if len(per_hand) else 0


def _kept(hand: np.ndarray, keep: np.ndarray) -> np.ndarray | None:
    """The rows of `keep` hands, or None when that is every row (a clean batch: columns are then taken as the
    kernel wrote them, without a gather)."""
    kept = keep[hand]
    return None if kept.all() else np.flatnonzero(kept)


#: the verbs as `encode.VERBS` numbers them
_VERB_TEXT = pa.array(VERBS, pa.string())


def _verbs(events: pa.Table, enc: Encoded, event: np.ndarray) -> pd.api.extensions.ExtensionArray:
    """The log's verb of each action event: from its code when every one is a verb the encoder knows (the
    same text, without a take over the event column's chunks), else the text itself."""
    verb = enc.e_verb[event].astype(np.int64)
    if len(verb) and verb.min() >= 0:
        return _str(pc.take(_VERB_TEXT, pa.array(verb)))
    return _str(pc.take(events.column("action"), event))


def _actions(tables: CanonicalTables, enc: Encoded, a: dict[str, np.ndarray], keep: np.ndarray) -> pd.DataFrame:
    rows = _kept(a["hand"], keep)

    def col(name: str) -> np.ndarray:
        return a[name] if rows is None else a[name][rows]

    events = tables.events
    event = col("event")
    hand = col("hand")
    return _frame("actions", {
        "hand": _int(hand), "seq": _int(event - enc.event_start[hand]), "street": _int(col("street")),
        "round": _int(col("street") + 1), "seat": _int(col("seat")), "player": _players(enc, col("player")),
        "expected_seat": _int(col("expected"), -1), "action": _verbs(events, enc, event),
        "amount": _int(col("added")), "to": _arrow_int(events.column("to"), event), "made": _int(col("made")),
        "all_in": _bool(col("all_in")), "all_in_declared": _arrow_bool(events.column("all_in"), event),
        "current_bet": _int(col("current_bet")), "amount_to_call": _int(col("owed")),
        "min_raise_increment": _int(col("largest")), "raise_increment": _int(col("increment")),
        "is_bet": _bool(col("is_bet")), "is_raise": _bool(col("is_raise")), "full_raise": _bool(col("full")),
        "raises_before": _int(col("raises_before")), "raise_number": _int(col("raise_number")),
        "live_players": _int(col("live")), "active_players": _int(col("active")),
        "heads_up": _bool(col("active") == 2), "heads_up_round_start": _bool(col("hu_start")),
        "pot_before": _int(col("pot_before")), "pot_limit_max": _int(col("pot_limit_max")),
        "bet_unit": _int(col("bet_unit")), "spread_min": _int(col("smin")), "spread_max": _int(col("smax")),
        "stack_before": _int(col("stack_before")), "actor_folded": _bool(col("actor_folded")),
        "actor_all_in": _bool(col("actor_all_in")), "open_after_full_raise": _bool(col("open_full")),
        "open_after_cumulative_raise": _bool(col("open_cumulative")),
        "min_bet": _int(col("min_bet")), "amount_to_call_in_full": _int(col("owed_full")),
    })


#: a round's closed_by by its kernel flag `end` (0, 1)
_CLOSED_BY = pa.array(["next round", "end of hand"], pa.string())


def _rounds(enc: Encoded, r: dict[str, np.ndarray], keep: np.ndarray) -> pd.DataFrame:
    rows = _kept(r["hand"], keep)

    def col(name: str) -> np.ndarray:
        return r[name] if rows is None else r[name][rows]

    closed = pc.take(_CLOSED_BY, pa.array(col("end").astype(np.int64)))
    return _frame("rounds", {
        "hand": _int(col("hand")), "seq": _int(col("seq"), -1), "close_seq": _int(col("close_seq"), -1),
        "street": _int(col("street")), "round": _int(col("street") + 1), "board_cards": _int(col("board_cards")),
        "board_expected": _int(col("board_expected")), "burns": _int(col("burns")),
        "burns_expected": _int(col("burns_expected")), "live_at_deal": _int(col("live_at_deal")),
        "live_players": _int(col("live")), "able_players": _int(col("able")),
        "pending_seat": _int(col("pending"), -1), "pending_player": _players(enc, col("pending_player")),
        "closed_by": _str(closed),
        "uncalled_seat": _int(col("uncalled"), -1), "uncalled_player": _players(enc, col("uncalled_player")),
        "uncalled_expected": _int(col("uncalled_expected")), "returned": _int(col("returned")),
        "returned_net": _int(col("returned_net")), "actions": _int(col("actions")),
        "draw_round": _bool(col("draw_round")), "hand_chip_balance": _int(col("balance")),
    })


def _draws(enc: Encoded, d: dict[str, np.ndarray], keep: np.ndarray, max_draw: np.ndarray) -> pd.DataFrame:
    rows = _kept(d["hand"], keep)

    def col(name: str) -> np.ndarray:
        return d[name] if rows is None else d[name][rows]

    hand = col("hand")
    return _frame("draws", {
        "hand": _int(hand), "seq": _int(col("event") - enc.event_start[hand]), "seat": _int(col("seat")),
        "player": _players(enc, col("player")), "expected_seat": _int(col("expected"), -1),
        "discards": _int(col("discards")), "receives": _int(col("receives")),
        "max_draw": _int(max_draw[enc.variant[hand]]), "actor_folded": _bool(col("folded")),
    })


def _seat_lists(mask: np.ndarray, rows: np.ndarray, null: np.ndarray | None = None
                ) -> pd.api.extensions.ExtensionArray:
    """Per row of `rows`, the seats (columns) set in `mask`, in seat order, as a list column ([1, 3]; `null`
    marks rows not known): offsets and values from `np.nonzero`, no Python per row."""
    sub = mask[rows]
    _, hit_seat = np.nonzero(sub)
    offsets = np.zeros(len(rows) + 1, np.int64)
    np.cumsum(sub.sum(axis=1), out=offsets[1:])
    return list_column(offsets, hit_seat.astype(np.int64), null)


def _codes_text(vocab: pa.Array, code: np.ndarray) -> pa.Array:
    return pc.take(vocab, pa.array(code, pa.int64(), mask=code < 0))


class _Vocab:
    """A batch dictionary (Arrow strings) extended with names only the carried state knows."""

    def __init__(self, base: pa.Array):
        self.base = base
        self.extra: dict[str, int] = {}
        self._all: tuple[int, pa.Array] | None = None

    def codes(self, names: list) -> list[int]:
        """Codes of `names` (None -> -1), extending the vocabulary with names the batch does not have."""
        if not names:
            return []
        index = pc.index_in(pa.array(names, pa.string()), value_set=self.base).to_pylist()
        out = []
        for name, i in zip(names, index, strict=True):
            if name is None:
                out.append(-1)
            elif i is not None:
                out.append(i)
            else:
                out.append(self.extra.setdefault(name, len(self.base) + len(self.extra)))
        return out

    @property
    def size(self) -> int:
        return len(self.base) + len(self.extra)

    def all(self) -> pa.Array:
        """Every name, by code (made once for as long as no name is added: several tables read it)."""
        if self._all is None or self._all[0] != len(self.extra):
            self._all = (len(self.extra), pa.concat_arrays([self.base.cast(pa.string()),
                                                            pa.array(list(self.extra), pa.string())]))
        return self._all[1]


def _groups(tables: CanonicalTables, order: np.ndarray, table_of: np.ndarray | None = None
            ) -> tuple[np.ndarray, list[str]]:
    """Per walk position the table it belongs to (tables are contiguous in `replay_order`), and each
    table's key (`state.table_key`). With `table_of` (`state.walk`'s table numbers, which the walk takes in
    order), only each table's first row is keyed: the same numbering as keying every row (two tables whose
    keys coincide share a number either way)."""
    H = tables.hands
    if table_of is not None:
        along = table_of[order]
        starts = np.flatnonzero(np.r_[True, along[1:] != along[:-1]]) if len(order) else np.zeros(0, np.int64)
        index = pa.array(order[starts], pa.int64())
        key = pc.binary_join_element_wise(pc.cast(pc.take(H.column("file"), index), pa.string()),
                                          pc.cast(pc.take(H.column("table_id"), index), pa.string()), "\x00")
        codes_, uniques = pd.factorize(np.asarray(key.to_numpy(zero_copy_only=False), dtype=object))
        return codes_.astype(np.int64)[np.cumsum(np.r_[False, along[1:] != along[:-1]])], list(uniques)
    key = pc.binary_join_element_wise(pc.cast(H.column("file"), pa.string()),
                                      pc.cast(H.column("table_id"), pa.string()), "\x00")
    codes_, uniques = pd.factorize(np.asarray(key.to_numpy(zero_copy_only=False), dtype=object)[order])
    # factorize numbers in order of first appearance: contiguous tables get 0, 1, 2, ... along the walk
    return codes_.astype(np.int64), list(uniques)


def _forget_before(state: TableState, tables: CanonicalTables, order: np.ndarray, group: np.ndarray,
                   keys: list[str]) -> np.ndarray:
    """The hands before which a quarantined hand of the table lies (`TableState.pass_breaks`, called in
    walk order for the tables with pending breaks only, which also consumes those breaks)."""
    forget = np.zeros(len(order), np.bool_)
    if not state.breaks:
        return forget
    lines = tables.hands.column("line").to_numpy(zero_copy_only=False)
    for g, key in enumerate(keys):
        if key not in state.breaks:
            continue
        for w in np.flatnonzero(group == g):
            line = lines[order[w]]
            if state.breaks and state.pass_breaks(key, None if pd.isna(line) else int(line)):
                forget[w] = True
    return forget


_HEIRS = {"small-blind": 1, "big-blind": 2}


def house_groups(houses: Sequence[HouseRules], key: np.ndarray | None = None
                 ) -> list[tuple[HouseRules, int, np.ndarray]]:
    """The hands grouped by HouseRules object (usually one or a few per batch), and by `key` too if given:
    [(house, key value, hand rows)]. Objects are told apart by identity (a HouseRules is not hashable),
    found with one `map(id)` over the batch, not a Python loop per hand."""
    if not len(houses):
        return []
    first, inverse = _house_index(houses)
    sub = np.zeros(len(houses), np.int64) if key is None else np.asarray(key, np.int64)
    combined = inverse * (int(sub.max(initial=0)) + 1) + sub
    values, rows_of = np.unique(combined, return_inverse=True)
    rows_of = rows_of.reshape(-1)
    sort = np.argsort(rows_of, kind="stable")
    bounds = np.searchsorted(rows_of[sort], np.arange(len(values) + 1))
    out = []
    for k in range(len(values)):
        rows = sort[bounds[k]:bounds[k + 1]]
        out.append((houses[int(first[inverse[rows[0]]])], int(sub[rows[0]]), rows))
    return out


#: (houses, first, inverse) of the batch being replayed (`_house_index`); emptied when its replay ends
_HOUSE_INDEX: list = []


def _house_index(houses: Sequence[HouseRules]) -> tuple[np.ndarray, np.ndarray]:
    """Per hand, the number of its HouseRules object (by identity) and each number's first hand. Worked out
    once per replay (several stages group by house); the sequence is held while cached, so its id cannot be
    another's, and the cache is emptied when the replay ends."""
    if _HOUSE_INDEX and _HOUSE_INDEX[0] is houses and len(_HOUSE_INDEX[2]) == len(houses):
        return _HOUSE_INDEX[1], _HOUSE_INDEX[2]
    ids = np.fromiter(map(id, houses), np.int64, len(houses))
    _, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1).astype(np.int64)
    _HOUSE_INDEX[:] = [houses, first, inverse]
    return first, inverse


def _heir_order(houses: Sequence[HouseRules], n: int) -> np.ndarray:
    """The pack's `button_heir` per hand as blind numbers (small-blind 1, big-blind 2, 0 unused), (n, 2);
    one assignment per distinct HouseRules object."""
    heir = np.zeros((n, 2), np.int64)
    for house, _, rows in house_groups(houses):
        for k, which in enumerate(getattr(house, "button_heir", ())[:2]):
            heir[rows, k] = _HEIRS[which]
    return heir


def _cross_hand(tables: CanonicalTables, houses: Sequence[HouseRules], state: TableState, enc: Encoded,
                order: np.ndarray, hand_out: dict[str, np.ndarray], seat_out: dict[str, np.ndarray],
                failed: np.ndarray, table_of: np.ndarray | None = None):
    """Run the cross-hand kernel with the state of the batch's tables as arrays; store the state back.

    `failed` hands (refused before this kernel) are left out of its walk; each breaks its table's chain as
    a failure does (the table's next hand is judged like a first, and a table whose last hand of the batch
    failed is forgotten). `table_of`: each row's table number from `state.walk`, if the caller has it."""
    H = tables.hands
    n = enc.n
    full_group, keys = _groups(tables, order, table_of)
    refused = failed[order]
    broken = _forget_before(state, tables, order, full_group, keys) | refused
    order, group, forget = _walk_without(order, full_group, broken, refused)
    players = _Vocab(enc.players.cast(pa.string()))
    ids_enc = pc.dictionary_encode(H.column("hand_id").combine_chunks())
    hand_ids = _Vocab(ids_enc.dictionary.cast(pa.string()))
    hand_code = pc.fill_null(ids_enc.indices, 0).to_numpy(zero_copy_only=False).astype(np.int64)
    G = len(keys)
    g_has_button = np.zeros(G, np.bool_)
    g_button = np.full(G, -1, np.int64)
    g_has_bb = np.zeros(G, np.bool_)
    g_bb = np.full(G, -1, np.int64)
    g_has_heir = np.zeros(G, np.bool_)
    g_heir = np.full(G, -1, np.int64)
    g_has_sb = np.zeros(G, np.bool_)
    g_sb_kind = np.zeros(G, np.int8)
    g_sb_player = np.full(G, -1, np.int64)
    g_sb_missed = np.zeros(G, np.bool_)
    g_sb_on_button = np.full(G, -1, np.int8)
    g_has_est = np.zeros(G, np.bool_)
    g_has_last = np.zeros(G, np.bool_)
    g_last = np.full(G, -1, np.int64)
    est_off, est_at, owed_off, owed_at, owed_sb_at, owed_bb_at = [0], [], [0], [], [], []
    # names are coded in two calls, one per vocabulary, in the order the tables list them (the order a name
    # the batch does not know gets its code in); a call per name hashed the whole vocabulary each time
    p_names: list = []
    i_names: list = []
    bb_at, heir_at, sb_at, last_at = (np.full(G, -1, np.int64) for _ in range(4))

    def player_at(name: str | None) -> int:
        p_names.append(name)
        return len(p_names) - 1

    def id_at(name: str | None) -> int:
        i_names.append(name)
        return len(i_names) - 1

    last_small = getattr(state, "last_small_blind", {})
    for g, key in enumerate(keys):  # once per table of the batch
        if key in state.last_button:
            g_has_button[g] = True
            g_button[g] = -1 if state.last_button[key] is None else state.last_button[key]
        if key in state.last_big_blind:
            g_has_bb[g], bb_at[g] = True, player_at(state.last_big_blind[key])
        if key in state.button_heir:
            g_has_heir[g], heir_at[g] = True, player_at(state.button_heir[key])
        if key in last_small:
            g_has_sb[g] = True
            value = last_small[key]
            if value is not None:
                g_sb_kind[g] = 1
                sb_at[g] = player_at(value[0])
                g_sb_missed[g] = bool(value[1])
                g_sb_on_button[g] = -1 if value[2] is None else int(bool(value[2]))
        if key in state.established:
            g_has_est[g] = True
            est_at += [player_at(name) for name in sorted(state.established[key])]
        est_off.append(len(est_at))
        if key in state.last_hand:
            g_has_last[g], last_at[g] = True, id_at(state.last_hand[key])
            for name, missed in (state.owed.get(key) or {}).items():
                if missed:
                    owed_at.append(player_at(name))
                    owed_sb_at.append(id_at(missed["sb"]) if "sb" in missed else -1)
                    owed_bb_at.append(id_at(missed["bb"]) if "bb" in missed else -1)
        owed_off.append(len(owed_at))
    p_code = np.array([*players.codes(p_names), -1], np.int64)  # position -1 (nothing asked): code -1
    i_code = np.array([*hand_ids.codes(i_names), -1], np.int64)
    g_bb[g_has_bb] = p_code[bb_at[g_has_bb]]
    g_heir[g_has_heir] = p_code[heir_at[g_has_heir]]
    g_sb_player[:] = np.where(sb_at >= 0, p_code[sb_at], g_sb_player)
    g_last[g_has_last] = i_code[last_at[g_has_last]]
    est_codes = p_code[np.array(est_at, np.int64)].tolist()
    owed_p = p_code[np.array(owed_at, np.int64)].tolist()
    owed_sb = i_code[np.array(owed_sb_at, np.int64)].tolist()
    owed_bb = i_code[np.array(owed_bb_at, np.int64)].tolist()
    # hand ids seen: a TableState that no longer remembers them (the run-wide ledger judges ids) has none
    seen_ids = getattr(state, "seen_hand_ids", None)
    remembers = seen_ids is not None and type(seen_ids).add is set.add
    # the batch's ids as Python text only where an id is looked up: a state that remembers ids, a duplicate
    batch_ids = ids_enc.dictionary.to_pylist() if seen_ids is not None else None
    seen = np.zeros(hand_ids.size, np.bool_)
    if seen_ids is not None:
        seen[:len(batch_ids)] = np.fromiter((x in seen_ids for x in batch_ids), np.bool_, len(batch_ids))
    nbl = np.diff(enc.blinds_off)
    has2 = nbl >= 2
    sb_amount = np.where(has2, enc.blinds[np.minimum(enc.blinds_off[:-1], max(len(enc.blinds) - 1, 0))]
                         if len(enc.blinds) else 0, 0)
    bb_amount = np.where(has2, enc.blinds[np.maximum(enc.blinds_off[1:] - 1, 0)] if len(enc.blinds) else 0, 0)
    heir_list = _heir_order(houses, n)
    ho, so = hand_out, seat_out
    out = named_cross(cross_hands(
                      order, group, forget, hand_code, nbl, sb_amount.astype(np.int64), bb_amount.astype(np.int64),
                      heir_list, ho["button"], ho["sb_seat"], ho["b2_seat"], ho["bbl_seat"], so["seated"],
                      so["player"], so["status"], so["dealt"], so["dealt_order"], so["live_posts"], so["dead_posts"], G,
                      g_has_button, g_button, g_has_bb, g_bb, g_has_heir, g_heir, g_has_sb, g_sb_kind, g_sb_player,
                      g_sb_missed, g_sb_on_button, g_has_est,
                      np.array(est_off, np.int64), np.array(est_codes, np.int64), g_has_last, g_last,
                      np.array(owed_off, np.int64), np.array(owed_p, np.int64), np.array(owed_sb, np.int64),
                      np.array(owed_bb, np.int64), players.size, seen, remembers))
    fail_seat = out["hand"]["fail_seat"]
    first_walk = out["hand"]["first_walk"]
    failures = [(int(order[w]), f"replay failed: KeyError: {int(fail_seat[order[w]])}")
                for w in np.flatnonzero(fail_seat[order] >= 0)]
    walk_len = len(order)
    # duplicate_of: the first use the state knew, else the batch's first successful hand with the id
    dup_of = np.full(n, None, dtype=object)
    duplicate = out["hand"]["duplicate"]
    if duplicate.any():
        batch_ids = ids_enc.dictionary.to_pylist() if batch_ids is None else batch_ids
        files = H.column("file").to_pylist()
        lines = H.column("line").to_pylist()
        walk_of = np.full(n, -1, np.int64)
        walk_of[order] = np.arange(walk_len)
        for h in np.flatnonzero(duplicate):
            hid = batch_ids[hand_code[h]]
            if hid in getattr(state, "first_use", {}):
                dup_of[h] = state.first_use[hid]
            else:
                w0 = first_walk[hand_code[h]]
                if remembers and 0 <= w0 < walk_of[h]:
                    dup_of[h] = f"{files[order[w0]]}:{lines[order[w0]]}"
    _store_state(state, keys, out["final"], players, hand_ids, H, order, fail_seat, hand_code, batch_ids, remembers,
                 first_walk)
    # a table whose last hand of the batch was refused before the kernel: forgotten, as after any failure
    last = np.flatnonzero(np.r_[full_group[1:] != full_group[:-1], True])
    for w in last[refused[last]]:
        state.forget(keys[full_group[w]])
    return out, failures, dup_of, players, hand_ids


def _walk_without(order: np.ndarray, group: np.ndarray, broken: np.ndarray, refused: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The walk `order` without its `refused` positions, the group of each kept position, and per kept
    position whether the table's chain broke since the table's previous kept hand.

    `broken` is per walk position: a pending quarantine break passed there, or the hand there is refused
    (both forget the table). Tables are contiguous in the walk, so "broke since the previous kept hand of
    the table" is a difference of running counts, no loop."""
    m = len(order)
    positions = np.arange(m)
    table_start = np.maximum.accumulate(np.where(np.r_[True, group[1:] != group[:-1]], positions, 0)) \
        if m else positions
    kept = np.flatnonzero(~refused)
    previous = np.r_[-1, kept[:-1]].astype(np.int64)
    since = np.where(previous >= table_start[kept], previous, table_start[kept] - 1)  # exclusive lower bound
    count = np.r_[0, np.cumsum(broken)]
    return order[kept], group[kept], (count[kept + 1] - count[since + 1]) > 0


def _store_state(state: TableState, keys: list[str], final: dict[str, np.ndarray], players: _Vocab,
                 hand_ids: _Vocab, H: pa.Table,
                 order: np.ndarray, fail_seat: np.ndarray, hand_code: np.ndarray, batch_ids: list | None,
                 remembers: bool, first_walk: np.ndarray) -> None:
    """The state after the batch, back into `TableState`'s dicts: once per table and per distinct hand id."""
    f = final
    f_touched, f_has, f_button, f_bb, f_heir = f["touched"], f["has"], f["button"], f["bb"], f["heir"]
    f_sb_kind, f_sb_player, f_sb_missed, f_sb_on_button = f["sb_kind"], f["sb_player"], f["sb_missed"], \
        f["sb_on_button"]
    f_last, f_est_off, f_est, f_owed_off = f["last"], f["est_off"], f["est"], f["owed_off"]
    f_owed_player, f_owed_sb, f_owed_bb = f["owed_player"], f["owed_sb"], f["owed_bb"]
    names = players.all().to_pylist()
    ids = _ids_of(hand_ids, np.concatenate([f_last[(f_touched != 0) & (f_has != 0)], f_owed_sb, f_owed_bb]))

    def name(code: int) -> str | None:
        return None if code < 0 else names[code]

    has_small = hasattr(state, "last_small_blind")
    for g, key in enumerate(keys):
        if not f_touched[g]:
            continue
        if not f_has[g]:
            state.forget(key)
            continue
        state.last_button[key] = None if f_button[g] < 0 else int(f_button[g])
        state.last_big_blind[key] = name(f_bb[g])
        state.button_heir[key] = name(f_heir[g])
        if has_small:
            state.last_small_blind[key] = None if f_sb_kind[g] == 0 else (
                name(f_sb_player[g]), bool(f_sb_missed[g]), None if f_sb_on_button[g] < 0 else bool(f_sb_on_button[g]))
        state.established[key] = {names[c] for c in f_est[f_est_off[g]:f_est_off[g + 1]]}
        owed: dict[str, dict[str, str]] = {}
        for k in range(f_owed_off[g], f_owed_off[g + 1]):
            entry = owed.setdefault(names[f_owed_player[k]], {})
            if f_owed_sb[k] >= 0:
                entry["sb"] = ids[f_owed_sb[k]]
            if f_owed_bb[k] >= 0:
                entry["bb"] = ids[f_owed_bb[k]]
        state.owed[key] = owed
        state.last_hand[key] = ids[f_last[g]]
    if getattr(state, "seen_hand_ids", None) is None:
        return
    batch_ids = hand_ids.base.to_pylist() if batch_ids is None else batch_ids
    ok = fail_seat[order] < 0
    files = H.column("file").to_pylist()
    lines = H.column("line").to_pylist()
    seen = state.seen_hand_ids
    if remembers:
        seen.update(batch_ids[c] for c in np.unique(hand_code[order[ok]]))
        for c in np.flatnonzero(first_walk >= 0):
            hid = batch_ids[c] if c < len(batch_ids) else None
            if hid is not None and hid not in state.first_use:
                h = order[first_walk[c]]
                state.first_use[hid] = f"{files[h]}:{lines[h]}"
    else:
        for h in order[ok]:  # a set with its own add (one that forgets): called as the reference calls it
            hid = batch_ids[hand_code[h]]
            seen.add(hid)
            if hid in seen:
                state.first_use.setdefault(hid, f"{files[h]}:{lines[h]}")


def _ids_of(hand_ids: _Vocab, codes: np.ndarray) -> dict[int, str]:
    """The ids of these codes (the state's last hands and owed blinds), code -> text, read from the vocabulary
    for those codes only (not the batch's every id as Python text); a negative code reads as a list index."""
    size = hand_ids.size
    wanted = np.unique(np.asarray(codes, np.int64))
    wanted = wanted[(wanted >= -size) & (wanted < size)]
    texts = pc.take(hand_ids.all(), pa.array(np.where(wanted < 0, wanted + size, wanted))).to_pylist() \
        if len(wanted) else []
    return dict(zip(wanted.tolist(), texts, strict=True))


def _rake_allowed(houses: Sequence[HouseRules], enc: Encoded, contested: np.ndarray, board_len: np.ndarray,
                  v_schedule: np.ndarray, v_board_cards: np.ndarray) -> np.ndarray:
    """`RakeSchedule.allowed` per hand, grouped by HouseRules object (NULL where the pack sets no schedule)."""
    out = np.full(enc.n, NULL, np.int64)
    for house, _, rows in house_groups(houses):
        rake = house.rake
        if rake is None:
            continue
        v = enc.variant[rows]
        flop_game = v_board_cards[v] > 0
        flop_seen = board_len[rows] > v_schedule[v, 0]
        c = contested[rows]
        step = np.full(len(rows), rake.increment, np.int64) if rake.increment else \
            np.where(enc.chip_unit[rows] != 0, enc.chip_unit[rows], 1)
        p, q = rake.percent.numerator, rake.percent.denominator
        value = np.array([(int(x) * p) // (100 * q * int(st)) * int(st) for x, st in zip(c, step, strict=True)],
                         np.int64) if len(rows) and (abs(p) > 2**20 or c.max() > 2**40) else \
            (c * p) // (100 * q * step) * step
        if rake.cap is not None:
            value = np.minimum(value, rake.cap)
        zero = (c <= 0) | (rake.no_flop_no_drop & flop_game & ~flop_seen)
        out[rows] = np.where(zero, 0, value)
    return out


def _duplicate_cards(hands: np.ndarray, known_out) -> dict[int, list[str]]:
    """The duplicate-card words of the hands that have a card in two places (as the Python engine wrote them):
    Python for those hands only."""
    from auditor.replay.evaluate import card_text

    kc_hand, kc_card, kc_where, kc_seat = known_out["hand"], known_out["card"], known_out["where"], known_out["seat"]
    wanted = np.isin(kc_hand, hands)
    words: dict[int, list[str]] = {}
    seen: dict[int, dict[int, str]] = {}
    for h, card, where, seat in zip(kc_hand[wanted].tolist(), kc_card[wanted].tolist(),
                                    kc_where[wanted].tolist(), kc_seat[wanted].tolist(), strict=True):
        text = (f"seat {seat}", "burn", "board", f"seat {seat} draw")[where]
        first = seen.setdefault(h, {})
        if card in first:
            words.setdefault(h, []).append(f"{card_text(card)} ({first[card]}, {text})")
        first.setdefault(card, text)
    return words


def _shown_words(tables: CanonicalTables, hands: np.ndarray, shown_other: np.ndarray) -> dict[int, list[str]]:
    """shown_not_dealt of the hands where the kernel found a seat showing a card it did not hold (`shown_other`, by
    hand and seat): per such seat, the cards shown outside those it held then (dealt, less discards, plus draws),
    worded from the hands' events. Python for those hands only."""
    E = tables.events
    rows = np.flatnonzero(np.isin(E.column("hand").to_numpy(), hands))
    sub = E.take(pa.array(rows, pa.int64())).select(["hand", "kind", "seat", "target", "cards", "receive"]).to_pydict()
    held: dict[tuple[int, int], list[str]] = {}
    words: dict[int, list[str]] = {}
    for h, kind, seat, target, cards, receive in zip(sub["hand"], sub["kind"], sub["seat"], sub["target"],
                                                     sub["cards"], sub["receive"], strict=True):
        if seat is None:
            continue
        mine = held.setdefault((h, seat), [])
        if kind == "deal" and target == "hole":
            mine += cards or []
        elif kind == "draw":
            for card in cards or []:
                if card in mine:
                    mine.remove(card)
            mine += receive or []
        elif kind == "show" and shown_other[h, seat]:
            other = [card for card in cards or [] if card != "??" and card not in mine]
            if other:
                words.setdefault(h, []).append(f"seat {seat} showed {' '.join(other)}, holding {' '.join(mine)}")
    return words


def _seating_words(tables: CanonicalTables, hands: np.ndarray) -> dict[int, tuple[list[str], list[str]]]:
    """players_in_two_seats and seating_conflicts of the hands whose seat list names a player twice or a
    seat twice: Python for those hands only, worded as the Python engine worded them."""
    from collections import Counter

    from auditor.replay.showdown import seat_list

    S = tables.seats
    s_hand = S.column("hand").to_numpy()
    rows = np.flatnonzero(np.isin(s_hand, hands))
    sub = S.take(pa.array(rows, pa.int64())).to_pydict()
    by_hand: dict[int, list] = {}
    for h, seat, player in zip(sub["hand"], sub["seat"], sub["player"], strict=True):
        by_hand.setdefault(h, []).append((seat, player))
    out = {}
    for h, listed in by_hand.items():
        player: dict[int, str] = {}
        shared: dict[int, list[str]] = {}
        for seat, name in listed:
            if seat in player:
                shared.setdefault(seat, [player[seat]]).append(name)
                continue
            player[seat] = name
        names = list(player.values())
        twice = sorted(p for p, k in Counter(names).items() if k > 1)
        parts = [f"{name} in seats {seat_list(sorted(s for s, p in player.items() if p == name))}" for name in twice]
        parts += [f"seat {seat} listed for {', '.join(shared[seat])}" for seat in sorted(shared)]
        out[h] = (twice, parts)
    return out


def _hands(tables: CanonicalTables, houses: Sequence[HouseRules], state: TableState, enc: Encoded, order: np.ndarray,
           out, cross, dup_of: np.ndarray, players: _Vocab, hand_ids: _Vocab, keep: np.ndarray,
           misawarded: pa.Array) -> pd.DataFrame:
    ho, so, co = out["hand"], out["seat"], cross["hand"]
    h_button, h_burns_logged, h_chips_in, h_returned = ho["button"], ho["burns_logged"], ho["chips_in"], ho["returned"]
    h_awarded, h_rake, h_balance, h_lowest, h_showdown = ho["awarded"], ho["rake"], ho["balance"], ho["lowest"], \
        ho["showdown"]
    h_first_shown, h_expected_first, h_final_aggressor = ho["first_shown"], ho["expected_first"], ho["final_aggressor"]
    h_final_round, h_board_len, h_hole_logged, h_dup_cards = ho["final_round"], ho["board_len"], ho["hole_logged"], \
        ho["dup_cards"]
    h_shared = ho["shared"]
    hs_seated, hs_player, hs_dealt, hs_killed, hs_hole_dealt = so["seated"], so["player"], so["dealt"], so["killed"], \
        so["hole_dealt"]
    prev_button, expected_button, button_by_blinds = co["prev_button"], co["expected_button"], co["button_by_blinds"]
    duplicate, prev_bb, prev_hand, big_blind_player = co["duplicate"], co["prev_bb"], co["prev_hand"], \
        co["big_blind_player"]
    prev_sb_player, prev_sb_missed, prev_sb_on_button = co["prev_sb_player"], co["prev_sb_missed"], \
        co["prev_sb_on_button"]
    v_hole, _, v_schedule, _, _, v_board_cards = variant_table(enc.variant_names)
    rows = order[keep[order]]
    contested = h_chips_in - h_returned
    wrong = hs_dealt & (hs_hole_dealt != v_hole[enc.variant][:, None])
    wrong_seats = _seat_lists(wrong, rows, ~h_hole_logged[rows])
    dup_text = _rare_lists(len(rows))
    flagged = rows[h_dup_cards[rows]]
    if len(flagged):
        words = _duplicate_cards(flagged, out["known_cards"])
        if words:
            at = np.flatnonzero(np.isin(rows, np.fromiter(words, np.int64, len(words))))
            dup_text = _rare_lists(len(rows), {int(i): words[int(rows[i])] for i in at})
    two_seats: dict[int, list[str]] = {}
    conflicts: dict[int, list[str]] = {}
    seated_players = np.where(hs_seated, hs_player, -1)
    sorted_players = np.sort(seated_players, axis=1)
    repeated = ((sorted_players[:, 1:] == sorted_players[:, :-1]) & (sorted_players[:, 1:] >= 0)).any(axis=1)
    odd = rows[(repeated | h_shared)[rows]]
    if len(odd):
        words2 = _seating_words(tables, odd)
        position = {h: i for i, h in enumerate(rows.tolist())}
        for h, (a, b) in words2.items():
            two_seats[position[h]], conflicts[position[h]] = a, b
    shown_other = so["shown_other"]
    shown_text = _rare_lists(len(rows))
    flagged = rows[shown_other[rows].any(axis=1)]
    if len(flagged):
        shown_words = _shown_words(tables, flagged, shown_other)
        position = {h: i for i, h in enumerate(rows.tolist())}
        shown_text = _rare_lists(len(rows), {position[h]: w for h, w in shown_words.items()})
    mis = pd.arrays.ArrowExtensionArray(pc.take(misawarded, pa.array(rows, pa.int64())))
    ids = hand_ids.all()
    ids_known = getattr(state, "seen_hand_ids", None) is not None
    return _frame("hands", {
        "hand": _int(rows), "button": _int(h_button[rows], -1), "previous_button": _int(prev_button[rows], -1),
        "expected_button": _int(expected_button[rows], -1), "button_by_blinds": _int(button_by_blinds[rows], -1),
        "players": _int(hs_dealt[rows].sum(axis=1)),
        "duplicate_hand_id": _bool(duplicate[rows]) if ids_known else _bool(np.full(len(rows), -1, np.int8)),
        "wrong_hole_counts": wrong_seats, "duplicate_cards": dup_text, "shown_not_dealt": shown_text,
        "burns_logged": _bool(h_burns_logged[rows]), "chips_in": _int(h_chips_in[rows]),
        "returned": _int(h_returned[rows]), "awarded": _int(h_awarded[rows]), "rake": _int(h_rake[rows]),
        "chip_balance": _int(h_balance[rows]), "pots_misawarded": mis, "lowest_stack": _int(h_lowest[rows]),
        "showdown": _bool(h_showdown[rows]), "first_shown_seat": _int(h_first_shown[rows], -1),
        "expected_first_to_show": _int(h_expected_first[rows], -1),
        "final_aggressor": _int(h_final_aggressor[rows], -1), "final_round": _int(h_final_round[rows]),
        "big_blind_player": _str(_codes_text(players.all(), big_blind_player[rows])),
        "previous_big_blind_player": _str(_codes_text(players.all(), prev_bb[rows])),
        "players_in_two_seats": _rare_lists(len(rows), two_seats), "contested": _int(contested[rows]),
        "rake_allowed": _int(_rake_allowed(houses, enc, contested, h_board_len, v_schedule, v_board_cards)[rows]),
        "previous_hand": _str(_codes_text(ids, prev_hand[rows])),
        "duplicate_of": _texts(dup_of[rows]),
        "killed_seats": _seat_lists(hs_killed, rows),
        "seating_conflicts": _rare_lists(len(rows), conflicts),
        "previous_small_blind_player": _str(_codes_text(players.all(), prev_sb_player[rows])),
        "previous_small_blind_missed": _bool(prev_sb_missed[rows]),
        "previous_small_blind_on_button": _bool(prev_sb_on_button[rows]),
    })


def _seats(enc: Encoded, out, cross, players: _Vocab, hand_ids: _Vocab) -> pd.DataFrame:
    from auditor.replay.kernel.encode import STATUSES
    from auditor.replay.kernel.table import OWED_WORDS

    hs_player, hs_status, hs_dealt = out["seat"]["player"], out["seat"]["status"], out["seat"]["dealt"]
    sr = cross["seats"]
    ns = len(sr["hand"])
    sr_hand, sr_seat, sr_owed, sr_in_bb, sr_made_up = sr["hand"], sr["seat"], sr["owed"], sr["in_bb"], sr["made_up"]
    sr_missed_now, sr_new, sr_between, sr_live_bb = sr["missed_now"], sr["new"], sr["between"], sr["live_bb"]
    sr_prev_hand, sr_miss_sb, sr_miss_bb = sr["prev_hand"], sr["miss_sb"], sr["miss_bb"]
    hand, seat = sr_hand[:ns], sr_seat[:ns]
    ids = hand_ids.all()
    owed_code = sr_owed[:ns].astype(np.int64)
    owed_lists = pa.array([[w for w in word.split(",") if w] for word in OWED_WORDS], pa.list_(pa.string()))
    owed = pd.arrays.ArrowExtensionArray(pc.take(owed_lists, pa.array(owed_code, pa.int64(), mask=owed_code < 0)))
    missed_code = sr_missed_now[:ns].astype(np.int64)
    missed = pc.take(pa.array(["sb", "bb"], pa.string()), pa.array(missed_code, pa.int64(), mask=missed_code < 0))
    status_code = hs_status[hand, seat].astype(np.int64)
    status = pc.take(pa.array(STATUSES, pa.string()), pa.array(status_code, pa.int64(), mask=status_code < 0))
    missed_in = _missed_in(ids, sr_miss_sb[:ns], sr_miss_bb[:ns])
    return _frame("seats", {
        "hand": _int(hand), "seq": _int(np.full(ns, NULL, np.int64)), "seat": _int(seat),
        "player": _str(_codes_text(players.all(), hs_player[hand, seat])), "status": _str(status),
        "dealt_in": _bool(hs_dealt[hand, seat]), "owed": owed, "in_big_blind": _bool(sr_in_bb[:ns]),
        "made_up": _bool(sr_made_up[:ns]), "missed_now": _str(missed), "new_player": _bool(sr_new[:ns]),
        "between_button_and_big_blind": _bool(sr_between[:ns]), "posted_live_big_blind": _bool(sr_live_bb[:ns]),
        "previous_hand": _str(_codes_text(ids, sr_prev_hand[:ns])), "missed_in": missed_in,
    })


def _by_hand(group: dict[str, np.ndarray], n: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Flat rows the kernel wrote in walk order, regrouped by hand row (stable: event order within a hand), with
    their offsets per hand: the layout the end-of-hand kernels read."""
    hand = group["hand"]
    sort = np.argsort(hand, kind="stable")
    return np.searchsorted(hand[sort], np.arange(n + 1)).astype(np.int64), {k: v[sort] for k, v in group.items()}


def _walk_sorted(hand: np.ndarray, order: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Row indexes of rows grouped by hand row, put in walk order (hands as the reference walks them), the
    rows of failed hands dropped."""
    walk_of = np.empty(len(order), np.int64)
    walk_of[order] = np.arange(len(order))
    rows = np.argsort(walk_of[hand], kind="stable")
    return rows[keep[hand[rows]]]


def _list_rows(offsets: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows `rows` of a list given by `offsets` (n + 1): their new offsets, and the positions of their items
    in the old values, in row order (vectorised: no Python per row)."""
    lo, hi = offsets[rows], offsets[rows + 1]
    lengths = hi - lo
    take = np.repeat(lo - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths) + np.arange(lengths.sum()) \
        if len(rows) else np.zeros(0, np.int64)
    new_offsets = np.zeros(len(rows) + 1, np.int64)
    np.cumsum(lengths, out=new_offsets[1:])
    return new_offsets, take.astype(np.int64, copy=False)


def _list_text(pair: tuple[np.ndarray, np.ndarray], rows: np.ndarray, null: np.ndarray | None = None
               ) -> pd.api.extensions.ExtensionArray:
    """Rows `rows` of a kernel's list (offsets, int values) as a list column of integers ([1, 3]); `null`
    (over `rows`) marks the rows not known."""
    offsets, values = pair
    new_offsets, take = _list_rows(offsets, rows)
    return list_column(new_offsets, values[take].astype(np.int64), null)


def _slots(enc: Encoded, so: dict[str, np.ndarray], names: tuple[str, ...]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Every hand's seats 1..MAX_SEAT as slots (rows hand * MAX_SEAT + seat - 1): a seat nobody sits in and no
    event names has nothing in, so it changes no pot and no blind. Only the seat columns `names` (each a copy:
    the kernel's (hand, seat) arrays have a seat 0 the slots leave out)."""
    from auditor.replay.kernel.encode import MAX_SEAT

    n = enc.n
    slots = {name: so[name][:, 1:].reshape(n * MAX_SEAT, *so[name].shape[2:]) for name in names}
    slots["seat"] = np.tile(np.arange(1, MAX_SEAT + 1, dtype=np.int64), n)
    return np.arange(n + 1, dtype=np.int64) * MAX_SEAT, slots


def _taken_int(values: np.ndarray, rows: np.ndarray, null: np.ndarray | None) -> pd.arrays.IntegerArray:
    """Rows `rows` (an index array) of an end-of-hand kernel's int column as a nullable column, `null` (over
    all rows, or None: none null) marking nulls. The gathers are new arrays, so the column takes them and only
    null values are zeroed in place (a `where` and an `astype` per column were two more passes and copies)."""
    taken = np.asarray(values)[rows]
    if taken.dtype != np.int64:
        taken = taken.astype(np.int64)
    if null is None:
        return pd.arrays.IntegerArray(taken, np.zeros(len(taken), np.bool_))
    mask = np.asarray(null, dtype=np.bool_)[rows]
    if mask.any():
        taken[mask] = 0
    return pd.arrays.IntegerArray(taken, mask)


def _blinds(enc: Encoded, houses: Sequence[HouseRules], out, order: np.ndarray, keep: np.ndarray
            ) -> tuple[pd.DataFrame, np.ndarray]:
    """The blinds table of the `keep` hands, and the hands the kernel found out of its range (no rows)."""
    from auditor.replay.kernel.blinds import blind_facts

    so = out["seat"]
    slot_start, slots = _slots(enc, so, ("dealt", "ante_all_in"))
    post_start, posts = _by_hand(out["posts"], enc.n)
    bf = blind_facts(slot_start=slot_start, slot_seat=slots["seat"], slot_dealt_in=slots["dealt"],
                     slot_ante_all_in=slots["ante_all_in"], hand_button=out["hand"]["button"],
                     hand_heir_order=_heir_order(houses, enc.n),
                     declared_start=enc.blinds_off, declared_amount=enc.blinds, post_start=post_start,
                     post_blind=posts["number"], post_seat=posts["seat"], post_seq=posts["seq"],
                     post_amount=posts["amount"], post_all_in=posts["all_in"])
    r, nulls = bf.rows, bf.nulls
    rows = _walk_sorted(r["hand"], order, keep)
    hand = r["hand"][rows]

    def col(name: str) -> pd.arrays.IntegerArray:
        return _taken_int(r[name], rows, nulls.get(name))

    def flag(name: str) -> pd.arrays.BooleanArray:
        null = nulls[name][rows] if name in nulls else np.zeros(len(rows), np.bool_)
        return pd.arrays.BooleanArray(r[name][rows].astype(np.bool_) & ~null, null)

    def player(seat_col: str) -> pd.api.extensions.ExtensionArray:
        seat = r[seat_col][rows]
        null = nulls[seat_col][rows] if seat_col in nulls else np.zeros(len(rows), np.bool_)
        code = np.where(null | (seat < 0) | (seat >= so["player"].shape[1]), -1,
                        so["player"][hand, np.clip(seat, 0, so["player"].shape[1] - 1)])
        return _players(enc, code)

    frame = _frame("blinds", {
        "hand": col("hand"), "seq": col("seq"), "blind": col("blind"), "seat": col("seat"), "player": player("seat"),
        "expected_seat": col("expected_seat"), "expected_player": player("expected_seat"), "amount": col("amount"),
        "expected_amount": col("expected_amount"), "posted": flag("posted"), "in_order": flag("in_order"),
        "all_in": flag("all_in"), "button": col("button"), "players": col("players"),
        "blinds_required": col("blinds_required"), "seat_after_previous_blind": col("seat_after_previous_blind"),
    })
    return frame, bf.invalid


def _pots(enc: Encoded, houses: Sequence[HouseRules], out, order: np.ndarray, keep: np.ndarray
          ) -> tuple[pd.DataFrame, pa.Array, np.ndarray]:
    """The pots table of the `keep` hands (pots.pot_facts, then showdown.showdown_facts), each hand's
    pots_misawarded items (an Arrow list array by hand row), and the hands the pot kernel found out of its
    range (no rows)."""
    from auditor.replay.evaluate import card_text, describe
    from auditor.replay.kernel.pots import RAKE_FROM_CODES, pot_facts
    from auditor.replay.kernel.showdown import showdown_facts

    n = enc.n
    so, ho = out["seat"], out["hand"]
    slot_start, slots = _slots(enc, so, ("total", "returned", "folded", "all_in", "mucked", "shown", "final_known"))
    award_start, awards = _by_hand(out["awards"], n)
    rake_start, rakes = _by_hand(out["rakes"], n)
    rake_from = np.zeros(n, np.int64)
    hole_use = np.zeros((n, 2), np.int64)
    board_use = np.zeros((n, 2), np.int64)
    hole_cards = np.zeros(n, np.int64)
    board_cards = np.zeros(n, np.int64)
    suit_rank = np.zeros((n, 4), np.int64)
    for house, v, hands in house_groups(houses, enc.variant):  # one entry per (HouseRules object, variant)
        if v >= len(enc.variant_names):
            continue  # only refused hands (encode: variant 0 of a batch that knows no variant): never read
        variant = house.variant(enc.variant_names[v])
        rake_from[hands] = RAKE_FROM_CODES[house.hand_rake_from]
        hole_use[hands] = variant.hole_use
        board_use[hands] = variant.board_use
        hole_cards[hands] = variant.hole_cards
        board_cards[hands] = variant.board_cards
        suit_rank[hands] = [house.suit_rank(suit) for suit in "cdhs"]
    pf = pot_facts(slot_start=slot_start, slot_seat=slots["seat"], slot_total=slots["total"],
                   slot_returned=slots["returned"], slot_folded=slots["folded"], slot_all_in=slots["all_in"],
                   slot_mucked=slots["mucked"], slot_shown=slots["shown"], hand_button=ho["button"],
                   hand_dead=ho["dead"], hand_chips_in=ho["chips_in"], hand_chip_unit=enc.chip_unit,
                   hand_max_seats=enc.max_seats, hand_rake_from=rake_from, award_start=award_start,
                   award_pot=awards["pot"], award_seat=awards["seat"], award_amount=awards["amount"],
                   award_seq=awards["seq"], rake_start=rake_start, rake_pot=rakes["pot"], rake_amount=rakes["amount"])
    sd = showdown_facts(pf, slot_hole=so["final"], slot_hole_known=slots["final_known"], hand_board=ho["board"],
                        hand_board_known=ho["board_known"], hand_hole_cards=hole_cards,
                        hand_board_cards=board_cards, hand_hole_use=hole_use, hand_board_use=board_use,
                        hand_suit_rank=suit_rank)
    r = pf.rows
    rows = _walk_sorted(r["hand"], order, keep)
    hand = r["hand"][rows]
    none = np.zeros(len(rows), np.bool_)

    def col(name: str, values: np.ndarray | None = None, null: np.ndarray | None = None) -> pd.arrays.IntegerArray:
        return _taken_int(r[name] if values is None else values, rows, pf.nulls.get(name) if null is None else null)

    def flag(values: np.ndarray, null: np.ndarray | None) -> pd.arrays.BooleanArray:
        null = none if null is None else null[rows]
        return pd.arrays.BooleanArray(values[rows].astype(np.bool_) & ~null, null.copy())

    seat = r["seat"][rows]
    player_code = np.where((seat >= 0) & (seat < so["player"].shape[1]),
                           so["player"][hand, np.clip(seat, 0, so["player"].shape[1] - 1)], -1)
    # shares: "seat:amount" over the seats paid
    ws_off, ws = pf.lists["winner_seats"]
    amounts = pf.lists["share_amounts"][1]
    pair_text = pc.binary_join_element_wise(pc.cast(pa.array(ws), pa.string()), pc.cast(pa.array(amounts),
                                                                                        pa.string()), ":")
    shares = _join_text_lists(ws_off, pair_text, rows)
    th_off, th_seat = sd.lists["top_hole_cards_used"]
    codes = sd.top_hole_codes
    card_words = pc.take(pa.array([card_text(c) for c in range(-1, 52)], pa.string()),
                         pa.array(np.clip(codes, -1, 51) + 1, pa.int64()))
    th_text = pc.binary_join_element_wise(pc.cast(pa.array(th_seat), pa.string()), card_words, ":")
    top_hole = _join_text_lists(th_off, th_text, rows, sd.list_nulls["top_hole_cards_used"][rows])
    best_null = sd.nulls["best_value"][rows]
    best_word = np.full(len(rows), -1, np.int64)  # per row, its hand value's place in `_DESCRIBED` (-1: null)
    if (~best_null).any():
        best_word[~best_null] = _DESCRIBED.places(sd.rows["best_value"][rows][~best_null], describe)
    best = pc.take(_DESCRIBED.words, pa.array(best_word, pa.int64(), mask=best_word < 0))
    frame = _frame("pots", {
        "hand": col("hand"), "seq": col("seq"), "pot": col("pot"), "seat": col("seat"),
        "player": _players(enc, player_code), "pot_amount": col("pot_amount"), "rake": col("rake"),
        "awarded": col("awarded"), "eligible_seats": _list_text(pf.lists["eligible_seats"], rows),
        "winners": col("winners", sd.rows["winners"]), "winner_seats": _list_text(pf.lists["winner_seats"], rows),
        "shares": shares, "equal_share": col("equal_share", sd.rows["equal_share"]),
        "odd_chips": col("odd_chips", sd.rows["odd_chips"]), "min_share": col("min_share"),
        "max_share": col("max_share"), "share_ok": flag(sd.rows["share_ok"], None),
        "odd_chip_seats": _list_text(sd.lists["odd_chip_seats"], rows),
        "odd_chip_seats_by_suit": _list_text(sd.lists["odd_chip_seats_by_suit"], rows,
                                             sd.list_nulls["odd_chip_seats_by_suit"][rows]),
        "odd_chip_seats_by_position": _list_text(sd.lists["odd_chip_seats_by_position"], rows,
                                                 sd.list_nulls["odd_chip_seats_by_position"][rows]),
        "top_hole_cards_used": top_hole,
        "winner_seats_by_evaluation": _list_text(sd.lists["winner_seats_by_evaluation"], rows,
                                                 sd.list_nulls["winner_seats_by_evaluation"][rows]),
        "best_hand": _str(best),
        "winners_match": flag(sd.rows["winners_match"], sd.nulls["winners_match"]),
        "split_without_tie": flag(sd.rows["split_without_tie"], sd.nulls["split_without_tie"]),
        "hand_chip_balance": col("hand_chip_balance"), "pots_formed": col("pots_formed"),
        "paid_without_showing": _list_text(pf.lists["paid_without_showing"], rows),
        "chip_unit": col("chip_unit"), "button": col("button"),
    })
    mis_start, mis_pot, mis_held, mis_paid = pf.misawarded
    words = pa.array([], pa.string())
    if len(mis_pot):
        parts = [pa.array(["pot "] * len(mis_pot)), pc.cast(pa.array(mis_pot), pa.string()),
                 pa.array([": held "] * len(mis_pot)), pc.cast(pa.array(mis_held), pa.string()),
                 pa.array([", paid "] * len(mis_pot)), pc.cast(pa.array(mis_paid), pa.string())]
        words = pc.binary_join_element_wise(*parts, "")
    misawarded = pa.array(_join_text_lists(mis_start, words, np.arange(n)))
    return frame, misawarded, pf.invalid


class _Descriptions:
    """Hand values' words (`evaluate.describe`), kept across batches: values recur, so a batch looks its values
    up in one `searchsorted` and describes only the values no batch had before (a dictionary look-up per
    distinct value of each batch, thousands, was a tenth of the pots table's Python)."""

    def __init__(self) -> None:
        self.sorted_values = np.zeros(0, np.int64)  # the values described, ascending
        self.place_of = np.zeros(0, np.int64)  # the place in `words` of each of `sorted_values`
        self.words = pa.array([], pa.string())  # in the order first described

    def places(self, values: np.ndarray, describe) -> np.ndarray:  # type: ignore[no-untyped-def]
        """The place in `words` of each value's words, describing first the values not known yet."""
        values = np.asarray(values, np.int64)
        at = np.searchsorted(self.sorted_values, values)
        known = at < len(self.sorted_values)
        known[known] = self.sorted_values[at[known]] == values[known]
        if not known.all():
            new = np.unique(values[~known])
            self.words = pa.concat_arrays([self.words, pa.array([describe(v) for v in new.tolist()], pa.string())])
            merged = np.concatenate([self.sorted_values, new])
            place = np.concatenate([self.place_of, len(self.place_of) + np.arange(len(new), dtype=np.int64)])
            sort = np.argsort(merged, kind="stable")
            self.sorted_values, self.place_of = merged[sort], place[sort]
            at = np.searchsorted(self.sorted_values, values)
        return self.place_of[at]


#: hand value -> its words, kept across batches
_DESCRIBED = _Descriptions()


def _join_text_lists(offsets: np.ndarray, text: pa.Array, rows: np.ndarray, null: np.ndarray | None = None
                     ) -> pd.api.extensions.ExtensionArray:
    """Rows `rows` of a list of strings (offsets into `text`) as a list column of text; `null` (over `rows`)
    marks the rows not known."""
    new_offsets, take = _list_rows(offsets, rows)
    values = pc.take(text, pa.array(take)) if len(text) else pa.array([], pa.string())
    return list_column(new_offsets, values, null)


def _rare_lists(n: int, rows: dict[int, list[str]] | None = None) -> pd.api.extensions.ExtensionArray:
    """A list column of text of `n` rows, empty but for the few `rows` (position -> items) Python worded."""
    lengths = np.zeros(n, np.int64)
    items: list[str] = []
    for i in sorted(rows or ()):
        lengths[i] = len(rows[i])
        items += rows[i]
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return list_column(offsets, pa.array(items, pa.string()))


def _missed_in(ids: pa.Array, miss_sb: np.ndarray, miss_bb: np.ndarray) -> pd.api.extensions.ExtensionArray:
    """seats.missed_in from the hand-id codes of the missed small and big blind (-1: not missed): the ids in
    text order without repeats, null where neither was missed. Vectorised; only rows with both compare text."""
    a, b = miss_sb >= 0, miss_bb >= 0
    first = np.where(a, miss_sb, miss_bb).astype(np.int64)
    second = np.where(a & b, miss_bb, -1).astype(np.int64)
    both = np.flatnonzero(a & b)
    if len(both):  # rare: both blinds missed; order the two ids as text, one if they are the same hand
        x = _codes_text(ids, first[both]).to_pylist()
        y = _codes_text(ids, second[both]).to_pylist()
        swap = both[np.array([q < p for p, q in zip(x, y, strict=True)], dtype=bool)]
        same = both[np.array([p == q for p, q in zip(x, y, strict=True)], dtype=bool)]
        first[swap], second[swap] = second[swap], first[swap].copy()
        second[same] = -1
    lengths = (first >= 0).astype(np.int64) + (second >= 0)
    codes = np.stack([first, second], axis=1).reshape(-1)
    codes = codes[codes >= 0]
    offsets = np.zeros(len(first) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return list_column(offsets, _codes_text(ids, codes), lengths == 0)


#: the seat_draws and seat_fills tables of a batch without seat events (`_seat_events` hands out copies)
_NO_SEAT_EVENTS: list[pd.DataFrame] = []


def _seat_events(tables: CanonicalTables, enc: Encoded, houses: Sequence[HouseRules], order: np.ndarray,
                 keep: np.ndarray) -> tuple[pd.DataFrame, pd.DataFrame]:
    """seat_draws and seat_fills: Python only for the hands that have a seat_request, seat_fill or seat_draw
    event (rare: a mask, never a loop over every hand), worded as the Python engine worded them."""
    from auditor.replay.fact_frames import FactRows
    from auditor.replay.kernel.encode import K_SEAT_DRAW, K_SEAT_FILL, K_SEAT_REQUEST
    from auditor.replay.showdown import code

    rare = np.isin(enc.e_kind, (K_SEAT_REQUEST, K_SEAT_FILL, K_SEAT_DRAW))
    if not rare.any():  # the usual batch: two empty tables, built once (their contract checks cost ~0.7 ms)
        if not _NO_SEAT_EVENTS:
            empty = FactRows().to_facts(("seat_draws", "seat_fills"))
            _NO_SEAT_EVENTS.extend((empty["seat_draws"], empty["seat_fills"]))
        return _NO_SEAT_EVENTS[0].copy(), _NO_SEAT_EVENTS[1].copy()
    rows = FactRows()
    if rare.any():
        event_hand = np.repeat(np.arange(enc.n), np.diff(enc.event_start))
        walk_of = np.empty(enc.n, np.int64)
        walk_of[order] = np.arange(enc.n)
        picked = np.flatnonzero(rare & keep[event_hand])
        picked = picked[np.argsort(walk_of[event_hand[picked]], kind="stable")]  # walk order, then event order
        E = tables.events.select(["kind", "seat", "player", "from_seat", "draw_players", "cards"]) \
            .take(pa.array(picked, pa.int64())).to_pydict()
        requests: list[tuple] = []
        previous = -1
        for i, (event, h) in enumerate(zip(picked.tolist(), event_hand[picked].tolist(), strict=True)):
            if h != previous:
                requests, previous = [], h
            seq = event - int(enc.event_start[h])
            kind, seat, player = E["kind"][i], E["seat"][i], E["player"][i]
            if kind == "seat_request":
                requests.append((player, seat, E["from_seat"][i], seq))
            elif kind == "seat_fill":
                open_requests = [r for r in requests if r[1] in (None, seat)]
                passed_over = [r for r in open_requests if r[2] is not None and r[0] != player]
                own = next((r for r in open_requests if r[0] == player), None)
                logged = bool(requests)
                rows.seat_fills.append((h, seq, seat, player, (own is not None and own[2] is not None)
                                        if logged else None,
                                        [f"{r[0]} (seat {r[2]})" for r in passed_over]
                                        if logged else None))
                requests = [r for r in requests if r[0] != player]
            else:  # seat_draw
                drawers, cards = E["draw_players"][i] or [], E["cards"][i] or []
                keys = []
                for card in cards:
                    if card == "??":
                        keys = []
                        break
                    keys.append(houses[h].card_key(code(card)))
                highest = drawers[keys.index(max(keys))] if keys and len(keys) == len(drawers) else None
                words = [f"{p} {c}" for p, c in zip(drawers, cards, strict=False)]
                rows.seat_draws.append((h, seq, seat, player, player, highest, len(drawers), words))
    facts = rows.to_facts(("seat_draws", "seat_fills"))
    return facts["seat_draws"], facts["seat_fills"]


#: why an end-of-hand kernel or the per-hand kernel's scratch refused a hand the encoder let through
_KERNEL_REFUSALS = (
    f"a seat's cards outrun the per-hand kernel's scratch (more than {HOLE_CAP} held or shown)",
    "a button, blind number or blind count outside the blinds kernel's range",
    "an amount, pot, seat or chip unit outside the pots kernel's range",
)


def replay(tables: CanonicalTables, houses: Sequence[HouseRules],
           state: TableState | None = None) -> tuple[Facts, list[tuple[int, str]]]:
    """Replay every hand; return the facts tables and the hands that could not be replayed.

    `houses[i]` is the house settings for hand row i (from the pack that hand is audited under). Hands are
    walked table by table in `replay_order` (parsed start times; the log's order where a table's times
    cannot place its hands) so that cross-hand state (the previous button, blinds owed) is known; facts
    keep the hand row so reports can go back to file and line. `state` carries that memory from one batch
    to the next (updated in place). A failure is (hand row, "replay failed: <why>"), in walk order; a
    failed hand has no facts and its table's next hand is judged like a first.
    """
    try:
        return _replay(tables, houses, state if state is not None else TableState())
    finally:
        _HOUSE_INDEX.clear()


def _replay(tables: CanonicalTables, houses: Sequence[HouseRules], state: TableState
            ) -> tuple[Facts, list[tuple[int, str]]]:
    """`replay`, the batch's house index cached meanwhile."""
    enc = encode(tables)
    if enc.n == 0:
        return Facts.empty(), []
    H = tables.hands
    order, table_of = walk(H.column("file"), H.column("table_id"), H.column("started_at"))
    refused = enc.unsupported.copy()
    reasons = dict(enc.reasons)
    out = named(run_kernel(tables, houses, order[~refused[order]], enc))  # refused hands never reach a kernel
    overflow = out["hand"]["overflow"]
    blinds, blinds_bad = _blinds(enc, houses, out, order, ~(refused | overflow))
    pots, misawarded, pots_bad = _pots(enc, houses, out, order, ~(refused | overflow))
    for words, bad in zip(_KERNEL_REFUSALS, (overflow, blinds_bad, pots_bad), strict=True):
        new = bad & ~refused
        reasons.update(dict.fromkeys(np.flatnonzero(new).tolist(), words))
        refused |= new
    cross, failures, dup_of, players, hand_ids = _cross_hand(tables, houses, state, enc, order, out["hand"],
                                                             out["seat"], refused, table_of)
    if reasons:  # every failure in walk order, as one list
        walk_of = np.empty(enc.n, np.int64)
        walk_of[order] = np.arange(enc.n)
        failures = sorted(failures + [(h, f"replay failed: {why}") for h, why in reasons.items()],
                          key=lambda failure: walk_of[failure[0]])
    keep = (cross["hand"]["fail_seat"] < 0) & ~refused
    max_draw = variant_table(enc.variant_names)[4]
    facts = {}
    for name, frame in (("blinds", blinds), ("pots", pots)):
        if failures:
            frame = frame[keep[frame["hand"].to_numpy(dtype=np.int64)]].reset_index(drop=True)
        facts[name] = frame
    facts["seat_draws"], facts["seat_fills"] = _seat_events(tables, enc, houses, order, keep)
    facts["actions"] = _actions(tables, enc, out["actions"], keep)
    facts["rounds"] = _rounds(enc, out["rounds"], keep)
    facts["draws"] = _draws(enc, out["draws"], keep, max_draw)
    facts["hands"] = _hands(tables, houses, state, enc, order, out, cross, dup_of, players, hand_ids, keep,
                            misawarded)
    facts["seats"] = _seats(enc, out, cross, players, hand_ids)
    return Facts({name: facts[name] for name in FACT_COLUMNS}), failures
