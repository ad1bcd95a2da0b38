"""Hostile rule packs, round two.

* Predicate arithmetic is checked: a user rule `amount * 10000 < 0` must not fire on a legal bet of
  999,999,999,999,750 because int64 wrapped. A row whose outcome depends on arithmetic that left int64
  is *not assessable* — never a violation, never a pass — and the coverage says so (hands_overflow).
* Pack errors quote at most a short, escaped excerpt of the offending value, with file, line and path.
* A pack has a documented size limit (rules per pack, bytes per file), refused with a clear PackError,
  and a pack just under the limit loads within a stated time.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from auditor.check.expr import compile_expression
from auditor.check.packs import PackError, builtin_pack_paths, load_pack
from auditor.pipeline import audit

TDA = builtin_pack_paths()["tda-2024"]
INT64_MAX = 2**63 - 1
#: the largest amount the hand-log schema allows (schemas/hand-log.schema.json, `money`)
MONEY_MAX = 10**15
HUGE_RAISE = 999_999_999_999_750


def _huge_bet_hand(raise_amount: int = HUGE_RAISE) -> dict:
    """A legal heads-up no-limit hand: the button raises by an enormous amount, the big blind folds and
    the uncalled part is returned. Every amount is within the schema's money range."""
    to = raise_amount + 50
    return {
        "hand_id": "HUGE-1", "table_id": "HUGE", "room": "Test room", "started_at": "2024-01-01T00:00:00Z",
        "variant": "holdem", "structure": "no-limit", "stakes": {"blinds": [50, 100], "chip_unit": 50},
        "max_seats": 2, "rule_pack": "house-tda",
        "seats": [{"seat": 1, "player": "p1", "stack": MONEY_MAX, "status": "active"},
                  {"seat": 2, "player": "p2", "stack": MONEY_MAX, "status": "active"}],
        "events": [
            {"kind": "button", "seat": 2},
            {"kind": "post", "seat": 2, "post": "blind", "blind": 1, "amount": 50, "all_in": False},
            {"kind": "post", "seat": 1, "post": "blind", "blind": 2, "amount": 100, "all_in": False},
            {"kind": "deal", "to": "hole", "seat": 1, "cards": ["4c", "7s"]},
            {"kind": "deal", "to": "hole", "seat": 2, "cards": ["5h", "7c"]},
            {"kind": "action", "seat": 2, "action": "raise", "amount": raise_amount, "to": to, "all_in": False},
            {"kind": "action", "seat": 1, "action": "fold"},
            {"kind": "return", "seat": 2, "amount": to - 100},
            {"kind": "award", "pot": 0, "seat": 2, "amount": 200},
        ],
    }


def _house_pack(tmp_path: Path, violation: str, when: str | None = None) -> Path:
    """tda-2024 with one added user rule over the actions table."""
    example = TDA.parent / "examples" / "tda-2024" / "TDA-48" / "heads-up-fourth-raise.jsonl"
    rule = {
        "id": "HOUSE-X", "title": "A user's arithmetic", "category": "illegal-action", "severity": "error",
        "citation": "House rules §9", "text": "Amounts are positive.", "why": "Testing overflow.",
        "applies": {"variants": ["holdem"], "structures": ["no-limit"]}, "facts": "actions",
        "violation": violation, "message": "seat {seat} acted for {amount}",
        "examples": {"violating": [{"file": str(example), "about": "n/a"}],
                     "clean": [{"file": str(example), "about": "n/a"}]},
    }
    if when is not None:
        rule["when"] = when
    head = "pack: house-tda\nversion: 1.0.0\ntitle: House\nextends: tda-2024\n"
    path = tmp_path / "house.yaml"
    path.write_text(head + yaml.safe_dump({"rules": [rule]}, sort_keys=False), encoding="utf-8")
    return path


def _audit_huge(tmp_path: Path, violation: str, when: str | None = None, raise_amount: int = HUGE_RAISE):
    log = tmp_path / "huge.jsonl"
    log.write_text(json.dumps(_huge_bet_hand(raise_amount)) + "\n", encoding="utf-8")
    result = audit([log], pack=str(_house_pack(tmp_path, violation, when)))
    assert result.quarantined == [] and result.hands_audited == 1, [q.one_line() for q in result.quarantined]
    coverage = result.coverage.set_index("rule_id").loc["HOUSE-X"]
    return result, coverage


# -- 11: checked arithmetic -------------------------------------------------------------------------------


def test_the_issue_rule_does_not_fire_on_a_legal_huge_bet(tmp_path):
    result, coverage = _audit_huge(tmp_path, "amount * 10000 < 0")
    assert "HOUSE-X" not in set(result.findings["rule_id"])
    # not a pass either: the hand is counted not assessable, and why
    assert (coverage.hands_in_scope, coverage.hands_checked, coverage.hands_not_assessable,
            coverage.hands_overflow, coverage.violations) == (1, 0, 1, 1, 0)
    # the built-in rules still judge the hand, and find nothing wrong with it
    assert result.findings.empty, result.findings[["rule_id", "message"]]


def test_the_issue_rule_on_raises_only_where_the_column_has_no_missing_value(tmp_path):
    # with `when: is_raise` the rows judged hold only integers (no fold's missing amount), which is where
    # unchecked int64 arithmetic wrapped: 999,999,999,999,750 * 10000 became -8,446,744,073,709,551,616
    result, coverage = _audit_huge(tmp_path, "amount * 10000 < 0", when="is_raise")
    assert result.findings.empty
    assert (coverage.hands_checked, coverage.hands_not_assessable, coverage.hands_overflow) == (0, 1, 1)


def test_overflow_in_when_makes_the_row_not_assessable_not_skipped(tmp_path):
    _, coverage = _audit_huge(tmp_path, "amount > 0", when="amount * 10000 > 0")
    assert (coverage.hands_not_assessable, coverage.hands_overflow, coverage.violations) == (1, 1, 0)


def test_an_overflow_decided_by_the_rest_of_the_predicate_stays_assessable(tmp_path):
    # `and` with a known False part is False whatever the overflowed part is (three-valued logic)
    _, coverage = _audit_huge(tmp_path, "amount * 10000 < 0 and action == 'check'")
    assert (coverage.hands_checked, coverage.hands_not_assessable, coverage.hands_overflow) == (1, 0, 0)
    # `or` with a known True part is True: a real violation is still found
    result, coverage = _audit_huge(tmp_path, "amount * 10000 < 0 or amount > 100000000000000")
    assert list(result.findings["rule_id"]) == ["HOUSE-X"] and coverage.hands_overflow == 0


def test_a_bet_just_under_the_wrap_is_judged_exactly(tmp_path):
    # 922,337,203,685,450 * 10000 < 2**63 - 1: no overflow, the rule passes the hand as checked
    amount = (INT64_MAX // 10000) // 50 * 50
    assert amount * 10000 <= INT64_MAX < (amount + 50) * 10000
    _, under = _audit_huge(tmp_path, "amount * 10000 < 0", raise_amount=amount)
    assert (under.hands_checked, under.hands_not_assessable, under.hands_overflow) == (1, 0, 0)
    _, over = _audit_huge(tmp_path, "amount * 10000 < 0", raise_amount=amount + 50)
    assert (over.hands_checked, over.hands_not_assessable, over.hands_overflow) == (0, 1, 1)


INT64_MIN = -(2**63)
BOUNDARY = pd.DataFrame({"x": np.array([INT64_MAX, INT64_MAX - 1, INT64_MIN, INT64_MIN + 1, -1, 0, 1, 2**62],
                                       dtype=np.int64)})


@pytest.mark.parametrize(("predicate", "exact"), [
    ("x + 1 > x", lambda x: x + 1 > x),
    ("x - 1 < x", lambda x: x - 1 < x),
    ("x * 2 == x + x", lambda x: x * 2 == x + x),
    ("x * -1 == -x", lambda x: x * -1 == -x),
    ("-x != x or x == 0", lambda x: -x != x or x == 0),
    ("abs(x) >= 0", lambda x: abs(x) >= 0),
    ("x // -1 == -x", lambda x: x // -1 == -x),
    ("x % -1 == 0", lambda x: x % -1 == 0),
    ("x * x >= 0", lambda x: x * x >= 0),
    ("x + x - x == x", lambda x: x + x - x == x),
])
def test_boundaries_just_under_and_over_int64(predicate, exact):
    """Each row is either judged exactly as Python's unbounded integers would, or not assessable
    exactly where an intermediate result leaves int64 — never judged on a wrapped number."""
    holds, unknown = compile_expression(predicate).assess(BOUNDARY, {}, len(BOUNDARY))
    for index, x in enumerate(int(v) for v in BOUNDARY["x"]):
        wraps = _leaves_int64(predicate, x)
        assert unknown[index] == wraps, (predicate, x)
        if not wraps:
            assert holds[index] == exact(x), (predicate, x)
        else:
            assert not holds[index]


def _leaves_int64(predicate: str, x: int) -> bool:
    """Whether any arithmetic intermediate of `predicate` at `x` leaves int64 (computed with Python ints)."""
    import ast

    def value(node: ast.expr) -> int:
        if isinstance(node, ast.Name):
            return x
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.UnaryOp):
            result = -value(node.operand)
        elif isinstance(node, ast.Call):
            result = abs(value(node.args[0]))
        else:
            left, right = value(node.left), value(node.right)
            operations = {ast.Add: int.__add__, ast.Sub: int.__sub__, ast.Mult: int.__mul__,
                          ast.FloorDiv: int.__floordiv__, ast.Mod: int.__mod__}
            result = operations[type(node.op)](left, right)
        if not INT64_MIN <= result <= INT64_MAX:
            raise OverflowError
        return result

    tree = ast.parse(predicate, mode="eval").body
    compares = [tree] if isinstance(tree, ast.Compare) else tree.values
    try:
        for compare in compares:
            for operand in (compare.left, *compare.comparators):
                value(operand)
    except OverflowError:
        return True
    return False


def test_narrow_and_unsigned_columns_cannot_wrap():
    table = pd.DataFrame({"small": np.array([200, -3], dtype=np.int16),
                          "big": np.array([2**64 - 1, 7], dtype=np.uint64),
                          "nullable": pd.array([2**62 + 1, None], dtype="Int64")})
    holds, unknown = compile_expression("small * small * small * small > 0").assess(table, {}, 2)
    assert list(holds) == [True, True] and not unknown.any()  # int16 would wrap at 32,767
    holds, unknown = compile_expression("big > 0").assess(table, {}, 2)
    assert list(holds) == [False, True] and list(unknown) == [True, False]  # 2**64 - 1 does not fit int64
    # a nullable integer column keeps its exact value (float64 would round 2**62 + 1)
    holds, unknown = compile_expression("nullable - 4 * 1000000000000000000 == 611686018427387905").assess(table, {}, 2)
    assert list(holds) == [True, False] and not unknown.any()


def test_python_integers_beyond_64_bits_in_an_object_column_are_not_assessable():
    table = pd.DataFrame({"v": pd.Series([2**70, 5, None], dtype=object)})
    holds, unknown = compile_expression("v > 1").assess(table, {}, 3)
    assert list(holds) == [False, True, False] and list(unknown) == [True, False, False]


def test_float_overflow_to_infinity_is_not_assessable_and_nan_from_it_too():
    table = pd.DataFrame({"f": [1e308, 2.0]})
    holds, unknown = compile_expression("f * 10 - f * 10 == 0").assess(table, {}, 2)
    assert list(holds) == [False, True] and list(unknown) == [True, False]
    # division by zero stays missing (False, assessable), as documented
    holds, unknown = compile_expression("f / 0 > 1").assess(table, {}, 2)
    assert not holds.any() and not unknown.any()


def test_evaluate_keeps_its_two_valued_contract():
    table = pd.DataFrame({"x": np.array([INT64_MAX, 1], dtype=np.int64)})
    expression = compile_expression("not (x * 2 < 0)")
    assert list(expression.evaluate(table, {}, 2)) == [False, True]
    assert list(expression.assess(table, {}, 2)[1]) == [True, False]


# -- 12: pack errors quote short excerpts; packs have limits -----------------------------------------------


def _tda_data() -> dict:
    """tda-2024 as data, with example paths made absolute so the copy can live anywhere."""
    data = yaml.load(TDA.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    for rule in data["rules"]:
        for kind in ("violating", "clean"):
            for example in rule["examples"][kind]:
                example["file"] = str((TDA.parent / example["file"]).resolve())
    return data


def _write_pack(path: Path, data: dict) -> Path:
    """A pack written as JSON (which is YAML): fast to write for thousands of rules, one key per line."""
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")
    return path


def _error(path: Path) -> str:
    with pytest.raises(PackError) as info:
        load_pack(path)
    message = str(info.value)
    assert message.startswith(f"{path}:") and "\n" not in message, message[:500]
    return message


def test_a_schema_error_quotes_a_short_excerpt_of_a_huge_value(tmp_path):
    data = _tda_data()
    data["title"] = "A" * 5_000_000  # under the file-size limit, far over the schema's 200 characters
    path = _write_pack(tmp_path / "huge-title.yaml", data)
    message = _error(path)
    assert len(message) < len(str(path)) + 200, message
    line = int(message.split(":")[1])
    assert path.read_text(encoding="utf-8").splitlines()[line - 1].lstrip().startswith('"title"')
    assert "at title: 'AAAA" in message and "(5,000,000 characters) is too long" in message


def test_a_schema_error_escapes_control_and_bidi_characters(tmp_path):
    data = _tda_data()
    data["rules"][0]["severity"] = "\x1b[2J\x1b[31mcritical\u202e" + "x" * 500
    message = _error(_write_pack(tmp_path / "escape.yaml", data))
    assert "\x1b" not in message and "\u202e" not in message
    assert "\\x1b[2J" in message and "at rules/0/severity:" in message and len(message) < 400


def test_a_huge_unexpected_key_and_path_are_quoted_short(tmp_path):
    data = _tda_data()
    data["rules"] = data["rules"][:1]
    data["rules"][0]["k\u202e" * 500_000] = 1  # a YAML key over 1024 characters must be explicit: "? key"
    path = tmp_path / "key.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, width=10**9), encoding="utf-8")
    message = _error(path)
    assert len(message) < len(str(path)) + 400 and "characters" in message and "\u202e" not in message, message


def test_a_huge_file_is_refused_before_it_is_parsed(tmp_path):
    from auditor.check.packs import MAX_PACK_BYTES

    path = tmp_path / "50mb.yaml"
    with path.open("w", encoding="utf-8") as out:
        out.write("pack: p\nversion: 1.0.0\ntitle: '")
        out.write("A" * (50 * 1024 * 1024))
        out.write("'\n")
    started = time.process_time()
    message = _error(path)
    assert time.process_time() - started < 2
    assert f"the limit is {MAX_PACK_BYTES:,}" in message and len(message) < len(str(path)) + 120


def test_invalid_yaml_quotes_no_more_than_a_line(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("pack: p\ntitle: [" + "x, " * 200_000 + "\n", encoding="utf-8")
    assert len(_error(path)) < len(str(path)) + 400


def _many_rules(count: int) -> dict:
    """tda-2024 with `count` rules: its own, repeated under new ids, each with a distinct predicate."""
    data = _tda_data()
    base = data["rules"]
    rules = []
    for index in range(count):
        rule = dict(base[index % len(base)])
        rule["id"] = f"GEN-{index:05d}"
        rule["violation"] = f"({rule['violation']}) and {index} >= 0"
        rules.append(rule)
    data["rules"] = rules
    return data


#: a pack of MAX_RULES rules loads in about 1.5 s on an idle core; the bound leaves room for a busy machine
LOAD_BOUND_SECONDS = 30


def test_a_pack_just_under_the_rule_limit_loads_and_audits_within_the_bound(tmp_path):
    from auditor.check.packs import MAX_RULES

    path = _write_pack(tmp_path / "at-limit.yaml", _many_rules(MAX_RULES))
    started = time.process_time()
    pack = load_pack(path)
    loaded = time.process_time() - started
    assert loaded < LOAD_BOUND_SECONDS
    assert len(pack.rules) == MAX_RULES
    # identical predicate texts are compiled once and shared (the pack repeats the message templates)
    cycle = len(_tda_data()["rules"])  # `_many_rules` repeats tda-2024's rules in order
    assert pack.rules[0].message is pack.rules[cycle].message
    hand = json.loads((TDA.parent / "examples" / "tda-2024" / "TDA-48" / "heads-up-fourth-raise.jsonl")
                      .read_text(encoding="utf-8").splitlines()[0])
    hand.update(rule_pack="tda-2024")
    log = tmp_path / "hand.jsonl"
    log.write_text(json.dumps(hand) + "\n", encoding="utf-8")
    started = time.process_time()
    result = audit([log], pack=str(path))
    print(f"{MAX_RULES} rules: load {loaded:.1f} s, audit of one hand {time.process_time() - started:.1f} s")
    assert time.process_time() - started < 2 * LOAD_BOUND_SECONDS
    assert result.hands_audited == 1 and len(result.coverage) == MAX_RULES
    # every copy of TDA-48 finds what the original finds, once per copy
    tda = load_pack(TDA)
    original = tda.rule("TDA-48")
    copies = {f"GEN-{i:05d}" for i in range(tda.rules.index(original), MAX_RULES, len(tda.rules))}
    found = result.findings[result.findings["category"] == original.category]
    assert set(found["rule_id"]) == copies


def test_one_rule_over_the_limit_is_refused_at_once(tmp_path):
    from auditor.check.packs import MAX_RULES

    path = _write_pack(tmp_path / "over-limit.yaml", _many_rules(MAX_RULES + 1))
    started = time.process_time()
    message = _error(path)
    assert time.process_time() - started < LOAD_BOUND_SECONDS / 3  # refused before the schema walks the rules
    assert f"too many rules ({MAX_RULES + 1:,}; the limit is {MAX_RULES:,} rules per pack)" in message
    line = int(message.split(":")[1])
    assert path.read_text(encoding="utf-8").splitlines()[line - 1].lstrip().startswith('"rules"')


def test_the_limit_counts_the_rules_an_extending_pack_inherits(tmp_path):
    from auditor.check.packs import MAX_RULES

    inherited = len(load_pack(TDA).rules)
    own = _many_rules(MAX_RULES - inherited + 1)["rules"]
    child = {"pack": "house-tda", "version": "1.0.0", "title": "House", "extends": "tda-2024", "rules": own}
    message = _error(_write_pack(tmp_path / "child.yaml", child))
    assert f"too many rules with the pack it extends ({MAX_RULES + 1:,}; the limit is {MAX_RULES:,}" in message
    child["rules"] = own[:-1]
    assert len(load_pack(_write_pack(tmp_path / "child.yaml", child)).rules) == MAX_RULES


def test_an_extends_value_with_escapes_is_quoted_escaped(tmp_path):
    path = tmp_path / "child.yaml"
    path.write_text('pack: c\nversion: 1.0.0\ntitle: C\nextends: "tda\\x1b]0;owned\\x07-2024"\n', encoding="utf-8")
    message = _error(path)
    assert "\x1b" not in message and "\x07" not in message and "\\x1b]0;owned\\x07" in message
    assert message.startswith(f"{path}:4: extends: no such rule pack")


def test_a_rule_id_ending_in_a_newline_is_refused(tmp_path):
    # Python's re lets `$` match before a final newline; the pack schema's patterns mean the whole value
    data = _tda_data()
    data["rules"][3]["id"] = "TDA-X\n"
    message = _error(_write_pack(tmp_path / "newline.yaml", data))
    assert "at rules/3/id: " in message and "does not match" in message


@pytest.mark.parametrize(("where", "build"), [
    ("disable", lambda: {"extends": "tda-2024", "disable": [f"R{i}" for i in range(200_000)]}),
    ("parameters/x", lambda: {"extends": "tda-2024", "parameters": {"x": list(range(200_000))}}),
    ("parameters", lambda: {"extends": "tda-2024", "parameters": {f"p{i}": i for i in range(100_000)}}),
])
def test_a_huge_list_or_mapping_is_refused_before_the_schema_walks_it(tmp_path, where, build):
    from auditor.check.packs import MAX_PACK_BYTES

    path = _write_pack(tmp_path / "wide.yaml", {"pack": "c", "version": "1.0.0", "title": "t", **build()})
    assert path.stat().st_size < MAX_PACK_BYTES
    started = time.process_time()
    message = _error(path)
    # the YAML parse is most of it (about 0.5 s per MB); the Python validator alone took 30 s and more
    assert time.process_time() - started < LOAD_BOUND_SECONDS / 2
    assert f"at {where}: " in message and "no " in message and len(message) < len(str(path)) + 150, message
