"""A report never reads a log again nor replays a hand: it formats what the audit kept.

Data flows one way, ingest -> replay -> check -> report. The HTML page (replays, findings per 1,000
hands by table, findings over time) and `auditor explain` are written from `AuditResult` alone: with
the logs deleted after the audit, and every reader made to fail, they are the same as with the logs
there. What the audit keeps for them is the same for any number of worker processes, and bounded.
"""

from __future__ import annotations

import io
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from auditor.engines import local, partition
from auditor.ingest import detect
from auditor.model.records import SourceHand
from auditor.model.results import AuditResult
from auditor.pipeline import audit, read_inputs
from auditor.report import hands as hands_module
from auditor.report.explain import explain
from auditor.report.hands import HandView, KeptViews
from auditor.report.html import render

SAMPLES = Path(__file__).resolve().parents[1] / "sample_logs"
ASKED = "HE-MR0002-000004"  # a hand with a finding
QUIET = "HOLDEM0001-000001"  # a hand explain asks for that has none


def _page(result: AuditResult, **options) -> str:
    """The page without the moment it was written (the one thing that may differ between two writes)."""
    return re.sub(r"generated [^<]*", "generated", render(result, **options))


def _hand_parts(result: AuditResult) -> str:
    """The page from its charts to its replays: what is made of the hands (the run's facts above it, its
    times and command line, differ between two runs)."""
    page = _page(result)
    return page[page.index('<section id="charts">'):page.index("</main>")]


def _explained(result: AuditResult, hand_id: str) -> str:
    out = io.StringIO()
    assert explain(result, hand_id, out) >= 1
    return out.getvalue()


def _refuse(*_args, **_kwargs):
    raise AssertionError("a report read a log again")


@pytest.fixture(scope="module")
def copied(tmp_path_factory) -> tuple[Path, AuditResult]:
    folder = tmp_path_factory.mktemp("logs") / "sample_logs"
    shutil.copytree(SAMPLES, folder)
    return folder, audit([folder], keep_hands=[ASKED, QUIET])


def test_the_page_and_explain_are_the_same_with_the_logs_gone_and_no_reader_allowed(copied, monkeypatch):
    folder, result = copied
    assert len(result.findings) == 28 and result.views
    before = _page(result), _explained(result, ASKED), _explained(result, QUIET)
    assert "Replay of hand" in before[0] and "◀ this finding" in before[0]
    assert ">>" in before[1] and "Pre-flop" in before[1] and ">>" not in before[2]
    moved = folder.with_name("moved-away")
    folder.rename(moved)
    try:
        for module, name in ((partition, "read_file"), (detect, "read_file"), (partition, "read_input")):
            monkeypatch.setattr(module, name, _refuse)
        assert (_page(result), _explained(result, ASKED), _explained(result, QUIET)) == before
    finally:
        moved.rename(folder)


def test_hands_per_table_and_hand_starts_are_those_of_the_hands_read(copied):
    _, result = copied
    read = [h for h in read_inputs(result.inputs) if isinstance(h, SourceHand)]
    held = {(q.file, q.line) for q in result.quarantined}  # a hand read but never replayed
    counted = Counter(h.hand["table_id"] for h in read if (h.file, h.line) not in held)
    assert result.table_hands == counted
    assert sum(result.table_hands.values()) == result.hands_audited + result.hands_not_covered
    starts = {(h.file, h.line): h.hand.get("started_at") for h in read}
    kept = result.finding_hands
    assert len(kept) == len(set(zip(result.findings["file"], result.findings["line"], strict=True)))
    for file, line, started in zip(kept["file"], kept["line"], kept["started_at"], strict=True):
        assert starts[(file, int(line))] == started


def test_views_are_those_of_the_first_hands_with_findings_and_of_the_hands_asked_for(copied):
    _, result = copied
    with_findings = sorted(set(zip(result.findings["file"], result.findings["line"].astype(int), strict=True)))
    assert list(result.views) == with_findings[:result.view_limit]
    assert {v.hand_id for v in result.asked_views.values()} == {ASKED, QUIET}
    view = result.asked_views[next(k for k, v in result.asked_views.items() if v.hand_id == ASKED)]
    raise_step = view.steps[7]  # the state the rule saw: pot 150 before the short raise, 50 to call
    assert (raise_step.pot, raise_step.to_call, raise_step.raises) == (150, 50, 0)
    assert view.steps[1].text.endswith("posts small blind: 50")


def test_few_views_kept_caps_the_replays_and_the_page_says_so(copied):
    folder, _ = copied
    small = audit([folder / "holdem-planted.jsonl"], max_views=2)
    assert len(small.views) == 2 < len(small.findings)
    page = _page(small)
    assert page.count("Replay of hand") == 2
    assert f"Replays are shown for the first 2 of {len(small.findings)} findings" in page


def test_worker_processes_keep_the_same_views_counts_and_starts(copied, monkeypatch):
    folder, one = copied
    monkeypatch.setattr(local, "POOL_MIN_HANDS", 0)
    spread = audit([folder], batch_size=300, jobs=2, keep_hands=[ASKED, QUIET])
    small_batches = audit([folder], batch_size=300, jobs=1, keep_hands=[ASKED, QUIET])
    for other in (spread, small_batches):
        assert other.views == one.views and other.asked_views == one.asked_views
        assert other.table_hands == one.table_hands
        assert other.finding_hands.equals(one.finding_hands)
        assert _hand_parts(other) == _hand_parts(one)


def _view(file: str, line: int, hand_id: str = "h") -> HandView:
    return HandView({"hand_id": hand_id}, file, line, "p")


def test_kept_views_hold_the_smallest_keys_whatever_order_they_come_in():
    keys = [("b", 3), ("a", 9), ("a", 2), ("c", 1), ("a", 10)]
    orders = [keys, list(reversed(keys)), sorted(keys)]
    results = []
    for order in orders:
        kept = KeptViews(3)
        for i, key in enumerate(order):
            kept.offer(key, (0, i), _view(*key))
        results.append(list(kept.views()))
    assert results[0] == results[1] == results[2] == [("a", 2), ("a", 9), ("a", 10)]
    # two partitions merged either way round: the same, and of one key the first audited copy wins
    first, second = KeptViews(2), KeptViews(2)
    first.offer(("a", 1), (0, 5), _view("a", 1))
    second.offer(("a", 1), (1, 0), _view("a", 1, "copy"))
    second.offer(("a", 0), (1, 1), _view("a", 0))
    one, other = KeptViews(2), KeptViews(2)
    one.merge(first), one.merge(second)
    other.merge(second), other.merge(first)
    assert one.views() == other.views() and one.views()[("a", 1)].hand_id == "h"


def test_the_hands_module_reads_no_file():
    """The module the reports format hands with has no reader to call."""
    source = Path(hands_module.__file__).read_text()
    assert "read_input" not in source and "replay(" not in source and "open(" not in source


def test_a_hand_whose_only_finding_is_run_wide_keeps_its_replay_when_its_id_came_earlier_in_its_file(tmp_path):
    first = (SAMPLES / "holdem.jsonl").read_text().splitlines()[0]
    log = tmp_path / "repeated.jsonl"
    log.write_text(f"{first}\n{first}\n")
    result = audit([log])
    repeat = result.findings[result.findings["line"] == 2]
    assert len(repeat) and set(repeat["rule_id"]) == {"TDA-INT-id"}  # judged by the ledger, not in the worker
    assert (str(log), 2) in result.views
    assert result.finding_hands["line"].tolist() == [2] and result.finding_hands["started_at"].notna().all()
    page = _page(result)
    assert page.count("Replay of hand") == len(result.findings) and "did not keep this hand's replay" not in page
    # the same hand in a file of another partition (batch_size 1: a partition per file), first in (file,
    # line) order: the hand at line 1 repeats it across partitions, has no replay, and the page says why
    other = tmp_path / "other.jsonl"
    other.write_text(f"{first}\n")
    across = audit([log, other], batch_size=1)
    flagged = set(zip(across.findings["file"], across.findings["line"].astype(int), strict=True))
    assert flagged == {(str(log), 1), (str(log), 2)} and set(across.views) == {(str(log), 2)}
    assert "did not keep this hand's replay" in _page(across)
