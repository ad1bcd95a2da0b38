"""Money shown as the log wrote it: `$0.50`, `€2`, `1,500` chips, `12.5` half chips.

Canonical amounts are integers of the smallest unit; people see them divided by the hand's
`money_scale` and written in its currency, in rule messages, expected/actual, `auditor explain` and
the HTML replay. The machine formats keep the integers in their typed columns.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import pyarrow as pa
import pytest
from click.testing import CliRunner

from auditor.check import money, words
from auditor.check.money import COUNT_FACTS, MONEY_FACTS, MONEY_IN_TEXT, format_money, format_money_list
from auditor.check.packs import resolve_pack
from auditor.check.run import check
from auditor.cli import main
from auditor.ingest.tables import build_tables
from auditor.model.records import SourceHand
from auditor.model.tables import HANDS_SCHEMA
from auditor.pipeline import audit
from auditor.replay.facts import FACT_COLUMNS, HAND_COLUMNS, INT, LIST_INT, LIST_STR, STR
from auditor.replay.kernel import replay
from auditor.report.hands import HandMoney, describe, describe_stakes
from auditor.report.html import render

# ------------------------------------------------------------------------------------ format_money


@pytest.mark.parametrize(("amount", "currency", "scale", "text"), [
    (50, "USD", 100, "$0.50"),
    (200, "EUR", 100, "€2"),
    (123456, "GBP", 100, "£1,234.56"),
    (1500, None, 1, "1,500"),
    (25, None, 2, "12.5"),
    (3, None, 2, "1.5"),
    (1250, "CAD", 100, "12.50 CAD"),
    (100000, "CAD", 100, "1,000 CAD"),
    (-50, "USD", 100, "-$0.50"),
    (-1500, None, 1, "-1,500"),
    (-25, None, 2, "-12.5"),
    (0, "USD", 100, "$0"),
    (5, "USD", 1000, "$0.005"),
    (7, "usd", 100, "$0.07"),
    (1, "JPY", 1, "1 JPY"),
    (10, None, 3, "3 1/3"),  # no finite decimal: exact, as a fraction
    (10**17 + 1, "USD", 100, "$1,000,000,000,000,000.01"),  # beyond float's exact range, still exact
    (7, None, 0, "7"),  # a scale below 1 is the default 1
])
def test_format_money(amount, currency, scale, text):
    assert format_money(amount, currency, scale) == text


def test_format_money_lists_and_hostile_currency_text():
    assert format_money_list([5, 10], "USD", 100) == "$0.05/$0.10"
    assert format_money_list([50, 100]) == "50/100"
    # a currency is log text: nothing but a code or symbol survives into a report
    assert format_money(7, "<b>X\x1b[31m", 1) == "7 bX31m"
    assert format_money(7, "<>", 1) == "7"


def test_every_integer_fact_is_declared_money_or_not():
    """A new facts column must be classified, or its amounts would reach people as raw integers."""
    assert not MONEY_FACTS & COUNT_FACTS
    hand_types = {f.name: f.type for f in HANDS_SCHEMA}
    integer_hand_columns = {c for c in HAND_COLUMNS if c in hand_types and pa.types.is_integer(hand_types[c])}
    for table, columns in FACT_COLUMNS.items():
        for name, dtype, meaning in columns:
            if dtype == INT:
                assert name in MONEY_FACTS | COUNT_FACTS, f"{table}.{name} ({meaning}): money or not?"
    for name in integer_hand_columns:
        assert name in MONEY_FACTS | COUNT_FACTS, f"hand column {name}: money or not?"
    known = {n for cols in FACT_COLUMNS.values() for n, _, _ in cols} | set(HAND_COLUMNS) | {"money_scale"}
    assert not (MONEY_FACTS | COUNT_FACTS) - known, "a declared name that is no fact"
    text_facts = {n for cols in FACT_COLUMNS.values() for n, t, _ in cols if t in (STR, LIST_STR)}
    assert set(MONEY_IN_TEXT) <= text_facts
    # a list of integers is a list of seats, written in floor words (`seats 1 and 3`), never money
    int_lists = {n for cols in FACT_COLUMNS.values() for n, t, _ in cols if t == LIST_INT}
    assert int_lists and int_lists == words.SEAT_LIST_FACTS


def test_amounts_inside_engine_text_are_formatted():
    shares = MONEY_IN_TEXT["shares"]("2:150, 4:125050", money.money_formatter("USD", 100))
    assert shares == "2:$1.50 / 4:$1,250.50"
    misawarded = MONEY_IN_TEXT["pots_misawarded"]("pot 0: held 300, paid 250; pot 1: held 5, paid 0",
                                                  money.money_formatter(None, 2))
    assert misawarded == "pot 0: held 150, paid 125; pot 1: held 2.5, paid 0"


# ------------------------------------------------------------------------------------ findings


def _short_raise_hand(k: int, currency: str | None, scale: int | None, hand_id: str = "M-1") -> dict:
    """Seat 1 re-raises by 1 big blind after a raise of 3: a short raise (TDA 43-A). Amounts times `k`."""
    hand = {
        "hand_id": hand_id, "table_id": f"T-{hand_id}", "variant": "holdem", "structure": "no-limit",
        "stakes": {"blinds": [5 * k, 10 * k], "chip_unit": 5 * k}, "max_seats": 6, "rule_pack": "tda-2024",
        "seats": [{"seat": s, "player": p, "stack": 1000 * k} for s, p in ((1, "Ann"), (2, "Bo"), (3, "Cy"))],
        "events": [
            {"kind": "button", "seat": 3},
            {"kind": "post", "seat": 1, "post": "blind", "blind": 1, "amount": 5 * k},
            {"kind": "post", "seat": 2, "post": "blind", "blind": 2, "amount": 10 * k},
            {"kind": "deal", "to": "hole", "seat": 1, "cards": ["As", "Ad"]},
            {"kind": "deal", "to": "hole", "seat": 2, "cards": ["2c", "7d"]},
            {"kind": "deal", "to": "hole", "seat": 3, "cards": ["Kh", "Qh"]},
            {"kind": "action", "seat": 3, "action": "raise", "amount": 40 * k, "to": 40 * k},
            {"kind": "action", "seat": 1, "action": "raise", "amount": 45 * k, "to": 50 * k},
            {"kind": "action", "seat": 2, "action": "fold"},
            {"kind": "action", "seat": 3, "action": "fold"},
            {"kind": "return", "seat": 1, "amount": 10 * k},
            {"kind": "award", "pot": 0, "seat": 1, "amount": 90 * k},
        ],
    }
    if currency:
        hand["currency"] = currency
    if scale is not None:
        hand["money_scale"] = scale
    return hand


def _write(path: Path, *hands: dict) -> Path:
    path.write_text("".join(json.dumps(h) + "\n" for h in hands), encoding="utf-8")
    return path


def _one_finding(path: Path) -> dict:
    result = audit([path], pack="tda-2024")
    assert result.quarantined == [], [q.one_line() for q in result.quarantined]
    rows = result.findings[result.findings["rule_id"] == "TDA-43A"].to_dict("records")
    assert len(rows) == 1, result.findings[["rule_id", "message"]].to_string()
    return rows[0]


def test_check_renders_money_from_the_hands_currency_and_scale():
    """The findings step on its own: whatever reader or table builder made the hands frame."""
    hands_in = [_short_raise_hand(1, "USD", None, "A"), _short_raise_hand(100, None, None, "B")]
    tables = build_tables([SourceHand(h, "x.jsonl", i + 1) for i, h in enumerate(hands_in)])
    pack = resolve_pack("tda-2024")
    facts, failures = replay(tables, [pack.house] * len(hands_in))
    assert failures == []
    hands = tables.hands.to_pandas()
    hands["money_scale"] = [100, 1]
    findings, _ = check(facts, hands, {pack.name: pack})
    by_hand = findings[findings["rule_id"] == "TDA-43A"].set_index("hand_id")
    assert by_hand.loc["A", "message"].startswith("seat 1 (Ann) raised by $0.10 to $0.50 pre-flop without being "
                                                  "all-in, but the largest prior full bet or raise of the round was "
                                                  "$0.30")
    assert (by_hand.loc["A", "expected"], by_hand.loc["A", "actual"]) == ("a raise of at least $0.30",
                                                                         "a raise of $0.10")
    assert by_hand.loc["B", "message"].startswith("seat 1 (Ann) raised by 1,000 to 5,000 pre-flop")
    # a hands frame without the columns (the run-wide ledger's) is chips at scale 1
    plain, _ = check(facts, hands.drop(columns=["currency", "money_scale"]), {pack.name: pack})
    assert "raised by 10 to 50" in plain[plain["hand_id"] == "A"]["message"].iloc[0]


def test_cash_hand_messages_show_dollars_and_machine_columns_keep_integers(tmp_path):
    path = _write(tmp_path / "cash.jsonl", _short_raise_hand(1, "USD", 100))
    row = _one_finding(path)
    assert "raised by $0.10 to $0.50" in row["message"] and "was $0.30" in row["message"]
    assert (row["expected"], row["actual"]) == ("a raise of at least $0.30", "a raise of $0.10")
    out = tmp_path / "findings.jsonl"
    run = CliRunner().invoke(main, ["audit", str(path), "--format", "jsonl", "--output", str(out)])
    assert run.exit_code in (0, 1), run.output
    record = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    assert "$0.10" in record["message"]
    assert not any(isinstance(v, float) for v in record.values())  # no per-finding floats added


def test_tournament_chips_have_thousands_separators(tmp_path):
    row = _one_finding(_write(tmp_path / "mtt.jsonl", _short_raise_hand(100, None, None)))
    assert "raised by 1,000 to 5,000" in row["message"] and "was 3,000" in row["message"]
    assert row["expected"] == "a raise of at least 3,000"


def test_half_chips_are_not_shown_doubled(tmp_path):
    row = _one_finding(_write(tmp_path / "half.jsonl", _short_raise_hand(100, None, 2)))
    assert "raised by 500 to 2,500" in row["message"] and "was 1,500" in row["message"]
    assert "5,000" not in row["message"] and "3,000" not in row["message"]


def test_sample_logs_messages_unchanged_below_a_thousand(tmp_path):
    """Canonical sample hands have no currency: scale 1, so only amounts of 1,000 or more change."""
    result = audit([Path(__file__).resolve().parents[1] / "sample_logs" / "holdem-planted.jsonl"])
    messages = result.findings["message"].tolist()
    assert any("raise of 50" in m or "raised by 50" in m for m in messages)
    assert not any("$" in m for m in messages)


# ------------------------------------------------------------------------------------ explain, HTML


def test_explain_shows_the_hand_in_dollars(tmp_path):
    path = _write(tmp_path / "cash.jsonl", _short_raise_hand(1, "USD", 100))
    run = CliRunner().invoke(main, ["explain", "M-1", str(path)])
    assert run.exit_code == 0, run.output
    text = run.stdout
    assert "stakes: blinds $0.05/$0.10, chip unit $0.05" in text
    assert "1 Ann ($10)" in text
    assert "seat 1 (Ann) raises $0.45 to $0.50" in text
    assert "uncalled $0.10 returned" in text and "wins $0.90" in text
    flagged = next(line for line in text.splitlines() if line.startswith(">>"))
    assert flagged.split()[-5:] == ["$0.55", "$0.35", "1", "seat", "1"]  # pot before, to call, raises, turn
    assert "expected a raise of at least $0.30; actual a raise of $0.10" in text


def test_explain_half_chips(tmp_path):
    path = _write(tmp_path / "half.jsonl", _short_raise_hand(100, None, 2))
    text = CliRunner().invoke(main, ["explain", "M-1", str(path)]).stdout
    assert "stakes: blinds 250/500, chip unit 250" in text and "1 Ann (50,000)" in text
    assert "raises 2,250 to 2,500" in text


def test_event_words_use_the_hands_units():
    players = {1: "Ann"}
    usd = HandMoney("USD", 100)
    assert describe({"kind": "award", "seat": 1, "pot": 1, "amount": 123456}, players, usd) == \
        "seat 1 (Ann) wins $1,234.56 from side pot 1"
    assert describe({"kind": "rake", "pot": 0, "amount": 5}, players, usd) == "rake $0.05 from the main pot"
    assert describe({"kind": "kill", "seat": 1}, players) == "seat 1 (Ann): hand declared dead by the house"
    stakes = {"blinds": [25, 50], "ante": 5, "spread": [{"min": 50, "max": 100}], "table_max": 100000, "chip_unit": 5}
    assert describe_stakes(stakes, HandMoney(None, 2)) == \
        "blinds 12.5/25, ante 2.5, spread 25-50, table maximum 50,000, chip unit 2.5"


def test_html_replay_shows_the_hand_in_dollars(tmp_path):
    page = render(audit([_write(tmp_path / "cash.jsonl", _short_raise_hand(1, "USD", 100))], pack="tda-2024"))
    replay_part = page[page.index("Replay of hand"):]
    assert html.escape("blinds $0.05/$0.10") in replay_part and "1 Ann ($10)" in replay_part
    assert '<td class="num">$0.55</td><td class="num">$0.35</td>' in replay_part
    assert "raised by $0.10 to $0.50" in page


# ------------------------------------------------------------------------------------ real readers

POKERSTARS_CASH = """\
PokerStars Hand #200000000901:  Hold'em No Limit ($0.05/$0.10 USD) - 2019/06/01 12:10:00 ET
Table 'Money Test' 6-max Seat #3 is the button
Seat 1: Ann ($10 in chips)
Seat 2: Bo ($10 in chips)
Seat 3: Cy ($10 in chips)
Ann: posts small blind $0.05
Bo: posts big blind $0.10
*** HOLE CARDS ***
Cy: raises $0.30 to $0.40
Ann: raises $0.10 to $0.50
Bo: folds
Cy: folds
Uncalled bet ($0.10) returned to Ann
Ann collected $0.90 from pot
Ann: doesn't show hand
*** SUMMARY ***
Total pot $0.90 | Rake $0
Seat 1: Ann (small blind) collected ($0.90)
Seat 2: Bo (big blind) folded before Flop
Seat 3: Cy (button) folded before Flop
"""


def test_pokerstars_cash_hand_short_raise_in_dollars(tmp_path):
    path = tmp_path / "stars.txt"
    path.write_text(POKERSTARS_CASH, encoding="utf-8")
    row = _one_finding(path)
    assert "raised by $0.10 to $0.50" in row["message"]
    assert (row["expected"], row["actual"]) == ("a raise of at least $0.30", "a raise of $0.10")


PHH_HALF_CHIPS = """\
variant = 'NT'
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [10000, 10000, 10000]
actions = ['d dh p1 AcKd', 'd dh p2 2c3d', 'd dh p3 AhKs', 'p3 cbr 225', 'p1 cc', 'p2 cc', 'd db Qs9c4s', 'p1 cc',
  'p2 cc', 'p3 cc', 'd db 8d', 'p1 cc', 'p2 cc', 'p3 cc', 'd db 7h', 'p1 cc', 'p2 f', 'p3 cc', 'p1 sm AcKd',
  'p3 sm AhKs']
players = ['Ann', 'Bo', 'Cy']
finishing_stacks = [10112.5, 9775.0, 10112.5]
"""


def test_phh_half_chip_split_is_shown_in_chips(tmp_path):
    """A 675 pot split into 337.5 each: PHH keeps it in half chips, people must not see 1,350."""
    path = tmp_path / "half.phh"
    path.write_text(PHH_HALF_CHIPS, encoding="utf-8")
    result = audit([path], pack="tda-2024")
    assert result.quarantined == [], [q.one_line() for q in result.quarantined]
    assert len(result.findings), "the half-chip split is a TDA 20 finding"
    text = " ".join(result.findings[["message", "expected", "actual"]].astype(str).to_numpy().ravel())
    assert "337.5" in text and "675" in text
    assert "1,350" not in text and "1350" not in text


OHH_SPEC = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "ohh" / "spec-examples"


@pytest.mark.skipif(not OHH_SPEC.is_dir(), reason="the shared corpus is not beside the project")
def test_ohh_cash_hand_is_explained_in_dollars():
    """The OHH specification's PokerStars example is a $0.01/$0.02 game, kept in cents."""
    path = OHH_SPEC / "Holdem Cash Game (PokerStars).ohh"
    run = CliRunner().invoke(main, ["explain", "226935652098", str(path)])
    assert run.exit_code == 0, run.output
    assert "stakes: blinds $0.01/$0.02" in run.stdout
