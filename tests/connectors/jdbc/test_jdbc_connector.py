"""The jdbc connector against a real PostgreSQL: append and upsert sinks under each
delivery guarantee, exactly-once replays, recovery of prepared transactions, scans
(partitioned, batch and streaming) and lookups; secrets never print."""
from __future__ import annotations

import pytest

from sqlengine.errors import SqlEngineError
from sqlengine.api.session import Session


@pytest.fixture
def session(spark, tmp_path):
    return Session({"execution.checkpointing.dir": str(tmp_path / "ck"), "parallelism.default": "2"}, spark=spark)


def test_append_sink_batch_and_types(session, postgres):
    t = postgres.new_table("id int, name text, price numeric(10,2), ts timestamp, d date, tm time, "
                           "b bytea, ok boolean, f double precision, tags text[]")
    session.execute_sql(postgres.ddl("`out`", t, "id INT, name STRING, price DECIMAL(10, 2), ts TIMESTAMP(3), "
                                     "d DATE, tm TIME, b BYTES, ok BOOLEAN, f DOUBLE, tags ARRAY<STRING>"))
    session.execute_sql(
        "INSERT INTO `out` VALUES (1, 'a''b \"q\"', 12.5, TIMESTAMP '2024-01-02 03:04:05.678', DATE '2024-02-29', "
        "TIME '10:11:12', CAST('AB' AS BYTES), TRUE, 1.5, ARRAY['x', 'y']), "
        "(2, CAST(NULL AS STRING), NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)").wait()
    rows = postgres.run(f"SELECT id, name, price::text, ts::text, d::text, tm::text, b, ok, f, tags FROM {t} ORDER BY id")
    assert rows == [(1, 'a\'b "q"', "12.50", "2024-01-02 03:04:05.678", "2024-02-29", "10:11:12", b"AB", True, 1.5,
                     ["x", "y"]),
                    (2, None, None, None, None, None, None, None, None, None)]
    # and read back through a jdbc source, the same values
    session.execute_sql("SET 'execution.runtime-mode' = 'batch'")
    session.execute_sql(postgres.ddl("back", t, "id INT, name STRING, price DECIMAL(10, 2), ts TIMESTAMP(3), "
                                     "d DATE, tm TIME, b BYTES, ok BOOLEAN, f DOUBLE, tags ARRAY<STRING>"))
    got = session.execute_sql("SELECT id, name, price, CAST(ts AS STRING), CAST(d AS STRING), CAST(tm AS STRING), "
                              "b, ok, f, tags FROM back ORDER BY id").collect()
    assert list(got[0]) == [1] + \
        ['a\'b "q"', __import__("decimal").Decimal("12.50"), "2024-01-02 03:04:05.678", "2024-02-29", "10:11:12",
         b"AB", True, 1.5, ["x", "y"]]
    assert list(got[1]) == [2] + [None] * 9


SRC = ("CREATE TABLE src (id BIGINT, item STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '300', "
       "'rows-per-second' = '100000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', "
       "'fields.id.end' = '300', 'fields.item.length' = '1')")


@pytest.mark.parametrize("guarantee", ["at-least-once", "exactly-once"])
def test_updating_query_into_upsert_table(session, postgres, guarantee):
    """GROUP BY with HAVING: counts go up (updates) and then out (deletes) of the result."""
    t = postgres.new_table("bucket bigint PRIMARY KEY, n bigint, total bigint")
    session.execute_sql("SET 'sqlengine.source.max-rows-per-epoch' = '70'")
    session.execute_sql(SRC)
    session.execute_sql(postgres.ddl("`out`", t, "bucket BIGINT, n BIGINT, total BIGINT, PRIMARY KEY (bucket) NOT ENFORCED",
                                     f", 'sink.delivery-guarantee' = '{guarantee}'"))
    session.execute_sql("INSERT INTO `out` SELECT id % 7, COUNT(*), SUM(id) FROM src GROUP BY id % 7 "
                        "HAVING COUNT(*) < 43 OR id % 7 = 0").wait()
    expected = {}
    for b in range(7):
        ids = [i for i in range(1, 301) if i % 7 == b]
        if len(ids) < 43 or b == 0:
            expected[b] = (len(ids), sum(ids))
    assert {r[0]: (r[1], r[2]) for r in postgres.run(f"SELECT * FROM {t}")} == expected
    assert len(expected) < 7  # some buckets were inserted, then deleted
    markers = postgres.run("SELECT count(*) FROM sqlengine_sink_epochs") if guarantee == "exactly-once" else [(0,)]
    assert (markers[0][0] > 0) == (guarantee == "exactly-once")
    assert postgres.run("SELECT count(*) FROM pg_prepared_xacts") == [(0,)]


def test_exactly_once_replay_and_recovery(session, postgres, spark):
    """A replayed epoch writes nothing; transactions a crash left prepared are rolled back at start."""
    import psycopg

    from connectors.base import Options, SinkContext
    from connectors.jdbc.factory import JDBC
    from sqlengine.types import BIGINT, STRING
    t = postgres.new_table("id bigint, s text")
    options = {"url": postgres.jdbc_url, "table-name": t, "username": postgres.user, "password": postgres.password,
               "sink.delivery-guarantee": "exactly-once"}

    def sink():
        ctx = SinkContext(spark, True, 2, "out", [("id", BIGINT()), ("s", STRING())], Options("jdbc", options),
                          False, sink_id="op-out", writer_tasks=4)
        return JDBC.sink(ctx)

    df = spark.range(100).selectExpr("id", "CAST(id AS STRING) AS s")
    first = sink()
    first.write_epoch(df, 1, "query-a")
    first.write_epoch(df, 1, "query-a")  # a replay of epoch 1: nothing more
    assert postgres.run(f"SELECT count(*), sum(id) FROM {t}") == [(100, 4950)]
    # A crash after prepare: a transaction with the sink's id stays prepared, holding rows.
    c = psycopg.connect(postgres.url)
    key = first._sink_key()  # the sink's identity in PostgreSQL: its statement's sink and its table
    xid = f"sqlengine:{key}:query-a:2:0"
    c.tpc_begin(xid)
    c.execute(f"INSERT INTO {t} VALUES (1000, 'ghost')")
    c.execute(f"UPDATE sqlengine_sink_epochs SET epoch = 2 WHERE sink = '{key}' AND query = 'query-a' AND task = 0")
    c.tpc_prepare()
    c.close()
    assert postgres.run("SELECT gid FROM pg_prepared_xacts") == [(xid,)]
    restarted = sink()  # a new run: recovery rolls it back before the first epoch
    restarted.open("query-a")
    assert postgres.run("SELECT count(*) FROM pg_prepared_xacts") == [(0,)]
    restarted.write_epoch(df.where("id < 10"), 2, "query-a")
    assert postgres.run("SELECT count(*) FROM pg_prepared_xacts") == [(0,)]
    assert postgres.run(f"SELECT count(*), sum(id) FROM {t}") == [(110, 4950 + 45)]
    assert postgres.run(f"SELECT count(*) FROM {t} WHERE s = 'ghost'") == [(0,)]


def test_job_start_recovers_a_sink_that_gets_no_rows(session, postgres):
    """Every run of a job opens its sinks before writing (the runtime at its first epoch):
    what a crashed run left prepared is rolled back even when this run writes no row."""
    import psycopg

    from connectors.jdbc.pg import gid
    src = postgres.new_table("id bigint")
    out = postgres.new_table("id bigint")
    postgres.run(f"INSERT INTO {src} SELECT g FROM generate_series(1, 5) g")
    session.execute_sql(postgres.ddl("src", src, "id BIGINT"))
    session.execute_sql(postgres.ddl("`out`", out, "id BIGINT", ", 'sink.delivery-guarantee' = 'exactly-once'"))
    insert = "INSERT INTO `out` SELECT id FROM src WHERE id > 0"
    sinks = "SELECT DISTINCT sink FROM sqlengine_sink_epochs"
    before = set(postgres.run(sinks)) if postgres.run("SELECT to_regclass('sqlengine_sink_epochs')")[0][0] else set()
    session.execute_sql(insert).wait()
    assert postgres.run(f"SELECT count(*) FROM {out}") == [(5,)]
    ((sink_id,),) = set(postgres.run(sinks)) - before
    postgres.run(f"DELETE FROM {src}")
    c = psycopg.connect(postgres.url)  # what a run killed between prepare and commit leaves
    c.tpc_begin(gid(sink_id, "killed-run", 3, 0))
    c.execute(f"INSERT INTO {out} VALUES (99)")
    c.tpc_prepare()
    c.close()
    session.execute_sql(insert).wait()  # the same statement, the same sink: no rows this time
    assert postgres.run("SELECT count(*) FROM pg_prepared_xacts") == [(0,)]
    assert postgres.run(f"SELECT count(*) FROM {out}") == [(5,)]


def test_partitioned_and_streaming_scans(session, postgres):
    t = postgres.new_table("id int PRIMARY KEY, v text")
    postgres.run(f"INSERT INTO {t} SELECT g, 'v' || g FROM generate_series(1, 1000) g")
    session.execute_sql(postgres.ddl("pt", t, "id INT, v STRING", ", 'scan.partition.column' = 'id', "
                                     "'scan.partition.num' = '3', 'scan.partition.lower-bound' = '1', "
                                     "'scan.partition.upper-bound' = '1000'"))
    rows = session.execute_sql("SELECT id, v FROM pt").collect()  # streaming: a bounded source, ends by itself
    assert sorted((r[1], r[2]) for r in rows) == [(i, f"v{i}") for i in range(1, 1001)]
    session.execute_sql("SET 'execution.runtime-mode' = 'batch'")
    assert [list(r) for r in session.execute_sql("SELECT COUNT(*), SUM(id) FROM pt").collect()] == [[1000, 500500]]
    plan = session.execute_sql("EXPLAIN SELECT * FROM pt").render()
    assert "TableSourceScan(table=[[default_catalog, default_database, pt]]" in plan and postgres.password not in plan


def test_errors_and_secrets(session, postgres):
    t = postgres.new_table("k bigint, n bigint")
    session.execute_sql(SRC)
    session.execute_sql(postgres.ddl("nokey", t, "k BIGINT, n BIGINT"))
    with pytest.raises(SqlEngineError, match="please declare primary key for sink table"):
        session.execute_sql("INSERT INTO nokey SELECT id % 3, COUNT(*) FROM src GROUP BY id % 3").wait()
    shown = session.execute_sql("SHOW CREATE TABLE nokey").render()
    assert postgres.password not in shown and "******" in shown
    session.execute_sql("CREATE TABLE my (k BIGINT) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mysql://h/db', "
                        "'table-name' = 'x')")
    with pytest.raises(SqlEngineError, match="the 'mysql' database is not supported"):
        session.execute_sql("INSERT INTO my VALUES (1)").wait()
    session.execute_sql("CREATE TABLE down (k BIGINT) WITH ('connector' = 'jdbc', "
                        "'url' = 'jdbc:postgresql://127.0.0.1:1/postgres', 'table-name' = 'x', "
                        "'username' = 'u', 'password' = 'topsecret', 'connection.max-retry-timeout' = '2s')")
    with pytest.raises(SqlEngineError) as err:
        session.execute_sql("INSERT INTO down VALUES (1)").wait()
    assert "Could not connect to PostgreSQL at jdbc:postgresql://127.0.0.1:1/postgres" in str(err.value)
    assert "topsecret" not in str(err.value)


def test_lookup_join_reads_the_table_as_it_is(session, postgres, tmp_path, monkeypatch):
    """``JOIN dim FOR SYSTEM_TIME AS OF o.proc``: each epoch joins the table's rows as they are
    when it runs. The job pauses before its second epoch while the test renames every row."""
    import threading
    dim = postgres.new_table("id bigint PRIMARY KEY, name text")
    postgres.run(f"INSERT INTO {dim} SELECT g, 'n' || g FROM generate_series(0, 4) g")
    out = postgres.new_table("id bigint, name text")
    session.execute_sql("SET 'sqlengine.source.max-rows-per-epoch' = '50'")
    session.execute_sql("CREATE TABLE orders (id BIGINT, cid AS id % 7, proc AS PROCTIME()) WITH ("
                        "'connector' = 'datagen', 'number-of-rows' = '100', 'rows-per-second' = '100000', "
                        "'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '99')")
    assert "*PROCTIME*" in session.execute_sql("DESCRIBE orders").render()
    session.execute_sql(postgres.ddl("dim", dim, "id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED"))
    session.execute_sql(postgres.ddl("`out`", out, "id BIGINT, name STRING"))
    pause = tmp_path / "pause"
    pause.mkdir()
    monkeypatch.setenv("SQLENGINE_FAULT", "epoch-start")
    monkeypatch.setenv("SQLENGINE_FAULT_ACTION", f"pause:{pause}")
    monkeypatch.setenv("SQLENGINE_FAULT_SKIP", "1")  # the second epoch
    errors = []

    def run():
        try:
            session.execute_sql("INSERT INTO `out` SELECT o.id, d.name FROM orders AS o LEFT JOIN dim "
                                "FOR SYSTEM_TIME AS OF o.proc AS d ON o.cid = d.id").wait()
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    job = threading.Thread(target=run)
    job.start()
    while not (pause / "reached").exists() and job.is_alive():
        job.join(0.05)
    postgres.run(f"UPDATE {dim} SET name = 'm' || id")
    (pause / "resume").touch()
    job.join()
    assert not errors
    rows = sorted(postgres.run(f"SELECT id, name FROM {out}"))
    assert len(rows) == 100
    first = {i for i, n in rows if n is not None and n.startswith("n")}
    assert first and all(i < min(j for j, n in rows if n is not None and n.startswith("m")) for i in first)
    assert all(n is None for i, n in rows if i % 7 > 4)
    assert all(n[1:] == str(i % 7) for i, n in rows if n is not None)
