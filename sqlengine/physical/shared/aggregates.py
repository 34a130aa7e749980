"""Grouped aggregation of a node's input with Spark's native aggregates (GROUP BY and
window aggregation share it), and the merges of COUNT/SUM/MIN/MAX partial results."""
from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from sqlengine.hidden import TASK, fcol
from sqlengine.plan import nodes as P
from sqlengine.runtime.context import BatchContext

# Over an insert-only input, these aggregates' results are their own accumulators: two
# partial results of one group merge with these.
MERGE = {"COUNT": F.sum, "SUM": F.sum, "MIN": F.min, "MAX": F.max}


def batch_aggregate(ctx: BatchContext, node: P.Aggregate, df: DataFrame, keyed: bool = False,
                    folded: bool = False) -> DataFrame:
    """The aggregation of ``df`` (columns f0..): keys then aggregates; ``keyed``: ``df``
    came through the node's exchange, whose ``__task`` is kept (a key of the grouping);
    ``folded``: accumulator-based Python aggregates are left NULL (their state has them)."""
    keys = [fcol(k) for k in node.keys]
    task = [F.col(TASK)] if keyed else []
    if any(a.distinct for a in node.aggs) and keys and not keyed:
        # One exchange on the keys (Spark would shuffle on keys + distinct column first).
        df = df.repartition(ctx.shuffle_partitions, *keys)
    sets = node.grouping_sets
    aggs = ctx.aggregates(node.aggs, sets is not None, folded)
    if sets is not None:
        grouped = df.groupingSets([[fcol(k) for k in s] for s in sets], *keys) \
            .agg(*(aggs or [F.lit(0).alias("__none")]))
    else:
        grouped = df.groupBy(*keys, *task).agg(*aggs) if aggs else df.select(*keys, *task).distinct()
    out = [F.col(f"f{k}").alias(f"f{i}") for i, k in enumerate(node.keys)]
    out += [F.col(f"a{j}").alias(f"f{len(node.keys) + j}") for j in range(len(node.aggs))]
    return grouped.select(*out, *task)
