"""Golden EXPLAIN files: the operator DAG the runtime runs, as EXPLAIN prints it, for
the main query shapes (streaming mode, with changelog modes).

Each ``golden/<name>.sql`` runs after ``ddl.sql``; its output must equal
``golden/<name>.out``. Regenerate with ``SQLENGINE_REGEN_GOLDEN=1 pytest tests/explain``
and review the diff."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from sqlengine.api.session import Session

HERE = Path(__file__).parent
CASES = sorted(p.stem for p in (HERE / "golden").glob("*.sql"))


def explain_text(name: str) -> str:
    session = Session({"parallelism.default": "2"})
    session.execute_sql((HERE / "ddl.sql").read_text())
    result = session.execute_sql((HERE / "golden" / f"{name}.sql").read_text())
    return result.text.rstrip("\n")


@pytest.mark.parametrize("name", CASES)
def test_explain_matches_golden(name):
    text = explain_text(name)
    golden = HERE / "golden" / f"{name}.out"
    if os.environ.get("SQLENGINE_REGEN_GOLDEN"):
        golden.write_text(text + "\n")
    assert golden.exists(), f"no golden file {golden.name}: run with SQLENGINE_REGEN_GOLDEN=1"
    assert text + "\n" == golden.read_text()


@pytest.mark.parametrize("sql, message", [
    ("EXPLAIN SELECT item, price FROM Bid ORDER BY price", "Sort on a non-time-attribute field is not supported."),
])
def test_unsupported_streaming_shapes_fail_at_planning(sql, message):
    """Planning (EXPLAIN, or a job before it starts) names the construct; no job runs."""
    from sqlengine.errors import SqlEngineError
    session = Session({})
    session.execute_sql((HERE / "ddl.sql").read_text())
    with pytest.raises(SqlEngineError, match=re.escape(message)):
        session.execute_sql(sql)
    batch = Session({"execution.runtime-mode": "batch"})
    batch.execute_sql((HERE / "ddl.sql").read_text())
    assert "Exchange" in batch.execute_sql(sql).text or "Sort" in batch.execute_sql(sql).text
