"""Batch mode end to end: the rows of joins, subqueries, OVER, Top-N, dedup, grouping
sets, UNNEST, CTEs and set operations (Spark batch operators from runtime/ops)."""
from __future__ import annotations

import json

import pytest

from sqlengine.api.session import Session

VIEWS = """
CREATE VIEW l AS SELECT * FROM (VALUES (1, 'a', 10), (2, 'b', 20), (3, CAST(NULL AS STRING), 30), (4, 'd', 40)) AS t(id, name, v);
CREATE VIEW r AS SELECT * FROM (VALUES (1, 'x', 5), (2, 'y', 25), (2, 'z', 15), (5, 'w', 50)) AS t(id, tag, v);
CREATE VIEW n AS SELECT * FROM (VALUES (1), (CAST(NULL AS INT))) AS t(id);
CREATE VIEW arr AS SELECT * FROM (VALUES (1, ARRAY['p', 'q']), (2, ARRAY['s'])) AS t(id, tags);
"""


@pytest.fixture(scope="module")
def bs(spark):
    s = Session({"execution.runtime-mode": "batch"}, spark=spark)
    for stmt in VIEWS.strip().split(";\n"):
        s.execute_sql(stmt)
    return s


def rows(s: Session, sql: str) -> list[tuple]:
    return sorted((tuple(r) for r in s.execute_sql(sql).collect()), key=repr)


CASES = [
    ("SELECT l.id, l.name, r.tag FROM l JOIN r ON l.id = r.id", [(1, "a", "x"), (2, "b", "y"), (2, "b", "z")]),
    ("SELECT l.id, r.tag FROM l LEFT JOIN r ON l.id = r.id AND r.v > 10",
     [(1, None), (2, "y"), (2, "z"), (3, None), (4, None)]),
    ("SELECT l.id, r.id FROM l RIGHT OUTER JOIN r ON l.id = r.id", [(1, 1), (2, 2), (2, 2), (None, 5)]),
    # conjuncts over one input: below the join where that keeps the rows (rules/join_filter.py)
    ("SELECT l.id, r.tag FROM l RIGHT JOIN r ON l.id = r.id AND l.v > 10",
     [(2, "y"), (2, "z"), (None, "w"), (None, "x")]),
    ("SELECT l.id, r.tag FROM l LEFT JOIN r ON l.id = r.id WHERE l.v > 15", [(2, "y"), (2, "z"), (3, None), (4, None)]),
    ("SELECT l.id, r.tag FROM l FULL JOIN r ON l.id = r.id WHERE r.v > 10", [(2, "y"), (2, "z"), (None, "w")]),
    ("SELECT id FROM l WHERE v > 10 AND id IN (SELECT id FROM r WHERE v > 20)", [(2,)]),
    ("SELECT id FROM l WHERE NOT EXISTS (SELECT 1 FROM r WHERE r.id = l.id AND r.v > 20)", [(1,), (3,), (4,)]),
    ("SELECT id FROM l WHERE NOT EXISTS (SELECT 1 FROM r WHERE r.id = l.id AND l.v < 15)", [(2,), (3,), (4,)]),
    # columns nobody reads leave the join (rules/join_prune.py); rows equal in the rest still count
    ("SELECT r.id FROM l JOIN r ON l.id = r.id", [(1,), (2,), (2,)]),
    ("SELECT l.id, COUNT(*) FROM l LEFT JOIN r ON l.id = r.id GROUP BY l.id", [(1, 1), (2, 2), (3, 1), (4, 1)]),
    ("SELECT l.id, r.id FROM l FULL JOIN r ON l.id = r.id",
     [(1, 1), (2, 2), (2, 2), (3, None), (4, None), (None, 5)]),
    ("SELECT * FROM l JOIN r USING (id)", [(1, "a", 10, "x", 5), (2, "b", 20, "y", 25), (2, "b", 20, "z", 15)]),
    ("SELECT id, l.v, r.v FROM l FULL JOIN r USING (id)",
     [(1, 10, 5), (2, 20, 15), (2, 20, 25), (3, 30, None), (4, 40, None), (5, None, 50)]),
    ("SELECT l.id, r.tag FROM l, r WHERE l.id = r.id AND l.v < r.v", [(2, "y")]),
    ("SELECT count(*) FROM l CROSS JOIN r", [(16,)]),
    ("SELECT a.id, b.tag, c.name FROM l a JOIN r b ON a.id = b.id JOIN l c ON c.id = b.id",
     [(1, "x", "a"), (2, "y", "b"), (2, "z", "b")]),
    ("SELECT l.*, r.tag FROM l JOIN r ON l.id = r.id", [(1, "a", 10, "x"), (2, "b", 20, "y"), (2, "b", 20, "z")]),
    ("SELECT l.id, r.tag FROM l LEFT JOIN r ON l.id * 2 = r.id * 2",
     [(1, "x"), (2, "y"), (2, "z"), (3, None), (4, None)]),
    ("SELECT t.id FROM (SELECT id FROM l) t JOIN (SELECT id FROM r) u ON t.id = u.id", [(1,), (2,), (2,)]),
    # subqueries
    ("SELECT id FROM l WHERE id IN (SELECT id FROM r)", [(1,), (2,)]),
    ("SELECT id FROM l WHERE id NOT IN (SELECT id FROM r)", [(3,), (4,)]),
    ("SELECT id FROM l WHERE id NOT IN (SELECT id FROM n)", []),
    ("SELECT id FROM l WHERE EXISTS (SELECT 1 FROM r WHERE r.id = l.id AND r.v > 20)", [(2,)]),
    ("SELECT id FROM l WHERE NOT EXISTS (SELECT * FROM r WHERE r.id = l.id)", [(3,), (4,)]),
    ("SELECT id FROM l WHERE id IN (SELECT r.id FROM r WHERE r.v > l.v)", [(2,)]),
    ("SELECT id FROM l WHERE id NOT IN (SELECT r.id FROM r WHERE r.v > l.v)", [(1,), (3,), (4,)]),
    ("SELECT id, v FROM l WHERE v > (SELECT AVG(v) FROM l)", [(3, 30), (4, 40)]),
    ("SELECT id, (SELECT MAX(v) FROM r) AS m FROM l WHERE id < 3", [(1, 50), (2, 50)]),
    ("SELECT id, v FROM r WHERE v >= (SELECT MAX(v) FROM r r2 WHERE r2.id = r.id)", [(1, 5), (2, 25), (5, 50)]),
    ("SELECT id, (SELECT COUNT(*) FROM r WHERE r.id = l.id) AS c FROM l", [(1, 1), (2, 2), (3, 0), (4, 0)]),
    ("SELECT * FROM l JOIN (r JOIN n ON r.id = n.id) ON l.id = r.id", [(1, "a", 10, 1, "x", 5, 1)]),
    # CTEs, set operations
    ("WITH a AS (SELECT id, v FROM l WHERE v > 10), b AS (SELECT id FROM a WHERE v < 40) SELECT * FROM b",
     [(2,), (3,)]),
    ("SELECT DISTINCT id FROM r", [(1,), (2,), (5,)]),
    ("SELECT id FROM l INTERSECT SELECT id FROM r", [(1,), (2,)]),
    ("SELECT id FROM l EXCEPT SELECT id FROM r", [(3,), (4,)]),
    ("SELECT id FROM r INTERSECT ALL SELECT * FROM (VALUES (2), (2), (2), (1), (7)) AS t(id)", [(1,), (2,), (2,)]),
    ("SELECT id FROM r EXCEPT ALL SELECT * FROM (VALUES (2), (5)) AS t(id)", [(1,), (2,)]),
    ("SELECT id FROM l UNION SELECT id FROM r", [(1,), (2,), (3,), (4,), (5,)]),
    # OVER
    ("SELECT id, v, SUM(v) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), "
     "ROW_NUMBER() OVER (ORDER BY v DESC) FROM l", [(1, 10, 10, 4), (2, 20, 30, 3), (3, 30, 50, 2), (4, 40, 70, 1)]),
    ("SELECT id, v, SUM(v) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM l",
     [(1, 10, 10), (2, 20, 30), (3, 30, 60), (4, 40, 100)]),
    ("SELECT id, v, SUM(v) OVER (PARTITION BY id), COUNT(*) OVER () FROM r",
     [(1, 5, 5, 4), (2, 15, 40, 4), (2, 25, 40, 4), (5, 50, 50, 4)]),
    ("SELECT id, v, AVG(v) OVER (ORDER BY v RANGE BETWEEN 10 PRECEDING AND CURRENT ROW) FROM r",
     [(1, 5, 5), (2, 15, 10), (2, 25, 20), (5, 50, 50)]),
    ("SELECT id, SUM(v) OVER w, MAX(v) OVER w FROM l "
     "WINDOW w AS (ORDER BY id RANGE BETWEEN 1 PRECEDING AND CURRENT ROW)",
     [(1, 10, 10), (2, 30, 20), (3, 50, 30), (4, 70, 40)]),
    ("SELECT id, tag, v, RANK() OVER (PARTITION BY id ORDER BY v) FROM r",
     [(1, "x", 5, 1), (2, "y", 25, 2), (2, "z", 15, 1), (5, "w", 50, 1)]),
    # Top-N, dedup
    ("SELECT id, tag FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY v DESC) AS rn FROM r) WHERE rn = 1",
     [(1, "x"), (2, "y"), (5, "w")]),
    ("SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY v DESC) AS rn FROM r) "
     "WHERE rn BETWEEN 2 AND 3", [(2, "z", 15, 2)]),
    ("SELECT id, tag FROM (SELECT *, DENSE_RANK() OVER (ORDER BY id) AS rk FROM r) WHERE rk <= 2",
     [(1, "x"), (2, "y"), (2, "z")]),
    # GROUPING SETS
    ("SELECT id, name, GROUPING(id), SUM(v) FROM l WHERE id < 3 GROUP BY ROLLUP(id, name)",
     [(1, "a", 0, 10), (1, None, 0, 10), (2, "b", 0, 20), (2, None, 0, 20), (None, None, 1, 30)]),
    ("SELECT id, tag, GROUPING_ID(id, tag), COUNT(*) FROM r WHERE id = 2 GROUP BY CUBE(id, tag)",
     [(2, "y", 0, 1), (2, "z", 0, 1), (2, None, 1, 2), (None, "y", 2, 1), (None, "z", 2, 1), (None, None, 3, 2)]),
    ("SELECT id, SUM(v) FROM r GROUP BY GROUPING SETS ((id), ())", [(1, 5), (2, 40), (5, 50), (None, 95)]),
    # UNNEST
    ("SELECT id, x FROM arr CROSS JOIN UNNEST(tags) AS t(x)", [(1, "p"), (1, "q"), (2, "s")]),
    ("SELECT id, x, o FROM arr CROSS JOIN UNNEST(tags) WITH ORDINALITY AS t(x, o)",
     [(1, "p", 1), (1, "q", 2), (2, "s", 1)]),
    ("SELECT a, b FROM (VALUES (1)) AS v(k) CROSS JOIN UNNEST(ARRAY[ROW(1, 'a'), ROW(2, 'b')]) AS t(a, b)",
     [(1, "a"), (2, "b")]),
    ("SELECT k, v FROM (VALUES (1)) AS x(z) CROSS JOIN UNNEST(MAP['a', 1, 'b', 2]) AS t(k, v)", [("a", 1), ("b", 2)]),
]


@pytest.mark.parametrize("sql,expected", CASES, ids=[c[0][:70] for c in CASES])
def test_batch_rows(bs, sql, expected):
    assert rows(bs, sql) == sorted(expected, key=repr)


def test_left_join_unnest_keeps_empty_arrays(bs):
    sub = "(SELECT id, IF(id = 2, CAST(NULL AS ARRAY<STRING>), CAST(tags AS ARRAY<STRING>)) AS tags FROM arr)"
    assert rows(bs, f"SELECT id, x FROM {sub} LEFT JOIN UNNEST(tags) AS t(x) ON TRUE") == \
        [(1, "p"), (1, "q"), (2, None)]
    assert rows(bs, f"SELECT id, x FROM {sub} CROSS JOIN UNNEST(tags) AS t(x)") == [(1, "p"), (1, "q")]


# -- time-based joins in batch: interval and temporal -------------------------------------
def _write(path, rows_):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows_))


@pytest.fixture
def timed(spark, tmp_path):
    _write(tmp_path / "orders.jsonl", [
        {"id": 1, "cur": "EUR", "ts": "2024-01-01 10:00:00"},
        {"id": 2, "cur": "EUR", "ts": "2024-01-01 11:30:00"},
        {"id": 3, "cur": "USD", "ts": "2024-01-01 09:00:00"},
        {"id": 4, "cur": "JPY", "ts": "2024-01-01 12:00:00"}])
    _write(tmp_path / "rates.jsonl", [
        {"cur": "EUR", "rate": 110, "rts": "2024-01-01 09:00:00"},
        {"cur": "EUR", "rate": 120, "rts": "2024-01-01 11:00:00"},
        {"cur": "USD", "rate": 100, "rts": "2024-01-01 09:30:00"}])
    _write(tmp_path / "ships.jsonl", [
        {"order_id": 1, "sts": "2024-01-01 10:30:00"}, {"order_id": 1, "sts": "2024-01-01 15:00:00"},
        {"order_id": 2, "sts": "2024-01-01 11:00:00"}])
    s = Session({"execution.runtime-mode": "batch"}, spark=spark)
    s.execute_sql(f"""CREATE TABLE orders (id INT, cur STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
        WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/orders.jsonl', 'format' = 'json')""")
    s.execute_sql(f"""CREATE TABLE rates (cur STRING, rate INT, rts TIMESTAMP(3), WATERMARK FOR rts AS rts,
        PRIMARY KEY (cur) NOT ENFORCED)
        WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/rates.jsonl', 'format' = 'json')""")
    s.execute_sql(f"""CREATE TABLE ships (order_id INT, sts TIMESTAMP(3), WATERMARK FOR sts AS sts)
        WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/ships.jsonl', 'format' = 'json')""")
    return s


def test_batch_temporal_join_picks_the_version_valid_at_the_left_time(timed):
    sql = "SELECT o.id, r.rate FROM orders o {} JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur"
    assert rows(timed, sql.format("LEFT")) == [(1, 110), (2, 120), (3, None), (4, None)]
    assert rows(timed, sql.format("")) == [(1, 110), (2, 120)]


def test_batch_interval_join(timed):
    assert rows(timed, "SELECT o.id, s.order_id FROM orders o, ships s WHERE o.id = s.order_id "
                       "AND s.sts BETWEEN o.ts AND o.ts + INTERVAL '1' HOUR") == [(1, 1)]


def test_batch_over_range_on_time(timed):
    assert rows(timed, "SELECT id, COUNT(*) OVER (ORDER BY ts RANGE BETWEEN INTERVAL '90' MINUTE PRECEDING "
                       "AND CURRENT ROW) FROM orders") == [(1, 2), (2, 2), (3, 1), (4, 2)]


@pytest.mark.parametrize("sql, expected", [
    # an aggregate, an expression, a qualified or unselected column, an ordinal (Calcite's forms)
    ("SELECT id, COUNT(*) AS c FROM r GROUP BY id ORDER BY SUM(v) DESC LIMIT 2", [(5, 1), (2, 2)]),
    ("SELECT r.tag FROM r ORDER BY r.v", [("x",), ("z",), ("y",), ("w",)]),
    ("SELECT tag FROM r ORDER BY v DESC LIMIT 2", [("w",), ("y",)]),
    ("SELECT id, tag FROM r ORDER BY 2 DESC", [(2, "z"), (2, "y"), (1, "x"), (5, "w")]),
    ("SELECT id, tag FROM r ORDER BY MOD(v, 20), id", [(1, "x"), (2, "y"), (5, "w"), (2, "z")]),
    # an output name wins over a column of the same name
    ("SELECT -v AS v FROM r ORDER BY v LIMIT 1", [(-50,)]),
    # FETCH and OFFSET
    ("SELECT id FROM r ORDER BY v FETCH FIRST 2 ROWS ONLY", [(1,), (2,)]),
    ("SELECT tag FROM r ORDER BY v OFFSET 1 ROWS FETCH NEXT 2 ROWS ONLY", [("z",), ("y",)]),
    ("SELECT tag FROM r ORDER BY v DESC OFFSET 3 ROWS", [("x",)]),
    # an aggregate whose argument is an expression of a column that is no key
    ("SELECT id, LISTAGG(CAST(v AS STRING), ';') FROM r WHERE id = 5 GROUP BY id ORDER BY id", [(5, "50")]),
    # ORDER BY and LIMIT of a set operation
    ("SELECT id FROM l UNION ALL SELECT id FROM r ORDER BY id DESC LIMIT 3", [(5,), (4,), (3,)]),
    ("SELECT id FROM l INTERSECT SELECT id FROM r ORDER BY 1 DESC", [(2,), (1,)]),
])
def test_order_by_beyond_the_output_columns(bs, sql, expected):
    assert [tuple(r) for r in bs.execute_sql(sql).collect()] == expected


def test_order_by_in_select_distinct_names_selected_columns(bs):
    from sqlengine import errors
    with pytest.raises(errors.ValidationError, match="Expression 'v' is not in the select clause"):
        bs.execute_sql("SELECT DISTINCT tag FROM r ORDER BY v")
    with pytest.raises(errors.ValidationError, match="Ordinal out of range: 3"):
        bs.execute_sql("SELECT id, tag FROM r ORDER BY 3")


def test_create_table_as_select(bs, tmp_path):
    """Flink's CTAS: the table takes the query's columns, then the query is inserted into it."""
    bs.execute_sql(f"CREATE TABLE ctas WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/ctas', "
                   "'format' = 'json') AS SELECT id, SUM(v) AS total FROM r GROUP BY id").wait()
    assert "`total` INT" in bs.execute_sql("SHOW CREATE TABLE ctas").render()
    assert rows(bs, "SELECT * FROM ctas") == [(1, 5), (2, 40), (5, 50)]
    from sqlengine import errors
    with pytest.raises(errors.ValidationError, match="already exists"):
        bs.execute_sql("CREATE TABLE ctas WITH ('connector' = 'blackhole') AS SELECT 1")
    # Flink: IF NOT EXISTS keeps the table and still inserts the query into it
    with pytest.raises(errors.ValidationError, match="do not match"):
        bs.execute_sql("CREATE TABLE IF NOT EXISTS ctas WITH ('connector' = 'blackhole') AS SELECT 1")
