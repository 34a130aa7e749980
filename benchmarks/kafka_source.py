"""Choosing the Kafka source for issue 7 (DESIGN.md, "Exactly once"): Spark's own Kafka
source (``spark-sql-kafka-0-10``, JVM) against a Python data source reader on
confluent-kafka that reads exact ``[start, end)`` offset ranges, as Arrow batches.

Starts the tests' single-node Kafka broker (tests/connectors/kafka/broker.py), produces
``--rows`` JSON bids into a 2-partition topic, then, each side in its own process on
``local[2]``, reads the whole topic three times (batch read, ``from_json`` into four
typed columns, count and sum) and prints rows/s per pass. Spark's source is fetched with
Maven at ``--spark-kafka`` (its version should match PySpark's; the matching one may not
be published yet).

Usage: .venv/bin/python benchmarks/kafka_source.py [--rows 2000000] [--spark-kafka 4.2.0]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCHEMA = "auction BIGINT, bidder BIGINT, price BIGINT, ts TIMESTAMP"


def spark_kafka_jars(version: str) -> list[str]:
    from tests.connectors.kafka.broker import maven_jars
    lib = maven_jars(f"org.apache.spark:spark-sql-kafka-0-10_2.13:{version}")
    keep = ("spark-sql-kafka", "spark-token-provider-kafka", "kafka-clients", "commons-pool2")
    return [str(j) for j in sorted(lib.iterdir()) if j.name.startswith(keep)]


def produce(bootstrap: str, rows: int) -> None:
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic("bids", 2, 1)]).values():
        f.result()
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 50, "batch.num.messages": 100000,
                  "queue.buffering.max.messages": 1000000, "compression.type": "lz4"})
    for i in range(rows):
        v = '{"auction":%d,"bidder":%d,"price":%d,"ts":"2024-01-01 10:00:%02d.000"}' % (i % 1000, i % 9973, i % 500, i % 60)
        while True:
            try:
                p.produce("bids", value=v, partition=i % 2)
                break
            except BufferError:
                p.poll(0.1)
    p.flush()


def read(bootstrap: str, rows: int, side: str, jars: str) -> None:
    """One side's three passes (run in a process of its own)."""
    sys.path.insert(0, str(REPO))
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import functions as F
    from sqlengine.runtime.spark import get_spark
    conf = {"spark.master": "local[2]", "spark.sql.shuffle.partitions": "2"}
    if side == "spark":
        conf["spark.jars"] = jars
    spark = get_spark(conf)
    if side == "spark":
        def frame():
            return (spark.read.format("kafka").option("kafka.bootstrap.servers", bootstrap).option("subscribe", "bids")
                    .option("startingOffsets", "earliest").option("endingOffsets", "latest").load())
    else:
        from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

        class Range(InputPartition):
            def __init__(self, partition: int, start: int, end: int):
                self.partition, self.start, self.end = partition, start, end

        class Reader(DataSourceReader):
            def partitions(self):
                return [Range(0, 0, rows // 2), Range(1, 0, rows - rows // 2)]

            def read(self, part):
                import pyarrow as pa
                from confluent_kafka import Consumer, TopicPartition
                c = Consumer({"bootstrap.servers": bootstrap, "group.id": "bench", "enable.auto.commit": False,
                              "fetch.max.bytes": 52428800, "max.partition.fetch.bytes": 10485760})
                c.assign([TopicPartition("bids", part.partition, part.start)])
                pos = part.start
                while pos < part.end:
                    values = [m.value() for m in c.consume(min(50000, part.end - pos), 1.0) if m.error() is None]
                    pos += len(values)
                    if values:
                        yield pa.RecordBatch.from_arrays([pa.array(values, pa.binary())], names=["value"])
                c.close()

        class Source(DataSource):
            @classmethod
            def name(cls):
                return "kafka_ranges"

            def schema(self):
                return "value binary"

            def reader(self, schema):
                return Reader()

        spark.dataSource.register(Source)

        def frame():
            return spark.read.format("kafka_ranges").load()
    for i in range(3):
        t = time.time()
        n, _ = (frame().select(F.from_json(F.col("value").cast("string"), SCHEMA).alias("v")).select("v.*")
                .agg(F.count("*"), F.sum("price")).collect()[0])
        dt = time.time() - t
        print(f"{side:7s} pass {i + 1}: {n:,} rows in {dt:5.2f} s = {n / dt:,.0f} rows/s", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--spark-kafka", default="4.2.0")
    ap.add_argument("--read", nargs=3, metavar=("BOOTSTRAP", "SIDE", "JARS"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.read:
        read(args.read[0], args.rows, args.read[1], args.read[2])
        return
    sys.path.insert(0, str(REPO))
    from tests.connectors.kafka.broker import Broker
    jars = ",".join(spark_kafka_jars(args.spark_kafka))
    with tempfile.TemporaryDirectory(prefix="kafka-bench-") as tmp:
        broker = Broker(Path(tmp)).start()
        try:
            produce(broker.bootstrap, args.rows)
            for side in ("spark", "python"):
                subprocess.run([sys.executable, __file__, "--rows", str(args.rows), "--read", broker.bootstrap, side, jars],
                               check=True, cwd=REPO)
        finally:
            broker.stop()


if __name__ == "__main__":
    main()
