"""WindowAggregate in an epoch: rows wait in state until the watermark closes their window.

Each input row is assigned its windows (TUMBLE/HOP/CUMULATE, as the window TVF does);
rows of windows the previous watermark had already closed are late and dropped (as
Flink drops them). The rows of windows this epoch's watermark closes
(``window_end <= watermark``) are aggregated with native Spark aggregation and emitted
in this epoch, insert-only; the rest stay in the ``pending`` snapshot. SESSION windows
are found per key over the pending rows (a gap larger than the session gap starts a
new session) and fire when ``last row + gap <= watermark``; with COUNT/SUM/MIN/MAX only
the open sessions wait, each with its partial aggregates (``_merged_sessions``).
"""
from __future__ import annotations

from dataclasses import replace

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from sqlengine.functions.varying import above, at_most, unanchored
from sqlengine.hidden import TASK, Lowered, fcol, fcols
from sqlengine.physical.operators.window_aggregate.batch import aggregate, final, grouped, partial_keys, sessionize
from sqlengine.physical.shared.aggregates import MERGE
from sqlengine.physical.shared.windows import align, assign_windows, fire_closed, pend, windows_containing
from sqlengine.plan import nodes as P
from sqlengine.plan.lineage import fired_by
from sqlengine.runtime.context import EpochContext
from sqlengine.runtime.watermarks import WM_MAX, WM_MIN


def _ms(c) -> object:
    return F.unix_millis(c)


class ProcessingClock:
    """The clock of a window over a processing-time attribute: the epoch's processing time
    stands for the watermark (Flink fires such a window when the wall clock passes its
    end); a bounded input's end fires every window, as the final watermark does."""

    def __init__(self, ctx: EpochContext):
        self._ctx = ctx

    def __getattr__(self, name):
        return getattr(self._ctx, name)

    @property
    def previous_input_watermark(self) -> int:
        return self._ctx.fact("proctime", WM_MIN)

    @property
    def input_watermark(self) -> int:
        wm = self._ctx.input_watermark
        now = wm if wm >= WM_MAX else self._ctx.now_ms
        self._ctx.keep("proctime", now)
        return now


def epoch_window_aggregate(ctx: EpochContext, node: P.WindowAggregate, child: Lowered) -> Lowered:
    spec = node.window
    if (node.input.schema[spec.time_col].type.time_attr or "").upper() == "PROCTIME":
        ctx = ProcessingClock(ctx)
        child = _at_epoch_time(ctx, spec.time_col, child)
    if spec.kind == "SESSION" and spec.attached is None:
        return _session(ctx, node, child)
    mergeable = _mergeable(node)
    if mergeable and slice_ms(spec):
        return _sliced(ctx, node, child, slice_ms(spec))
    width = len(node.input.schema)
    assigned = assign_windows(spec, child.df, width)
    start, end = f"f{width}", f"f{width + 1}"
    fresh = assigned.where(above(_ms(F.col(end)), ctx.previous_input_watermark))
    if not mergeable:
        fresh = ctx.exchange(fresh, [fcol(k) for k in node.keys])
        closed = fire_closed(ctx, "pending", fresh, [f"f{k}" for k in node.keys], end, _fired(node))
        return Lowered(aggregate(ctx, node, closed, F.col(start), F.col(end), keyed=True))
    # COUNT/SUM/MIN/MAX: only one partial row per key and window waits, not every input row.
    partial = _routed(ctx, node, grouped(ctx, node, fresh, F.col(start), F.col(end)))
    closed = fire_closed(ctx, "partial", partial, partial_keys(node), "__we", _fired(node))
    return Lowered(final(node, _merged(node, closed, "__ws", "__we")))


def _at_epoch_time(ctx: ProcessingClock, index: int, child: Lowered) -> Lowered:
    """The rows' processing time as the epoch's (the clock its windows fire by), out of the
    generated code. ``PROCTIME()`` is Spark's ``current_timestamp()``, which each job
    writes into its code as a literal, and every window bound computed from it folds into
    one: each epoch in a new window compiled the window's stages anew (Janino, then C2 on
    their hot methods). Nexmark's q12: 45 classes in 8 epochs, the last epoch's four new
    only by a window's start; the JIT's threads took as much CPU as the tasks."""
    now = F.timestamp_millis(unanchored(ctx.now_ms))
    return replace(child, df=child.df.withColumn(f"f{index}", now))


def _fired(node: P.WindowAggregate):
    """The window aggregation below that fired the attached windows (``lineage.fired_by``)."""
    return fired_by(node.input, node.window.attached[1]) if node.window.attached is not None else None


def _routed(ctx: EpochContext, node: P.WindowAggregate, partial: DataFrame) -> DataFrame:
    """Partial results (k0..) through the node's exchange: Spark's partial aggregation
    stands in for Flink's local window aggregation, so one row per key and window or
    slice crosses it, not every input row."""
    return ctx.exchange(partial, [F.col(k) for k in partial_keys(node)])


def _merged(node: P.WindowAggregate, partials: DataFrame, ws, we) -> DataFrame:
    """Partial results (k0.., a0..) merged per key and window (``__ws``, ``__we``)."""
    return partials.groupBy(*partial_keys(node), TASK, F.col(ws).alias("__ws"), F.col(we).alias("__we")).agg(
        *[MERGE[a.name](f"a{j}").cast(partials.schema[f"a{j}"].dataType).alias(f"a{j}")
          for j, a in enumerate(node.aggs)] or [F.count(F.lit(1)).alias("__none")])


def slice_ms(spec: P.WindowSpec):
    """Flink's slicing: a window is a union of slices of this width (TUMBLE: its size,
    HOP: its slide, CUMULATE: its step), so a row is aggregated into one slice, not
    into each of its windows; None where the size is not a multiple of it, or where
    each row's window is given (``attached``)."""
    if spec.attached is not None:
        return None
    if spec.kind == "TUMBLE":
        return spec.size_ms
    if spec.kind in ("HOP", "CUMULATE") and spec.slide_ms and spec.size_ms % spec.slide_ms == 0:
        return spec.slide_ms
    return None


def _last_end(spec: P.WindowSpec, s):
    """The end of the last window holding the slice that starts at ``s`` (ms)."""
    if spec.kind == "CUMULATE":
        return align(s, spec.size_ms, spec.offset_ms) + F.lit(spec.size_ms)
    return s + F.lit(spec.size_ms)  # the window that starts with the slice


def _sliced(ctx: EpochContext, node: P.WindowAggregate, child: Lowered, width_ms: int) -> Lowered:
    """COUNT/SUM/MIN/MAX over TUMBLE/HOP/CUMULATE windows: the epoch's rows aggregated per
    key and slice join the pending slices; the windows the watermark closes in this
    epoch (``end`` in (previous watermark, watermark]) merge their slices; a slice stays
    pending until its last window has fired."""
    spec = node.window
    t = _ms(fcol(spec.time_col))
    s = align(t, width_ms, spec.offset_ms)
    prev = ctx.previous_input_watermark
    fresh = child.df.where(above(_last_end(spec, s), prev))  # rows with a window still open
    keys = [fcol(k).alias(f"k{i}") for i, k in enumerate(node.keys)]
    aggs = ctx.aggregates(node.aggs)
    partial = fresh.groupBy(*keys, s.alias("__ss")).agg(*(aggs or [F.count(F.lit(1)).alias("__none")]))
    table, pending = pend(ctx, "slices", _routed(ctx, node, partial), partial_keys(node))
    ctx.settle(pending)
    wm = ctx.input_watermark
    table.write(ctx.epoch, pending.where(above(_last_end(spec, F.col("__ss")), wm)), snapshot=True)
    values = [c for c in pending.columns if c != "__ss"]
    windows = pending.select(*values, F.explode(windows_containing(spec, F.col("__ss"))).alias("w"))
    end = _ms(F.col("w.end"))
    due = windows.where(above(end, prev) & at_most(end, wm))
    return Lowered(final(node, _merged(node, due, "w.start", "w.end")))


def _session(ctx: EpochContext, node: P.WindowAggregate, child: Lowered) -> Lowered:
    """Sessions per key (the GROUP BY keys, or the TVF's PARTITION BY keys)."""
    spec = node.window
    if _mergeable(node) and set(spec.partition_keys or node.keys) == set(node.keys) and not ctx.stored("pending"):
        return _merged_sessions(ctx, node, child)  # (a job restored from pending rows keeps them)
    width = len(node.input.schema)
    prev = ctx.previous_input_watermark
    keys = [f"f{k}" for k in (spec.partition_keys or node.keys)]
    fresh = ctx.exchange(child.df.select(*fcols(width)), [F.col(k) for k in keys])
    table = ctx.table("pending", fresh.schema, keys)
    pending = ctx.persist(table.read(ctx.epoch).unionByName(fresh))
    ctx.settle(pending)
    marked = ctx.persist(sessionize(node, pending))
    wm = ctx.input_watermark
    we = _ms(F.col("__we"))
    # A session the previous watermark had closed holds only late rows (every pending row's
    # session was open): dropped, as Flink drops a row whose merged window is late.
    closed = marked.where(above(we, prev) & at_most(we, wm))
    out = ctx.persist(aggregate(ctx, node, closed, F.col("__ws"), F.col("__we")))
    table.write(ctx.epoch, marked.where(above(we, wm)), snapshot=True)
    return Lowered(out)


def _merged_sessions(ctx: EpochContext, node: P.WindowAggregate, child: Lowered) -> Lowered:
    """COUNT/SUM/MIN/MAX over SESSION windows whose sessions are those of the grouping key:
    Flink's merging window set. State ``sessions``: per key its open sessions, each an
    interval ``[first row, last row + gap]`` with its partial aggregates (not its rows).
    The epoch's rows are sessionized among themselves and aggregated per key and session;
    with the stored sessions, the intervals of a key that touch are merged (in order of
    start, a session begins at an interval that starts after every earlier one ends, as
    rows more than the gap apart begin one), their partials merged; the merged sessions
    the watermark closes are emitted, the others stored. A row is late when its merged
    session is (Flink: a row that falls into an open session counts, however old). An
    epoch's cost: its rows and the open sessions, not every row of every open session."""
    spec = node.window
    width = len(node.input.schema)
    prev = ctx.previous_input_watermark
    fresh = ctx.exchange(child.df.select(*fcols(width)), [fcol(k) for k in node.keys])
    part = grouped(ctx, node, sessionize(node, fresh), F.col("__ws"), F.col("__we"), keyed=True)
    table, both = pend(ctx, "sessions", part, partial_keys(node))
    ctx.settle(both)
    keys = partial_keys(node) + [TASK]
    by_start = Window.partitionBy(*keys).orderBy(_ms(F.col("__ws")), _ms(F.col("__we")))
    reach = F.max(_ms(F.col("__we"))).over(by_start.rowsBetween(Window.unboundedPreceding, -1))
    begins = F.when(reach.isNull() | (_ms(F.col("__ws")) > reach), 1).otherwise(0)
    marked = both.withColumn("__sid", F.sum(begins).over(by_start.rowsBetween(Window.unboundedPreceding, 0)))
    accs = [c for c in part.columns if c not in keys and c not in ("__ws", "__we")]
    merge = {f"a{j}": MERGE[a.name] for j, a in enumerate(node.aggs)}
    merged = ctx.persist(marked.groupBy(*keys, "__sid").agg(
        F.min("__ws").alias("__ws"), F.max("__we").alias("__we"),
        *[merge.get(c, F.sum)(c).cast(part.schema[c].dataType).alias(c) for c in accs]).drop("__sid"))
    we = _ms(F.col("__we"))
    wm = ctx.input_watermark
    table.write(ctx.epoch, merged.where(above(we, wm)), snapshot=True)
    # (a session the previous watermark had closed holds only late rows: dropped)
    return Lowered(final(node, merged.where(above(we, prev) & at_most(we, wm))))


def _mergeable(node: P.WindowAggregate) -> bool:
    """COUNT/SUM/MIN/MAX (no DISTINCT, no Python aggregate): partial results merge."""
    return all(a.name in MERGE and not a.distinct and a.function is None for a in node.aggs)
