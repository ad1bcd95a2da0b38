"""Rule packs cannot run code: hostile predicates and templates are refused when the pack loads, with a
PackError naming file:line, rule and reason, and never crash the loader (RecursionError, MemoryError...).

Each case is written into a copy of a built-in pack, as a house pack author would; Hypothesis then
feeds the predicate compiler token soup and generated expression trees, checking that whatever it
accepts is built only from the allow-listed syntax (auditor/check/expr.py) and evaluates to booleans
or an ExpressionError.
"""

from __future__ import annotations

import ast
import json
import random
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_hostile_packs import MONEY_MAX, _huge_bet_hand  # the legal hand with the largest amounts

from auditor.check.expr import FUNCTIONS, ExpressionError, compile_expression, compile_template
from auditor.check.packs import PackError, builtin_pack_paths, load_pack
from auditor.pipeline import audit

TDA = builtin_pack_paths()["tda-2024"]
RULE_INDEX = 0  # the first rule of the pack carries the hostile text


def _pack_with(tmp_path: Path, key: str, value: str) -> tuple[Path, str]:
    """A copy of tda-2024 whose first rule's `key` is `value`; returns the file and the rule's id."""
    data = yaml.safe_load(TDA.read_text(encoding="utf-8"))
    rule = data["rules"][RULE_INDEX]
    rule[key] = value
    for item in data["rules"]:
        for kind in ("violating", "clean"):
            for example in item["examples"][kind]:
                example["file"] = str((TDA.parent / example["file"]).resolve())
    path = tmp_path / "house.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=10**9), encoding="utf-8")
    return path, rule["id"]


def _refused(tmp_path: Path, key: str, value: str) -> PackError:
    path, rule_id = _pack_with(tmp_path, key, value)
    with pytest.raises(PackError) as info:
        load_pack(path)
    message = str(info.value)
    # file:line, then the rule and field, then one line of reason. Text over the schema's length limit
    # is refused by the schema before it is compiled, and names the rule by its place in the pack.
    assert message.startswith(f"{path}:"), message
    line = int(message.split(":")[1])
    assert path.read_text(encoding="utf-8").splitlines()[line - 1].lstrip().startswith(f"{key}:")
    assert "\n" not in message
    if f"at rules/{RULE_INDEX}/{key}: " not in message:  # the schema quotes the whole text it refuses
        assert f"rule {rule_id}: {key}: " in message and len(message) < 600, message
    return info.value


HOSTILE_PREDICATES = {
    # attribute access and dunders
    "().__class__.__bases__[0].__subclasses__()": "attribute access",
    "raise_increment.__class__": "attribute access",
    "seat.real > 0": "attribute access",
    "__builtins__ == 1": "name '__builtins__' is not allowed",
    "__class__ > 0": "name '__class__' is not allowed",
    "_hidden > 0": "name '_hidden' is not allowed",
    # imports and calls of anything not on the list
    "__import__('os').system('id')": "attribute access",
    "__import__('os')": "call of '__import__' is not allowed",
    "import os": "syntax error",
    "eval('1') > 0": "call of 'eval' is not allowed",
    "exec('x = 1')": "call of 'exec' is not allowed",
    "open('/etc/passwd')": "call of 'open' is not allowed",
    "getattr(seat, '__class__')": "call of 'getattr' is not allowed",
    "globals() == 1": "call of 'globals' is not allowed",
    "breakpoint()": "call of 'breakpoint' is not allowed",
    "abs.__call__(1)": "attribute access",
    "min(seat, key=id)": "keyword arguments are not allowed",
    "max(*seat)": "starred expressions",
    # comprehensions, lambdas, f-strings, walrus, conditionals
    "[x for x in seat]": "comprehensions are not allowed",
    "any(x for x in seat)": "call of 'any' is not allowed",
    "{x: 1 for x in seat}": "comprehensions are not allowed",
    "(lambda: 1)()": "only the functions",
    "lambda: 1": "lambda is not allowed",
    "f'{seat}' == 'x'": "f-strings are not allowed",
    "(x := 1) > 0": "assignment expressions (:=) are not allowed",
    "1 if seat else 2": "conditional expressions",
    # subscripts of hidden things
    "seat[0] > 1": "indexing / subscripts",
    "__builtins__['eval']": "indexing / subscripts",
    "seat[1:2]": "indexing / subscripts",
    # numbers that cost memory or time
    "9 ** 9 ** 9 > 0": "operator '**' is not allowed",
    "2 ** 64 > seat": "operator '**' is not allowed",
    "99999999999999999999 > seat": "integer literal out of range",
    "1e999 > seat": "float literal out of range",
    "seat << 1000000 > 0": "operator '<<' is not allowed",
    # size and depth
    "(" * 10_000 + "seat" + ")" * 10_000: "is too long",
    "(" * 400 + "seat" + ")" * 400: "too many nested parentheses",
    "-" * 100 + "seat > 0": "nested too deeply",
    "not " * 100 + "seat": "nested too deeply",
    " + ".join(["seat"] * 150) + " > 0": "is too long",
    " + ".join(["seat"] * 40) + " > 0": "nested too deeply",
    "seat in [" + ", ".join(["1"] * 240) + "]": "too complex",
    "seat + " * 300 + "1 > 0": "is too long",
    # other syntax that must not pass
    "seat is None": "'is' is not allowed",
    "seat == None": "comparison with None",
    "b'x' == seat": "bytes literals are not allowed",
    "... == seat": "'...' is not allowed",
    "seat @ seat": "operator '@' is not allowed",
    "yield seat": "syntax error",
    "seat; import os": "syntax error",
    "seat\n__import__('os')": "syntax error",
}


@pytest.mark.parametrize("predicate", list(HOSTILE_PREDICATES), ids=lambda p: p[:40])
def test_hostile_predicate_is_refused_at_load(tmp_path, predicate):
    error = _refused(tmp_path, "violation", predicate)
    assert HOSTILE_PREDICATES[predicate] in error.message, error.message


@pytest.mark.parametrize("template", [
    "{seat.__class__}", "{seat[0]}", "{seat!r}", "{seat:>{width}}", "{__class__}", "{0}", "{}", "{seat",
    "seat}", "{" * 5000,
], ids=lambda t: t[:20])
def test_hostile_message_template_is_refused_at_load(tmp_path, template):
    _refused(tmp_path, "message", template)


def test_compiler_refuses_size_and_depth_itself():
    """The pack schema caps the text first, but the compiler must not rely on it (it is an API)."""
    for text, reason in (("(" * 10_000 + "seat" + ")" * 10_000, "too long"),
                         ("(" * 400 + "seat" + ")" * 400, "too many nested parentheses"),
                         ("-" * 900 + "seat", "nested too deeply"), ("9" * 999 + " > seat", "too long")):
        with pytest.raises(ExpressionError, match=reason):
            compile_expression(text)


def test_hostile_when_is_refused_too(tmp_path):
    error = _refused(tmp_path, "when", "__import__('os').system('touch /tmp/pwned')")
    assert "attribute access" in error.message
    assert not Path("/tmp/pwned").exists()


# --------------------------------------------------------------------------- generated expressions

ALLOWED_NODES = (ast.Expression, ast.Name, ast.Load, ast.Constant, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp,
                 ast.Not, ast.USub, ast.UAdd, ast.BinOp, ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv,
                 ast.Mod, ast.Compare, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn,
                 ast.Call, ast.List, ast.Tuple)
NAME = re.compile(r"[a-z][a-z0-9_]*")


def _only_allowed_syntax(text: str) -> None:
    """What the compiler accepted is built only from the allow-list: no attribute, subscript, lambda..."""
    for node in ast.walk(ast.parse(text.strip(), mode="eval")):
        assert isinstance(node, ALLOWED_NODES), f"{type(node).__name__} got through in {text!r}"
        if isinstance(node, ast.Name):
            assert NAME.fullmatch(node.id), node.id
        if isinstance(node, ast.Call):
            assert isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS and not node.keywords


TOKENS = ["seat", "amount", "to", "__class__", "__import__", "_x", "os", "eval", "open", "getattr", "abs", "min",
          "max", "isnull", "notnull", "startswith", "+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "~",
          "<<", "and", "or", "not", "==", "!=", "<", ">=", "in", "not in", "is", ":=", "if", "else", "lambda",
          "for", "import", ".", "(", ")", "[", "]", "{", "}", ",", ":", ";", "'a'", '"b"', "f'{seat}'", "*",
          "1", "0", "-1", "10", "1e999", "9" * 30, "None", "True", "...", "\\", "\n", "#", "b'x'", "0x10", "1j"]


@settings(max_examples=400, deadline=None, database=None, derandomize=True)
@given(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=25), st.sampled_from(["", " "]))
def test_token_soup_is_refused_or_allowed_never_crashes(tokens, sep):
    text = sep.join(tokens)
    try:
        compiled = compile_expression(text)
    except ExpressionError as exc:
        assert exc.reason and "\n" not in exc.reason
        return
    _only_allowed_syntax(text)
    assert all(NAME.fullmatch(name) for name in compiled.names)


@settings(max_examples=300, deadline=None, database=None, derandomize=True)
@given(st.text(max_size=200))
def test_arbitrary_text_is_refused_or_allowed_never_crashes(text):
    try:
        compile_expression(text)
    except ExpressionError:
        return
    _only_allowed_syntax(text)


_LEAVES = st.sampled_from(["seat", "amount", "to", "True", "None", "'x'", "0", "1", "-3", "2.5", "10**3",
                           "__class__", "seat.real", "seat[0]", "9" * 25])


def _expressions() -> st.SearchStrategy[str]:
    def extend(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        binary = st.tuples(children, st.sampled_from(["+", "-", "*", "/", "//", "%", "**", "==", "<", ">=", "!=",
                                                      "and", "or", "in", "not in", "&", "<<"]), children)
        return st.one_of(
            binary.map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            children.map(lambda c: f"(not {c})"), children.map(lambda c: f"(-{c})"),
            st.tuples(st.sampled_from(["abs", "min", "max", "isnull", "notnull", "startswith", "eval", "len"]),
                      st.lists(children, min_size=1, max_size=3)).map(lambda t: f"{t[0]}({', '.join(t[1])})"),
            st.lists(st.sampled_from(["1", "'a'", "None", "seat"]), max_size=4).map(lambda xs: f"[{', '.join(xs)}]"),
            children.map(lambda c: f"({c}).__class__"), children.map(lambda c: f"({c})[0]"),
            children.map(lambda c: f"(lambda: {c})"), children.map(lambda c: f"[v for v in {c}]"),
        )
    return st.recursive(_LEAVES, extend, max_leaves=12)


FRAME = pd.DataFrame({"seat": pd.array([1, 2, None, 10], dtype="Int64"), "amount": [0.5, np.nan, 3.0, -1.0],
                      "to": ["a", "b", None, "x"]})


@settings(max_examples=150, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(_expressions())
def test_generated_expressions_compile_only_to_the_allow_list_and_evaluate_to_booleans(text):
    try:
        compiled = compile_expression(text)
    except ExpressionError:
        return
    _only_allowed_syntax(text)
    try:
        result = compiled.evaluate(FRAME, {}, len(FRAME))
    except ExpressionError:
        return
    assert isinstance(result, np.ndarray) and result.dtype == np.bool_ and result.shape == (len(FRAME),)


@settings(max_examples=200, deadline=None, database=None, derandomize=True)
@given(st.text(max_size=120))
def test_templates_render_text_verbatim_or_are_refused(text):
    try:
        template = compile_template(text)
    except ExpressionError as exc:
        assert "\n" not in exc.reason
        return
    out = template.render({"seat": pd.Series(["{__class__}", "\x1b[31m"])}, {}, 2) if template.names <= {"seat"} \
        else None
    if out is not None:
        assert len(out) == 2 and all(isinstance(s, str) for s in out)


# ------------------------------------------------------------------ YAML-level hostility (packs.py)
# Hostile YAML is a PackError naming the file, never a crash; aliases are refused outright, so an
# alias-expansion bomb costs nothing.


def _house_yaml(tmp_path: Path, extra: str) -> Path:
    path, _ = _pack_with(tmp_path, "title", "Hostile YAML")
    text = path.read_text(encoding="utf-8")
    assert "\nparameters:\n" in text
    path.write_text(text.replace("\nparameters:\n", "\nparameters:\n" + extra, 1), encoding="utf-8")
    return path


def test_yaml_integer_of_thousands_of_digits_is_a_pack_error(tmp_path):
    path = _house_yaml(tmp_path, "  big: " + "9" * 5000 + "\n")
    with pytest.raises(PackError):
        load_pack(path)


def test_deeply_nested_yaml_is_a_pack_error(tmp_path):
    path = _house_yaml(tmp_path, "  deep: " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(PackError):
        load_pack(path)


def test_yaml_alias_bomb_is_refused_before_expansion(tmp_path):
    import time

    layers = ["  a0: [x, x, x, x, x, x, x, x, x, x]\n"]
    layers += [f"  a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, "
               f"*a{i - 1}, *a{i - 1}, *a{i - 1}]\n" for i in range(1, 8)]
    layers[0] = "  a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
    path = _house_yaml(tmp_path, "".join(layers))
    started = time.process_time()
    with pytest.raises(PackError, match="aliases"):
        load_pack(path)
    assert time.process_time() - started < 1.0


# Integer overflow: random arithmetic predicates over extreme values are judged
# exactly as Python's unbounded integers judge them, or are not assessable where an intermediate result
# leaves int64 (and the rest of the predicate does not decide). A wrapped number never decides a row, so
# a rule can never fire, or pass, because of wrap-around.

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
#: extreme values: the int64 edges, the largest legal amount (schema `money`), its neighbours, signs, zero
_EXTREMES = [_INT64_MIN, _INT64_MIN + 1, -(10**15), -3, -1, 0, 1, 2, 7, 10**15, 999_999_999_999_750,
             3037000499, 3037000500, 2**62, _INT64_MAX - 1, _INT64_MAX]
_COLUMNS = ("a", "b", "c")
_UNKNOWN, _MISSING = "unknown", "missing"


def _extreme_frame() -> pd.DataFrame:
    """Every pair of extremes as rows of a and b, c nullable with a missing value every few rows."""
    a, b = np.meshgrid(np.array(_EXTREMES, dtype=np.int64), np.array(_EXTREMES, dtype=np.int64))
    c = pd.array([None if i % 7 == 3 else int(v) for i, v in enumerate(np.roll(a.ravel(), 5))], dtype="Int64")
    return pd.DataFrame({"a": a.ravel(), "b": b.ravel(), "c": c})


EXTREME_FRAME = _extreme_frame()


def _arith() -> st.SearchStrategy[ast.expr]:
    literal = st.sampled_from([0, 1, -1, 2, 10, 10000, 3037000500, 10**15, 10**18, -(10**18)]).map(
        lambda v: ast.Constant(v) if v >= 0 else ast.UnaryOp(ast.USub(), ast.Constant(-v)))
    leaves = st.one_of(st.sampled_from(_COLUMNS).map(lambda n: ast.Name(n, ast.Load())), literal)

    def extend(children: st.SearchStrategy[ast.expr]) -> st.SearchStrategy[ast.expr]:
        ops = st.sampled_from([ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod])
        return st.one_of(
            st.tuples(children, ops, children).map(lambda t: ast.BinOp(t[0], t[1](), t[2])),
            children.map(lambda c: ast.UnaryOp(ast.USub(), c)),
            st.tuples(st.sampled_from(["abs", "min", "max"]), children, children).map(
                lambda t: ast.Call(ast.Name(t[0], ast.Load()), [t[1]] if t[0] == "abs" else [t[1], t[2]], [])),
        )
    return st.recursive(leaves, extend, max_leaves=6)


def _predicates() -> st.SearchStrategy[ast.expr]:
    compare = st.tuples(_arith(), st.sampled_from([ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq]),
                        _arith()).map(lambda t: ast.Compare(t[0], [t[1]()], [t[2]]))

    def extend(children: st.SearchStrategy[ast.expr]) -> st.SearchStrategy[ast.expr]:
        return st.one_of(
            st.tuples(st.sampled_from([ast.And, ast.Or]), children, children).map(
                lambda t: ast.BoolOp(t[0](), [t[1], t[2]])),
            children.map(lambda c: ast.UnaryOp(ast.Not(), c)),
        )
    return st.recursive(compare, extend, max_leaves=3)


def _exact(node: ast.expr, row: dict[str, int | None]) -> object:
    """The oracle: a row's value with Python integers, following the documented conventions — missing
    (a missing operand, division by zero) wins, then unknown (any intermediate outside int64)."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        value = row[node.id]
        return _MISSING if value is None else value
    if isinstance(node, ast.Compare):
        left, right = _exact(node.left, row), _exact(node.comparators[0], row)
        if _MISSING in (left, right):
            return _MISSING  # three-valued: a comparison with a missing value is missing, not False
        if _UNKNOWN in (left, right):
            return _UNKNOWN
        return {ast.Lt: left < right, ast.LtE: left <= right, ast.Gt: left > right, ast.GtE: left >= right,
                ast.Eq: left == right, ast.NotEq: left != right}[type(node.ops[0])]
    if isinstance(node, ast.BoolOp):
        values = [_exact(v, row) for v in node.values]
        decider = isinstance(node.op, ast.Or)  # True decides an `or`, False an `and`
        if decider in values:
            return decider
        if _MISSING in values:
            return _MISSING
        return _UNKNOWN if _UNKNOWN in values else not decider
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        value = _exact(node.operand, row)
        return value if value in (_UNKNOWN, _MISSING) else not value
    if isinstance(node, ast.UnaryOp):
        operands = [_exact(node.operand, row)]
    elif isinstance(node, ast.Call):
        operands = [_exact(arg, row) for arg in node.args]
    else:
        operands = [_exact(node.left, row), _exact(node.right, row)]
    if _MISSING in operands:
        return _MISSING
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv | ast.Mod) and operands[1] == 0:
        return _MISSING
    if _UNKNOWN in operands:
        return _UNKNOWN
    if isinstance(node, ast.UnaryOp):
        result = -operands[0]
    elif isinstance(node, ast.Call):
        result = {"abs": lambda: abs(operands[0]), "min": lambda: min(operands),
                  "max": lambda: max(operands)}[node.func.id]()
    else:
        x, y = operands
        result = {ast.Add: int.__add__, ast.Sub: int.__sub__, ast.Mult: int.__mul__, ast.FloorDiv: int.__floordiv__,
                  ast.Mod: int.__mod__}[type(node.op)](x, y)
    return result if _INT64_MIN <= result <= _INT64_MAX else _UNKNOWN


@settings(max_examples=300, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(_predicates())
def test_arithmetic_over_extreme_values_is_exact_or_not_assessable(tree):
    text = ast.unparse(ast.fix_missing_locations(tree))
    try:
        compiled = compile_expression(text)
    except ExpressionError as exc:  # e.g. nested too deeply; the limits are tested elsewhere
        assert "too" in exc.reason, exc.reason
        return
    holds, not_assessable = compiled.assess(EXTREME_FRAME, {}, len(EXTREME_FRAME))
    rows = EXTREME_FRAME.astype(object).where(EXTREME_FRAME.notna(), None).to_dict("records")
    for index, row in enumerate(rows):
        expected = _exact(tree, row)
        assert (bool(holds[index]), bool(not_assessable[index])) == (expected is True, expected == _UNKNOWN), \
            (text, row, expected)


def _random_arith(rng, depth: int) -> ast.expr:
    if depth == 0 or rng.random() < 0.3:
        if rng.random() < 0.6:
            return ast.Name(rng.choice(["amount", "to"]), ast.Load())
        return ast.Constant(rng.choice([0, 1, 2, 50, 10000, 3037000500, 10**15, 10**18]))
    kind = rng.random()
    if kind < 0.7:
        op = rng.choice([ast.Add, ast.Sub, ast.Mult, ast.Mult, ast.FloorDiv, ast.Mod])()
        return ast.BinOp(_random_arith(rng, depth - 1), op, _random_arith(rng, depth - 1))
    if kind < 0.85:
        return ast.UnaryOp(ast.USub(), _random_arith(rng, depth - 1))
    name = rng.choice(["abs", "min", "max"])
    args = [_random_arith(rng, depth - 1)] if name == "abs" else [_random_arith(rng, depth - 1) for _ in "ab"]
    return ast.Call(ast.Name(name, ast.Load()), args, [])


def test_random_arithmetic_rules_never_fire_on_a_legal_hand_because_of_wrap_around(tmp_path):
    """End to end: 60 random arithmetic rules over the raise of a legal hand with the largest legal
    amounts (schemas/hand-log.schema.json `money`), judged by the real engine and check. Each rule fires
    exactly when Python's exact integers say it holds, and is not assessable exactly when they leave int64."""
    rng = random.Random(14)
    hand = _huge_bet_hand()
    raise_event = next(e for e in hand["events"] if e.get("action") == "raise")
    row = {"amount": raise_event["amount"], "to": raise_event["to"]}
    assert max(row.values()) <= MONEY_MAX
    trees = [ast.Compare(_random_arith(rng, 3), [rng.choice([ast.Lt, ast.Gt, ast.Eq, ast.GtE])()],
                         [_random_arith(rng, 2)]) for _ in range(60)]
    texts = [ast.unparse(ast.fix_missing_locations(t)) for t in trees]
    # the first rule checks the oracle reads the same row the engine does
    texts.insert(0, f"amount == {row['amount']} and to == {row['to']}")
    trees.insert(0, ast.parse(texts[0], mode="eval").body)
    example = TDA.parent / "examples" / "tda-2024" / "TDA-48" / "heads-up-fourth-raise.jsonl"
    rules = [{
        "id": f"RND-{i:02d}", "title": "random arithmetic", "category": "illegal-action", "severity": "error",
        "citation": "fuzz", "text": "t", "why": "w", "applies": {"variants": ["holdem"], "structures": ["no-limit"]},
        "facts": "actions", "when": "is_raise", "violation": text, "message": "m",
        "examples": {"violating": [{"file": str(example), "about": "n/a"}],
                     "clean": [{"file": str(example), "about": "n/a"}]},
    } for i, text in enumerate(texts)]
    pack = tmp_path / "random.yaml"
    pack.write_text("pack: house-tda\nversion: 1.0.0\ntitle: Random\nextends: tda-2024\n"
                    + yaml.safe_dump({"rules": rules}, sort_keys=False, width=10**6), encoding="utf-8")
    log = tmp_path / "huge.jsonl"
    log.write_text(json.dumps(hand) + "\n", encoding="utf-8")
    result = audit([log], pack=str(pack))
    assert result.hands_audited == 1
    fired = set(result.findings["rule_id"])
    coverage = result.coverage.set_index("rule_id")
    outcomes = {"holds": 0, "fails": 0, "unknown": 0}
    for i, tree in enumerate(trees):
        expected = _exact(tree, row)
        rule_id = f"RND-{i:02d}"
        assert (rule_id in fired) == (expected is True), (texts[i], expected)
        assert bool(coverage.loc[rule_id, "hands_overflow"]) == (expected == _UNKNOWN), (texts[i], expected)
        outcomes["holds" if expected is True else "unknown" if expected == _UNKNOWN else "fails"] += 1
    assert "RND-00" in fired and min(outcomes.values()) > 0, outcomes  # the sample exercises all three
