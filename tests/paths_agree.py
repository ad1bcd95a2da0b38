"""What "both reader paths agree" means (their tables, and audits through each), for the column-wise readers' tests.

`tests/test_phh_tables.py` and `test_ohh_tables.py` each audit the same inputs
through the reference reader and through the column-wise one; a user must not be able to tell which ran, so
everything a report is made from has to be equal, not only the findings.
"""

from __future__ import annotations


def assert_tables_equal(got, expected) -> None:
    """Two readings' canonical tables are equal: same schemas, same values (the first differing row named)."""
    for name in ("hands", "seats", "events"):
        a, b = getattr(got, name).combine_chunks(), getattr(expected, name).combine_chunks()
        assert a.schema == b.schema, name
        if not a.equals(b):
            for column in a.column_names:
                x, y = a[column].to_pylist(), b[column].to_pylist()
                assert x == y, (name, column, next((i, x[i], y[i]) for i in range(min(len(x), len(y)))
                                                   if x[i] != y[i]) if len(x) == len(y) else (len(x), len(y)))
            raise AssertionError(f"{name}: equal values, unequal tables")


def assert_audits_agree(fast, slow, min_hands: int) -> None:
    """`fast` and `slow` (AuditResults of the same inputs) agree on everything a report shows, over more than
    `min_hands` hands read, with findings to compare."""
    assert fast.hands_read == slow.hands_read > min_hands
    assert fast.findings.equals(slow.findings)
    assert fast.coverage.equals(slow.coverage)
    assert [repr(q) for q in fast.quarantined] == [repr(q) for q in slow.quarantined]
    assert list(fast.read_per_file.items()) == list(slow.read_per_file.items())
    assert fast.hand_periods == slow.hand_periods
    assert (fast.hands_audited, fast.not_covered, fast.not_covered_per_file) == \
        (slow.hands_audited, slow.not_covered, slow.not_covered_per_file)
    assert repr(fast.views) == repr(slow.views)  # the hands the reports show: the lazy sources' dicts
    assert fast.table_hands == slow.table_hands
    assert fast.finding_hands.equals(slow.finding_hands)
    assert len(fast.findings) > 0
