"""The facts tables the replay engine writes and the rule packs read.

Each table is one row per thing a rule can be about (an action, a required blind, a pot, a seat
draw, a hand). Column names here are the vocabulary of rule predicates, so they are documented
where they are defined; `auditor rules` and the pack schema use this registry to refuse a
predicate that names a fact that does not exist.

The declaration is the contract between whoever writes facts (the compiled kernels' arrays, the
rows the replay words in Python for rare events) and whoever reads them (packs, docs, reports): each column is a typed
`Fact` record, and `facts_frame` builds a table from its columns by name, refusing a missing,
undeclared or wrongly typed one (`FactRows`, the seat events' rows, go through it; the kernel
engine's orchestration should too). A writer that swaps two columns is caught by the contract test
(`tests/test_facts_contract.py`) or by the golden facts snapshots (`tests/test_facts_snapshots.py`).

List-valued facts (seats paid, odd-chip seats, blinds owed, the pots paid wrongly, ...) are real list
columns (`LIST_INT`, `LIST_STR`: Arrow lists in pandas), built by the driver straight from a kernel's
offsets and values (`list_column`), null where not known and an empty list where known to be none. Rules
compare them as lists (`auditor/check/expr.py`). People see them as text, always through `list_text`
with the separator the column declares, which is the text the engine wrote when these were joined
strings: messages, expected/actual, every report built from findings, and the snapshots read the same.
No report writes a facts table (the CSV, Parquet and JSON formats are findings, their texts already
rendered), so there is no other rendering of a list to keep stable; a tool that wants the lists as data
reads the facts tables, whose list columns survive Arrow, Parquet and pickle as lists.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

INT, BOOL, STR = "Int64", "boolean", "string"
#: list-valued facts (issue 16: "real list columns, not joined strings"): Arrow lists in pandas, so a row is
#: null (not known) or a list (empty: known to be none), and a column is offsets and values, never a Python
#: object per row. The names are what pandas calls the dtypes, like the three above.
LIST_INT, LIST_STR = "list<item: int64>[pyarrow]", "list<item: string>[pyarrow]"
#: the Arrow type of each list dtype
LIST_TYPES: dict[str, pa.DataType] = {LIST_INT: pa.list_(pa.int64()), LIST_STR: pa.list_(pa.string())}

#: table -> [(column, dtype, meaning)], in contract order: the one place a fact is declared. Typed into
#: `Fact` records below (`FACT_COLUMNS`, `FACT_TABLES`); the literal stays plain tuples so that adding a
#: fact is one line. A list column has a fourth item: the separator its items are written with in messages
#: and reports (`list_text`: "1,3", "pot 0: held 300, paid 250; pot 1: ..."), as the engine wrote the joined
#: text before the lists were typed, so every finding reads the same.
_DECLARED: dict[str, list[tuple[str, ...]]] = {
    "actions": [
        ("hand", INT, "hand row number in the batch"),
        ("seq", INT, "event index within the hand"),
        ("street", INT, "betting round, 0 = first"),
        ("round", INT, "betting round, 1 = first (for messages)"),
        ("seat", INT, "seat that acted"),
        ("player", STR, "player in that seat"),
        ("expected_seat", INT, "seat whose turn it was by the table state (null if the round was over)"),
        ("action", STR, "verb in the log: fold, check, call, bet, raise"),
        ("amount", INT, "chips added by the action"),
        ("to", INT, "the player's round total after the action, as the log states it"),
        ("made", INT, "the player's round total after the action, as replayed from amounts"),
        ("all_in", BOOL, "the player has no chips left after the action (from stacks, not the log's flag)"),
        ("all_in_declared", BOOL, "the log's all-in flag"),
        ("current_bet", INT, "highest round total before the action"),
        ("amount_to_call", INT, "chips the player needed to call: the bet faced (a big blind posted all-in short "
                                "counts in full), but only what matches the others when every other player still "
                                "in is all-in"),
        ("min_raise_increment", INT, "largest bet or raise increment so far in the round (first round: last blind)"),
        ("raise_increment", INT, "for a bet or raise: new round total minus the bet it faced"),
        ("is_bet", BOOL, "aggressive action with no bet in the round yet"),
        ("is_raise", BOOL, "aggressive action facing a bet (a blind counts as the opening bet)"),
        ("full_raise", BOOL, "bet or raise large enough to reopen the betting"),
        ("raises_before", INT, "full raises in the round before this action"),
        ("raise_number", INT, "for a raise: full raises in the round including it"),
        ("live_players", INT, "players not folded, before the action"),
        ("active_players", INT, "players not folded and not all-in (able to bet), before the action"),
        ("heads_up", BOOL, "exactly two players able to bet at the action"),
        ("heads_up_round_start", BOOL, "exactly two players able to bet when the round began"),
        ("pot_before", INT, "all chips in the pot including bets of this round, before the action"),
        ("pot_limit_max", INT, "largest round total a pot-limit raise may make (the call counted in the pot)"),
        ("bet_unit", INT, "fixed limit: the bet size of this round"),
        ("spread_min", INT, "spread limit: smallest bet of this round"),
        ("spread_max", INT, "spread limit: largest bet of this round"),
        ("stack_before", INT, "player's chips behind before the action"),
        ("actor_folded", BOOL, "the player had already folded"),
        ("actor_all_in", BOOL, "the player was already all-in"),
        ("open_after_full_raise", BOOL, "the player has not acted since the last full bet or raise of the round "
                                        "(fixed limit: an all-in of at least limit_reopen_fraction of the unit is "
                                        "full)"),
        ("open_after_cumulative_raise", BOOL, "the player has not acted since the last full bet or raise, or since "
                                              "short all-ins that together add up to a full raise over the bet the "
                                              "last such reopening left (TDA 47-A's 'cumulative multiple short "
                                              "all-ins'); a pack chooses which of the two reopens"),
        ("min_bet", INT, "smallest opening bet: the big blind (no/pot limit), the unit (fixed), the spread minimum"),
        ("amount_to_call_in_full", INT, "chips to reach the bet faced, a big blind posted all-in short counted in "
                                        "full: more than amount_to_call only when every other player still in is "
                                        "all-in for less (the excess of such a call is returned as uncalled)"),
    ],
    "rounds": [
        ("hand", INT, "hand row number"),
        ("seq", INT, "event index of the deal or draw that opened the round (null for the first round)"),
        ("close_seq", INT, "event index of the deal or draw that closed it (null at the end of the hand)"),
        ("street", INT, "betting round, 0 = first"),
        ("round", INT, "betting round, 1 = first"),
        ("board_cards", INT, "community cards dealt for this round"),
        ("board_expected", INT, "community cards the variant deals for this round"),
        ("burns", INT, "burn cards logged before this round's community cards (null if none dealt)"),
        ("burns_expected", INT, "one burn before a round's community cards; none with the hole cards"),
        ("live_at_deal", INT, "players not folded when this round's community cards came"),
        ("live_players", INT, "players not folded when the round closed"),
        ("able_players", INT, "players able to bet when the round closed"),
        ("pending_seat", INT, "a player who still had to act when the round closed (null if none)"),
        ("pending_player", STR, "that player"),
        ("closed_by", STR, "what ended the round: next round, end of hand"),
        ("uncalled_seat", INT, "the seat whose last bet in the round was not fully called"),
        ("uncalled_player", STR, "that player"),
        ("uncalled_expected", INT, "the uncalled part of that bet, which goes back to the bettor"),
        ("returned", INT, "chips the log returned during this round"),
        ("returned_net", INT, "the return on the bettor's net result: what was returned, counted as the uncalled "
                              "bet when the bettor won every pot and was given back more (a room's booking of the "
                              "whole blind returned and the rest of the pot won) or, with no rake, less (a "
                              "converter's booking: no return, the uncalled chips paid with the pot): the same "
                              "chips either way"),
        ("actions", INT, "actions taken in the round"),
        ("draw_round", BOOL, "a draw preceded this round"),
        ("hand_chip_balance", INT, "the hand's chips in − returned − awarded − rake (null if nothing was paid out)"),
    ],
    "draws": [
        ("hand", INT, "hand row number"),
        ("seq", INT, "event index"),
        ("seat", INT, "seat that drew"),
        ("player", STR, "player"),
        ("expected_seat", INT, "seat due to draw: clockwise from the button, then from the last drawer"),
        ("discards", INT, "cards discarded"),
        ("receives", INT, "cards received"),
        ("max_draw", INT, "most cards the variant lets a player draw"),
        ("actor_folded", BOOL, "the player had folded"),
    ],
    "blinds": [
        ("hand", INT, "hand row number"),
        ("seq", INT, "event index of the post (null if the blind was not posted)"),
        ("blind", INT, "place in the blind order, 1 = first blind"),
        ("seat", INT, "seat that posted it (null if nobody did)"),
        ("player", STR, "player who posted it"),
        ("expected_seat", INT, "seat that owed it: clockwise from the button; heads-up the button posts the first"),
        ("expected_player", STR, "player in the expected seat"),
        ("amount", INT, "amount posted"),
        ("expected_amount", INT, "the table's declared blind"),
        ("posted", BOOL, "the blind was posted"),
        ("in_order", BOOL, "no later blind was posted before it"),
        ("all_in", BOOL, "the post took the player's last chips"),
        ("button", INT, "button seat"),
        ("players", INT, "players dealt in"),
        ("blinds_required", INT, "compulsory blinds the table declares"),
        ("seat_after_previous_blind", INT, "dead-button reading: the first seat dealt in after the previous blind "
                                           "actually posted (after the button for the first); heads-up the button"),
    ],
    "pots": [
        ("hand", INT, "hand row number"),
        ("seq", INT, "event index of the pot's first award"),
        ("pot", INT, "pot id: 0 main, then side pots in the order they formed"),
        ("seat", INT, "the seat the finding is about: first odd-chip recipient, else first winner"),
        ("player", STR, "player in that seat"),
        ("pot_amount", INT, "pot built from contributions (null if the log names a pot that never formed)"),
        ("rake", INT, "rake taken from this pot"),
        ("awarded", INT, "chips the log paid out of this pot"),
        ("eligible_seats", LIST_INT, "seats eligible for the pot", ","),
        ("winners", INT, "number of seats paid from the pot"),
        ("winner_seats", LIST_INT, "seats paid", ","),
        ("shares", LIST_STR, "seat:amount paid, one item per seat paid (in the order of winner_seats)", ", "),
        ("equal_share", INT, "an equal share down to the chip unit"),
        ("odd_chips", INT, "chips left after equal shares, in chip units"),
        ("min_share", INT, "smallest share paid"),
        ("max_share", INT, "largest share paid"),
        ("share_ok", BOOL, "every share is the equal share or one unit more, and the extras are the odd chips"),
        ("odd_chip_seats", LIST_INT, "seats that received an odd chip", ","),
        ("odd_chip_seats_by_suit", LIST_INT, "seats owed the odd chips by the highest card by suit among hole cards "
                                         "used (null if a winner's cards are unknown)", ","),
        ("odd_chip_seats_by_position", LIST_INT,
         "seats owed the odd chips by position: first winners clockwise from the button", ","),
        ("top_hole_cards_used", LIST_STR, "per winner, seat:card of the highest hole card used in the winning hand "
                                      "(null if a winner's cards are unknown)", ", "),
        ("winner_seats_by_evaluation", LIST_INT,
         "eligible seats holding the best hand (null if a contender's cards are unknown)", ","),
        ("best_hand", STR, "the winning hand by evaluation, in words (null if a contender's cards are unknown: a "
                       "hand with a card the log hides is never rated on the cards it shows)"),
        ("winners_match", BOOL, "the seats paid are exactly the winners by evaluation (null if not evaluable)"),
        ("split_without_tie", BOOL, "paid to every winner by evaluation and to others too: divided without a tie "
                               "(null if not evaluable)"),
        ("hand_chip_balance", INT, "the hand's chips in − returned − awarded − rake (0 when nothing leaked)"),
        ("pots_formed", INT, "pots the contributions form"),
        ("paid_without_showing", LIST_INT, "seats paid from a pot two or more contested, without showing their cards",
         ","),
        ("chip_unit", INT, "the table's smallest chip"),
        ("button", INT, "button seat"),
    ],
    "seat_draws": [
        ("hand", INT, "hand row number"),
        ("seq", INT, "event index"),
        ("seat", INT, "the contested seat"),
        ("player", STR, "player who got the seat"),
        ("awarded_to", STR, "player who got the seat"),
        ("highest_card_holder", STR,
         "player who drew the highest card (rank, then suit order); null if a card is unknown"),
        ("contenders", INT, "players who drew"),
        ("draws", LIST_STR, "player and card drawn, one item per player who drew", ", "),
    ],
    "seats": [
        ("hand", INT, "hand row number"),
        ("seq", INT, "no event: always null"),
        ("seat", INT, "seat"),
        ("player", STR, "player in it"),
        ("status", STR, "status in the log: active, sitting_out, new, away"),
        ("dealt_in", BOOL, "the player was dealt in"),
        ("owed", LIST_STR, "blinds the player missed in earlier hands of the table and still owed: sb, bb (null when "
                           "the table's previous hand is not known: its first hand, or the hand after a quarantined "
                           "one)", ","),
        ("in_big_blind", BOOL, "the player posted the big blind in position this hand"),
        ("made_up", BOOL, "posted what was owed: the big blind live and the small blind dead (null if nothing owed)"),
        ("missed_now", STR, "the blind this player missed this hand by sitting out: sb or bb"),
        ("new_player", BOOL, "not dealt in at the table before, or left since (null for a table's first hand)"),
        ("between_button_and_big_blind", BOOL, "the seat lies clockwise after the button and before the big blind"),
        ("posted_live_big_blind", BOOL, "posted a big blind's worth live out of the blind order (post kind missed)"),
        ("previous_hand", STR, "id of the table's previous hand, which owed blinds and new players are judged from "
                               "(null for its first hand, or after a quarantined hand)"),
        ("missed_in", LIST_STR, "ids of the hands in which the owed blinds were missed, in text order (null when "
                                "nothing was missed)", ", "),
    ],
    "seat_fills": [
        ("hand", INT, "hand row number"),
        ("seq", INT, "event index of the fill"),
        ("seat", INT, "the seat filled"),
        ("player", STR, "who got it"),
        ("from_seated", BOOL, "the player got it on a seated player's request to move (null: no requests logged)"),
        ("seated_requests_passed_over", LIST_STR, "seated players whose earlier request for the seat was passed "
                                                  "over, each as player (seat N) (null: no requests logged)", ", "),
    ],
    "hands": [
        ("hand", INT, "hand row number"),
        ("button", INT, "button seat"),
        ("previous_button", INT, "button seat in the table's previous hand (null for a table's first hand)"),
        ("expected_button", INT, "moving button: the first seat dealt in clockwise after the previous button"),
        ("button_by_blinds", INT, "seat of the player the previous hand's blinds give the button to by the pack's "
                                  "button_heir (seed 004: its small blind, or its big blind if the small blind was "
                                  "missed or posted by the button); null for a table's first hand, if the pack names "
                                  "no heir, or if that player is not dealt in now"),
        ("players", INT, "players dealt in"),
        ("duplicate_hand_id", BOOL, "an earlier hand in this run had the same hand id (written by the run-wide "
                                    "ledger for rules with scope: run; null in a batch's facts)"),
        ("wrong_hole_counts", LIST_INT, "seats dealt other than the variant's hole cards (null: no deals logged)",
         ","),
        ("duplicate_cards", LIST_STR, "cards that appear in two places, with where: one item per repeat", ", "),
        ("shown_not_dealt", LIST_STR, "seats that showed a card they did not hold (every card they were dealt and "
                                      "drew known): one item per such show, the cards shown and the cards held", "; "),
        ("burns_logged", BOOL, "the log records burn cards"),
        ("chips_in", INT, "chips put in by posts and actions"),
        ("returned", INT, "uncalled chips given back"),
        ("awarded", INT, "chips paid out"),
        ("rake", INT, "rake taken"),
        ("chip_balance", INT, "chips_in − returned − awarded − rake (null if the log pays nothing out)"),
        ("pots_misawarded", LIST_STR, "pots that paid out more than they held, or less than they held minus the "
                                      "rake (rake stated for the whole hand allocated as the pack's hand_rake_from "
                                      "says), one item per pot: pot N: held X, paid Y", "; "),
        ("lowest_stack", INT, "the lowest any stack went during the hand"),
        ("showdown", BOOL, "two or more players were still in at the end"),
        ("first_shown_seat", INT, "the first seat to show its cards"),
        ("expected_first_to_show", INT, "last aggressor of the final round, else first live seat left of the button"),
        ("final_aggressor", INT, "the last player to bet or raise in the final round"),
        ("final_round", INT, "the last betting round reached, 1 = first"),
        ("big_blind_player", STR, "who posted the last compulsory blind"),
        ("previous_big_blind_player", STR, "who posted it in the table's previous hand (null for its first hand)"),
        ("players_in_two_seats", LIST_STR, "players listed in more than one seat of the hand", ", "),
        ("contested", INT, "the pot actually contested: chips put in less uncalled chips returned"),
        ("rake_allowed", INT, "the most the pack's rake_schedule lets the house take from this hand "
                              "(null when the pack sets no schedule)"),
        ("previous_hand", STR, "id of the table's previous hand, which the button and heads-up blinds are judged "
                               "from (null for its first hand, or after a quarantined hand: not assessable)"),
        ("duplicate_of", STR, "file:line of the first hand in the run with this hand id (null unless a duplicate; "
                              "written by the run-wide ledger, like duplicate_hand_id)"),
        ("killed_seats", LIST_INT, "seats whose hand the house declared dead (kill events)", ","),
        ("seating_conflicts", LIST_STR, "players listed in two seats, and seats listed for two players: one item "
                                        "per conflict", "; "),
        ("previous_small_blind_player", STR, "who posted the small blind in the table's previous hand (null: missed, "
                                             "not a two-blind table, or its first hand)"),
        ("previous_small_blind_missed", BOOL, "nobody posted the small blind in the table's previous hand (null: not "
                                              "a two-blind table, or its first hand)"),
        ("previous_small_blind_on_button", BOOL, "the previous hand's small blind was posted by its button (heads-up; "
                                                 "null if it was missed or is not known)"),
    ],
}

#: columns that come from the canonical hands table and are joined onto every facts table
HAND_COLUMNS = ("hand_id", "table_id", "variant", "structure", "file", "line", "rule_pack", "chip_unit", "table_min",
                "table_max", "max_seats")

#: what one row of each facts table is about (docs and `auditor rules show` say it beside the table's name)
TABLE_ROWS: dict[str, str] = {
    "actions": "one row per action", "rounds": "one row per betting round", "draws": "one row per draw",
    "blinds": "one row per blind the table requires", "pots": "one row per pot",
    "seat_draws": "one row per seating draw", "seats": "one row per seat listed in a hand",
    "seat_fills": "one row per seat filled", "hands": "one row per hand",
}

DTYPES = (INT, BOOL, STR, LIST_INT, LIST_STR)


class FactContractError(ValueError):
    """A writer broke the facts contract: a column missing, undeclared, of the wrong type or length.

    Always a bug of ours (no log can cause it), so the message names the table and the column."""


class Fact(NamedTuple):
    """One declared column: a NamedTuple, so code that unpacks `(name, dtype, meaning)` keeps working."""

    name: str
    dtype: str
    meaning: str


@dataclass(frozen=True)
class FactTable:
    """One facts table's declaration: its columns in contract order, looked up by name."""

    name: str
    rows: str
    columns: tuple[Fact, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    def fact(self, name: str) -> Fact:
        """The declared column `name`; an unknown name is a contract error naming the nearest ones."""
        for column in self.columns:
            if column.name == name:
                return column
        near = difflib.get_close_matches(name, self.names, n=3)
        raise FactContractError(f"facts table {self.name!r} declares no column {name!r}"
                                + (f" (did you mean {', '.join(near)}?)" if near else ""))

    def frame(self, columns: Mapping[str, Any], nulls: Mapping[str, Any] | None = None) -> pd.DataFrame:
        return facts_frame(self.name, columns, nulls)


def _typed(declared: Mapping[str, list[tuple[str, ...]]], separators: dict[str, str]) -> dict[str, FactTable]:
    """The declaration checked once at import: a duplicate name, an unknown dtype or an undocumented
    column is refused here, before any engine writes a row; so is a list column without its separator (or
    a separator on a column that is no list), and one name written with two separators in two tables
    (a placeholder is rendered by its name). `separators` is filled with each list column's."""
    tables: dict[str, FactTable] = {}
    for table, columns in declared.items():
        facts = tuple(Fact(*column[:3]) for column in columns)
        seen: set[str] = set()
        for fact, column in zip(facts, columns, strict=True):
            if fact.name in seen:
                raise FactContractError(f"facts table {table!r} declares {fact.name!r} twice")
            if fact.dtype not in DTYPES:
                raise FactContractError(f"{table}.{fact.name}: dtype {fact.dtype!r} is none of {DTYPES}")
            if not fact.meaning.strip():
                raise FactContractError(f"{table}.{fact.name}: a fact without a meaning cannot be documented")
            if (len(column) == 4) != (fact.dtype in LIST_TYPES) or len(column) > 4:
                raise FactContractError(f"{table}.{fact.name}: a list column, and only a list column, declares "
                                        f"the separator its items are written with")
            if len(column) == 4 and separators.setdefault(fact.name, column[3]) != column[3]:
                raise FactContractError(f"{table}.{fact.name}: separator {column[3]!r}, elsewhere "
                                        f"{separators[fact.name]!r}")
            seen.add(fact.name)
        if table not in TABLE_ROWS:
            raise FactContractError(f"facts table {table!r} does not say what its rows are (TABLE_ROWS)")
        tables[table] = FactTable(table, TABLE_ROWS[table], facts)
    return tables


#: list column name -> the separator its items are written with (`list_text`), from the declaration
LIST_SEPARATORS: dict[str, str] = {}
#: table name -> its declaration
FACT_TABLES: dict[str, FactTable] = _typed(_DECLARED, LIST_SEPARATORS)
#: table -> (Fact(column, dtype, meaning), ...): the same declaration, as every reader has always used it
FACT_COLUMNS: dict[str, tuple[Fact, ...]] = {name: table.columns for name, table in FACT_TABLES.items()}


def fact_table(table: str) -> FactTable:
    try:
        return FACT_TABLES[table]
    except KeyError:
        raise FactContractError(f"no facts table {table!r} (tables: {', '.join(FACT_TABLES)})") from None


def facts_frame(table: str, columns: Mapping[str, Any], nulls: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """The facts table `table` from its columns by name, in contract order, each of its declared dtype.

    `columns` maps every declared column name to its values: a NumPy array (what a kernel writes), an
    Arrow or pandas array, or a list of Python values (`FactRows`' rows, None for null).
    `nulls` optionally maps a column name to a boolean mask, True where the value is null (a kernel's
    array cannot hold a null). A missing or undeclared column, a mask for an unknown column, columns of
    different lengths, or an array of the wrong kind (a float array for an integer fact, numbers for a
    text fact) is a `FactContractError` naming the table and column: writing by name only helps if a
    wrong name or type cannot pass silently."""
    spec = fact_table(table)
    nulls = nulls or {}
    given, declared = set(columns), set(spec.names)
    if given != declared:
        missing, extra = [n for n in spec.names if n not in given], sorted(given - declared)
        raise FactContractError(f"facts table {table!r}: " + "; ".join(
            part for part in (f"missing column(s) {', '.join(missing)}" if missing else "",
                              f"undeclared column(s) {', '.join(extra)}" if extra else "") if part))
    unknown = sorted(set(nulls) - declared)
    if unknown:
        raise FactContractError(f"facts table {table!r}: null mask for undeclared column(s) {', '.join(unknown)}")
    out: dict[str, Any] = {}
    length: int | None = None
    for fact in spec.columns:
        array = _column(table, fact, columns[fact.name], nulls.get(fact.name))
        if length is None:
            length = len(array)
        elif len(array) != length:
            raise FactContractError(f"{table}.{fact.name}: {len(array)} values where {spec.names[0]} has {length}")
        out[fact.name] = array
    return frame_of(out)


def frame_of(columns: dict[str, Any]) -> pd.DataFrame:
    """A DataFrame of these pandas arrays, taken as they are where that is safe.

    pandas copies every column of a dict by default, a quarter of the facts' building time; the builders'
    arrays are new, so the frame can take them (`copy=False`), except an array that is read-only (a NumPy
    view of an Arrow buffer: the frame's columns must stay writable, as a copy's are), that is given twice, or
    whose values or null mask overlap in memory those of a column before it (writing into one column must
    never change another). Those few are copied. Overlap is judged on the bytes each buffer spans, not on a
    shared base array: the kernels write a table's columns as the rows of one 2-D array, and rows of it side
    by side are distinct columns that may be taken without a copy. Every span is checked at once first (sorted
    by start), so a frame with nothing to copy costs no Python per pair of columns."""
    buffers = [_buffers(array) for array in columns.values()]
    flat = [b for parts in buffers for b in parts if b.size]
    if len({id(array) for array in columns.values()}) == len(columns) and all(b.flags.writeable for b in flat):
        roots = [_root(b) for b in flat]  # buffers can overlap only if they are views of one owner
        shared = {r for r, k in Counter(map(id, roots)).items() if k > 1}
        spans = np.array([_span(b) for b, r in zip(flat, roots, strict=True) if id(r) in shared], np.int64)
        spans = spans.reshape(-1, 2)[np.argsort(spans.reshape(-1, 2)[:, 0], kind="stable")]
        if not (spans[1:, 0] < np.maximum.accumulate(spans[:-1, 1])).any():  # the usual case: nothing to copy
            return _frame_taking(columns)
    seen: set[int] = set()
    taken: list[tuple[int, int]] = []
    out: dict[str, Any] = {}
    for (name, array), parts in zip(columns.items(), buffers, strict=True):
        if id(array) in seen or any(not b.flags.writeable or _overlaps(b, taken) for b in parts):
            array = array.copy()
            parts = _buffers(array)
        seen.add(id(array))
        taken.extend(_span(b) for b in parts if b.size)
        out[name] = array
    return _frame_taking(out)


def _frame_taking(columns: dict[str, Any]) -> pd.DataFrame:
    """`pd.DataFrame(columns, copy=False)` without its per-column sanitising (a few µs a column, half of
    building a frame; the facts' columns are pandas arrays already): pandas' own constructor from arrays, the
    lengths checked here. The public constructor where pandas does not have it."""
    arrays = list(columns.values())
    lengths = {len(array) for array in arrays}
    if len(lengths) > 1:
        raise ValueError(f"columns of different lengths {sorted(lengths)}")
    from_arrays = getattr(pd.DataFrame, "_from_arrays", None)
    if from_arrays is None or not arrays:
        return pd.DataFrame(dict(columns), copy=False)
    return from_arrays(arrays, columns=pd.Index(list(columns)), index=pd.RangeIndex(lengths.pop()),
                       verify_integrity=False)


def _buffers(array: Any) -> list[np.ndarray]:
    """The NumPy buffers of a pandas masked array (values and null mask); none for an Arrow-backed one."""
    return [b for b in (getattr(array, "_data", None), getattr(array, "_mask", None)) if isinstance(b, np.ndarray)]


def _root(buffer: np.ndarray) -> Any:
    """The object that owns a buffer's memory (the end of its chain of bases)."""
    while isinstance(buffer, np.ndarray) and buffer.base is not None:
        buffer = buffer.base
    return buffer


def _span(buffer: np.ndarray) -> tuple[int, int]:
    return np.lib.array_utils.byte_bounds(buffer)


def _overlaps(buffer: np.ndarray, spans: list[tuple[int, int]]) -> bool:
    """Whether the bytes `buffer` spans meet any of `spans` (an empty buffer meets nothing). A strided view
    is judged by its whole span: conservative (a copy where none was needed), never a missed overlap."""
    if not buffer.size:
        return False
    lo, hi = _span(buffer)
    return any(lo < b_hi and b_lo < hi for b_lo, b_hi in spans)


def allocate(table: str, n: int) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Preallocated output arrays for the integer and boolean columns of `table`, by name: values
    (int64 zeros, False) and null masks (all True: a value is null until a kernel writes it and clears
    its mask). Text and list columns are not allocated: a kernel writes codes the caller turns into text, and
    offsets and values the caller makes a list column of (`list_column`)."""
    n = max(0, int(n))
    values: dict[str, np.ndarray] = {}
    masks: dict[str, np.ndarray] = {}
    for fact in fact_table(table).columns:
        if fact.dtype == STR or fact.dtype in LIST_TYPES:
            continue
        values[fact.name] = np.zeros(n, dtype=np.int64 if fact.dtype == INT else np.bool_)
        masks[fact.name] = np.ones(n, dtype=np.bool_)
    return values, masks


def _column(table: str, fact: Fact, values: Any, null: Any) -> pd.api.extensions.ExtensionArray:
    where = f"{table}.{fact.name}"
    if fact.dtype in LIST_TYPES:
        return _list_values(where, fact.dtype, values, null)
    if isinstance(values, list | tuple):
        if null is not None:
            values = [None if n else v for v, n in zip(values, _mask(where, null, len(values)), strict=True)]
        try:
            return _array(values if isinstance(values, list) else list(values), fact.dtype)
        except (TypeError, ValueError, pa.ArrowException) as exc:
            raise FactContractError(f"{where} ({fact.dtype}): {exc}") from exc
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if isinstance(values, pa.Array):
        return _from_arrow(where, fact.dtype, values, null)
    if isinstance(values, pd.api.extensions.ExtensionArray | pd.Series):
        if str(values.dtype) != fact.dtype:
            raise FactContractError(f"{where}: a {values.dtype} column where the contract declares {fact.dtype}")
        array = pd.array(values, dtype=fact.dtype)
        if null is not None:
            array = array.copy()
            array[_mask(where, null, len(array))] = pd.NA
        return array
    if isinstance(values, np.ndarray):
        return _from_numpy(where, fact.dtype, values, null)
    raise FactContractError(f"{where}: values of type {type(values).__name__} (give an array or a list)")


def _mask(where: str, null: Any, n: int) -> np.ndarray:
    mask = np.asarray(null)
    if mask.dtype != np.bool_ or mask.ndim != 1 or len(mask) != n:
        raise FactContractError(f"{where}: the null mask must be {n} booleans (got {mask.dtype}, shape {mask.shape})")
    return mask


def _from_numpy(where: str, dtype: str, values: np.ndarray, null: Any) -> pd.api.extensions.ExtensionArray:
    if values.ndim != 1:
        raise FactContractError(f"{where}: a {values.ndim}-dimensional array (a column is one-dimensional)")
    mask = _mask(where, null, len(values)) if null is not None else np.zeros(len(values), dtype=np.bool_)
    kind = values.dtype.kind
    if dtype == INT:
        if kind not in "iu":
            raise FactContractError(f"{where}: a {values.dtype} array where the contract declares integers")
        if kind == "u" and values.dtype.itemsize == 8 and len(values) and values.max() > np.iinfo(np.int64).max:
            raise FactContractError(f"{where}: unsigned values beyond int64")
        return pd.arrays.IntegerArray(values.astype(np.int64, copy=True), mask.copy())
    if dtype == BOOL:
        if kind != "b":
            raise FactContractError(f"{where}: a {values.dtype} array where the contract declares booleans")
        return pd.arrays.BooleanArray(values.copy(), mask.copy())
    if kind not in "OUT":
        raise FactContractError(f"{where}: a {values.dtype} array where the contract declares text")
    text = values.astype(object)
    if null is not None:
        text = np.where(mask, None, text)
    try:  # Arrow checks in C that every value is text or None (pandas would quietly turn 1 into "1")
        arrow = pa.array(text, pa.string(), from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise FactContractError(f"{where}: {exc} (the contract declares text)") from exc
    return pd.array(arrow, dtype=STR)


def _from_arrow(where: str, dtype: str, values: pa.Array, null: Any) -> pd.api.extensions.ExtensionArray:
    t = values.type
    fits = (pa.types.is_integer(t) if dtype == INT else pa.types.is_boolean(t) if dtype == BOOL
            else pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t))
    if not fits and not pa.types.is_null(t):
        raise FactContractError(f"{where}: an Arrow {t} array where the contract declares {dtype}")
    if null is not None:
        values = pc.if_else(pa.array(_mask(where, null, len(values))), pa.nulls(len(values), values.type), values)
    target = pa.int64() if dtype == INT else pa.bool_() if dtype == BOOL else pa.string()
    try:
        values = values.cast(target)
    except pa.ArrowInvalid as exc:
        raise FactContractError(f"{where}: {exc}") from exc
    mask = values.is_null().to_numpy(zero_copy_only=False)
    if dtype == INT:
        return pd.arrays.IntegerArray(pc.fill_null(values, 0).to_numpy(zero_copy_only=False), mask)
    if dtype == BOOL:
        return pd.arrays.BooleanArray(pc.fill_null(values, False).to_numpy(zero_copy_only=False), mask)
    return pd.array(values, dtype=STR)


def _list_values(where: str, dtype: str, values: Any, null: Any) -> pd.api.extensions.ExtensionArray:
    """A list column from an Arrow list array (what `list_column` builds from a kernel's offsets and values),
    a pandas column of the same dtype, or Python rows (`FactRows`: a list or tuple of items per row, None for
    null). Text where a list belongs is refused, never split into characters as Arrow would, and so are
    items of the wrong kind (a float or a bool among seats, a number among words)."""
    target = LIST_TYPES[dtype]
    if isinstance(values, pd.Series):
        values = values.array
    if isinstance(values, pd.api.extensions.ExtensionArray):
        if str(values.dtype) != dtype:
            raise FactContractError(f"{where}: a {values.dtype} column where the contract declares {dtype}")
        values = pa.array(values)
    elif isinstance(values, np.ndarray):
        if values.ndim != 1 or values.dtype != np.dtype(object):
            raise FactContractError(f"{where}: a {values.dtype} array where the contract declares {dtype} "
                                    f"(give one list per row)")
        values = values.tolist()
    if isinstance(values, list | tuple):
        item = int if dtype == LIST_INT else str
        for row in values:
            if row is not None and (not isinstance(row, list | tuple)
                                    or not all(type(v) is item or (item is int and isinstance(v, np.integer))
                                               for v in row)):
                raise FactContractError(f"{where}: {type(row).__name__} value {str(row)[:40]!r} where the contract "
                                        f"declares {dtype} (a list of {item.__name__} per row, or None)")
        try:
            values = pa.array(values, target)
        except (TypeError, ValueError, pa.ArrowException) as exc:
            raise FactContractError(f"{where} ({dtype}): {exc}") from exc
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if not isinstance(values, pa.Array):
        raise FactContractError(f"{where}: values of type {type(values).__name__} (give an array or a list)")
    t = values.type
    fits = pa.types.is_null(t) or ((pa.types.is_list(t) or pa.types.is_large_list(t)) and (
        pa.types.is_integer(t.value_type) if dtype == LIST_INT else
        pa.types.is_string(t.value_type) or pa.types.is_large_string(t.value_type) or pa.types.is_null(t.value_type)))
    if not fits:
        raise FactContractError(f"{where}: an Arrow {t} array where the contract declares {dtype}")
    try:
        values = values.cast(target)
    except pa.ArrowInvalid as exc:
        raise FactContractError(f"{where}: {exc}") from exc
    if null is not None:
        values = pc.if_else(pa.array(~_mask(where, null, len(values))), values, pa.nulls(len(values), target))
    return pd.arrays.ArrowExtensionArray(values)


def list_column(offsets: np.ndarray, values: pa.Array | np.ndarray, null: np.ndarray | None = None,
                ) -> pd.api.extensions.ExtensionArray:
    """A list column straight from offsets (n + 1, int, starting at 0, never decreasing: the caller's own) and
    the items in row order (int64 NumPy values or an Arrow string array): no Python per row. `null` marks the
    rows that are not known (their items, if any, are dropped); an empty row is a known empty list."""
    items = values if isinstance(values, pa.Array) else pa.array(np.asarray(values, dtype=np.int64))
    if pa.types.is_large_string(items.type) or pa.types.is_string_view(items.type):
        items = items.cast(pa.string())
    offsets = np.asarray(offsets, dtype=np.int64)
    if len(offsets) and offsets[-1] > np.iinfo(np.int32).max:  # a batch is far smaller: never wrap silently
        raise FactContractError(f"a list column of {offsets[-1]} items (more than 32-bit offsets hold)")
    mask = None if null is None or not np.any(null) else pa.array(np.asarray(null, dtype=np.bool_))
    array = pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), items, mask=mask)
    return pd.arrays.ArrowExtensionArray(array)


def list_text(values: Any, separator: str = ",") -> pa.Array:
    """A list column as text, each row's items joined by `separator` ("1,3"; a null row stays null, an empty
    list is ""): the one place a list fact becomes the text messages, reports and snapshots show, so a
    finding reads exactly as it did when the engine wrote joined strings. `values` is a pandas list
    column or an Arrow list array; the separator of a fact is `LIST_SEPARATORS[name]`."""
    if isinstance(values, pd.Series):
        values = values.array
    array = pa.array(values) if not isinstance(values, pa.Array | pa.ChunkedArray) else values
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if not (pa.types.is_list(array.type) or pa.types.is_large_list(array.type)):
        raise FactContractError(f"list_text of a {array.type} array (a list column is needed)")
    if not pa.types.is_string(array.type.value_type):
        array = array.cast(pa.list_(pa.string()))
    return pc.binary_join(array, separator)


def is_list(values: Any) -> bool:
    """Whether a pandas column (or array) is a list column."""
    dtype = getattr(values, "dtype", None)
    return isinstance(dtype, pd.ArrowDtype) and (pa.types.is_list(dtype.pyarrow_dtype)
                                                 or pa.types.is_large_list(dtype.pyarrow_dtype))


@dataclass
class FactRows:
    """Rows written in Python (tuples in contract order, or dicts by column name: the replay's seat events); one
    conversion at the end, through the same named builder (`facts_frame`) the kernels use."""

    actions: list = field(default_factory=list)
    blinds: list = field(default_factory=list)
    pots: list = field(default_factory=list)
    seat_draws: list = field(default_factory=list)
    hands: list = field(default_factory=list)
    rounds: list = field(default_factory=list)
    draws: list = field(default_factory=list)
    seats: list = field(default_factory=list)
    seat_fills: list = field(default_factory=list)

    def extend(self, other: FactRows) -> None:
        for name in FACT_COLUMNS:
            getattr(self, name).extend(getattr(other, name))

    def to_facts(self, names: tuple[str, ...] | None = None) -> Facts:
        """The tables `names` (None: every table) as frames; a writer that fills only some of them asks for
        those, and pays nothing for the others."""
        return Facts({name: _frame(name, getattr(self, name)) for name in (names or FACT_COLUMNS)})


def _frame(table: str, rows: list) -> pd.DataFrame:
    """Rows to named columns, then `facts_frame`. A tuple row is read in contract order, so its width
    must be the table's; a dict row must have exactly the declared keys (a misspelt key is an error,
    not a column silently left null)."""
    names = fact_table(table).names
    if rows and isinstance(rows[0], dict):
        extra = set().union(*rows) - set(names)
        if extra:
            raise FactContractError(f"facts table {table!r}: dict rows with undeclared key(s) "
                                    f"{', '.join(sorted(extra))}")
        try:
            columns = {name: [row[name] for row in rows] for name in names}
        except KeyError as exc:
            raise FactContractError(f"facts table {table!r}: a dict row without the key {exc.args[0]!r}") from None
        return facts_frame(table, columns)
    widths = set(map(len, rows))
    if widths - {len(names)}:
        raise FactContractError(f"facts table {table!r}: rows of {sorted(widths)} values, the contract declares "
                                f"{len(names)} columns ({', '.join(names)})")
    columns = list(zip(*rows, strict=True)) if rows else [() for _ in names]
    return facts_frame(table, dict(zip(names, columns, strict=True)))


def _array(values: list, dtype: str) -> pd.api.extensions.ExtensionArray:
    """A nullable pandas column from Python values. Integers and booleans go through Arrow, which
    converts a list in C, about ten times faster than pandas' own inference on this many rows; a value
    Arrow will not take as that type (a float, a bool among ints) falls back to pandas, so the column
    is always what `pd.array(values, dtype)` gives."""
    if dtype in (INT, BOOL):
        try:
            arrow = pa.array(values, pa.int64() if dtype == INT else pa.bool_())
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
            return pd.array(values, dtype=dtype)
        mask = arrow.is_null().to_numpy(zero_copy_only=False)
        if dtype == INT:
            return pd.arrays.IntegerArray(pc.fill_null(arrow, 0).to_numpy(), mask)
        return pd.arrays.BooleanArray(pc.fill_null(arrow, False).to_numpy(zero_copy_only=False), mask)
    return pd.array(values, dtype=dtype)


@dataclass
class Facts:
    """Every facts table of a replay, by name."""

    tables: dict[str, pd.DataFrame]

    def __getitem__(self, name: str) -> pd.DataFrame:
        return self.tables[name]

    @classmethod
    def empty(cls) -> Facts:
        """Every declared table with its columns and no rows (a batch with nothing to replay)."""
        return cls({name: _frame(name, []) for name in FACT_TABLES})
