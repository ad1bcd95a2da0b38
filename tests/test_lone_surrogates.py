"""A JSON escape of half a UTF-16 pair (\\ud800) decodes to no character at all. Found by the report
work: such a player name crashed the whole run in Arrow. Each JSON reader now quarantines the hand
and the batch goes on; a proper pair (an escaped emoji) is still read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from auditor.pipeline import audit

ROOT = Path(__file__).resolve().parents[1]


def _jsonl_hand(name: str) -> str:
    hand = json.loads((ROOT / "sample_logs" / "holdem.jsonl").read_text(encoding="utf-8").splitlines()[0])
    hand["seats"][0]["player"] = name
    return json.dumps(hand)  # ensure_ascii: the name is written as \u escapes


def _ohh_hand(name: str) -> str:
    text = (ROOT / "tests" / "fixtures" / "ohh" / "side-pot.ohh").read_text(encoding="utf-8")
    hand = json.loads(text.split("\n\n")[0])
    hand["ohh"]["players"][0]["name"] = name
    return json.dumps(hand)


@pytest.mark.parametrize(("make", "suffix", "sep", "lines"), [(_jsonl_hand, ".jsonl", "\n", [1, 3]),
                                                             (_ohh_hand, ".ohh", "\n\n", [1, 5])])
def test_lone_surrogate_is_quarantined_and_the_rest_is_audited(tmp_path, make, suffix, sep, lines):
    path = tmp_path / f"names{suffix}"
    path.write_text(sep.join([make("\ud800bad"), make("fine \U0001f600"), make("x\udfff")]) + "\n", encoding="utf-8")
    result = audit([path])
    assert result.hands_read == 3
    assert [q.line for q in result.quarantined] == lines
    assert all("lone UTF-16 surrogate" in q.reason and q.code == "damaged" for q in result.quarantined)
    assert result.hands_audited == 1
