"""Nexmark, sqlengine against Apache Flink 2.3 at its best, on the same events from the same
Kafka topic, every output checked (issue 24).

1. Starts the tests' single-node Kafka broker (tests/connectors/kafka/broker.py) and fills
   the 8-partition topic ``nexmark`` with ``--events`` Nexmark events: upstream's
   ``insert_kafka.sql`` (``INSERT INTO kafka SELECT event_type, person, auction, bid FROM
   datagen``) run by sqlengine over its ``nexmark`` connector, one generator, ``--rate``
   events per second of event time (default 1,000: one event per millisecond, so no two
   events share a time and the queries' answers are a function of the events; each
   partition holds its events in time order, so neither engine sees a late event).
2. For every query (upstream's text, benchmarks/nexmark/queries; only the DDL adapted, see
   ``script``, and q23's ``dateTime`` quoted: ``suite.QUOTED``) and every round, each side runs
   as a whole process of its own, in an order that alternates between rounds: ``sqlengine``
   (parallelism 2, Spark ``local[2]``), ``flink`` under Flink's defaults and ``flink-nexmark``
   under Nexmark's configuration (``table.exec.mini-batch.*`` 2 s / 50,000 rows,
   ``table.optimizer.distinct-agg.split.enabled``; its RocksDB state backend is not taken: the
   default heap backend is faster here), both parallelism 2 through
   ``flink-sql-connector-kafka`` from Maven Central.
   Optionally (``--in-process``) ``sqlengine-gen``: sqlengine on its in-process ``nexmark``
   connector instead of Kafka. Every side reads the topic from the earliest offset to the
   latest (``scan.bounded.mode``), checkpoints every ``--interval`` and writes to a Kafka
   topic of its own, exactly once, in ``debezium-json`` (so that updating queries can be
   written as they are).
3. Every output is read back (``read_committed``), materialized (a ``d`` event retracts its
   row) and reduced to a row count and a digest of the sorted rows (benchmarks/nexmark/
   suite.py: ``canonical``, ``TIES``); all sides of a query must agree, in every round.
   q12 (processing-time windows) is the one query whose rows depend on when they are
   processed: its output is counted, not compared. Where one of Flink's configurations
   answers wrongly (``FLINK_WRONG``: q9 under Flink's defaults retracts no replaced Top-1
   row), that side is shown, not compared, and does not count as Flink's best.
   ``sqlengine-gen`` reads events of its own: one generator per unit of parallelism, each on
   its own timeline (upstream's ``numEventGenerators``), where one generator filled the topic,
   so its answers differ from the Kafka sides'; each round's is checked against its first.

Timed: the INSERT statement, from its submission to the end of its job (the JVM started
and warmed up first, as in a running shell); events/s = events / those seconds. CPU
seconds and peak RSS are the whole process tree's (sampled with psutil), from start to
exit. The table shows medians over rounds; Flink's column is the faster of its two
configurations per query; ratio = sqlengine events/s / Flink's. Results go to
``--json`` (default benchmarks/results/nexmark.json) and a bar chart beside it (the same
name with ``.png``, or ``--chart``).

q13's side input is upstream's 10,000 ``key,value`` lines; upstream declares it with the
legacy ``connector.type = filesystem`` table, a lookup source in Flink 1.x; in Flink 2.3 a
``filesystem`` table is no lookup source, so Flink runs q13 as the regular join its answer
equals over a side input that never changes (sqlengine runs the lookup join as written).
q14's ``count_char`` is upstream's Java function on Flink (compiled here from
nexmark-flink's ``CountChar.java`` source text, below) and a vectorized Python function on
sqlengine (benchmarks/nexmark/udf.py). q10's sink is a Kafka topic here, not upstream's
partitioned files (its SELECT unchanged), so that its output is checked like the others.

Usage:
    .venv/bin/python benchmarks/nexmark.py [--events 10000000] [--rounds 3]
        [--queries q0,q1,...] [--no-flink] [--in-process] [--interval '10 s']
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.kafka_pipeline import FLINK_KAFKA, FLINK_PYTHON, Sample, TXN_TIMEOUT_MS  # noqa: E402
from benchmarks.nexmark import suite  # noqa: E402

PARTITIONS = 8
BASE_TIME = 1700000000000
SIDES = ("sqlengine", "flink", "flink-nexmark")
NEXMARK_CONF = {"table.exec.mini-batch.enabled": "true", "table.exec.mini-batch.allow-latency": "2 s",
                "table.exec.mini-batch.size": "50000", "table.optimizer.distinct-agg.split.enabled": "true"}
NOT_COMPARED = {"q12": "processing-time windows: rows depend on when they are processed"}
# Sides that read events of their own, not the topic's: sqlengine on its nexmark connector
# runs one generator per unit of parallelism (upstream's numEventGenerators), each on its own
# timeline (GeneratorConfig.split), where the topic was filled by one generator; so its
# events' times, and the answers, differ from the Kafka sides'. Its output is checked against
# its own first round instead (the same events every round: 'base-time' is fixed).
OWN_EVENTS = ("sqlengine-gen",)
# A Flink configuration whose output for a query is wrong (checked against Flink's own other
# configuration and its batch answer, tests/nexmark/expected): its output is shown, not
# compared, and its time is not Flink's best for that query.
FLINK_WRONG = {("q9", "flink"): "Flink's defaults write each new Top-1 row of an auction without "
                                "retracting the one it replaces (no 'd' event: 1,282,111 and 1,282,848 rows "
                                "for 557,544 auctions in two runs at 10M events)"}
COUNT_CHAR_JAVA = """package com.github.nexmark.flink.udf;

import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.functions.ScalarFunction;

/** nexmark-flink's CountChar, as upstream wrote it. */
public class CountChar extends ScalarFunction {
    public long eval(@DataTypeHint("STRING") StringData s, @DataTypeHint("STRING") StringData character) {
        long count = 0;
        if (null != s) {
            byte[] bytes = s.toBytes();
            byte chr = character.toBytes()[0];
            for (byte aByte : bytes) {
                if (aByte == chr) {
                    count++;
                }
            }
        }
        return count;
    }
}
"""


# -- the statements ------------------------------------------------------------------------
def kafka_source(bootstrap: str) -> str:
    """upstream's ddl_kafka.sql, bounded by the topic's end (and no sink option)."""
    text = (suite.HERE / "queries" / "ddl_kafka.sql").read_text().replace("${BOOTSTRAP_SERVERS}", bootstrap)
    text = text.replace("'sink.partitioner' = 'round-robin',",
                        "'scan.bounded.mode' = 'latest-offset',")
    return text.strip().rstrip(";")


def kafka_sink(bootstrap: str, topic: str) -> str:
    return (f"'connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{bootstrap}', "
            "'format' = 'debezium-json', 'sink.delivery-guarantee' = 'exactly-once', "
            f"'sink.transactional-id-prefix' = '{topic}', "
            f"'properties.transaction.timeout.ms' = '{TXN_TIMEOUT_MS}'")


def script(query: str, side: str, bootstrap: str, topic: str, side_input: str, events: int, rate: int) -> list[str]:
    """The statements one side runs: upstream's query file with its sink table's WITH
    clause replaced by the Kafka sink, after the source table and upstream's views."""
    flink = side.startswith("flink")
    if side == "sqlengine-gen":
        source = suite.nexmark_source(events, rate, BASE_TIME)
    else:
        source = kafka_source(bootstrap)
    name = "kafka" if side != "sqlengine-gen" else "datagen"
    folder = "queries-cep" if query.startswith("cep-") else "queries"
    views = (suite.HERE / folder / "ddl_views.sql").read_text().replace("${NEXMARK_TABLE}", name)
    out = [source] + suite.split(views)
    for st in suite.split(suite._file(query).read_text()):
        head = re.sub(r"\s+", " ", st).upper()
        if head.startswith("CREATE FUNCTION COUNT_CHAR"):
            out.append("CREATE FUNCTION count_char AS 'com.github.nexmark.flink.udf.CountChar'" if flink
                       else suite.ADAPTED["CREATE FUNCTION count_char"])
        elif head.startswith("CREATE TABLE SIDE_INPUT"):
            out.append("CREATE TABLE side_input (key BIGINT, `value` VARCHAR) WITH ("
                       f"'connector' = 'filesystem', 'path' = '{side_input}', 'format' = 'csv')")
        elif head.startswith("CREATE TABLE"):
            st = re.sub(r"(?is)\)\s*PARTITIONED\s+BY\s*\([^)]*\)", ")", st)  # q10: a Kafka topic, not files
            st = re.sub(r"(?is)\bWITH\s*\(.*\)\s*$", f"WITH ({kafka_sink(bootstrap, topic)})", st)
            out.append(st)
        elif head.startswith("INSERT") and flink and query == "q13":
            out.append(st.replace("FOR SYSTEM_TIME AS OF B.p_time ", ""))
        elif head.startswith("INSERT"):
            out.append(suite.quoted(query, st))
        else:
            out.append(st)
    return out


# -- the sides (each a process of its own) ----------------------------------------------------
def run_sqlengine(stmts: list[str], conf: dict) -> dict:
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from sqlengine.api.session import Session
    t = time.perf_counter()
    session = Session(conf)
    session.spark.range(1).count()  # start (and warm up) the JVM outside the timed part
    from sqlengine.runtime import warmup
    warmup.wait()
    warm = time.perf_counter() - t
    *ddl, insert = stmts
    for s in ddl:
        session.execute_sql(s)
    t = time.perf_counter()
    session.execute_sql(insert).wait()
    seconds = time.perf_counter() - t
    jfr = re.search(r"StartFlightRecording=filename=([^,]+)", conf.get("spark.driver.extraJavaOptions", ""))
    if jfr:  # the JVM may not live to dump at its exit: dump now
        pid = session.spark._jvm.java.lang.ProcessHandle.current().pid()
        subprocess.run(["jcmd", str(pid), "JFR.dump", f"filename={jfr.group(1)}"], capture_output=True)
    return {"seconds": seconds, "warmup": warm}


def run_flink(stmts: list[str], conf: dict) -> dict:
    from pyflink.table import EnvironmentSettings, TableEnvironment
    t = time.perf_counter()
    env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    config = env.get_config()
    for k, v in conf.items():
        config.set(k, v)
    with env.execute_sql("SELECT 1").collect() as rows:  # the JVM and a mini-cluster, untimed
        list(rows)
    warm = time.perf_counter() - t
    *ddl, insert = stmts
    for s in ddl:
        env.execute_sql(s)
    t = time.perf_counter()
    env.execute_sql(insert).wait()
    return {"seconds": time.perf_counter() - t, "warmup": warm}


def child(path: str) -> None:
    """Run one side's job; a failure ends the process at once (an engine's non-daemon
    threads would otherwise keep it alive, and the harness waiting for its timeout)."""
    job = json.loads(Path(path).read_text())
    run = run_flink if job["side"].startswith("flink") else run_sqlengine
    try:
        result = run(job["statements"], job["conf"])
    except BaseException as e:  # noqa: BLE001 - reported, then the process ends
        import traceback
        traceback.print_exc()
        print(f"FAILED {type(e).__name__}: {e}"[:2000], flush=True)
        sys.stderr.flush()
        os._exit(1)
    print("RESULT " + json.dumps(result), flush=True)


def fill(path: str) -> None:
    """(a child) upstream's insert_kafka.sql over the nexmark connector, one generator."""
    job = json.loads(Path(path).read_text())
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from sqlengine.api.session import Session
    session = Session({"parallelism.default": "1", "execution.checkpointing.dir": job["ck"]})
    session.execute_sql(suite.nexmark_source(job["events"], job["rate"], BASE_TIME))
    session.execute_sql(kafka_source(job["bootstrap"]).replace("'scan.bounded.mode' = 'latest-offset',",
                                                                 "'sink.partitioner' = 'round-robin',"))
    insert = suite.split((suite.HERE / "queries" / "insert_kafka.sql").read_text())[0]
    t = time.perf_counter()
    session.execute_sql(insert).wait()
    print("RESULT " + json.dumps({"seconds": time.perf_counter() - t}), flush=True)


class Memory(Sample):
    """``Sample`` (peak RSS summed over the process tree, CPU) plus the peak PSS: summed RSS
    counts a page shared by forked processes (Spark's Python workers fork from a daemon) once
    per process; PSS shares it among them, so a tree's PSS is the memory it holds."""

    def __init__(self, pid: int):
        super().__init__(pid)
        self.peak_pss = 0
        self.ticks = 0

    def tick(self) -> None:
        import psutil
        super().tick()
        self.ticks += 1
        if self.ticks % 20:  # PSS every 2 s: reading smaps every 0.5 s kept the sampler at 0.3 of a core
            return
        pss = 0
        try:
            procs = [self.root] + self.root.children(recursive=True)
        except psutil.Error:
            return
        for pr in procs:
            try:
                pss += pr.memory_full_info().pss
            except (psutil.Error, AttributeError):
                continue
        self.peak_pss = max(self.peak_pss, pss)


def spawn(python: str, mode: str, job: dict, log: Path, timeout: float, py_spy: str | None = None) -> dict:
    spec = log.with_suffix(".json")
    spec.write_text(json.dumps(job))
    t = time.perf_counter()
    with open(log, "wb") as out:
        proc = subprocess.Popen([python, __file__, mode, str(spec)], stdout=out, stderr=subprocess.STDOUT, cwd=REPO)
        if py_spy:  # every Python process of the side (driver, Spark's Python workers), sampled
            subprocess.Popen([py_spy, "record", "--subprocesses", "--nonblocking", "--rate", "50", "--format", "raw",
                              "--pid", str(proc.pid), "-o", str(log.with_suffix(".pyspy.txt"))],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        sample = Memory(proc.pid)
        deadline = time.monotonic() + timeout
        while proc.poll() is None:
            sample.tick()
            if time.monotonic() > deadline:
                proc.kill()
                proc.wait()
                break
            time.sleep(0.1)
    wall = time.perf_counter() - t
    text = log.read_text(errors="replace")
    result = next((json.loads(line[7:]) for line in reversed(text.splitlines()) if line.startswith("RESULT ")), None)
    if proc.returncode != 0 or result is None:
        tail = "\n".join(text.splitlines()[-25:])
        return {"failed": f"exit {proc.returncode}: ...{tail[-3000:]}", "wall": wall}
    result.update(wall=wall, rss_mb=sample.peak / 2 ** 20, pss_mb=sample.peak_pss / 2 ** 20,
                  cpu=sum(sample.cpu.values()))
    return result


# -- checking outputs -------------------------------------------------------------------------
def output(bootstrap: str, topic: str, query: str, dump: str | None = None) -> dict:
    """The committed changelog of ``topic`` materialized: row count and digest (and the
    records, one per line, into ``dump``/``topic``.jsonl)."""
    from benchmarks.kafka_pipeline import read_committed
    table: Counter = Counter()
    records = [0]
    out = open(Path(dump) / f"{topic}.jsonl", "wb") if dump else None

    def add(_key, value):
        if value is None:
            return
        records[0] += 1
        if out is not None:
            out.write(value + b"\n")
        event = json.loads(value)
        row = event["after"] if event["op"] in ("c", "r") else event["before"]
        key = tuple(suite.canonical(v) for v in row.values())
        table[key] += 1 if event["op"] in ("c", "r") else -1
    read_committed(bootstrap, topic, add)
    if out is not None:
        out.close()
    # A topic's partitions are read one after another, so a retraction may come before the
    # row it retracts (the writer spread them over partitions): signed counts, summed.
    unmatched = sum(-n for n in table.values() if n < 0)
    table = Counter({k: n for k, n in table.items() if n > 0})
    d = suite.digest(table, query)
    if unmatched:
        d["unmatched_retractions"] = unmatched
    d["records"] = records[0]
    d.pop("head", None)
    return d


def create_topic(bootstrap: str, name: str) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic(name, PARTITIONS, 1)]).values():
        f.result()


def compile_count_char(flink_python: str, tmp: Path) -> str:
    """nexmark-flink's CountChar compiled against PyFlink's jars."""
    lib = subprocess.run([flink_python, "-c", "import pyflink, os; print(os.path.dirname(pyflink.__file__))"],
                         capture_output=True, text=True, check=True).stdout.strip()
    src = tmp / "udf" / "com" / "github" / "nexmark" / "flink" / "udf"
    src.mkdir(parents=True)
    (src / "CountChar.java").write_text(COUNT_CHAR_JAVA)
    cp = f"{lib}/lib/*"
    subprocess.run(["javac", "-cp", cp, "-d", str(tmp / "udf-classes"), str(src / "CountChar.java")], check=True,
                   capture_output=True)
    jar = tmp / "nexmark-udf.jar"
    subprocess.run(["jar", "cf", str(jar), "-C", str(tmp / "udf-classes"), "."], check=True)
    return str(jar)


# -- the driver ---------------------------------------------------------------------------------
def side_conf(side: str, tmp: Path, tag: str, args, jars: str) -> dict:
    # -Xshare:auto keeps sqlengine from dumping a class-data archive at the JVM's exit
    # (runtime/classdata.py), which would switch the Flight Recorder off.
    jfr = (f"-XX:StartFlightRecording=filename={Path(args.profile) / tag}.jfr,settings=profile -Xshare:auto"
           if args.profile else None)
    # A job that fails fails its round (no restart): both engines would restart it, and a
    # failure that recurs would hold the round until its timeout.
    if side.startswith("sqlengine"):
        conf = {"parallelism.default": "2", "execution.checkpointing.dir": str(tmp / f"ck-{tag}"),
                "execution.checkpointing.interval": args.interval, "restart-strategy.type": "none"}
        if jfr:
            conf["spark.driver.extraJavaOptions"] = jfr
        conf.update(kv.split("=", 1) for kv in args.set)
        return conf
    conf = {"pipeline.jars": jars, "parallelism.default": "2", "execution.checkpointing.interval": args.interval,
            "python.executable": args.flink_python,
            # Flink keeps checkpoints in the JobManager's memory (at most 5 MB of state) without it
            "execution.checkpointing.dir": f"file://{tmp}/ck-{tag}", "restart-strategy.type": "none"}
    if side == "flink-nexmark":
        conf.update(NEXMARK_CONF)
    return conf


def median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def summarize(events: int, results: dict, sides: list[str]) -> tuple[str, list[dict]]:
    rows = []
    for q, by_side in results.items():
        row = {"query": q}
        for side in sides:
            runs = [r for r in by_side.get(side, []) if not r.get("failed")]
            if runs:
                row[side] = {"events_s": events / median([r["seconds"] for r in runs]),
                             "cpu": median([r["cpu"] for r in runs]), "rss_mb": median([r["rss_mb"] for r in runs]),
                             "pss_mb": median([r.get("pss_mb", 0) for r in runs]),
                             "rounds": len(runs)}
        flinks = [s for s in ("flink", "flink-nexmark") if s in row and (q, s) not in FLINK_WRONG]
        if flinks:
            best = max(flinks, key=lambda s: row[s]["events_s"])
            row["flink_best"] = best
        checks = by_side.get("_check", [])
        row["check"] = ("ok" if checks and all(c == "ok" for c in checks) else
                        "; ".join(sorted({c for c in checks if c != "ok"})) or "-")
        rows.append(row)
    head = ("| query | sqlengine events/s | Flink events/s (config) | ratio | sqlengine CPU s | Flink CPU s "
            "| sqlengine peak RSS / PSS MB | Flink peak RSS / PSS MB | output |")
    gen = "sqlengine-gen" in sides
    if gen:
        head += " sqlengine on the nexmark connector, events/s |"
    lines = [head, "|---|--:|--:|--:|--:|--:|--:|--:|---|" + ("--:|" if gen else "")]
    ratios = []
    for row in rows:
        s, b = row.get("sqlengine"), row.get(row.get("flink_best", ""))
        ratio = s["events_s"] / b["events_s"] if s and b else None
        if ratio:
            ratios.append(ratio)
        # "-": the side was not run (``--no-flink``); "failed": it ran and every round failed
        f = lambda x, k, fmt, ran=True: (fmt.format(x[k]) if x else "failed" if ran else "-")  # noqa: E731
        ran_flink = any(side in sides for side in ("flink", "flink-nexmark"))
        cfg = {"flink": "defaults", "flink-nexmark": "Nexmark's"}.get(row.get("flink_best", ""), "")
        lines.append(f"| {row['query']} | {f(s, 'events_s', '{:,.0f}')} | {f(b, 'events_s', '{:,.0f}', ran_flink)}{f' ({cfg})' if cfg else ''} | "
                     f"{f'{ratio:.2f}x' if ratio else '-'} | {f(s, 'cpu', '{:.0f}')} | "
                     f"{f(b, 'cpu', '{:.0f}', ran_flink)} | {f(s, 'rss_mb', '{:,.0f}')} / {f(s, 'pss_mb', '{:,.0f}')} | "
                     f"{f(b, 'rss_mb', '{:,.0f}', ran_flink)} / {f(b, 'pss_mb', '{:,.0f}', ran_flink)} | {row['check']} |"
                     + (f" {f(row.get('sqlengine-gen'), 'events_s', '{:,.0f}')} |" if gen else ""))
    if ratios:
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        lines.append(f"\ngeometric mean of the ratios: {geo:.2f}x over {len(ratios)} queries")
    return "\n".join(lines), rows


def compare(q: str, seen: dict[str, dict], sides: list[str], own_first: dict) -> str:
    """One round's check of a query: every side reading the topic gave the same rows (but
    FLINK_WRONG's), and each OWN_EVENTS side the rows of its own first round (``own_first``:
    (query, side) -> that output, filled here)."""
    digest = lambda o: json.dumps({k: v for k, v in o.items() if k != "records"}, sort_keys=True)  # noqa: E731
    wrong = [side for side in seen if (q, side) in FLINK_WRONG]
    digests = {digest(o) for side, o in seen.items() if side not in wrong and side not in OWN_EVENTS}
    own_bad = [side for side in seen if side in OWN_EVENTS
               and digest(own_first.setdefault((q, side), seen[side])) != digest(seen[side])]
    if q in NOT_COMPARED:
        return "not compared: " + NOT_COMPARED[q]
    if len(seen) < len(sides):
        return "a side failed"
    if len(digests) == 1 and not own_bad:
        return ("ok" + "".join(f" (not compared: {side}, see FLINK_WRONG)" for side in wrong)
                + "".join(f" ({side}: its own events, checked against its first round)"
                          for side in seen if side in OWN_EVENTS))
    return "MISMATCH " + ", ".join(f"{s}: {o['rows']} rows" for s, o in seen.items()) + \
        "".join(f" ({side}: not the rows of its first round)" for side in own_bad)


def save(args, results: dict, sides: list[str]) -> tuple[str, list[dict]]:
    """The run so far into ``--json``: the measured queries' rows and every run."""
    text, rows = summarize(args.events, {q: r for q, r in results.items() if r}, sides)
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps({"events": args.events, "rate": args.rate, "rounds": args.rounds,
                                           "interval": args.interval, "rows": rows, "runs": results}, indent=1))
    return text, rows


def chart(rows: list[dict], path: Path, events: int) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    qs = [r["query"] for r in rows]
    s = [r.get("sqlengine", {}).get("events_s", 0) / 1e3 for r in rows]
    f = [r.get(r.get("flink_best", ""), {}).get("events_s", 0) / 1e3 for r in rows]
    fig, ax = plt.subplots(figsize=(max(8, len(qs) * 0.55), 4))
    x = range(len(qs))
    ax.bar([i - 0.2 for i in x], s, 0.4, label="sqlengine")
    ax.bar([i + 0.2 for i in x], f, 0.4, label="Flink 2.3 (faster of defaults / Nexmark's config)")
    ax.set_xticks(list(x), qs, rotation=60)
    ax.set_ylabel("thousand events/s")
    ax.set_title(f"Nexmark, {events:,} events from Kafka, parallelism 2 (medians)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=10_000_000)
    ap.add_argument("--rate", type=int, default=1_000, help="events per second of event time")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--queries", default=",".join(suite.QUERIES + suite.CEP))
    ap.add_argument("--interval", default="10 s", help="execution.checkpointing.interval, both engines")
    ap.add_argument("--no-flink", action="store_true")
    ap.add_argument("--flink-configs", default="flink,flink-nexmark")
    ap.add_argument("--in-process", action="store_true", help="also sqlengine on its nexmark connector")
    ap.add_argument("--flink-python", default=FLINK_PYTHON)
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per run")
    ap.add_argument("--profile", help="a folder for sqlengine's profiles: its JVM's Flight Recording (<run>.jfr) and "
                    "every Python process's stacks by py-spy (<run>.pyspy.txt); not for timing")
    ap.add_argument("--py-spy", default="py-spy", help="the py-spy executable (a tool, never a dependency)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a setting of sqlengine's side (e.g. sqlengine.kafka.arrow-json=false)")
    ap.add_argument("--dump", help="a folder to write every output topic's records to (<topic>.jsonl)")
    ap.add_argument("--json", default=str(REPO / "benchmarks" / "results" / "nexmark.json"))
    ap.add_argument("--chart", help="the bar chart's PNG (default: --json's path with .png)")
    args = ap.parse_args()
    if args.profile:
        Path(args.profile).mkdir(parents=True, exist_ok=True)
    from tests.connectors.kafka.broker import Broker, maven_jars
    queries = [q for q in args.queries.split(",") if q]
    sides = ["sqlengine"] + (["sqlengine-gen"] if args.in_process else [])
    if not args.no_flink:
        sides += [s for s in args.flink_configs.split(",") if s]
    results: dict = {q: {} for q in queries}
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="nexmark-bench-") as tmpdir:
        tmp = Path(tmpdir)
        jars = ""
        if any(s.startswith("flink") for s in sides):
            lib = maven_jars(f"org.apache.flink:flink-sql-connector-kafka:{FLINK_KAFKA}")
            jars = ";".join(f"file://{p}" for p in [next(lib.glob("flink-sql-connector-kafka-*.jar")),
                                                     compile_count_char(args.flink_python, tmp)])
        side_input = tmp / "side_input.csv"
        side_input.write_text("".join(f"{k},{k * 2}\n" for k in range(10_000)))
        broker = Broker(tmp).start()
        try:
            bs = broker.bootstrap
            create_topic(bs, "nexmark")
            r = spawn(sys.executable, "--fill", {"events": args.events, "rate": args.rate, "bootstrap": bs,
                                                 "ck": str(tmp / "ck-fill")}, tmp / "fill.log", args.timeout)
            if r.get("failed"):
                raise SystemExit(f"filling the topic failed: {r['failed']}")
            print(f"# {args.events:,} events into topic nexmark (8 partitions) in {r['seconds']:.0f} s", flush=True)
            own_first: dict = {}
            for rnd in range(args.rounds):
                for q in queries:
                    order = sides if rnd % 2 == 0 else list(reversed(sides))
                    seen: dict[str, dict] = {}
                    for side in order:
                        tag = f"{q}-{side}-{rnd}".replace("_", "-")
                        topic = f"out-{tag}"
                        create_topic(bs, topic)
                        stmts = script(q, side, bs, topic, str(side_input), args.events, args.rate)
                        python = args.flink_python if side.startswith("flink") else sys.executable
                        job = {"side": side, "statements": stmts, "conf": side_conf(side, tmp, tag, args, jars)}
                        res = spawn(python, "--child", job, (Path(args.profile) if args.profile else tmp) / f"{tag}.log",
                                    args.timeout, args.py_spy if args.profile and side.startswith("sqlengine") else None)
                        if not res.get("failed"):
                            res["output"] = output(bs, topic, q, args.dump)
                            seen[side] = res["output"]
                        else:
                            problems.append(f"round {rnd + 1} {q} {side} failed: {res['failed'][-600:]}")
                        results[q].setdefault(side, []).append(res)
                        shown = {k: (round(v, 1) if isinstance(v, float) else v) for k, v in res.items()
                                 if k in ("seconds", "cpu", "rss_mb", "pss_mb", "failed")}
                        print(f"# round {rnd + 1} {q} {side}: {json.dumps(shown)[:300]} "
                              f"output {json.dumps(res.get('output'))}", flush=True)
                    check = compare(q, seen, sides, own_first)
                    if check.startswith("MISMATCH"):
                        problems.append(f"round {rnd + 1} {q}: {check}")
                    results[q].setdefault("_check", []).append(check)
                    save(args, results, sides)  # after every query: a run stopped early keeps what it measured
        finally:
            broker.stop()
    text, rows = save(args, results, sides)
    print()
    print(text)
    try:
        chart(rows, Path(args.chart) if args.chart else Path(args.json).with_suffix(".png"), args.events)
    except ImportError as e:
        print(f"# no chart: {e}")
    if problems:
        print("\n!!! MISMATCH / FAILURE !!!", file=sys.stderr)
        for p in problems:
            print(f"!!! {p}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(sys.argv[2])
    elif len(sys.argv) > 2 and sys.argv[1] == "--fill":
        fill(sys.argv[2])
    else:
        main()
