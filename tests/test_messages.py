"""Finding messages speak as a floor supervisor does, and a change to any of them is seen.

Every violating example hand of the built-in packs (the ones `tests/test_rule_examples.py` runs) is
audited and each finding's message, expected and actual text is compared with the snapshot
`tests/snapshots/rule-example-messages.txt`, exactly. A deliberate change is recorded by running this
file with `UPDATE_SNAPSHOTS=1` and reviewing the snapshot's diff like code.

A second test reads the same texts for words of the machine rather than the trade: `pot 0`, `blind 1`,
`round 2`, `True`/`False`/`None`/`nan`/`n/a`, `in order:`, column names with underscores.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from auditor.check import words
from auditor.check.packs import builtin_pack_paths, load_pack

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT = Path(__file__).resolve().parent / "snapshots" / "rule-example-messages.txt"

#: machine words a person must never read in a finding, and why each is one
INTERNAL = {
    r"(?<!side )\bpot \d": "a pot number: 'main pot', 'side pot 1'",
    r"\bblind \d": "a blind number: 'small blind', 'big blind'",
    r"\bround \d": "a round number: the street by game ('on the flop', 'after the draw')",
    r"\b(True|False|None|nan|NaN|NA)\b": "a raw value",
    r"\bn/a\b": "a missing fact shown as a code",
    r"in order:": "a column shown as a label",
    r"\b[a-z]+_[a-z_]+\b": "a column name",
    r"\bseat\(s\)": "a seat list left to the reader: 'seat 3', 'seats 3 and 5'",
    r"\w\(s\)": "a plural hedge: '1 odd chip', 'no burn cards'",
    r"\?\?": "an unknown card: 'hidden'",
    r"\(seat \d+ \(button\)\)": "a parenthesis inside a parenthesis",
}


def _example_texts(audit) -> list[str]:
    """`pack:rule:example #n` then the message, expected and actual of each finding, in a stable order
    (`audit(path, pack)`: the suite's shared audits of the rule examples, conftest.py's `example_audit`)."""
    lines: list[str] = []
    for pack_path in sorted(builtin_pack_paths().values()):
        pack = load_pack(pack_path)
        for rule in pack.rules:
            for example in rule.violating:
                result = audit(example.path, str(example.pack or pack.path))
                found = result.findings.sort_values(["rule_id", "seq", "seat"], kind="stable", na_position="first")
                for n, row in enumerate(found.itertuples(index=False), start=1):
                    lines.append(f"{pack.name}:{rule.id}:{example.path.name} #{n} ({row.rule_id})")
                    for key in ("message", "expected", "actual"):
                        # an example's own path in a text (a duplicate hand id) is written from the repository
                        text = str(getattr(row, key)).replace(str(ROOT) + os.sep, "")
                        lines.append(f"  {key}: {text}")
    return lines


@pytest.fixture(scope="module")
def texts(example_audit) -> list[str]:
    return _example_texts(example_audit)


def test_rule_example_messages_match_the_snapshot(texts):
    got = "\n".join(texts) + "\n"
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        SNAPSHOT.parent.mkdir(parents=True, exist_ok=True)
        SNAPSHOT.write_text(got, encoding="utf-8")
    want = SNAPSHOT.read_text(encoding="utf-8")
    if got != want:
        old, new = set(want.splitlines()), set(got.splitlines())
        changed = [f"- {line}" for line in want.splitlines() if line not in new][:10]
        changed += [f"+ {line}" for line in got.splitlines() if line not in old][:10]
        pytest.fail("rule example messages changed (UPDATE_SNAPSHOTS=1 records a deliberate change):\n"
                    + "\n".join(changed))


def test_every_rule_has_a_message_in_the_snapshot(texts):
    """Every built-in rule's violating examples produce findings, so every rule's wording is pinned."""
    heads = {line.split(" #")[0].rsplit(":", 1)[0] for line in texts if not line.startswith(" ")}
    for pack_path in builtin_pack_paths().values():
        pack = load_pack(pack_path)
        for rule in pack.rules:
            assert f"{pack.name}:{rule.id}" in heads, f"{pack.name}:{rule.id} has no finding in its examples"


def test_no_internal_words_in_any_message(texts):
    bad = []
    for line in texts:
        if not line.startswith("  "):
            continue
        text = line.split(": ", 1)[1]
        for pattern, why in INTERNAL.items():
            if re.search(pattern, text):
                bad.append(f"{why}: {line.strip()}")
    assert not bad, "\n".join(bad[:20])


def test_internal_word_patterns_catch_what_they_name():
    """The patterns above are the test: each must catch the old engine words it is there for."""
    old = ["pot 0 split 2 ways", "blind 1: owed by seat 1", "in round 3 when", "in order: False", "posted by seat n/a",
           "seat(s) 3,8", "1 odd chip(s) of 25", "odd_chip_seats", "cards Kc ??", "by Kiri (seat 7 (button))"]
    for text in old:
        assert any(re.search(p, text) for p in INTERNAL), text
    assert not any(re.search(p, "the main pot and side pot 1 were paid to seats 3 and 5 on the flop") for p in INTERNAL)


# ------------------------------------------------------------------------------------ the formatters


def test_pots_and_blinds_in_floor_words():
    assert [words.pot_name(p) for p in (0, 1, 2)] == ["main pot", "side pot 1", "side pot 2"]
    assert (words.blind_name(1, 2), words.blind_name(2, 2)) == ("small blind", "big blind")
    assert (words.blind_name(1), words.blind_name(2)) == ("small blind", "big blind")
    assert [words.blind_name(b, 3) for b in (1, 2, 3)] == ["first blind", "second blind", "third blind"]
    assert words.blind_name(1, 1) == "blind"


def test_streets_by_game():
    assert words.street_names("holdem") == ("pre-flop", "on the flop", "on the turn", "on the river")
    assert words.street_names("omaha-nz") == words.street_names("holdem")
    assert words.street_names("five-card-draw") == ("before the draw", "after the draw")
    assert words.street_names("three-card-nz")[0] == "in the first betting round"
    assert len(words.street_names("three-card-nz")) == 5
    assert words.street_name("holdem", 9) == "in betting round 9"
    assert [words.street_heading("holdem", r) for r in (1, 2, 4)] == ["Pre-flop", "Flop", "River"]
    assert words.street_heading("five-card-draw", 2) == "After the draw"
    assert words.street_heading("three-card-nz", 1) == "First betting round"
    assert words.street_heading("holdem", 9) == "Betting round 9"
    assert words.street_name("no-such-game", 2) == "in betting round 2"


def test_lists_shares_cards_and_blind_codes():
    assert [words.seat_list(t) for t in ("3", "3,5", "1,3,5", "")] == \
        ["seat 3", "seats 3 and 5", "seats 1, 3 and 5", "no seat"]
    assert words.shares_text("3:$5.50 / 5:$5.25") == "$5.50 to seat 3 and $5.25 to seat 5"
    assert words.top_cards_text("3:Kc, 5:??") == "Kc (seat 3) and hidden (seat 5)"
    assert words.cards_text("Chen ??, Eve 9s") == "Chen hidden, Eve 9s"
    assert [words.counted(n, "burn card", "burn cards") for n in (0, 1, 2, 1500)] == \
        ["no burn cards", "1 burn card", "2 burn cards", "1,500 burn cards"]
    assert words.blind_codes_text("bb,sb") == "big blind and small blind"
    assert words.misawarded_text("pot 0: held $3, paid $2; pot 1: held 4, paid 0") == \
        "main pot: held $3, paid $2; side pot 1: held 4, paid 0"
    assert words.seating_text("Ann in seats 1,4; seat 5 listed for Bo, Cy") == \
        "Ann in seats 1 and 4; seat 5 listed for Bo, Cy"
    assert (words.closed_by_text("next round"), words.closed_by_text("end of hand")) == \
        ("when the next round began", "when the hand ended")
    assert [words.ordinal(n) for n in (1, 3, 11, 12, 21, 22)] == ["first", "third", "11th", "12th", "21st", "22nd"]


def test_columns_in_words_whole_column():
    import pandas as pd

    rows = pd.DataFrame({
        "pot": pd.array([0, 2, None], dtype="Int64"),
        "round": pd.array([1, 2, 2], dtype="Int64"),
        "variant": ["holdem", "five-card-draw", "holdem"],
        "seat": pd.array([3, 4, None], dtype="Int64"),
        "button": pd.array([3, 1, 1], dtype="Int64"),
        "player": pd.array(["Ann", "Bo", None], dtype="string"),
        "in_order": pd.array([True, False, None], dtype="boolean"),
        "showdown": pd.array([True, False, True], dtype="boolean"),
        "heads_up_round_start": pd.array([True, False, True], dtype="boolean"),
    })
    got = words.in_words(list(rows.columns), rows, {})
    assert list(got["pot"]) == ["main pot", "side pot 2", "unknown"]
    assert list(got["round"]) == ["pre-flop", "after the draw", "on the flop"]
    assert list(got["seat"]) == ["3 (button)", "4", "none"]
    assert list(got["button"]) == ["3", "1", "1"]
    assert list(got["player"]) == ["Ann", "Bo", "nobody"]
    assert list(got["in_order"]) == ["in order", "out of order, after a later blind", "never posted"]
    assert list(got["showdown"]) == ["at showdown", "without a showdown", "at showdown"]
    assert list(got["heads_up_round_start"]) == ["yes", "no", "yes"]
    assert "variant" not in got
