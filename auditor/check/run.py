"""Evaluating rules over the facts tables: findings and per-rule coverage.

Each rule is a few whole-column operations: select the rows of its facts table that belong to
hands audited under its pack and of the variants and structures it applies to, keep those its
`when` selects, set aside the rows missing a fact it `needs` (not assessable, never a pass), and
keep the rows where `violation` holds. Like pandera, a failed check is the failing rows.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from auditor.check import money
from auditor.check.expr import ExpressionError
from auditor.check.packs import Pack, PackError, Rule
from auditor.replay.facts import HAND_COLUMNS, Facts

FINDING_COLUMNS = [
    "hand_id", "category", "rule_id", "pack", "citation", "severity", "seat", "player", "seq", "message",
    "expected", "actual", "file", "line", "table_id", "variant", "structure",
]
#: one dtype per findings column, so findings look the same however they were batched
FINDING_DTYPES = {c: ("Int64" if c in ("seat", "seq", "line") else "string") for c in FINDING_COLUMNS}
#: hands_overflow: hands on which the rule's arithmetic overflowed int64 (counted in hands_not_assessable too)
COVERAGE_COLUMNS = ["pack", "rule_id", "category", "severity", "hands_in_scope", "hands_checked",
                    "hands_not_assessable", "hands_with_violations", "violations", "hands_overflow"]
SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


def covered_games(pack: Pack) -> frozenset[tuple[str, str]]:
    """Every (variant, structure) at least one rule of `pack` applies to.

    A hand of any other game is *not covered* by the pack: no rule could ever select it, so counting it
    as audited would let a run go green over hands nothing judged (issue #13).
    """
    return frozenset((v, s) for rule in pack.rules for v in rule.variants for s in rule.structures)


def not_covered(hands: pd.DataFrame, packs: Mapping[str, Pack]) -> np.ndarray:
    """A mask over `hands` (with `rule_pack`, `variant`, `structure`): the hands whose pack has no rule for
    their game. One whole-column comparison per pack, never a loop over hands."""
    mask = np.zeros(len(hands), dtype=bool)
    if not len(hands):
        return mask
    game = hands["variant"].astype(str) + "/" + hands["structure"].astype(str)
    for name, pack in packs.items():
        in_pack = (hands["rule_pack"] == name).to_numpy(dtype=bool)
        if in_pack.any():
            games = {f"{v}/{s}" for v, s in covered_games(pack)}
            mask |= in_pack & ~game.isin(games).to_numpy(dtype=bool)
    return mask


def with_hands(table: pd.DataFrame, hands: pd.DataFrame) -> pd.DataFrame:
    """Join the hand-level columns (id, variant, pack, file, line) onto a facts table by hand row."""
    columns = [c for c in HAND_COLUMNS if c not in table.columns]
    joined = hands.loc[table["hand"].to_numpy(dtype=np.int64), columns]
    joined.index = table.index
    return pd.concat([table, joined], axis=1)


def check(facts: Facts, hands: pd.DataFrame, packs: Mapping[str, Pack]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Findings and coverage for every hand under the pack named in its `rule_pack` column.

    `hands` is the canonical hands table as pandas, indexed by hand row number, with `rule_pack`
    already set to the pack each hand is audited under.
    """
    used = {rule.facts for pack in packs.values() for rule in pack.rules}
    tables = {name: with_hands(facts[name], hands) for name in facts.tables if name in used}
    findings: list[pd.DataFrame] = []
    coverage: list[dict] = []
    for pack in packs.values():
        scope = _Scope(pack.name, hands, tables)
        for rule in pack.rules:
            try:
                found, cov = _check_rule(rule, pack, tables[rule.facts], scope)
            except ExpressionError as exc:
                # e.g. a user's predicate comparing text with a number: stop with the place to fix it
                raise PackError(str(pack.path), rule.line, f"rule {rule.id}: cannot evaluate: {exc.reason}") from exc
            if found is not None:
                findings.append(found)
            coverage.append(cov)
    result = pd.concat(findings, ignore_index=True) if findings else pd.DataFrame(columns=FINDING_COLUMNS)
    if len(result):
        result = result.sort_values(["file", "line", "seq", "rule_id"], kind="stable", ignore_index=True)
    return result[FINDING_COLUMNS].astype(FINDING_DTYPES), pd.DataFrame(coverage, columns=COVERAGE_COLUMNS)


class _Scope:
    """Which hands and facts rows of one pack a rule's variants and structures select, worked out once per
    (facts table, variants, structures) rather than once per rule: most rules of a pack share them."""

    def __init__(self, pack: str, hands: pd.DataFrame, tables: Mapping[str, pd.DataFrame]):
        self.pack_hands = hands[(hands["rule_pack"] == pack).to_numpy(dtype=bool)]
        self.pack = pack
        self.tables = tables
        self._hands: dict[tuple, int] = {}
        self._rows: dict[tuple, np.ndarray] = {}
        self._in_pack: dict[str, np.ndarray] = {}

    def hands_in_scope(self, rule: Rule) -> int:
        key = (rule.variants, rule.structures)
        if key not in self._hands:
            h = self.pack_hands
            self._hands[key] = int((h["variant"].isin(rule.variants) & h["structure"].isin(rule.structures)).sum())
        return self._hands[key]

    def rows(self, rule: Rule) -> np.ndarray:
        key = (rule.facts, rule.variants, rule.structures)
        if key not in self._rows:
            table = self.tables[rule.facts]
            if rule.facts not in self._in_pack:
                self._in_pack[rule.facts] = (table["rule_pack"] == self.pack).to_numpy(dtype=bool)
            in_pack = self._in_pack[rule.facts]
            self._rows[key] = in_pack & (table["variant"].isin(rule.variants) &
                                         table["structure"].isin(rule.structures)).to_numpy(dtype=bool) \
                if in_pack.any() else in_pack
        return self._rows[key]


#: columns every finding is made from, whatever the rule
_FINDING_SOURCES = frozenset(("hand", "seq", "hand_id", "file", "line", "table_id", "variant", "structure",
                              "rule_pack"))


def _check_rule(rule: Rule, pack: Pack, table: pd.DataFrame, scope: _Scope) -> tuple[pd.DataFrame | None, dict]:
    """One rule over one batch: its findings (None if there are none) and its coverage row.

    Only the columns the rule reads are copied as rows are selected (a facts table joined with the
    hand columns has 20-50), and a rule with no rows in scope does no more work than counting hands.
    """
    n_scope = scope.hands_in_scope(rule)
    coverage = {
        "pack": pack.name, "rule_id": rule.id, "category": rule.category, "severity": rule.severity,
        "hands_in_scope": n_scope, "hands_checked": n_scope, "hands_not_assessable": 0, "hands_with_violations": 0,
        "violations": 0, "hands_overflow": 0,
    }
    selected = scope.rows(rule)
    if not selected.any():
        return None, coverage
    wanted = rule.reads | _FINDING_SOURCES
    rows = table.loc[selected, [c for c in table.columns if c in wanted]]
    params = pack.parameters if rule.parameters is None else rule.parameters  # a house override for this rule alone
    # three outcomes per row: violates, passes, or not assessable (a fact it needs is missing, or the
    # predicates' arithmetic overflowed int64: judging a wrapped number would be a false verdict either way)
    overflow = np.zeros(len(rows), dtype=bool)
    if rule.when is not None:
        selects, overflow = rule.when.assess(rows, params, len(rows))
        keep = selects | overflow
        rows, overflow = rows[keep], overflow[keep]
    missing_need = np.zeros(len(rows), dtype=bool)
    for need in rule.needs:
        missing_need |= rows[need].isna().to_numpy(dtype=bool)
    checkable = ~(overflow | missing_need)
    violates = np.zeros(len(rows), dtype=bool)
    if checkable.any():
        holds, unknown = rule.violation.assess(rows[checkable], params, int(checkable.sum()))
        violates[checkable], overflow[checkable] = holds, unknown
    not_assessable_hands = rows.loc[overflow | missing_need, "hand"].unique()
    violating = rows[violates]
    n = len(violating)
    coverage.update(hands_checked=n_scope - len(not_assessable_hands), hands_not_assessable=len(not_assessable_hands),
                    hands_with_violations=violating["hand"].nunique(), violations=n,
                    hands_overflow=rows.loc[overflow, "hand"].nunique())
    if not n:
        return None, coverage
    # messages show money in each hand's own units ($0.50, 1,500 chips), never the log's integers
    units = money.MoneyUnits.of_rows(scope.pack_hands, violating["hand"])
    found = pd.DataFrame({
        "hand_id": violating["hand_id"].to_numpy(),
        "category": rule.category,
        "rule_id": rule.id,
        "pack": pack.name,
        "citation": rule.citation,
        "severity": rule.severity,
        "seat": _column(violating, rule.seat_column),
        "player": _column(violating, rule.player_column),
        "seq": _column(violating, "seq"),
        "message": money.render(rule.message, violating, params, n, units),
        "expected": money.render(rule.expected, violating, params, n, units) if rule.expected else "",
        "actual": money.render(rule.actual, violating, params, n, units) if rule.actual else "",
        "file": violating["file"].to_numpy(),
        "line": violating["line"].to_numpy(),
        "table_id": violating["table_id"].to_numpy(),
        "variant": violating["variant"].to_numpy(),
        "structure": violating["structure"].to_numpy(),
    }, columns=FINDING_COLUMNS)
    return found, coverage


def _column(frame: pd.DataFrame, name: str) -> object:
    return frame[name].array if name in frame else pd.NA
