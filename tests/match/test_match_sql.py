"""MATCH_RECOGNIZE through the engine: streaming over many small epochs (runs, waiting
matches and row numbers carried in state from epoch to epoch) gives the batch answer,
which the conformance cases check against Flink (tests/conformance/extra/cases/match_*)."""
from __future__ import annotations

import random
from datetime import datetime, timedelta

import pytest

from tests.runtime.changelog_util import compiled_classes, run_both, write_jsonl

DDL = """CREATE TABLE ticker (symbol STRING, price INT, tax INT, rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')"""


def ticker(n: int, seed: int) -> list[dict]:
    r = random.Random(seed)
    price = {s: r.randint(8, 30) for s in ("A", "B", "C")}
    rows, t = [], datetime(2024, 3, 1, 9)
    for _ in range(n):
        t += timedelta(seconds=r.randint(1, 4))
        s = r.choice("ABC")
        price[s] = min(30, max(8, price[s] + r.choice([-3, -2, -1, 0, 1, 2, 3])))
        rows.append({"symbol": s, "price": price[s], "tax": r.randint(0, 3), "rowtime": t.isoformat(" ")})
    return rows


QUERIES = {
    "price_down": """SELECT * FROM ticker MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY rowtime
        MEASURES START_ROW.rowtime AS s, LAST(PRICE_DOWN.rowtime) AS b, LAST(PRICE_UP.rowtime) AS e,
                 COUNT(PRICE_DOWN.price) AS n
        ONE ROW PER MATCH AFTER MATCH SKIP TO LAST PRICE_UP PATTERN (START_ROW PRICE_DOWN+ PRICE_UP)
        DEFINE PRICE_DOWN AS (LAST(PRICE_DOWN.price, 1) IS NULL AND PRICE_DOWN.price < START_ROW.price)
                             OR PRICE_DOWN.price < LAST(PRICE_DOWN.price, 1),
               PRICE_UP AS PRICE_UP.price > LAST(PRICE_DOWN.price, 1))""",
    "avg_next_row": """SELECT * FROM ticker MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY rowtime
        MEASURES FIRST(A.rowtime) AS s, LAST(A.rowtime) AS e, AVG(A.price) AS a, SUM(price) AS total
        ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A+ B) DEFINE A AS AVG(A.price) < 20)""",
    "within": """SELECT * FROM ticker MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY rowtime
        MEASURES A.rowtime AS a, C.rowtime AS c, A.price - C.price AS d
        ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B* C) WITHIN INTERVAL '15' SECOND
        DEFINE B AS B.price > A.price - 3, C AS C.price < A.price - 3)""",
    "reluctant_skip_to_first": """SELECT * FROM ticker MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY rowtime
        MEASURES A.rowtime AS a, FIRST(B.rowtime) AS b1, LAST(B.rowtime, 1) AS b2, C.rowtime AS c
        ONE ROW PER MATCH AFTER MATCH SKIP TO FIRST B PATTERN (A B{1,3}? C)
        DEFINE A AS A.price < 20, B AS B.price >= A.price, C AS C.price < LAST(B.price))""",
}


@pytest.mark.parametrize("query", sorted(QUERIES))
def test_small_epochs_give_the_batch_answer(spark, tmp_path, query):
    path = write_jsonl(tmp_path / "ticker.jsonl", ticker(150, 5))
    changes, streaming, batch = run_both(spark, tmp_path, DDL.format(path=path), QUERIES[query], lines_per_epoch=25)
    assert {c[0] for c in changes} == {"+I"}  # insert-only
    assert len(batch) >= 3
    assert streaming == batch


def _session(spark, tmp_path, mode: str, lines: int = 12):
    from sqlengine.api.session import Session
    return Session({"execution.runtime-mode": mode, "execution.checkpointing.dir": str(tmp_path / f"ck-{mode}"),
                    "sqlengine.filesystem.max-lines-per-batch": str(lines), "parallelism.default": "2"}, spark=spark)


def test_late_rows_are_dropped_as_flink_drops_them(spark, tmp_path):
    """A row at or before the watermark when it arrives never reaches the pattern."""
    rows = ticker(60, 8)
    late = dict(rows[2], price=1)  # far below every price: it would end many runs
    with_late = rows[:30] + [late] + rows[30:]
    query = QUERIES["price_down"]
    s = _session(spark, tmp_path, "streaming", lines=10)
    s.execute_sql(DDL.format(path=write_jsonl(tmp_path / "late.jsonl", with_late)))
    streaming = sorted(tuple(r[1:]) for r in s.execute_sql(query).collect())
    b = _session(spark, tmp_path, "batch")
    b.execute_sql(DDL.format(path=write_jsonl(tmp_path / "clean.jsonl", rows)))
    assert streaming == sorted(tuple(r) for r in b.execute_sql(query).collect())


def test_explain_shows_the_match_and_its_exchange(spark, tmp_path):
    s = _session(spark, tmp_path, "streaming")
    s.execute_sql(DDL.format(path=write_jsonl(tmp_path / "t.jsonl", ticker(5, 1))))
    text = s.execute_sql("EXPLAIN " + QUERIES["within"]).text
    assert "Match(partitionBy=[symbol], orderBy=[rowtime ASC]" in text
    assert "pattern=[A B* C], within=[15000ms]" in text and "after=[SKIP PAST LAST ROW]" in text
    assert "Exchange(hash[symbol], keyGroups=128)" in text and "Match -> Calc" in text


def test_a_python_function_in_define_runs_in_spark(spark, tmp_path):
    """The part of a condition that reads only the row being tested (here a Python UDF's
    call) is computed by Spark before the matcher runs."""
    rows = ticker(80, 3)
    base = QUERIES["within"]
    s = _session(spark, tmp_path, "batch")
    s.execute_sql(DDL.format(path=write_jsonl(tmp_path / "t.jsonl", rows)))
    s.execute_sql("CREATE TEMPORARY SYSTEM FUNCTION twice AS 'tests.functions.sample_udfs.twice' LANGUAGE PYTHON")
    with_udf = base.replace("B AS B.price > A.price - 3", "B AS twice(B.price) > 2 * A.price - 6")
    assert with_udf != base
    got = sorted(tuple(r) for r in s.execute_sql(with_udf).collect())
    assert got and got == sorted(tuple(r) for r in s.execute_sql(base).collect())


@pytest.mark.parametrize("query", ["price_down", "within"])
def test_one_partition_per_pass_gives_the_same_answer(spark, tmp_path, query):
    """The matcher takes a task's rows in passes of whole partitions
    (``sqlengine.match.rows-per-pass``): with one partition per pass, the answers
    streaming and batch are the ones of one pass per task."""
    path = write_jsonl(tmp_path / "ticker.jsonl", ticker(150, 5))
    one = {"sqlengine.match.rows-per-pass": "1"}
    _, streaming, batch = run_both(spark, tmp_path, DDL.format(path=path), QUERIES[query], lines_per_epoch=25, conf=one)
    _, _, whole = run_both(spark, tmp_path / "whole", DDL.format(path=path), QUERIES[query], lines_per_epoch=1000)
    assert len(whole) >= 3
    assert streaming == batch == whole


def test_a_match_over_processing_time_takes_rows_as_they_come(spark, tmp_path):
    """ORDER BY a PROCTIME() attribute: each key's rows in the order they arrive, over
    epochs of 20 lines (the epoch's time stamps them, outside the generated code: a second
    run, later, compiles no class of its own)."""
    rows = [{"k": f"k{i % 2}", "v": (i // 2) % 3} for i in range(60)]
    path = write_jsonl(tmp_path / "rows.jsonl", rows)
    query = """SELECT * FROM w MATCH_RECOGNIZE (PARTITION BY k ORDER BY p
               MEASURES A.v AS av, B.v AS bv ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW
               PATTERN (A B) DEFINE A AS A.v = 1, B AS B.v = 2)"""
    compiled = []
    for run in range(2):
        s = _session(spark, tmp_path / f"run{run}", "streaming", lines=20)
        s.execute_sql(f"CREATE TABLE r (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = '{path}', "
                      "'format' = 'json')")
        s.execute_sql("CREATE VIEW w AS SELECT *, PROCTIME() AS p FROM r")
        before = compiled_classes(spark)
        out = s.execute_sql(query).collect()
        compiled.append(compiled_classes(spark) - before)
        # each key's values run 0, 1, 2, 0, 1, 2, ...: ten (1, 2) pairs per key
        assert sorted(tuple(r) for r in out) == sorted([("+I", "k0", 1, 2)] * 10 + [("+I", "k1", 1, 2)] * 10)
    assert compiled[1] == 0, compiled
