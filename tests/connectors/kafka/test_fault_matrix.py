"""Crash matrix: Kafka pipelines killed with SIGKILL at named points, restarted from their
checkpoint, must commit exactly the expected output (nothing lost, nothing duplicated).

Each pipeline runs as a chain of real CLI processes on one checkpoint: run k is started
with ``SQLENGINE_FAULT=<point k>`` (sqlengine/runtime/faults.py) and dies with SIGKILL the
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

POINTS = ["recovery", "epoch-start", "kafka-read", "state-write", "before-sink", "kafka-produced",
          "kafka-committed", "after-sink", "after-meta", "source-commit"]
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
CREATE TABLE out (item STRING, window_start TIMESTAMP(3), n BIGINT, total BIGINT)
  WITH ('connector' = 'kafka', 'topic' = '{dst}', 'properties.bootstrap.servers' = '{bs}', 'format' = 'json',
        'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'fm-{dst}');
INSERT INTO out SELECT item, window_start, COUNT(*), SUM(price)
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY item, window_start, window_end;
"""

UPSERT_SQL = """
CREATE TABLE bids (id BIGINT, item STRING, price INT, ts TIMESTAMP(3))
  WITH ('connector' = 'kafka', 'topic' = '{src}', 'properties.bootstrap.servers' = '{bs}',
        'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE totals (item STRING, n BIGINT, total BIGINT, PRIMARY KEY (item) NOT ENFORCED)
  WITH ('connector' = 'upsert-kafka', 'topic' = '{dst}', 'properties.bootstrap.servers' = '{bs}',
        'key.format' = 'json', 'value.format' = 'json',
        'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'fm-{dst}');
INSERT INTO totals SELECT item, COUNT(*), SUM(price) FROM bids GROUP BY item;
"""


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


def _chain(name: str, sql: str, expected: Counter, output, bs: str, tmp: Path, matrix: dict) -> None:
    src, dst = new_topic(bs, 2), new_topic(bs, 2)
    bids = _bids()
    produce(bs, src, [{"value": b, "partition": i % 2} for i, b in enumerate(bids)])
    script = tmp / f"{name}.sql"
    script.write_text(sql.format(src=src, dst=dst, bs=bs))
    ckpt = tmp / f"ckpt-{name}"
    started = False
    for point in POINTS:
        res = _run(script, ckpt, started, point)
        assert res.returncode == -signal.SIGKILL, \
            f"{name}: the run with fault {point} was not killed (rc {res.returncode}): {res.stderr[-1500:]}"
        started = started or (ckpt / "matrix").exists() and any((ckpt / "matrix").glob("*/commits/*"))
        # window results are final once committed: none may be repeated or unexpected (an
        # upsert topic's history may repeat a key; its final table is checked at the end)
        got = output(bs, dst)
        matrix[(name, point)] = [0, sum((got - expected).values()) if output is _window_output else 0]
    res = _run(script, ckpt, started, None)
    assert res.returncode == 0, res.stderr[-2000:]
    got = output(bs, dst)
    lost = sum((expected - got).values())
    duplicated = sum((got - expected).values())
    for point in POINTS:
        matrix[(name, point)][0] += lost
        matrix[(name, point)][1] += duplicated


def test_kafka_pipelines_survive_sigkill_at_every_point(kafka_bootstrap, tmp_path):
    matrix: dict = {}
    bids = _bids()
    chains = [("window->kafka", WINDOW_SQL, _window_expected(bids), _window_output),
              ("group-by->upsert-kafka", UPSERT_SQL, _upsert_expected(bids), _upsert_output)]
    # The two chains run side by side (separate topics, checkpoints and transactional ids):
    # much of a run is JVM start-up and waiting on the broker.
    with ThreadPoolExecutor(max_workers=len(chains)) as pool:
        for done in [pool.submit(_chain, *c, kafka_bootstrap, tmp_path, matrix) for c in chains]:
            done.result()
    matrix = {k: matrix[k] for c in chains for k in [(c[0], p) for p in POINTS]}
    lines = [f"{'pipeline':24s} {'kill point':16s} {'lost':>5s} {'duplicated':>10s}"]
    lines += [f"{p:24s} {k:16s} {lost:5d} {dup:10d}" for (p, k), (lost, dup) in matrix.items()]
    print("\n" + "\n".join(lines))
    assert len(matrix) >= 20
    assert all(v == [0, 0] for v in matrix.values()), "\n".join(lines)
