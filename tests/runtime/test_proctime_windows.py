"""Windows over a processing-time attribute (Nexmark q12: ``PROCTIME()`` in a view, a
TUMBLE over it): a row's window is the one its processing time falls in, a window fires
when processing time passes its end, and a bounded input's end fires every window."""
from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

from tests.runtime.changelog_util import compiled_classes, write_jsonl


def test_a_tumble_over_proctime_counts_every_row_once(spark, tmp_path):
    from sqlengine.api.session import Session
    t0 = datetime(2024, 3, 1, 9)
    rows = [{"k": f"k{i % 3}", "ts": (t0 + timedelta(seconds=i)).isoformat(" ")} for i in range(90)]
    path = write_jsonl(tmp_path / "rows.jsonl", rows)
    s = Session({"execution.checkpointing.dir": str(tmp_path / "ck"), "parallelism.default": "2",
                 "sqlengine.filesystem.max-lines-per-batch": "30"}, spark=spark)
    s.execute_sql(f"""CREATE TABLE r (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
                      WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')""")
    s.execute_sql("CREATE VIEW v AS SELECT *, PROCTIME() AS p_time FROM r")
    before = time.time()
    out = s.execute_sql("""SELECT k, COUNT(*) AS n, window_start, window_end
                           FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(p_time), INTERVAL '10' SECOND))
                           GROUP BY k, window_start, window_end""").collect()
    after = time.time()
    assert {r[0] for r in out} == {"+I"}
    assert sum(r[2] for r in out) == 90 and {r[1] for r in out} == {"k0", "k1", "k2"}
    for _, _, _, start, end in out:
        assert end - start == timedelta(seconds=10) and start.second % 10 == 0 and start.microsecond == 0
        assert before - 20 <= start.replace(tzinfo=timezone.utc).timestamp() <= after + 10


def test_a_later_run_in_other_windows_compiles_no_class_of_its_own(spark, tmp_path):
    """window_aggregate/epoch.py: the rows' processing time (Spark's ``current_timestamp()``,
    a literal in each job's code) is the epoch's time outside the generated code, so a run
    whose windows start at other times compiles nothing the first run did not (each new
    window's start compiled the window's stages again). Windows of one second: the second
    run is in other windows. Every row is counted once in each run."""
    from sqlengine.api.session import Session
    rows = [{"k": f"k{i % 3}", "ts": f"2024-03-01 09:00:{i % 60:02d}"} for i in range(60)]
    path = write_jsonl(tmp_path / "rows.jsonl", rows)
    runs, starts = [], []
    for run in range(2):
        s = Session({"execution.checkpointing.dir": str(tmp_path / f"ck{run}"), "parallelism.default": "2",
                     "sqlengine.filesystem.max-lines-per-batch": "20"}, spark=spark)
        s.execute_sql(f"""CREATE TABLE r (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
                          WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')""")
        s.execute_sql("CREATE VIEW v AS SELECT *, PROCTIME() AS p_time FROM r")
        before = compiled_classes(spark)
        out = s.execute_sql("""SELECT k, COUNT(*) AS n, window_start, window_end
                               FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(p_time), INTERVAL '1' SECOND))
                               GROUP BY k, window_start, window_end""").collect()
        runs.append(compiled_classes(spark) - before)
        assert sum(r[2] for r in out) == 60 and {r[1] for r in out} == {"k0", "k1", "k2"}
        starts.append({r[3] for r in out})
    assert starts[0].isdisjoint(starts[1])
    assert runs[0] > 0 and runs[1] == 0, runs
