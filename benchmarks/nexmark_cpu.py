"""Where a Nexmark INSERT's CPU goes: per JVM thread class and per Python worker process.

Starts the tests' Kafka broker, fills topic ``nexmark`` as ``nexmark.py`` does, then runs
each query on sqlengine once per configuration (``--config``, repeatable; each a process of
its own, the JVM started and warmed up before the timed INSERT) and prints, per run, the
INSERT's seconds, the CPU seconds of the driver JVM and of Spark's Python workers (from
/proc, before and after), the JVM's CPU by thread (``C2 CompilerThre``: the JIT;
``Executor task``: the tasks; ``GC``), and how many classes Spark generated and compiled
(Janino). sqlengine only; outputs are not checked (``nexmark.py`` does that).

    .venv/bin/python benchmarks/nexmark_cpu.py --events 1000000 --queries q3
    .venv/bin/python benchmarks/nexmark_cpu.py --events 10000000 --queries q8 \\
        --config '' --config 'spark.driver.extraJavaOptions=-XX:TieredStopAtLevel=1'
"""
from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
_spec = importlib.util.spec_from_file_location("nexmark_bench", Path(__file__).with_name("nexmark.py"))
NX = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(NX)
HZ = os.sysconf("SC_CLK_TCK")


def _processes():
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        yield pid, cmd


def _cpu(stat: str) -> float:
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / HZ


def snapshot() -> dict:
    """CPU seconds so far: the Spark JVM's per thread, and the Python workers' per process."""
    threads, workers = {}, {}
    for pid, cmd in _processes():
        try:
            if "java" in cmd and "SparkSubmit" in cmd:
                for tid in os.listdir(f"/proc/{pid}/task"):
                    stat = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
                    threads[(tid, stat[stat.index("(") + 1:stat.rindex(")")])] = _cpu(stat)
            elif "pyspark" in cmd:
                workers[pid] = _cpu(Path(f"/proc/{pid}/stat").read_text())
        except OSError:
            continue
    return {"threads": threads, "workers": workers}


def difference(a: dict, b: dict) -> dict:
    by_class: collections.Counter = collections.Counter()
    for key, cpu in b["threads"].items():
        by_class[re.sub(r"\d+", "N", key[1])] += cpu - a["threads"].get(key, 0.0)
    workers = sum(cpu - a["workers"].get(pid, 0.0) for pid, cpu in b["workers"].items())
    return {"jvm": round(sum(by_class.values()), 1), "python_workers": round(workers, 1),
            "jvm_threads": {k: round(v, 1) for k, v in by_class.most_common(8) if v >= 0.1}}


def _sum(histogram) -> float:
    """Milliseconds of Janino compilation so far (the histogram's mean × its count)."""
    return histogram.getSnapshot().getMean() * histogram.getCount()


def run(args) -> None:
    """(a child) each query once on this configuration."""
    from sqlengine.api.session import Session
    os.environ["PYSPARK_PYTHON"] = sys.executable
    tmp = Path(args.tmp)
    conf = {"parallelism.default": "2", "execution.checkpointing.interval": args.interval}
    for kv in args.set + ([args.config] if args.config else []):
        k, v = kv.split("=", 1)
        conf[k] = v
    for q in args.queries.split(","):
        session = Session({**conf, "execution.checkpointing.dir": str(tmp / f"ck-{q}")})
        session.spark.range(1).count()
        from sqlengine.runtime import warmup
        warmup.wait()
        topic = f"out-{q}-{tmp.name}"
        NX.create_topic(args.bootstrap, topic)
        *ddl, insert = NX.script(q, "sqlengine", args.bootstrap, topic, str(tmp / "side.csv"), args.events, 1000)
        for s in ddl:
            session.execute_sql(s)
        codegen = session.spark._jvm.org.apache.spark.metrics.source.CodegenMetrics.METRIC_COMPILATION_TIME()
        compiled, compile_ms = codegen.getCount(), _sum(codegen)
        before, t = snapshot(), time.perf_counter()
        session.execute_sql(insert).wait()
        seconds = time.perf_counter() - t
        out = {"query": q, "config": args.config, "seconds": round(seconds, 1), **difference(before, snapshot()),
               "classes_compiled": codegen.getCount() - compiled,
               "compile_ms": round(_sum(codegen) - compile_ms)}
        print("RESULT " + json.dumps(out), flush=True)
        session.spark.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--queries", default="q3")
    ap.add_argument("--interval", default="10 s", help="execution.checkpointing.interval")
    ap.add_argument("--set", action="append", default=[], help="KEY=VALUE for every run")
    ap.add_argument("--config", action="append", help="KEY=VALUE: a run of its own ('' for none)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--bootstrap", help=argparse.SUPPRESS)
    ap.add_argument("--tmp", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        args.config = (args.config or [""])[0]
        return run(args)
    from tests.connectors.kafka.broker import Broker
    with tempfile.TemporaryDirectory(prefix="nexmark-cpu-") as td:
        tmp = Path(td)
        broker = Broker(tmp).start()
        try:
            NX.create_topic(broker.bootstrap, "nexmark")
            r = NX.spawn(sys.executable, "--fill", {"events": args.events, "rate": 1000, "bootstrap": broker.bootstrap,
                                                    "ck": str(tmp / "ck-fill")}, tmp / "fill.log", 3600)
            if r.get("failed"):
                raise SystemExit(f"filling the topic failed: {r['failed']}")
            print(f"# {args.events:,} events into topic nexmark in {r['seconds']:.0f} s", flush=True)
            for i, config in enumerate(args.config or [""]):
                folder = tmp / f"run{i}"
                folder.mkdir()
                cmd = [sys.executable, __file__, "--child", "--bootstrap", broker.bootstrap, "--tmp", str(folder),
                       "--events", str(args.events), "--queries", args.queries, "--interval", args.interval,
                       "--config", config] + [x for kv in args.set for x in ("--set", kv)]
                done = subprocess.run(cmd, capture_output=True, text=True)
                results = [json.loads(ln[7:]) for ln in done.stdout.splitlines() if ln.startswith("RESULT ")]
                if done.returncode != 0 or not results:
                    print(f"# config {config!r} failed:\n{done.stderr[-3000:]}", flush=True)
                for res in results:
                    print("# " + json.dumps(res), flush=True)
        finally:
            broker.stop()


if __name__ == "__main__":
    main()
