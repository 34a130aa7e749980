"""The executed Spark plan has exactly the exchanges the operator DAG's edges name: for
each Hash edge one ``Exchange hashpartitioning`` on the edge's keys with as many
partitions as key groups, for each Single edge one ``Exchange SinglePartition``, for
each Broadcast edge one ``BroadcastExchange``, and no other exchange.

The job is planned and lowered by the runtime itself (``Planner.plan`` / ``lower_batch``, the
path INSERT and SELECT take), in batch mode, written to Spark's ``noop`` sink, and its
executed plan read back from Spark."""
from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from sqlengine.dialect import parse_one
from sqlengine.plan import nodes as P
from sqlengine.hidden import drop_eoi
from sqlengine.runtime.execute import lower_batch
from sqlengine.api.session import Session

KEY_GROUPS = 8

BIDS = [{"bidtime": f"2020-04-15 08:{m:02d}:00", "price": p, "item": i, "supplier_id": s}
        for m, p, i, s in [(5, 4, "C", "s1"), (7, 2, "A", "s2"), (9, 5, "D", "s1"), (11, 3, "B", "s3"),
                           (13, 1, "E", "s2"), (17, 6, "F", "s3")]]
SUPPLIERS = [{"name": "s1", "city": "Oslo"}, {"name": "s2", "city": "Rome"}, {"name": "s3", "city": "Oslo"}]

SHAPES = {
    "unbounded aggregation": "SELECT item, COUNT(*) AS n, SUM(price) AS s FROM Bid GROUP BY item",
    "global aggregation": "SELECT COUNT(*) AS n, MAX(price) AS m FROM Bid",
    "count distinct": "SELECT item, COUNT(DISTINCT supplier_id) AS n FROM Bid GROUP BY item",
    "group by over group by": "SELECT n, COUNT(*) AS c FROM (SELECT item, COUNT(*) AS n FROM Bid GROUP BY item) "
                              "GROUP BY n",
    "tumble window": "SELECT window_start, item, SUM(price) AS s FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), "
                     "INTERVAL '10' MINUTES)) GROUP BY window_start, window_end, item",
    "session window": "SELECT window_start, item, COUNT(*) AS n FROM TABLE(SESSION(TABLE Bid PARTITION BY item, "
                      "DESCRIPTOR(bidtime), INTERVAL '5' MINUTES)) GROUP BY window_start, window_end, item",
    "inner join": "SELECT b.item, s.city FROM Bid b JOIN Supplier s ON b.supplier_id = s.name",
    "left join with residual": "SELECT b.item, s.city FROM Bid b LEFT JOIN Supplier s "
                               "ON b.supplier_id = s.name AND b.price > 2",
    "join to top-n": "SELECT * FROM (SELECT item, city, price, ROW_NUMBER() OVER (PARTITION BY city "
                     "ORDER BY price DESC) AS rn FROM Bid b JOIN Supplier s ON b.supplier_id = s.name) WHERE rn <= 1",
    "deduplication": "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY supplier_id ORDER BY bidtime) AS rn "
                     "FROM Bid) WHERE rn = 1",
    "over rows": "SELECT item, SUM(price) OVER (PARTITION BY supplier_id ORDER BY bidtime "
                 "ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s FROM Bid",
    "order by": "SELECT item, price FROM Bid ORDER BY price DESC",
    "stateless chain": "SELECT item, price * 2 AS p FROM Bid WHERE price > 2",
}

EXCHANGE = re.compile(r"Exchange (hashpartitioning\((?P<keys>.*?), (?P<n>\d+)\)|SinglePartition)"
                      r"|(?P<bc>BroadcastExchange)")


def spark_exchanges(plan: str) -> Counter:
    out = Counter()
    for m in EXCHANGE.finditer(plan):
        if m.group("bc"):
            out[("broadcast", ())] += 1
        elif m.group("keys") is not None:
            cols = tuple(re.sub(r"#\d+L?$", "", k.strip()) for k in m.group("keys").split(","))
            out[("hash", cols, int(m.group("n")))] += 1
        else:
            out[("single", ())] += 1
    return out


def spark_columns(node: P.Node, side: int, edge) -> tuple[str, ...]:
    """The Spark columns an edge's keys are lowered to (every operator's output is f0..;
    a join's right side continues the left's numbering; a window aggregate's window
    bounds follow its input's columns)."""
    if isinstance(node, P.WindowAggregate) and node.window.kind != "SESSION":
        width = len(node.input.schema)
        return tuple(f"f{k}" for k in node.keys) + (f"f{width}", f"f{width + 1}")
    offset = len(node.left.schema) if isinstance(node, P.Join) and side == 1 else 0
    return tuple(f"f{offset + k}" for k in edge.keys)


def dag_exchanges(dag) -> Counter:
    out = Counter()
    for pn in dag.nodes:
        for side, (_, edge) in enumerate(pn.inputs):
            if edge.kind == "hash":
                out[("hash", spark_columns(pn.logical, side, edge), KEY_GROUPS)] += 1
            elif edge.exchange:
                out[(edge.kind, ())] += 1
    return out


@pytest.fixture(scope="module")
def session(spark, tmp_path_factory):
    d = tmp_path_factory.mktemp("shuffles")
    (d / "bid.jsonl").write_text("\n".join(json.dumps(r) for r in BIDS) + "\n")
    (d / "supplier.jsonl").write_text("\n".join(json.dumps(r) for r in SUPPLIERS) + "\n")
    s = Session({"execution.runtime-mode": "batch", "parallelism.default": "2",
                 "pipeline.max-parallelism": str(KEY_GROUPS)}, spark=spark)
    s.execute_sql(f"""
        CREATE TABLE Bid (bidtime TIMESTAMP(3), price DECIMAL(10, 2), item STRING, supplier_id STRING,
          WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND)
          WITH ('connector' = 'filesystem', 'path' = '{d / "bid.jsonl"}', 'format' = 'json')""")
    s.execute_sql(f"""
        CREATE TABLE Supplier (name STRING, city STRING)
          WITH ('connector' = 'filesystem', 'path' = '{d / "supplier.jsonl"}', 'format' = 'json')""")
    return s


@pytest.mark.parametrize("shape", list(SHAPES))
def test_executed_plan_has_the_dags_exchanges(session, shape):
    sql = SHAPES[shape]
    dag = session.planner().plan(parse_one(sql), sql).dag
    df = drop_eoi(lower_batch(session.runner().context("shape"), dag)[0]).df
    df.write.format("noop").mode("overwrite").save()
    executed = df._jdf.queryExecution().executedPlan().toString()
    shown = "\n".join(line for line in executed.splitlines() if "Exchange" in line)
    assert spark_exchanges(executed) == dag_exchanges(dag), shown


def test_shapes_cover_joins_and_top_n(session):
    """The list above exercises every kind of edge, a join and a Top-N."""
    kinds = Counter()
    for sql in SHAPES.values():
        for pn in session.planner().plan(parse_one(sql), sql).dag.nodes:
            kinds[type(pn.logical).__name__] += 1
            kinds.update(e.kind for _, e in pn.inputs)
    assert kinds["Join"] >= 3 and kinds["Rank"] >= 2 and kinds["hash"] >= 12 and kinds["single"] >= 2
