"""The Python worker daemons a query needs are started in the background when the
SparkSession starts (sqlengine/runtime/warmup.py), not on the first query's critical path;
not for ``sqlengine -f`` scripts (no idle time to use), nor when switched off. (The shell
starts them when its prompt is idle: tests/shell/test_warmup_idle.py.)"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from sqlengine.runtime import warmup

LOOKUP = "pyspark.sql.worker.lookup_data_sources"
MODULES = ["pyspark.sql.worker.create_data_source", "pyspark.sql.worker.plan_data_source_read", "pyspark.worker"]

REPORT = textwrap.dedent("""
    import json, psutil
    from sqlengine.runtime import warmup
    warmup.wait()

    def line(p):
        try:
            return " ".join(p.cmdline())
        except psutil.Error:  # exited (a zombie until reaped)
            return ""
    jvm = [p for p in psutil.Process().children() if "java" in line(p)][0]
    daemons = {line(p).split("pyspark.daemon ", 1)[1]: p for p in jvm.children() if "pyspark.daemon " in line(p)}
    workers = {m: sum(1 for w in d.children() if "pyspark.daemon " in line(w)) for m, d in daemons.items()}
    print("RESULT " + json.dumps({"daemons": sorted(daemons), "workers": workers}))
""")


def _result(out: subprocess.CompletedProcess) -> dict:
    line = [x for x in out.stdout.splitlines() if x.startswith("RESULT ")]
    assert line, out.stdout[-2000:] + out.stderr[-2000:]
    return json.loads(line[0][7:])


def _session(extra: str = "") -> dict:
    script = ("from sqlengine.api.session import Session\n"
              f"Session({{'spark.master': 'local[2]', {extra}}}).spark.range(1).count()\n" + REPORT)
    return _result(subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300))


def test_a_new_session_starts_the_python_worker_daemons_before_any_query():
    got = _session()
    assert sorted(MODULES) == [m for m in got["daemons"] if m in MODULES], got
    # Forked workers left idle for reuse, as many as a query's tasks use at once (local[2]: two),
    # not two per task: the pool reuses them in turn, so every worker kept grows to a reader's size.
    assert got["workers"]["pyspark.worker"] == 2, got
    # Spark's lookup of pip-installed data sources never ran (warmup.skip_data_source_lookup),
    # although the warm-up registered and read a Python data source
    assert LOOKUP not in got["daemons"], got


def test_switched_off_by_the_spark_conf():
    got = _session(f"'{warmup.CONF}': 'false'")
    assert not any(m in got["daemons"] for m in MODULES), got


def test_a_script_run_with_f_starts_none(tmp_path):
    """A script has no idle time: the workers would compete with its first statements."""
    script = tmp_path / "s.sql"
    script.write_text("SET 'execution.runtime-mode' = 'batch';\nSELECT 1;\n")
    runner = ("import sys\nsys.argv = ['sqlengine', '-f', sys.argv[1], '-D', 'spark.master=local[2]']\n"
              "from shell import cli\ncli.main(sys.argv[1:])\n" + REPORT)
    got = _result(subprocess.run([sys.executable, "-c", runner, str(script)], capture_output=True, text=True,
                                 timeout=300))
    assert not any(m in got["daemons"] for m in MODULES), got
