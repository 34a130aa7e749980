"""OVER aggregation in an epoch (Flink's event-time OverAggregate).

A row is emitted once the watermark passes its time (rows with equal times together),
with its aggregates over the rows before it in its partition; so rows wait in
``pending`` until then, and the rows a frame can still reach stay in ``history``
(ROWS n PRECEDING: the last n per partition; RANGE t PRECEDING: the rows within t of
the watermark; UNBOUNDED PRECEDING: all). Rows older than the previous watermark are
late and dropped, as in Flink. Output is insert-only.
"""
from __future__ import annotations

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from sqlengine.errors import UnsupportedError
from sqlengine.functions.registry import lookup_aggregate, to_arg
from sqlengine.functions.varying import above, at_least, at_most
from sqlengine.hidden import TASK, Lowered, fcols
from sqlengine.hidden import fcol as col
from sqlengine.physical.shared.ranking import RANKING
from sqlengine.plan import nodes as P
from sqlengine.runtime.context import BatchContext, EpochContext
from sqlengine.runtime.delta import key_frame
from sqlengine.runtime.exprs import sort_order

NEW = "__new"


def over_columns(ctx: BatchContext, node: P.Over) -> list[Column]:
    """One Spark window expression per call (shared partition/order, per-call frame)."""
    width = len(node.input.schema)
    out = []
    for j, c in enumerate(node.calls):
        w = _window(node, c.frame)
        if c.name in ("ROW_NUMBER", "RANK", "DENSE_RANK"):
            expr = RANKING[c.name]().over(_window(node, None)).cast("long")
        elif c.name in ("LAG", "LEAD"):
            if c.name == "LEAD":  # a row's value would depend on rows not yet seen
                raise UnsupportedError("LEAD is not supported in streaming OVER aggregations")
            args = [ctx.expr(a) for a in c.args]
            expr = F.lag(args[0], _lag_offset(c)).over(_window(node, None))
            if len(c.args) > 2:
                expr = F.coalesce(expr, args[2])
        elif c.function is not None:
            from sqlengine.functions.python_udaf import lower_aggregate
            expr = lower_aggregate(c.function, c.name, [ctx.expr(a) for a in c.args], c.type, c.distinct, None, w)
        else:
            agg = lookup_aggregate(c.name)
            args = [ctx.expr(a) for a in c.args]
            expr = agg.lower_over(args, [to_arg(a) for a in c.args], c.type, c.distinct, None,
                                  ctx.functions, w)
        out.append(expr.alias(f"f{width + j}"))
    return out


def _window(node: P.Over, frame):
    part = [col(k) for k in node.partition_keys] + [F.col(TASK)]  # a partition on its key's task
    if frame is None:
        return Window.partitionBy(*part).orderBy(*[sort_order(k) for k in node.order_keys])
    lower = Window.unboundedPreceding if frame.lower is None else -frame.lower
    if frame.kind == "ROWS":
        return Window.partitionBy(*part).orderBy(*[sort_order(k) for k in node.order_keys]).rowsBetween(lower, 0)
    t = node.order_keys[0]
    key = F.unix_millis(col(t.index)) if node.input.schema[t.index].type.root.startswith("TIMESTAMP") \
        else col(t.index)
    return Window.partitionBy(*part).orderBy(key).rangeBetween(lower, 0)


def epoch_over(ctx: EpochContext, node: P.Over, child: Lowered) -> Lowered:
    width = len(node.input.schema)
    t = f"f{node.order_keys[0].index}"
    ms = F.unix_millis(F.col(t))
    prev = ctx.previous_input_watermark
    fresh = ctx.exchange(child.df.select(*fcols(width)).where(above(ms, prev)),
                         [col(k) for k in node.partition_keys])
    keys = [f"f{k}" for k in node.partition_keys]
    pending_t = ctx.table("pending", fresh.schema, keys)
    history_t = ctx.table("history", fresh.schema, keys)
    pending = ctx.persist(pending_t.read(ctx.epoch).unionByName(fresh))
    ctx.settle(pending)
    wm = ctx.input_watermark
    ready = ctx.persist(pending.where(at_most(ms, wm)))
    history = history_t.read(ctx.epoch)
    touched = ctx.touched(key_frame(ready, keys + [TASK]), history_t)
    rows = touched.rows(history, keys + [TASK]).withColumn(NEW, F.lit(False)).unionByName(
        ready.withColumn(NEW, F.lit(True)))
    out = rows.select(*fcols(width), *over_columns(ctx, node), NEW).where(F.col(NEW)).drop(NEW)
    out = ctx.persist(out)
    pending_t.write(ctx.epoch, pending.where(above(ms, wm)), snapshot=True)
    history_t.write(ctx.epoch, _prune(node, history.unionByName(ready), wm), snapshot=True)
    return Lowered(out)


def _lag_offset(c: P.OverCall) -> int:
    return int(c.args[1].value) if len(c.args) > 1 else 1


def _prune(node: P.Over, rows: DataFrame, wm: int) -> DataFrame:
    """The rows a later row's frame can still reach (LAG(x, n): the n rows before it)."""
    from types import SimpleNamespace
    frames = [SimpleNamespace(kind="ROWS", lower=_lag_offset(c)) if c.name == "LAG" else c.frame
              for c in node.calls if c.name not in ("ROW_NUMBER", "RANK", "DENSE_RANK")]
    if any(f is None or f.lower is None for f in frames) or not frames or any(
            c.name in ("ROW_NUMBER", "RANK", "DENSE_RANK") for c in node.calls):
        return rows
    t = f"f{node.order_keys[0].index}"
    if all(f.kind == "RANGE" for f in frames):
        reach = max(f.lower for f in frames)
        return rows.where(at_least(F.unix_millis(F.col(t)), wm - reach))
    if all(f.kind == "ROWS" for f in frames):
        n = max(f.lower for f in frames)
        w = Window.partitionBy(*[col(k) for k in node.partition_keys], F.col(TASK)).orderBy(F.col(t).desc())
        return rows.withColumn("__rn", F.row_number().over(w)).where(F.col("__rn") <= n).drop("__rn")
    return rows
