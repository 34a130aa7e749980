"""Plumbing shared by the hand-written PySpark baselines (one script per pipeline).

Each baseline is what a Spark user would write for the same job as the matching
``benchmarks/sql/*.sql`` script, tuned for a 2-core machine:

* source: the ``rate-micro-batch`` stream (``value`` = 0, 1, 2, ...; exactly
  ``rowsPerBatch`` rows per micro-batch, 2 partitions), mapped to the datagen
  table's columns: ``id = value``, ``user_id`` uniform in [0, 1000], ``amount``
  uniform in [0, 1), ``ts = id`` milliseconds since the epoch;
* sink: ``noop`` (Spark's blackhole); trigger: back-to-back micro-batches;
* the driver polls ``lastProgress`` and stops the query once the source has
  handed out all N rows (and, for windows, once the final windows are emitted).

Spark never advances its watermark past the last event it saw, so the last
windows of a bounded input would never fire. The window baselines therefore do
by hand what the engine does with its end-of-input row: rows past N carry a
far-future ``ts`` (they push the watermark up and are filtered out before the
aggregation), and the query stops after the no-data micro-batch that evicts the
remaining windows. The filter references ``ts`` on purpose: Spark pushes
filters that do not reference the event-time column below the watermark
operator, which would hide the marker rows from it.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from datetime import datetime

_IMPORTED = time.perf_counter()
from typing import Callable, Optional

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)

from pyspark.sql import Column, DataFrame, SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

DEFAULT_ROWS = 5_000_000
# 1,000,000 rows (5 micro-batches for the default 5M): a batch costs ~0.2 s of fixed
# overhead here (offset/commit log writes, planning), so smaller batches mostly
# measure that overhead; see benchmarks/README.md for the sweep.
DEFAULT_ROWS_PER_BATCH = 1_000_000
WATERMARK_DELAY_MS = 5_000
# Rows at or after N carry this event time (ms): far past every real window end.
END_MARK_MS = 10**12


def parse_args(name: str) -> argparse.Namespace:
    """Command line of every baseline script."""
    parser = argparse.ArgumentParser(description=f"PySpark baseline: {name}")
    parser.add_argument("--rows", type=int, default=DEFAULT_ROWS)
    parser.add_argument("--rows-per-batch", type=int, default=DEFAULT_ROWS_PER_BATCH)
    parser.add_argument("--shuffle-partitions", type=int, default=2)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--verify", action="store_true",
                        help="count output rows with foreachBatch instead of the noop sink")
    args = parser.parse_args()
    args.rows_per_batch = min(args.rows_per_batch, args.rows)
    return args


def session(args: argparse.Namespace, name: str) -> SparkSession:
    """A local SparkSession configured as a Spark expert would for this machine."""
    spark = (
        SparkSession.builder.master(args.master)
        .appName(f"baseline-{name}")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", str(args.shuffle_partitions))
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.streaming.forceDeleteTempCheckpointLocation", "true")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    print(f"{name}: SparkSession ready after {time.perf_counter() - _IMPORTED:.2f} s", flush=True)
    return spark


def rate_source(spark: SparkSession, args: argparse.Namespace) -> DataFrame:
    """The raw ``rate-micro-batch`` stream (columns ``timestamp``, ``value``)."""
    return (
        spark.readStream.format("rate-micro-batch")
        .option("rowsPerBatch", args.rows_per_batch)
        .option("numPartitions", 2)
        .load()
    )


def columns(value: Column) -> list[Column]:
    """``id``, ``user_id`` and ``amount`` of the datagen table, derived from ``value``."""
    return [
        value.alias("id"),
        F.floor(F.rand() * 1001).cast("long").alias("user_id"),
        F.rand().alias("amount"),
    ]


def bounded_rows(spark: SparkSession, args: argparse.Namespace) -> DataFrame:
    """The first N rows as ``id, user_id, amount`` (for stateless pipelines)."""
    rate = rate_source(spark, args).where(F.col("value") < args.rows)
    return rate.select(*columns(F.col("value")))


def bounded_events(spark: SparkSession, args: argparse.Namespace) -> DataFrame:
    """The first N rows with event time ``ts`` and the watermark, end of input included.

    Rows past N get ``ts`` = END_MARK_MS; they advance the watermark past every
    window and are dropped right after the watermark operator.
    """
    value = F.col("value")
    ts_ms = F.when(value < args.rows, value).otherwise(F.lit(END_MARK_MS))
    rate = rate_source(spark, args)
    events = rate.select(*columns(value), F.timestamp_millis(ts_ms).alias("ts"))
    return (
        events.withWatermark("ts", f"{WATERMARK_DELAY_MS} milliseconds")
        .where(F.col("ts") < F.timestamp_millis(F.lit(END_MARK_MS)))
    )


def window_aggregate(events: DataFrame, window: Column) -> DataFrame:
    """``window_start, window_end, bucket, cnt, total`` per window and ``user_id % 1000``."""
    return (
        events.groupBy(window.alias("w"), (F.col("user_id") % 1000).alias("bucket"))
        .agg(F.count(F.lit(1)).alias("cnt"), F.sum("amount").alias("total"))
        .select(F.col("w.start").alias("window_start"), F.col("w.end").alias("window_end"),
                "bucket", "cnt", "total")
    )


def _offset(progress: dict) -> int:
    end = progress["sources"][0]["endOffset"]
    if isinstance(end, str):
        end = json.loads(end)
    return int(end["offset"])


def _watermark_ms(progress: dict) -> Optional[int]:
    mark = (progress.get("eventTime") or {}).get("watermark")
    if not mark:
        return None
    return int(datetime.fromisoformat(mark.replace("Z", "+00:00")).timestamp() * 1000)


def source_done(args: argparse.Namespace) -> Callable[[dict], bool]:
    """True once a completed micro-batch has read past row N."""
    return lambda progress: _offset(progress) >= args.rows


def windows_done(args: argparse.Namespace) -> Callable[[dict], bool]:
    """True once a micro-batch ran with the end-of-input watermark (all windows fired)."""
    final = END_MARK_MS - WATERMARK_DELAY_MS
    return lambda p: _offset(p) >= args.rows and (_watermark_ms(p) or 0) >= final


class _Verifier:
    """foreachBatch sink that counts output rows and sums ``cnt`` (``--verify``)."""

    def __init__(self) -> None:
        self.rows = 0
        self.cnt = 0

    def __call__(self, batch: DataFrame, epoch: int) -> None:
        has_cnt = "cnt" in batch.columns
        agg = batch.agg(F.count(F.lit(1)), F.sum("cnt") if has_cnt else F.lit(0)).first()
        self.rows += agg[0]
        self.cnt += agg[1] or 0


def run(name: str, args: argparse.Namespace, spark: SparkSession, result: DataFrame,
        done: Callable[[dict], bool]) -> None:
    """Run ``result`` into the noop sink until ``done(lastProgress)``, then report."""
    checkpoint = tempfile.mkdtemp(prefix=f"baseline-{name}-")
    writer = result.writeStream.outputMode("append").option("checkpointLocation", checkpoint)
    verifier = _Verifier() if args.verify else None
    writer = writer.foreachBatch(verifier) if verifier else writer.format("noop")
    started = time.perf_counter()
    query = writer.start()
    try:
        _await(query, done)
    finally:
        elapsed = time.perf_counter() - started
        # Stopping interrupts the micro-batch already under way; its task-kill noise
        # is not an error.
        spark.sparkContext.setLogLevel("OFF")
        query.stop()
        shutil.rmtree(checkpoint, ignore_errors=True)
    stopped = time.perf_counter() - started - elapsed
    print(f"{name}: {args.rows} rows in {elapsed:.2f} s of query time "
          f"({args.rows / elapsed:,.0f} events/s), rowsPerBatch={args.rows_per_batch}, "
          f"stop took {stopped:.2f} s", flush=True)
    if verifier:
        print(f"{name}: verify: {verifier.rows} output rows, sum(cnt) = {verifier.cnt}")


def _await(query, done: Callable[[dict], bool]) -> None:
    last_id = None
    while True:
        if query.awaitTermination(0.02):
            raise RuntimeError(f"query ended before its input did: {query.exception()}")
        progress = query.lastProgress
        if progress is None or progress["batchId"] == last_id:
            continue
        last_id = progress["batchId"]
        if done(progress):
            return
