"""The encoder's fast paths (`kernel.encode`) give what the general paths they bypass give.

Card texts are read from the column's bytes when every one is two bytes long, and list columns from the
list's own offsets when no null list spans values; both must agree with the dictionary parse and
`list_flatten` on any input, hostile texts, sliced arrays and null lists included.
"""

from __future__ import annotations

import random

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.replay.evaluate import parse_card
from auditor.replay.kernel import encode


def _slow_codes(values: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """`card_codes` by its dictionary path alone."""
    saved = encode._card_codes_fast
    encode._card_codes_fast = lambda _values: None
    try:
        return encode.card_codes(values)
    finally:
        encode._card_codes_fast = saved


def test_card_codes_from_bytes_match_the_dictionary_parse() -> None:
    rng = random.Random(5)
    cards = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    odd = ["??", "Zz", "ah", "AH", "1c", "é", "A", "Ahh", "", "\x00\x00", "T♠", "?A"]
    for _ in range(300):
        texts = [rng.choice(cards) if rng.random() < 0.8 else rng.choice(odd) for _ in range(rng.randint(1, 30))]
        if rng.random() < 0.2:
            texts[rng.randrange(len(texts))] = None
        array = pa.array(texts, pa.string())
        if rng.random() < 0.3 and len(array) > 2:
            array = array.slice(1, len(array) - 2)
        got, want = encode.card_codes(array), _slow_codes(array)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
    two_byte = pa.array([*cards, "??"], pa.string())
    assert encode._card_codes_fast(two_byte) is not None  # the fast path is the one taken on a valid log
    codes, bad = encode.card_codes(two_byte)
    assert codes.tolist() == [parse_card(c) for c in cards] + [-1] and not bad.any()


def test_lists_from_offsets_match_list_flatten() -> None:
    rng = random.Random(9)
    for _ in range(200):
        rows = [None if rng.random() < 0.3 else [rng.choice(["Ah", "2c", None]) for _ in range(rng.randint(0, 4))]
                for _ in range(rng.randint(1, 12))]
        array = pa.array(rows, pa.list_(pa.string()))
        if rng.random() < 0.3 and len(array) > 2:
            array = array.slice(1, len(array) - 1)
        offsets, values = encode.lists(array)
        lengths = pc.fill_null(pc.list_value_length(array), 0).to_numpy(zero_copy_only=False)
        assert offsets.tolist() == [0, *np.cumsum(lengths).tolist()]
        assert values.to_pylist() == pc.list_flatten(array).to_pylist()
    # a null list that spans values (the format allows it): those values are not the row's
    spanning = pa.ListArray.from_arrays(pa.array([0, 2, 3], pa.int32()), pa.array(["Ah", "Kd", "2c"]),
                                        mask=pa.array([True, False]))
    offsets, values = encode.lists(spanning)
    assert offsets.tolist() == [0, 0, 1] and values.to_pylist() == ["2c"]
