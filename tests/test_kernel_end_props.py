"""The end-of-hand facts of whole random hands against oracles written from the rule books, not the kernels.

The Python reference engine is gone (one engine), so the end-of-hand kernels (`kernel.pots`,
`kernel.showdown`, `kernel.blinds`) are held here by properties whose oracle is small enough to check by eye.
Each test draws whole canonical hands (seats, stacks, a button, blind posts, actions, all-ins, folds, uncalled
returns, awards that fit the pots or not, rake by pot or by hand) and replays them with the one engine,
`auditor.replay.kernel.replay`: the most stable interface, so reshaped kernel arguments do not touch this file.

Oracles, each from the facts' documented meaning (auditor/replay/facts.py):

- pots: `auditor.model.pots.build_pots` (the model's layer rule, POT-01) on the contributions after returns,
  dead posts in the main pot;
  the folded all-in levels re-split the pots only when that alone makes the awards fit;
- chip balance: chips in − returned − awarded − rake;
- misawarded pots: paid more than held, or less than held minus its rake (rake for the whole hand shared as
  the house's hand_rake_from says: any pot, the main pot, or pro rata rounded up to the chip unit);
- equal shares and odd chips: total // unit // winners units each, the rest one unit to each of the first
  winners clockwise from the button (position), or to the highest top hole card by the house suit order;
- scale: every amount times 10**9 (chip unit too) gives the same facts times 10**9;
- blinds: first dealt-in seat clockwise from the button owes blind 1, the next blind 2; heads-up the button
  owes blind 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.check.money import lists_as_text
from auditor.ingest.tables import build_tables
from auditor.model.pots import build_pots
from auditor.model.records import SourceHand
from auditor.replay.house import HouseRules
from auditor.replay.kernel import replay

MAX_SEATS = 9
HOUSES = [HouseRules(hand_rake_from=how, suit_order=order) for how in ("any", "main", "pro-rata")
          for order in (("s", "h", "d", "c"), ("c", "d", "h", "s"))]
#: the deck hole and board cards are dealt from (drawn as a permutation: no card appears twice)
DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"]
PROPS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                         HealthCheck.data_too_large])


@dataclass
class Drawn:
    """A generated hand and what the oracle needs of it, kept apart from the log the kernel reads."""

    hand: dict
    house: HouseRules
    put_in: dict[int, int] = field(default_factory=dict)  # seat -> chips put in by posts and actions
    returned: dict[int, int] = field(default_factory=dict)
    folded: set[int] = field(default_factory=set)
    all_in: set[int] = field(default_factory=set)
    awards: list[tuple[int, int, int]] = field(default_factory=list)  # (pot, seat, amount) in event order
    pot_rake: dict[int, int] = field(default_factory=dict)
    hand_rake: int = 0
    dead: dict[int, int] = field(default_factory=dict)  # seat -> a dead post (main pot money, nobody's stake)

    @property
    def contributed(self) -> dict[int, int]:
        return {s: c - self.returned.get(s, 0) for s, c in self.put_in.items()}

    @property
    def split_at(self) -> set[int]:
        c = self.contributed
        return {c[s] for s in self.folded & self.all_in if c[s] > 0}


def _clockwise(seats, button: int) -> list[int]:
    """Seats in dealing order: first left of the button, the button last."""
    return sorted(seats, key=lambda s: ((s - button - 1) % MAX_SEATS, s))


@st.composite
def hands(draw, fit: bool | None = None, unit: int | None = None, split: bool | None = None) -> Drawn:
    """A whole no-limit hold'em hand. `fit`: awards drawn from the oracle's pots (True), arbitrary (False),
    either (None); `split`: fitted to the pots split at folded all-in levels (True), not (False), either."""
    unit = unit or draw(st.sampled_from([1, 5, 25]))
    house = draw(st.sampled_from(HOUSES))
    seats = sorted(draw(st.sets(st.integers(1, MAX_SEATS), min_size=2, max_size=MAX_SEATS)))
    button = draw(st.sampled_from(seats))
    order = _clockwise(seats, button)
    if len(order) == 2:
        order = order[::-1]  # heads-up the button posts the first blind
    sb, bb = unit, 2 * unit
    posts = {order[0]: sb, order[1]: bb}
    chips = st.integers(0, 40).map(lambda x: x * unit) | st.integers(0, 1000)
    put_in = {s: posts.get(s, 0) + draw(chips) for s in seats}
    all_in = {s for s in seats if put_in[s] > 0 and draw(st.integers(0, 2)) == 0}
    folded = {s for s in seats if draw(st.integers(0, 2)) == 0}
    returned = {s: draw(st.integers(1, put_in[s])) for s in seats if put_in[s] > 0 and draw(st.integers(0, 4)) == 0}
    deck = draw(st.permutations(DECK))
    events: list[dict] = [{"kind": "button", "seat": button}]
    events += [{"kind": "post", "seat": order[b], "post": "blind", "blind": b + 1, "amount": (sb, bb)[b]}
               for b in range(2)]
    dead = {s: draw(st.integers(1, 4)) * unit for s in seats if draw(st.integers(0, 7)) == 0}
    events += [{"kind": "post", "seat": s, "post": "dead", "amount": a} for s, a in dead.items()]
    hole = {s: list(deck[2 * i:2 * i + 2]) for i, s in enumerate(seats)}
    events += [{"kind": "deal", "to": "hole", "seat": s, "cards": hole[s]} for s in seats]
    high = bb
    for s in order[2:] + order[:2]:
        extra = put_in[s] - posts.get(s, 0)
        if extra > 0:
            to = posts.get(s, 0) + extra
            events.append({"kind": "action", "seat": s, "action": "raise" if to > high else "call", "amount": extra,
                           "to": to, "all_in": s in all_in})
            high = max(high, to)
    events += [{"kind": "action", "seat": s, "action": "fold"} for s in order if s in folded]
    events += [{"kind": "deal", "to": "board", "cards": list(deck[40:45])}]
    events += [{"kind": "return", "seat": s, "amount": a} for s, a in returned.items()]
    events += [{"kind": "show", "seat": s, "cards": hole[s]} for s in seats if s not in folded and draw(st.booleans())]
    d = Drawn(hand={}, house=house, put_in=put_in, returned=returned, folded=folded, all_in=all_in, dead=dead)
    if draw(st.integers(0, 2)) == 0:
        pot = draw(st.sampled_from([None, None, 0, 1]))
        amount = draw(st.integers(1, 20)) * unit
        if pot is None:
            d.hand_rake = amount
        else:
            d.pot_rake[pot] = amount
    if fit if fit is not None else draw(st.booleans()):
        d.awards = _fitting_awards(d, draw, unit, draw(st.booleans()) if split is None else split)
    else:
        extra_seat = st.sampled_from(seats) | st.integers(1, MAX_SEATS)
        d.awards = [(draw(st.integers(0, 3)), draw(extra_seat), draw(chips)) for _ in range(draw(st.integers(0, 5)))]
    for pot, amount in d.pot_rake.items():
        events.append({"kind": "rake", "pot": pot, "amount": amount})
    if d.hand_rake:
        events.append({"kind": "rake", "amount": d.hand_rake})
    events += [{"kind": "award", "pot": p, "seat": s, "amount": a} for p, s, a in d.awards]
    stacks = {s: put_in[s] + dead.get(s, 0) + (0 if s in all_in else draw(st.integers(1, 500)) * unit) for s in seats}
    d.hand = {"hand_id": "P-1", "table_id": "PROP", "room": "Property room", "started_at": "2026-01-05T20:00:00Z",
              "variant": "holdem", "structure": "no-limit", "stakes": {"blinds": [sb, bb], "chip_unit": unit},
              "max_seats": MAX_SEATS, "rule_pack": "tda-2024",
              "seats": [{"seat": s, "player": f"p{s}", "stack": stacks[s]} for s in seats], "events": events}
    return d


def _fitting_awards(d: Drawn, draw, unit: int, split: bool) -> list[tuple[int, int, int]]:
    """Awards from the oracle's own pots: every pot (or most) split equally among 1-3 eligible winners, the odd
    units to winners the log picks (by position, or any), so ties, odd chips and too-small pots come up often."""
    pots = build_pots(d.contributed, d.folded, sum(d.dead.values()), d.split_at if split else set())
    awards = []
    for pot_id, pot in enumerate(pots):
        if not pot.eligible or draw(st.integers(0, 9)) == 0:
            continue
        take = max(pot.amount - d.pot_rake.get(pot_id, 0) - (d.hand_rake if pot_id == 0 else 0), 0)
        winners = draw(st.lists(st.sampled_from(pot.eligible), min_size=1, max_size=3, unique=True))
        units, odd = divmod(take // unit, len(winners))
        lucky = draw(st.permutations(winners))[:odd]
        awards += [(pot_id, s, (units + (s in lucky)) * unit) for s in winners]
    return awards


def _replay(drawn: list[Drawn]):
    for i, d in enumerate(drawn):
        d.hand = d.hand | {"hand_id": f"P-{i}", "table_id": f"PROP-{i}"}
    tables = build_tables([SourceHand(d.hand, "props.jsonl", i + 1) for i, d in enumerate(drawn)])
    facts, failures = replay(tables, [d.house for d in drawn])
    assert failures == []
    return facts


def _records(frame: pd.DataFrame) -> list[dict]:
    """Rows as dicts, list facts as the text messages show them (`money.lists_as_text`: "1,3")."""
    frame = lists_as_text(frame, frame.columns)
    return frame.astype(object).where(frame.notna(), None).to_dict("records")


def _seats_text(seats) -> str:
    return ",".join(str(s) for s in sorted(seats))


# -- the oracle --------------------------------------------------------------------------------------
def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _rake_shares(pots, hand_rake: int, how: str, unit: int) -> list[int]:
    """What each pot may keep back of the rake stated for the whole hand (the pack's hand_rake_from)."""
    if not pots or not hand_rake:
        return [0] * len(pots)
    if how == "main":
        return [hand_rake] + [0] * (len(pots) - 1)
    total = sum(p.amount for p in pots)
    if how == "pro-rata" and total > 0:
        return [min(hand_rake, _ceil_div(_ceil_div(hand_rake * p.amount, total), unit) * unit) for p in pots]
    return [hand_rake] * len(pots)


def _misawarded(d: Drawn, pots, unit: int) -> list[tuple[int, int, int]]:
    paid: dict[int, int] = {}
    for p, _, a in d.awards:
        paid[p] = paid.get(p, 0) + a
    shares = _rake_shares(pots, d.hand_rake, d.house.hand_rake_from, unit)
    out = []
    for p in sorted(set(paid) | set(range(len(pots)))):
        held = pots[p].amount if p < len(pots) else 0
        keep = (d.pot_rake.get(p, 0) + shares[p]) if p < len(pots) else d.pot_rake.get(p, 0)
        if paid.get(p, 0) > held or paid.get(p, 0) < held - keep:
            out.append((p, held, paid.get(p, 0)))
    return out


def _oracle_pots(d: Drawn, unit: int):
    """The pots the rule books form, and the pots paid wrongly: the split at folded all-in levels is the
    reading only where it alone makes the awards fit."""
    dead = sum(d.dead.values())
    pots = build_pots(d.contributed, d.folded, dead)
    wrong = _misawarded(d, pots, unit)
    if wrong and d.split_at:
        split = build_pots(d.contributed, d.folded, dead, d.split_at)
        if not _misawarded(d, split, unit):
            return split, []
    return pots, wrong


def _unit(d: Drawn) -> int:
    return d.hand["stakes"]["chip_unit"]


# -- properties -----------------------------------------------------------------------------------------
@PROPS
@given(st.lists(hands(), min_size=1, max_size=4))
def test_pots_balance_and_misawards_follow_the_rule_books(drawn):
    facts = _replay(drawn)
    pots_rows = _records(facts["pots"])
    hands_rows = {r["hand"]: r for r in _records(facts["hands"])}
    for h, d in enumerate(drawn):
        unit = _unit(d)
        pots, wrong = _oracle_pots(d, unit)
        row = hands_rows[h]
        awarded = sum(a for _, _, a in d.awards)
        rake = d.hand_rake + sum(d.pot_rake.values())
        chips_in = sum(d.put_in.values()) + sum(d.dead.values())
        assert row["chips_in"] == chips_in
        assert row["returned"] == sum(d.returned.values())
        assert row["awarded"] == awarded and row["rake"] == rake
        balance = chips_in - sum(d.returned.values()) - awarded - rake
        assert row["chip_balance"] == (balance if d.awards else None)
        assert row["pots_misawarded"] == "; ".join(f"pot {p}: held {x}, paid {y}" for p, x, y in wrong)
        mine = [r for r in pots_rows if r["hand"] == h]
        assert [r["pot"] for r in mine] == sorted({p for p, _, _ in d.awards})
        for r in mine:
            p = r["pot"]
            assert r["pots_formed"] == len(pots)
            assert r["pot_amount"] == (pots[p].amount if p < len(pots) else None)
            assert r["eligible_seats"] == (_seats_text(pots[p].eligible) if p < len(pots) else "")
            assert r["rake"] == d.pot_rake.get(p, 0) + (d.hand_rake if p == 0 else 0)
            assert r["hand_chip_balance"] == balance


@PROPS
@given(st.lists(hands(fit=True, split=True), min_size=1, max_size=4))
def test_folded_all_in_levels_split_the_pots_only_where_that_fits(drawn):
    """A player all-in who then folds (or is killed) closes a side pot at their level (build_pots' split_at):
    the replay reads the pots that way only when the plain layering leaves a pot misawarded and the split
    one does not. Awards here are fitted to the split pots, so that reading is reached often."""
    facts = _replay(drawn)
    hands_rows = {r["hand"]: r for r in _records(facts["hands"])}
    formed: dict[int, int] = {}
    for r in _records(facts["pots"]):
        formed[r["hand"]] = r["pots_formed"]
    for h, d in enumerate(drawn):
        pots, wrong = _oracle_pots(d, _unit(d))
        assert hands_rows[h]["pots_misawarded"] == "; ".join(f"pot {p}: held {x}, paid {y}" for p, x, y in wrong)
        if h in formed:
            assert formed[h] == len(pots)


def _shares(d: Drawn, pot: int) -> dict[int, int]:
    out: dict[int, int] = {}
    for p, s, a in d.awards:
        if p == pot:
            out[s] = out.get(s, 0) + a
    return out


@PROPS
@given(st.lists(hands(fit=True), min_size=1, max_size=4))
def test_equal_shares_and_odd_chips_by_position(drawn):
    facts = _replay(drawn)
    for r in _records(facts["pots"]):
        d = drawn[r["hand"]]
        unit, button = _unit(d), d.hand["events"][0]["seat"]
        shares = _shares(d, r["pot"])
        total = sum(shares.values())
        units, odd = divmod(total // unit, len(shares))
        equal = units * unit
        assert r["awarded"] == total and r["winners"] == len(shares)
        assert r["winner_seats"] == _seats_text(shares)
        assert r["shares"] == ", ".join(f"{s}:{shares[s]}" for s in sorted(shares))
        assert (r["equal_share"], r["odd_chips"]) == (equal, odd)
        assert (r["min_share"], r["max_share"]) == (min(shares.values()), max(shares.values()))
        extra = sorted(s for s, a in shares.items() if a == equal + unit) if odd else []
        assert r["odd_chip_seats"] == _seats_text(extra)
        assert r["share_ok"] == (total % unit == 0 and all(a in (equal, equal + unit) for a in shares.values())
                                 and len(extra) == odd)
        # TDA 20-A: the odd chips go to the first winners clockwise from the button
        want = _seats_text(_clockwise(shares, button)[:odd]) if odd else None
        assert r["odd_chip_seats_by_position"] == want
        assert r["seat"] == (extra[0] if extra else min(shares))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.data_too_large])
@given(st.lists(hands(unit=1), min_size=1, max_size=3))
def test_amounts_scaled_by_a_billion_give_the_facts_scaled(drawn):
    """Amounts near 10**12 (chip unit 10**9): sums, pro-rata rake and odd chips stay exact."""
    scale = 10**9
    money = ("pot_amount", "rake", "awarded", "equal_share", "min_share", "max_share", "hand_chip_balance",
             "chip_unit")

    def scaled(d: Drawn) -> Drawn:
        hand = dict(d.hand)
        hand["stakes"] = {"blinds": [b * scale for b in d.hand["stakes"]["blinds"]], "chip_unit": scale}
        hand["seats"] = [s | {"stack": s["stack"] * scale} for s in d.hand["seats"]]
        hand["events"] = [e | {k: e[k] * scale for k in ("amount", "to") if isinstance(e.get(k), int)}
                          for e in d.hand["events"]]
        return Drawn(hand=hand, house=d.house)

    small = _records(_replay(drawn)["pots"])
    big = _records(_replay([scaled(d) for d in drawn])["pots"])
    assert len(small) == len(big)
    for a, b in zip(small, big, strict=True):
        def times(row):
            return {k: (v * scale if k in money and v is not None else v) for k, v in row.items()}
        shares = ", ".join(f"{x.split(':')[0]}:{int(x.split(':')[1]) * scale}" for x in a["shares"].split(", ")) \
            if a["shares"] else a["shares"]
        assert b == times(a) | {"shares": shares, "hand_chip_balance": b["hand_chip_balance"]}
        assert b["hand_chip_balance"] == a["hand_chip_balance"] * scale


# -- odd chips by suit: a tie the oracle can rate by eye ------------------------------------------------
@st.composite
def suit_ties(draw) -> tuple[Drawn, list[int], str]:
    """Two or three players tie with a six-high straight on board 2c 3d 4h 9s Jc, each holding a five and a six
    (no flush is possible): each winner's top hole card used is their six, so the odd chip goes by its suit."""
    house = draw(st.sampled_from(HOUSES))
    seats = sorted(draw(st.sets(st.integers(1, MAX_SEATS), min_size=2, max_size=3)))
    button = draw(st.sampled_from(range(1, MAX_SEATS + 1)))
    fives = draw(st.permutations("cdhs"))
    sixes = draw(st.permutations("cdhs"))
    hole = {s: ["5" + fives[i], "6" + sixes[i]] for i, s in enumerate(seats)}
    each = draw(st.integers(1, 50))
    pot = each * len(seats) + draw(st.integers(1, len(seats) - 1))
    put = [pot // len(seats)] * len(seats)
    put[0] += pot - sum(put)
    events = [{"kind": "button", "seat": button}]
    events += [{"kind": "deal", "to": "hole", "seat": s, "cards": hole[s]} for s in seats]
    events += [{"kind": "action", "seat": s, "action": "bet" if i == 0 else "call", "amount": put[i], "to": put[i]}
               for i, s in enumerate(seats)]
    events += [{"kind": "deal", "to": "board", "cards": ["2c", "3d", "4h", "9s", "Jc"]}]
    events += [{"kind": "show", "seat": s, "cards": hole[s]} for s in seats]
    units, odd = divmod(pot, len(seats))
    # the house suit order: its first suit is the highest (suit_rank); the odd chips go to the highest sixes
    best = sorted(seats, key=lambda s: house.suit_order.index(hole[s][1][1]))[:odd]
    paid = draw(st.permutations(seats))[:odd]
    awards = [(0, s, units + (s in paid)) for s in seats]
    events += [{"kind": "award", "pot": 0, "seat": s, "amount": a} for _, s, a in awards]
    hand = {"hand_id": "S-1", "table_id": "SUIT", "room": "Property room", "started_at": "2026-01-05T20:00:00Z",
            "variant": "holdem", "structure": "no-limit", "stakes": {"blinds": [1, 2], "chip_unit": 1},
            "max_seats": MAX_SEATS, "rule_pack": "tda-2024",
            "seats": [{"seat": s, "player": f"p{s}", "stack": 1000} for s in seats], "events": events}
    top = ", ".join(f"{s}:{hole[s][1]}" for s in seats)
    return Drawn(hand=hand, house=house, awards=awards), sorted(best), top


@PROPS
@given(st.lists(suit_ties(), min_size=1, max_size=4))
def test_odd_chips_by_suit_of_the_highest_hole_card_used(drawn):
    facts = _replay([d for d, _, _ in drawn])
    rows = _records(facts["pots"])
    assert [r["hand"] for r in rows] == list(range(len(drawn)))
    for r, (d, best, top) in zip(rows, drawn, strict=True):
        assert r["winner_seats_by_evaluation"] == _seats_text(_shares(d, 0))
        assert r["winners_match"] is True
        assert r["best_hand"].startswith("straight")
        assert r["top_hole_cards_used"] == top
        assert r["odd_chip_seats_by_suit"] == _seats_text(best)


# -- blinds by position ---------------------------------------------------------------------------------
@st.composite
def seatings(draw) -> tuple[Drawn, int, list[int]]:
    """Seats some of whom sit out, a button, blinds posted by whoever the log says (often the right seats)."""
    seats = sorted(draw(st.sets(st.integers(1, MAX_SEATS), min_size=2, max_size=MAX_SEATS)))
    active = [s for s in seats if draw(st.integers(0, 3)) > 0]
    button = draw(st.sampled_from(seats) | st.integers(1, MAX_SEATS))  # the button may be on an empty seat
    posts = []
    for blind, amount in ((1, 50), (2, 100)):
        if draw(st.integers(0, 4)) > 0:
            posts.append((blind, draw(st.sampled_from(seats)), amount))
    if draw(st.integers(0, 3)) == 0:
        posts.reverse()  # the big blind logged before the small one
    events = [{"kind": "button", "seat": button}]
    events += [{"kind": "post", "seat": s, "post": "blind", "blind": b, "amount": a} for b, s, a in posts]
    hand = {"hand_id": "B-1", "table_id": "BLIND", "room": "Property room", "started_at": "2026-01-05T20:00:00Z",
            "variant": "holdem", "structure": "no-limit", "stakes": {"blinds": [50, 100], "chip_unit": 25},
            "max_seats": MAX_SEATS, "rule_pack": "tda-2024",
            "seats": [{"seat": s, "player": f"p{s}", "stack": 10000,
                       "status": "active" if s in active else "sitting_out"} for s in seats], "events": events}
    return Drawn(hand=hand, house=HouseRules()), button, active


def _blind_order(active: list[int], button: int) -> list[int]:
    """Who owes blind 1, 2, ...: the dealt-in seats clockwise from the button (BTN-01), wrapping round when
    fewer are dealt in than blinds are due. Heads-up the button posts the first blind (BTN-03); a button on a
    seat not dealt in (a dead button) counts as held by the nearest dealt-in seat to its right, so heads-up that
    seat posts the first blind, and with more players the order is the same as clockwise from the dead seat."""
    order = _clockwise(active, button)
    if len(order) == 2:
        holder = order[-1]  # the button seat itself if dealt in, else the last dealt-in seat before it
        order = [holder, order[0] if holder != order[0] else order[1]]
    return order


@PROPS
@given(st.lists(seatings(), min_size=1, max_size=5))
def test_blinds_owed_by_position(drawn):
    facts = _replay([d for d, _, _ in drawn])
    rows = _records(facts["blinds"])
    hands_rows = {r["hand"]: r for r in _records(facts["hands"])}
    for h, (d, button, active) in enumerate(drawn):
        mine = sorted((r for r in rows if r["hand"] == h), key=lambda r: r["blind"])
        assert [r["blind"] for r in mine] == [1, 2]
        order = _blind_order(active, button)
        logged = [e for e in d.hand["events"] if e["kind"] == "post"]
        posted = {e["blind"]: e for e in logged}
        # the big blind player is whoever posted the last compulsory blind (the table's second)
        assert hands_rows[h]["big_blind_player"] == (f"p{posted[2]['seat']}" if 2 in posted else None)
        for r in mine:
            b = r["blind"]
            assert r["players"] == len(active) and r["button"] == button and r["blinds_required"] == 2
            assert r["expected_amount"] == (50, 100)[b - 1]
            assert r["expected_seat"] == (order[(b - 1) % len(order)] if order else None), (r, order)
            assert r["expected_player"] == (f"p{r['expected_seat']}" if r["expected_seat"] else None)
            assert r["posted"] == (b in posted)
            assert r["seat"] == (posted[b]["seat"] if b in posted else None)
            assert r["amount"] == (posted[b]["amount"] if b in posted else None)
            later_first = any(e["blind"] > b for e in logged[:logged.index(posted[b])]) if b in posted else None
            assert r["in_order"] == (None if later_first is None else not later_first)
