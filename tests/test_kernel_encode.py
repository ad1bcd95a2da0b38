"""The encoder's fast readings of Arrow columns equal their plain readings.

`encode.byte_codes` (the validator's compiled byte pass) gives `encode.codes` (`index_in`); card texts read as
one uint16 gather give what `parse_card` gives text by text; a list column's offsets are read from its own
buffer only when its null lists span no values, else through `list_flatten`. Each is held on random columns
with nulls, chunks, slices and texts that are not words or cards.
"""

from __future__ import annotations

import random

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.ingest import columnar_kernels
from auditor.replay.evaluate import parse_card
from auditor.replay.kernel.encode import KINDS, VERBS, byte_codes, card_codes, codes, lists

WORDS = (*KINDS, *VERBS, "", "Call", "calls", "seat_drawx", "é", "fold\x00", "a" * 40)


def _chunked(values: list, rng: random.Random, kind: pa.DataType) -> pa.ChunkedArray:
    cut = sorted(rng.randint(0, len(values)) for _ in range(rng.randint(0, 3)))
    parts = [values[a:b] for a, b in zip([0, *cut], [*cut, len(values)], strict=True)]
    return pa.chunked_array([pa.array(p, kind) for p in parts], kind)


def test_byte_codes_are_index_in_codes() -> None:
    columnar_kernels.codes(columnar_kernels.strings(pa.array(["fold"])), VERBS)  # the pass loaded, as in a run
    assert columnar_kernels._codes_kernel.signatures
    rng = random.Random(7)
    for _ in range(300):
        values = [None if rng.random() < 0.4 else rng.choice(WORDS) for _ in range(rng.randint(0, 40))]
        column = _chunked(values, rng, pa.string())
        for vocabulary in (KINDS, VERBS):
            got = byte_codes(column, vocabulary)
            want = codes(column, vocabulary)
            assert got.dtype == want.dtype == np.int8
            assert got.tolist() == want.tolist()
        sliced = pa.array(values, pa.string()).slice(len(values) // 3)
        assert byte_codes(sliced, VERBS).tolist() == codes(sliced, VERBS).tolist()


CARD_TEXTS = ["As", "Td", "2c", "??", "Ah", "Kx", "1s", "A", "Ass", "", "ä", "aS", "?s"]


def _card_reference(text: str | None) -> tuple[int, bool]:
    if text is None:
        return -1, True
    if text == "??":
        return -1, False
    if len(text) == 2 and text[0] in "23456789TJQKA" and text[1] in "cdhs":
        return parse_card(text), False
    return -1, True


def test_card_codes_are_parse_card() -> None:
    rng = random.Random(11)
    for _ in range(300):
        two_bytes = rng.random() < 0.5  # the fast path: every text two bytes, no null
        pool = CARD_TEXTS[:6] if two_bytes else [*CARD_TEXTS, None]
        values = [rng.choice(pool) for _ in range(rng.randint(0, 30))]
        array = pa.array(values, pa.string())
        for column in (array, array.slice(min(len(values), rng.randint(0, 3)))):
            got, bad = card_codes(column)
            want = [_card_reference(v) for v in column.to_pylist()]
            assert got.tolist() == [w[0] for w in want]
            assert bad.tolist() == [w[1] for w in want]


def test_list_offsets_are_the_flattened_lists() -> None:
    rng = random.Random(13)
    for _ in range(300):
        n = rng.randint(0, 12)
        lengths = [rng.randint(0, 3) for _ in range(n)]
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32) + rng.randint(0, 2)
        items = pa.array([f"c{i}" for i in range(int(offsets[-1]) + 2)], pa.string())
        mask = pa.array([rng.random() < 0.3 for _ in range(n)], pa.bool_())
        array = pa.ListArray.from_arrays(pa.array(offsets), items, mask=mask)  # a null list may span items
        got_offsets, got_values = lists(pa.chunked_array([array]) if rng.random() < 0.5 else array)
        lengths_want = pc.fill_null(pc.list_value_length(array), 0).to_numpy(zero_copy_only=False)
        assert got_offsets.tolist() == np.concatenate([[0], np.cumsum(lengths_want)]).tolist()
        assert got_values.to_pylist() == pc.list_flatten(array).to_pylist()
