"""Run a benchmark SQL script on Apache Flink (PyFlink), as one whole process.

    /work/flink-venv/bin/python benchmarks/flink_runner.py benchmarks/sql/tumble.sql

Needs a Python with ``apache-flink`` installed (never a dependency of sqlengine).
Statements are split on ``;`` (``--`` comments dropped; the benchmark scripts have no
``;`` or ``--`` inside string literals). ``SET 'k' = 'v'`` statements configure the
TableEnvironment; every other statement runs with ``execute_sql`` in order. Each job an
``INSERT`` / ``EXECUTE`` submits is waited for; a statement with rows (``SELECT``,
``SHOW``, ``DESCRIBE``, ``EXPLAIN``) prints them as a tableau, as the SQL client does.
Prints the seconds from the TableEnvironment's creation to the end of the last job on
stderr.

``--child SPEC.json`` is ``run.py``'s side: SPEC holds ``statements`` and ``conf``; the
configuration is applied, a ``SELECT 1`` starts the JVM and the mini-cluster (untimed,
as in a running SQL client), the DDL runs, then the last statement (the INSERT) is timed
from its submission to the end of its job; one line ``RESULT {"seconds": ..., "warmup":
...}`` on stdout (as ``nexmark.py``'s Flink side).

PyFlink's wheel has no SQL gateway (``flink-sql-gateway-*.jar``), so Flink's own
``sql-client.sh`` cannot start from it, even embedded; this runner stands in for it.
"""
from __future__ import annotations

import json
import re
import sys
import time

SET_RE = re.compile(r"^SET\s+'([^']+)'\s*=\s*'([^']*)'$", re.I | re.S)
DML_RE = re.compile(r"^(INSERT|EXECUTE|BEGIN)\b", re.I)
RUNTIME_MODE = "execution.runtime-mode"


def statements(text: str) -> list[str]:
    """The script's statements, comments removed."""
    code = "\n".join(line.split("--", 1)[0] for line in text.splitlines())
    return [s.strip() for s in code.split(";") if s.strip()]


def runtime_mode(stmts: list[str]) -> str:
    """The script's ``execution.runtime-mode`` (default streaming). A TableEnvironment's
    mode is fixed when it is created, so the runner reads it before creating one."""
    modes = {m.group(2).lower() for m in map(SET_RE.match, stmts)
             if m and m.group(1) == RUNTIME_MODE}
    if len(modes) > 1:
        raise SystemExit(f"flink_runner: the script sets {RUNTIME_MODE} to {sorted(modes)}; "
                         "one TableEnvironment has one mode")
    return modes.pop() if modes else "streaming"


def main(path: str) -> int:
    from pyflink.table import EnvironmentSettings, ResultKind, TableEnvironment

    stmts = statements(open(path, encoding="utf-8").read())
    batch = runtime_mode(stmts) == "batch"
    started = time.perf_counter()
    env = TableEnvironment.create(EnvironmentSettings.in_batch_mode() if batch
                                  else EnvironmentSettings.in_streaming_mode())
    config = env.get_config()
    for stmt in stmts:
        match = SET_RE.match(stmt)
        if match:
            config.set(match.group(1), match.group(2))
            continue
        result = env.execute_sql(stmt)
        if DML_RE.match(stmt):
            if result.get_job_client() is not None:
                result.wait()
        elif result.get_result_kind() == ResultKind.SUCCESS_WITH_CONTENT:
            result.print()
    print(f"flink_runner: {path} done in {time.perf_counter() - started:.2f} s",
          file=sys.stderr)
    return 0


def child(spec: str) -> int:
    """run.py's Flink side: warm up, run the DDL, time the INSERT (see the module's doc)."""
    from pyflink.table import EnvironmentSettings, TableEnvironment

    job = json.loads(open(spec, encoding="utf-8").read())
    started = time.perf_counter()
    env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    config = env.get_config()
    for key, value in job["conf"].items():
        config.set(key, value)
    with env.execute_sql("SELECT 1").collect() as rows:
        list(rows)
    warmup = time.perf_counter() - started
    *ddl, insert = job["statements"]
    for stmt in ddl:
        env.execute_sql(stmt)
    started = time.perf_counter()
    env.execute_sql(insert).wait()
    seconds = time.perf_counter() - started
    print("RESULT " + json.dumps({"seconds": seconds, "warmup": warmup}), flush=True)
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        sys.exit(child(sys.argv[2]))
    sys.exit(main(sys.argv[1]))
