"""Orchestration of the kernel engine: encode the batch, run the kernels, build the facts tables.

`replay(tables, houses, state)` has the signature, inputs and outputs of `auditor.replay.engine.replay`
(the reference, and the specification until the two are shown identical). Facts columns are built from
the kernels' arrays with vectorised `take` on the Arrow columns (strings decoded from codes, nulls from
sentinels), never a Python loop per row.

Status (issue 16, session of brief H4): the actions, rounds and draws tables come from the per-hand kernel
(`hand.replay_hands`). The other tables (hands, seats, blinds, pots, seat draws, seat fills), the
failures and the cross-hand `TableState` still come from the reference engine through
`_reference_adapter`, a clearly temporary adapter that the table kernel (`table.py`) and the end-of-hand
kernels of `pots.py`, `blinds.py`, `showdown.py` replace. A batch the encoder flags as outside what the
kernels accept (`Encoded.unsupported`: nothing the canonical schema admits) is replayed by the reference
engine whole.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from auditor.ingest.tables import CanonicalTables
from auditor.replay import engine as reference
from auditor.replay.engine import TableState, replay_order
from auditor.replay.facts import BOOL, FACT_COLUMNS, INT, STR, Facts
from auditor.replay.house import HouseRules
from auditor.replay.kernel.encode import NULL, Encoded, encode, variant_table
from auditor.replay.kernel.hand import replay_hands


def _int(values: np.ndarray, null: int = NULL) -> pd.arrays.IntegerArray:
    values = np.asarray(values, dtype=np.int64)
    mask = values == null
    return pd.arrays.IntegerArray(np.where(mask, 0, values), mask)


def _bool(values: np.ndarray) -> pd.arrays.BooleanArray:
    values = np.asarray(values)
    if values.dtype == np.bool_:
        return pd.arrays.BooleanArray(values.copy(), np.zeros(len(values), np.bool_))
    return pd.arrays.BooleanArray(values == 1, values < 0)


def _str(values: pa.Array | pa.ChunkedArray) -> pd.api.extensions.ExtensionArray:
    return pd.array(values.to_numpy(zero_copy_only=False), dtype=STR)


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


def _frame(name: str, columns: dict) -> pd.DataFrame:
    """A facts table in `FACT_COLUMNS` order and dtypes (a missing column is a bug: KeyError)."""
    frame = pd.DataFrame({col: columns[col] for col, _, _ in FACT_COLUMNS[name]})
    for col, dtype, _ in FACT_COLUMNS[name]:
        assert str(frame[col].dtype) == {INT: "Int64", BOOL: "boolean", STR: "string"}[dtype], (name, col)
    return frame


def run_kernel(tables: CanonicalTables, houses: Sequence[HouseRules], order: np.ndarray, enc: Encoded):
    """Run the per-hand kernel over the batch in `order`."""
    v_hole, v_rounds, v_schedule, v_draw_before, v_max_draw, v_board_cards = variant_table(enc.variant_names)
    fraction = np.array([house.limit_reopen_fraction for house in houses], dtype=np.float64) if len(houses) \
        else np.zeros(0, np.float64)
    return replay_hands(
        order, len(enc.e_kind),
        enc.variant, enc.structure, enc.blinds_off, enc.blinds, enc.units_off, enc.units, enc.smin_off, enc.smin,
        enc.smax_off, enc.smax,
        enc.seat_start, enc.s_seat, enc.s_player, enc.s_stack, enc.s_status,
        enc.event_start, enc.e_kind, enc.e_seat, enc.e_verb, enc.e_post, enc.e_blind, enc.e_amount, enc.e_target,
        enc.e_pot, enc.cards_off, enc.cards, enc.receive_off, enc.receive,
        v_hole, v_rounds, v_schedule, v_draw_before, v_max_draw, v_board_cards, fraction)


def _actions(tables: CanonicalTables, enc: Encoded, out, keep: np.ndarray) -> pd.DataFrame:
    (na, a_hand, a_event, a_street, a_seat, a_player, a_expected, a_added, a_made, a_all_in, a_current_bet,
     a_owed, a_largest, a_increment, a_is_bet, a_is_raise, a_full, a_raises_before, a_raise_number, a_live,
     a_active, a_hu_start, a_pot_before, a_pot_limit_max, a_bet_unit, a_smin, a_smax, a_stack_before,
     a_actor_folded, a_actor_all_in, a_open_full, a_open_cumulative, a_min_bet, a_owed_full) = out
    rows = np.flatnonzero(keep[a_hand[:na]])

    def col(array):
        return array[:na][rows]

    events = tables.events
    event = col(a_event)
    hand = col(a_hand)
    return _frame("actions", {
        "hand": _int(hand), "seq": _int(event - enc.event_start[hand]), "street": _int(col(a_street)),
        "round": _int(col(a_street) + 1), "seat": _int(col(a_seat)), "player": _players(enc, col(a_player)),
        "expected_seat": _int(col(a_expected), -1), "action": _str(pc.take(events.column("action"), event)),
        "amount": _int(col(a_added)), "to": _arrow_int(events.column("to"), event), "made": _int(col(a_made)),
        "all_in": _bool(col(a_all_in)), "all_in_declared": _arrow_bool(events.column("all_in"), event),
        "current_bet": _int(col(a_current_bet)), "amount_to_call": _int(col(a_owed)),
        "min_raise_increment": _int(col(a_largest)), "raise_increment": _int(col(a_increment)),
        "is_bet": _bool(col(a_is_bet)), "is_raise": _bool(col(a_is_raise)), "full_raise": _bool(col(a_full)),
        "raises_before": _int(col(a_raises_before)), "raise_number": _int(col(a_raise_number)),
        "live_players": _int(col(a_live)), "active_players": _int(col(a_active)),
        "heads_up": _bool(col(a_active) == 2), "heads_up_round_start": _bool(col(a_hu_start)),
        "pot_before": _int(col(a_pot_before)), "pot_limit_max": _int(col(a_pot_limit_max)),
        "bet_unit": _int(col(a_bet_unit)), "spread_min": _int(col(a_smin)), "spread_max": _int(col(a_smax)),
        "stack_before": _int(col(a_stack_before)), "actor_folded": _bool(col(a_actor_folded)),
        "actor_all_in": _bool(col(a_actor_all_in)), "open_after_full_raise": _bool(col(a_open_full)),
        "open_after_cumulative_raise": _bool(col(a_open_cumulative)),
        "min_bet": _int(col(a_min_bet)), "amount_to_call_in_full": _int(col(a_owed_full)),
    })


def _rounds(enc: Encoded, out, keep: np.ndarray) -> pd.DataFrame:
    (nr, r_hand, r_seq, r_close_seq, r_street, r_board_cards, r_board_expected, r_burns, r_burns_expected,
     r_live_at_deal, r_live, r_able, r_pending, r_pending_player, r_end, r_uncalled, r_uncalled_player,
     r_uncalled_expected, r_returned, r_returned_net, r_actions, r_draw_round, r_balance) = out
    rows = np.flatnonzero(keep[r_hand[:nr]])

    def col(array):
        return array[:nr][rows]

    closed = np.where(col(r_end), "end of hand", "next round")
    return _frame("rounds", {
        "hand": _int(col(r_hand)), "seq": _int(col(r_seq), -1), "close_seq": _int(col(r_close_seq), -1),
        "street": _int(col(r_street)), "round": _int(col(r_street) + 1), "board_cards": _int(col(r_board_cards)),
        "board_expected": _int(col(r_board_expected)), "burns": _int(col(r_burns)),
        "burns_expected": _int(col(r_burns_expected)), "live_at_deal": _int(col(r_live_at_deal)),
        "live_players": _int(col(r_live)), "able_players": _int(col(r_able)),
        "pending_seat": _int(col(r_pending), -1), "pending_player": _players(enc, col(r_pending_player)),
        "closed_by": pd.array(closed.astype(object), dtype=STR),
        "uncalled_seat": _int(col(r_uncalled), -1), "uncalled_player": _players(enc, col(r_uncalled_player)),
        "uncalled_expected": _int(col(r_uncalled_expected)), "returned": _int(col(r_returned)),
        "returned_net": _int(col(r_returned_net)), "actions": _int(col(r_actions)),
        "draw_round": _bool(col(r_draw_round)), "hand_chip_balance": _int(col(r_balance)),
    })


def _draws(enc: Encoded, out, keep: np.ndarray, max_draw: np.ndarray) -> pd.DataFrame:
    (nd, d_hand, d_event, d_seat, d_player, d_expected, d_discards, d_receives, d_folded) = out
    rows = np.flatnonzero(keep[d_hand[:nd]])

    def col(array):
        return array[:nd][rows]

    hand = col(d_hand)
    return _frame("draws", {
        "hand": _int(hand), "seq": _int(col(d_event) - enc.event_start[hand]), "seat": _int(col(d_seat)),
        "player": _players(enc, col(d_player)), "expected_seat": _int(col(d_expected), -1),
        "discards": _int(col(d_discards)), "receives": _int(col(d_receives)),
        "max_draw": _int(max_draw[enc.variant[hand]]), "actor_folded": _bool(col(d_folded)),
    })


def _reference_adapter(tables: CanonicalTables, houses: Sequence[HouseRules], state: TableState | None
                       ) -> tuple[Facts, list[tuple[int, str]]]:
    """TEMPORARY: the tables the kernels do not write yet, the failures and the cross-hand state, from the
    reference engine. Replaced table by table by `table.py` and the end-of-hand kernels (see the module
    docstring); it makes this engine no faster than the reference until then."""
    return reference.replay(tables, houses, state)


def replay(tables: CanonicalTables, houses: Sequence[HouseRules],
           state: TableState | None = None) -> tuple[Facts, list[tuple[int, str]]]:
    """Replay every hand; return the facts tables and the hands that could not be replayed (the contract of
    `auditor.replay.engine.replay`, which see)."""
    enc = encode(tables)
    facts, failures = _reference_adapter(tables, houses, state)
    if enc.n == 0 or enc.unsupported.any():
        return facts, failures
    H = tables.hands
    order = np.asarray(replay_order(H.column("file").to_pylist(), H.column("table_id").to_pylist(),
                                    H.column("started_at").to_pylist()), dtype=np.int64)
    out = run_kernel(tables, houses, order, enc)
    keep = np.ones(enc.n, np.bool_)
    for h, _ in failures:
        keep[h] = False
    max_draw = variant_table(enc.variant_names)[4]
    tables_out = dict(facts.tables)
    tables_out["actions"] = _actions(tables, enc, out[0], keep)
    tables_out["rounds"] = _rounds(enc, out[1], keep)
    tables_out["draws"] = _draws(enc, out[2], keep, max_draw)
    return Facts(tables_out), failures
