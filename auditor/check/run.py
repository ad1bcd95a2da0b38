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

from auditor.check.expr import ExpressionError
from auditor.check.packs import Pack, PackError, Rule
from auditor.replay.facts import HAND_COLUMNS, Facts

FINDING_COLUMNS = [
    "hand_id", "category", "rule_id", "pack", "citation", "severity", "seat", "player", "seq", "message",
    "expected", "actual", "file", "line", "table_id", "variant", "structure",
]
#: one dtype per findings column, so findings look the same however they were batched
FINDING_DTYPES = {c: ("Int64" if c in ("seat", "seq", "line") else "string") for c in FINDING_COLUMNS}
COVERAGE_COLUMNS = ["pack", "rule_id", "category", "severity", "hands_in_scope", "hands_checked",
                    "hands_not_assessable", "hands_with_violations", "violations"]
SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


def _with_hands(table: pd.DataFrame, hands: pd.DataFrame) -> pd.DataFrame:
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
    tables = {name: _with_hands(facts[name], hands) for name in facts.tables}
    findings: list[pd.DataFrame] = []
    coverage: list[dict] = []
    for pack in packs.values():
        pack_hands = hands[hands["rule_pack"] == pack.name]
        for rule in pack.rules:
            try:
                found, cov = _check_rule(rule, pack, tables[rule.facts], pack_hands)
            except ExpressionError as exc:
                # e.g. a user's predicate comparing text with a number: stop with the place to fix it
                raise PackError(str(pack.path), rule.line, f"rule {rule.id}: cannot evaluate: {exc.reason}") from exc
            findings.append(found)
            coverage.append(cov)
    result = pd.concat(findings, ignore_index=True) if findings else pd.DataFrame(columns=FINDING_COLUMNS)
    if len(result):
        result = result.sort_values(["file", "line", "seq", "rule_id"], kind="stable", ignore_index=True)
    return result[FINDING_COLUMNS].astype(FINDING_DTYPES), pd.DataFrame(coverage, columns=COVERAGE_COLUMNS)


def _check_rule(rule: Rule, pack: Pack, table: pd.DataFrame, pack_hands: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    in_scope = pack_hands["variant"].isin(rule.variants) & pack_hands["structure"].isin(rule.structures)
    in_scope_hands = pack_hands[in_scope]
    scope = (table["rule_pack"] == pack.name) & table["variant"].isin(rule.variants) & \
        table["structure"].isin(rule.structures)
    rows = table[scope.to_numpy(dtype=bool)]
    params = pack.parameters
    if rule.when is not None and len(rows):
        rows = rows[rule.when.evaluate(rows, params, len(rows))]
    assessable = np.ones(len(rows), dtype=bool)
    for need in rule.needs:
        assessable &= rows[need].notna().to_numpy(dtype=bool)
    not_assessable_hands = rows.loc[~assessable, "hand"].unique()
    rows = rows[assessable]
    violating = rows[rule.violation.evaluate(rows, params, len(rows))] if len(rows) else rows
    n = len(violating)
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
        "message": rule.message.render(violating, params, n),
        "expected": rule.expected.render(violating, params, n) if rule.expected else "",
        "actual": rule.actual.render(violating, params, n) if rule.actual else "",
        "file": violating["file"].to_numpy(),
        "line": violating["line"].to_numpy(),
        "table_id": violating["table_id"].to_numpy(),
        "variant": violating["variant"].to_numpy(),
        "structure": violating["structure"].to_numpy(),
    }, columns=FINDING_COLUMNS)
    violating_hands = violating["hand"].nunique()
    n_scope = len(in_scope_hands)
    coverage = {
        "pack": pack.name, "rule_id": rule.id, "category": rule.category, "severity": rule.severity,
        "hands_in_scope": n_scope, "hands_checked": n_scope - len(not_assessable_hands),
        "hands_not_assessable": len(not_assessable_hands), "hands_with_violations": violating_hands,
        "violations": n,
    }
    return found, coverage


def _column(frame: pd.DataFrame, name: str) -> object:
    return frame[name].array if name in frame else pd.NA
