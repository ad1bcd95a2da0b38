"""Write the generated example hands of rules: a legal simulated hand (clean) and the same hand with
one planted violation (violating), for every rule listed in PLAN.

    python scripts/make_rule_examples.py [RULE_ID ...]

Hand-written examples (the first five rules of each pack and a few edge cases) are not touched.
For each rule the script simulates legal hands of the rule's game under its pack, applies the rule's
mutator (auditor/simulate/mutate.py) and keeps the first hand where the clean hand has no finding and
the mutated hand has exactly the expected findings of that rule and of no other. Deterministic.
"""

from __future__ import annotations

import copy
import json
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from auditor.check.packs import builtin_pack_paths, load_pack
from auditor.pipeline import audit
from auditor.simulate import simulate_hands, write_jsonl
from auditor.simulate.mutate import REGISTRY

ROOT = Path(__file__).resolve().parents[1]

NZ, DRAW, TDA = "nz-casino-1999", "online-five-card-draw", "tda-2024"
OM, TC, FD, HE = "omaha-nz", "three-card-nz", "five-card-draw", "holdem"
FL, SL, PL, NL = "fixed-limit", "spread-limit", "pot-limit", "no-limit"

#: (pack, rule) -> (variant, structure, how): `how` names a mutator, or a pair-maker below
PLAN: dict[tuple[str, str], tuple[str, str, str]] = {
    (NZ, "NZ17-1b"): (OM, FL, "drop_hand"),
    (NZ, "NZ17-1d"): (OM, PL, "short_hole"),
    (NZ, "NZ15-1d"): (TC, FL, "short_hole"),
    (NZ, "NZ17-3a-board"): (OM, PL, "extra_board_card"),
    (NZ, "NZ15-3a-board"): (TC, FL, "extra_board_card"),
    (NZ, "NZ17-3a-won"): (OM, PL, "rabbit_hunt"),
    (NZ, "NZ15-3a-won"): (TC, FL, "rabbit_hunt"),
    (NZ, "NZ17-3a-burn"): (OM, FL, "remove_burn"),
    (NZ, "NZ15-3a-burn"): (TC, FL, "remove_burn"),
    (NZ, "NZ17-2a"): (OM, FL, "out_of_turn"),
    (NZ, "NZ15-2a"): (TC, FL, "out_of_turn"),
    (NZ, "NZ17-2-check"): (OM, PL, "check_facing_bet"),
    (NZ, "NZ17-2-out"): (OM, PL, "act_after_fold"),
    (NZ, "NZ17-2-closed"): (OM, FL, "round_closed_early"),
    (NZ, "NZ17-6b"): (OM, FL, "table_minimum"),
    (NZ, "NZ17-6c-max"): (OM, NL, "table_maximum"),
    (NZ, "NZ17-6d"): (OM, PL, "over_pot"),
    (NZ, "NZ17-6e"): (OM, SL, "spread_over"),
    (NZ, "NZ17-5d"): (OM, PL, "pay_the_loser"),
    (NZ, "NZ17-5f"): (OM, PL, "chop_by_agreement"),
    (NZ, "NZ17-5d-show"): (OM, PL, "hide_winner"),
    (NZ, "NZ17-5d-order"): (OM, PL, "show_out_of_order"),
    (NZ, "NZ17-2-call"): (OM, PL, "undercall"),
    (NZ, "NZ-INT-seat"): (OM, PL, "one_player_two_seats"),
    (NZ, "NZ-INT-chips"): (OM, PL, "leak_chip"),
    (NZ, "NZ-INT-cards"): (OM, PL, "duplicate_card"),
    (NZ, "NZ-INT-show"): (OM, PL, "show_unheld_card"),
    (NZ, "NZ-INT-draw"): (OM, PL, "draw_in_flop_game"),
    (NZ, "NZ-INT-id"): (OM, PL, "duplicate_id"),
    (NZ, "NZ-INT-total"): (OM, PL, "wrong_total"),
    (DRAW, "ONL5CD-button"): (FD, FL, "drop_hand"),
    (DRAW, "ONL5CD-bb-amount"): (FD, FL, "short_big_blind"),
    (DRAW, "ONL5CD-deal"): (FD, FL, "short_hole"),
    (DRAW, "ONL5CD-order"): (FD, FL, "out_of_turn"),
    (DRAW, "ONL5CD-check"): (FD, FL, "check_facing_bet"),
    (DRAW, "ONL5CD-option"): (FD, FL, "round_closed_early"),
    (DRAW, "ONL5CD-fixed"): (FD, FL, "off_unit"),
    (DRAW, "ONL5CD-draw"): (FD, FL, "short_draw"),
    (DRAW, "ONL5CD-show"): (FD, FL, "show_out_of_order"),
    (DRAW, "ONL5CD-winner"): (FD, FL, "pay_the_loser"),
    (DRAW, "ONL5CD-show-winner"): (FD, FL, "hide_winner"),
    (DRAW, "ONL5CD-call"): (FD, FL, "undercall"),
    (DRAW, "ONL5CD-INT-seat"): (FD, FL, "one_player_two_seats"),
    (DRAW, "ONL5CD-INT-chips"): (FD, FL, "leak_chip"),
    (DRAW, "ONL5CD-INT-cards"): (FD, FL, "duplicate_card_draw"),
    (DRAW, "ONL5CD-INT-show"): (FD, FL, "show_unheld_card"),
    (DRAW, "ONL5CD-INT-id"): (FD, FL, "duplicate_id"),
    (DRAW, "ONL5CD-INT-total"): (FD, FL, "wrong_total"),
    (TDA, "TDA-12"): (HE, NL, "pay_the_loser"),
    (TDA, "TDA-53"): (HE, NL, "out_of_turn"),
    (TDA, "TDA-55"): (HE, NL, "check_facing_bet"),
    (TDA, "TDA-50"): (HE, NL, "act_after_fold"),
    (TDA, "TDA-51"): (HE, NL, "undercall"),
    (TDA, "TDA-52A"): (HE, NL, "short_bet"),
    (TDA, "TDA-54"): (HE, PL, "over_pot"),
    (TDA, "TDA-15B"): (HE, NL, "keep_uncalled"),
    (TDA, "TDA-21"): (HE, NL, "misaward_side_pot"),
    (TDA, "TDA-28"): (HE, NL, "rabbit_hunt"),
    (TDA, "TDA-35A"): (HE, NL, "short_hole"),
    (TDA, "TDA-39A"): (HE, NL, "extra_board_card"),
    (TDA, "TDA-38"): (HE, NL, "remove_burn"),
    (TDA, "TDA-13A"): (HE, NL, "hide_winner"),
    (TDA, "TDA-INT-seat"): (HE, NL, "one_player_two_seats"),
    (TDA, "TDA-INT-chips"): (HE, NL, "leak_chip"),
    (TDA, "TDA-INT-cards"): (HE, NL, "duplicate_card"),
    (TDA, "TDA-INT-show"): (HE, NL, "show_unheld_card"),
    (TDA, "TDA-INT-draw"): (HE, NL, "draw_in_flop_game"),
    (TDA, "TDA-INT-id"): (HE, NL, "duplicate_id"),
    (TDA, "TDA-INT-total"): (HE, NL, "wrong_total"),
}

Pair = tuple[list[dict], list[dict]]  # (clean hands, violating hands)


def single(name: str) -> Callable[[list[dict], int], Pair | None]:
    """A mutator applied to one hand."""
    def make(hands: list[dict], i: int) -> Pair | None:
        changed = copy.deepcopy(hands[i])
        return ([hands[i]], [changed]) if REGISTRY[name].apply(changed) else None
    return make


def drop_hand(hands: list[dict], i: int) -> Pair | None:
    """Three consecutive hands of a table; without the middle one the button moves two seats."""
    trio = hands[i:i + 3]
    if len(trio) < 3 or len({h["table_id"] for h in trio}) != 1:
        return None
    if len({s["seat"] for s in trio[0]["seats"]}) < 4 or {s["seat"] for s in trio[0]["seats"]} != \
            {s["seat"] for s in trio[2]["seats"]}:
        return None
    return trio, [trio[0], trio[2]]


def duplicate_id(hands: list[dict], i: int) -> Pair | None:
    pair = hands[i:i + 2]
    if len(pair) < 2:
        return None
    second = copy.deepcopy(pair[1])
    second["hand_id"] = pair[0]["hand_id"]
    return pair, [pair[0], second]


def _with_stakes(hand: dict, **stakes: int) -> dict:
    changed = copy.deepcopy(hand)
    changed["stakes"].update(stakes)
    return changed


def table_minimum(hands: list[dict], i: int) -> Pair | None:
    blind = hands[i]["stakes"]["blinds"][-1]
    unit = hands[i]["stakes"]["chip_unit"]
    return [_with_stakes(hands[i], table_min=blind)], [_with_stakes(hands[i], table_min=blind + unit)]


def table_maximum(hands: list[dict], i: int) -> Pair | None:
    """Clean: the maximum equals the largest wager of the hand; violating: one chip unit less."""
    hand = hands[i]
    largest, faced = 0, 0
    current: dict[int, int] = {}
    for e in hand["events"]:
        if e["kind"] == "deal" and e["to"] == "board":
            current, faced = {}, 0
        elif e["kind"] == "post" and e["post"] == "blind":
            current[e["seat"]] = current.get(e["seat"], 0) + e["amount"]
            faced = max(faced, *current.values())
        elif e["kind"] == "action" and e["action"] in ("bet", "raise"):
            largest = max(largest, e["to"] - faced)
            faced = max(faced, e["to"])
    unit = hand["stakes"]["chip_unit"]
    if largest <= hand["stakes"]["blinds"][-1]:
        return None
    return [_with_stakes(hand, table_max=largest)], [_with_stakes(hand, table_max=largest - unit)]


def duplicate_card_draw(hands: list[dict], i: int) -> Pair | None:
    """Draw games have no board: a folded player's card is dealt again in another player's draw."""
    hand = copy.deepcopy(hands[i])
    folded = [e["seat"] for e in hand["events"] if e["kind"] == "action" and e["action"] == "fold"]
    holes = {e["seat"]: e["cards"] for e in hand["events"] if e["kind"] == "deal" and e["to"] == "hole"}
    for e in hand["events"]:
        if e["kind"] == "draw" and e["receive"] and folded and e["seat"] != folded[0]:
            e["receive"] = [holes[folded[0]][0], *e["receive"][1:]]
            return [hands[i]], [hand]
    return None


SPECIAL = {"drop_hand": drop_hand, "duplicate_id": duplicate_id, "table_minimum": table_minimum,
           "table_maximum": table_maximum, "duplicate_card_draw": duplicate_card_draw}


def findings(hands: list[dict], pack_path: Path) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "hands.jsonl"
        write_jsonl(hands, path)
        result = audit([path], pack=str(pack_path))
    assert not result.quarantined, [q.one_line() for q in result.quarantined]
    return list(result.findings["rule_id"])


def candidates(variant: str, structure: str, pack, seed: int) -> Iterator[list[dict]]:
    for attempt in range(6):
        yield list(simulate_hands(variant, structure, 300, seed + 1000 * attempt, house=pack.house,
                                  rule_pack=pack.name, table_size=(3, 6)))


def make(pack_name: str, rule_id: str) -> None:
    variant, structure, how = PLAN[(pack_name, rule_id)]
    pack_path = builtin_pack_paths()[pack_name]
    pack = load_pack(pack_path)
    rule = pack.rule(rule_id)
    want = rule.violating[0].findings or 1
    maker = SPECIAL.get(how) or single(how)
    seed = sum(map(ord, rule_id))
    for hands in candidates(variant, structure, pack, seed):
        for i in range(len(hands)):
            pair = maker(hands, i)
            if pair is None:
                continue
            clean, violating = pair
            if findings(clean, pack_path):
                continue
            got = findings(violating, pack_path)
            if got == [rule_id] * want:
                write(rule.clean[0].path, clean)
                write(rule.violating[0].path, violating)
                print(f"{pack_name} {rule_id}: {how} on {violating[-1]['hand_id']}")
                return
    raise SystemExit(f"{pack_name} {rule_id}: no hand found for {how}")


def write(path: Path, hands: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for hand in hands:
            out.write(json.dumps(hand, separators=(",", ":")) + "\n")


def main() -> None:
    only = set(sys.argv[1:])
    for pack_name, rule_id in PLAN:
        if not only or rule_id in only:
            make(pack_name, rule_id)


if __name__ == "__main__":
    main()
