"""WindowAggregate in an epoch: rows wait in state until the watermark closes their window.

Each input row is assigned its windows (TUMBLE/HOP/CUMULATE, as the window TVF does);
rows of windows the previous watermark had already closed are late and dropped (as
Flink drops them). The rows of windows this epoch's watermark closes
(``window_end <= watermark``) are aggregated with native Spark aggregation and emitted
in this epoch, insert-only; the rest stay in the ``pending`` snapshot. SESSION windows
are found per key over the pending rows (a gap larger than the session gap starts a
new session) and fire when ``last row + gap <= watermark``.
"""
from __future__ import annotations

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import Lowered, col
from sqlengine.runtime.windows import align, window_time
from sqlengine.runtime.streaming.changes import fcols
from sqlengine.runtime.streaming.group_aggregate import MERGE


def _ms(c) -> object:
    return F.unix_millis(c)


def fire_closed(lw, node, pending_name: str, fresh: DataFrame, keys: list[str], end_col: str) -> DataFrame:
    """Add ``fresh`` rows to the node's pending rows; return the rows whose ``end_col``
    the watermark has passed, keeping the others pending (a snapshot per epoch)."""
    waiting = pend(lw, node, pending_name, fresh, keys)
    lw.settle(node, waiting[1])
    return close(lw, node, waiting, end_col)


def pend(lw, node, pending_name: str, fresh: DataFrame, keys: list[str]) -> tuple:
    """The node's pending rows plus ``fresh`` (persisted), with their state table
    (``keys``: the columns of the operator's key)."""
    ep = lw.ep
    table = ep.store.table(ep.ids[node], pending_name, fresh.schema, keys)
    return table, ep.persist(table.read(ep.epoch).unionByName(fresh))


def close(lw, node, waiting: tuple, end_col: str) -> DataFrame:
    """The pending rows the watermark closes; the others stay pending (a snapshot)."""
    table, pending = waiting
    wm = lw.input_wm(node)
    closed = pending.where(_ms(F.col(end_col)) <= F.lit(wm))
    table.write(lw.ep.epoch, pending.where(_ms(F.col(end_col)) > F.lit(wm)), snapshot=True)
    return closed


def epoch_window_aggregate(lw, node: P.WindowAggregate, child: Lowered) -> Lowered:
    spec = node.window
    if spec.kind == "SESSION":
        return _session(lw, node, child)
    mergeable = all(a.name in MERGE and not a.distinct for a in node.aggs)
    if mergeable and slice_ms(spec):
        return _sliced(lw, node, child, slice_ms(spec))
    from sqlengine.runtime.windows import lower_window_tvf
    width = len(node.input.schema)
    tvf = P.WindowTableFunction(node.input, spec, True)
    assigned = lower_window_tvf(lw, tvf, Lowered(child.df)).df
    start, end = f"f{width}", f"f{width + 1}"
    fresh = assigned.where(_ms(F.col(end)) > F.lit(lw.prev_input_wm(node)))
    if not mergeable:
        closed = fire_closed(lw, node, "pending", fresh, [f"f{k}" for k in node.keys], end)
        return Lowered(_aggregate(lw, node, closed, F.col(start), F.col(end)))
    # COUNT/SUM/MIN/MAX: only one partial row per key and window waits, not every input row.
    partial = _grouped(lw, node, fresh, F.col(start), F.col(end))
    closed = fire_closed(lw, node, "partial", partial, _partial_keys(node), "__we")
    return Lowered(_final(node, _merged(node, closed, "__ws", "__we")))


def _partial_keys(node: P.WindowAggregate) -> list[str]:
    """The key columns of partial results (k0..)."""
    return [f"k{i}" for i in range(len(node.keys))]


def _merged(node: P.WindowAggregate, partials: DataFrame, ws, we) -> DataFrame:
    """Partial results (k0.., a0..) merged per key and window (``__ws``, ``__we``)."""
    return partials.groupBy(*_partial_keys(node), F.col(ws).alias("__ws"), F.col(we).alias("__we")).agg(
        *[MERGE[a.name](f"a{j}").cast(partials.schema[f"a{j}"].dataType).alias(f"a{j}")
          for j, a in enumerate(node.aggs)] or [F.count(F.lit(1)).alias("__none")])


def slice_ms(spec: P.WindowSpec):
    """Flink's slicing: a window is a union of slices of this width (TUMBLE: its size,
    HOP: its slide, CUMULATE: its step), so a row is aggregated into one slice, not
    into each of its windows; None where the size is not a multiple of it."""
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


def _sliced(lw, node: P.WindowAggregate, child: Lowered, width_ms: int) -> Lowered:
    """COUNT/SUM/MIN/MAX over TUMBLE/HOP/CUMULATE windows: the epoch's rows aggregated per
    key and slice join the pending slices; the windows the watermark closes in this
    epoch (``end`` in (previous watermark, watermark]) merge their slices; a slice stays
    pending until its last window has fired."""
    from sqlengine.runtime.windows import windows_containing
    spec = node.window
    t = _ms(col(spec.time_col))
    s = align(t, width_ms, spec.offset_ms)
    prev = lw.prev_input_wm(node)
    fresh = child.df.where(_last_end(spec, s) > F.lit(prev))  # rows with a window still open
    keys = [col(k).alias(f"k{i}") for i, k in enumerate(node.keys)]
    aggs = lw.agg_columns(node.aggs, len(node.input.schema))
    partial = fresh.groupBy(*keys, s.alias("__ss")).agg(*(aggs or [F.count(F.lit(1)).alias("__none")]))
    table, pending = pend(lw, node, "slices", partial, _partial_keys(node))
    lw.settle(node, pending)
    wm = lw.input_wm(node)
    table.write(lw.ep.epoch, pending.where(_last_end(spec, F.col("__ss")) > F.lit(wm)), snapshot=True)
    values = [c for c in pending.columns if c != "__ss"]
    windows = pending.select(*values, F.explode(windows_containing(spec, F.col("__ss"))).alias("w"))
    end = _ms(F.col("w.end"))
    due = windows.where((end > F.lit(prev)) & (end <= F.lit(wm)))
    return Lowered(_final(node, _merged(node, due, "w.start", "w.end")))


def _grouped(lw, node: P.WindowAggregate, rows: DataFrame, start, end) -> DataFrame:
    """Rows aggregated per key (k0..) and window (``__ws``, ``__we``): columns a0.."""
    keys = [col(k).alias(f"k{i}") for i, k in enumerate(node.keys)]
    aggs = lw.agg_columns(node.aggs, len(node.input.schema))
    return rows.groupBy(*keys, start.alias("__ws"), end.alias("__we")).agg(
        *(aggs or [F.count(F.lit(1)).alias("__none")]))


def _aggregate(lw, node: P.WindowAggregate, rows: DataFrame, start, end) -> DataFrame:
    return _final(node, _grouped(lw, node, rows, start, end))


def _final(node: P.WindowAggregate, grouped: DataFrame) -> DataFrame:
    nk = len(node.keys)
    props = {"window_start": F.col("__ws"), "window_end": F.col("__we"),
             "window_time": window_time(F.col("__we"))}
    out = [F.col(f"k{i}").alias(f"f{i}") for i in range(nk)]
    out += [props[p].alias(f"f{nk + i}") for i, p in enumerate(node.props)]
    out += [F.col(f"a{j}").alias(f"f{nk + len(node.props) + j}") for j in range(len(node.aggs))]
    return grouped.select(*out)


def sessionize(node: P.WindowAggregate, rows: DataFrame) -> DataFrame:
    """``__ws``/``__we`` per row: the session (per key) it belongs to. As in Flink, rows at
    most ``gap`` apart share a session ([t, t + gap] windows that touch are merged)."""
    spec = node.window
    t = F.col(f"f{spec.time_col}")
    keys = [col(k) for k in (spec.partition_keys or node.keys)]
    by_time = Window.partitionBy(*keys).orderBy(_ms(t))
    prev_t = F.lag(_ms(t)).over(by_time)
    starts = F.when(prev_t.isNull() | (_ms(t) - prev_t > F.lit(spec.gap_ms)), 1).otherwise(0)
    marked = rows.withColumn("__new", starts).withColumn(
        "__sid", F.sum("__new").over(by_time.rowsBetween(Window.unboundedPreceding, 0)))
    session = Window.partitionBy(*keys, F.col("__sid"))
    return marked.withColumn("__ws", F.min(t).over(session)).withColumn(
        "__we", F.timestamp_millis(F.max(_ms(t)).over(session) + F.lit(spec.gap_ms)))


def _session(lw, node: P.WindowAggregate, child: Lowered) -> Lowered:
    """Sessions per key (the GROUP BY keys, or the TVF's PARTITION BY keys)."""
    ep = lw.ep
    spec = node.window
    width = len(node.input.schema)
    t = F.col(f"f{spec.time_col}")
    gap = spec.gap_ms
    fresh = child.df.where(_ms(t) + F.lit(gap) > F.lit(lw.prev_input_wm(node)))
    keys = [f"f{k}" for k in (spec.partition_keys or node.keys)]
    table = ep.store.table(ep.ids[node], "pending", fresh.select(*fcols(width)).schema, keys)
    pending = ep.persist(table.read(ep.epoch).unionByName(fresh.select(*fcols(width))))
    lw.settle(node, pending)
    marked = sessionize(node, pending)
    marked = ep.persist(marked)
    wm = lw.input_wm(node)
    closed = marked.where(_ms(F.col("__we")) <= F.lit(wm))
    out = ep.persist(_aggregate(lw, node, closed, F.col("__ws"), F.col("__we")))
    table.write(ep.epoch, marked.where(_ms(F.col("__we")) > F.lit(wm)).select(*fcols(width)), snapshot=True)
    return Lowered(out)
