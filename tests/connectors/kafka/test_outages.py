"""Outages of the real components a job writes to, at exact points of a run (the job is
paused there by ``SQLENGINE_FAULT_ACTION=pause:<dir>``, sqlengine/faults.py):

* the Kafka broker restarts between two epochs: the job carries on and its exactly-once
  output is exact;
* PostgreSQL goes down while the driver commits an epoch's prepared transactions (one
  committed, one not): the job fails with one error line naming PostgreSQL; after the
  server is back, rerunning the script from the checkpoint completes the epoch (the
  committed task's rows are not written again), and the table is exact.

With a restart strategy the same outages need nobody (jobs run in this process, so the
test reads their restart count and exception history):

* the broker is stopped while the job runs (not paused) and stays down while the job fails
  twice (its reads time out); started again, the restarted job finishes exactly;
* PostgreSQL goes down during the commit and is back before the strategy's backoff ends:
  the job restarts once, from its checkpoint, and completes the epoch on its own.
"""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from tests import fault_cells
from tests.connectors.kafka.kafka_util import new_topic, produce, read_all
from tests.e2e.conftest import ROOT, commits


def _cli(script: Path, ckpt: Path, restore: bool, env_extra: dict) -> subprocess.Popen:
    args = [sys.executable, "-m", "shell.cli", "-D", "spark.master=local[2]", "-f", str(script),
            "-D", f"execution.checkpointing.dir={ckpt}", "-D", "pipeline.job-id=outage",
            "-D", "sqlengine.source.max-rows-per-epoch=100", "-D", "parallelism.default=2"]
    if restore:
        args += ["-D", f"execution.state-recovery.path={ckpt / 'outage'}"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SQLENGINE_FAULT")}
    env.update(env_extra)
    return subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _paused(folder: Path, point: str, skip: int = 0) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    return {"SQLENGINE_FAULT": point, "SQLENGINE_FAULT_ACTION": f"pause:{folder}", "SQLENGINE_FAULT_SKIP": str(skip)}


def _wait_reached(proc: subprocess.Popen, folder: Path) -> None:
    done = threading.Event()
    while not (folder / "reached").exists():
        if proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"the job ended before the pause point: {err[-2000:]}")
        done.wait(0.05)


@pytest.fixture(scope="module")
def own_broker(tmp_path_factory):
    """A broker of this module's own: the test restarts it."""
    from tests.connectors.kafka.broker import Broker
    broker = Broker(tmp_path_factory.mktemp("kafka-outage")).start()
    try:
        yield broker
    finally:
        broker.stop()


def test_broker_restart_mid_run_loses_and_duplicates_nothing(own_broker, tmp_path, request):
    bs = own_broker.bootstrap
    src, dst = new_topic(bs, 2), new_topic(bs, 2)
    records = [{"id": i, "item": f"i{i % 3}"} for i in range(300)]
    produce(bs, src, [{"value": r, "partition": i % 2} for i, r in enumerate(records)])
    script = tmp_path / "job.sql"
    script.write_text(f"""
CREATE TABLE src (id BIGINT, item STRING) WITH ('connector' = 'kafka', 'topic' = '{src}',
  'properties.bootstrap.servers' = '{bs}', 'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE dst (id BIGINT, item STRING) WITH ('connector' = 'kafka', 'topic' = '{dst}',
  'properties.bootstrap.servers' = '{bs}', 'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once',
  'sink.transactional-id-prefix' = 'outage-{dst}');
INSERT INTO dst SELECT id, item FROM src WHERE id % 5 <> 0;
""")
    pause = tmp_path / "pause"
    proc = _cli(script, tmp_path / "ck", False, _paused(pause, "epoch-start", skip=1))  # before epoch 2
    _wait_reached(proc, pause)
    own_broker.restart()
    (pause / "resume").touch()
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-2000:]
    got = Counter(v for _, _, _, v, _ in read_all(bs, dst))
    import json
    expected = Counter(json.dumps(r, separators=(",", ":")) for r in records if r["id"] % 5)
    got = Counter(json.dumps(json.loads(v), separators=(",", ":")) for v in got.elements())
    fault_cells.report(request.node, "outage", "broker restarted at epoch-start (1), job paused",
                       "filter->kafka", expected, got)
    assert got == expected


def test_postgres_down_during_commit_then_restart_completes(tmp_path, request):
    from tests.connectors.jdbc.postgres import Postgres
    pg = Postgres().start()
    try:
        import psycopg
        with psycopg.connect(pg.url, autocommit=True) as c:
            c.execute("CREATE TABLE sold (id bigint, item text)")
        script = tmp_path / "job.sql"
        script.write_text(f"""
CREATE TABLE src (id BIGINT, item STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '300',
  'rows-per-second' = '1000000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '299',
  'fields.item.length' = '3');
CREATE TABLE sold (id BIGINT, item STRING) WITH ('connector' = 'jdbc', 'url' = '{pg.jdbc_url}',
  'table-name' = 'sold', 'username' = 'postgres', 'password' = 'pw-not-shown',
  'sink.delivery-guarantee' = 'exactly-once', 'connection.max-retry-timeout' = '3s');
INSERT INTO sold SELECT id, item FROM src;
""")
        pause = tmp_path / "pause"
        # pause the driver in the second epoch's commit: one writer task's transaction
        # committed, the other's still prepared
        proc = _cli(script, tmp_path / "ck", False, _paused(pause, "jdbc-committing", skip=1))
        _wait_reached(proc, pause)
        pg.stop(keep=True)
        (pause / "resume").touch()
        out, err = proc.communicate(timeout=600)
        assert proc.returncode != 0
        text = out + err
        assert "[ERROR]" in text and "PostgreSQL" in text, text[-2000:]
        assert "Committing epoch 1 to PostgreSQL table sold at jdbc:postgresql://" in text, text[-2000:]
        assert "pw-not-shown" not in text and "Traceback" not in text
        pg.start()
        with psycopg.connect(pg.url, autocommit=True) as c:
            prepared = c.execute("SELECT count(*) FROM pg_prepared_xacts").fetchone()[0]
        assert prepared == 1  # the uncommitted half of the epoch survived the server's restart
        proc = _cli(script, tmp_path / "ck", True, {})
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err[-2000:]
        with psycopg.connect(pg.url, autocommit=True) as c:
            rows = c.execute("SELECT id FROM sold").fetchall()
            left = c.execute("SELECT count(*) FROM pg_prepared_xacts").fetchone()[0]
        fault_cells.report(request.node, "outage", "PostgreSQL down at jdbc-committing (1), rerun",
                           "datagen->postgresql", Counter(range(300)), Counter(r[0] for r in rows))
        assert sorted(r[0] for r in rows) == list(range(300))
        assert left == 0
    finally:
        pg.stop()


def _until(condition, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)  # polling another thread's or process's state


def _session(spark, tmp_path: Path, **conf):
    from sqlengine.api.session import Session
    return Session({"execution.checkpointing.dir": str(tmp_path / "ck"), "pipeline.job-id": "outage",
                    "execution.runtime-mode": "streaming", "parallelism.default": "2",
                    "restart-strategy.type": "fixed-delay", **conf}, spark=spark)


def _submit(session, script: str):
    *ddl, insert = [st for st in script.split(";") if st.strip()]
    for st in ddl:
        session.execute_sql(st)
    return session.execute_sql(insert).job


def test_broker_down_while_the_job_runs_is_outlasted_by_its_restart_strategy(own_broker, spark, tmp_path, request):
    import json
    bs = own_broker.bootstrap
    src, dst = new_topic(bs, 2), new_topic(bs, 2)
    records = [{"id": i, "item": f"i{i % 3}"} for i in range(240)]
    produce(bs, src, [{"value": r, "partition": i % 2} for i, r in enumerate(records)])
    session = _session(spark, tmp_path, **{
        "sqlengine.kafka.max-rows-per-epoch": "40", "execution.checkpointing.interval": "1 s",  # 6 epochs
        "sqlengine.kafka.timeout": "8 s",  # a read of the stopped broker fails after 8 s
        "restart-strategy.fixed-delay.attempts": "20", "restart-strategy.fixed-delay.delay": "2 s"})
    job = _submit(session, f"""
CREATE TABLE src (id BIGINT, item STRING) WITH ('connector' = 'kafka', 'topic' = '{src}',
  'properties.bootstrap.servers' = '{bs}', 'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE dst (id BIGINT, item STRING) WITH ('connector' = 'kafka', 'topic' = '{dst}',
  'properties.bootstrap.servers' = '{bs}', 'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once',
  'sink.transactional-id-prefix' = 'outage-{dst}');
INSERT INTO dst SELECT id, item FROM src WHERE id % 5 <> 0;
""")
    _until(lambda: commits(tmp_path / "ck") >= 1 or job.status != "RUNNING")
    assert job.status == "RUNNING", "the job ran when the broker stopped"
    own_broker.stop()
    stopped = time.monotonic()
    # down while the job fails, restarts and fails again (~2 x (8 s timeout + 2 s backoff))
    _until(lambda: len(job.failures) >= 2 or job.status in ("FAILED", "FINISHED"), timeout=120)
    outage = time.monotonic() - stopped
    own_broker.start_again()
    job.wait(300)
    assert job.status == "FINISHED" and job.restarts >= 2, (job.status, job.failures)
    expected = Counter(json.dumps(r, sort_keys=True) for r in records if r["id"] % 5)
    got = Counter(json.dumps(json.loads(v), sort_keys=True) for _, _, _, v, _ in read_all(bs, dst))
    fault_cells.report(request.node, "outage", "broker stopped while running, restart strategy",
                       "filter->kafka", expected, got)
    print(f"\nbroker down {outage:.1f} s; {job.restarts} restarts; failures: {[f[2][:100] for f in job.failures]}")
    assert got == expected
    assert outage >= 15, f"the broker was down {outage:.1f} s"


def test_postgres_down_during_commit_is_outlasted_by_the_restart_backoff(spark, tmp_path, monkeypatch, request):
    from tests.connectors.jdbc.postgres import Postgres
    pg = Postgres().start()
    try:
        import psycopg
        with psycopg.connect(pg.url, autocommit=True) as c:
            c.execute("CREATE TABLE sold (id bigint, item text)")
        pause = tmp_path / "pause"
        # the driver (this process) pauses in the second epoch's commit: one writer task's
        # transaction committed, the other's still prepared
        for k, v in _paused(pause, "jdbc-committing", skip=1).items():
            monkeypatch.setenv(k, v)
        session = _session(spark, tmp_path, **{"sqlengine.source.max-rows-per-epoch": "100",
                                               "restart-strategy.fixed-delay.attempts": "1",
                                               "restart-strategy.fixed-delay.delay": "10 s"})
        job = _submit(session, f"""
CREATE TABLE src (id BIGINT, item STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '300',
  'rows-per-second' = '1000000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '299',
  'fields.item.length' = '3');
CREATE TABLE sold (id BIGINT, item STRING) WITH ('connector' = 'jdbc', 'url' = '{pg.jdbc_url}',
  'table-name' = 'sold', 'username' = 'postgres', 'sink.delivery-guarantee' = 'exactly-once',
  'connection.max-retry-timeout' = '3s');
INSERT INTO sold SELECT id, item FROM src;
""")
        _until(lambda: (pause / "reached").exists() or job.status != "RUNNING")
        pg.stop(keep=True)
        down = time.monotonic()
        (pause / "resume").touch()
        _until(lambda: job.status != "RUNNING")
        assert job.status == "RESTARTING", job.status
        pg.start()
        outage = time.monotonic() - down
        job.wait(300)
        assert job.status == "FINISHED" and job.restarts == 1, (job.status, job.failures)
        assert "PostgreSQL" in job.failures[0][2], job.failures
        with psycopg.connect(pg.url, autocommit=True) as c:
            rows = c.execute("SELECT id FROM sold").fetchall()
            left = c.execute("SELECT count(*) FROM pg_prepared_xacts").fetchone()[0]
        got = Counter(r[0] for r in rows)
        fault_cells.report(request.node, "outage", "PostgreSQL down at jdbc-committing (1), restart strategy",
                           "datagen->postgresql", Counter(range(300)), got)
        assert got == Counter(range(300))
        assert left == 0
        assert outage < 10, "PostgreSQL was back before the backoff ended"
    finally:
        pg.stop()
