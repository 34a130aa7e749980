"""The ranking window functions in batch mode, with the rows Apache Flink 2.3.0's SQL Client
printed for the same queries (ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST,
NTILE; Flink's CUME_DIST counts rows, not peers: two equal values of four get 0.5 and
0.75), and Flink's refusal of the batch-only ones in streaming mode."""
from __future__ import annotations

import pytest

from sqlengine.api.session import Session
from sqlengine.errors import UnsupportedError

QUERY = """SELECT k, v, ROW_NUMBER() OVER w, RANK() OVER w, DENSE_RANK() OVER w, PERCENT_RANK() OVER w,
  CUME_DIST() OVER w, NTILE(3) OVER w
FROM (VALUES ('a', 1), ('a', 2), ('a', 2), ('a', 5), ('b', 3), ('b', CAST(NULL AS INT)), ('c', 7)) AS x(k, v)
WINDOW w AS ({window})"""
THIRD = 0.3333333333333333

FLINK = {  # Flink 2.3.0, sql-client.sh in tableau mode, batch
    "PARTITION BY k ORDER BY v": [
        ("a", 1, 1, 1, 1, 0.0, 0.25, 1), ("a", 2, 2, 2, 2, THIRD, 0.5, 1), ("a", 2, 3, 2, 2, THIRD, 0.75, 2),
        ("a", 5, 4, 4, 3, 1.0, 1.0, 3), ("b", None, 1, 1, 1, 0.0, 0.5, 1), ("b", 3, 2, 2, 2, 1.0, 1.0, 2),
        ("c", 7, 1, 1, 1, 0.0, 1.0, 1)],
    "PARTITION BY k ORDER BY v DESC": [
        ("a", 5, 1, 1, 1, 0.0, 0.25, 1), ("a", 2, 2, 2, 2, THIRD, 0.5, 1), ("a", 2, 3, 2, 2, THIRD, 0.75, 2),
        ("a", 1, 4, 4, 3, 1.0, 1.0, 3), ("b", 3, 1, 1, 1, 0.0, 0.5, 1), ("b", None, 2, 2, 2, 1.0, 1.0, 2),
        ("c", 7, 1, 1, 1, 0.0, 1.0, 1)],
    "ORDER BY v": [
        ("b", None, 1, 1, 1, 0.0, 0.14285714285714285, 1), ("a", 1, 2, 2, 2, 0.16666666666666666, 0.2857142857142857, 1),
        ("a", 2, 3, 3, 3, THIRD, 0.42857142857142855, 1), ("a", 2, 4, 3, 3, THIRD, 0.5714285714285714, 2),
        ("b", 3, 5, 5, 4, 0.6666666666666666, 0.7142857142857143, 2), ("a", 5, 6, 6, 5, 0.8333333333333334,
                                                                        0.8571428571428571, 3),
        ("c", 7, 7, 7, 6, 1.0, 1.0, 3)],
}


@pytest.fixture(scope="module")
def batch(spark):
    return Session({"execution.runtime-mode": "batch"}, spark=spark)


@pytest.mark.parametrize("window", list(FLINK))
def test_ranking_functions_give_flinks_rows(batch, window):
    result = batch.execute_sql(QUERY.format(window=window))
    assert sorted(map(tuple, result.collect()), key=repr) == sorted(FLINK[window], key=repr)
    assert [t.sql() for t in result.types[5:]] == ["DOUBLE NOT NULL", "DOUBLE NOT NULL", "BIGINT NOT NULL"]


@pytest.mark.parametrize("call", ["CUME_DIST()", "PERCENT_RANK()", "NTILE(2)"])
def test_batch_only_ranking_functions_are_refused_in_streaming_mode(spark, call):
    s = Session({"execution.runtime-mode": "streaming"}, spark=spark)
    name = call.split("(")[0]
    with pytest.raises(UnsupportedError, match=f"^{name} Function is not supported in stream mode.$"):
        s.execute_sql(f"SELECT k, {call} OVER (PARTITION BY k ORDER BY v) FROM (VALUES ('a', 1)) AS x(k, v)")
