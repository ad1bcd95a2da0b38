"""Tests for auditor.check.expr: safe vectorised predicates and message templates."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from auditor.check.expr import (
    MISSING_TEXT,
    Expression,
    ExpressionError,
    compile_expression,
    compile_template,
)

T, F = True, False


@pytest.fixture
def facts() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "action": ["raise", "call", "raise", "fold", None],
            "amount": [10.0, 5.0, np.nan, 0.0, 3.0],
            "last_full_raise": [4, 5, 6, 2, 0],
            "all_in": pd.array([False, True, None, False, True], dtype="boolean"),
            "player": ["alice", "bob", "carol", "dave", None],
            "structure": ["no-limit", "fixed-limit", "fixed-limit", "spread-limit", "no-limit"],
            "expected_amount": [10, 4, 6, 2, 3],
            "stake": pd.array([1, None, 3, 4, 5], dtype="Int64"),
        }
    )


PARAMS = {
    "max_raises": 4,
    "chip_unit": 0.5,
    "limit_structures": ["fixed-limit", "spread-limit"],
    "heads_up_uncapped": True,
    "game": "holdem",
}


def ev(text: str, frame: pd.DataFrame, params: dict | None = None) -> list[bool]:
    result = compile_expression(text).evaluate(frame, PARAMS if params is None else params, len(frame))
    assert isinstance(result, np.ndarray)
    assert result.dtype == np.bool_
    assert result.shape == (len(frame),)
    return result.tolist()


# --------------------------------------------------------------------------- evaluation


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # amount = [10, 5, NaN, 0, 3]; last_full_raise = [4, 5, 6, 2, 0]
        ("amount - last_full_raise > 2", [T, F, F, F, T]),
        ("amount * 2 == last_full_raise + 16", [T, F, F, F, F]),
        ("amount // 2 == 2", [F, T, F, F, F]),
        ("amount % 3 == 1", [T, F, F, F, F]),
        ("-amount < -4", [T, T, F, F, F]),
        ("+last_full_raise >= 5", [F, T, T, F, F]),
        ("abs(amount - expected_amount) > chip_unit", [F, T, F, T, F]),
        ("min(amount, last_full_raise) == 4", [T, F, F, F, F]),
        ("max(amount, last_full_raise, 4) == 5", [F, T, F, F, F]),
        ("amount >= 1.5 * 2", [T, T, F, F, T]),
    ],
)
def test_arithmetic_and_comparison(facts: pd.DataFrame, text: str, expected: list[bool]) -> None:
    assert ev(text, facts) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('action == "raise" and not all_in', [T, F, F, F, F]),  # all_in[2] missing: undecided, not True
        ('action == "raise" or all_in', [T, T, T, F, T]),
        ('not (action == "raise")', [F, T, F, T, F]),  # not missing is missing
        ('action != "raise"', [F, T, F, T, F]),
        ("all_in", [F, T, F, F, T]),
        ("not all_in", [T, F, F, T, F]),
        ('action == "raise" and amount > 5 or player == "dave"', [T, F, F, T, F]),
        ('action == "raise" and (amount > 5 or player == "carol")', [T, F, T, F, F]),
    ],
)
def test_boolean_logic(facts: pd.DataFrame, text: str, expected: list[bool]) -> None:
    assert ev(text, facts) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("4 <= amount < 10", [F, T, F, F, F]),
        ("last_full_raise < amount <= 10", [T, F, F, F, T]),
        ("0 < last_full_raise < amount < 100", [T, F, F, F, F]),
    ],
)
def test_chained_comparisons(facts: pd.DataFrame, text: str, expected: list[bool]) -> None:
    assert ev(text, facts) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('structure in ["fixed-limit", "spread-limit"]', [F, T, T, T, F]),
        ('structure not in ["fixed-limit", "spread-limit"]', [T, F, F, F, T]),
        ("structure in limit_structures", [F, T, T, T, F]),
        ('action in ["raise", "call"]', [T, T, T, F, F]),
        ('action not in ["raise"]', [F, T, F, T, F]),  # missing action: False
        ("last_full_raise in (4, 6, -1)", [T, F, T, F, F]),
        ("amount in [5, 3]", [F, T, F, F, T]),
        ("amount in []", [F, F, F, F, F]),
        ('amount in ["5"]', [F, F, F, F, F]),
        ('game in ["holdem", "omaha"]', [T, T, T, T, T]),
        (
            'structure in ["fixed-limit", "spread-limit"] and abs(amount - expected_amount) > chip_unit',
            [F, T, F, T, F],
        ),
    ],
)
def test_in_lists(facts: pd.DataFrame, text: str, expected: list[bool]) -> None:
    assert ev(text, facts) == expected


def test_columns_take_precedence_over_parameters(facts: pd.DataFrame) -> None:
    params = {**PARAMS, "amount": 1000, "last_full_raise": -1}
    assert ev("amount > 6", facts, params) == [T, F, F, F, F]
    assert ev("last_full_raise >= 5", facts, params) == [F, T, T, F, F]
    # a name that is only a parameter is still found
    assert ev("amount < max_raises", facts, params) == [F, F, F, T, T]


def test_scalar_results_are_broadcast(facts: pd.DataFrame) -> None:
    assert ev("max_raises > 3", facts) == [T] * 5
    assert ev("max_raises > 30", facts) == [F] * 5
    assert ev("heads_up_uncapped", facts) == [T] * 5
    assert ev("True", facts) == [T] * 5
    assert ev("1 + 1 == 2", facts) == [T] * 5
    assert ev('game == "stud"', facts) == [F] * 5
    out = compile_expression("True").evaluate({}, {}, 0)
    assert out.dtype == np.bool_ and out.shape == (0,)


def test_example_rule_with_parameters() -> None:
    frame = pd.DataFrame({"raise_number": [1, 4, 5, 6], "heads_up": [False, False, True, False]})
    text = "raise_number > max_raises and not (heads_up and heads_up_uncapped)"
    assert ev(text, frame, {"max_raises": 4, "heads_up_uncapped": True}) == [F, F, F, T]
    assert ev(text, frame, {"max_raises": 4, "heads_up_uncapped": False}) == [F, F, T, T]


def test_null_semantics(facts: pd.DataFrame) -> None:
    # amount[2] is NaN; stake[1] is pd.NA (Int64); action[4] and player[4] are None
    assert ev("amount > 1", facts) == [T, T, F, F, T]
    assert ev("not (amount > 1)", facts) == [F, F, F, T, F]  # missing stays missing under not
    assert ev("amount != 5", facts) == [T, F, F, T, T]
    assert ev("notnull(amount) and not (amount > 1)", facts) == [F, F, F, T, F]
    assert ev("isnull(amount)", facts) == [F, F, T, F, F]
    assert ev("notnull(amount)", facts) == [T, T, F, T, T]
    assert ev("isnull(stake)", facts) == [F, T, F, F, F]
    assert ev("stake + 1 >= 4", facts) == [F, F, T, T, T]
    assert ev("isnull(stake * 2)", facts) == [F, T, F, F, F]
    assert ev("isnull(all_in)", facts) == [F, F, T, F, F]
    assert ev("all_in == False", facts) == [T, F, F, T, F]
    assert ev("isnull(player)", facts) == [F, F, F, F, T]
    assert ev('player == "alice" or isnull(action)', facts) == [T, F, F, F, T]
    assert ev("isnull(max_raises)", facts) == [F] * 5
    assert ev("isnull(None)", facts) == [T] * 5
    assert ev("amount > nothing", facts, {"nothing": None}) == [F] * 5


def test_object_column_with_none_and_nan() -> None:
    frame = pd.DataFrame(
        {
            "label": pd.Series(["a", None, np.nan, "b"], dtype=object),
            "num": pd.Series([1, None, 3, None], dtype=object),
            "flag": pd.Series([True, None, False, True], dtype=object),
            "nothing": pd.Series([None, None, None, None], dtype=object),
        }
    )
    assert ev('label == "a" or label == "b"', frame) == [T, F, F, T]
    assert ev("isnull(label)", frame) == [F, T, T, F]
    assert ev("num >= 1", frame) == [T, F, T, F]
    assert ev("flag", frame) == [T, F, F, T]
    assert ev("not flag", frame) == [F, F, T, F]
    assert ev('nothing == "x" or nothing > 1', frame) == [F] * 4
    assert ev("isnull(nothing)", frame) == [T] * 4


def test_division_by_zero_is_missing_not_an_error() -> None:
    frame = pd.DataFrame({"a": [1, 0, 6, -3], "b": [0, 0, 3, 0], "x": [1.0, 0.0, 2.0, 1.0]})
    assert ev("a / b > 1", frame) == [F, F, T, F]
    assert ev("a / b < 1", frame) == [F, F, F, F]
    assert ev("a // b == 0", frame) == [F, F, F, F]
    assert ev("a % b == 0", frame) == [F, F, T, F]
    assert ev("isnull(a / b)", frame) == [T, T, F, T]
    assert ev("x / 0 > 0", frame) == [F, F, F, F]
    assert ev("not (a / b > 1)", frame) == [F, F, F, F]


def test_strings_and_type_mismatches(facts: pd.DataFrame) -> None:
    assert ev('amount == "10"', facts) == [F] * 5
    assert ev('amount != "10"', facts) == [T, T, F, T, T]
    assert ev('startswith(structure, "fixed")', facts) == [F, T, T, F, F]
    assert ev('startswith(action, "")', facts) == [T, T, T, T, F]
    assert ev('player < "c"', facts) == [T, T, F, F, F]
    with pytest.raises(ExpressionError, match="cannot compare text with a number"):
        ev("action < 3", facts)
    with pytest.raises(ExpressionError, match="needs numbers"):
        ev("action + 1 > 0", facts)
    with pytest.raises(ExpressionError, match="needs numbers"):
        ev('"ab" * 3 == "ababab"', facts)
    with pytest.raises(ExpressionError, match="list"):
        ev("limit_structures == 1", facts)
    with pytest.raises(ExpressionError, match="must be a list"):
        ev("action in game", facts)


def test_numpy_arrays_and_plain_mapping() -> None:
    columns = {
        "a": np.array([1, 2, 3]),
        "b": np.array([3.0, np.nan, 1.0]),
        "s": np.array(["x", "y", "z"]),
    }
    expr = compile_expression('a < b or s == "y"')
    assert expr.evaluate(columns, {}, 3).tolist() == [T, T, F]
    with pytest.raises(ExpressionError, match="has 3 rows, expected 4"):
        expr.evaluate(columns, {}, 4)


def test_result_is_a_fresh_array() -> None:
    frame = pd.DataFrame({"flag": [True, False, True]})
    result = compile_expression("flag").evaluate(frame, {}, 3)
    result[:] = False
    assert frame["flag"].tolist() == [T, F, T]


def test_names_and_unknown_names(facts: pd.DataFrame) -> None:
    expr = compile_expression('abs(amount) > max_raises and startswith(player, "a") and x in limits')
    assert isinstance(expr, Expression)
    assert expr.names == frozenset({"amount", "max_raises", "player", "x", "limits"})
    assert expr.text.startswith("abs(amount)")
    expr.check_names(["amount", "max_raises", "player", "x", "limits", "extra"])
    with pytest.raises(ExpressionError) as info:
        expr.check_names(["amount", "player"])
    assert info.value.reason == "unknown names 'limits', 'max_raises', 'x'"
    with pytest.raises(ExpressionError, match="unknown name 'nope'"):
        compile_expression("nope > 1").evaluate(facts, PARAMS, len(facts))


def test_unsupported_parameter_type(facts: pd.DataFrame) -> None:
    with pytest.raises(ExpressionError, match="unsupported type dict"):
        ev("cfg == 1", facts, {"cfg": {"a": 1}})


def test_large_frame_is_vectorised() -> None:
    n = 1_000_000
    rng = np.arange(n)
    frame = pd.DataFrame(
        {
            "action": np.where(rng % 3 == 0, "raise", "call"),
            "raise_increment": rng % 100,
            "last_full_raise": np.full(n, 50),
            "all_in": rng % 7 == 0,
        }
    )
    expr = compile_expression('action == "raise" and not all_in and raise_increment < last_full_raise')
    result = expr.evaluate(frame, {}, n)
    expected = (rng % 3 == 0) & ~(rng % 7 == 0) & (rng % 100 < 50)
    assert result.shape == (n,)
    assert np.array_equal(result, expected)


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("__import__('os').system('id')", "attribute access ('.system') is not allowed"),
        ("__import__('os')", "call of '__import__' is not allowed"),
        ("().__class__.__bases__[0].__subclasses__()", "attribute access ('.__subclasses__')"),
        ("x.y", "attribute access ('.y') is not allowed"),
        ("x[0]", "indexing / subscripts"),
        ("x[1:2]", "indexing / subscripts"),
        ("lambda: 1", "lambda is not allowed"),
        ("[a for a in b]", "comprehensions are not allowed"),
        ("(a for a in b)", "generator expressions are not allowed"),
        ("{a: 1}", "dict literals are not allowed"),
        ("x in {1, 2}", "right operand of 'in'"),
        ('f"{x}"', "f-strings are not allowed"),
        ("(y := 1)", "assignment expressions (:=) are not allowed"),
        ("a if b else c", "conditional expressions"),
        ('open("f")', "call of 'open' is not allowed"),
        ('eval("1")', "call of 'eval' is not allowed"),
        ('getattr(x, "y")', "call of 'getattr' is not allowed"),
        ("_private", "name '_private' is not allowed"),
        ("__builtins__", "name '__builtins__' is not allowed"),
        ("__class__ == 1", "name '__class__' is not allowed"),
        ("Amount > 1", "name 'Amount' is not allowed"),
        ("10**100", "operator '**' is not allowed"),
        ("2 ** 3", "operator '**' is not allowed"),
        ("a & b", "operator '&' is not allowed"),
        ("~a", "operator '~' is not allowed"),
        ("a is None", "'is' is not allowed"),
        ("x == None", "comparison with None"),
        ("x in [1, None]", "None in a list"),
        ("100000000000000000000 > x", "integer literal out of range"),
        ("1e999 > x", "float literal out of range"),
        ('b"x" == x', "bytes literals are not allowed"),
        ("1j == x", "complex numbers are not allowed"),
        ("... == x", "'...' is not allowed"),
        ("[1, 2]", "list literals are only allowed as the right operand"),
        ("(1, 2)", "tuple literals are only allowed as the right operand"),
        ("x in [y]", "list items must be literal values"),
        ("x in [[1]]", "list items must be literal values"),
        ("x in amount + 1", "right operand of 'in'"),
        ("[1] in x", "list literals are only allowed"),
        ("min(*xs)", "starred expressions"),
        ("min(a, b, key=c)", "keyword arguments are not allowed"),
        ("abs(a, b)", "abs() takes 1 argument(s), got 2"),
        ("max(a)", "max() takes at least 2 argument(s), got 1"),
        ("startswith(a, b)", "second argument of startswith() must be a text literal"),
        ("f(x)(y)", "only the functions"),
        ("(lambda: 1)()", "only the functions"),
        ("x.startswith('a')", "attribute access ('.startswith')"),
        ("await x", "await"),
        ("", "expression is empty"),
    ],
)
def test_refusals(text: str, reason: str) -> None:
    with pytest.raises(ExpressionError) as info:
        compile_expression(text)
    assert isinstance(info.value, ValueError)
    assert reason in info.value.reason, info.value.reason
    assert "\n" not in info.value.reason


def test_limits() -> None:
    with pytest.raises(ExpressionError, match="too long"):
        compile_expression("a + " * 1250)  # 5000 characters
    with pytest.raises(ExpressionError, match="nested too deeply"):
        compile_expression("-" * 40 + "1")
    with pytest.raises(ExpressionError, match="nested too deeply"):
        compile_expression("-(" * 40 + "1" + ")" * 40)
    with pytest.raises(ExpressionError, match="nested too deeply"):
        compile_expression(" + ".join(["a"] * 40) + " > 0")  # left-associative chain
    with pytest.raises(ExpressionError, match="too complex"):
        compile_expression("x in [" + ",".join(["1"] * 200) + "]")
    # just inside the limits is fine
    compile_expression("-" * 28 + "1 > 0")
    compile_expression(" + ".join(["a"] * 25) + " > 0")
    compile_expression("x in [" + ",".join(["1"] * 190) + "]")
    compile_expression(str(10**18) + " > -" + str(10**18))


def test_syntax_errors() -> None:
    with pytest.raises(ExpressionError) as info:
        compile_expression("a b")
    assert info.value.reason == "syntax error at column 3: invalid syntax"
    with pytest.raises(ExpressionError, match=r"^syntax error at column 4: "):
        compile_expression("a +")
    with pytest.raises(ExpressionError, match="syntax error"):
        compile_expression("x = 1")
    with pytest.raises(ExpressionError, match="syntax error"):
        compile_expression("import os")
    with pytest.raises(ExpressionError, match="syntax error"):
        compile_expression("a\n; b")


def test_number_run_into_a_word_is_a_syntax_error_not_a_stderr_warning(recwarn) -> None:
    # Python reads `3and` as `3 and` with a SyntaxWarning on stderr; a rule must say exactly one thing
    for text, column in (("raise_number > 3and heads_up", 16), ("0x1for", 4)):
        with pytest.raises(ExpressionError) as info:
            compile_expression(text)
        assert info.value.reason.startswith(f"syntax error at column {column}: invalid "), info.value.reason
    assert not [w for w in recwarn if issubclass(w.category, SyntaxWarning)]


def test_non_string_expression_refused() -> None:
    with pytest.raises(ExpressionError, match="must be text"):
        compile_expression(42)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- templates


def test_template_render(facts: pd.DataFrame) -> None:
    tmpl = compile_template(
        "{player} raised by {amount}; the previous bet or raise was {last_full_raise} "
        "(cap {max_raises}, unit {chip_unit}, {{literal}})"
    )
    assert tmpl.names == frozenset({"player", "amount", "last_full_raise", "max_raises", "chip_unit"})
    out = tmpl.render(facts, PARAMS, len(facts))
    assert out == [
        "alice raised by 10; the previous bet or raise was 4 (cap 4, unit 0.5, {literal})",
        "bob raised by 5; the previous bet or raise was 5 (cap 4, unit 0.5, {literal})",
        f"carol raised by {MISSING_TEXT}; the previous bet or raise was 6 (cap 4, unit 0.5, {{literal}})",
        "dave raised by 0; the previous bet or raise was 2 (cap 4, unit 0.5, {literal})",
        f"{MISSING_TEXT} raised by 3; the previous bet or raise was 0 (cap 4, unit 0.5, {{literal}})",
    ]


def test_template_other_types(facts: pd.DataFrame) -> None:
    tmpl = compile_template("{all_in}/{stake}/{structure}/{limit_structures}/{game}")
    out = tmpl.render(facts, PARAMS, len(facts))
    assert out[0] == "False/1/no-limit/fixed-limit, spread-limit/holdem"
    assert out[1] == f"True/{MISSING_TEXT}/fixed-limit/fixed-limit, spread-limit/holdem"
    assert out[2] == f"{MISSING_TEXT}/3/fixed-limit/fixed-limit, spread-limit/holdem"
    frame = pd.DataFrame({"x": [1.25, 2.0, -0.0], "b": [True, False, True]})
    assert compile_template("{x}|{b}").render(frame, {}, 3) == ["1.25|True", "2|False", "0|True"]


def test_template_without_placeholders_and_empty() -> None:
    assert compile_template("no data {{here}}").render({}, {}, 2) == ["no data {here}"] * 2
    assert compile_template("").render({}, {}, 3) == ["", "", ""]
    assert compile_template("{a}").render({"a": np.array([1, 2])}, {}, 2) == ["1", "2"]


def test_template_values_are_inserted_verbatim() -> None:
    hostile = [
        "<script>alert(1)</script>",
        "{other}",
        "{player.__class__}",
        "{{x}}",
        "%s %d {0}",
    ]
    frame = pd.DataFrame({"player": hostile, "other": ["SECRET"] * len(hostile)})
    tmpl = compile_template("[{player}]")
    assert tmpl.render(frame, {"secret": "SECRET"}, len(frame)) == [f"[{v}]" for v in hostile]
    # a hostile parameter value is not expanded either
    assert compile_template("{p}").render({}, {"p": "{other} {{p}}"}, 1) == ["{other} {{p}}"]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("{x.__class__}", "attribute access is not allowed"),
        ("{x[0]}", "indexing is not allowed"),
        ("{x!r}", "conversions"),
        ("{x:>9}", "format specs are not allowed"),
        ("{0}", "invalid placeholder"),
        ("{}", "empty placeholder"),
        ("{X}", "invalid placeholder"),
        ("{_x}", "invalid placeholder"),
        ("{ x }", "invalid placeholder"),
        ("oops {", "unclosed '{'"),
        ("oops }", "single '}'"),
        ("{x.__class__.__init__.__globals__}", "attribute access"),
    ],
)
def test_template_refusals(text: str, reason: str) -> None:
    with pytest.raises(ExpressionError) as info:
        compile_template(text)
    assert reason in info.value.reason, info.value.reason


def test_template_unknown_names() -> None:
    tmpl = compile_template("{a} {b}")
    tmpl.check_names(["a", "b"])
    with pytest.raises(ExpressionError, match="unknown name 'b'"):
        tmpl.check_names(["a"])
    with pytest.raises(ExpressionError, match="unknown name 'b'"):
        tmpl.render({"a": [1]}, {}, 1)
    with pytest.raises(ExpressionError, match="too long"):
        compile_template("x" * 5000)


def test_template_large_frame() -> None:
    n = 200_000
    frame = pd.DataFrame({"player": np.array(["p1", "p2"] * (n // 2)), "amount": np.arange(n)})
    out = compile_template("{player} bet {amount}").render(frame, {}, n)
    assert len(out) == n
    assert out[0] == "p1 bet 0" and out[-1] == f"p2 bet {n - 1}"
