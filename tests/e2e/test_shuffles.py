"""The executed Spark plans have the exchanges the operator DAG's edges name.

Batch: for each Hash edge one ``Exchange hashpartitioning`` on the edge's keys with as
many partitions as the operator has tasks, for each Single edge one ``Exchange
SinglePartition``, for each Broadcast edge one ``BroadcastExchange``, and no other
exchange. The job is planned and lowered by the runtime itself (``Planner.plan`` /
``lower_batch``, the path INSERT and SELECT take), written to Spark's ``noop`` sink, and
its executed plan read back from Spark.

Streaming: every epoch of a streaming SELECT over the same shapes routes each Hash edge
by key group (``runtime/keygroups.py``): a projection computes ``__task`` from
``pmod(hash(<the edge's keys>), 128)`` (Flink's default max-parallelism) and one
``Exchange hashpartitioning(__task, <the operator's tasks>)`` moves the rows; a Single
edge goes to one task; every exchange in the epochs' plans (Spark's own too: partial
aggregation, state reads) has as many partitions as the operator's tasks that EXPLAIN
prints, never the key groups. The plans are read from Spark's SQL status store."""
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

TASKS = 2

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
                out[("hash", spark_columns(pn.logical, side, edge), pn.parallelism)] += 1
            elif edge.exchange:
                out[(edge.kind, ())] += 1
    return out


@pytest.fixture(scope="module")
def session(spark, tmp_path_factory):
    d = tmp_path_factory.mktemp("shuffles")
    (d / "bid.jsonl").write_text("\n".join(json.dumps(r) for r in BIDS) + "\n")
    (d / "supplier.jsonl").write_text("\n".join(json.dumps(r) for r in SUPPLIERS) + "\n")
    s = Session({"execution.runtime-mode": "batch", "parallelism.default": str(TASKS),
                 "execution.checkpointing.dir": str(d / "ckpt")}, spark=spark)
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


# -- streaming epochs ---------------------------------------------------------------------
STREAMING = [name for name in SHAPES if name not in ("order by",)]
ROUTE = re.compile(r"element_at\(\[[\d,]+\], \(?cast\(FLOOR\(\(cast\(\(pmod\(hash\((?P<keys>.*?), 42\), "
                   r"(?P<groups>\d+)\)")
TASK_EXCHANGE = re.compile(r"hashpartitioning\(__task#\d+, (?P<n>\d+)\), REPARTITION_BY_NUM")
ANY_EXCHANGE = re.compile(r"Arguments: hashpartitioning\(.*, (?P<n>\d+)\), \w+")


def top_level_args(text: str) -> list[str]:
    """``a, cast(b as bigint), c`` -> the three arguments."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return out + [cur.strip()]


def epoch_plans(session, sql: str) -> list[str]:
    """The executed plans of every Spark action the streaming SELECT's epochs ran."""
    store = session.spark._jsparkSession.sharedState().statusStore()

    def last_id() -> int:
        ex = store.executionsList()
        return max((ex.apply(i).executionId() for i in range(ex.size())), default=-1)
    # By execution id, not list position: the store keeps the last spark.sql.ui.retainedExecutions
    # (1000), so after many jobs in one process its size no longer grows.
    before = last_id()
    result = session.execute_sql(sql)
    assert result.rows, sql  # ran to the end of the bounded input
    executions = store.executionsList()
    return [executions.apply(i).physicalPlanDescription() for i in range(executions.size())
            if executions.apply(i).executionId() > before]


@pytest.mark.parametrize("shape", STREAMING)
def test_epochs_route_the_dags_hash_edges_by_key_group(session, shape):
    sql = SHAPES[shape]
    session.conf["execution.runtime-mode"] = "streaming"
    try:
        dag = session.planner().plan(parse_one(sql), sql).dag
        plans = "\n".join(epoch_plans(session, sql))
    finally:
        session.conf["execution.runtime-mode"] = "batch"
    routes = Counter(len(top_level_args(m.group("keys"))) for m in ROUTE.finditer(plans))
    assert {int(m.group("groups")) for m in ROUTE.finditer(plans)} <= {128}
    routed = Counter(int(m.group("n")) for m in TASK_EXCHANGE.finditer(plans))
    for pn in dag.nodes:
        for _, edge in pn.inputs:
            if edge.kind == "hash":
                assert routes[len(edge.keys)] > 0, (pn.label, edge, routes)
                assert routed[pn.parallelism] > 0, (pn.label, routed)
            elif edge.kind == "single":  # Spark's plan of a one-partition repartition
                assert "SinglePartition, REPARTITION_BY_NUM" in plans and pn.parallelism == 1, pn.label
    # Every hash exchange, Spark's own too, has the tasks of an operator, never the key
    # groups (the runtime's global counts of an epoch go to one partition: not a stage).
    tasks = {pn.parallelism for pn in dag.nodes}
    sizes = {int(m.group("n")) for m in ANY_EXCHANGE.finditer(plans)}
    assert sizes <= tasks, (sizes, tasks)


def batch_scans(plans: list[str]) -> list[tuple[str, bool, str]]:
    """Per scan of the micro-batch in the executed plans: the plan line above it, whether
    it is inside the definition of a persisted frame (an ``InMemoryRelation`` above it:
    a plan shows a cached frame's definition whether or not the job computes it), and the
    plan's tree. The micro-batch's rows carry the end-of-input marker (an empty state
    table's scan does not)."""
    out = []
    for plan in plans:
        tree, _, details = plan.partition("\n\n")
        batch = {m.group(1) for m in re.finditer(r"^\((\d+)\) Scan ExistingRDD.*\nOutput \[\d+\]: \[[^\]]*__eoi",
                                               details, re.M)}
        lines = tree.splitlines()
        for i, line in enumerate(lines):
            m = re.search(r"Scan ExistingRDD \((\d+)\)", line)
            if m and m.group(1) in batch:
                out.append((lines[i - 1], any("InMemoryRelation" in a for a in _ancestors(lines, i)), tree))
    return out


def _ancestors(lines: list[str], i: int) -> list[str]:
    """The lines of a plan tree above line ``i`` on its path to the root."""
    def depth(line: str) -> int:
        return len(line) - len(line.lstrip(" :|+-"))
    out, d = [], depth(lines[i])
    for line in reversed(lines[:i]):
        if depth(line) < d:
            out.append(line)
            d = depth(line)
    return out


def streaming_plans(session, sql: str):
    session.conf["execution.runtime-mode"] = "streaming"
    try:
        return session.planner().plan(parse_one(sql), sql).dag, epoch_plans(session, sql)
    finally:
        session.conf["execution.runtime-mode"] = "batch"


def test_a_forked_dag_reads_each_epochs_input_once(session):
    """Nexmark q7's shape: ``Bid`` (with its watermark) feeds a window aggregate and the
    join with that aggregate's result, so the DAG forks after the watermark assigner, not
    at the scan. The epoch's input is persisted first and every branch reads the cache:
    in every executed plan of the epochs, each scan of the micro-batch (``Scan
    ExistingRDD``) sits directly under an ``InMemoryRelation`` (without it each branch read
    and decoded the epoch's records again)."""
    sql = """SELECT b.item, b.price FROM Bid b JOIN (
        SELECT window_end, MAX(price) AS m FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime),
          INTERVAL '10' MINUTES)) GROUP BY window_start, window_end) x
        ON b.price = x.m AND b.bidtime BETWEEN x.window_end - INTERVAL '10' MINUTES AND x.window_end"""
    dag, plans = streaming_plans(session, sql)
    consumers = dag.consumers()
    assert not any(len(consumers[n.id]) > 1 for n in dag.sources()), "the fork is past the scan"
    assert any(len(c) > 1 for c in consumers.values())
    scans = batch_scans(plans)
    assert scans
    for above, _, tree in scans:
        assert "InMemoryRelation" in above, tree


def test_a_fork_after_a_stateful_operator_reads_the_batch_once_uncached(session):
    """Nexmark q5's shape: one HOP aggregate feeds both the maximum per window and the join
    with it, so the DAG forks at the window aggregate, which computes its output from the
    pending rows it persisted: both branches read those, and the epoch's input is read
    once, straight (persisting it too only built a cache no one read twice: q5 at 10M
    events, benchmarks/README.md). In the executed plans: the micro-batch is scanned once
    read only inside the definition of the window aggregate's persisted rows (no branch
    reads it outside a cache), and never itself persisted."""
    hop = ("SELECT item, COUNT(*) AS n, window_start, window_end FROM TABLE(HOP(TABLE Bid, DESCRIPTOR(bidtime), "
           "INTERVAL '2' MINUTES, INTERVAL '10' MINUTES)) GROUP BY item, window_start, window_end")
    sql = (f"SELECT a.item, a.n, a.window_end FROM ({hop}) a JOIN (SELECT MAX(n) AS m, window_start, window_end "
           f"FROM ({hop}) GROUP BY window_start, window_end) b ON a.window_start = b.window_start "
           f"AND a.window_end = b.window_end AND a.n >= b.m")
    dag, plans = streaming_plans(session, sql)
    forks = [pn for pn in dag.nodes if len(dag.consumers()[pn.id]) > 1]
    assert len(forks) == 1
    below, pn = [], forks[0]  # the fork and what is below it, down to the scan
    while pn.inputs:
        below.append(type(pn.logical).__name__)
        pn = pn.inputs[0][0]
    assert "WindowAggregate" in below, below
    scans = batch_scans(plans)
    assert scans
    for above, cached, tree in scans:
        assert "InMemoryRelation" not in above, tree  # the batch itself is not persisted
        assert cached, tree  # every read of it is the window aggregate's persisted pending rows


JOIN = re.compile(r"(SortMergeJoin|BroadcastHashJoin|ShuffledHashJoin|BroadcastNestedLoopJoin) Inner")


def inner_joins(plans: list[str]) -> list[tuple[bool, str]]:
    """Per inner join in the executed plans' trees: whether its output is what a persisted
    frame holds (an ``InMemoryRelation`` above it with no exchange in between: a consumer
    that persists its own input after its exchange does not count), and the tree."""
    out = []
    for plan in plans:
        tree = plan.partition("\n\n")[0]
        lines = tree.splitlines()
        for i, line in enumerate(lines):
            if JOIN.search(line):
                first = next((a for a in _ancestors(lines, i) if "InMemoryRelation" in a or "Exchange" in a), "")
                out.append(("InMemoryRelation" in first, tree))
    return out


def test_a_join_read_by_one_consumer_is_not_persisted(session):
    """A regular join's epoch output feeds its one consumer straight: no epoch caches it.
    Nexmark q9 joins every bid with its auction (millions of wide rows an epoch) into a
    Top-1; the cache of that output took the memory its own sorts needed, and q9 at 10M
    events failed with ``UNABLE_TO_ACQUIRE_MEMORY`` (benchmarks/README.md). In the executed
    plans of the epochs, no inner join's output is a persisted frame (the Top-N persists
    its own candidates, after its exchange)."""
    dag, plans = streaming_plans(session, SHAPES["join to top-n"])
    join = next(pn for pn in dag.nodes if type(pn.logical).__name__ == "Join")
    assert len(dag.consumers()[join.id]) == 1
    joins = inner_joins(plans)
    assert joins
    for cached, tree in joins:
        assert not cached, tree


def test_a_join_read_by_two_consumers_is_computed_once(session):
    """A join whose output two branches read (the DAG forks at its projection) is persisted
    once by the epoch (``runtime/epoch.py``): every inner join's output in the executed
    plans is a persisted frame, so the branches read the cache, not the join again."""
    j = "(SELECT b.item, b.price, s.city FROM Bid b JOIN Supplier s ON b.supplier_id = s.name)"
    sql = (f"SELECT city, COUNT(*) AS n FROM {j} GROUP BY city UNION ALL "
           f"SELECT item AS city, SUM(price) AS n FROM {j} GROUP BY item")
    dag, plans = streaming_plans(session, sql)
    forks = [pn for pn in dag.nodes if len(dag.consumers()[pn.id]) > 1]
    assert len(forks) == 1
    below, pn = [], forks[0]  # the fork (the projection of the join) and what is below it
    while pn.inputs and not below[-1:] == ["Join"]:
        below.append(type(pn.logical).__name__)
        pn = pn.inputs[0][0]
    assert below[-1] == "Join", below
    joins = inner_joins(plans)
    assert joins
    for cached, tree in joins:
        assert cached, tree
