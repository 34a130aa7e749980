"""A session cluster (``sqlengine cluster start``) with jobs that outlive their clients.

The cluster is a real background process started and stopped with the commands a user
types; clients are real ``sqlengine -m host:port`` processes; the job is a Kafka → TUMBLE
→ Kafka exactly-once job on a real broker; Flink 2.3's own ``flink`` command line lists
it and stops it with a savepoint; the job restored from that savepoint finishes the
windows, and the committed output is exact (each window once, with its full count)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path

import pytest

from tests.connectors.kafka.kafka_util import new_topic, produce, read_all
from tests.service.test_rest_api import flink, flink_home, free_port, http  # noqa: F401 - fixture

ROOT = Path(__file__).resolve().parents[2]


def sqlengine(env: dict, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "shell.cli", *args], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A cluster on free ports, its state (pid file, log) in a folder of its own."""
    state = tmp_path_factory.mktemp("cluster-state")
    rest, gateway = free_port(), free_port()
    env = dict(os.environ, XDG_STATE_HOME=str(state), XDG_DATA_HOME=str(state / "data"))
    conf = ["-D", f"rest.port={rest}", "-D", f"sql-gateway.endpoint.rest.port={gateway}",
            "-D", "spark.master=local[2]", "-D", "parallelism.default=2"]
    started = sqlengine(env, "cluster", "start", *conf, timeout=240)
    assert started.returncode == 0, started.stdout + started.stderr
    assert "Cluster started" in started.stdout
    try:
        yield {"env": env, "rest": rest, "gateway": gateway, "conf": conf, "state": state}
    finally:
        stopped = sqlengine(env, "cluster", "stop", *conf, timeout=600)
        print(stopped.stdout, stopped.stderr)


def test_status_and_a_second_start_is_refused(cluster):
    status = sqlengine(cluster["env"], "cluster", "status", *cluster["conf"])
    assert status.returncode == 0 and f"Cluster running at http://127.0.0.1:{cluster['rest']}" in status.stdout
    again = sqlengine(cluster["env"], "cluster", "start", *cluster["conf"])
    assert again.returncode == 1
    assert again.stderr.strip() == (f"[ERROR] A cluster is already running at http://127.0.0.1:{cluster['rest']} "
                                    f"(sqlengine cluster stop stops it).")
    log = cluster["state"] / "sqlengine" / "cluster" / f"cluster-{cluster['rest']}.log"
    assert "sqlengine cluster is running" in log.read_text()


def test_a_client_gets_the_results_and_errors_a_local_run_prints(cluster, tmp_path):
    rows = "\n".join(json.dumps({"k": i % 3, "v": i}) for i in range(30))
    (tmp_path / "in.json").write_text(rows + "\n")
    script = tmp_path / "q.sql"
    script.write_text(f"""CREATE TABLE t (k INT, v INT) WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/in.json',
  'format' = 'json');
SET 'execution.runtime-mode' = 'batch';
SHOW TABLES;
SELECT k, COUNT(*) AS n, SUM(v) AS s FROM t GROUP BY k ORDER BY k;
SELECT nope FROM t;
""")
    remote = sqlengine(cluster["env"], "-m", f"127.0.0.1:{cluster['rest']}", "-f", str(script))
    local = sqlengine(dict(cluster["env"], XDG_STATE_HOME=str(tmp_path / "local")), "-f", str(script), timeout=240)
    assert remote.returncode == local.returncode == 1
    assert remote.stdout == local.stdout
    assert "| 0 | 10 | 135 |" in remote.stdout.replace("  ", " ") or "135" in remote.stdout
    # The same one [ERROR], naming the script's line (the trace is in the cluster's log).
    assert remote.stderr.split("(full trace")[0] == local.stderr.split("(full trace")[0]
    assert "at line 6, column 8:" in remote.stderr
    assert remote.stderr.rstrip().endswith(f"(full trace in the log of the cluster at 127.0.0.1:{cluster['rest']})")


def _bids(first: int, last: int) -> list[dict]:
    return [{"id": i, "item": f"i{i % 3}", "price": i % 17, "ts": f"2024-01-01 10:{i // 30:02d}:{i % 30 * 2:02d}"}
            for i in range(first, last)]


def _window_job(bs: str, src: str, dst: str) -> tuple[str, str]:
    """(DDL, INSERT) of a Kafka → one-minute TUMBLE count per item → Kafka exactly-once job."""
    ddl = f"""
CREATE TABLE bids (id BIGINT, item STRING, price INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'kafka', 'topic' = '{src}', 'properties.bootstrap.servers' = '{bs}',
        'scan.startup.mode' = 'earliest-offset', 'format' = 'json');
CREATE TABLE `out` (item STRING, window_start TIMESTAMP(3), n BIGINT)
  WITH ('connector' = 'kafka', 'topic' = '{dst}', 'properties.bootstrap.servers' = '{bs}', 'format' = 'json',
        'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'cl-{dst}');
SET 'pipeline.name' = 'windows-{dst}';
"""
    insert = """INSERT INTO `out` SELECT item, window_start, COUNT(*)
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY item, window_start, window_end;
"""
    return ddl, insert


def _ms(ts: str) -> int:
    import datetime as dt
    return int(dt.datetime.fromisoformat(ts).replace(tzinfo=dt.timezone.utc).timestamp() * 1000)


def _expected(bids: list[dict]) -> Counter:
    out: Counter = Counter()
    for b in bids:
        out[(b["item"], b["ts"][:16] + ":00")] += 1
    return out


def _committed(bs: str, topic: str) -> Counter:
    got = Counter()
    for _, _, _, value, _ in read_all(bs, topic):
        r = json.loads(value)
        got[(r["item"], r["window_start"][:19].replace("T", " "), r["n"])] += 1
    return got


def _wait(what, ready, timeout: float = 180):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = what()
        if ready(value):
            return value
        time.sleep(0.5)
    raise AssertionError(f"timed out; last value: {value!r}")


def test_a_submitted_job_outlives_its_client_then_stops_with_a_savepoint_and_restores_exactly(
        cluster, kafka_bootstrap, flink_home, tmp_path):  # noqa: F811
    bs, address = kafka_bootstrap, f"127.0.0.1:{cluster['rest']}"
    src, dst = new_topic(bs, 2), new_topic(bs, 2)
    first, middle, second = _bids(0, 600), _bids(600, 900), _bids(900, 1200)
    produce(bs, src, [{"value": b, "partition": i % 2} for i, b in enumerate(first)])
    ddl, insert = _window_job(bs, src, dst)
    script = tmp_path / "job.sql"
    script.write_text(ddl + insert)
    t0 = time.monotonic()
    submitted = sqlengine(cluster["env"], "-m", address, "-f", str(script))
    took = time.monotonic() - t0
    assert submitted.returncode == 0, submitted.stderr
    job_id = submitted.stdout.split("Job ID: ")[1].split()[0]
    assert took < 20, f"the client waited {took:.1f} s: it should submit and return"

    # The client has gone; the job runs on: Flink's CLI lists it.
    listed = flink(flink_home, "list", "-m", address)
    assert listed.returncode == 0, listed.stderr
    assert f"{job_id} : windows-{dst} (RUNNING)" in listed.stdout
    # Windows up to 10:19 are closed by the first 600 bids' watermark (10:19:58).
    closed = Counter({(i, w, n): 1 for (i, w), n in _expected(first).items() if w < "2024-01-01 10:19:00"})
    _wait(lambda: _committed(bs, dst), lambda got: got == closed)
    status, overview = http(cluster["rest"], f"/v1/jobs/{job_id}")
    assert status == 200 and overview["state"] == "RUNNING"

    # Its metrics over REST: the source's records, its epochs as checkpoints, the window's
    # input watermark (the least of the two partitions' after the first 600 bids, 10:19:56
    # and 10:19:58, less a second).
    rest = cluster["rest"]
    source = next(v for v in overview["vertices"] if v["name"].startswith("Source: default_catalog"))
    window = next(v for v in overview["vertices"] if "Window" in v["name"])
    assert source["parallelism"] == 2 and window["parallelism"] == 2

    def metric(vertex: dict, name: str) -> str:
        values = http(rest, f"/v1/jobs/{job_id}/vertices/{vertex['id']}/metrics?get={name}")[1]
        return {m["id"]: m["value"] for m in values}.get(name, "")
    _wait(lambda: metric(source, "numRecordsOut"), lambda n: n == "600")  # reported once the epoch has ended
    sink = next(v for v in overview["vertices"] if "Sink: default_catalog" in v["name"])
    _wait(lambda: metric(sink, "numRecordsSend"), lambda n: n == str(sum(closed.values())))  # the rows written
    assert metric(window, "currentInputWatermark") == str(_ms("2024-01-01 10:19:55"))
    checkpoints = http(rest, f"/v1/jobs/{job_id}/checkpoints")[1]
    done = checkpoints["counts"]["completed"]
    assert done >= 1 and checkpoints["latest"]["completed"]["status"] == "COMPLETED"
    assert [c["id"] for c in checkpoints["history"]] == sorted((c["id"] for c in checkpoints["history"]), reverse=True)
    produce(bs, src, [{"value": b, "partition": i % 2} for i, b in enumerate(middle)])
    _wait(lambda: int(metric(source, "numRecordsOut")), lambda n: n == 900)  # the counts grow
    assert http(rest, f"/v1/jobs/{job_id}/checkpoints")[1]["counts"]["completed"] > done
    # ... and as Prometheus text, as Flink's reporter names them.
    from prometheus_client.parser import text_string_to_metric_families
    with urllib.request.urlopen(f"http://127.0.0.1:{rest}/metrics", timeout=10) as r:
        families = {f.name: f for f in text_string_to_metric_families(r.read().decode())}
    out = [s for s in families["flink_taskmanager_job_task_numRecordsOut"].samples
           if s.labels["job_id"] == job_id and s.labels["task_id"] == source["id"]]
    assert [s.value for s in out] == [900.0]
    assert any(s.labels["job_id"] == job_id and s.value > done
               for s in families["flink_jobmanager_job_numberOfCompletedCheckpoints"].samples)

    # A savepoint of the running job: it keeps running.
    taken = flink(flink_home, "savepoint", "-m", address, job_id, str(tmp_path / "running"))
    assert taken.returncode == 0, taken.stdout + taken.stderr
    running_sp = taken.stdout.split("Savepoint completed. Path: ")[1].split()[0]
    assert running_sp.startswith(f"file:{tmp_path / 'running'}/savepoint-{job_id[:6]}-")
    assert list(Path(running_sp[len("file:"):]).rglob("commits/*"))
    assert http(rest, f"/v1/jobs/{job_id}/status")[1] == {"status": "RUNNING"}

    stop = flink(flink_home, "stop", "-m", address, "--savepointPath", str(tmp_path / "savepoints"), job_id)
    assert stop.returncode == 0, stop.stdout + stop.stderr
    savepoint = stop.stdout.split("Savepoint completed. Path: ")[1].split()[0]
    assert savepoint.startswith(f"file:{tmp_path / 'savepoints'}/savepoint-{job_id[:6]}-")
    assert http(cluster["rest"], f"/v1/jobs/{job_id}/status")[1] == {"status": "FINISHED"}

    # While it is stopped, the rest of the input arrives; restored from the savepoint, the
    # job reads from where it stopped.
    assert metric(source, "pendingRecords") == "0"  # it had read everything
    produce(bs, src, [{"value": b, "partition": i % 2} for i, b in enumerate(second)])
    closer = {"id": 10_000, "item": "closer", "price": 0, "ts": "2024-01-01 11:00:00"}
    produce(bs, src, [{"value": closer, "partition": p} for p in (0, 1)])
    # The stopped job's lag: what arrived since, per partition (Kafka's high watermark less
    # the job's position), as Flink's Kafka source reports pendingRecords.
    assert metric(source, "pendingRecords") == "302"
    for p in (0, 1):
        assert metric(source, f"KafkaSourceReader.topic.{src}.partition.{p}.pendingRecords") == "151"
    restore = tmp_path / "restore.sql"
    restore.write_text(ddl + f"SET 'execution.state-recovery.path' = '{savepoint}';\n" + insert)
    resumed = sqlengine(cluster["env"], "-m", address, "-f", str(restore))
    assert resumed.returncode == 0, resumed.stderr
    job2 = resumed.stdout.split("Job ID: ")[1].split()[0]
    everything = Counter({(i, w, n): 1 for (i, w), n in _expected(first + middle + second).items()})
    got = _wait(lambda: _committed(bs, dst), lambda got: sum(got.values()) >= sum(everything.values()))
    assert got == everything  # every window once, with its whole count: nothing lost, nothing twice
    # (Its splits keep the unbounded end they were checkpointed with, as Flink's Kafka source's
    # do: it ends when stopped.)
    again = flink(flink_home, "stop", "-m", address, job2)
    assert again.returncode == 0, again.stdout + again.stderr
    assert http(cluster["rest"], f"/v1/jobs/{job2}/status")[1] == {"status": "FINISHED"}
    assert _committed(bs, dst) == everything


def test_the_python_api_runs_statements_on_the_cluster(cluster):
    from sqlengine.api import Session
    s = Session({"execution.target": "remote", "rest.address": "127.0.0.1", "rest.port": str(cluster["rest"])})
    assert type(s).__name__ == "RemoteSession"
    s.execute_sql("CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '5', "
                  "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5')")
    s.execute_sql("CREATE TABLE sink (id BIGINT) WITH ('connector' = 'blackhole')")
    # A streaming SELECT's changelog comes back as its cells (row kinds first).
    changes = s.execute_sql("SELECT SUM(id) AS total FROM g").collect()
    assert changes[0][0] == "+I" and changes[-1][1] == "15" and {c[0] for c in changes} <= {"+I", "-U", "+U"}
    submitted = s.execute_sql("INSERT INTO sink SELECT id FROM g")
    job_id = submitted.get_job_client().get_job_id()
    submitted.wait(120_000)  # over REST: the job is the cluster's
    assert http(cluster["rest"], f"/v1/jobs/{job_id}/status")[1] == {"status": "FINISHED"}
    with pytest.raises(Exception, match="Object 'missing' not found"):
        s.execute_sql("SELECT * FROM missing")
    s.close()


def test_the_shell_connects_to_the_cluster_and_its_jobs_outlive_it(cluster, tmp_path):
    """``sqlengine -m``'s interactive shell: DDL, a live streaming SELECT cancelled with
    Ctrl-C, an error with its caret, an INSERT whose job keeps running after QUIT."""
    from tests.shell.terminal import Terminal
    term = Terminal("-m", f"127.0.0.1:{cluster['rest']}",
                    env={"SQLENGINE_HISTORY": str(tmp_path / "history"),
                         "XDG_STATE_HOME": cluster["env"]["XDG_STATE_HOME"]})
    try:
        term.wait_for(r"^Flink SQL>", timeout=30)
        term.run("CREATE TABLE ticks (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '20');",
                 r"\[INFO\] Execute statement succeeded\.")
        term.run("CREATE TABLE nowhere (id BIGINT) WITH ('connector' = 'blackhole');",
                 r"\[INFO\] Execute statement succeeded\.")
        term.run("SHOW TABLES;", r"\|\s+ticks \|")
        screen = term.run("SELECT idd FROM ticks;", r"\(full trace in .*\)").string
        assert "at line 1, column 8:" in screen and "  SELECT idd FROM ticks;\n         ^^^" in screen
        term.run("SELECT id % 2 AS k, COUNT(*) AS n FROM ticks GROUP BY id % 2;", r"│\s*-?\d+\s*│\s*\d+\s*│",
                 timeout=120)
        term.ctrl("c")
        term.wait_for(r"^Flink SQL>$")
        job_id = term.run("INSERT INTO nowhere SELECT id FROM ticks;", r"Job ID: ([0-9a-f]{32})").group(1)
        term.type("QUIT;")
        term.enter()
        assert term.wait_exit() == 0
    finally:
        term.close()
    assert http(cluster["rest"], f"/v1/jobs/{job_id}/status")[1] == {"status": "RUNNING"}
    assert http(cluster["rest"], f"/v1/jobs/{job_id}?mode=cancel", method="PATCH")[0] == 202


def test_stop_with_drain_fires_the_open_windows_and_its_savepoint_is_final(cluster, kafka_bootstrap, flink_home,
                                                                           tmp_path):  # noqa: F811
    """``flink stop --drain``: the job ends as if its input had ended (Flink emits the final
    watermark): the window still open gets its result, once; its savepoint cannot be
    restored, and says why."""
    bs, address = kafka_bootstrap, f"127.0.0.1:{cluster['rest']}"
    src, dst = new_topic(bs, 2), new_topic(bs, 1)
    bids = _bids(0, 150)  # minutes 10:00 .. 10:04
    produce(bs, src, [{"value": b, "partition": i % 2} for i, b in enumerate(bids)])
    ddl, insert = _window_job(bs, src, dst)
    script = tmp_path / "job.sql"
    script.write_text(ddl + insert)
    submitted = sqlengine(cluster["env"], "-m", address, "-f", str(script))
    assert submitted.returncode == 0, submitted.stderr
    job_id = submitted.stdout.split("Job ID: ")[1].split()[0]
    everything = Counter({(i, w, n): 1 for (i, w), n in _expected(bids).items()})
    closed = Counter({k: 1 for k in everything if k[1] < "2024-01-01 10:04:00"})
    _wait(lambda: _committed(bs, dst), lambda got: got == closed)  # 10:04 is open: its watermark is 10:04:5x

    stop = flink(flink_home, "stop", "--drain", "-m", address, "--savepointPath", str(tmp_path / "sp"), job_id)
    assert stop.returncode == 0, stop.stdout + stop.stderr
    savepoint = stop.stdout.split("Savepoint completed. Path: ")[1].split()[0]
    assert _committed(bs, dst) == everything  # the open window fired, once
    assert http(cluster["rest"], f"/v1/jobs/{job_id}/status")[1] == {"status": "FINISHED"}

    restore = tmp_path / "restore.sql"
    restore.write_text(ddl + f"SET 'execution.state-recovery.path' = '{savepoint}';\n" + insert)
    refused = sqlengine(cluster["env"], "-m", address, "-f", str(restore))
    assert refused.returncode == 1
    assert "its job was stopped with drain, which fired every window and timer" in refused.stderr
