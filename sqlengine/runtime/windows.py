"""Window TVFs: each row gets its windows (TUMBLE, HOP, CUMULATE, with offsets) as
window_start, window_end, window_time columns; HOP and CUMULATE explode a row into one
row per window. Window aggregation groups those rows (batch here; per epoch in
``streaming/window_aggregate``)."""
from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import Lowered, col


def _cumulate_windows(tcol: Column, size: int, step: int, offset: int = 0) -> Column:
    """Array of (start, end) structs for the CUMULATE windows containing ``tcol``."""
    t = F.unix_millis(tcol)
    ws = t - F.pmod(t - F.lit(offset), F.lit(size))
    n = size // step
    ends = F.filter(F.sequence(F.lit(1), F.lit(n)), lambda k: ws + k * step > t)
    return F.transform(ends, lambda k: F.struct(F.timestamp_millis(ws).alias("start"),
                                                 F.timestamp_millis(ws + k * step).alias("end")))


def lower_window_aggregate(lw, node: P.WindowAggregate, child: Lowered) -> Lowered:
    """Batch: every window of the whole input at once (streaming: ``streaming/window_aggregate``)."""
    from sqlengine.runtime.streaming.window_aggregate import _aggregate
    spec = node.window
    if spec.kind == "SESSION":
        from sqlengine.runtime.streaming.window_aggregate import sessionize
        return Lowered(_aggregate(lw, node, sessionize(node, child.df), F.col("__ws"), F.col("__we")))
    width = len(node.input.schema)
    assigned = lower_window_tvf(lw, P.WindowTableFunction(node.input, spec, False), child).df
    return Lowered(_aggregate(lw, node, assigned, F.col(f"f{width}"), F.col(f"f{width + 1}")))


def lower_window_tvf(lw, node: P.WindowTableFunction, child: Lowered) -> Lowered:
    spec = node.window
    if spec.kind == "SESSION":
        from sqlengine.errors import UnsupportedError
        raise UnsupportedError("SESSION window TVF is supported only in window aggregation")
    df = child.df
    width = len(node.input.schema)
    tcol = col(spec.time_col)
    if spec.kind == "TUMBLE":
        t = F.unix_millis(tcol)
        start = F.timestamp_millis(t - F.pmod(t - spec.offset_ms, F.lit(spec.size_ms)))
        df = df.withColumn("w", F.struct(start.alias("start"),
                                         (start + F.expr(f"INTERVAL {spec.size_ms} MILLISECONDS")).alias("end")))
    elif spec.kind == "HOP":
        t = F.unix_millis(tcol)
        last = t - F.pmod(t - F.lit(spec.offset_ms), F.lit(spec.slide_ms))
        n = spec.size_ms // spec.slide_ms
        starts = F.transform(F.sequence(F.lit(0), F.lit(n - 1)), lambda k: last - k * spec.slide_ms)
        df = df.withColumn("w", F.explode(F.transform(starts, lambda s: F.struct(
            F.timestamp_millis(s).alias("start"), F.timestamp_millis(s + spec.size_ms).alias("end")))))
    else:
        df = df.withColumn("w", F.explode(_cumulate_windows(tcol, spec.size_ms, spec.slide_ms, spec.offset_ms)))
    cols = [col(i) for i in range(width)]
    cols += [F.col("w.start").alias(f"f{width}"), F.col("w.end").alias(f"f{width + 1}"),
             (F.col("w.end") - F.expr("INTERVAL 1 MILLISECOND")).alias(f"f{width + 2}")]
    return Lowered(df.select(*cols))
