"""Throughput of the datagen source vs hand-written PySpark on ``rate-micro-batch``.

Not a test (pytest does not collect it). Run from the repository root:

    .venv/bin/python tests/connectors/simple/bench_datagen.py [--rows N] [--rounds R]

Every run streams N rows into Spark's ``noop`` sink with back-to-back micro-batches
(``processingTime = 0``) and a driver loop polling ``lastProgress``, in the same
SparkSession, alternating the contenders per round:

* ``rate only``: the bare ``rate-micro-batch`` source (``value`` column), the floor;
* ``hand-written rand``: the benchmarks' baseline columns (``benchmarks/baseline``):
  ``id = value``, ``user_id = floor(rand() * 1001)``, ``amount = rand()``;
* ``hand-written hash``: the same columns from ``xxhash64`` of the row id, i.e. the
  expressions datagen generates, written by hand;
* ``datagen``: the benchmark table (``id`` sequence, ``user_id`` random [0, 1000],
  ``amount`` random [0, 1]) through ``DataGenFactory.scan``, stopped by its
  ``end_check`` (which includes the end-of-input micro-batch and the one after it);
* ``datagen + STRING``: plus a ``STRING`` column of Flink's default length (100).

The hand-written ones stop as soon as the source has handed out N rows.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, ROOT)

from pyspark.sql import functions as F  # noqa: E402

from connectors.base import Options, ScanContext  # noqa: E402
from connectors.datagen import FACTORY  # noqa: E402
from connectors.datagen.source import MAX_ROWS_PER_BATCH, rate_offset  # noqa: E402
from sqlengine import types as T  # noqa: E402
from sqlengine.runtime.spark import get_spark  # noqa: E402

COLUMNS = [("id", T.BIGINT()), ("user_id", T.BIGINT()), ("amount", T.DOUBLE())]


def drive(df, done) -> tuple[float, int]:
    start = time.perf_counter()
    query = df.writeStream.format("noop").trigger(processingTime="0 seconds").start()
    while True:
        query.awaitTermination(0.02)
        progress = query.lastProgress
        if progress and done(progress["sources"][0]):
            break
    elapsed = time.perf_counter() - start
    batches = len(query.recentProgress)
    query.stop()
    return elapsed, batches


def hand_written(spark, rows: int, columns) -> tuple[float, int]:
    rate = (spark.readStream.format("rate-micro-batch").option("rowsPerBatch", MAX_ROWS_PER_BATCH)
            .option("numPartitions", 2).load())
    df = rate.where(F.col("value") < rows).select(*columns(F.col("value")))
    return drive(df, lambda s: rate_offset(s["endOffset"]) >= rows)


def rand_columns(v):
    return [v.alias("id"), F.floor(F.rand() * 1001).cast("long").alias("user_id"), F.rand().alias("amount")]


def hash_columns(v):
    unit = F.shiftrightunsigned(F.xxhash64(F.lit(2), v), 11).cast("double") * F.lit(2.0 ** -53)
    return [v.alias("id"), F.pmod(F.xxhash64(F.lit(1), v), F.lit(1001)).alias("user_id"), unit.alias("amount")]


def datagen(spark, rows: int, extra=()) -> tuple[float, int]:
    opts = {"connector": "datagen", "number-of-rows": str(rows), "rows-per-second": "1000000000",
            "fields.id.kind": "sequence", "fields.id.start": "0", "fields.id.end": str(rows - 1),
            "fields.user_id.min": "0", "fields.user_id.max": "1000",
            "fields.amount.min": "0", "fields.amount.max": "1"}
    ctx = ScanContext(spark, True, 2, "default_catalog.default_database.src", COLUMNS + list(extra),
                      Options("datagen", opts))
    result = FACTORY.scan(ctx)
    return drive(result.df, result.end_check)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    spark = get_spark({"spark.master": "local[2]"})
    runs = {
        "rate only": lambda: hand_written(spark, args.rows, lambda v: [v]),
        "hand-written rand": lambda: hand_written(spark, args.rows, rand_columns),
        "hand-written hash": lambda: hand_written(spark, args.rows, hash_columns),
        "datagen": lambda: datagen(spark, args.rows),
        "datagen + STRING": lambda: datagen(spark, args.rows, [("s", T.STRING())]),
    }
    for fn in runs.values():  # JIT warm-up
        fn()
    times: dict[str, list[float]] = {k: [] for k in runs}
    batches: dict[str, int] = {}
    for _ in range(args.rounds):
        for name, fn in runs.items():
            elapsed, batches[name] = fn()
            times[name].append(elapsed)
    print(f"{args.rows:,} rows, rowsPerBatch={MAX_ROWS_PER_BATCH:,}, local[2], noop sink; "
          f"load average {os.getloadavg()[0]:.1f}")
    for name, ts in times.items():
        best, median = min(ts), statistics.median(ts)
        print(f"  {name:18s} best {best:6.2f} s ({args.rows / best / 1e6:5.2f} M rows/s)  "
              f"median {median:6.2f} s ({args.rows / median / 1e6:5.2f} M rows/s)  batches={batches[name]}")


if __name__ == "__main__":
    main()
