"""`showdown_facts` reads the held cards per hand and seat (the per-hand kernel's own array, no copy) exactly as
it reads them as one row per slot: both layouts give the same columns on simulated hands of every pack."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

from auditor.ingest.tables import build_tables
from auditor.replay.kernel import replay
from auditor.replay.kernel import showdown as showdown_module

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("compare_batches", ROOT / "scripts/compare_batches.py")
compare_batches = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(compare_batches)


def _same(a, b) -> None:
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            _same(a[key], b[key])
    elif isinstance(a, tuple):
        for x, y in zip(a, b, strict=True):
            _same(x, y)
    else:
        assert np.array_equal(np.asarray(a), np.asarray(b))


def test_per_seat_cards_are_read_as_slot_rows(monkeypatch) -> None:
    engine = sys.modules["auditor.replay.kernel.replay"]
    real = showdown_module.showdown_facts
    calls = []

    def both(pots, *, slot_hole, **rest):
        got = real(pots, slot_hole=slot_hole, **rest)
        assert slot_hole.ndim == 3  # the replay's own layout: per hand and seat 0..10
        rows = slot_hole[:, 1:].reshape(-1, slot_hole.shape[2])  # slot s = hand s // 10, seat s % 10 + 1
        want = real(pots, slot_hole=rows, **rest)
        for field in ("rows", "nulls", "lists", "list_nulls", "top_hole_codes"):
            _same(getattr(got, field), getattr(want, field))
        calls.append(int(rest["slot_hole_known"].sum()))
        return got

    monkeypatch.setattr(engine, "showdown_facts", both, raising=False)
    monkeypatch.setattr(showdown_module, "showdown_facts", both)
    for hands, houses, _ in compare_batches.simulated(400, 5):
        replay(build_tables(hands), houses)
    assert calls and sum(calls) > 0  # hands were shown down and rated
