"""Fault matrix: Kafka pipelines (into Kafka, upsert-kafka and PostgreSQL) that fail at named
points must commit exactly the expected output (nothing lost, nothing duplicated).

Each cell is one pipeline and one failure, on its own output topic or table and checkpoint,
run as real CLI processes (sqlengine/faults.py names the points):
* **kill**: a run with ``SQLENGINE_FAULT=<point>`` dies with SIGKILL the first time any of
  its processes (driver, executor task, Python worker) reaches the point (after
  ``SQLENGINE_FAULT_SKIP`` arrivals: a later epoch); the next run restores from the
  checkpoint (once Spark's offsets log holds an epoch, as the engine requires) and runs to
  the end. A cell may kill more than once: killed again while it recovers from the first
  kill (``recovering``: part of what the crash left prepared resolved, or ``restore``).
* **restart**: one run in which the point raises once (``SQLENGINE_FAULT_ACTION=raise:``);
  the job's restart strategy restarts it from its checkpoint inside the same process.
After every kill the committed output (read with ``read_committed``) must hold no
duplicates; after the last run each cell counts its own lost and duplicated records
against the expected output, computed here from the input, and reports the cell to the
session's one table of the fault matrix (tests/fault_cells.py); any non-zero cell fails the
test. (More in-process cells, into the filesystem sink: tests/runtime/test_restart.py.)
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

import pytest

from tests import fault_cells
from tests.connectors.kafka.kafka_util import new_topic, produce, read_all
from tests.e2e.conftest import ROOT, read_rows

N = 360  # input records; 120 per epoch (3 epochs)
# (pipeline, failure, [(point, arrivals to let pass first), ...]): process kills where only
# a dead process shows the hazard (a Kafka transaction left open, some writer tasks
# committed and others not, the first epoch committed by its sinks but not by Spark, a
# PostgreSQL transaction prepared, killed again while recovering from that), and restarts
# inside the process at points in executor tasks. Each CLI run costs ~10 s, so the points
# of the driver (the epoch's boundaries, a sink's commit and recovery) are failed in this
# process instead (``IN_PROCESS``), and the filesystem sink's in tests/runtime/test_restart.py.
WINDOW, UPSERT, JDBC = "window->kafka", "group-by->upsert-kafka", "join->postgresql"
WINDOW_HDFS = "window->kafka, HDFS ckpt"  # the window pipeline with its checkpoint on HDFS
WINDOW_FS = "window->filesystem"  # the window pipeline into the two-phase filesystem sink
# Each kill cell costs two or three CLI runs: a cell whose points another cell passes too is
# left out (a kill at kafka-produced alone: the kafka-plan cell kills there; at after-meta of
# the upsert pipeline: its group-offsets cell does; a filesystem kill after-sink: the upsert
# pipeline's is one), and so are in-process failures at after-sink / after-meta (killed here
# and failed in tests/runtime/test_restart.py), to keep the suite in its CI budget.
CELLS = [
    (WINDOW, "kill", [("kafka-txn-begun", 1), ("kafka-committed", 0)]),
    (WINDOW, "kill", [("kafka-plan", 1), ("kafka-produced", 0), ("recovering", 0)]),
    (WINDOW, "restart", [("kafka-read", 0)]),
    (UPSERT, "kill", [("after-sink", 0)]),
    (UPSERT, "kill", [("source-commit", 1)]), (UPSERT, "kill", [("group-offsets", 0), ("after-meta", 1), ("restore", 0)]),
    (JDBC, "kill", [("jdbc-committing", 0)]), (JDBC, "kill", [("jdbc-prepared", 0), ("recovering", 0)]),
    (JDBC, "restart", [("jdbc-written", 0)]), (WINDOW_HDFS, "kill", [("after-meta", 0)]),
    # a writer task staged its file (uncommitted), then killed again while recovery removes it
    (WINDOW_FS, "kill", [("file-staged", 0), ("recovering", 0)]),
]
IN_PROCESS = [
    (WINDOW, "state-read", 1), (UPSERT, "recovery", 0), (UPSERT, "recovering", 0), (UPSERT, "epoch-start", 1),
    (JDBC, "jdbc-committed", 1), (WINDOW_HDFS, "state-write", 1),
]


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
        'properties.group.id' = 'fm-{dst}',
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
WINDOW_FS_SQL = """
CREATE TABLE bids (id BIGINT, item STRING, price INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'kafka', 'topic' = '{src}', 'properties.bootstrap.servers' = '{bs}',
        'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE `out` (item STRING, window_start TIMESTAMP(3), n BIGINT, total BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '{dst}', 'format' = 'json');
INSERT INTO `out` SELECT item, window_start, COUNT(*), SUM(price)
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY item, window_start, window_end;
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


def _files_output(folder: Path) -> Counter:
    return Counter(json.dumps(r, sort_keys=True) for r in read_rows(folder))


def _staged(folder: Path) -> list:
    """The filesystem sink's staged files (written by its tasks, not yet published)."""
    return list(folder.glob(".staging/*.inprogress"))


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


def _run(script: Path, ckpt: str, restore: bool, fault: str | None = None, skip: int = 0,
         action: str | None = None) -> subprocess.CompletedProcess:
    args = [sys.executable, "-m", "shell.cli", "-D", "spark.master=local[2]", "-f", str(script),
            "-D", f"execution.checkpointing.dir={ckpt}", "-D", "pipeline.job-id=matrix",
            "-D", "sqlengine.kafka.max-rows-per-epoch=120", "-D", "parallelism.default=2"]
    if restore:
        args += ["-D", f"execution.state-recovery.path={ckpt}/matrix"]
    if action is not None:
        args += ["-D", "restart-strategy.type=fixed-delay", "-D", "restart-strategy.fixed-delay.delay=0 s"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SQLENGINE_FAULT")}
    if fault is not None:
        env.update(SQLENGINE_FAULT=fault, SQLENGINE_FAULT_SKIP=str(skip))
        if action is not None:
            env["SQLENGINE_FAULT_ACTION"] = action
    # its own session: the fault kills the CLI's process group, not pytest's
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, start_new_session=True, env=env,
                          timeout=600)


def _planned(ckpt: str) -> bool:
    """Spark's offsets log holds an epoch: the checkpoint must be restored (its sinks may
    have committed that epoch), not started afresh."""
    from sqlengine.runtime import fs
    return any(f.rsplit("/", 1)[1].isdigit() for f in fs.glob(f"{ckpt}/matrix", "*/offsets/*"))


def _checkpoints(pipeline: str, tmp: Path, hdfs) -> str:
    """Where a cell's checkpoints go: on HDFS for its pipeline, else in the test's folder."""
    return f"{hdfs.url}/{tmp.name}" if pipeline == WINDOW_HDFS else str(tmp)


def _target(number: int, pipeline: str, inputs: dict, bs: str, tmp: Path, pg):
    """The cell's script (its own output topic, table or folder) and a reader of its committed output."""
    sql, _, output = PIPELINES[pipeline]
    if pipeline == WINDOW_FS:
        dst = tmp / f"out-{number}"
        return sql.format(src=inputs["bids"], dst=dst, bs=bs), lambda: output(dst)
    if pipeline == JDBC:  # Kafka -> join -> PostgreSQL
        dst = pg.new_table("id bigint, label text, price int")
        script_sql = sql.format(src=inputs["bids"], dim=inputs["items"], dst=dst, bs=bs, jdbc_url=pg.jdbc_url)
        return script_sql, lambda: output(pg, dst)
    dst = new_topic(bs, 2)
    return sql.format(src=inputs["bids"], dst=dst, bs=bs), lambda: output(bs, dst)


def _cell(number: int, pipeline: str, failure: str, points: list, inputs: dict, bs: str, tmp: Path, pg,
          hdfs) -> tuple:
    """Run one cell as CLI processes; returns (expected, committed) output."""
    _, expected, output = PIPELINES[pipeline]
    script_sql, read = _target(number, pipeline, inputs, bs, tmp, pg)
    script = tmp / f"cell-{number}.sql"
    script.write_text(script_sql)
    ckpt = f"{_checkpoints(pipeline, tmp, hdfs)}/ckpt-{number}"
    if failure == "restart":
        (point, skip), = points
        folder = tmp / f"faults-{number}"
        folder.mkdir()
        res = _run(script, ckpt, False, point, skip, f"raise:{folder}")
        assert res.returncode == 0, f"{pipeline} {point}: {res.stderr[-2000:]}"
        assert (folder / f"raised-{point}").exists(), f"{pipeline}: the failure at {point} was not injected"
    else:
        for point, skip in points:
            res = _run(script, ckpt, _planned(ckpt), point, skip)
            assert res.returncode == -signal.SIGKILL, \
                f"{pipeline}: the run with fault {point} was not killed (rc {res.returncode}): {res.stderr[-1500:]}"
            if output is not _upsert_output:  # an upsert topic's history may repeat a key
                assert not (read() - expected), f"{pipeline} {point}: committed records repeated or unexpected"
            if pipeline == WINDOW_FS and point in ("file-staged", "recovering"):
                assert _staged(tmp / f"out-{number}"), f"{point}: a staged, uncommitted file is left"
        res = _run(script, ckpt, _planned(ckpt))
        assert res.returncode == 0, f"{pipeline} {points}: {res.stderr[-2000:]}"
        if pipeline == WINDOW_FS:
            assert not _staged(tmp / f"out-{number}"), "recovery removed the staged files of the killed runs"
    return expected, read()


def _in_process_cell(number: int, pipeline: str, point: str, skip: int, inputs: dict, bs: str, tmp: Path, pg,
                     hdfs, spark, monkeypatch) -> tuple:
    """One cell run in this process: the point raises once, the restart strategy restarts the
    job from its checkpoint; (expected, committed) output."""
    from sqlengine.api.session import Session
    _, expected, _ = PIPELINES[pipeline]
    script_sql, read = _target(number, pipeline, inputs, bs, tmp, pg)
    folder = tmp / f"faults-{number}"
    folder.mkdir()
    monkeypatch.setenv("SQLENGINE_FAULT", point)
    monkeypatch.setenv("SQLENGINE_FAULT_SKIP", str(skip))
    monkeypatch.setenv("SQLENGINE_FAULT_ACTION", f"raise:{folder}")
    session = Session({"execution.checkpointing.dir": f"{_checkpoints(pipeline, tmp, hdfs)}/ckpt-{number}",
                       "pipeline.job-id": "matrix",
                       "execution.runtime-mode": "streaming", "sqlengine.kafka.max-rows-per-epoch": "120",
                       "parallelism.default": "2", "restart-strategy.type": "fixed-delay",
                       "restart-strategy.fixed-delay.delay": "0 s"}, spark=spark)
    statements = [st for st in script_sql.split(";") if st.strip()]
    for st in statements[:-1]:
        session.execute_sql(st)
    job = session.execute_sql(statements[-1]).job.wait(300)
    assert (folder / f"raised-{point}").exists(), f"{pipeline}: the failure at {point} was not injected"
    assert job.restarts == 1
    return expected, read()


PIPELINES = {WINDOW: (WINDOW_SQL, _window_expected(_bids()), _window_output),
             UPSERT: (UPSERT_SQL, _upsert_expected(_bids()), _upsert_output),
             JDBC: (JOIN_SQL, _join_expected(_bids()), _table_output),
             WINDOW_HDFS: (WINDOW_SQL, _window_expected(_bids()), _window_output),
             WINDOW_FS: (WINDOW_FS_SQL, _window_expected(_bids()), _files_output)}


@pytest.fixture(scope="module")
def inputs(kafka_bootstrap) -> dict:
    bs = kafka_bootstrap
    src, dim = new_topic(bs, 2), new_topic(bs, 1)
    produce(bs, src, [{"value": b, "partition": i % 2} for i, b in enumerate(_bids())])
    produce(bs, dim, [{"value": d} for d in ITEMS])
    return {"bids": src, "items": dim}


def _report(node, cells: list, results: list) -> list:
    """Report each cell to the session's fault matrix; the cells with records lost or duplicated."""
    bad = []
    for (pipeline, failure, points), (expected, got) in zip(cells, results):
        where = " then ".join(f"{p}" + (f" ({s})" if s else "") for p, s in points)
        cell = fault_cells.report(node, failure, where, pipeline, expected, got)
        if cell.lost or cell.duplicated:
            bad.append(cell)
    return bad


def test_kafka_pipelines_killed_or_failed_in_their_tasks_stay_exact(kafka_bootstrap, postgres, hdfs, spark, inputs,
                                                                     tmp_path, request):
    # The cells run side by side (separate outputs, checkpoints and transactional ids): much
    # of a run is JVM start-up and waiting on the broker.
    with ThreadPoolExecutor(max_workers=3) as pool:
        futures = [pool.submit(_cell, i, pipeline, failure, points, inputs, kafka_bootstrap, tmp_path, postgres, hdfs)
                   for i, (pipeline, failure, points) in enumerate(CELLS)]
        results = [f.result() for f in futures]
    bad = _report(request.node, CELLS, results)
    assert postgres.run("SELECT count(*) FROM pg_prepared_xacts") == [(0,)]
    assert not bad, bad


def test_kafka_pipelines_failed_on_their_driver_restart_and_stay_exact(spark, kafka_bootstrap, postgres, hdfs,
                                                                       inputs, tmp_path, monkeypatch, request):
    results = [_in_process_cell(i, pipeline, point, skip, inputs, kafka_bootstrap, tmp_path, postgres, hdfs, spark,
                                monkeypatch) for i, (pipeline, point, skip) in enumerate(IN_PROCESS)]
    cells = [(pipeline, "restart", [(point, skip)]) for pipeline, point, skip in IN_PROCESS]
    bad = _report(request.node, cells, results)
    points = {p for _, _, ps in CELLS for p, _ in ps} | {p for _, p, _ in IN_PROCESS}
    assert len(points) >= 18, sorted(points)  # and 4 more in tests/runtime/test_restart.py
    assert not bad, bad
