"""The Python worker daemons a query needs are started when the SparkSession is, in the
background (sqlengine/runtime/warmup.py), not on the first query's critical path."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from sqlengine.runtime import warmup

MODULES = ["pyspark.sql.worker.create_data_source", "pyspark.sql.worker.plan_data_source_read", "pyspark.worker"]

SCRIPT = textwrap.dedent("""
    import json, sys, psutil
    from sqlengine.runtime import spark as S, warmup
    spark = S.get_spark({"spark.master": "local[2]", %(extra)s})
    warmup.wait()
    def line(p):
        try:
            return " ".join(p.cmdline())
        except psutil.Error:  # exited (a zombie until reaped)
            return ""
    jvm = [p for p in psutil.Process().children() if "java" in line(p)][0]
    daemons = sorted({line(p).split("pyspark.daemon ", 1)[1] for p in jvm.children() if "pyspark.daemon " in line(p)})
    workers = sum(1 for p in jvm.children(recursive=True) if p.ppid() != jvm.pid and "pyspark.daemon " in line(p))
    print("RESULT " + json.dumps({"daemons": daemons, "workers": workers}))
""")


def _started(extra: str) -> dict:
    out = subprocess.run([sys.executable, "-c", SCRIPT % {"extra": extra}], capture_output=True, text=True,
                         timeout=300)
    line = [x for x in out.stdout.splitlines() if x.startswith("RESULT ")]
    assert line, out.stdout[-2000:] + out.stderr[-2000:]
    return json.loads(line[0][7:])


def test_a_new_session_starts_the_python_worker_daemons_before_any_query():
    got = _started("")
    assert sorted(MODULES) == [m for m in got["daemons"] if m in MODULES], got
    assert got["workers"] >= 2, got  # forked workers left idle for reuse (local[2]: two tasks)


def test_switched_off_by_the_spark_conf():
    got = _started(f'"{warmup.CONF}": "false"')
    assert not any(m in got["daemons"] for m in MODULES), got
