"""Rules judged across consecutive hands of a table, on sessions written seat by seat with the
builder of scripts/make_session_examples.py: the cases an example file cannot show cleanly.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from auditor.pipeline import audit

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("make_session_examples", ROOT / "scripts" / "make_session_examples.py")
sessions = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = sessions  # dataclasses look their module up while the class is built
_spec.loader.exec_module(sessions)
HandPlan = sessions.HandPlan
ALL = {s: "active" for s in range(1, 6)}


def _audit(tmp_path: Path, plans: list) -> list[tuple[str, str]]:
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(sessions.hand("T", i + 1, p)) + "\n" for i, p in enumerate(plans)))
    result = audit([path], pack="online-five-card-draw")
    assert result.hands_audited == len(plans), [q.one_line() for q in result.quarantined]
    return sorted(zip(result.findings["hand_id"], result.findings["rule_id"], strict=True))


def test_the_examples_file_is_up_to_date():
    for name, plans in sessions.SESSIONS.items():
        path = sessions.EXAMPLES / name
        table = sessions.table_name(name)
        written = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        assert written == [sessions.hand(table, i + 1, p) for i, p in enumerate(plans)], name
    for name, (source, seat) in sessions.TIES.items():
        assert json.loads((sessions.EXAMPLES / name).read_text(encoding="utf-8")) == sessions.tie_broken_by_suit(
            source, seat), name
    folder = sessions.EXAMPLES / "tda-2024" / "TDA-HOUSE-rake"
    assert (folder / "house-pack.yaml").read_text(encoding="utf-8") == sessions.HOUSE_PACK
    for name, hand in sessions.rake_examples().items():
        assert json.loads((folder / name).read_text(encoding="utf-8")) == hand, name


@pytest.mark.parametrize(("button", "expected"), [(2, []), (4, [("T-2", "ONL5CD-button")])])
def test_missed_small_blind_the_big_blind_catches_a_break(tmp_path, button, expected):
    """Seed 004: with the small blind missed, "the original Big Blind player will catch a break and
    get the Button on the next hand". The hand without a small blind is itself a blind-order finding."""
    away = {**ALL, 1: "sitting_out"}
    blinds = ((3, "blind", 1), (4, "blind", 2)) if button == 2 else ((5, "blind", 1), (2, "blind", 2))
    plans = [HandPlan(away, 5, ((2, "blind", 2),)), HandPlan(away, button, blinds)]
    findings = _audit(tmp_path, plans)
    assert ("T-1", "ONL5CD-blinds") in findings
    assert [f for f in findings if f[0] == "T-2"] == expected


def test_button_goes_to_the_small_blind_even_past_a_returning_player(tmp_path):
    """The previous small blind gets the button; a player back from sitting out between the old
    button and that small blind does not take it (the first-seat-dealt-in reading would say so)."""
    plans = [HandPlan({**ALL, 1: "sitting_out"}, 5, ((2, "blind", 1), (3, "blind", 2))),
             HandPlan(ALL, 1, ((2, "blind", 1), (3, "blind", 2)))]
    assert ("T-2", "ONL5CD-button") in _audit(tmp_path, plans)
    plans[1] = HandPlan({**ALL, 1: "sitting_out"}, 2, ((3, "blind", 1), (4, "blind", 2)))
    assert [f for f in _audit(tmp_path, plans) if f[1] == "ONL5CD-button"] == []
