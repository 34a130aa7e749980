"""GroupAggregate: unbounded GROUP BY. Batch: Spark's partial aggregation, the
exchange on the keys, the final aggregation. Per epoch: ``runtime/streaming/
group_aggregate`` (retractions, state per key)."""
from __future__ import annotations

from pyspark.sql import functions as F

from sqlengine.physical.node import INSERT_ONLY, RETRACT, Edge, Operator, hash_edge, register
from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import Lowered, col, drop_eoi


@register(P.Aggregate)
class GroupAggregate(Operator):
    stateful = True

    def validate(self, node: P.Aggregate, unbounded: bool) -> None:
        if unbounded and node.grouping_sets is not None:
            from sqlengine.errors import UnsupportedError
            raise UnsupportedError("GROUPING SETS / ROLLUP / CUBE are not supported in streaming mode yet")

    def edges(self, node: P.Aggregate, streaming: bool) -> list[Edge]:
        return [hash_edge(node.input, node.keys)]

    def changelog(self, node: P.Aggregate, inputs: list[frozenset]) -> frozenset:
        """Keys of an insert-only input are never deleted; over updates they can be."""
        return RETRACT if inputs[0] == INSERT_ONLY else RETRACT | {"D"}

    def lower(self, lw, node: P.Aggregate, child: Lowered) -> Lowered:
        return Lowered(batch_aggregate(lw, node, drop_eoi(child).df))

    def lower_epoch(self, lw, node: P.Aggregate, child: Lowered) -> Lowered:
        if lw.idle(node, (child,), on_watermark=False):
            return lw.nothing(node, updating=True)
        from sqlengine.runtime.streaming.group_aggregate import epoch_group_aggregate
        return epoch_group_aggregate(lw, node, child)


def batch_aggregate(lw, node: P.Aggregate, df):
    """The aggregation of ``df`` (columns f0..): keys then aggregates."""
    keys = [col(k) for k in node.keys]
    if any(a.distinct for a in node.aggs) and keys:
        # One exchange on the keys (Spark would shuffle on keys + distinct column first).
        df = df.repartition(lw.state.max_parallelism, *keys)
    sets = node.grouping_sets
    aggs = lw.agg_columns(node.aggs, len(node.input.schema), sets is not None)
    if sets is not None:
        grouped = df.groupingSets([[col(k) for k in s] for s in sets], *keys) \
            .agg(*(aggs or [F.lit(0).alias("__none")]))
    else:
        grouped = df.groupBy(*keys).agg(*aggs) if aggs else df.select(*keys).distinct()
    out = [F.col(f"f{k}").alias(f"f{i}") for i, k in enumerate(node.keys)]
    out += [F.col(f"a{j}").alias(f"f{len(node.keys) + j}") for j in range(len(node.aggs))]
    return grouped.select(*out)
