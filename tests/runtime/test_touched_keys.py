"""An epoch reads only its keys' rows of a large state (``runtime/touched.py``), a regular
join joins each side's stored rows once (``inner_delta``), and an insert-only Top-N
logs its changes instead of rewriting its state.

The state here is small, so the tests force the narrowing (``MIN_STATE_BYTES`` = 0):
every keyed operator's epochs still equal the batch result, and in the executed plans
the state's Parquet scan is filtered by a broadcast semi join of the epoch's keys
before anything moves it. At the default threshold the same runs have no such join."""
from __future__ import annotations

import random
import re

import pytest

from sqlengine.runtime import touched
from tests.runtime.changelog_util import run_both, write_jsonl


@pytest.fixture
def tables(tmp_path):
    rnd = random.Random(5)
    orders = [{"ot": f"2024-01-01 10:{i // 4:02d}:{i % 4 * 15:02d}.000", "oid": i, "cid": rnd.choice([None, *range(9)]),
               "amount": rnd.randint(1, 60)} for i in range(60)]
    customers = [{"cid": c, "tier": rnd.choice(["gold", "basic", None])} for c in [None, *range(1, 8)]]
    src = tmp_path / "in"
    write_jsonl(src / "orders.jsonl", orders)
    write_jsonl(src / "customers.jsonl", customers)
    return f"""
    CREATE TABLE orders (ot TIMESTAMP(3), oid INT, cid INT, amount INT,
      WATERMARK FOR ot AS ot - INTERVAL '1' SECOND)
      WITH ('connector' = 'filesystem', 'path' = '{src}/orders.jsonl', 'format' = 'json');
    CREATE TABLE customers (cid INT, tier STRING)
      WITH ('connector' = 'filesystem', 'path' = '{src}/customers.jsonl', 'format' = 'json')"""


QUERIES = {
    "inner join": "SELECT o.oid, c.tier FROM orders AS o JOIN customers AS c ON o.cid = c.cid",
    "self join, both sides changing every epoch": """SELECT a.oid, b.oid FROM orders AS a JOIN orders AS b
        ON a.cid = b.cid AND a.amount < b.amount""",
    "left join": "SELECT o.oid, c.tier FROM orders AS o LEFT JOIN customers AS c ON o.cid = c.cid",
    "top-2 per key": """SELECT cid, oid, amount FROM (SELECT *, ROW_NUMBER() OVER (
        PARTITION BY cid ORDER BY amount DESC, oid) AS rn FROM orders) WHERE rn <= 2""",
    "top-2 over an updating input": """SELECT * FROM (SELECT cid, total, ROW_NUMBER() OVER (
        PARTITION BY cid % 3 ORDER BY total DESC, cid) AS rn FROM (
        SELECT cid, SUM(amount) AS total FROM orders GROUP BY cid)) WHERE rn <= 2""",
    "group by over a join (recomputed)": """SELECT tier, MIN(amount), MAX(amount), COUNT(*)
        FROM orders AS o LEFT JOIN customers AS c ON o.cid = c.cid GROUP BY tier""",
    "over": """SELECT oid, SUM(amount) OVER (PARTITION BY cid ORDER BY ot
        ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM orders""",
}

SEMI = re.compile(r"BroadcastHashJoin .*(LeftSemi|LeftAnti)")


def executed_plans(spark, run):
    """``run()``'s result, and the executed plans of every Spark action it ran."""
    store = spark._jsparkSession.sharedState().statusStore()

    def executions():
        ex = store.executionsList()
        return [ex.apply(i) for i in range(ex.size())]
    before = max((e.executionId() for e in executions()), default=-1)
    result = run()
    return result, [e.physicalPlanDescription() for e in executions() if e.executionId() > before]


def subtree(lines: list[str], i: int) -> list[str]:
    """The lines of a plan tree below line ``i``."""
    def depth(line: str) -> int:
        return len(line) - len(line.lstrip(" :|+-"))
    out = []
    for line in lines[i + 1:]:
        if depth(line) <= depth(lines[i]):
            break
        out.append(line)
    return out


def state_filters(plans: list[str]) -> int:
    """Broadcast semi/anti joins whose streamed side scans Parquet (a state table)."""
    n = 0
    for plan in plans:
        lines = plan.partition("\n\n")[0].splitlines()
        n += sum(1 for i, line in enumerate(lines)
                 if SEMI.search(line) and any("Scan parquet" in x for x in subtree(lines, i)))
    return n


@pytest.fixture
def no_auto_broadcast(spark):
    """Spark broadcasts a side it knows to be small by itself (a computed frame's size is
    known): switched off, so every broadcast in a plan is the runtime's hint."""
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")
    yield
    spark.conf.unset("spark.sql.autoBroadcastJoinThreshold")


@pytest.mark.parametrize("name", list(QUERIES))
def test_state_read_narrowed_to_the_epochs_keys(spark, tmp_path, tables, monkeypatch, no_auto_broadcast, name):
    monkeypatch.setattr(touched, "MIN_STATE_BYTES", 0)
    (changes, streamed, batch), plans = executed_plans(
        spark, lambda: run_both(spark, tmp_path, tables, QUERIES[name], lines_per_epoch=9))
    assert streamed == batch and len(batch) > 0
    assert state_filters(plans) > 0


def test_small_state_is_read_whole(spark, tmp_path, tables, no_auto_broadcast):
    """At the default threshold (16 MiB of state) nothing is weighed or broadcast."""
    (changes, streamed, batch), plans = executed_plans(
        spark, lambda: run_both(spark, tmp_path, tables, QUERIES["inner join"], lines_per_epoch=9))
    assert streamed == batch and len(batch) > 0
    assert state_filters(plans) == 0


def test_too_many_keys_are_not_broadcast(spark, tmp_path, tables, monkeypatch, no_auto_broadcast):
    """Keys above ``MAX_KEYS`` are not hinted for broadcast."""
    monkeypatch.setattr(touched, "MIN_STATE_BYTES", 0)
    monkeypatch.setattr(touched, "MAX_KEYS", 0)
    (changes, streamed, batch), plans = executed_plans(
        spark, lambda: run_both(spark, tmp_path, tables, QUERIES["top-2 per key"], lines_per_epoch=9))
    assert streamed == batch and len(batch) > 0
    assert state_filters(plans) == 0


def test_a_join_sorts_each_epochs_delta_once(spark, tmp_path, tables):
    """``ΔL ⋈ R_old ∪ L_old ⋈ ΔR ∪ ΔL ⋈ ΔR`` as two joins (``L_new ⋈ ΔR ∪ ΔL ⋈ R_old``):
    an epoch in which both sides of the self join change runs two inner joins for it, not
    three, and the stored side joined with the delta is routed as the delta is (no
    exchange of the delta twice)."""
    (changes, streamed, batch), plans = executed_plans(
        spark, lambda: run_both(spark, tmp_path, tables, QUERIES["self join, both sides changing every epoch"],
                                lines_per_epoch=9))
    assert streamed == batch and len(batch) > 0
    joins = [len(re.findall(r"(SortMergeJoin|BroadcastHashJoin|ShuffledHashJoin) Inner", p.partition("\n\n")[0]))
             for p in plans]
    assert max(joins) == 2, joins


def test_an_insert_only_top_n_logs_its_changes(spark, tmp_path, tables):
    """The Top-N's state is a log: an epoch writes what entered and left its partitions'
    top rows (a delta), not the whole table; a compaction every few epochs nets it. The
    last compacted snapshot plus the deltas after it hold each partition's top 2."""
    from pyspark.sql import functions as F
    changes, streamed, batch = run_both(spark, tmp_path, tables, QUERIES["top-2 per key"], lines_per_epoch=4)
    assert streamed == batch and len(batch) > 0
    versions = sorted(tmp_path.glob("ckpt/select-*/state/*-Rank/input/e=*"), key=lambda p: int(p.name[2:]))
    deltas = [v for v in versions if not (v / "_BASE").exists()]
    assert len(deltas) >= 3, [v.name for v in versions]  # (older versions are deleted)
    base = max((v for v in versions if (v / "_BASE").exists()), key=lambda p: int(p.name[2:]), default=None)
    read = [v for v in versions if base is None or int(v.name[2:]) >= int(base.name[2:])]
    rows = spark.read.parquet(*[str(v) for v in read]).groupBy("f1", "f2", "f3").agg(F.sum("__n").alias("n"))
    live = {(r["f2"], r["f1"], r["f3"]) for r in rows.where("n > 0").collect()}  # (ot, oid, cid, amount)
    assert rows.where("n < 0 OR n > 1").count() == 0
    assert live == {(cid, oid, amount) for cid, oid, amount in batch}
