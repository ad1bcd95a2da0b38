"""Tests for auditor.replay.evaluate.

The evaluator is checked against a deliberately slow, independent pure-Python
reference (count ranks, sort groups, look for straights in a rank set) rather
than against numbers produced by the evaluator itself.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from auditor.replay.evaluate import (
    CATEGORY_NAMES,
    RANKS,
    SUITS,
    BestHands,
    best_hands,
    card_text,
    category_of,
    describe,
    parse_card,
    parse_cards,
    rank5,
)

# --------------------------------------------------------------------------- reference


def ref_key(codes: list[int]) -> tuple[int, tuple[int, ...]]:
    """Slow reference: (category index, tie-break ranks) comparable as a tuple."""
    ranks = sorted((c // 4 for c in codes), reverse=True)
    suits = {c % 4 for c in codes}
    counts = Counter(ranks)
    # groups ordered by multiplicity then rank
    groups = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    shape = [n for _, n in groups]
    order = tuple(r for r, _ in groups)
    is_flush = len(suits) == 1
    straight_high = None
    if len(counts) == 5:
        rank_set = set(ranks)
        for high in range(12, 3, -1):
            if all(h in rank_set for h in range(high - 4, high + 1)):
                straight_high = high
                break
        if straight_high is None and rank_set == {12, 0, 1, 2, 3}:
            straight_high = 3
    if straight_high is not None and is_flush:
        return (8, (straight_high,))
    if shape == [4, 1]:
        return (7, order)
    if shape == [3, 2]:
        return (6, order)
    if is_flush:
        return (5, tuple(ranks))
    if straight_high is not None:
        return (4, (straight_high,))
    if shape == [3, 1, 1]:
        return (3, order)
    if shape == [2, 2, 1]:
        return (2, order)
    if shape == [2, 1, 1, 1]:
        return (1, order)
    return (0, tuple(ranks))


def ref_best(hole: list[int], board: list[int], hole_use, board_use):
    """Slow reference best hand: max ref_key over allowed combos (None if none valid)."""
    best = None
    for k in range(hole_use[0], hole_use[1] + 1):
        if not board_use[0] <= 5 - k <= board_use[1]:
            continue
        for h in itertools.combinations(hole, k):
            for b in itertools.combinations(board, 5 - k):
                cards = list(h) + list(b)
                if -1 in cards:
                    continue
                key = ref_key(cards)
                if best is None or key > best:
                    best = key
    return best


def cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def hands(*texts: str) -> np.ndarray:
    return np.array([cards(t) for t in texts], dtype=np.int8)


def value_of(text: str) -> int:
    return int(rank5(hands(text))[0])


def sign(x) -> np.ndarray:
    return np.sign(np.asarray(x))


def random_hands(rng: np.random.Generator, n: int, deck: list[int], k: int = 5) -> np.ndarray:
    deck_arr = np.array(deck, dtype=np.int8)
    idx = np.argsort(rng.random((n, len(deck_arr))), axis=1)[:, :k]
    return deck_arr[idx]


def check_consistent(sample: np.ndarray, values: np.ndarray, refs: list, rng: np.random.Generator) -> None:
    """rank5 must induce exactly the reference preorder on `sample`."""
    # equality classes: same reference key <=> same value
    by_ref: dict = {}
    by_val: dict = {}
    for v, r in zip(values.tolist(), refs, strict=True):
        by_ref.setdefault(r, set()).add(v)
        by_val.setdefault(v, set()).add(r)
    assert all(len(s) == 1 for s in by_ref.values())
    assert all(len(s) == 1 for s in by_val.values())
    # ordering on random pairs
    n = len(sample)
    a = rng.integers(0, n, size=4 * n)
    b = rng.integers(0, n, size=4 * n)
    ref_sign = [(refs[i] > refs[j]) - (refs[i] < refs[j]) for i, j in zip(a, b, strict=True)]
    assert np.array_equal(sign(values[a] - values[b]), np.array(ref_sign))
    # category agrees with the reference category
    assert np.array_equal(category_of(values), np.array([r[0] for r in refs]))


# --------------------------------------------------------------------------- text


def test_parse_and_render_every_card():
    seen = set()
    for r_i, r in enumerate(RANKS):
        for s_i, s in enumerate(SUITS):
            code = parse_card(r + s)
            assert code == r_i * 4 + s_i
            assert card_text(code) == r + s
            seen.add(code)
    assert seen == set(range(52))


def test_parse_card_case_and_order():
    assert parse_card("as") == parse_card("As") == parse_card("AS")
    assert parse_card("tD") == parse_card("Td")
    assert parse_card("2c") == 0
    assert parse_card("As") == 51
    # higher code = higher rank, then suit s > h > d > c
    assert parse_card("Ks") < parse_card("Ac")
    assert parse_card("Ac") < parse_card("Ad") < parse_card("Ah") < parse_card("As")


@pytest.mark.parametrize("bad", ["", "A", "Asx", "1s", "Ax", "10s", "s A", " As", "??"])
def test_parse_card_rejects_bad_text(bad):
    with pytest.raises(ValueError, match="bad card"):
        parse_card(bad)


def test_card_text_unknown_and_bad():
    assert card_text(-1) == "??"
    with pytest.raises(ValueError):
        card_text(52)
    with pytest.raises(ValueError):
        card_text(-2)


def test_parse_cards():
    out = parse_cards(["As", "??", "", "2c", "td"])
    assert out.dtype == np.int8
    assert out.tolist() == [51, -1, -1, 0, parse_card("Td")]
    assert parse_cards([]).shape == (0,)
    with pytest.raises(ValueError):
        parse_cards(["As", "Zz"])


# --------------------------------------------------------------------------- rank5: known hands

LADDER = [
    ("7c 5d 4h 3s 2c", "high card"),
    ("Ac Kd Qh Js 9c", "high card"),
    ("2c 2d 3h 4s 5c", "pair"),
    ("Ac Ad Kh Qs Jc", "pair"),
    ("3c 3d 2h 2s 4c", "two pair"),
    ("Ac Ad Kh Ks Qc", "two pair"),
    ("2c 2d 2h 3s 4c", "three of a kind"),
    ("Ac Ad Ah Ks Qc", "three of a kind"),
    ("Ac 2d 3h 4s 5c", "straight"),
    ("2c 3d 4h 5s 6c", "straight"),
    ("Tc Jd Qh Ks Ac", "straight"),
    ("2c 3c 4c 5c 7c", "flush"),
    ("Ac Kc Qc Jc 9c", "flush"),
    ("2c 2d 2h 3s 3c", "full house"),
    ("Ac Ad Ah Ks Kc", "full house"),
    ("2c 2d 2h 2s 3c", "four of a kind"),
    ("Ac Ad Ah As Kc", "four of a kind"),
    ("Ad 2d 3d 4d 5d", "straight flush"),
    ("2h 3h 4h 5h 6h", "straight flush"),
    ("Ts Js Qs Ks As", "straight flush"),
]


def test_ladder_strictly_increasing_with_categories():
    values = rank5(hands(*(t for t, _ in LADDER)))
    assert values.dtype == np.int64
    assert np.all(np.diff(values) > 0)
    names = [CATEGORY_NAMES[c] for c in category_of(values)]
    assert names == [n for _, n in LADDER]


def test_category_names_order():
    assert CATEGORY_NAMES == [
        "high card", "pair", "two pair", "three of a kind", "straight",
        "flush", "full house", "four of a kind", "straight flush",
    ]  # fmt: skip


def test_wheel_and_broadway():
    wheel = value_of("As 2d 3c 4h 5s")
    six_high = value_of("2s 3d 4c 5h 6s")
    broadway = value_of("Ts Jd Qc Kh As")
    king_high = value_of("9s Td Jc Qh Ks")
    trips_aces = value_of("As Ad Ac Kh Qs")
    assert trips_aces < wheel < six_high < king_high < broadway
    # A-K-Q-J + 2 is not a straight (no wrap-around)
    assert CATEGORY_NAMES[category_of(rank5(hands("Ks As 2d 3c 4h")))[0]] == "high card"
    steel_wheel = value_of("Ah 2h 3h 4h 5h")
    quads_aces = value_of("As Ad Ac Ah Ks")
    assert quads_aces < steel_wheel < value_of("2h 3h 4h 5h 6h") < value_of("Th Jh Qh Kh Ah")


def test_suits_never_break_ties():
    a, b, c = rank5(hands("As Kd Qh Js 9c", "Ac Kh Qd Jc 9s", "Ad Ks Qs Jd 9h"))
    assert a == b == c
    f1, f2 = rank5(hands("Ac Kc 9c 7c 2c", "As Ks 9s 7s 2s"))
    assert f1 == f2
    s1, s2 = rank5(hands("5c 6d 7h 8s 9c", "9d 8c 7s 6h 5s"))
    assert s1 == s2


def test_card_order_within_row_is_irrelevant():
    rng = np.random.default_rng(1)
    sample = random_hands(rng, 2000, list(range(52)))
    shuffled = np.take_along_axis(sample, np.argsort(rng.random(sample.shape), axis=1), axis=1)
    assert np.array_equal(rank5(sample), rank5(shuffled))


@pytest.mark.parametrize(
    "better, worse",
    [
        ("Ac Ad Kh 4s 3c", "Ah As Qd Js Tc"),  # pair kicker
        ("Ac Ad Kh Qs 3c", "Ah As Kd Qd 2c"),  # pair, last kicker
        ("Ac Ad 2h 2s 4c", "Kc Kd Qh Qs Jc"),  # two pair: top pair first
        ("Kc Kd 3h 3s 2c", "Kh Ks 2d 2h Ac"),  # two pair: second pair before kicker
        ("Kc Kd 3h 3s 5c", "Kh Ks 3d 3c 4c"),  # two pair kicker
        ("Ac Kd Qh Js 8c", "Ad Kh Qs Jd 7c"),  # high card fifth card
        ("Ac Ad Ah 2s 3c", "Kc Kd Kh As Qc"),  # trips rank before kickers
        ("7c 7d 7h Ks 2c", "7c 7d 7h Qs Jc"),  # trips kicker (same trips, e.g. shared board)
        ("3c 3d 3h 2s 2c", "2c 2d 2h As Ac"),  # full house: trips rank first
        ("Jc Jd Jh Ks Kc", "Jc Jd Jh Qs Qc"),  # full house: then pair
        ("2c 2d 2h 2s 4c", "2c 2d 2h 2s 3c"),  # quads kicker
        ("Ac Qc Jc 9c 8c", "Ad Qd Jd 9d 7d"),  # flush decided by fifth card
    ],
)
def test_kicker_ordering(better, worse):
    assert value_of(better) > value_of(worse)


def test_unknown_card_in_rank5():
    v = rank5(np.array([[51, 50, 49, 48, -1], [51, 50, 49, 48, 47]]))
    assert v[0] == -1
    assert v[1] >= 0


def test_rank5_rejects_bad_input():
    with pytest.raises(ValueError):
        rank5(np.zeros((3, 4), dtype=np.int8))
    with pytest.raises(ValueError):
        rank5(np.full((1, 5), 52))
    with pytest.raises(ValueError):
        rank5(np.full((1, 5), -3))
    assert rank5(np.zeros((0, 5), dtype=np.int8)).shape == (0,)


# --------------------------------------------------------------------------- rank5: brute force


def test_matches_reference_on_random_hands():
    rng = np.random.default_rng(20240501)
    sample = random_hands(rng, 20_000, list(range(52)))
    values = rank5(sample)
    refs = [ref_key(row) for row in sample.tolist()]
    check_consistent(sample, values, refs, rng)


DENSE_DECKS = [
    # few ranks: many trips, full houses and quads
    [r * 4 + s for r in (0, 5, 12) for s in range(4)],
    [r * 4 + s for r in (3, 4, 9, 11) for s in range(4)],
    # two suits, consecutive ranks: many flushes, straights, straight flushes
    [r * 4 + s for r in range(0, 8) for s in (1, 3)],
    [r * 4 + s for r in (12, 0, 1, 2, 3, 4) for s in (0, 2)],
    [r * 4 + s for r in range(7, 13) for s in (0, 3)],
]


def dense_sample(deck: list[int]) -> np.ndarray:
    return random_hands(np.random.default_rng(len(deck) + deck[0]), 3000, deck)


@pytest.mark.parametrize("deck", DENSE_DECKS)
def test_matches_reference_on_dense_decks(deck):
    """Random deals cannot reach rare categories often; restricted decks can."""
    sample = dense_sample(deck)
    values = rank5(sample)
    refs = [ref_key(row) for row in sample.tolist()]
    check_consistent(sample, values, refs, np.random.default_rng(deck[-1]))


def test_dense_decks_cover_every_category():
    """Guard for the cross-check above: per the reference, all nine categories occur."""
    cats = {ref_key(row)[0] for deck in DENSE_DECKS for row in dense_sample(deck).tolist()}
    assert cats == set(range(9))


# --------------------------------------------------------------------------- describe


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Kc Kd Kh 9s 9c", "full house, kings over nines"),
        ("As 2d 3c 4h 5s", "straight, five high"),
        ("Ac Jd 8h 6s 2c", "high card, ace"),
        ("6c 6d Kh 9s 2c", "pair, sixes"),
        ("Ac Ad 9h 9s 2c", "two pair, aces and nines"),
        ("7c 7d 7h Ks 2c", "three of a kind, sevens"),
        ("Ac Jc 8c 6c 2c", "flush, ace high"),
        ("Qc Qd Qh Qs 2c", "four of a kind, queens"),
        ("9h Th Jh Qh Kh", "straight flush, king high"),
    ],
)
def test_describe(text, expected):
    assert describe(value_of(text)) == expected


def test_describe_unknown():
    assert describe(-1) == "not evaluable"


# --------------------------------------------------------------------------- best_hands

HOLDEM = ((0, 2), (3, 5))
OMAHA = ((2, 2), (3, 3))


def best1(hole: str, board: str, rules) -> BestHands:
    hole_arr = parse_cards(hole.split())[None, :]
    board_arr = parse_cards(board.split())[None, :] if board else np.empty((1, 0), dtype=np.int8)
    return best_hands(hole_arr, board_arr, *rules)


def test_omaha_needs_two_hole_cards_for_flush():
    board = "2s 7s 9s Ks 4d"
    holdem = best1("As 3c", board, HOLDEM)
    omaha = best1("As 3c Qd Jh", board, OMAHA)
    assert CATEGORY_NAMES[category_of(holdem.value)[0]] == "flush"
    assert CATEGORY_NAMES[category_of(omaha.value)[0]] != "flush"
    # with two spades in the hand Omaha makes the flush
    omaha2 = best1("As 3s Qd Jh", board, OMAHA)
    assert CATEGORY_NAMES[category_of(omaha2.value)[0]] == "flush"


def test_omaha_cannot_play_the_board():
    board = "Tc Jc Qc Kc Ac"  # royal flush on board
    omaha = best1("2d 3h 4s 7d", board, OMAHA)
    holdem = best1("2d 3h", board, HOLDEM)
    assert category_of(holdem.value)[0] == 8
    assert holdem.hole_used.tolist() == [[False, False]]
    assert holdem.top_hole_used[0] == -1
    assert category_of(omaha.value)[0] != 8
    assert omaha.hole_used.sum() == 2


def test_holdem_favourable_tie_break_on_straight():
    # Tc or Td completes the same straight: the player shows the diamond
    res = best1("Tc Td", "Ah Kd Qc Js 9h", HOLDEM)
    assert CATEGORY_NAMES[category_of(res.value)[0]] == "straight"
    assert res.top_hole_used[0] == parse_card("Td")
    assert res.hole_used.tolist() == [[False, True]]


def test_holdem_favourable_tie_break_over_board_card():
    # Aces and kings with a five kicker: 5s in the hole ties the board's 5h,
    # so the hand "uses" the hole card (relevant for odd-chip by suit)
    res = best1("5s 2c", "Ac Ad Kc Kd 5h", HOLDEM)
    assert res.value[0] == value_of("Ac Ad Kc Kd 5h")
    assert res.top_hole_used[0] == parse_card("5s")
    assert res.hole_used.tolist() == [[True, False]]
    # a lower-suited hole five still ties, and is still chosen over no hole card
    res2 = best1("5c 2c", "Ac Ad Kc Kd 5h", HOLDEM)
    assert res2.top_hole_used[0] == parse_card("5c")
    # but a hole card that does not tie is not used
    res3 = best1("4s 2c", "Ac Ad Kc Kd 5h", HOLDEM)
    assert res3.top_hole_used[0] == -1
    assert not res3.hole_used.any()


def test_omaha_favourable_tie_break():
    res = best1("Td Tc Js Jh", "9h 8d 7c 2s 2c", OMAHA)
    assert res.value[0] == value_of("Js Td 9h 8d 7c")
    assert res.top_hole_used[0] == parse_card("Js")
    used = [c for c, u in zip(parse_cards(["Td", "Tc", "Js", "Jh"]), res.hole_used[0], strict=True) if u]
    assert parse_card("Js") in used
    assert len(used) == 2
    assert {c >> 2 for c in used} == {parse_card("Js") >> 2, parse_card("Td") >> 2}


def test_best_hand_fields_are_consistent():
    res = best1("Ah Kh Qd 3c", "Jh Th 2h 9s 9d", OMAHA)
    assert res.value[0] == value_of("Ah Kh Jh Th 2h")
    assert sorted(res.cards[0].tolist()) == sorted(cards("Ah Kh Jh Th 2h"))
    assert res.hole_used.tolist() == [[True, True, False, False]]
    assert res.top_hole_used[0] == parse_card("Ah")


def test_five_card_draw():
    rng = np.random.default_rng(3)
    hole = random_hands(rng, 500, list(range(52)))
    res = best_hands(hole, np.empty((500, 0), dtype=np.int8), (5, 5), (0, 0))
    assert np.array_equal(res.value, rank5(hole))
    assert res.hole_used.all()
    assert np.array_equal(res.top_hole_used, hole.max(axis=1))


def test_unknown_cards():
    # hold'em with hidden hole cards still "plays the board"
    res = best1("?? ??", "Ac Kd 8h 7s 2c", HOLDEM)
    assert res.value[0] == value_of("Ac Kd 8h 7s 2c")
    assert res.top_hole_used[0] == -1
    # one known hole card is used if it helps
    res = best1("?? Ah", "Ac Kd 8h 7s 2c", HOLDEM)
    assert CATEGORY_NAMES[category_of(res.value)[0]] == "pair"
    assert res.hole_used.tolist() == [[False, True]]
    # Omaha with hidden hole cards is not evaluable
    res = best1("?? ?? ?? ??", "Ac Kd 8h 7s 2c", OMAHA)
    assert res.value[0] == -1
    assert res.top_hole_used[0] == -1
    assert not res.hole_used.any()
    assert (res.cards == -1).all()
    # missing river: best of six known cards
    res = best1("Qs Qd", "Qc 9d 4h 4s ??", HOLDEM)
    assert res.value[0] == value_of("Qs Qd Qc 4h 4s")


def test_impossible_rules_and_shapes_raise():
    with pytest.raises(ValueError):
        best1("As Ks", "", HOLDEM)  # no board: hold'em cannot make five cards
    with pytest.raises(ValueError):
        best_hands(np.zeros((2, 2), dtype=np.int8), np.zeros((3, 5), dtype=np.int8), *HOLDEM)
    with pytest.raises(ValueError):
        best_hands(np.zeros(2, dtype=np.int8), np.zeros((1, 5), dtype=np.int8), *HOLDEM)


@pytest.mark.parametrize(
    "n_hole, rules",
    [
        (2, HOLDEM),
        (4, OMAHA),
        (5, OMAHA),  # five-card Omaha
        (3, ((2, 2), (3, 3))),  # three hole cards, exactly two used
        (4, ((0, 4), (1, 5))),  # any mix
    ],
)
def test_best_hands_matches_brute_force(n_hole, rules):
    rng = np.random.default_rng(100 + n_hole)
    n = 300
    deal = random_hands(rng, n, list(range(52)), k=n_hole + 5)
    # sprinkle unknown cards into some rows
    holes = rng.random((n, n_hole + 5)) < 0.03
    deal[holes] = -1
    hole, board = deal[:, :n_hole], deal[:, n_hole:]
    res = best_hands(hole, board, *rules)
    refs = [ref_best(h, b, *rules) for h, b in zip(hole.tolist(), board.tolist(), strict=True)]

    evaluable = np.array([r is not None for r in refs])
    assert np.array_equal(res.value >= 0, evaluable)
    ok_refs = [r for r in refs if r is not None]
    ok_vals = res.value[evaluable]
    check_consistent(deal[evaluable], ok_vals, ok_refs, rng)

    # chosen cards really are the row's cards, under the usage rules, and make the value
    assert np.array_equal(rank5(res.cards[evaluable]), ok_vals)
    for i in np.flatnonzero(evaluable):
        used_hole = hole[i][res.hole_used[i]].tolist()
        chosen = res.cards[i].tolist()
        assert set(used_hole) <= set(chosen)
        assert set(chosen) - set(used_hole) <= set(board[i].tolist())
        assert rules[0][0] <= len(used_hole) <= rules[0][1]
        assert res.top_hole_used[i] == (max(used_hole) if used_hole else -1)

    # favourable tie-break: no equally good combination uses a higher hole card
    for i in np.flatnonzero(evaluable)[:60]:
        best_top = -1
        for k in range(rules[0][0], rules[0][1] + 1):
            for h in itertools.combinations(hole[i].tolist(), k):
                for b in itertools.combinations(board[i].tolist(), 5 - k):
                    if not rules[1][0] <= len(b) <= rules[1][1]:
                        continue
                    combo = list(h) + list(b)
                    if -1 not in combo and ref_key(combo) == refs[i]:
                        best_top = max(best_top, max(h, default=-1))
        assert res.top_hole_used[i] == best_top


def test_chunked_evaluation_matches_single_pass(monkeypatch):
    """Rows are processed in chunks internally; chunk boundaries must not matter."""
    import auditor.replay.evaluate as ev

    rng = np.random.default_rng(11)
    deal = random_hands(rng, 1000, list(range(52)), k=9)
    whole = best_hands(deal[:, :4], deal[:, 4:], *OMAHA)
    monkeypatch.setattr(ev, "_CHUNK_HANDS", 7 * 60 + 13)  # odd-sized chunks of 7 rows
    parts = best_hands(deal[:, :4], deal[:, 4:], *OMAHA)
    for field in ("value", "hole_used", "top_hole_used", "cards"):
        assert np.array_equal(getattr(whole, field), getattr(parts, field))
