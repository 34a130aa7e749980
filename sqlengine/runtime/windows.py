"""Window TVF lowering: TUMBLE/HOP/SESSION on Spark's own window operators, CUMULATE by
exploding each row into its windows.

Spark's append-mode aggregation emits a window once the global watermark passes its
end, which equals Flink's window firing when the watermark reaches window_end - 1 ms;
the WatermarkAssigner's end-of-input row makes that happen for the last windows.
"""
from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import Lowered, col


def _dur(ms: int) -> str:
    return f"{ms} milliseconds"


def _cumulate_windows(tcol: Column, size: int, step: int, offset: int = 0) -> Column:
    """Array of (start, end) structs for the CUMULATE windows containing ``tcol``."""
    t = F.unix_millis(tcol)
    ws = t - F.pmod(t - F.lit(offset), F.lit(size))
    n = size // step
    ends = F.filter(F.sequence(F.lit(1), F.lit(n)), lambda k: ws + k * step > t)
    return F.transform(ends, lambda k: F.struct(F.timestamp_millis(ws).alias("start"),
                                                 F.timestamp_millis(ws + k * step).alias("end")))


def window_struct(spec: P.WindowSpec, tcol: Column) -> Column:
    if spec.kind == "TUMBLE":
        return F.window(tcol, _dur(spec.size_ms), startTime=_dur(spec.offset_ms) if spec.offset_ms else None)
    if spec.kind == "HOP":
        return F.window(tcol, _dur(spec.size_ms), _dur(spec.slide_ms),
                        startTime=_dur(spec.offset_ms % spec.slide_ms) if spec.offset_ms else None)
    if spec.kind == "SESSION":
        return F.session_window(tcol, _dur(spec.gap_ms))
    return F.explode(_cumulate_windows(tcol, spec.size_ms, spec.slide_ms, spec.offset_ms))


def lower_window_aggregate(lw, node: P.WindowAggregate, child: Lowered) -> Lowered:
    df = child.df
    spec = node.window
    tcol = col(spec.time_col)
    keys = [col(k) for k in node.keys]
    if spec.kind == "CUMULATE":
        df = df.withColumn("w", window_struct(spec, tcol))
        # Spark tracks only one watermark per input, and only on attributes derived from
        # window()/the event-time column; the window end gets the watermark marker so the
        # aggregate evicts (emits) a window once the global watermark passes its end.
        marker = {"spark.watermarkDelayMs": 0} if lw.state.streaming and df.isStreaming else {}
        df = df.withColumn("w_end", F.col("w.end").alias("w_end", metadata=marker)) \
            .withColumn("w_start", F.col("w.start"))
        group = [F.col("w_start"), F.col("w_end")]
        start, end = F.col("w_start"), F.col("w_end")
    else:
        df = df.withColumn("w", window_struct(spec, tcol))
        group = [F.col("w")]
        start, end = F.col("w.start"), F.col("w.end")
    aggs = lw.agg_columns(node.aggs, len(node.input.schema))
    grouped = df.groupBy(*group, *keys).agg(*aggs)
    out = [F.col(f"f{k}").alias(f"f{i}") for i, k in enumerate(node.keys)]
    nk = len(node.keys)
    props = {"window_start": start, "window_end": end,
             "window_time": end - F.expr("INTERVAL 1 MILLISECOND")}
    out += [props[p].alias(f"f{nk + i}") for i, p in enumerate(node.props)]
    np_ = len(node.props)
    out += [F.col(f"a{j}").alias(f"f{nk + np_ + j}") for j in range(len(node.aggs))]
    return Lowered(grouped.select(*out))


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
