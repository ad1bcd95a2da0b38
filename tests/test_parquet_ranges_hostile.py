"""A Parquet dataset whose tables are not exactly the canonical schema is not streamed in ranges
(which read columns as they are) but read whole by `read_parquet`, which quarantines it naming the
column. Found by scripts/fuzz.py: a dropped or retyped column crashed audit() in the range reader."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from auditor.cli import main
from auditor.pipeline import audit

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ds") / "dataset"
    result = CliRunner().invoke(main, ["convert", str(ROOT / "sample_logs" / "holdem.jsonl"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


def _damaged(dataset: Path, tmp_path: Path, table: str, column: str, retype: bool) -> Path:
    copy = tmp_path / "damaged"
    copy.mkdir()
    for name in ("hands", "seats", "events"):
        data = pq.read_table(dataset / f"{name}.parquet")
        if name == table:
            i = data.column_names.index(column)
            # retyped: text that is no number, so no cast can bring the column back
            data = data.set_column(i, column, pa.array(["x"] * data.num_rows)) if retype else data.remove_column(i)
        pq.write_table(data, copy / f"{name}.parquet")
    return copy


@pytest.mark.parametrize(("table", "column", "retype"), [("hands", "blinds", False), ("hands", "chip_unit", True),
                                                          ("seats", "seat", True), ("events", "seq", False),
                                                          ("hands", "file", False)])
def test_non_canonical_dataset_is_quarantined_not_crashed(dataset, tmp_path, table, column, retype):
    damaged = _damaged(dataset, tmp_path, table, column, retype)
    result = audit([damaged], pack="tda-2024")
    assert result.hands_read == result.hands_audited + result.hands_quarantined
    if column == "file":  # an optional column: the dataset is still read, whole
        assert result.hands_audited == audit([dataset], pack="tda-2024").hands_audited
    else:
        assert result.hands_audited == 0
        assert any(column in q.reason for q in result.quarantined), [q.reason for q in result.quarantined]
