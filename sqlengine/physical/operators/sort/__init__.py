"""Sort / SortLimit / Limit.

Batch: sorting runs in one task (a ``single`` edge); a limit without an order keeps its
input's tasks. Over an unbounded input (streaming), as Flink's planner has them, all in
one task:

* ``ORDER BY .. LIMIT n [OFFSET m]`` (SortLimit): a Top-N over the whole input, ranks
  ``m+1 .. m+n`` (the Rank operator's epoch lowering, without a partition key): rows that
  leave the top are retracted.
* ``LIMIT n [OFFSET m]`` without an order (Limit): over an insert-only input, the first
  ``m+n`` rows to arrive (an epoch's in their order), of which the last ``n`` are emitted,
  insert-only; nothing is kept but how many rows have arrived. Over an updating input, a
  Top-N whose ties are broken by every column (which rows is not defined, in Flink too).
* ``ORDER BY`` a time attribute ascending, then any keys, without a limit (TemporalSort):
  rows wait until the watermark passes their time, then are emitted in order (late rows
  are dropped); on a processing-time attribute each epoch's rows are emitted in order.
* Anything else is Flink's planning error.
"""
from __future__ import annotations

from pyspark.sql import Window
from pyspark.sql import functions as F

from sqlengine.errors import UnsupportedError
from sqlengine.functions.varying import above
from sqlengine.hidden import Lowered, drop_eoi, fcols
from sqlengine.physical.operator import Operator, register
from sqlengine.physical.shared.rank_epoch import epoch_rank
from sqlengine.physical.shared.windows import fire_closed
from sqlengine.plan import nodes as P
from sqlengine.plan.dag import ALL_KINDS, FORWARD, INSERT_ONLY, SINGLE, Edge
from sqlengine.runtime.context import BatchContext, EpochContext
from sqlengine.runtime.exprs import sort_order

NON_TIME_SORT = "Sort on a non-time-attribute field is not supported."
NO_FETCH = "FETCH is missed, which on streaming table is not supported currently."


def _time_attr(node: P.Sort) -> str:
    """The time attribute the first sort key orders ascending by (Flink's TemporalSort),
    ROWTIME or PROCTIME; '' if none."""
    if node.limit is not None or not node.keys or not node.keys[0].ascending:
        return ""
    return (node.input.schema[node.keys[0].index].type.time_attr or "").upper()


def _top_n(node: P.Sort) -> P.Rank:
    """A streaming SortLimit (or a Limit over an updating input) as the global Top-N it is."""
    return P.Rank(node.input, (), node.keys, "ROW_NUMBER", node.offset + 1, node.offset + node.limit, False)


@register(P.Sort)
class Sort(Operator):
    def explain(self, node: P.Sort) -> str:
        names = node.input.names()
        order = ", ".join(f"{names[k.index]} {'ASC' if k.ascending else 'DESC'}" for k in node.keys)
        lim = f", offset=[{node.offset}], fetch=[{node.limit}]" if node.limit is not None else ""
        return (f"SortLimit(orderBy=[{order}]{lim})" if node.limit is not None and node.keys
                else f"Limit(offset=[{node.offset}], fetch=[{node.limit}])" if not node.keys
                else f"TemporalSort(orderBy=[{order}])" if _time_attr(node)  # (time attributes: streaming only)
                else f"Sort(orderBy=[{order}])")

    def validate(self, node: P.Sort, unbounded: bool) -> None:
        if not unbounded or node.limit is not None:
            return
        if not node.keys:
            raise UnsupportedError(NO_FETCH)
        if not _time_attr(node):
            raise UnsupportedError(NON_TIME_SORT)

    def reads_watermark(self, node: P.Sort) -> bool:
        return _time_attr(node) == "ROWTIME"

    def materializes(self, node: P.Sort) -> bool:
        """(Streaming) the Top-N's persisted changes, the first rows persisted, the rows
        fired from the persisted pending rows; a processing-time sort persists nothing."""
        return node.limit is not None or _time_attr(node) == "ROWTIME"

    def edges(self, node: P.Sort, streaming: bool) -> list[Edge]:
        return [SINGLE if node.keys or streaming else FORWARD]

    def changelog(self, node: P.Sort, inputs: list[frozenset]) -> frozenset:
        if node.limit is None or (not node.keys and inputs[0] == INSERT_ONLY):
            return inputs[0]
        return ALL_KINDS

    def lower(self, ctx: BatchContext, node: P.Sort, child: Lowered) -> Lowered:
        df = drop_eoi(child).df
        if node.keys:
            df = df.repartition(1).sortWithinPartitions(*[sort_order(k) for k in node.keys])
        if node.limit is not None:
            df = df.limit(node.limit + node.offset)
        if node.offset:
            df = df.offset(node.offset)
        return Lowered(df)

    def lower_epoch(self, ctx: EpochContext, node: P.Sort, child: Lowered) -> Lowered:
        if node.limit is not None and (node.keys or child.updating):
            rank = _top_n(node)
            if ctx.idle((child,), on_watermark=False):
                return ctx.nothing(updating=True)
            return epoch_rank(ctx, rank, child)
        if node.limit is not None:
            return _first_rows(ctx, node, child)
        return _temporal_sort(ctx, node, child)


def _first_rows(ctx: EpochContext, node: P.Sort, child: Lowered) -> Lowered:
    """Limit over an insert-only input: the epoch's rows (one task, in arrival order) up
    to the ``offset + limit``-th of all that arrived, the first ``offset`` not emitted."""
    seen = ctx.fact("rows", 0)
    wanted = node.offset + node.limit
    ctx.keep("rows", seen)
    if seen >= wanted or child.empty:
        return ctx.nothing(updating=False)
    width = len(node.input.schema)
    arrived = drop_eoi(child).df.select(*fcols(width)).withColumn("__seq", F.monotonically_increasing_id())
    taken = arrived.withColumn("__n", F.row_number().over(Window.orderBy("__seq")) + F.lit(seen)) \
        .where(F.col("__n") <= wanted)
    taken = ctx.persist(taken)
    ctx.keep("rows", seen + taken.count())
    return Lowered(taken.where(F.col("__n") > node.offset).select(*fcols(width)))


def _temporal_sort(ctx: EpochContext, node: P.Sort, child: Lowered) -> Lowered:
    """ORDER BY a time attribute ascending: rows in order once the watermark passes them."""
    width = len(node.input.schema)
    rows = drop_eoi(child).df.select(*fcols(width))
    if _time_attr(node) == "ROWTIME":
        ts = f"f{node.keys[0].index}"
        if ctx.idle((child,), on_watermark=True):
            return ctx.nothing(updating=False)
        fresh = rows.where(above(F.unix_millis(F.col(ts)), ctx.previous_input_watermark))  # late rows dropped
        rows = fire_closed(ctx, "pending", ctx.exchange(fresh, []), [], ts).select(*fcols(width))
    return Lowered(rows.orderBy(*[sort_order(k) for k in node.keys]))
