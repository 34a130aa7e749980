"""Window aggregation over whole inputs: every row's windows, then one grouped
aggregation per key and window (sessions found per key first)."""
from __future__ import annotations

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from sqlengine.hidden import TASK, fcol
from sqlengine.physical.shared.windows import assign_windows, window_time
from sqlengine.plan import nodes as P
from sqlengine.runtime.context import BatchContext


def batch_window_aggregate(ctx: BatchContext, node: P.WindowAggregate, df: DataFrame) -> DataFrame:
    spec = node.window
    if spec.kind == "SESSION" and spec.attached is None:
        return aggregate(ctx, node, sessionize(node, df), F.col("__ws"), F.col("__we"))
    width = len(node.input.schema)
    assigned = assign_windows(spec, df, width)
    return aggregate(ctx, node, assigned, F.col(f"f{width}"), F.col(f"f{width + 1}"))


def partial_keys(node: P.WindowAggregate) -> list[str]:
    """The key columns of grouped rows (k0..)."""
    return [f"k{i}" for i in range(len(node.keys))]


def grouped(ctx: BatchContext, node: P.WindowAggregate, rows: DataFrame, start: Column, end: Column,
            keyed: bool = False) -> DataFrame:
    """Rows aggregated per key (k0..) and window (``__ws``, ``__we``): columns a0..;
    ``keyed``: the rows came through the node's exchange (its ``__task`` is a key too)."""
    keys = [fcol(k).alias(f"k{i}") for i, k in enumerate(node.keys)] + ([F.col(TASK)] if keyed else [])
    aggs = ctx.aggregates(node.aggs)
    return rows.groupBy(*keys, start.alias("__ws"), end.alias("__we")).agg(
        *(aggs or [F.count(F.lit(1)).alias("__none")]))


def aggregate(ctx: BatchContext, node: P.WindowAggregate, rows: DataFrame, start: Column, end: Column,
              keyed: bool = False) -> DataFrame:
    return final(node, grouped(ctx, node, rows, start, end, keyed))


def final(node: P.WindowAggregate, grouped_rows: DataFrame) -> DataFrame:
    """The node's output columns from grouped rows (k0.., ``__ws``, ``__we``, a0..)."""
    nk = len(node.keys)
    props = {"window_start": F.col("__ws"), "window_end": F.col("__we"),
             "window_time": window_time(F.col("__we"))}
    out = [F.col(f"k{i}").alias(f"f{i}") for i in range(nk)]
    out += [props[p].alias(f"f{nk + i}") for i, p in enumerate(node.props)]
    out += [F.col(f"a{j}").alias(f"f{nk + len(node.props) + j}") for j in range(len(node.aggs))]
    return grouped_rows.select(*out)


def sessionize(node: P.WindowAggregate, rows: DataFrame) -> DataFrame:
    """``__ws``/``__we`` per row: the session (per key) it belongs to. As in Flink, rows at
    most ``gap`` apart share a session ([t, t + gap] windows that touch are merged)."""
    spec = node.window
    t = F.col(f"f{spec.time_col}")
    keys = [fcol(k) for k in (spec.partition_keys or node.keys)]
    if TASK in rows.columns:  # behind the node's exchange: sessions are found on each key's task
        keys.append(F.col(TASK))
    by_time = Window.partitionBy(*keys).orderBy(F.unix_millis(t))
    prev_t = F.lag(F.unix_millis(t)).over(by_time)
    starts = F.when(prev_t.isNull() | (F.unix_millis(t) - prev_t > F.lit(spec.gap_ms)), 1).otherwise(0)
    marked = rows.withColumn("__new", starts).withColumn(
        "__sid", F.sum("__new").over(by_time.rowsBetween(Window.unboundedPreceding, 0)))
    session = Window.partitionBy(*keys, F.col("__sid"))
    return marked.withColumn("__ws", F.min(t).over(session)).withColumn(
        "__we", F.timestamp_millis(F.max(F.unix_millis(t)).over(session) + F.lit(spec.gap_ms)))
