"""Jobs that survive their JobManager (sqlengine/service/failover.py, sqlengine/service/ha.py).

High availability: two real JobManager processes (``sqlengine cluster start --foreground``)
elect a leader through a real ZooKeeper; the three pipelines of the fault matrix (Kafka →
window → Kafka, Kafka → GROUP BY → upsert-kafka, Kafka → join → PostgreSQL, all exactly
once) are submitted through the standby, which forwards to the leader; the leader is
killed with SIGKILL (its JVM and Python workers with it) while they run; the standby
takes the lead, starts its Spark and resumes every job from its checkpoint within 60 s,
and the committed outputs are exact. Its REST API and dashboard, forwarded to the leader
before, are its own after: they show the resumed jobs.

Without ZooKeeper, ``high-availability.storageDir`` alone: a cluster stopped while its job
runs resumes the job when it is started again, and so does one killed with SIGKILL.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests import fault_cells
from tests.connectors.kafka import test_fault_matrix as matrix
from tests.connectors.kafka.kafka_util import new_topic, produce
from tests.service.test_rest_api import free_port

ROOT = Path(__file__).resolve().parents[2]


class JobManager:
    """``sqlengine cluster start --foreground`` in a process group of its own."""

    def __init__(self, folder: Path, conf: dict[str, str]):
        self.port = int(conf["rest.port"])
        self.log = folder / f"jobmanager-{self.port}.out"
        args = [sys.executable, "-m", "shell.cli", "cluster", "start", "--foreground"]
        for k, v in conf.items():
            args += ["-D", f"{k}={v}"]
        env = dict(os.environ, XDG_STATE_HOME=str(folder / "state"))
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(args, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env=env,
                                         start_new_session=True)

    def said(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_for(self, text: str, timeout: float = 180) -> float:
        """Seconds until the JobManager printed ``text``."""
        started = time.monotonic()
        while text not in self.said():
            assert self.proc.poll() is None, f"the JobManager exited:\n{self.said()[-3000:]}"
            assert time.monotonic() - started < timeout, f"no {text!r} within {timeout} s:\n{self.said()[-3000:]}"
            time.sleep(0.1)  # watching another process's output
        return time.monotonic() - started

    def kill(self) -> None:
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(120)
            except subprocess.TimeoutExpired:
                self.kill()


def _get(port: int, path: str):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as reply:
        return json.loads(reply.read())


def _page(port: int, path: str) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as reply:
        return reply.read().decode()


def _states(port: int) -> dict:
    return {j["jid"]: j["state"] for j in _get(port, "/v1/jobs/overview")["jobs"]}


def _commits(ckpt: Path, job_id: str) -> int:
    return sum(1 for f in (ckpt / job_id).glob("*/commits/*") if f.name.isdigit())


def _until(what, ready, timeout: float = 180):
    deadline = time.monotonic() + timeout
    while True:
        value = what()
        if ready(value):
            return value
        assert time.monotonic() < deadline, f"timed out; last value: {value!r}"
        time.sleep(0.2)  # polling another process's state


def _submit(port: int, script: Path) -> str:
    """Submit ``script`` with ``sqlengine -m``; the job's id."""
    res = subprocess.run([sys.executable, "-m", "shell.cli", "-m", f"127.0.0.1:{port}", "-f", str(script)],
                         cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert res.returncode == 0, res.stdout + res.stderr
    return res.stdout.split("Job ID: ")[1].split()[0]


def test_a_standby_takes_over_from_a_killed_leader_and_resumes_every_job_exactly(
        zookeeper, kafka_bootstrap, postgres, tmp_path, request):
    bs = kafka_bootstrap
    inputs = {"bids": new_topic(bs, 2), "items": new_topic(bs, 1)}
    produce(bs, inputs["bids"], [{"value": b, "partition": i % 2} for i, b in enumerate(matrix._bids())])
    produce(bs, inputs["items"], [{"value": d} for d in matrix.ITEMS])
    ckpt = tmp_path / "checkpoints"
    common = {"high-availability.type": "zookeeper", "high-availability.zookeeper.quorum": zookeeper.quorum,
              "high-availability.storageDir": str(tmp_path / "ha"), "high-availability.cluster-id": "/failover",
              "high-availability.zookeeper.client.session-timeout": "4 s",
              "execution.checkpointing.dir": str(ckpt), "sqlengine.cluster.warm-up": "false",
              "spark.master": "local[2]", "parallelism.default": "2", "sql-gateway.endpoint.rest.port": "-1",
              # 9 epochs per job, one per 0.5 s at most: all three still run when the leader dies
              "sqlengine.kafka.max-rows-per-epoch": "40", "execution.checkpointing.interval": "500 ms"}
    leader = JobManager(tmp_path, {**common, "rest.port": str(free_port())})
    standby = None
    try:
        leader.wait_for("[INFO] sqlengine cluster is running")
        standby = JobManager(tmp_path, {**common, "rest.port": str(free_port())})
        standby.wait_for("[INFO] This JobManager is a standby")
        assert "This JobManager is the leader" in leader.said()
        # A client of the standby reaches the leader: its REST API and SQL Gateway are forwarded.
        assert _get(standby.port, "/v1/overview")["flink-version"]
        targets = [matrix._target(i, p, inputs, bs, tmp_path, postgres) for i, p in
                   enumerate((matrix.WINDOW, matrix.UPSERT, matrix.JDBC))]
        scripts = []
        for i, (sql, _) in enumerate(targets):
            scripts.append(tmp_path / f"job-{i}.sql")
            scripts[-1].write_text(sql)
        with ThreadPoolExecutor(3) as pool:
            job_ids = list(pool.map(lambda s: _submit(standby.port, s), scripts))
        listed = {j["jid"]: j["state"] for j in _get(standby.port, "/v1/jobs/overview")["jobs"]}
        assert all(listed.get(j) == "RUNNING" for j in job_ids), listed
        _until(lambda: [_commits(ckpt, j) for j in job_ids], lambda n: min(n) >= 1)

        at_kill = [_commits(ckpt, j) for j in job_ids]
        running = _states(standby.port)
        leader.kill()
        killed = time.monotonic()
        # The jobs the leader still ran: those in its job store (a finished job leaves it).
        kept = sorted(p.stem for p in (tmp_path / "ha").rglob("*.json"))
        assert all(running.get(j) == "RUNNING" for j in job_ids), running
        assert len(kept) == 3 and kept == sorted(job_ids), "the three jobs ran when the leader was killed"
        transcript = [f"{0.0:6.1f} s  leader (pid {leader.proc.pid}) killed with SIGKILL; committed epochs per job: "
                      f"{at_kill}"]
        standby.wait_for("[INFO] This JobManager is the leader", timeout=60)
        transcript.append(f"{time.monotonic() - killed:6.1f} s  the standby is the leader")
        for j in kept:
            standby.wait_for(f"[INFO] Job {j} resumed from", timeout=60)
            transcript.append(f"{time.monotonic() - killed:6.1f} s  job {j} resumed from its checkpoint")
        assert time.monotonic() - killed < 60, "every job resumed within 60 s"
        # The new leader's own REST API and dashboard (no longer forwarded) show the resumed jobs.
        assert set(_states(standby.port)) >= set(kept)
        assert all(_get(standby.port, f"/v1/jobs/{j}")["jid"] == j for j in kept)
        assert "<title>sqlengine dashboard</title>" in _page(standby.port, "/")
        _until(lambda: _states(standby.port), lambda s: all(s.get(j) == "FINISHED" for j in kept), timeout=300)
        transcript.append(f"{time.monotonic() - killed:6.1f} s  every resumed job FINISHED (REST of the new leader)")
        for (pipeline, (_, read)) in zip((matrix.WINDOW, matrix.UPSERT, matrix.JDBC), targets):
            expected = matrix.PIPELINES[pipeline][1]
            got = read()
            fault_cells.report(request.node, "leader kill", "leader JobManager SIGKILL mid-run (HA)", pipeline,
                               expected, got)
            assert got == expected, f"{pipeline}: lost {expected - got}, duplicated {got - expected}"
            transcript.append(f"         {pipeline}: {sum(got.values())} records committed, "
                              f"{sum(expected.values())} expected: lost 0, duplicated 0")
        assert postgres.run("SELECT count(*) FROM pg_prepared_xacts") == [(0,)]
        assert not list((tmp_path / "ha").rglob("*.json")), "finished jobs leave the job store"
        print("\n" + "\n".join(transcript))
        print("\n".join(line for line in standby.said().splitlines() if line.startswith(("[INFO]", "[ERROR]"))))
    finally:
        leader.stop()
        if standby is not None:
            standby.stop()


def test_a_restarted_cluster_resumes_the_jobs_it_had(kafka_bootstrap, tmp_path, request):
    """Stopped (SIGTERM: the job stops at an epoch boundary) and started again, then that
    cluster killed with SIGKILL mid-epoch and started again: the job resumes each time."""
    bs = kafka_bootstrap
    inputs = {"bids": new_topic(bs, 2)}
    produce(bs, inputs["bids"], [{"value": b, "partition": i % 2} for i, b in enumerate(matrix._bids())])
    ckpt = tmp_path / "checkpoints"
    conf = {"high-availability.storageDir": str(tmp_path / "ha"), "execution.checkpointing.dir": str(ckpt),
            "sqlengine.cluster.warm-up": "false", "spark.master": "local[2]", "parallelism.default": "2",
            "sql-gateway.endpoint.rest.port": "-1", "rest.port": str(free_port()),
            # 9 epochs, one per second at most: still running after a stop and a kill
            "sqlengine.kafka.max-rows-per-epoch": "40", "execution.checkpointing.interval": "1 s"}
    sql, read = matrix._target(0, matrix.WINDOW, inputs, bs, tmp_path, None)
    script = tmp_path / "job.sql"
    script.write_text(sql)
    first = JobManager(tmp_path, conf)
    try:
        first.wait_for("[INFO] sqlengine cluster is running")
        job_id = _submit(first.port, script)
        _until(lambda: _commits(ckpt, job_id), lambda n: n >= 1)
    finally:
        first.stop()  # SIGTERM: the job stops at an epoch boundary and stays in the job store
    assert f"[INFO] Job {job_id} stopped." in first.said()
    assert [p.stem for p in (tmp_path / "ha").rglob("*.json")] == [job_id]
    second = JobManager(tmp_path, conf)
    try:
        second.wait_for(f"[INFO] Job {job_id} resumed from its checkpoint")
        before = _commits(ckpt, job_id)
        _until(lambda: _commits(ckpt, job_id), lambda n: n > before)  # it runs on
        assert _states(second.port)[job_id] == "RUNNING"
    finally:
        second.kill()  # SIGKILL: its JVM and Python workers with it, wherever the epoch was
    assert [p.stem for p in (tmp_path / "ha").rglob("*.json")] == [job_id]
    third = JobManager(tmp_path, conf)
    try:
        third.wait_for(f"[INFO] Job {job_id} resumed from its checkpoint")
        _until(lambda: _states(third.port), lambda s: s.get(job_id) == "FINISHED", timeout=300)
        expected = matrix.PIPELINES[matrix.WINDOW][1]
        got = read()
        fault_cells.report(request.node, "cluster kill", "the only JobManager stopped, then its successor SIGKILL",
                           matrix.WINDOW, expected, got)
        assert got == expected
    finally:
        third.stop()
