"""Rank (Top-N, deduplication) in an epoch: the Rank operator's, and the streaming
SortLimit's (a global Top-N; physical/operators/sort).

* Partitioned by a window's bounds (window Top-N / window deduplication): rows wait
  until the watermark closes their window; closed windows are ranked as a batch and
  emitted insert-only.
* Otherwise (unbounded Top-N): the partitions an epoch touches are re-ranked and the
  difference to their previous result is emitted (``+I``/``-D``). Over an insert-only
  input a row that falls out of the top N can never return, so state keeps only the
  top rows per partition (a log of what entered and left them); over an updating input
  it keeps the input multiset.
Ties are broken by all columns, so a partition's ranking is deterministic.
"""
from __future__ import annotations

from dataclasses import replace

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F
from pyspark.sql.types import MapType

from sqlengine.functions.varying import above
from sqlengine.hidden import COUNT, OP, TASK, Lowered, fcols
from sqlengine.hidden import fcol as col
from sqlengine.physical.shared.logs import append_log
from sqlengine.physical.shared.ranking import RANKING
from sqlengine.physical.shared.windows import fire_closed
from sqlengine.plan import nodes as P
from sqlengine.plan.lineage import fired_by, window_prop
from sqlengine.runtime.context import EpochContext
from sqlengine.runtime.delta import (columns, diff, emit_inserts_deletes, epoch_delta, expand, key_frame,
                                     net)
from sqlengine.runtime.exprs import sort_order
from sqlengine.runtime.touched import Touched


def is_window_rank(node: P.Rank) -> bool:
    """Window Top-N / dedup: partitioned by window_start and window_end of a window TVF or
    window aggregate, so each window's result is final when the watermark passes it."""
    props = {window_prop(node.input, k) for k in node.partition_keys}
    return {"window_start", "window_end"} <= props


def rank_rows(node: P.Rank, df: DataFrame) -> DataFrame:
    """The node over whole partitions of ``df`` (columns f0.. and ``__task``: each
    partition on its key's task); result: the node's columns and ``__task``."""
    width = len(node.input.schema)
    ties = [F.col(c).asc_nulls_first() for c in fcols(width)
            if not isinstance(df.schema[c].dataType, MapType)]
    w = Window.partitionBy(*[col(k) for k in node.partition_keys], F.col(TASK)).orderBy(
        *[sort_order(k) for k in node.order_keys], *ties)
    ranked = df.withColumn("__rk", RANKING[node.rank_fn]().over(w))
    kept = ranked.where((F.col("__rk") >= node.rank_start) & (F.col("__rk") <= node.rank_end))
    extra = [F.col("__rk").cast("long").alias(f"f{width}")] if node.output_rank else []
    return kept.select(*fcols(width), *extra, TASK)


def candidates(node: P.Rank, df: DataFrame) -> DataFrame:
    """The rows of an insert-only epoch that can enter their partition's top ``rank_end``:
    a row outside the epoch's own top ``rank_end`` of its partition has that many rows
    ahead of it already (for ROW_NUMBER, RANK and DENSE_RANK alike), so it never can.
    Spark limits each of its partitions to those rows before it shuffles them
    (``WindowGroupLimit``): the edge's exchange moves the candidates, not the epoch."""
    width = len(node.input.schema)
    ties = [F.col(c).asc_nulls_first() for c in fcols(width)
            if not isinstance(df.schema[c].dataType, MapType)]
    w = Window.partitionBy(*[col(k) for k in node.partition_keys]).orderBy(
        *[sort_order(k) for k in node.order_keys], *ties)
    ranked = df.select(*fcols(width)).withColumn("__rk", RANKING[node.rank_fn]().over(w))
    return ranked.where(F.col("__rk") <= node.rank_end).drop("__rk")


def epoch_rank(ctx: EpochContext, node: P.Rank, child: Lowered) -> Lowered:
    if is_window_rank(node) and not child.updating:
        end = next(k for k in node.partition_keys if window_prop(node.input, k) == "window_end")
        return _window_rank(ctx, node, child, end)
    width = len(node.input.schema)
    cols = columns(width)
    keys = [f"f{k}" for k in node.partition_keys] + [TASK]
    rows = child.df if child.updating else candidates(node, child.df)
    routed = ctx.exchange(rows, [col(k) for k in node.partition_keys])
    delta = ctx.persist(epoch_delta(routed, child.updating, cols))
    table = ctx.table("input", delta.schema, keys[:-1])
    touched = ctx.touched(key_frame(delta, keys), table)
    expiry = ctx.expiry("input", touched.frame, keyed=bool(node.partition_keys))
    stored = table.read(ctx.epoch)
    previous = expiry.live(stored, keys)
    if not child.updating:
        return _insert_only(ctx, node, delta, touched, table, stored, previous, keys, expiry)
    old_in = ctx.persist(net(touched.rows(previous, keys), cols))
    new_in = net(old_in.unionByName(delta), cols)
    out_cols = columns(len(node.schema))
    ones = F.lit(1).cast("long").alias(COUNT)
    new_out = rank_rows(node, expand(new_in)).select(*out_cols, ones)
    old_out = rank_rows(node, expand(old_in)).select(*out_cols, ones)
    changes = ctx.persist(emit_inserts_deletes(diff(new_out, old_out, out_cols)))
    append_log(table, ctx.epoch, expiry.retract(stored, delta, keys), cols)
    return Lowered(changes.select(*fcols(len(node.schema)), OP), False, True)


def _insert_only(ctx: EpochContext, node: P.Rank, delta: DataFrame, touched: Touched, table, stored: DataFrame,
                 previous: DataFrame, keys: list[str], expiry) -> Lowered:
    """Top-N over an insert-only input: state holds only the rows ranked up to
    ``rank_end`` per partition (nothing else can enter the top later), as a log of
    changes: an epoch appends what entered and left the touched partitions' top rows, not
    the whole table again. The touched partitions are ranked once, and that ranking gives
    both the output and the state."""
    width = len(node.input.schema)
    cols = columns(width)
    ones = F.lit(1).cast("long").alias(COUNT)
    old_in = ctx.persist(expand(net(touched.rows(previous, keys), cols)))
    head = replace(node, rank_start=1, output_rank=True)
    ranked = ctx.persist(rank_rows(head, old_in.unionByName(delta.drop(COUNT))))
    rank = F.col(f"f{width}")
    out_cols = columns(len(node.schema))
    new_out = ranked.where(rank >= node.rank_start).select(
        *fcols(width), *([rank] if node.output_rank else []), TASK, ones)
    old_out = rank_rows(node, old_in).select(*out_cols, ones)
    changes = ctx.persist(emit_inserts_deletes(diff(new_out, old_out, out_cols)))
    kept = diff(ranked.select(*cols, ones), old_in.select(*cols, ones), cols)
    append_log(table, ctx.epoch, expiry.retract(stored, kept, keys), cols)
    return Lowered(changes.select(*fcols(len(node.schema)), OP), False, True)


def _window_rank(ctx: EpochContext, node: P.Rank, child: Lowered, end: int) -> Lowered:
    width = len(node.input.schema)
    fresh = child.df.select(*fcols(width)).where(
        above(F.unix_millis(F.col(f"f{end}")), ctx.previous_input_watermark))
    fresh = ctx.exchange(fresh, [col(k) for k in node.partition_keys])
    closed = fire_closed(ctx, "pending", fresh, [f"f{k}" for k in node.partition_keys], f"f{end}",
                         fired_by(node.input, end))
    return Lowered(rank_rows(node, closed).select(*fcols(len(node.schema))))
