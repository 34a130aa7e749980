"""Run a benchmark SQL script on Apache Flink (PyFlink), as one whole process.

    /work/flink-venv/bin/python benchmarks/flink_runner.py benchmarks/sql/tumble.sql

Needs a Python with ``apache-flink`` installed (never a dependency of sqlengine).
Statements are split on ``;`` (``--`` comments dropped; the benchmark scripts have no
``;`` or ``--`` inside string literals). ``SET 'k' = 'v'`` statements configure the
TableEnvironment (streaming mode); every other statement runs with ``execute_sql`` in
order, and each job it submits (the INSERT) is waited for. Prints the seconds from
the TableEnvironment's creation to the end of the last job on stderr.
"""
from __future__ import annotations

import re
import sys
import time

SET_RE = re.compile(r"^SET\s+'([^']+)'\s*=\s*'([^']*)'$", re.I | re.S)


def statements(text: str) -> list[str]:
    """The script's statements, comments removed."""
    code = "\n".join(line.split("--", 1)[0] for line in text.splitlines())
    return [s.strip() for s in code.split(";") if s.strip()]


def main(path: str) -> int:
    from pyflink.table import EnvironmentSettings, TableEnvironment

    started = time.perf_counter()
    env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    config = env.get_config()
    for stmt in statements(open(path, encoding="utf-8").read()):
        match = SET_RE.match(stmt)
        if match:
            config.set(match.group(1), match.group(2))
            continue
        result = env.execute_sql(stmt)
        if result.get_job_client() is not None:
            result.wait()
    print(f"flink_runner: {path} done in {time.perf_counter() - started:.2f} s",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
