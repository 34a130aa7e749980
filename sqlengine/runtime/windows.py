"""Window TVFs: each row gets its windows (TUMBLE, HOP, CUMULATE, with offsets) as
window_start, window_end, window_time columns; HOP and CUMULATE explode a row into one
row per window. Window aggregation groups those rows (batch here; per epoch in
``streaming/window_aggregate``)."""
from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import Lowered, col


def _window(start: Column, end: Column) -> Column:
    """A (start, end) struct from epoch milliseconds (window bounds are computed on longs:
    Spark's timestamp + interval goes through time-zone rules for every row)."""
    return F.struct(F.timestamp_millis(start).alias("start"), F.timestamp_millis(end).alias("end"))


def align(t: Column, width: int, offset: int = 0) -> Column:
    """The start of the ``width``-ms interval (shifted by ``offset``) holding the time ``t`` (ms)."""
    return t - F.pmod(t - F.lit(offset), F.lit(width))


def window_time(end: Column) -> Column:
    """``window_time``: the window's last millisecond."""
    return F.timestamp_millis(F.unix_millis(end) - F.lit(1))


def _cumulate_windows(t: Column, size: int, step: int, offset: int = 0) -> Column:
    """Array of (start, end) structs for the CUMULATE windows containing the time ``t``
    (epoch milliseconds); NULL entries for the windows that end before it. Literal
    arrays, not Spark's lambda functions, which are interpreted row by row."""
    ws = align(t, size, offset)
    return F.array(*[F.when(ws + F.lit(k * step) > t, _window(ws, ws + F.lit(k * step)))
                     for k in range(1, size // step + 1)])


def _hop_windows(t: Column, size: int, slide: int, offset: int = 0) -> Column:
    """Array of (start, end) structs for the HOP windows containing the time ``t`` (ms)."""
    last = align(t, slide, offset)
    return F.array(*[_window(last - F.lit(k * slide), last - F.lit(k * slide) + F.lit(size))
                     for k in range(size // slide)])


def windows_containing(spec: P.WindowSpec, t: Column) -> Column:
    """Array of (start, end) structs: the windows of ``spec`` holding the time ``t`` (ms)."""
    if spec.kind == "HOP":
        return _hop_windows(t, spec.size_ms, spec.slide_ms, spec.offset_ms)
    if spec.kind == "CUMULATE":
        return _cumulate_windows(t, spec.size_ms, spec.slide_ms, spec.offset_ms)
    start = align(t, spec.size_ms, spec.offset_ms)
    return F.array(_window(start, start + F.lit(spec.size_ms)))


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
        start = align(F.unix_millis(tcol), spec.size_ms, spec.offset_ms)
        df = df.withColumn("w", _window(start, start + F.lit(spec.size_ms)))
    else:  # HOP, CUMULATE: a row per window (CUMULATE's windows that end before it are NULL)
        df = df.withColumn("w", F.explode(windows_containing(spec, F.unix_millis(tcol))))
        df = df.where(F.col("w").isNotNull())
    cols = [col(i) for i in range(width)]
    cols += [F.col("w.start").alias(f"f{width}"), F.col("w.end").alias(f"f{width + 1}"),
             window_time(F.col("w.end")).alias(f"f{width + 2}")]
    return Lowered(df.select(*cols))
