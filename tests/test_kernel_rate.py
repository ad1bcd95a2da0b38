"""The showdown's compiled evaluator (`kernel.showdown._best`) rates exactly as `evaluate.best_hands`.

`best_hands` is the evaluator the showdown facts were built and reference-checked with; the kernel replaced
it on the hot path only for speed, so every value and every tie-break (the highest hole card used) must be
the same, unknown cards (-1) included, for every shape of game the variants have and a few they do not.
"""

from __future__ import annotations

import numpy as np
import pytest

from auditor.replay.evaluate import best_hands
from auditor.replay.kernel.showdown import _best

SHAPES = [  # (hole cards, board cards, hole use, board use)
    (2, 5, (0, 2), (3, 5)),  # hold'em
    (4, 5, (2, 2), (3, 3)),  # Omaha
    (5, 0, (5, 5), (0, 0)),  # five-card draw
    (3, 5, (0, 3), (2, 5)),
    (3, 5, (1, 3), (2, 4)),
    (2, 3, (0, 2), (3, 3)),
    (4, 4, (2, 2), (3, 3)),
]


@pytest.mark.parametrize(("n_hole", "n_board", "hole_use", "board_use"), SHAPES)
def test_rate_kernel_matches_best_hands(n_hole: int, n_board: int, hole_use: tuple[int, int],
                                        board_use: tuple[int, int]) -> None:
    rng = np.random.default_rng(n_hole * 10 + n_board)
    deal = np.argsort(rng.random((4000, 52)), axis=1)[:, :n_hole + n_board].astype(np.int64)
    deal[:800] = (deal[:800] // 4) * 4 + 2  # one suit: flushes and straight flushes
    deal[800:1200] = np.sort(deal[800:1200] // 4 % 6 * 4 + np.arange(deal.shape[1]) % 4, axis=1)  # low runs: wheels
    deal[rng.random(deal.shape) < 0.03] = -1  # unknown cards
    hole, board = deal[:, :n_hole], deal[:, n_hole:]
    want = best_hands(hole, board, hole_use, board_use)
    value, top = _best(hole, board, hole_use, board_use)
    assert (value >= 0).sum() > 1000 and len(np.unique(value)) > 100  # the draw rates many distinct hands
    np.testing.assert_array_equal(value, want.value)
    np.testing.assert_array_equal(top, want.top_hole_used)


def test_rate_kernel_refuses_what_best_hands_refuses() -> None:
    with pytest.raises(ValueError):
        _best(np.array([[0, 60]]), np.zeros((1, 5), np.int64), (0, 2), (3, 5))
    with pytest.raises(ValueError):
        _best(np.zeros((1, 2), np.int64), np.zeros((1, 2), np.int64), (0, 2), (3, 5))
