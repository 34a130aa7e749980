"""The shell starts Spark's Python workers (sqlengine/runtime/warmup.py) once its prompt has
waited for input, not while a statement typed at once runs."""
from __future__ import annotations

import time

import psutil

from tests.shell.terminal import Terminal

MODULES = {"pyspark.sql.worker.create_data_source", "pyspark.sql.worker.plan_data_source_read", "pyspark.worker"}


def _daemons(pid: int) -> set[str]:
    out = set()
    for p in psutil.Process(pid).children(recursive=True):
        try:
            line = " ".join(p.cmdline())
        except psutil.Error:  # exited
            continue
        if "pyspark.daemon " in line:
            out.add(line.split("pyspark.daemon ", 1)[1])
    return out


def _shell(tmp_path, idle: str) -> Terminal:
    return Terminal("-D", "spark.master=local[2]", "-D", "execution.runtime-mode=batch",
                    "-D", "sql-client.execution.result-mode=tableau",
                    env={"SQLENGINE_HISTORY": str(tmp_path / "history"), "SQLENGINE_WARMUP_IDLE_S": idle})


def test_an_idle_prompt_starts_the_python_workers(tmp_path):
    term = _shell(tmp_path, "0.2")
    try:
        term.wait_for(r"^Flink SQL>", timeout=30)
        deadline = time.monotonic() + 180
        while not MODULES <= _daemons(term.child.pid):  # polled: Spark starts, then the warm-up job runs
            assert time.monotonic() < deadline, _daemons(term.child.pid)
            term._pump(0.5)
        term.type("QUIT;")
        term.enter()
        assert term.wait_exit() == 0
    finally:
        term.close()


def test_a_statement_typed_at_once_runs_alone(tmp_path):
    term = _shell(tmp_path, "600")
    try:
        term.wait_for(r"^Flink SQL>", timeout=30)
        term.run("SELECT 1 AS `one`;", r"1 row in set", timeout=180)
        assert not MODULES & _daemons(term.child.pid)
        term.type("QUIT;")
        term.enter()
        assert term.wait_exit() == 0
    finally:
        term.close()
