"""Joins, Top-N, deduplication and OVER in the epoch runtime, over several epochs (7
input lines each): the materialized changelog equals the batch result of the same SQL."""
from __future__ import annotations

import random

import pytest

from tests.runtime.changelog_util import run_both, write_jsonl


@pytest.fixture
def tables(tmp_path):
    rnd = random.Random(11)
    orders = [{"ot": f"2024-01-01 10:{i // 4:02d}:{i % 4 * 15:02d}.000", "oid": i, "cid": rnd.randint(0, 7),
               "amount": rnd.randint(1, 60)} for i in range(48)]
    rates = [{"rt": f"2024-01-01 10:{i * 2:02d}:00.000", "cid": c, "rate": rnd.randint(1, 5)}
             for i in range(6) for c in range(0, 7, 2)]
    rates.sort(key=lambda r: r["rt"])
    customers = [{"cid": c, "tier": rnd.choice(["gold", "basic", None])} for c in range(1, 7)]
    src = tmp_path / "in"
    write_jsonl(src / "orders.jsonl", orders)
    write_jsonl(src / "rates.jsonl", rates)
    write_jsonl(src / "customers.jsonl", customers)
    return f"""
    CREATE TABLE orders (ot TIMESTAMP(3), oid INT, cid INT, amount INT,
      WATERMARK FOR ot AS ot - INTERVAL '1' SECOND)
      WITH ('connector' = 'filesystem', 'path' = '{src}/orders.jsonl', 'format' = 'json');
    CREATE TABLE rates (rt TIMESTAMP(3), cid INT, rate INT, PRIMARY KEY (cid) NOT ENFORCED,
      WATERMARK FOR rt AS rt - INTERVAL '1' SECOND)
      WITH ('connector' = 'filesystem', 'path' = '{src}/rates.jsonl', 'format' = 'json');
    CREATE TABLE customers (cid INT, tier STRING)
      WITH ('connector' = 'filesystem', 'path' = '{src}/customers.jsonl', 'format' = 'json')"""


QUERIES = {
    "inner join of an updating input": """SELECT o.cid, c.tier, o.total FROM
        (SELECT cid, SUM(amount) AS total FROM orders GROUP BY cid) AS o JOIN customers AS c ON o.cid = c.cid""",
    "left join with residual predicate": """SELECT o.oid, c.tier FROM orders AS o
        LEFT JOIN customers AS c ON o.cid = c.cid AND o.amount > 20""",
    "full join": "SELECT o.oid, c.cid FROM orders AS o FULL JOIN customers AS c ON o.cid = c.cid",
    "not exists": """SELECT c.cid FROM customers AS c WHERE NOT EXISTS
        (SELECT 1 FROM orders AS o WHERE o.cid = c.cid AND o.amount > 55)""",
    "group by over left join (min/max under retraction)": """SELECT tier, MIN(amount), MAX(amount), COUNT(*)
        FROM orders AS o LEFT JOIN customers AS c ON o.cid = c.cid GROUP BY tier""",
    "top-3 per group": """SELECT cid, oid, amount, rn FROM (SELECT *, ROW_NUMBER() OVER (
        PARTITION BY cid ORDER BY amount DESC, oid) AS rn FROM orders) WHERE rn <= 3""",
    "top-2 over an updating input": """SELECT * FROM (SELECT cid, total, ROW_NUMBER() OVER (
        ORDER BY total DESC, cid) AS rn FROM (SELECT cid, SUM(amount) AS total FROM orders GROUP BY cid))
        WHERE rn <= 2""",
    "deduplicate keep last": """SELECT oid, cid FROM (SELECT *, ROW_NUMBER() OVER (
        PARTITION BY cid ORDER BY ot DESC) AS rn FROM orders) WHERE rn = 1""",
    "interval join": """SELECT a.oid, b.oid FROM orders AS a JOIN orders AS b ON a.cid = b.cid
        AND b.ot BETWEEN a.ot AND a.ot + INTERVAL '2' MINUTE""",
    "over rows": """SELECT oid, SUM(amount) OVER (PARTITION BY cid ORDER BY ot
        ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM orders""",
    "over range": """SELECT oid, COUNT(*) OVER (PARTITION BY cid ORDER BY ot
        RANGE BETWEEN INTERVAL '3' MINUTE PRECEDING AND CURRENT ROW) FROM orders""",
    "over lag": """SELECT oid, LAG(amount) OVER (PARTITION BY cid ORDER BY ot),
        LAG(amount, 2, -1) OVER (PARTITION BY cid ORDER BY ot) FROM orders""",
    "window top-2": """SELECT * FROM (SELECT window_start, cid, amount, ROW_NUMBER() OVER (
        PARTITION BY window_start, window_end ORDER BY amount DESC, cid) AS rn
        FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ot), INTERVAL '3' MINUTE))) WHERE rn <= 2""",
}


@pytest.mark.parametrize("name", list(QUERIES))
def test_streaming_materializes_to_batch(spark, tmp_path, tables, name):
    changes, streamed, batch = run_both(spark, tmp_path, tables, QUERIES[name])
    assert streamed == batch and len(batch) > 0
    if name.startswith(("interval", "over", "window")):
        assert {c[0] for c in changes} == {"+I"}, "fires on the watermark: insert-only"


def test_event_time_temporal_join(spark, tmp_path, tables):
    q = """SELECT o.oid, o.amount * r.rate FROM orders AS o
           JOIN rates FOR SYSTEM_TIME AS OF o.ot AS r ON o.cid = r.cid"""
    changes, streamed, _ = run_both(spark, tmp_path, tables, q)
    assert {c[0] for c in changes} == {"+I"}
    # expected: each order with the rate version valid at its time (computed here)
    import json
    rates = [json.loads(l) for l in (tmp_path / "in" / "rates.jsonl").read_text().splitlines()]
    orders = [json.loads(l) for l in (tmp_path / "in" / "orders.jsonl").read_text().splitlines()]
    want = {}
    for o in orders:
        valid = [r for r in rates if r["cid"] == o["cid"] and r["rt"] <= o["ot"]]
        if valid:
            r = max(valid, key=lambda r: r["rt"])
            key = (o["oid"], o["amount"] * r["rate"])
            want[key] = want.get(key, 0) + 1
    assert dict(streamed) == want


def test_state_is_stored_by_key_group(spark, tmp_path, tables):
    """Every row of a keyed operator's state carries its key group ``__kg`` =
    ``pmod(hash(key), max-parallelism)`` (8 here), computed from the operator's key as
    its exchange hashes it: a LEFT join (state ``left`` keyed by orders.cid, ``right`` by
    customers.cid) feeding a GROUP BY tier over its updates (``acc``, its signed sums,
    keyed by its key column), at parallelism 2. The join keeps only the columns read
    above it (rules/join_prune.py): orders (oid, cid), customers (cid, tier); the GROUP BY
    reads (oid, tier)."""
    from pyspark.sql import functions as F
    q = """SELECT tier, COUNT(*), SUM(o.oid) FROM orders AS o LEFT JOIN customers AS c ON o.cid = c.cid GROUP BY tier"""
    _, streamed, batch = run_both(spark, tmp_path, tables, q, lines_per_epoch=20,
                                  conf={"pipeline.max-parallelism": "8", "parallelism.default": "2"})
    assert streamed == batch and len(batch) > 1
    keys = {"left": ["f1"], "right": ["f0"], "acc": ["f0"]}
    seen = {}
    for version in tmp_path.glob("ckpt/select-*/state/*/*/e=*"):
        files = list(version.glob("*.parquet"))
        assert not [p for p in version.iterdir() if p.is_dir()], version  # no partition folders
        cols = keys[version.parent.name]
        for f in files:
            rows = spark.read.parquet(str(f))
            wrong = rows.where(F.col("__kg") != F.pmod(F.hash(*cols), F.lit(8)))
            assert wrong.count() == 0, f
            groups = {r[0] for r in rows.select("__kg").distinct().collect()}
            seen.setdefault(version.parent.name, set()).update(groups)
    assert set(seen) == set(keys), seen
    assert all(g <= set(range(8)) for g in seen.values()) and len(seen["left"]) > 1, seen


def test_interval_join_state_is_cleaned_by_the_watermark(spark, tmp_path, tables):
    """Once the watermark passes ``l.time + upper`` a left row can match no later right
    row (a right row: ``r.time - lower``): compaction drops it, so state stays bounded
    by the interval, not by the input. 24 epochs of 2 rows: state is compacted twice."""
    q = QUERIES["interval join"]
    changes, streamed, batch = run_both(spark, tmp_path, tables, q, lines_per_epoch=2)
    assert streamed == batch and len(batch) > 0
    snapshots = {}
    for side in ("left", "right"):
        bases = sorted(tmp_path.glob(f"ckpt/select-*/state/*/{side}/e=*/_BASE"),
                       key=lambda p: int(p.parent.name[2:]))
        assert bases, f"no compacted {side} state"
        snapshots[side] = spark.read.parquet(str(bases[-1].parent)).count()
    # 48 orders over 12 minutes, 2 minutes of reach: a compacted side keeps a few minutes' rows
    assert 0 < snapshots["left"] < 20 and 0 < snapshots["right"] < 20, snapshots


def _state_tables(tmp_path) -> dict[str, set[str]]:
    """Operator (its kind) -> the names of its state tables, over the streaming run's checkpoint."""
    found: dict[str, set[str]] = {}
    for table in tmp_path.glob("ckpt/select-*/state/*/*"):
        if table.parent.name.startswith("_") or table.name.startswith("_"):
            continue
        found.setdefault(table.parent.name.split("-", 1)[1], set()).add(table.name)
    return found


COUNTS = """SELECT cid, COUNT(*) AS n, window_start AS ws, window_end AS we
    FROM TABLE(HOP(TABLE orders, DESCRIPTOR(ot), INTERVAL '1' MINUTE, INTERVAL '3' MINUTE))
    GROUP BY cid, window_start, window_end"""


@pytest.mark.parametrize("name,query", [
    ("Nexmark q5's shape: the maximum per window joined with the counts", f"""
        SELECT c.cid, c.n, c.we FROM ({COUNTS}) AS c JOIN
        (SELECT MAX(n) AS maxn, ws, we FROM ({COUNTS}) GROUP BY ws, we) AS m
        ON c.ws = m.ws AND c.we = m.we AND c.n >= m.maxn"""),
    ("window top-2 over a window aggregation", f"""
        SELECT * FROM (SELECT cid, n, we, ROW_NUMBER() OVER (PARTITION BY ws, we ORDER BY n DESC, cid) AS rn
        FROM ({COUNTS})) WHERE rn <= 2"""),
])
def test_windows_already_fired_wait_in_no_state(spark, tmp_path, tables, name, query):
    """An operator on windows that a window aggregation below has fired (the cascaded
    MAX, the window join, the window Top-N): its input watermark is that aggregation's,
    so every row's window closes on arrival and nothing is kept for a later epoch. No
    state table is written for it (a Spark job per table and epoch saved); only the
    HOP aggregation keeps its slices. The answer is the batch one, over 8 epochs."""
    changes, streamed, batch = run_both(spark, tmp_path, tables, query, lines_per_epoch=6)
    assert streamed == batch and len(batch) > 3
    assert {c[0] for c in changes} == {"+I"}
    assert _state_tables(tmp_path) == {"WindowAggregate": {"slices"}}, _state_tables(tmp_path)


def test_windows_of_a_slower_input_wait(spark, tmp_path, tables):
    """A window join of two window aggregations over inputs whose watermarks differ:
    the join's watermark is the slower one's, so the faster side's fired windows are
    not closed at the join yet: they wait in its state (the shortcut above does not
    apply) and the answer is still the batch one."""
    q = """SELECT o.cid, o.n, r.top, o.we FROM
        (SELECT cid, COUNT(*) AS n, window_start AS ws, window_end AS we
         FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ot), INTERVAL '2' MINUTE)) GROUP BY cid, window_start, window_end) AS o
        JOIN
        (SELECT cid, MAX(rate) AS top, window_start AS ws, window_end AS we
         FROM TABLE(TUMBLE(TABLE rates, DESCRIPTOR(rt), INTERVAL '2' MINUTE)) GROUP BY cid, window_start, window_end) AS r
        ON o.cid = r.cid AND o.ws = r.ws AND o.we = r.we"""
    changes, streamed, batch = run_both(spark, tmp_path, tables, q, lines_per_epoch=4)
    assert streamed == batch and len(batch) > 3
    assert {c[0] for c in changes} == {"+I"}
    tables_of = _state_tables(tmp_path)
    assert tables_of.get("WindowJoin"), tables_of
    waited = [v for side in tables_of["WindowJoin"] for v in tmp_path.glob(f"ckpt/select-*/state/*-WindowJoin/{side}/e=*")
              if spark.read.parquet(str(v)).count() > 0]
    assert waited, "no fired window waited for the slower input"


def test_a_two_source_join_learns_its_watermarks_in_one_spark_job(spark, tmp_path, tables, monkeypatch):
    """An event-time join over two sources whose watermarks are not known yet when the
    epoch starts reads them from one action over both sides' rows (a union of their counts,
    ``EpochContext.settle``), not one Spark job per side."""
    from sqlengine.runtime.context import EpochContext
    sc = spark.sparkContext
    tracker, real, calls = sc.statusTracker(), EpochContext.settle, []

    def settle(self, *frames):
        group = sc.getLocalProperty("spark.jobGroup.id")
        before = set(tracker.getJobIdsForGroup(group))
        real(self, *frames)
        calls.append((len(frames), len(set(tracker.getJobIdsForGroup(group)) - before)))
    monkeypatch.setattr(EpochContext, "settle", settle)
    q = """SELECT o.oid, o.amount * r.rate FROM orders AS o
           JOIN rates FOR SYSTEM_TIME AS OF o.ot AS r ON o.cid = r.cid"""
    changes, streamed, batch = run_both(spark, tmp_path, tables, q)
    assert streamed == batch and len(batch) > 3
    counted = [jobs for n, jobs in calls if n == 2 and jobs]
    assert len(counted) >= 2 and set(counted) == {1}, calls
