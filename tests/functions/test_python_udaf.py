"""User-defined Python aggregate functions (``sqlengine.udf.udaf``, PyFlink's): an
AggregateFunction's accumulators in batch and streaming GROUP BY (next to built-ins, with
DISTINCT and FILTER), ``retract`` over an updating input with the changelog Flink 2.3 gives,
the refusal of a function without ``retract`` there, pandas functions over TUMBLE windows
and OVER frames, accumulators restored from a checkpoint, and errors naming the function."""
from __future__ import annotations

import json
from collections import Counter

import pytest

from sqlengine.api.session import Session
from sqlengine.errors import ExecutionError, ValidationError
from sqlengine.udf import DataTypes, udaf
from tests.functions.sample_udafs import WeightedAvg
from tests.runtime.changelog_util import materialize

ROWS = [("a", 1), ("b", 2), ("a", 3), ("c", 4), ("b", 5), ("a", 6)]
INNER = "SELECT k, SUM(v) AS s, COUNT(*) AS cnt FROM t GROUP BY k"


def _session(spark, tmp_path, mode, per_epoch=1, **conf):
    path = tmp_path / "t.json"
    path.write_text("".join(json.dumps({"k": k, "v": v}) + "\n" for k, v in ROWS))
    s = Session({"execution.runtime-mode": mode, "parallelism.default": "2",
                 "execution.checkpointing.dir": str(tmp_path / "ck"),
                 "sqlengine.filesystem.max-lines-per-batch": str(per_epoch), **conf}, spark=spark)
    s.execute_sql(f"CREATE TABLE t (k STRING, v BIGINT) WITH ('connector' = 'filesystem', "
                  f"'path' = '{path}', 'format' = 'json')")
    s.execute_sql("CREATE TEMPORARY FUNCTION wavg AS 'tests.functions.sample_udafs.wavg' LANGUAGE PYTHON")
    return s


def _rows(result) -> list[tuple]:
    return sorted(tuple(r) for r in result.collect())


@pytest.mark.parametrize("mode", ["batch", "streaming"])
def test_weighted_average_in_group_by_next_to_built_ins(spark, tmp_path, mode):
    s = _session(spark, tmp_path, mode)
    got = _rows(s.execute_sql("SELECT k, wavg(v, v) AS w, COUNT(*) AS n, wavg(v, 1) FILTER (WHERE v > 1) AS f, "
                              "wavg(DISTINCT v % 2, 1) AS d FROM t GROUP BY k"))
    final = [("a", 4, 3, 4, 0), ("b", 4, 2, 3, 0), ("c", 4, 1, 4, 0)]
    if mode == "batch":
        assert got == final
    else:
        assert sorted(materialize([list(r) for r in got])) == final
        assert ("-U", "a", 1, 1, None, 1) in got  # a's first row alone: FILTER left it out, 1 % 2 = 1
    # a global aggregate, and the Python API's registration
    s.create_temporary_system_function("wavg2", udaf(WeightedAvg(), result_type=DataTypes.BIGINT()))
    got = _rows(s.execute_sql("SELECT wavg2(v, 2) FROM t"))
    assert (got if mode == "batch" else sorted(materialize([list(r) for r in got]))) == [(3,)]


# Recorded with PyFlink 2.3 (/work/flink-venv): the same rows from from_elements, the same
# WeightedAvg over pyflink.table.udf.AggregateFunction, parallelism 1 and
# 'python.fn-execution.bundle.size' = '1' (one change per bundle, as one row per epoch here):
#   SELECT cnt, wavg(s, cnt) AS w FROM (SELECT k, SUM(v) AS s, COUNT(*) AS cnt FROM t GROUP BY k) GROUP BY cnt
# Each input row moves one key from the group of cnt to that of cnt + 1, so no epoch folds two
# changes of one group: the changes are Flink's (their order within an epoch is not kept).
FLINK_CHANGELOG = [
    ("+I", 1, 1), ("-U", 1, 1), ("+U", 1, 2), ("+I", 2, 4), ("-U", 1, 2), ("+U", 1, 3), ("-U", 1, 3),
    ("+U", 1, 4), ("-U", 2, 4), ("+U", 2, 5), ("-U", 2, 5), ("+U", 2, 7), ("+I", 3, 10)]


def test_retract_over_an_updating_input_gives_flinks_changelog(spark, tmp_path):
    s = _session(spark, tmp_path, "streaming")
    changes = [tuple(r) for r in s.execute_sql(f"SELECT cnt, wavg(s, cnt) AS w FROM ({INNER}) GROUP BY cnt").collect()]
    assert Counter(changes) == Counter(FLINK_CHANGELOG)
    assert materialize([list(c) for c in changes]) == Counter({(1, 4): 1, (2, 7): 1, (3, 10): 1})
    batch = _session(spark, tmp_path, "batch")
    assert _rows(batch.execute_sql(f"SELECT cnt, wavg(s, cnt) FROM ({INNER}) GROUP BY cnt")) == [
        (1, 4), (2, 7), (3, 10)]


def test_a_function_without_retract_is_refused_over_an_updating_input(spark, tmp_path):
    s = _session(spark, tmp_path, "streaming")
    s.execute_sql("CREATE TEMPORARY FUNCTION noretract AS 'tests.functions.sample_udafs.noretract' LANGUAGE PYTHON")
    # Flink 2.3 plans this query and fails the job at the first retraction with
    # "RuntimeError: Method retract is not implemented"; here planning fails with that text.
    with pytest.raises(ValidationError, match=r"Python aggregate function 'noretract' cannot consume the update "
                                              r"changes which is produced by node GroupAggregate\(.*\): "
                                              r"Method retract is not implemented"):
        s.execute_sql(f"SELECT cnt, noretract(s, cnt) FROM ({INNER}) GROUP BY cnt")
    # over an insert-only input it needs no retract
    got = _rows(s.execute_sql("SELECT k, noretract(v, 1) FROM t GROUP BY k"))
    assert sorted(materialize([list(r) for r in got])) == [("a", 3), ("b", 3), ("c", 4)]


@pytest.mark.parametrize("mode", ["batch", "streaming"])
def test_pandas_udaf_over_tumble_windows_and_over_frames(spark, tmp_path, mode):
    path = tmp_path / "bids.json"
    bids = [("2024-01-01 10:00:10", 1, 2), ("2024-01-01 10:00:40", 3, 1), ("2024-01-01 10:01:05", 5, 2),
            ("2024-01-01 10:01:50", 7, 3), ("2024-01-01 10:02:30", 9, 1)]
    path.write_text("".join(json.dumps({"ts": t, "v": v, "w": w}) + "\n" for t, v, w in bids))
    s = Session({"execution.runtime-mode": mode, "execution.checkpointing.dir": str(tmp_path / "ck"),
                 "sqlengine.filesystem.max-lines-per-batch": "2"}, spark=spark)
    s.execute_sql(f"""CREATE TABLE bids (ts TIMESTAMP(3), v INT, w INT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
                      WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')""")
    s.execute_sql("CREATE TEMPORARY SYSTEM FUNCTION mean_udaf AS 'tests.functions.sample_udafs.mean_udaf' "
                  "LANGUAGE PYTHON")
    s.execute_sql("CREATE TEMPORARY FUNCTION spread AS 'tests.functions.sample_udafs.spread' LANGUAGE PYTHON")
    got = _rows(s.execute_sql("""
        SELECT EXTRACT(MINUTE FROM window_start), mean_udaf(v), spread(v, w), COUNT(*)
        FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end"""))
    expected = [(0, 2.0, 1, 2), (1, 6.0, 11, 2), (2, 9.0, 0, 1)]
    assert [r[1:] if mode == "streaming" else r for r in got] == expected
    got = _rows(s.execute_sql("SELECT v, mean_udaf(v) OVER (ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) "
                              "FROM bids"))
    assert [r[1:] if mode == "streaming" else r for r in got] == [(1, 1.0), (3, 2.0), (5, 4.0), (7, 6.0), (9, 8.0)]


def test_errors_in_accumulate_name_the_function_and_the_row(spark, tmp_path):
    for mode in ("batch", "streaming"):
        s = _session(spark, tmp_path, mode)
        s.execute_sql("CREATE TEMPORARY FUNCTION failing AS 'tests.functions.sample_udafs.failing' LANGUAGE PYTHON")
        with pytest.raises(ExecutionError, match=r"Python aggregate function 'failing' failed in accumulate on row 1 "
                                                 r"of its group, with arguments \(3, 1\): ValueError: three"):
            s.execute_sql("SELECT k, failing(v, 1) FROM t WHERE v = 3 GROUP BY k").collect()
    with pytest.raises(TypeError, match="result_type must be given"):
        udaf(WeightedAvg())
    s = _session(spark, tmp_path, "batch")  # types from get_result_type()
    s.execute_sql("CREATE TEMPORARY FUNCTION typed AS 'tests.functions.sample_udafs.typed' LANGUAGE PYTHON")
    assert _rows(s.execute_sql("SELECT typed(v, v) FROM t")) == [(4,)]


def _materialized_debezium(folder) -> Counter:
    from tests.e2e.conftest import read_rows
    table: Counter = Counter()
    for r in read_rows(folder):
        if r.get("before") is not None:
            table[json.dumps(r["before"], sort_keys=True)] -= 1
        if r.get("after") is not None:
            table[json.dumps(r["after"], sort_keys=True)] += 1
    return +table


def test_accumulators_are_restored_from_a_checkpoint(spark, tmp_path, monkeypatch):
    """The job fails in its fourth epoch (no restart strategy) and is restored by hand from
    its checkpoint: the accumulators of the first three epochs come back from state."""
    out = tmp_path / "out"
    script = [f"""CREATE TABLE hist (cnt BIGINT, w BIGINT)
                  WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'debezium-json')""",
              f"INSERT INTO hist SELECT cnt, wavg(s, cnt) FROM ({INNER}) GROUP BY cnt"]
    faults = tmp_path / "faults"
    faults.mkdir()
    monkeypatch.setenv("SQLENGINE_FAULT", "after-sink")
    monkeypatch.setenv("SQLENGINE_FAULT_ACTION", f"raise:{faults}")
    monkeypatch.setenv("SQLENGINE_FAULT_SKIP", "3")
    s = _session(spark, tmp_path, "streaming", **{"pipeline.job-id": "udaf"})
    s.execute_sql(script[0])
    with pytest.raises(ExecutionError, match="injected failure"):
        s.execute_sql(script[1]).job.wait(300)
    assert 0 < len(_materialized_debezium(out)) and (faults / "raised-after-sink").exists()
    monkeypatch.delenv("SQLENGINE_FAULT")
    s = _session(spark, tmp_path, "streaming", **{"pipeline.job-id": "udaf-restored",
                                                  "execution.state-recovery.path": str(tmp_path / "ck" / "udaf")})
    s.execute_sql(script[0])
    s.execute_sql(script[1]).job.wait(300)
    assert _materialized_debezium(out) == Counter(
        json.dumps({"cnt": c, "w": w}, sort_keys=True) for c, w in [(1, 4), (2, 7), (3, 10)])
