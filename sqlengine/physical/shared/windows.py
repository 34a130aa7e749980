"""Windows: which windows of a TUMBLE / HOP / CUMULATE spec hold a time (the window TVF,
window aggregation and window joins share it), and rows that wait in an operator's state
until the watermark closes their window."""
from __future__ import annotations

from typing import Optional

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from sqlengine.errors import UnsupportedError
from sqlengine.functions.varying import above, at_most
from sqlengine.hidden import fcol
from sqlengine.plan import nodes as P
from sqlengine.runtime.context import EpochContext
from sqlengine.runtime.state import Table


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


def assign_windows(spec: P.WindowSpec, df: DataFrame, width: int) -> DataFrame:
    """The rows of ``df`` (columns f0..f(width-1)) with their windows appended as
    window_start, window_end, window_time; HOP and CUMULATE give a row per window."""
    cols = [fcol(i) for i in range(width)]
    if spec.attached is not None:  # each row's window is given (a cascaded window aggregation)
        start, end = (fcol(i) for i in spec.attached)
        return df.select(*cols, start.alias(f"f{width}"), end.alias(f"f{width + 1}"),
                         window_time(end).alias(f"f{width + 2}"))
    if spec.kind == "SESSION":
        raise UnsupportedError("SESSION window TVF is supported only in window aggregation")
    tcol = fcol(spec.time_col)
    if spec.kind == "TUMBLE":
        start = align(F.unix_millis(tcol), spec.size_ms, spec.offset_ms)
        df = df.withColumn("w", _window(start, start + F.lit(spec.size_ms)))
    else:  # HOP, CUMULATE: a row per window (CUMULATE's windows that end before it are NULL)
        df = df.withColumn("w", F.explode(windows_containing(spec, F.unix_millis(tcol))))
        df = df.where(F.col("w").isNotNull())
    cols += [F.col("w.start").alias(f"f{width}"), F.col("w.end").alias(f"f{width + 1}"),
             window_time(F.col("w.end")).alias(f"f{width + 2}")]
    return df.select(*cols)


# -- rows waiting for the watermark -----------------------------------------------------
def _ms(c: Column) -> Column:
    return F.unix_millis(c)


def pend(ctx: EpochContext, pending_name: str, fresh: DataFrame, keys: list,
         fired: Optional[P.Node] = None) -> tuple[Optional[Table], DataFrame]:
    """The operator's pending rows plus ``fresh`` (persisted; both on their keys' tasks),
    with their state table (``keys``: the operator's key, as its exchange hashes it).

    ``fired``: the window aggregation that fired the windows of ``fresh``
    (``lineage.fired_by``). When its input watermark is known and not past this
    operator's, every fresh row's window is closed here too; if nothing waits either (the
    table has no version: it never kept a row), the rows are not kept at all: (None,
    ``fresh``), no state read, no version written. Nexmark's q5 is the case: the maximum
    per window and the join run on windows their aggregation has just fired."""
    table = ctx.table(pending_name, fresh.schema, keys)
    if fired is not None and _all_fire(ctx, fired) and table.versions(ctx.epoch) == (None, []):
        return None, fresh
    return table, ctx.persist(table.read(ctx.epoch).unionByName(fresh))


def _all_fire(ctx: EpochContext, fired: P.Node) -> bool:
    if not ctx.input_watermark_known:
        return False
    bound = ctx.input_watermark_of(fired)
    return bound is not None and bound <= ctx.input_watermark


def close(ctx: EpochContext, waiting: tuple[Optional[Table], DataFrame], end_col: str) -> DataFrame:
    """The pending rows the watermark closes; the others stay pending (a snapshot)."""
    table, pending = waiting
    if table is None:  # (every row closes: pend)
        return pending
    wm = ctx.input_watermark
    end = _ms(F.col(end_col))
    closed = pending.where(at_most(end, wm))
    table.write(ctx.epoch, pending.where(above(end, wm)), snapshot=True)
    return closed


def fire_closed(ctx: EpochContext, pending_name: str, fresh: DataFrame, keys: list, end_col: str,
                fired: Optional[P.Node] = None) -> DataFrame:
    """Add ``fresh`` rows to the operator's pending rows; return the rows whose ``end_col``
    the watermark has passed, keeping the others pending (a snapshot per epoch);
    ``fired``: see ``pend``."""
    waiting = pend(ctx, pending_name, fresh, keys, fired)
    ctx.settle(waiting[1])
    return close(ctx, waiting, end_col)
