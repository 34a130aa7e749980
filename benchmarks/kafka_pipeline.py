"""Kafka -> SQL -> Kafka, exactly once (issue 7): sqlengine's ``kafka`` / ``upsert-kafka``
connectors against a hand-written confluent-kafka consume-transform-produce loop (and,
optionally, Flink with its own Kafka connector).

Starts the tests' single-node Kafka broker (tests/connectors/kafka/broker.py), produces
``--rows`` JSON bids round-robin into the 8-partition topic ``bids``, then runs each side
in a process of its own (its process tree's peak RSS and CPU sampled with psutil):

* ``loop`` (the baseline): assign all 8 partitions from offset 0, read to the end of
  each (``enable.partition.eof``), keep ``price > 100``, project ``{auction, price}``
  with json.loads/json.dumps and produce to ``out_loop`` in Kafka transactions (one per
  ``--txn-records`` consumed records, the consumed offsets sent with
  ``send_offsets_to_transaction``). Timed from the first consume to the last
  ``commit_transaction``.
* ``sqlengine`` ``filter``: ``INSERT INTO out_sql SELECT auction, price FROM bids WHERE
  price > 100`` (kafka source bounded by ``latest-offset``, kafka sink with
  ``sink.delivery-guarantee`` exactly-once), ``parallelism.default`` 2.
* ``sqlengine`` ``group_by``: ``INSERT INTO totals SELECT auction, COUNT(*), SUM(price)
  FROM bids GROUP BY auction`` into ``upsert-kafka``.
* ``flink`` (both shapes, same SQL) under ``--flink-python`` with
  ``flink-sql-connector-kafka`` ``--flink-kafka`` from Maven Central, if that interpreter
  exists (``--no-flink`` skips it).

The sqlengine and Flink times are the INSERT statement's wall time (the JVM is started
and warmed up first, and sqlengine's session has started its Python workers, as it does in
the background in a shell or notebook); "total s" is the whole process. Then every output is read back
with ``isolation.level=read_committed``: ``out_*`` must hold exactly the input records
with ``price > 100`` (count and sum of prices), ``totals`` (last value per key) the
1000 auctions' count and sum. A mismatch is printed loudly and the exit status is 1.

Usage: .venv/bin/python benchmarks/kafka_pipeline.py [--rows 1000000] [--no-flink]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PARTITIONS = 8
FLINK_PYTHON = os.environ.get("FLINK_PYTHON", "/work/flink-venv/bin/python")
FLINK_KAFKA = "5.0.0-2.2"  # no flink-sql-connector-kafka for Flink 2.3 on Maven Central yet
# The consumer and producer settings of sqlengine's reader and writer (connectors/kafka/),
# so that the loop differs in the engine only.
FETCH = {"fetch.max.bytes": "52428800", "max.partition.fetch.bytes": "10485760"}
PRODUCE = {"linger.ms": "20", "batch.num.messages": "100000", "queue.buffering.max.messages": "500000"}
TXN_TIMEOUT_MS = "900000"  # the broker's transaction.max.timeout.ms


# -- the input and what the outputs must be --------------------------------------------------
def bid(i: int) -> str:
    return '{"auction":%d,"bidder":%d,"price":%d,"ts":"2024-01-01 10:00:%02d.000"}' % (
        i % 1000, i % 9973, i % 500, i % 60)


def expected(rows: int) -> tuple[int, int, dict[int, tuple[int, int]]]:
    """(records with price > 100, their sum of prices, {auction: (count, sum of price)})."""
    n = total = 0
    groups: dict[int, list[int]] = {}
    for i in range(rows):
        price = i % 500
        if price > 100:
            n += 1
            total += price
        g = groups.setdefault(i % 1000, [0, 0])
        g[0] += 1
        g[1] += price
    return n, total, {a: (c, s) for a, (c, s) in groups.items()}


def create_topics(bootstrap: str, names: list[str]) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic(t, PARTITIONS, 1) for t in names]).values():
        f.result()


def produce(bootstrap: str, rows: int) -> float:
    from confluent_kafka import Producer
    t = time.perf_counter()
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 50, "batch.num.messages": 100000,
                  "queue.buffering.max.messages": 1000000, "compression.type": "lz4"})
    for i in range(rows):
        v = bid(i)
        while True:
            try:
                p.produce("bids", value=v, partition=i % PARTITIONS)
                break
            except BufferError:
                p.poll(0.1)
    if p.flush(120):
        raise RuntimeError("could not produce the input")
    return time.perf_counter() - t


def read_committed(bootstrap: str, topic: str, on_record) -> None:
    """Every committed record of ``topic`` up to the end of each partition."""
    from confluent_kafka import Consumer, KafkaError, TopicPartition
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"verify-{topic}", "enable.auto.commit": False,
                  "isolation.level": "read_committed", "enable.partition.eof": True, **FETCH})
    parts = sorted(c.list_topics(topic, timeout=10).topics[topic].partitions)
    c.assign([TopicPartition(topic, p, 0) for p in parts])
    eof: set[int] = set()
    try:
        while len(eof) < len(parts):
            for m in c.consume(10000, 1.0):
                if m.error() is not None:
                    if m.error().code() == KafkaError._PARTITION_EOF:
                        eof.add(m.partition())
                        continue
                    raise RuntimeError(m.error().str())
                on_record(m.key(), m.value())
    finally:
        c.close()


def check_filtered(bootstrap: str, topic: str, want_n: int, want_sum: int) -> str:
    got = [0, 0]

    def add(_key, value):
        got[0] += 1
        got[1] += json.loads(value)["price"]
    read_committed(bootstrap, topic, add)
    if got == [want_n, want_sum]:
        return ""
    return f"{topic}: {got[0]:,} committed records, sum(price) {got[1]:,}; expected {want_n:,} and {want_sum:,}"


def check_totals(bootstrap: str, topic: str, want: dict[int, tuple[int, int]]) -> str:
    final: dict[int, tuple[int, int]] = {}
    seen = [0]

    def add(key, value):
        seen[0] += 1
        k = json.loads(key)["auction"]
        if value is None:
            final.pop(k, None)
        else:
            v = json.loads(value)
            final[k] = (v["n"], v["total"])
    read_committed(bootstrap, topic, add)
    if final == want:
        return ""
    wrong = sorted(k for k in set(final) | set(want) if final.get(k) != want.get(k))
    k = wrong[0]
    return (f"{topic}: {len(final)} keys from {seen[0]:,} records, {len(wrong)} wrong, e.g. auction {k}: "
            f"got {final.get(k)}, expected {want.get(k)}")


# -- the sides (each in a process of its own) -------------------------------------------------
def run_loop(bootstrap: str, txn_records: int) -> dict:
    """The standard consume-transform-produce exactly-once loop."""
    from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "bench-loop", "enable.auto.commit": False,
                  "enable.partition.eof": True, **FETCH})
    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": "bench-loop",
                  "transaction.timeout.ms": TXN_TIMEOUT_MS, **PRODUCE})
    p.init_transactions(60)
    parts = sorted(c.list_topics("bids", timeout=10).topics["bids"].partitions)
    c.assign([TopicPartition("bids", q, 0) for q in parts])
    loads, dumps = json.loads, json.dumps
    started = time.perf_counter()
    p.begin_transaction()
    eof: set[int] = set()
    positions: dict[int, int] = {}
    consumed = produced = in_txn = txns = 0

    def commit() -> None:
        offsets = [TopicPartition("bids", q, o) for q, o in positions.items()]
        p.send_offsets_to_transaction(offsets, c.consumer_group_metadata(), 60)
        p.commit_transaction(60)

    while len(eof) < len(parts):
        for m in c.consume(10000, 1.0):
            err = m.error()
            if err is not None:
                if err.code() == KafkaError._PARTITION_EOF:
                    eof.add(m.partition())
                    continue
                raise RuntimeError(err.str())
            consumed += 1
            in_txn += 1
            positions[m.partition()] = m.offset() + 1
            r = loads(m.value())
            if r["price"] > 100:
                out = dumps({"auction": r["auction"], "price": r["price"]})
                while True:
                    try:
                        p.produce("out_loop", out)
                        break
                    except BufferError:
                        p.poll(0.05)
                produced += 1
        p.poll(0)
        if in_txn >= txn_records:
            commit()
            txns += 1
            in_txn = 0
            p.begin_transaction()
    commit()
    txns += 1
    seconds = time.perf_counter() - started
    c.close()
    return {"seconds": seconds, "consumed": consumed, "produced": produced, "transactions": txns}


def sql_statements(bootstrap: str, shape: str, sink_topic: str) -> list[str]:
    src = ("CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, ts TIMESTAMP(3)) WITH ("
           "'connector' = 'kafka', 'topic' = 'bids', 'properties.bootstrap.servers' = '%s', "
           "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json')"
           % bootstrap)
    if shape == "filter":
        return [src,
                "CREATE TABLE out_sql (auction BIGINT, price BIGINT) WITH ('connector' = 'kafka', "
                f"'topic' = '{sink_topic}', 'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json', "
                "'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'bench'"
                "%EXTRA%)",
                "INSERT INTO out_sql SELECT auction, price FROM bids WHERE price > 100"]
    return [src,
            "CREATE TABLE totals (auction BIGINT, n BIGINT, total BIGINT, PRIMARY KEY (auction) NOT ENFORCED) "
            f"WITH ('connector' = 'upsert-kafka', 'topic' = '{sink_topic}', "
            f"'properties.bootstrap.servers' = '{bootstrap}', 'key.format' = 'json', 'value.format' = 'json'"
            "%EXTRA%)",
            "INSERT INTO totals SELECT auction, COUNT(*), SUM(price) FROM bids GROUP BY auction"]


def run_sqlengine(bootstrap: str, shape: str, sink_topic: str, ckdir: str) -> dict:
    sys.path.insert(0, str(REPO))
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from sqlengine.api.session import Session
    session = Session({"parallelism.default": "2", "execution.checkpointing.dir": ckdir})
    t = time.perf_counter()
    session.spark.range(1).count()  # start (and warm up) the JVM outside the timed part
    from sqlengine.runtime import warmup
    warmup.wait()  # the session's Python workers, started in the background (sqlengine/runtime/warmup.py)
    warmup = time.perf_counter() - t
    *ddl, insert = [s.replace("%EXTRA%", "") for s in sql_statements(bootstrap, shape, sink_topic)]
    for s in ddl:
        session.execute_sql(s)
    t = time.perf_counter()
    res = session.execute_sql(insert).wait()
    seconds = time.perf_counter() - t
    return {"seconds": seconds, "warmup": warmup, "messages": list(res.messages)}


def run_flink(bootstrap: str, shape: str, sink_topic: str, jar: str) -> dict:
    from pyflink.table import EnvironmentSettings, TableEnvironment
    t = time.perf_counter()
    env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    conf = env.get_config()
    conf.set("pipeline.jars", f"file://{jar}")
    conf.set("parallelism.default", "2")
    # The exactly-once sink commits on checkpoints (and on the final one at end of input).
    conf.set("execution.checkpointing.interval", "2 s")
    with env.execute_sql("SELECT 1").collect() as rows:  # start the JVM and a mini-cluster once, untimed
        list(rows)
    warmup = time.perf_counter() - t
    extra = f", 'properties.transaction.timeout.ms' = '{TXN_TIMEOUT_MS}'" if shape == "filter" else ""
    *ddl, insert = [s.replace("%EXTRA%", extra) for s in sql_statements(bootstrap, shape, sink_topic)]
    for s in ddl:
        env.execute_sql(s)
    t = time.perf_counter()
    env.execute_sql(insert).wait()
    seconds = time.perf_counter() - t
    return {"seconds": seconds, "warmup": warmup}


def child(args) -> None:
    side, shape, bootstrap, sink_topic, extra = args.child
    if side == "loop":
        out = run_loop(bootstrap, args.txn_records)
    elif side == "sqlengine":
        out = run_sqlengine(bootstrap, shape, sink_topic, extra)
    else:
        out = run_flink(bootstrap, shape, sink_topic, extra)
    print("RESULT " + json.dumps(out), flush=True)


# -- the driver ----------------------------------------------------------------------------------
class Sample:
    """Peak RSS (summed over the process tree) and CPU seconds (summed over every process
    seen, as last sampled) of a running process tree."""

    def __init__(self, pid: int):
        import psutil
        self.root = psutil.Process(pid)
        self.peak = 0
        self.cpu: dict[tuple[int, float], float] = {}

    def tick(self) -> None:
        import psutil
        try:
            procs = [self.root] + self.root.children(recursive=True)
        except psutil.Error:
            return
        rss = 0
        for pr in procs:
            try:
                with pr.oneshot():
                    rss += pr.memory_info().rss
                    ct = pr.cpu_times()
                    self.cpu[(pr.pid, pr.create_time())] = ct.user + ct.system
            except psutil.Error:
                continue
        self.peak = max(self.peak, rss)


def run_side(python: str, side: str, shape: str, bootstrap: str, sink_topic: str, extra: str, tmp: Path,
             args) -> dict:
    log = tmp / f"{side}-{shape}.log"
    cmd = [python, __file__, "--txn-records", str(args.txn_records), "--child", side, shape, bootstrap, sink_topic,
           extra]
    print(f"# {side} {shape} ...", flush=True)
    t = time.perf_counter()
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=REPO)
        sample = Sample(proc.pid)
        deadline = time.monotonic() + args.timeout
        while proc.poll() is None:
            sample.tick()
            if time.monotonic() > deadline:
                proc.kill()
                proc.wait()
                break
            time.sleep(0.25)
    wall = time.perf_counter() - t
    text = log.read_text(errors="replace")
    result = next((json.loads(line[7:]) for line in reversed(text.splitlines()) if line.startswith("RESULT ")), None)
    if proc.returncode != 0 or result is None:
        print(f"!!! {side} {shape} failed (exit {proc.returncode}); the end of its output:\n{text[-4000:]}",
              flush=True)
        return {"failed": True, "wall": wall}
    result.update(wall=wall, rss_mb=sample.peak / 2 ** 20, cpu=sum(sample.cpu.values()))
    print(f"# {side} {shape}: {json.dumps(result)}", flush=True)
    return result


def table(rows: int, results: dict) -> str:
    loop = results.get(("loop", "filter"), {})
    loop_rate = rows / loop["seconds"] if loop.get("seconds") else None
    lines = ["| shape | side | records | seconds | events/s | total s | peak RSS MB | CPU s | "
             "ratio to loop (events/s) |",
             "|-------|------|--------:|--------:|---------:|--------:|------------:|------:|"
             "-------------------------:|"]
    for (side, shape), r in results.items():
        if r.get("failed"):
            lines.append(f"| {shape} | {side} | {rows:,} | failed | | {r['wall']:.1f} | | | |")
            continue
        rate = rows / r["seconds"]
        ratio = f"{rate / loop_rate:.2f}x" if loop_rate and shape == "filter" and side != "loop" else ""
        lines.append(f"| {shape} | {side} | {rows:,} | {r['seconds']:.1f} | {rate:,.0f} | {r['wall']:.1f} | "
                     f"{r['rss_mb']:,.0f} | {r['cpu']:.1f} | {ratio} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--txn-records", type=int, default=100_000,
                    help="the loop commits a transaction per this many consumed records")
    ap.add_argument("--no-flink", action="store_true")
    ap.add_argument("--flink-python", default=FLINK_PYTHON)
    ap.add_argument("--flink-kafka", default=FLINK_KAFKA, help="flink-sql-connector-kafka version")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per side")
    ap.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args)
        return
    sys.path.insert(0, str(REPO))
    from tests.connectors.kafka.broker import Broker, maven_jars
    flink_jar = None
    if not args.no_flink and Path(args.flink_python).exists():
        try:
            lib = maven_jars(f"org.apache.flink:flink-sql-connector-kafka:{args.flink_kafka}")
            flink_jar = str(next(lib.glob("flink-sql-connector-kafka-*.jar")))
        except Exception as e:  # noqa: BLE001 - Flink is optional
            print(f"# no Flink side: {e}", flush=True)
    want_n, want_sum, want_totals = expected(args.rows)
    results: dict = {}
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="kafka-pipeline-") as tmpdir:
        tmp = Path(tmpdir)
        broker = Broker(tmp).start()
        try:
            bs = broker.bootstrap
            create_topics(bs, ["bids", "out_loop", "out_sql", "totals", "out_flink", "totals_flink"])
            dt = produce(bs, args.rows)
            print(f"# produced {args.rows:,} records in {dt:.1f} s; {want_n:,} have price > 100", flush=True)
            runs = [("loop", "filter", sys.executable, "out_loop", "-"),
                    ("sqlengine", "filter", sys.executable, "out_sql", str(tmp / "ck-filter")),
                    ("sqlengine", "group_by", sys.executable, "totals", str(tmp / "ck-group"))]
            if flink_jar:
                runs += [("flink", "filter", args.flink_python, "out_flink", flink_jar),
                         ("flink", "group_by", args.flink_python, "totals_flink", flink_jar)]
            for side, shape, python, topic, extra in runs:
                r = results[(side, shape)] = run_side(python, side, shape, bs, topic, extra, tmp, args)
                if r.get("failed"):
                    problems.append(f"{side} {shape} failed (see above)")
                    continue
                bad = (check_filtered(bs, topic, want_n, want_sum) if shape == "filter"
                       else check_totals(bs, topic, want_totals))
                if bad:
                    problems.append(f"{side} {shape}: {bad}")
                    r["mismatch"] = True
        finally:
            broker.stop()
    print()
    print(table(args.rows, results))
    if problems:
        print("\n!!! MISMATCH / FAILURE !!!", file=sys.stderr)
        for p in problems:
            print(f"!!! {p}", file=sys.stderr)
        sys.exit(1)
    print(f"\nAll outputs verified (read_committed): {want_n:,} records with price > 100 in each out_* topic, "
          f"{len(want_totals)} keys in each totals topic.")


if __name__ == "__main__":
    main()
