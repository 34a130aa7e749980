"""CURRENT_WATERMARK(rowtime) in the epoch runtime: the input watermark before the
epoch a row arrives in (NULL before the first one), so the late-row filter Flink's
documentation shows drops rows behind it. 7 rows in epochs of 2; the watermark is the
largest event time seen minus 1 s."""
from __future__ import annotations

import datetime as dt

import pytest

from sqlengine.errors import ValidationError
from sqlengine.api.session import Session
from tests.runtime.changelog_util import write_jsonl

SECONDS = [1, 5, 3, 9, 2, 10, 4]


def _session(spark, tmp_path, mode="streaming"):
    write_jsonl(tmp_path / "in" / "a.jsonl",
                [{"k": k, "ts": f"2024-01-01 00:00:{s:02d}.000"} for k, s in enumerate(SECONDS)])
    s = Session({"execution.runtime-mode": mode, "execution.checkpointing.dir": str(tmp_path / "ckpt"),
                 "sqlengine.filesystem.max-lines-per-batch": "2"}, spark=spark)
    s.execute_sql(f"""CREATE TABLE f (k INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
        WITH ('connector' = 'filesystem', 'path' = '{tmp_path / "in"}', 'format' = 'json')""")
    return s


def _at(second):
    return dt.datetime(2024, 1, 1, 0, 0, second)


def test_current_watermark_is_the_watermark_before_the_rows_epoch(spark, tmp_path):
    rows = _session(spark, tmp_path).execute_sql("SELECT k, CURRENT_WATERMARK(ts) FROM f").collect()
    got = {r[1]: r[2] for r in rows}
    assert got == {0: None, 1: None, 2: _at(4), 3: _at(4), 4: _at(8), 5: _at(8), 6: _at(9)}


def test_late_rows_are_filtered_as_in_flinks_documentation(spark, tmp_path):
    q = "SELECT k FROM f WHERE CURRENT_WATERMARK(ts) IS NULL OR ts > CURRENT_WATERMARK(ts)"
    assert sorted(r[1] for r in _session(spark, tmp_path).execute_sql(q).collect()) == [0, 1, 3, 5]


@pytest.mark.parametrize("mode, arg", [("streaming", "k"), ("batch", "ts")])
def test_only_a_rowtime_attribute(spark, tmp_path, mode, arg):
    """A non-time column, or any column in batch mode (no time attributes), as Flink 2.3."""
    with pytest.raises(ValidationError, match="rowtime attribute"):
        _session(spark, tmp_path, mode).execute_sql(f"SELECT CURRENT_WATERMARK({arg}) FROM f")
