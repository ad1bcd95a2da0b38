"""A hand log names the pack its table plays under, but only a built-in one: the log comes from the
party being audited, and a pack file it named could be one that lets everything through."""

from __future__ import annotations

import json
from pathlib import Path

from auditor.pipeline import audit

ROOT = Path(__file__).resolve().parents[1]


def test_a_log_cannot_choose_a_pack_file(tmp_path):
    lenient = tmp_path / "lenient.yaml"
    lenient.write_text("pack: lenient\nversion: 1.0.0\ntitle: Lets everything through\nextends: tda-2024\n"
                       "disable: [TDA-INT-chips, TDA-INT-id]\n", encoding="utf-8")
    hands = (ROOT / "sample_logs" / "holdem.jsonl").read_text(encoding="utf-8").splitlines()[:3]
    rows = []
    for i, line in enumerate(hands):
        hand = json.loads(line)
        if i == 0:
            hand["rule_pack"] = str(lenient)
        rows.append(json.dumps(hand))
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(rows) + "\n", encoding="utf-8")
    result = audit([log])
    assert [(q.line, "not a built-in rule pack" in q.reason) for q in result.quarantined] == [(1, True)]
    assert result.hands_audited == 2 and "lenient" not in result.packs
    # the auditor may still choose that pack for the whole run
    forced = audit([log], pack=str(lenient))
    assert forced.quarantined == [] and list(forced.packs) == ["lenient"]
