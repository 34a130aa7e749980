"""Flink's REST API over a process's jobs, checked with Flink 2.3's own ``flink`` command
line (a client nobody here wrote) and with plain HTTP for what the CLI does not show.

A real CLI process runs a script with ``-D rest.port``: a bounded INSERT that finishes,
then an unbounded one (datagen without a row count) that runs until cancelled.
``flink list -m`` lists it, ``flink cancel -m`` cancels it, and the process ends."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FLINK = "2.3.0"
# Flink's jars and bin/ from PyPI (the ``flink`` CLI needs only those and a JVM): a test
# tool, cached outside the repository, never a project dependency.
FLINK_DIR = Path(os.environ.get("SQLENGINE_TEST_FLINK_DIR", Path.home() / ".cache" / "sqlengine" / f"flink-{FLINK}"))

SCRIPT = """
CREATE TABLE few (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE endless (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '50');
CREATE TABLE sink (id BIGINT) WITH ('connector' = 'blackhole');
CREATE TABLE counts (k BIGINT, n BIGINT) WITH ('connector' = 'blackhole');
SET 'pipeline.name' = 'bounded-job';
INSERT INTO sink SELECT id FROM few;
SET 'pipeline.name' = 'endless-job';
INSERT INTO counts SELECT id % 3, COUNT(*) FROM endless GROUP BY id % 3;
"""


@pytest.fixture(scope="module")
def flink_home() -> Path:
    home = FLINK_DIR / "pyflink"
    if not (home / "bin" / "flink").exists():
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(FLINK_DIR),
                        f"apache-flink=={FLINK}", f"apache-flink-libraries=={FLINK}"], check=True)
    return home


def flink(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, FLINK_HOME=str(home))
    return subprocess.run([str(home / "bin" / "flink"), *args], env=env, capture_output=True, text=True, timeout=120)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(port: int, path: str, method: str = "GET") -> tuple[int, dict]:
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method, data=b"{}",
                                 headers={"Content-Type": "application/json; charset=UTF-8"})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def jobs_when(port: int, proc: subprocess.Popen, ready) -> list[dict]:
    """``/jobs/overview`` once ``ready(jobs)`` holds (polled: another process's progress)."""
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError("the CLI ended early:\n" + proc.stderr.read()[-3000:])
        try:
            jobs = http(port, "/v1/jobs/overview")[1]["jobs"]
            if ready(jobs):
                return jobs
        except (urllib.error.URLError, ConnectionError):
            pass  # the endpoint starts with the session
        time.sleep(0.2)
    raise AssertionError("no such jobs within 180 s")


@pytest.fixture
def cli(tmp_path):
    port = free_port()
    script = tmp_path / "jobs.sql"
    script.write_text(SCRIPT)
    proc = subprocess.Popen([sys.executable, "-m", "shell.cli", "-D", "spark.master=local[2]", "-D", f"rest.port={port}",
                             "-D", f"execution.checkpointing.dir={tmp_path / 'ckpt'}", "-f", str(script)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    yield port, proc
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def test_flink_cli_lists_and_cancels_a_running_job(cli, flink_home):
    port, proc = cli
    jobs = jobs_when(port, proc, lambda js: any(j["name"] == "endless-job" and j["state"] == "RUNNING" for j in js))
    by_name = {j["name"]: j for j in jobs}
    assert by_name["bounded-job"]["state"] == "FINISHED"
    running = by_name["endless-job"]
    jid = running["jid"]
    assert len(jid) == 32 and int(jid, 16) >= 0
    assert running["end-time"] == -1 and running["tasks"]["total"] == running["tasks"]["running"] >= 1

    listed = flink(flink_home, "list", "-m", f"127.0.0.1:{port}")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert f": {jid} : endless-job (RUNNING)" in listed.stdout
    assert "bounded-job" not in listed.stdout  # terminated jobs only with -a, as in Flink
    everything = flink(flink_home, "list", "-a", "-m", f"127.0.0.1:{port}")
    assert f": {by_name['bounded-job']['jid']} : bounded-job (FINISHED)" in everything.stdout

    cancelled = flink(flink_home, "cancel", "-m", f"127.0.0.1:{port}", jid)
    assert cancelled.returncode == 0, cancelled.stdout + cancelled.stderr
    assert f"Cancelled job {jid}." in cancelled.stdout
    assert proc.wait(timeout=120) == 0, proc.stderr.read()[-3000:]


def test_rest_paths_status_codes_and_errors_are_flinks(cli):
    port, proc = cli
    jobs = jobs_when(port, proc, lambda js: any(j["name"] == "endless-job" for j in js))
    done = next(j["jid"] for j in jobs if j["name"] == "bounded-job")
    running = next(j["jid"] for j in jobs if j["name"] == "endless-job")

    assert http(port, "/jobs/")[1] == http(port, "/v1/jobs")[1]  # unversioned = v1; end slashes ignored
    assert {"id": done, "status": "FINISHED"} in http(port, "/v1/jobs")[1]["jobs"]
    assert http(port, f"/v1/jobs/{running}/status") == (200, {"status": "RUNNING"})
    overview = http(port, "/v1/overview")[1]
    assert (overview["jobs-running"], overview["jobs-finished"], overview["flink-version"]) == (1, 1, "2.3.0")
    assert http(port, "/v1/config")[1]["features"]["web-cancel"] is True

    # The vertices are the DAG's tasks as EXPLAIN numbers them: the source chain, then the
    # GROUP BY behind its hash exchange, each run by parallelism.default (2) tasks.
    details = http(port, f"/v1/jobs/{running}")[1]
    assert (details["jid"], details["state"], details["job-type"]) == (running, "RUNNING", "STREAMING")
    first, second = details["vertices"]
    assert first["name"] == "Source: default_catalog.default_database.endless -> Calc"
    assert second["name"] == "GroupAggregate -> Calc -> Sink: default_catalog.default_database.counts"
    assert (first["parallelism"], second["parallelism"], second["maxParallelism"]) == (2, 2, 128)
    assert second["tasks"]["RUNNING"] == 2 and second["status"] == "RUNNING"
    plan = http(port, f"/v1/jobs/{running}/plan")[1]["plan"]
    assert plan == details["plan"]
    assert [n["id"] for n in plan["nodes"]] == [first["id"], second["id"]]
    assert plan["nodes"][1]["inputs"] == [{"num": 0, "id": first["id"], "ship_strategy": "HASH",
                                            "exchange": "pipelined_bounded"}]

    assert http(port, "/v1/nope") == (404, {"errors": ["Not found: /v1/nope"]})
    assert http(port, f"/v1/jobs/{'0' * 32}/status") == (404, {"errors": ["Job could not be found."]})
    code, body = http(port, "/v1/jobs/not-a-job-id/status")
    assert code == 400 and list(body) == ["errors"] and "not-a-job-id" in body["errors"][0]
    assert http(port, f"/v1/jobs/{done}?mode=cancel", "PATCH") == (409, {"errors": [
        "Job cancellation failed because the job has already reached another terminal state (FINISHED)."]})

    assert http(port, f"/v1/jobs/{running}?mode=cancel", "PATCH") == (202, {})
    assert proc.wait(timeout=120) == 0, proc.stderr.read()[-3000:]


def test_flink_stop_with_a_savepoint_then_restore_from_it_is_exact(tmp_path, flink_home):
    """``flink stop --savepointPath``: the job stops at an epoch boundary, its checkpoint is
    copied to a savepoint folder in the target directory, and a job restored from that
    folder ends with exactly the rows of an uninterrupted run (Flink 2.3's rows)."""
    from tests.e2e.conftest import commits, run_cli
    from tests.e2e.test_rescale_restore import HERE, SCRIPT as JOBS, _flink, _top3, _windows

    script = tmp_path / "job.sql"
    script.write_text(JOBS.format(src=HERE / "input", out=tmp_path / "out"))
    ckpt, port = tmp_path / "ckpt", free_port()
    small = ["-D", "sqlengine.filesystem.max-lines-per-batch=40"]
    proc = subprocess.Popen([sys.executable, "-m", "shell.cli", "-D", "spark.master=local[2]", "-D", f"rest.port={port}",
                             "-D", f"execution.checkpointing.dir={ckpt}", *small, "-f", str(script)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        jid = jobs_when(port, proc, lambda js: bool(js) and commits(ckpt) >= 3)[0]["jid"]
        stopped = flink(flink_home, "stop", "-m", f"127.0.0.1:{port}", "--savepointPath", str(tmp_path / "sp"), jid)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    assert proc.returncode == 0, err[-3000:]
    assert f"Job {jid} stopped after epoch" in out
    line = next(ln for ln in stopped.stdout.splitlines() if ln.startswith("Savepoint completed. Path: "))
    location = line.split("Path: ", 1)[1]
    assert location.startswith(f"file:{tmp_path / 'sp'}/savepoint-{jid[:6]}-")
    assert sum(_windows(tmp_path / "out").values()) < sum(_flink("windows_out").values()), "stopped midway"

    # restored with bigger epochs: the rest of the input in two (restoring takes no batch size)
    res = run_cli("-f", str(script), "-D", "sqlengine.filesystem.max-lines-per-batch=400",
                  "-D", f"execution.state-recovery.path={location}")
    assert res.returncode == 0, res.stderr[-3000:]
    assert _windows(tmp_path / "out") == _flink("windows_out"), "nothing lost, nothing twice"
    assert _top3(tmp_path / "out") == _flink("top3")


def test_a_failed_job_is_failed_with_its_reason_in_the_exception_history(tmp_path):
    """Jobs side by side (``table.dml-sync`` false): one fails on a malformed line, the
    other keeps running; REST shows the failure as Flink does, without a trace."""
    src = tmp_path / "in.jsonl"
    src.write_text('{"id": 1}\n{"id": \n')
    script = tmp_path / "jobs.sql"
    script.write_text(f"""
SET 'table.dml-sync' = 'false';
CREATE TABLE bad (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '{src}', 'format' = 'json');
CREATE TABLE endless (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '50');
CREATE TABLE sink (id BIGINT) WITH ('connector' = 'blackhole');
SET 'pipeline.name' = 'failing-job';
INSERT INTO sink SELECT id FROM bad;
SET 'pipeline.name' = 'endless-job';
INSERT INTO sink SELECT id FROM endless;
""")
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "shell.cli", "-D", "spark.master=local[2]", "-D", f"rest.port={port}",
                             "-D", f"execution.checkpointing.dir={tmp_path / 'ckpt'}", "-f", str(script)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        jobs = jobs_when(port, proc, lambda js: any(j["name"] == "failing-job" and j["state"] == "FAILED" for j in js)
                         and any(j["name"] == "endless-job" for j in js))
        failed = next(j for j in jobs if j["name"] == "failing-job")
        assert failed["end-time"] >= failed["start-time"] and failed["tasks"]["failed"] == failed["tasks"]["total"]
        history = http(port, f"/v1/jobs/{failed['jid']}/exceptions")[1]["exceptionHistory"]
        (entry,) = history["entries"]
        assert str(src) in entry["stacktrace"] and "line 2" in entry["stacktrace"], entry
        assert "\n" not in entry["stacktrace"] and entry["timestamp"] == failed["end-time"]
        running = next(j["jid"] for j in jobs if j["name"] == "endless-job")
        assert http(port, f"/v1/jobs/{running}/exceptions")[1] == {"exceptionHistory": {"entries": [],
                                                                                       "truncated": False}}
        assert http(port, f"/v1/jobs/{running}?mode=cancel", "PATCH") == (202, {})
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1, err[-3000:]  # the failed job is reported at the script's end
    assert [ln for ln in err.splitlines() if ln.startswith("[ERROR]")] and "line 2" in err


def test_a_terminal_state_is_shown_only_with_its_end_time():
    """A job's state and its end are set by other threads than the REST API's: a state set
    before the end is known (a cancel while the queries stop, a failure being recorded) is
    shown as Flink's transitional state, so a FAILED or CANCELED job always has its end."""
    from sqlengine.api.jobs import _info
    from sqlengine.runtime.job import Job
    from sqlengine.service.rest import overview_row

    def shown(status, end_time=None, done=False):
        job = Job("j", status=status, start_time=1000.0)
        job.end_time = end_time
        if done:
            job.done.set()
        info = _info(job)
        row = overview_row(info, 2_000_000)
        return info.state, row["end-time"], info.terminal

    assert shown("FAILED") == ("FAILING", -1, False)
    assert shown("FAILED", end_time=1500.0) == ("FAILED", 1_500_000, True)  # its failure's time, before done
    assert shown("CANCELED") == ("CANCELLING", -1, False)
    assert shown("CANCELED", end_time=1600.0, done=True) == ("CANCELED", 1_600_000, True)
    assert shown("STOPPED") == ("RUNNING", -1, False)
    assert shown("RUNNING", end_time=1700.0, done=True) == ("FINISHED", 1_700_000, True)
    assert shown("RUNNING") == ("RUNNING", -1, False)
    assert shown("RESTARTING", end_time=1500.0) == ("RESTARTING", -1, False)
