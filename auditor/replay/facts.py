"""The facts tables the replay engine writes and the rule packs read.

Each table is one row per thing a rule can be about (an action, a required blind, a pot, a seat
draw, a hand). Column names here are the vocabulary of rule predicates, so they are documented
where they are defined; `auditor rules` and the pack schema use this registry to refuse a
predicate that names a fact that does not exist.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

INT, BOOL, STR = "Int64", "boolean", "string"

#: table -> [(column, dtype, meaning)]
FACT_COLUMNS: dict[str, list[tuple[str, str, str]]] = {
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
                                        "(fixed limit: an all-in of at least limit_reopen_fraction of the unit is full)"),
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
        ("returned_net", INT, "the return on the bettor's net result: what was returned, less any part beyond the "
                              "uncalled bet given back to the bettor who then won every pot (a room's booking of "
                              "the whole blind returned and the rest of the pot won: the same chips either way)"),
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
        ("eligible_seats", STR, "seats eligible for the pot"),
        ("winners", INT, "number of seats paid from the pot"),
        ("winner_seats", STR, "seats paid"),
        ("shares", STR, "seat:amount paid"),
        ("equal_share", INT, "an equal share down to the chip unit"),
        ("odd_chips", INT, "chips left after equal shares, in chip units"),
        ("min_share", INT, "smallest share paid"),
        ("max_share", INT, "largest share paid"),
        ("share_ok", BOOL, "every share is the equal share or one unit more, and the extras are the odd chips"),
        ("odd_chip_seats", STR, "seats that received an odd chip"),
        ("odd_chip_seats_by_suit", STR, "seats owed the odd chips by the highest card by suit among hole cards used "
                                    "(null if a winner's cards are unknown)"),
        ("odd_chip_seats_by_position", STR,
         "seats owed the odd chips by position: first winners clockwise from the button"),
        ("top_hole_cards_used", STR, "per winner, the highest hole card used in the winning hand (null if a winner's "
                                 "cards are unknown)"),
        ("winner_seats_by_evaluation", STR,
         "eligible seats holding the best hand (null if a contender's cards are unknown)"),
        ("best_hand", STR, "the winning hand by evaluation, in words (null if a contender's cards are unknown: a "
                       "hand with a card the log hides is never rated on the cards it shows)"),
        ("winners_match", BOOL, "the seats paid are exactly the winners by evaluation (null if not evaluable)"),
        ("split_without_tie", BOOL, "paid to every winner by evaluation and to others too: divided without a tie "
                               "(null if not evaluable)"),
        ("hand_chip_balance", INT, "the hand's chips in − returned − awarded − rake (0 when nothing leaked)"),
        ("pots_formed", INT, "pots the contributions form"),
        ("paid_without_showing", STR, "seats paid from a pot two or more contested, without showing their cards"),
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
        ("draws", STR, "player and card drawn"),
    ],
    "seats": [
        ("hand", INT, "hand row number"),
        ("seq", INT, "no event: always null"),
        ("seat", INT, "seat"),
        ("player", STR, "player in it"),
        ("status", STR, "status in the log: active, sitting_out, new, away"),
        ("dealt_in", BOOL, "the player was dealt in"),
        ("owed", STR, "blinds the player missed in earlier hands of the table and still owed: sb, bb (null when the "
                      "table's previous hand is not known: its first hand, or the hand after a quarantined one)"),
        ("in_big_blind", BOOL, "the player posted the big blind in position this hand"),
        ("made_up", BOOL, "posted what was owed: the big blind live and the small blind dead (null if nothing owed)"),
        ("missed_now", STR, "the blind this player missed this hand by sitting out: sb or bb"),
        ("new_player", BOOL, "not dealt in at the table before, or left since (null for a table's first hand)"),
        ("between_button_and_big_blind", BOOL, "the seat lies clockwise after the button and before the big blind"),
        ("posted_live_big_blind", BOOL, "posted a big blind's worth live out of the blind order (post kind missed)"),
        ("previous_hand", STR, "id of the table's previous hand, which owed blinds and new players are judged from "
                               "(null for its first hand, or after a quarantined hand)"),
        ("missed_in", STR, "ids of the hands in which the owed blinds were missed"),
    ],
    "seat_fills": [
        ("hand", INT, "hand row number"),
        ("seq", INT, "event index of the fill"),
        ("seat", INT, "the seat filled"),
        ("player", STR, "who got it"),
        ("from_seated", BOOL, "the player got it on a seated player's request to move (null: no requests logged)"),
        ("seated_requests_passed_over", STR, "seated players whose earlier request for the seat was passed over"),
    ],
    "hands": [
        ("hand", INT, "hand row number"),
        ("button", INT, "button seat"),
        ("previous_button", INT, "button seat in the table's previous hand (null for a table's first hand)"),
        ("expected_button", INT, "moving button: the first seat dealt in clockwise after the previous button"),
        ("button_by_blinds", INT, "seat of the previous hand's small blind, or of its big blind if the small blind "
                                  "was missed or posted by the button (heads-up); null for a table's first hand or "
                                  "if that player is not dealt in now"),
        ("players", INT, "players dealt in"),
        ("duplicate_hand_id", BOOL, "an earlier hand in this run had the same hand id"),
        ("wrong_hole_counts", STR, "seats dealt other than the variant's hole cards (null: no deals logged)"),
        ("duplicate_cards", STR, "cards that appear in two places, with where"),
        ("burns_logged", BOOL, "the log records burn cards"),
        ("chips_in", INT, "chips put in by posts and actions"),
        ("returned", INT, "uncalled chips given back"),
        ("awarded", INT, "chips paid out"),
        ("rake", INT, "rake taken"),
        ("chip_balance", INT, "chips_in − returned − awarded − rake (null if the log pays nothing out)"),
        ("pots_misawarded", STR, "pots that paid out more than they held, or less than they held minus the rake "
                                 "(rake stated for the whole hand allocated as the pack's hand_rake_from says)"),
        ("lowest_stack", INT, "the lowest any stack went during the hand"),
        ("showdown", BOOL, "two or more players were still in at the end"),
        ("first_shown_seat", INT, "the first seat to show its cards"),
        ("expected_first_to_show", INT, "last aggressor of the final round, else first live seat left of the button"),
        ("final_aggressor", INT, "the last player to bet or raise in the final round"),
        ("final_round", INT, "the last betting round reached, 1 = first"),
        ("big_blind_player", STR, "who posted the last compulsory blind"),
        ("previous_big_blind_player", STR, "who posted it in the table's previous hand (null for its first hand)"),
        ("players_in_two_seats", STR, "players listed in more than one seat of the hand"),
        ("contested", INT, "the pot actually contested: chips put in less uncalled chips returned"),
        ("rake_allowed", INT, "the most the pack's rake_schedule lets the house take from this hand "
                              "(null when the pack sets no schedule)"),
        ("previous_hand", STR, "id of the table's previous hand, which the button and heads-up blinds are judged "
                               "from (null for its first hand, or after a quarantined hand: not assessable)"),
        ("duplicate_of", STR, "file:line of the first hand in the run with this hand id (null unless a duplicate)"),
        ("killed_seats", STR, "seats whose hand the house declared dead (kill events)"),
        ("seating_conflicts", STR, "players listed in two seats, and seats listed for two players"),
    ],
}

#: columns that come from the canonical hands table and are joined onto every facts table
HAND_COLUMNS = ("hand_id", "table_id", "variant", "structure", "file", "line", "rule_pack", "chip_unit", "table_min",
                "table_max", "max_seats")


@dataclass
class FactRows:
    """Rows as plain tuples/lists while the engine runs; one conversion at the end."""

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

    def to_facts(self) -> Facts:
        return Facts({name: _frame(name, getattr(self, name)) for name in FACT_COLUMNS})


def _frame(name: str, rows: list) -> pd.DataFrame:
    spec = FACT_COLUMNS[name]
    if rows and isinstance(rows[0], dict):
        columns = [[row[name] for row in rows] for name, _, _ in spec]
    else:
        columns = list(zip(*rows, strict=True)) if rows else [() for _ in spec]
    return pd.DataFrame({col: _array(list(values), dtype) for (col, dtype, _), values in zip(spec, columns,
                                                                                             strict=True)})


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
    tables: dict[str, pd.DataFrame]

    def __getitem__(self, name: str) -> pd.DataFrame:
        return self.tables[name]
