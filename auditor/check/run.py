"""Evaluating rules over the facts tables: findings and per-rule coverage.

Each rule is a few whole-column operations: select the rows of its facts table that belong to
hands audited under its pack and of the variants and structures it applies to, keep those its
`when` selects, set aside the rows missing a fact it `needs` (not assessable, never a pass), and
keep the rows where `violation` holds. Like pandera, a failed check is the failing rows.

Checks run over arrays, not pandas rows: each facts column a rule reads is converted once per table
per batch to NumPy values and a missing mask (`expr.Column`), each scope (pack, variants,
structures) is a boolean mask worked out once over the hands and gathered onto a table's rows by
hand position, and `when`, `needs` and `violation` are boolean arrays. Predicates are three-valued
(the predicate reference is the docstring of `auditor/check/expr.py`): a row whose `when` or
`violation` is missing or overflowed is *not assessable*, whatever `needs` lists. Coverage counts
distinct hands with `np.unique` / `np.bincount` over hand positions; pandas gathers rows only for
the findings, once, for the violating rows alone, and messages are rendered for those rows only.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from auditor.check import money
from auditor.check.expr import Column, Expression, ExpressionError, prepare_column
from auditor.check.packs import Pack, PackError, Rule
from auditor.replay.fact_frames import Facts
from auditor.replay.facts import HAND_COLUMNS

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
    as audited would let a run go green over hands nothing judged.
    """
    return frozenset((v, s) for rule in pack.rules for v in rule.variants for s in rule.structures)


def not_covered(hands: pd.DataFrame, packs: Mapping[str, Pack]) -> np.ndarray:
    """A mask over `hands` (with `rule_pack`, `variant`, `structure`): the hands whose pack has no rule for
    their game. One whole-column comparison per pack, never a loop over hands."""
    mask = np.zeros(len(hands), dtype=bool)
    if not len(hands):
        return mask
    # through the distinct values: a game is (variant code, structure code); code -1 (missing) covers nothing
    variant, variants = pd.factorize(hands["variant"], use_na_sentinel=True)
    structure, structures = pd.factorize(hands["structure"], use_na_sentinel=True)
    pack_code, names = pd.factorize(hands["rule_pack"], use_na_sentinel=True)
    for k, name in enumerate(names):
        pack = packs.get(name)
        if pack is None:
            continue
        games = covered_games(pack)
        covered = np.zeros((len(variants) + 1, len(structures) + 1), dtype=bool)
        for i, v in enumerate(variants):
            for j, s in enumerate(structures):
                covered[i, j] = (v, s) in games
        in_pack = pack_code == k
        mask |= in_pack & ~covered[variant, structure]
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

    Every column a rule reads is converted to NumPy arrays (values and a missing mask) once per facts
    table per batch, every scope once per (pack, variants, structures); a rule is then a few boolean
    array operations, and pandas is touched again only to build the findings of the violating rows.
    """
    used = {rule.facts for pack in packs.values() for rule in pack.rules}
    batch = _Batch(hands)
    tables = {name: _Table(facts[name], batch) for name in facts.tables if name in used}
    findings: list[pd.DataFrame] = []
    coverage: list[dict] = []
    for pack in packs.values():
        for rule in pack.rules:
            try:
                found, cov = _check_rule(rule, pack, tables[rule.facts], batch)
            except ExpressionError as exc:
                # e.g. a user's predicate comparing text with a number: stop with the place to fix it
                raise PackError(str(pack.path), rule.line, f"rule {rule.id}: cannot evaluate: {exc.reason}") from exc
            if found is not None:
                findings.append(found)
            coverage.append(cov)
    if not findings:  # nearly every batch of legal play
        return no_findings(), pd.DataFrame(coverage, columns=COVERAGE_COLUMNS)
    result = pd.concat(findings, ignore_index=True)
    if len(result):
        result = result.sort_values(["file", "line", "seq", "rule_id"], kind="stable", ignore_index=True)
    return result[FINDING_COLUMNS].astype(FINDING_DTYPES), pd.DataFrame(coverage, columns=COVERAGE_COLUMNS)


_NO_FINDINGS: list[pd.DataFrame] = []


def no_findings() -> pd.DataFrame:
    """An empty findings table with the findings' columns and dtypes, a fresh copy each call (a caller may add
    to it). Made once: converting the empty frame's 17 columns costs 2-5 ms, twice a batch (its checks and
    the run-wide baseline), against ~0.04 ms for a copy."""
    if not _NO_FINDINGS:
        _NO_FINDINGS.append(pd.DataFrame(columns=FINDING_COLUMNS).astype(FINDING_DTYPES))
    return _NO_FINDINGS[0].copy()


class _Batch:
    """The hands of one batch as NumPy: the hand-level scope of each (pack, variants, structures), worked
    out once over the hands (a few thousand rows), never over a facts table, and the hand columns that
    rules read, converted once and gathered onto a facts table's rows by hand position."""

    def __init__(self, hands: pd.DataFrame):
        self.hands = hands
        self.n = len(hands)
        self._codes: dict[str, tuple[np.ndarray, list]] = {}
        self._scopes: dict[tuple, np.ndarray] = {}
        self.columns: dict[str, Column] = {}

    def _factorized(self, name: str) -> tuple[np.ndarray, list]:
        if name not in self._codes:
            codes, uniques = pd.factorize(self.hands[name], use_na_sentinel=True)
            self._codes[name] = (np.asarray(codes, dtype=np.int64), list(pd.Index(uniques)))
        return self._codes[name]

    def _isin(self, name: str, values: tuple[str, ...]) -> np.ndarray:
        """Hands whose `name` is one of `values`: a lookup over the distinct values, then over codes."""
        codes, uniques = self._factorized(name)
        chosen = frozenset(values)
        # a Python look-up over the few distinct values (pandas' isin costs ~0.1 ms a call, 150 calls a batch)
        wanted = np.array([value in chosen for value in uniques] + [False], dtype=bool)  # code -1 (missing): none
        if wanted.all():
            return np.ones(len(codes), dtype=bool)
        return wanted[codes]

    def scope(self, pack: str, rule: Rule) -> np.ndarray:
        """A mask over the hands: those under `pack` of the rule's variants and structures."""
        key = (pack, rule.variants, rule.structures)
        if key not in self._scopes:
            self._scopes[key] = self._isin("rule_pack", (pack,)) & self._isin("variant", rule.variants) & \
                self._isin("structure", rule.structures)
        return self._scopes[key]

    def column(self, name: str) -> Column:
        if name not in self.columns:
            self.columns[name] = prepare_column(name, self.hands[name], self.n)
        return self.columns[name]


class _Table:
    """One facts table of the batch: the hand position of each row (-1 for a row of a hand not in the
    batch, which no scope selects), and its columns converted once (the table's own, then the hand
    columns joined by position, as `with_hands` would)."""

    def __init__(self, frame: pd.DataFrame, batch: _Batch):
        self.frame = frame
        self.batch = batch
        self.n = len(frame)
        labels = frame["hand"].to_numpy(dtype=np.int64, na_value=-1) if self.n else np.zeros(0, dtype=np.int64)
        self.hand_pos = _positions(batch.hands.index, labels)
        self.own = frozenset(frame.columns)
        self.hand_columns = [c for c in HAND_COLUMNS if c not in self.own and c in batch.hands.columns]
        self._columns: dict[str, Column] = {}
        self._rows: dict[tuple, tuple[np.ndarray, _View, np.ndarray | None]] = {}
        self._valid: np.ndarray | None = None

    def __contains__(self, name: object) -> bool:
        return name in self.own or name in self.hand_columns

    def _in_batch(self) -> np.ndarray:
        """The positions of the rows of hands in the batch (every row, nearly always), worked out once."""
        if self._valid is None:
            self._valid = np.flatnonzero(self.hand_pos >= 0)
        return self._valid

    def column(self, name: str) -> Column:
        if name not in self._columns:
            if name in self.own:
                self._columns[name] = prepare_column(name, self.frame[name], self.n)
            else:
                self._columns[name] = self.batch.column(name).take(np.maximum(self.hand_pos, 0))
        return self._columns[name]

    def rows(self, pack: str, rule: Rule) -> tuple[np.ndarray, _View, np.ndarray | None]:
        """The positions of the rows in the rule's scope, a view to evaluate predicates over, and a mask
        over that view of the rows in scope (None: the view is exactly the scope's rows).

        A scope of most of the table is evaluated over the whole table and its rows picked from the
        results (gathering every column read would cost more than the extra rows); a small scope is
        gathered once and shared by every rule of that scope."""
        key = (pack, rule.variants, rule.structures)
        if key not in self._rows:
            hand_mask = self.batch.scope(pack, rule)
            if not hand_mask.any():
                selected = np.zeros(0, dtype=np.int64)
            elif hand_mask.all():  # a batch of one pack and game, or a rule of all its games: no gather
                selected = self._in_batch()
            else:
                selected = np.flatnonzero(hand_mask[self.hand_pos] & (self.hand_pos >= 0))
            if len(selected) == self.n:
                self._rows[key] = (selected, _View(self, None), None)
            elif len(selected) * _GATHER_BELOW >= self.n:
                in_scope = np.zeros(self.n, dtype=bool)
                in_scope[selected] = True
                self._rows[key] = (selected, _View(self, None), in_scope)
            else:
                self._rows[key] = (selected, _View(self, selected), None)
        return self._rows[key]


class _View(Mapping[str, Column]):
    """Columns of a table over some of its rows (None: all of them), each gathered once when first read:
    what a rule's predicates are evaluated over."""

    def __init__(self, table: _Table, positions: np.ndarray | None):
        self.table = table
        self.positions = positions
        self.length = table.n if positions is None else len(positions)
        self._columns: dict[str, Column] = {}

    def __getitem__(self, name: str) -> Column:
        if name not in self._columns:
            if name not in self.table:
                raise KeyError(name)
            column = self.table.column(name)
            self._columns[name] = column if self.positions is None else column.take(self.positions)
        return self._columns[name]

    def __contains__(self, name: object) -> bool:
        return name in self.table

    def __iter__(self):
        return iter([*self.table.own, *self.table.hand_columns])

    def __len__(self) -> int:
        return len(self.table.own) + len(self.table.hand_columns)

    def take(self, local: np.ndarray) -> _View:
        """A view over the rows at `local` (positions within this view)."""
        return _View(self.table, local if self.positions is None else self.positions[local])


#: rows are gathered for a predicate only when fewer than 1/_GATHER_BELOW of the view's rows are wanted;
#: otherwise the predicate runs over the whole view and the wanted rows are picked from its results
_GATHER_BELOW = 2


def _positions(index: pd.Index, labels: np.ndarray) -> np.ndarray:
    """The position in `index` of each hand label (-1 where absent): arithmetic for the usual 0..n-1
    RangeIndex, a hash lookup otherwise."""
    if isinstance(index, pd.RangeIndex) and index.step == 1:
        positions = labels - index.start
        return np.where((positions >= 0) & (positions < len(index)), positions, -1).astype(np.int64)
    return np.asarray(index.get_indexer(labels), dtype=np.int64)


def _judge(expression: Expression, view: _View, params: Mapping, rows: np.ndarray | None,
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The positions in `view` where `expression` holds, is missing, overflowed, among its `rows` (sorted
    positions; None: all of them)."""
    if rows is None or len(rows) == view.length:
        return expression.judge(view, params, view.length, positions=True)
    if len(rows) * _GATHER_BELOW >= view.length:
        wanted = np.zeros(view.length, dtype=bool)
        wanted[rows] = True
        return tuple(p[wanted[p]] for p in expression.judge(view, params, view.length, positions=True))
    return tuple(rows[p] for p in expression.judge(view.take(rows), params, len(rows), positions=True))


#: columns every finding is made from, whatever the rule
_FINDING_SOURCES = frozenset(("hand", "seq", "hand_id", "file", "line", "table_id", "variant", "structure",
                              "rule_pack"))


_NONE = np.zeros(0, dtype=np.int64)


def _distinct_hands(hand_pos: np.ndarray, n_hands: int) -> int:
    """How many distinct hands the rows at `hand_pos` (valid hand positions) belong to."""
    if not len(hand_pos):
        return 0
    if len(hand_pos) * 8 < n_hands:
        return int(np.unique(hand_pos).size)
    return int(np.count_nonzero(np.bincount(hand_pos, minlength=n_hands)))


def _check_rule(rule: Rule, pack: Pack, table: _Table, batch: _Batch) -> tuple[pd.DataFrame | None, dict]:
    """One rule over one batch: its findings (None if there are none) and its coverage row.

    Each row in scope has one outcome: not selected by `when`, violates, passes, or not assessable —
    `when` or `violation` missing (three-valued logic: a missing operand decides nothing), a fact the
    rule `needs` missing, or the predicates' arithmetic overflowed int64 (judging a wrapped number would
    be a false verdict either way).
    """
    hand_scope = batch.scope(pack.name, rule)
    n_scope = int(np.count_nonzero(hand_scope))
    coverage = {
        "pack": pack.name, "rule_id": rule.id, "category": rule.category, "severity": rule.severity,
        "hands_in_scope": n_scope, "hands_checked": n_scope, "hands_not_assessable": 0, "hands_with_violations": 0,
        "violations": 0, "hands_overflow": 0,
    }
    selected, view, in_scope = table.rows(pack.name, rule)
    if not len(selected):
        return None, coverage
    params = pack.parameters if rule.parameters is None else rule.parameters  # a house override for this rule alone
    # every set of rows below is sorted positions in `view`, restricted to the scope
    if rule.when is not None:
        chosen, w_missing, w_overflow = _judge(rule.when, view, params, None)
        if in_scope is not None:
            chosen, w_missing, w_overflow = (p[in_scope[p]] for p in (chosen, w_missing, w_overflow))
    else:
        chosen = np.arange(view.length) if in_scope is None else np.flatnonzero(in_scope)
        w_missing = w_overflow = _NONE
    lacking = _NONE  # chosen rows missing a fact the rule needs
    if rule.needs and len(chosen):
        missing_need = np.zeros(len(chosen), dtype=bool)
        for need in rule.needs:
            missing_need |= view[need].missing()[chosen]
        if missing_need.any():
            lacking, chosen = chosen[missing_need], chosen[~missing_need]
    holds = v_missing = v_overflow = _NONE
    if len(chosen):
        holds, v_missing, v_overflow = _judge(rule.violation, view, params, chosen)
    to_table = (lambda p: p) if view.positions is None else (lambda p: view.positions[p])
    undecided = np.concatenate((w_missing, w_overflow, lacking, v_missing, v_overflow))
    overflowed = np.concatenate((w_overflow, v_overflow))
    violates = to_table(holds)
    n_violations = len(violates)
    n_not_assessable = _distinct_hands(table.hand_pos[to_table(undecided)], batch.n)
    coverage.update(hands_checked=n_scope - n_not_assessable, hands_not_assessable=n_not_assessable,
                    hands_with_violations=_distinct_hands(table.hand_pos[violates], batch.n),
                    violations=n_violations,
                    hands_overflow=_distinct_hands(table.hand_pos[to_table(overflowed)], batch.n))
    if not n_violations:
        return None, coverage
    return _findings(rule, pack, params, table, batch, violates), coverage


def _findings(rule: Rule, pack: Pack, params: Mapping, table: _Table, batch: _Batch,
              positions: np.ndarray) -> pd.DataFrame:
    """The findings of the violating rows at `positions` of `table`: the only rows pandas gathers, once,
    with only the columns the rule's templates and a finding read."""
    wanted = rule.reads | _FINDING_SOURCES
    frame, hands = table.frame, batch.hands
    hand_pos = table.hand_pos[positions]
    # one column at a time, only those read: nothing else of the table is copied
    columns = {c: frame[c].array.take(positions) for c in frame.columns if c in wanted}
    columns.update({c: hands[c].array.take(hand_pos) for c in table.hand_columns if c in wanted})
    violating = pd.DataFrame(columns, index=frame.index[positions])
    n = len(violating)
    # messages show money in each hand's own units ($0.50, 1,500 chips), never the log's integers
    units = money.MoneyUnits.of_positions(hands, hand_pos)
    return pd.DataFrame({
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


def _column(frame: pd.DataFrame, name: str) -> object:
    return frame[name].array if name in frame else pd.NA
