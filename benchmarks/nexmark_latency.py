"""End-to-end latency of Nexmark q1, q5 and q7, sqlengine against Apache Flink 2.3 (issue 24):
a record appended to the input topic -> its result visible to a ``read_committed`` reader of
the output topic, at a steady ``--rate`` (default 20,000 events/s), both engines exactly once
into Kafka with the same ``execution.checkpointing.interval``.

Per query and engine (one after the other, never at once: the machine has two cores), on a
fresh pair of topics: the engine starts the query (upstream's text, its sink a Kafka topic in
``json``; unbounded Kafka source, parallelism 2), then a producer thread appends Nexmark
events (sqlengine's generator, upstream's mix of persons, auctions and bids) round-robin
into the 8 partitions, ``--rate`` per second in 10 ms slices, each event's ``dateTime`` set
to the wall-clock time it is appended. A consumer thread reads the output topic
``read_committed`` and notes when each record becomes visible. The first ``--warmup``
seconds are not measured (the job's start and its backlog); then ``--seconds`` of input.

When a result could first exist ("ready"):
* q1 (a projection of each bid): when its bid was appended, ``dateTime``.
* q7 (the highest bid of each 10 s tumbling window): when the window can close, its end
  plus the watermark's 4 s (the first event at or past ``end + 4 s`` moves the watermark
  past the end), the end computed from the bid's ``dateTime``.
* q5 (the hottest auctions of each 2 s-sliding 10 s window): the same, but q5's output has
  no time column, so this benchmark runs q5 with its window's end added to the SELECT
  (``AuctionBids.endtime``): the one change to upstream's text here.
latency = visible - ready; the table shows p50 / p99 / max over the measured records.

Usage: .venv/bin/python benchmarks/nexmark_latency.py [--rate 20000] [--seconds 90]
       [--warmup 45] [--interval '1 s'] [--queries q1,q5,q7] [--no-flink]
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.kafka_pipeline import FLINK_KAFKA, FLINK_PYTHON, TXN_TIMEOUT_MS  # noqa: E402
from benchmarks.nexmark import suite  # noqa: E402

PARTITIONS = 8
WATERMARK_MS = 4000
WINDOW_MS = {"q5": None, "q7": 10_000}
PLACEHOLDER = "@@TS@@"


def statements(query: str, bootstrap: str, src: str, out: str) -> list[str]:
    text = (suite.HERE / "queries" / "ddl_kafka.sql").read_text().replace("${BOOTSTRAP_SERVERS}", bootstrap)
    text = text.replace("'topic' = 'nexmark'", f"'topic' = '{src}'").replace(
        "'sink.partitioner' = 'round-robin',", "")
    views = (suite.HERE / "queries" / "ddl_views.sql").read_text().replace("${NEXMARK_TABLE}", "kafka")
    stmts = [text.strip().rstrip(";")] + suite.split(views)
    sink = (f"'connector' = 'kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{bootstrap}', "
            "'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once', "
            f"'sink.transactional-id-prefix' = '{out}', 'properties.transaction.timeout.ms' = '{TXN_TIMEOUT_MS}'")
    for st in suite.split(suite._file(query).read_text()):
        if query == "q5":  # the window's end in the output, to know which window a row answers
            st = st.replace("num  BIGINT\n)", "num  BIGINT,\n  endtime TIMESTAMP(3)\n)")
            st = st.replace("SELECT AuctionBids.auction, AuctionBids.num",
                            "SELECT AuctionBids.auction, AuctionBids.num, AuctionBids.endtime")
        if st.upper().startswith("CREATE TABLE"):
            st = re.sub(r"(?is)\bWITH\s*\(.*\)\s*$", f"WITH ({sink})", st)
        stmts.append(st)
    return stmts


# -- the engine (a child process) -------------------------------------------------------------
def child(spec: str) -> None:
    job = json.loads(Path(spec).read_text())
    *ddl, insert = job["statements"]
    if job["side"] == "flink":
        from pyflink.table import EnvironmentSettings, TableEnvironment
        env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
        for k, v in job["conf"].items():
            env.get_config().set(k, v)
        for s in ddl:
            env.execute_sql(s)
        result = env.execute_sql(insert)
        print("STARTED", flush=True)
        result.wait()
    else:
        os.environ["PYSPARK_PYTHON"] = sys.executable
        from sqlengine.api.session import Session
        session = Session(job["conf"])
        for s in ddl:
            session.execute_sql(s)
        result = session.execute_sql(insert)
        print("STARTED", flush=True)
        result.wait()


# -- input and output ---------------------------------------------------------------------------
def events(n: int, rate: int) -> list[str]:
    """``n`` Nexmark events as JSON with a placeholder for their time."""
    from connectors.nexmark.generator import Config
    config = Config(events=n, generators=1, base_time=1700000000000, first_rate=rate, next_rate=rate)
    out = []
    for split in config.splits():
        batch = split.batch(0, split.count)
        for row in batch.to_pylist():
            kind = row["event_type"]
            field = ("person", "auction", "bid")[kind]
            for k in ("person", "auction", "bid"):
                v = row[k]
                if v is not None:
                    row[k] = {f: (x.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] if isinstance(x, dt.datetime) else x)
                              for f, x in v.items()}
            row[field]["dateTime"] = PLACEHOLDER
            out.append(json.dumps(row))
    return out


def now_text(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def parse_ts(text: str) -> float:
    """A JSON timestamp as both engines write it: the fraction only when it is not zero
    (q5's window end, a whole second, has none)."""
    text = text.replace("T", " ")[:23]
    form = "%Y-%m-%d %H:%M:%S.%f" if "." in text else "%Y-%m-%d %H:%M:%S"
    return dt.datetime.strptime(text, form).replace(tzinfo=dt.timezone.utc).timestamp()


def produce(bootstrap: str, topic: str, lines: list[str], rate: int, stop: threading.Event) -> None:
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "queue.buffering.max.messages": 2000000})
    per_slice = max(1, rate // 100)
    start = time.time()
    i = 0
    while not stop.is_set() and i < len(lines):
        now = time.time()
        ts = now_text(now)
        for line in lines[i:i + per_slice]:
            p.produce(topic, line.replace(PLACEHOLDER, ts), partition=i % PARTITIONS)
            i += 1
        p.poll(0)
        wait = start + i / rate - time.time()
        if wait > 0:
            time.sleep(wait)
    p.flush(30)


def consume(bootstrap: str, topic: str, seen: list, stop: threading.Event) -> None:
    from confluent_kafka import Consumer, TopicPartition
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"lat-{topic}", "enable.auto.commit": False,
                  "isolation.level": "read_committed"})
    while True:
        try:
            parts = sorted(c.list_topics(topic, timeout=10).topics[topic].partitions)
            break
        except Exception:  # noqa: BLE001 - the topic is being created
            time.sleep(0.5)
    c.assign([TopicPartition(topic, q, 0) for q in parts])
    while not stop.is_set():
        for m in c.consume(10000, 0.05):
            if m.error() is None and m.value() is not None:
                seen.append((time.time(), m.value()))
    c.close()


def ready_time(query: str, value: bytes) -> float:
    row = json.loads(value)
    if query == "q1":
        return parse_ts(row["dateTime"])
    if query == "q5":
        return parse_ts(row["endtime"]) + WATERMARK_MS / 1000
    ts = parse_ts(row["dateTime"])
    end = (int(ts * 1000) // WINDOW_MS["q7"] + 1) * WINDOW_MS["q7"]
    return end / 1000 + WATERMARK_MS / 1000


def percentile(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def run(query: str, side: str, bs: str, tmp: Path, lines: list[str], args, jar: str) -> dict:
    from confluent_kafka.admin import AdminClient, NewTopic
    src, out = f"in-{query}-{side}", f"out-{query}-{side}"
    admin = AdminClient({"bootstrap.servers": bs})
    for f in admin.create_topics([NewTopic(t, PARTITIONS, 1) for t in (src, out)]).values():
        f.result()
    conf = {"parallelism.default": "2", "execution.checkpointing.interval": args.interval}
    conf["execution.checkpointing.dir"] = str(tmp / f"ck-{query}-{side}")
    if side == "flink":  # (Flink keeps checkpoints in the JobManager's memory, 5 MB at most, without a dir)
        conf["pipeline.jars"] = f"file://{jar}"
        conf["execution.checkpointing.dir"] = "file://" + conf["execution.checkpointing.dir"]
    else:
        conf.update(kv.split("=", 1) for kv in args.set)
    spec = tmp / f"{query}-{side}.json"
    spec.write_text(json.dumps({"side": side, "conf": conf, "statements": statements(query, bs, src, out)}))
    log = tmp / f"{query}-{side}.log"
    python = args.flink_python if side == "flink" else sys.executable
    with open(log, "wb") as fh:
        proc = subprocess.Popen([python, __file__, "--child", str(spec)], stdout=fh, stderr=subprocess.STDOUT,
                                cwd=REPO)
    try:
        deadline = time.monotonic() + 300
        while "STARTED" not in log.read_text(errors="replace"):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{side} {query} did not start:\n{log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.5)
        stop_in, stop_out, seen = threading.Event(), threading.Event(), []
        cons = threading.Thread(target=consume, args=(bs, out, seen, stop_out), daemon=True)
        cons.start()
        t0 = time.time()
        prod = threading.Thread(target=produce, args=(bs, src, lines, args.rate, stop_in), daemon=True)
        prod.start()
        prod.join(args.warmup + args.seconds + 60)
        stop_in.set()
        t_end = time.time()
        time.sleep(args.drain)  # the last windows' results (their watermark needs later input: not measured)
        stop_out.set()
        cons.join(30)
        if proc.poll() is not None:
            raise RuntimeError(f"{side} {query} died:\n{log.read_text(errors='replace')[-3000:]}")
    finally:
        proc.kill()
        proc.wait()
    lo, hi = t0 + args.warmup, t_end - (WINDOW_MS.get(query) or 10_000) / 1000 - WATERMARK_MS / 1000
    lat = []
    for visible, value in seen:
        ready = ready_time(query, value)
        if lo <= ready <= hi:
            lat.append(visible - ready)
    if not lat:
        return {"records": 0}
    return {"records": len(lat), "p50": percentile(lat, 50), "p99": percentile(lat, 99), "max": max(lat)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rate", type=int, default=20_000)
    ap.add_argument("--seconds", type=float, default=90)
    ap.add_argument("--warmup", type=float, default=45)
    ap.add_argument("--drain", type=float, default=20)
    ap.add_argument("--interval", default="1 s")
    ap.add_argument("--queries", default="q1,q5,q7")
    ap.add_argument("--no-flink", action="store_true")
    ap.add_argument("--flink-python", default=FLINK_PYTHON)
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a setting of sqlengine's side (e.g. sqlengine.state.write-threads=0)")
    ap.add_argument("--json", default=str(REPO / "benchmarks" / "results" / "nexmark_latency.json"))
    args = ap.parse_args()
    from tests.connectors.kafka.broker import Broker, maven_jars
    jar = ""
    sides = ["sqlengine"] if args.no_flink else ["sqlengine", "flink"]
    if "flink" in sides:
        lib = maven_jars(f"org.apache.flink:flink-sql-connector-kafka:{FLINK_KAFKA}")
        jar = str(next(lib.glob("flink-sql-connector-kafka-*.jar")))
    n = int(args.rate * (args.warmup + args.seconds + 5))
    t = time.perf_counter()
    lines = events(n, args.rate)
    print(f"# {n:,} events prepared in {time.perf_counter() - t:.0f} s", flush=True)
    results = {}
    with tempfile.TemporaryDirectory(prefix="nexmark-latency-") as tmpdir:
        tmp = Path(tmpdir)
        broker = Broker(tmp).start()
        try:
            for q in args.queries.split(","):
                for side in sides:
                    try:
                        r = run(q, side, broker.bootstrap, tmp, lines, args, jar)
                    except RuntimeError as e:
                        r = {"failed": str(e)[-1500:]}
                    results[f"{q} {side}"] = r
                    print(f"# {q} {side}: {json.dumps(r)[:400]}", flush=True)
        finally:
            broker.stop()
    print(f"\nEnd-to-end latency at {args.rate:,} events/s, exactly once, checkpoint interval {args.interval} "
          f"(measured {args.seconds:.0f} s after {args.warmup:.0f} s of warm-up)\n")
    print("| query | engine | results measured | p50 s | p99 s | max s |")
    print("|---|---|--:|--:|--:|--:|")
    for key, r in results.items():
        q, side = key.split(" ")
        if r.get("records"):
            print(f"| {q} | {side} | {r['records']:,} | {r['p50']:.2f} | {r['p99']:.2f} | {r['max']:.2f} |")
        else:
            print(f"| {q} | {side} | {'failed' if r.get('failed') else 0} | | | |")
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps({"rate": args.rate, "interval": args.interval, "seconds": args.seconds,
                                           "warmup": args.warmup, "results": results}, indent=1))


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(sys.argv[2])
    else:
        main()
