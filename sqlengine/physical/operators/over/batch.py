"""OVER aggregation in batch: Spark window functions, one per call.

ROWS frames count rows; RANGE frames with an offset order by the order key's value
(epoch milliseconds for timestamps), so ``RANGE BETWEEN INTERVAL '10' MINUTE
PRECEDING AND CURRENT ROW`` is ``rangeBetween(-600000, 0)``."""
from __future__ import annotations

from pyspark.sql import Column, DataFrame, Window, WindowSpec
from pyspark.sql import functions as F

from sqlengine.errors import UnsupportedError
from sqlengine.functions.registry import lookup_aggregate, to_arg
from sqlengine.hidden import fcol as col
from sqlengine.physical.shared.ranking import RANKING, window
from sqlengine.plan import nodes as P
from sqlengine.runtime.context import BatchContext


def _range_key(node: P.Over) -> Column:
    k = node.order_keys[0]
    t = node.input.schema[k.index].type
    c = F.unix_millis(col(k.index)) if t.is_timestamp else col(k.index)
    if t.root == "DATE":
        c = F.unix_date(col(k.index)).cast("long") * 86400000
    return c.asc_nulls_first() if k.ascending else c.desc_nulls_last()


def _bound(v, unbounded: int) -> int:
    return unbounded if v is None else v


def frame_window(node: P.Over, frame: P.Frame) -> WindowSpec:
    if not node.order_keys:
        return window(node.partition_keys, ()).rowsBetween(Window.unboundedPreceding, Window.unboundedFollowing)
    lower = Window.unboundedPreceding if frame.lower is None else -frame.lower
    upper = Window.unboundedFollowing if frame.upper is None else frame.upper
    if frame.kind == "ROWS":
        return window(node.partition_keys, node.order_keys).rowsBetween(lower, upper)
    if frame.lower is None and frame.upper in (0, None):
        return window(node.partition_keys, node.order_keys).rangeBetween(lower, upper)
    w = Window.partitionBy(*[col(k) for k in node.partition_keys]).orderBy(_range_key(node))
    return w.rangeBetween(lower, upper)


def over_column(ctx: BatchContext, node: P.Over, call: P.OverCall) -> Column:
    if call.name in RANKING:
        return RANKING[call.name]().over(window(node.partition_keys, node.order_keys)).cast("long")
    if call.name in BATCH_RANKING:
        return BATCH_RANKING[call.name](node, call)
    if call.name in ("LAG", "LEAD"):
        fn = F.lag if call.name == "LAG" else F.lead
        args = [ctx.expr(a) for a in call.args]
        offset = int(call.args[1].value) if len(call.args) > 1 else 1
        default = args[2] if len(call.args) > 2 else None
        out = fn(args[0], offset).over(window(node.partition_keys, node.order_keys))
        return F.coalesce(out, default) if default is not None else out
    cols = [ctx.expr(a) for a in call.args]
    if call.function is not None:
        from sqlengine.functions.python_udaf import lower_aggregate
        return lower_aggregate(call.function, call.name, cols, call.type, call.distinct, None,
                               frame_window(node, call.frame))
    fn = lookup_aggregate(call.name)
    if fn is None:
        raise UnsupportedError(f"Unsupported OVER function {call.name}")
    return fn.lower_over(cols, [to_arg(a) for a in call.args], call.type, call.distinct, None,
                         ctx.functions, frame_window(node, call.frame))


def _cume_dist(node: P.Over, call: P.OverCall) -> Column:
    """Flink's CUME_DIST: the row's number over the partition's rows (peers are not
    counted together: Flink 2.3 gives 0.5 and 0.75 to two equal values of four rows)."""
    partition = window(node.partition_keys, ()).rowsBetween(Window.unboundedPreceding, Window.unboundedFollowing)
    number = F.row_number().over(window(node.partition_keys, node.order_keys))
    return number.cast("double") / F.count(F.lit(1)).over(partition).cast("double")


BATCH_RANKING = {
    "PERCENT_RANK": lambda node, call: F.percent_rank().over(window(node.partition_keys, node.order_keys)),
    "CUME_DIST": _cume_dist,
    "NTILE": lambda node, call: F.ntile(int(call.args[0].value)).over(
        window(node.partition_keys, node.order_keys)).cast("long"),
}


def batch_over(ctx: BatchContext, node: P.Over, df: DataFrame) -> DataFrame:
    """The input columns, then one column per call."""
    n = len(node.input.schema)
    calls = [over_column(ctx, node, c).cast(c.type.to_spark()).alias(f"f{n + j}") for j, c in enumerate(node.calls)]
    return df.select(*[col(i) for i in range(n)], *calls)
