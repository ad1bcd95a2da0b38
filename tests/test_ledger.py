"""The run-wide ledger: workers judge their rows as if no id repeated (the baseline), the driver judges again
only the batches holding a repeat. These tests hold that shortcut to one judgment of every row, including
for a rule that fires on hands whose id does *not* repeat (so the baseline has findings to replace)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from auditor.engines import ledger, local
from auditor.pipeline import audit

ROOT = Path(__file__).resolve().parent.parent

_PACK = """pack: house-unique
version: 1.0.0
title: House ids, told the other way round
extends: tda-2024
rules:
  - id: HOUSE-id-own
    title: A hand whose id no earlier hand used
    category: record
    severity: info
    citation: house
    text: Every hand has its own id.
    why: The ledger must say which hands keep their id, not only which repeat one.
    applies: {variants: [holdem], structures: [pot-limit, no-limit, fixed-limit]}
    facts: hands
    scope: run
    violation: not duplicate_hand_id
    message: "hand {hand_id} has its own id"
    examples:
      violating: [{file: once.jsonl, about: "one hand once", findings: 1}]
      clean: [{file: twice.jsonl, about: "one hand twice"}]
"""


def _logs(tmp_path: Path) -> tuple[Path, list[Path]]:
    lines = (ROOT / "sample_logs" / "holdem.jsonl").read_text(encoding="utf-8").splitlines()
    hands = [json.loads(line) for line in lines if line.strip()]
    own = []
    for i in range(30):
        hand = dict(hands[i % len(hands)])
        hand["hand_id"] = f"H{i}"
        own.append(json.dumps(hand))
    (tmp_path / "a.jsonl").write_text("\n".join(own) + "\n", encoding="utf-8")
    # b.jsonl: ten hands that repeat ids of a.jsonl (ids 5..14), then ten of their own
    again = own[5:15] + [json.dumps({**json.loads(h), "hand_id": f"B{i}"}) for i, h in enumerate(own[:10])]
    (tmp_path / "b.jsonl").write_text("\n".join(again) + "\n", encoding="utf-8")
    (tmp_path / "once.jsonl").write_text(own[0] + "\n", encoding="utf-8")
    (tmp_path / "twice.jsonl").write_text(own[0] + "\n" + own[0] + "\n", encoding="utf-8")
    pack = tmp_path / "house.yaml"
    pack.write_text(_PACK, encoding="utf-8")
    return pack, [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]


def test_the_baseline_and_the_judgment_again_give_one_pass_over_every_row(tmp_path, monkeypatch):
    pack, logs = _logs(tmp_path)
    whole = audit(logs, pack=str(pack), jobs=1)
    own = whole.findings[whole.findings["rule_id"] == "HOUSE-id-own"]
    repeats = whole.findings[whole.findings["rule_id"] == "TDA-INT-id"]
    assert len(repeats) == 10 and set(repeats["line"]) == set(range(1, 11))  # b.jsonl's first ten
    assert len(own) == 40  # every hand but the ten repeats: the baseline's findings, kept where no id repeats
    assert not set(zip(own["file"], own["line"], strict=True)) & set(
        zip(repeats["file"], repeats["line"], strict=True))
    monkeypatch.setattr(local, "POOL_MIN_HANDS", 0)
    monkeypatch.setattr(ledger, "SPILL_ROWS", 7)
    # batches of 6: some hold repeats (judged again), most do not (their baseline stands); two workers
    for jobs, batch in ((1, 6), (2, 6), (2, 20_000)):
        again = audit(logs, pack=str(pack), jobs=jobs, batch_size=batch)
        assert again.findings.equals(whole.findings), (jobs, batch)
        assert again.coverage.equals(whole.coverage), (jobs, batch)


def test_the_driver_keeps_nothing_a_hand_once_rows_and_hashes_are_spilled(tmp_path):
    """What of a run stays in the driver's memory does not grow with its hands: past the ledger's limits the
    rows and the ids' hashes go to disk, and the repeats are found there all the same, bucket by bucket."""
    pack, logs = _logs(tmp_path)
    result = audit(logs, pack=str(pack), jobs=1, batch_size=5)
    from auditor.engines.partition import RunOptions, plan, run_partition
    from auditor.pipeline import discover

    inputs, _ = discover(logs)
    found = {}
    for limit in (10**9, 7):  # every hash in memory; then no more than 7 hands' hashes between writes
        book = ledger.Ledger(spill_rows=5, hashes_in_memory=limit)
        try:
            for partition in plan(inputs, 5):
                done = run_partition(partition, RunOptions(str(pack), 5))
                book.add(done.index, done.ledger)
            assert book.hashed == result.hands_audited
            in_memory = sum(len(c.hashes) for c in book.chunks if c.hashes is not None)
            assert in_memory == book.hashed - book.on_disk
            assert book.on_disk == 0 if limit > book.hashed else (book.on_disk > 0 and in_memory <= limit)
            assert book.in_memory <= 5
            assert all(chunk.frame is None for chunk in book.chunks[1:])
            found[limit] = (book.first_uses(), book.resolve({result.packs[n].name: result.packs[n]
                                                             for n in result.packs}))
        finally:
            book.close()
    (keys, origin), (wide, coverage) = found[7]
    assert np.all(np.diff(keys) > 0) and len(keys) == 10 and len(origin) == 10
    assert np.array_equal(keys, found[10**9][0][0]) and origin == found[10**9][0][1]
    assert all(a.equals(b) for a, b in zip(wide, found[10**9][1][0], strict=True))
    assert coverage.equals(found[10**9][1][1])


def test_repeated_hashes_are_found_in_every_bucket():
    """Hashes spread over every bucket file, a few of them repeated: exactly those come back, sorted."""
    rng = np.random.default_rng(1)
    hashes = rng.integers(0, 2**63, 5_000, dtype=np.uint64) * np.uint64(2)  # the top bit used too
    again = hashes[rng.choice(len(hashes), 40, replace=False)]
    stream = np.concatenate([hashes, again, again[:5]])
    rng.shuffle(stream)
    book = ledger.Ledger(hashes_in_memory=300)
    try:
        import pandas as pd

        empty = pd.DataFrame()
        parts = [ledger.Rows(None, stream[i:i + 250], empty, None, path="unused")
                 for i in range(0, len(stream), 250)]
        book.add(0, parts)
        assert book.on_disk > 0
        assert np.array_equal(book.repeated_hashes(), np.unique(again))
        buckets = {int(h) >> (64 - 6) for h in stream}
        assert len(buckets) == ledger.HASH_BUCKETS
        assert all(np.array_equal(book.hashes(c), stream[i * 250:(i + 1) * 250]) for i, c in enumerate(book.chunks))
    finally:
        book.close()


def test_a_one_file_partition_in_this_process_writes_its_rows_past_the_limit(tmp_path, monkeypatch):
    """One file is one partition however many hands it holds: in this process it keeps `SPILL_ROWS` hands of
    run-wide rows in memory and writes the rest to the ledger's folder as it goes, not all at its end."""
    pack, logs = _logs(tmp_path)
    from auditor.engines.partition import RunOptions, plan, run_partition
    from auditor.pipeline import discover

    monkeypatch.setattr(ledger, "SPILL_ROWS", 12)
    inputs, _ = discover(logs[:1])  # a.jsonl: 30 hands, one partition
    (partition,) = plan(inputs, 20_000)
    folder = tmp_path / "ledger"
    folder.mkdir()
    done = run_partition(partition, RunOptions(str(pack), 5, ledger_folder=str(folder), spill_all_rows=False))
    kept = [part for part in done.ledger if part.frame is not None]
    assert sum(len(part.hashes) for part in kept) <= 12 and len(kept) < len(done.ledger)
    assert all(part.path is not None and Path(part.path).is_file() for part in done.ledger if part.frame is None)
    whole = audit(logs, pack=str(pack), jobs=1)
    again = audit(logs, pack=str(pack), jobs=1, batch_size=5)
    assert again.findings.equals(whole.findings) and again.coverage.equals(whole.coverage)


def test_coverage_added_up_as_it_comes_is_the_sum_of_every_table():
    """`CoverageTotal` gives what adding every batch's coverage table at the end gave: counts by rule, rows in
    the order the rules first appear, and a batch's counts taken away again leave the others'."""
    import pandas as pd

    from auditor.check.run import COVERAGE_COLUMNS
    from auditor.engines.coverage import COVERAGE_KEYS, CoverageTotal

    rng = np.random.default_rng(3)
    rules = [("p", f"R{i}", "c", "error") for i in range(6)]
    parts = []
    for _ in range(20):
        picked = [rules[i] for i in rng.permutation(6)[:rng.integers(1, 7)]]
        counts = rng.integers(0, 1000, (len(picked), len(COVERAGE_COLUMNS) - 4))
        parts.append(pd.DataFrame([[*k, *c] for k, c in zip(picked, counts.tolist(), strict=True)],
                                  columns=COVERAGE_COLUMNS))
    combined = pd.concat(parts, ignore_index=True)
    order = combined[COVERAGE_KEYS].drop_duplicates()
    want = order.merge(combined.groupby(COVERAGE_KEYS, sort=False, as_index=False).sum(), on=COVERAGE_KEYS,
                       how="left")
    total = CoverageTotal(parts)
    assert total.frame().equals(want)
    total.add(parts[4], -1)
    assert total.frame().equals(CoverageTotal(parts[:4] + parts[5:]).frame().set_index(COVERAGE_KEYS)
                                .reindex(pd.MultiIndex.from_frame(want[COVERAGE_KEYS])).reset_index())
