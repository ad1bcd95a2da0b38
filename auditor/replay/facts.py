"""The facts tables the replay engine writes and the rule packs read: their declaration.

Each table is one row per thing a rule can be about (an action, a required blind, a pot, a seat
draw, a hand). Column names here are the vocabulary of rule predicates, so they are documented
where they are defined; `auditor rules` and the pack schema use this registry to refuse a
predicate that names a fact that does not exist.

The declaration is the contract between whoever writes facts (the compiled kernels' arrays, the
rows the replay words in Python for rare events) and whoever reads them (packs, docs, reports): each column
is a typed `Fact` record. `fact_frames.facts_frame` builds a table from its columns by name, refusing a
missing, undeclared or wrongly typed one. A writer that swaps two columns is caught by the contract test
(`tests/test_facts_contract.py`) or by the golden facts snapshots (`tests/test_facts_snapshots.py`).

List-valued facts (seats paid, odd-chip seats, blinds owed, the pots paid wrongly, ...) are real list
columns (`LIST_INT`, `LIST_STR`: Arrow lists in pandas), null where not known and an empty list where known
to be none. Rules compare them as lists (`auditor/check/expr.py`). People see them as text, always through
`fact_frames.list_text` with the separator the column declares here: messages, expected/actual, every report
built from findings, and the snapshots read the same. No report writes a facts table (the CSV, Parquet and
JSON formats are findings, their texts already rendered), so there is no other rendering of a list to keep
stable; a tool that wants the lists as data reads the facts tables, whose list columns survive Arrow, Parquet
and pickle as lists.

This module imports nothing but the standard library: loading a pack or documenting a rule reads it, and
neither needs pandas or Arrow (`fact_frames` holds what does).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

INT, BOOL, STR = "Int64", "boolean", "string"
#: list-valued facts (real list columns, not joined strings): Arrow lists in pandas, so a row is null (not
#: known) or a list (empty: known to be none), and a column is offsets and values, never a Python object per
#: row. The names are what pandas calls the dtypes, like the three above (their Arrow types:
#: `fact_frames.LIST_TYPES`).
LIST_INT, LIST_STR = "list<item: int64>[pyarrow]", "list<item: string>[pyarrow]"
LIST_DTYPES = (LIST_INT, LIST_STR)

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
            if (len(column) == 4) != (fact.dtype in LIST_DTYPES) or len(column) > 4:
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
