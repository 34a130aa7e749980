"""The executed Spark plan has exactly the shuffles the operator DAG names.

Stateful shapes are checked in batch mode: a streaming job runs them per epoch in the
epoch runtime (sqlengine/runtime/streaming), whose per-epoch Spark plans are not yet
derived from the DAG's exchanges."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from sqlengine.dialect import parse_one
from sqlengine.physical.dag import build_dag
from sqlengine.runtime.lower import Lowerer, drop_eoi
from sqlengine.session import Session

DATA = Path(__file__).resolve().parents[1] / "conformance" / "flink" / "cases"
BID = DATA / "docs_tumble_window" / "input" / "bid.jsonl"
CLICKS = DATA / "union_all" / "input"

DDL = f"""
CREATE TABLE Bid (bidtime TIMESTAMP(3), price DECIMAL(10, 2), item STRING, supplier_id STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '{BID}', 'format' = 'json');
CREATE TABLE A (user_name STRING, url STRING, ctime TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = '{CLICKS}/clicks_a.jsonl', 'format' = 'json');
CREATE TABLE B (user_name STRING, url STRING, ctime TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = '{CLICKS}/clicks_b.jsonl', 'format' = 'json');
"""

SHAPES = {
    "stateless chain": ("streaming", "SELECT item, price * 2 AS p FROM Bid WHERE price > 10"),
    "window aggregation": ("batch", "SELECT window_start, item, SUM(price) FROM TABLE(TUMBLE(TABLE Bid, "
                                        "DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end, item"),
    "unbounded aggregation": ("batch", "SELECT item, COUNT(*) FROM Bid GROUP BY item"),
    "union all": ("streaming", "SELECT user_name, url FROM A UNION ALL SELECT user_name, url FROM B"),
    "batch order by": ("batch", "SELECT item, price FROM Bid ORDER BY price DESC"),
    "batch group by": ("batch", "SELECT item, COUNT(DISTINCT supplier_id) FROM Bid GROUP BY item"),
}

EXCHANGE = re.compile(r"\bExchange (hashpartitioning|SinglePartition|rangepartitioning|RoundRobinPartitioning)")


def spark_shuffles(jplan) -> int:
    return len(EXCHANGE.findall(jplan.toString()))


@pytest.mark.parametrize("shape", list(SHAPES))
def test_shuffles_match_the_dag(spark, tmp_path, shape):
    mode, sql = SHAPES[shape]
    session = Session({"execution.runtime-mode": mode, "execution.checkpointing.dir": str(tmp_path)}, spark=spark)
    session.execute_sql(DDL)
    plan = session.binder(sql).bind_query(parse_one(sql))
    dag = build_dag([plan], session.streaming, 2, 8)
    runner = session.runner()
    state = runner.state("shape")
    df = drop_eoi(Lowerer(state).lower(plan)).df
    if df.isStreaming:
        query = df.writeStream.format("noop").option("checkpointLocation", str(tmp_path / "q")) \
            .outputMode("append").trigger(availableNow=True).start()
        query.awaitTermination()
        jplan = query._jsq.streamingQuery().lastExecution().executedPlan()
    else:
        df.write.format("noop").mode("overwrite").save()
        jplan = df._jdf.queryExecution().executedPlan()
    assert spark_shuffles(jplan) == len(dag.exchanges()), f"{dag.exchanges()}\n{jplan.toString()}"
