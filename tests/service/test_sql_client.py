"""Flink 2.3's own SQL Client (``sql-client.sh gateway``) against the cluster's SQL Gateway.

The client is the real one (a JVM nobody here wrote), typed at in a pseudo-terminal as
a user types; the cluster is a real ``sqlengine cluster start`` process. What is checked
is what the client prints: DDL and SHOW TABLES, a batch SELECT's rows, a streaming
SELECT's changelog (+I/-U/+U), Ctrl-C on an endless SELECT (its job CANCELED on the
cluster) and on a long batch SELECT (its Spark jobs stop), an INSERT's job id (the job
outlives the client that submitted it), and a failed statement's reason.
``SQLENGINE_SQL_CLIENT_TRANSCRIPT`` names a file to save what the client printed (ANSI
stripped)."""
from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pexpect
import pytest

from tests.service.test_rest_api import FLINK, FLINK_DIR, ROOT, flink_home, free_port, http  # noqa: F401 - fixture

# The PyFlink wheel lacks opt/flink-sql-gateway-*.jar (the client's gateway mode needs its
# REST classes): it comes from Maven Central into an opt folder of its own, next to links to
# the wheel's opt jars (sql-client.sh looks for flink-sql-client*.jar, and flink-python*.jar
# if present, only in FLINK_OPT_DIR).
OPT_DIR = Path(f"{FLINK_DIR}-opt")
GATEWAY_JAR = f"flink-sql-gateway-{FLINK}.jar"
GATEWAY_URL = f"https://repo1.maven.org/maven2/org/apache/flink/flink-sql-gateway/{FLINK}/{GATEWAY_JAR}"
PROMPT = r"Flink SQL(?:\x1b\[[0-9;]*m)*> "
ANSI = re.compile(r"\x1b(?:\[[0-9;?]*[A-Za-z]|[=>])")
TRANSCRIPT = os.environ.get("SQLENGINE_SQL_CLIENT_TRANSCRIPT")


def sqlengine(env: dict, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "shell.cli", *args], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


def _download(url: str, target: Path) -> None:
    with urllib.request.urlopen(url + ".sha1", timeout=60) as r:
        sha1 = r.read().decode().split()[0]
    with urllib.request.urlopen(url, timeout=300) as r:
        data = r.read()
    assert hashlib.sha1(data).hexdigest() == sha1, f"{url}: checksum mismatch"
    part = target.with_suffix(f".{os.getpid()}.part")
    part.write_bytes(data)
    os.replace(part, target)  # whole or absent, whoever else downloads it


@pytest.fixture(scope="module")
def flink_opt(flink_home: Path) -> Path:  # noqa: F811 - the imported fixture
    OPT_DIR.mkdir(parents=True, exist_ok=True)
    for jar in (flink_home / "opt").glob("flink-*.jar"):
        link = OPT_DIR / jar.name
        if not link.exists():
            link.unlink(missing_ok=True)  # a dangling link from an older install
            link.symlink_to(jar)
    if not (OPT_DIR / GATEWAY_JAR).exists():
        _download(GATEWAY_URL, OPT_DIR / GATEWAY_JAR)
    return OPT_DIR


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A cluster on free ports, its state (pid file, log) in a folder of its own."""
    state = tmp_path_factory.mktemp("cluster-state")
    rest, gateway = free_port(), free_port()
    env = dict(os.environ, XDG_STATE_HOME=str(state), XDG_DATA_HOME=str(state / "data"))
    conf = ["-D", f"rest.port={rest}", "-D", f"sql-gateway.endpoint.rest.port={gateway}",
            "-D", "spark.master=local[2]"]
    started = sqlengine(env, "cluster", "start", *conf, timeout=240)
    assert started.returncode == 0, started.stdout + started.stderr
    try:
        yield {"rest": rest, "gateway": gateway}
    finally:
        stopped = sqlengine(env, "cluster", "stop", *conf, timeout=600)
        print(stopped.stdout, stopped.stderr)


class Client:
    """One ``sql-client.sh gateway`` process in a pseudo-terminal."""

    def __init__(self, home: Path, opt: Path, port: int, folder: Path):
        env = dict(os.environ, FLINK_HOME=str(home), FLINK_OPT_DIR=str(opt), FLINK_LOG_DIR=str(folder / "log"),
                   TERM="xterm")
        self.raw = folder / "client.out"
        self.proc = pexpect.spawn(str(home / "bin" / "sql-client.sh"),
                                  ["gateway", "--endpoint", f"127.0.0.1:{port}", "-hist", str(folder / "history")],
                                  env=env, encoding="utf-8", timeout=60, dimensions=(60, 240))
        self.proc.logfile_read = self.raw.open("w")
        self.proc.expect(PROMPT, timeout=120)

    def run(self, sql: str, timeout: float = 60) -> str:
        """What the client printed for ``sql`` (its echo first), up to the next prompt."""
        self.proc.sendline(sql)
        self.proc.expect(PROMPT, timeout=timeout)
        return text(self.proc.before)

    def expect(self, pattern: str, timeout: float = 60) -> re.Match:
        self.proc.expect(pattern, timeout=timeout)
        return self.proc.match

    def quit(self) -> str:
        self.proc.sendline("QUIT;")
        self.proc.expect(pexpect.EOF, timeout=60)
        return text(self.proc.before)

    def close(self) -> str:
        if self.proc.isalive():
            self.proc.terminate(force=True)
        self.proc.logfile_read.close()
        return text(self.raw.read_text())


def text(raw: str) -> str:
    return ANSI.sub("", raw).replace("\r", "")


def table(out: str) -> list[str]:
    """The lines of the tableau the client printed, and its row count line."""
    return [ln.rstrip() for ln in out.splitlines() if ln.startswith(("+", "|")) or " in set" in ln
            or ln.startswith(("Received a total", "Empty set"))]


@pytest.fixture(scope="module")
def save():
    """Appends a client's session to the transcript file (emptied first), if one is named."""
    if TRANSCRIPT:
        Path(TRANSCRIPT).write_text("")

    def append(name: str, transcript: str) -> None:
        if TRANSCRIPT:
            with open(TRANSCRIPT, "a") as f:
                f.write(f"===== {name} =====\n{transcript}\n")
    return append


@pytest.fixture(scope="module")
def client(flink_home, flink_opt, cluster, save, tmp_path_factory):  # noqa: F811 - the imported fixture
    c = Client(flink_home, flink_opt, cluster["gateway"], tmp_path_factory.mktemp("sql-client"))
    try:
        assert "[INFO] Execute statement succeeded." in c.run("SET 'sql-client.execution.result-mode' = 'tableau';")
        yield c
        assert "Shutting down the session...\ndone." in c.quit()
    finally:
        save("sql-client.sh gateway: DDL, queries, Ctrl-C, an error", c.close())


@pytest.fixture(scope="module")
def tables(client, tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("orders")
    (folder / "orders.csv").write_text("1,apple,2.50\n2,pear,\n3,apple,4.00\n")
    ddl = {
        "orders": f"CREATE TABLE orders (id INT, item STRING, price DECIMAL(5, 2)) WITH ('connector' = 'filesystem', "
                  f"'path' = '{folder}/orders.csv', 'format' = 'csv');",
        "seq": "CREATE TABLE seq (id INT) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence', "
               "'fields.id.start' = '1', 'fields.id.end' = '4');",
        "huge": "CREATE TABLE huge (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '1000000000');",
        "endless": "CREATE TABLE endless (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '5');",
    }
    return {name: client.run(sql) for name, sql in ddl.items()}


def test_ddl_succeeds_and_show_tables_lists_the_tables(client, tables):
    for out in tables.values():
        assert "[INFO] Execute statement succeeded." in out
    assert table(client.run("SHOW TABLES;")) == [
        "+------------+",
        "| table name |",
        "+------------+",
        "|    endless |",
        "|       huge |",
        "|     orders |",
        "|        seq |",
        "+------------+",
        "4 rows in set",
    ]


def test_a_batch_select_prints_its_rows(client, tables):
    assert "[INFO]" in client.run("SET 'execution.runtime-mode' = 'batch';")
    out = client.run("SELECT id, item, price FROM orders ORDER BY id;")
    lines = table(out)
    assert lines[:-1] == [
        "+----+-------+--------+",
        "| id |  item |  price |",
        "+----+-------+--------+",
        "|  1 | apple |   2.50 |",
        "|  2 |  pear | <NULL> |",
        "|  3 | apple |   4.00 |",
        "+----+-------+--------+",
    ], out
    assert re.fullmatch(r"3 rows in set \(\d+\.\d\d seconds\)", lines[-1]), out


def test_a_streaming_select_prints_its_changelog(client, tables):
    """One row per epoch (as Flink, one row at a time): every update of a count is a
    -U/+U pair, in the order Flink prints them."""
    client.run("SET 'execution.runtime-mode' = 'streaming';")
    client.run("SET 'sqlengine.source.max-rows-per-epoch' = '1';")
    out = client.run("SELECT id % 2 AS k, COUNT(*) AS n FROM seq GROUP BY id % 2;")
    client.run("RESET 'sqlengine.source.max-rows-per-epoch';")
    lines = table(out)
    assert lines[:-1] == [
        "+----+-------------+----------------------+",
        "| op |           k |                    n |",
        "+----+-------------+----------------------+",
        "| +I |           1 |                    1 |",
        "| +I |           0 |                    1 |",
        "| -U |           1 |                    1 |",
        "| +U |           1 |                    2 |",
        "| -U |           0 |                    1 |",
        "| +U |           0 |                    2 |",
        "+----+-------------+----------------------+",
    ], out
    assert re.fullmatch(r"Received a total of 6 rows \(\d+\.\d\d seconds\)", lines[-1]), out


def _jobs(cluster) -> dict[str, dict]:
    return {j["jid"]: j for j in http(cluster["rest"], "/v1/jobs/overview")[1]["jobs"]}


def _status_becomes(cluster, jid: str, status: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while (now := http(cluster["rest"], f"/v1/jobs/{jid}/status")[1].get("status")) != status:
        assert time.monotonic() < deadline, f"job {jid} is {now}, not {status}"
        time.sleep(0.2)


def test_ctrl_c_terminates_an_endless_select_and_cancels_its_job(client, tables, cluster):
    client.run("SET 'execution.runtime-mode' = 'streaming';")
    before = set(_jobs(cluster))
    client.proc.sendline("SELECT id FROM endless;")
    client.expect(r"\| \+I \| +-?\d+ \|")  # rows are coming
    (jid,) = [j for j, info in _jobs(cluster).items() if j not in before]
    assert _jobs(cluster)[jid]["name"] == "collect" and _jobs(cluster)[jid]["state"] == "RUNNING"
    client.proc.sendcontrol("c")
    assert client.expect(r"Query terminated, received a total of (\d+) rows? \(\d+\.\d\d seconds\)")
    client.expect(PROMPT)
    _status_becomes(cluster, jid, "CANCELED")


def _busy_slots(cluster) -> int:
    """Spark's running tasks (the TaskManager's slots in use)."""
    (tm,) = http(cluster["rest"], "/v1/taskmanagers")[1]["taskmanagers"]
    return tm["slotsNumber"] - tm["freeSlots"]


def test_ctrl_c_on_a_running_batch_select_cancels_its_spark_jobs(client, tables, cluster):
    """Interrupted before its first page (the gateway answers NOT_READY until a batch query
    has all its rows), the client closes the operation: its Spark jobs stop."""
    client.run("SET 'execution.runtime-mode' = 'batch';")
    client.proc.sendline("SELECT COUNT(DISTINCT id) AS n FROM huge;")
    deadline = time.monotonic() + 60
    while _busy_slots(cluster) == 0:
        assert time.monotonic() < deadline, "the query's tasks never ran"
        time.sleep(0.2)
    client.proc.sendcontrol("c")
    client.expect(r"\[ERROR\] Could not execute SQL statement. Reason:")
    client.expect(PROMPT)
    assert "nterrupted" in text(client.proc.before)  # where the interrupt caught the client
    deadline = time.monotonic() + 30  # uncancelled, the query would run for minutes
    while _busy_slots(cluster) > 0:
        assert time.monotonic() < deadline, "the query's Spark jobs still run"
        time.sleep(0.2)


def test_a_failed_statement_prints_the_reason(client, tables):
    out = client.run("SELECT * FROM nope;")
    assert "[ERROR] Could not execute SQL statement. Reason:" in out
    assert "Object 'nope' not found" in out


def test_an_insert_prints_its_job_id_and_the_job_outlives_the_client(flink_home, flink_opt, cluster,  # noqa: F811
                                                                       save, tmp_path):
    c = Client(flink_home, flink_opt, cluster["gateway"], tmp_path)
    try:
        c.run("CREATE TABLE endless (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '5');")
        c.run("CREATE TABLE sink (id BIGINT) WITH ('connector' = 'blackhole');")
        out = c.run("INSERT INTO sink SELECT id FROM endless;")
        assert "[INFO] Submitting SQL update statement to the cluster..." in out
        assert "[INFO] SQL update statement has been successfully submitted to the cluster:" in out
        jid = re.search(r"Job ID: ([0-9a-f]{32})\n", out).group(1)
        assert "Shutting down the session...\ndone." in c.quit()
    finally:
        save("sql-client.sh gateway: an INSERT, then QUIT", c.close())
    assert http(cluster["rest"], f"/v1/jobs/{jid}/status") == (200, {"status": "RUNNING"})
    assert http(cluster["rest"], f"/v1/jobs/{jid}?mode=cancel", "PATCH") == (202, {})
    _status_becomes(cluster, jid, "CANCELED")
