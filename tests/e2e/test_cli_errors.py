"""What a user sees from the CLI in a fresh process: only our lines on the terminal.

A failure is one ``[ERROR]`` with a one-line reason and the log file holding the full
trace; Spark's and the JVM's own output goes to that log file; a dead driver JVM is
reported as such. Each test runs ``python -m shell.cli`` as a new process.
"""
from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import ROOT, read_rows, run_cli

HEADER = "[ERROR] Could not execute SQL statement. Reason:"
NOISE = ("WARN", "INFO", "log4j", "SparkContext", "NativeCodeLoader", "Traceback", "\tat ", "JVM stacktrace")
SUBMITTED = (r"\[INFO\] Submitting SQL update statement to the cluster\.\.\.\n"
             r"\[INFO\] SQL update statement has been successfully submitted to the cluster:\n"
             r"Job ID: [0-9a-f]{32}\n\n")
OK = "[INFO] Execute statement succeeded.\n"


@pytest.fixture(autouse=True)
def state_home(tmp_path, monkeypatch) -> Path:
    """Each test's log folder: ``$XDG_STATE_HOME/sqlengine/log``."""
    home = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(home))
    return home


def _script(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "job.sql"
    path.write_text(text)
    return path


def _one_error(stderr: str, state_home: Path) -> tuple[str, str]:
    """Check the [ERROR] block's shape; returns (reason line, log file text)."""
    lines = stderr.splitlines()
    assert [l for l in lines if l.startswith("[ERROR]")] == [HEADER], stderr
    assert lines[0] == HEADER, stderr
    assert not [l for l in lines if any(n in l for n in NOISE)], stderr
    found = re.fullmatch(r"\(full trace in (.+)\)", lines[-1])
    assert found, stderr
    log = Path(found.group(1))
    assert log.parent == state_home / "sqlengine" / "log" and log.is_file()
    return lines[1], log.read_text()


SET_SCRIPT = """SET 'execution.runtime-mode' = '{mode}';
CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '5',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5');
CREATE TABLE evens (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '{out}/evens', 'format' = 'json');
CREATE TABLE squares (id BIGINT, sq BIGINT) WITH ('connector' = 'filesystem', 'path' = '{out}/squares',
  'format' = 'csv');
EXECUTE STATEMENT SET BEGIN
  INSERT INTO evens SELECT id FROM src WHERE MOD(id, 2) = 0;
  INSERT INTO squares SELECT id, id * id FROM src;
END;
"""


@pytest.mark.parametrize("mode", ["streaming", "batch"])
def test_statement_set_into_filesystem_sinks_in_a_fresh_process_prints_only_our_lines(tmp_path, mode):
    """The Python data source is registered where each write needs it (a streaming
    statement set writes its epochs in a clone of the session), and nothing of
    Spark's start-up reaches the terminal."""
    out = tmp_path / "out"
    res = run_cli("-D", f"execution.checkpointing.dir={tmp_path / 'ck'}",
                  "-f", str(_script(tmp_path, SET_SCRIPT.format(mode=mode, out=out))))
    assert res.returncode == 0, res.stderr[-3000:]
    assert res.stderr == ""
    assert re.fullmatch(re.escape(OK * 4) + SUBMITTED, res.stdout), res.stdout
    assert sorted(r["id"] for r in read_rows(out / "evens")) == [2, 4]
    squares = sorted((out / "squares").glob("part-*"))
    assert sorted(l for f in squares for l in f.read_text().split()) == sorted(f"{i},{i * i}" for i in range(1, 6))


BAD_JSON = """CREATE TABLE src (id INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = '{src}', 'format' = 'json');
CREATE TABLE dst (id INT, name STRING) WITH ('connector' = 'blackhole');
INSERT INTO dst SELECT id, name FROM src;
"""


def test_failed_streaming_job_is_one_line_with_the_trace_in_the_log(tmp_path, state_home):
    src = tmp_path / "in.jsonl"
    src.write_text('{"id": 1, "name": "a"}\n{"id": 2, "name": \n')
    res = run_cli("-f", str(_script(tmp_path, BAD_JSON.format(src=src))))
    assert res.returncode == 1
    assert res.stdout == OK * 2
    reason, log = _one_error(res.stderr, state_home)
    assert re.fullmatch(rf"Job \w+ failed: Failed to deserialize JSON '.*' in file {src} line 2: .*", reason)
    assert "  at line 4, column 1:" in res.stderr and "  INSERT INTO dst" in res.stderr
    assert "Traceback (most recent call last)" in log and "StreamingQueryException" in log
    assert "\tat org.apache.spark" in log  # the JVM stack trace
    assert "Using incubator modules" in log or "WARN" in log  # the JVM's own output went here


WRITE_FAILS = """SET 'execution.runtime-mode' = 'batch';
CREATE TABLE src (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE dst (id INT) WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json');
INSERT INTO dst SELECT id FROM src;
"""


def test_python_data_source_failure_is_its_exception_line_and_verbose_prints_the_trace(tmp_path, state_home):
    """An error raised in the filesystem writer (a Python data source on an executor)."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    res = run_cli("-D", "sql-client.verbose=true", "-f",
                  str(_script(tmp_path, WRITE_FAILS.format(path=blocker / "dst"))))
    assert res.returncode == 1
    lines = res.stderr.splitlines()
    assert [l for l in lines if l.startswith("[ERROR]")] == [HEADER] and lines[0] == HEADER
    assert re.fullmatch(rf"Job \w+ failed: NotADirectoryError: .*{blocker}.*", lines[1]), lines[1]
    assert "Traceback (most recent call last)" in res.stderr  # verbose: the trace on screen too
    assert any(l.startswith("(full trace in ") for l in lines)


def test_backtick_in_a_column_name_reaches_spark_escaped(tmp_path, state_home):
    """Once a Spark analysis error (the name went to Spark unescaped); now the column reads."""
    script = """SET 'execution.runtime-mode' = 'batch';
CREATE TABLE t (`a``b` INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
SELECT * FROM t;
"""
    res = run_cli("-f", str(_script(tmp_path, script)))
    assert res.returncode == 0, res.stderr
    assert re.search(r"\|\s+a`b\s+\|", res.stdout), res.stdout
    assert "1 row in set" in res.stdout


def test_root_cause_of_an_analysis_exception_has_no_plan(spark):
    from pyspark.errors import AnalysisException

    from sqlengine.runtime.failure import root_cause
    with pytest.raises(AnalysisException) as info:
        spark.range(3).selectExpr("nope").collect()
    assert root_cause(info.value) == ("[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column, variable, or function "
                                      "parameter with name `nope` cannot be resolved. Did you mean one of the "
                                      "following? [`id`].")


UNBOUNDED = """CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '100');
CREATE TABLE dst (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO dst SELECT id FROM src;
"""


def _java_child(pid: int):
    import psutil
    kids = [p for p in psutil.Process(pid).children(recursive=True) if "java" in p.name()]
    return kids[0] if kids else None


def test_dead_driver_jvm_is_one_error_line_and_a_non_zero_exit(tmp_path, state_home):
    ck = tmp_path / "ck"
    proc = subprocess.Popen([sys.executable, "-m", "shell.cli", "-D", "spark.master=local[1]",
                             "-D", f"execution.checkpointing.dir={ck}", "-f", str(_script(tmp_path, UNBOUNDED))],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300
        while not list(ck.rglob("commits/0")) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)  # waiting for another process: the job's first committed epoch
        java = _java_child(proc.pid)
        assert java is not None, proc.communicate()[1]
        java.kill()
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1, err
    reason, _ = _one_error(err, state_home)
    assert reason.startswith("The Spark driver (JVM) died"), err
    assert "ConnectionRefused" not in err and "Py4J" not in err


def test_driver_that_does_not_start_is_one_error_line_with_the_jvm_reason(tmp_path, state_home):
    res = subprocess.run([sys.executable, "-m", "shell.cli", "-D", "spark.master=bogus", "-f",
                          str(_script(tmp_path, "SELECT 1;\n"))], capture_output=True, text=True, cwd=ROOT,
                         timeout=600)
    assert res.returncode == 1
    reason, log = _one_error(res.stderr, state_home)
    assert reason == "The Spark driver (JVM) did not start: Master must either be yarn or start with spark, " \
                     "k8s, or local", res.stderr
    assert "JAVA_GATEWAY_EXITED" in log


def test_driver_out_of_memory_is_reported_as_a_dead_driver(tmp_path, state_home):
    script = """SET 'execution.runtime-mode' = 'batch';
CREATE TABLE src (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '4');
SELECT id, CHAR_LENGTH(REPEAT('x', 900000000 + id)) FROM src;
"""
    res = run_cli("-D", "spark.driver.memory=512m", "-f", str(_script(tmp_path, script)))
    assert res.returncode == 1
    reason, log = _one_error(res.stderr, state_home)
    assert reason == "The Spark driver (JVM) died (java.lang.OutOfMemoryError).", res.stderr
    assert "  at line 3, column 1:" in res.stderr
    assert "Terminating due to java.lang.OutOfMemoryError" in log


def test_missing_source_path_is_an_error_not_an_empty_table(tmp_path, state_home):
    script = f"""CREATE TABLE t (a INT) WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/nope', 'format' = 'json');
SELECT * FROM t;
"""
    res = run_cli("-f", str(_script(tmp_path, script)))
    assert res.returncode == 1
    reason, _ = _one_error(res.stderr, state_home)
    assert reason == (f"File or directory '{tmp_path}/nope' of table default_catalog.default_database.t "
                      f"does not exist (option 'path' of connector 'filesystem')."), reason
