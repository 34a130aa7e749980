"""Crash matrix: Kafka pipelines (into Kafka, upsert-kafka and PostgreSQL) killed with SIGKILL at named points, restarted from their
checkpoint, must commit exactly the expected output (nothing lost, nothing duplicated).

Each pipeline runs as a chain of real CLI processes on one checkpoint: run k is started
with ``SQLENGINE_FAULT=<point k>`` (sqlengine/faults.py) and dies with SIGKILL the
first time any of its processes (driver, executor task, Python worker) reaches that point;
run k+1 restores from the checkpoint with the next point; a last run without a fault
finishes the bounded input. After every kill the committed output (read with
``read_committed``) is checked for duplicates; after the last run it must equal the
expected output exactly. The matrix (pipeline x point -> lost, duplicated) is printed;
any non-zero cell fails the test.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.connectors.kafka.kafka_util import new_topic, produce, read_all
from tests.e2e.conftest import ROOT

# Kill points (sqlengine/faults.py) per pipeline, 20 distinct ones across the three:
# reading (planning offsets, reading records), updating state (reading, writing), writing
# (a Kafka transaction begun, produced, committed; PostgreSQL rows written, prepared, one
# task committed, all committed), the runtime's epoch boundaries (start, before and after
# the sinks, epoch recorded, source committed, consumer-group offsets, the end of input),
# and recovery itself (a sink resolving open transactions, a job restoring its checkpoint).
# A point only reachable after an epoch was committed comes after one that commits. Each
# CLI run costs ~11 s of start-up, so a point is exercised in one pipeline only, except
# recovery (each sink resolves what its own crash left).
WINDOW_POINTS = ["kafka-plan", "kafka-read", "state-write", "kafka-txn-begun", "kafka-produced",
                 "kafka-committed", "state-read", "end-of-input"]
UPSERT_POINTS = ["recovery", "epoch-start", "before-sink", "after-sink", "after-meta", "group-offsets",
                 "source-commit", "restore"]
JDBC_POINTS = ["recovery", "jdbc-written", "jdbc-prepared", "jdbc-committing", "jdbc-committed"]
N = 360  # input records; 120 per epoch (3 epochs)


def _bids():
    # one record per 2 s of event time: 30 per 1-minute window, 12 windows
    return [{"id": i, "item": f"i{i % 4}", "price": i % 37, "ts": f"2024-01-01 10:{i * 2 // 60:02d}:{i * 2 % 60:02d}"}
            for i in range(N)]


WINDOW_SQL = """
CREATE TABLE bids (id BIGINT, item STRING, price INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'kafka', 'topic' = '{src}', 'properties.bootstrap.servers' = '{bs}',
        'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE `out` (item STRING, window_start TIMESTAMP(3), n BIGINT, total BIGINT)
  WITH ('connector' = 'kafka', 'topic' = '{dst}', 'properties.bootstrap.servers' = '{bs}', 'format' = 'json',
        'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'fm-{dst}');
INSERT INTO `out` SELECT item, window_start, COUNT(*), SUM(price)
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY item, window_start, window_end;
"""

UPSERT_SQL = """
CREATE TABLE bids (id BIGINT, item STRING, price INT, ts TIMESTAMP(3))
  WITH ('connector' = 'kafka', 'topic' = '{src}', 'properties.bootstrap.servers' = '{bs}',
        'properties.group.id' = 'fm-{src}',
        'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE totals (item STRING, n BIGINT, total BIGINT, PRIMARY KEY (item) NOT ENFORCED)
  WITH ('connector' = 'upsert-kafka', 'topic' = '{dst}', 'properties.bootstrap.servers' = '{bs}',
        'key.format' = 'json', 'value.format' = 'json',
        'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'fm-{dst}');
INSERT INTO totals SELECT item, COUNT(*), SUM(price) FROM bids GROUP BY item;
"""


JOIN_SQL = """
CREATE TABLE bids (id BIGINT, item STRING, price INT, ts TIMESTAMP(3))
  WITH ('connector' = 'kafka', 'topic' = '{src}', 'properties.bootstrap.servers' = '{bs}',
        'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE items (item STRING, label STRING)
  WITH ('connector' = 'kafka', 'topic' = '{dim}', 'properties.bootstrap.servers' = '{bs}',
        'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE sold (id BIGINT, label STRING, price INT)
  WITH ('connector' = 'jdbc', 'url' = '{jdbc_url}', 'table-name' = '{dst}', 'username' = 'postgres',
        'sink.delivery-guarantee' = 'exactly-once');
INSERT INTO sold SELECT b.id, i.label, b.price FROM bids AS b JOIN items AS i ON b.item = i.item;
"""
ITEMS = [{"item": f"i{k}", "label": f"label-{k}"} for k in range(3)]  # i3 has no label: its bids drop


def _window_expected(bids) -> Counter:
    per: dict = {}
    for b in bids:
        key = (b["item"], b["ts"][:16] + ":00")
        n, t = per.get(key, (0, 0))
        per[key] = (n + 1, t + b["price"])
    return Counter(json.dumps({"item": i, "window_start": w, "n": n, "total": t}, sort_keys=True)
                   for (i, w), (n, t) in per.items())


def _window_output(bs: str, topic: str) -> Counter:
    return Counter(json.dumps(json.loads(v), sort_keys=True) for _, _, _, v, _ in read_all(bs, topic))


def _upsert_expected(bids) -> Counter:
    per: dict = {}
    for b in bids:
        n, t = per.get(b["item"], (0, 0))
        per[b["item"]] = (n + 1, t + b["price"])
    return Counter(json.dumps({"item": i, "n": n, "total": t}, sort_keys=True) for i, (n, t) in per.items())


def _upsert_output(bs: str, topic: str) -> Counter:
    """The upsert topic's final table (last value per key; tombstones delete)."""
    table: dict = {}
    for _, _, key, value, _ in read_all(bs, topic):
        k = json.loads(key)["item"]
        if value is None:
            table.pop(k, None)
        else:
            table[k] = {"item": k, **json.loads(value)}
    return Counter(json.dumps(v, sort_keys=True) for v in table.values())


def _join_expected(bids) -> Counter:
    labels = {d["item"]: d["label"] for d in ITEMS}
    return Counter((b["id"], labels[b["item"]], b["price"]) for b in bids if b["item"] in labels)


def _table_output(pg, table: str) -> Counter:
    return Counter(pg.run(f"SELECT id, label, price FROM {table}"))


def _run(script: Path, ckpt: Path, restore: bool, fault: str | None) -> subprocess.CompletedProcess:
    args = [sys.executable, "-m", "shell.cli", "-D", "spark.master=local[2]", "-f", str(script),
            "-D", f"execution.checkpointing.dir={ckpt}", "-D", "pipeline.job-id=matrix",
            "-D", "sqlengine.kafka.max-rows-per-epoch=120", "-D", "parallelism.default=2"]
    if restore:
        args += ["-D", f"execution.state-recovery.path={ckpt / 'matrix'}"]
    env = {k: v for k, v in os.environ.items() if k not in ("SQLENGINE_FAULT", "SQLENGINE_FAULT_PGID")}
    if fault is not None:
        env["SQLENGINE_FAULT"] = fault
    # its own session: the fault kills the CLI's process group, not pytest's
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, start_new_session=True, env=env,
                          timeout=600)


def _chain(name: str, sql: str, expected: Counter, output, bs: str, tmp: Path, matrix: dict,
           points: list[str], pg=None) -> None:
    src = new_topic(bs, 2)
    bids = _bids()
    produce(bs, src, [{"value": b, "partition": i % 2} for i, b in enumerate(bids)])
    if pg is not None:  # Kafka -> join -> PostgreSQL
        dim = new_topic(bs, 1)
        produce(bs, dim, [{"value": d} for d in ITEMS])
        dst = pg.new_table("id bigint, label text, price int")
        script_sql = sql.format(src=src, dim=dim, dst=dst, bs=bs, jdbc_url=pg.jdbc_url)
        read = lambda: output(pg, dst)  # noqa: E731
    else:
        dst = new_topic(bs, 2)
        script_sql = sql.format(src=src, dst=dst, bs=bs)
        read = lambda: output(bs, dst)  # noqa: E731
    script = tmp / f"{name}.sql"
    script.write_text(script_sql)
    ckpt = tmp / f"ckpt-{name}"
    started = False
    final_only = output is _upsert_output
    for point in points:
        res = _run(script, ckpt, started, point)
        assert res.returncode == -signal.SIGKILL, \
            f"{name}: the run with fault {point} was not killed (rc {res.returncode}): {res.stderr[-1500:]}"
        started = started or (ckpt / "matrix").exists() and any((ckpt / "matrix").glob("*/commits/*"))
        # committed results are final: none may be repeated or unexpected (an upsert topic's
        # history may repeat a key; its final table is checked at the end)
        got = read()
        matrix[(name, point)] = [0, 0 if final_only else sum((got - expected).values())]
    res = _run(script, ckpt, started, None)
    assert res.returncode == 0, res.stderr[-2000:]
    got = read()
    lost = sum((expected - got).values())
    duplicated = sum((got - expected).values())
    for point in points:
        matrix[(name, point)][0] += lost
        matrix[(name, point)][1] += duplicated
    if pg is not None:
        assert pg.run("SELECT count(*) FROM pg_prepared_xacts") == [(0,)]


def test_kafka_pipelines_survive_sigkill_at_every_point(kafka_bootstrap, postgres, tmp_path):
    matrix: dict = {}
    bids = _bids()
    chains = [("window->kafka", WINDOW_SQL, _window_expected(bids), _window_output, WINDOW_POINTS, None),
              ("group-by->upsert-kafka", UPSERT_SQL, _upsert_expected(bids), _upsert_output, UPSERT_POINTS, None),
              ("join->postgresql", JOIN_SQL, _join_expected(bids), _table_output, JDBC_POINTS, postgres)]
    # The chains run side by side (separate topics, tables, checkpoints and transactional
    # ids): much of a run is JVM start-up and waiting on the broker.
    with ThreadPoolExecutor(max_workers=len(chains)) as pool:
        for done in [pool.submit(_chain, name, sql, exp, out, kafka_bootstrap, tmp_path, matrix, points, pg)
                     for name, sql, exp, out, points, pg in chains]:
            done.result()
    matrix = {k: matrix[k] for c in chains for k in [(c[0], p) for p in c[4]]}
    lines = [f"{'pipeline':24s} {'kill point':16s} {'lost':>5s} {'duplicated':>10s}"]
    lines += [f"{p:24s} {k:16s} {lost:5d} {dup:10d}" for (p, k), (lost, dup) in matrix.items()]
    print("\n" + "\n".join(lines))
    assert len({k for _, k in matrix}) >= 20
    assert all(v == [0, 0] for v in matrix.values()), "\n".join(lines)
